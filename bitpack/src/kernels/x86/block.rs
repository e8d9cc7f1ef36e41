//! The one-pass NVFP4 block kernel (`kernels::nvfp4_blocks`), AVX2 and
//! AVX-512 side by side: per block of 16 `f32` values, the amax of the
//! magnitudes' bits (an integer max), the caller's scale code and
//! thresholds for it, the seven compares of every magnitude, the sign bit,
//! and the 16 codes packed into one `u64` of nibbles, value 0 in the low
//! nibble. The AVX-512 variant holds a block in one register and counts
//! the compares with masked adds; AVX2 takes two registers and subtracts
//! the compare masks.

use core::arch::x86_64::*;

use super::float::{encode8, encode16};
use super::simd::*;
use crate::float::MiniFloat;
use crate::kernels::{BlockCode, MxScale, in_groups, mx_groups, scaled_blocks};

/// The 16 codes of a block (one per 32-bit lane of `c0`, values 0..8, and
/// `c1`, values 8..16; each at most 15) as 16 nibbles: `vpackusdw` (whose
/// 128-bit interleave `vpermq` undoes), `vpackuswb`, then `vpmaddubsw`
/// with the byte weights 1 and 16 joins each pair into one byte.
#[target_feature(enable = "avx2")]
#[inline]
fn nibbles_avx2(c0: __m256i, c1: __m256i) -> u64 {
    let w = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(c0, c1));
    let b = _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256::<1>(w));
    let pairs = _mm_maddubs_epi16(b, _mm_set1_epi16(0x1001));
    _mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)) as u64
}

/// [`nvfp4_blocks`](crate::kernels::nvfp4_blocks) with AVX2.
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
    let word = |block: &[f32], t: &[i32; 8]| {
        let (v0, v1, a0, a1) = load(block);
        let (mut c0, mut c1) = (_mm256_setzero_si256(), _mm256_setzero_si256());
        for &tk in &t[..7] {
            // A compare's mask is -1 where the magnitude reaches the
            // threshold: subtracting it counts.
            let tk = _mm256_set1_epi32(tk);
            c0 = _mm256_sub_epi32(c0, _mm256_cmpgt_epi32(a0, tk));
            c1 = _mm256_sub_epi32(c1, _mm256_cmpgt_epi32(a1, tk));
        }
        let sign = _mm256_set1_epi32(t[7]);
        c0 = _mm256_or_si256(c0, _mm256_and_si256(_mm256_srli_epi32::<28>(v0), sign));
        c1 = _mm256_or_si256(c1, _mm256_and_si256(_mm256_srli_epi32::<28>(v1), sign));
        nibbles_avx2(c0, c1)
    };
    in_groups(xs, scales, words, code, amax, word);
}

/// [`nvfp4_blocks`](crate::kernels::nvfp4_blocks) with AVX-512 (F only).
#[target_feature(enable = "avx512f")]
pub(crate) fn nvfp4_blocks_avx512(
    xs: &[f32],
    scales: &mut [u8],
    words: &mut [u64],
    code: &mut impl BlockCode,
) {
    let abs = _mm512_set1_epi32(0x7fff_ffff);
    let one = _mm512_set1_epi32(1);
    let load = |block: &[f32]| {
        let v: [f32; 16] = block.try_into().expect("16 values");
        v512_u32(bytemuck::cast(v))
    };
    let amax = |block: &[f32]| _mm512_reduce_max_epu32(_mm512_and_si512(load(block), abs));
    let word = |block: &[f32], t: &[i32; 8]| {
        let v = load(block);
        let a = _mm512_and_si512(v, abs);
        let mut c = _mm512_setzero_si512();
        for &tk in &t[..7] {
            let reach = _mm512_cmpgt_epi32_mask(a, _mm512_set1_epi32(tk));
            c = _mm512_mask_add_epi32(c, reach, c, one);
        }
        let sign = _mm512_and_si512(_mm512_srli_epi32::<28>(v), _mm512_set1_epi32(t[7]));
        let b = _mm512_cvtepi32_epi8(_mm512_or_si512(c, sign));
        let pairs = _mm_maddubs_epi16(b, _mm_set1_epi16(0x1001));
        _mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)) as u64
    };
    in_groups(xs, scales, words, code, amax, word);
}

