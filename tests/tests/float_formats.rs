//! The float formats against an independent model written here with plain
//! `f64` arithmetic: decode from the bit fields, and round to nearest by
//! searching the sorted list of values. Exhaustive over every code, and
//! property-tested on random `f32`/`f64` inputs, including near-ties that
//! would expose double rounding.

use bitpack::BitElement;
use bitpack::formats::{
    E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, FloatFormat, MiniFloat, Mode, NanFallback, Overflow,
    Specials, Ties,
};
use bitpack::formats::{
    E3M4 as ShippedE3M4, E4M3B11Fnuz, E4M3Fnuz as ShippedE4M3Fnuz, E4M3Ieee, E5M2Fnuz,
};
use core::cmp::Ordering;
use proptest::prelude::*;

/// Which codes are special, in the model's own words.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// No infinity, no NaN.
    Finite,
    /// Top exponent: infinity (mantissa 0) and NaN.
    Ieee,
    /// The all-ones magnitude is NaN.
    AllOnes,
    /// The sign bit alone is NaN.
    Fnuz,
}

#[derive(Clone, Copy, PartialEq)]
enum Ovf {
    Sat,
    Inf,
    Nan,
}

/// A format, described independently of `FloatFormat`.
#[derive(Clone, Copy)]
struct Model {
    e: u32,
    m: u32,
    bias: i32,
    signed: bool,
    /// E8M0: exponent field 0 is normal; no zero.
    no_zero: bool,
    kind: Kind,
    ovf: Ovf,
    ties_away: bool,
}

/// What the model expects: a code, or any NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Want {
    Code(u32),
    Nan,
}

const E2M1_M: Model = Model {
    e: 2,
    m: 1,
    bias: 1,
    signed: true,
    no_zero: false,
    kind: Kind::Finite,
    ovf: Ovf::Sat,
    ties_away: false,
};
const E2M3_M: Model = Model {
    e: 2,
    m: 3,
    ..E2M1_M
};
const E3M2_M: Model = Model {
    e: 3,
    m: 2,
    bias: 3,
    ..E2M1_M
};
const E4M3_M: Model = Model {
    e: 4,
    m: 3,
    bias: 7,
    signed: true,
    no_zero: false,
    kind: Kind::AllOnes,
    ovf: Ovf::Nan,
    ties_away: false,
};
const E5M2_M: Model = Model {
    e: 5,
    m: 2,
    bias: 15,
    signed: true,
    no_zero: false,
    kind: Kind::Ieee,
    ovf: Ovf::Inf,
    ties_away: false,
};
const E8M0_M: Model = Model {
    e: 8,
    m: 0,
    bias: 127,
    signed: false,
    no_zero: true,
    kind: Kind::AllOnes,
    ovf: Ovf::Nan,
    ties_away: true,
};

impl Model {
    fn bits(&self) -> u32 {
        self.signed as u32 + self.e + self.m
    }

    fn sign_bit(&self) -> u32 {
        if self.signed {
            1 << (self.e + self.m)
        } else {
            0
        }
    }

