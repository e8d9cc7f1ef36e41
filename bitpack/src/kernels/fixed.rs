//! The kernels with the width as a const parameter: the portable source,
//! callable from GPU kernel code.
//!
//! The slice functions of [`kernels`](super) take the width at run time and
//! pick an instantiation through a table. Device code knows its width at
//! compile time and should not make an indirect call per launch, so this
//! module exposes the same generic source with the width as `const W: u32`:
//! [`unpack`], [`pack`] and [`sum`] are the very functions the host tables
//! are built from, and the float functions are the branch-free conversions
//! the host bulk paths use. Everything here builds under
//! `default-features = false` for `nvptx64-nvidia-cuda` and allocates
//! nothing.
//!
//! On `nvptx64` the pair conversions ([`encode_pair`], [`decode_pair`],
//! [`f16x2`], [`bf16x2`]) use PTX's packed `cvt` where the target has it
//! (`kernels/ptx.rs`: FP8 from `sm_89`, FP4/FP6 on `sm_100a`/`sm_101a`/
//! `sm_120a`, `f16x2`/`bf16x2` from `sm_80`), chosen at compile time, and
//! give the same bits as the portable code, which is the fallback on every
//! other target and the reference the tests compare against.
//!
//! # Device-callable items
//!
//! With `default-features = false` the crate has no allocator and no
//! run-time CPU detection, and every item that remains builds for
//! `nvptx64-nvidia-cuda`. The ones meant for kernels (and built into the
//! `bitpack-ptx` kernels by CI, so this list stays true):
//!
//! - the element model: [`BitElement`](crate::BitElement), `raw_bits`,
//!   `from_raw_bits`, [`NArray`](crate::NArray) (`new`, `get`, `set`,
//!   `raw_bits`, `from_raw_bits`, `to_array`, `map`);
//! - the float formats: [`E2M1`](crate::E2M1) .. [`E8M0`](crate::E8M0) and
//!   [`MiniFloat`] (`from_f32`,
//!   `from_f32_satfinite`, `to_f32`), the slice functions
//!   `encode_slice`,
//!   `decode_slice`,
//!   `encode_packed`,
//!   `decode_packed` (they use stack
//!   chunks, which on a GPU live in local memory: prefer this module's
//!   functions in hot kernels);
//! - the block-scaled core: `BlockGrid`,
//!   `block_amax`,
//!   `mx_scale`,
//!   `mx_codes`,
//!   `mx_value`,
//!   `nvfp4_scale`,
//!   `nvfp4_codes`,
//!   `nvfp4_value`: one MX or NVFP4 block at a
//!   time, the bytes of the host's `MxArray`/`Nvfp4Array`;
//! - this module, and the run-time-width slice kernels of
//!   [`kernels`](super) ([`unpack`](super::unpack), [`pack`](super::pack),
//!   [`sum`](super::sum), [`encode`](super::encode), [`decode`](super::decode)),
//!   which return [`Error`](crate::Error)s a kernel maps to an error code;
//! - [`DevicePtr`](crate::DevicePtr) and [`DeviceCopy`](crate::DeviceCopy)
//!   for kernel arguments;
//! - [`Layout`](crate::Layout) (strided index arithmetic over borrowed
//!   slices).
//!
//! # Panics
//!
//! The functions here index slices: a buffer shorter than the values it is
//! said to hold panics (on a GPU, a `trap`). Size the slices from the value
//! count (see [`words_for`](super::words_for)) and they cannot.
//!
//! # Examples
//!
//! ```
//! use bitpack::formats::{E2M1, Mode};
//! use bitpack::kernels::fixed;
//!
//! // One block of 5-bit values: 64 values in 5 words.
//! assert_eq!((fixed::block_elems(5), fixed::block_words(5)), (64, 5));
//! let values: Vec<u8> = (0..64).map(|i| i % 32).collect();
//! let mut words = [0u64; 5];
//! fixed::pack::<5, u8>(&values, &mut words, 0);
//! let mut back = [0u8; 64];
//! fixed::unpack::<5, u8>(&words, 0, &mut back);
//! assert_eq!(back[..], values[..]);
//! assert_eq!(fixed::sum::<5>(&words, 0, 64), values.iter().map(|&v| v as u128).sum());
//!
//! // Two E2M1 lanes, lane 0 in the low nibble (the PTX register order).
//! assert_eq!(fixed::encode_pair::<E2M1>(1.0, -2.0, Mode::SatFinite), 0xc2);
//! assert_eq!(fixed::decode_pair::<E2M1>(0xc2), [1.0, -2.0]);
//! ```