/// [`e2m1_scaled_blocks`](crate::kernels::e2m1_scaled_blocks) with AVX2:
/// each block's eight products of the positive and of the negative codes in
/// two registers, both looked up by `vpermps` (which reads the low three
/// bits of each code), and `vblendvps` choosing by the code's bit 3 moved
/// to the sign bit.
#[target_feature(enable = "avx2")]
pub(crate) fn e2m1_scaled_blocks_avx2(
    words: &[u64],
    out: &mut [f32],
    per_block: usize,
    scales: &[u8],
    lut: &[f32; 256],
    post: f32,
) {
    let mags = _mm256_setr_ps(0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0);
    let shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    let post = _mm256_set1_ps(post);
    let minus = _mm256_set1_ps(-0.0);
    // `(v * f) * post` for the eight values of each sign, as the
    // value-by-value path multiplies.
    let table = |f: f32| {
        let f = _mm256_set1_ps(f);
        let pos = _mm256_mul_ps(_mm256_mul_ps(mags, f), post);
        let neg = _mm256_mul_ps(_mm256_mul_ps(_mm256_xor_ps(mags, minus), f), post);
        (pos, neg)
    };
    let word = |&(pos, neg): &(__m256, __m256), w: u64, o: &mut [f32]| {
        for (half, o) in [w as u32, (w >> 32) as u32]
            .into_iter()
            .zip(o.chunks_exact_mut(8))
        {
            let idx = _mm256_srlv_epi32(_mm256_set1_epi32(half as i32), shifts);
            let p = _mm256_permutevar8x32_ps(pos, idx);
            let n = _mm256_permutevar8x32_ps(neg, idx);
            let sign = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(idx));
            let v: [f32; 8] = bytemuck::cast(_mm256_blendv_ps(p, n, sign));
            o.copy_from_slice(&v);
        }
    };
    scaled_blocks(words, out, per_block, scales, lut, table, word);
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

/// [`mx_blocks`](crate::kernels::mx_blocks) with AVX2: a block of 32
/// values is four registers; its amax three `vpmaxud` and a horizontal
/// max, its codes four `encode8` of the products, narrowed to bytes (8-bit
/// formats, 32 bytes) or joined into nibble pairs by `vpmaddubsw` (4-bit
/// formats, 16 bytes).
#[target_feature(enable = "avx2")]
pub(crate) fn mx_blocks_avx2<F: MiniFloat>(
    xs: &[f32],
    scales: &mut [u8],
    out: &mut [u8],
    code: &mut impl MxScale,
) -> bool {
    let bits = F::BITS as usize;
    let abs = _mm256_set1_epi32(0x7fff_ffff);
    let block = |x: &[f32]| -> [f32; 32] { x.try_into().expect("32 values") };
    let amax = |x: &[f32]| {
        let x = block(x);
        let a = |k| _mm256_and_si256(lanes8(&x, k), abs);
        let m = _mm256_max_epu32(_mm256_max_epu32(a(0), a(1)), _mm256_max_epu32(a(2), a(3)));
        let m = _mm_max_epu32(_mm256_castsi256_si128(m), _mm256_extracti128_si256::<1>(m));
        let m = _mm_max_epu32(m, _mm_shuffle_epi32::<0b01_00_11_10>(m));
        let m = _mm_max_epu32(m, _mm_shuffle_epi32::<0b10_11_00_01>(m));
        _mm_cvtsi128_si32(m) as u32
    };
    let order = v256_u32([0, 4, 1, 5, 2, 6, 3, 7]);
    let pairs = _mm256_set1_epi16(0x1001);
    let step = |x: &[f32], f: &[f32], o: &mut [u8]| {
        let x = block(x);
        let f = _mm256_set1_ps(f[0]);
        let c = |k| {
            let p = _mm256_mul_ps(_mm256_castsi256_ps(lanes8(&x, k)), f);
            encode8::<F, true>(_mm256_castps_si256(p))
        };
        let p01 = _mm256_packus_epi32(c(0), c(1));
        let p23 = _mm256_packus_epi32(c(2), c(3));
        let b = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(p01, p23), order);
        if bits == 8 {
            let v: [u8; 32] = bytemuck::cast(b);
            o.copy_from_slice(&v);
        } else {
            let p = _mm256_maddubs_epi16(b, pairs);
            let b = _mm256_permute4x64_epi64::<0b00_00_10_00>(_mm256_packus_epi16(p, p));
            let v: [u8; 16] = bytemuck::cast(_mm256_castsi256_si128(b));
            o.copy_from_slice(&v);
        }
    };
    mx_groups(xs, scales, out, (bits, 1), code, amax, step)
}

