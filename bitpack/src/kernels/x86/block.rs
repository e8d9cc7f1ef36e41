//! The block kernels of MX and NVFP4.
//!
//! The one-pass NVFP4 quantize (`kernels::nvfp4_blocks`), AVX2 and
//! AVX-512: per block of 16 `f32` values, the amax of the magnitudes' bits
//! (an integer max), the caller's scale code and the row of thresholds for
//! it (read in place), each magnitude's count of the thresholds it passes
//! by binary search (three compares), the sign bit, and the 16 codes
//! packed into one `u64` of nibbles, value 0 in the low nibble. The AVX2
//! variant takes a block in two registers, reduces each block's amax alone
//! and picks the second and third thresholds per lane by `vpermd`; the
//! AVX-512 one takes a block per register, reduces a group's 32 amaxes by
//! four 256-bit transposed trees, and keeps each code bit as a mask,
//! deposited into the nibbles by `pdep` (an earlier AVX-512 twin with
//! per-block reductions and threshold broadcasts in registers was slower
//! than the AVX2 one).
//!
//! The one-pass MX quantize (`kernels::mx_blocks`), AVX2 and AVX-512: a
//! group of 16 blocks' amaxes reduced by one transposed tree, their scales
//! as one vector, then the products' codes by the encode kernels' element
//! steps (`encode8`, `encode16`).
//!
//! Both quantizes ask for the input `kernels::PREFETCH_AHEAD` bytes
//! ahead, one line in sixteen.
//!
//! The scaled E2M1 decode of MX and NVFP4 blocks
//! (`kernels::e2m1_scaled_blocks`), AVX2 and AVX-512.

use core::arch::x86_64::*;

use super::float::{encode8, encode16};
use super::simd::*;
use crate::float::MiniFloat;
use crate::kernels::{
    BlockCode, MX_GROUP, MxScaleBits, NVFP4_GROUP, Rows, in_groups, mx_groups, row, scaled_blocks,
};

/// The 16 codes of a block (one per 32-bit lane of `c0`, values 0..8, and
/// `c1`, values 8..16; each at most 15) as 16 nibbles: `vpackusdw` (whose
/// 128-bit interleave `vpermq` undoes), `vpackuswb`, then `vpmaddubsw`
/// with the byte weights 1 and 16 joins each pair into one byte.
#[target_feature(enable = "avx2")]
#[inline]
fn nibbles_avx2(c0: __m256i, c1: __m256i) -> u64 {
    let b = narrow_u32x16(c0, c1);
    let pairs = _mm_maddubs_epi16(b, _mm_set1_epi16(0x1001));
    _mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)) as u64
}

/// The step of both x86 NVFP4 variants: four blocks, each block's word by
/// `word(block, its row)`, and the prefetch of a line in sixteen
/// ([`prefetch_per_kib`](crate::kernels::prefetch_per_kib)).
#[target_feature(enable = "avx2")]
#[inline]
fn four_blocks(
    word: impl Fn(&[f32; 16], &[i32; 8]) -> u64,
) -> impl Fn(&[[f32; 16]; 4], &[u8; 4], &Rows, &mut [u64; 4]) {
    move |x, s, rows, w| {
        crate::kernels::prefetch_per_kib::<256>(x[0].as_ptr().cast());
        for ((b, &s), w) in x.iter().zip(s).zip(w) {
            *w = word(b, row(rows, s));
        }
    }
}

/// A row of thresholds as one vector: one load, not the row's lanes one
/// by one, which is what a copy of the array by value compiles to.
#[target_feature(enable = "avx2")]
#[inline]
fn row_lanes(t: &[i32; 8]) -> __m256i {
    // SAFETY: the row is 32 bytes, all of them read; the CPU has AVX2
    // (this function's feature).
    unsafe { load32(bytemuck::cast_slice(t), 0) }
}

