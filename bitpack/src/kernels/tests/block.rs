//! The block kernels of MX and NVFP4. The one-pass NVFP4 quantize
//! (`kernels::nvfp4_blocks`): its portable
//! loop against a value-by-value, bit-by-bit reference, and every x86
//! variant this CPU runs (on `aarch64`, the NEON one) against the portable
//! loop, on random bits
//! (NaN, infinities, signed zeros, subnormals), magnitudes on and next to
//! the thresholds, thresholds no magnitude passes, and signs kept and
//! dropped. The scaled E2M1 decode (`kernels::e2m1_scaled_blocks`): every
//! variant against the product it stands for, bit for bit. The one-pass
//! MX quantize (`kernels::mx_blocks`): the portable loop and every variant
//! against the value-by-value encode of each product, and where a block has
//! no scale, the groups written before it.

extern crate std;

use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::super::MxScaleBits;

/// The scale codes of a test: a mix of the amax bits (any byte, the sign
/// bit set too), its row one of `rows` (seven thresholds and the sign
/// mask), held as the kernel's table of 256 rows (row `s` is
/// `rows[(s & 0x7f) % rows.len()]`).
struct Coder(std::boxed::Box<super::super::Rows>);

impl Coder {
    fn new(rows: &[[i32; 8]]) -> Self {
        Coder(std::boxed::Box::new(core::array::from_fn(|s| {
            rows[(s & 0x7f) % rows.len()]
        })))
    }

    fn code(&self, m: u32) -> (u8, [i32; 8]) {
        let s = (m ^ (m >> 7) ^ (m >> 19)) as u8;
        (s, self.0[usize::from(s)])
    }
}

impl super::super::BlockCode for Coder {
    fn codes(
        &mut self,
        amax_bits: &[u32; super::super::NVFP4_GROUP],
        scales: &mut [u8],
    ) -> &super::super::Rows {
        for (s, &m) in scales.iter_mut().zip(amax_bits) {
            *s = self.code(m).0;
        }
        &self.0
    }
}

/// The kernel's definition, one value and one bit at a time.
fn reference(xs: &[f32], rows: &[[i32; 8]]) -> (Vec<u8>, Vec<u64>) {
    let code = Coder::new(rows);
    let (mut scales, mut words) = (Vec::new(), Vec::new());
    for block in xs.chunks_exact(16) {
        let mut amax = 0u32;
        for x in block {
            amax = amax.max(x.to_bits() & 0x7fff_ffff);
        }
        let (s, t) = code.code(amax);
        scales.push(s);
        let mut w = 0u64;
        for (i, x) in block.iter().enumerate() {
            let a = (x.to_bits() & 0x7fff_ffff) as i32;
            let mut c = 0u64;
            for &tk in &t[..7] {
                if a > tk {
                    c += 1;
                }
            }
            if t[7] == i32::MIN && x.is_sign_negative() {
                c += 8;
            }
            for b in 0..4 {
                if (c >> b) & 1 == 1 {
                    w |= 1 << (4 * i + b);
                }
            }
        }
        words.push(w);
    }
    (scales, words)
}

/// Rows of non-decreasing thresholds (`t - 1` of positive `f32` bits),
/// some with thresholds no magnitude passes, some with runs of equal ones
/// (as the largest scales' thresholds, all at infinity), signs kept or
/// dropped.
fn rows() -> impl Strategy<Value = Vec<[i32; 8]>> {
    let row = (
        prop::collection::vec(0i32..0x7f80_0000, 7),
        0u8..8,
        0usize..7,
        0usize..7,
    )
        .prop_map(|(mut t, kind, a, b)| {
            t.sort_unstable();
            let mut r = [0i32; 8];
            r[..7].copy_from_slice(&t);
            r[7] = if kind == 0 { 0 } else { i32::MIN };
            if kind == 1 {
                r[..7].fill(i32::MAX);
            }
            if kind == 2 {
                // Thresholds a..=b all equal.
                let (a, b) = (a.min(b), a.max(b));
                let v = r[a];
                r[a..=b].fill(v);
            }
            r
        });
    prop::collection::vec(row, 1..6)
}

