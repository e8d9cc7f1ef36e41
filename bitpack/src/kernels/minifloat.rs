//! The bulk float paths over slices and packed streams: codes from `f32`,
//! `f32` from codes, through the element functions of `float/elem.rs` (as
//! portable loops or, where `dispatch::features()` reports them, the SIMD
//! builds of the target: on x86 AVX-512 F/BW first, then AVX2; NEON on
//! aarch64), else the rounding routine or the decode table.
//!
//! Each entry reads the CPU features once and passes them down; the SIMD
//! variants come from the per-target `float_variants` lists and are chosen
//! by `dispatch::first`, as the width tables' are.

use super::dispatch;
pub(crate) use crate::float::elem::*;
use crate::float::{MiniFloat, Mode, Parts, random_bits};

use super::dispatch::simd::float_variants as simd;

/// Calls `$f::<F, false>` or `$f::<F, true>` for a [`Mode`].
macro_rules! by_mode {
    ($mode:expr, $f:ident::<$F:ident>($($a:expr),*)) => {
        match $mode {
            Mode::Nearest => $f::<$F, false>($($a),*),
            Mode::SatFinite => $f::<$F, true>($($a),*),
        }
    };
}

/// The first SIMD variant of list `$list::<...>()` that `$have` allows, or
/// `None` (always on a target without variants).
macro_rules! simd_variant {
    ($have:expr, $list:ident::<$($g:tt),*>) => {
        dispatch::first($have, &simd::$list::<$($g),*>())
    };
}

/// `codes[i]` = the code of `src[i]` in `F`, rounded to nearest with the
/// format's rules (`satfinite`: the saturating ones), unpacked one per
/// byte (see [`encode_codes`]).
pub(crate) fn encode_codes_f32<F: MiniFloat>(src: &[f32], satfinite: bool, codes: &mut [u8]) {
    let have = dispatch::features();
    by_mode!(
        Mode::from_satfinite(satfinite),
        encode_codes::<F>(have, src, codes)
    )
}

/// `codes[i]` = the code of `src[i]` in `F` (`SAT`: the saturating mode),
/// one per byte, with the CPU features `have` (`dispatch::features()`, the
/// callers' one read): [`encode_fast`] or
/// [`e8m0_encode`] where they cover the format (a SIMD variant where `have`
/// allows one), else the rounding routine.
fn encode_codes<F: MiniFloat, const SAT: bool>(have: u32, src: &[f32], codes: &mut [u8]) {
    use super::scalar::map_codes;
    if const { encode_fast_ok(&F::FORMAT) } {
        if let Some(f) = simd_variant!(have, encode::<F, SAT>) {
            // SAFETY: `dispatch::first` returns a variant only when every
            // CPU feature its `#[target_feature]` enables is in `have`, the
            // features the kernels may use.
            unsafe { f(src, codes) };
            return;
        }
        map_codes(&encode_fast::<F, SAT>, src, codes)
    } else if const { e8m0_ok(&F::FORMAT) } {
        // SAFETY: `have` is the callers' `dispatch::features()`.
        unsafe { dispatch::with_avx512_in(have, || map_codes(&e8m0_encode::<SAT>, src, codes)) }
    } else {
        let mode = Mode::from_satfinite(SAT);
        map_codes(&|x: f32| F::FORMAT.encode_f32(x, mode) as u8, src, codes)
    }
}

/// `codes[i]` = the code of `src[i]` scaled by `scale` in `F`, rounded
/// stochastically with `random_bits(seed, first + i)` (`satfinite`: the
/// saturating mode), one per byte: [`encode_stochastic_slice`] where it
/// covers the format (a SIMD build where the CPU has one), else the
/// rounding routine.
pub(crate) fn encode_codes_stochastic<F: MiniFloat>(
    src: &[f32],
    scale: StochasticScale<'_>,
    satfinite: bool,
    (seed, first): (u64, u64),
    codes: &mut [u8],
) {
    let have = dispatch::features();
    by_mode!(
        Mode::from_satfinite(satfinite),
        stochastic_codes::<F>(have, src, scale, (seed, first), codes)
    )
}

