//! [`NarrowArray`]: a heap array of packed values (the memory layout), its
//! physical layouts ([`Dense`], [`WordAligned`]) and the run-time-width
//! [`DynNarrowArray`].
//!
//! See the types' documentation for the layouts; this module also holds
//! their iterators and [`ReinterpretError`].

use crate::error::LengthOf;
use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use core::marker::PhantomData;

#[cfg(doc)]
use crate::Error;
use crate::shape::check_len;
use crate::shape::{packing, shape_accessors};
use crate::{BitElement, Result, Unsigned};
use raw::{Raw, Words};

mod borrowed;
mod borrowed_mut;
pub(crate) mod bulk;
pub(crate) mod bytes;
mod dense;
mod dynamic;
mod iter;
mod ops;
mod raw;
mod records;
mod reduce;
mod traits;
mod views;

#[cfg(all(test, feature = "arbitrary-int"))]
mod tests;

pub use crate::element::UnsignedElement;
pub use crate::shape::{Dense, Packing, WordAligned};
pub use borrowed::{NarrowRef, RefIter};
pub use borrowed_mut::NarrowMut;
pub use dynamic::DynNarrowArray;
pub use iter::{IntoIter, Iter};
pub use ops::ReinterpretError;

/// A growable heap array of values of `T`, packed densely LSB-first: the
/// memory layout.
///
/// # Layout
///
/// Element `i` occupies bits `[i * T::BITS, (i + 1) * T::BITS)` of the byte
/// stream [`as_bytes`](Self::as_bytes), bit `k` of the stream being bit `k %
/// 8` of byte `k / 8`. This is DLPack's packed sub-byte layout, numpy's
/// `packbits(bitorder='little')` and Arrow's bitmaps for `bool`, and
/// `torch.float4_e2m1fn_x2` and CUTLASS's for 4-bit values. Bits past the last
/// element are padding and are always zero, whatever operation ran last.
///
/// Seen as chunks, the stream is a sequence of [`NArray`](crate::NArray)s of
/// [`CHUNK_LEN`](Self::CHUNK_LEN) values, each
/// [`CHUNK_BYTES`](Self::CHUNK_BYTES) bytes with no padding: 8 bools in a
/// byte, 2 four-bit values in a byte, 4 six-bit values in 3 bytes.
///
/// `as_bytes()` is exactly `ceil(len * T::BITS / 8)` bytes, not a whole
/// number of chunks: the last chunk may be partial, and its missing values
/// read as zero padding. The values live in a `Vec<u64>` (8-byte alignment,
/// so typed views and word-at-a-time kernels need no copy), whose bytes past
/// the stream are zero too.
///
/// The bytes are the dense stream on every target (the words are kept as
/// little-endian bytes); only the typed views
/// ([`as_slice_of`](Self::as_slice_of)) need a little-endian target, and
/// exist only there.
///
/// ```
/// use arbitrary_int::u4;
/// use bitpack::NarrowArray;
///
/// let a: NarrowArray<u4> = [0x1, 0x2, 0x3].into_iter().map(u4::new).collect();
/// assert_eq!(a.as_bytes(), [0x21, 0x03]); // element 0 in the low nibble
/// assert_eq!(NarrowArray::<u4>::CHUNK_LEN, 2);
///
/// let flags = NarrowArray::from_slice(&[true, false, true, true, false, false, false, false, true]);
/// assert_eq!(flags.as_bytes(), [0b0000_1101, 0b1]); // an Arrow bitmap
/// ```
///
/// # Access
///
/// [`get`](Self::get) and [`set`](Self::set) read and write one element in
/// O(1), touching only the words that hold it. Bulk operations
/// ([`from_slice`](Self::from_slice), [`to_vec`](Self::to_vec),
/// [`pack_from`](Self::pack_from), [`unpack_into`](Self::unpack_into),
/// [`from_bytes`](Self::from_bytes), `extend`) go a word at a time.
///
/// # Shape
///
/// An array has a shape, 1-d (`[len]`) unless [`reshape`](Self::reshape)
/// gives it another. Shapes are row-major: the last dimension is the
/// innermost one, packed and contiguous, and
/// [`reinterpret`](Self::reinterpret) rescales it. Element access, iteration
/// and the bulk operations use the flat (row-major) index. `push`, `pop`,
/// `truncate`, `clear` and `extend` work on the flat sequence and leave the
/// array 1-d.
///
/// # Physical layouts
///
/// The second parameter picks how values sit in the words: [`Dense`] (the
/// default, described above, so `NarrowArray<T>` is the dense stream) or
/// [`WordAligned`] (no value straddles a 64-bit word; faster scans and sums
/// for widths that do not divide 64, at the cost of the unused top bits of
/// each word). Everything but the dense byte stream ([`as_bytes`],
/// [`from_bytes`], [`reinterpret`], [`as_slice_of`]) works on both;
/// [`to_layout`](Self::to_layout) and `From` convert. The default layout's
/// constructors are [`new`](Self::new), [`zeroed`](Self::zeroed),
/// [`with_capacity`](Self::with_capacity) and [`from_slice`](Self::from_slice);
/// the same constructors for any layout, named by the type, end in `_in`:
///
/// ```
/// use arbitrary_int::u5;
/// use bitpack::{NarrowArray, WordAligned};
///
/// let values: Vec<u5> = (0..100u8).map(|i| u5::new(i % 32)).collect();
/// let aligned = NarrowArray::<u5, WordAligned>::from_slice_in(&values);
/// assert_eq!(aligned.as_words().len(), 9); // 12 values per word
/// assert_eq!(aligned.to_vec(), values);
/// let dense: NarrowArray<u5> = aligned.to_layout();
/// assert_eq!(dense.as_bytes().len(), 63); // 500 bits
/// assert_eq!(dense, aligned); // equal values, whatever the layout
/// ```
///
/// [`as_bytes`]: Self::as_bytes
/// [`from_bytes`]: Self::from_bytes
/// [`reinterpret`]: Self::reinterpret
/// [`as_slice_of`]: Self::as_slice_of
///
/// # Views and sums
///
/// [`view`](Self::view) and [`view_mut`](Self::view_mut) give strided N-d
/// [`View`](crate::View)s and [`ViewMut`](crate::ViewMut)s (slicing,
/// transposes, reversed and broadcast axes, assignment);
/// [`sum`](Self::sum) and [`View::sum_axes`](crate::View::sum_axes) reduce
/// unsigned elements without unpacking them.
///
/// # Errors
///
/// A fallible operation validates everything before it writes, so an error
/// leaves the array as it was.
pub struct NarrowArray<T: BitElement, L: Packing = Dense> {
    /// The stream, `words_for(len)` words, bits past the last element (and,
    /// word-aligned, gap bits) zero.
    words: Vec<u64>,
    len: usize,
    /// The shape; `None` is 1-d, `[len]`.
    dims: Option<Box<[usize]>>,
    _values: PhantomData<(T, L)>,
}

