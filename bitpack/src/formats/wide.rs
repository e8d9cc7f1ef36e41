//! Bulk conversions from and to `f16`, `bf16` and `f64` as well as `f32`,
//! each rounding once, and stochastic rounding: [`Real`], [`Encoder`],
//! [`Rounding`], [`random_bits`] and the `decode_*_as` functions.

use crate::error::LengthOf;
#[cfg(feature = "alloc")]
use alloc::vec;
#[cfg(feature = "alloc")]
use alloc::vec::Vec;

use super::bulk::check_packed;
use crate::Error;
#[cfg(feature = "alloc")]
use crate::NarrowArray;
use crate::Result;
pub use crate::float::random_bits;
use crate::float::{MiniFloat, Mode, Parts, Tables};
use crate::kernels::minifloat;

/// Values per stack chunk: 512 values of any width up to 8 bits are a whole
/// number of bytes and fit in 64 words.
const CHUNK: usize = 512;

mod sealed {
    pub trait Sealed {}
}

/// A source or destination type of the bulk conversions: `f32`, `f64`,
/// `half::f16` and `half::bf16` (with the `half` feature). Sealed.
///
/// Encoding from any of them rounds **once**, from the exact input value:
/// `f16` and `bf16` widen to `f32` exactly before the `f32` kernels run;
/// `f64` goes through the rounding routine, or, for the formats with a
/// branch-free kernel, through `f32` with round-to-odd (`x as f32`, then
/// towards zero when that was away from zero, then the last bit set when
/// inexact), which is exact for targets of at most 22 significand bits: the
/// `f32` then holds every bit a rounding to the target needs. Decoding
/// is exact into `f32`, `f64` and `bf16` (every value of every shipped
/// format is one) and rounds once into `f16` (only E8M0 needs it).
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, Encoder, Mode, Real};
///
/// fn codes<S: Real>(src: &[S]) -> Vec<u8> {
///     Encoder::new(Mode::Nearest).array::<E2M1, S>(src).as_bytes().to_vec()
/// }
/// // 2.5 + 2^-40 is above the 2 / 3 tie: f64 sees it, an f32 detour would not.
/// assert_eq!(codes(&[2.5f64 + 2f64.powi(-40), 0.0]), [0x05]);
/// assert_eq!(codes(&[2.5f32, 0.0]), [0x04]);
/// ```
pub trait Real: Copy + Send + Sync + sealed::Sealed + 'static {
    /// `Some` when `Self` is `f32` (for the `f32` kernels).
    #[doc(hidden)]
    fn as_f32s(src: &[Self]) -> Option<&[f32]>;
    /// `Some` when `Self` is `f32` (for the `f32` kernels).
    #[doc(hidden)]
    fn as_f32s_mut(dst: &mut [Self]) -> Option<&mut [f32]>;
    /// Widens to `f32` exactly, or rounds to odd (`f64`).
    #[doc(hidden)]
    fn to_f32_odd(self) -> f32;
    /// `dst[i] = src[i].to_f32_odd()` for a slice (the shorter one bounds
    /// it): the loop compiled for AVX2 where the CPU has it, `f16` through
    /// F16C.
    #[doc(hidden)]
    #[inline]
    fn widen(src: &[Self], dst: &mut [f32]) {
        crate::kernels::with_avx2(|| {
            for (d, &x) in dst.iter_mut().zip(src) {
                *d = x.to_f32_odd();
            }
        });
    }
    /// The value as an `f64`, exactly.
    #[doc(hidden)]
    fn to_f64_exact(self) -> f64;
    /// The largest magnitude of `xs` (0 if empty) and whether every value
    /// is finite.
    #[doc(hidden)]
    #[inline]
    fn amax(xs: &[Self]) -> (f64, bool) {
        let mut amax = 0f64;
        let mut finite = true;
        for &x in xs {
            let v = x.to_f64_exact().abs();
            finite &= v.is_finite();
            if v > amax {
                amax = v;
            }
        }
        (amax, finite)
    }
    /// Whether [`to_f32_odd`](Self::to_f32_odd) is exact (not `f64`).
    #[doc(hidden)]
    const WIDENS: bool;
    /// The input split for the rounding routine.
    #[doc(hidden)]
    fn split(self) -> SplitParts;
    /// The value of code `code` of `F`.
    #[doc(hidden)]
    fn decode<F: MiniFloat>(code: u8) -> Self;
    /// From an exactly decoded `f32` (`Self` != `f16`).
    #[doc(hidden)]
    fn from_decoded_f32(x: f32) -> Self;
}

/// An input split into sign, exponent and significand (opaque).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct SplitParts(pub(crate) Parts);

