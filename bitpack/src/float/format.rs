//! [`FloatFormat`], the description of a small binary float format: its
//! fields, special-value rules, the shipped formats' constants, and the
//! queries and exact decode built on them. The rounding routine that encodes
//! into every such format is in `round.rs`.

/// What a format does with the codes at the top of its exponent range.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{FloatFormat, Specials};
///
/// assert_eq!(FloatFormat::E2M1.specials, Specials::FiniteOnly);
/// assert_eq!(FloatFormat::E5M2.specials, Specials::Ieee);
/// assert_eq!(FloatFormat::E4M3.specials, Specials::AllOnesNan);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Specials {
    /// Every code is a finite number: no infinity, no NaN (FP4, FP6).
    FiniteOnly,
    /// IEEE 754: the all-ones exponent field holds the infinities (mantissa
    /// zero) and the NaNs (mantissa non-zero). E5M2, `f16`, `bf16`.
    Ieee,
    /// The all-ones magnitude (every exponent and mantissa bit set) is NaN,
    /// once per sign; every other code is finite. No infinities. E4M3
    /// (`e4m3fn`), E8M0.
    AllOnesNan,
    /// The negative-zero code (sign bit alone) is the only NaN; there is no
    /// negative zero and no infinity (the `fnuz` formats). Needs a sign bit.
    NegativeZeroNan,
}

/// What round-to-nearest does with a finite value beyond the largest finite
/// one, and with an infinite input.
///
/// A value overflows when rounding it to nearest (with the format's tie
/// rule, as if the exponent range were unbounded) gives a magnitude above
/// the largest finite one. [`Mode::SatFinite`](super::Mode::SatFinite) ignores this rule and always
/// clamps.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{FloatFormat, Mode, Overflow};
///
/// assert_eq!(FloatFormat::E4M3.overflow, Overflow::Nan);
/// // 464 is the tie between 448 (even code) and the NaN code: it stays 448.
/// assert_eq!(FloatFormat::E4M3.encode_f32(464.0, Mode::Nearest), 0x7e);
/// assert_eq!(FloatFormat::E4M3.encode_f32(465.0, Mode::Nearest), 0x7f);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Overflow {
    /// Clamp to the largest finite magnitude, keeping the sign (FP4, FP6).
    Saturate,
    /// Give infinity of the input's sign (E5M2, `f16`, `bf16`); needs
    /// [`Specials::Ieee`].
    Infinity,
    /// Give NaN (E4M3, E8M0); needs a NaN encoding.
    Nan,
}

/// How an exact tie between two neighbouring codes is broken.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{FloatFormat, Mode, Ties};
///
/// assert_eq!(FloatFormat::E2M1.ties, Ties::Even);
/// // 2.5 lies halfway between 2 (code 0x4, even) and 3 (0x5).
/// assert_eq!(FloatFormat::E2M1.encode_f32(2.5, Mode::Nearest), 0x4);
/// // E8M0 rounds ties away from zero: 1.5 lies halfway between 1 and 2.
/// assert_eq!(FloatFormat::E8M0.encode_f32(1.5, Mode::Nearest), 128);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ties {
    /// To the code whose last bit is zero (IEEE `roundTiesToEven`).
    Even,
    /// To the larger magnitude (`roundTiesToAway`).
    Away,
}

/// What round-to-nearest gives for a NaN input in a format that has no NaN.
///
/// [`Mode::SatFinite`](super::Mode::SatFinite) ignores this and gives the positive maximum, as PTX
/// does.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{FloatFormat, Mode};
///
/// // FP4 follows the reference library: NaN becomes zero of the opposite sign.
/// assert_eq!(FloatFormat::E2M1.encode_f32(f32::NAN, Mode::Nearest), 0x8);
/// assert_eq!(FloatFormat::E2M1.encode_f32(f32::NAN, Mode::SatFinite), 0x7);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NanFallback {
    /// A zero whose sign is the opposite of the NaN's (the behaviour of the
    /// ml_dtypes library, which ML frameworks use on the host).
    ZeroOppositeSign,
    /// Positive zero.
    Zero,
    /// The largest positive finite value (the PTX `.satfinite` rule).
    MaxPositive,
}

