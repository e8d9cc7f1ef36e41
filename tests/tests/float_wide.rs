//! The bulk paths from and to `f64`, `f16` and `bf16`, the E8M0 kernels,
//! and stochastic rounding, against the crate's scalar rounding routine
//! (itself checked against the reference vectors and an independent model)
//! and against a model of stochastic rounding written here.

use bitpack::LengthOf;
use bitpack::formats::{
    E2M1, E2M3, E3M2, E3M4, E4M3, E4M3B11Fnuz, E4M3Fnuz, E4M3Ieee, E5M2, E5M2Fnuz, E8M0, Encoder,
    FloatFormat, MiniFloat, Mode, Real, decode_as, decode_into_as, decode_packed_as,
    decode_slice_as, decode_unpacked_as, random_bits,
};
use bitpack::{BitElement, Error, NarrowArray};
use half::{bf16, f16};
use proptest::prelude::*;

const MODES: [Mode; 2] = [Mode::Nearest, Mode::SatFinite];

/// The scalar routine's code for one value of any source type.
trait Scalar: Real + core::fmt::Debug {
    fn routine(self, f: &FloatFormat, mode: Mode) -> u32;
    fn as_f64(self) -> f64;
}

impl Scalar for f32 {
    fn routine(self, f: &FloatFormat, mode: Mode) -> u32 {
        f.encode_f32(self, mode)
    }
    fn as_f64(self) -> f64 {
        self as f64
    }
}

impl Scalar for f64 {
    fn routine(self, f: &FloatFormat, mode: Mode) -> u32 {
        f.encode_f64(self, mode)
    }
    fn as_f64(self) -> f64 {
        self
    }
}

impl Scalar for f16 {
    fn routine(self, f: &FloatFormat, mode: Mode) -> u32 {
        f.encode_f16(self, mode)
    }
    fn as_f64(self) -> f64 {
        self.to_f64()
    }
}

impl Scalar for bf16 {
    fn routine(self, f: &FloatFormat, mode: Mode) -> u32 {
        f.encode_bf16(self, mode)
    }
    fn as_f64(self) -> f64 {
        self.to_f64()
    }
}

/// Every bulk encode of `src` (array, slice, packed bytes, into an existing
/// array) equals the routine, element by element, in both modes.
fn bulk_matches<F: MiniFloat + core::fmt::Debug, S: Scalar>(src: &[S]) {
    let fmt = F::FORMAT;
    for mode in MODES {
        let want: Vec<u8> = src.iter().map(|&x| x.routine(&fmt, mode) as u8).collect();
        let e = Encoder::new(mode);
        let a = e.array::<F, S>(src);
        let got: Vec<u8> = a.iter().map(|c| c.raw_bits()).collect();
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g,
                w,
                "{:?} {mode:?}: element {i} = {:?} ({:e})",
                fmt.name(),
                src[i],
                src[i].as_f64()
            );
        }
        let mut slice = vec![F::from_raw_bits(0); src.len()];
        e.slice(src, &mut slice).unwrap();
        assert!(slice.iter().zip(&want).all(|(s, &w)| s.raw_bits() == w));
        let mut codes = vec![0xa5u8; src.len()];
        e.unpacked::<F, S>(src, &mut codes).unwrap();
        assert_eq!(codes, want, "{:?} {mode:?}: unpacked codes", fmt.name());
        let (mut from_codes, mut from_slice) = (vec![0f64; src.len()], vec![0f64; src.len()]);
        decode_unpacked_as::<F, f64>(&codes, &mut from_codes).unwrap();
        decode_slice_as::<F, f64>(&slice, &mut from_slice).unwrap();
        assert!(
            from_codes
                .iter()
                .zip(&from_slice)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{:?}: decode_unpacked_as differs from decode_slice_as",
            fmt.name()
        );
        let expect_bytes = NarrowArray::<F>::from_slice(&slice);
        let mut bytes = vec![0xa5u8; expect_bytes.as_bytes().len() + 3];
        e.packed::<F, S>(src, &mut bytes).unwrap();
        let n = expect_bytes.as_bytes().len();
        assert_eq!(&bytes[..n], expect_bytes.as_bytes());
        assert_eq!(&bytes[n..], [0xa5; 3], "bytes past the stream are left");
        let mut into = NarrowArray::<F>::from_slice(&vec![F::from_raw_bits(0xff); src.len()]);
        e.array_into(src, &mut into).unwrap();
        assert_eq!(into.as_bytes(), expect_bytes.as_bytes());
        assert_eq!(a.as_bytes(), expect_bytes.as_bytes());
    }
}