    /// The value of a code; `None` for NaN.
    fn decode(&self, code: u32) -> Option<f64> {
        let mag = code & ((1 << (self.e + self.m)) - 1);
        let neg = code & self.sign_bit() != 0;
        let field = mag >> self.m;
        let man = mag & ((1 << self.m) - 1);
        let top = (1 << self.e) - 1;
        match self.kind {
            Kind::Ieee if field == top && man != 0 => return None,
            Kind::Ieee if field == top => {
                return Some(if neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                });
            }
            Kind::AllOnes if mag == (1 << (self.e + self.m)) - 1 => return None,
            Kind::Fnuz if neg && mag == 0 => return None,
            _ => {}
        }
        let frac = man as f64 / 2f64.powi(self.m as i32);
        let v = if field == 0 && !self.no_zero {
            frac * 2f64.powi(1 - self.bias)
        } else {
            (1.0 + frac) * 2f64.powi(field as i32 - self.bias)
        };
        Some(if neg { -v } else { v })
    }

    /// Positive finite magnitudes (zero included where it exists), ascending,
    /// with their codes.
    fn magnitudes(&self) -> Vec<(u32, f64)> {
        let mut out: Vec<(u32, f64)> = (0..1u32 << (self.e + self.m))
            .filter_map(|c| self.decode(c).map(|v| (c, v)))
            .filter(|(_, v)| v.is_finite())
            .collect();
        out.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap());
        // Codes are monotonic in value.
        assert!(out.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
        out
    }

    fn has_nan(&self) -> bool {
        self.kind != Kind::Finite
    }

    fn overflow(&self, neg: bool, sat: bool, max: u32) -> Want {
        let sign = if neg { self.sign_bit() } else { 0 };
        match (sat, self.ovf) {
            (true, _) | (false, Ovf::Sat) => Want::Code(sign | max),
            (false, Ovf::Inf) => Want::Code(sign | ((1 << self.e) - 1) << self.m),
            (false, Ovf::Nan) => Want::Nan,
        }
    }

    /// Round to nearest by search, with the reference library's special
    /// rules (`sat`: the PTX satfinite rule).
    fn round(&self, x: f64, sat: bool) -> Want {
        let mags = self.magnitudes();
        let (max_code, max) = *mags.last().unwrap();
        if x.is_nan() {
            return if self.has_nan() {
                Want::Nan
            } else if sat {
                Want::Code(max_code)
            } else if x.is_sign_negative() {
                Want::Code(0)
            } else {
                Want::Code(self.sign_bit())
            };
        }
        let neg = x.is_sign_negative();
        let a = x.abs();
        if !self.signed && neg {
            return if sat && a > max {
                Want::Code(max_code)
            } else {
                Want::Nan
            };
        }
        if self.no_zero && a == 0.0 {
            return Want::Nan;
        }
        let sign = if neg { self.sign_bit() } else { 0 };
        let with_sign = |c: u32| {
            if c == 0 && self.kind == Kind::Fnuz {
                Want::Code(0)
            } else {
                Want::Code(sign | c)
            }
        };
        if a >= max {
            // ulp of the top binade: the next value would be max + ulp.
            let ulp = 2f64.powi(max.log2().floor() as i32 - self.m as i32);
            let tie = max + ulp / 2.0;
            let up = a > tie || (a == tie && (self.ties_away || max_code % 2 == 1));
            return if up {
                self.overflow(neg, sat, max_code)
            } else {
                with_sign(max_code)
            };
        }
        let i = mags.iter().rposition(|&(_, v)| v <= a);
        let Some(i) = i else {
            // Below the smallest value of a format without zero.
            return with_sign(mags[0].0);
        };
        let (lo_c, lo) = mags[i];
        let (hi_c, hi) = mags[i + 1];
        let mid = (lo + hi) / 2.0;
        let tie_goes_up = self.ties_away || lo_c % 2 == 1;
        let c = if a < mid || (a == mid && !tie_goes_up) {
            lo_c
        } else {
            hi_c
        };
        with_sign(c)
    }
}

fn assert_want(model: &Model, got: u32, want: Want, what: &str) {
    match want {
        Want::Nan => assert!(
            model.decode(got).is_none(),
            "{what}: got {got:#x}, want NaN"
        ),
        Want::Code(c) => assert_eq!(got, c, "{what}: got {got:#x}, want {c:#x}"),
    }
}

/// Every code of `F`: decodes as the model says, reports NaN/finite/sign as
/// the model says, and (for non-NaN codes) encodes back to itself in both
/// modes and from `f32`, `f64`, `f16` (where exact) and `bf16`.
fn exhaustive<F: MiniFloat>(model: Model) {
    assert_eq!(F::BITS, model.bits());
    for code in 0..(1u32 << F::BITS) {
        let x = F::from_raw_bits(code as u8);
        assert_eq!(x.raw_bits() as u32, code);
        match model.decode(code) {
            None => {
                assert!(x.is_nan() && x.to_f32().is_nan() && x.to_f64().is_nan());
                assert!(!x.is_finite());
            }
            Some(v) => {
                assert!(!x.is_nan());
                assert_eq!(x.is_finite(), v.is_finite(), "{code:#x}");
                assert_eq!(x.to_f64().to_bits(), v.to_bits(), "{code:#x}");
                assert_eq!(x.to_f32() as f64, v, "{code:#x}");
                for got in [
                    F::from_f32(x.to_f32()),
                    F::from_f64(x.to_f64()),
                    F::from_f32_satfinite(x.to_f32()),
                    F::from_f64_satfinite(x.to_f64()),
                ] {
                    if v.is_finite() {
                        assert_eq!(got.raw_bits() as u32, code, "round trip of {code:#x}");
                    }
                }
                let fmt = F::FORMAT;
                let h = half::f16::from_f64(v);
                if h.to_f64() == v && v.is_finite() {
                    assert_eq!(fmt.encode_f16(h, Mode::Nearest), code, "f16 {code:#x}");
                }
                let b = half::bf16::from_f64(v);
                assert_eq!(b.to_f64(), v, "every value is a bf16");
                if v.is_finite() {
                    assert_eq!(fmt.encode_bf16(b, Mode::Nearest), code, "bf16 {code:#x}");
                }
            }
        }
    }
}