/// The bits of the largest magnitude in `xs` (0 when empty): `|x|`'s bits
/// order the magnitudes (NaN above infinity), so this is an integer max,
/// which vectorizes (in the caller's AVX2 build where it has one).
#[inline(always)]
pub(super) fn amax_bits_f32(xs: &[f32]) -> u32 {
    xs.iter().fold(0, |m, x| m.max(x.to_bits() & 0x7fff_ffff))
}

/// `chunk` as `f32`: itself, or widened (exactly) into the start of `buf`
/// (which holds at least `chunk.len()` values).
#[cfg(feature = "alloc")]
#[inline(always)]
pub(super) fn f32s_of<'a, S: Real>(chunk: &'a [S], buf: &'a mut [f32]) -> &'a [f32] {
    match S::as_f32s(chunk) {
        Some(xs) => xs,
        None => {
            let w = &mut buf[..chunk.len()];
            S::widen(chunk, w);
            w
        }
    }
}

/// `bits[b]` = [`amax_bits_f32`] of block `b` of `len` values of `xs`.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(super) fn block_amax_bits_f32(xs: &[f32], len: usize, bits: &mut [u32]) {
    for (block, m) in xs.chunks(len).zip(bits) {
        *m = amax_bits_f32(block);
    }
}

impl sealed::Sealed for f32 {}
impl Real for f32 {
    #[inline(always)]
    fn to_f64_exact(self) -> f64 {
        self as f64
    }
    #[inline]
    fn amax(xs: &[f32]) -> (f64, bool) {
        let m = amax_bits_f32(xs);
        (f32::from_bits(m) as f64, m < 0x7f80_0000)
    }
    #[inline]
    fn as_f32s(src: &[f32]) -> Option<&[f32]> {
        Some(src)
    }
    #[inline]
    fn as_f32s_mut(dst: &mut [f32]) -> Option<&mut [f32]> {
        Some(dst)
    }
    #[inline(always)]
    fn to_f32_odd(self) -> f32 {
        self
    }
    const WIDENS: bool = true;
    #[inline(always)]
    fn split(self) -> SplitParts {
        SplitParts(Parts::from_f32(self))
    }
    #[inline(always)]
    fn decode<F: MiniFloat>(code: u8) -> f32 {
        Tables::<F>::DECODE_F32[code as usize]
    }
    #[inline(always)]
    fn from_decoded_f32(x: f32) -> f32 {
        x
    }
}

