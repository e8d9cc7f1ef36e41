//! The table-free float conversions (`kernels::minifloat`) against each
//! format's own decode and encode, bit for bit, and their SIMD builds.

use std::vec::Vec;

use super::Rng;
use crate::float::elem::code_f32_bits;
use crate::float::{FloatFormat, MiniFloat, Mode};
use crate::kernels::minifloat::{
    decode_codes, decode_fast, decode_fast_ok, encode_fast, encode_fast_ok, f16_ok,
};
use crate::{E2M1, E2M3, E3M2, E4M3, E5M2, E8M0};

/// `$check::<F>()` for every shipped format `F`.
macro_rules! every_format {
    ($check:ident) => {
        for check in [$check::<E2M1>, $check::<E2M3>, $check::<E3M2>] {
            check();
        }
        for check in [$check::<E4M3>, $check::<E5M2>, $check::<E8M0>] {
            check();
        }
    };
}

/// The bits of `x` to compare, with every NaN the same: Rust does not
/// promise the sign or payload of a NaN that float operations produce
/// (Miri picks them at random), so NaN-ness is what is checked there.
fn key(x: f32) -> u32 {
    if x.is_nan() { u32::MAX } else { x.to_bits() }
}

/// Every code: the branch-free decode, and every path of
/// `decode_codes`, against the format's own decode, bit for bit.
fn check_decode<F: MiniFloat>() {
    let f = F::FORMAT;
    let codes: Vec<u8> = (0..=255u8).collect();
    let expect: Vec<u32> = codes.iter().map(|&c| key(f.decode_f32(c as u32))).collect();
    if decode_fast_ok(&f) {
        for &c in &codes {
            assert_eq!(
                key(decode_fast::<F>(c)),
                expect[c as usize],
                "{f:?} decode_fast {c:#x}"
            );
            // The integer-only twin the decode tables are built from, bit
            // for bit (NaNs included).
            assert_eq!(
                code_f32_bits(&f, u32::from(c)),
                decode_fast::<F>(c).to_bits(),
                "{f:?} code_f32_bits {c:#x}"
            );
        }
    }
    let table: Vec<f32> = codes.iter().map(|&c| f.decode_f32(c as u32)).collect();
    let mut out = std::vec![0f32; 256];
    decode_codes::<F>(&codes, &mut out, |c| table[c as usize]);
    let bits: Vec<u32> = out.iter().map(|&x| key(x)).collect();
    assert_eq!(bits, expect, "{f:?} decode_codes");
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    {
        use crate::float::elem::table_ok;
        use crate::kernels::x86;
        type Dec = unsafe fn(&[u8], &mut [f32]);
        let builds: [(&str, u32, Dec, bool); 4] = [
            (
                "decode_f16c",
                x86::AVX2_F16C,
                x86::decode_f16c::<F>,
                f16_ok(&f),
            ),
            (
                "decode_f16c_avx512",
                x86::AVX512_BW,
                x86::decode_f16c_avx512::<F>,
                f16_ok(&f),
            ),
            (
                "decode_table_avx512",
                x86::AVX512_VBMI,
                x86::decode_table_avx512::<F>,
                table_ok(&f),
            ),
            (
                "decode_split_avx2",
                x86::AVX2,
                x86::decode_split_avx2::<F>,
                x86::split_ok::<F>(),
            ),
        ];
        for (name, need, dec, takes) in builds {
            if !takes {
                continue;
            }
            if x86::detected() & need != need {
                std::eprintln!("skipped: {name} for {f:?} (the CPU lacks it)");
                continue;
            }
            // Tails of every size around the 16-, 32- and 64-code steps,
            // the output at every place in a cache line (the steps start
            // where it is on a line, after one at 0), between guards.
            let leads = if cfg!(miri) { 0..3 } else { 0..16 };
            for n in [
                0usize, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 256,
            ] {
                for lead in leads.clone() {
                    let mut buf = std::vec![-7.0f32; lead + n + 16];
                    // SAFETY: the CPU has every feature of the build
                    // (checked above).
                    unsafe { dec(&codes[..n], &mut buf[lead..lead + n]) };
                    let bits: Vec<u32> = buf[lead..lead + n].iter().map(|&x| key(x)).collect();
                    assert_eq!(bits, expect[..n], "{f:?} {name}, {n} codes, lead {lead}");
                    assert!(
                        buf[..lead]
                            .iter()
                            .chain(&buf[lead + n..])
                            .all(|&x| x == -7.0),
                        "{f:?} {name}, {n} codes, lead {lead}: wrote outside"
                    );
                }
            }
        }
    }
    #[cfg(all(simd_variants, target_arch = "aarch64"))]
    if decode_fast_ok(&f) && !crate::kernels::minifloat::e8m0_ok(&f) {
        for n in [0usize, 1, 15, 16, 17, 100, 256] {
            let mut out = std::vec![0f32; n];
            // SAFETY: NEON, all it enables, is in this target's cfg.
            unsafe { crate::kernels::aarch64::decode_f32_neon::<F>(&codes[..n], &mut out) };
            let bits: Vec<u32> = out.iter().map(|&x| key(x)).collect();
            assert_eq!(bits, expect[..n], "{f:?} decode_f32_neon, {n} codes");
        }
    }
    let _ = f16_ok(&f);
}