/// [`nvfp4_blocks`](crate::kernels::nvfp4_blocks) with AVX2: a block in
/// two registers, its amax reduced alone (four blocks a step, for the
/// prefetch of one line in sixteen); each magnitude's code by binary search of
/// the row (three `vpcmpgtd`, two `vpermd` of the row, loaded once), where
/// counting all seven compares took 14 instructions per register for the
/// search's 10.
#[target_feature(enable = "avx2")]
pub(crate) fn nvfp4_blocks_avx2(
    xs: &[f32],
    scales: &mut [u8],
    words: &mut [u64],
    code: &mut impl BlockCode,
) {
    let abs = _mm256_set1_epi32(0x7fff_ffff);
    let load = |block: &[f32]| {
        let lo: [f32; 8] = block[..8].try_into().expect("16 values");
        let hi: [f32; 8] = block[8..].try_into().expect("16 values");
        let (v0, v1) = (v256_u32(bytemuck::cast(lo)), v256_u32(bytemuck::cast(hi)));
        (v0, v1, _mm256_and_si256(v0, abs), _mm256_and_si256(v1, abs))
    };
    let amax = |block: &[f32]| {
        let (_, _, a0, a1) = load(block);
        let m = _mm256_max_epu32(a0, a1);
        let m = _mm_max_epu32(_mm256_castsi256_si128(m), _mm256_extracti128_si256::<1>(m));
        let m = _mm_max_epu32(m, _mm_shuffle_epi32::<0b01_00_11_10>(m));
        let m = _mm_max_epu32(m, _mm_shuffle_epi32::<0b10_11_00_01>(m));
        _mm_cvtsi128_si32(m) as u32
    };
    let (one, two, four) = (
        _mm256_set1_epi32(1),
        _mm256_set1_epi32(2),
        _mm256_set1_epi32(4),
    );
    let word = |block: &[f32; 16], t: &[i32; 8]| {
        let (v0, v1, a0, a1) = load(block);
        let r = row_lanes(t);
        let t3 = _mm256_set1_epi32(t[3]);
        // The count of thresholds passed, by binary search of the seven
        // non-decreasing ones (a compare's mask is -1 where the magnitude
        // passes): past t3 or not (`base` 4 or 0), then past t5 or t1
        // (index `base | 1`, one more bit of the code), then past the
        // threshold at the even index found, picked per lane by `vpermd`.
        let count = |a: __m256i| {
            let base = _mm256_and_si256(_mm256_cmpgt_epi32(a, t3), four);
            let i = _mm256_or_si256(base, one);
            let m = _mm256_cmpgt_epi32(a, _mm256_permutevar8x32_epi32(r, i));
            let i = _mm256_or_si256(base, _mm256_and_si256(m, two));
            let m = _mm256_cmpgt_epi32(a, _mm256_permutevar8x32_epi32(r, i));
            _mm256_sub_epi32(i, m)
        };
        let sign = _mm256_set1_epi32(t[7]);
        let c0 = _mm256_or_si256(
            count(a0),
            _mm256_srli_epi32::<28>(_mm256_and_si256(v0, sign)),
        );
        let c1 = _mm256_or_si256(
            count(a1),
            _mm256_srli_epi32::<28>(_mm256_and_si256(v1, sign)),
        );
        nibbles_avx2(c0, c1)
    };
    let step = four_blocks(word);
    in_groups(xs, scales, words, code, 0u32, |x| amax(x), |m| *m, step);
}

