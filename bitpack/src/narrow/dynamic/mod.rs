//! [`DynNarrowArray`]: packed unsigned integers whose width is chosen at run
//! time. This file holds the type, its constructors, one-value access,
//! growth and views; `repack.rs` its width and layout changes, `traits.rs`
//! its trait implementations. Its words follow the rules of
//! [`Raw`], built from the width at run time.

use crate::error::LengthOf;
use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use core::marker::PhantomData;

use super::raw::{Raw, check_index};
use super::{Dense, Packing, bulk, bytes};
use crate::kernels::stream;
use crate::shape::check_len;
use crate::shape::shape_accessors;
use crate::view::{View, ViewIter, ViewMut};
use crate::{Error, Layout, Result};

mod repack;
mod traits;

/// The bits needed to hold `v` (at least 1).
#[inline]
fn bits_needed(v: u64) -> u32 {
    (64 - v.leading_zeros()).max(1)
}

/// `Error::Width` unless `width` is in `1..=64`.
#[inline]
fn check_width(width: u32) -> Result<()> {
    if width == 0 || width > 64 {
        return Err(Error::Width { width, max: 64 });
    }
    Ok(())
}

/// A growable array of unsigned integers packed at a width (1..=64 bits)
/// chosen at run time, as columnar formats and compressors choose it from
/// the data.
///
/// The values are `u64`s; each is stored in `width` bits, LSB-first, in
/// layout `L` ([`Dense`], the default, or [`WordAligned`](super::WordAligned))
/// exactly as a [`NarrowArray`](super::NarrowArray) of a `width`-bit type would store it, so
/// `as_words` is that array's buffer. Every bulk operation
/// ([`from_slice`](Self::from_slice), [`to_vec`](Self::to_vec),
/// [`sum`](Self::sum), the views' reads, writes and sums, repacking) looks
/// up the width's monomorphized kernel in a table **once per call**; no
/// operation dispatches per value.
///
/// # Widening
///
/// [`set`](Self::set) and [`push`](Self::push) of a value that needs more
/// bits than the width, and [`widen`](Self::widen), repack the values in
/// place at the new width: the buffer grows (the allocator may move it),
/// then the values move from the last to the first, a chunk of 128 at a time
/// through a 1 KiB stack buffer, so the cost is O(n) and no unpacked copy of
/// the array is ever made. A failing call (a width above 64, an index out of
/// bounds) changes nothing. [`narrow_to`](Self::narrow_to) repacks the other
/// way after checking that every value fits.
///
/// # Examples
///
/// ```
/// use bitpack::DynNarrowArray;
///
/// let mut a = DynNarrowArray::from_slice(3, &[1, 5, 7, 2])?;
/// assert_eq!(a.width(), 3);
/// assert_eq!(a.as_words().len(), 1); // 12 bits
/// assert_eq!(a.sum(), 15);
///
/// a.push(300); // needs 9 bits: the array widens
/// assert_eq!(a.width(), 9);
/// assert_eq!(a.to_vec(), [1, 5, 7, 2, 300]);
///
/// // The narrowest width for the data:
/// let b = DynNarrowArray::from_values(&[0, 17, 4]);
/// assert_eq!(b.width(), 5);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub struct DynNarrowArray<L: Packing = Dense> {
    /// The stream of `width`-bit values; padding and gap bits zero.
    words: Vec<u64>,
    len: usize,
    width: u32,
    /// The shape; `None` is 1-d, `[len]`.
    dims: Option<Box<[usize]>>,
    _layout: PhantomData<L>,
}

