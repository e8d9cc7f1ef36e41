//! Pack variants from `u32` at widths 9..=31 (AVX2, and AVX-512 VBMI byte
//! permutes), and AVX-512 packs from `u8` and `u32` at widths 1..=7 / 1..=8.
//!
//! The wide packs place every value by its bit offset inside the output:
//! value `i` of a step starts at bit `W * i`, so shifting its dword left by
//! `W * i % 8` (`vpsllvd`) leaves it at the right bit of byte `W * i / 8`;
//! a byte permute then moves the dword's bytes to their output bytes. Two
//! neighbours can share a byte but two values two apart cannot (`W >= 9`),
//! so one permute takes the even values, one the odd ones, and an `or`
//! merges them. Above 25 bits a shifted value can reach a fifth byte: its
//! top bits come from a right shift (`vpsrlvd` by `32 - W * i % 8`) and a
//! second source of the permutes.
//!
//! Like the other variants, each handles the byte-aligned middle of a call
//! and hands the head and the tail to the portable kernel.

use core::arch::x86_64::*;

use super::avx512::{load64, narrow_u32x64};
use super::{head8, load32, mask64, scalar, steps_within, store16, v256, write_le};

// ---------------------------------------------------------------------------
// memory helpers
// ---------------------------------------------------------------------------

/// Writes the first `len` bytes of `v` at `at`, and nothing else (a masked
/// store: the masked-off bytes are not accessed).
///
/// # Safety
///
/// `len <= 64` and `at + len <= bytes.len()`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn store_first(bytes: &mut [u8], at: usize, len: usize, v: __m512i) {
    debug_assert!(len <= 64 && at + len <= bytes.len());
    let k = if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    };
    // SAFETY: the caller guarantees the `len` bytes the mask selects are
    // inside `bytes`; the other lanes are neither read nor written.
    unsafe { _mm512_mask_storeu_epi8(bytes.as_mut_ptr().wrapping_add(at).cast(), k, v) }
}

/// A 512-bit vector from 64 bytes (any `Pod` array of that size), built
/// from two 256-bit halves.
#[target_feature(enable = "avx512f")]
#[inline]
fn v512<T: bytemuck::Pod>(x: T) -> __m512i {
    let [lo, hi]: [[u8; 32]; 2] = bytemuck::cast(x);
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(v256(lo)), v256(hi))
}

// ---------------------------------------------------------------------------
// constants
// ---------------------------------------------------------------------------

/// Which source byte gives output byte `b` of a step for value `i` of width
/// `w`: `Some(f)` with `f` the byte of the value's shifted field (`0..=4`,
/// 4 being the byte the right shift supplies), or `None` if value `i` has no
/// bit in byte `b`.
const fn field_byte(w: usize, i: usize, b: usize) -> Option<usize> {
    let first = w * i / 8;
    let last = (w * i + w - 1) / 8;
    if b >= first && b <= last {
        Some(b - first)
    } else {
        None
    }
}

/// `pshufb` controls for [`pack_u32_wide_avx2`] (8 values a step, 4 in each
/// 128-bit half; the high half's output starts at byte `4W / 8`): even
/// values from the left-shifted dwords, odd values from them, even and odd
/// values' fifth bytes from the right-shifted dwords.
const fn wide_ctrl_avx2(w: u32) -> [[u8; 32]; 4] {
    let w = w as usize;
    let mut c = [[0x80u8; 32]; 4];
    let k = 4 * w / 8;
    let mut h = 0;
    while h < 2 {
        let base = if h == 0 { 0 } else { k };
        let mut j = 0;
        while j < 16 {
            let mut t = 0;
            while t < 4 {
                let i = 4 * h + t;
                if let Some(f) = field_byte(w, i, base + j) {
                    if f < 4 {
                        c[i % 2][16 * h + j] = (4 * t + f) as u8;
                    } else {
                        c[2 + i % 2][16 * h + j] = (4 * t) as u8;
                    }
                }
                t += 1;
            }
            j += 1;
        }
        h += 1;
    }
    c
}

/// `pshufb` control moving bytes `k..16` of a 128-bit vector to `0..16 - k`
/// (zeros above).
const fn shift_down(k: usize) -> [u8; 16] {
    let mut c = [0x80u8; 16];
    let mut j = 0;
    while j + k < 16 {
        c[j] = (j + k) as u8;
        j += 1;
    }
    c
}

