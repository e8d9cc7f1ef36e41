//! The one rounding routine that encodes into every [`FloatFormat`], and the
//! [`Mode`] that selects its overflow and NaN rules.
//!
//! Every conversion of the crate's float formats goes through
//! [`FloatFormat::encode_f64`] and its siblings: the input is split into a
//! sign, an unbiased exponent and a 64-bit significand (exactly, whatever the
//! source width), and rounded once into the target format. There is no
//! per-format rounding code and no intermediate rounding through `f32`.

use super::format::{FloatFormat, NanFallback, Overflow, Specials, Ties};

/// The conversion rule of an encode: round to nearest with the format's own
/// overflow rule, or the saturating GPU rule.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{FloatFormat, Mode};
///
/// let e5m2 = FloatFormat::E5M2;
/// assert_eq!(e5m2.encode_f32(1e6, Mode::Nearest), 0x7c); // +inf
/// assert_eq!(e5m2.encode_f32(1e6, Mode::SatFinite), 0x7b); // +57344
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Round to nearest with the format's [`Ties`] rule; overflow, infinity
    /// and NaN follow the format's [`Overflow`] and [`NanFallback`] rules.
    Nearest,
    /// The PTX `cvt.rn.satfinite` rule: round to nearest, then clamp any
    /// magnitude above the largest finite one (infinities included) to it,
    /// keeping the sign (an unsigned format gives its positive maximum for
    /// every input of magnitude above it, even a negative one). NaN stays NaN
    /// where the format has one and becomes the positive maximum where it does
    /// not. Everything else is as in [`Mode::Nearest`].
    SatFinite,
}

impl Mode {
    /// [`Mode::SatFinite`] if `satfinite`, else [`Mode::Nearest`].
    #[inline(always)]
    pub(crate) const fn from_satfinite(satfinite: bool) -> Mode {
        if satfinite {
            Mode::SatFinite
        } else {
            Mode::Nearest
        }
    }
}

/// A finite, non-zero input: `sig * 2^(exp - 63)`, with bit 63 of `sig` set.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Class {
    Zero,
    Finite { exp: i32, sig: u64 },
    Infinite,
    Nan,
}

/// An input split into its sign and [`Class`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Parts {
    pub(crate) negative: bool,
    pub(crate) class: Class,
}

impl Parts {
    /// Splits an IEEE binary value of `1 + e + m` bits (`e` <= 11, `m` <= 52).
    #[inline(always)]
    pub(crate) const fn from_ieee(bits: u64, e: u32, m: u32) -> Parts {
        let negative = (bits >> (e + m)) & 1 == 1;
        let field = ((bits >> m) & ((1 << e) - 1)) as i32;
        let man = bits & ((1u64 << m) - 1);
        let bias = (1i32 << (e - 1)) - 1;
        let class = if field == (1 << e) - 1 {
            if man == 0 {
                Class::Infinite
            } else {
                Class::Nan
            }
        } else if field == 0 {
            if man == 0 {
                Class::Zero
            } else {
                // Subnormal: man * 2^(1 - bias - m); leading bit at 63 - lz.
                let lz = man.leading_zeros();
                Class::Finite {
                    exp: 1 - bias - m as i32 + (63 - lz as i32),
                    sig: man << lz,
                }
            }
        } else {
            Class::Finite {
                exp: field - bias,
                sig: ((1u64 << m) | man) << (63 - m),
            }
        };
        Parts { negative, class }
    }

    #[inline(always)]
    pub(crate) const fn from_f32(x: f32) -> Parts {
        Parts::from_ieee(x.to_bits() as u64, 8, 23)
    }

    #[inline(always)]
    pub(crate) const fn from_f64(x: f64) -> Parts {
        Parts::from_ieee(x.to_bits(), 11, 52)
    }