/// Values: raw bits, specials, and magnitudes on and next to the rows'
/// thresholds, either sign.
fn values(rows: &[[i32; 8]], picks: &[(u32, u8)]) -> Vec<f32> {
    const SPECIAL: [f32; 8] = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
    ];
    picks
        .iter()
        .map(|&(b, kind)| match kind % 4 {
            0 => f32::from_bits(b),
            1 => SPECIAL[b as usize % 8],
            _ => {
                let r = rows[b as usize % rows.len()];
                let t = r[(b >> 8) as usize % 7];
                let t = if t == i32::MAX { 0x3f80_0000 } else { t };
                let a = (t as u32).wrapping_add((b >> 12) % 3) & 0x7fff_ffff;
                f32::from_bits(a | (b & 0x8000_0000))
            }
        })
        .collect()
}

fn run(
    f: impl Fn(&[f32], &mut [u8], &mut [u64], &mut Coder),
    xs: &[f32],
    rows: &[[i32; 8]],
) -> (Vec<u8>, Vec<u64>) {
    let n = xs.len() / 16;
    let (mut s, mut w) = (vec![0xa5u8; n], vec![0x5a5a_5a5a_5a5a_5a5au64; n]);
    f(xs, &mut s, &mut w, &mut Coder::new(rows));
    (s, w)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn nvfp4_blocks_every_variant(
        rows in rows(),
        // Up to four whole groups of 32 blocks and a part one: the frame
        // runs three groups deep.
        picks in prop::collection::vec((any::<u32>(), any::<u8>()), 0..160).prop_flat_map(|v| {
            let n = v.len() * 16;
            prop::collection::vec((any::<u32>(), any::<u8>()), n..=n)
        }),
    ) {
        let xs = values(&rows, &picks);
        let want = reference(&xs, &rows);
        let got = run(super::super::nvfp4_blocks_portable, &xs, &rows);
        prop_assert_eq!(&got, &want, "portable");
        let got = run(super::super::nvfp4_blocks, &xs, &rows);
        prop_assert_eq!(&got, &want, "dispatch");
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        {
            use super::super::x86;
            let have = x86::detected();
            if have & x86::AVX2 != 0 {
                // SAFETY: the CPU has AVX2 (checked just above).
                let got = run(|x, s, w, c| unsafe { x86::nvfp4_blocks_avx2(x, s, w, c) }, &xs, &rows);
                prop_assert_eq!(&got, &want, "avx2");
            }
            if have & x86::AVX512_BW_BMI2 == x86::AVX512_BW_BMI2 {
                // SAFETY: the CPU has AVX-512 F and BW and BMI2 (checked
                // just above).
                let got = run(|x, s, w, c| unsafe { x86::nvfp4_blocks_avx512(x, s, w, c) }, &xs, &rows);
                prop_assert_eq!(&got, &want, "avx512");
            }
        }
        #[cfg(all(simd_variants, target_arch = "aarch64"))]
        {
            use super::super::aarch64;
            // SAFETY: NEON, all it enables, is in this target's cfg.
            let got = run(|x, s, w, c| unsafe { aarch64::nvfp4_blocks_neon(x, s, w, c) }, &xs, &rows);
            prop_assert_eq!(&got, &want, "neon");
        }
    }
}