/// Inputs around every value and every rounding boundary of the format,
/// special values, and a sweep of the whole `f32` range.
fn inputs<F: MiniFloat>() -> Vec<f32> {
    let f = F::FORMAT;
    let mut vals: Vec<f32> = (0..1u32 << f.bits())
        .map(|c| f.decode_f32(c))
        .filter(|v| v.is_finite())
        .collect();
    vals.sort_by(f32::total_cmp);
    let mut out = Vec::new();
    let near = |x: f32, out: &mut Vec<f32>| {
        let b = x.to_bits();
        for d in [-2i64, -1, 0, 1, 2] {
            let nb = b as i64 + d;
            if (0..=u32::MAX as i64).contains(&nb) {
                out.push(f32::from_bits(nb as u32));
            }
        }
    };
    for w in vals.windows(2) {
        near(w[0], &mut out);
        near((w[0] as f64 / 2.0 + w[1] as f64 / 2.0) as f32, &mut out);
    }
    if let Some(&top) = vals.last() {
        // Beyond the largest value: the overflow boundary and far above.
        let step = top - vals[vals.len() - 2];
        near(top + step / 2.0, &mut out);
        near(top + step, &mut out);
        near(top * 4.0, &mut out);
    }
    for x in [
        0.0f32,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
        f32::from_bits(0x7f80_0001),
        f32::from_bits(0x7fff_ffff),
    ] {
        out.push(x);
        out.push(-x);
    }
    let mut rng = Rng::new(f.bits() as u64 * 31 + f.mantissa_bits as u64);
    for k in 0..(1u64 << 20) {
        out.push(f32::from_bits(
            (k as u32).wrapping_mul(4099) ^ rng.next() as u32 & 0xff,
        ));
    }
    out
}

/// The checks of the SIMD encode builds, on the targets that have some.
#[cfg(simd_variants)]
mod build {
    use std::vec::Vec;

    use crate::float::MiniFloat;

    /// A SIMD build of the encode: codes to bytes and, for 4-bit formats,
    /// to nibble pairs, each in both modes.
    pub(super) type Enc = unsafe fn(&[f32], &mut [u8]);

