//! The `f64`-free block core against the `f64` paths, bit for bit: the MX
//! scale (`mx_scale_f32` against `mx_scale` of the same amax, every element
//! format and rule); the NVFP4 scale (`nvfp4_scale_f32` against `f64`
//! data's corrected quotient), the E2M1 codes of `f32` data (threshold
//! compares, and stochastic rounding's integer quotient) and `nvfp4_value`.
//! Random `f32` bits (subnormals, zeros, infinities, NaN, huge and tiny
//! tensor scales), every E4M3 rounding tie, and the E2M1 midpoints of every
//! block scale.

use bitpack::NarrowArray;
use bitpack::formats::{
    E2M1, E2M3, E3M2, E4M3, E5M2, Encoder, Mode, MxElement, Nvfp4Array, Rounding, ScaleRule,
    TinyScale, mx_scale, mx_scale_f32, nvfp4_codes, nvfp4_scale, nvfp4_scale_f32, nvfp4_value,
};
use proptest::prelude::*;

const TINY: [TinyScale; 3] = [TinyScale::Flush, TinyScale::Smallest, TinyScale::MinNormal];

/// The `f64` path's scale of the magnitude with bits `a` (NaN and
/// infinities: no amax).
fn reference_scale(a: u32, ts: f32, tiny: TinyScale) -> u8 {
    let x = f32::from_bits(a & 0x7fff_ffff);
    let amax = x.is_finite().then_some(x as f64);
    nvfp4_scale::<f64>(amax, ts, tiny).to_bits()
}

fn check_scale(a: u32, ts: f32) {
    for tiny in TINY {
        assert_eq!(
            nvfp4_scale_f32(a, ts, tiny).to_bits(),
            reference_scale(a, ts, tiny),
            "amax bits {a:#010x}, tensor scale {ts:e} ({:#010x}), {tiny:?}",
            ts.to_bits()
        );
    }
}

