//! [`NarrowRef`]: a read-only packed array borrowed over bytes that
//! something else owns (a DLPack tensor, a memory-mapped file, a buffer read
//! back from a GPU). Its mutable twin, [`NarrowMut`](super::NarrowMut), is
//! in `borrowed_mut.rs`; both read and write the bytes through `bytes.rs`.

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::OnceCell;
use core::fmt;
use core::marker::PhantomData;

use super::bytes::{check_stream, read_bits, stream_to_words, sum_from_bytes, unpack_from_bytes};
use super::raw::Raw;
use super::{NarrowArray, bulk};
use crate::error::LengthOf;
use crate::reduce::{self, UnsignedElement};
use crate::shape::shape_accessors;
use crate::shape::{check_len, checked_shape, reinterpreted};
use crate::view::View;
use crate::{BitElement, Error, Layout, Result, Unsigned};

/// A read-only packed array borrowed over bytes: the dense LSB-first stream
/// of [`NarrowArray`], validated once (length and zero padding) and then
/// read in place.
///
/// It reads like a `NarrowArray`: [`get`](Self::get), [`iter`](Self::iter),
/// [`to_vec`](Self::to_vec), [`unpack_into`](Self::unpack_into), strided N-d
/// [`view`](Self::view)s, [`sum`](Self::sum) (unsigned elements),
/// [`decode`](Self::decode) (float formats) and
/// [`reinterpret`](Self::reinterpret). Nothing is copied by `get`, `iter`,
/// `sum`, `decode`, `unpack_into` or `reinterpret`: the bulk paths run the
/// same kernels as `NarrowArray`, on the bytes in place. Where the bytes do
/// not start on an 8-byte boundary, the kernels read the aligned words
/// inside them in place and the few values before and after those through a
/// small stack buffer.
///
/// Views ([`View`]) read 64-bit words. They borrow the bytes directly when
/// the buffer starts on an 8-byte boundary and covers whole words (the
/// stream rounded up to 8 bytes, the extra bytes zero: a page of a
/// memory-mapped file, a `NarrowArray`'s [`as_narrow_ref`](NarrowArray::as_narrow_ref));
/// otherwise the first view copies the stream once into words kept by the
/// `NarrowRef` (which is why a `NarrowRef` is `Send` but not `Sync`).
///
/// `NarrowArray::from_bytes` is the owning counterpart: it copies.
///
/// # Examples
///
/// ```
/// use arbitrary_int::u4;
/// use bitpack::NarrowRef;
///
/// let bytes = [0x21, 0x43, 0x05];
/// let mut a = NarrowRef::<u4>::from_bytes(&bytes, 5)?;
/// assert_eq!(a.get(4), Some(u4::new(5)));
/// assert_eq!(a.sum(), 15);
/// a.reshape(&[1, 5])?;
/// assert_eq!(a.view().select(1, 3)?.to_vec(), [u4::new(4)]);
///
/// // Padding past the last value must be zero.
/// assert!(NarrowRef::<u4>::from_bytes(&[0x21, 0x43, 0x65], 5).is_err());
/// # Ok::<(), bitpack::Error>(())
/// ```
pub struct NarrowRef<'a, T: BitElement> {
    /// The stream, then zero bytes (validated), as given.
    bytes: &'a [u8],
    len: usize,
    dims: Option<Box<[usize]>>,
    /// The stream as words, made by the first view of unaligned bytes.
    words: OnceCell<Vec<u64>>,
    _values: PhantomData<T>,
}

impl<T: BitElement> Clone for NarrowRef<'_, T> {
    fn clone(&self) -> Self {
        Self::from_parts(self.bytes, self.len, self.dims.clone())
    }
}

impl<T: BitElement> fmt::Debug for NarrowRef<'_, T>
where
    T: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NarrowRef")
            .field("shape", &self.shape())
            .field("values", &DebugValues(self))
            .finish()
    }
}

/// Prints the values of an array as a list.
struct DebugValues<'r, 'a, T: BitElement>(&'r NarrowRef<'a, T>);

impl<T: BitElement + fmt::Debug> fmt::Debug for DebugValues<'_, '_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

impl<'a, T: BitElement> NarrowRef<'a, T> {
    /// An array over `bytes` already checked by [`check_stream`].
    pub(crate) fn from_parts(bytes: &'a [u8], len: usize, dims: Option<Box<[usize]>>) -> Self {
        Self {
            bytes,
            len,
            dims,
            words: OnceCell::new(),
            _values: PhantomData,
        }
    }