/// [`nvfp4_blocks`](crate::kernels::nvfp4_blocks) with AVX-512 (F and
/// BW) and BMI2: a block of 16 values is one register, halved to eight
/// lanes (`vpmaxud` of its 256-bit halves) for the group's 32 amaxes,
/// which four [`hmax8_avx2`] trees reduce (256-bit shuffles: Zen 4 runs
/// 512-bit ones at half rate). Per block, each magnitude's code by binary
/// search of its row's seven thresholds, its bits kept as four 16-bit
/// masks: three `vpcmpgtd` against thresholds that masked broadcasts of
/// the row's entries pick per lane, and the sign bit by `vptestmd` with the
/// row's sign mask. Four `pdep` put bit `j` of the mask of code bit `b`
/// at bit `4j + b` of the block's word. This replaced codes built in
/// 32-bit lanes and narrowed to nibbles (`vpackusdw`, `vpackuswb`,
/// `vpermd`, `vpmaddubsw`, `vpmovwb`): with the 256-bit trees, 0.81x the
/// time in cache (about 0.94x of it the masks, 0.88x the trees). The same
/// masks turned into code bytes by masked byte adds compiled to `kunpck`
/// chains and were slower. (`pdep` is slow on AMD before Zen 3, CPUs
/// without AVX-512, which take the AVX2 variant.)
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
pub(crate) fn nvfp4_blocks_avx512(
    xs: &[f32],
    scales: &mut [u8],
    words: &mut [u64],
    code: &mut impl BlockCode,
) {
    let abs = _mm512_set1_epi32(0x7fff_ffff);
    // A block's magnitudes halved to eight lanes, so that the group's
    // trees shuffle 256-bit vectors.
    let part = |block: &[f32; 16]| {
        let a = _mm512_and_si512(v512_u32(bytemuck::cast(*block)), abs);
        _mm256_max_epu32(_mm512_castsi512_si256(a), _mm512_extracti64x4_epi64::<1>(a))
    };
    let reduce = |p: &[__m256i; NVFP4_GROUP]| -> [u32; NVFP4_GROUP] {
        let q: &[[__m256i; 8]; 4] = bytemuck::cast_ref(p);
        let m: [__m256i; 4] = core::array::from_fn(|i| hmax8_avx2(&q[i]));
        bytemuck::cast(m)
    };
    let word = |block: &[f32; 16], t: &[i32; 8]| -> u64 {
        let v = v512_u32(bytemuck::cast(*block));
        let a = _mm512_and_si512(v, abs);
        let at = |k: usize| _mm512_set1_epi32(t[k]);
        // The code's bits as masks, by binary search of the seven
        // non-decreasing thresholds: bit 2 past t3, bit 1 past t5 or t1
        // (by bit 2), bit 0 past t6, t4, t2 or t0 (by bits 2 and 1); the
        // thresholds picked per lane by blends of broadcasts (which
        // compile to masked broadcasts from the row).
        let b2 = _mm512_cmpgt_epi32_mask(a, at(3));
        let b1 = _mm512_cmpgt_epi32_mask(a, _mm512_mask_blend_epi32(b2, at(1), at(5)));
        let lo = _mm512_mask_blend_epi32(b1, at(0), at(2));
        let hi = _mm512_mask_blend_epi32(b1, at(4), at(6));
        let b0 = _mm512_cmpgt_epi32_mask(a, _mm512_mask_blend_epi32(b2, lo, hi));
        // The sign bits where the row's sign mask keeps them.
        let b3 = _mm512_test_epi32_mask(v, at(7));
        // Bit `j` of mask `b` to bit `b` of nibble `j`.
        let d = |m: u16, k: u64| _pdep_u64(u64::from(m), k);
        d(b0, 0x1111_1111_1111_1111)
            | d(b1, 0x2222_2222_2222_2222)
            | d(b2, 0x4444_4444_4444_4444)
            | d(b3, 0x8888_8888_8888_8888)
    };
    let step = four_blocks(word);
    in_groups(
        xs,
        scales,
        words,
        code,
        _mm256_setzero_si256(),
        part,
        reduce,
        step,
    );
}

/// [`e2m1_scaled_blocks`](crate::kernels::e2m1_scaled_blocks) with AVX2:
/// each step of 64 values (4 words) decoded by the `vpshufb` nibble
/// tables of the plain E2M1 decode (`float::Nib`), then multiplied by its
/// word's block factor and by `post` (`(v * f) * post`, as the
/// value-by-value path computes; the second multiply skipped where `post`
/// is 1, which leaves every product as it is). The block of each word is
/// counted, not divided out. On AMD Zen 4 (AVX-512 masked off) this
/// measured 0.87x (MX) and 0.92x (NVFP4) the time of the eight-product
/// tables looked up by `vpermps` per 8 values it replaces; see
/// `BENCHMARKS.md`.
#[target_feature(enable = "avx2")]
pub(crate) fn e2m1_scaled_blocks_avx2(
    words: &[u64],
    out: &mut [f32],
    per_block: usize,
    scales: &[u8],
    lut: &[f32; 256],
    post: f32,
) {
    if post == 1.0 {
        e2m1_scaled_nib::<false>(words, out, per_block, scales, lut, post);
    } else {
        e2m1_scaled_nib::<true>(words, out, per_block, scales, lut, post);
    }
}

