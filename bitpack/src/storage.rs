//! The storage rule of the value layout: which word or word array holds
//! `N` packed values of `BITS` bits.

use crate::BitElement;
use crate::unsigned::{Unsigned, mask_u128};
use core::fmt::Debug;
use core::hash::Hash;

mod sealed {
    pub trait Sealed {}
}

/// A storage value for packed bits: an unsigned integer (`u8`..`u128`) or an
/// array of one (`[u8; 3]`, `[u16; 3]`, `[u128; 2]`, ...).
///
/// Bits are numbered LSB-first: bit `k` is bit `k % W` of word `k / W`, where
/// `W` is the word width. For an integer storage that is simply bit `k` of the
/// integer, so lane 0 of an [`NArray`](crate) sits in the low bits of the
/// register.
///
/// **The storage rule.** `N` values of `BITS` bits take `B = ceil(N * BITS / 8)`
/// bytes. If `B` is 1, 2, 4, 8 or 16 the storage is that unsigned integer;
/// otherwise it is an array of the widest unsigned integer that divides `B`
/// (3 bytes: `[u8; 3]`, 6: `[u16; 3]`, 12: `[u32; 3]`, 24: `[u64; 3]`, 32:
/// `[u128; 2]`). [`Storage::CANONICAL`] says whether a storage type is the one
/// the rule picks for its size.
///
/// # Examples
///
/// ```
/// use bitpack::Storage;
///
/// assert!(<u16 as Storage>::CANONICAL);
/// assert!(<[u16; 3] as Storage>::CANONICAL);
/// assert!(!<[u8; 2] as Storage>::CANONICAL); // two bytes are a `u16`
///
/// let mut s = [0u8; 3];
/// s.set_bits(6, 6, 0b10_1101);
/// assert_eq!(s, [0b0100_0000, 0b0000_1011, 0]);
/// assert_eq!(s.get_bits(6, 6), 0b10_1101);
/// ```
pub trait Storage:
    sealed::Sealed + Copy + Eq + Hash + Debug + Send + Sync + 'static + bytemuck::Pod
{
    /// The word the storage is made of.
    type Word: Unsigned;
    /// Size in bytes (equal to `size_of::<Self>()`).
    const BYTES: usize;
    /// Number of words.
    const WORDS: usize;
    /// Whether this is the storage the rule picks for [`Self::BYTES`] bytes.
    const CANONICAL: bool;

    /// The words, lowest bits first.
    fn words(&self) -> &[Self::Word];

    /// The words, lowest bits first, mutably.
    fn words_mut(&mut self) -> &mut [Self::Word];

    /// Reads `width` bits (1..=128) starting at bit `offset`.
    ///
    /// # Panics
    ///
    /// When `offset + width` exceeds `8 * BYTES`.
    #[inline]
    fn get_bits(&self, offset: usize, width: u32) -> u128 {
        read_bits(self.words(), offset, width)
    }

    /// Writes the low `width` bits (1..=128) of `value` at bit `offset`; other
    /// bits are unchanged and bits of `value` above `width` are ignored.
    ///
    /// # Panics
    ///
    /// When `offset + width` exceeds `8 * BYTES`.
    #[inline]
    fn set_bits(&mut self, offset: usize, width: u32, value: u128) {
        write_bits(self.words_mut(), offset, width, value)
    }
}

/// Reads `width` bits (0..=128) starting at bit `offset` of an LSB-first word
/// slice.
#[inline]
pub(crate) fn read_bits<W: Unsigned>(words: &[W], offset: usize, width: u32) -> u128 {
    let wb = W::BITS as usize;
    let mut idx = offset / wb;
    let mut shift = (offset % wb) as u32;
    let mut out = 0u128;
    let mut got = 0u32;
    while got < width {
        let take = (W::BITS - shift).min(width - got);
        let chunk = (words[idx].to_u128() >> shift) & mask_u128(take);
        out |= chunk << got;
        got += take;
        shift = 0;
        idx += 1;
    }
    out
}

