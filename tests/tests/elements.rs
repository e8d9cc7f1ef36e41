//! Every built-in `BitElement` against a reference model of its bits: `BITS`,
//! `Raw` (by type), masking in `raw_bits`, truncation in `from_raw_bits`, and
//! round trips, on every pattern up to 16 bits and random patterns above.

use bitpack::BitElement;
use bitpack_tests::element::{Model, check};
use static_assertions::assert_type_eq_all;

/// One test per type: `name: Type => BITS, Raw, to_bits, from_bits`.
macro_rules! elements {
    ($($name:ident: $t:ty => $bits:expr, $raw:ty, $to:expr, $from:expr;)*) => {$(
        assert_type_eq_all!(<$t as BitElement>::Raw, $raw);

        #[test]
        fn $name() {
            check::<$t>(Model { bits: $bits, to_bits: $to, from_bits: $from });
        }
    )*};
}

elements! {
    u8_: u8 => 8, u8, |x| x as u128, |b| b as u8;
    u16_: u16 => 16, u16, |x| x as u128, |b| b as u16;
    u32_: u32 => 32, u32, |x| x as u128, |b| b as u32;
    u64_: u64 => 64, u64, |x| x as u128, |b| b as u64;
    u128_: u128 => 128, u128, |x| x, |b| b;
    i8_: i8 => 8, u8, |x| x as u8 as u128, |b| b as u8 as i8;
    i16_: i16 => 16, u16, |x| x as u16 as u128, |b| b as u16 as i16;
    i32_: i32 => 32, u32, |x| x as u32 as u128, |b| b as u32 as i32;
    i64_: i64 => 64, u64, |x| x as u64 as u128, |b| b as u64 as i64;
    i128_: i128 => 128, u128, |x| x as u128, |b| b as i128;
    bool_: bool => 1, u8, |x| x as u128, |b| b == 1;
    f32_: f32 => 32, u32, |x| x.to_bits() as u128, |b| f32::from_bits(b as u32);
    f64_: f64 => 64, u64, |x| x.to_bits() as u128, |b| f64::from_bits(b as u64);
    f16_: half::f16 => 16, u16, |x| x.to_bits() as u128, |b| half::f16::from_bits(b as u16);
    bf16_: half::bf16 => 16, u16, |x| x.to_bits() as u128, |b| half::bf16::from_bits(b as u16);
}

/// `arbitrary_int`'s narrow unsigned integers: `uN` has `N` bits and the
/// `Raw` of its backing integer. One test per width, named after the type.
macro_rules! narrow_ints {
    ($($raw:ident: $($t:ident)*;)*) => {
        mod narrow {
            use super::*;
            $($(
                assert_type_eq_all!(<arbitrary_int::$t as BitElement>::Raw, $raw);

                #[test]
                fn $t() {
                    type T = arbitrary_int::$t;
                    check::<T>(Model {
                        bits: T::BITS as u32,
                        to_bits: |x| x.value() as u128,
                        from_bits: |b| T::new(b as $raw),
                    });
                }
            )*)*
        }
    };
}

narrow_ints! {
    u8: u1 u2 u3 u4 u5 u6 u7;
    u16: u9 u10 u11 u12 u13 u14 u15;
    u32: u17 u18 u19 u20 u21 u22 u23 u24 u25 u26 u27 u28 u29 u30 u31;
    u64: u33 u34 u35 u36 u37 u38 u39 u40 u41 u42 u43 u44 u45 u46 u47 u48 u49 u50 u51 u52 u53 u54 u55 u56 u57 u58 u59 u60 u61 u62 u63;
    u128: u65 u66 u67 u68 u69 u70 u71 u72 u73 u74 u75 u76 u77 u78 u79 u80 u81 u82 u83 u84 u85 u86 u87 u88 u89 u90 u91 u92 u93 u94 u95 u96 u97 u98 u99 u100 u101 u102 u103 u104 u105 u106 u107 u108 u109 u110 u111 u112 u113 u114 u115 u116 u117 u118 u119 u120 u121 u122 u123 u124 u125 u126 u127;
}

#[test]
fn narrow_int_widths_are_their_names() {
    assert_eq!(<arbitrary_int::u1 as BitElement>::BITS, 1);
    assert_eq!(<arbitrary_int::u5 as BitElement>::BITS, 5);
    assert_eq!(<arbitrary_int::u24 as BitElement>::BITS, 24);
    assert_eq!(<arbitrary_int::u127 as BitElement>::BITS, 127);
}

#[test]
fn signed_values_have_their_twos_complement_bits() {
    assert_eq!((-1i8).raw_bits(), 0xFF);
    assert_eq!(i16::MIN.raw_bits(), 0x8000);
    assert_eq!(<i32 as BitElement>::from_raw_bits(0xFFFF_FFFE), -2);
    assert_eq!((-1i128).raw_bits(), u128::MAX);
}

#[test]
fn float_bits_keep_signs_and_nan_payloads() {
    assert_eq!((-0.0f32).raw_bits(), 0x8000_0000);
    let nan = <f64 as BitElement>::from_raw_bits(0x7FF0_0000_0000_0001);
    assert!(nan.is_nan());
    assert_eq!(nan.raw_bits(), 0x7FF0_0000_0000_0001);
    assert_eq!(half::f16::ONE.raw_bits(), 0x3C00);
    assert_eq!(half::bf16::ONE.raw_bits(), 0x3F80);
}

#[test]
fn bool_ignores_all_but_bit_zero() {
    for r in 0..=u8::MAX {
        assert_eq!(bitpack::from_raw_bits::<bool>(r), r & 1 == 1, "{r:#x}");
    }
}