/// Left shifts `W * i % 8` of `n` values, and the right shifts `32 - W * i
/// % 8` that give each shifted value's bits above its dword.
const fn wide_shifts<const N: usize>(w: u32) -> ([u32; N], [u32; N]) {
    let mut l = [0u32; N];
    let mut r = [0u32; N];
    let mut i = 0;
    while i < N {
        l[i] = (w * i as u32) % 8;
        r[i] = 32 - l[i];
        i += 1;
    }
    (l, r)
}

/// `vpermb`/`vpermt2b` indices and their zeroing masks for
/// [`pack_u32_wide_avx512`] (16 values a step, `2W` output bytes): even
/// values, then odd ones; indices `64..` pick the right-shifted dwords.
const fn wide_perm_avx512(w: u32) -> ([[u8; 64]; 2], [u64; 2]) {
    let w = w as usize;
    let mut c = [[0u8; 64]; 2];
    let mut m = [0u64; 2];
    let mut j = 0;
    while j < 2 * w {
        let mut i = 0;
        while i < 16 {
            if let Some(f) = field_byte(w, i, j) {
                c[i % 2][j] = (if f < 4 { 4 * i + f } else { 64 + 4 * i }) as u8;
                m[i % 2] |= 1 << j;
            }
            i += 1;
        }
        j += 1;
    }
    (c, m)
}

/// `vpermb` indices gathering the low `w` bytes of each of the 8 qwords
/// into the first `8w` bytes.
const fn compact_qwords(w: u32) -> [u8; 64] {
    let w = w as usize;
    let mut c = [0u8; 64];
    let mut j = 0;
    while j < 8 * w {
        c[j] = (j / w * 8 + j % w) as u8;
        j += 1;
    }
    c
}

// ---------------------------------------------------------------------------
// u32, W in 9..=31
// ---------------------------------------------------------------------------

/// Packs `u32` elements into `W`-bit elements (`W` in `9..=31`), 8 per step
/// into `W` bytes: `vpsllvd` places each value at its bit, `pshufb` moves
/// the even and the odd values' bytes (two more for the fifth bytes above 25
/// bits), and the high half, which starts at byte `4W / 8`, takes the byte
/// it shares with the low half (odd `W`) by a third `pshufb`; two 16-byte
/// stores.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn pack_u32_wide_avx2<const W: u32>(
    src: &[u32],
    words: &mut [u64],
    offset: usize,
) {
    let n = src.len();
    let head = head8(offset, n);
    scalar::pack::<W, u32>(&src[..head], words, offset);
    let start = offset + head;
    let sb: &[u8] = bytemuck::cast_slice(src);
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
    let w = W as usize;
    let k = 4 * w / 8;
    // The second store writes 16 bytes from `k`; what it leaves past `W`
    // is rewritten by the next step or by the tail.
    let span = k + 16;
    let first = start / 8 * w;
    let end_byte = ((offset + n) * w / 8).min(bytes.len());
    let steps = steps_within(first, w, span, end_byte, (n - head) / 8);
    assert!(steps == 0 || first + (steps - 1) * w + span <= bytes.len());
    assert!(4 * (head + 8 * steps) <= sb.len());
    let [e0, o0, e1, o1] = const { wide_ctrl_avx2(W) };
    let (e0, o0, e1, o1) = (v256(e0), v256(o0), v256(e1), v256(o1));
    let (l, r) = const { wide_shifts::<8>(W) };
    let (l, r): (__m256i, __m256i) = (bytemuck::cast(l), bytemuck::cast(r));
    let down: __m128i = bytemuck::cast(shift_down(k));
    let keep = _mm256_set1_epi32(mask64(W) as i32);
    for s in 0..steps {
        // SAFETY: `4 * (head + 8 * steps) <= sb.len()` (asserted).
        let v = _mm256_and_si256(unsafe { load32(sb, 4 * (head + 8 * s)) }, keep);
        let x = _mm256_sllv_epi32(v, l);
        let mut p = _mm256_or_si256(_mm256_shuffle_epi8(x, e0), _mm256_shuffle_epi8(x, o0));
        if W > 25 {
            let y = _mm256_srlv_epi32(v, r);
            let q = _mm256_or_si256(_mm256_shuffle_epi8(y, e1), _mm256_shuffle_epi8(y, o1));
            p = _mm256_or_si256(p, q);
        }
        let lo = _mm256_castsi256_si128(p);
        let mut hi = _mm256_extracti128_si256::<1>(p);
        if W % 2 == 1 {
            hi = _mm_or_si128(hi, _mm_shuffle_epi8(lo, down));
        }
        let at = first + w * s;
        // SAFETY: `at + span <= bytes.len()` (asserted above for the last
        // step), and `k + 16 == span`.
        unsafe { store16(bytes, at, lo) };
        // SAFETY: as above.
        unsafe { store16(bytes, at + k, hi) };
    }
    let i = head + 8 * steps;
    scalar::pack::<W, u32>(&src[i..], words, offset + i);
}