/// Writes the low `width` bits (0..=128) of `value` at bit `offset` of an
/// LSB-first word slice.
#[inline]
pub(crate) fn write_bits<W: Unsigned>(words: &mut [W], offset: usize, width: u32, value: u128) {
    let wb = W::BITS as usize;
    let mut idx = offset / wb;
    let mut shift = (offset % wb) as u32;
    let mut put = 0u32;
    while put < width {
        let take = (W::BITS - shift).min(width - put);
        let m = W::from_u128_truncate(mask_u128(take)) << shift;
        let v = W::from_u128_truncate((value >> put) & mask_u128(take)) << shift;
        words[idx] = (words[idx] & !m) | v;
        put += take;
        shift = 0;
        idx += 1;
    }
}

macro_rules! impl_int_storage {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Storage for $t {
            type Word = $t;
            const BYTES: usize = core::mem::size_of::<$t>();
            const WORDS: usize = 1;
            const CANONICAL: bool = true;

            #[inline(always)]
            fn words(&self) -> &[$t] {
                core::slice::from_ref(self)
            }

            #[inline(always)]
            fn words_mut(&mut self) -> &mut [$t] {
                core::slice::from_mut(self)
            }

            #[inline]
            fn get_bits(&self, offset: usize, width: u32) -> u128 {
                assert!(offset + width as usize <= <$t>::BITS as usize, "bit range out of storage");
                ((*self as u128) >> offset) & mask_u128(width)
            }

            #[inline]
            fn set_bits(&mut self, offset: usize, width: u32, value: u128) {
                assert!(offset + width as usize <= <$t>::BITS as usize, "bit range out of storage");
                let m = (mask_u128(width) << offset) as $t;
                *self = (*self & !m) | (((value & mask_u128(width)) << offset) as $t);
            }
        }
    )*};
}

impl_int_storage!(u8, u16, u32, u64, u128);

impl<W: Unsigned, const K: usize> sealed::Sealed for [W; K] {}

impl<W: Unsigned, const K: usize> Storage for [W; K] {
    type Word = W;
    const BYTES: usize = K * W::BYTES;
    const WORDS: usize = K;
    // The rule picks an array only when the byte count is not a power of two
    // up to 16, and then of the widest word that divides it: an odd number of
    // words, or `u128` words (the widest there is).
    const CANONICAL: bool = K >= 2 && (W::BYTES == 16 || K % 2 == 1);

    #[inline(always)]
    fn words(&self) -> &[W] {
        self
    }

    #[inline(always)]
    fn words_mut(&mut self) -> &mut [W] {
        self
    }
}

/// Bytes taken by `n` values of `bits` bits: `ceil(n * bits / 8)`.
///
/// # Examples
///
/// ```
/// assert_eq!(bitpack::storage_bytes(4, 6), 3);
/// assert_eq!(bitpack::storage_bytes(9, 1), 2);
/// ```
pub const fn storage_bytes(n: usize, bits: u32) -> usize {
    (n * bits as usize).div_ceil(8)
}

/// Default storage of `N` lanes of an element type: the type the storage rule
/// picks for `N * Self::BITS` bits.
///
/// Stable Rust cannot compute a type from `T::BITS` and `N` in generic code, so
/// this trait is implemented per element type for `N` in `1..=64`: for every
/// built-in element, and by `#[derive(BitElement)]` for every non-generic
/// derived type. [`NArray<T, N>`](crate) uses it as the default for its
/// storage parameter; nested arrays and generic element types name the storage
/// explicitly.
///
/// # Examples
///
/// ```
/// use bitpack::Lanes;
///
/// let _: <bool as Lanes<8>>::Storage = 0u8;
/// let _: <bool as Lanes<9>>::Storage = 0u16;
/// let _: <bool as Lanes<17>>::Storage = [0u8; 3];
/// let _: <u8 as Lanes<12>>::Storage = [0u32; 3];
/// let _: <u128 as Lanes<2>>::Storage = [0u128; 2];
/// ```
pub trait Lanes<const N: usize>: BitElement {
    /// The storage of `N` lanes.
    type Storage: Storage;
}

/// A byte count, as a type: `ByteCount<B>` maps to the storage the rule picks
/// for `B` bytes through [`StorageFor`].
#[doc(hidden)]
#[derive(Debug)]
pub struct ByteCount<const B: usize>;

/// The storage the rule picks for a byte count.
#[doc(hidden)]
pub trait StorageFor {
    /// The storage type.
    type Storage: Storage;
}

include!("storage_table.rs");