/// `Real` for an input type that has no `f32` view: each method's body is
/// given as `|argument| expression`; `decode` sees the format as `F`.
macro_rules! real {
    // `half`'s types: exact to `f32`/`f64`, split with their exponent and
    // mantissa widths.
    (half::$t:ident, exponent $e:literal, mantissa $m:literal,
        decode = |$code:ident| $decode:expr,
        from_decoded_f32 = |$x:ident| $from:expr,
        $(widen = |$ws:ident, $wd:ident| $widen:expr,)?
    ) => {
        real!(
            #[cfg(feature = "half")]
            half::$t,
            widens = true,
            to_f64_exact = |v| v.to_f64(),
            to_f32_odd = |v| v.to_f32(),
            split = |v| Parts::from_ieee(v.to_bits() as u64, $e, $m),
            decode = |$code| $decode,
            from_decoded_f32 = |$x| $from,
            $(widen = |$ws, $wd| $widen,)?
        );
    };
    ($(#[$cfg:meta])* $t:ty, widens = $widens:expr,
        to_f64_exact = |$a:ident| $to_f64:expr,
        to_f32_odd = |$b:ident| $odd:expr,
        split = |$c:ident| $split:expr,
        decode = |$code:ident| $decode:expr,
        from_decoded_f32 = |$x:ident| $from:expr,
        $(widen = |$ws:ident, $wd:ident| $widen:expr,)?
    ) => {
        $(#[$cfg])*
        impl sealed::Sealed for $t {}
        $(#[$cfg])*
        impl Real for $t {
            #[inline(always)]
            fn to_f64_exact(self) -> f64 {
                let $a = self;
                $to_f64
            }
            #[inline]
            fn as_f32s(_: &[$t]) -> Option<&[f32]> {
                None
            }
            #[inline]
            fn as_f32s_mut(_: &mut [$t]) -> Option<&mut [f32]> {
                None
            }
            #[inline(always)]
            fn to_f32_odd(self) -> f32 {
                let $b = self;
                $odd
            }
            const WIDENS: bool = $widens;
            $(
                #[inline]
                fn widen($ws: &[$t], $wd: &mut [f32]) {
                    $widen
                }
            )?
            #[inline(always)]
            fn split(self) -> SplitParts {
                let $c = self;
                SplitParts($split)
            }
            #[inline(always)]
            fn decode<F: MiniFloat>($code: u8) -> $t {
                $decode
            }
            #[inline(always)]
            fn from_decoded_f32($x: f32) -> $t {
                $from
            }
        }
    };
}

real!(
    f64,
    widens = false,
    to_f64_exact = |x| x,
    to_f32_odd = |x| f64_to_f32_odd(x),
    split = |x| Parts::from_f64(x),
    decode = |code| F::FORMAT.decode_f64(code as u32),
    from_decoded_f32 = |x| x as f64,
);
// `from_decoded_f32` is not used for f16 (decoding goes through its own
// table).
real!(
    half::f16, exponent 5, mantissa 10,
    decode = |code| half::f16::from_bits(Tables::<F>::DECODE_F16[code as usize]),
    from_decoded_f32 = |x| half::f16::from_f32(x),
    widen = |src, dst| {
        // The CPU's variant where it has one (x86 F16C, `aarch64` NEON:
        // their NaNs are `to_f32`'s, quieted, payload kept), `half`'s
        // conversion for the rest.
        let bits: &[u16] = bytemuck::cast_slice(src);
        let done = crate::kernels::widen_f16(bits, dst);
        for (d, x) in dst[done..].iter_mut().zip(&src[done..]) {
            *d = x.to_f32();
        }
    },
);
// `from_decoded_f32` is exact: every value of a shipped format is a bf16,
// and the decode table's NaN is 0x7fc00000 with a sign, whose top half is a
// NaN.
real!(
    half::bf16, exponent 8, mantissa 7,
    decode = |code| {
        half::bf16::from_bits((Tables::<F>::DECODE_F32[code as usize].to_bits() >> 16) as u16)
    },
    from_decoded_f32 = |x| half::bf16::from_bits((x.to_bits() >> 16) as u16),
);

/// `x` rounded to an `f32` with round-to-odd: toward zero, and the last
/// significand bit set when inexact. Values beyond `f32`'s range give the
/// largest finite `f32` (odd) of their sign, infinities and NaN keep their
/// class and sign.
#[inline(always)]
pub(crate) fn f64_to_f32_odd(x: f64) -> f32 {
    if x.is_nan() {
        let sign = ((x.to_bits() >> 32) as u32) & 0x8000_0000;
        return f32::from_bits(sign | 0x7fc0_0000);
    }
    let t = x as f32;
    let back = t as f64;
    let mut bits = t.to_bits();
    if back.abs() > x.abs() {
        // Rounded away from zero: one step back (sign-magnitude bits).
        bits -= 1;
    }
    if back != x {
        bits |= 1;
    }
    f32::from_bits(bits)
}

/// The rounding direction of an encode: to nearest (the format's tie rule),
/// or stochastic with a seed.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{Encoder, Mode, Rounding};
///
/// let e = Encoder::new(Mode::SatFinite).stochastic(7);
/// assert_eq!(e.rounding_of(), Rounding::Stochastic { seed: 7 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Rounding {
    /// Round to nearest, with the format's [`Ties`](super::Ties) rule.
    #[default]
    Nearest,
    /// Stochastic rounding: element `i` (its index in the source, row-major
    /// for arrays) rounds with the random bits
    /// [`random_bits(seed, i)`](random_bits) as
    /// [`FloatFormat::encode_f32_stochastic`](super::FloatFormat::encode_f32_stochastic)
    /// describes. The same seed gives the same bytes on every target,
    /// whatever the chunking or the CPU features.
    Stochastic {
        /// The seed.
        seed: u64,
    },
}

/// Encodes many values of any [`Real`] type into a float format: a
/// [`Mode`] (the overflow and special-value rules) and a [`Rounding`].
///
/// The `f32`, round-to-nearest case runs the same kernels as
/// [`encode`](super::encode) and [`encode_packed`](super::encode_packed).
/// Stochastic rounding of `f32`, `f16` and `bf16` into a signed format
/// with subnormals (every shipped one but E8M0) runs a branch-free SIMD
/// encode, the same bits as the rounding routine.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E4M3, Encoder, Mode};
/// use half::bf16;
///
/// let src = [bf16::from_f32(1.0), bf16::from_f32(-1000.0)];
/// let a = Encoder::new(Mode::SatFinite).array::<E4M3, bf16>(&src);
/// assert_eq!(a.as_bytes(), [0x38, 0xfe]);
///
/// // Stochastic rounding: reproducible from the seed.
/// let x = [0.3f64; 64];
/// let s = Encoder::new(Mode::Nearest).stochastic(42);
/// assert_eq!(s.array::<E4M3, f64>(&x), s.array::<E4M3, f64>(&x));
/// # Ok::<(), bitpack::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Encoder {
    mode: Mode,
    rounding: Rounding,
}

impl Encoder {
    /// Round to nearest with `mode`'s rules.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{Encoder, Mode, Rounding};
    ///
    /// assert_eq!(Encoder::new(Mode::Nearest).rounding_of(), Rounding::Nearest);
    /// ```
    pub const fn new(mode: Mode) -> Encoder {
        Encoder {
            mode,
            rounding: Rounding::Nearest,
        }
    }

    /// The same encoder with stochastic rounding from `seed`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E2M1, Encoder, Mode};
    ///
    /// let mut out = [E2M1::ZERO; 1000];
    /// Encoder::new(Mode::Nearest).stochastic(1).slice(&[2.25f32; 1000], &mut out)?;
    /// let ups = out.iter().filter(|c| c.to_f32() == 3.0).count();
    /// assert!(ups > 150 && ups < 350, "{ups}"); // about a quarter
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub const fn stochastic(self, seed: u64) -> Encoder {
        self.with_rounding(Rounding::Stochastic { seed })
    }

    /// The same encoder with `rounding`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{Encoder, Mode, Rounding};
    ///
    /// let e = Encoder::new(Mode::Nearest).with_rounding(Rounding::Stochastic { seed: 3 });
    /// assert_eq!(e, Encoder::new(Mode::Nearest).stochastic(3));
    /// ```
    pub const fn with_rounding(self, rounding: Rounding) -> Encoder {
        Encoder {
            mode: self.mode,
            rounding,
        }
    }

    /// The overflow and special-value rules.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{Encoder, Mode};
    ///
    /// assert_eq!(Encoder::new(Mode::SatFinite).mode(), Mode::SatFinite);
    /// ```
    pub const fn mode(&self) -> Mode {
        self.mode
    }

    /// The rounding direction.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{Encoder, Mode, Rounding};
    ///
    /// assert_eq!(Encoder::new(Mode::SatFinite).rounding_of(), Rounding::Nearest);
    /// ```
    pub const fn rounding_of(&self) -> Rounding {
        self.rounding
    }

    /// Encodes one value; `index` is its position (it picks the random bits
    /// of stochastic rounding, and is ignored otherwise).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E5M2, Encoder, Mode};
    ///
    /// let e = Encoder::new(Mode::Nearest);
    /// assert_eq!(e.value::<E5M2, f64>(1e6, 0), E5M2::INFINITY);
    /// ```
    pub fn value<F: MiniFloat, S: Real>(&self, x: S, index: u64) -> F {
        F::from_raw_bits(self.code::<F, S>(x, index))
    }

    #[inline(always)]
    fn code<F: MiniFloat, S: Real>(&self, x: S, index: u64) -> u8 {
        let random = match self.rounding {
            Rounding::Nearest => None,
            Rounding::Stochastic { seed } => Some(random_bits(seed, index)),
        };
        F::FORMAT.round(x.split().0, self.mode, random) as u8
    }

    /// Codes of `src` (element `i` has index `first + i`), one per byte.
    pub(crate) fn codes<F: MiniFloat, S: Real>(&self, src: &[S], first: u64, codes: &mut [u8]) {
        let sat = matches!(self.mode, Mode::SatFinite);
        match self.rounding {
            Rounding::Stochastic { seed } => {
                use minifloat::StochasticScale::One;
                if let Some(f) = S::as_f32s(src) {
                    minifloat::encode_codes_stochastic::<F>(f, One, sat, (seed, first), codes);
                } else if S::WIDENS {
                    // `f16` and `bf16`, widened exactly: the same values.
                    let mut buf = [0f32; CHUNK];
                    for (k, (c, s)) in codes.chunks_mut(CHUNK).zip(src.chunks(CHUNK)).enumerate() {
                        let b = &mut buf[..s.len()];
                        S::widen(s, b);
                        let at = first.wrapping_add((k * CHUNK) as u64);
                        minifloat::encode_codes_stochastic::<F>(b, One, sat, (seed, at), c);
                    }
                } else {
                    for (k, (c, &x)) in codes.iter_mut().zip(src).enumerate() {
                        *c = self.code::<F, S>(x, first + k as u64);
                    }
                }
            }
            Rounding::Nearest => {
                if let Some(f) = S::as_f32s(src) {
                    minifloat::encode_codes_f32::<F>(f, sat, codes);
                    return;
                }
                let via_f32 = S::WIDENS
                    || const { minifloat::encode_fast_ok(&F::FORMAT) && F::FORMAT.mantissa_bits <= 21 }
                    || const { minifloat::e8m0_ok(&F::FORMAT) };
                if via_f32 {
                    let mut buf = [0f32; CHUNK];
                    for (c, s) in codes.chunks_mut(CHUNK).zip(src.chunks(CHUNK)) {
                        let b = &mut buf[..s.len()];
                        S::widen(s, b);
                        minifloat::encode_codes_f32::<F>(b, sat, c);
                    }
                } else {
                    for (c, &x) in codes.iter_mut().zip(src) {
                        *c = F::FORMAT.round(x.split().0, self.mode, None) as u8;
                    }
                }
            }
        }
    }

    /// Encodes `src` into the dense stream `words` (from value 0), a chunk
    /// at a time; `words` holds at least the stream.
    #[cfg(feature = "alloc")]
    fn words<F: MiniFloat, S: Real>(&self, src: &[S], words: &mut [u64]) {
        if let (Some(f), Rounding::Nearest) = (S::as_f32s(src), self.rounding) {
            super::bulk::encode_words::<F>(f, self.mode, words);
            return;
        }
        // Split across threads at whole chunks (`par::GRAIN` is `CHUNK`):
        // value `i` keeps index `i` for its random bits, whichever thread
        // encodes it.
        const { assert!(CHUNK == crate::par::GRAIN) };
        let bits = F::BITS as usize;
        let out = crate::par::Out {
            slice: words,
            at: |u| u * bits / 64,
        };
        crate::par::split(
            src.len(),
            src.len(),
            crate::par::on_grain,
            out,
            |r, w, base| {
                let mut codes = [0u8; CHUNK];
                let at = base * 64 / bits;
                for (k, chunk) in src[r.clone()].chunks(CHUNK).enumerate() {
                    let i = r.start + k * CHUNK;
                    let c = &mut codes[..chunk.len()];
                    self.codes::<F, S>(chunk, i as u64, c);
                    if crate::kernels::pack(F::BITS, &*c, w, i - at).is_err() {
                        unreachable!("the caller sized the stream");
                    }
                }
            },
        );
    }

    /// Encodes `src` into `dst` (the same length), one value per element.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] when the lengths differ; `dst` is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E3M2, Encoder, Mode};
    ///
    /// let mut out = [E3M2::ZERO; 2];
    /// Encoder::new(Mode::Nearest).slice(&[13.0f64, -100.0], &mut out)?;
    /// assert_eq!([out[0].to_f32(), out[1].to_f32()], [12.0, -28.0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn slice<F: MiniFloat, S: Real>(&self, src: &[S], dst: &mut [F]) -> Result<()> {
        LengthOf::EncodeInput.check(dst.len(), src.len())?;
        let mut codes = [0u8; CHUNK];
        for (k, (s, d)) in src.chunks(CHUNK).zip(dst.chunks_mut(CHUNK)).enumerate() {
            let c = &mut codes[..s.len()];
            self.codes::<F, S>(s, (k * CHUNK) as u64, c);
            for (o, &code) in d.iter_mut().zip(c.iter()) {
                *o = F::from_raw_bits(code);
            }
        }
        Ok(())
    }

    /// Encodes `src` into `codes` (the same length), one code per byte with
    /// the bits above `F::BITS` zero: the storage of `ml_dtypes`' arrays (and
    /// of torch's `float8_*` tensors), where [`packed`](Self::packed) writes
    /// the dense stream.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] when the lengths differ; `codes` is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E2M1, Encoder, Mode};
    ///
    /// let mut codes = [0xffu8; 3];
    /// Encoder::new(Mode::Nearest).unpacked::<E2M1, f32>(&[1.0, -2.0, 6.0], &mut codes)?;
    /// assert_eq!(codes, [0x2, 0xc, 0x7]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn unpacked<F: MiniFloat, S: Real>(&self, src: &[S], codes: &mut [u8]) -> Result<()> {
        LengthOf::EncodeInput.check(codes.len(), src.len())?;
        for (k, (s, c)) in src.chunks(CHUNK).zip(codes.chunks_mut(CHUNK)).enumerate() {
            self.codes::<F, S>(s, (k * CHUNK) as u64, c);
        }
        Ok(())
    }

    /// Encodes `src` into a dense LSB-first packed stream of `F` in `bytes`
    /// (the layout of [`encode_packed`](super::encode_packed)): it writes
    /// the first `ceil(src.len() * F::BITS / 8)` bytes, padding bits of the
    /// last one zero, and leaves the rest.
    ///
    /// # Errors
    ///
    /// [`Error::TooFewBytes`] when `bytes` is too short; `bytes` is
    /// unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E2M1, Encoder, Mode};
    ///
    /// let mut bytes = [0xffu8; 2];
    /// Encoder::new(Mode::Nearest).packed::<E2M1, f64>(&[1.0, -2.0, 6.0], &mut bytes)?;
    /// assert_eq!(bytes, [0xc2, 0x07]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn packed<F: MiniFloat, S: Real>(&self, src: &[S], bytes: &mut [u8]) -> Result<()> {
        self.packed_for::<F, S>("Encoder::packed", src, bytes)
    }

    /// [`packed`](Self::packed), its length error naming `what`.
    pub(super) fn packed_for<F: MiniFloat, S: Real>(
        &self,
        what: &'static str,
        src: &[S],
        bytes: &mut [u8],
    ) -> Result<()> {
        check_packed::<F>(what, src.len(), bytes.len())?;
        for (k, chunk) in src.chunks(CHUNK).enumerate() {
            let start = k * CHUNK * F::BITS as usize / 8;
            let len = (chunk.len() * F::BITS as usize).div_ceil(8);
            let mut words = [0u64; CHUNK / 8];
            if let (Some(f), Rounding::Nearest) = (S::as_f32s(chunk), self.rounding) {
                let sat = matches!(self.mode, Mode::SatFinite);
                minifloat::encode_words::<F>(f, sat, &mut words, 0);
            } else {
                let mut codes = [0u8; CHUNK];
                let c = &mut codes[..chunk.len()];
                self.codes::<F, S>(chunk, (k * CHUNK) as u64, c);
                if crate::kernels::pack(F::BITS, &*c, &mut words, 0).is_err() {
                    unreachable!("a chunk fits its words");
                }
            }
            let buf: &[u8] = bytemuck::cast_slice(&words);
            bytes[start..start + len].copy_from_slice(&buf[..len]);
        }
        Ok(())
    }

    /// Encodes `src` into a new packed array (1-d, `src.len()` values).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E8M0, Encoder, Mode};
    ///
    /// let a = Encoder::new(Mode::Nearest).array::<E8M0, f64>(&[1.0, 0.25, 3.0]);
    /// assert_eq!(a.as_bytes(), [127, 125, 129]);
    /// ```
    #[cfg(feature = "alloc")]
    pub fn array<F: MiniFloat, S: Real>(&self, src: &[S]) -> NarrowArray<F> {
        let mut out = NarrowArray::zeroed(src.len());
        self.words::<F, S>(src, out.words_mut());
        out
    }

    /// Encodes `src` over every value of `dst`, which keeps its length and
    /// shape.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] when `src.len() != dst.len()`; `dst` is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    /// use bitpack::formats::{E2M3, Encoder, Mode};
    ///
    /// let mut a = NarrowArray::<E2M3>::zeroed(2);
    /// Encoder::new(Mode::Nearest).array_into(&[half::f16::from_f32(3.3), half::f16::ONE], &mut a)?;
    /// assert_eq!(a.get(0).unwrap().to_f32(), 3.25);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[cfg(feature = "alloc")]
    pub fn array_into<F: MiniFloat, S: Real>(
        &self,
        src: &[S],
        dst: &mut NarrowArray<F>,
    ) -> Result<()> {
        LengthOf::EncodeInput.check(dst.len(), src.len())?;
        self.words::<F, S>(src, dst.words_mut());
        Ok(())
    }
}