/// Packs `u32` elements into `W`-bit elements (`W` in `9..=31`), 16 per
/// step into `2W` bytes: `vpsllvd` places each value at its bit, two
/// zero-masked `vpermb` (`vpermt2b` with the right-shifted dwords above 25
/// bits) move the even and the odd values' bytes, and a masked store writes
/// exactly the `2W` bytes.
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn pack_u32_wide_avx512<const W: u32>(
    src: &[u32],
    words: &mut [u64],
    offset: usize,
) {
    let n = src.len();
    let head = head8(offset, n);
    scalar::pack::<W, u32>(&src[..head], words, offset);
    let start = offset + head;
    let sb: &[u8] = bytemuck::cast_slice(src);
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
    let w = W as usize;
    let first = start / 8 * w;
    let end_byte = ((offset + n) * w / 8).min(bytes.len());
    let steps = steps_within(first, 2 * w, 2 * w, end_byte, (n - head) / 16);
    assert!(steps == 0 || first + steps * 2 * w <= bytes.len());
    assert!(4 * (head + 16 * steps) <= sb.len());
    let ([ie, io], [me, mo]) = const { wide_perm_avx512(W) };
    let (ie, io) = (v512(ie), v512(io));
    let (l, r) = const { wide_shifts::<16>(W) };
    let (l, r) = (v512(l), v512(r));
    let keep = _mm512_set1_epi32(mask64(W) as i32);
    for s in 0..steps {
        // SAFETY: `4 * (head + 16 * steps) <= sb.len()` (asserted).
        let v = _mm512_and_si512(unsafe { load64(sb, 4 * (head + 16 * s)) }, keep);
        let x = _mm512_sllv_epi32(v, l);
        let (a, b) = if W > 25 {
            let y = _mm512_srlv_epi32(v, r);
            (
                _mm512_maskz_permutex2var_epi8(me, x, ie, y),
                _mm512_maskz_permutex2var_epi8(mo, x, io, y),
            )
        } else {
            (
                _mm512_maskz_permutexvar_epi8(me, ie, x),
                _mm512_maskz_permutexvar_epi8(mo, io, x),
            )
        };
        let p = _mm512_or_si512(a, b);
        // SAFETY: the `2W` bytes written end inside `bytes` (asserted).
        unsafe { store_first(bytes, first + 2 * w * s, 2 * w, p) };
    }
    let i = head + 16 * steps;
    scalar::pack::<W, u32>(&src[i..], words, offset + i);
}

// ---------------------------------------------------------------------------
// AVX-512: u8 and u32, W in 1..=8
// ---------------------------------------------------------------------------

/// Packs 64 bytes (each `< 2^W`, `W` in `2..=7`) into `8W` bytes at the
/// start of the result: `vpmaddubsw`, `vpmaddwd` and a qword shift merge
/// each 8 neighbours into `W` bytes at the bottom of their qword (as the
/// AVX2 pack does), and one `vpermb` gathers the 8 groups.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
fn pack_64_bytes<const W: u32>(v: __m512i) -> __m512i {
    let m8 = _mm512_set1_epi16((1 | (1 << (8 + W))) as i16);
    let m16 = _mm512_set1_epi32(1 | (1 << (16 + 2 * W)));
    let p16 = _mm512_maddubs_epi16(m8, v);
    let p32 = _mm512_madd_epi16(p16, m16);
    let lo = _mm512_maskz_mov_epi32(0x5555, p32);
    let hi = _mm512_and_si512(
        _mm512_srl_epi64(p32, bytemuck::cast([u64::from(32 - 4 * W), 0])),
        _mm512_set1_epi64(!mask64(4 * W) as i64),
    );
    let idx = v512(const { compact_qwords(W) });
    _mm512_permutexvar_epi8(idx, _mm512_or_si512(lo, hi))
}

