//! MX and NVFP4 block arrays against a bit-level reference written here
//! with plain `f64` arithmetic (its own element decoding, exponent search
//! and nearest-value rounding), bit for bit on random data and edge blocks;
//! plus the error bound of the round trip and the tiled scale layout.

use bitpack::NarrowArray;
use bitpack::formats::{
    E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, MxArray, MxElement, Nvfp4Array, swizzle_scales,
};
use bitpack::{BitElement, Error, LengthOf};
use proptest::prelude::*;

/// An element format in the reference's own terms: field widths, bias and
/// whether the all-ones magnitude is NaN (E4M3) or the top exponent is
/// special (E5M2). All are signed with subnormals.
#[derive(Clone, Copy, Debug)]
struct Elem {
    e: u32,
    m: u32,
    bias: i32,
    top_nan: bool,
    ieee: bool,
}

const FP4: Elem = Elem {
    e: 2,
    m: 1,
    bias: 1,
    top_nan: false,
    ieee: false,
};
const FP6_E2M3: Elem = Elem {
    e: 2,
    m: 3,
    bias: 1,
    top_nan: false,
    ieee: false,
};
const FP6_E3M2: Elem = Elem {
    e: 3,
    m: 2,
    bias: 3,
    top_nan: false,
    ieee: false,
};
const FP8_E4M3: Elem = Elem {
    e: 4,
    m: 3,
    bias: 7,
    top_nan: true,
    ieee: false,
};
const FP8_E5M2: Elem = Elem {
    e: 5,
    m: 2,
    bias: 15,
    top_nan: false,
    ieee: true,
};

impl Elem {
    /// `(code, value)` of every finite non-negative value, ascending.
    fn magnitudes(&self) -> Vec<(u32, f64)> {
        let mut out = Vec::new();
        for field in 0..(1u32 << self.e) {
            if self.ieee && field == (1 << self.e) - 1 {
                break;
            }
            for man in 0..(1u32 << self.m) {
                let code = (field << self.m) | man;
                if self.top_nan && code == (1 << (self.e + self.m)) - 1 {
                    continue;
                }
                let frac = man as f64 / (1u32 << self.m) as f64;
                let v = if field == 0 {
                    frac * 2f64.powi(1 - self.bias)
                } else {
                    (1.0 + frac) * 2f64.powi(field as i32 - self.bias)
                };
                out.push((code, v));
            }
        }
        out
    }

    fn sign_bit(&self) -> u32 {
        1 << (self.e + self.m)
    }

    fn max(&self) -> f64 {
        self.magnitudes().last().unwrap().1
    }

    /// The exponent of the largest value.
    fn emax(&self) -> i32 {
        self.max().log2().floor() as i32
    }

    /// Round-to-nearest-even code of `x` (finite), clamping at the maximum.
    fn round_sat(&self, x: f64) -> u32 {
        let mags = self.magnitudes();
        let a = x.abs();
        let sign = if x.is_sign_negative() {
            self.sign_bit()
        } else {
            0
        };
        let (max_code, max) = *mags.last().unwrap();
        if a >= max {
            return sign | max_code;
        }
        let i = mags.iter().rposition(|&(_, v)| v <= a).unwrap();
        let ((lo_c, lo), (hi_c, hi)) = (mags[i], mags[i + 1]);
        let mid = (lo + hi) / 2.0;
        let c = if a < mid || (a == mid && lo_c % 2 == 0) {
            lo_c
        } else {
            hi_c
        };
        sign | c
    }

    /// The value of a code.
    fn value(&self, code: u32) -> f64 {
        let mag = code & (self.sign_bit() - 1);
        let v = self
            .magnitudes()
            .iter()
            .find(|&&(c, _)| c == mag)
            .map(|&(_, v)| v)
            .unwrap_or(f64::NAN);
        if code & self.sign_bit() != 0 { -v } else { v }
    }

    /// The spacing of values around magnitude `a` (at most the maximum).
    fn ulp(&self, a: f64) -> f64 {
        let emin = 1 - self.bias;
        let e = if a == 0.0 {
            emin
        } else {
            (a.log2().floor() as i32).max(emin)
        };
        2f64.powi(e - self.m as i32)
    }
}

/// `floor(log2(a))` for positive finite `a`, by search (no bit tricks).
fn floor_log2(a: f64) -> i32 {
    let mut k = a.log2().floor() as i32;
    while 2f64.powi(k) > a {
        k -= 1;
    }
    while 2f64.powi(k + 1) <= a {
        k += 1;
    }
    k
}

/// The reference MX quantizer: codes (one per value, row-major) and scale
/// codes (one per block).
fn ref_mx(elem: Elem, data: &[f32], cols: usize) -> (Vec<u32>, Vec<u8>) {
    let mut codes = Vec::new();
    let mut scales = Vec::new();
    if cols == 0 {
        return (codes, scales);
    }
    for row in data.chunks(cols) {
        for block in row.chunks(32) {
            if block.iter().any(|x| !x.is_finite()) {
                scales.push(0xff);
                codes.extend(block.iter().map(|_| 0));
                continue;
            }
            let amax = block.iter().map(|x| x.abs() as f64).fold(0.0, f64::max);
            let e = if amax == 0.0 { -126 } else { floor_log2(amax) };
            let shared = (e - elem.emax()).max(-127);
            assert!(shared <= 127);
            scales.push((shared + 127) as u8);
            let x_scale = 2f64.powi(shared);
            codes.extend(block.iter().map(|&x| elem.round_sat(x as f64 / x_scale)));
        }
    }
    (codes, scales)
}

/// The reference NVFP4 quantizer.
fn ref_nvfp4(data: &[f32], cols: usize, tensor_scale: f32) -> (Vec<u32>, Vec<u8>) {
    let mut codes = Vec::new();
    let mut scales = Vec::new();
    if cols == 0 {
        return (codes, scales);
    }
    let st = tensor_scale as f64;
    for row in data.chunks(cols) {
        for block in row.chunks(16) {
            if block.iter().any(|x| !x.is_finite()) {
                scales.push(0x7f);
                codes.extend(block.iter().map(|_| 0));
                continue;
            }
            let amax = block.iter().map(|x| x.abs() as f64).fold(0.0, f64::max);
            let s_code = FP8_E4M3.round_sat(amax / (6.0 * st));
            scales.push(s_code as u8);
            let d = FP8_E4M3.value(s_code) * st;
            codes.extend(block.iter().map(|&x| {
                if d == 0.0 {
                    if x.is_sign_negative() { 0x8 } else { 0 }
                } else {
                    FP4.round_sat(x as f64 / d)
                }
            }));
        }
    }
    (codes, scales)
}

fn codes_of<F: BitElement<Raw = u8>>(a: &NarrowArray<F>) -> Vec<u32> {
    a.iter().map(|v| v.raw_bits() as u32).collect()
}

/// Quantizes with bitpack and the reference and compares bit for bit, then
/// checks the dequantized values and the error bound.
fn check_mx<F: MxElement>(elem: Elem, data: &[f32], shape: &[usize]) {
    let mx = MxArray::<F>::quantize(data, shape).unwrap();
    let cols = *shape.last().unwrap();
    let (codes, scales) = ref_mx(elem, data, cols);
    assert_eq!(codes_of(mx.values()), codes, "values, shape {shape:?}");
    assert_eq!(mx.scales().as_bytes(), scales.as_slice(), "scales");
    assert_eq!(mx.shape(), shape);
    let mut sshape = shape.to_vec();
    *sshape.last_mut().unwrap() = cols.div_ceil(32);
    assert_eq!(mx.scales().shape(), sshape.as_slice());

    // Dequantize: value * 2^shared, exactly; NaN scale gives NaN.
    let back = mx.dequantize();
    assert_eq!(back.len(), data.len());
    let blocks_per_row = cols.div_ceil(32);
    for (i, (&x, &y)) in data.iter().zip(&back).enumerate() {
        let (r, c) = (i / cols, i % cols);
        let s = scales[r * blocks_per_row + c / 32];
        if s == 0xff {
            assert!(y.is_nan());
            continue;
        }
        let scale = 2f64.powi(s as i32 - 127);
        let want = elem.value(codes[i]) * scale;
        assert_eq!(y as f64, want, "dequantized value {i}");
        // Error: at most half an element ulp at the block scale, except for
        // the clamp of the top binade.
        let a = x.abs() as f64 / scale;
        let err = (y as f64 - x as f64).abs();
        if a > elem.max() {
            assert_eq!(err, (a - elem.max()) * scale, "clamp at {i}");
        } else {
            assert!(
                err <= elem.ulp(a) / 2.0 * scale,
                "error {err:e} at {i}: x {x:e}, scale {scale:e}"
            );
        }
    }
}