    /// Runs one build of the encode (`[nearest, satfinite, nearest nibble
    /// pairs, satfinite nibble pairs]`) against the rounding routine's codes
    /// `near` and `sat` of `xs`, on lengths that leave tails of every size
    /// around the 16-, 32- and 64-value steps, each from the first 17
    /// places of `xs` (every place in a cache line), and on the whole set.
    ///
    /// # Safety
    ///
    /// The CPU must have every feature the four functions enable.
    pub(super) unsafe fn check_encode_build<F: MiniFloat>(
        name: &str,
        [enc, enc_sat, enc4, enc4_sat]: [Enc; 4],
        xs: &[f32],
        near: &[u8],
        sat: &[u8],
    ) {
        let f = F::FORMAT;
        let packed = |c: &[u8]| -> Vec<u8> {
            c.chunks(2)
                .map(|p| p[0] | p.get(1).map_or(0, |h| h << 4))
                .collect()
        };
        for n in [
            0usize,
            1,
            15,
            16,
            17,
            31,
            32,
            33,
            63,
            64,
            65,
            100,
            129,
            xs.len(),
        ] {
            // The source at every place in a cache line (the steps start
            // where it is on a line, after one at 0).
            let starts = if n == xs.len() {
                0
            } else {
                16.min(xs.len() - n)
            };
            for s in 0..=starts {
                let mut out = std::vec![0u8; n];
                // SAFETY: the caller guarantees the features of the build.
                unsafe { enc(&xs[s..s + n], &mut out) };
                assert_eq!(
                    out,
                    near[s..s + n],
                    "{f:?} encode_f32_{name} nearest, {n} values from {s}"
                );
                // SAFETY: as above.
                unsafe { enc_sat(&xs[s..s + n], &mut out) };
                assert_eq!(
                    out,
                    sat[s..s + n],
                    "{f:?} encode_f32_{name} satfinite, {n} values from {s}"
                );
                if f.bits() == 4 {
                    let mut out = std::vec![0u8; n.div_ceil(2)];
                    // SAFETY: as above.
                    unsafe { enc4(&xs[s..s + n], &mut out) };
                    assert_eq!(
                        out,
                        packed(&near[s..s + n]),
                        "{f:?} encode4_{name} nearest, {n} values from {s}"
                    );
                    // SAFETY: as above.
                    unsafe { enc4_sat(&xs[s..s + n], &mut out) };
                    assert_eq!(
                        out,
                        packed(&sat[s..s + n]),
                        "{f:?} encode4_{name} satfinite, {n} values from {s}"
                    );
                }
            }
        }
    }
}

fn check_encode<F: MiniFloat>() {
    let f = F::FORMAT;
    if !encode_fast_ok(&f) {
        return;
    }
    let xs = inputs::<F>();
    let near: Vec<u8> = xs
        .iter()
        .map(|&x| f.encode_f32(x, Mode::Nearest) as u8)
        .collect();
    let sat: Vec<u8> = xs
        .iter()
        .map(|&x| f.encode_f32(x, Mode::SatFinite) as u8)
        .collect();
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    {
        use crate::kernels::x86;
        // The four builds of one width: one code a byte and nibble pairs,
        // each rounding to nearest and saturating.
        macro_rules! four {
            ($($one:ident)::+, $($two:ident)::+) => {
                [
                    $($one)::+::<F, false>,
                    $($one)::+::<F, true>,
                    $($two)::+::<F, false>,
                    $($two)::+::<F, true>,
                ]
            };
        }
        let builds: [(&str, u32, [build::Enc; 4]); 2] = [
            (
                "avx2",
                x86::AVX2,
                four!(x86::encode_f32_avx2, x86::encode4_f32_avx2),
            ),
            (
                "avx512",
                x86::AVX512_BW,
                four!(x86::encode_f32_avx512, x86::encode4_f32_avx512),
            ),
        ];
        for (name, need, fns) in builds {
            if x86::detected() & need != need {
                std::eprintln!("skipped: encode_f32_{name} for {f:?} (the CPU lacks it)");
                continue;
            }
            // SAFETY: the CPU has every feature of the build (checked
            // just above).
            unsafe { build::check_encode_build::<F>(name, fns, &xs, &near, &sat) };
        }
    }
    #[cfg(all(simd_variants, target_arch = "aarch64"))]
    {
        use crate::kernels::aarch64::{encode_f32_neon, encode4_f32_neon};
        let fns: [build::Enc; 4] = [
            encode_f32_neon::<F, false>,
            encode_f32_neon::<F, true>,
            encode4_f32_neon::<F, false>,
            encode4_f32_neon::<F, true>,
        ];
        // SAFETY: NEON, all the build enables, is in this target's cfg.
        unsafe { build::check_encode_build::<F>("neon", fns, &xs, &near, &sat) };
    }
    for (i, &x) in xs.iter().enumerate() {
        assert_eq!(
            encode_fast::<F, false>(x),
            near[i],
            "{f:?} nearest {x:e} ({:#x})",
            x.to_bits()
        );
        assert_eq!(
            encode_fast::<F, true>(x),
            sat[i],
            "{f:?} satfinite {x:e} ({:#x})",
            x.to_bits()
        );
    }
}