/// The scaled decode's definition: each code's signed value times the
/// block's factor, times `post` (what the decode and the scale pass of the
/// arrays compute), value by value; every NaN as the one quiet NaN (which
/// NaN a product gives, Rust leaves open).
fn scaled_reference(
    words: &[u64],
    per: usize,
    scales: &[u8],
    lut: &[f32; 256],
    post: f32,
) -> Vec<u32> {
    const MAGS: [f32; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
    let mut out = Vec::new();
    for (b, &s) in scales.iter().enumerate() {
        for i in 0..16 * per {
            let c = (words[b * per + i / 16] >> (4 * (i % 16))) as usize & 15;
            let v = if c & 8 != 0 {
                -MAGS[c & 7]
            } else {
                MAGS[c & 7]
            };
            out.push(canonical(v * lut[usize::from(s)] * post));
        }
    }
    out
}

/// `v`'s bits, every NaN as `0x7fc0_0000`.
fn canonical(v: f32) -> u32 {
    if v.is_nan() { 0x7fc0_0000 } else { v.to_bits() }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every variant of the scaled E2M1 decode against its definition:
    /// blocks of one and two words, factors of any bits (NaN, infinities,
    /// zeros, subnormals, negative), `post` 1 or any finite value; bit for
    /// bit, but for which NaN a NaN is.
    #[test]
    fn e2m1_scaled_blocks_every_variant(
        per in 1usize..3,
        words in prop::collection::vec(any::<u64>(), 0..80),
        lut_bits in prop::collection::vec(any::<u32>(), 256),
        scale_bytes in prop::collection::vec(any::<u8>(), 80),
        post in prop_oneof![Just(1.0f32), (1u32..0x7f80_0000).prop_map(f32::from_bits)],
    ) {
        let words = &words[..words.len() / per * per];
        let scales = &scale_bytes[..words.len() / per];
        let lut: [f32; 256] = core::array::from_fn(|i| f32::from_bits(lut_bits[i]));
        let want = scaled_reference(words, per, scales, &lut, post);
        let run = |f: &dyn Fn(&mut [f32])| {
            let mut out = vec![f32::from_bits(0x7fc0_1234); 16 * words.len()];
            f(&mut out);
            out.iter().map(|&v| canonical(v)).collect::<Vec<u32>>()
        };
        let got = run(&|o| super::super::e2m1_scaled_blocks_portable(words, o, per, scales, &lut, post));
        prop_assert_eq!(&got, &want, "portable");
        let got = run(&|o| super::super::e2m1_scaled_blocks(words, o, per, scales, &lut, post));
        prop_assert_eq!(&got, &want, "dispatch");
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if super::super::x86::detected() & super::super::x86::AVX2 != 0 {
            // SAFETY: the CPU has AVX2 (checked just above).
            let got = run(&|o| unsafe {
                super::super::x86::e2m1_scaled_blocks_avx2(words, o, per, scales, &lut, post)
            });
            prop_assert_eq!(&got, &want, "avx2");
        }
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if super::super::x86::detected() & super::super::x86::AVX512F != 0 {
            // SAFETY: the CPU has AVX-512 F (checked just above).
            let got = run(&|o| unsafe {
                super::super::x86::e2m1_scaled_blocks_avx512(words, o, per, scales, &lut, post)
            });
            prop_assert_eq!(&got, &want, "avx512");
        }
        #[cfg(all(simd_variants, target_arch = "aarch64"))]
        {
            // SAFETY: NEON, all it enables, is in this target's cfg.
            let got = run(&|o| unsafe {
                super::super::aarch64::e2m1_scaled_blocks_neon(words, o, per, scales, &lut, post)
            });
            prop_assert_eq!(&got, &want, "neon");
        }
    }
}

/// The scaled 8-bit decode against the decode of the same codes (the
/// format's table) followed by the multiply (what the arrays computed in
/// two passes), bit for bit, NaN signs and payloads included, but for
/// which NaN a NaN code times a NaN factor gives (and under Miri, which
/// gives a NaN result any sign and payload, for any NaN): every code,
/// blocks of 16, 32 and 48 values, factors of any bits. Through
/// `scaled8_blocks` where a variant serves `F` on this CPU, and on
/// `aarch64` the NEON variant itself too, whatever the feature mask (which
/// `neon_variants_report` changes while other tests run).
fn check_scaled8<F: crate::float::MiniFloat>(per: usize, codes: &[u8], factors: &[u32]) {
    use super::super::{scaled8_blocks, scaled8_serves};
    let block = 16 * per;
    let nb = codes.len() / block;
    let codes = &codes[..nb * block];
    let scales: Vec<u8> = (0..nb).map(|b| b as u8).collect();
    let lut: [f32; 256] = core::array::from_fn(|i| f32::from_bits(factors[i % factors.len()]));
    let table = &crate::float::Tables::<F>::DECODE_F32;
    let factor = |i: usize| lut[usize::from(scales[i / block])];
    let want: Vec<f32> = (0..codes.len())
        .map(|i| table[usize::from(codes[i])] * factor(i))
        .collect();
    let check = |name: &str, got: &[f32]| {
        let same = |i: usize| {
            let nan_times_nan = table[usize::from(codes[i])].is_nan() && factor(i).is_nan();
            got[i].to_bits() == want[i].to_bits()
                || ((nan_times_nan || cfg!(miri)) && got[i].is_nan() && want[i].is_nan())
        };
        if let Some(i) = (0..got.len()).find(|&i| !same(i)) {
            panic!(
                "{name}: block {block}, value {i} (code {:#04x}, factor {:#010x}): \
                 {:#010x} against {:#010x}",
                codes[i],
                factor(i).to_bits(),
                got[i].to_bits(),
                want[i].to_bits()
            );
        }
    };
    if scaled8_serves::<F>(block) {
        let mut got = vec![f32::from_bits(0x7fc0_1234); codes.len()];
        scaled8_blocks::<F>(codes, &mut got, block, &scales, &lut);
        check("scaled8_blocks", &got);
    } else {
        std::eprintln!("skipped: scaled8_blocks (no variant on this CPU)");
    }
    // Each x86 variant by itself (the dispatch above runs the best one).
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    {
        use super::super::x86;
        type Scaled = unsafe fn(&[u8], &mut [f32], &[f32], usize);
        let factors: Vec<f32> = scales.iter().map(|&s| lut[usize::from(s)]).collect();
        let variants: [(&str, u32, Scaled, bool); 3] = [
            (
                "decode_f16c_scaled",
                x86::AVX2_F16C,
                x86::decode_f16c_scaled::<F>,
                true,
            ),
            (
                "decode_table_scaled_avx512",
                x86::AVX512_VBMI,
                x86::decode_table_scaled_avx512::<F>,
                true,
            ),
            (
                "decode_split_scaled_avx2",
                x86::AVX2,
                x86::decode_split_scaled_avx2::<F>,
                x86::split_ok::<F>(),
            ),
        ];
        for (name, need, run, takes) in variants {
            if !takes {
                continue;
            }
            if x86::detected() & need != need {
                std::eprintln!("skipped: {name} (the CPU lacks it)");
                continue;
            }
            let mut got = vec![f32::from_bits(0x7fc0_1234); codes.len()];
            // SAFETY: the CPU has every feature of the variant (checked
            // above); E4M3 and E5M2 are formats each takes (the split one where `split_ok`).
            unsafe { run(codes, &mut got, &factors, per) };
            check(name, &got);
        }
    }
    #[cfg(all(simd_variants, target_arch = "aarch64"))]
    {
        let f = &F::FORMAT;
        assert!(crate::float::elem::f16_ok(f) && f.bits() == 8, "{f:?}");
        let factors: Vec<f32> = scales.iter().map(|&s| lut[usize::from(s)]).collect();
        let mut got = vec![f32::from_bits(0x7fc0_1234); codes.len()];
        // SAFETY: NEON, all it enables, is in this target's cfg.
        unsafe { super::super::aarch64::scaled8_blocks_neon::<F>(codes, &mut got, &factors, per) };
        check("scaled8_blocks_neon", &got);
    }
}

/// The bits of the `f32` factor of E8M0 scale code `c`, as the MX
/// dequantize's table has it (2^(c - 127), code 255 NaN).
fn e8m0_factor(c: u8) -> u32 {
    crate::float::FloatFormat::E8M0
        .decode_f32(u32::from(c))
        .to_bits()
}

/// Factor bits for the scaled 8-bit decode: any bits, the factors of
/// random E8M0 scale codes, and those of its extreme codes (0: 2^-127, a
/// subnormal; 127: 1; 254: 2^127; 255: NaN).
fn factor_bits() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        any::<u8>().prop_map(e8m0_factor),
        prop::sample::select(vec![0u8, 127, 254, 255]).prop_map(e8m0_factor),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn scaled8_blocks_match_decode_then_scale(
        per in 1usize..4,
        codes in prop::collection::vec(any::<u8>(), 0..3000),
        factors in prop::collection::vec(factor_bits(), 1..300),
    ) {
        let every: Vec<u8> = (0..=255u8).chain(codes).collect();
        check_scaled8::<crate::E4M3>(per, &every, &factors);
        check_scaled8::<crate::E5M2>(per, &every, &factors);
    }
}

