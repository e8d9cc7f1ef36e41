//! What one block computes: the MX and NVFP4 scales, the codes of a
//! block's values under its scale and the values of codes, in `f32` and
//! integer arithmetic for `f32`-exact data (the `f64` paths only for
//! `f64` data).

use super::{MxElement, ScaleRule, TinyScale};
use crate::formats::types::{E2M1, E4M3, E8M0};
use crate::formats::wide::{Real, Rounding, random_bits};
use core::num::NonZeroU64;

use crate::float::{Class, FloatFormat, Mode, Parts, Tables};
use crate::kernels::minifloat;

/// positive finite `f64`, exactly (subnormals included).
#[inline]
pub(in crate::formats) const fn log2_parts(a: f64) -> (i32, u64) {
    let bits = a.to_bits();
    let field = (bits >> 52) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if field == 0 {
        // Subnormal: normalize.
        // The leading bit is bit `52 - lz` of the fraction field.
        let lz = frac.leading_zeros() as i32 - 11;
        let frac = (frac << lz) & ((1u64 << 52) - 1);
        (-1022 - lz, frac)
    } else {
        (field - 1023, frac)
    }
}

/// The shared exponent of a block whose largest magnitude is `amax`
/// (finite, >= 0) under `rule`; `None` for the NaN scale.
#[inline]
pub(in crate::formats) fn shared_exponent<F: MxElement>(amax: f64, rule: ScaleRule) -> Option<i32> {
    if amax == 0.0 {
        return Some(-127);
    }
    let (fl, frac) = log2_parts(amax);
    let e = rule_exponent::<F>(fl, frac, 52, rule);
    if e > 127 { None } else { Some(e.max(-127)) }
}

/// The shared exponent under `rule` of an amax `2^fl * (1 + frac / 2^bits)`
/// (`frac` the `bits` fraction bits of its significand: 52 from an `f64`,
/// 23 from an `f32`), before the clamp to E8M0's range.
#[inline(always)]
fn rule_exponent<F: MxElement>(fl: i32, frac: u64, bits: u32, rule: ScaleRule) -> i32 {
    let emax = F::EMAX;
    match rule {
        ScaleRule::Floor => fl - emax,
        ScaleRule::Ceil => fl + (frac != 0) as i32 - emax,
        ScaleRule::Even => {
            let m = F::FORMAT.mantissa_bits;
            let carry = (frac + (1u64 << (bits - 1 - m))) >> bits;
            fl + carry as i32 - emax
        }
        ScaleRule::RCeil => {
            // The largest value's fraction, a constant of the format (at
            // most 3 bits, so exact at 23 bits too).
            let max_frac = const { log2_parts(F::FORMAT.decode_f64(F::FORMAT.max_code())).1 };
            fl - emax + (frac > max_frac >> (52 - bits)) as i32
        }
    }
}

/// `2^-e` as an `f32`, for `-127 <= e <= 126`.
#[inline(always)]
pub(in crate::formats) fn inv_pow2_f32(e: i32) -> f32 {
    f32::from_bits(((127 - e) as u32) << 23)
}

/// The E8M0 code of a shared exponent (`None`: NaN).
#[inline(always)]
fn scale_code(e: Option<i32>) -> u8 {
    match e {
        Some(e) => (e + 127) as u8,
        None => 0xff,
    }
}

/// The shared exponent an [`E8M0`] scale stands for (`None`: the NaN
/// scale), the inverse of [`scale_code`].
#[inline(always)]
pub(in crate::formats) fn scale_exponent(scale: E8M0) -> Option<i32> {
    match scale.to_bits() {
        0xff => None,
        code => Some(i32::from(code) - 127),
    }
}

/// The code of one value `x` of an MX block of exponent `e`: `x / 2^e`
/// rounded once into `F`, saturating, with `rounding` (`index`, the
/// value's row-major index, seeds the stochastic rounding). The rule every
/// path that does not run the `f32` kernels uses.
#[inline(always)]
pub(in crate::formats) fn mx_code<F: MxElement, S: Real>(
    x: S,
    e: i32,
    rounding: Rounding,
    index: u64,
) -> u8 {
    let random = match rounding {
        Rounding::Nearest => None,
        Rounding::Stochastic { seed } => Some(random_bits(seed, index)),
    };
    F::FORMAT.round(x.split().0.scaled(e), Mode::SatFinite, random) as u8
}

/// The `f32` the round-to-nearest kernels encode for a value `x` of a
/// block whose factor is `f` ([`inv_pow2_f32`] of its exponent): `x * 2^-e`,
/// exact for `f32`-widening `S` except below `f32`'s smallest normal,
/// where it encodes to zero either way.
#[inline(always)]
pub(in crate::formats) fn mx_operand<S: Real>(x: S, f: f32) -> f32 {
    x.to_f32_odd() * f
}

/// `6 * 448`: the largest E2M1 value times the largest E4M3 value.
#[cfg(feature = "alloc")]
pub(crate) const FP4_TIMES_FP8_MAX: f32 = 6.0 * 448.0;

/// `x / d` rounded to odd in `f64` (toward zero, last bit set when
/// inexact), for finite `x` and positive finite `d` away from the ends of
/// `f64`'s range: exact enough for one correct rounding to any format of at
/// most 51 significand bits. The residual comes from Dekker's exact
/// product.
#[inline]
pub(in crate::formats) fn div_odd(x: f64, d: f64) -> f64 {
    let q = x / d;
    if !q.is_finite() || q == 0.0 {
        return q;
    }
    // q * d = p + e exactly (Veltkamp split, Dekker product).
    let split = |a: f64| {
        let c = 134_217_729.0 * a; // 2^27 + 1
        let hi = c - (c - a);
        (hi, a - hi)
    };
    let p = q * d;
    let (qh, ql) = split(q);
    let (dh, dl) = split(d);
    let e = ((qh * dh - p) + qh * dl + ql * dh) + ql * dl;
    // The residual x - q * d, exactly (x - p is exact: p is within an ulp
    // of x).
    let r = (x - p) - e;
    if r == 0.0 {
        return q;
    }
    let mut bits = q.to_bits();
    // q is away from zero when the residual has the opposite sign of q.
    if (r < 0.0) != (q < 0.0) {
        bits -= 1;
    }
    f64::from_bits(bits | 1)
}

/// `a / b` for the block-scale and value quotients: exact to one rounding
/// for every input type (`f32`-exact inputs need no correction, see the
/// quantizer's docs).
#[inline(always)]
pub(in crate::formats) fn quotient<S: Real>(a: f64, b: f64) -> f64 {
    if S::WIDENS { a / b } else { div_odd(a, b) }
}

