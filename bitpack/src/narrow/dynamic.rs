//! [`DynNarrowArray`]: packed unsigned integers whose width is chosen at run
//! time.

use crate::error::LengthOf;
use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::marker::PhantomData;

use super::{Dense, NarrowArray, Packing, bulk};
use crate::kernels::stream;
use crate::reduce::{RunSum, UnsignedElement};
use crate::shape::check_len;
use crate::shape::packing::{self, per_word, same_as_dense};
use crate::shape::shape_accessors;
use crate::view::{View, ViewIter, ViewMut};
use crate::{Error, Layout, Result};

/// Values per stack chunk when repacking (1 KiB of `u64`s).
const CHUNK: usize = 128;

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
/// exactly as a [`NarrowArray`] of a `width`-bit type would store it, so
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
    /// [`NarrowArray::from_bytes`]: at least `ceil(len * width / 8)` bytes,
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
        let needed =
            super::borrowed::check_stream("DynNarrowArray::from_bytes", bytes, len, width)?;
        Ok(Self {
            words: super::borrowed::stream_to_words(&bytes[..needed]),
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
        let n = (self.len * self.width as usize).div_ceil(8);
        &bulk::word_bytes(&self.words)[..n]
    }
}

/// What [`Error::Alloc`] names for the words of a run-time-width array.
const WORDS: &str = "the 64-bit words of a DynNarrowArray";

impl<L: Packing> DynNarrowArray<L> {
    /// The words holding `len` values of `width` bits.
    fn words_for(width: u32, len: usize) -> usize {
        packing::words_for(L::WORD_ALIGNED, width, len).expect("DynNarrowArray capacity overflow")
    }

    /// [`words_for`](Self::words_for), or [`Error::Alloc`] when the count
    /// overflows.
    fn try_words_for(width: u32, len: usize) -> Result<usize> {
        packing::words_for(L::WORD_ALIGNED, width, len).ok_or(Error::Alloc {
            what: WORDS,
            count: None,
            value_bytes: 8,
        })
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
        let words = Self::try_words_for(width, len)?;
        Ok(DynNarrowArray {
            words: crate::view::try_zeroed_vec(words, WORDS)?,
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
        stream::pack(L::WORD_ALIGNED, width, values, &mut a.words, 0);
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
        (i < self.len).then(|| stream::read(L::WORD_ALIGNED, self.width, &self.words, i) as u64)
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
        if i >= self.len {
            return Err(Error::Index {
                index: i,
                len: self.len,
            });
        }
        self.widen(bits_needed(value))?;
        stream::write(
            L::WORD_ALIGNED,
            self.width,
            &mut self.words,
            i,
            value.into(),
        );
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
        let len = self.len + 1;
        self.words.resize(Self::words_for(self.width, len), 0);
        stream::write(
            L::WORD_ALIGNED,
            self.width,
            &mut self.words,
            self.len,
            value.into(),
        );
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
        let last = self.len.checked_sub(1)?;
        let v = self.get(last);
        self.truncate(last);
        v
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
        if len >= self.len {
            return;
        }
        self.words.truncate(Self::words_for(self.width, len));
        bulk::clear_from(
            &mut self.words,
            packing::bit_of(L::WORD_ALIGNED, self.width, len),
        );
        self.set_flat_len(len);
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
        let len = self
            .len
            .checked_add(values.len())
            .expect("DynNarrowArray capacity overflow");
        self.words.resize(Self::words_for(self.width, len), 0);
        stream::pack(
            L::WORD_ALIGNED,
            self.width,
            values,
            &mut self.words,
            self.len,
        );
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
        stream::unpack(L::WORD_ALIGNED, self.width, &self.words, 0, &mut out);
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
        stream::unpack(L::WORD_ALIGNED, self.width, &self.words, 0, dst);
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
        RunSum::new(L::WORD_ALIGNED, self.width).run(&self.words, 0, 1, self.len)
    }

    /// The narrowest width that holds every value (1 when empty).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_slice(16, &[3, 9])?;
    /// assert_eq!(a.min_width(), 4);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn min_width(&self) -> u32 {
        let mut or = 0u64;
        let mut buf = [0u64; CHUNK];
        let mut i = 0;
        while i < self.len {
            let n = (self.len - i).min(CHUNK);
            stream::unpack(L::WORD_ALIGNED, self.width, &self.words, i, &mut buf[..n]);
            or |= buf[..n].iter().fold(0, |a, &v| a | v);
            i += n;
        }
        bits_needed(or)
    }

    /// Chunk length for repacking between `from` and `to` bits: a multiple of
    /// the values per word of the word-aligned side, so that every chunk
    /// but the last writes whole words.
    fn chunk_for(to: u32) -> usize {
        if L::WORD_ALIGNED && !same_as_dense(to) {
            let per = per_word(to);
            CHUNK / per * per
        } else {
            CHUNK
        }
    }

    /// Repacks in place to at least `new_width` bits: a no-op when the width
    /// already is that wide, otherwise every value moves to the new width,
    /// from the last to the first, through a 1 KiB stack buffer (O(n), no
    /// unpacked copy).
    ///
    /// # Errors
    ///
    /// [`Error::Width`] when `new_width` is not in `1..=64`, and
    /// [`Error::Alloc`] when the new word count overflows `usize` or its
    /// allocation fails; the array is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::DynNarrowArray::from_slice(3, &[7, 1, 4])?;
    /// a.widen(12)?;
    /// assert_eq!(a.width(), 12);
    /// assert_eq!(a.to_vec(), [7, 1, 4]);
    /// a.widen(5)?; // already wider
    /// assert_eq!(a.width(), 12);
    /// assert!(a.widen(65).is_err());
    /// assert_eq!(a.width(), 12);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn widen(&mut self, new_width: u32) -> Result<()> {
        check_width(new_width)?;
        if new_width <= self.width {
            return Ok(());
        }
        let old = self.width;
        let new_words = Self::try_words_for(new_width, self.len)?;
        let more = new_words.saturating_sub(self.words.len());
        self.words
            .try_reserve_exact(more)
            .map_err(|_| Error::Alloc {
                what: WORDS,
                count: Some(new_words),
                value_bytes: 8,
            })?;
        self.words.resize(new_words, 0);
        // Value `i` moves from its old position to a new one at least as far
        // along, and past the old positions of every value before it; so
        // moving the values from the last down never overwrites one not yet
        // moved. Chunks start on whole new words (word-aligned), so every
        // word but the last is rewritten whole, gap bits included; the
        // stream's end only moves up, so the bits past it stay zero.
        let aligned = L::WORD_ALIGNED;
        let chunk = Self::chunk_for(new_width);
        let mut buf = [0u64; CHUNK];
        let mut end = self.len;
        while end > 0 {
            let start = (end - 1) / chunk * chunk;
            let n = end - start;
            stream::unpack(aligned, old, &self.words, start, &mut buf[..n]);
            stream::pack(aligned, new_width, &buf[..n], &mut self.words, start);
            end = start;
        }
        self.width = new_width;
        Ok(())
    }