/// The one-pass MX quantize's definition, one value at a time: each
/// block's amax bits, its scale by `rule`, and each value's code as
/// `encode_fast` of the product, written into the dense stream by the
/// bit-at-a-time reference. The scales and bytes of the blocks before the first block
/// without a scale, and that block's index.
fn mx_reference<F: crate::float::MiniFloat>(
    xs: &[f32],
    rule: MxScaleBits,
) -> (Vec<u8>, Vec<u8>, Option<usize>) {
    let (mut scales, mut codes) = (Vec::new(), Vec::new());
    let mut stop = None;
    for (b, block) in xs.chunks_exact(32).enumerate() {
        let amax = block.iter().map(|x| x.to_bits() & 0x7fff_ffff).max();
        let Some((s, f)) = rule.scale(amax.unwrap_or(0)) else {
            stop = Some(b);
            break;
        };
        scales.push(s);
        for x in block {
            codes.push(crate::float::elem::encode_fast::<F, true>(x * f));
        }
    }
    // The dense stream of the codes, a bit at a time.
    let w = F::BITS;
    let mut words = vec![0u64; super::super::words_for(w, codes.len())];
    for (i, &c) in codes.iter().enumerate() {
        super::ref_set(&mut words, i, w, u128::from(c) & ((1 << w) - 1));
    }
    let bytes: &[u8] = bytemuck::cast_slice(&words);
    (scales, bytes[..codes.len() * w as usize / 8].to_vec(), stop)
}