fn check_nvfp4(data: &[f32], shape: &[usize], tensor_scale: Option<f32>) {
    let q = match tensor_scale {
        Some(s) => Nvfp4Array::quantize_with_tensor_scale(data, shape, s).unwrap(),
        None => Nvfp4Array::quantize(data, shape).unwrap(),
    };
    // Reference tensor scale: amax over finite values / 2688 in f32, 1 if 0.
    let st = tensor_scale.unwrap_or_else(|| {
        let amax = data
            .iter()
            .filter(|x| x.is_finite())
            .map(|x| x.abs())
            .fold(0.0f32, f32::max);
        let s = amax / 2688.0;
        if s > 0.0 { s } else { 1.0 }
    });
    assert_eq!(q.tensor_scale().to_bits(), st.to_bits());
    let cols = *shape.last().unwrap();
    let (codes, scales) = ref_nvfp4(data, cols, st);
    assert_eq!(codes_of(q.values()), codes, "values");
    assert_eq!(q.scales().as_bytes(), scales.as_slice(), "scales");
    let back = q.dequantize();
    let blocks_per_row = cols.div_ceil(16);
    for (i, (&x, &y)) in data.iter().zip(&back).enumerate() {
        let (r, c) = (i / cols, i % cols);
        let s = scales[r * blocks_per_row + c / 16];
        if s == 0x7f {
            assert!(y.is_nan());
            continue;
        }
        let d = FP8_E4M3.value(s as u32) * st as f64;
        let want = (FP4.value(codes[i]) * d) as f32;
        assert_eq!(y.to_bits(), want.to_bits(), "dequantized value {i}");
        if d > 0.0 {
            let a = x.abs() as f64 / d;
            let err = (FP4.value(codes[i]) * d - x as f64).abs();
            if a > 6.0 {
                // The clamp: the value is ±6 at this scale.
                assert_eq!(FP4.value(codes[i]).abs(), 6.0, "clamp at {i}");
            } else {
                assert!(err <= FP4.ulp(a) / 2.0 * d * (1.0 + 1e-12), "error at {i}");
            }
        }
    }
}

/// All five element formats, one shape.
fn check_all_mx(data: &[f32], shape: &[usize]) {
    check_mx::<E2M1>(FP4, data, shape);
    check_mx::<E2M3>(FP6_E2M3, data, shape);
    check_mx::<E3M2>(FP6_E3M2, data, shape);
    check_mx::<E4M3>(FP8_E4M3, data, shape);
    check_mx::<E5M2>(FP8_E5M2, data, shape);
}

#[test]
fn reference_agrees_with_the_element_types() {
    // The reference's element tables are independent; make sure they match
    // the crate's decoding before trusting the comparisons.
    for (elem, decode) in [
        (FP4, (|c| E2M1::from_bits(c).to_f32()) as fn(u8) -> f32),
        (FP6_E2M3, |c| E2M3::from_bits(c).to_f32()),
        (FP6_E3M2, |c| E3M2::from_bits(c).to_f32()),
        (FP8_E4M3, |c| E4M3::from_bits(c).to_f32()),
        (FP8_E5M2, |c| E5M2::from_bits(c).to_f32()),
    ] {
        for (c, v) in elem.magnitudes() {
            assert_eq!(decode(c as u8) as f64, v);
        }
    }
    assert_eq!(
        [
            FP4.emax(),
            FP6_E2M3.emax(),
            FP6_E3M2.emax(),
            FP8_E4M3.emax(),
            FP8_E5M2.emax()
        ],
        [E2M1::EMAX, E2M3::EMAX, E3M2::EMAX, E4M3::EMAX, E5M2::EMAX]
    );
    assert_eq!(
        [E2M1::EMAX, E3M2::EMAX, E4M3::EMAX, E5M2::EMAX],
        [2, 4, 8, 15]
    );
}

#[test]
fn edge_blocks() {
    let mut data = vec![0.0f32; 32]; // all zero: scale 2^-127
    data.extend([-0.0f32; 32]); // negative zeros keep their sign
    data.extend((0..32).map(|i| if i == 5 { f32::NAN } else { 1.0 }));
    data.extend((0..32).map(|i| if i == 9 { f32::NEG_INFINITY } else { 2.0 }));
    data.extend((0..32).map(|i| f32::MAX / (i + 1) as f32)); // huge amax
    data.extend((0..32).map(|i| f32::from_bits(i + 1))); // subnormal amax
    data.extend((0..32).map(|i| (i as f32 - 16.0) * 1e-39)); // tiny, clamps at -127
    data.extend((0..32).map(|i| 7.0 * (if i % 2 == 0 { 1.0 } else { -1.0 }))); // clips
    data.extend((0..32).map(|i| 2f32.powi(i - 16))); // 32 binades
    check_all_mx(&data, &[9, 32]);
    // The first rows' scales, spelled out.
    let mx = MxArray::<E2M1>::quantize(&data, &[9, 32]).unwrap();
    let s = mx.scales().as_bytes();
    assert_eq!(s[0], 0x00, "all-zero block: 2^(-126 - 2) clamps to 2^-127");
    assert_eq!(s[2], 0xff, "NaN block");
    assert_eq!(s[3], 0xff, "infinite block");
    assert_eq!(s[4], (127 - 2 + 127) as u8, "f32::MAX block");
    assert_eq!(mx.values().get(32).unwrap().to_bits(), 0x8, "-0 stays -0");
    let back = mx.dequantize();
    assert!(back[64..128].iter().all(|x| x.is_nan()));
    assert_eq!(back[7 * 32], 6.0, "7 clips to 6 at scale 1");
}

#[test]
fn tail_blocks_and_shapes() {
    let data: Vec<f32> = (0..3 * 37)
        .map(|i| ((i * 7919) % 1000) as f32 / 37.0 - 13.0)
        .collect();
    check_all_mx(&data, &[3, 37]);
    check_all_mx(&data, &[111]);
    check_all_mx(&data, &[3, 1, 37]);
    check_all_mx(&data[..5], &[5]);
    check_all_mx(&[], &[0]);
    check_all_mx(&[], &[2, 0]);
    let mx = MxArray::<E4M3>::quantize(&data, &[3, 1, 37]).unwrap();
    assert_eq!(mx.scales().shape(), [3, 1, 2]);
    check_nvfp4(&data, &[3, 37], None);
    check_nvfp4(&data, &[111], Some(0.01));
    check_nvfp4(&data[..5], &[5], None);
    check_nvfp4(&[], &[0], None);
}