    /// Repacks in place to `new_width` bits, narrower or wider, after
    /// checking that every value fits.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] when `new_width` is not in `1..=64`,
    /// [`Error::ValueTooWide`] naming the first value that needs more bits;
    /// the array is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{DynNarrowArray, Error};
    ///
    /// let mut a = DynNarrowArray::from_slice(32, &[5, 9, 2])?;
    /// a.narrow_to(a.min_width())?;
    /// assert_eq!(a.width(), 4);
    /// assert_eq!(a.to_vec(), [5, 9, 2]);
    /// assert_eq!(a.narrow_to(3).unwrap_err(), Error::ValueTooWide { value: 9, bits: 3 });
    /// # Ok::<(), Error>(())
    /// ```
    pub fn narrow_to(&mut self, new_width: u32) -> Result<()> {
        check_width(new_width)?;
        if new_width >= self.width {
            return self.widen(new_width);
        }
        let aligned = L::WORD_ALIGNED;
        let mut buf = [0u64; CHUNK];
        let mut i = 0;
        while i < self.len {
            let n = (self.len - i).min(CHUNK);
            stream::unpack(aligned, self.width, &self.words, i, &mut buf[..n]);
            if let Some(&v) = buf[..n].iter().find(|&&v| bits_needed(v) > new_width) {
                return Err(Error::ValueTooWide {
                    value: v.into(),
                    bits: new_width,
                });
            }
            i += n;
        }
        // The mirror of `widen`: values move down, from the first to the last.
        let old = self.width;
        let chunk = Self::chunk_for(new_width);
        let mut start = 0;
        while start < self.len {
            let n = (self.len - start).min(chunk);
            stream::unpack(aligned, old, &self.words, start, &mut buf[..n]);
            stream::pack(aligned, new_width, &buf[..n], &mut self.words, start);
            start += n;
        }
        self.words.truncate(Self::words_for(new_width, self.len));
        bulk::clear_from(
            &mut self.words,
            packing::bit_of(aligned, new_width, self.len),
        );
        self.width = new_width;
        Ok(())
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

    /// The same values, width and shape in layout `L2`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{DynNarrowArray, WordAligned};
    ///
    /// let a = DynNarrowArray::from_slice(7, &[100; 10])?;
    /// let b = a.to_layout::<WordAligned>();
    /// assert_eq!(b.as_words().len(), 2); // 9 values per word
    /// assert_eq!(b.to_vec(), a.to_vec());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn to_layout<L2: Packing>(&self) -> DynNarrowArray<L2> {
        let mut out = DynNarrowArray::<L2> {
            words: self.words.clone(),
            len: self.len,
            width: self.width,
            dims: self.dims.clone(),
            _layout: PhantomData,
        };
        if L::WORD_ALIGNED != L2::WORD_ALIGNED && !same_as_dense(self.width) {
            out.words = vec![0; DynNarrowArray::<L2>::words_for(self.width, self.len)];
            let chunk = if same_as_dense(self.width) {
                CHUNK
            } else {
                let per = per_word(self.width);
                CHUNK / per * per
            };
            let mut buf = [0u64; CHUNK];
            let mut i = 0;
            while i < self.len {
                let n = (self.len - i).min(chunk);
                stream::unpack(L::WORD_ALIGNED, self.width, &self.words, i, &mut buf[..n]);
                stream::pack(L2::WORD_ALIGNED, self.width, &buf[..n], &mut out.words, i);
                i += n;
            }
        }
        out
    }
}