/// Every variant of the one-pass MX quantize against [`mx_reference`] for
/// `F`: equal where every block has a scale; where one has none, `false`
/// and the groups of 16 blocks before its group equal.
fn check_mx<F: crate::float::MiniFloat>(xs: &[f32], rule: MxScaleBits) {
    let n = xs.len() / 32;
    let xs = &xs[..32 * n];
    let (want_s, want_b, stop) = mx_reference::<F>(xs, rule);
    let bytes = xs.len() * F::BITS as usize / 8;
    let check = |name: &str, f: &dyn Fn(&mut [u8], &mut [u8]) -> bool| {
        let (mut s, mut b) = (vec![0xa5u8; n], vec![0x5au8; bytes]);
        let ok = f(&mut s, &mut b);
        match stop {
            None => {
                assert!(ok, "{name}: every block has a scale");
                assert_eq!((&s, &b), (&want_s, &want_b), "{name}");
            }
            Some(block) => {
                assert!(!ok, "{name}: block {block} has no scale");
                let done = block / 16 * 16;
                let done_b = done * 4 * F::BITS as usize;
                assert_eq!(
                    &s[..done],
                    &want_s[..done],
                    "{name}: scales before the group"
                );
                assert_eq!(
                    &b[..done_b],
                    &want_b[..done_b],
                    "{name}: codes before the group"
                );
            }
        }
    };
    check("portable", &|s, b| {
        super::super::mx_blocks_portable::<F>(xs, s, b, rule)
    });
    if super::super::mx_blocks_serve::<F>() {
        check("dispatch", &|s, b| {
            super::super::mx_blocks::<F>(xs, s, b, rule)
        });
    }
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    {
        use super::super::x86;
        let have = x86::detected();
        if have & x86::AVX2 != 0 {
            // SAFETY: the CPU has AVX2 (checked just above).
            check("avx2", &|s, b| unsafe {
                x86::mx_blocks_avx2::<F>(xs, s, b, rule)
            });
        }
        if have & x86::AVX512_BW == x86::AVX512_BW {
            // SAFETY: the CPU has AVX-512 F and BW (checked just above).
            check("avx512", &|s, b| unsafe {
                x86::mx_blocks_avx512::<F>(xs, s, b, rule)
            });
        }
    }
    #[cfg(all(simd_variants, target_arch = "aarch64"))]
    // SAFETY: NEON, all it enables, is in this target's cfg.
    check("neon", &|s, b| unsafe {
        super::super::aarch64::mx_blocks_neon::<F>(xs, s, b, rule)
    });
}

