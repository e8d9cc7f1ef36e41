//! [`NarrowMut`]: a mutable packed array borrowed over bytes that something
//! else owns; its reads go through [`NarrowRef`].

use alloc::boxed::Box;
use core::fmt;
use core::marker::PhantomData;

use super::borrowed::{dense, value_at};
use super::bytes::{check_stream, pack_into_bytes, write_bits};
use super::raw::check_index;
use super::{NarrowRef, bulk};
use crate::error::LengthOf;
use crate::shape::check_len;
use crate::shape::shape_accessors;
use crate::view::ViewMut;
use crate::{BitElement, Error, Result, Unsigned};

/// A mutable packed array borrowed over bytes (see [`NarrowRef`] for the
/// layout and the reads, through [`as_ref`](Self::as_ref)).
///
/// Writes ([`set`](Self::set), [`pack_from`](Self::pack_from),
/// [`fill`](Self::fill)) keep the padding zero and validate before they
/// write. A strided [`view_mut`](Self::view_mut) writes 64-bit words in
/// place, so it needs the buffer 8-byte aligned and covering whole words.
///
/// # Examples
///
/// ```
/// use arbitrary_int::u4;
/// use bitpack::NarrowMut;
///
/// let mut bytes = [0u8; 2];
/// let mut a = NarrowMut::<u4>::from_bytes(&mut bytes, 3)?;
/// a.set(2, u4::new(9))?;
/// a.set(0, u4::new(1))?;
/// assert!(a.set(3, u4::new(1)).is_err());
/// assert_eq!(a.as_ref().sum(), 10);
/// assert_eq!(bytes, [0x01, 0x09]);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub struct NarrowMut<'a, T: BitElement> {
    bytes: &'a mut [u8],
    len: usize,
    dims: Option<Box<[usize]>>,
    _values: PhantomData<T>,
}

impl<T: BitElement> fmt::Debug for NarrowMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NarrowMut")
            .field("shape", &self.shape())
            .field("bytes", &self.as_bytes())
            .finish()
    }
}