/// Moves the words of a typed array of unsigned elements into a run-time
/// width array of the same width (no copy: the layouts are the same bits).
///
/// ```
/// use arbitrary_int::u5;
/// use bitpack::{DynNarrowArray, NarrowArray};
///
/// let a = NarrowArray::from_slice(&[u5::new(3), u5::new(30)]);
/// let d = DynNarrowArray::from(a);
/// assert_eq!(d.width(), 5);
/// assert_eq!(d.to_vec(), [3, 30]);
/// ```
impl<T: UnsignedElement, L: Packing> From<NarrowArray<T, L>> for DynNarrowArray<L> {
    fn from(array: NarrowArray<T, L>) -> Self {
        const { crate::reduce::assert_summable::<T>() };
        let width = T::BITS;
        let len = array.len();
        let dims = (array.ndim() != 1).then(|| array.shape().into());
        DynNarrowArray {
            words: array.into_words(),
            len,
            width,
            dims,
            _layout: PhantomData,
        }
    }
}

impl<L: Packing> Clone for DynNarrowArray<L> {
    fn clone(&self) -> Self {
        DynNarrowArray {
            words: self.words.clone(),
            len: self.len,
            width: self.width,
            dims: self.dims.clone(),
            _layout: PhantomData,
        }
    }
}

/// The width, the shape and the values.
///
/// ```
/// let a = bitpack::DynNarrowArray::from_values(&[1, 2]);
/// assert_eq!(format!("{a:?}"), "DynNarrowArray { width: 2, shape: [2], values: [1, 2] }");
/// ```
impl<L: Packing> fmt::Debug for DynNarrowArray<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynNarrowArray")
            .field("width", &self.width)
            .field("shape", &self.shape())
            .field("values", &self.iter().collect::<Vec<_>>())
            .finish()
    }
}

/// Equal when the shapes and the values are equal, whatever the widths and
/// layouts.
///
/// ```
/// use bitpack::{DynNarrowArray, WordAligned};
///
/// let a = DynNarrowArray::from_slice(3, &[1, 2])?;
/// let b = DynNarrowArray::<WordAligned>::from_slice_in(9, &[1, 2])?;
/// assert_eq!(a, b);
/// # Ok::<(), bitpack::Error>(())
/// ```
impl<L: Packing, L2: Packing> PartialEq<DynNarrowArray<L2>> for DynNarrowArray<L> {
    fn eq(&self, other: &DynNarrowArray<L2>) -> bool {
        self.shape() == other.shape() && self.iter().eq(other.iter())
    }
}

impl<L: Packing> Eq for DynNarrowArray<L> {}

/// Hashes the shape and the values, consistently with `Eq`.
impl<L: Packing> Hash for DynNarrowArray<L> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.shape().hash(state);
        for v in self.iter() {
            v.hash(state);
        }
    }
}