/// Decodes unpacked codes into `out` (the same length).
fn decode_codes_as<F: MiniFloat, S: Real>(codes: &[u8], out: &mut [S]) {
    let table = &Tables::<F>::DECODE_F32;
    if let Some(f) = S::as_f32s_mut(out) {
        minifloat::decode_codes::<F>(codes, f, |c| table[c as usize]);
        return;
    }
    if core::any::TypeId::of::<S>() == f16_type() {
        for (o, &c) in out.iter_mut().zip(codes) {
            *o = S::decode::<F>(c);
        }
        return;
    }
    let mut buf = [0f32; CHUNK];
    for (o, c) in out.chunks_mut(CHUNK).zip(codes.chunks(CHUNK)) {
        let b = &mut buf[..c.len()];
        minifloat::decode_codes::<F>(c, b, |x| table[x as usize]);
        for (d, &x) in o.iter_mut().zip(b.iter()) {
            *d = S::from_decoded_f32(x);
        }
    }
}

#[cfg(feature = "half")]
fn f16_type() -> core::any::TypeId {
    core::any::TypeId::of::<half::f16>()
}

#[cfg(not(feature = "half"))]
fn f16_type() -> core::any::TypeId {
    core::any::TypeId::of::<()>()
}

/// Decodes the first `dst.len()` values of a dense stream of `F`.
fn decode_stream_as<F: MiniFloat, S: Real>(bytes: &[u8], dst: &mut [S]) {
    if let Some(f) = S::as_f32s_mut(dst) {
        super::bulk::decode_stream::<F>(bytes, f);
        return;
    }
    let mut codes = [0u8; CHUNK];
    let mut words = [0u64; CHUNK / 8];
    for (k, chunk) in dst.chunks_mut(CHUNK).enumerate() {
        let start = k * CHUNK * F::BITS as usize / 8;
        let len = (chunk.len() * F::BITS as usize).div_ceil(8);
        let c = &mut codes[..chunk.len()];
        if F::BITS == 8 {
            c.copy_from_slice(&bytes[start..start + chunk.len()]);
        } else {
            let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
            buf[..len].copy_from_slice(&bytes[start..start + len]);
            if crate::kernels::unpack(F::BITS, &words, 0, &mut *c).is_err() {
                unreachable!("a chunk fits its words");
            }
        }
        decode_codes_as::<F, S>(c, chunk);
    }
}

