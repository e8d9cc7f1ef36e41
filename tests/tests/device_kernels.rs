//! `bitpack::kernels::fixed`, the width-as-a-constant kernels that GPU
//! kernels call (and `bitpack-ptx` is built from), against bit-by-bit
//! references and the crate's scalar conversions on random inputs, plus the
//! PTX packed-register lane order of `NArray`.

use arbitrary_int::u5;
use bitpack::NArray;
use bitpack::formats::{E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, MiniFloat, Mode};
use bitpack::kernels::{fixed, words_for};
use proptest::prelude::*;

/// Bit `k` of the stream.
fn bit(words: &[u64], k: usize) -> u64 {
    (u64::from_le(words[k / 64]) >> (k % 64)) & 1
}

/// Value `i` of width `w`, bit by bit.
fn value_at(words: &[u64], w: u32, i: usize) -> u64 {
    (0..w as usize)
        .map(|j| bit(words, i * w as usize + j) << j)
        .sum()
}

fn lcg(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        s >> 11
    }
}

fn check_width<const W: u32>(n: usize, offset: usize, seed: u64) {
    let mut r = lcg(seed);
    let mask = if W == 64 { u64::MAX } else { (1 << W) - 1 };
    let vals: Vec<u32> = (0..n).map(|_| (r() & mask) as u32).collect();
    let mut words: Vec<u64> = (0..words_for(W, offset + n) + 1).map(|_| r()).collect();
    let before = words.clone();
    fixed::pack::<W, u32>(&vals, &mut words, offset);
    // Every value lands at its bits, every other bit is unchanged.
    for (i, &v) in vals.iter().enumerate() {
        assert_eq!(
            value_at(&words, W, offset + i),
            v as u64,
            "W={W} n={n} off={offset} i={i}"
        );
    }
    for k in (0..offset * W as usize).chain((offset + n) * W as usize..words.len() * 64) {
        assert_eq!(bit(&words, k), bit(&before, k), "W={W} bit {k} changed");
    }
    let mut back = vec![0u32; n];
    fixed::unpack::<W, u32>(&words, offset, &mut back);
    assert_eq!(back, vals);
    let mut back8 = vec![0u8; n];
    if W <= 8 {
        // The same values through 8-bit buffers (the device's u8 kernels).
        fixed_unpack_u8::<W>(&words, offset, &mut back8);
        assert!(back8.iter().zip(&vals).all(|(&a, &b)| a as u32 == b));
    }
    let total: u128 = vals.iter().map(|&v| v as u128).sum();
    assert_eq!(fixed::sum::<W>(&words, offset, n), total);
    // Same as the run-time-width kernels.
    let mut k = vec![0u32; n];
    bitpack::kernels::unpack(W, &words, offset, &mut k).unwrap();
    assert_eq!(k, vals);
}

/// Starting at value 0 (the device kernels' case, and the word-at-a-time
/// path of the widths that divide 64), for lengths around word boundaries.
#[test]
fn aligned_starts() {
    for n in [0usize, 1, 7, 8, 31, 32, 63, 64, 65, 127, 200] {
        check_width::<1>(n, 0, n as u64);
        check_width::<2>(n, 0, n as u64);
        check_width::<4>(n, 0, n as u64);
        check_width::<5>(n, 0, n as u64);
        check_width::<8>(n, 0, n as u64);
        check_width::<16>(n, 0, n as u64);
        check_width::<32>(n, 0, n as u64);
        // The `u8` pack writes the same stream as the `u32` one.
        let v: Vec<u8> = (0..n).map(|i| (i * 37 % 256) as u8).collect();
        let wide: Vec<u32> = v.iter().map(|&x| x as u32).collect();
        let (mut a, mut b) = (
            vec![!0u64; words_for(4, n) + 1],
            vec![!0u64; words_for(4, n) + 1],
        );
        fixed::pack::<4, u8>(&v, &mut a, 0);
        fixed::pack::<4, u32>(&wide, &mut b, 0);
        assert_eq!(a, b, "n={n}");
        for (i, &x) in v.iter().enumerate() {
            assert_eq!(value_at(&a, 4, i), (x & 15) as u64);
        }
    }
}