/// `encode_words` and `decode_words` at every small offset and length
/// against the routine and the format's decode, value by value.
fn check_words<F: MiniFloat>() {
    use crate::kernels::minifloat::{decode_words, encode_words};
    let f = F::FORMAT;
    let w = f.bits();
    let table: [f32; 256] = core::array::from_fn(|c| f.decode_f32(c as u32));
    let mut rng = Rng::new(w as u64 * 101);
    for off in 0..5usize {
        for n in (0..70usize).chain([255, 256, 257, 1000, 1025]) {
            let src: Vec<f32> = (0..n)
                .map(|_| match rng.next() % 16 {
                    0 => f32::NAN,
                    1 => f32::NEG_INFINITY,
                    2 => 1e30,
                    3 => 1e-30,
                    _ => (rng.next() % 2000) as f32 / 64.0 - 15.0,
                })
                .collect();
            let nw = super::super::words_for(w, off + n) + 1;
            let before = rng.words(nw);
            for sat in [false, true] {
                let mode = if sat { Mode::SatFinite } else { Mode::Nearest };
                let mut expect = before.clone();
                for (i, &x) in src.iter().enumerate() {
                    super::ref_set(&mut expect, off + i, w, f.encode_f32(x, mode) as u128);
                }
                let mut words = before.clone();
                encode_words::<F>(&src, sat, &mut words, off);
                assert_eq!(
                    words, expect,
                    "{f:?} encode_words sat={sat} offset {off} len {n}"
                );
            }
            let mut out = std::vec![0f32; n];
            decode_words::<F>(&before, off, &mut out, &table);
            for (i, x) in out.iter().enumerate() {
                let code = super::ref_get(&before, off + i, w) as u32;
                assert_eq!(key(*x), key(f.decode_f32(code)), "{f:?} decode_words");
            }
        }
    }
}

#[test]
fn words_paths_match_the_routine() {
    every_format!(check_words);
}

#[test]
fn coverage_of_the_fast_paths() {
    // Every shipped format but E8M0 (no zero, ties away) is covered.
    assert!(encode_fast_ok(&E2M1::FORMAT) && encode_fast_ok(&E4M3::FORMAT));
    assert!(encode_fast_ok(&E2M3::FORMAT) && encode_fast_ok(&E3M2::FORMAT));
    assert!(encode_fast_ok(&E5M2::FORMAT) && !encode_fast_ok(&E8M0::FORMAT));
    assert!(decode_fast_ok(&E4M3::FORMAT) && !decode_fast_ok(&E8M0::FORMAT));
    assert!(f16_ok(&E4M3::FORMAT) && f16_ok(&E5M2::FORMAT) && f16_ok(&E3M2::FORMAT));
    // The AVX2 nibble-table decode takes every OCP format but E8M0.
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    {
        use crate::kernels::x86::split_ok;
        assert!(split_ok::<E2M1>() && split_ok::<E2M3>() && split_ok::<E3M2>());
        assert!(split_ok::<E4M3>() && split_ok::<E5M2>() && !split_ok::<E8M0>());
    }
}

#[test]
fn decode_every_code() {
    every_format!(check_decode);
    check_decode::<E3M4Fn>();
    check_decode::<E2M5Fn>();
}

/// 8-bit formats with 4 and 5 mantissa bits, which no shipped format with
/// a `binary16` decode has: there the decode shifts the widened code right
/// by 2 and 3 (E4M3 by 1, E5M2 by none).
#[derive(Clone, Copy, crate::BitElement)]
#[bitpack(crate = "crate")]
#[repr(transparent)]
#[bitwidth(8)]
struct E3M4Fn(u8);

impl MiniFloat for E3M4Fn {
    const FORMAT: FloatFormat = FloatFormat {
        exponent_bits: 3,
        mantissa_bits: 4,
        bias: 3,
        ..FloatFormat::E4M3
    };
}

/// See [`E3M4Fn`].
#[derive(Clone, Copy, crate::BitElement)]
#[bitpack(crate = "crate")]
#[repr(transparent)]
#[bitwidth(8)]
struct E2M5Fn(u8);

impl MiniFloat for E2M5Fn {
    const FORMAT: FloatFormat = FloatFormat {
        exponent_bits: 2,
        mantissa_bits: 5,
        bias: 1,
        specials: crate::float::Specials::FiniteOnly,
        overflow: crate::float::Overflow::Saturate,
        ..FloatFormat::E4M3
    };
}