/// Decodes `src` (one value per element) into `dst` (the same length) of
/// any [`Real`] type.
///
/// # Errors
///
/// [`Error::Length`] when the lengths differ; `dst` is unchanged.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E8M0, decode_slice_as};
///
/// let mut out = [half::f16::ZERO; 2];
/// decode_slice_as(&[E8M0::ONE, E8M0::from_bits(0xfe)], &mut out)?;
/// assert_eq!(out[0], half::f16::ONE);
/// assert_eq!(out[1], half::f16::INFINITY); // 2^127 rounds to f16 infinity
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn decode_slice_as<F: MiniFloat, S: Real>(src: &[F], dst: &mut [S]) -> Result<()> {
    LengthOf::DecodeOutput.check(src.len(), dst.len())?;
    let mut codes = [0u8; CHUNK];
    for (s, d) in src.chunks(CHUNK).zip(dst.chunks_mut(CHUNK)) {
        let c = &mut codes[..s.len()];
        for (o, x) in c.iter_mut().zip(s) {
            *o = x.raw_bits();
        }
        decode_codes_as::<F, S>(c, d);
    }
    Ok(())
}

/// Decodes codes stored one per byte (the layout of
/// [`Encoder::unpacked`]: `ml_dtypes`' storage) into `dst` (the same
/// length) of any [`Real`] type.
///
/// # Errors
///
/// [`Error::Length`] when the lengths differ; [`Error::PaddedValue`] naming
/// the first byte with bits set above `F::BITS`. `dst` is unchanged on
/// either error.
///
/// # Examples
///
/// ```
/// use bitpack::Error;
/// use bitpack::formats::{E2M1, decode_unpacked_as};
///
/// let mut out = [0.0f32; 3];
/// decode_unpacked_as::<E2M1, f32>(&[0x2, 0xc, 0x7], &mut out)?;
/// assert_eq!(out, [1.0, -2.0, 6.0]);
/// let bad = decode_unpacked_as::<E2M1, f32>(&[0x2, 0x1c, 0x7], &mut out);
/// assert_eq!(bad, Err(Error::PaddedValue { index: 1, byte: 0x1c, bits: 4 }));
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn decode_unpacked_as<F: MiniFloat, S: Real>(codes: &[u8], dst: &mut [S]) -> Result<()> {
    LengthOf::DecodeOutput.check(codes.len(), dst.len())?;
    if F::BITS < 8 {
        let high = !0u8 << F::BITS;
        if let Some(index) = codes.iter().position(|&c| c & high != 0) {
            return Err(Error::PaddedValue {
                index,
                byte: codes[index],
                bits: F::BITS,
            });
        }
    }
    for (c, d) in codes.chunks(CHUNK).zip(dst.chunks_mut(CHUNK)) {
        decode_codes_as::<F, S>(c, d);
    }
    Ok(())
}