/// The body of [`e2m1_scaled_blocks_avx2`], `POST` whether it multiplies
/// by `post`.
#[target_feature(enable = "avx2")]
#[inline]
fn e2m1_scaled_nib<const POST: bool>(
    words: &[u64],
    out: &mut [f32],
    per_block: usize,
    scales: &[u8],
    lut: &[f32; 256],
    post: f32,
) {
    use crate::kernels::E2M1_MAGS;
    let value = |c: usize| {
        let m = E2M1_MAGS[c & 7];
        if c & 8 == 0 { m } else { -m }
    };
    let nib = super::float::Nib::new(core::array::from_fn(|c| value(c).to_bits()));
    let post_v = _mm256_set1_ps(post);
    // The factor of each word in turn: its block's, the block counted.
    let factors = scales.iter().map(|&s| lut[usize::from(s)]);
    let mut runs = super::float::Runs16::of(factors, per_block);
    let mut next = || runs.next_factor();
    let n = words.len().min(out.len() / 16);
    let whole = n / 4 * 4;
    for (ws, os) in words[..whole]
        .chunks_exact(4)
        .zip(out[..16 * whole].chunks_exact_mut(64))
    {
        let ws: [u64; 4] = ws.try_into().expect("4 words");
        let r = nib.step(bytemuck::cast(ws));
        let f = [next(), next(), next(), next()];
        for (j, (r, o)) in r.into_iter().zip(os.chunks_exact_mut(8)).enumerate() {
            let x = _mm256_mul_ps(_mm256_castsi256_ps(r), _mm256_set1_ps(f[j / 2]));
            let x = if POST { _mm256_mul_ps(x, post_v) } else { x };
            let v: [f32; 8] = bytemuck::cast(x);
            o.copy_from_slice(&v);
        }
    }
    for (&w, o) in words[whole..n]
        .iter()
        .zip(out[16 * whole..].chunks_exact_mut(16))
    {
        let f = next();
        for (i, o) in o.iter_mut().enumerate() {
            let x = value((w >> (4 * i)) as usize & 15) * f;
            *o = if POST { x * post } else { x };
        }
    }
}

/// [`e2m1_scaled_blocks`](crate::kernels::e2m1_scaled_blocks) with AVX-512
/// (F only): the sixteen products of a block (positive codes, then
/// negative) in one register, which `vpermps` indexes by the whole 4-bit
/// code, 16 values per lookup.
#[target_feature(enable = "avx512f")]
pub(crate) fn e2m1_scaled_blocks_avx512(
    words: &[u64],
    out: &mut [f32],
    per_block: usize,
    scales: &[u8],
    lut: &[f32; 256],
    post: f32,
) {
    let values = _mm512_setr_ps(
        0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0,
    );
    // Lanes 0..8 take the word's low half, 8..16 its high half, each
    // shifted to its nibble.
    let halves = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    let shifts = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);
    let post = _mm512_set1_ps(post);
    // `(v * f) * post`, as the value-by-value path multiplies.
    let table = |f: f32| _mm512_mul_ps(_mm512_mul_ps(values, _mm512_set1_ps(f)), post);
    let word = |&table: &__m512, w: u64, o: &mut [f32]| {
        let w = _mm512_castsi128_si512(_mm_cvtsi64_si128(w as i64));
        let idx = _mm512_srlv_epi32(_mm512_permutexvar_epi32(halves, w), shifts);
        let v = _mm512_castps_si512(_mm512_permutexvar_ps(idx, table));
        // SAFETY: `o` is 16 `f32`s, the 64 bytes written; the CPU has
        // AVX-512 F (this function's feature).
        unsafe { store64(bytemuck::cast_slice_mut(o), 0, v) };
    };
    scaled_blocks(words, out, per_block, scales, lut, table, word);
}

/// The 8 `f32` lanes `8k..8k + 8` of a block, as bits.
#[target_feature(enable = "avx2")]
#[inline]
fn lanes8(x: &[f32; 32], k: usize) -> __m256i {
    let v: [f32; 8] = core::array::from_fn(|i| x[8 * k + i]);
    v256_u32(bytemuck::cast(v))
}