/// Any finite positive `f32`: bits 1..0x7f80_0000, with the ends and
/// subnormals often.
fn tensor_scale() -> impl Strategy<Value = f32> {
    prop_oneof![
        (1u32..0x7f80_0000).prop_map(f32::from_bits),
        (1u32..0x0080_0000).prop_map(f32::from_bits),
        (0x7f00_0000u32..0x7f80_0000).prop_map(f32::from_bits),
        (-30i32..30).prop_map(|k| 2f32.powi(k)),
        (0x3a00_0000u32..0x3b00_0000).prop_map(f32::from_bits), // near 1 / 2688
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn scale_matches_f64_path(a in any::<u32>(), ts in tensor_scale()) {
        check_scale(a, ts);
    }

    /// The amax near the block scale the tensor scale gives its largest
    /// value (`ts = amax_tensor / 2688`), the common case.
    #[test]
    fn scale_matches_near_the_tensor_amax(
        a in 1u32..0x7f80_0000,
        shrink in 0u32..(30 << 23),
    ) {
        let amax = f32::from_bits(a);
        let ts = amax / 2688.0;
        if ts > 0.0 && ts.is_finite() {
            check_scale(a.saturating_sub(shrink), ts);
        }
    }

    /// `nvfp4_codes` of `f32` data (the threshold path) against `f64` data
    /// (the `f64` midpoint compares), for any scale code and tensor scale,
    /// with values at, next to and around the midpoints. Scales are
    /// unsigned (UE4M3: what the quantizer stores), NaN and zero included.
    #[test]
    fn codes_match_f64_path(
        code in 0u8..0x80,
        ts in tensor_scale(),
        xs in prop::collection::vec(any::<u32>(), 16),
        picks in prop::collection::vec((0usize..7, -2i32..=2, any::<bool>()), 16),
    ) {
        let scale = E4M3::from_bits(code);
        let d = scale.to_f32() as f64 * ts as f64;
        let mids = [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0];
        let mut data: Vec<f32> = xs.iter().map(|&b| f32::from_bits(b)).collect();
        for ((&(k, step, neg), x), i) in picks.iter().zip(&mut data).zip(0..) {
            if i % 2 == 0 && d.is_finite() && d > 0.0 {
                // The f32 nearest a midpoint times `d`, moved by `step` ulps.
                let t = (mids[k] * d) as f32;
                if t.is_finite() && t > 0.0 {
                    let moved = (t.to_bits() as i32 + step).max(0) as u32;
                    let v = f32::from_bits(moved);
                    *x = if neg { -v } else { v };
                }
            }
        }
        let wide: Vec<f64> = data.iter().map(|&x| x as f64).collect();
        let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
        nvfp4_codes::<f32>(&data, scale, ts, Rounding::Nearest, 0, &mut a);
        nvfp4_codes::<f64>(&wide, scale, ts, Rounding::Nearest, 0, &mut b);
        prop_assert_eq!(a, b, "scale {:#04x}, tensor scale {:e}, data {:?}", code, ts, data);
    }

    /// `nvfp4_value` in `f32` against the exact product rounded once.
    #[test]
    fn value_matches_exact_product(ts in tensor_scale()) {
        for s in 0..=255u8 {
            let scale = E4M3::from_bits(s);
            for c in 0..16u8 {
                let x = E2M1::from_bits(c);
                let exact = (x.to_f32() as f64 * scale.to_f32() as f64 * ts as f64) as f32;
                let got = nvfp4_value(x, scale, ts);
                prop_assert!(
                    got.to_bits() == exact.to_bits() || (got.is_nan() && exact.is_nan()),
                    "code {c:#x}, scale {s:#04x}, tensor scale {ts:e}: {got:e} != {exact:e}"
                );
            }
        }
    }
}

/// Every E4M3 rounding tie (and its neighbours), for tensor scales that
/// make the quotient exact and for ones that do not: the midpoint between
/// consecutive E4M3 magnitudes (and past 448, and below the smallest
/// subnormal) times `6 * ts`.
#[test]
fn scale_ties_and_neighbours() {
    let values: Vec<f32> = (0..=0x7eu8).map(|c| E4M3::from_bits(c).to_f32()).collect();
    let mut mids: Vec<f32> = values.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect();
    mids.extend([
        464.0,
        480.0,
        2f32.powi(-10),
        2f32.powi(-11),
        3.0 * 2f32.powi(-11),
    ]);
    let scales = [
        1.0f32,
        2f32.powi(-20),
        2f32.powi(-149),
        2f32.powi(100),
        1.0 / 2688.0,
        3.0,
        0.1,
        f32::MIN_POSITIVE,
        f32::from_bits(0x0000_0003),
    ];
    for &ts in &scales {
        for &m in &mids {
            let t = m as f64 * 6.0 * ts as f64;
            let a = t as f32;
            if !(a.is_finite() && a > 0.0) {
                continue;
            }
            for step in -2i32..=2 {
                let b = (a.to_bits() as i32 + step).max(0) as u32;
                check_scale(b, ts);
            }
        }
    }
}

/// The special inputs: zero and signed zero amax, NaN and infinite amax,
/// and tensor scales that are not finite and positive (the NaN scale).
#[test]
fn scale_specials() {
    for tiny in TINY {
        let zero = nvfp4_scale_f32(0, 1.0, tiny);
        assert_eq!(
            zero.to_bits(),
            nvfp4_scale_f32(0x8000_0000, 1.0, tiny).to_bits()
        );
        assert_eq!(zero.to_bits(), reference_scale(0, 1.0, tiny));
        for bad in [f32::NAN, f32::INFINITY, -f32::INFINITY] {
            assert_eq!(nvfp4_scale_f32(bad.to_bits(), 1.0, tiny).to_bits(), 0x7f);
        }
        for ts in [0.0, -0.0, -1.0, f32::INFINITY, f32::NAN] {
            assert_eq!(nvfp4_scale_f32(1.0f32.to_bits(), ts, tiny).to_bits(), 0x7f);
        }
    }
    assert_eq!(nvfp4_scale_f32(0, 1.0, TinyScale::Flush).to_bits(), 0);
    assert_eq!(nvfp4_scale_f32(0, 1.0, TinyScale::Smallest).to_bits(), 1);
    assert_eq!(nvfp4_scale_f32(0, 1.0, TinyScale::MinNormal).to_bits(), 8);
    // Saturation: far past 448.
    assert_eq!(
        nvfp4_scale_f32(f32::MAX.to_bits(), f32::from_bits(1), TinyScale::Flush).to_bits(),
        0x7e
    );
}

const RULES: [ScaleRule; 4] = [
    ScaleRule::Floor,
    ScaleRule::Ceil,
    ScaleRule::Even,
    ScaleRule::RCeil,
];

fn check_mx_scale<F: MxElement>(a: u32) {
    let x = f32::from_bits(a & 0x7fff_ffff);
    let amax = x.is_finite().then_some(x as f64);
    for rule in RULES {
        assert_eq!(
            mx_scale_f32::<F>(a, rule).to_bits(),
            mx_scale::<F>(amax, rule).to_bits(),
            "amax bits {a:#010x}, {rule:?}"
        );
    }
}

fn check_mx_all(a: u32) {
    check_mx_scale::<E2M1>(a);
    check_mx_scale::<E2M3>(a);
    check_mx_scale::<E3M2>(a);
    check_mx_scale::<E4M3>(a);
    check_mx_scale::<E5M2>(a);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn mx_scale_matches_f64_path(a in any::<u32>()) {
        check_mx_all(a);
    }
}

/// Every exponent (subnormals, zero, infinity and NaN included) with the
/// fractions where the rules change: zero, the top bits of each format's
/// largest value and its neighbours, the Even rounding points.
#[test]
fn mx_scale_every_exponent_and_edge_fraction() {
    let mut fracs = vec![0u32, 1, 0x7f_ffff, 0x40_0000, 0x3f_ffff];
    for top in 0..16u32 {
        let f = top << 19;
        fracs.extend([f, f.wrapping_sub(1) & 0x7f_ffff, f + 1]);
    }
    for m in 1..=3u32 {
        let half = 1u32 << (22 - m);
        fracs.extend([
            half,
            half - 1,
            half + 1,
            0x7f_ffff - half,
            0x7f_ffff - half + 1,
        ]);
    }
    for field in 0..=255u32 {
        for &f in &fracs {
            for sign in [0, 0x8000_0000] {
                check_mx_all(sign | field << 23 | (f & 0x7f_ffff));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Stochastic rounding of `f32` data (the integer quotient) against the
    /// `f64` quotient rounded with the same random bits, for any unsigned
    /// scale and tensor scale and any `f32` bits.
    #[test]
    fn stochastic_codes_match_f64_quotient(
        code in 0u8..0x80,
        ts in tensor_scale(),
        xs in prop::collection::vec(any::<u32>(), 16),
        seed: u64,
        first in 0u64..1 << 40,
    ) {
        let scale = E4M3::from_bits(code);
        let data: Vec<f32> = xs.iter().map(|&b| f32::from_bits(b)).collect();
        let mut got = [0u8; 16];
        nvfp4_codes::<f32>(&data, scale, ts, Rounding::Stochastic { seed }, first, &mut got);
        let d = scale.to_f32() as f64 * ts as f64;
        let enc = Encoder::new(Mode::SatFinite).stochastic(seed);
        for (k, (&x, &g)) in data.iter().zip(&got).enumerate() {
            let want = match code {
                0x7f => 0,
                0 => (x.is_sign_negative() as u8) << 3,
                _ => enc.value::<E2M1, f64>(x as f64 / d, first + k as u64).to_bits(),
            };
            prop_assert_eq!(g, want, "x {:e} ({:#010x}), scale {:#04x}, ts {:e}", x, x.to_bits(), code, ts);
        }
    }
}

/// Quotients near the E2M1 values and midpoints, where the random bits
/// decide: values `v * d` (and their neighbours) for every E2M1 magnitude
/// and midpoint `v`, every scale code and a few tensor scales, each with
/// several seeds.
#[test]
fn stochastic_codes_near_the_grid() {
    let grid = [
        0.25f64, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0,
    ];
    for ts in [1.0f32, 1.0 / 2688.0, 0.1, 3.0e-39, 1.0e30] {
        for code in 1..0x7fu8 {
            let scale = E4M3::from_bits(code);
            let d = scale.to_f32() as f64 * ts as f64;
            let mut data = Vec::new();
            for &v in &grid {
                let t = (v * d) as f32;
                if t.is_finite() && t > 0.0 {
                    for step in -1i32..=1 {
                        let b = (t.to_bits() as i32 + step) as u32;
                        data.push(f32::from_bits(b));
                        data.push(-f32::from_bits(b));
                    }
                }
            }
            for seed in [0u64, 1, 0xdead_beef] {
                let mut got = vec![0u8; data.len()];
                nvfp4_codes::<f32>(&data, scale, ts, Rounding::Stochastic { seed }, 5, &mut got);
                let enc = Encoder::new(Mode::SatFinite).stochastic(seed);
                for (k, (&x, &g)) in data.iter().zip(&got).enumerate() {
                    let want = enc.value::<E2M1, f64>(x as f64 / d, 5 + k as u64).to_bits();
                    assert_eq!(
                        g, want,
                        "x {x:e}, scale {code:#04x}, ts {ts:e}, seed {seed}"
                    );
                }
            }
        }
    }
}

/// `BlockGrid::amax_bits_f32` against `BlockGrid::amax` (the scale each
/// gives is the same) on rows, axes and tiles, with NaN, infinities,
/// subnormals and data shorter than the grid.
#[test]
fn grid_amax_bits_matches_amax() {
    use bitpack::formats::BlockGrid;
    let mut s = 7u64;
    let data: Vec<f32> = (0..4096)
        .map(|i| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            match (s >> 40) % 97 {
                0 => f32::NAN,
                1 => f32::NEG_INFINITY,
                2 => f32::from_bits((s >> 20) as u32 & 0x807f_ffff),
                3 => -0.0,
                _ => ((s >> 33) as f32 - 2e9) * 1e-6 * (i % 7) as f32,
            }
        })
        .collect();
    let grids = [
        BlockGrid::along(16, 100, 1, 32),
        BlockGrid::along(4, 70, 3, 32),
        BlockGrid::along(2, 64, 32, 16),
        BlockGrid::tiles(40, 50, 20, 16, 16),
        BlockGrid::tiles(100, 33, 100, 16, 16),
        BlockGrid::along(64, 64, 2, 32), // longer than the data
    ];
    for grid in grids {
        for g in 0..grid.scales() {
            let bits = grid.amax_bits_f32(&data, g);
            match grid.amax(&data, g) {
                Some(a) => assert_eq!(bits, (a as f32).to_bits(), "{grid:?} scale {g}"),
                None => assert!(bits >= 0x7f80_0000, "{grid:?} scale {g}"),
            }
            for rule in RULES {
                assert_eq!(
                    mx_scale_f32::<E4M3>(bits, rule).to_bits(),
                    mx_scale::<E4M3>(grid.amax(&data, g), rule).to_bits()
                );
            }
        }
    }
}

/// `mx_value` (the scale from its bits) against the decoded code times
/// `E8M0::to_f32`, for every code of every element format and every scale.
#[test]
fn mx_value_matches_to_f32_product() {
    use bitpack::formats::{E8M0, mx_value};
    fn check<F: MxElement>() {
        for s in 0..=255u8 {
            let scale = E8M0::from_bits(s);
            for c in 0..1u16 << F::BITS {
                let x = F::from_raw_bits(c as u8);
                let want = x.to_f32() * scale.to_f32();
                let got = mx_value(x, scale);
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "code {c:#x}, scale {s:#04x}: {got:e} != {want:e}"
                );
            }
        }
    }
    check::<E2M1>();
    check::<E2M3>();
    check::<E3M2>();
    check::<E4M3>();
    check::<E5M2>();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// `Nvfp4Array::dequantize` (scale and code in `f32`, then the tensor
    /// scale) against the exact product of the three rounded once, for
    /// every E2M1 code under every E4M3 scale byte (NaN included), for any
    /// tensor scale (subnormal and overflowing products included).
    #[test]
    fn nvfp4_dequantize_matches_the_exact_product(ts in tensor_scale()) {
        // Block `s` holds the 16 codes under scale byte `s` (0..0x80).
        let codes: Vec<u8> = (0..128u32 * 8)
            .map(|k| (((k * 2) % 16) | (((k * 2 + 1) % 16) << 4)) as u8)
            .collect();
        let values = NarrowArray::<E2M1>::from_bytes(&codes, 128 * 16).unwrap();
        let scales: Vec<E4M3> = (0..128u8).map(E4M3::from_bits).collect();
        let q = Nvfp4Array::from_parts(values, NarrowArray::from_slice(&scales), ts).unwrap();
        let got = q.dequantize();
        for (i, g) in got.iter().enumerate() {
            let (s, c) = (scales[i / 16], E2M1::from_bits((i % 16) as u8));
            let want = (f64::from(c.to_f32()) * f64::from(s.to_f32()) * f64::from(ts)) as f32;
            prop_assert!(
                g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
                "code {:#x}, scale {:#04x}, tensor scale {:e}: {} != {}",
                i % 16,
                i / 16,
                ts,
                g,
                want
            );
        }
    }
}
