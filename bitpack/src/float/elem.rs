//! Table-free conversions between `f32` and the small float formats, generic
//! over [`MiniFloat`]: the element functions (and the format constants they
//! are built from, [`EncodeConsts`]) that the portable, SIMD and device
//! kernels monomorphize into their loops. The bulk paths over slices and
//! streams are built on them elsewhere.
//!
//! [`FloatFormat::encode_f32`] is the crate's one rounding routine: exact
//! for every format, but built from branches on the input's class. The
//! functions here compute the same codes without branches (selects only), so
//! that a loop of them vectorizes, for the formats whose rules they cover
//! ([`encode_fast_ok`], [`decode_fast_ok`]); the bulk paths fall back to the
//! routine (or the decode table) for the others. E8M0 has a branch-free
//! pair of its own ([`e8m0_encode`], [`e8m0_decode`]); the FNUZ formats
//! encode through the routine. Stochastic rounding has its branch-free
//! forms too ([`encode_stochastic`] of an `f32` scaled by a power of two,
//! [`encode_stochastic_f64`] of a quotient, and the slice loop
//! [`encode_stochastic_slice`] that draws the random bits). The tests
//! compare both directions against the routine on every code and on
//! millions of inputs, in both modes.

use super::{FloatFormat, MiniFloat, Mode, Overflow, Specials, Ties, random_bits};

/// Whether [`encode_fast`] covers `f`: a signed format of at most 8 bits with
/// subnormals, ties to even, no `NegativeZeroNan`, at most 22 mantissa bits,
/// and a smallest subnormal far above `f32`'s subnormals (so that every
/// subnormal `f32` input rounds to zero).
pub(crate) const fn encode_fast_ok(f: &FloatFormat) -> bool {
    f.signed
        && f.subnormals
        && matches!(f.ties, Ties::Even)
        && !matches!(f.specials, Specials::NegativeZeroNan)
        && f.mantissa_bits <= 22
        && f.bits() <= 8
        && 1 - f.bias - f.mantissa_bits as i32 >= -100
        && f.max_exponent() <= 100
}

/// How a format's NaN codes depend on the input's sign.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum NanCodes {
    /// The negative NaN code is the positive one with the sign bit or-ed in
    /// (every format with a NaN): only the magnitude is chosen.
    Signed,
    /// One NaN code for both signs.
    Same,
    /// Two unrelated codes.
    Split,
}

/// The constants of [`encode_fast`] and of its SIMD builds: everything that
/// depends on the format and the mode only, computed once at compile time
/// (`const { EncodeConsts::of(&F::FORMAT, SAT) }`) from the rounding
/// routine's own rules ([`FloatFormat::nan_result`] and
/// [`FloatFormat::overflowed`]), so the branch-free paths restate none of
/// them.
#[derive(Clone, Copy)]
pub(crate) struct EncodeConsts {
    /// The bit the sign is moved to.
    pub(crate) sign_shift: u32,
    /// `23 - m`: the mantissa bits of `f32` rounded away.
    pub(crate) shift: u32,
    /// The largest finite magnitude code.
    pub(crate) max: u32,
    /// The magnitude bits of the code an overflow (or an infinite input)
    /// gives; the sign is or-ed in by the caller.
    pub(crate) over_mag: u32,
    /// The codes a NaN input gives, by sign.
    pub(crate) nan_pos: u32,
    /// See [`nan_pos`](Self::nan_pos).
    pub(crate) nan_neg: u32,
    /// How [`nan_neg`](Self::nan_neg) relates to [`nan_pos`](Self::nan_pos).
    pub(crate) nan: NanCodes,
    /// Whether the overflow is a clamp (`min`) rather than a compare and a
    /// select: its magnitude is the largest finite one or one above it.
    #[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
    pub(crate) clamp: bool,
    /// `(127 - bias) << m`: subtracted from the rounded `f32` bits to
    /// rebias a normal result.
    pub(crate) rebias: i32,
    /// The `f32` bits of the add that rounds to the subnormal quantum.
    pub(crate) magic: u32,
    /// The `f32` bits of the smallest normal value of the format.
    pub(crate) min_normal: i32,
}