/// A binary floating-point format of at most 16 bits: field widths, bias and
/// special-value rules.
///
/// A code is laid out, from the most significant bit, as an optional sign
/// bit, `exponent_bits` exponent bits and `mantissa_bits` mantissa bits. An
/// exponent field `f` and mantissa `m` hold `2^(f - bias) * (1 + m /
/// 2^mantissa_bits)`; if [`subnormals`](Self::subnormals) is set, field 0
/// holds `2^(1 - bias) * m / 2^mantissa_bits` (zero and the subnormals).
///
/// The constants describe the formats the crate ships ([`E2M1`](Self::E2M1),
/// ..., [`E8M0`](Self::E8M0)) and IEEE `f16`/`bf16`. A format of your own is a
/// value of this struct: implement [`MiniFloat`](super::MiniFloat) with it as
/// `FORMAT` (the module docs show one, under *Your own format*) and every
/// conversion comes from the same routine. [`validate`](Self::validate) lists the constraints; a
/// `MiniFloat` with an invalid format fails to compile, and the methods of an
/// invalid `FloatFormat` value give unspecified codes (or panic on
/// arithmetic overflow).
///
/// # Examples
///
/// ```
/// use bitpack::formats::{FloatFormat, Mode};
///
/// let e4m3 = FloatFormat::E4M3;
/// assert_eq!(e4m3.bits(), 8);
/// assert_eq!(e4m3.decode_f32(0x7e), 448.0);
/// assert_eq!(e4m3.encode_f32(0.3, Mode::Nearest), 0x2a); // 0.3125
/// assert!(e4m3.is_nan_code(0xff));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatFormat {
    /// Width of the exponent field, 1..=8.
    pub exponent_bits: u32,
    /// Width of the mantissa (trailing significand) field, 0..=23.
    pub mantissa_bits: u32,
    /// The exponent bias.
    pub bias: i32,
    /// Whether the code has a sign bit (its top bit). An unsigned format
    /// encodes negative inputs as NaN (or its smallest value if it has no
    /// NaN) and `-0.0` as `+0`.
    pub signed: bool,
    /// `true`: exponent field 0 holds zero and the subnormals. `false`: field
    /// 0 is an ordinary binade, so the format has **no zero** (E8M0); zero
    /// encodes as NaN (or the smallest value if there is no NaN) and positive
    /// values below the smallest one round up to it.
    pub subnormals: bool,
    /// Infinity and NaN encodings.
    pub specials: Specials,
    /// The round-to-nearest overflow rule.
    pub overflow: Overflow,
    /// The tie rule.
    pub ties: Ties,
    /// Round-to-nearest result for NaN when the format has no NaN.
    pub nan_fallback: NanFallback,
}

/// `2^k` as an `f64`, for `-1022 <= k <= 1023`.
const fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// The rules of a signed family: its specials, its overflow and its NaN
/// fallback.
type FamilyRules = (Specials, Overflow, NanFallback);
/// The OCP MX FP4/FP6 family ([`FloatFormat::finite_only`]).
const FINITE_ONLY: FamilyRules = (
    Specials::FiniteOnly,
    Overflow::Saturate,
    NanFallback::ZeroOppositeSign,
);
/// The IEEE 754 style family ([`FloatFormat::ieee`]).
const IEEE: FamilyRules = (Specials::Ieee, Overflow::Infinity, NanFallback::MaxPositive);
/// The "finite, unsigned zero" family ([`FloatFormat::fnuz`]).
const FNUZ: FamilyRules = (
    Specials::NegativeZeroNan,
    Overflow::Nan,
    NanFallback::MaxPositive,
);