/// The E4M3 block scale for a block whose largest magnitude is `amax`
/// (the `f64` path, for `f64` data; `f32`-exact data takes
/// [`nvfp4_scale_f32`]).
#[inline]
pub(in crate::formats) fn block_scale<S: Real>(amax: f64, st: f64, tiny: TinyScale) -> E4M3 {
    let q = quotient::<S>(amax, 6.0 * st);
    // Round to odd into f32 (exact for a 4-bit target), then the
    // branch-free E4M3 encode: the same code as the rounding routine.
    let scale = E4M3::from_bits(minifloat::encode_fast::<E4M3, true>(
        crate::formats::wide::f64_to_f32_odd(q),
    ));
    tiny_rule(scale, tiny)
}

/// `scale` under the tiny-scale rule `tiny`.
#[inline(always)]
fn tiny_rule(scale: E4M3, tiny: TinyScale) -> E4M3 {
    match tiny {
        TinyScale::Flush => scale,
        TinyScale::Smallest if scale.to_bits() == 0 => E4M3::MIN_POSITIVE_SUBNORMAL,
        TinyScale::Smallest => scale,
        TinyScale::MinNormal if scale.to_bits() < E4M3::MIN_POSITIVE.to_bits() => {
            E4M3::MIN_POSITIVE
        }
        TinyScale::MinNormal => scale,
    }
}

/// `(sm, se)` with `|scale| = sm * 2^se` exactly, `sm` the 4-bit integer
/// significand (3 bits for a subnormal) of the E4M3 `scale` (sign ignored).
#[inline(always)]
fn e4m3_parts(scale: E4M3) -> (u64, i32) {
    let c = scale.to_bits() & 0x7f;
    let (field, m) = ((c >> 3) as i32, u64::from(c & 7));
    if field == 0 {
        (m, -9)
    } else {
        (8 | m, field - 10)
    }
}

/// `(m, e)` with `x = m * 2^(e - 23)` and bit 23 of `m` its leading bit,
/// for the bits `b` of a positive finite non-zero `f32` (subnormals
/// normalized).
#[inline(always)]
const fn f32_parts(b: u32) -> (u32, i32) {
    let field = (b >> 23) as i32;
    let frac = b & 0x7f_ffff;
    if field == 0 {
        // The leading bit of `frac` moves up to bit 23.
        let lz = frac.leading_zeros() as i32 - 8;
        (frac << lz, -126 - lz)
    } else {
        (frac | 0x80_0000, field - 127)
    }
}

/// [`f32_parts`] without a branch, for the bits `b` of a positive finite
/// `f32` (for 0, `m` is 0 and `e` meaningless: callers replace the result):
/// the kernels' per-block form.
#[inline(always)]
fn f32_parts_branchless(b: u32) -> (u32, i32) {
    let field = b >> 23;
    let m = (b & 0x7f_ffff) | u32::from(field != 0) << 23;
    let lz = m.leading_zeros().saturating_sub(8);
    (m << lz.min(31), field.max(1) as i32 - 127 - lz as i32)
}

/// The [`E4M3`] scale of an NVFP4 block whose largest magnitude has the
/// `f32` bits `amax_bits` (the sign bit is ignored; NaN and infinite bits
/// give the NaN scale), for the tensor scale `tensor_scale` (finite and
/// positive; any other gives the NaN scale) and the rule `tiny`:
/// `E4M3(amax / (6 * tensor_scale))` rounded once to nearest, ties to even,
/// saturating at 448. Computed with integer arithmetic on the two `f32`s'
/// bits, no `f64` (the GPU kernels' path, and the host's for `f32`, `f16`
/// and `bf16` data): the same scale as [`nvfp4_scale`] of the same amax.
///
/// Device-callable.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{TinyScale, nvfp4_scale_f32};
///
/// let s = nvfp4_scale_f32(3.0f32.to_bits(), 0.25, TinyScale::Flush);
/// assert_eq!(s.to_f32(), 2.0); // 3 / (6 * 0.25)
/// // 1 / 6 = 0.1666..: between the E4M3 values 0.15625 and 0.171875.
/// assert_eq!(nvfp4_scale_f32(1.0f32.to_bits(), 1.0, TinyScale::Flush).to_f32(), 0.171875);
/// assert!(nvfp4_scale_f32(f32::INFINITY.to_bits(), 1.0, TinyScale::Flush).to_f32().is_nan());
/// ```
#[inline]
pub fn nvfp4_scale_f32(amax_bits: u32, tensor_scale: f32, tiny: TinyScale) -> E4M3 {
    Nvfp4Scaler::new(tensor_scale, tiny).scale(amax_bits)
}

/// [`nvfp4_scale_f32`] for many blocks under one tensor scale and rule:
/// what depends on them alone (the divisor `6 * tensor_scale` and its
/// reciprocals) is computed once, and each scale without a division. The
/// GPU kernels' path, and the host's.
#[derive(Clone, Copy, Debug)]
pub(in crate::formats) struct Nvfp4Scaler {
    /// `3 * mt`, the tensor scale's significand (`2^23..2^24`) times 3.
    den: u32,
    /// `floor(2^40 / den)`.
    recip: u32,
    /// The tensor scale's exponent.
    et: i32,
    /// The tensor scale is not finite and positive: every scale is NaN.
    bad: bool,
    /// The smallest code the tiny rule leaves (0, 1 or 8).
    least: u8,
    /// `1 / (6 * tensor_scale)` rounded to `f32`, or 0 where it is not a
    /// normal `f32` (or the tensor scale is bad): [`Self::scale_lanes`]'
    /// product, which a zero turns off.
    #[cfg(feature = "alloc")]
    inv: f32,
}

/// The bits of `2^-6`, the smallest normal E4M3 value, as an `f32`.
#[cfg(feature = "alloc")]
const E4M3_MIN_NORMAL_F32: u32 = 0x3c80_0000;

impl Nvfp4Scaler {
    #[inline(always)]
    pub(in crate::formats) fn new(tensor_scale: f32, tiny: TinyScale) -> Self {
        let t = tensor_scale.to_bits();
        // A finite positive tensor scale has bits 1..0x7f80_0000.
        let bad = t.wrapping_sub(1) >= 0x7f7f_ffff;
        let (mt, et) = f32_parts(if bad { 1 } else { t });
        let den = 3 * mt;
        let least = match tiny {
            TinyScale::Flush => 0,
            TinyScale::Smallest => E4M3::MIN_POSITIVE_SUBNORMAL.to_bits(),
            TinyScale::MinNormal => E4M3::MIN_POSITIVE.to_bits(),
        };
        Nvfp4Scaler {
            den,
            // `den >= 3 * 2^23`: below 2^16. (`mt` has bit 23 set: a
            // `NonZeroU64` divisor leaves no division-by-zero branch in a
            // kernel.)
            recip: ((1u64 << 40) / NonZeroU64::new(u64::from(den)).unwrap_or(NonZeroU64::MAX))
                as u32,
            et,
            bad,
            least,
            #[cfg(feature = "alloc")]
            inv: {
                let inv = (1.0 / (6.0 * f64::from(tensor_scale))) as f32;
                if !bad && inv.is_normal() { inv } else { 0.0 }
            },
        }
    }