impl DynNarrowArray<Dense> {
    /// An empty array of `width`-bit values; allocates nothing.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] when `width` is not in `1..=64`.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::new(12)?;
    /// assert!(a.is_empty());
    /// assert!(bitpack::DynNarrowArray::new(65).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn new(width: u32) -> Result<Self> {
        Self::new_in(width)
    }

    /// `len` zeros of `width` bits.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] when `width` is not in `1..=64`; [`Error::Alloc`]
    /// when `len * width` bits overflow `usize` or the allocation fails.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::zeroed(7, 10)?;
    /// assert_eq!(a.to_vec(), [0; 10]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn zeroed(width: u32, len: usize) -> Result<Self> {
        Self::zeroed_in(width, len)
    }

    /// Packs `values` at `width` bits each, after checking that they fit.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] when `width` is not in `1..=64`,
    /// [`Error::ValueTooWide`] naming the first value that needs more bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{DynNarrowArray, Error};
    ///
    /// let a = DynNarrowArray::from_slice(4, &[15, 0, 9])?;
    /// assert_eq!(a.to_vec(), [15, 0, 9]);
    /// assert_eq!(
    ///     DynNarrowArray::from_slice(4, &[1, 16]).unwrap_err(),
    ///     Error::ValueTooWide { value: 16, bits: 4 },
    /// );
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_slice(width: u32, values: &[u64]) -> Result<Self> {
        Self::from_slice_in(width, values)
    }

    /// Packs `values` at the narrowest width that holds them all (1 for an
    /// empty or all-zero slice).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_values(&[3, 1000, 2]);
    /// assert_eq!(a.width(), 10);
    /// assert_eq!(a.to_vec(), [3, 1000, 2]);
    /// ```
    pub fn from_values(values: &[u64]) -> Self {
        Self::from_values_in(values)
    }

    /// Packs plain bytes: the dense stream of `len` values of `width` bits
    /// (the reverse of [`as_bytes`](Self::as_bytes)), with the checks of
    /// [`NarrowArray::from_bytes`](super::NarrowArray::from_bytes): at least `ceil(len * width / 8)` bytes,
    /// every bit past the last value zero.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] when `width` is not in `1..=64`,
    /// [`Error::TooFewBytes`] and [`Error::NonZeroPadding`] as
    /// `NarrowArray::from_bytes`.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_bytes(4, &[0x21, 0x03], 3)?;
    /// assert_eq!(a.to_vec(), [1, 2, 3]);
    /// assert_eq!(a.as_bytes(), [0x21, 0x03]);
    /// assert!(bitpack::DynNarrowArray::from_bytes(4, &[0x21, 0x43], 3).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_bytes(width: u32, bytes: &[u8], len: usize) -> Result<Self> {
        check_width(width)?;
        Ok(Self {
            words: bytes::words_from_stream("DynNarrowArray::from_bytes", bytes, len, width)?,
            len,
            width,
            dims: None,
            _layout: PhantomData,
        })
    }

    /// The dense byte stream: exactly `ceil(len * width / 8)` bytes, padding
    /// bits zero. No copy.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_slice(6, &[1, 2, 3, 4])?;
    /// assert_eq!(a.as_bytes(), [0x81, 0x30, 0x10]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        &bulk::word_bytes(&self.words)[..self.raw().stream_bytes(self.len)]
    }
}

/// What [`Error::Alloc`] names for the words of a run-time-width array.
const WORDS: &str = "the 64-bit words of a DynNarrowArray";

impl<L: Packing> DynNarrowArray<L> {
    /// The raw stream core of `width`-bit values in layout `L`.
    #[inline]
    const fn raw_of(width: u32) -> Raw {
        Raw {
            aligned: L::WORD_ALIGNED,
            bits: width,
            name: "DynNarrowArray",
            words: WORDS,
        }
    }

    /// The raw stream core of the array's words.
    #[inline]
    const fn raw(&self) -> Raw {
        Self::raw_of(self.width)
    }