impl EncodeConsts {
    /// The constants of `f` in the saturating mode (`sat`) or not.
    pub(crate) const fn of(f: &FloatFormat, sat: bool) -> EncodeConsts {
        let mode = Mode::from_satfinite(sat);
        let m = f.mantissa_bits;
        let sign_shift = f.exponent_bits + f.mantissa_bits;
        let mag_mask = (1 << sign_shift) - 1;
        let max = f.max_code();
        let over_mag = f.overflowed(false, mode) & mag_mask;
        let nan_pos = f.nan_result(false, mode);
        let nan_neg = f.nan_result(true, mode);
        let nan = if nan_neg == nan_pos | 1 << sign_shift {
            NanCodes::Signed
        } else if nan_neg == nan_pos {
            NanCodes::Same
        } else {
            NanCodes::Split
        };
        let emin = 1 - f.bias;
        EncodeConsts {
            sign_shift,
            shift: 23 - m,
            max,
            over_mag,
            nan_pos,
            nan_neg,
            nan,
            clamp: over_mag == max || over_mag == max + 1,
            rebias: (127 - f.bias) << m,
            magic: ((127 + emin - m as i32 + 23) as u32) << 23,
            min_normal: (127 + emin) << 23,
        }
    }
}

impl EncodeConsts {
    /// The code of a value of sign bit `sign` (at its place in the code, or
    /// 0) and finite magnitude code `mag`, or for a NaN input (`nan`) the
    /// NaN code of its sign: with [`NanCodes::Signed`] (every format with a
    /// NaN) the positive one with the sign or-ed in, so only the magnitude
    /// is chosen. The tail of every branch-free encode.
    #[inline(always)]
    pub(crate) fn signed_code(&self, sign: u32, nan: bool, mag: u32) -> u8 {
        if self.nan == NanCodes::Signed {
            (sign | if nan { self.nan_pos } else { mag }) as u8
        } else {
            let nan_code = if sign != 0 {
                self.nan_neg
            } else {
                self.nan_pos
            };
            (if nan { nan_code } else { sign | mag }) as u8
        }
    }
}

/// `F::FORMAT.encode_f32(x, mode)` without branches, `SAT` selecting
/// [`Mode::SatFinite`]. Only for formats
/// with [`encode_fast_ok`].
///
/// Normal results round the `f32` bits to `M` mantissa bits with the
/// integer trick `(a + 2^(22 - M) - 1 + lsb) >> (23 - M)` (ties to even) and
/// rebias; subnormal results come from adding `2^(emin - M + 23)`, which
/// makes the FPU round to the subnormal quantum (ties to even); anything
/// above the largest finite code takes the overflow rule.
#[inline(always)]
pub(crate) fn encode_fast<F: MiniFloat, const SAT: bool>(x: f32) -> u8 {
    // Everything that depends on the format only is a compile-time constant
    // (`const` blocks: the format's methods are not inlined across crates).
    let k = const { EncodeConsts::of(&F::FORMAT, SAT) };
    let bits = x.to_bits();
    let sign = (bits >> 31) << k.sign_shift;
    // Every quantity below is under 2^31, so the compares are signed (one
    // instruction each where unsigned ones are two).
    let a = (bits & 0x7fff_ffff) as i32;
    // Normal range: round the mantissa on the integer bits, then rebias.
    // Infinity lands above every finite code, so it overflows like one.
    let shift = k.shift;
    // (Wraps only for NaN inputs, whose result is replaced below.)
    let r = a.wrapping_add((1 << (shift - 1)) - 1 + ((a >> shift) & 1));
    let normal = (r >> shift).wrapping_sub(k.rebias);
    // Subnormal range: the FPU rounds to the quantum 2^(emin - m). Inputs
    // below the smallest normal f32 are raised to it first (they all round
    // to zero), so the add never sees a subnormal operand, which x86 handles
    // slowly.
    let magic = f32::from_bits(k.magic);
    let sub = (f32::from_bits(a.max(0x0080_0000) as u32) + magic).to_bits() as i32
        - magic.to_bits() as i32;
    let mag = if a < k.min_normal { sub } else { normal };
    let mag = if mag > k.max as i32 {
        k.over_mag as i32
    } else {
        mag
    };
    k.signed_code(sign, a > 0x7f80_0000, mag as u32)
}

