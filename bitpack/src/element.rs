//! The element model: [`BitElement`] and its built-in implementations.

use crate::unsigned::Unsigned;

/// A value type with a fixed number of value bits, stored packed.
///
/// A value of `T` has [`T::BITS`](BitElement::BITS) value bits (1..=128).
/// [`raw_bits`](BitElement::raw_bits) gives them, zero-extended into
/// [`T::Raw`](BitElement::Raw); [`from_raw_bits`](BitElement::from_raw_bits)
/// builds a value from them, ignoring bits above `BITS`. Every pattern of
/// `BITS` bits is a valid value, so `from_raw_bits` is total and safe. These
/// two functions are the only way bits enter or leave a packed container.
///
/// # Contract
///
/// Containers rely on these rules (the derive and every built-in obey them;
/// a hand-written impl must too, and breaking them gives wrong values, never
/// undefined behaviour):
///
/// - `1 <= BITS <= 128` and `BITS <= Raw::BITS`;
/// - `Raw` is the narrowest of `u8`..`u128` that holds the value's *bytes*
///   (a 24-bit aggregate has `Raw = u32`; a 4-bit float stored in a byte has
///   `Raw = u8`);
/// - `raw_bits(x)` has every bit above `BITS` clear, whatever `x` held;
/// - `from_raw_bits(r)` depends only on the low `BITS` bits of `r`, and
///   `from_raw_bits(r).raw_bits() == r & mask(BITS)`.
///
/// A value is its bits, so it is `Send` and `Sync` like the integers it is
/// made of (the compiler checks this for every impl): with the `rayon`
/// feature, large bulk calls hand slices of values to other threads.
///
/// # Implementations
///
/// `u8`..`u128` and `i8`..`i128` (their full width), `bool` (1 bit, although
/// Rust stores it in a byte), `f32`, `f64`, `half::f16` and `half::bf16` (the
/// `half` feature), `arbitrary_int`'s `u1`..`u127` and `i1`..`i127` (the `arbitrary-int`
/// feature; `u5` is 5 bits with `Raw = u8`, `u24` is 24 bits with `Raw =
/// u32`), `NArray` (so vectors of vectors pack), and every type with
/// `#[derive(BitElement)]`.
///
/// # Examples
///
/// ```
/// use bitpack::BitElement;
///
/// assert_eq!(<bool as BitElement>::BITS, 1);
/// assert_eq!(true.raw_bits(), 1u8);
/// assert_eq!(<i8 as BitElement>::from_raw_bits(0xff), -1);
/// assert_eq!(1.0f32.raw_bits(), 0x3f80_0000);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `BitElement`",
    label = "`{Self}` has no fixed number of value bits",
    note = "a `BitElement` is a `Copy` value whose bits are all of it: the integers, `f32`, \
            `f64`, `bool`, `half::f16`/`bf16`, `arbitrary_int::u1`..`u127`, `NArray`, and \
            `#[derive(BitElement)]` types; references, pointers and heap types (`Vec`, `Box`) \
            point elsewhere and cannot be packed as bits"
)]
pub trait BitElement: Copy + Send + Sync + Sized + 'static {
    /// Number of value bits, 1..=128.
    const BITS: u32;

    /// The narrowest of `u8`, `u16`, `u32`, `u64`, `u128` that holds the
    /// value's bytes.
    type Raw: Unsigned;

    /// The value bits, zero-extended: bits above `BITS` are always clear.
    fn raw_bits(self) -> Self::Raw;

    /// The value whose bits are the low `BITS` bits of `raw`; higher bits are
    /// ignored.
    fn from_raw_bits(raw: Self::Raw) -> Self;
}

/// The number of value bits of `T` (`T::BITS`).
///
/// # Examples
///
/// ```
/// assert_eq!(bitpack::bitwidth::<bool>(), 1);
/// assert_eq!(bitpack::bitwidth::<u16>(), 16);
/// ```
#[inline(always)]
pub const fn bitwidth<T: BitElement>() -> u32 {
    T::BITS
}

/// The value bits of `x`, zero-extended into `T::Raw`.
///
/// # Examples
///
/// ```
/// assert_eq!(bitpack::raw_bits(-2i16), 0xfffeu16);
/// ```
#[inline(always)]
pub fn raw_bits<T: BitElement>(x: T) -> T::Raw {
    x.raw_bits()
}

/// The value of `T` whose bits are the low `T::BITS` bits of `raw`.
///
/// # Examples
///
/// ```
/// assert!(bitpack::from_raw_bits::<bool>(0b11));
/// assert!(!bitpack::from_raw_bits::<bool>(0b10));
/// ```
#[inline(always)]
pub fn from_raw_bits<T: BitElement>(raw: T::Raw) -> T {
    T::from_raw_bits(raw)
}