/// Decodes the first `dst.len()` values of a dense LSB-first packed stream
/// of `F` (the layout of [`decode_packed`](super::decode_packed)) into any
/// [`Real`] type.
///
/// # Errors
///
/// [`Error::TooFewBytes`] when `bytes` is shorter than `ceil(dst.len() *
/// F::BITS / 8)`; `dst` is unchanged.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, decode_packed_as};
///
/// let mut out = [0.0f64; 3];
/// decode_packed_as::<E2M1, f64>(&[0xc2, 0x07], &mut out)?;
/// assert_eq!(out, [1.0, -2.0, 6.0]);
/// assert!(decode_packed_as::<E2M1, f64>(&[0xc2], &mut out).is_err());
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn decode_packed_as<F: MiniFloat, S: Real>(bytes: &[u8], dst: &mut [S]) -> Result<()> {
    check_packed::<F>("decode_packed_as", dst.len(), bytes.len())?;
    decode_stream_as::<F, S>(bytes, dst);
    Ok(())
}

/// Decodes every value of a packed array into a new `Vec` of any [`Real`]
/// type.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E5M2, Encoder, Mode, decode_as};
///
/// let a = Encoder::new(Mode::Nearest).array::<E5M2, f64>(&[3.0, -1e-5]);
/// assert_eq!(decode_as::<E5M2, f64>(&a), [3.0, -0.0000152587890625]);
/// ```
#[cfg(feature = "alloc")]
pub fn decode_as<F: MiniFloat, S: Real>(src: &NarrowArray<F>) -> Vec<S> {
    let mut out = vec![S::decode::<F>(0); src.len()];
    decode_stream_as::<F, S>(src.as_bytes(), &mut out);
    out
}