/// `F::FORMAT.round(Parts::from_f32(x).scaled(e), mode, Some(random))`
/// without branches, `SAT` selecting [`Mode::SatFinite`]: `x * 2^-e`
/// (exact, whatever `e`) rounded stochastically (see
/// [`FloatFormat::encode_f32_stochastic`]). Only for formats with
/// [`encode_fast_ok`] and `e` in `-127..=127` (the exponents of the E8M0
/// scales, and 0).
///
/// All on the integer bits: the magnitude is `s * 2^(eb - 150)` with `s`
/// its 24-bit significand (an `f32` subnormal is normalized through its
/// bits' exact conversion to `f32`) and `eb` its biased exponent less `e`;
/// the result's quantum drops the low `drop = 23 - M + max(emin - exp, 0)`
/// bits of `s`; the bits above them give the truncated code, and the next
/// 32 below the quantum (`s << (32 - drop)` or `s >> (drop - 32)`,
/// whichever is in range),
/// which round up when adding `random` carries out of 32 bits. Codes are
/// consecutive across binades (a carry out of the mantissa is the next
/// exponent), so the normal code is `(exp - emin) << M` plus the
/// significand's kept bits.
#[inline(always)]
pub(crate) fn encode_stochastic<F: MiniFloat, const SAT: bool>(x: f32, e: i32, random: u32) -> u8 {
    debug_assert!((-127..=127).contains(&e));
    let k = const { EncodeConsts::of(&F::FORMAT, SAT) };
    let m = const { F::FORMAT.mantissa_bits as i32 };
    // The smallest normal exponent, biased as `f32`'s.
    let tb = const { 128 - F::FORMAT.bias };
    let bits = x.to_bits();
    let sign = (bits >> 31) << k.sign_shift;
    let a = (bits & 0x7fff_ffff) as i32;
    // An `f32` subnormal `a * 2^-149` is normalized by converting `a`
    // (below 2^23: exact) to `f32`; zero becomes `2^23 * 2^-299`, far below
    // every quantum, so its code is zero.
    let c = (a as f32).to_bits() as i32;
    let sub = a < 0x0080_0000;
    let eb = if sub { (c >> 23) - 149 } else { a >> 23 } - e;
    let s = ((if sub { c } else { a } & 0x007f_ffff) | 0x0080_0000) as u32;
    let drop = (23 - m) + (tb - eb).max(0);
    // Shifts by `n`, zero where `n` is out of `0..32` (what `vpsrlvd` and
    // `vpsllvd` give).
    let shr = |v: u32, n: i32| if (n as u32) < 32 { v >> n } else { 0 };
    let shl = |v: u32, n: i32| if (n as u32) < 32 { v << n } else { 0 };
    let kept = shr(s, drop) as i32;
    let frac = shl(s, 32 - drop) | shr(s, drop - 32);
    let up = (frac.wrapping_add(random) < random) as i32;
    let code = ((eb.max(tb) - tb) << m) + kept + up;
    // Infinity (whatever `e`) and anything above the largest finite code
    // overflow.
    let mag = if code > k.max as i32 || a >= 0x7f80_0000 {
        k.over_mag
    } else {
        code as u32
    };
    k.signed_code(sign, a > 0x7f80_0000, mag)
}