/// The 16 `f32` lanes `16k..16k + 16` of `x`, as bits.
#[target_feature(enable = "avx512f")]
#[inline]
fn lanes16(x: &[f32], k: usize) -> __m512i {
    let v: [f32; 16] = x[16 * k..16 * k + 16].try_into().expect("16 values");
    v512_u32(bytemuck::cast(v))
}

/// Lane `j` of the result is the largest lane of `v[j]` (unsigned): a tree
/// of 22 instructions where eight reductions take 48. Each level halves
/// every vector's span and puts two vectors' halves side by side: 128-bit
/// halves (`vperm2i128`), 64-bit pairs (`vpunpck{l,h}qdq`), then lanes
/// (`vshufps`); the last `vpermd` puts block `j` in lane `j`.
#[target_feature(enable = "avx2")]
#[inline]
fn hmax8_avx2(v: &[__m256i; 8]) -> __m256i {
    let t: [__m256i; 4] = core::array::from_fn(|i| {
        let (x, y) = (v[2 * i], v[2 * i + 1]);
        _mm256_max_epu32(
            _mm256_permute2x128_si256::<0x20>(x, y),
            _mm256_permute2x128_si256::<0x31>(x, y),
        )
    });
    let u: [__m256i; 2] = core::array::from_fn(|i| {
        let (x, y) = (t[2 * i], t[2 * i + 1]);
        _mm256_max_epu32(_mm256_unpacklo_epi64(x, y), _mm256_unpackhi_epi64(x, y))
    });
    let (a, b) = (_mm256_castsi256_ps(u[0]), _mm256_castsi256_ps(u[1]));
    let w = _mm256_max_epu32(
        _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(a, b)),
        _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(a, b)),
    );
    // Lane `4L + j` holds block `2j + L`.
    _mm256_permutevar8x32_epi32(w, v256_u32([0, 4, 1, 5, 2, 6, 3, 7]))
}

/// [`MxScaleBits::scale`] of the 8 amaxes in `m`: the codes (`i32`
/// lanes) and the factors' bits, or `None` where one is infinite or NaN.
#[target_feature(enable = "avx2")]
#[inline]
fn scales8_avx2(m: __m256i, rule: MxScaleBits) -> Option<(__m256i, __m256i)> {
    let bad = _mm256_cmpgt_epi32(m, _mm256_set1_epi32(0x7f7f_ffff));
    if _mm256_movemask_epi8(bad) != 0 {
        return None;
    }
    let field = _mm256_srli_epi32::<23>(_mm256_add_epi32(m, _mm256_set1_epi32(rule.add as i32)));
    let c = _mm256_max_epi32(
        _mm256_sub_epi32(field, _mm256_set1_epi32(rule.emax as i32)),
        _mm256_setzero_si256(),
    );
    let f = _mm256_slli_epi32::<23>(_mm256_sub_epi32(_mm256_set1_epi32(254), c));
    Some((c, f))
}

