//! The physical layouts of a [`NarrowArray`](crate::NarrowArray): [`Dense`]
//! (the default) and [`WordAligned`].
//!
//! Both keep values LSB-first in index order in a buffer of 64-bit words,
//! with every bit that is not a value bit zero. They differ in where a value
//! may sit:
//!
//! - [`Dense`]: value `i` of `b` bits occupies stream bits `[i * b, (i + 1) *
//!   b)`, so values straddle word boundaries when `b` does not divide 64.
//!   This is the exchange format (DLPack, Arrow, numpy `packbits`).
//! - [`WordAligned`]: a value never straddles a 64-bit word. For `b <= 64`
//!   each word holds `floor(64 / b)` values at bits `0, b, 2b, ...` and its
//!   top `64 mod b` bits are zero (5-bit values: 12 per word, 4 bits unused);
//!   for `b > 64` each value starts a fresh pair of words. Every value is then
//!   one shift and one mask away, and whole-word kernels need no carry
//!   between words; the cost is `64 mod b` wasted bits per word (6.25% for 5
//!   bits, 1.6% for 3 bits, 12.5% for 7 bits, none for 1, 2, 4, 8, 16, 32
//!   and 64 bits, where the two layouts are the same bits).
//!
//! # When each one wins
//!
//! Measured on an x86_64 machine with AVX2 (`BENCHMARKS.md`, "Views and
//! reductions", has the numbers and the command):
//!
//! - [`WordAligned`] wins strided and sliced reductions with small strides
//!   (1.4-1.7x on 5-bit values: masked words fold in place) and short runs
//!   (64 five-bit values sum about 6x faster: no value straddles a word, so
//!   there is no block set-up).
//! - [`Dense`] wins whole-array sums of widths that do not divide 64 (its
//!   SIMD digit fold is faster per word, and it has fewer words), scans and
//!   column sums (its SIMD unpackers), and reads one value per word at long
//!   strides faster; it is also the only interchange format (`as_bytes`,
//!   DLPack, Arrow) and the smaller one.
//! - For 1, 2, 4, 8, 16, 32 and 64 bits the two are the same bits and share
//!   every kernel.

use core::fmt::Debug;
use core::hash::Hash;

mod sealed {
    pub trait Sealed {}
}

/// A physical layout of packed values: [`Dense`] or [`WordAligned`].
///
/// It is the second type parameter of [`NarrowArray`](crate::NarrowArray),
/// [`DynNarrowArray`](crate::DynNarrowArray) and the views; the trait is
/// sealed (these two are the only layouts).
///
/// # Examples
///
/// ```
/// use arbitrary_int::u5;
/// use bitpack::{Dense, NarrowArray, Packing, WordAligned};
///
/// fn words<L: Packing>(a: &NarrowArray<u5, L>) -> usize {
///     a.as_words().len()
/// }
/// let values = vec![u5::new(31); 24];
/// let dense = NarrowArray::from_slice(&values);
/// let aligned = NarrowArray::<u5, WordAligned>::from_slice_in(&values);
/// assert_eq!(words(&dense), 2); // 120 bits
/// assert_eq!(words(&aligned), 2); // 12 values per word
/// assert!(WordAligned::WORD_ALIGNED && !Dense::WORD_ALIGNED);
/// ```
pub trait Packing:
    sealed::Sealed + Copy + Default + Debug + PartialEq + Eq + Hash + Send + Sync + 'static
{
    /// Whether values are kept inside single 64-bit words.
    const WORD_ALIGNED: bool;
    /// The layout's name, as `Debug` shows it.
    const NAME: &'static str;
}

/// The dense layout (the default): value `i` of `b` bits at stream bits
/// `[i * b, (i + 1) * b)`, straddling words where it falls.
///
/// # Examples
///
/// ```
/// use arbitrary_int::u5;
/// use bitpack::NarrowArray;
///
/// let a = NarrowArray::from_slice(&[u5::new(31); 13]); // `NarrowArray<u5, Dense>`
/// # #[cfg(target_endian = "little")]
/// assert_eq!(a.as_words(), [u64::MAX, 0x1]); // value 12 straddles the two
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dense;

/// The word-aligned layout: values never straddle a 64-bit word.
///
/// For `b <= 64` bits, word `k` holds values `k * p .. (k + 1) * p` with `p =
/// floor(64 / b)`, value `k * p + j` at bits `[j * b, (j + 1) * b)`, and its
/// top `64 - p * b` bits zero. For `b > 64`, value `i` occupies words `2i` and
/// `2i + 1` (low bits first). Where `b` divides 64 this is the same bits as
/// [`Dense`].
///
/// # Examples
///
/// ```
/// use arbitrary_int::u5;
/// use bitpack::{NarrowArray, WordAligned};
///
/// let a = NarrowArray::<u5, WordAligned>::from_slice_in(&[u5::new(31); 13]);
/// # #[cfg(target_endian = "little")]
/// assert_eq!(a.as_words(), [u64::MAX >> 4, 0x1f]); // 12 values, then a new word
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WordAligned;

impl sealed::Sealed for Dense {}
impl sealed::Sealed for WordAligned {}

impl Packing for Dense {
    const WORD_ALIGNED: bool = false;
    const NAME: &'static str = "Dense";
}

impl Packing for WordAligned {
    const WORD_ALIGNED: bool = true;
    const NAME: &'static str = "WordAligned";
}

pub(crate) use crate::kernels::bits::{bit_of, per_word, same_as_dense};

/// The number of words holding `len` values, or `None` when the stream's
/// bit count overflows `usize`.
#[inline]
pub(crate) fn words_for(aligned: bool, bits: u32, len: usize) -> Option<usize> {
    if !aligned || same_as_dense(bits) {
        Some(len.checked_mul(bits as usize)?.div_ceil(64))
    } else if bits > 64 {
        len.checked_mul(128).map(|b| b / 64)
    } else {
        Some(len.div_ceil(per_word(bits)))
    }
}

/// How many values `words` words hold (saturating).
#[inline]
pub(crate) fn capacity_of(aligned: bool, bits: u32, words: usize) -> usize {
    if !aligned || same_as_dense(bits) {
        words.saturating_mul(64) / bits as usize
    } else if bits > 64 {
        words / 2
    } else {
        words.saturating_mul(per_word(bits))
    }
}