/// Decodes every value of `src` into `dst` (the same length) of any
/// [`Real`] type.
///
/// # Errors
///
/// [`Error::Length`] when `dst.len() != src.len()`; `dst` is unchanged.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E4M3, Encoder, Mode, decode_into_as};
///
/// let a = Encoder::new(Mode::Nearest).array::<E4M3, f32>(&[0.3, 2.0]);
/// let mut out = [half::bf16::ZERO; 2];
/// decode_into_as(&a, &mut out)?;
/// assert_eq!(out[0].to_f32(), 0.3125);
/// # Ok::<(), bitpack::Error>(())
/// ```
#[cfg(feature = "alloc")]
pub fn decode_into_as<F: MiniFloat, S: Real>(src: &NarrowArray<F>, dst: &mut [S]) -> Result<()> {
    LengthOf::DecodeOutput.check(src.len(), dst.len())?;
    decode_stream_as::<F, S>(src.as_bytes(), dst);
    Ok(())
}

/// Encodes `src` into a dense LSB-first packed stream of `F` in `bytes` (the
/// layout of [`decode_packed`](super::decode_packed)), with the given
/// [`Mode`]. It writes the first `ceil(src.len() * F::BITS / 8)` bytes,
/// padding bits of the last one zero, and leaves the rest. Needs no
/// allocator.
///
/// # Errors
///
/// [`Error::TooFewBytes`] when `bytes` is too short; `bytes` is unchanged.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, Mode, encode_packed};
///
/// let mut bytes = [0xffu8; 3];
/// encode_packed::<E2M1>(&[1.0, -2.0, 6.0], Mode::Nearest, &mut bytes)?;
/// assert_eq!(bytes, [0xc2, 0x07, 0xff]);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn encode_packed<F: MiniFloat>(src: &[f32], mode: Mode, bytes: &mut [u8]) -> Result<()> {
    // Straight to the f32 kernels: `Encoder::packed` rounds `f32` input to
    // nearest with them.
    Encoder::new(mode).packed_for::<F, f32>("encode_packed", src, bytes)
}