/// `F::FORMAT.round(Parts::from_f64(q), mode, Some(random))` with the
/// sign of `negative` instead of `q`'s, without branches, `SAT` selecting
/// [`Mode::SatFinite`]: [`encode_stochastic`] on the bits of an `f64`.
/// Only for formats with [`encode_fast_ok`] (whose quanta lie so far above
/// `f64`'s subnormals that a subnormal `q` is only a fraction below 2^-32
/// of one: taken as it is, it rounds to zero as the routine's does).
///
/// With 52 mantissa bits the dropped part is always wider than 32 bits, so
/// its first 32 are `s >> (drop - 32)` (zero where that shift is 64 or
/// more).
#[inline(always)]
pub(crate) fn encode_stochastic_f64<F: MiniFloat, const SAT: bool>(
    q: f64,
    negative: bool,
    random: u32,
) -> u8 {
    let k = const { EncodeConsts::of(&F::FORMAT, SAT) };
    let m = const { F::FORMAT.mantissa_bits as i64 };
    // The smallest normal exponent, biased as `f64`'s.
    let tb = const { 1024 - F::FORMAT.bias as i64 };
    let sign = (negative as u32) << k.sign_shift;
    let a = q.to_bits() & 0x7fff_ffff_ffff_ffff;
    let field = (a >> 52) as i64;
    let eb = field.max(1);
    let s = (a & 0x000f_ffff_ffff_ffff) | ((field != 0) as u64) << 52;
    let drop = (52 - m) + (tb - eb).max(0);
    let shr = |v: u64, n: i64| if (n as u64) < 64 { v >> n } else { 0 };
    let kept = shr(s, drop) as i64;
    let frac = shr(s, drop - 32) as u32;
    let up = (frac.wrapping_add(random) < random) as i64;
    let code = ((eb.max(tb) - tb) << m) + kept + up;
    let inf = 0x7ff0_0000_0000_0000;
    let mag = if code > k.max as i64 || a >= inf {
        k.over_mag
    } else {
        code as u32
    };
    k.signed_code(sign, a > inf, mag)
}