/// A signed format with subnormals and ties to even, with a family's rules.
const fn signed_format(
    exponent_bits: u32,
    mantissa_bits: u32,
    bias: i32,
    (specials, overflow, nan_fallback): FamilyRules,
) -> FloatFormat {
    FloatFormat {
        exponent_bits,
        mantissa_bits,
        bias,
        signed: true,
        subnormals: true,
        specials,
        overflow,
        ties: Ties::Even,
        nan_fallback,
    }
}

impl FloatFormat {
    /// OCP MX FP4: `E2M1`, bias 1, finite only, saturating.
    pub const E2M1: FloatFormat = FloatFormat::finite_only(2, 1, 1);
    /// OCP MX FP6: `E2M3`, bias 1, finite only, saturating.
    pub const E2M3: FloatFormat = FloatFormat::finite_only(2, 3, 1);
    /// OCP MX FP6: `E3M2`, bias 3, finite only, saturating.
    pub const E3M2: FloatFormat = FloatFormat::finite_only(3, 2, 3);
    /// OCP FP8 `E4M3` (`e4m3fn`): bias 7, NaN at `S.1111.111`, no infinity;
    /// round-to-nearest overflow gives NaN.
    pub const E4M3: FloatFormat = FloatFormat {
        exponent_bits: 4,
        mantissa_bits: 3,
        bias: 7,
        signed: true,
        subnormals: true,
        specials: Specials::AllOnesNan,
        overflow: Overflow::Nan,
        ties: Ties::Even,
        nan_fallback: NanFallback::MaxPositive,
    };
    /// OCP FP8 `E5M2`: bias 15, IEEE infinities and NaNs; overflow gives
    /// infinity.
    pub const E5M2: FloatFormat = FloatFormat::ieee(5, 2);
    /// OCP MX scale `E8M0` (`e8m0fnu`): unsigned, bias 127, no zero, no
    /// subnormals, `0xff` is NaN; ties round away from zero and overflow gives
    /// NaN (the reference library's rules).
    pub const E8M0: FloatFormat = FloatFormat {
        exponent_bits: 8,
        mantissa_bits: 0,
        bias: 127,
        signed: false,
        subnormals: false,
        specials: Specials::AllOnesNan,
        overflow: Overflow::Nan,
        ties: Ties::Away,
        nan_fallback: NanFallback::MaxPositive,
    };
    /// IEEE-style FP8 `E4M3` (ml_dtypes `float8_e4m3`): bias 7, IEEE
    /// infinities (`0x78`/`0xf8`) and NaNs, largest finite 240; overflow gives
    /// infinity. Not the OCP [`E4M3`](Self::E4M3) (`e4m3fn`).
    pub const E4M3_IEEE: FloatFormat = FloatFormat::ieee(4, 3);
    /// IEEE-style FP8 `E3M4` (ml_dtypes `float8_e3m4`): bias 3, IEEE
    /// infinities and NaNs, largest finite 15.5.
    pub const E3M4: FloatFormat = FloatFormat::ieee(3, 4);
    /// FP8 `E4M3FNUZ` (AMD, Graphcore; ml_dtypes `float8_e4m3fnuz`): bias 8,
    /// no infinity, no negative zero, `0x80` the only NaN; largest 240;
    /// round-to-nearest overflow gives NaN.
    pub const E4M3_FNUZ: FloatFormat = FloatFormat::fnuz(4, 3, 8);
    /// FP8 `E5M2FNUZ` (AMD, Graphcore; ml_dtypes `float8_e5m2fnuz`): bias
    /// 16, no infinity, no negative zero, `0x80` the only NaN; largest 57344.
    pub const E5M2_FNUZ: FloatFormat = FloatFormat::fnuz(5, 2, 16);
    /// FP8 `E4M3B11FNUZ` (ml_dtypes `float8_e4m3b11fnuz`, used by XLA on
    /// TPUs): bias 11, no infinity, no negative zero, `0x80` the only NaN;
    /// largest 30.
    pub const E4M3B11_FNUZ: FloatFormat = FloatFormat::fnuz(4, 3, 11);
    /// IEEE 754 binary16 (`half::f16`).
    pub const F16: FloatFormat = FloatFormat::ieee(5, 10);
    /// `bfloat16` (`half::bf16`): the top 16 bits of an `f32`.
    pub const BF16: FloatFormat = FloatFormat::ieee(8, 7);

