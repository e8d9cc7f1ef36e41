//! The bulk float paths over slices and packed streams: codes from `f32`,
//! `f32` from codes, through the element functions of `float_elem.rs` (as
//! portable loops or, where `x86::features()` reports them, the SIMD builds
//! of `x86/`: AVX-512 F/BW first, then AVX2), else the rounding routine or
//! the decode table.

pub(crate) use super::float_elem::*;
use crate::formats::MiniFloat;

/// `codes[i]` = the code of `src[i]` in `F`, rounded to nearest with the
/// format's rules (`satfinite`: the saturating ones), unpacked one per
/// byte: [`encode_fast`] or [`e8m0_encode`] where they cover the format
/// (AVX-512 or AVX2 code where detected), else the rounding routine.
pub(crate) fn encode_codes_f32<F: MiniFloat>(src: &[f32], satfinite: bool, codes: &mut [u8]) {
    use crate::formats::Mode;
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if super::x86::features() & super::x86::AVX2 != 0 {
        if const { encode_fast_ok(&F::FORMAT) } {
            if satfinite {
                encode_x86::<F, true>(src, codes)
            } else {
                encode_x86::<F, false>(src, codes)
            }
            return;
        }
        if const { e8m0_ok(&F::FORMAT) } {
            if satfinite {
                super::with_avx2(|| super::scalar::map_codes(&e8m0_encode::<true>, src, codes))
            } else {
                super::with_avx2(|| super::scalar::map_codes(&e8m0_encode::<false>, src, codes))
            }
            return;
        }
    }
    #[cfg(all(
        feature = "std",
        target_arch = "aarch64",
        target_feature = "neon",
        target_endian = "little"
    ))]
    if const { encode_fast_ok(&F::FORMAT) } && super::aarch64::features() != 0 {
        if satfinite {
            // SAFETY: `encode_f32_neon` enables only `neon`, which this
            // target has (it is in its cfg).
            unsafe { super::aarch64::encode_f32_neon::<F, true>(src, codes) }
        } else {
            // SAFETY: as above.
            unsafe { super::aarch64::encode_f32_neon::<F, false>(src, codes) }
        }
        return;
    }
    use super::scalar::map_codes as scalar;
    match (
        const { encode_fast_ok(&F::FORMAT) },
        const { e8m0_ok(&F::FORMAT) },
        satfinite,
    ) {
        (true, _, false) => scalar(&encode_fast::<F, false>, src, codes),
        (true, _, true) => scalar(&encode_fast::<F, true>, src, codes),
        (false, true, false) => scalar(&e8m0_encode::<false>, src, codes),
        (false, true, true) => scalar(&e8m0_encode::<true>, src, codes),
        (false, false, sat) => {
            let mode = if sat { Mode::SatFinite } else { Mode::Nearest };
            scalar(&|x: f32| F::FORMAT.encode_f32(x, mode) as u8, src, codes)
        }
    }
}