/// `BitElement` for a built-in type: `Type, Raw, BITS, |value| its raw bits,
/// |raw| the value of those bits` (bits above `BITS` cleared or ignored as the
/// trait asks).
macro_rules! bit_element {
    ($t:ty, $raw:ty, $bits:expr, |$v:ident| $get:expr, |$r:ident| $make:expr) => {
        impl BitElement for $t {
            const BITS: u32 = $bits;
            type Raw = $raw;

            #[inline(always)]
            fn raw_bits(self) -> $raw {
                let $v = self;
                $get
            }

            #[inline(always)]
            fn from_raw_bits($r: $raw) -> Self {
                $make
            }
        }
    };
}

macro_rules! impl_full_width {
    ($($t:ty => $raw:ty),* $(,)?) => {$(
        bit_element!($t, $raw, <$raw>::BITS, |v| v as $raw, |raw| raw as $t);
    )*};
}

impl_full_width!(
    u8 => u8, u16 => u16, u32 => u32, u64 => u64, u128 => u128,
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128,
);

bit_element!(bool, u8, 1, |v| v as u8, |raw| raw & 1 != 0);

macro_rules! impl_float {
    ($($t:ty => $raw:ty),* $(,)?) => {$(
        bit_element!($t, $raw, <$raw>::BITS, |v| v.to_bits(), |raw| <$t>::from_bits(raw));
    )*};
}

impl_float!(f32 => u32, f64 => u64);

#[cfg(feature = "half")]
impl_float!(half::f16 => u16, half::bf16 => u16);

/// Calls the macro `$m` with the widths of `arbitrary_int`'s narrow integers,
/// one row per storage type: `unsigned, signed: widths;`. The one table of
/// those widths, for every trait implemented on them.
#[cfg(feature = "arbitrary-int")]
macro_rules! narrow_int_widths {
    ($m:ident) => {
        $m! {
            u8, i8: 1 2 3 4 5 6 7;
            u16, i16: 9 10 11 12 13 14 15;
            u32, i32: 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31;
            u64, i64: 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48
                 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63;
            u128, i128: 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80
                  81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96
                  97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112
                  113 114 115 116 117 118 119 120 121 122 123 124 125 126 127;
        }
    };
}
#[cfg(feature = "arbitrary-int")]
pub(crate) use narrow_int_widths;

#[cfg(feature = "arbitrary-int")]
mod narrow_ints {
    use super::BitElement;
    use arbitrary_int::{Int, UInt};

    macro_rules! impl_narrow_ints {
        ($($u:ty, $i:ty: $($bits:literal)*;)*) => {$($(
            bit_element!(UInt<$u, $bits>, $u, $bits, |v| v.value(), |raw| Self::new(raw & Self::MASK));
            // Two's complement: the value bits are the low `BITS` bits.
            bit_element!(
                Int<$i, $bits>, $u, $bits,
                |v| v.to_bits(),
                |raw| Self::from_bits(raw & (Self::MASK as $u))
            );
        )*)*};
    }

    super::narrow_int_widths!(impl_narrow_ints);
}

/// An element whose value is its raw bits read as an unsigned integer, so
/// that a sum of the raw bits is the sum of the values: `bool` (`true` is 1),
/// `u8`..`u64` and, with the `arbitrary-int` feature, `arbitrary_int`'s
/// `u1`..`u63`.
///
/// Implement it for your own type when that holds (a `#[bitwidth(5)]`
/// newtype of a `u8` counter, say). [`NarrowArray::sum`](crate::NarrowArray::sum)
/// needs `BITS <= 64` (a compile-time check).
///
/// # Examples
///
/// ```
/// use bitpack::{BitElement, NarrowArray, UnsignedElement};
///
/// #[derive(Clone, Copy, BitElement)]
/// #[repr(transparent)]
/// #[bitwidth(3)]
/// struct Count(u8);
///
/// impl UnsignedElement for Count {}
///
/// let a = NarrowArray::from_slice(&[Count(7), Count(2), Count(5)]);
/// assert_eq!(a.sum(), 14);
/// ```
pub trait UnsignedElement: BitElement {}

macro_rules! unsigned_elements {
    ($($t:ty),* $(,)?) => {$( impl UnsignedElement for $t {} )*};
}

unsigned_elements!(bool, u8, u16, u32, u64);

#[cfg(feature = "arbitrary-int")]
mod unsigned_narrow_ints {
    use super::UnsignedElement;
    use arbitrary_int::*;

    unsigned_elements!(
        u1, u2, u3, u4, u5, u6, u7, u9, u10, u11, u12, u13, u14, u15, u17, u18, u19, u20, u21, u22,
        u23, u24, u25, u26, u27, u28, u29, u30, u31, u33, u34, u35, u36, u37, u38, u39, u40, u41,
        u42, u43, u44, u45, u46, u47, u48, u49, u50, u51, u52, u53, u54, u55, u56, u57, u58, u59,
        u60, u61, u62, u63,
    );
}