/// Packs 64 masked bytes `v` into `8W` bytes at `at`: `vptestmb` for one
/// bit, a plain store for eight, else [`pack_64_bytes`].
///
/// # Safety
///
/// `at + 8W <= bytes.len()`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
unsafe fn pack_step_avx512<const W: u32>(bytes: &mut [u8], at: usize, v: __m512i) {
    match W {
        1 => {
            let m = _mm512_test_epi8_mask(v, _mm512_set1_epi8(1));
            // SAFETY: the caller guarantees `at + 8 <= bytes.len()`.
            unsafe { write_le(bytes, at, m) }
        }
        // SAFETY: the caller guarantees `at + 64 <= bytes.len()`.
        8 => unsafe { store_first(bytes, at, 64, v) },
        _ => {
            let p = pack_64_bytes::<W>(v);
            // SAFETY: the caller guarantees `at + 8W <= bytes.len()`.
            unsafe { store_first(bytes, at, 8 * W as usize, p) }
        }
    }
}

/// Packs bytes into `W`-bit elements (`W` in `1..=7`), 64 per step into
/// `8W` bytes ([`pack_step_avx512`]).
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn pack_u8_avx512<const W: u32>(src: &[u8], words: &mut [u64], offset: usize) {
    let n = src.len();
    let head = head8(offset, n);
    scalar::pack::<W, u8>(&src[..head], words, offset);
    let start = offset + head;
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
    let w = W as usize;
    let first = start / 8 * w;
    let end_byte = ((offset + n) * w / 8).min(bytes.len());
    let steps = steps_within(first, 8 * w, 8 * w, end_byte, (n - head) / 64);
    assert!(steps == 0 || first + steps * 8 * w <= bytes.len());
    assert!(head + 64 * steps <= n);
    let keep = _mm512_set1_epi8(mask64(W) as i8);
    for s in 0..steps {
        // SAFETY: `head + 64 * steps <= src.len()` (asserted).
        let v = _mm512_and_si512(unsafe { load64(src, head + 64 * s) }, keep);
        // SAFETY: the step's `8W` bytes end inside `bytes` (asserted).
        unsafe { pack_step_avx512::<W>(bytes, first + 8 * w * s, v) };
    }
    let i = head + 64 * steps;
    scalar::pack::<W, u8>(&src[i..], words, offset + i);
}

/// Packs `u32` elements into `W`-bit elements (`W` in `1..=8`), 64 per
/// step: four loads masked to `W` bits, narrowed to bytes in element order
/// (`vpackusdw`, `vpackuswb`, `vpermd`), then packed as bytes
/// ([`pack_step_avx512`]).
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn pack_u32_avx512<const W: u32>(src: &[u32], words: &mut [u64], offset: usize) {
    let n = src.len();
    let head = head8(offset, n);
    scalar::pack::<W, u32>(&src[..head], words, offset);
    let start = offset + head;
    let sb: &[u8] = bytemuck::cast_slice(src);
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
    let w = W as usize;
    let first = start / 8 * w;
    let end_byte = ((offset + n) * w / 8).min(bytes.len());
    let steps = steps_within(first, 8 * w, 8 * w, end_byte, (n - head) / 64);
    assert!(steps == 0 || first + steps * 8 * w <= bytes.len());
    assert!(4 * (head + 64 * steps) <= sb.len());
    let keep = _mm512_set1_epi32(mask64(W) as i32);
    for s in 0..steps {
        let b = 4 * (head + 64 * s);
        // SAFETY: `4 * (head + 64 * steps) <= sb.len()` (asserted), so the
        // four loads of this step are inside `sb`.
        let a0 = _mm512_and_si512(unsafe { load64(sb, b) }, keep);
        // SAFETY: as above.
        let a1 = _mm512_and_si512(unsafe { load64(sb, b + 64) }, keep);
        // SAFETY: as above.
        let a2 = _mm512_and_si512(unsafe { load64(sb, b + 128) }, keep);
        // SAFETY: as above.
        let a3 = _mm512_and_si512(unsafe { load64(sb, b + 192) }, keep);
        let v = narrow_u32x64(a0, a1, a2, a3);
        // SAFETY: the step's `8W` bytes end inside `bytes` (asserted).
        unsafe { pack_step_avx512::<W>(bytes, first + 8 * w * s, v) };
    }
    let i = head + 64 * steps;
    scalar::pack::<W, u32>(&src[i..], words, offset + i);
}