/// [`mx_blocks`](crate::kernels::mx_blocks) with AVX2: a block of 32
/// values is four registers, their maxima one register kept for the group;
/// a group's 16 amaxes come from two [`hmax8_avx2`] trees and its scales
/// from [`scales8_avx2`]; a block's codes are four `encode8` of the
/// products, narrowed to bytes (8-bit formats, 32 bytes), joined into
/// nibble pairs by `vpmaddubsw` (4-bit formats, 16 bytes) or into 24 bytes
/// by `sextets_avx2` (6-bit formats).
#[target_feature(enable = "avx2")]
pub(crate) fn mx_blocks_avx2<F: MiniFloat>(
    xs: &[f32],
    scales: &mut [u8],
    out: &mut [u8],
    rule: MxScaleBits,
) -> bool {
    let bits = F::BITS as usize;
    let abs = _mm256_set1_epi32(0x7fff_ffff);
    let block = |x: &[f32]| -> [f32; 32] { x.try_into().expect("32 values") };
    let part = |x: &[f32]| {
        let x = block(x);
        let a = |k| _mm256_and_si256(lanes8(&x, k), abs);
        _mm256_max_epu32(_mm256_max_epu32(a(0), a(1)), _mm256_max_epu32(a(2), a(3)))
    };
    let group = |p: &[__m256i; MX_GROUP]| {
        let lo: &[__m256i; 8] = p[..8].try_into().expect("8 blocks");
        let hi: &[__m256i; 8] = p[8..].try_into().expect("8 blocks");
        let (c0, f0) = scales8_avx2(hmax8_avx2(lo), rule)?;
        let (c1, f1) = scales8_avx2(hmax8_avx2(hi), rule)?;
        // Codes: at most 253, so the saturating packs keep them.
        let b = narrow_u32x16(c0, c1);
        let f: [[f32; 8]; 2] = [bytemuck::cast(f0), bytemuck::cast(f1)];
        Some((bytemuck::cast(b), bytemuck::cast(f)))
    };
    let step = |x: &[f32], f: &[f32], o: &mut [u8]| {
        crate::kernels::prefetch_per_kib::<128>(x.as_ptr().cast());
        let x = block(x);
        let f = _mm256_set1_ps(f[0]);
        let c = |k| {
            let p = _mm256_mul_ps(_mm256_castsi256_ps(lanes8(&x, k)), f);
            encode8::<F, true>(_mm256_castps_si256(p))
        };
        let b = narrow_u32x32(c(0), c(1), c(2), c(3));
        if bits == 8 {
            let v: [u8; 32] = bytemuck::cast(b);
            o.copy_from_slice(&v);
        } else if bits == 6 {
            let v: [u8; 32] = bytemuck::cast(sextets_avx2(b));
            o.copy_from_slice(&v[..24]);
        } else {
            let v: [u8; 16] = bytemuck::cast(nibble_pairs_avx2(b));
            o.copy_from_slice(&v);
        }
    };
    let zero = _mm256_setzero_si256();
    mx_groups(xs, scales, out, (bits, 1), zero, part, group, step)
}

/// Lane `j` of the result is the largest lane of `v[j]` (unsigned): the
/// tree of [`hmax8_avx2`] on 512 bits, 46 instructions where sixteen
/// reductions take about 130: 256-bit halves and 128-bit quarters
/// (`vshufi64x2`), 64-bit pairs, then lanes, and one `vpermd`.
#[target_feature(enable = "avx512f")]
#[inline]
fn hmax16_avx512(v: &[__m512i; MX_GROUP]) -> __m512i {
    // Blocks `2i` (128-bit lanes 0, 1) and `2i + 1` (lanes 2, 3).
    let t: [__m512i; 8] = core::array::from_fn(|i| {
        let (x, y) = (v[2 * i], v[2 * i + 1]);
        _mm512_max_epu32(
            _mm512_shuffle_i64x2::<0b01_00_01_00>(x, y),
            _mm512_shuffle_i64x2::<0b11_10_11_10>(x, y),
        )
    });
    // Blocks `4i..4i + 4`, one per 128-bit lane.
    let u: [__m512i; 4] = core::array::from_fn(|i| {
        let (x, y) = (t[2 * i], t[2 * i + 1]);
        _mm512_max_epu32(
            _mm512_shuffle_i64x2::<0b10_00_10_00>(x, y),
            _mm512_shuffle_i64x2::<0b11_01_11_01>(x, y),
        )
    });
    // 128-bit lane `L`: blocks `8i + L` and `8i + 4 + L`, two lanes each.
    let w: [__m512i; 2] = core::array::from_fn(|i| {
        let (x, y) = (u[2 * i], u[2 * i + 1]);
        _mm512_max_epu32(_mm512_unpacklo_epi64(x, y), _mm512_unpackhi_epi64(x, y))
    });
    let (a, b) = (_mm512_castsi512_ps(w[0]), _mm512_castsi512_ps(w[1]));
    let r = _mm512_max_epu32(
        _mm512_castps_si512(_mm512_shuffle_ps::<0b10_00_10_00>(a, b)),
        _mm512_castps_si512(_mm512_shuffle_ps::<0b11_01_11_01>(a, b)),
    );
    // Lane `4L + j` holds block `4j + L`.
    let order = v512_u32([0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]);
    _mm512_permutexvar_epi32(order, r)
}