use super::scalar;
use crate::float::elem;
use crate::float::{MiniFloat, Mode};

pub use super::scalar::Lane;

/// Values per block at width `width` (`1..=64`): the fewest values whose bits
/// fill whole 64-bit words (64 values of 5 bits, 16 of 4, 1 of 64).
///
/// # Examples
///
/// ```
/// assert_eq!(bitpack::kernels::fixed::block_elems(6), 32);
/// ```
pub const fn block_elems(width: u32) -> usize {
    scalar::block_elems(width)
}

/// Words per block at width `width` (`1..=64`): `block_elems(width) * width /
/// 64`.
///
/// # Examples
///
/// ```
/// assert_eq!(bitpack::kernels::fixed::block_words(6), 3);
/// ```
pub const fn block_words(width: u32) -> usize {
    scalar::block_words(width)
}

/// Unpacks `dst.len()` values of `W` bits (`1..=U::BITS`, at most 64) from
/// value `offset` of the stream `words` (see [`kernels::unpack`](super::unpack)
/// for the stream's layout). Whole blocks are straight-line code with
/// constant shifts.
///
/// # Panics
///
/// When `words` ends before value `offset + dst.len()`, and (at compile time)
/// when `W` is 0 or wider than `U`.
///
/// # Examples
///
/// ```
/// let words = [(1u64 | 2 << 5 | 31 << 10).to_le()];
/// let mut out = [0u32; 3];
/// bitpack::kernels::fixed::unpack::<5, u32>(&words, 0, &mut out);
/// assert_eq!(out, [1, 2, 31]);
/// ```
#[inline]
pub fn unpack<const W: u32, U: Lane>(words: &[u64], offset: usize, dst: &mut [U]) {
    const { assert!(W >= 1 && W <= U::BITS && W <= 64, "width out of range") };
    if W == U::BITS {
        // Whole-width values, one at a time through `bits_at`: a device
        // build has no length check to fail (the host tables copy bytes).
        for (i, d) in dst.iter_mut().enumerate() {
            *d = U::from_u64(bits_at(words, (offset + i) * W as usize, W));
        }
        return;
    }
    scalar::unpack::<W, U>(words, offset, dst);
}

/// Packs `src` as values of `W` bits (`1..=U::BITS`, at most 64) into the
/// stream from value `offset`; bits above `W` are ignored and every other
/// stream bit is left as it was.
///
/// # Panics
///
/// When `words` ends before value `offset + src.len()`, and (at compile
/// time) when `W` is 0 or wider than `U`.
///
/// # Examples
///
/// ```
/// let mut words = [0u64; 1];
/// bitpack::kernels::fixed::pack::<5, u8>(&[1, 2, 31], &mut words, 0);
/// assert_eq!(u64::from_le(words[0]), 1 | 2 << 5 | 31 << 10);
/// ```
#[inline]
pub fn pack<const W: u32, U: Lane>(src: &[U], words: &mut [u64], offset: usize) {
    const { assert!(W >= 1 && W <= U::BITS && W <= 64, "width out of range") };
    if 64 % W == 0 && W < 64 && offset == 0 {
        // Widths that divide 64 (no value straddles a word): whole words at
        // a time, through `get_mut` and `get`, so a device build has no
        // length check to fail.
        let per = (64 / W) as usize;
        for (k, w) in words.iter_mut().enumerate().take(src.len().div_ceil(per)) {
            let mut acc = 0u64;
            for j in 0..per {
                if let Some(v) = src.get(k * per + j) {
                    acc |= (v.to_u64() & scalar::mask64(W)) << (j as u32 * W);
                }
            }
            if (k + 1) * per > src.len() {
                // The last word keeps the bits past the values.
                let keep = !0u64 << ((src.len() - k * per) as u32 * W);
                acc |= scalar::ld(*w) & keep;
            }
            *w = scalar::st(acc);
        }
        return;
    }
    scalar::pack::<W, U>(src, words, offset);
}

/// The exact sum of `n` values of `W` bits (`1..=64`) from value `offset`:
/// population count, in-word digit folding or word extraction, as
/// [`kernels::sum`](super::sum).
///
/// # Panics
///
/// When `words` ends before value `offset + n`, and (at compile time) when
/// `W` is not in `1..=64`.
///
/// # Examples
///
/// ```
/// let words = [(1u64 | 2 << 5 | 31 << 10).to_le()];
/// assert_eq!(bitpack::kernels::fixed::sum::<5>(&words, 0, 3), 34);
/// ```
#[inline]
pub fn sum<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    const { assert!(W >= 1 && W <= 64, "width out of range") };
    scalar::sum::<W>(words, offset, n)
}