/// The SIMD widens of `binary16` bits (the variants of
/// `kernels::widen_f16`: F16C where the CPU has it, NEON on `aarch64`)
/// against `half::f16::to_f32`, bit for bit (NaN signs and payloads,
/// signalling NaNs included), on every pattern: runs from each of the 8
/// lanes of a step (so each pattern passes through every lane of both
/// halves of a step), with 0 to 7 values past the last whole step, short
/// slices, and `dst` shorter and longer than `src`. Each converts exactly its whole steps,
/// says so, and writes nothing else.
#[cfg(all(feature = "half", simd_variants))]
#[test]
fn widen_f16_every_pattern() {
    type Widen = unsafe fn(&[u16], &mut [f32]) -> usize;
    #[cfg(target_arch = "x86_64")]
    let variants: Vec<(&str, Widen)> = {
        use crate::kernels::x86;
        if x86::detected() & x86::AVX2_F16C == x86::AVX2_F16C {
            std::vec![("widen_f16c", x86::widen_f16c as Widen)]
        } else {
            std::eprintln!("skipped: widen_f16c (the CPU lacks AVX2 and F16C)");
            Vec::new()
        }
    };
    #[cfg(target_arch = "aarch64")]
    let variants: Vec<(&str, Widen)> = std::vec![(
        "widen_f16_neon",
        crate::kernels::aarch64::widen_f16_neon as Widen
    )];
    let all: Vec<u16> = (0..=u16::MAX).collect();
    let want: Vec<u32> = all
        .iter()
        .map(|&h| half::f16::from_bits(h).to_f32().to_bits())
        .collect();
    // (first pattern, `src` length, `dst` length): from each lane, to
    // within 7 of the last pattern with a tail of `3 * start % 8` values.
    let mut cases: Vec<(usize, usize, usize)> = (0..8)
        .map(|start| {
            let tail = 3 * start % 8;
            let len = all.len() - start - (16 - start - tail) % 8;
            assert_eq!(len % 8, tail);
            (start, len, len)
        })
        .collect();
    for len in 0..=17 {
        cases.push((0x7c00, len, len));
        cases.push((0xfbfb, len, len));
    }
    cases.extend([(3, 100, 97), (3, 97, 100), (0x7e00, 30, 8), (0, 7, 64)]);
    let guard = 0x7fc0_1234u32;
    for (name, widen) in variants {
        for &(start, len, dlen) in &cases {
            let src = &all[start..start + len];
            let mut buf = std::vec![f32::from_bits(guard); dlen + 8];
            // SAFETY: the CPU has every feature of the variant (detected
            // above on x86; NEON is in the `aarch64` target's cfg).
            let done = unsafe { widen(src, &mut buf[4..4 + dlen]) };
            assert_eq!(
                done,
                len.min(dlen) / 8 * 8,
                "{name}: {start:#x}, {len}, {dlen}"
            );
            for (i, d) in buf.iter().enumerate() {
                let expect = match i.checked_sub(4) {
                    Some(k) if k < done => want[start + k],
                    _ => guard,
                };
                assert_eq!(
                    d.to_bits(),
                    expect,
                    "{name}: pattern {:#06x} ({start:#x}, {len}, {dlen}, slot {i})",
                    start + i.saturating_sub(4)
                );
            }
        }
    }
}