    /// The scale of a block whose largest magnitude has the `f32` bits
    /// `amax_bits`: [`nvfp4_scale_f32`].
    #[inline(always)]
    pub(in crate::formats) fn scale(&self, amax_bits: u32) -> E4M3 {
        let a = amax_bits & 0x7fff_ffff;
        // `a`'s significand and exponent (`a = 0` is replaced below).
        let (ma, ea) = f32_parts_branchless(a);
        // a / (6 t) = (ma * 2^8) / (3 mt) * 2^(ea - et - 9). The integer
        // quotient lies in (42, 171): 6 to 8 bits, and `sticky` says
        // whether a fraction follows. `n * recip / 2^40` is below `n /
        // den` by less than 1: the quotient or one less, set right by the
        // remainder.
        let n = ma << 8;
        let mut q = ((u64::from(n) * u64::from(self.recip)) >> 40) as u32;
        let mut r = n.wrapping_sub(q.wrapping_mul(self.den));
        if r >= self.den {
            q += 1;
            r -= self.den;
        }
        let sticky = u32::from(r != 0);
        let e = ea - self.et - 9;
        let len = 32 - q.leading_zeros() as i32;
        // Bits of `q` below the E4M3 quantum: 4 significant bits for a
        // normal result, the quantum 2^-9 below (the larger; at least 2).
        // Past 10 every bit goes and nothing rounds up, as at 10.
        let shift = (len - 4).max(-9 - e).min(10) as u32;
        let kept = q >> shift;
        let rest = q & ((1 << shift) - 1);
        // Round half to even, the sticky bit below `rest`.
        let up = ((rest << 1) | sticky) + (kept & 1) > 1 << shift;
        let kept = kept + u32::from(up);
        // `kept * 2^(e + shift)`: a normal value has kept in 8..=16 and
        // code ((e + shift + 10) << 3) + kept - 8 (a carry to 16 is the next
        // binade), a subnormal has e + shift = -9 and code `kept`; past 448
        // (the code 0x7f is NaN) it saturates.
        let code = ((((e + shift as i32 + 9).max(0) as u32) << 3) + kept).min(0x7e);
        let code = if a == 0 { 0 } else { code as u8 };
        if a >= 0x7f80_0000 || self.bad {
            E4M3::NAN
        } else {
            E4M3::from_bits(code.max(self.least))
        }
    }

    /// [`Self::scale`] of `N` amaxes at once, the codes' bits, as loops
    /// that the host's SIMD kernels run as vectors.
    ///
    /// First each amax times `inv`, the reciprocal of `6 * tensor_scale`
    /// rounded to `f32`, encoded to E4M3 ([`encode_fast`]): the reciprocal
    /// and the product each err by at most 2^-24 of their value, so the
    /// product lies within two units in the last place of the quotient and
    /// has its E4M3 code unless a midpoint between two E4M3 values lies
    /// that close. Each lane is checked for that with a margin (the
    /// product's 20 bits below the E4M3 mantissa within 3 of the
    /// midpoints' `0x8_0000`) and for the E4M3 subnormal range, whose
    /// midpoints fall elsewhere. A group with any lane in doubt (about one
    /// amax in 150,000 of random data, and every group with a block whose
    /// scale is subnormal) takes the exact way: the integer steps of
    /// [`Self::scale`] lane by lane, with no leading-zero count (a
    /// subnormal amax's exponent comes from its conversion to `f32`, which
    /// is exact; the quotient's length, 6 to 8 bits, from two compares) and
    /// no branch. With the product, the NVFP4 quantize took about 0.9x its
    /// time in cache (1 Mi values, given tensor scale), where the exact way
    /// took about 40 of its 280 µs (measured by leaving the scales out).
    /// `scale_lanes_match` checks both ways against [`Self::scale`], with
    /// amaxes at and around every midpoint.
    ///
    /// [`encode_fast`]: minifloat::encode_fast
    #[cfg(feature = "alloc")]
    #[inline(always)]
    pub(in crate::formats) fn scale_lanes<const N: usize>(&self, amax_bits: &[u32; N]) -> [u8; N] {
        if self.inv != 0.0 {
            // The product by the reciprocal, and the lanes in doubt: within
            // three units of a midpoint, or below the smallest normal E4M3
            // value and not zero.
            let mut out = [0u8; N];
            let mut doubt = false;
            for (o, &b) in out.iter_mut().zip(amax_bits) {
                let a = b & 0x7fff_ffff;
                let q = f32::from_bits(a) * self.inv;
                let qb = q.to_bits();
                doubt |= (qb & 0xf_ffff).wrapping_sub(0x8_0000 - 3) < 7
                    || (qb < E4M3_MIN_NORMAL_F32 && a != 0);
                let code = minifloat::encode_fast::<E4M3, true>(q);
                *o = if a >= 0x7f80_0000 {
                    E4M3::NAN.to_bits()
                } else {
                    code.max(self.least)
                };
            }
            if !doubt {
                return out;
            }
        }
        let mut out = [0u8; N];
        for (o, &b) in out.iter_mut().zip(amax_bits) {
            let a = b & 0x7fff_ffff;
            let field = a >> 23;
            // floor(log2(a)) of a subnormal `a` (-127 for 0).
            let fl = ((a as f32).to_bits() >> 23) as i32 - 127;
            let (ma, ea) = if field != 0 {
                ((a & 0x7f_ffff) | 0x80_0000, field as i32 - 127)
            } else {
                (a << ((23 - fl) as u32 & 31), fl - 149)
            };
            // As in `scale`: the quotient by the reciprocal, set right by
            // the remainder.
            let n = ma << 8;
            let q = ((u64::from(n) * u64::from(self.recip)) >> 40) as u32;
            let r = n.wrapping_sub(q.wrapping_mul(self.den));
            let fix = r >= self.den;
            let q = q + u32::from(fix);
            let r = if fix { r.wrapping_sub(self.den) } else { r };
            let sticky = u32::from(r != 0);
            let e = ea - self.et - 9;
            // `q` is in (42, 171) for every non-zero amax.
            let len = 6 + i32::from(q >= 64) + i32::from(q >= 128);
            let shift = (len - 4).max(-9 - e).min(10) as u32;
            let kept = q >> shift;
            let rest = q & ((1 << shift) - 1);
            let up = ((rest << 1) | sticky) + (kept & 1) > 1 << shift;
            let kept = kept + u32::from(up);
            let code = ((((e + shift as i32 + 9).max(0) as u32) << 3) + kept).min(0x7e) as u8;
            let code = if a == 0 { 0 } else { code };
            *o = if a >= 0x7f80_0000 || self.bad {
                E4M3::NAN.to_bits()
            } else {
                code.max(self.least)
            };
        }
        out
    }
}