    /// `self * 2^-shift` (exact: the exponent is unbounded).
    #[inline(always)]
    pub(crate) const fn scaled(self, shift: i32) -> Parts {
        match self.class {
            Class::Finite { exp, sig } => Parts {
                negative: self.negative,
                class: Class::Finite {
                    exp: exp - shift,
                    sig,
                },
            },
            _ => self,
        }
    }
}

impl FloatFormat {
    /// Encodes an `f32`, rounding once (see [`Mode`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{FloatFormat, Mode};
    ///
    /// assert_eq!(FloatFormat::E2M1.encode_f32(-2.9, Mode::Nearest), 0xd); // -3
    /// assert_eq!(FloatFormat::E2M1.encode_f32(100.0, Mode::Nearest), 0x7); // 6
    /// ```
    pub const fn encode_f32(&self, x: f32, mode: Mode) -> u32 {
        self.encode(Parts::from_f32(x), mode)
    }

    /// Encodes an `f64`, rounding once: there is no intermediate rounding to
    /// `f32`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{FloatFormat, Mode};
    ///
    /// // Just above the 2.5 tie: rounds up to 3, although the nearest f32 is
    /// // the tie itself (which would round to 2).
    /// let x = 2.5 + 1e-12;
    /// assert_eq!(FloatFormat::E2M1.encode_f64(x, Mode::Nearest), 0x5);
    /// assert_eq!(FloatFormat::E2M1.encode_f32(x as f32, Mode::Nearest), 0x4);
    /// ```
    pub const fn encode_f64(&self, x: f64, mode: Mode) -> u32 {
        self.encode(Parts::from_f64(x), mode)
    }

    /// Encodes a `half::f16`, rounding once.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{FloatFormat, Mode};
    /// use half::f16;
    ///
    /// assert_eq!(FloatFormat::E4M3.encode_f16(f16::from_f32(-1.0), Mode::Nearest), 0xb8);
    /// ```
    #[cfg(feature = "half")]
    pub const fn encode_f16(&self, x: half::f16, mode: Mode) -> u32 {
        self.encode(Parts::from_ieee(x.to_bits() as u64, 5, 10), mode)
    }

    /// Encodes a `half::bf16`, rounding once.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{FloatFormat, Mode};
    /// use half::bf16;
    ///
    /// assert_eq!(FloatFormat::E5M2.encode_bf16(bf16::from_f32(3.0), Mode::Nearest), 0x42);
    /// ```
    #[cfg(feature = "half")]
    pub const fn encode_bf16(&self, x: half::bf16, mode: Mode) -> u32 {
        self.encode(Parts::from_ieee(x.to_bits() as u64, 8, 7), mode)
    }

    /// The code a NaN input of sign `negative` gives.
    #[inline(always)]
    pub(crate) const fn nan_result(&self, negative: bool, mode: Mode) -> u32 {
        match self.nan_code(negative) {
            Some(c) => c,
            None if matches!(mode, Mode::SatFinite) => self.max_code(),
            None => match self.nan_fallback {
                NanFallback::ZeroOppositeSign if !negative => self.sign_mask(),
                NanFallback::ZeroOppositeSign | NanFallback::Zero => 0,
                NanFallback::MaxPositive => self.max_code(),
            },
        }
    }

    /// The result of a finite overflow or an infinite input.
    #[inline(always)]
    pub(crate) const fn overflowed(&self, negative: bool, mode: Mode) -> u32 {
        let sign = if negative { self.sign_mask() } else { 0 };
        let rule = match mode {
            Mode::SatFinite => Overflow::Saturate,
            Mode::Nearest => self.overflow,
        };
        match rule {
            Overflow::Saturate => sign | self.max_code(),
            Overflow::Infinity => match self.infinity_code(negative) {
                Some(c) => c,
                None => sign | self.max_code(),
            },
            Overflow::Nan => match self.nan_code(negative) {
                Some(c) => c,
                None => sign | self.max_code(),
            },
        }
    }

