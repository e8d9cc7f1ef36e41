//! Bulk encode/decode between `f32` slices and packed arrays, against the
//! scalar conversions value by value and a bit-by-bit reading of the packed
//! bytes, for every shipped format and a 5-bit user format (the generic
//! width path), on random lengths and values.

use bitpack::formats::{
    E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, FloatFormat, MiniFloat, Mode, decode, decode_into,
    decode_packed, decode_slice, encode, encode_into, encode_packed, encode_slice,
};
use bitpack::{BitElement, Error, LengthOf, NarrowArray};
use proptest::prelude::*;

/// A 5-bit unsigned format (no shipped format has 5 bits).
#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(5)]
struct UE3M2(u8);

impl MiniFloat for UE3M2 {
    const FORMAT: FloatFormat = FloatFormat {
        signed: false,
        ..FloatFormat::E3M2
    };
}

/// Code `i` of a dense LSB-first stream, read bit by bit.
fn code_at(bytes: &[u8], bits: u32, i: usize) -> u32 {
    (0..bits as usize)
        .map(|k| {
            let b = i * bits as usize + k;
            ((bytes[b / 8] >> (b % 8)) & 1) as u32
        })
        .enumerate()
        .fold(0, |acc, (k, bit)| acc | (bit << k))
}

fn same_f32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn check<F: MiniFloat + core::fmt::Debug>(src: &[f32]) {
    for mode in [Mode::Nearest, Mode::SatFinite] {
        let a = encode::<F>(src, mode);
        assert_eq!(a.len(), src.len());
        assert_eq!(
            a.as_bytes().len(),
            (src.len() * F::BITS as usize).div_ceil(8)
        );
        for (i, &x) in src.iter().enumerate() {
            let want = match mode {
                Mode::Nearest => F::from_f32(x),
                Mode::SatFinite => F::from_f32_satfinite(x),
            };
            assert_eq!(
                a.get(i).unwrap().raw_bits(),
                want.raw_bits(),
                "encode {x:e}"
            );
            assert_eq!(code_at(a.as_bytes(), F::BITS, i), want.raw_bits() as u32);
        }
        // Padding past the last value is zero.
        let used = src.len() * F::BITS as usize;
        if !used.is_multiple_of(8) {
            assert_eq!(a.as_bytes().last().unwrap() >> (used % 8), 0);
        }

        let back = decode(&a);
        let mut into = vec![f32::NAN; src.len()];
        decode_into(&a, &mut into).unwrap();
        for i in 0..src.len() {
            let want = a.get(i).unwrap().to_f32();
            assert!(same_f32(back[i], want), "decode {i}");
            assert!(same_f32(into[i], want), "decode_into {i}");
        }

        // The allocation-free paths: packed bytes and unpacked slices.
        let n = a.as_bytes().len();
        let mut bytes = vec![0xa5u8; n + 2];
        encode_packed::<F>(src, mode, &mut bytes).unwrap();
        assert_eq!(&bytes[..n], a.as_bytes());
        assert_eq!(&bytes[n..], [0xa5, 0xa5], "bytes past the stream are left");
        let mut from_bytes = vec![0.0f32; src.len()];
        decode_packed::<F>(&bytes, &mut from_bytes).unwrap();
        let mut unpacked = vec![F::from_raw_bits(0); src.len()];
        encode_slice(src, mode, &mut unpacked).unwrap();
        let mut from_slice = vec![0.0f32; src.len()];
        decode_slice(&unpacked, &mut from_slice).unwrap();
        for i in 0..src.len() {
            assert_eq!(unpacked[i].raw_bits(), a.get(i).unwrap().raw_bits());
            assert!(same_f32(from_bytes[i], back[i]));
            assert!(same_f32(from_slice[i], back[i]));
        }

        // encode_into keeps the array's shape and rewrites every value.
        let mut b = NarrowArray::<F>::zeroed(src.len());
        if src.len().is_multiple_of(2) && !src.is_empty() {
            b.reshape(&[2, src.len() / 2]).unwrap();
        }
        let shape = b.shape().to_vec();
        encode_into(src, mode, &mut b).unwrap();
        assert_eq!(b.shape(), shape.as_slice());
        assert_eq!(b.as_bytes(), a.as_bytes());
    }
}