/// The `f32` thresholds of the E2M1 codes of `x / (scale * tensor_scale)`
/// for a positive (non-zero, non-NaN) E4M3 `scale` and a finite positive
/// `tensor_scale`: [`e2m1_thresholds`] of that product, computed with
/// integer arithmetic (no `f64`). Threshold `k` is the smallest `f32` at
/// least (odd `k`) or above (even `k`) `MIDS[k] * scale * tensor_scale`,
/// infinity past the largest `f32`.
#[inline]
pub(in crate::formats) fn e2m1_thresholds_f32(scale: E4M3, tensor_scale: f32) -> [f32; 7] {
    e2m1_threshold_bits::<24, -149, 0x7f80_0000>(scale, tensor_scale).map(f32::from_bits)
}

/// [`e2m1_thresholds_f32`] on the grid of a binary float format with
/// `PREC` significant bits, the quantum `2^QMIN` (its smallest subnormal)
/// and infinity `INF` (bits): threshold `k` is the bits of the smallest
/// value of that format at least (odd `k`) or above (even `k`) `MIDS[k] *
/// scale * tensor_scale`, `INF` past its largest finite value. A value `x`
/// of the format reaches (`x >= t`) the `f32` threshold `t` exactly when it
/// reaches this one, so `f16` (`<11, -24, 0x7c00>`) and `bf16` (`<8, -133,
/// 0x7f80>`) data compare their own bits, as integers (the magnitudes'
/// order), with no widening.
///
/// Every product is below 2^31: a `u32` (no 64-bit arithmetic in a
/// kernel), the thresholds 10, 14 and 20 taken as 5, 7 and 5 at twice and
/// four times the power of two.
#[inline(always)]
pub(in crate::formats) fn e2m1_threshold_bits<const PREC: i32, const QMIN: i32, const INF: u32>(
    scale: E4M3,
    tensor_scale: f32,
) -> [u32; 7] {
    // scale = sm * 2^se (a 4-bit integer), tensor_scale = mt * 2^(et - 23),
    // MIDS[k] = MIDS4[k] / 4 with MIDS4 = [1, 3, 5, 7, 10, 14, 20].
    let (sm, se) = e4m3_parts(scale);
    let (mt, et) = f32_parts(tensor_scale.to_bits());
    let e = se + et - 25;
    // sm < 2^4, mt < 2^24, so 7 * p < 2^31.
    let p = sm as u32 * mt;
    let above = |p: u32, e: i32, strict: bool| grid_above::<PREC, QMIN, INF>(p, e, strict);
    [
        above(p, e, true),
        above(3 * p, e, false),
        above(5 * p, e, true),
        above(7 * p, e, false),
        above(5 * p, e + 1, true),
        above(7 * p, e + 1, false),
        above(5 * p, e + 2, true),
    ]
}

/// The bits of the smallest value at least (`strict`: above) `p * 2^e`,
/// `p >= 2^23` (at least `PREC` bits), on the grid of
/// [`e2m1_threshold_bits`]; `INF` past its largest finite value. No
/// branch: a kernel computes seven per block.
#[inline(always)]
fn grid_above<const PREC: i32, const QMIN: i32, const INF: u32>(
    p: u32,
    e: i32,
    strict: bool,
) -> u32 {
    debug_assert!(p >= 1 << 23);
    let len = 32 - p.leading_zeros() as i32;
    // Below 2^(QMIN - 31) the value (`p < 2^31`) is below the quantum
    // 2^QMIN, as at 2^(QMIN - 31): its threshold is one quantum.
    let e = e.max(QMIN - 31);
    // Bits of `p` below the grid's quantum: `PREC` significant bits for a
    // normal value, the quantum 2^QMIN below (the larger of the two); 0 to
    // 31, as `p` has `PREC` bits or more.
    let shift = (len - PREC).max(QMIN - e) as u32;
    let kept = p.wrapping_shr(shift);
    // Up one quantum when strict (exact or not), else when inexact.
    let up = strict || kept.wrapping_shl(shift) != p;
    let kept = kept + u32::from(up);
    // `kept * 2^q` with q = e + shift >= QMIN: a normal value has kept in
    // 2^(PREC-1)..=2^PREC and its bits are ((q - QMIN) << (PREC - 1)) +
    // kept (a carry to 2^PREC is the next binade); a subnormal has q = QMIN
    // and bits `kept`. Below 2^32: q - QMIN < 300.
    let q = (e + shift as i32 - QMIN) as u32;
    (q.wrapping_shl((PREC - 1) as u32).wrapping_add(kept)).min(INF)
}

