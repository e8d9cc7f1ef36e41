//! Float formats: the bulk encoders (`encode_slice`, `encode_packed`,
//! `encode`) agree with the one-value routine of the format
//! (`FloatFormat::encode_f32`) on every input, in both rounding modes, and
//! the bulk decoders with `FloatFormat::decode_f32` (bit for bit; NaN-ness
//! only for NaN, whose sign Rust does not promise); `decode(encode(x))`
//! is `x` rounded once.

#![no_main]

use bitpack::NarrowArray;
use bitpack::formats::{self, E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, MiniFloat, Mode};
use libfuzzer_sys::fuzz_target;

fn same(a: f32, b: f32) -> bool {
    if a.is_nan() || b.is_nan() {
        a.is_nan() && b.is_nan()
    } else {
        a.to_bits() == b.to_bits()
    }
}

fn check<F: MiniFloat + PartialEq + core::fmt::Debug>(xs: &[f32], codes: &[u8], sat: bool) {
    let f = F::FORMAT;
    let mode = if sat { Mode::SatFinite } else { Mode::Nearest };
    let mut out = vec![F::from_raw_bits(0); xs.len()];
    formats::encode_slice(xs, mode, &mut out).unwrap();
    let packed: NarrowArray<F> = formats::encode(xs, mode);
    for (i, &x) in xs.iter().enumerate() {
        let want = f.encode_f32(x, mode) as u8;
        assert_eq!(out[i].raw_bits(), want, "{x:e} ({:#x})", x.to_bits());
        assert_eq!(packed.get(i).unwrap().raw_bits(), want);
    }
    if F::BITS == 4 {
        let mut bytes = vec![0u8; xs.len().div_ceil(2)];
        formats::encode_packed::<F>(xs, mode, &mut bytes).unwrap();
        assert_eq!(bytes, packed.as_bytes());
    }
    // Decode: every path against the one-value routine.
    let values: Vec<F> = codes.iter().map(|&c| F::from_raw_bits(c)).collect();
    let mut dec = vec![0f32; values.len()];
    formats::decode_slice(&values, &mut dec).unwrap();
    let arr: NarrowArray<F> = values.iter().copied().collect();
    let bulk = formats::decode(&arr);
    for (i, v) in values.iter().enumerate() {
        let want = f.decode_f32(v.raw_bits() as u32);
        assert!(same(dec[i], want), "{v:?}: {} vs {want}", dec[i]);
        assert!(same(bulk[i], want));
        // A decoded value encodes back to its own code (or a NaN code).
        let back = f.encode_f32(want, Mode::Nearest) as u8;
        let again = f.decode_f32(back as u32);
        assert!(same(again, want), "{v:?}");
    }
    // Wrong lengths are errors that write nothing.
    let mut short = vec![F::from_raw_bits(0); xs.len() + 1];
    assert!(formats::encode_slice(xs, mode, &mut short).is_err());
    assert!(short.iter().all(|v| v.raw_bits() == 0));
}

fuzz_target!(|input: (u8, bool, Vec<u32>, Vec<u8>)| {
    let (which, sat, bits, codes) = input;
    let xs: Vec<f32> = bits.iter().take(300).map(|&b| f32::from_bits(b)).collect();
    let codes = &codes[..codes.len().min(300)];
    match which % 6 {
        0 => check::<E2M1>(&xs, codes, sat),
        1 => check::<E2M3>(&xs, codes, sat),
        2 => check::<E3M2>(&xs, codes, sat),
        3 => check::<E4M3>(&xs, codes, sat),
        4 => check::<E5M2>(&xs, codes, sat),
        _ => check::<E8M0>(&xs, codes, sat),
    }
});