/// [`encode_codes_stochastic`] in one mode, with the CPU features `have`.
fn stochastic_codes<F: MiniFloat, const SAT: bool>(
    have: u32,
    src: &[f32],
    scale: StochasticScale<'_>,
    (seed, first): (u64, u64),
    codes: &mut [u8],
) {
    if const { encode_fast_ok(&F::FORMAT) } {
        if let Some(f) = simd_variant!(have, stochastic::<F, SAT>) {
            // SAFETY: `dispatch::first` returns a variant only when every
            // CPU feature its `#[target_feature]` enables is in `have`, the
            // features the kernels may use.
            unsafe { f(src, scale, (seed, first), codes) };
            return;
        }
        encode_stochastic_slice::<F, SAT>(src, scale, (seed, first), codes);
        return;
    }
    let mode = Mode::from_satfinite(SAT);
    for (i, (c, &x)) in codes.iter_mut().zip(src).enumerate() {
        let p = match scale {
            StochasticScale::One => Parts::from_f32(x),
            StochasticScale::Exps(e) => Parts::from_f32(x).scaled(e[i]),
            StochasticScale::Divisors(d) => {
                // `abs`: the sign of a NaN quotient is not promised.
                let q = (f64::from(x.abs()) / d[i]).abs();
                Parts::from_f64(if x.is_sign_negative() { -q } else { q })
            }
        };
        let r = random_bits(seed, first.wrapping_add(i as u64));
        *c = F::FORMAT.round(p, mode, Some(r)) as u8;
    }
}

/// `out[i] = F::FORMAT.decode_f32(codes[i])` for unpacked codes (one per
/// byte, bits above the format's ignored), bit for bit: a SIMD variant
/// where the CPU has one and the format allows it (x86: `vpermi2b` tables
/// with AVX-512 VBMI for `table_ok` formats, else `vcvtph2ps` on 32 lanes
/// with AVX-512 BW, else `vpshufb` nibble tables with AVX2 for `split_ok`
/// formats, else `vcvtph2ps` with F16C (the `vcvtph2ps` paths for
/// [`f16_ok`] formats); aarch64: [`decode_fast`] on
/// four lanes), else [`e8m0_decode`] or [`decode_fast`] (a loop compiled for
/// AVX2 where detected), else `fallback` (the table).
pub(crate) fn decode_codes<F: MiniFloat>(
    codes: &[u8],
    out: &mut [f32],
    fallback: impl Fn(u8) -> f32,
) {
    let have = dispatch::features();
    if let Some(f) = simd_variant!(have, decode::<F>) {
        // SAFETY: `dispatch::first` returns a variant only when every CPU
        // feature its `#[target_feature]` enables is in `have`.
        unsafe { f(codes, out) };
        return;
    }
    use super::scalar::map_values;
    // SAFETY: `have` is `dispatch::features()`.
    unsafe {
        super::with_avx2_in(have, || {
            if const { e8m0_ok(&F::FORMAT) } {
                map_values(&e8m0_decode, codes, out);
            } else if const { decode_fast_ok(&F::FORMAT) } {
                map_values(&decode_fast::<F>, codes, out);
            } else {
                map_values(&fallback, codes, out);
            }
        })
    }
}

/// Decodes `out.len()` codes of `F` from value `offset` of the word stream:
/// a 16-entry table in registers for formats of at most 4 bits
/// ([`decode`](super::decode)), else the codes unpacked a chunk at a time
/// and converted by [`decode_codes`].
pub(crate) fn decode_words<F: MiniFloat>(
    words: &[u64],
    offset: usize,
    out: &mut [f32],
    table: &[f32; 256],
) {
    let w = F::BITS;
    if w <= 4 {
        if super::decode(w, &table[..1 << w], words, offset, out).is_err() {
            unreachable!("the caller sized the stream");
        }
        return;
    }
    if w == 8 {
        // Whole-byte codes: the words' bytes are the codes.
        let bytes: &[u8] = bytemuck::cast_slice(words);
        decode_codes::<F>(&bytes[offset..offset + out.len()], out, |x| {
            table[x as usize]
        });
        return;
    }
    let unpack = select!(UNPACK_U8[w](ws: &[u64], o: usize, d: &mut [u8]));
    let convert = |c: &[u8], o: &mut [f32]| decode_codes::<F>(c, o, |x| table[x as usize]);
    super::scalar::decode_map_chunks(unpack, convert, words, offset, out);
}