fn fixed_unpack_u8<const W: u32>(words: &[u64], offset: usize, out: &mut [u8]) {
    match W {
        1 => fixed::unpack::<1, u8>(words, offset, out),
        2 => fixed::unpack::<2, u8>(words, offset, out),
        4 => fixed::unpack::<4, u8>(words, offset, out),
        3 => fixed::unpack::<3, u8>(words, offset, out),
        5 => fixed::unpack::<5, u8>(words, offset, out),
        8 => fixed::unpack::<8, u8>(words, offset, out),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn fixed_kernels_match_a_bit_by_bit_reference(n in 0usize..300, offset in 0usize..130, seed: u64) {
        check_width::<1>(n, offset, seed);
        check_width::<3>(n, offset, seed);
        check_width::<5>(n, offset, seed);
        check_width::<8>(n, offset, seed);
        check_width::<12>(n, offset, seed);
        check_width::<16>(n, offset, seed);
        check_width::<17>(n, offset, seed);
        check_width::<31>(n, offset, seed);
        check_width::<32>(n, offset, seed);
    }
}

/// Random `f32` bit patterns, weighted towards the formats' ranges, plus
/// the special values.
fn inputs(n: usize, seed: u64) -> Vec<f32> {
    let mut r = lcg(seed);
    let specials = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        1e-40,
        -1e-40,
    ];
    (0..n)
        .map(|i| {
            let b = r() as u32;
            match i % 5 {
                0 => specials[(b as usize) % specials.len()],
                1 => f32::from_bits(b),
                _ => f32::from_bits((b & 0x807f_ffff) | ((100 + (b >> 8) % 60) << 23)),
            }
        })
        .collect()
}