impl<T: BitElement> NarrowArray<T> {
    /// An empty array; allocates nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::<bool>::new();
    /// assert!(a.is_empty());
    /// assert_eq!(a.as_bytes(), [] as [u8; 0]);
    /// ```
    #[inline]
    pub const fn new() -> Self {
        Self::new_in()
    }

    /// `len` values whose bits are all zero (`T::from_raw_bits(0)`).
    ///
    /// # Panics
    ///
    /// When `len * T::BITS` overflows `usize`, or the allocator refuses the
    /// words (a panic, not an abort: [`try_zeroed`](Self::try_zeroed) returns
    /// the error instead).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::<arbitrary_int::u3>::zeroed(5);
    /// assert_eq!(a.len(), 5);
    /// assert_eq!(a.as_bytes(), [0, 0]);
    /// ```
    pub fn zeroed(len: usize) -> Self {
        Self::zeroed_in(len)
    }

    /// `len` values whose bits are all zero, or an error where
    /// [`zeroed`](Self::zeroed) would panic: for sizes that come from
    /// outside the program (a file header, a foreign tensor).
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`] when `len * T::BITS` overflows `usize` or the
    /// allocator refuses the words; nothing is allocated then.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{Error, NarrowArray};
    ///
    /// assert_eq!(NarrowArray::<bool>::try_zeroed(9)?.as_bytes(), [0, 0]);
    /// assert!(matches!(NarrowArray::<u16>::try_zeroed(usize::MAX), Err(Error::Alloc { .. })));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn try_zeroed(len: usize) -> Result<Self> {
        Self::try_zeroed_in(len)
    }

    /// An empty array with room for at least `capacity` values, or an
    /// error where [`with_capacity`](Self::with_capacity) would panic.
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`], as [`try_zeroed`](Self::try_zeroed).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::<bool>::try_with_capacity(100)?;
    /// assert!(a.is_empty() && a.capacity() >= 100);
    /// assert!(bitpack::NarrowArray::<u64>::try_with_capacity(usize::MAX).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn try_with_capacity(capacity: usize) -> Result<Self> {
        let mut a = Self::new_in();
        a.try_reserve(capacity)?;
        Ok(a)
    }

    /// An empty array with room for at least `capacity` values.
    ///
    /// # Panics
    ///
    /// When `capacity * T::BITS` overflows `usize`, or the allocation fails.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::<bool>::with_capacity(100);
    /// assert!(a.is_empty());
    /// assert!(a.capacity() >= 100);
    /// ```
    pub fn with_capacity(capacity: usize) -> Self {
        Self::with_capacity_in(capacity)
    }

    /// Packs a slice of values.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    ///
    /// let a = NarrowArray::from_slice(&[0x21u8, 0x43]);
    /// assert_eq!(a.as_bytes(), [0x21, 0x43]);
    /// ```
    pub fn from_slice(values: &[T]) -> Self {
        Self::from_slice_in(values)
    }
}