/// Encodes `src` as codes of `F` from value `offset` of the word stream,
/// `satfinite` selecting the saturating mode (see [`encode_mode`]).
pub(crate) fn encode_words<F: MiniFloat>(
    src: &[f32],
    satfinite: bool,
    words: &mut [u64],
    offset: usize,
) {
    encode_mode::<F>(src, Mode::from_satfinite(satfinite), words, offset)
}

/// Encodes `src` as codes of `F` with `mode` from value `offset` of the word
/// stream: the CPU features are read once, the mode becomes a constant of
/// [`encode_stream`].
pub(crate) fn encode_mode<F: MiniFloat>(src: &[f32], mode: Mode, words: &mut [u64], offset: usize) {
    let have = dispatch::features();
    by_mode!(mode, encode_stream::<F>(have, src, words, offset))
}

/// Encodes `src` as codes of `F` (`SAT`: the saturating mode) from value
/// `offset` of the word stream, with the CPU features `have`:
/// [`encode_fast`] where it covers the format (a SIMD variant where `have`
/// allows one, writing 8-bit codes and even-aligned nibble pairs straight
/// into the stream's bytes), else the rounding routine, monomorphized into
/// the encode kernel ([`encode`](super::encode)).
fn encode_stream<F: MiniFloat, const SAT: bool>(
    have: u32,
    src: &[f32],
    words: &mut [u64],
    offset: usize,
) {
    let w = F::BITS;
    debug_assert!(super::check_words(w, offset, src.len(), words.len()).is_ok());
    if const { e8m0_ok(&F::FORMAT) } {
        // Whole-byte codes: write them straight into the words' bytes.
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
        encode_codes::<F, SAT>(have, src, &mut bytes[offset..offset + src.len()]);
        return;
    }
    if let Some(enc) = simd_variant!(have, encode::<F, SAT>) {
        let map = |s: &[f32], c: &mut [u8]| {
            // SAFETY: `dispatch::first` returns a variant only when every CPU
            // feature its `#[target_feature]` enables is in `have`, the
            // features the kernels may use.
            unsafe { enc(s, c) }
        };
        let pack = select!(PACK_U8[w](s: &[u8], ws: &mut [u64], o: usize));
        if w == 8 {
            // Whole-byte codes: write them straight into the words' bytes.
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
            map(src, &mut bytes[offset..offset + src.len()]);
        } else if w == 4
            && offset.is_multiple_of(2)
            && let Some(enc4) = simd_variant!(have, encode4::<F, SAT>)
        {
            // Nibble pairs: packed straight into the words' bytes; an odd
            // last value goes through the general path (its byte's other
            // nibble may belong to a neighbour).
            let even = src.len() & !1;
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
            let out = &mut bytes[offset / 2..(offset + even) / 2];
            // SAFETY: as above.
            unsafe { enc4(&src[..even], out) };
            if even < src.len() {
                super::scalar::encode_chunks(map, pack, &src[even..], words, offset + even);
            }
        } else {
            super::scalar::encode_chunks(map, pack, src, words, offset);
        }
        return;
    }
    let r = if const { encode_fast_ok(&F::FORMAT) } {
        super::encode(w, src, encode_fast::<F, SAT>, words, offset)
    } else {
        let mode = Mode::from_satfinite(SAT);
        super::encode(
            w,
            src,
            |x| F::FORMAT.encode_f32(x, mode) as u8,
            words,
            offset,
        )
    };
    if r.is_err() {
        unreachable!("the caller sized the stream");
    }
}