#[test]
fn bad_shapes_are_errors() {
    let data = [1.0f32; 6];
    assert_eq!(
        MxArray::<E2M1>::quantize(&data, &[4, 2]).unwrap_err(),
        Error::Shape {
            elements: Some(8),
            len: 6
        }
    );
    assert_eq!(
        MxArray::<E2M1>::quantize(&data, &[usize::MAX, 2]).unwrap_err(),
        Error::Shape {
            elements: None,
            len: 6
        }
    );
    assert!(matches!(
        MxArray::<E2M1>::quantize(&data, &[]),
        Err(Error::Invalid(_))
    ));
    assert!(Nvfp4Array::quantize(&data, &[7]).is_err());
    for bad in [0.0, -1.0, f32::INFINITY, f32::NAN] {
        assert!(matches!(
            Nvfp4Array::quantize_with_tensor_scale(&data, &[6], bad),
            Err(Error::Invalid(_))
        ));
    }
    let mx = MxArray::<E2M1>::quantize(&data, &[6]).unwrap();
    let mut short = [0.0f32; 5];
    assert_eq!(
        mx.dequantize_into(&mut short).unwrap_err().to_string(),
        "the dequantize output holds 5 values, needs 6"
    );
    assert_eq!(
        mx.dequantize_into(&mut short).unwrap_err(),
        Error::Length {
            of: LengthOf::DequantizeOutput,
            expected: 6,
            actual: 5
        }
    );
    assert_eq!(short, [0.0; 5], "unchanged on error");
}

#[test]
fn from_parts_round_trips() {
    let data: Vec<f32> = (0..2 * 40).map(|i| (i as f32).sin() * 100.0).collect();
    let mx = MxArray::<E5M2>::quantize(&data, &[2, 40]).unwrap();
    let (values, scales) = mx.clone().into_parts();
    // Scales given flat: reshaped to the blocks' shape.
    let flat = NarrowArray::from_slice(&scales.to_vec());
    let again = MxArray::from_parts(values.clone(), flat).unwrap();
    assert_eq!(again.scales().shape(), [2, 2]);
    assert_eq!(
        again
            .dequantize()
            .iter()
            .map(|x| x.to_bits())
            .collect::<Vec<_>>(),
        mx.dequantize()
            .iter()
            .map(|x| x.to_bits())
            .collect::<Vec<_>>()
    );
    let too_few = NarrowArray::from_slice(&[E8M0::ONE; 3]);
    assert_eq!(
        MxArray::from_parts(values.clone(), too_few.clone())
            .unwrap_err()
            .to_string(),
        "MX needs one scale per 32-value block: 4 blocks, 3 scales"
    );
    assert_eq!(
        MxArray::from_parts(values, too_few).unwrap_err(),
        Error::Length {
            of: LengthOf::BlockScales {
                scheme: "MX",
                block: 32
            },
            expected: 4,
            actual: 3
        }
    );

    let q = Nvfp4Array::quantize(&data, &[2, 40]).unwrap();
    let again = Nvfp4Array::from_parts(
        q.values().clone(),
        NarrowArray::from_slice(&q.scales().to_vec()),
        q.tensor_scale(),
    )
    .unwrap();
    assert_eq!(again.scales().shape(), [2, 3]);
    assert_eq!(again.dequantize(), q.dequantize());
    assert!(Nvfp4Array::from_parts(q.values().clone(), q.scales().clone(), -1.0).is_err());
}