    /// The words, mutably (the caller keeps padding and gap bits zero).
    #[inline]
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// An empty array of `width`-bit values in layout `L`.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] when `width` is not in `1..=64`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{DynNarrowArray, WordAligned};
    ///
    /// let a = DynNarrowArray::<WordAligned>::new_in(5)?;
    /// assert_eq!(a.width(), 5);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn new_in(width: u32) -> Result<Self> {
        check_width(width)?;
        Ok(DynNarrowArray {
            words: Vec::new(),
            len: 0,
            width,
            dims: None,
            _layout: PhantomData,
        })
    }

    /// `len` zeros of `width` bits in layout `L`.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] when `width` is not in `1..=64`; [`Error::Alloc`]
    /// when the stream's word count overflows `usize` or its allocation
    /// fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{DynNarrowArray, WordAligned};
    ///
    /// assert!(DynNarrowArray::<WordAligned>::zeroed_in(7, usize::MAX).is_err());
    /// let a = DynNarrowArray::<WordAligned>::zeroed_in(7, 10)?;
    /// assert_eq!(a.as_words().len(), 2); // 9 values per word
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn zeroed_in(width: u32, len: usize) -> Result<Self> {
        check_width(width)?;
        Ok(DynNarrowArray {
            words: Self::raw_of(width).try_zeroed(len)?,
            len,
            width,
            dims: None,
            _layout: PhantomData,
        })
    }

    /// Packs `values` at `width` bits each in layout `L` (see
    /// [`from_slice`](DynNarrowArray::from_slice)).
    ///
    /// # Errors
    ///
    /// As [`from_slice`](DynNarrowArray::from_slice).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{DynNarrowArray, WordAligned};
    ///
    /// let a = DynNarrowArray::<WordAligned>::from_slice_in(5, &[31; 13])?;
    /// # #[cfg(target_endian = "little")]
    /// assert_eq!(a.as_words(), [u64::MAX >> 4, 31]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_slice_in(width: u32, values: &[u64]) -> Result<Self> {
        check_width(width)?;
        if let Some(&v) = values.iter().find(|&&v| bits_needed(v) > width) {
            return Err(Error::ValueTooWide {
                value: v.into(),
                bits: width,
            });
        }
        let mut a = Self::zeroed_in(width, values.len())?;
        Self::pack_at(width, values, &mut a.words, 0);
        Ok(a)
    }

    /// Packs `values` at the narrowest width that holds them, in layout `L`
    /// (see [`from_values`](DynNarrowArray::from_values)).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{DynNarrowArray, WordAligned};
    ///
    /// let a = DynNarrowArray::<WordAligned>::from_values_in(&[1, 2, 3]);
    /// assert_eq!(a.width(), 2);
    /// ```
    pub fn from_values_in(values: &[u64]) -> Self {
        let width = values.iter().map(|&v| bits_needed(v)).max().unwrap_or(1);
        Self::from_slice_in(width, values).expect("every value fits the widest one's width")
    }

    /// The width of every value, in bits (1..=64).
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(bitpack::DynNarrowArray::new(9)?.width(), 9);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn width(&self) -> u32 {
        self.width
    }

    shape_accessors! { fields:
        /// The number of values.
        ///
        /// # Examples
        ///
        /// ```
        /// assert_eq!(bitpack::DynNarrowArray::from_values(&[1, 2]).len(), 2);
        /// ```
        len;
        /// Whether the array holds no values.
        ///
        /// # Examples
        ///
        /// ```
        /// assert!(bitpack::DynNarrowArray::new(3)?.is_empty());
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        is_empty;
    }

    /// The words holding the values (see
    /// [`NarrowArray::as_words`](super::NarrowArray::as_words) for a type of
    /// this width: the same words).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_slice(4, &[1, 2, 3])?;
    /// # #[cfg(target_endian = "little")]
    /// assert_eq!(a.as_words(), [0x321]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn as_words(&self) -> &[u64] {
        &self.words
    }

    /// The value at flat index `i`, or `None` when `i >= len`. O(1).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_slice(6, &[40, 50])?;
    /// assert_eq!(a.get(1), Some(50));
    /// assert_eq!(a.get(2), None);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn get(&self, i: usize) -> Option<u64> {
        let v = self.raw().get(&self.words, self.len, i)?;
        Some(v as u64)
    }

    /// Sets the value at flat index `i`, widening the array first when
    /// `value` needs more bits than its width.
    ///
    /// # Errors
    ///
    /// [`Error::Index`] when `i >= len`; the array is unchanged (not even
    /// widened).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::DynNarrowArray::from_slice(2, &[1, 2, 3])?;
    /// a.set(0, 3)?;
    /// assert_eq!(a.width(), 2);
    /// a.set(1, 1 << 40)?;
    /// assert_eq!(a.width(), 41);
    /// assert_eq!(a.to_vec(), [3, 1 << 40, 3]);
    /// assert!(a.set(3, 0).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn set(&mut self, i: usize, value: u64) -> Result<()> {
        check_index(i, self.len)?;
        self.widen(bits_needed(value))?;
        self.raw().write(&mut self.words, i, value.into());
        Ok(())
    }

    /// Appends a value (the array becomes 1-d), widening the array first when
    /// it needs more bits than its width.
    ///
    /// # Panics
    ///
    /// When the new length in bits overflows `usize`, or the allocation
    /// fails.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::DynNarrowArray::new(1)?;
    /// a.push(1);
    /// a.push(6);
    /// assert_eq!(a.width(), 3);
    /// assert_eq!(a.to_vec(), [1, 6]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn push(&mut self, value: u64) {
        // A u64 needs at most 64 bits, so only the allocation can fail.
        self.widen(bits_needed(value))
            .unwrap_or_else(|e| panic!("{e}"));
        let len = self.raw().push(&mut self.words, self.len, value.into());
        self.set_flat_len(len);
    }

    /// Removes and returns the last value (the array becomes 1-d), or `None`
    /// when it is empty.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::DynNarrowArray::from_values(&[4, 5]);
    /// assert_eq!(a.pop(), Some(5));
    /// assert_eq!(a.to_vec(), [4]);
    /// ```
    pub fn pop(&mut self) -> Option<u64> {
        let v = self.raw().pop(&mut self.words, self.len)?;
        self.set_flat_len(self.len - 1);
        Some(v as u64)
    }

    /// Keeps the first `len` values (the array becomes 1-d); does nothing
    /// when `len >= self.len()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::DynNarrowArray::from_values(&[4, 5, 6]);
    /// a.truncate(1);
    /// assert_eq!(a.to_vec(), [4]);
    /// ```
    pub fn truncate(&mut self, len: usize) {
        if self.raw().truncate(&mut self.words, self.len, len) {
            self.set_flat_len(len);
        }
    }

    /// Appends `values`, widening first to the width of the widest (the
    /// array becomes 1-d).
    ///
    /// # Panics
    ///
    /// When the new length in bits overflows `usize`, or the allocation
    /// fails.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::DynNarrowArray::from_values(&[1]);
    /// a.extend_from_slice(&[2, 255]);
    /// assert_eq!(a.width(), 8);
    /// assert_eq!(a.to_vec(), [1, 2, 255]);
    /// ```
    pub fn extend_from_slice(&mut self, values: &[u64]) {
        let need = values.iter().map(|&v| bits_needed(v)).max().unwrap_or(1);
        // A u64 needs at most 64 bits, so only the allocation can fail.
        self.widen(need).unwrap_or_else(|e| panic!("{e}"));
        let len = self.raw().grow(&mut self.words, self.len, values.len());
        Self::pack_at(self.width, values, &mut self.words, self.len);
        self.set_flat_len(len);
    }

    /// Every value, unpacked.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_slice(13, &[8191, 0, 1])?;
    /// assert_eq!(a.to_vec(), [8191, 0, 1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn to_vec(&self) -> Vec<u64> {
        let mut out = vec![0; self.len];
        self.unpack_at(&mut out);
        out
    }

    /// Unpacks every value into `dst`, which must have the same length.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] when `dst.len() != len`; `dst` is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_values(&[9, 8]);
    /// let mut out = [0u64; 2];
    /// a.unpack_into(&mut out)?;
    /// assert_eq!(out, [9, 8]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn unpack_into(&self, dst: &mut [u64]) -> Result<()> {
        check_len(LengthOf::UnpackOutput, self.len, dst.len())?;
        self.unpack_at(dst);
        Ok(())
    }

    /// The exact sum of the values (see
    /// [`NarrowArray::sum`](super::NarrowArray::sum)): one table lookup for
    /// the width, then its kernel.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_slice(64, &[u64::MAX, u64::MAX])?;
    /// assert_eq!(a.sum(), 2 * u64::MAX as u128);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn sum(&self) -> u128 {
        bulk::split_sum(L::WORD_ALIGNED, self.width, &self.words, self.len)
    }

    /// Packs `values` into `words` from index `first` (split across threads
    /// by the `rayon` feature, as `NarrowArray`'s packs are).
    fn pack_at(width: u32, values: &[u64], words: &mut [u64], first: usize) {
        let aligned = L::WORD_ALIGNED;
        bulk::split_pack(aligned, width, values.len(), first, words, |r, part, at| {
            stream::pack(aligned, width, &values[r], part, at)
        });
    }

    /// Unpacks every value into `dst` (split as [`Self::pack_at`]).
    fn unpack_at(&self, dst: &mut [u64]) {
        let (aligned, width, words) = (L::WORD_ALIGNED, self.width, &self.words);
        bulk::split_unpack(aligned, width, 0, dst, |at, part| {
            stream::unpack(aligned, width, words, at, part)
        });
    }

    shape_accessors! { fields:
        /// The shape, row-major: `[len]` for a 1-d array.
        ///
        /// # Examples
        ///
        /// ```
        /// let mut a = bitpack::DynNarrowArray::zeroed(3, 6)?;
        /// a.reshape(&[3, 2])?;
        /// assert_eq!(a.shape(), [3, 2]);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        shape;
        /// Gives the array a new shape with the same number of values.
        ///
        /// # Errors
        ///
        /// [`Error::Shape`] when the product of `shape` is not `len`,
        /// [`Error::TooManyDims`] for more than 64 dimensions; the shape is
        /// unchanged.
        ///
        /// # Examples
        ///
        /// ```
        /// let mut a = bitpack::DynNarrowArray::zeroed(3, 6)?;
        /// assert!(a.reshape(&[4, 2]).is_err());
        /// assert_eq!(a.shape(), [6]);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        reshape;
        /// Sets the length to `len` (the values past it are gone or new) and
        /// makes the array 1-d.
        set_flat_len;
        /// The contiguous layout of the array's shape.
        own_layout;
    }

    /// An iterator over the values in flat order.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_values(&[1, 2, 3]);
    /// assert_eq!(a.iter().map(|v| v * 2).collect::<Vec<_>>(), [2, 4, 6]);
    /// ```
    pub fn iter(&self) -> ViewIter<'_, u64, L> {
        View::<u64, L>::from_parts(&self.words, self.width, self.flat_layout()).iter()
    }

    /// The 1-d contiguous layout of every value.
    fn flat_layout(&self) -> Layout {
        Layout::contiguous(&[self.len], self.len).expect("a 1-d layout of the values")
    }

    /// A view of the whole array with its own shape; its elements are `u64`
    /// values of the array's width.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::DynNarrowArray::from_values(&[1, 2, 3, 4]);
    /// a.reshape(&[2, 2])?;
    /// assert_eq!(a.view().transpose().to_vec(), [1, 3, 2, 4]);
    /// assert_eq!(a.view().sum_axes(&[0], false)?.1, [4, 6]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view(&self) -> View<'_, u64, L> {
        View::from_parts(&self.words, self.width, self.own_layout())
    }

    /// A view through a descriptor over the flat values, validated first
    /// (see [`NarrowArray::view_strided`](super::NarrowArray::view_strided)).
    ///
    /// # Errors
    ///
    /// As [`Layout::new`].
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_values(&[1, 2, 3, 4]);
    /// assert_eq!(a.view_strided(&[2], &[-2], 3)?.to_vec(), [4, 2]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view_strided(
        &self,
        shape: &[usize],
        strides: &[isize],
        offset: isize,
    ) -> Result<View<'_, u64, L>> {
        let layout = Layout::new(shape, strides, offset, self.len)?;
        Ok(View::from_parts(&self.words, self.width, layout))
    }

    /// A mutable view of the whole array with its own shape. Writes through
    /// it must fit the array's width (a view cannot widen the array it
    /// borrows): a wider value is an [`Error::ValueTooWide`].
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::DynNarrowArray::zeroed(4, 3)?;
    /// a.view_mut().assign_from(&[1, 2, 15])?;
    /// assert!(a.view_mut().fill(16).is_err());
    /// assert_eq!(a.to_vec(), [1, 2, 15]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view_mut(&mut self) -> ViewMut<'_, u64, L> {
        let layout = self.own_layout();
        ViewMut::from_parts(&mut self.words, self.width, layout)
    }

    /// A mutable view through a descriptor, validated first.
    ///
    /// # Errors
    ///
    /// As [`Layout::new`].
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::DynNarrowArray::zeroed(4, 4)?;
    /// a.view_strided_mut(&[2], &[2], 0)?.fill(9)?;
    /// assert_eq!(a.to_vec(), [9, 0, 9, 0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view_strided_mut(
        &mut self,
        shape: &[usize],
        strides: &[isize],
        offset: isize,
    ) -> Result<ViewMut<'_, u64, L>> {
        let layout = Layout::new(shape, strides, offset, self.len)?;
        Ok(ViewMut::from_parts(&mut self.words, self.width, layout))
    }

    /// Assigns between two descriptors of the same shape over this array, as
    /// if the source were copied first (see
    /// [`NarrowArray::assign_within`](super::NarrowArray::assign_within)).
    ///
    /// # Errors
    ///
    /// As [`NarrowArray::assign_within`](super::NarrowArray::assign_within).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{DynNarrowArray, Layout};
    ///
    /// let mut a = DynNarrowArray::from_values(&[1, 2, 3, 4]);
    /// let all = Layout::contiguous(&[4], 4)?;
    /// a.assign_within(&all, &all.reversed(0)?)?;
    /// assert_eq!(a.to_vec(), [4, 3, 2, 1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn assign_within(&mut self, dst: &Layout, src: &Layout) -> Result<()> {
        crate::view::assign_within::<L>(self.width, &mut self.words, self.len, dst, src)
    }
}