/// The E2M1 code of `x / (scale * tensor_scale)` rounded stochastically
/// with the random bits `r`, for a positive (non-zero, non-NaN) E4M3
/// `scale` and a finite positive `tensor_scale`: the quotient rounded to
/// nearest in `f64` (what `f32`-exact data gets on the host), then the
/// rounding routine with `r`, computed with integer arithmetic (a 64-bit
/// long division) instead of `f64`.
#[inline]
pub(in crate::formats) fn e2m1_stochastic_f32(
    x: f32,
    scale: E4M3,
    tensor_scale: f32,
    r: u32,
) -> u8 {
    let b = x.to_bits();
    let negative = b >> 31 == 1;
    let a = b & 0x7fff_ffff;
    let class = if a >= 0x7f80_0000 {
        if a == 0x7f80_0000 {
            Class::Infinite
        } else {
            Class::Nan
        }
    } else if a == 0 {
        Class::Zero
    } else {
        // x = mx * 2^(ex - 23); d = sm * mt * 2^(se + et - 23), d's integer
        // D = sm * mt in 2^23..2^28; q = (mx / D) * 2^(ex - se - et).
        let (mx, ex) = f32_parts(a);
        let (sm, se) = e4m3_parts(scale);
        let (mt, et) = f32_parts(tensor_scale.to_bits());
        // Never zero: `sm >= 1` for a positive scale and `mt` has bit 23
        // set (`max(1)` keeps any other byte from dividing by zero).
        let den = NonZeroU64::new(sm.max(1) * u64::from(mt)).unwrap_or(NonZeroU64::MAX);
        // mx / D = (q1 * 2^26 + q2 + sticky) * 2^-62, in two steps that fit
        // 64 bits: q1 in 2^31..2^37, the whole in 2^57..2^63.
        let n1 = u64::from(mx) << 36;
        let (q1, r1) = (n1 / den, n1 % den);
        let n2 = r1 << 26;
        let (q2, r2) = (n2 / den, n2 % den);
        let q = q1 << 26 | q2;
        let lz = q.leading_zeros() as i32;
        let sig = q << lz;
        // Round to the 53 bits of an f64, to nearest, ties to even (the
        // quotient is a normal f64: |exponent| < 300).
        let (keep, rest) = (sig >> 11, sig & 0x7ff);
        let up = rest > 0x400 || (rest == 0x400 && (r2 != 0 || keep & 1 == 1));
        let keep = keep + up as u64;
        let carry = (keep >> 53) as i32;
        let exp = 1 - lz + ex - se - et + carry;
        Class::Finite {
            exp,
            sig: (keep >> carry) << 11,
        }
    };
    FloatFormat::E2M1.round(Parts { negative, class }, Mode::SatFinite, Some(r)) as u8
}

/// The midpoints of the E2M1 magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6; a tie
/// at an even index stays down (the lower code is even), at an odd index
/// goes up.
pub(in crate::formats) const MIDS: [f64; 7] = [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0];

/// The `f32` thresholds of the E2M1 codes of `x / d` (`d > 0`): the code
/// of a magnitude `a` is the number of thresholds `u` with `a >= u`. `a > t`
/// and `a >= t` (`t` a midpoint times `d`, exact in `f64`) are `a >= u`
/// for the smallest `f32` `u` above (resp. at least) `t`: a tie at an even
/// index stays down, at an odd one goes up.
#[inline]
pub(in crate::formats) fn e2m1_thresholds(d: f64) -> [f32; 7] {
    let mut u = [0f32; 7];
    for (k, (&m, uk)) in MIDS.iter().zip(u.iter_mut()).enumerate() {
        let t = m * d;
        let mut c = t as f32;
        if (c as f64) < t || (k % 2 == 0 && c as f64 == t) {
            c = f32::from_bits(c.to_bits() + 1);
        }
        *uk = c;
    }
    u
}

/// The E2M1 magnitude code of the `f32` with bits `b` against the
/// thresholds `u` ([`e2m1_thresholds`]; more that no magnitude reaches may
/// follow, NaN ones for instance): how many of them `|x|` reaches.
#[inline(always)]
pub(in crate::formats) fn e2m1_magnitude_code(b: u32, u: &[f32]) -> u8 {
    let a = f32::from_bits(b & 0x7fff_ffff);
    u.iter().map(|&uk| (a >= uk) as u8).sum()
}

/// E2M1 codes of `x / d` (saturating), `d = scale * tensor_scale`; zeros of
/// `x`'s sign when `d` is zero. Round to nearest compares `|x|` with the
/// seven midpoints times `d` (exact in `f64`), which is the rounding of the
/// exact quotient without a division.
#[inline]
pub(in crate::formats) fn value_codes<S: Real>(
    xs: &[S],
    d: f64,
    rounding: Rounding,
    first: u64,
    out: &mut [u8],
) {
    if d == 0.0 {
        for (o, x) in out.iter_mut().zip(xs) {
            *o = if x.to_f64_exact().is_sign_negative() {
                8
            } else {
                0
            };
        }
        return;
    }
    match rounding {
        Rounding::Nearest if S::WIDENS => {
            // The same compares on f32 magnitudes: `a > t` and `a >= t`
            // (t an f64) are `a >= u` for the smallest f32 `u` above
            // (resp. at least) `t`, so the loop runs on f32 lanes.
            let u = e2m1_thresholds(d);
            for (o, x) in out.iter_mut().zip(xs) {
                let b = x.to_f32_odd().to_bits();
                *o = e2m1_magnitude_code(b, &u) | ((b >> 31) as u8) << 3;
            }
        }
        Rounding::Nearest => {
            // Midpoints of 0, 0.5, 1, 1.5, 2, 3, 4, 6; a tie goes up when
            // the lower code is odd (0.75, 1.75, 3.5).
            let t = MIDS.map(|m| m * d);
            for (o, x) in out.iter_mut().zip(xs) {
                let v = x.to_f64_exact();
                let a = v.abs();
                let code = (a > t[0]) as u8
                    + (a >= t[1]) as u8
                    + (a > t[2]) as u8
                    + (a >= t[3]) as u8
                    + (a > t[4]) as u8
                    + (a >= t[5]) as u8
                    + (a > t[6]) as u8;
                *o = code | ((v.is_sign_negative() as u8) << 3);
            }
        }
        Rounding::Stochastic { seed } => {
            for (k, (o, x)) in out.iter_mut().zip(xs).enumerate() {
                let q = quotient::<S>(x.to_f64_exact(), d);
                let r = random_bits(seed, first + k as u64);
                *o = FloatFormat::E2M1.round(Parts::from_f64(q), Mode::SatFinite, Some(r)) as u8;
            }
        }
    }
}

/// The largest magnitude of `xs` as an `f64` (exact), or `None` when `xs`
/// holds a NaN or an infinity (the block then gets the NaN scale). An empty
/// block has `amax` 0.
///
/// Device-callable.
///
/// # Examples
///
/// ```
/// use bitpack::formats::block_amax;
///
/// assert_eq!(block_amax(&[0.5f32, -3.0, 2.0]), Some(3.0));
/// assert_eq!(block_amax(&[1.0f32, f32::NAN]), None);
/// ```
#[inline]
pub fn block_amax<S: Real>(xs: &[S]) -> Option<f64> {
    let (amax, finite) = S::amax(xs);
    finite.then_some(amax)
}

/// The [`E8M0`] scale of an MX block of `F` whose largest magnitude is
/// `amax` ([`block_amax`]; `None` gives the NaN scale), under `rule`: what
/// [`MxArray::quantize_with`](crate::formats::MxArray::quantize_with) stores.
///
/// Device-callable.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, ScaleRule, mx_scale};
///
/// // floor(log2(6.5)) - 2 = 0: the scale 1.
/// assert_eq!(mx_scale::<E2M1>(Some(6.5), ScaleRule::Floor).to_f32(), 1.0);
/// // ceil(log2(6.5 / 6)) = 1: the scale 2.
/// assert_eq!(mx_scale::<E2M1>(Some(6.5), ScaleRule::RCeil).to_f32(), 2.0);
/// assert!(mx_scale::<E2M1>(None, ScaleRule::Floor).to_f32().is_nan());
/// ```
#[inline]
pub fn mx_scale<F: MxElement>(amax: Option<f64>, rule: ScaleRule) -> E8M0 {
    E8M0::from_bits(scale_code(amax.and_then(|a| shared_exponent::<F>(a, rule))))
}