    /// The result for a value the format cannot hold at all (a negative
    /// value in an unsigned format, zero in a format without zero): NaN, or
    /// the smallest magnitude.
    #[inline(always)]
    const fn unrepresentable(&self) -> u32 {
        match self.nan_code(false) {
            Some(c) => c,
            None => 0,
        }
    }

    /// Whether `sig * 2^(exp - 63)` exceeds the largest finite value.
    #[inline(always)]
    const fn above_max(&self, exp: i32, sig: u64) -> bool {
        let emax = self.max_exponent();
        let m = self.mantissa_bits;
        let max_sig = ((1u64 << m) | (self.max_code() as u64 & ((1 << m) - 1))) << (63 - m);
        exp > emax || (exp == emax && sig > max_sig)
    }

    /// Encodes an `f32` with **stochastic rounding**: the result is one of
    /// the two codes around `x` (or `x`'s own code when it is exact),
    /// rounding away from zero with probability equal to the fraction of the
    /// quantum that `x` lies above the lower one. `random` supplies the
    /// randomness: with `frac` the first 32 bits of that fraction
    /// (`floor(frac * 2^32)`), the magnitude rounds up exactly when `frac +
    /// random >= 2^32`. For a uniformly random `random`, the expected result is `x`
    /// (exactly so when the bits below the quantum fit in 32 bits, which
    /// holds for every `f32`, `f16` and `bf16` input whose result is normal
    /// or subnormal within 9 binades of the smallest normal; otherwise biased
    /// by less than `2^-32` of a quantum). Overflow, infinities, NaN, zero and
    /// the sign follow `mode`, as in [`encode_f32`](Self::encode_f32); a
    /// magnitude that rounds up past the largest finite value overflows.
    ///
    /// The bulk encoders draw `random` per element from a seed and the
    /// element's index (`random_bits`).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{FloatFormat, Mode};
    ///
    /// let f = FloatFormat::E2M1;
    /// // 2.25 lies a quarter of the way from 2 (0x4) to 3 (0x5).
    /// assert_eq!(f.encode_f32_stochastic(2.25, Mode::Nearest, 0), 0x4);
    /// assert_eq!(f.encode_f32_stochastic(2.25, Mode::Nearest, 0xbfff_ffff), 0x4);
    /// assert_eq!(f.encode_f32_stochastic(2.25, Mode::Nearest, 0xc000_0000), 0x5);
    /// assert_eq!(f.encode_f32_stochastic(-2.25, Mode::Nearest, u32::MAX), 0xd); // -3
    /// assert_eq!(f.encode_f32_stochastic(3.0, Mode::Nearest, u32::MAX), 0x5); // exact
    /// ```
    pub const fn encode_f32_stochastic(&self, x: f32, mode: Mode, random: u32) -> u32 {
        self.round(Parts::from_f32(x), mode, Some(random))
    }

    /// Encodes an `f64` with stochastic rounding, as
    /// [`encode_f32_stochastic`](Self::encode_f32_stochastic) (the fraction
    /// comes from the `f64` itself: no intermediate rounding to `f32`).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{FloatFormat, Mode};
    ///
    /// let f = FloatFormat::E4M3;
    /// assert_eq!(f.encode_f64_stochastic(1.0625, Mode::Nearest, 0x7fff_ffff), 0x38); // 1.0
    /// assert_eq!(f.encode_f64_stochastic(1.0625, Mode::Nearest, 0x8000_0000), 0x39); // 1.125
    /// ```
    pub const fn encode_f64_stochastic(&self, x: f64, mode: Mode, random: u32) -> u32 {
        self.round(Parts::from_f64(x), mode, Some(random))
    }

    /// The rounding routine with round to nearest.
    #[inline(always)]
    pub(crate) const fn encode(&self, p: Parts, mode: Mode) -> u32 {
        self.round(p, mode, None)
    }