/// [`mx_blocks`](crate::kernels::mx_blocks) with AVX-512 (F and BW): a
/// block of 32 values is two registers, its amax one `vpmaxud` and a
/// reduction; two blocks a step, four `encode16` of the products narrowed
/// by `narrow_u32x64` to 64 code bytes (8-bit formats) or, by `vpmaddubsw`
/// and `vpmovwb`, 32 bytes of nibble pairs (4-bit formats). A last odd
/// block takes the step with zero lanes and stores its half.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) fn mx_blocks_avx512<F: MiniFloat>(
    xs: &[f32],
    scales: &mut [u8],
    out: &mut [u8],
    code: &mut impl MxScale,
) -> bool {
    let bits = F::BITS as usize;
    let abs = _mm512_set1_epi32(0x7fff_ffff);
    let lanes = |x: &[f32], k: usize| {
        let v: [f32; 16] = x[16 * k..16 * k + 16].try_into().expect("16 values");
        v512_u32(bytemuck::cast(v))
    };
    let amax = |x: &[f32]| {
        let (a0, a1) = (
            _mm512_and_si512(lanes(x, 0), abs),
            _mm512_and_si512(lanes(x, 1), abs),
        );
        _mm512_reduce_max_epu32(_mm512_max_epu32(a0, a1))
    };
    let pairs = _mm512_set1_epi16(0x1001);
    let step = |x: &[f32], f: &[f32], o: &mut [u8]| {
        let c = |k: usize, f: f32| {
            let p = _mm512_mul_ps(_mm512_castsi512_ps(lanes(x, k)), _mm512_set1_ps(f));
            encode16::<F, true>(_mm512_castps_si512(p))
        };
        let zero = _mm512_setzero_si512();
        let (c0, c1) = (c(0, f[0]), c(1, f[0]));
        let (c2, c3) = match f.get(1) {
            Some(&f1) => (c(2, f1), c(3, f1)),
            None => (zero, zero),
        };
        let b = narrow_u32x64(c0, c1, c2, c3);
        if bits == 8 {
            let lo: [u8; 32] = bytemuck::cast(_mm512_castsi512_si256(b));
            let hi: [u8; 32] = bytemuck::cast(_mm512_extracti64x4_epi64::<1>(b));
            let (o0, o1) = o.split_at_mut(32);
            o0.copy_from_slice(&lo);
            o1.copy_from_slice(&hi[..o1.len()]);
        } else {
            let n = _mm512_cvtepi16_epi8(_mm512_maddubs_epi16(b, pairs));
            let v: [u8; 32] = bytemuck::cast(n);
            o.copy_from_slice(&v[..o.len()]);
        }
    };
    mx_groups(xs, scales, out, (bits, 2), code, amax, step)
}