/// [`mx_blocks`](crate::kernels::mx_blocks) with AVX-512 (F and BW): a
/// block of 32 values is two registers, their maxima one register kept for
/// the group; a group's 16 amaxes are one [`hmax16_avx512`] and its
/// scales one vector computation; two blocks a step, four `encode16` of the
/// products narrowed by `narrow_u32x64` to 64 code bytes (8-bit formats),
/// by `vpmaddubsw` and `vpmovwb` to 32 bytes of nibble pairs (4-bit
/// formats), or by `sextets_avx512` to 48 bytes (6-bit formats). A last
/// odd block takes the step with zero lanes and stores its half.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) fn mx_blocks_avx512<F: MiniFloat>(
    xs: &[f32],
    scales: &mut [u8],
    out: &mut [u8],
    rule: MxScaleBits,
) -> bool {
    let bits = F::BITS as usize;
    let abs = _mm512_set1_epi32(0x7fff_ffff);
    let part = |x: &[f32]| {
        let (a0, a1) = (
            _mm512_and_si512(lanes16(x, 0), abs),
            _mm512_and_si512(lanes16(x, 1), abs),
        );
        _mm512_max_epu32(a0, a1)
    };
    let group = |p: &[__m512i; MX_GROUP]| {
        let m = hmax16_avx512(p);
        if _mm512_cmpgt_epu32_mask(m, _mm512_set1_epi32(0x7f7f_ffff)) != 0 {
            return None;
        }
        let add = _mm512_set1_epi32(rule.add as i32);
        let field = _mm512_srli_epi32::<23>(_mm512_add_epi32(m, add));
        let c = _mm512_max_epi32(
            _mm512_sub_epi32(field, _mm512_set1_epi32(rule.emax as i32)),
            _mm512_setzero_si512(),
        );
        let f = _mm512_slli_epi32::<23>(_mm512_sub_epi32(_mm512_set1_epi32(254), c));
        let f: [f32; 16] = bytemuck::cast(u32s_512(f));
        Some((bytemuck::cast(_mm512_cvtepi32_epi8(c)), f))
    };
    let step = |x: &[f32], f: &[f32], o: &mut [u8]| {
        // Two blocks of 128 bytes a step.
        crate::kernels::prefetch_per_kib::<256>(x.as_ptr().cast());
        let c = |k: usize, f: f32| {
            let p = _mm512_mul_ps(_mm512_castsi512_ps(lanes16(x, k)), _mm512_set1_ps(f));
            encode16::<F, true>(_mm512_castps_si512(p))
        };
        let zero = _mm512_setzero_si512();
        let (c0, c1) = (c(0, f[0]), c(1, f[0]));
        let (c2, c3) = match f.get(1) {
            Some(&f1) => (c(2, f1), c(3, f1)),
            None => (zero, zero),
        };
        let b = narrow_u32x64(c0, c1, c2, c3);
        // Fixed-size stores (a copy of a variable length is a call): two
        // blocks, or the last odd one.
        if bits == 8 {
            let lo: [u8; 32] = bytemuck::cast(_mm512_castsi512_si256(b));
            let hi: [u8; 32] = bytemuck::cast(_mm512_extracti64x4_epi64::<1>(b));
            o[..32].copy_from_slice(&lo);
            if let Some(o) = o.get_mut(32..64) {
                o.copy_from_slice(&hi);
            }
        } else if bits == 6 {
            let v = sextets_avx512(b);
            let lo: [u8; 32] = bytemuck::cast(_mm512_castsi512_si256(v));
            match <&mut [u8; 48]>::try_from(&mut *o) {
                Ok(o) => {
                    let hi: [u8; 16] = bytemuck::cast(_mm512_extracti32x4_epi32::<2>(v));
                    o[..32].copy_from_slice(&lo);
                    o[32..].copy_from_slice(&hi);
                }
                Err(_) => o[..24].copy_from_slice(&lo[..24]),
            }
        } else {
            let n = nibble_pairs_avx512(b);
            match <&mut [u8; 32]>::try_from(&mut *o) {
                Ok(o) => *o = bytemuck::cast(n),
                Err(_) => {
                    let lo: [u8; 16] = bytemuck::cast(_mm256_castsi256_si128(n));
                    o[..16].copy_from_slice(&lo);
                }
            }
        }
    };
    let zero = _mm512_setzero_si512();
    mx_groups(xs, scales, out, (bits, 2), zero, part, group, step)
}