impl<T: BitElement, L: Packing> NarrowArray<T, L> {
    /// The raw stream core of the array's words (sizing, growth, one value).
    const RAW: Raw = Raw {
        aligned: L::WORD_ALIGNED,
        bits: T::BITS,
        name: "NarrowArray",
        words: "the words of a NarrowArray",
    };

    /// Packs `values` into `words` at index `first` (split across threads
    /// by the `rayon` feature: [`bulk::pack_at`]).
    #[inline]
    fn pack_at(values: &[T], words: &mut [u64], first: usize) {
        bulk::pack_at(L::WORD_ALIGNED, values, words, first);
    }

    /// Unpacks the values at `first..first + dst.len()` of `words` (split
    /// as [`Self::pack_at`]).
    #[inline]
    fn unpack_at(words: &[u64], first: usize, dst: &mut [T]) {
        bulk::unpack_at(L::WORD_ALIGNED, words, first, dst);
    }

    /// The zero value of `T` (all value bits clear).
    #[inline(always)]
    pub(crate) fn zero_value() -> T {
        T::from_raw_bits(T::Raw::ZERO)
    }

    /// An array over `words`, which must hold `len` values with zero padding.
    #[inline]
    pub(crate) fn from_parts(words: Vec<u64>, len: usize, dims: Option<Box<[usize]>>) -> Self {
        debug_assert_eq!(words.len(), Self::RAW.words_for(len));
        Self {
            words,
            len,
            dims,
            _values: PhantomData,
        }
    }

    /// The words, mutably (the caller keeps padding and gap bits zero).
    #[inline]
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// The word buffer.
    #[inline]
    pub(crate) fn into_words(self) -> Vec<u64> {
        self.words
    }

    /// An empty array in layout `L`; allocates nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{NarrowArray, WordAligned};
    ///
    /// let a = NarrowArray::<u8, WordAligned>::new_in();
    /// assert!(a.is_empty());
    /// ```
    #[inline]
    pub const fn new_in() -> Self {
        Self {
            words: Vec::new(),
            len: 0,
            dims: None,
            _values: PhantomData,
        }
    }

    /// `len` values whose bits are all zero, in layout `L`.
    ///
    /// # Panics
    ///
    /// When the stream's bit count overflows `usize`, or the allocation
    /// fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{NarrowArray, WordAligned};
    ///
    /// let a = NarrowArray::<arbitrary_int::u7, WordAligned>::zeroed_in(10);
    /// assert_eq!(a.len(), 10);
    /// assert_eq!(a.as_words(), [0, 0]); // 9 values per word
    /// ```
    pub fn zeroed_in(len: usize) -> Self {
        Self::try_zeroed_in(len).unwrap_or_else(|e| panic!("NarrowArray::zeroed: {e}"))
    }

    /// `len` zero values in layout `L`, or [`Error::Alloc`] (see
    /// [`try_zeroed`](NarrowArray::try_zeroed)).
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`] when the size overflows or the allocator refuses.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{NarrowArray, WordAligned};
    ///
    /// let a = NarrowArray::<arbitrary_int::u7, WordAligned>::try_zeroed_in(10)?;
    /// assert_eq!(a.as_words(), [0, 0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn try_zeroed_in(len: usize) -> Result<Self> {
        Ok(Self::from_parts(Self::RAW.try_zeroed(len)?, len, None))
    }

    /// An empty array in layout `L` with room for at least `capacity` values.
    ///
    /// # Panics
    ///
    /// When the stream's bit count overflows `usize`, or the allocation
    /// fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{NarrowArray, WordAligned};
    ///
    /// let a = NarrowArray::<arbitrary_int::u3, WordAligned>::with_capacity_in(100);
    /// assert!(a.capacity() >= 100);
    /// ```
    pub fn with_capacity_in(capacity: usize) -> Self {
        let mut a = Self::new_in();
        a.try_reserve(capacity)
            .unwrap_or_else(|e| panic!("NarrowArray::with_capacity: {e}"));
        a
    }