#[cfg(all(test, feature = "half"))]
mod tests {
    use super::Real;

    /// `Real::widen` against `to_f32_odd` value by value, bit for bit
    /// (NaN signs and payloads included), for every `f16` and `bf16`
    /// pattern, at lengths that end inside a step of the SIMD variant.
    /// Under Miri (`.ci/run` runs it there): every 61st pattern and the
    /// edges of the NaNs, and a NaN compared as NaN only.
    #[test]
    fn widen_is_to_f32_odd_for_every_pattern() {
        fn check<T: Real + bytemuck::Pod>(from: impl Fn(u16) -> T) {
            let step = if cfg!(miri) { 61 } else { 1 };
            let edges = [
                0x7c00u16, 0x7c01, 0x7e00, 0x7f80, 0x7f81, 0x7fc0, 0xfc01, 0xff81,
            ];
            let patterns = (0..=u16::MAX).step_by(step).chain(edges);
            let all: alloc::vec::Vec<T> = patterns.map(from).collect();
            for len in [all.len(), all.len() - 3, 13, 8, 7, 0] {
                let src = &all[all.len() - len..];
                let mut dst = alloc::vec![f32::from_bits(0x7fc0_1234); len];
                T::widen(src, &mut dst);
                for (i, (&x, d)) in src.iter().zip(&dst).enumerate() {
                    let want = x.to_f32_odd();
                    let pattern = bytemuck::cast::<T, u16>(x);
                    if cfg!(miri) && want.is_nan() {
                        // Miri gives a NaN result any sign and payload (as
                        // Rust allows); on the CPU both are checked.
                        assert!(d.is_nan(), "pattern {pattern:#06x}");
                        continue;
                    }
                    assert_eq!(
                        d.to_bits(),
                        want.to_bits(),
                        "pattern {pattern:#06x} (index {i} of {len})"
                    );
                }
            }
        }
        check(half::f16::from_bits);
        check(half::bf16::from_bits);
    }
}