/// The [`E8M0`] scale of an MX block of `F` whose largest magnitude has
/// the `f32` bits `amax_bits` (the sign bit is ignored; NaN and infinite
/// bits give the NaN scale), under `rule`: [`mx_scale`] of that amax,
/// computed from the bits with integer arithmetic (no `f64`: the GPU
/// kernels' path, and the host's for `f32`, `f16` and `bf16` data).
///
/// Device-callable.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, ScaleRule, mx_scale_f32};
///
/// assert_eq!(mx_scale_f32::<E2M1>(6.5f32.to_bits(), ScaleRule::Floor).to_f32(), 1.0);
/// assert_eq!(mx_scale_f32::<E2M1>(6.5f32.to_bits(), ScaleRule::RCeil).to_f32(), 2.0);
/// assert_eq!(mx_scale_f32::<E2M1>(0, ScaleRule::Ceil).to_bits(), 0); // 2^-127
/// assert!(mx_scale_f32::<E2M1>(f32::NAN.to_bits(), ScaleRule::Floor).to_f32().is_nan());
/// ```
#[inline]
pub fn mx_scale_f32<F: MxElement>(amax_bits: u32, rule: ScaleRule) -> E8M0 {
    let a = amax_bits & 0x7fff_ffff;
    if a >= 0x7f80_0000 {
        return E8M0::from_bits(0xff);
    }
    if a == 0 {
        return E8M0::from_bits(0);
    }
    // floor(log2(a)) and the 23 fraction bits of a's significand.
    let (m, fl) = f32_parts(a);
    let e = rule_exponent::<F>(fl, u64::from(m & 0x7f_ffff), 23, rule);
    // From an `f32`, `e` stays below 127; clamped below at -127.
    E8M0::from_bits((e.max(-127) + 127) as u8)
}

/// [`mx_scale_f32`] without a branch (on the rule, on subnormals, on the
/// special amaxes): the GPU kernels' version, where a branch on a launch's
/// rule would keep four copies of the per-block code in the loop. The host
/// keeps the branches, which its predictor makes free (this version cost
/// the host's MX quantize about 20%).
#[inline(always)]
pub(in crate::formats) fn mx_scale_f32_branchless<F: MxElement>(
    amax_bits: u32,
    rule: ScaleRule,
) -> E8M0 {
    let a = amax_bits & 0x7fff_ffff;
    // floor(log2(a)) and the 23 fraction bits of a's significand (`a =
    // 0` is replaced below).
    let (m, fl) = f32_parts_branchless(a);
    let frac = m & 0x7f_ffff;
    // `rule_exponent` at 23 bits, each rule's step computed and one taken
    // by masks (no jump on the rule).
    let mb = F::FORMAT.mantissa_bits;
    let max_frac =
        const { (log2_parts(F::FORMAT.decode_f64(F::FORMAT.max_code())).1 >> 29) as u32 };
    let ceil = u32::from(frac != 0);
    let even = (frac + (1 << (22 - mb))) >> 23;
    let rceil = u32::from(frac > max_frac);
    let mask = |r: ScaleRule| u32::from(rule == r).wrapping_neg();
    let step = (ceil & mask(ScaleRule::Ceil))
        | (even & mask(ScaleRule::Even))
        | (rceil & mask(ScaleRule::RCeil));
    let e = fl - F::EMAX + step as i32;
    // From an `f32`, `e` stays below 127; clamped below at -127.
    let code = (e.max(-127) + 127) as u8;
    E8M0::from_bits(if a >= 0x7f80_0000 {
        0xff
    } else if a == 0 {
        0
    } else {
        code
    })
}

/// [`mx_scale_f32`] as the one-pass host kernel computes it
/// ([`MxScaleBits`](crate::kernels::MxScaleBits): for amax bits `a` below
/// infinity's, the code `max(((a + add) >> 23) - emax, 0)`), for `F` and
/// `rule`; `None` where `F`'s largest exponent is below 2 (the formula's
/// range; no shipped MX format).
///
/// Why it holds: every rule is `floor(log2(amax)) - emax` plus a step of 0
/// or 1 that depends on the 23 fraction bits alone, `(frac + add) >> 23`
/// for the rule's `add`, and `a + add` carries that step into the exponent
/// field. Below the smallest normal `f32` (and for zero) the code is 0
/// either way, the clamp's (`emax >= 1`), and with `emax >= 2` no finite
/// amax reaches code 254. `mx_scale_bits_match` checks it against
/// [`mx_scale_f32`].
#[cfg(feature = "alloc")]
pub(in crate::formats) const fn mx_scale_bits<F: MxElement>(
    rule: ScaleRule,
) -> Option<crate::kernels::MxScaleBits> {
    if F::EMAX < 2 {
        return None;
    }
    let add = match rule {
        ScaleRule::Floor => 0,
        ScaleRule::Ceil => 0x7f_ffff,
        ScaleRule::Even => 1 << (22 - F::FORMAT.mantissa_bits),
        ScaleRule::RCeil => {
            let max_frac = log2_parts(F::FORMAT.decode_f64(F::FORMAT.max_code())).1 >> 29;
            0x7f_ffff - max_frac as u32
        }
    };
    Some(crate::kernels::MxScaleBits {
        add,
        emax: F::EMAX as u32,
    })
}