    /// Borrows `bytes` as the dense stream of `len` values (1-d).
    ///
    /// `bytes` must hold at least `ceil(len * T::BITS / 8)` bytes; every bit
    /// past the last value must be zero, including any bytes past that
    /// length (so a zero-padded buffer is accepted as is).
    ///
    /// # Errors
    ///
    /// [`Error::TooFewBytes`] when `bytes` is too short (with `needed`
    /// saturated at `usize::MAX` when `len * T::BITS` overflows), and
    /// [`Error::NonZeroPadding`] naming the first byte with a set padding
    /// bit.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{Error, NarrowRef};
    ///
    /// let a = NarrowRef::<bool>::from_bytes(&[0b101], 3)?;
    /// assert_eq!(a.to_vec(), [true, false, true]);
    /// assert_eq!(
    ///     NarrowRef::<bool>::from_bytes(&[0b1101], 3).unwrap_err(),
    ///     Error::NonZeroPadding { byte: 0 },
    /// );
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_bytes(bytes: &'a [u8], len: usize) -> Result<Self> {
        check_stream("NarrowRef::from_bytes", bytes, len, T::BITS)?;
        Ok(Self::from_parts(bytes, len, None))
    }

    /// Borrows `bytes` as the dense stream of an array of shape `shape`
    /// (row-major, the last dimension packed).
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](Self::from_bytes), and [`Error::Shape`] when the
    /// shape's product overflows, [`Error::TooManyDims`] above
    /// [`MAX_DIMS`](crate::MAX_DIMS) dimensions.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowRef::<u8>::from_bytes_shaped(&[1, 2, 3, 4, 5, 6], &[2, 3])?;
    /// assert_eq!(a.view().get(&[1, 0]), Some(4));
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_bytes_shaped(bytes: &'a [u8], shape: &[usize]) -> Result<Self> {
        let len = shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .ok_or(Error::Shape {
                elements: None,
                len: 0,
            })?;
        let dims = checked_shape(shape, len)?;
        check_stream("NarrowRef::from_bytes_shaped", bytes, len, T::BITS)?;
        Ok(Self::from_parts(bytes, len, dims))
    }

    shape_accessors! { fields:
        /// The number of values.
        ///
        /// # Examples
        ///
        /// ```
        /// assert_eq!(bitpack::NarrowRef::<bool>::from_bytes(&[0], 5)?.len(), 5);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        len;
        /// Whether there are no values.
        ///
        /// # Examples
        ///
        /// ```
        /// assert!(bitpack::NarrowRef::<bool>::from_bytes(&[], 0)?.is_empty());
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        is_empty;
        /// The shape, row-major: `[len]` for a 1-d array.
        ///
        /// # Examples
        ///
        /// ```
        /// let a = bitpack::NarrowRef::<u8>::from_bytes_shaped(&[0; 6], &[3, 2])?;
        /// assert_eq!(a.shape(), [3, 2]);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        shape;
        /// The number of dimensions.
        ///
        /// # Examples
        ///
        /// ```
        /// assert_eq!(bitpack::NarrowRef::<u8>::from_bytes(&[0; 6], 6)?.ndim(), 1);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        ndim;
        /// Gives the array a new shape with the same number of values.
        ///
        /// # Errors
        ///
        /// [`Error::Shape`] when the product is not `len` (or overflows),
        /// [`Error::TooManyDims`] above [`MAX_DIMS`](crate::MAX_DIMS); the shape
        /// is unchanged.
        ///
        /// # Examples
        ///
        /// ```
        /// let mut a = bitpack::NarrowRef::<u8>::from_bytes(&[0; 6], 6)?;
        /// a.reshape(&[2, 3])?;
        /// assert!(a.reshape(&[4]).is_err());
        /// assert_eq!(a.shape(), [2, 3]);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        reshape;
        /// The contiguous layout of the array's shape.
        own_layout;
    }

    /// The dense byte stream: exactly `ceil(len * T::BITS / 8)` bytes of the
    /// borrowed buffer.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowRef::<bool>::from_bytes(&[0b11, 0, 0], 2)?;
    /// assert_eq!(a.as_bytes(), [0b11]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn as_bytes(&self) -> &'a [u8] {
        &self.bytes[..dense::<T>().stream_bytes(self.len)]
    }

    /// The value at flat index `i`, or `None` when `i >= len`; reads only
    /// the bytes that hold it.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowRef::<arbitrary_int::u6>::from_bytes(&[0x81, 0x30, 0x10], 4)?;
    /// assert_eq!(a.get(3).map(|v| v.value()), Some(4));
    /// assert_eq!(a.get(4), None);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        (i < self.len).then(|| value_at::<T>(self.bytes, i))
    }

    /// An iterator over the values in flat order.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowRef::<bool>::from_bytes(&[0b0110], 4)?;
    /// assert_eq!(a.iter().filter(|&b| b).count(), 2);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn iter(&self) -> RefIter<'a, T> {
        RefIter {
            bytes: self.bytes,
            front: 0,
            back: self.len,
            _values: PhantomData,
        }
    }

    /// Unpacks every value into `dst`, which must have the same length.
    /// With the `rayon` feature a large unpack splits across threads, as
    /// [`NarrowArray::unpack_into`] does.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] (naming both lengths) when `dst.len() != len`;
    /// `dst` is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowRef::<u16>::from_bytes(&[1, 0, 2, 0], 2)?;
    /// let mut out = [0u16; 2];
    /// a.unpack_into(&mut out)?;
    /// assert_eq!(out, [1, 2]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn unpack_into(&self, dst: &mut [T]) -> Result<()> {
        check_len(LengthOf::UnpackOutput, self.len, dst.len())?;
        if let Some(words) = self.direct_words() {
            bulk::unpack_at(false, words, 0, dst);
        } else {
            unpack_from_bytes(self.bytes, dst);
        }
        Ok(())
    }

    /// Unpacks every value into a `Vec`.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowRef::<bool>::from_bytes(&[0b10], 2)?;
    /// assert_eq!(a.to_vec(), [false, true]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn to_vec(&self) -> Vec<T> {
        let mut out = vec![T::from_raw_bits(T::Raw::ZERO); self.len];
        self.unpack_into(&mut out)
            .expect("the buffer has the array's length");
        out
    }

    /// An owned copy with the same shape.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowRef::<u8>::from_bytes_shaped(&[1, 2, 3, 4], &[2, 2])?;
    /// let owned = a.to_narrow_array();
    /// assert_eq!((owned.shape(), owned.as_bytes()), (&[2, 2][..], &[1, 2, 3, 4][..]));
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn to_narrow_array(&self) -> NarrowArray<T> {
        NarrowArray::from_parts(
            stream_to_words(self.as_bytes()),
            self.len,
            self.dims.clone(),
        )
    }

    /// The same bytes seen as values of `U`, with no copy: the innermost
    /// dimension is rescaled so that every row keeps its bits (the rule of
    /// [`NarrowArray::reinterpret`]).
    ///
    /// # Errors
    ///
    /// [`Error::Reinterpret`] when a row's bits are not a whole number of
    /// `U` values; [`Error::Invalid`] for a 0-d array and a `U` of another
    /// width.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowRef::<u8>::from_bytes(&[0x21, 0x43], 2)?;
    /// assert_eq!(a.reinterpret::<u16>()?.to_vec(), [0x4321]);
    /// assert!(a.reinterpret::<arbitrary_int::u3>().is_err()); // 16 bits
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn reinterpret<U: BitElement>(&self) -> Result<NarrowRef<'a, U>> {
        let (len, dims) = reinterpreted::<T, U>(self.shape(), &self.dims, self.len)?;
        Ok(NarrowRef::from_parts(self.bytes, len, dims))
    }

    /// The stream as words, borrowed, when the buffer allows it: 8-byte
    /// aligned and covering whole words.
    fn direct_words(&self) -> Option<&'a [u64]> {
        let n = bulk::words_for_bits(self.len * T::BITS as usize);
        let bytes = self.bytes.get(..n * 8)?;
        bytemuck::try_cast_slice(bytes).ok()
    }

    /// The stream as words: borrowed when the buffer allows it, else copied
    /// once and kept.
    fn words(&self) -> &[u64] {
        if let Some(w) = self.direct_words() {
            return w;
        }
        self.words.get_or_init(|| stream_to_words(self.as_bytes()))
    }

    /// Whether views borrow the bytes directly (8-byte aligned, whole
    /// words); otherwise the first view copies the stream once.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert!(a.as_narrow_ref().views_borrow());
    /// ```
    pub fn views_borrow(&self) -> bool {
        self.direct_words().is_some()
    }

    /// A view of the whole array with its shape (see the type's docs on
    /// when this copies).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowRef::<u8>::from_bytes_shaped(&[1, 2, 3, 4, 5, 6], &[2, 3])?;
    /// assert_eq!(a.view().transpose().to_vec(), [1, 4, 2, 5, 3, 6]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view(&self) -> View<'_, T> {
        let layout = self.own_layout();
        View::from_parts(self.words(), T::BITS, layout)
    }

    /// A view through the descriptor `shape`, `strides`, `offset` (in
    /// elements, over the flat values), validated first.
    ///
    /// # Errors
    ///
    /// As [`Layout::new`].
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowRef::<u8>::from_bytes(&[1, 2, 3, 4, 5, 6], 6)?;
    /// assert_eq!(a.view_strided(&[3], &[-2], 5)?.to_vec(), [6, 4, 2]);
    /// assert!(a.view_strided(&[3], &[2], 1)?.get(&[2]).is_some());
    /// assert!(a.view_strided(&[4], &[2], 0).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view_strided(
        &self,
        shape: &[usize],
        strides: &[isize],
        offset: isize,
    ) -> Result<View<'_, T>> {
        let layout = Layout::new(shape, strides, offset, self.len)?;
        Ok(View::from_parts(self.words(), T::BITS, layout))
    }

    /// A view through a [`Layout`], revalidated against this array.
    ///
    /// # Errors
    ///
    /// As [`Layout::new`].
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowRef::<u8>::from_bytes(&[1, 2, 3], 3)?;
    /// let l = bitpack::Layout::new(&[2], &[2], 0, 3)?;
    /// assert_eq!(a.view_with(&l)?.to_vec(), [1, 3]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view_with(&self, layout: &Layout) -> Result<View<'_, T>> {
        self.view_strided(layout.shape(), layout.strides(), layout.offset())
    }
}