macro_rules! for_formats {
    ($f:ident, $($arg:expr),*) => {
        $f::<E2M1, _>($($arg),*);
        $f::<E2M3, _>($($arg),*);
        $f::<E3M2, _>($($arg),*);
        $f::<E4M3, _>($($arg),*);
        $f::<E5M2, _>($($arg),*);
        $f::<E8M0, _>($($arg),*);
        $f::<E4M3Ieee, _>($($arg),*);
        $f::<E3M4, _>($($arg),*);
        $f::<E4M3Fnuz, _>($($arg),*);
        $f::<E5M2Fnuz, _>($($arg),*);
        $f::<E4M3B11Fnuz, _>($($arg),*);
    };
}

macro_rules! for_formats_sr {
    ($($arg:expr),*) => {
        sr_matches::<E2M1>($($arg),*);
        sr_matches::<E2M3>($($arg),*);
        sr_matches::<E3M2>($($arg),*);
        sr_matches::<E4M3>($($arg),*);
        sr_matches::<E5M2>($($arg),*);
        sr_matches::<E8M0>($($arg),*);
        sr_matches::<E4M3Ieee>($($arg),*);
        sr_matches::<E3M4>($($arg),*);
        sr_matches::<E4M3Fnuz>($($arg),*);
        sr_matches::<E5M2Fnuz>($($arg),*);
        sr_matches::<E4M3B11Fnuz>($($arg),*);
    };
}

/// Every `f16` and every `bf16` bit pattern, in every format.
#[test]
fn every_f16_and_bf16_input() {
    let h: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
    let b: Vec<bf16> = (0..=u16::MAX).map(bf16::from_bits).collect();
    for_formats!(bulk_matches, &h);
    for_formats!(bulk_matches, &b);
}

/// `f64` inputs near every format's values and ties, where an `f32` detour
/// would round twice.
fn f64_inputs() -> impl Strategy<Value = Vec<f64>> {
    let one = prop_oneof![
        // Near the ties of every format: k/2^s offsets of small dyadics.
        (
            any::<bool>(),
            1u32..2048,
            -20i32..20,
            -60i32..-25,
            -3i64..=3
        )
            .prop_map(|(neg, m, e, s, k)| {
                let x = m as f64 * 2f64.powi(e - 6) * (1.0 + k as f64 * 2f64.powi(s));
                if neg { -x } else { x }
            }),
        any::<u64>().prop_map(f64::from_bits),
        (any::<bool>(), -140i32..140, any::<u64>()).prop_map(|(neg, e, m)| {
            let bits = (((e + 1023) as u64) << 52) | (m >> 12) | ((neg as u64) << 63);
            f64::from_bits(bits)
        }),
    ];
    proptest::collection::vec(one, 1..700)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn f64_bulk_rounds_once(src in f64_inputs()) {
        for_formats!(bulk_matches, &src);
    }

    #[test]
    fn f32_bulk_matches(bits in proptest::collection::vec(any::<u32>(), 1..700)) {
        let src: Vec<f32> = bits.into_iter().map(f32::from_bits).collect();
        for_formats!(bulk_matches, &src);
    }
}