/// The `w`-bit value (`w` in `1..=64`) at stream bit `bit`; words past the
/// end read as zero (no index to check).
#[inline(always)]
fn bits_at(words: &[u64], bit: usize, w: u32) -> u64 {
    let (i, s) = (bit / 64, (bit % 64) as u32);
    let word = |k: usize| words.get(k).map_or(0, |&x| scalar::ld(x));
    let mut v = word(i) >> s;
    if s != 0 && s + w > 64 {
        v |= word(i + 1) << (64 - s);
    }
    v & scalar::mask64(w)
}

/// The code of `x` in `F` (`mode` selects the rounding rule), portable: the
/// branch-free encode where it covers the format, else the rounding routine.
#[inline(always)]
fn encode_code<F: MiniFloat>(x: f32, mode: Mode) -> u8 {
    if const { elem::e8m0_ok(&F::FORMAT) } {
        match mode {
            Mode::Nearest => elem::e8m0_encode::<false>(x),
            Mode::SatFinite => elem::e8m0_encode::<true>(x),
        }
    } else if const { elem::encode_fast_ok(&F::FORMAT) } {
        match mode {
            Mode::Nearest => elem::encode_fast::<F, false>(x),
            Mode::SatFinite => elem::encode_fast::<F, true>(x),
        }
    } else {
        F::FORMAT.encode_f32(x, mode) as u8
    }
}

/// The value of code `c` of `F`, portable: the branch-free decode where it
/// covers the format, else the decoding routine.
#[inline(always)]
fn decode_code<F: MiniFloat>(c: u8) -> f32 {
    if const { elem::e8m0_ok(&F::FORMAT) } {
        elem::e8m0_decode(c)
    } else if const { elem::decode_fast_ok(&F::FORMAT) } {
        elem::decode_fast::<F>(c)
    } else {
        F::FORMAT.decode_f32(c as u32)
    }
}

/// Encodes one value into `F` (`F::from_f32` or `F::from_f32_satfinite`,
/// bit for bit), through the branch-free conversion where it covers the
/// format.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E4M3, Mode};
/// let c = bitpack::kernels::fixed::encode::<E4M3>(500.0, Mode::SatFinite);
/// assert_eq!(c.to_f32(), 448.0);
/// ```
#[inline]
pub fn encode<F: MiniFloat>(x: f32, mode: Mode) -> F {
    F::from_raw_bits(encode_code::<F>(x, mode))
}

/// Decodes one value of `F` (`F::to_f32`, bit for bit).
///
/// # Examples
///
/// ```
/// use bitpack::formats::E2M1;
/// assert_eq!(bitpack::kernels::fixed::decode(E2M1::from_bits(0x7)), 6.0);
/// ```
#[inline]
pub fn decode<F: MiniFloat>(x: F) -> f32 {
    decode_code::<F>(x.raw_bits())
}

/// Encodes two lanes into the raw bits of an `NArray<F, 2>`: `lo`'s code in
/// bits `0..F::BITS`, `hi`'s in `F::BITS..2 * F::BITS` (for 6-bit formats
/// the dense 12-bit pair, not PTX's one-per-byte form).
///
/// The same bits as two calls of [`encode`]. On `nvptx64`, in
/// [`Mode::SatFinite`], one packed `cvt.rn.satfinite` where the target has
/// it for `F` (E4M3 and E5M2 from `sm_89`; E2M1, E2M3 and E3M2 on
/// `sm_100a`/`sm_101a`/`sm_120a`); a NaN lane of an 8-bit format takes the
/// portable code, so the NaN's sign is kept whatever the hardware returns.
/// E8M0 has no round-to-nearest `cvt` and always runs the portable code.
///
/// # Examples
///
/// ```
/// use bitpack::NArray;
/// use bitpack::formats::{E4M3, Mode};
/// use bitpack::kernels::fixed;
///
/// let raw = fixed::encode_pair::<E4M3>(1.0, -2.0, Mode::SatFinite);
/// let lanes = NArray::<E4M3, 2>::from_raw_bits(raw);
/// assert_eq!(lanes.to_array().map(|c| c.to_f32()), [1.0, -2.0]);
/// ```
#[inline]
pub fn encode_pair<F: MiniFloat>(lo: f32, hi: f32, mode: Mode) -> u16 {
    #[cfg(target_arch = "nvptx64")]
    if matches!(mode, Mode::SatFinite)
        && let Some(d) = device::encode_pair::<F>(lo, hi)
    {
        return d;
    }
    let a = encode_code::<F>(lo, mode) as u16;
    let b = encode_code::<F>(hi, mode) as u16;
    a | b << F::BITS
}