#[test]
fn every_code_e2m1() {
    exhaustive::<E2M1>(E2M1_M);
}

#[test]
fn every_code_e2m3() {
    exhaustive::<E2M3>(E2M3_M);
}

#[test]
fn every_code_e3m2() {
    exhaustive::<E3M2>(E3M2_M);
}

#[test]
fn every_code_e4m3() {
    exhaustive::<E4M3>(E4M3_M);
}

#[test]
fn every_code_e5m2() {
    exhaustive::<E5M2>(E5M2_M);
}

#[test]
fn every_code_e8m0() {
    exhaustive::<E8M0>(E8M0_M);
}

/// Every midpoint between neighbouring values (and its neighbours one f64
/// and one f32 ulp away) rounds as the model says, in both modes.
fn midpoints<F: MiniFloat>(model: Model) {
    let mags = model.magnitudes();
    for w in mags.windows(2) {
        let mid = (w[0].1 + w[1].1) / 2.0;
        let probes = [
            mid,
            next_down(mid),
            next_up(mid),
            (mid as f32) as f64,
            f32_next_down(mid as f32) as f64,
            f32_next_up(mid as f32) as f64,
        ];
        for p in probes {
            for x in [p, -p] {
                for (sat, mode) in [(false, Mode::Nearest), (true, Mode::SatFinite)] {
                    let want = model.round(x, sat);
                    let got = F::FORMAT.encode_f64(x, mode);
                    assert_want(&model, got, want, &format!("f64 {x:e} sat={sat}"));
                    if (x as f32) as f64 == x {
                        let got = F::FORMAT.encode_f32(x as f32, mode);
                        assert_want(&model, got, want, &format!("f32 {x:e} sat={sat}"));
                    }
                }
            }
        }
    }
}

fn next_up(x: f64) -> f64 {
    f64::from_bits(x.to_bits() + 1)
}

fn next_down(x: f64) -> f64 {
    f64::from_bits(x.to_bits() - 1)
}

fn f32_next_up(x: f32) -> f32 {
    f32::from_bits(x.to_bits() + 1)
}

fn f32_next_down(x: f32) -> f32 {
    f32::from_bits(x.to_bits() - 1)
}

#[test]
fn midpoints_all_formats() {
    midpoints::<E2M1>(E2M1_M);
    midpoints::<E2M3>(E2M3_M);
    midpoints::<E3M2>(E3M2_M);
    midpoints::<E4M3>(E4M3_M);
    midpoints::<E5M2>(E5M2_M);
    midpoints::<E8M0>(E8M0_M);
    midpoints::<E4M3Fnuz>(E4M3_FNUZ_M);
    midpoints::<E3M4>(E3M4_M);
}

// User-defined formats: the crate does not ship these; the same rounding
// routine must serve them.

#[derive(Clone, Copy, Debug, BitElement)]
#[repr(transparent)]
#[bitwidth(8)]
struct E4M3Fnuz(u8);

impl MiniFloat for E4M3Fnuz {
    const FORMAT: FloatFormat = FloatFormat {
        exponent_bits: 4,
        mantissa_bits: 3,
        bias: 8,
        signed: true,
        subnormals: true,
        specials: Specials::NegativeZeroNan,
        overflow: Overflow::Nan,
        ties: Ties::Even,
        nan_fallback: NanFallback::MaxPositive,
    };
}

