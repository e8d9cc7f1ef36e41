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
pub trait BitElement: Copy + Sized + 'static {
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

macro_rules! impl_full_width {
    ($($t:ty => $raw:ty),* $(,)?) => {$(
        impl BitElement for $t {
            const BITS: u32 = <$raw>::BITS;
            type Raw = $raw;

            #[inline(always)]
            fn raw_bits(self) -> $raw {
                self as $raw
            }

            #[inline(always)]
            fn from_raw_bits(raw: $raw) -> Self {
                raw as $t
            }
        }
    )*};
}

impl_full_width!(
    u8 => u8, u16 => u16, u32 => u32, u64 => u64, u128 => u128,
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128,
);

impl BitElement for bool {
    const BITS: u32 = 1;
    type Raw = u8;

    #[inline(always)]
    fn raw_bits(self) -> u8 {
        self as u8
    }

    #[inline(always)]
    fn from_raw_bits(raw: u8) -> Self {
        raw & 1 != 0
    }
}

macro_rules! impl_float {
    ($($t:ty => $raw:ty),* $(,)?) => {$(
        impl BitElement for $t {
            const BITS: u32 = <$raw>::BITS;
            type Raw = $raw;

            #[inline(always)]
            fn raw_bits(self) -> $raw {
                self.to_bits()
            }

            #[inline(always)]
            fn from_raw_bits(raw: $raw) -> Self {
                <$t>::from_bits(raw)
            }
        }
    )*};
}

impl_float!(f32 => u32, f64 => u64);

#[cfg(feature = "half")]
impl_float!(half::f16 => u16, half::bf16 => u16);

#[cfg(feature = "arbitrary-int")]
mod narrow_ints {
    use super::BitElement;
    use arbitrary_int::UInt;

    macro_rules! impl_uint {
        ($($raw:ty: $($bits:literal)*;)*) => {$($(
            impl BitElement for UInt<$raw, $bits> {
                const BITS: u32 = $bits;
                type Raw = $raw;

                #[inline(always)]
                fn raw_bits(self) -> $raw {
                    self.value()
                }

                #[inline(always)]
                fn from_raw_bits(raw: $raw) -> Self {
                    Self::new(raw & Self::MASK)
                }
            }
        )*)*};
    }

    /// Two's-complement `Int<i*, BITS>` (`i1`..`i127`): the value bits are
    /// `to_bits()`, the low `BITS` bits of the two's complement.
    macro_rules! impl_int {
        ($($signed:ty => $raw:ty: $($bits:literal)*;)*) => {$($(
            impl BitElement for arbitrary_int::Int<$signed, $bits> {
                const BITS: u32 = $bits;
                type Raw = $raw;

                #[inline(always)]
                fn raw_bits(self) -> $raw {
                    self.to_bits()
                }

                #[inline(always)]
                fn from_raw_bits(raw: $raw) -> Self {
                    Self::from_bits(raw & (Self::MASK as $raw))
                }
            }
        )*)*};
    }

    impl_int! {
        i8 => u8: 1 2 3 4 5 6 7;
        i16 => u16: 9 10 11 12 13 14 15;
        i32 => u32: 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31;
        i64 => u64: 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48
             49 50 51 52 53 54 55 56 57 58 59 60 61 62 63;
        i128 => u128: 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80
              81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96
              97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112
              113 114 115 116 117 118 119 120 121 122 123 124 125 126 127;
    }

    impl_uint! {
        u8: 1 2 3 4 5 6 7;
        u16: 9 10 11 12 13 14 15;
        u32: 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31;
        u64: 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48
             49 50 51 52 53 54 55 56 57 58 59 60 61 62 63;
        u128: 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80
              81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96
              97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112
              113 114 115 116 117 118 119 120 121 122 123 124 125 126 127;
    }
}

/// Implements `Lanes<1..=64>` for the built-in element types.
mod builtin_lanes {
    crate::__impl_lanes!(
        u8, u16, u32, u64, u128, i8, i16, i32, i64, i128, bool, f32, f64
    );

    #[cfg(feature = "half")]
    crate::__impl_lanes!(half::f16, half::bf16);

    #[cfg(feature = "arbitrary-int")]
    mod narrow {
        use arbitrary_int::*;
        crate::__impl_lanes!(
            u1, u2, u3, u4, u5, u6, u7, u9, u10, u11, u12, u13, u14, u15, u17, u18, u19, u20, u21,
            u22, u23, u24, u25, u26, u27, u28, u29, u30, u31, u33, u34, u35, u36, u37, u38, u39,
            u40, u41, u42, u43, u44, u45, u46, u47, u48, u49, u50, u51, u52, u53, u54, u55, u56,
            u57, u58, u59, u60, u61, u62, u63, u65, u66, u67, u68, u69, u70, u71, u72, u73, u74,
            u75, u76, u77, u78, u79, u80, u81, u82, u83, u84, u85, u86, u87, u88, u89, u90, u91,
            u92, u93, u94, u95, u96, u97, u98, u99, u100, u101, u102, u103, u104, u105, u106, u107,
            u108, u109, u110, u111, u112, u113, u114, u115, u116, u117, u118, u119, u120, u121,
            u122, u123, u124, u125, u126, u127
        );
        crate::__impl_lanes!(
            i1, i2, i3, i4, i5, i6, i7, i9, i10, i11, i12, i13, i14, i15, i17, i18, i19, i20, i21,
            i22, i23, i24, i25, i26, i27, i28, i29, i30, i31, i33, i34, i35, i36, i37, i38, i39,
            i40, i41, i42, i43, i44, i45, i46, i47, i48, i49, i50, i51, i52, i53, i54, i55, i56,
            i57, i58, i59, i60, i61, i62, i63, i65, i66, i67, i68, i69, i70, i71, i72, i73, i74,
            i75, i76, i77, i78, i79, i80, i81, i82, i83, i84, i85, i86, i87, i88, i89, i90, i91,
            i92, i93, i94, i95, i96, i97, i98, i99, i100, i101, i102, i103, i104, i105, i106, i107,
            i108, i109, i110, i111, i112, i113, i114, i115, i116, i117, i118, i119, i120, i121,
            i122, i123, i124, i125, i126, i127
        );
    }
}