#[test]
fn length_errors_change_nothing() {
    let a = encode::<E2M1>(&[1.0, 2.0, 3.0], Mode::Nearest);
    let mut out = [7.0f32; 2];
    assert_eq!(
        decode_into(&a, &mut out).unwrap_err(),
        Error::Length {
            of: LengthOf::DecodeOutput,
            expected: 3,
            actual: 2
        }
    );
    assert_eq!(
        decode_into(&a, &mut out).unwrap_err().to_string(),
        "the decode output holds 2 values, needs 3"
    );
    assert_eq!(out, [7.0; 2]);
    let mut b = a.clone();
    assert_eq!(
        encode_into(&[0.5; 4], Mode::Nearest, &mut b)
            .unwrap_err()
            .to_string(),
        "the encode input has 4 values for 3 outputs"
    );
    assert_eq!(
        encode_into(&[0.5; 4], Mode::Nearest, &mut b).unwrap_err(),
        Error::Length {
            of: LengthOf::EncodeInput,
            expected: 3,
            actual: 4
        }
    );
    assert_eq!(b.as_bytes(), a.as_bytes());

    // Packed streams that are too short, and slices of the wrong length.
    let mut bytes = [0x11u8; 2];
    assert_eq!(
        encode_packed::<E2M3>(&[1.0; 3], Mode::Nearest, &mut bytes).unwrap_err(),
        Error::TooFewBytes {
            what: "encode_packed",
            values: 3,
            bits: 6,
            needed: 3,
            actual: 2
        }
    );
    assert_eq!(bytes, [0x11; 2]);
    let mut out = [9.0f32; 3];
    assert_eq!(
        decode_packed::<E2M1>(&[0x21], &mut out).unwrap_err(),
        Error::TooFewBytes {
            what: "decode_packed",
            values: 3,
            bits: 4,
            needed: 2,
            actual: 1
        }
    );
    assert_eq!(out, [9.0; 3]);
    let mut codes = [E4M3::ZERO; 2];
    assert!(encode_slice(&[1.0; 3], Mode::Nearest, &mut codes).is_err());
    assert_eq!(codes[0].to_bits(), 0);
    assert!(decode_slice(&codes, &mut out).is_err());
    assert_eq!(out, [9.0; 3]);
}

#[test]
fn every_code_decodes_in_bulk() {
    fn all<F: MiniFloat + core::fmt::Debug>() {
        let codes: Vec<F> = (0..1u32 << F::BITS)
            .map(|c| F::from_raw_bits(c as u8))
            .collect();
        // Every offset within a byte: prefix 0..8 values.
        for skip in 0..8 {
            let values = &codes[skip.min(codes.len())..];
            let a = NarrowArray::from_slice(values);
            let out = decode(&a);
            for (v, y) in values.iter().zip(&out) {
                assert!(same_f32(*y, v.to_f32()));
            }
        }
    }
    all::<E2M1>();
    all::<E2M3>();
    all::<E3M2>();
    all::<E4M3>();
    all::<E5M2>();
    all::<E8M0>();
    all::<UE3M2>();
}

fn values() -> impl Strategy<Value = Vec<f32>> {
    proptest::collection::vec(
        prop_oneof![
            any::<u32>().prop_map(f32::from_bits),
            (-40.0f32..40.0),
            (-1e-2f32..1e-2),
        ],
        0..300,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn bulk_matches_scalar(src in values()) {
        check::<E2M1>(&src);
        check::<E2M3>(&src);
        check::<E3M2>(&src);
        check::<E4M3>(&src);
        check::<E5M2>(&src);
        check::<E8M0>(&src);
        check::<UE3M2>(&src);
    }
}