const E4M3_FNUZ_M: Model = Model {
    e: 4,
    m: 3,
    bias: 8,
    signed: true,
    no_zero: false,
    kind: Kind::Fnuz,
    ovf: Ovf::Nan,
    ties_away: false,
};

/// `float8_e3m4`: IEEE-like, bias 3.
#[derive(Clone, Copy, Debug, BitElement)]
#[repr(transparent)]
#[bitwidth(8)]
struct E3M4(u8);

impl MiniFloat for E3M4 {
    const FORMAT: FloatFormat = FloatFormat::ieee(3, 4);
}

const E3M4_M: Model = Model {
    e: 3,
    m: 4,
    bias: 3,
    signed: true,
    no_zero: false,
    kind: Kind::Ieee,
    ovf: Ovf::Inf,
    ties_away: false,
};

/// A 5-bit unsigned format with no NaN: negative inputs give 0.
#[derive(Clone, Copy, Debug, BitElement)]
#[repr(transparent)]
#[bitwidth(5)]
struct UE3M2(u8);

impl MiniFloat for UE3M2 {
    const FORMAT: FloatFormat = FloatFormat {
        signed: false,
        ..FloatFormat::E3M2
    };
}

const E4M3_IEEE_M: Model = Model {
    kind: Kind::Ieee,
    ovf: Ovf::Inf,
    ..E4M3_M
};
const E5M2_FNUZ_M: Model = Model {
    e: 5,
    m: 2,
    bias: 16,
    ..E4M3_FNUZ_M
};
const E4M3B11_FNUZ_M: Model = Model {
    bias: 11,
    ..E4M3_FNUZ_M
};

#[test]
fn every_code_shipped_ieee_and_fnuz() {
    exhaustive::<E4M3Ieee>(E4M3_IEEE_M);
    exhaustive::<ShippedE3M4>(E3M4_M);
    exhaustive::<ShippedE4M3Fnuz>(E4M3_FNUZ_M);
    exhaustive::<E5M2Fnuz>(E5M2_FNUZ_M);
    exhaustive::<E4M3B11Fnuz>(E4M3B11_FNUZ_M);
    midpoints::<E4M3Ieee>(E4M3_IEEE_M);
    midpoints::<E5M2Fnuz>(E5M2_FNUZ_M);
    midpoints::<E4M3B11Fnuz>(E4M3B11_FNUZ_M);
    // The user-defined descriptions above are the shipped ones.
    assert_eq!(E4M3Fnuz::FORMAT, ShippedE4M3Fnuz::FORMAT);
    assert_eq!(E3M4::FORMAT, ShippedE3M4::FORMAT);
}

#[test]
fn every_code_user_formats() {
    exhaustive::<E4M3Fnuz>(E4M3_FNUZ_M);
    exhaustive::<E3M4>(E3M4_M);
    assert_eq!(E4M3Fnuz::from_f32(-0.0).raw_bits(), 0);
    assert_eq!(E4M3Fnuz::from_f32(-1e-9).raw_bits(), 0, "no negative zero");
    assert!(E4M3Fnuz::from_raw_bits(0x80).is_nan());
    assert_eq!(E4M3Fnuz::from_f32(240.0).raw_bits(), 0x7f);
    assert!(E4M3Fnuz::from_f32(f32::INFINITY).is_nan());
    assert_eq!(E3M4::from_f32(15.5).to_f32(), 15.5);
    assert_eq!(E3M4::from_f32(16.0).to_f32(), f32::INFINITY);
    // Unsigned, no NaN.
    assert_eq!(UE3M2::from_f32(-3.0).raw_bits(), 0);
    assert_eq!(UE3M2::from_f32(-0.0).raw_bits(), 0);
    assert_eq!(UE3M2::from_f32(3.0).to_f32(), 3.0);
    assert_eq!(UE3M2::from_f32(f32::NAN).raw_bits(), 0);
    assert_eq!(UE3M2::from_f32_satfinite(f32::NAN).to_f32(), 28.0);
    assert_eq!(UE3M2::from_f32_satfinite(-100.0).to_f32(), 28.0);
}