/// `out[i] = F::FORMAT.decode_f32(codes[i])` for unpacked codes (one per
/// byte, bits above the format's ignored), bit for bit: `vcvtph2ps`
/// (AVX-512, else F16C) where the CPU has it and the format allows
/// ([`f16_ok`]), else [`decode_fast`] (a loop
/// compiled for AVX2 where detected), else `fallback` (the table).
pub(crate) fn decode_codes<F: MiniFloat>(
    codes: &[u8],
    out: &mut [f32],
    fallback: impl Fn(u8) -> f32,
) {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    {
        use super::x86;
        let have = x86::features();
        if const { f16_ok(&F::FORMAT) } && have & x86::AVX512_BW == x86::AVX512_BW {
            // SAFETY: `decode_f16c_avx512` enables `avx512f` and `avx512bw`,
            // both detected at run time by `x86::features` just above.
            unsafe { x86::decode_f16c_avx512::<F>(codes, out) };
            return;
        }
        if const { f16_ok(&F::FORMAT) } && have & x86::AVX2_F16C == x86::AVX2_F16C {
            // SAFETY: `decode_f16c` enables `avx2` and `f16c`, both detected
            // at run time by `x86::features` just above.
            unsafe { x86::decode_f16c::<F>(codes, out) };
            return;
        }
        if have & x86::AVX2 != 0 {
            if const { e8m0_ok(&F::FORMAT) } {
                super::with_avx2(|| super::scalar::map_values(&e8m0_decode, codes, out));
            } else if const { decode_fast_ok(&F::FORMAT) } {
                super::with_avx2(|| super::scalar::map_values(&decode_fast::<F>, codes, out));
            } else {
                super::with_avx2(|| super::scalar::map_values(&fallback, codes, out));
            }
            return;
        }
    }
    #[cfg(all(
        feature = "std",
        target_arch = "aarch64",
        target_feature = "neon",
        target_endian = "little"
    ))]
    if const { decode_fast_ok(&F::FORMAT) && !e8m0_ok(&F::FORMAT) }
        && super::aarch64::features() != 0
    {
        // SAFETY: `decode_f32_neon` enables only `neon`, which this target
        // has (it is in its cfg).
        unsafe { super::aarch64::decode_f32_neon::<F>(codes, out) };
        return;
    }
    if const { e8m0_ok(&F::FORMAT) } {
        super::scalar::map_values(&e8m0_decode, codes, out);
    } else if const { decode_fast_ok(&F::FORMAT) } {
        super::scalar::map_values(&decode_fast::<F>, codes, out);
    } else {
        super::scalar::map_values(&fallback, codes, out);
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

/// `codes[i] = encode_fast::<F, SAT>(src[i])` through the widest x86 build
/// the CPU has: AVX-512 F and BW (`x86::encode_f32_avx512`), else AVX2,
/// else the portable loop.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
fn encode_x86<F: MiniFloat, const SAT: bool>(src: &[f32], codes: &mut [u8]) {
    use super::x86;
    let have = x86::features();
    if have & x86::AVX512_BW == x86::AVX512_BW {
        // SAFETY: `encode_f32_avx512` enables `avx512f` and `avx512bw`, both
        // detected by `x86::features` just above.
        unsafe { x86::encode_f32_avx512::<F, SAT>(src, codes) }
    } else if have & x86::AVX2 != 0 {
        // SAFETY: `encode_f32_avx2` enables only `avx2`, detected above.
        unsafe { x86::encode_f32_avx2::<F, SAT>(src, codes) }
    } else {
        super::scalar::map_codes(&encode_fast::<F, SAT>, src, codes)
    }
}

/// [`encode_x86`] for 4-bit formats, the codes packed two per byte (element
/// `2i` in the low nibble of `out[i]`; `out.len() == ceil(src.len() / 2)`).
#[cfg(all(feature = "std", target_arch = "x86_64"))]
fn encode4_x86<F: MiniFloat, const SAT: bool>(src: &[f32], out: &mut [u8]) {
    use super::x86;
    let have = x86::features();
    if have & x86::AVX512_BW == x86::AVX512_BW {
        // SAFETY: `encode4_f32_avx512` enables `avx512f` and `avx512bw`,
        // both detected by `x86::features` just above.
        unsafe { x86::encode4_f32_avx512::<F, SAT>(src, out) }
    } else if have & x86::AVX2 != 0 {
        // SAFETY: `encode4_f32_avx2` enables only `avx2`, detected above.
        unsafe { x86::encode4_f32_avx2::<F, SAT>(src, out) }
    } else {
        for (pair, o) in src.chunks(2).zip(out) {
            let hi = pair.get(1).map_or(0, |&x| encode_fast::<F, SAT>(x) & 0xf);
            *o = encode_fast::<F, SAT>(pair[0]) & 0xf | hi << 4;
        }
    }
}

/// Encodes `src` as codes of `F` from value `offset` of the word stream,
/// `satfinite` selecting the saturating mode: [`encode_fast`] where it
/// covers the format (as AVX-512 or AVX2 code where detected:
/// [`encode_x86`]),
/// else the rounding routine, monomorphized into the encode kernel
/// ([`encode`](super::encode)).
pub(crate) fn encode_words<F: MiniFloat>(
    src: &[f32],
    satfinite: bool,
    words: &mut [u64],
    offset: usize,
) {
    use crate::formats::Mode;
    let w = F::BITS;
    debug_assert!(super::check_words(w, offset, src.len(), words.len()).is_ok());
    if const { e8m0_ok(&F::FORMAT) } {
        // Whole-byte codes: write them straight into the words' bytes.
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
        encode_codes_f32::<F>(src, satfinite, &mut bytes[offset..offset + src.len()]);
        return;
    }
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if const { encode_fast_ok(&F::FORMAT) } && super::x86::features() & super::x86::AVX2 != 0 {
        let map = |s: &[f32], c: &mut [u8]| {
            if satfinite {
                encode_x86::<F, true>(s, c)
            } else {
                encode_x86::<F, false>(s, c)
            }
        };
        if w == 8 {
            // Whole-byte codes: write them straight into the words' bytes.
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
            map(src, &mut bytes[offset..offset + src.len()]);
        } else if w == 4 && offset.is_multiple_of(2) {
            // Nibble pairs: packed straight into the words' bytes; an odd
            // last value goes through the general path (its byte's other
            // nibble may belong to a neighbour).
            let even = src.len() & !1;
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
            let out = &mut bytes[offset / 2..(offset + even) / 2];
            if satfinite {
                encode4_x86::<F, true>(&src[..even], out)
            } else {
                encode4_x86::<F, false>(&src[..even], out)
            }
            if even < src.len() {
                let pack = select!(PACK_U8[w](s: &[u8], ws: &mut [u64], o: usize));
                super::scalar::encode_chunks(map, pack, &src[even..], words, offset + even);
            }
        } else {
            let pack = select!(PACK_U8[w](s: &[u8], ws: &mut [u64], o: usize));
            super::scalar::encode_chunks(map, pack, src, words, offset);
        }
        return;
    }
    #[cfg(all(
        feature = "std",
        target_arch = "aarch64",
        target_feature = "neon",
        target_endian = "little"
    ))]
    if const { encode_fast_ok(&F::FORMAT) } && super::aarch64::features() != 0 {
        use super::aarch64::{encode_f32_neon, encode4_f32_neon};
        let map = |s: &[f32], c: &mut [u8]| {
            if satfinite {
                // SAFETY: `encode_f32_neon` enables only `neon`, which this
                // target has (it is in its cfg).
                unsafe { encode_f32_neon::<F, true>(s, c) }
            } else {
                // SAFETY: as above.
                unsafe { encode_f32_neon::<F, false>(s, c) }
            }
        };
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
        if w == 8 {
            // Whole-byte codes: write them straight into the words' bytes.
            map(src, &mut bytes[offset..offset + src.len()]);
        } else if w == 4 && offset.is_multiple_of(2) {
            // Nibble pairs straight into the words' bytes; an odd last value
            // goes through the general path (its byte's other nibble may
            // belong to a neighbour).
            let even = src.len() & !1;
            let out = &mut bytes[offset / 2..(offset + even) / 2];
            if satfinite {
                // SAFETY: `encode4_f32_neon` enables only `neon`, which this
                // target has.
                unsafe { encode4_f32_neon::<F, true>(&src[..even], out) }
            } else {
                // SAFETY: as above.
                unsafe { encode4_f32_neon::<F, false>(&src[..even], out) }
            }
            if even < src.len() {
                let pack = select!(PACK_U8[w](s: &[u8], ws: &mut [u64], o: usize));
                super::scalar::encode_chunks(map, pack, &src[even..], words, offset + even);
            }
        } else {
            let pack = select!(PACK_U8[w](s: &[u8], ws: &mut [u64], o: usize));
            super::scalar::encode_chunks(map, pack, src, words, offset);
        }
        return;
    }
    let r = match (const { encode_fast_ok(&F::FORMAT) }, satfinite) {
        (true, false) => super::encode(w, src, encode_fast::<F, false>, words, offset),
        (true, true) => super::encode(w, src, encode_fast::<F, true>, words, offset),
        (false, false) => super::encode(
            w,
            src,
            |x| F::FORMAT.encode_f32(x, Mode::Nearest) as u8,
            words,
            offset,
        ),
        (false, true) => super::encode(
            w,
            src,
            |x| F::FORMAT.encode_f32(x, Mode::SatFinite) as u8,
            words,
            offset,
        ),
    };
    if r.is_err() {
        unreachable!("the caller sized the stream");
    }
}