    /// Packs a slice of values in layout `L`.
    ///
    /// # Examples
    ///
    /// ```
    /// use arbitrary_int::u3;
    /// use bitpack::{NarrowArray, WordAligned};
    ///
    /// let values = [u3::new(7); 22];
    /// let a = NarrowArray::<u3, WordAligned>::from_slice_in(&values);
    /// # #[cfg(target_endian = "little")]
    /// assert_eq!(a.as_words(), [u64::MAX >> 1, 0b111]); // 21 values, then one
    /// ```
    pub fn from_slice_in(values: &[T]) -> Self {
        let mut words = vec![0; Self::RAW.words_for(values.len())];
        Self::pack_at(values, &mut words, 0);
        Self::from_parts(words, values.len(), None)
    }

    shape_accessors! { fields:
        /// The number of values.
        ///
        /// # Examples
        ///
        /// ```
        /// assert_eq!(bitpack::NarrowArray::from_slice(&[true, false]).len(), 2);
        /// ```
        len;
        /// Whether the array holds no values.
        ///
        /// # Examples
        ///
        /// ```
        /// assert!(bitpack::NarrowArray::<u8>::new().is_empty());
        /// ```
        is_empty;
    }

    /// How many values the array holds without reallocating.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::<bool>::with_capacity(10);
    /// assert!(a.capacity() >= 10);
    /// ```
    #[inline]
    pub fn capacity(&self) -> usize {
        Self::RAW.capacity(self.words.capacity())
    }