#[test]
fn invalid_formats_are_rejected() {
    let cases = [
        FloatFormat {
            exponent_bits: 0,
            ..FloatFormat::E2M1
        },
        FloatFormat {
            exponent_bits: 9,
            ..FloatFormat::E2M1
        },
        FloatFormat {
            mantissa_bits: 24,
            ..FloatFormat::E2M1
        },
        FloatFormat {
            mantissa_bits: 0,
            ..FloatFormat::E5M2
        },
        FloatFormat {
            signed: false,
            specials: Specials::NegativeZeroNan,
            ..FloatFormat::E4M3
        },
        FloatFormat {
            overflow: Overflow::Infinity,
            ..FloatFormat::E4M3
        },
        FloatFormat {
            overflow: Overflow::Nan,
            ..FloatFormat::E2M1
        },
        FloatFormat {
            bias: -1,
            ..FloatFormat::E8M0
        },
        FloatFormat {
            bias: 200,
            ..FloatFormat::E2M1
        },
        FloatFormat {
            exponent_bits: 8,
            mantissa_bits: 10,
            ..FloatFormat::F16
        },
    ];
    for f in cases {
        assert!(f.validate().is_err(), "{f:?}");
    }
    for f in [
        FloatFormat::E2M1,
        FloatFormat::E2M3,
        FloatFormat::E3M2,
        FloatFormat::E4M3,
        FloatFormat::E5M2,
        FloatFormat::E8M0,
        FloatFormat::F16,
        FloatFormat::BF16,
        E4M3Fnuz::FORMAT,
        E3M4::FORMAT,
    ] {
        assert_eq!(f.validate(), Ok(()), "{f:?}");
    }
}

/// The constants against the OCP table (interop.md section 3).
#[test]
fn constants() {
    assert_eq!(E2M1::MAX.to_f32(), 6.0);
    assert_eq!(E2M1::MIN.to_f32(), -6.0);
    assert_eq!(E2M1::MIN_POSITIVE.to_f32(), 1.0);
    assert_eq!(E2M1::MIN_POSITIVE_SUBNORMAL.to_f32(), 0.5);
    assert_eq!(E2M1::EPSILON.to_f32(), 0.5);
    assert_eq!(E2M1::ZERO.to_bits(), 0);
    assert_eq!(E2M1::ONE.to_bits(), 0x2);

    assert_eq!(E2M3::MAX.to_bits(), 0x1f);
    assert_eq!(E2M3::MAX.to_f32(), 7.5);
    assert_eq!(E2M3::MIN.to_f32(), -7.5);
    assert_eq!(E2M3::MIN_POSITIVE.to_bits(), 0x08);
    assert_eq!(E2M3::MIN_POSITIVE_SUBNORMAL.to_f32(), 0.125);
    assert_eq!(E2M3::EPSILON.to_f32(), 0.125);

    assert_eq!(E3M2::MAX.to_f32(), 28.0);
    assert_eq!(E3M2::MIN.to_f32(), -28.0);
    assert_eq!(E3M2::MIN_POSITIVE.to_bits(), 0x04);
    assert_eq!(E3M2::MIN_POSITIVE.to_f32(), 0.25);
    assert_eq!(E3M2::MIN_POSITIVE_SUBNORMAL.to_f32(), 0.0625);
    assert_eq!(E3M2::EPSILON.to_f32(), 0.25);

    assert_eq!(E4M3::MAX.to_bits(), 0x7e);
    assert_eq!(E4M3::MAX.to_f32(), 448.0);
    assert_eq!(E4M3::MIN.to_f32(), -448.0);
    assert_eq!(E4M3::MIN_POSITIVE.to_bits(), 0x08);
    assert_eq!(E4M3::MIN_POSITIVE.to_f32(), 2f32.powi(-6));
    assert_eq!(E4M3::MIN_POSITIVE_SUBNORMAL.to_f32(), 2f32.powi(-9));
    assert_eq!(E4M3::EPSILON.to_f32(), 0.125);
    assert!(E4M3::NAN.is_nan() && E4M3::NAN.to_bits() == 0x7f);

    assert_eq!(E5M2::MAX.to_bits(), 0x7b);
    assert_eq!(E5M2::MAX.to_f32(), 57344.0);
    assert_eq!(E5M2::MIN.to_f32(), -57344.0);
    assert_eq!(E5M2::MIN_POSITIVE.to_bits(), 0x04);
    assert_eq!(E5M2::MIN_POSITIVE_SUBNORMAL.to_f32(), 2f32.powi(-16));
    assert_eq!(E5M2::EPSILON.to_f32(), 0.25);
    assert_eq!(E5M2::INFINITY.to_f32(), f32::INFINITY);
    assert_eq!(E5M2::NEG_INFINITY.to_f32(), f32::NEG_INFINITY);
    assert!(E5M2::INFINITY.is_infinite() && !E5M2::INFINITY.is_finite());
    assert!(E5M2::NAN.is_nan());

    assert_eq!(E8M0::MAX.to_bits(), 0xfe);
    assert_eq!(E8M0::MAX.to_f64(), 2f64.powi(127));
    assert_eq!(E8M0::MIN_POSITIVE.to_bits(), 0x00);
    assert_eq!(E8M0::MIN.to_f32().to_bits(), 0x0040_0000);
    assert_eq!(E8M0::EPSILON.to_f32(), 1.0);
    assert_eq!(E8M0::ONE.to_bits(), 127);
    assert!(E8M0::NAN.is_nan());
    for k in -127..=127 {
        let s = E8M0::from_exponent(k).unwrap();
        assert_eq!(s.to_f64(), 2f64.powi(k));
        assert_eq!(s.exponent(), Some(k));
    }
    assert_eq!(E8M0::from_exponent(-128), None);
}