    /// The rounding routine: every encode in the crate ends here. `random`:
    /// stochastic rounding with these random bits instead of round to
    /// nearest.
    #[inline(always)]
    pub(crate) const fn round(&self, p: Parts, mode: Mode, random: Option<u32>) -> u32 {
        let satfinite = matches!(mode, Mode::SatFinite);
        let (exp, sig) = match p.class {
            Class::Nan => return self.nan_result(p.negative, mode),
            Class::Infinite => {
                if p.negative && !self.signed && !satfinite {
                    return self.unrepresentable();
                }
                return self.overflowed(p.negative, mode);
            }
            Class::Zero => {
                return if !self.subnormals {
                    self.unrepresentable()
                } else if p.negative && !matches!(self.specials, Specials::NegativeZeroNan) {
                    self.sign_mask()
                } else {
                    0
                };
            }
            Class::Finite { exp, sig } => (exp, sig),
        };
        if !self.signed && p.negative {
            return if satfinite && self.above_max(exp, sig) {
                self.max_code()
            } else {
                self.unrepresentable()
            };
        }
        let sign = if p.negative { self.sign_mask() } else { 0 };
        let m = self.mantissa_bits;
        let emin = self.min_exponent();
        if exp > self.max_exponent() + 1 {
            return self.overflowed(p.negative, mode);
        }
        if exp < emin && !self.subnormals {
            // No zero: everything below the smallest value rounds up to it.
            return sign;
        }
        // Quantum 2^(eq - m); q = value / quantum, truncated.
        let eq = if exp < emin { emin } else { exp };
        let shift = (63 - m) + (eq - exp) as u32;
        // `rem` compared with half a quantum: below (-1), equal (0), above
        // (1); `frac`: the first 32 bits of `rem` as a fraction of the
        // quantum.
        let (q, rem_vs_half, frac) = if shift > 127 {
            let frac = if shift - 32 < 64 {
                (sig >> (shift - 32)) as u32
            } else {
                0
            };
            (0u64, -1, frac)
        } else {
            let wide = sig as u128;
            let rem = wide & ((1u128 << shift) - 1);
            let half = 1u128 << (shift - 1);
            let cmp = if rem < half {
                -1
            } else if rem == half {
                0
            } else {
                1
            };
            let frac = if shift >= 32 {
                (rem >> (shift - 32)) as u32
            } else {
                (rem << (32 - shift)) as u32
            };
            ((wide >> shift) as u64, cmp, frac)
        };
        let implicit = if self.subnormals { 0 } else { 1u64 << m };
        let trunc = (((eq - emin) as u64) << m) + q - implicit;
        let up = match random {
            Some(r) => (frac as u64 + r as u64) >> 32 != 0,
            None => match rem_vs_half {
                1 => true,
                0 => matches!(self.ties, Ties::Away) || trunc & 1 == 1,
                _ => false,
            },
        };
        let code = trunc + up as u64;
        if code > self.max_code() as u64 {
            return self.overflowed(p.negative, mode);
        }
        if code == 0 && matches!(self.specials, Specials::NegativeZeroNan) {
            return 0;
        }
        sign | code as u32
    }
}

/// The 32 random bits stochastic rounding uses for element `index` under
/// `seed`: the high half of the SplitMix64 output for the state `seed +
/// (index + 1) * 0x9e3779b97f4a7c15` (wrapping), i.e. `z ^= z >> 30; z *=
/// 0xbf58476d1ce4e5b9; z ^= z >> 27; z *= 0x94d049bb133111eb; z ^= z >>
/// 31; z >> 32`. A counter-based generator: any element's bits can be
/// computed alone, so a GPU kernel or another library can reproduce them.
///
/// # Examples
///
/// ```
/// use bitpack::formats::random_bits;
///
/// assert_eq!(random_bits(0, 0), random_bits(0, 0));
/// assert_ne!(random_bits(0, 0), random_bits(0, 1));
/// assert_ne!(random_bits(0, 0), random_bits(1, 0));
/// ```
#[inline]
pub const fn random_bits(seed: u64, index: u64) -> u32 {
    let mut z = seed.wrapping_add(index.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 32) as u32
}