/// The tiled scale layout against a direct transcription of the block
/// rearrangement (view as tiles of 4 row-groups of 32 x 4, then interleave
/// the groups along the columns).
#[test]
fn swizzled_scales() {
    for (rows, cols) in [(1, 1), (3, 2), (128, 4), (129, 5), (300, 9), (0, 3), (5, 0)] {
        let scales: Vec<u8> = (0..rows * cols).map(|i| (i % 251 + 1) as u8).collect();
        let got = swizzle_scales(&scales, rows, cols).unwrap();
        let (rt, ct) = (rows.div_ceil(128), cols.div_ceil(4));
        let mut want = vec![0u8; rt * ct * 512];
        for tr in 0..rt {
            for tc in 0..ct {
                let tile = &mut want[(tr * ct + tc) * 512..][..512];
                // tile viewed as [32][16]: column group g holds rows g*32..g*32+32.
                for g in 0..4 {
                    for i in 0..32 {
                        for j in 0..4 {
                            let (r, c) = (tr * 128 + g * 32 + i, tc * 4 + j);
                            if r < rows && c < cols {
                                tile[i * 16 + g * 4 + j] = scales[r * cols + c];
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(got, want, "{rows} x {cols}");
        // Every scale appears exactly once; the rest is zero padding.
        assert_eq!(got.iter().filter(|&&b| b != 0).count(), rows * cols);
    }
    assert!(swizzle_scales(&[1, 2, 3], 2, 2).is_err());

    let data = vec![1.0f32; 130 * 64];
    let mx = MxArray::<E4M3>::quantize(&data, &[130, 64]).unwrap();
    assert_eq!(
        mx.scales_swizzled(),
        swizzle_scales(mx.scales().as_bytes(), 130, 2).unwrap()
    );
    let q = Nvfp4Array::quantize(&data, &[130, 64]).unwrap();
    assert_eq!(
        q.scales_swizzled(),
        swizzle_scales(q.scales().as_bytes(), 130, 4).unwrap()
    );
}

/// Random finite data with a per-row magnitude (so blocks have different
/// scales) and occasional exact zeros.
fn matrix() -> impl Strategy<Value = (Vec<f32>, usize, usize)> {
    (1usize..5, 1usize..80).prop_flat_map(|(rows, cols)| {
        let n = rows * cols;
        (
            proptest::collection::vec((any::<bool>(), -30i32..30, any::<u32>(), 0u8..20), n),
            Just(rows),
            Just(cols),
        )
            .prop_map(|(parts, rows, cols)| {
                let data = parts
                    .into_iter()
                    .enumerate()
                    .map(|(i, (neg, e, m, z))| {
                        if z == 0 {
                            return 0.0;
                        }
                        let row_exp = ((i / cols) as i32 * 17) % 40 - 20;
                        let field = (e + row_exp + 127).clamp(1, 254) as u32;
                        f32::from_bits(((neg as u32) << 31) | (field << 23) | (m & 0x7f_ffff))
                    })
                    .collect();
                (data, rows, cols)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn mx_random((data, rows, cols) in matrix()) {
        check_all_mx(&data, &[rows, cols]);
    }

    #[test]
    fn nvfp4_random((data, rows, cols) in matrix(), st in proptest::option::of(1e-6f32..1e3)) {
        check_nvfp4(&data, &[rows, cols], st);
    }

    #[test]
    fn mx_random_bits(bits in proptest::collection::vec(any::<u32>(), 1..100)) {
        // Any f32 at all, NaN and infinities included.
        let data: Vec<f32> = bits.into_iter().map(f32::from_bits).collect();
        check_all_mx(&data, &[data.len()]);
        check_nvfp4(&data, &[data.len()], None);
    }
}

#[test]
fn nvfp4_from_parts_names_the_scale_count() {
    let data: Vec<f32> = (0..40).map(|i| i as f32 * 0.25).collect();
    let q = Nvfp4Array::quantize(&data, &[40]).unwrap();
    let values = q.values().clone();
    let too_few = NarrowArray::from_slice(&[E4M3::ONE; 2]);
    let err = Nvfp4Array::from_parts(values, too_few, 1.0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "NVFP4 needs one scale per 16-value block: 3 blocks, 2 scales"
    );
    assert_eq!(
        err,
        Error::Length {
            of: LengthOf::BlockScales {
                scheme: "NVFP4",
                block: 16
            },
            expected: 3,
            actual: 2
        }
    );
}
// Scale rules, any axis, stochastic rounding and wide inputs.

use bitpack::formats::{FloatFormat, Mode, MxOptions, Rounding, ScaleRule, random_bits};

/// The shared exponent by search (no bit tricks): the four rules as their
/// formulas read.
fn ref_exponent(elem: Elem, amax: f64, rule: ScaleRule) -> Option<i32> {
    if amax == 0.0 {
        return Some(-127);
    }
    let emax = elem.emax();
    let ceil_log2 = |a: f64| {
        let mut k = floor_log2(a);
        if 2f64.powi(k) < a {
            k += 1;
        }
        k
    };
    let e = match rule {
        ScaleRule::Floor => floor_log2(amax) - emax,
        ScaleRule::Ceil => ceil_log2(amax) - emax,
        ScaleRule::Even => {
            let k = floor_log2(amax);
            let q = 2f64.powi(k - elem.m as i32);
            let r = ((amax / q) + 0.5).floor() * q;
            floor_log2(r) - emax
        }
        ScaleRule::RCeil => {
            // The smallest e with max * 2^e >= amax.
            let mut e = -1100;
            while elem.max() * 2f64.powi(e) < amax {
                e += 1;
            }
            e
        }
    };
    if e > 127 { None } else { Some(e.max(-127)) }
}

/// Stochastic rounding of `x` (finite) into `elem` with random bits `r`,
/// saturating: the documented rule on the two neighbouring values.
fn ref_sr(elem: Elem, x: f64, r: u32) -> u32 {
    let mags = elem.magnitudes();
    let sign = if x.is_sign_negative() {
        elem.sign_bit()
    } else {
        0
    };
    let a = x.abs();
    let (max_code, max) = *mags.last().unwrap();
    if a >= max {
        return sign | max_code;
    }
    let i = mags.iter().rposition(|&(_, v)| v <= a).unwrap();
    let ((lo_c, lo), (hi_c, hi)) = (mags[i], mags[i + 1]);
    let frac32 = ((a - lo) / (hi - lo) * 2f64.powi(32)).floor() as u64;
    sign | if frac32 + r as u64 >= 1 << 32 {
        hi_c
    } else {
        lo_c
    }
}

/// The reference quantizer for any axis, rule and rounding: codes
/// (row-major, like the data) and scale codes (row-major over the scale
/// shape).
fn ref_mx_opts(
    elem: Elem,
    data: &[f64],
    shape: &[usize],
    opts: &MxOptions,
) -> (Vec<u32>, Vec<u8>, Vec<usize>) {
    let axis = opts.axis.unwrap_or(shape.len() - 1);
    let outer: usize = shape[..axis].iter().product();
    let d = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let nb = d.div_ceil(32);
    let mut codes = vec![0u32; data.len()];
    let mut scales = vec![0u8; outer * nb * inner];
    for o in 0..outer {
        for b in 0..nb {
            for j in 0..inner {
                let idx: Vec<usize> = (b * 32..d.min(b * 32 + 32))
                    .map(|a| (o * d + a) * inner + j)
                    .collect();
                let s = &mut scales[(o * nb + b) * inner + j];
                if idx.iter().any(|&i| !data[i].is_finite()) {
                    *s = 0xff;
                    continue;
                }
                let amax = idx.iter().map(|&i| data[i].abs()).fold(0.0, f64::max);
                let Some(e) = ref_exponent(elem, amax, opts.scale) else {
                    *s = 0xff;
                    continue;
                };
                *s = (e + 127) as u8;
                for &i in &idx {
                    // Exact unless far below the element's range.
                    let v = data[i] / 2f64.powi(e);
                    codes[i] = match opts.rounding {
                        Rounding::Nearest => elem.round_sat(v),
                        Rounding::Stochastic { seed } => {
                            ref_sr(elem, v, random_bits(seed, i as u64))
                        }
                    };
                }
            }
        }
    }
    let mut sshape = shape.to_vec();
    sshape[axis] = nb;
    (codes, scales, sshape)
}

fn check_opts<F: MxElement>(elem: Elem, data: &[f64], shape: &[usize], opts: &MxOptions) {
    let (codes, scales, sshape) = ref_mx_opts(elem, data, shape, opts);
    let what = format!("{shape:?} {opts:?}");
    // f64 input.
    let mx = MxArray::<F>::quantize_with(data, shape, opts).unwrap();
    check_requantize(&mx, data, opts, &what);
    assert_eq!(mx.scales().as_bytes(), scales.as_slice(), "scales, {what}");
    assert_eq!(mx.scales().shape(), sshape.as_slice(), "{what}");
    assert_eq!(codes_of(mx.values()), codes, "values, {what}");
    assert_eq!(mx.axis(), opts.axis.unwrap_or(shape.len() - 1));
    // Dequantize: code value times its block's scale.
    let axis = mx.axis();
    let d = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let nb = d.div_ceil(32);
    let back = mx.dequantize();
    for (i, &y) in back.iter().enumerate() {
        let (o, a, j) = (i / (d * inner), (i / inner) % d, i % inner);
        let s = scales[(o * nb + a / 32) * inner + j];
        if s == 0xff {
            assert!(y.is_nan(), "{what}: {i}");
        } else {
            // Exact in f64, then rounded once to the f32 result (a code
            // near the top of its format times a scale of 2^127 overflows
            // to infinity).
            let want = elem.value(codes[i]) * 2f64.powi(s as i32 - 127);
            assert_eq!(y, want as f32, "{what}: dequantized {i}");
        }
    }
    // The same values as f32 (where exact) give the same bytes.
    if data.iter().all(|&x| (x as f32) as f64 == x || x.is_nan()) {
        let d32: Vec<f32> = data.iter().map(|&x| x as f32).collect();
        let m32 = MxArray::<F>::quantize_with(&d32, shape, opts).unwrap();
        check_requantize(&m32, &d32, opts, &what);
        assert_eq!(
            m32.values().as_bytes(),
            mx.values().as_bytes(),
            "f32, {what}"
        );
        assert_eq!(
            m32.scales().as_bytes(),
            mx.scales().as_bytes(),
            "f32, {what}"
        );
    }
}

/// `requantize` of `data` into an array quantized from other values (small
/// integers, both signs: nonzero codes nearly everywhere) gives the bytes
/// of `fresh`, the array quantized from `data`; and with the axis left out
/// of the options, too.
fn check_requantize<F: MxElement, S: bitpack::formats::Real>(
    fresh: &MxArray<F>,
    data: &[S],
    opts: &MxOptions,
    what: &str,
) {
    let other: Vec<f64> = (0..data.len())
        .map(|i| (i * 37 % 23) as f64 - 11.0)
        .collect();
    let keep_axis = MxOptions {
        axis: None,
        ..*opts
    };
    for given in [opts, &keep_axis] {
        let mut re = MxArray::<F>::quantize_with(&other, fresh.shape(), opts).unwrap();
        re.requantize(data, given).unwrap();
        assert_eq!(
            re.values().as_bytes(),
            fresh.values().as_bytes(),
            "requantize values, {what}, {given:?}"
        );
        assert_eq!(
            re.scales().as_bytes(),
            fresh.scales().as_bytes(),
            "requantize scales, {what}, {given:?}"
        );
        assert_eq!(re.axis(), fresh.axis());
    }
}

fn check_opts_all(data: &[f64], shape: &[usize], opts: &MxOptions) {
    check_opts::<E2M1>(FP4, data, shape, opts);
    check_opts::<E2M3>(FP6_E2M3, data, shape, opts);
    check_opts::<E3M2>(FP6_E3M2, data, shape, opts);
    check_opts::<E4M3>(FP8_E4M3, data, shape, opts);
    check_opts::<E5M2>(FP8_E5M2, data, shape, opts);
}

fn rule() -> impl Strategy<Value = ScaleRule> {
    prop_oneof![
        Just(ScaleRule::Floor),
        Just(ScaleRule::Ceil),
        Just(ScaleRule::Even),
        Just(ScaleRule::RCeil)
    ]
}

/// An N-d array (1 to 3 dimensions, extents up to 70) of values spread over
/// many binades, some exactly zero, with an axis.
fn nd() -> impl Strategy<Value = (Vec<f64>, Vec<usize>, usize)> {
    proptest::collection::vec(1usize..70, 1..4)
        .prop_filter("not too many values", |s| {
            s.iter().product::<usize>() <= 3000
        })
        .prop_flat_map(|shape| {
            let n: usize = shape.iter().product();
            let ndim = shape.len();
            (
                proptest::collection::vec((any::<bool>(), -40i32..40, any::<u64>(), 0u8..16), n),
                Just(shape),
                0..ndim,
            )
        })
        .prop_map(|(vals, shape, axis)| {
            let data = vals
                .into_iter()
                .map(|(neg, e, m, z)| {
                    if z == 0 {
                        return 0.0;
                    }
                    let x = f64::from_bits((((e + 1023) as u64) << 52) | (m >> 12));
                    if neg { -x } else { x }
                })
                .collect();
            (data, shape, axis)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn mx_rules_axes_rounding((data, shape, axis) in nd(), rule in rule(), seed in proptest::option::of(any::<u64>())) {
        let rounding = match seed {
            None => Rounding::Nearest,
            Some(seed) => Rounding::Stochastic { seed },
        };
        let opts = MxOptions { scale: rule, axis: Some(axis), rounding };
        check_opts_all(&data, &shape, &opts);
        // f32-exact data too (the f32 kernels).
        let d32: Vec<f64> = data.iter().map(|&x| x as f32 as f64).collect();
        check_opts_all(&d32, &shape, &opts);
    }

    #[test]
    fn mx_rules_on_any_f32(bits in proptest::collection::vec(any::<u32>(), 1..300), rule in rule(), rows in 1usize..3, seed in proptest::option::of(any::<u64>())) {
        // Any f32 (NaN, infinities and subnormals included) under every
        // scale rule, blocks along the rows, rounded to nearest or
        // stochastically: the f32 paths that scale whole chunks of blocks,
        // and their fallback where a block is not finite.
        let cols = bits.len().div_ceil(rows);
        let data: Vec<f64> = (0..rows * cols)
            .map(|i| f32::from_bits(bits[i % bits.len()]) as f64)
            .collect();
        let rounding = seed.map_or(Rounding::Nearest, |seed| Rounding::Stochastic { seed });
        let opts = MxOptions { scale: rule, axis: None, rounding };
        check_opts_all(&data, &[rows, cols], &opts);
    }
}

#[test]
fn scale_rules_by_example() {
    // (amax, [Floor, Ceil, Even, RCeil]) for E2M1 (emax 2, max 6, 1 mantissa bit).
    let cases: [(f32, [i32; 4]); 6] = [
        (7.0, [0, 1, 1, 1]),
        (6.5, [0, 1, 0, 1]),
        (6.0, [0, 1, 0, 0]),
        (4.0, [0, 0, 0, 0]),
        (3.0, [-1, 0, -1, -1]),
        (0.1, [-6, -5, -6, -5]),
    ];
    let rules = [
        ScaleRule::Floor,
        ScaleRule::Ceil,
        ScaleRule::Even,
        ScaleRule::RCeil,
    ];
    for (amax, want) in cases {
        for (rule, w) in rules.iter().zip(want) {
            let opts = MxOptions {
                scale: *rule,
                ..MxOptions::default()
            };
            let mx = MxArray::<E2M1>::quantize_with(&[amax, -amax / 4.0], &[2], &opts).unwrap();
            assert_eq!(
                mx.scales().get(0).unwrap().exponent(),
                Some(w),
                "{amax} {rule:?}"
            );
            assert_eq!(
                ref_exponent(FP4, amax as f64, *rule),
                Some(w),
                "{amax} {rule:?}"
            );
        }
    }
    // RCeil and Ceil never clamp: the block maximum over the scale fits the
    // element's range; Floor and Even may exceed it (460 > 448 at scale 1).
    for (rule, clamps) in [
        (ScaleRule::Floor, true),
        (ScaleRule::Even, true),
        (ScaleRule::Ceil, false),
        (ScaleRule::RCeil, false),
    ] {
        let opts = MxOptions {
            scale: rule,
            ..MxOptions::default()
        };
        let data = [460.0f32, 1.0, -3.0];
        let mx = MxArray::<E4M3>::quantize_with(&data, &[3], &opts).unwrap();
        let scale = mx.scales().get(0).unwrap().to_f32();
        assert_eq!(460.0 / scale > 448.0, clamps, "{rule:?}: scale {scale}");
        assert_eq!(mx.dequantize()[0] == 448.0 * scale, clamps, "{rule:?}");
    }
    // Zeros, huge f64 (a NaN scale) and f64 subnormals.
    let opts = MxOptions {
        scale: ScaleRule::Ceil,
        ..MxOptions::default()
    };
    let mx = MxArray::<E4M3>::quantize_with(&[0.0f64; 3], &[3], &opts).unwrap();
    assert_eq!(mx.scales().as_bytes(), [0]);
    let mx = MxArray::<E4M3>::quantize_with(&[1e300f64, 1.0], &[2], &opts).unwrap();
    assert_eq!(mx.scales().as_bytes(), [0xff]);
    assert!(mx.dequantize().iter().all(|v| v.is_nan()));
    let tiny = f64::from_bits(3);
    let mx = MxArray::<E4M3>::quantize_with(&[tiny], &[1], &opts).unwrap();
    assert_eq!(mx.scales().as_bytes(), [0]); // clamped at 2^-127
    assert_eq!(ref_exponent(FP8_E4M3, tiny, ScaleRule::Ceil), Some(-127));
}

#[test]
fn any_axis_errors_and_parts() {
    let data = [1.0f32; 6];
    let opts = MxOptions {
        axis: Some(2),
        ..MxOptions::default()
    };
    assert_eq!(
        MxArray::<E2M1>::quantize_with(&data, &[2, 3], &opts).unwrap_err(),
        Error::Axis { axis: 2, ndim: 2 }
    );
    assert!(MxArray::<E2M1>::quantize_with(&data, &[2, 2], &MxOptions::default()).is_err());
    // Along axis 0, then back from the parts.
    let data: Vec<f32> = (0..40 * 3).map(|i| (i as f32 - 60.0) * 0.3).collect();
    let opts = MxOptions {
        axis: Some(0),
        ..MxOptions::default()
    };
    let mx = MxArray::<E3M2>::quantize_with(&data, &[40, 3], &opts).unwrap();
    assert_eq!(mx.scales().shape(), [2, 3]);
    let back = mx.dequantize();
    let (v, s) = mx.into_parts();
    let again = MxArray::from_parts_along(v.clone(), s.clone(), 0).unwrap();
    assert_eq!(again.dequantize(), back);
    assert_eq!(
        MxArray::from_parts_along(v.clone(), s.clone(), 2).unwrap_err(),
        Error::Axis { axis: 2, ndim: 2 }
    );
    // The scales of axis 0 do not fit axis 1's block count.
    assert!(matches!(
        MxArray::from_parts_along(v, s, 1).unwrap_err(),
        Error::Length { .. }
    ));
}

/// Stochastic MX quantization is unbiased: the mean of many quantizations
/// (different seeds) of one block approaches the data.
#[test]
fn mx_stochastic_is_unbiased() {
    let data: Vec<f32> = (0..32).map(|i| 0.1 + i as f32 * 0.173).collect();
    let n = 2000;
    let mut sum = vec![0f64; 32];
    for seed in 0..n {
        let opts = MxOptions {
            rounding: Rounding::Stochastic { seed },
            ..MxOptions::default()
        };
        let mx = MxArray::<E2M1>::quantize_with(&data, &[32], &opts).unwrap();
        for (s, v) in sum.iter_mut().zip(mx.dequantize()) {
            *s += v as f64;
        }
    }
    // Scale 2^(2 - 2) = 1 (amax 5.46): quantum at most 2 (the [4, 6] binade).
    let scale = MxArray::<E2M1>::quantize(&data, &[32]).unwrap();
    assert_eq!(scale.scales().as_bytes(), [127]);
    for (i, (&x, s)) in data.iter().zip(&sum).enumerate() {
        let mean = s / n as f64;
        let q = if x >= 4.0 {
            2.0
        } else if x >= 2.0 {
            1.0
        } else {
            0.5
        };
        let tol = 6.0 * q / (2.0 * (n as f64).sqrt());
        assert!((mean - x as f64).abs() <= tol, "{i}: x {x}, mean {mean}");
    }
    // And the element rule is the documented one.
    let opts = MxOptions {
        rounding: Rounding::Stochastic { seed: 9 },
        ..MxOptions::default()
    };
    let mx = MxArray::<E2M1>::quantize_with(&data, &[32], &opts).unwrap();
    for (i, &x) in data.iter().enumerate() {
        let want =
            FloatFormat::E2M1.encode_f32_stochastic(x, Mode::SatFinite, random_bits(9, i as u64));
        assert_eq!(mx.values().get(i).unwrap().raw_bits() as u32, want, "{i}");
    }
}

// NVFP4 options: 16 x 16 tiles, tiny scales, stochastic rounding, f64 input.

use bitpack::formats::{Nvfp4Blocks, Nvfp4Options, TinyScale};

impl Elem {
    /// Round-to-nearest-even code of `a / unit` (`a >= 0` finite, `unit >
    /// 0`), saturating, by exact comparisons of `a` with the midpoints times
    /// `unit` (products of few bits, exact in `f64`): no division.
    fn round_scaled(&self, a: f64, unit: f64) -> u32 {
        let mags = self.magnitudes();
        let mut code = mags[0].0;
        for w in mags.windows(2) {
            let mid = (w[0].1 + w[1].1) / 2.0 * unit;
            let up = a > mid || (a == mid && w[0].0 % 2 == 1);
            if up {
                code = w[1].0;
            } else {
                break;
            }
        }
        code
    }
}

fn ref_nvfp4_opts(data: &[f64], shape: &[usize], opts: &Nvfp4Options) -> (Vec<u32>, Vec<u8>, f32) {
    let st = opts.tensor_scale.unwrap_or_else(|| {
        let amax = data
            .iter()
            .filter(|x| x.is_finite())
            .map(|x| x.abs())
            .fold(0.0f64, f64::max);
        let s = amax as f32 / 2688.0;
        if s > 0.0 { s } else { 1.0 }
    });
    let stf = st as f64;
    let cols = *shape.last().unwrap();
    let rows = data.len().checked_div(cols).unwrap_or(0);
    let mrows = if shape.len() >= 2 {
        shape[shape.len() - 2]
    } else {
        1
    };
    let tile = match opts.blocks {
        Nvfp4Blocks::Rows => 1,
        Nvfp4Blocks::Tiles16x16 => 16,
    };
    let nb = cols.div_ceil(16);
    let mut codes = vec![0u32; data.len()];
    let mut scales = vec![0u8; rows * nb];
    for r in 0..rows {
        // The tile this row belongs to: rows of the same matrix, 16 at a time.
        let m0 = r - r % mrows;
        let t0 = m0 + (r - m0) / tile * tile;
        let t1 = (t0 + tile).min(m0 + mrows);
        for b in 0..nb {
            let cs = b * 16..cols.min(b * 16 + 16);
            let block: Vec<f64> = (t0..t1)
                .flat_map(|rr| cs.clone().map(move |c| rr * cols + c))
                .map(|i| data[i])
                .collect();
            if block.iter().any(|x| !x.is_finite()) {
                scales[r * nb + b] = 0x7f;
                continue;
            }
            let amax = block.iter().map(|x| x.abs()).fold(0.0, f64::max);
            let mut s_code = FP8_E4M3.round_scaled(amax, 6.0 * stf);
            match opts.tiny {
                TinyScale::Flush => {}
                TinyScale::Smallest => s_code = s_code.max(1),
                TinyScale::MinNormal => s_code = s_code.max(8),
            }
            scales[r * nb + b] = s_code as u8;
            let d = FP8_E4M3.value(s_code) * stf;
            for c in cs {
                let i = r * cols + c;
                let x = data[i];
                let sign = if x.is_sign_negative() { 8 } else { 0 };
                codes[i] = if d == 0.0 {
                    sign
                } else {
                    match opts.rounding {
                        Rounding::Nearest => sign | FP4.round_scaled(x.abs(), d),
                        Rounding::Stochastic { seed } => {
                            ref_sr(FP4, x / d, random_bits(seed, i as u64))
                        }
                    }
                };
            }
        }
    }
    (codes, scales, st)
}

fn check_nvfp4_opts(data: &[f64], shape: &[usize], opts: &Nvfp4Options) {
    let (codes, scales, st) = ref_nvfp4_opts(data, shape, opts);
    let what = format!("{shape:?} {opts:?}");
    let q = Nvfp4Array::quantize_with(data, shape, opts).unwrap();
    check_nvfp4_requantize(&q, data, opts, &what);
    assert_eq!(q.tensor_scale().to_bits(), st.to_bits(), "{what}");
    assert_eq!(q.scales().as_bytes(), scales.as_slice(), "scales, {what}");
    assert_eq!(codes_of(q.values()), codes, "values, {what}");
    let cols = *shape.last().unwrap();
    let back = q.dequantize();
    for (i, &y) in back.iter().enumerate() {
        let s = scales[(i / cols) * cols.div_ceil(16) + (i % cols) / 16];
        if s == 0x7f {
            assert!(y.is_nan());
        } else {
            let want = (FP4.value(codes[i]) * FP8_E4M3.value(s as u32) * st as f64) as f32;
            assert_eq!(y.to_bits(), want.to_bits(), "{what}: {i}");
        }
    }
    if data.iter().all(|&x| (x as f32) as f64 == x || x.is_nan()) {
        let d32: Vec<f32> = data.iter().map(|&x| x as f32).collect();
        let q32 = Nvfp4Array::quantize_with(&d32, shape, opts).unwrap();
        check_nvfp4_requantize(&q32, &d32, opts, &what);
        assert_eq!(q32.values().as_bytes(), q.values().as_bytes(), "f32 {what}");
        assert_eq!(q32.scales().as_bytes(), q.scales().as_bytes(), "f32 {what}");
    }
}

/// `requantize` of `data` into an array quantized from other values (with
/// another tensor scale) gives `fresh`, the array quantized from `data`.
fn check_nvfp4_requantize<S: bitpack::formats::Real>(
    fresh: &Nvfp4Array,
    data: &[S],
    opts: &Nvfp4Options,
    what: &str,
) {
    let other: Vec<f32> = (0..data.len())
        .map(|i| (i % 7) as f32 * 0.75 - 2.0)
        .collect();
    let mut re = Nvfp4Array::quantize_with_tensor_scale(&other, fresh.shape(), 0.125).unwrap();
    re.requantize(data, opts).unwrap();
    assert_eq!(
        re.tensor_scale().to_bits(),
        fresh.tensor_scale().to_bits(),
        "{what}"
    );
    assert_eq!(
        re.values().as_bytes(),
        fresh.values().as_bytes(),
        "requantize values, {what}"
    );
    assert_eq!(
        re.scales().as_bytes(),
        fresh.scales().as_bytes(),
        "requantize scales, {what}"
    );
}

/// Matrices (optionally batched) with values over many binades, some tiny
/// blocks, and f64 values near E2M1 ties of their block.
fn nv_data() -> impl Strategy<Value = (Vec<f64>, Vec<usize>)> {
    (1usize..3, 1usize..40, 1usize..50, any::<bool>())
        .prop_flat_map(|(batch, r, c, wide)| {
            let n = batch * r * c;
            (
                proptest::collection::vec((any::<bool>(), -30i32..8, any::<u64>(), 0u8..20), n),
                Just(vec![batch, r, c]),
                Just(wide),
            )
        })
        .prop_map(|(vals, shape, wide)| {
            let data = vals
                .into_iter()
                .map(|(neg, e, m, z)| {
                    let x = match z {
                        0 => 0.0,
                        1 => 1e-12,
                        _ => f64::from_bits((((e + 1023) as u64) << 52) | (m >> 12)),
                    };
                    let x = if wide { x } else { x as f32 as f64 };
                    if neg { -x } else { x }
                })
                .collect();
            (data, shape)
        })
}

fn tiny() -> impl Strategy<Value = TinyScale> {
    prop_oneof![
        Just(TinyScale::Flush),
        Just(TinyScale::Smallest),
        Just(TinyScale::MinNormal)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn nvfp4_options((data, shape) in nv_data(), tiles in any::<bool>(), tiny in tiny(),
                     seed in proptest::option::of(any::<u64>()), st in proptest::option::of(1e-6f32..10.0)) {
        let opts = Nvfp4Options {
            blocks: if tiles { Nvfp4Blocks::Tiles16x16 } else { Nvfp4Blocks::Rows },
            tensor_scale: st,
            tiny,
            rounding: match seed { None => Rounding::Nearest, Some(seed) => Rounding::Stochastic { seed } },
        };
        check_nvfp4_opts(&data, &shape, &opts);
        // 2-d and 1-d views of the same data.
        let n = data.len();
        check_nvfp4_opts(&data, &[shape[0] * shape[1], shape[2]], &opts);
        check_nvfp4_opts(&data, &[n], &opts);
    }
}

#[test]
fn nvfp4_f64_rounds_once() {
    // Values a hair off an E2M1 tie at their block's scale: the exact
    // quotient decides, not an f64 quotient rounded onto the tie.
    let st = 1.0f32 / 3.0;
    let d = 448.0 * st as f64; // the block scale rounds to 448 (amax 6 * 448 * st)
    // Two blocks, each with the tensor maximum first (so both scales are
    // 448), then every midpoint and its neighbours.
    let mut data = vec![];
    for mids in [&[0.25, 0.75, 1.25, 1.75, 2.5][..], &[3.5, 5.0][..]] {
        data.push(6.0 * d);
        for m in mids {
            for k in [-1.0, 0.0, 1.0] {
                data.push(m * d * (1.0 + k * 2f64.powi(-50)));
            }
        }
    }
    data.resize(32, 0.0);
    let opts = Nvfp4Options {
        tensor_scale: Some(st),
        ..Nvfp4Options::default()
    };
    check_nvfp4_opts(&data, &[32], &opts);
    let q = Nvfp4Array::quantize_with(&data, &[32], &opts).unwrap();
    assert_eq!(q.scales().as_bytes(), [0x7e, 0x7e]); // 448
    let c = codes_of(q.values());
    // 0.25 - hair -> 0, tie -> 0 (even), + hair -> 0.5.
    assert_eq!(&c[1..4], [0, 0, 1]);
    // 0.75: tie goes up to 1.0 (code 2).
    assert_eq!(&c[4..7], [1, 2, 2]);
    // 3.5: tie goes up to 4 (code 6); 5.0: tie to 4 (code 6), above to 6.
    assert_eq!(&c[17..23], [5, 6, 6, 6, 6, 7]);
}

#[test]
fn nvfp4_tiny_scales_and_tiles() {
    // One block at the tensor max, one 2^-12 of it: its scale formula gives
    // 448 * 2^-12 = 0.109 (normal), one 2^-20 below: 2^-11.2 (rounds to 0).
    let mut data = vec![1.0f32; 16];
    data.extend([2f32.powi(-12); 16]);
    data.extend([2f32.powi(-20); 16]);
    let shape = [3, 16];
    let get = |tiny| {
        let opts = Nvfp4Options {
            tiny,
            ..Nvfp4Options::default()
        };
        Nvfp4Array::quantize_with(&data, &shape, &opts).unwrap()
    };
    let flush = get(TinyScale::Flush);
    assert_eq!(flush.scales().as_bytes()[2], 0);
    assert!(flush.dequantize()[32..].iter().all(|&v| v == 0.0));
    let smallest = get(TinyScale::Smallest);
    assert_eq!(smallest.scales().as_bytes()[2], 1); // 2^-9
    assert!(smallest.dequantize()[32..].iter().all(|&v| v > 0.0));
    let normal = get(TinyScale::MinNormal);
    assert_eq!(normal.scales().as_bytes()[2], 8); // 2^-6
    for q in [&flush, &smallest, &normal] {
        assert_eq!(q.scales().as_bytes()[..2], flush.scales().as_bytes()[..2]);
        assert_eq!(q.dequantize()[..16], [1.0; 16]);
    }
    // Tiles: a 20 x 20 matrix has tiles of 16 and 4 rows, 16 and 4 columns;
    // every row of a tile carries the tile's scale.
    let m: Vec<f32> = (0..400).map(|i| ((i / 20) * 20 + i % 20) as f32).collect();
    let opts = Nvfp4Options {
        blocks: Nvfp4Blocks::Tiles16x16,
        ..Nvfp4Options::default()
    };
    let q = Nvfp4Array::quantize_with(&m, &[20, 20], &opts).unwrap();
    let s = q.scales().as_bytes();
    assert_eq!(q.scales().shape(), [20, 2]);
    for r in 0..20 {
        let t = if r < 16 { 0 } else { 16 };
        assert_eq!(s[r * 2], s[t * 2], "row {r}");
        assert_eq!(s[r * 2 + 1], s[t * 2 + 1], "row {r}");
    }
    assert_ne!(s[0], s[32]);
    // Bad tensor scales are errors, whatever the input type.
    for bad in [0.0f32, -1.0, f32::NAN, f32::INFINITY] {
        let opts = Nvfp4Options {
            tensor_scale: Some(bad),
            ..Nvfp4Options::default()
        };
        assert!(matches!(
            Nvfp4Array::quantize_with(&[1.0f64], &[1], &opts),
            Err(Error::Invalid(_))
        ));
    }
    // f64 data beyond f32's range has no default tensor scale.
    assert!(Nvfp4Array::quantize_with(&[1e300f64], &[1], &Nvfp4Options::default()).is_err());
}

/// A shape with no columns and a huge row count holds no values: quantizing
/// it returns at once (it once looped over every row).
#[test]
fn nvfp4_zero_columns_with_huge_rows_returns_at_once() {
    for shape in [[1usize << 62, 0], [usize::MAX, 0]] {
        let q = Nvfp4Array::quantize(&[], &shape).unwrap();
        assert!(q.dequantize().is_empty());
        assert!(Nvfp4Array::quantize_with_tensor_scale(&[], &shape, 0.5).is_ok());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The one-pass path of `f32` data (blocks of 1 x 16, and the codes of
    /// 16 x 16 tiles) against the general path that `f64` input of the same
    /// values takes: the same bytes, for any bits (NaN, infinities,
    /// subnormals), every tiny-scale rule, a given or computed tensor scale.
    #[test]
    fn nvfp4_f32_rows_equal_the_general_path(
        bits in proptest::collection::vec(any::<u32>(), 1..700),
        scale in -40i32..40,
        rows in 1usize..40,
        tiny in tiny(),
        given in proptest::option::of(1e-6f32..1e3),
        tiles: bool,
    ) {
        let cols = bits.len().div_ceil(rows);
        let x: Vec<f32> = (0..rows * cols)
            .map(|i| {
                let b = bits[i % bits.len()];
                // Mostly finite values near 2^scale, some specials, some
                // raw bit patterns.
                const SPECIAL: [f32; 8] = [
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                    f32::NAN,
                    -0.0,
                    0.0,
                    f32::MAX,
                    -f32::MIN_POSITIVE,
                    1e-45,
                ];
                if b % 53 == 0 {
                    SPECIAL[(b >> 8) as usize % 8]
                } else if b % 7 == 0 {
                    f32::from_bits(b)
                } else {
                    (b as i32 as f32) * 2f32.powi(scale - 31)
                }
            })
            .collect();
        let x64: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
        let blocks = if tiles { Nvfp4Blocks::Tiles16x16 } else { Nvfp4Blocks::Rows };
        let opts = Nvfp4Options { tiny, tensor_scale: given, blocks, ..Nvfp4Options::default() };
        match (
            Nvfp4Array::quantize_with(&x, &[rows, cols], &opts),
            Nvfp4Array::quantize_with(&x64, &[rows, cols], &opts),
        ) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(a.tensor_scale().to_bits(), b.tensor_scale().to_bits());
                prop_assert_eq!(a.scales().as_bytes(), b.scales().as_bytes());
                prop_assert_eq!(a.values().as_bytes(), b.values().as_bytes());
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "f32 {:?} against f64 {:?}", a.is_ok(), b.is_ok()),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// NVFP4 rows of `f16` and `bf16` input (widened a chunk at a time into
    /// the one-pass path) against the general path that `f64` input of the
    /// same values takes: the same bytes, for any bits of the half type
    /// (NaN, infinities, subnormals), rows whose length is not a multiple
    /// of 16, rows and 16 x 16 tiles, every tiny-scale rule, a given or
    /// computed tensor scale.
    #[test]
    fn nvfp4_half_rows_equal_the_general_path(
        bits in proptest::collection::vec(any::<u16>(), 1..1100),
        rows in 1usize..40,
        tiny in tiny(),
        given in proptest::option::of(1e-6f32..1e3),
        tiles: bool,
    ) {
        let cols = bits.len().div_ceil(rows);
        let raw = |i: usize| bits[i % bits.len()];
        let h: Vec<half::f16> = (0..rows * cols).map(|i| half::f16::from_bits(raw(i))).collect();
        let b: Vec<half::bf16> = (0..rows * cols).map(|i| half::bf16::from_bits(raw(i))).collect();
        let blocks = if tiles { Nvfp4Blocks::Tiles16x16 } else { Nvfp4Blocks::Rows };
        let opts = Nvfp4Options { tiny, tensor_scale: given, blocks, ..Nvfp4Options::default() };
        let shape = [rows, cols];
        let h64: Vec<f64> = h.iter().map(|v| v.to_f64()).collect();
        let b64: Vec<f64> = b.iter().map(|v| v.to_f64()).collect();
        for (name, got, want) in [
            ("f16", Nvfp4Array::quantize_with(&h, &shape, &opts), Nvfp4Array::quantize_with(&h64, &shape, &opts)),
            ("bf16", Nvfp4Array::quantize_with(&b, &shape, &opts), Nvfp4Array::quantize_with(&b64, &shape, &opts)),
        ] {
            match (got, want) {
                (Ok(a), Ok(w)) => {
                    prop_assert_eq!(a.tensor_scale().to_bits(), w.tensor_scale().to_bits(), "{}", name);
                    prop_assert_eq!(a.scales().as_bytes(), w.scales().as_bytes(), "{}", name);
                    prop_assert_eq!(a.values().as_bytes(), w.values().as_bytes(), "{}", name);
                }
                (Err(a), Err(w)) => prop_assert_eq!(a.to_string(), w.to_string()),
                (a, w) => prop_assert!(false, "{} {:?} against f64 {:?}", name, a.is_ok(), w.is_ok()),
            }
        }
    }
}

/// MX quantize of `f16` or `bf16` input: the same bytes as the same values
/// as `f32` (the widening is exact), for one format.
fn check_half_inputs<F: MxElement>(x: &[f32], shape: &[usize], opts: &MxOptions) {
    let h: Vec<half::f16> = x.iter().map(|&v| half::f16::from_f32(v)).collect();
    let b: Vec<half::bf16> = x.iter().map(|&v| half::bf16::from_f32(v)).collect();
    let h32: Vec<f32> = h.iter().map(|v| v.to_f32()).collect();
    let b32: Vec<f32> = b.iter().map(|v| v.to_f32()).collect();
    for (what, got, want) in [
        (
            "f16",
            MxArray::<F>::quantize_with(&h, shape, opts),
            MxArray::<F>::quantize_with(&h32, shape, opts),
        ),
        (
            "bf16",
            MxArray::<F>::quantize_with(&b, shape, opts),
            MxArray::<F>::quantize_with(&b32, shape, opts),
        ),
    ] {
        let (got, want) = (got.unwrap(), want.unwrap());
        assert_eq!(
            got.scales().as_bytes(),
            want.scales().as_bytes(),
            "{what} scales, {opts:?}"
        );
        assert_eq!(
            got.values().as_bytes(),
            want.values().as_bytes(),
            "{what} codes, {opts:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// `f16` and `bf16` inputs take the `f32` chunk path after an exact
    /// widening: the bytes equal those of the widened values, under every
    /// rule and on both axes, specials included.
    #[test]
    fn mx_half_inputs_equal_their_f32_values(
        bits in proptest::collection::vec(any::<u32>(), 1..600),
        scale in -20i32..20,
        rows in 1usize..4,
        rule in rule(),
        last_axis in any::<bool>(),
    ) {
        let cols = bits.len().div_ceil(rows);
        let x: Vec<f32> = (0..rows * cols)
            .map(|i| {
                let b = bits[i % bits.len()];
                match b % 41 {
                    0 => f32::INFINITY,
                    1 => f32::NAN,
                    2 => -0.0,
                    _ => (b as i32 as f32) * 2f32.powi(scale - 31),
                }
            })
            .collect();
        let axis = if last_axis { None } else { Some(0) };
        let opts = MxOptions { scale: rule, axis, rounding: Rounding::Nearest };
        let shape = [rows, cols];
        check_half_inputs::<E2M1>(&x, &shape, &opts);
        check_half_inputs::<E2M3>(&x, &shape, &opts);
        check_half_inputs::<E3M2>(&x, &shape, &opts);
        check_half_inputs::<E4M3>(&x, &shape, &opts);
        check_half_inputs::<E5M2>(&x, &shape, &opts);
    }
}

#[test]
fn requantize_errors_leave_the_array() {
    let data: Vec<f32> = (0..64).map(|i| i as f32 - 20.0).collect();
    let mut mx = MxArray::<E4M3>::quantize(&data, &[2, 32]).unwrap();
    let (values, scales) = (mx.values().clone(), mx.scales().clone());
    let other = vec![1.0f32; 64];
    let e = mx
        .requantize(&other[..63], &MxOptions::default())
        .unwrap_err();
    assert_eq!(
        e,
        Error::Length {
            of: LengthOf::QuantizeInput,
            expected: 64,
            actual: 63
        }
    );
    assert_eq!(e.to_string(), "requantize got 63 values for an array of 64");
    let e = mx
        .requantize(&vec![1.0f64; 65], &MxOptions::default())
        .unwrap_err();
    assert_eq!(e.to_string(), "requantize got 65 values for an array of 64");
    // Another axis than the array's: refused, not silently used.
    let axis0 = MxOptions {
        axis: Some(0),
        ..MxOptions::default()
    };
    assert!(matches!(
        mx.requantize(&other, &axis0),
        Err(Error::Invalid(_))
    ));
    assert_eq!(mx.values(), &values, "unchanged on error");
    assert_eq!(mx.scales(), &scales, "unchanged on error");
    // The array's own axis, named: accepted.
    let mut along0 = MxArray::<E4M3>::quantize_with(&data, &[32, 2], &axis0).unwrap();
    along0.requantize(&other, &axis0).unwrap();
    assert_eq!(along0.scales().as_bytes(), [119; 2]); // 2^-8 for amax 1
    assert_eq!(along0.dequantize(), other);

    let mut nv = Nvfp4Array::quantize(&data, &[4, 16]).unwrap();
    let (values, scales, ts) = (nv.values().clone(), nv.scales().clone(), nv.tensor_scale());
    let opts = Nvfp4Options::default();
    let e = nv.requantize(&other[..10], &opts).unwrap_err();
    assert_eq!(e.to_string(), "requantize got 10 values for an array of 64");
    // No finite value: no default tensor scale.
    assert!(matches!(
        nv.requantize(&[f32::NAN; 64], &opts),
        Err(Error::Invalid(_))
    ));
    // A given tensor scale that is not finite and positive.
    for bad in [0.0, -1.0, f32::INFINITY, f32::NAN] {
        let given = Nvfp4Options {
            tensor_scale: Some(bad),
            ..Nvfp4Options::default()
        };
        assert!(matches!(
            nv.requantize(&other, &given),
            Err(Error::Invalid(_))
        ));
    }
    assert_eq!(nv.values(), &values, "unchanged on error");
    assert_eq!(nv.scales(), &scales, "unchanged on error");
    assert_eq!(nv.tensor_scale(), ts, "unchanged on error");
}