#[test]
fn comparisons_and_formatting() {
    // Value equality: +0 == -0, NaN != NaN.
    assert_eq!(E4M3::from_bits(0x00), E4M3::from_bits(0x80));
    assert_ne!(E4M3::NAN, E4M3::NAN);
    assert_eq!(E4M3::NAN.partial_cmp(&E4M3::ONE), None);
    assert!(E2M1::from_f32(-1.0) < E2M1::from_f32(0.5));
    assert!(E8M0::ONE > E8M0::MIN);
    // total_cmp over every pair agrees with the value order on non-NaN
    // codes and separates -0 from +0.
    fn check_total<F: MiniFloat + Copy>(total: fn(&F, &F) -> Ordering, neg: fn(F) -> bool) {
        let codes: Vec<F> = (0..1u32 << F::BITS)
            .map(|c| F::from_raw_bits(c as u8))
            .collect();
        for &a in &codes {
            for &b in &codes {
                let t = total(&a, &b);
                assert_eq!(t, total(&b, &a).reverse());
                if a.raw_bits() == b.raw_bits() {
                    assert_eq!(t, Ordering::Equal);
                    continue;
                }
                assert_ne!(t, Ordering::Equal);
                if !a.is_nan() && !b.is_nan() {
                    let (x, y) = (a.to_f64(), b.to_f64());
                    if x == y {
                        // Only the two zeros are equal values.
                        assert_eq!(
                            t,
                            if neg(a) {
                                Ordering::Less
                            } else {
                                Ordering::Greater
                            }
                        );
                    } else {
                        assert_eq!(Some(t), x.partial_cmp(&y));
                    }
                } else if a.is_nan() && !b.is_nan() {
                    let want = if neg(a) {
                        Ordering::Less
                    } else {
                        Ordering::Greater
                    };
                    assert_eq!(t, want);
                }
            }
        }
    }
    check_total::<E2M1>(E2M1::total_cmp, E2M1::is_sign_negative);
    check_total::<E2M3>(E2M3::total_cmp, E2M3::is_sign_negative);
    check_total::<E3M2>(E3M2::total_cmp, E3M2::is_sign_negative);
    check_total::<E4M3>(E4M3::total_cmp, E4M3::is_sign_negative);
    check_total::<E5M2>(E5M2::total_cmp, E5M2::is_sign_negative);
    check_total::<E8M0>(E8M0::total_cmp, E8M0::is_sign_negative);

    assert_eq!(format!("{}", E2M1::from_f32(-1.5)), "-1.5");
    assert_eq!(format!("{:?}", E4M3::MAX), "448.0");
    assert_eq!(format!("{:?}", E4M3::NAN), "NaN");
    assert_eq!(format!("{}", E5M2::NEG_INFINITY), "-inf");
    assert_eq!(format!("{:.2}", E2M3::from_f32(0.125)), "0.12");
    assert!(E2M1::from_bits(0x8).is_sign_negative());
    assert!(!E8M0::NAN.is_sign_negative());
}