/// MX test values: raw bits, zeros, subnormals and the largest finite
/// values, values near 1 (which the factors bring to every format's
/// range), and now and then a NaN or an infinity (a block without a scale).
fn mx_values(picks: &[(u32, u8)]) -> Vec<f32> {
    const SPECIAL: [f32; 6] = [0.0, -0.0, f32::MAX, f32::MIN_POSITIVE, 1e-45, -3.5e-40];
    picks
        .iter()
        .map(|&(b, kind)| match kind {
            0..=15 => f32::from_bits(b),
            16..=31 => SPECIAL[b as usize % SPECIAL.len()],
            32 | 33 if b % 32 == 0 => [f32::NAN, f32::NEG_INFINITY][usize::from(kind & 1)],
            _ => f32::from_bits((b & 0x807f_ffff) | ((117 + (b >> 23) % 20) << 23)),
        })
        .collect()
}

/// Scale rules: any rounding `add`, and `emax` from 2 (the formula's
/// least) to past E5M2's 15.
fn mx_rules() -> impl Strategy<Value = MxScaleBits> {
    (
        prop_oneof![Just(0u32), Just(0x7f_ffff), 0u32..0x80_0000],
        2u32..20,
    )
        .prop_map(|(add, emax)| MxScaleBits { add, emax })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn mx_blocks_every_variant(
        picks in prop::collection::vec((any::<u32>(), any::<u8>()), 0..1400),
        rule in mx_rules(),
    ) {
        let xs = mx_values(&picks);
        check_mx::<crate::E2M1>(&xs, rule);
        check_mx::<crate::E2M3>(&xs, rule);
        check_mx::<crate::E3M2>(&xs, rule);
        check_mx::<crate::E4M3>(&xs, rule);
        check_mx::<crate::E5M2>(&xs, rule);
    }
}