impl<T: UnsignedElement> NarrowRef<'_, T> {
    /// The exact sum of the values, read in place by the kernels of
    /// [`NarrowArray::sum`] (where the bytes are not 8-byte aligned whole
    /// words, the aligned words inside them in place and the values around
    /// those through a stack buffer). With the `rayon` feature a large sum
    /// splits across threads, as [`NarrowArray::sum`] does.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowRef::<arbitrary_int::u4>::from_bytes(&[0xff, 0x0f], 3)?;
    /// assert_eq!(a.sum(), 45);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn sum(&self) -> u128 {
        const { reduce::assert_summable::<T>() };
        if self.len == 0 {
            return 0;
        }
        match self.direct_words() {
            Some(words) => bulk::split_sum(false, T::BITS, words, self.len),
            None => sum_from_bytes::<T>(self.bytes, self.len),
        }
    }
}

/// The dense stream of `T` values over borrowed bytes: the core of
/// [`NarrowRef`] and [`NarrowMut`](super::NarrowMut).
pub(super) const fn dense<T: BitElement>() -> Raw {
    Raw {
        aligned: false,
        bits: T::BITS,
        name: "NarrowRef",
        words: "the words of a NarrowRef",
    }
}

/// The value at `i` of a byte stream long enough to hold it.
#[inline(always)]
pub(super) fn value_at<T: BitElement>(bytes: &[u8], i: usize) -> T {
    let raw = read_bits(bytes, dense::<T>().bit_of(i), T::BITS);
    T::from_raw_bits(T::Raw::from_u128_truncate(raw))
}