/// How the values of [`encode_stochastic_slice`] are scaled before they
/// round.
#[derive(Clone, Copy)]
#[cfg_attr(
    not(feature = "alloc"),
    allow(
        dead_code,
        reason = "the MX and NVFP4 arrays scale by exponents and divisors"
    )
)]
pub(crate) enum StochasticScale<'a> {
    /// Not at all.
    One,
    /// Value `i` times `2^-exps[i]` (each in `-127..=127`):
    /// [`encode_stochastic`].
    Exps(&'a [i32]),
    /// Value `i` divided by `divisors[i]` in `f64` (rounded to nearest),
    /// then [`encode_stochastic_f64`].
    Divisors(&'a [f64]),
}

/// Values per step of [`encode_stochastic_slice`]: their random bits are
/// drawn together (a loop that vectorizes), then their codes.
const STOCHASTIC_STEP: usize = 64;

/// `codes[i]` = the code of value `i` of `src` scaled by `scale`, rounded
/// stochastically with `random_bits(seed, first + i)` ([`encode_stochastic`]
/// or [`encode_stochastic_f64`]), for as many values as both slices hold:
/// the portable loop, which the SIMD builds compile with their features.
/// Only for formats with [`encode_fast_ok`].
#[inline(always)]
pub(crate) fn encode_stochastic_slice<F: MiniFloat, const SAT: bool>(
    src: &[f32],
    scale: StochasticScale<'_>,
    (seed, first): (u64, u64),
    codes: &mut [u8],
) {
    let n = src.len().min(codes.len());
    let mut random = [0u32; STOCHASTIC_STEP];
    for at in (0..n).step_by(STOCHASTIC_STEP) {
        let len = STOCHASTIC_STEP.min(n - at);
        let base = first.wrapping_add(at as u64);
        for (j, r) in random.iter_mut().enumerate() {
            *r = random_bits(seed, base.wrapping_add(j as u64));
        }
        let (c, x) = (&mut codes[at..at + len], &src[at..at + len]);
        match scale {
            StochasticScale::One => {
                for ((c, &x), &r) in c.iter_mut().zip(x).zip(&random) {
                    *c = encode_stochastic::<F, SAT>(x, 0, r);
                }
            }
            StochasticScale::Exps(e) => {
                let e = &e[at..at + len];
                for (((c, &x), &e), &r) in c.iter_mut().zip(x).zip(e).zip(&random) {
                    *c = encode_stochastic::<F, SAT>(x, e, r);
                }
            }
            StochasticScale::Divisors(d) => {
                let d = &d[at..at + len];
                for (((c, &x), &d), &r) in c.iter_mut().zip(x).zip(d).zip(&random) {
                    let q = f64::from(x.abs()) / d;
                    *c = encode_stochastic_f64::<F, SAT>(q, x.is_sign_negative(), r);
                }
            }
        }
    }
}

/// Whether [`decode_fast`] covers `f`: at most 8 bits, with subnormals, and
/// every normal value a normal `f32`.
pub(crate) const fn decode_fast_ok(f: &FloatFormat) -> bool {
    f.subnormals
        && f.bits() <= 8
        && 1 - f.bias >= -126
        && ((1 << f.exponent_bits) - 1) - f.bias <= 127
}

/// `F::FORMAT.decode_f32(code)` without branches, bit for bit (NaN codes
/// give `0x7fc00000` with the code's sign). Only for formats with
/// [`decode_fast_ok`].
///
/// A normal code's bits are rebiased into `f32` bits; a subnormal code `m`
/// is computed as `2^emin * (1 + m / 2^M) - 2^emin`, exact (Sterbenz), so no
/// `f32` subnormal is ever an operand.
#[inline(always)]
pub(crate) fn decode_fast<F: MiniFloat>(code: u8) -> f32 {
    let (e, m) = const { (F::FORMAT.exponent_bits, F::FORMAT.mantissa_bits) };
    let (bias, signed) = const { (F::FORMAT.bias, F::FORMAT.signed) };
    let specials = const { F::FORMAT.specials };
    let mag_mask = (1u32 << (e + m)) - 1;
    let c = code as u32;
    let mag = c & mag_mask;
    let negative = signed && (c >> (e + m)) & 1 == 1;
    let field = mag >> m;
    let bits = (mag << (23 - m)) + (((127 - bias) as u32) << 23);
    let min_normal = f32::from_bits(((127 + 1 - bias) as u32) << 23);
    let sub = f32::from_bits(bits + (1 << 23)) - min_normal;
    let v = if field == 0 { sub.to_bits() } else { bits };
    let all_ones = (1u32 << e) - 1;
    let v = match specials {
        Specials::FiniteOnly => v,
        Specials::Ieee => {
            if field == all_ones {
                if mag & ((1 << m) - 1) == 0 {
                    0x7f80_0000
                } else {
                    0x7fc0_0000
                }
            } else {
                v
            }
        }
        Specials::AllOnesNan => {
            if mag == mag_mask {
                0x7fc0_0000
            } else {
                v
            }
        }
        Specials::NegativeZeroNan => {
            if negative && mag == 0 {
                0x7fc0_0000
            } else {
                v
            }
        }
    };
    f32::from_bits(v | (negative as u32) << 31)
}

/// The `f32` bits [`decode_fast`] gives code `code` of `f` (a
/// [`decode_fast_ok`] format), computed with integers alone, so that tables
/// of them are constants: a subnormal code's mantissa is normalized by its
/// leading bit where `decode_fast` subtracts in `f32`.
#[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
pub(crate) const fn code_f32_bits(f: &FloatFormat, code: u32) -> u32 {
    let (e, m) = (f.exponent_bits, f.mantissa_bits);
    let mag_mask = (1u32 << (e + m)) - 1;
    let mag = code & mag_mask;
    let negative = f.signed && (code >> (e + m)) & 1 == 1;
    let field = mag >> m;
    let mant = mag & ((1 << m) - 1);
    let v = if field > 0 {
        ((field as i32 + 127 - f.bias) as u32) << 23 | mant << (23 - m)
    } else if mant == 0 {
        0
    } else {
        // `mant * 2^(1 - bias - m)`, `mant`'s leading bit `p` the implicit
        // one of a normal `f32` (`decode_fast_ok` keeps it normal).
        let p = 31 - mant.leading_zeros();
        let exp = (p as i32 + 1 - f.bias - m as i32 + 127) as u32;
        exp << 23 | (mant - (1 << p)) << (23 - p)
    };
    let all_ones = (1u32 << e) - 1;
    let v = match f.specials {
        Specials::FiniteOnly => v,
        Specials::Ieee if field == all_ones => {
            if mant == 0 {
                0x7f80_0000
            } else {
                0x7fc0_0000
            }
        }
        Specials::AllOnesNan if mag == mag_mask => 0x7fc0_0000,
        Specials::NegativeZeroNan if negative && mag == 0 => 0x7fc0_0000,
        _ => v,
    };
    v | (negative as u32) << 31
}

/// Whether the table decode (`x86::decode_table_avx512`: the two high
/// bytes of each code's `f32` looked up by `vpermi2b` in 128-entry tables,
/// the low two bytes zero) decodes `f` exactly: a [`decode_fast_ok`]
/// format of at most 7 mantissa bits (so that its values' `f32` bits end in
/// 16 zeros), either of fewer than 8 bits (a table of every code) or
/// signed with 8 bits and a sign that only flips the sign bit (a table of
/// the 128 magnitudes, the code's bit 7 or-ed in: not the `fnuz` formats,
/// whose code `0x80` is NaN).
#[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
pub(crate) const fn table_ok(f: &FloatFormat) -> bool {
    decode_fast_ok(f)
        && f.mantissa_bits <= 7
        && (f.bits() < 8 || (f.signed && !matches!(f.specials, Specials::NegativeZeroNan)))
}

/// Whether the F16C conversion (`vcvtph2ps`) decodes `f` exactly: a signed
/// format of at most 8 bits with subnormals whose codes are `binary16`
/// codes scaled by a power of two: at most 5 exponent bits (5 only with IEEE
/// specials, which `binary16` shares) and at most 10 mantissa bits.
#[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
pub(crate) const fn f16_ok(f: &FloatFormat) -> bool {
    decode_fast_ok(f)
        && f.signed
        && f.subnormals
        && f.bits() <= 8
        && f.mantissa_bits >= 1
        && f.mantissa_bits <= 10
        && match f.specials {
            Specials::Ieee => f.exponent_bits == 5,
            Specials::FiniteOnly | Specials::AllOnesNan => f.exponent_bits <= 4,
            Specials::NegativeZeroNan => false,
        }
}

/// Whether `f` is the OCP E8M0 scale format (unsigned, 8 exponent bits, no
/// mantissa, bias 127, `0xff` NaN, ties away, overflow to NaN), which
/// [`e8m0_encode`] and [`e8m0_decode`] cover.
pub(crate) const fn e8m0_ok(f: &FloatFormat) -> bool {
    !f.signed
        && !f.subnormals
        && f.exponent_bits == 8
        && f.mantissa_bits == 0
        && f.bias == 127
        && matches!(f.specials, Specials::AllOnesNan)
        && matches!(f.overflow, Overflow::Nan)
        && matches!(f.ties, Ties::Away)
}

/// `FloatFormat::E8M0.encode_f32(x, mode)` without branches, `SAT`
/// selecting the saturating mode.
///
/// The code of a normal positive `x` is its exponent field, plus one when
/// the mantissa is at least one half (the tie rounds away); an `f32`
/// subnormal gives 1 from `1.5 * 2^-127` on and 0 below; zero, negative
/// inputs and NaN give `0xff`, as does anything that rounds to 255 (the
/// overflow rule). `SAT`: `|x| > 2^127` gives `0xfe` whatever its sign,
/// NaN stays `0xff`.
#[inline(always)]
pub(crate) fn e8m0_encode<const SAT: bool>(x: f32) -> u8 {
    let b = x.to_bits();
    let a = b & 0x7fff_ffff;
    let field = a >> 23;
    let man = a & 0x7f_ffff;
    let normal = field + (man >> 22);
    let sub = (man >= 0x60_0000) as u32;
    let code = if field == 0 { sub } else { normal }.min(255);
    let unrepresentable = (b >> 31) != 0 || a == 0;
    let rn = if unrepresentable { 0xff } else { code };
    let out = if SAT {
        let big = a > 0x7f00_0000;
        let nan = a > 0x7f80_0000;
        if nan {
            0xff
        } else if big {
            0xfe
        } else {
            rn
        }
    } else {
        rn
    };
    out as u8
}

/// `FloatFormat::E8M0.decode_f32(code)` without a table: `2^(code - 127)`
/// as `f32` bits, `0x00` the subnormal `2^-127`, `0xff` the quiet NaN.
#[inline(always)]
pub(crate) fn e8m0_decode(code: u8) -> f32 {
    let c = code as u32;
    let bits = if c == 0 {
        0x0040_0000
    } else if c == 255 {
        0x7fc0_0000
    } else {
        c << 23
    };
    f32::from_bits(bits)
}