/// [`encode_pair`] of two values that are not NaN: the same bits, without
/// the check that gives a NaN lane of an 8-bit format the portable code on
/// the GPU (a NaN lane's code is whatever the hardware gives). For callers
/// that discard NaN lanes' codes, as a block quantizer does (a NaN in a
/// block makes its scale NaN and its codes zero).
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E4M3, Mode};
/// use bitpack::kernels::fixed;
///
/// let pair = fixed::encode_pair_not_nan::<E4M3>(1.0, -2.0, Mode::SatFinite);
/// assert_eq!(pair, fixed::encode_pair::<E4M3>(1.0, -2.0, Mode::SatFinite));
/// ```
#[inline]
pub fn encode_pair_not_nan<F: MiniFloat>(lo: f32, hi: f32, mode: Mode) -> u16 {
    #[cfg(target_arch = "nvptx64")]
    if matches!(mode, Mode::SatFinite)
        && let Some(d) = device::encode_pair_raw::<F, false>(lo, hi)
    {
        return d;
    }
    encode_pair::<F>(lo, hi, mode)
}

/// Decodes the two lanes of the raw bits of an `NArray<F, 2>` (lane 0 in
/// bits `0..F::BITS`; bits above `2 * F::BITS` ignored): `[lane 0, lane 1]`,
/// the same bits as two calls of [`decode`]. On `nvptx64`, one packed
/// `cvt.rn.f16x2` where the target has it for `F` (as for [`encode_pair`]),
/// and a NaN code takes the portable value.
///
/// # Examples
///
/// ```
/// use bitpack::formats::E5M2;
/// assert_eq!(bitpack::kernels::fixed::decode_pair::<E5M2>(0xc03c), [1.0, -2.0]);
/// ```
#[inline]
pub fn decode_pair<F: MiniFloat>(codes: u16) -> [f32; 2] {
    let m = (1u16 << F::BITS) - 1;
    let (a, b) = ((codes & m) as u8, ((codes >> F::BITS) & m) as u8);
    #[cfg(target_arch = "nvptx64")]
    if let Some(v) = device::decode_pair::<F>(a, b) {
        return v;
    }
    [decode_code::<F>(a), decode_code::<F>(b)]
}

/// Encodes `src` densely into `words` from bit 0, a pair of lanes at a time
/// ([`encode_pair`]); every word touched is overwritten, so bits past the
/// last value come out zero.
///
/// # Panics
///
/// When `words` holds fewer than `ceil(src.len() * F::BITS / 64)` words.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, Mode};
/// let mut words = [u64::MAX; 1];
/// bitpack::kernels::fixed::encode_words::<E2M1>(&[1.0, -2.0, 6.0], Mode::Nearest, &mut words);
/// assert_eq!(u64::from_le(words[0]), 0x7c2);
/// ```
#[inline]
pub fn encode_words<F: MiniFloat>(src: &[f32], mode: Mode, words: &mut [u64]) {
    let needed = super::words_for(F::BITS, src.len());
    assert!(
        words.len() >= needed,
        "{needed} words needed, {} given",
        words.len()
    );
    // Writes go through `get_mut`: with the length checked above none is
    // skipped, and no index is left to check inside the loop.
    let mut out = words.iter_mut();
    let mut put = |acc: u64| {
        if let Some(w) = out.next() {
            *w = scalar::st(acc);
        }
    };
    let k = 2 * F::BITS;
    let mut acc = 0u64;
    let mut nbits = 0u32;
    let mut pairs = src.chunks_exact(2);
    for p in &mut pairs {
        let v = encode_pair::<F>(p[0], p[1], mode) as u64;
        acc |= v << nbits;
        if nbits + k >= 64 {
            put(acc);
            acc = if nbits == 0 { 0 } else { v >> (64 - nbits) };
            nbits = nbits + k - 64;
        } else {
            nbits += k;
        }
    }
    if let [x] = pairs.remainder() {
        let v = (encode_pair::<F>(*x, 0.0, mode) as u64) & ((1 << F::BITS) - 1);
        acc |= v << nbits;
        if nbits + F::BITS >= 64 {
            put(acc);
            acc = if nbits == 0 { 0 } else { v >> (64 - nbits) };
            nbits = nbits + F::BITS - 64;
        } else {
            nbits += F::BITS;
        }
    }
    if nbits > 0 {
        put(acc);
    }
}