/// The four block kernels on fixed small inputs, without proptest (the
/// case `.ci/run` runs under Miri with AVX2 and F16C enabled): 105 NVFP4
/// blocks (three whole groups, the frame's depth, and a part one) with
/// specials and magnitudes on the thresholds, 6 E2M1 words in
/// blocks of two with a NaN and an infinite factor, every E4M3 and E5M2
/// code in blocks of 32, and 37 MX blocks of E2M1, E3M2 and E4M3 under two
/// rules, then with a NaN in the second group. On `aarch64` the NEON
/// variants are run by name too, beside the dispatch.
#[test]
fn block_kernels_on_fixed_inputs() {
    let rows = [
        [
            0x3e80_0000 - 1,
            0x3f00_0000 - 1,
            0x3f40_0000,
            0x3f80_0000 - 1,
            0x3fa0_0000,
            0x3fc0_0000 - 1,
            0x4000_0000,
            i32::MIN,
        ],
        [
            i32::MAX,
            i32::MAX,
            i32::MAX,
            i32::MAX,
            i32::MAX,
            i32::MAX,
            i32::MAX,
            0,
        ],
        [10, 20, 30, 40, 50, 60, 70, i32::MIN],
    ];
    let mut x = 0x1234_5678u32;
    let picks: Vec<(u32, u8)> = (0..1680)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x, i as u8)
        })
        .collect();
    let xs = values(&rows, &picks);
    let want = reference(&xs, &rows);
    let got = run(super::super::nvfp4_blocks, &xs, &rows);
    assert_eq!(got, want, "nvfp4_blocks");
    let got = run(super::super::nvfp4_blocks_portable, &xs, &rows);
    assert_eq!(got, want, "nvfp4_blocks_portable");
    #[cfg(all(simd_variants, target_arch = "aarch64"))]
    {
        // SAFETY: NEON, all it enables, is in this target's cfg.
        let neon = |x: &[f32], s: &mut [u8], w: &mut [u64], c: &mut Coder| unsafe {
            super::super::aarch64::nvfp4_blocks_neon(x, s, w, c)
        };
        assert_eq!(run(neon, &xs, &rows), want, "nvfp4_blocks_neon");
    }

    let words: Vec<u64> = (0..6u64)
        .map(|k| 0x0123_4567_89ab_cdef_u64.rotate_left(8 * k as u32))
        .collect();
    let mut lut = [0f32; 256];
    lut[..4].copy_from_slice(&[0.25, f32::NAN, f32::INFINITY, -3.0]);
    for (post, scales) in [(1.0f32, [0u8, 1, 3]), (0.1, [3, 2, 0])] {
        let want = scaled_reference(&words, 2, &scales, &lut, post);
        let mut out = vec![0f32; 96];
        super::super::e2m1_scaled_blocks(&words, &mut out, 2, &scales, &lut, post);
        let got: Vec<u32> = out.iter().map(|&v| canonical(v)).collect();
        assert_eq!(got, want, "e2m1_scaled_blocks, post {post}");
        #[cfg(all(simd_variants, target_arch = "aarch64"))]
        {
            let mut out = vec![0f32; 96];
            // SAFETY: NEON, all it enables, is in this target's cfg.
            unsafe {
                super::super::aarch64::e2m1_scaled_blocks_neon(
                    &words, &mut out, 2, &scales, &lut, post,
                )
            };
            let got: Vec<u32> = out.iter().map(|&v| canonical(v)).collect();
            assert_eq!(got, want, "e2m1_scaled_blocks_neon, post {post}");
        }
    }

    let codes: Vec<u8> = (0..=255u8).collect();
    let factors = [
        0x3f80_0000u32,
        0x0000_0001,
        0x7f7f_ffff,
        0xbf00_0000,
        0x7fc0_0000,
        0x4000_0000,
        0x0080_0000,
        0x3e00_0000,
    ];
    check_scaled8::<crate::E4M3>(2, &codes, &factors);
    check_scaled8::<crate::E5M2>(2, &codes, &factors);
    // Every code in each of four blocks of 256, scaled by the factors of
    // the E8M0 codes 0, 127, 254 and 255.
    let codes: Vec<u8> = (0..=255u8).cycle().take(4 * 256).collect();
    let factors = [0, 127, 254, 255].map(e8m0_factor);
    check_scaled8::<crate::E4M3>(16, &codes, &factors);
    check_scaled8::<crate::E5M2>(16, &codes, &factors);

    // MX: 37 blocks (two whole groups and a part, an odd count), then the
    // same with a NaN in block 20 (the second group is not written).
    let finite: Vec<(u32, u8)> = picks
        .iter()
        .map(|&(b, k)| (b, if matches!(k, 32 | 33) { 40 } else { k }))
        .collect();
    let mut xs = mx_values(&finite.repeat(15)[..37 * 32]);
    for rule in [
        MxScaleBits { add: 0, emax: 2 },
        MxScaleBits {
            add: 0x3f_ffff,
            emax: 8,
        },
    ] {
        check_mx::<crate::E2M1>(&xs, rule);
        check_mx::<crate::E3M2>(&xs, rule);
        check_mx::<crate::E4M3>(&xs, rule);
    }
    xs[20 * 32 + 5] = f32::NAN;
    check_mx::<crate::E2M1>(&xs, MxScaleBits { add: 0, emax: 2 });
    check_mx::<crate::E3M2>(&xs, MxScaleBits { add: 0, emax: 4 });
}

/// The quantizes' prefetch asks once per KiB of a contiguous input: over
/// a run of steps from any start (on a KiB, 16 bytes past a page as a
/// large allocation is, just before a KiB), a step is asked for exactly
/// when it is the first of the run to start in its KiB (after the first
/// step, when the one before started in an earlier KiB), so a run over
/// `k` whole KiB asks `k` times.
#[test]
fn prefetch_asks_once_per_kib() {
    use crate::kernels::first_in_kib;
    for step in [64, 128, 256, 512, 1024] {
        for start in [0usize, 16, 4096 + 16, 1024 - 8, 3 * 1024 + 100, 0x7fff_f010] {
            let at = |k: usize| start + k * step;
            for k in 1..64 {
                let first = at(k) / 1024 != at(k - 1) / 1024;
                assert_eq!(
                    first_in_kib(at(k), step),
                    first,
                    "step {step}, start {start}, k {k}"
                );
            }
            // The run from its first step in a new KiB on, over 16 whole
            // KiB (found by the KiB index, not by the rule under test).
            let k0 = (1..)
                .find(|&k| at(k) / 1024 != at(k - 1) / 1024)
                .expect("a step starts in each KiB");
            let asked = (k0..k0 + 16 * 1024 / step).filter(|&k| first_in_kib(at(k), step));
            assert_eq!(asked.count(), 16, "step {step}, start {start}");
        }
    }
}