/// The codes of `xs`, values of one MX block (or a part of one) whose scale
/// is `scale`: `x / scale` rounded into `F`, saturating, with `rounding`
/// (element `k` of `xs` has row-major index `first + k`, which seeds the
/// stochastic rounding). A NaN scale gives `+0` codes. `codes` and `xs`
/// have the same length (the shorter one bounds the work).
///
/// Device-callable.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, E8M0, Rounding, mx_codes};
///
/// let mut codes = [0u8; 3];
/// mx_codes::<E2M1, f32>(&[1.0, -3.0, 13.0], E8M0::from_f32(2.0), Rounding::Nearest, 0, &mut codes);
/// assert_eq!(codes, [0b0001, 0b1011, 0b0111]); // 0.5, -1.5, 6 (clamped)
/// ```
#[inline]
pub fn mx_codes<F: MxElement, S: Real>(
    xs: &[S],
    scale: E8M0,
    rounding: Rounding,
    first: u64,
    codes: &mut [u8],
) {
    let Some(e) = scale_exponent(scale) else {
        codes.iter_mut().for_each(|c| *c = 0);
        return;
    };
    match rounding {
        Rounding::Nearest if S::WIDENS => {
            // Pairs of lanes: one packed `cvt` on GPUs that have it for `F`.
            let f = inv_pow2_f32(e);
            let mask = (1u16 << F::BITS) - 1;
            let mut out = codes.chunks_exact_mut(2);
            let mut src = xs.chunks_exact(2);
            for (c, x) in (&mut out).zip(&mut src) {
                let (a, b) = (mx_operand(x[0], f), mx_operand(x[1], f));
                let pair = crate::kernels::fixed::encode_pair::<F>(a, b, Mode::SatFinite);
                c[0] = (pair & mask) as u8;
                c[1] = (pair >> F::BITS) as u8;
            }
            if let ([c], [x, ..]) = (out.into_remainder(), src.remainder()) {
                *c = crate::kernels::fixed::encode::<F>(mx_operand(*x, f), Mode::SatFinite)
                    .raw_bits();
            }
        }
        _ => {
            for (k, (c, &x)) in codes.iter_mut().zip(xs).enumerate() {
                *c = mx_code::<F, S>(x, e, rounding, first + k as u64);
            }
        }
    }
}

/// The [`E4M3`] scale of an NVFP4 block whose largest magnitude is `amax`
/// ([`block_amax`]; `None` gives the NaN scale `0x7f`), for the tensor
/// scale `tensor_scale` and the rule `tiny`: `E4M3(amax / (6 *
/// tensor_scale))`, rounded once, what
/// [`Nvfp4Array::quantize_with`](crate::formats::Nvfp4Array::quantize_with) stores.
/// `S` is the type of the data (`f64` data needs a corrected quotient).
///
/// Device-callable.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{TinyScale, nvfp4_scale};
///
/// let s = nvfp4_scale::<f32>(Some(3.0), 0.25, TinyScale::Flush);
/// assert_eq!(s.to_f32(), 2.0); // 3 / (6 * 0.25)
/// ```
#[inline]
pub fn nvfp4_scale<S: Real>(amax: Option<f64>, tensor_scale: f32, tiny: TinyScale) -> E4M3 {
    match amax {
        // `f32`-exact data: the amax is an `f32`.
        Some(a) if S::WIDENS => nvfp4_scale_f32((a as f32).to_bits(), tensor_scale, tiny),
        Some(_) if !(tensor_scale > 0.0 && tensor_scale.is_finite()) => E4M3::NAN,
        Some(a) => block_scale::<S>(a, tensor_scale as f64, tiny),
        None => E4M3::NAN,
    }
}

/// The E2M1 codes of `xs`, values of one NVFP4 block whose scale is `scale`:
/// `x / (scale * tensor_scale)` rounded once into E2M1, saturating, with
/// `rounding` (`first` as in [`mx_codes`]). A zero scale gives zeros of
/// each value's sign, a NaN scale `+0` codes.
///
/// Device-callable.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E4M3, Rounding, nvfp4_codes};
///
/// let mut codes = [0u8; 2];
/// nvfp4_codes::<f32>(&[3.0, -0.5], E4M3::from_f32(2.0), 0.25, Rounding::Nearest, 0, &mut codes);
/// assert_eq!(codes, [0b0111, 0b1010]); // 3 / 0.5 = 6, -0.5 / 0.5 = -1
/// ```
#[inline]
pub fn nvfp4_codes<S: Real>(
    xs: &[S],
    scale: E4M3,
    tensor_scale: f32,
    rounding: Rounding,
    first: u64,
    codes: &mut [u8],
) {
    if scale.to_bits() & 0x7f == 0x7f {
        codes.iter_mut().for_each(|c| *c = 0);
        return;
    }
    if let (true, 1..0x7f) = (S::WIDENS, scale.to_bits()) {
        // `f32`-exact data under a positive scale: no `f64`.
        match rounding {
            Rounding::Nearest => {
                // Compares with the thresholds.
                let u = e2m1_thresholds_f32(scale, tensor_scale);
                for (o, x) in codes.iter_mut().zip(xs) {
                    let b = x.to_f32_odd().to_bits();
                    *o = e2m1_magnitude_code(b, &u) | ((b >> 31) as u8) << 3;
                }
            }
            Rounding::Stochastic { seed } => {
                for (k, (o, x)) in codes.iter_mut().zip(xs).enumerate() {
                    let r = random_bits(seed, first + k as u64);
                    *o = e2m1_stochastic_f32(x.to_f32_odd(), scale, tensor_scale, r);
                }
            }
        }
        return;
    }
    // Exact: a 4-bit significand times a 24-bit one.
    let d = Tables::<E4M3>::DECODE_F32[scale.to_bits() as usize] as f64 * tensor_scale as f64;
    value_codes::<S>(xs, d, rounding, first, codes);
}

/// The value of code `x` of an MX block whose scale is `scale`: `x *
/// scale` in `f32` (exact; NaN for the NaN scale), what
/// [`MxArray::dequantize`](crate::formats::MxArray::dequantize) gives.
///
/// Device-callable.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, E8M0, mx_value};
///
/// assert_eq!(mx_value(E2M1::from_f32(-1.5), E8M0::from_f32(4.0)), -6.0);
/// ```
#[inline]
pub fn mx_value<F: MxElement>(x: F, scale: E8M0) -> f32 {
    crate::kernels::fixed::decode(x) * e8m0_f32(scale)
}

/// The value of an [`E8M0`] scale: 2^(c - 127) from its bits (2^-127 is
/// the subnormal 0x0040_0000; NaN for 0xff), no `f64` on the way, the
/// value `to_f32` gives.
#[inline(always)]
pub(in crate::formats) fn e8m0_f32(scale: E8M0) -> f32 {
    match scale.to_bits() {
        0xff => f32::NAN,
        0 => f32::from_bits(0x0040_0000),
        c => f32::from_bits(u32::from(c) << 23),
    }
}

