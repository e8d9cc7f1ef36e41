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
/// `[u128; 2]`). `Storage` is implemented only for the types the rule picks,
/// for 1..=1024 bytes, so `[u8; 2]` (two bytes are a `u16`) is not a storage.
///
/// # Examples
///
/// ```
/// use bitpack::Storage;
///
/// assert_eq!(<u16 as Storage>::BYTES, 2);
/// assert_eq!(<[u16; 3] as Storage>::BYTES, 6);
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

macro_rules! impl_array_storage {
    ($($w:ty; $k:literal),* $(,)?) => {$(
        impl sealed::Sealed for [$w; $k] {}
        impl Storage for [$w; $k] {
            type Word = $w;
            const BYTES: usize = $k * core::mem::size_of::<$w>();
            const WORDS: usize = $k;

            #[inline(always)]
            fn words(&self) -> &[$w] {
                self
            }

            #[inline(always)]
            fn words_mut(&mut self) -> &mut [$w] {
                self
            }
        }
    )*};
}

/// A storage of at most 16 bytes, which fits one unsigned integer: the
/// storage of an `NArray` that is itself an element.
///
/// # Examples
///
/// ```
/// use bitpack::SmallStorage;
///
/// let s = [0x01u8, 0x02, 0x03];
/// let raw: u32 = s.to_raw();
/// assert_eq!(raw, 0x03_02_01);
/// assert_eq!(<[u8; 3]>::from_raw(raw), s);
/// ```
pub trait SmallStorage: Storage {
    /// The narrowest unsigned integer holding [`Storage::BYTES`] bytes.
    type Raw: Unsigned;

    /// The storage bits as one integer, bit `k` of the storage at bit `k`.
    #[inline]
    fn to_raw(&self) -> Self::Raw {
        Self::Raw::from_u128_truncate(self.get_bits(0, 8 * Self::BYTES as u32))
    }

    /// The storage holding the low `8 * BYTES` bits of `raw`.
    #[inline]
    fn from_raw(raw: Self::Raw) -> Self {
        let mut s: Self = bytemuck::Zeroable::zeroed();
        s.set_bits(0, 8 * Self::BYTES as u32, raw.to_u128());
        s
    }
}

macro_rules! impl_small_storage {
    ($($s:ty => $raw:ty),* $(,)?) => {$(
        impl SmallStorage for $s {
            type Raw = $raw;
        }
    )*};
}

impl_small_storage!(
    u8 => u8, u16 => u16, [u8; 3] => u32, u32 => u32, [u8; 5] => u64, [u16; 3] => u64,
    [u8; 7] => u64, u64 => u64, [u8; 9] => u128, [u16; 5] => u128, [u8; 11] => u128,
    [u32; 3] => u128, [u8; 13] => u128, [u16; 7] => u128, [u8; 15] => u128, u128 => u128,
);

/// Bytes taken by `n` values of `bits` bits: `ceil(n * bits / 8)`, exact
/// for every result that fits in `usize` (the product is formed in `u128`).
///
/// # Panics
///
/// When the byte count overflows `usize` (`storage_bytes(usize::MAX, 16)`);
/// [`checked_storage_bytes`] returns `None` there instead.
///
/// # Examples
///
/// ```
/// assert_eq!(bitpack::storage_bytes(4, 6), 3);
/// assert_eq!(bitpack::storage_bytes(9, 1), 2);
/// assert_eq!(bitpack::storage_bytes(1 << 62, 8), 1 << 62);
/// ```
pub const fn storage_bytes(n: usize, bits: u32) -> usize {
    match checked_storage_bytes(n, bits) {
        Some(bytes) => bytes,
        None => panic!("storage_bytes: the byte count of n values of `bits` bits overflows usize"),
    }
}

/// Bytes taken by `n` values of `bits` bits, `ceil(n * bits / 8)`, or `None`
/// when that overflows `usize`.
///
/// # Examples
///
/// ```
/// assert_eq!(bitpack::checked_storage_bytes(1 << 62, 8), Some(1 << 62));
/// assert_eq!(bitpack::checked_storage_bytes(usize::MAX, 16), None);
/// assert_eq!(bitpack::checked_storage_bytes(usize::MAX, 8), Some(usize::MAX));
/// ```
pub const fn checked_storage_bytes(n: usize, bits: u32) -> Option<usize> {
    // At most (2^64 - 1) * (2^32 - 1) < 2^96: no overflow in u128.
    let bytes = (n as u128 * bits as u128).div_ceil(8);
    if bytes > usize::MAX as u128 {
        None
    } else {
        Some(bytes as usize)
    }
}

/// Default storage of `N` lanes of an element type: the type the storage rule
/// picks for `N * Self::BITS` bits.
///
/// Stable Rust cannot compute a type from `T::BITS` and `N` in generic code, so
/// this trait is implemented per element type for `N` in `1..=64`: for every
/// built-in element, and by `#[derive(BitElement)]` for every non-generic
/// derived type. [`NArray<T, N>`](crate::NArray) uses it as the default for
/// its storage parameter; nested arrays and generic element types name the
/// storage explicitly.
///
/// # Implementations
///
/// Every built-in element (`bool`, the integers, `f32`/`f64`, `half::f16`/
/// `half::bf16`, `arbitrary_int`'s `u1`..`u127`, the formats in
/// [`formats`](crate::formats)) and every non-generic derived element
/// implements `Lanes<N>` for each `N` in `1..=64`, with `Storage` the type
/// the storage rule picks for `storage_bytes(N, Self::BITS)` bytes. The
/// impls are generated and hidden from the element types' pages, which would
/// otherwise list 64 of them each.
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

/// The storage of `B` bytes of lanes, as the rule picks it: the type
/// `__impl_lanes!` names for each `Lanes<N>`.
#[doc(hidden)]
pub type StorageOf<const B: usize> = <ByteCount<B> as StorageFor>::Storage;

/// Implements `Lanes<1..=64>` for concrete element types: the built-in
/// ones below, and each type `#[derive(BitElement)]` derives (its generated
/// code calls `bitpack::__impl_lanes!`).
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_lanes {
    ($($t:ty),+ $(,)?) => {
        $( $crate::__impl_lanes!(@each $t;
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
            33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61
            62 63 64); )+
    };
    (@each $t:ty; $($n:literal)*) => {
        $(
            // Hidden: 64 generated impls per element would bury the type's
            // own docs; the `Lanes` trait documents them once.
            #[doc(hidden)]
            impl $crate::Lanes<$n> for $t {
                type Storage = $crate::__StorageOf<
                    { $crate::storage_bytes($n, <$t as $crate::BitElement>::BITS) },
                >;
            }
        )*
    };
}

/// Implements `Lanes<1..=64>` for the built-in element types .
mod builtin_lanes {
    crate::__impl_lanes!(
        u8, u16, u32, u64, u128, i8, i16, i32, i64, i128, bool, f32, f64
    );

    #[cfg(feature = "half")]
    crate::__impl_lanes!(half::f16, half::bf16);

    #[cfg(feature = "arbitrary-int")]
    mod narrow_ints {
        use arbitrary_int::{Int, UInt};

        macro_rules! lanes_of_narrow_ints {
            ($($u:ty, $i:ty: $($bits:literal)*;)*) => {$($(
                crate::__impl_lanes!(UInt<$u, $bits>, Int<$i, $bits>);
            )*)*};
        }

        crate::element::narrow_int_widths!(lanes_of_narrow_ints);
    }
}