/// Decodes `dst.len()` values of `F` from bit 0 of `words`, a pair of lanes
/// at a time ([`decode_pair`]). Never panics: words past the end of `words`
/// read as zero (size it with [`words_for`](super::words_for)).
///
/// # Examples
///
/// ```
/// use bitpack::formats::E2M1;
/// let words = [0x7c2u64.to_le()];
/// let mut out = [0.0f32; 3];
/// bitpack::kernels::fixed::decode_words::<E2M1>(&words, &mut out);
/// assert_eq!(out, [1.0, -2.0, 6.0]);
/// ```
#[inline]
pub fn decode_words<F: MiniFloat>(words: &[u64], dst: &mut [f32]) {
    let k = 2 * F::BITS;
    let mut pairs = dst.chunks_exact_mut(2);
    let mut bit = 0usize;
    for p in &mut pairs {
        let codes = bits_at(words, bit, k) as u16;
        let [a, b] = decode_pair::<F>(codes);
        p[0] = a;
        p[1] = b;
        bit += k as usize;
    }
    if let [x] = pairs.into_remainder() {
        let code = bits_at(words, bit, F::BITS) as u16;
        *x = decode_pair::<F>(code)[0];
    }
}

/// Declares a two-lane `f32` to 16-bit float conversion: the `cvt` of the
/// same name in `ptx.rs` on `nvptx64` `sm_80`+ for non-NaN lanes, `half`'s
/// conversion elsewhere (and for NaN lanes).
macro_rules! half_pair {
    ($(#[$m:meta])* $name:ident, $half:ident) => {
        $(#[$m])*
        #[cfg(feature = "half")]
        #[inline]
        pub fn $name(lo: f32, hi: f32) -> u32 {
            #[cfg(target_arch = "nvptx64")]
            super::ptx::tier!(sm80 if !lo.is_nan() && !hi.is_nan() {
                return super::ptx::$name(lo, hi);
            });
            let one = |x: f32| half::$half::from_f32(x).to_bits() as u32;
            one(lo) | one(hi) << 16
        }
    };
}

half_pair!(
    /// `f32` to `f16` bits, round to nearest even, for two lanes: `lo` in
    /// bits 15:0. One `cvt.rn.f16x2.f32` on `nvptx64` `sm_80`+; portable
    /// elsewhere (`half::f16::from_f32`). NaN lanes give the portable NaN.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(bitpack::kernels::fixed::f16x2(1.0, -2.0), 0xc000_3c00);
    /// ```
    f16x2,
    f16
);
half_pair!(
    /// As [`f16x2`], for `bf16` (`cvt.rn.bf16x2.f32`; `half::bf16::from_f32`).
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(bitpack::kernels::fixed::bf16x2(1.0, -2.0), 0xc000_3f80);
    /// ```
    bf16x2,
    bf16
);

/// The hardware pair conversions of `ptx.rs`, by format, for the targets
/// that have them; `None` where the portable code must run.
#[cfg(target_arch = "nvptx64")]
mod device {
    #[allow(
        unused_imports,
        reason = "used by the targets that have a packed `cvt`"
    )]
    use super::{MiniFloat, Mode, decode_code, encode_code};
    #[allow(
        unused_imports,
        reason = "used by the targets that have a packed `cvt`"
    )]
    use crate::float::FloatFormat;
    #[allow(
        unused_imports,
        reason = "used by the targets that have a packed `cvt`"
    )]
    use crate::kernels::ptx;

    /// Whether two formats round and decode alike (the fields that matter for
    /// both modes' results).
    #[allow(dead_code, reason = "used by the targets that have a packed `cvt`")]
    const fn same_format(a: &FloatFormat, b: &FloatFormat) -> bool {
        a.exponent_bits == b.exponent_bits
            && a.mantissa_bits == b.mantissa_bits
            && a.bias == b.bias
            && a.signed == b.signed
            && a.subnormals == b.subnormals
            && a.specials as u8 == b.specials as u8
            && a.overflow as u8 == b.overflow as u8
            && a.ties as u8 == b.ties as u8
            && a.nan_fallback as u8 == b.nan_fallback as u8
    }

    /// Replaces a NaN lane's code by the portable one (the `cvt` may not keep
    /// the NaN's sign).
    #[allow(dead_code, reason = "used by the targets that have the FP8 `cvt`")]
    #[inline(always)]
    fn fix_nan<F: MiniFloat>(d: u16, lo: f32, hi: f32) -> u16 {
        let mut d = d;
        if lo.is_nan() {
            d = (d & 0xff00) | encode_code::<F>(lo, Mode::SatFinite) as u16;
        }
        if hi.is_nan() {
            d = (d & 0x00ff) | (encode_code::<F>(hi, Mode::SatFinite) as u16) << 8;
        }
        d
    }

    #[allow(
        unused_variables,
        reason = "targets without a packed `cvt` return `None`"
    )]
    #[inline(always)]
    pub(super) fn encode_pair<F: MiniFloat>(lo: f32, hi: f32) -> Option<u16> {
        encode_pair_raw::<F, true>(lo, hi)
    }

    /// [`encode_pair`] with the NaN lanes of the 8-bit formats fixed
    /// (`NAN`) or left as the hardware codes them.
    #[allow(
        unused_variables,
        reason = "targets without a packed `cvt` return `None`"
    )]
    #[inline(always)]
    pub(super) fn encode_pair_raw<F: MiniFloat, const NAN: bool>(lo: f32, hi: f32) -> Option<u16> {
        let fix = |d: u16| if NAN { fix_nan::<F>(d, lo, hi) } else { d };
        ptx::tier!(fp8 {
            if const { same_format(&F::FORMAT, &FloatFormat::E4M3) } {
                return Some(fix(ptx::e4m3x2(lo, hi)));
            }
            if const { same_format(&F::FORMAT, &FloatFormat::E5M2) } {
                return Some(fix(ptx::e5m2x2(lo, hi)));
            }
        });
        ptx::tier!(fp4 {
            if const { same_format(&F::FORMAT, &FloatFormat::E2M1) } {
                return Some(ptx::e2m1x2(lo, hi));
            }
            let dense = |d: u16| (d & 0x3f) | ((d >> 8) & 0x3f) << 6;
            if const { same_format(&F::FORMAT, &FloatFormat::E2M3) } {
                return Some(dense(ptx::e2m3x2(lo, hi)));
            }
            if const { same_format(&F::FORMAT, &FloatFormat::E3M2) } {
                return Some(dense(ptx::e3m2x2(lo, hi)));
            }
        });
        None
    }

    #[allow(
        unused_variables,
        reason = "targets without a packed `cvt` return `None`"
    )]
    #[inline(always)]
    pub(super) fn decode_pair<F: MiniFloat>(a: u8, b: u8) -> Option<[f32; 2]> {
        #[allow(
            unused_mut,
            reason = "assigned by the targets that have a packed `cvt`"
        )]
        let mut h: Option<u32> = None;
        ptx::tier!(fp8 {
            let pair = a as u16 | (b as u16) << 8;
            if const { same_format(&F::FORMAT, &FloatFormat::E4M3) } {
                h = Some(ptx::f16x2_from_e4m3x2(pair));
            } else if const { same_format(&F::FORMAT, &FloatFormat::E5M2) } {
                h = Some(ptx::f16x2_from_e5m2x2(pair));
            }
        });
        ptx::tier!(fp4 {
            let padded = a as u16 | (b as u16) << 8;
            if const { same_format(&F::FORMAT, &FloatFormat::E2M1) } {
                h = Some(ptx::f16x2_from_e2m1x2(a as u16 | (b as u16) << 4));
            } else if const { same_format(&F::FORMAT, &FloatFormat::E2M3) } {
                h = Some(ptx::f16x2_from_e2m3x2(padded));
            } else if const { same_format(&F::FORMAT, &FloatFormat::E3M2) } {
                h = Some(ptx::f16x2_from_e3m2x2(padded));
            }
        });
        let h = h?;
        let mut v = ptx::f32x2_from_f16x2(h);
        // A NaN code decodes to the quiet NaN with the code's sign (what
        // `FloatFormat::decode_f32` gives), whatever payload the `cvt` made.
        let sign = const { F::FORMAT.sign_mask() };
        let nan = |c: u8| f32::from_bits(0x7fc0_0000 | ((c as u32 & sign != 0) as u32) << 31);
        if F::FORMAT.is_nan_code(a as u32) {
            v[0] = nan(a);
        }
        if F::FORMAT.is_nan_code(b as u32) {
            v[1] = nan(b);
        }
        Some(v)
    }
}