/// The value of code `x` of an NVFP4 block whose scale is `scale`: `x *
/// scale * tensor_scale` rounded once to `f32` (in `f32` arithmetic: `x *
/// scale` is exact), what [`Nvfp4Array::dequantize`](crate::formats::Nvfp4Array::dequantize)
/// gives.
///
/// Device-callable.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, E4M3, nvfp4_value};
///
/// assert_eq!(nvfp4_value(E2M1::from_f32(3.0), E4M3::from_f32(2.0), 0.25), 1.5);
/// ```
#[inline]
pub fn nvfp4_value(x: E2M1, scale: E4M3, tensor_scale: f32) -> f32 {
    // `x * scale` is exact in `f32` (2 + 4 significant bits, at least
    // 2^-10), so one `f32` product rounds the exact value once.
    let s = Tables::<E4M3>::DECODE_F32[scale.to_bits() as usize];
    crate::kernels::fixed::decode(x) * s * tensor_scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::types::{E2M3, E3M2, E5M2};

    const RULES: [ScaleRule; 4] = [
        ScaleRule::Floor,
        ScaleRule::Ceil,
        ScaleRule::Even,
        ScaleRule::RCeil,
    ];

    /// 23-bit fractions at and around the scale rules' edges: 0, 1, 2, the
    /// largest two, the middle and below it, and each bit alone, with its
    /// neighbours and in the complement.
    fn edge_fracs() -> alloc::vec::Vec<u32> {
        let mut fracs = alloc::vec![0u32, 1, 2, 0x7f_ffff, 0x7f_fffe, 0x40_0000, 0x3f_ffff];
        for k in 0..23 {
            fracs.extend([1 << k, (1 << k) - 1, (1 << k) + 1, 0x7f_ffff ^ (1 << k)]);
        }
        fracs
    }

    /// `mx_scale_f32_branchless` against `mx_scale_f32`: every exponent
    /// (subnormals, zero, infinity and NaN included) with fractions at and
    /// around each rule's edges, every rule, every format.
    #[test]
    fn mx_scale_branchless_matches() {
        fn check<F: MxElement>() {
            let fracs = edge_fracs();
            for field in 0..=255u32 {
                for &f in &fracs {
                    for sign in [0, 0x8000_0000] {
                        let a = sign | field << 23 | (f & 0x7f_ffff);
                        for rule in RULES {
                            assert_eq!(
                                mx_scale_f32_branchless::<F>(a, rule).to_bits(),
                                mx_scale_f32::<F>(a, rule).to_bits(),
                                "amax bits {a:#010x}, {rule:?}"
                            );
                        }
                    }
                }
            }
        }
        check::<E2M1>();
        check::<E2M3>();
        check::<E3M2>();
        check::<E4M3>();
        check::<E5M2>();
    }

    /// `Nvfp4Scaler::scale_lanes` against `Nvfp4Scaler::scale`: amaxes of
    /// every exponent field (subnormals, zero, infinity, NaN) with
    /// fractions at and around the edges, for tensor scales across the
    /// range (and bad ones), every tiny rule.
    #[test]
    fn scale_lanes_match() {
        let mut fracs = edge_fracs();
        fracs.push(0x2a_aaab);
        let mut amaxes = alloc::vec::Vec::new();
        for field in 0..=255u32 {
            for &f in &fracs {
                amaxes.push(field << 23 | (f & 0x7f_ffff) | (f & 1) << 31);
            }
        }
        // And pseudo-random ones (xorshift), which reach every quotient.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u32
        };
        amaxes.extend((0..1 << 14).map(|_| next()));
        let mut tensor_scales = alloc::vec![
            1.0f32,
            1.0 / 3.0,
            448.0 * 6.0,
            1e-30,
            1e30,
            3.5e-40,
            0.7,
            12345.678,
            f32::MAX,
            f32::MIN_POSITIVE,
            0.0,
            -1.0,
            f32::INFINITY,
            f32::NAN,
        ];
        tensor_scales.extend((0..24).map(|_| f32::from_bits(next() % 0x7f80_0000)));
        for ts in tensor_scales {
            // The amaxes nearest `m * 6 * ts` for each midpoint `m` between
            // two E4M3 values (the quotient's ties), and their neighbours up
            // to 8 units in the last place away, a distance per run of 16:
            // the product's doubt, both sides of it.
            let mut near = amaxes.clone();
            if ts > 0.0 && ts.is_finite() {
                let mids: alloc::vec::Vec<f64> = (0..0x7eu8)
                    .map(|c| {
                        let v = |c: u8| f64::from(E4M3::from_bits(c).to_f32());
                        (v(c) + v(c + 1)) / 2.0
                    })
                    .collect();
                for d in -8i32..=8 {
                    for &m in &mids {
                        let a = (m * 6.0 * f64::from(ts)) as f32;
                        if a.is_finite() && a > 0.0 {
                            near.push(a.to_bits().wrapping_add_signed(d));
                        }
                    }
                }
            }
            for tiny in [TinyScale::Flush, TinyScale::Smallest, TinyScale::MinNormal] {
                let scaler = Nvfp4Scaler::new(ts, tiny);
                for lanes in near.chunks_exact(16) {
                    let lanes: &[u32; 16] = lanes.try_into().unwrap();
                    let got = scaler.scale_lanes(lanes);
                    for (&a, &g) in lanes.iter().zip(&got) {
                        assert_eq!(
                            g,
                            scaler.scale(a).to_bits(),
                            "amax bits {a:#010x}, tensor scale {ts:e}, {tiny:?}"
                        );
                    }
                }
            }
        }
    }

    /// `mx_scale_bits` (the one-pass kernel's formula) against
    /// `mx_scale_f32`: every exponent field with fractions at and around
    /// each rule's edges and the format's largest value's fraction, every
    /// rule, every format; code and factor, and no scale for infinities
    /// and NaNs.
    #[test]
    fn mx_scale_bits_match() {
        fn check<F: MxElement>() {
            let max_frac = (log2_parts(F::FORMAT.decode_f64(F::FORMAT.max_code())).1 >> 29) as u32;
            let mut fracs = edge_fracs();
            for d in [0u32, 1, 2] {
                fracs.push(max_frac + d);
                fracs.push(max_frac.wrapping_sub(d) & 0x7f_ffff);
            }
            for rule in RULES {
                let bits = mx_scale_bits::<F>(rule).expect("every shipped format");
                for field in 0..=255u32 {
                    for &f in &fracs {
                        let a = field << 23 | (f & 0x7f_ffff);
                        let want = mx_scale_f32::<F>(a, rule);
                        let want = scale_exponent(want).map(|e| (want.to_bits(), inv_pow2_f32(e)));
                        let got = bits.scale(a);
                        assert_eq!(
                            got.map(|(c, f)| (c, f.to_bits())),
                            want.map(|(c, f)| (c, f.to_bits())),
                            "amax bits {a:#010x}, {rule:?}"
                        );
                    }
                }
            }
        }
        check::<E2M1>();
        check::<E2M3>();
        check::<E3M2>();
        check::<E4M3>();
        check::<E5M2>();
    }
}