#[test]
fn lossless_conversions() {
    for c in 0..=255u8 {
        let (a, b) = (E4M3::from_bits(c), E5M2::from_bits(c));
        if !a.is_nan() {
            assert_eq!(f32::from(a), a.to_f32());
            assert_eq!(half::f16::from(a).to_f32(), a.to_f32());
            assert_eq!(half::bf16::from(a).to_f32(), a.to_f32());
            assert_eq!(f64::from(a), a.to_f64());
        }
        if !b.is_nan() {
            assert_eq!(
                half::f16::from(b).to_bits(),
                (c as u16) << 8,
                "E5M2 is f16's top byte"
            );
            assert_eq!(half::bf16::from(b).to_f32(), b.to_f32());
        }
        let s = E8M0::from_bits(c);
        if !s.is_nan() {
            assert_eq!(half::bf16::from(s).to_f32(), s.to_f32());
            // f16 cannot hold most E8M0 values: rounding.
            assert_eq!(s.to_f16(), half::f16::from_f32(s.to_f32()));
        }
    }
    for c in 0..64u8 {
        for x in [E2M3::from_bits(c).to_f32(), E3M2::from_bits(c).to_f32()] {
            assert_eq!(half::f16::from_f32(x).to_f32(), x);
        }
        assert_eq!(f32::from(E2M3::from_bits(c)), E2M3::from_bits(c).to_f32());
        assert_eq!(
            half::f16::from(E3M2::from_bits(c)).to_f32(),
            E3M2::from_bits(c).to_f32()
        );
    }
    for c in 0..16u8 {
        assert_eq!(
            half::f16::from(E2M1::from_bits(c)).to_f32(),
            E2M1::from_bits(c).to_f32()
        );
    }
}

#[test]
fn bits_above_the_width_are_ignored() {
    for raw in 0..=255u8 {
        assert_eq!(E2M1::from_bits(raw).to_bits(), raw & 0xf);
        assert_eq!(E2M3::from_bits(raw).to_bits(), raw & 0x3f);
        assert_eq!(E3M2::from_raw_bits(raw).raw_bits(), raw & 0x3f);
        assert_eq!(E8M0::from_bits(raw).to_bits(), raw);
    }
}

/// Random `f32` whose exponent lies near the format's range (so that most
/// inputs are neither overflow nor underflow).
fn near_range(lo: i32, hi: i32) -> impl Strategy<Value = f32> {
    (any::<bool>(), lo..=hi, any::<u32>()).prop_map(|(neg, e, m)| {
        let field = (e + 127).clamp(0, 254) as u32;
        f32::from_bits(((neg as u32) << 31) | (field << 23) | (m & 0x7f_ffff))
    })
}

/// Random `f64` near the format's range, with all 52 mantissa bits.
fn near_range_f64(lo: i32, hi: i32) -> impl Strategy<Value = f64> {
    (any::<bool>(), lo..=hi, any::<u64>()).prop_map(|(neg, e, m)| {
        let field = (e + 1023) as u64;
        f64::from_bits(((neg as u64) << 63) | (field << 52) | (m & ((1 << 52) - 1)))
    })
}

/// A midpoint of two neighbouring values of the model, nudged by a tiny
/// relative amount (below an `f32` ulp, so an `f32` detour would land on the
/// tie).
fn near_tie(model: Model) -> impl Strategy<Value = f64> {
    let mags = model.magnitudes();
    let n = mags.len() - 1;
    (0..n, any::<bool>(), -4i32..=4, 30i32..60).prop_map(move |(i, neg, k, s)| {
        let mid = (mags[i].1 + mags[i + 1].1) / 2.0;
        let x = mid + mid * k as f64 * 2f64.powi(-s);
        if neg { -x } else { x }
    })
}

fn check_f32<F: MiniFloat>(model: Model, x: f32) {
    for (sat, mode) in [(false, Mode::Nearest), (true, Mode::SatFinite)] {
        let want = model.round(x as f64, sat);
        let got = match mode {
            Mode::Nearest => F::from_f32(x),
            Mode::SatFinite => F::from_f32_satfinite(x),
        };
        assert_want(
            &model,
            got.raw_bits() as u32,
            want,
            &format!("{x:e} ({:#x}) sat={sat}", x.to_bits()),
        );
    }
}