    /// Reserves room for at least `additional` more values.
    ///
    /// # Panics
    ///
    /// When the new length in bits overflows `usize`, or the allocation
    /// fails.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::<u8>::new();
    /// a.reserve(64);
    /// assert!(a.capacity() >= 64);
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        Self::RAW.reserve(&mut self.words, self.len, additional);
    }

    /// Reserves room for at least `additional` more values, or returns an
    /// error where [`reserve`](Self::reserve) would panic; the array is
    /// unchanged then.
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`] when the new length overflows or the allocator
    /// refuses.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8]);
    /// a.try_reserve(64)?;
    /// assert!(a.capacity() >= 65);
    /// assert!(a.try_reserve(usize::MAX).is_err());
    /// assert_eq!(a.to_vec(), [1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn try_reserve(&mut self, additional: usize) -> Result<()> {
        Self::RAW.try_reserve(&mut self.words, self.len, additional)
    }

    /// The value at flat index `i`, or `None` when `i >= len`. O(1): it reads
    /// only the words holding the value.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    ///
    /// let a = NarrowArray::from_slice(&[false, true]);
    /// assert_eq!(a.get(1), Some(true));
    /// assert_eq!(a.get(2), None);
    /// ```
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        Self::RAW.get(&self.words, self.len, i).map(Self::from_raw)
    }

    /// The value at `i`, which must be in bounds.
    #[inline(always)]
    fn value(&self, i: usize) -> T {
        Self::from_raw(Self::RAW.read(&self.words, i))
    }

    /// The value of raw bits read from the stream.
    #[inline(always)]
    fn from_raw(raw: u128) -> T {
        T::from_raw_bits(T::Raw::from_u128_truncate(raw))
    }

    /// Sets the value at flat index `i`. O(1): it writes only the bits of that
    /// value.
    ///
    /// # Errors
    ///
    /// [`Error::Index`] (naming `i` and the length) when `i >= len`; the array
    /// is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use arbitrary_int::u4;
    /// use bitpack::NarrowArray;
    ///
    /// let mut a = NarrowArray::<u4>::zeroed(3);
    /// a.set(1, u4::new(0xf))?;
    /// assert_eq!(a.as_bytes(), [0xf0, 0x00]);
    /// assert_eq!(
    ///     a.set(3, u4::new(1)).unwrap_err().to_string(),
    ///     "index 3 is out of bounds for length 3",
    /// );
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn set(&mut self, i: usize, value: T) -> Result<()> {
        let raw = value.raw_bits().to_u128();
        Self::RAW.set(&mut self.words, self.len, i, raw)
    }

    /// Appends a value (the array becomes 1-d).
    ///
    /// # Panics
    ///
    /// When the new length in bits overflows `usize`, or the allocation
    /// fails.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::new();
    /// a.push(true);
    /// a.push(true);
    /// assert_eq!(a.as_bytes(), [0b11]);
    /// ```
    pub fn push(&mut self, value: T) {
        let len = Self::RAW.push(&mut self.words, self.len, value.raw_bits().to_u128());
        self.set_flat_len(len);
    }

    /// Removes and returns the last value (the array becomes 1-d), or `None`
    /// when the array is empty (then nothing changes).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2]);
    /// assert_eq!(a.pop(), Some(2));
    /// assert_eq!(a.pop(), Some(1));
    /// assert_eq!(a.pop(), None);
    /// ```
    pub fn pop(&mut self) -> Option<T> {
        let raw = Self::RAW.pop(&mut self.words, self.len)?;
        self.set_flat_len(self.len - 1);
        Some(Self::from_raw(raw))
    }

    /// Keeps the first `len` values and drops the rest (the array becomes
    /// 1-d); does nothing when `len >= self.len()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[true; 12]);
    /// a.truncate(3);
    /// assert_eq!(a.as_bytes(), [0b111]);
    /// ```
    pub fn truncate(&mut self, len: usize) {
        if Self::RAW.truncate(&mut self.words, self.len, len) {
            self.set_flat_len(len);
        }
    }

    /// Removes every value (the array becomes 1-d); keeps the allocation.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2]);
    /// a.clear();
    /// assert!(a.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.words.clear();
        self.set_flat_len(0);
    }

    /// Appends the values of a slice (the array becomes 1-d).
    ///
    /// # Panics
    ///
    /// When the new length in bits overflows `usize`, or the allocation
    /// fails.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[true]);
    /// a.extend_from_slice(&[false, true]);
    /// assert_eq!(a.as_bytes(), [0b101]);
    /// ```
    pub fn extend_from_slice(&mut self, values: &[T]) {
        let len = Self::RAW.grow(&mut self.words, self.len, values.len());
        Self::pack_at(values, &mut self.words, self.len);
        self.set_flat_len(len);
    }

    /// Unpacks every value into a `Vec` (the compute layout).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::<bool>::from_bytes(&[0b110], 3)?;
    /// assert_eq!(a.to_vec(), [false, true, true]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn to_vec(&self) -> Vec<T> {
        let mut out = vec![Self::zero_value(); self.len];
        Self::unpack_at(&self.words, 0, &mut out);
        out
    }

    /// Unpacks every value into `dst`, which must have the same length.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] (naming both lengths) when `dst.len() != len`;
    /// `dst` is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[3u16, 4]);
    /// let mut out = [0u16; 2];
    /// a.unpack_into(&mut out)?;
    /// assert_eq!(out, [3, 4]);
    /// assert!(a.unpack_into(&mut [0u16; 3]).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn unpack_into(&self, dst: &mut [T]) -> Result<()> {
        check_len(LengthOf::UnpackOutput, self.len, dst.len())?;
        Self::unpack_at(&self.words, 0, dst);
        Ok(())
    }

    /// Packs `src` over every value of the array, which keeps its length and
    /// shape.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] (naming both lengths) when `src.len() != len`; the
    /// array is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::<bool>::zeroed(3);
    /// a.pack_from(&[true, false, true])?;
    /// assert_eq!(a.as_bytes(), [0b101]);
    /// assert!(a.pack_from(&[true]).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn pack_from(&mut self, src: &[T]) -> Result<()> {
        check_len(LengthOf::PackSource, self.len, src.len())?;
        Self::pack_at(src, &mut self.words, 0);
        Ok(())
    }

    /// The 64-bit words holding the stream: stream bit `k` is bit `k % 64` of
    /// word `k / 64` on little-endian targets (on big-endian targets the
    /// words hold the same bytes, so their integer values are byte-swapped).
    /// Dense: there are `ceil(len * T::BITS / 64)` words, and every bit past
    /// the last value is zero. Word-aligned: see [`WordAligned`] (for
    /// `T::BITS <= 64`, `ceil(len / floor(64 / T::BITS))` words); gap bits
    /// and bits past the last value are zero.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[true; 65]);
    /// # #[cfg(target_endian = "little")]
    /// assert_eq!(a.as_words(), [u64::MAX, 1]);
    /// ```
    #[inline]
    pub fn as_words(&self) -> &[u64] {
        &self.words
    }

    shape_accessors! { fields:
        /// The shape, row-major (the last dimension is the packed one): `[len]`
        /// for a 1-d array.
        ///
        /// # Examples
        ///
        /// ```
        /// let mut a = bitpack::NarrowArray::<bool>::zeroed(6);
        /// assert_eq!(a.shape(), [6]);
        /// a.reshape(&[2, 3])?;
        /// assert_eq!(a.shape(), [2, 3]);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        shape;
        /// The number of dimensions.
        ///
        /// # Examples
        ///
        /// ```
        /// let mut a = bitpack::NarrowArray::<u8>::zeroed(1);
        /// assert_eq!(a.ndim(), 1);
        /// a.reshape(&[])?; // a 0-d array of one value
        /// assert_eq!(a.ndim(), 0);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        ndim;
        /// Gives the array a new shape with the same number of values (their
        /// flat order is unchanged). The empty shape is a 0-d array of one value.
        ///
        /// # Errors
        ///
        /// [`Error::Shape`] when the product of `shape` is not `len` (or
        /// overflows), and [`Error::TooManyDims`] for more than
        /// [`MAX_DIMS`](crate::MAX_DIMS) dimensions; the shape is unchanged.
        ///
        /// # Examples
        ///
        /// ```
        /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4, 5, 6]);
        /// a.reshape(&[3, 2])?;
        /// assert_eq!(a.shape(), [3, 2]);
        /// let err = a.reshape(&[4, 2]).unwrap_err();
        /// assert_eq!(err.to_string(), "shape holds 8 values but the array has 6");
        /// assert_eq!(a.shape(), [3, 2]);
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
    /// let a = bitpack::NarrowArray::from_slice(&[true, false, true]);
    /// assert_eq!(a.iter().filter(|&b| b).count(), 2);
    /// ```
    #[inline]
    pub fn iter(&self) -> Iter<'_, T, L> {
        Iter::new(self)
    }

    /// The same values and shape in layout `L2` (a fresh array).
    ///
    /// Where the two layouts are the same bits (the same layout, or a width
    /// that divides 64) this copies the words; otherwise it repacks through
    /// a small stack buffer, in O(n).
    ///
    /// # Examples
    ///
    /// ```
    /// use arbitrary_int::u6;
    /// use bitpack::{Dense, NarrowArray, WordAligned};
    ///
    /// let mut a = NarrowArray::from_slice(&[u6::new(9); 12]);
    /// a.reshape(&[3, 4])?;
    /// let b = a.to_layout::<WordAligned>();
    /// assert_eq!(b.shape(), [3, 4]);
    /// assert_eq!(b.as_words().len(), 2); // 10 values per word
    /// assert_eq!(b.to_layout::<Dense>(), a);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn to_layout<L2: Packing>(&self) -> NarrowArray<T, L2> {
        if L::WORD_ALIGNED == L2::WORD_ALIGNED || packing::same_as_dense(T::BITS) {
            return NarrowArray {
                words: self.words.clone(),
                len: self.len,
                dims: self.dims.clone(),
                _values: PhantomData,
            };
        }
        self.repacked()
    }

    /// The same values and shape in layout `L2`, reusing the words where the
    /// two layouts are the same bits (see [`to_layout`](Self::to_layout)).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{NarrowArray, WordAligned};
    ///
    /// let a = NarrowArray::from_slice(&[1u8, 2, 3]);
    /// let b = a.into_layout::<WordAligned>(); // 8 bits divide 64: no copy
    /// assert_eq!(b.to_vec(), [1, 2, 3]);
    /// ```
    pub fn into_layout<L2: Packing>(self) -> NarrowArray<T, L2> {
        if L::WORD_ALIGNED == L2::WORD_ALIGNED || packing::same_as_dense(T::BITS) {
            return NarrowArray {
                words: self.words,
                len: self.len,
                dims: self.dims,
                _values: PhantomData,
            };
        }
        self.repacked()
    }

    /// Repacks into a fresh array of layout `L2`, a chunk at a time.
    fn repacked<L2: Packing>(&self) -> NarrowArray<T, L2> {
        let mut out = NarrowArray::<T, L2>::zeroed_in(self.len);
        let to = NarrowArray::<T, L2>::RAW;
        let words = Words::Copy(&self.words, &mut out.words);
        Self::RAW.repack(to, words, self.len);
        out.dims = self.dims.clone();
        out
    }
}