fn check_format<F: MiniFloat>(n: usize, seed: u64) {
    let x = inputs(n, seed);
    for mode in [Mode::Nearest, Mode::SatFinite] {
        let scalar = |v: f32| match mode {
            Mode::Nearest => F::from_f32(v),
            Mode::SatFinite => F::from_f32_satfinite(v),
        };
        for p in x.chunks_exact(2) {
            let want = scalar(p[0]).raw_bits() as u16 | (scalar(p[1]).raw_bits() as u16) << F::BITS;
            assert_eq!(
                fixed::encode_pair::<F>(p[0], p[1], mode),
                want,
                "{:?} {mode:?}",
                p
            );
            assert_eq!(
                fixed::encode::<F>(p[0], mode).raw_bits(),
                scalar(p[0]).raw_bits()
            );
            let [a, b] = fixed::decode_pair::<F>(want);
            assert_eq!(a.to_bits(), scalar(p[0]).to_f32().to_bits());
            assert_eq!(b.to_bits(), scalar(p[1]).to_f32().to_bits());
        }
        // Whole streams: the bytes of `encode_packed`, padding zero.
        let mut words = vec![u64::MAX; words_for(F::BITS, n)];
        fixed::encode_words::<F>(&x, mode, &mut words);
        let mut bytes = vec![0xa5u8; (n * F::BITS as usize).div_ceil(8)];
        bitpack::formats::encode_packed::<F>(&x, mode, &mut bytes).unwrap();
        let stream: &[u8] = bytemuck::cast_slice(&words);
        assert_eq!(&stream[..bytes.len()], &bytes[..], "{mode:?}");
        assert!(stream[bytes.len()..].iter().all(|&b| b == 0), "padding");
        let mut back = vec![0.0f32; n];
        fixed::decode_words::<F>(&words, &mut back);
        let mut want = vec![0.0f32; n];
        bitpack::formats::decode_packed::<F>(&bytes, &mut want).unwrap();
        assert!(
            back.iter()
                .zip(&want)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn fixed_float_functions_match_the_scalar_conversions(n in 0usize..200, seed: u64) {
        check_format::<E2M1>(n, seed);
        check_format::<E2M3>(n, seed);
        check_format::<E3M2>(n, seed);
        check_format::<E4M3>(n, seed);
        check_format::<E5M2>(n, seed);
        check_format::<E8M0>(n, seed);
    }

    #[test]
    fn half_pairs_match_half(a: f32, b: f32) {
        let lo = half::f16::from_f32(a).to_bits() as u32;
        let hi = half::f16::from_f32(b).to_bits() as u32;
        prop_assert_eq!(fixed::f16x2(a, b), lo | hi << 16);
        let lo = half::bf16::from_f32(a).to_bits() as u32;
        let hi = half::bf16::from_f32(b).to_bits() as u32;
        prop_assert_eq!(fixed::bf16x2(a, b), lo | hi << 16);
    }
}

/// `cvt.rn.satfinite.e4m3x2.f32 d, a, b` as the PTX ISA defines it: the
/// first source `a` goes to `d[15:8]`, the second `b` to `d[7:0]`.
fn cvt_e4m3x2(a: f32, b: f32) -> u16 {
    (E4M3::from_f32_satfinite(a).to_bits() as u16) << 8
        | E4M3::from_f32_satfinite(b).to_bits() as u16
}

/// The FP4 form: `a` to `d[7:4]`, `b` to `d[3:0]`.
fn cvt_e2m1x2(a: f32, b: f32) -> u8 {
    E2M1::from_f32_satfinite(a).to_bits() << 4 | E2M1::from_f32_satfinite(b).to_bits()
}

#[test]
fn an_narray_of_two_is_the_cvt_result_register() {
    for &(x0, x1) in &[
        (1.0f32, -2.0f32),
        (448.0, 0.015625),
        (-0.0, 3.5),
        (1e9, f32::NAN),
    ] {
        // Lane 0 is passed as the *second* source, so it lands in the low byte.
        let d = cvt_e4m3x2(x1, x0);
        let lanes = NArray::<E4M3, 2>::from_raw_bits(d);
        assert_eq!(
            lanes.get(0).unwrap().to_bits(),
            E4M3::from_f32_satfinite(x0).to_bits()
        );
        assert_eq!(
            lanes.get(1).unwrap().to_bits(),
            E4M3::from_f32_satfinite(x1).to_bits()
        );
        let built =
            NArray::<E4M3, 2>::new([E4M3::from_f32_satfinite(x0), E4M3::from_f32_satfinite(x1)]);
        assert_eq!(built.raw_bits(), d);
        // The little-endian bytes of the register are the stream, lane 0 first.
        assert_eq!(built.as_bytes(), d.to_le_bytes());
        // And `fixed::encode_pair` takes the lanes in order.
        assert_eq!(fixed::encode_pair::<E4M3>(x0, x1, Mode::SatFinite), d);
        let q = NArray::<E2M1, 2>::from_raw_bits(cvt_e2m1x2(x1, x0));
        assert_eq!(
            q.get(0).unwrap().to_bits(),
            E2M1::from_f32_satfinite(x0).to_bits()
        );
        assert_eq!(
            fixed::encode_pair::<E2M1>(x0, x1, Mode::SatFinite),
            cvt_e2m1x2(x1, x0) as u16
        );
    }
    // Eight FP4 lanes in one `u32`: four `e2m1x2` bytes, pair k in byte k.
    let x = [0.5f32, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -6.0];
    let word = (0..4).fold(0u32, |acc, k| {
        acc | (cvt_e2m1x2(x[2 * k + 1], x[2 * k]) as u32) << (8 * k)
    });
    let lanes = NArray::<E2M1, 8>::new(x.map(E2M1::from_f32_satfinite));
    assert_eq!(lanes.raw_bits(), word);
    assert_eq!(word, 0xf765_4321);
}

#[test]
fn full_blocks_are_the_unit_of_device_threads() {
    for w in 1..=64u32 {
        let (b, bw) = (fixed::block_elems(w), fixed::block_words(w));
        assert_eq!(b * w as usize, bw * 64, "w={w}");
        assert!(b <= 64 && bw <= 64);
        // The fewest values: no smaller count fills whole words.
        assert!(
            (1..b).all(|k| !(k * w as usize).is_multiple_of(64)),
            "w={w}"
        );
    }
    // A typed use: u5 values through their raw bits.
    let v: Vec<u8> = (0..64).map(|i| u5::new(i % 32).value()).collect();
    let mut words = [0u64; 5];
    fixed::pack::<5, u8>(&v, &mut words, 0);
    assert_eq!(
        bitpack::kernels::sum(5, &words, 0, 64).unwrap(),
        fixed::sum::<5>(&words, 0, 64)
    );
}