/// The E8M0 kernels against the routine: a sweep over the whole `f32`
/// range (every 509th bit pattern, both signs, plus every special class),
/// both modes, and every code decoded bit for bit.
#[test]
fn e8m0_kernels() {
    let mut src: Vec<f32> = (0..=u32::MAX / 509)
        .map(|k| f32::from_bits(k * 509))
        .collect();
    src.extend(
        [
            0.0f32,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::MAX,
            f32::MIN,
            2f32.powi(127),
            f32::from_bits(0x7f00_0001),
            1.5 * 2f32.powi(127),
            f32::from_bits(0x0040_0000),
            f32::from_bits(0x005f_ffff),
            f32::from_bits(0x0060_0000),
            f32::from_bits(0x0000_0001),
            1.5,
            3.0,
            0.75,
        ]
        .iter(),
    );
    let fmt = FloatFormat::E8M0;
    for mode in MODES {
        let a = Encoder::new(mode).array::<E8M0, f32>(&src);
        let old = bitpack::formats::encode::<E8M0>(&src, mode);
        assert_eq!(a.as_bytes(), old.as_bytes());
        for (i, (&x, got)) in src.iter().zip(a.as_bytes()).enumerate() {
            let want = fmt.encode_f32(x, mode) as u8;
            assert_eq!(*got, want, "{mode:?} {i}: {x:e} ({:#010x})", x.to_bits());
        }
    }
    let codes: Vec<E8M0> = (0..=255u8).map(E8M0::from_bits).collect();
    let packed = NarrowArray::from_slice(&codes);
    let out = bitpack::formats::decode(&packed);
    for (c, got) in out.iter().enumerate() {
        assert_eq!(
            got.to_bits(),
            fmt.decode_f32(c as u32).to_bits(),
            "code {c:#x}"
        );
    }
}

/// Decoding into every type, for every code of every format.
#[test]
fn decode_into_every_type() {
    fn check<F: MiniFloat, S: Real>(_: S) {
        let n = 1usize << F::BITS;
        let codes: Vec<F> = (0..n).map(|c| F::from_raw_bits(c as u8)).collect();
        let packed = NarrowArray::from_slice(&codes);
        let fmt = F::FORMAT;
        let f64s = decode_as::<F, f64>(&packed);
        let f32s = decode_as::<F, f32>(&packed);
        let h = decode_as::<F, f16>(&packed);
        let b = decode_as::<F, bf16>(&packed);
        for c in 0..n {
            let v = fmt.decode_f64(c as u32);
            if v.is_nan() {
                assert!(f64s[c].is_nan() && f32s[c].is_nan() && h[c].is_nan() && b[c].is_nan());
                continue;
            }
            assert_eq!(f64s[c].to_bits(), v.to_bits(), "{:?} {c:#x}", fmt.name());
            assert_eq!(f32s[c].to_bits(), (v as f32).to_bits());
            assert_eq!(b[c].to_f64().to_bits(), v.to_bits(), "bf16 is exact");
            assert_eq!(
                h[c].to_bits(),
                f16::from_f64(v).to_bits(),
                "f16 rounds once"
            );
        }
        // The slice and packed-stream forms agree.
        let mut s64 = vec![0f64; n];
        decode_slice_as(&codes, &mut s64).unwrap();
        let mut p64 = vec![0f64; n];
        decode_packed_as::<F, f64>(packed.as_bytes(), &mut p64).unwrap();
        let mut i64_ = vec![0f64; n];
        decode_into_as(&packed, &mut i64_).unwrap();
        for c in 0..n {
            for got in [s64[c], p64[c], i64_[c]] {
                assert!(got.to_bits() == f64s[c].to_bits() || (got.is_nan() && f64s[c].is_nan()));
            }
        }
    }
    macro_rules! all {
        ($($t:ty),*) => {$( check::<$t, f64>(0.0); )*};
    }
    all!(
        E2M1,
        E2M3,
        E3M2,
        E4M3,
        E5M2,
        E8M0,
        E4M3Ieee,
        E3M4,
        E4M3Fnuz,
        E5M2Fnuz,
        E4M3B11Fnuz
    );
}

#[test]
fn bad_lengths_change_nothing() {
    let e = Encoder::new(Mode::Nearest);
    let mut dst = [E4M3::ONE; 3];
    let err = e.slice(&[1.0f64, 2.0], &mut dst).unwrap_err();
    assert_eq!(
        err,
        Error::Length {
            of: LengthOf::EncodeInput,
            expected: 3,
            actual: 2
        }
    );
    assert!(dst.iter().all(|&x| x == E4M3::ONE));
    let mut bytes = [0x11u8; 2];
    let err = e
        .packed::<E2M3, f16>(&[f16::ONE; 3], &mut bytes)
        .unwrap_err();
    assert_eq!(
        err,
        Error::TooFewBytes {
            what: "Encoder::packed",
            values: 3,
            bits: 6,
            needed: 3,
            actual: 2
        }
    );
    assert_eq!(bytes, [0x11; 2]);
    let mut a = NarrowArray::<E2M1>::from_slice(&[E2M1::MAX; 3]);
    assert!(e.array_into(&[1.0f64; 4], &mut a).is_err());
    assert!(a.iter().all(|x| x == E2M1::MAX));
    let mut out = [7.0f64; 5];
    assert!(decode_packed_as::<E2M1, f64>(&[0, 0], &mut out).is_err());
    assert_eq!(out, [7.0; 5]);
    assert!(decode_slice_as::<E2M1, f64>(&[E2M1::ONE; 2], &mut out).is_err());
    assert!(decode_into_as(&a, &mut out).is_err());
    assert_eq!(out, [7.0; 5]);
}