    /// A signed format with subnormals, no infinity and no NaN, that
    /// saturates on overflow and maps NaN to a zero of the opposite sign (the
    /// OCP MX FP4/FP6 family).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::finite_only(2, 1, 1), FloatFormat::E2M1);
    /// ```
    pub const fn finite_only(exponent_bits: u32, mantissa_bits: u32, bias: i32) -> FloatFormat {
        signed_format(exponent_bits, mantissa_bits, bias, FINITE_ONLY)
    }

    /// A signed IEEE 754 style format: bias `2^(exponent_bits - 1) - 1`,
    /// subnormals, infinities and NaNs, overflow to infinity, ties to even.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::ieee(5, 2), FloatFormat::E5M2);
    /// assert_eq!(FloatFormat::ieee(5, 10).bias, 15);
    /// ```
    pub const fn ieee(exponent_bits: u32, mantissa_bits: u32) -> FloatFormat {
        let bias = (1 << (exponent_bits - 1)) - 1;
        signed_format(exponent_bits, mantissa_bits, bias, IEEE)
    }

    /// A signed "finite, unsigned zero" format: subnormals, no infinity, no
    /// negative zero, the negative-zero code (`0x80` for 8 bits) the only
    /// NaN, round-to-nearest overflow (and infinity) to that NaN, ties to
    /// even (the AMD/Graphcore FP8 family).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::fnuz(4, 3, 8), FloatFormat::E4M3_FNUZ);
    /// ```
    pub const fn fnuz(exponent_bits: u32, mantissa_bits: u32, bias: i32) -> FloatFormat {
        signed_format(exponent_bits, mantissa_bits, bias, FNUZ)
    }