fn check_f64<F: MiniFloat>(model: Model, x: f64) {
    for (sat, mode) in [(false, Mode::Nearest), (true, Mode::SatFinite)] {
        let want = model.round(x, sat);
        let got = match mode {
            Mode::Nearest => F::from_f64(x),
            Mode::SatFinite => F::from_f64_satfinite(x),
        };
        assert_want(
            &model,
            got.raw_bits() as u32,
            want,
            &format!("f64 {x:e} sat={sat}"),
        );
    }
}

macro_rules! random_tests {
    ($($name:ident: $t:ty, $model:expr, $lo:expr, $hi:expr;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]
            $(
                #[test]
                fn $name(
                    bits in any::<u32>(),
                    near in near_range($lo, $hi),
                    wide in any::<u64>(),
                    near64 in near_range_f64($lo, $hi),
                    tie in near_tie($model),
                ) {
                    check_f32::<$t>($model, f32::from_bits(bits));
                    check_f32::<$t>($model, near);
                    check_f64::<$t>($model, f64::from_bits(wide));
                    check_f64::<$t>($model, near64);
                    check_f64::<$t>($model, tie);
                }
            )*
        }
    };
}

random_tests! {
    random_e2m1: E2M1, E2M1_M, -4, 5;
    random_e2m3: E2M3, E2M3_M, -5, 5;
    random_e3m2: E3M2, E3M2_M, -8, 7;
    random_e4m3: E4M3, E4M3_M, -13, 11;
    random_e5m2: E5M2, E5M2_M, -20, 18;
    random_e8m0: E8M0, E8M0_M, -130, 130;
    random_e4m3_fnuz: E4M3Fnuz, E4M3_FNUZ_M, -14, 10;
    random_e3m4: E3M4, E3M4_M, -10, 6;
    random_e4m3_ieee: E4M3Ieee, E4M3_IEEE_M, -13, 10;
    random_e5m2_fnuz: E5M2Fnuz, E5M2_FNUZ_M, -21, 18;
    random_e4m3b11_fnuz: E4M3B11Fnuz, E4M3B11_FNUZ_M, -17, 7;
}

// Layout traits: every format is one byte, `DeviceCopy` and `NoUninit`; the
// 8-bit formats accept any byte (`Pod`), the 4- and 6-bit ones do not (a
// byte with bits above the width set is not a value).
static_assertions::assert_eq_size!(E2M1, u8);
static_assertions::assert_eq_size!(E3M2, u8);
static_assertions::assert_eq_size!(E8M0, u8);
static_assertions::assert_impl_all!(E2M1: bitpack::DeviceCopy, bytemuck::NoUninit, bytemuck::Zeroable);
static_assertions::assert_impl_all!(E2M3: bitpack::DeviceCopy, bytemuck::NoUninit, bytemuck::Zeroable);
static_assertions::assert_impl_all!(E3M2: bitpack::DeviceCopy, bytemuck::NoUninit, bytemuck::Zeroable);
static_assertions::assert_impl_all!(E4M3: bitpack::DeviceCopy, bytemuck::Pod);
static_assertions::assert_impl_all!(E5M2: bitpack::DeviceCopy, bytemuck::Pod);
static_assertions::assert_impl_all!(E8M0: bitpack::DeviceCopy, bytemuck::Pod);
static_assertions::assert_not_impl_any!(E2M1: bytemuck::AnyBitPattern);
static_assertions::assert_not_impl_any!(E2M3: bytemuck::AnyBitPattern);
static_assertions::assert_not_impl_any!(E3M2: bytemuck::AnyBitPattern);

#[test]
fn byte_casts() {
    let codes: &[E4M3] = bytemuck::cast_slice(&[0x38u8, 0x7e, 0xff]);
    assert_eq!(codes[0].to_f32(), 1.0);
    assert_eq!(codes[1], E4M3::MAX);
    assert!(codes[2].is_nan());
    let fp4 = [E2M1::from_bits(0x3), E2M1::from_bits(0xf)];
    assert_eq!(bytemuck::cast_slice::<E2M1, u8>(&fp4), [0x3, 0xf]);
}