// Stochastic rounding.

/// The model: the two neighbours of `|x|` among the format's finite
/// magnitudes, the fraction of the way from the lower one, and the
/// documented rule `floor(frac * 2^32) + r >= 2^32`. Inputs within the
/// finite range only; `None` for values the model leaves to the mode.
fn model_sr(fmt: &FloatFormat, x: f64, r: u32) -> Option<u32> {
    let sign = if x.is_sign_negative() && fmt.signed {
        1u32 << (fmt.exponent_bits + fmt.mantissa_bits)
    } else {
        0
    };
    let a = x.abs();
    let mut mags: Vec<(u32, f64)> = (0..=fmt.max_code())
        .map(|c| (c, fmt.decode_f64(c)))
        .filter(|(_, v)| v.is_finite())
        .collect();
    mags.sort_by(|p, q| p.1.partial_cmp(&q.1).unwrap());
    if !(a > 0.0 && a <= mags.last().unwrap().1 && a >= mags[0].1) || (x < 0.0 && !fmt.signed) {
        return None;
    }
    let i = mags.iter().rposition(|&(_, v)| v <= a).unwrap();
    if mags[i].1 == a {
        return Some(sign | mags[i].0);
    }
    let (lo, hi) = (mags[i], mags[i + 1]);
    // Exact: a and lo are close dyadics, hi - lo a power of two.
    let frac = (a - lo.1) / (hi.1 - lo.1);
    let frac32 = (frac * 2f64.powi(32)).floor() as u64;
    let c = if frac32 + r as u64 >= 1 << 32 {
        hi.0
    } else {
        lo.0
    };
    if c == 0 && matches!(fmt.specials, bitpack::formats::Specials::NegativeZeroNan) {
        return Some(0);
    }
    Some(sign | c)
}

fn sr_matches<F: MiniFloat>(x: f64, r: u32) {
    let fmt = F::FORMAT;
    let x32 = x as f32;
    for mode in MODES {
        if let Some(want) = model_sr(&fmt, x32 as f64, r) {
            assert_eq!(
                fmt.encode_f32_stochastic(x32, mode, r),
                want,
                "{:?} {x32:e} r={r:#x}",
                fmt.name()
            );
        }
        if let Some(want) = model_sr(&fmt, x, r) {
            assert_eq!(
                fmt.encode_f64_stochastic(x, mode, r),
                want,
                "{:?} f64 {x:e} r={r:#x}",
                fmt.name()
            );
        }
    }
}