impl<'a, T: BitElement> NarrowMut<'a, T> {
    /// Borrows `bytes` mutably as the dense stream of `len` values (1-d),
    /// after the checks of [`NarrowRef::from_bytes`].
    ///
    /// # Errors
    ///
    /// As [`NarrowRef::from_bytes`].
    ///
    /// # Examples
    ///
    /// ```
    /// let mut bytes = [0u8; 1];
    /// let mut a = bitpack::NarrowMut::<bool>::from_bytes(&mut bytes, 3)?;
    /// a.pack_from(&[true, true, false])?;
    /// assert_eq!(bytes, [0b011]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_bytes(bytes: &'a mut [u8], len: usize) -> Result<Self> {
        check_stream("NarrowMut::from_bytes", bytes, len, T::BITS)?;
        Ok(Self {
            bytes,
            len,
            dims: None,
            _values: PhantomData,
        })
    }

    shape_accessors! { fields:
        /// The number of values.
        ///
        /// # Examples
        ///
        /// ```
        /// assert_eq!(bitpack::NarrowMut::<u8>::from_bytes(&mut [0; 3], 3)?.len(), 3);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        len;
        /// Whether there are no values.
        ///
        /// # Examples
        ///
        /// ```
        /// assert!(bitpack::NarrowMut::<u8>::from_bytes(&mut [], 0)?.is_empty());
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        is_empty;
        /// The shape, row-major.
        ///
        /// # Examples
        ///
        /// ```
        /// assert_eq!(bitpack::NarrowMut::<u8>::from_bytes(&mut [0; 3], 3)?.shape(), [3]);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        shape;
        /// Gives the array a new shape with the same number of values.
        ///
        /// # Errors
        ///
        /// As [`NarrowRef::reshape`].
        ///
        /// # Examples
        ///
        /// ```
        /// let mut bytes = [0u8; 4];
        /// let mut a = bitpack::NarrowMut::<u8>::from_bytes(&mut bytes, 4)?;
        /// a.reshape(&[2, 2])?;
        /// assert_eq!(a.as_ref().view().get(&[1, 1]), Some(0));
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        reshape;
        /// The contiguous layout of the array's shape.
        own_layout;
    }

    /// The dense byte stream (exactly `ceil(len * T::BITS / 8)` bytes).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut bytes = [7u8, 0];
    /// assert_eq!(bitpack::NarrowMut::<u8>::from_bytes(&mut bytes, 1)?.as_bytes(), [7]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..dense::<T>().stream_bytes(self.len)]
    }

    /// A read-only [`NarrowRef`] over the same bytes, for every read.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut bytes = [1u8, 2];
    /// let a = bitpack::NarrowMut::<u8>::from_bytes(&mut bytes, 2)?;
    /// assert_eq!(a.as_ref().to_vec(), [1, 2]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn as_ref(&self) -> NarrowRef<'_, T> {
        NarrowRef::from_parts(self.bytes, self.len, self.dims.clone())
    }

    /// The value at flat index `i`, or `None` when `i >= len`.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut bytes = [0b10u8];
    /// let a = bitpack::NarrowMut::<bool>::from_bytes(&mut bytes, 2)?;
    /// assert_eq!(a.get(1), Some(true));
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        (i < self.len).then(|| value_at::<T>(self.bytes, i))
    }

    /// Sets the value at flat index `i`, writing only its bits.
    ///
    /// # Errors
    ///
    /// [`Error::Index`] when `i >= len`; nothing changes.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut bytes = [0u8];
    /// let mut a = bitpack::NarrowMut::<bool>::from_bytes(&mut bytes, 2)?;
    /// a.set(1, true)?;
    /// assert_eq!(a.set(2, true).unwrap_err().to_string(), "index 2 is out of bounds for length 2");
    /// assert_eq!(bytes, [0b10]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn set(&mut self, i: usize, value: T) -> Result<()> {
        check_index(i, self.len)?;
        let bit = dense::<T>().bit_of(i);
        write_bits(self.bytes, bit, T::BITS, value.raw_bits().to_u128());
        Ok(())
    }

    /// Packs `src` over every value (a word at a time, through a stack
    /// buffer). With the `rayon` feature a large pack splits across
    /// threads, as [`NarrowArray::pack_from`](crate::NarrowArray::pack_from)
    /// does.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] when `src.len() != len`; nothing changes.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut bytes = [0u8; 2];
    /// let mut a = bitpack::NarrowMut::<arbitrary_int::u4>::from_bytes(&mut bytes, 3)?;
    /// a.pack_from(&[1, 2, 3].map(arbitrary_int::u4::new))?;
    /// assert_eq!(bytes, [0x21, 0x03]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn pack_from(&mut self, src: &[T]) -> Result<()> {
        check_len(LengthOf::PackSource, self.len, src.len())?;
        pack_into_bytes(src, self.bytes);
        Ok(())
    }

    /// Sets every value to `value`.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut bytes = [0u8; 2];
    /// bitpack::NarrowMut::<bool>::from_bytes(&mut bytes, 10)?.fill(true);
    /// assert_eq!(bytes, [0xff, 0b11]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn fill(&mut self, value: T) {
        let raw = value.raw_bits().to_u128();
        for i in 0..self.len {
            write_bits(self.bytes, dense::<T>().bit_of(i), T::BITS, raw);
        }
    }

    /// A mutable strided view of the whole array with its shape, writing the
    /// bytes in place.
    ///
    /// # Errors
    ///
    /// [`Error::BorrowedWords`] when the buffer does not start on an 8-byte
    /// boundary or does not cover whole 64-bit words (use the reads of
    /// [`as_ref`](Self::as_ref), or [`set`](Self::set), there).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut words = [0u64; 1];
    /// let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
    /// let mut a = bitpack::NarrowMut::<u8>::from_bytes(bytes, 4)?;
    /// a.reshape(&[2, 2])?;
    /// a.view_mut()?.select(1, 0)?.fill(7)?;
    /// assert_eq!(a.as_bytes(), [7, 0, 7, 0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view_mut(&mut self) -> Result<ViewMut<'_, T>> {
        let layout = self.own_layout();
        let n = bulk::words_for_bits(self.len * T::BITS as usize);
        let addr = self.bytes.as_ptr() as usize;
        let len = self.bytes.len();
        let words = self
            .bytes
            .get_mut(..n * 8)
            .and_then(|b| bytemuck::try_cast_slice_mut::<u8, u64>(b).ok())
            .ok_or(Error::BorrowedWords {
                misalignment: addr % 8,
                len,
                needed: n * 8,
            })?;
        Ok(ViewMut::from_parts(words, T::BITS, layout))
    }
}