/// One test per format.
macro_rules! encode_tests {
    ($($name:ident: $f:ty),*) => {
        $( #[test] fn $name() { check_encode::<$f>(); } )*
    };
}
encode_tests!(encode_e2m1: E2M1, encode_e2m3: E2M3, encode_e3m2: E3M2, encode_e4m3: E4M3, encode_e5m2: E5M2);

/// Powers of two from the bits: exact (Miri makes `powi` inexact on
/// purpose).
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// The random bits at which the magnitude `y` (a finite `f64`) rounds up
/// in `F` or just fails to: `2^32 - frac` and one below, with `frac` the
/// first 32 bits of the fraction of the quantum above the lower code,
/// computed in `f64` (exact); empty when `y` is exact there.
fn carry_edges<F: MiniFloat>(y: f64) -> Vec<u32> {
    let f = F::FORMAT;
    if !y.is_finite() || y == 0.0 {
        return Vec::new();
    }
    let emin = 1 - f.bias;
    // The exponent from the bits (Miri's `log2` is inexact too).
    let exp = (((y.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(emin);
    let units = y / pow2(exp - f.mantissa_bits as i32);
    let frac = ((units - units.floor()) * pow2(32)) as u64;
    if frac == 0 {
        return Vec::new();
    }
    let t = (1u64 << 32) - frac;
    std::vec![t as u32, (t - 1) as u32]
}

/// The branch-free stochastic encode (one value, and the bulk path in its
/// CPU's build) against the rounding routine, bit for bit, in both modes:
/// inputs around every value of the format, scaled by exponents across the
/// E8M0 range, with random bits at both ends, at random, and on both sides
/// of the carry.
fn check_stochastic<F: MiniFloat>() {
    use crate::float::Parts;
    use crate::kernels::minifloat::{
        StochasticScale, encode_codes_stochastic, encode_stochastic, encode_stochastic_f64,
        encode_stochastic_slice,
    };
    let f = F::FORMAT;
    if !encode_fast_ok(&f) {
        return;
    }
    let mut rng = Rng::new(f.bits() as u64 * 977 + f.mantissa_bits as u64);
    let (xs, exps): (Vec<f32>, &[i32]) = if cfg!(miri) {
        // Under Miri (the SIMD build's call, not the arithmetic): the
        // format's values and their neighbours, the specials, a few
        // exponents.
        let xs = (0..1u32 << f.bits())
            .step_by(1 << (f.bits() - 3))
            .map(|c| f.decode_f32(c))
            .flat_map(|v| [v, f32::from_bits(v.to_bits().wrapping_add(1))])
            .chain([f32::NAN, f32::INFINITY, f32::MAX, 1e-45, -3.5e-40])
            .collect();
        (xs, &[-127, 0, 3])
    } else {
        // The values around the format's own and the specials, and a
        // sample of the sweep of the whole `f32` range.
        let base = inputs::<F>();
        let sweep = base.len() - (1 << 20);
        let xs = base[..sweep]
            .iter()
            .chain(base[sweep..].iter().step_by(61))
            .copied()
            .collect();
        (xs, &[-127, -100, -31, -7, -1, 0, 1, 3, 20, 64, 127])
    };
    for (mode, sat) in [(Mode::Nearest, false), (Mode::SatFinite, true)] {
        let one = |x: f32, e: i32, r: u32| {
            if sat {
                encode_stochastic::<F, true>(x, e, r)
            } else {
                encode_stochastic::<F, false>(x, e, r)
            }
        };
        for &e in exps {
            for &x0 in &xs {
                // `x0` moved by `e` where `f32` keeps it, so the scaled
                // value lands near the format's values.
                let scaled = x0 * f32::from_bits(((e.clamp(-126, 127) + 127) as u32) << 23);
                for x in [x0, scaled] {
                    let p = Parts::from_f32(x).scaled(e);
                    let mut rs = if cfg!(miri) {
                        std::vec![rng.next() as u32]
                    } else {
                        std::vec![0, u32::MAX, rng.next() as u32]
                    };
                    rs.extend(carry_edges::<F>(f64::from(x).abs() * pow2(-e)));
                    for r in rs {
                        let want = f.round(p, mode, Some(r)) as u8;
                        assert_eq!(
                            one(x, e, r),
                            want,
                            "{f:?} {mode:?} {x:e} ({:#x}) times 2^{}, random {r:#x}",
                            x.to_bits(),
                            -e
                        );
                    }
                }
            }
        }
        // Divided by a divisor in `f64` (NVFP4's block scale times the
        // tensor scale): the `f64` element function on the quotient.
        let divisors = [1.0, 0.375, 6.0 * 448.0, 3.0 / 2688.0, 1e-30, 1e30];
        for &d in &divisors[..if cfg!(miri) { 2 } else { 6 }] {
            for &x in &xs {
                // `abs`: the sign of a NaN quotient is not promised (Miri
                // picks it at random); the encode takes `x`'s.
                let q = (f64::from(x.abs()) / d).abs();
                let p = Parts::from_f64(if x.is_sign_negative() { -q } else { q });
                let mut rs = if cfg!(miri) {
                    std::vec![rng.next() as u32]
                } else {
                    std::vec![0, u32::MAX, rng.next() as u32]
                };
                rs.extend(carry_edges::<F>(q));
                for r in rs {
                    let got = if sat {
                        encode_stochastic_f64::<F, true>(q, x.is_sign_negative(), r)
                    } else {
                        encode_stochastic_f64::<F, false>(q, x.is_sign_negative(), r)
                    };
                    assert_eq!(
                        got,
                        f.round(p, mode, Some(r)) as u8,
                        "{f:?} {mode:?} {x:e} ({:#x}) / {d:e}, random {r:#x}",
                        x.to_bits()
                    );
                }
            }
        }
        // The bulk paths (the entry point, the portable loop and every
        // SIMD build the CPU has), with and without exponents, at lengths
        // around the step and from an index whose random bits wrap.
        let n = if cfg!(miri) {
            100
        } else {
            xs.len().min(40_000)
        };
        let e: Vec<i32> = (0..n).map(|i| exps[i % exps.len()]).collect();
        let src: Vec<f32> = (0..n)
            .map(|i| {
                xs[i % xs.len()] * f32::from_bits(((e[i].clamp(-126, 127) + 127) as u32) << 23)
            })
            .collect();
        let d: Vec<f64> = (0..n).map(|i| divisors[i % divisors.len()]).collect();
        type Bulk = unsafe fn(&[f32], StochasticScale<'_>, (u64, u64), &mut [u8]);
        let entry: Bulk = if sat {
            |s, e, sf, c| encode_codes_stochastic::<F>(s, e, true, sf, c)
        } else {
            |s, e, sf, c| encode_codes_stochastic::<F>(s, e, false, sf, c)
        };
        let portable: Bulk = if sat {
            encode_stochastic_slice::<F, true>
        } else {
            encode_stochastic_slice::<F, false>
        };
        #[cfg_attr(
            not(all(feature = "std", target_arch = "x86_64")),
            allow(unused_mut, reason = "the x86 builds are added below")
        )]
        let mut builds: Vec<(&str, Bulk)> = std::vec![("entry", entry), ("portable", portable)];
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        {
            use crate::kernels::dispatch::simd::float_variants::stochastic;
            use crate::kernels::x86::detected;
            let list = if sat {
                stochastic::<F, true>()
            } else {
                stochastic::<F, false>()
            };
            for (need, name, f) in list.into_iter().flatten() {
                if detected() & need == need {
                    builds.push((name, f));
                } else {
                    std::eprintln!("skipped: {name} for {f:?} (the CPU lacks it)");
                }
            }
        }
        for (name, bulk) in builds {
            let seeds = [(7, u64::MAX - 20), (0u64, 0u64), (rng.next(), rng.next())];
            let seeds = &seeds[..if cfg!(miri) { 1 } else { 3 }];
            for &(seed, first) in seeds {
                let lens = [0usize, 1, 31, 32, 33, 95, n];
                for len in lens.into_iter().filter(|&l| l <= n) {
                    for how in 0..3 {
                        let scale = match how {
                            0 => StochasticScale::One,
                            1 => StochasticScale::Exps(&e[..len]),
                            _ => StochasticScale::Divisors(&d[..len]),
                        };
                        let mut got = std::vec![0xa5u8; len];
                        // SAFETY: the SIMD builds run only where the CPU
                        // has their features (checked above); the others
                        // need none.
                        unsafe { bulk(&src[..len], scale, (seed, first), &mut got) };
                        for (i, &g) in got.iter().enumerate() {
                            let x = src[i];
                            let p = match how {
                                0 => Parts::from_f32(x),
                                1 => Parts::from_f32(x).scaled(e[i]),
                                _ => {
                                    let q = (f64::from(x.abs()) / d[i]).abs();
                                    Parts::from_f64(if x.is_sign_negative() { -q } else { q })
                                }
                            };
                            let r = crate::float::random_bits(seed, first.wrapping_add(i as u64));
                            assert_eq!(
                                g,
                                f.round(p, mode, Some(r)) as u8,
                                "{f:?} {mode:?} {name}: value {i} of {len}, scaling {how}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn stochastic_encode_matches_the_routine() {
    every_format!(check_stochastic);
}