    /// Checks the description: `1 <= exponent_bits <= 8`, `mantissa_bits <=
    /// 23`, at most 16 bits in all; every value exact in `f32` (largest
    /// exponent at most 127, smallest positive value at least `2^-149`); the
    /// special rules consistent (an IEEE format needs a mantissa bit and two
    /// exponent bits, an all-ones NaN needs two magnitude bits,
    /// `NegativeZeroNan` a sign bit, `Overflow::Infinity` IEEE specials,
    /// `Overflow::Nan` a NaN code).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{FloatFormat, Overflow};
    ///
    /// assert!(FloatFormat::E4M3.validate().is_ok());
    /// let bad = FloatFormat { overflow: Overflow::Infinity, ..FloatFormat::E4M3 };
    /// assert!(bad.validate().is_err());
    /// ```
    pub const fn validate(&self) -> Result<(), &'static str> {
        let e = self.exponent_bits;
        let m = self.mantissa_bits;
        if e < 1 || e > 8 {
            return Err("exponent_bits must be 1..=8");
        }
        if m > 23 {
            return Err("mantissa_bits must be 0..=23");
        }
        if self.bits() > 16 {
            return Err("a format has at most 16 bits");
        }
        match self.specials {
            Specials::Ieee if m == 0 || e < 2 => {
                return Err("an IEEE format needs a mantissa bit and two exponent bits");
            }
            Specials::AllOnesNan if e + m < 2 => {
                return Err("an all-ones NaN needs at least two magnitude bits");
            }
            Specials::NegativeZeroNan if !self.signed => {
                return Err("a negative-zero NaN needs a sign bit");
            }
            _ => {}
        }
        match self.overflow {
            Overflow::Infinity if !matches!(self.specials, Specials::Ieee) => {
                return Err("Overflow::Infinity needs Specials::Ieee");
            }
            Overflow::Nan if !self.has_nan() => {
                return Err("Overflow::Nan needs a NaN encoding");
            }
            _ => {}
        }
        if self.max_exponent() > 127 {
            return Err("the largest value must be below 2^128 (exact in f32)");
        }
        let smallest = if self.subnormals {
            1 - self.bias - m as i32
        } else {
            -self.bias
        };
        if smallest < -149 {
            return Err("the smallest positive value must be at least 2^-149 (exact in f32)");
        }
        Ok(())
    }

    /// Total width of a code: sign bit (if any), exponent and mantissa.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::E3M2.bits(), 6);
    /// assert_eq!(FloatFormat::E8M0.bits(), 8);
    /// ```
    pub const fn bits(&self) -> u32 {
        self.signed as u32 + self.exponent_bits + self.mantissa_bits
    }

    /// Mask of the magnitude (exponent and mantissa) bits.
    pub(crate) const fn mag_mask(&self) -> u32 {
        (1 << (self.exponent_bits + self.mantissa_bits)) - 1
    }

    /// The sign bit's mask, 0 for an unsigned format.
    pub(crate) const fn sign_mask(&self) -> u32 {
        if self.signed {
            1 << (self.exponent_bits + self.mantissa_bits)
        } else {
            0
        }
    }

    /// Whether the format has a NaN encoding.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert!(!FloatFormat::E2M1.has_nan());
    /// assert!(FloatFormat::E8M0.has_nan());
    /// ```
    pub const fn has_nan(&self) -> bool {
        !matches!(self.specials, Specials::FiniteOnly)
    }

    /// The code of the largest finite value (positive, sign bit clear).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::E2M1.max_code(), 0x7);
    /// assert_eq!(FloatFormat::E4M3.max_code(), 0x7e);
    /// assert_eq!(FloatFormat::E5M2.max_code(), 0x7b);
    /// ```
    pub const fn max_code(&self) -> u32 {
        match self.specials {
            Specials::FiniteOnly | Specials::NegativeZeroNan => self.mag_mask(),
            Specials::AllOnesNan => self.mag_mask() - 1,
            Specials::Ieee => (((1 << self.exponent_bits) - 1) << self.mantissa_bits) - 1,
        }
    }

    /// The unbiased exponent of the largest finite value (`emax`: E2M1 2,
    /// E4M3 8, E5M2 15). OCP MX uses it to choose block scales.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::E2M1.max_exponent(), 2);
    /// assert_eq!(FloatFormat::E3M2.max_exponent(), 4);
    /// assert_eq!(FloatFormat::E8M0.max_exponent(), 127);
    /// ```
    pub const fn max_exponent(&self) -> i32 {
        (self.max_code() >> self.mantissa_bits) as i32 - self.bias
    }

    /// The unbiased exponent of the smallest normal value (`1 - bias` with
    /// subnormals, `-bias` without).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::E4M3.min_exponent(), -6);
    /// assert_eq!(FloatFormat::E8M0.min_exponent(), -127);
    /// ```
    pub const fn min_exponent(&self) -> i32 {
        if self.subnormals {
            1 - self.bias
        } else {
            -self.bias
        }
    }

    /// The canonical NaN code with the given sign, or `None` if the format
    /// has no NaN. IEEE formats give the quiet NaN (top mantissa bit set);
    /// the sign is dropped where the format has no sign bit or one NaN.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::E5M2.nan_code(true), Some(0xfe));
    /// assert_eq!(FloatFormat::E8M0.nan_code(true), Some(0xff));
    /// assert_eq!(FloatFormat::E2M3.nan_code(false), None);
    /// ```
    pub const fn nan_code(&self, negative: bool) -> Option<u32> {
        let sign = if negative { self.sign_mask() } else { 0 };
        match self.specials {
            Specials::FiniteOnly => None,
            Specials::Ieee => Some(
                sign | (((1 << self.exponent_bits) - 1) << self.mantissa_bits)
                    | (1 << (self.mantissa_bits - 1)),
            ),
            Specials::AllOnesNan => Some(sign | self.mag_mask()),
            Specials::NegativeZeroNan => Some(self.sign_mask()),
        }
    }

    /// The code of infinity with the given sign, or `None` if the format has
    /// no infinity.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::E5M2.infinity_code(false), Some(0x7c));
    /// assert_eq!(FloatFormat::E4M3.infinity_code(false), None);
    /// ```
    pub const fn infinity_code(&self, negative: bool) -> Option<u32> {
        match self.specials {
            Specials::Ieee => {
                let sign = if negative { self.sign_mask() } else { 0 };
                Some(sign | (((1 << self.exponent_bits) - 1) << self.mantissa_bits))
            }
            _ => None,
        }
    }

    /// Whether `code` (its low [`bits`](Self::bits) bits) is a NaN.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert!(FloatFormat::E5M2.is_nan_code(0x7d));
    /// assert!(!FloatFormat::E5M2.is_nan_code(0x7c));
    /// ```
    pub const fn is_nan_code(&self, code: u32) -> bool {
        let code = code & (self.sign_mask() | self.mag_mask());
        let mag = code & self.mag_mask();
        match self.specials {
            Specials::FiniteOnly => false,
            Specials::Ieee => mag > (((1 << self.exponent_bits) - 1) << self.mantissa_bits),
            Specials::AllOnesNan => mag == self.mag_mask(),
            Specials::NegativeZeroNan => code == self.sign_mask(),
        }
    }

    /// Whether `code` is an infinity.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert!(FloatFormat::E5M2.is_infinite_code(0xfc));
    /// ```
    pub const fn is_infinite_code(&self, code: u32) -> bool {
        match self.specials {
            Specials::Ieee => {
                code & self.mag_mask() == ((1 << self.exponent_bits) - 1) << self.mantissa_bits
            }
            _ => false,
        }
    }

    /// The value of `code` (its low [`bits`](Self::bits) bits) as an `f64`,
    /// exactly. NaN codes give a quiet NaN with the code's sign.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::E3M2.decode_f64(0x01), 0.0625);
    /// assert_eq!(FloatFormat::E3M2.decode_f64(0x3f), -28.0);
    /// ```
    pub const fn decode_f64(&self, code: u32) -> f64 {
        let code = code & (self.sign_mask() | self.mag_mask());
        let negative = code & self.sign_mask() != 0;
        let sign = (negative as u64) << 63;
        if self.is_nan_code(code) {
            return f64::from_bits(sign | 0x7ff8_0000_0000_0000);
        }
        if self.is_infinite_code(code) {
            return f64::from_bits(sign | 0x7ff0_0000_0000_0000);
        }
        let mag = code & self.mag_mask();
        let m = self.mantissa_bits;
        let field = (mag >> m) as i32;
        let man = mag & ((1 << m) - 1);
        let (sig, exp) = if self.subnormals && field == 0 {
            (man, 1 - self.bias - m as i32)
        } else {
            ((1 << m) | man, field - self.bias - m as i32)
        };
        let v = sig as f64 * pow2(exp);
        if negative { -v } else { v }
    }

    /// The value of `code` as an `f32`, exactly (every value of a
    /// [valid](Self::validate) format is an `f32`). NaN codes give the quiet
    /// NaN `0x7fc00000` with the code's sign.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::E2M1.decode_f32(0x5), 3.0);
    /// // E8M0 0x00 is 2^-127, an f32 subnormal.
    /// assert_eq!(FloatFormat::E8M0.decode_f32(0x00).to_bits(), 0x0040_0000);
    /// ```
    pub const fn decode_f32(&self, code: u32) -> f32 {
        if self.is_nan_code(code) {
            let negative = code & self.sign_mask() != 0;
            return f32::from_bits(((negative as u32) << 31) | 0x7fc0_0000);
        }
        self.decode_f64(code) as f32
    }

    /// A table of [`decode_f32`](Self::decode_f32) for the codes `0..256`
    /// (codes wider than the format's bits are masked).
    pub(crate) const fn decode_table_f32(&self) -> [f32; 256] {
        let mut t = [0.0f32; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = self.decode_f32(i as u32);
            i += 1;
        }
        t
    }
}