/// The values of a [`NarrowRef`] in flat order, read in place.
pub struct RefIter<'a, T: BitElement> {
    bytes: &'a [u8],
    front: usize,
    back: usize,
    _values: PhantomData<T>,
}

impl<T: BitElement> Clone for RefIter<'_, T> {
    fn clone(&self) -> Self {
        Self { ..*self }
    }
}

impl<T: BitElement> fmt::Debug for RefIter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RefIter")
            .field("remaining", &(self.back - self.front))
            .finish()
    }
}

impl<T: BitElement> Iterator for RefIter<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.front == self.back {
            return None;
        }
        self.front += 1;
        Some(value_at(self.bytes, self.front - 1))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl<T: BitElement> DoubleEndedIterator for RefIter<'_, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        if self.front == self.back {
            return None;
        }
        self.back -= 1;
        Some(value_at(self.bytes, self.back))
    }
}

impl<T: BitElement> ExactSizeIterator for RefIter<'_, T> {}

impl<T: BitElement> core::iter::FusedIterator for RefIter<'_, T> {}

impl<'a, T: BitElement> IntoIterator for &NarrowRef<'a, T> {
    type Item = T;
    type IntoIter = RefIter<'a, T>;

    fn into_iter(self) -> RefIter<'a, T> {
        self.iter()
    }
}

impl<T: BitElement> NarrowArray<T> {
    /// The array as a [`NarrowRef`] over its own bytes (aligned, whole
    /// words: views borrow them).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[true, false, true]);
    /// let r = a.as_narrow_ref();
    /// assert_eq!(r.as_bytes(), a.as_bytes());
    /// assert_eq!(r.to_vec(), a.to_vec());
    /// ```
    pub fn as_narrow_ref(&self) -> NarrowRef<'_, T> {
        NarrowRef::from_parts(
            bulk::word_bytes(self.as_words()),
            self.len(),
            (self.ndim() != 1).then(|| self.shape().into()),
        )
    }
}