fn in_range() -> impl Strategy<Value = f64> {
    (any::<bool>(), -16i32..16, any::<u64>()).prop_map(|(neg, e, m)| {
        let x = f64::from_bits((((e + 1023) as u64) << 52) | (m >> 12));
        if neg { -x } else { x }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn stochastic_rounding_matches_the_model(x in in_range(), r in any::<u32>()) {
        for_formats_sr!(x, r);
    }
}

/// The mean of many stochastic roundings of `x` is `x`: `n` draws, each a
/// Bernoulli step of one quantum `q`, so the mean's error has standard
/// deviation at most `q / (2 sqrt(n))`; allow six of those.
fn unbiased<F: MiniFloat>(x: f32, seed: u64) {
    let fmt = F::FORMAT;
    let n = 4096;
    let src = vec![x; n];
    let codes = Encoder::new(Mode::SatFinite)
        .stochastic(seed)
        .array::<F, f32>(&src);
    let vals = decode_as::<F, f64>(&codes);
    let mean = vals.iter().sum::<f64>() / n as f64;
    let c = fmt.encode_f32(x, Mode::SatFinite);
    let v = fmt.decode_f64(c);
    // The quantum around x: the gap between its neighbours.
    let (lo, hi) = {
        let mut m: Vec<f64> = (0..1u32 << fmt.bits())
            .map(|c| fmt.decode_f64(c))
            .filter(|v| v.is_finite())
            .collect();
        m.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let i = m.iter().rposition(|&w| w <= x as f64).unwrap_or(0);
        (m[i], m[(i + 1).min(m.len() - 1)])
    };
    let q = (hi - lo).max(f64::MIN_POSITIVE);
    let tol = 6.0 * q / (2.0 * (n as f64).sqrt());
    assert!(
        (mean - x as f64).abs() <= tol,
        "{:?}: x {x:e}, mean {mean:e}, nearest {v:e}, tol {tol:e}",
        fmt.name()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn stochastic_rounding_is_unbiased(m in 1u32..(1 << 23), e in -6i32..2, neg in any::<bool>(), seed in any::<u64>()) {
        let x = (1.0 + m as f32 / (1 << 23) as f32) * 2f32.powi(e);
        let x = if neg { -x } else { x };
        unbiased::<E2M1>(x, seed);
        unbiased::<E2M3>(x, seed);
        unbiased::<E3M2>(x, seed);
        unbiased::<E4M3>(x, seed);
        unbiased::<E5M2>(x, seed);
        unbiased::<E4M3Fnuz>(x, seed);
        unbiased::<E3M4>(x, seed);
        if !neg {
            unbiased::<E8M0>(x, seed);
        }
    }
}

/// Same seed, same bytes, through every entry point; element `i` uses
/// `random_bits(seed, i)`; a different seed changes them.
#[test]
fn stochastic_rounding_is_reproducible() {
    let src: Vec<f64> = (0..1500).map(|i| (i as f64 * 0.0137).sin() * 5.0).collect();
    let e = Encoder::new(Mode::Nearest).stochastic(0xdead_beef);
    let a = e.array::<E2M1, f64>(&src);
    assert_eq!(a.as_bytes(), e.array::<E2M1, f64>(&src).as_bytes());
    let mut bytes = vec![0u8; a.as_bytes().len()];
    e.packed::<E2M1, f64>(&src, &mut bytes).unwrap();
    assert_eq!(bytes, a.as_bytes());
    let mut slice = vec![E2M1::ZERO; src.len()];
    e.slice(&src, &mut slice).unwrap();
    for (i, &x) in src.iter().enumerate() {
        let want = FloatFormat::E2M1.encode_f64_stochastic(
            x,
            Mode::Nearest,
            random_bits(0xdead_beef, i as u64),
        ) as u8;
        assert_eq!(slice[i].raw_bits(), want, "{i}");
        assert_eq!(a.get(i).unwrap().raw_bits(), want, "{i}");
        assert_eq!(e.value::<E2M1, f64>(x, i as u64).raw_bits(), want);
    }
    // f32 input through the same rule.
    let s32: Vec<f32> = src.iter().map(|&x| x as f32).collect();
    let b = e.array::<E2M1, f32>(&s32);
    for (i, &x) in s32.iter().enumerate() {
        let want = FloatFormat::E2M1.encode_f32_stochastic(
            x,
            Mode::Nearest,
            random_bits(0xdead_beef, i as u64),
        ) as u8;
        assert_eq!(b.get(i).unwrap().raw_bits(), want);
    }
    let other = Encoder::new(Mode::Nearest)
        .stochastic(1)
        .array::<E2M1, f64>(&src);
    assert_ne!(other.as_bytes(), a.as_bytes());
    // The generator's published formula (SplitMix64), bit for bit.
    fn splitmix(seed: u64, i: u64) -> u32 {
        let mut z = seed.wrapping_add((i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 32) as u32
    }
    for (seed, i) in [(0u64, 0u64), (1, 2), (u64::MAX, 12345), (42, u64::MAX - 1)] {
        assert_eq!(random_bits(seed, i), splitmix(seed, i));
    }
    // SplitMix64 from state 0: the first output is 0xe220a8397b1dcdaf.
    assert_eq!(random_bits(0, 0), 0xe220_a839);
}

/// Stochastic rounding keeps the mode's overflow and special rules.
#[test]
fn stochastic_rounding_specials() {
    let f = FloatFormat::E4M3;
    for r in [0, 1 << 31, u32::MAX] {
        assert!(f.is_nan_code(f.encode_f32_stochastic(f32::NAN, Mode::Nearest, r)));
        assert_eq!(f.encode_f32_stochastic(1e9, Mode::SatFinite, r), 0x7e);
        assert!(f.is_nan_code(f.encode_f32_stochastic(1e9, Mode::Nearest, r)));
        assert_eq!(f.encode_f32_stochastic(-0.0, Mode::Nearest, r), 0x80);
    }
    // Between 448 and the next step: rounds up past the largest value only
    // with the random bits; then the mode decides.
    assert_eq!(f.encode_f32_stochastic(450.0, Mode::Nearest, 0), 0x7e);
    assert!(f.is_nan_code(f.encode_f32_stochastic(450.0, Mode::Nearest, u32::MAX)));
    assert_eq!(
        f.encode_f32_stochastic(450.0, Mode::SatFinite, u32::MAX),
        0x7e
    );
    // FNUZ: a tiny negative value that rounds down gives +0.
    let z = FloatFormat::E4M3_FNUZ;
    assert_eq!(z.encode_f32_stochastic(-1e-6, Mode::Nearest, 0), 0x00);
    assert_eq!(
        z.encode_f32_stochastic(-1e-6, Mode::Nearest, u32::MAX),
        0x81
    );
}

/// The README's example of the formats section.
#[test]
fn readme_example() {
    use bitpack::formats::{MxArray, MxOptions, ScaleRule};
    assert_eq!(
        FloatFormat::by_name("float8_e4m3fnuz"),
        Some(FloatFormat::E4M3_FNUZ)
    );
    let bytes = Encoder::new(Mode::Nearest)
        .stochastic(7)
        .array::<E2M1, f64>(&[0.3, -2.2]);
    assert_eq!(bytes.len(), 2);
    let opts = MxOptions {
        scale: ScaleRule::RCeil,
        axis: Some(0),
        ..MxOptions::default()
    };
    let mx = MxArray::<E2M1>::quantize_with(&[7.0f32, 1.0], &[2, 1], &opts).unwrap();
    assert_eq!(mx.dequantize(), [8.0, 1.0]);
}

/// One code per byte under stochastic rounding: the same random bits per
/// index as the one-value-per-element encode, across chunk boundaries.
fn unpacked_stochastic_matches_slice<F: MiniFloat, S: Scalar>(src: &[S], seed: u64) {
    let e = Encoder::new(Mode::Nearest).stochastic(seed);
    let mut slice = vec![F::from_raw_bits(0); src.len()];
    e.slice(src, &mut slice).unwrap();
    let mut codes = vec![0u8; src.len()];
    e.unpacked::<F, S>(src, &mut codes).unwrap();
    assert!(codes.iter().zip(&slice).all(|(&c, s)| c == s.raw_bits()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    #[test]
    fn unpacked_stochastic_is_the_slice_encode(
        src in proptest::collection::vec(-500.0f64..500.0, 0..3000),
        seed in any::<u64>(),
    ) {
        for_formats!(unpacked_stochastic_matches_slice, &src, seed);
    }
}

/// A byte with bits above the width is refused, naming it; lengths are
/// checked; nothing is written on either error.
#[test]
fn decode_unpacked_refuses_wide_bytes_and_bad_lengths() {
    fn check<F: MiniFloat>() {
        let mut out = [7.5f32; 4];
        if F::BITS < 8 {
            let bad = [0u8, 1, 1 << F::BITS, 2];
            assert_eq!(
                decode_unpacked_as::<F, f32>(&bad, &mut out),
                Err(Error::PaddedValue {
                    index: 2,
                    byte: 1 << F::BITS,
                    bits: F::BITS
                })
            );
            assert_eq!(out, [7.5; 4]);
        }
        assert!(matches!(
            decode_unpacked_as::<F, f32>(&[0u8; 3], &mut out),
            Err(Error::Length { .. })
        ));
        assert!(matches!(
            Encoder::new(Mode::Nearest).unpacked::<F, f32>(&[1.0; 3], &mut [0u8; 4]),
            Err(Error::Length { .. })
        ));
        assert_eq!(out, [7.5; 4]);
    }
    check::<E2M1>();
    check::<E2M3>();
    check::<E3M2>();
    check::<E4M3>();
    check::<E8M0>();
}
