//! Pack variants: from `u8` (AVX2+BMI2, BMI2 and AVX-512 VBMI, 1..=7 bits)
//! and from `u32` (1..=8 bits by narrowing to bytes first; 9..=31 bits, AVX2
//! and AVX-512 VBMI byte permutes).
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

use super::simd::*;

// ---------------------------------------------------------------------------
// pack from u8 / u32, W in 1..=8
// ---------------------------------------------------------------------------

/// `pshufb` control that moves the low `W` bytes of both qwords of each half
/// to the front of the half.
const fn pack_compact(w: u32) -> [u8; 32] {
    let mut c = [0x80u8; 32];
    let mut h = 0;
    while h < 2 {
        let mut t = 0;
        while t < w as usize {
            c[16 * h + t] = t as u8;
            c[16 * h + w as usize + t] = 8 + t as u8;
            t += 1;
        }
        h += 1;
    }
    c
}

/// The first merges of both widths' byte packs: `vpmaddubsw` merges byte
/// pairs (each byte `< 2^W`) into 16-bit lanes and `vpmaddwd` merges those
/// pairs, so each dword holds its 4 bytes' `4W` bits at its bottom.
macro_rules! merge_quads {
    ($v:expr, [$set16:ident, $set32:ident, $maddubs:ident, $madd:ident]) => {
        $madd(
            $maddubs($set16((1 | (1 << (8 + W))) as i16), $v),
            $set32(1 | (1 << (16 + 2 * W))),
        )
    };
}

/// Packs 32 bytes (each `< 2^W`, `W` in `1..=7`) into four `W`-byte groups,
/// one at the bottom of each qword: `vpmaddubsw` merges byte pairs, `vpmaddwd`
/// merges those pairs, and a shift merges the dword pairs. Then `pshufb`
/// moves the groups of each half together; the result's two halves each hold
/// `2W` packed bytes at their start.
#[target_feature(enable = "avx2")]
#[inline]
fn pack_32_bytes<const W: u32>(v: __m256i) -> __m256i {
    let p32 = merge_quads! {
        v, [_mm256_set1_epi16, _mm256_set1_epi32, _mm256_maddubs_epi16, _mm256_madd_epi16]
    };
    let lo = _mm256_blend_epi32::<0b1010_1010>(p32, _mm256_setzero_si256());
    let hi = _mm256_and_si256(
        _mm256_srl_epi64(p32, count(32 - 4 * W)),
        splat64(!mask64(4 * W)),
    );
    _mm256_shuffle_epi8(_mm256_or_si256(lo, hi), v256(pack_compact(W)))
}

/// Packs 32 bytes whose low bit (`W == 1`) or low two bits (`W == 2`) are
/// the elements: `vpmovmskb` takes one bit plane of 32 elements at a time
/// and, for two bits, `pdep` interleaves the planes.
#[target_feature(enable = "avx2,bmi2")]
#[inline]
fn pack_32_planes<const W: u32>(v: __m256i) -> u64 {
    let p0 = _mm256_movemask_epi8(_mm256_slli_epi16::<7>(v)) as u32 as u64;
    if W == 1 {
        return p0;
    }
    let p1 = _mm256_movemask_epi8(_mm256_slli_epi16::<6>(v)) as u32 as u64;
    _pdep_u64(p0, 0x5555_5555_5555_5555) | _pdep_u64(p1, 0xAAAA_AAAA_AAAA_AAAA)
}

/// Packs 32 `u32` values (each masked to 8 bits) into 32 bytes in element
/// order: `vpackusdw`, `vpackuswb`, and a dword permute to undo their lane
/// interleave.
#[target_feature(enable = "avx2")]
#[inline]
fn narrow_32(a0: __m256i, a1: __m256i, a2: __m256i, a3: __m256i) -> __m256i {
    let p01 = _mm256_packus_epi32(a0, a1);
    let p23 = _mm256_packus_epi32(a2, a3);
    let order = v256_u32([0, 4, 1, 5, 2, 6, 3, 7]);
    _mm256_permutevar8x32_epi32(_mm256_packus_epi16(p01, p23), order)
}

/// Bytes a 32-element step of a pack writes past its start: `4W` packed
/// bytes, stored as two 16-byte halves at `0` and `2W` (or 4 and 8 bytes
/// for the bit-plane packs).
const fn pack_span(w: u32) -> usize {
    match w {
        1 => 4,
        2 => 8,
        8 => 32,
        _ => 2 * w as usize + 16,
    }
}

/// A pack of `src` into `W`-bit values from value `offset` of `words`, in
/// the [`frame`]: `step(sb, bytes, at, i)` packs `per` values from `src[i]`
/// (whose bytes are `sb`) into the stream bytes `bytes` from `at`, touching at most the `span` bytes from
/// `at`; the steps' stores stay inside the bytes that the values written own
/// entirely (the garbage a store leaves past a step's own bytes is
/// rewritten by the next step or by the tail).
///
/// `step` may take `i + per <= src.len()` and `at + span <= bytes.len()`
/// (asserted by [`Steps::new`]).
#[inline(always)]
fn pack_frame<const W: u32, U: scalar::Lane>(
    src: &[U],
    words: &mut [u64],
    offset: usize,
    (per, span): (usize, usize),
    mut step: impl FnMut(&[u8], &mut [u8], usize, usize),
) {
    let sb: &[u8] = bytemuck::cast_slice(src);
    let n = src.len();
    let end_byte = ((offset + n) * W as usize / 8).min(8 * words.len());
    // The source starts on a line where its loads are at least twice the
    // stores (measured, 65,536 values 16 bytes past a line: from `u8`, 1
    // bit 22% and 3 bits 10% faster, 2, 4 and 5 bits within noise, 6 and 7
    // bits 18% slower, their 48- and 56-byte stores then crossing lines
    // more often; from `u32`, 2, 4 and 6 bits 19-23% faster).
    let hot = if 8 * size_of::<U>() >= 2 * W as usize {
        Hot::of(src)
    } else {
        None
    };
    let at = Steps::<W>::new(offset, n, per, span, 0, end_byte, hot);
    frame(
        words,
        (at, n),
        |words, r| scalar::pack::<W, U>(&src[r.clone()], words, offset + r.start),
        |words, at| {
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
            at.each(|b, i| step(sb, bytes, b, i));
        },
    );
}

/// Packs 32 elements from `v` (bytes, already masked to `W` bits) at byte
/// `at` of `bytes`.
///
/// # Safety
///
/// `at + pack_span(W) <= bytes.len()`.
#[target_feature(enable = "avx2,bmi2")]
#[inline]
unsafe fn pack_step<const W: u32>(bytes: &mut [u8], at: usize, v: __m256i) {
    match W {
        1 => {
            let p = pack_32_planes::<1>(v) as u32;
            // SAFETY: the caller guarantees `at + pack_span(W) <= bytes.len()`.
            unsafe { write_le(bytes, at, p) }
        }
        2 => {
            let p = pack_32_planes::<2>(v);
            // SAFETY: as above.
            unsafe { write_le(bytes, at, p) }
        }
        // SAFETY: as above.
        8 => unsafe { store32(bytes, at, v) },
        _ => {
            let p = pack_32_bytes::<W>(v);
            let (lo, hi) = (_mm256_castsi256_si128(p), _mm256_extracti128_si256::<1>(p));
            // SAFETY: as above (`pack_span` is `2W + 16`).
            unsafe { store16(bytes, at, lo) };
            // SAFETY: as above.
            unsafe { store16(bytes, at + 2 * W as usize, hi) };
        }
    }
}

/// Packs bytes into `W`-bit elements (`W` in `1..=7`), 32 per step: bit
/// planes by `vpmovmskb` for `W <= 2`, else multiply-add merges (see
/// [`pack_32_bytes`]).
///
/// # Safety
///
/// The CPU must support AVX2 and BMI2.
#[target_feature(enable = "avx2,bmi2")]
pub(crate) unsafe fn pack_u8_avx2<const W: u32>(src: &[u8], words: &mut [u64], offset: usize) {
    let keep = _mm256_set1_epi8(mask64(W) as i8);
    pack_frame::<W, u8>(src, words, offset, (32, pack_span(W)), |_, bytes, at, i| {
        // SAFETY: `i + 32 <= src.len()` (`pack_frame`).
        let v = _mm256_and_si256(unsafe { load32(src, i) }, keep);
        // SAFETY: `at + pack_span(W) <= bytes.len()` (`pack_frame`).
        unsafe { pack_step::<W>(bytes, at, v) };
    });
}

/// Packs bytes into `W`-bit elements (`W` in `1..=7`) with BMI2: one `pext`
/// gathers 8 elements into `W` bytes.
///
/// # Safety
///
/// The CPU must support BMI2.
#[target_feature(enable = "bmi2")]
pub(crate) unsafe fn pack_u8_bmi2<const W: u32>(src: &[u8], words: &mut [u64], offset: usize) {
    let ext = rep_mask(W, 8);
    pack_frame::<W, u8>(src, words, offset, (8, 8), |_, bytes, at, i| {
        // SAFETY: `i + 8 <= src.len()` (`pack_frame`).
        let v = _pext_u64(unsafe { read8(src, i) }, ext);
        // SAFETY: `at + 8 <= bytes.len()` (`pack_frame`).
        unsafe { write_le(bytes, at, v) };
    });
}

/// Packs `u32` elements into `W`-bit elements (`W` in `1..=8`): each 32
/// values are masked, narrowed to bytes ([`narrow_32`]) and packed as bytes.
///
/// # Safety
///
/// The CPU must support AVX2 and BMI2.
#[target_feature(enable = "avx2,bmi2")]
pub(crate) unsafe fn pack_u32_avx2<const W: u32>(src: &[u32], words: &mut [u64], offset: usize) {
    let keep = _mm256_set1_epi32(mask64(W) as i32);
    let geometry = (32, pack_span(W));
    pack_frame::<W, u32>(src, words, offset, geometry, |sb, bytes, at, i| {
        let mut a = [keep; 4];
        for (j, a) in a.iter_mut().enumerate() {
            // SAFETY: `i + 32 <= src.len()` (`pack_frame`), so the four
            // loads, bytes `4i..4i + 128` of `sb`, are inside `sb`.
            *a = _mm256_and_si256(unsafe { load32(sb, 4 * i + 32 * j) }, keep);
        }
        let v = narrow_32(a[0], a[1], a[2], a[3]);
        // SAFETY: `at + pack_span(W) <= bytes.len()` (`pack_frame`).
        unsafe { pack_step::<W>(bytes, at, v) };
    });
}

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

/// `vpermb` indices for [`pack_u32_wide_avx512`] up to 17 bits, the
/// zeroing folded in: `n` values (16 or 32, from one or two registers of
/// left-shifted dwords) into their `n * w / 8` output bytes, one table per
/// register and parity of the value (table `2 * (i / 16) + i % 2` for value
/// `i`). Every byte a table leaves to the others picks byte 3 of its
/// register, which is zero (a value of `w <= 17` bits shifted by at most 7
/// is below `2^24`), so plain `vpermb` do the work of zero-masked ones.
const fn wide_perm_zeroed_avx512(w: u32, n: usize) -> [[u8; 64]; 4] {
    assert!(w <= 17 && (n == 16 || n == 32) && n * w as usize <= 8 * 64);
    let w = w as usize;
    let mut c = [[3u8; 64]; 4];
    let mut j = 0;
    while j < n * w / 8 {
        let mut i = 0;
        while i < n {
            if let Some(f) = field_byte(w, i, j) {
                c[2 * (i / 16) + i % 2][j] = (4 * (i % 16) + f) as u8;
            }
            i += 1;
        }
        j += 1;
    }
    c
}

/// `vpermb` indices gathering a step's `8w` packed bytes into the first
/// `8w` bytes: for even `w`, the low `w / 2` bytes of each of the 16 dwords
/// (four merged values fill them exactly); for odd `w`, the low `w` bytes
/// of each of the 8 qwords.
const fn compact_qwords(w: u32) -> [u8; 64] {
    let w = w as usize;
    let (group, keep) = if w.is_multiple_of(2) {
        (4, w / 2)
    } else {
        (8, w)
    };
    let mut c = [0u8; 64];
    let mut j = 0;
    while j < 8 * w {
        c[j] = (j / keep * group + j % keep) as u8;
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
    // The second store writes 16 bytes from `k`; what it leaves past `W`
    // is rewritten by the next step or by the tail.
    let k = 4 * W as usize / 8;
    let [e0, o0, e1, o1] = const { wide_ctrl_avx2(W) };
    let (e0, o0, e1, o1) = (v256(e0), v256(o0), v256(e1), v256(o1));
    let (l, r) = const { wide_shifts::<8>(W) };
    let (l, r): (__m256i, __m256i) = (bytemuck::cast(l), bytemuck::cast(r));
    let down: __m128i = bytemuck::cast(shift_down(k));
    let keep = _mm256_set1_epi32(mask64(W) as i32);
    pack_frame::<W, u32>(src, words, offset, (8, k + 16), |sb, bytes, at, i| {
        // SAFETY: `i + 8 <= src.len()` (`pack_frame`).
        let v = _mm256_and_si256(unsafe { load32(sb, 4 * i) }, keep);
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
        // SAFETY: `at + k + 16 <= bytes.len()` (`pack_frame`).
        unsafe { store16(bytes, at, lo) };
        // SAFETY: as above.
        unsafe { store16(bytes, at + k, hi) };
    });
}

/// Packs `u32` elements into `W`-bit elements (`W` in `9..=31`), 16 per
/// step into `2W` bytes (32 into `4W` up to 16 bits): `vpsllvd` places
/// each value at its bit, two `vpermb` a register (zeroing by their indices
/// up to 17 bits, by masks above; `vpermt2b` with the right-shifted dwords
/// above 25 bits) move the even and the odd values' bytes, and a masked
/// store writes exactly the step's bytes.
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
    let w = W as usize;
    let (l, r) = const { wide_shifts::<16>(W) };
    let (l, r) = (v512(l), v512(r));
    let keep = _mm512_set1_epi32(mask64(W) as i32);
    // The values of a register, masked to `W` bits and shifted to their bit
    // within the byte they start in.
    let shifted = |sb: &[u8], i: usize| {
        // SAFETY: the callers' `i + 16 <= src.len()` (`pack_frame`).
        let v = _mm512_and_si512(unsafe { load64(sb, 4 * i) }, keep);
        (v, _mm512_sllv_epi32(v, l))
    };
    if W <= 16 {
        // 32 values a step into `4W <= 64` bytes, one masked store: four
        // plain `vpermb` (one uop each; LLVM turns a zero-masked one into a
        // `vpermt2b` of three), the zeros coming from the indices. Half the
        // stores of 16 values a step, which bound that loop.
        let [a, b, c, d] = const { wide_perm_zeroed_avx512(if W <= 16 { W } else { 16 }, 32) };
        let (a, b, c, d) = (v512(a), v512(b), v512(c), v512(d));
        pack_frame::<W, u32>(src, words, offset, (32, 4 * w), |sb, bytes, at, i| {
            let (_, x) = shifted(sb, i);
            let (_, y) = shifted(sb, i + 16);
            let lo = _mm512_or_si512(_mm512_permutexvar_epi8(a, x), _mm512_permutexvar_epi8(b, x));
            let hi = _mm512_or_si512(_mm512_permutexvar_epi8(c, y), _mm512_permutexvar_epi8(d, y));
            let p = _mm512_or_si512(lo, hi);
            // SAFETY: `at + 4W <= bytes.len()` (`pack_frame`).
            unsafe { store_first(bytes, at, 4 * w, p) };
        });
        return;
    }
    let ([ie, io], [me, mo]) = const { wide_perm_avx512(W) };
    // Opaque to the optimizer, which would otherwise turn each zero-masked
    // `vpermb` (one uop) into a `vpermt2b` with a zero vector (three).
    let (ie, io) = core::hint::black_box((v512(ie), v512(io)));
    let [ze, zo, _, _] = const { wide_perm_zeroed_avx512(if W <= 17 { W } else { 17 }, 16) };
    let (ze, zo) = (v512(ze), v512(zo));
    pack_frame::<W, u32>(src, words, offset, (16, 2 * w), |sb, bytes, at, i| {
        let (v, x) = shifted(sb, i);
        let (a, b) = if W > 25 {
            let y = _mm512_srlv_epi32(v, r);
            (
                _mm512_maskz_permutex2var_epi8(me, x, ie, y),
                _mm512_maskz_permutex2var_epi8(mo, x, io, y),
            )
        } else if W == 17 {
            // Zeros from the indices, as above.
            (
                _mm512_permutexvar_epi8(ze, x),
                _mm512_permutexvar_epi8(zo, x),
            )
        } else {
            (
                _mm512_maskz_permutexvar_epi8(me, ie, x),
                _mm512_maskz_permutexvar_epi8(mo, io, x),
            )
        };
        let p = _mm512_or_si512(a, b);
        // SAFETY: `at + 2W <= bytes.len()` (`pack_frame`).
        unsafe { store_first(bytes, at, 2 * w, p) };
    });
}

// ---------------------------------------------------------------------------
// AVX-512: u8 and u32, W in 1..=8
// ---------------------------------------------------------------------------

/// Packs 64 bytes (each `< 2^W`, `W` in `2..=7`) into `8W` bytes at the
/// start of the result: `vpmaddubsw` and `vpmaddwd` merge each 4
/// neighbours into the low `4W` bits of their dword (as the AVX2 pack
/// does). For even `W` those are `W / 2` whole bytes, which one `vpermb` by
/// `idx` gathers (one uop, where `vpmovdb`/`vpmovdw` take two); for odd `W`
/// a qword shift first merges each 8 neighbours into `W` bytes at the
/// bottom of their qword and the `vpermb` gathers the 8 groups. `idx` holds
/// the [`compact_qwords`] indices, which the caller passes opaque: LLVM
/// otherwise turns the `vpermb` of constant indices into `vpmovdb`, or
/// fuses the mask, shift and `vpermb` into a `vpermt2b` of three uops and a
/// `vpmovqw` of two.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
fn pack_64_bytes<const W: u32>(v: __m512i, idx: __m512i) -> __m512i {
    let p32 = merge_quads! {
        v, [_mm512_set1_epi16, _mm512_set1_epi32, _mm512_maddubs_epi16, _mm512_madd_epi16]
    };
    if W.is_multiple_of(2) {
        // Four values fill `W / 2` whole bytes of their dword.
        _mm512_permutexvar_epi8(idx, p32)
    } else {
        let lo = _mm512_maskz_mov_epi32(0x5555, p32);
        let hi = _mm512_and_si512(
            _mm512_srl_epi64(p32, bytemuck::cast([u64::from(32 - 4 * W), 0])),
            _mm512_set1_epi64(!mask64(4 * W) as i64),
        );
        _mm512_permutexvar_epi8(idx, _mm512_or_si512(lo, hi))
    }
}

/// The [`compact_qwords`] indices of `W` bits, hidden from the optimizer
/// (see [`pack_64_bytes`]); computed once per call, outside the loop.
#[target_feature(enable = "avx512f")]
#[inline]
fn compact_idx<const W: u32>() -> __m512i {
    core::hint::black_box(v512(const { compact_qwords(W) }))
}

/// Packs 64 masked bytes `v` into `8W` bytes at `at`: `vptestmb` for one
/// bit, a plain store for eight, else [`pack_64_bytes`].
///
/// # Safety
///
/// `at + 8W <= bytes.len()`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
unsafe fn pack_step_avx512<const W: u32>(bytes: &mut [u8], at: usize, v: __m512i, idx: __m512i) {
    match W {
        1 => {
            let m = _mm512_test_epi8_mask(v, _mm512_set1_epi8(1));
            // SAFETY: the caller guarantees `at + 8 <= bytes.len()`.
            unsafe { write_le(bytes, at, m) }
        }
        // SAFETY: the caller guarantees `at + 64 <= bytes.len()`.
        8 => unsafe { store_first(bytes, at, 64, v) },
        // Whole 16- and 32-byte results: plain stores (a masked 64-byte
        // store whose masked-off bytes cross a line costs as one that
        // writes them).
        2 => {
            let p = _mm512_castsi512_si128(pack_64_bytes::<W>(v, idx));
            // SAFETY: the caller guarantees `at + 16 <= bytes.len()`.
            unsafe { store16(bytes, at, p) }
        }
        4 => {
            let p = _mm512_castsi512_si256(pack_64_bytes::<W>(v, idx));
            // SAFETY: the caller guarantees `at + 32 <= bytes.len()`.
            unsafe { store32(bytes, at, p) }
        }
        _ => {
            let p = pack_64_bytes::<W>(v, idx);
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
    let keep = _mm512_set1_epi8(mask64(W) as i8);
    let geometry = (64, 8 * W as usize);
    let idx = compact_idx::<W>();
    pack_frame::<W, u8>(src, words, offset, geometry, |_, bytes, at, i| {
        // SAFETY: `i + 64 <= src.len()` (`pack_frame`).
        let v = _mm512_and_si512(unsafe { load64(src, i) }, keep);
        // SAFETY: `at + 8W <= bytes.len()` (`pack_frame`).
        unsafe { pack_step_avx512::<W>(bytes, at, v, idx) };
    });
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
    let keep = _mm512_set1_epi32(mask64(W) as i32);
    let geometry = (64, 8 * W as usize);
    let idx = compact_idx::<W>();
    pack_frame::<W, u32>(src, words, offset, geometry, |sb, bytes, at, i| {
        let mut a = [keep; 4];
        for (j, a) in a.iter_mut().enumerate() {
            // SAFETY: `i + 64 <= src.len()` (`pack_frame`), so the four
            // loads, bytes `4i..4i + 256` of `sb`, are inside `sb`.
            *a = _mm512_and_si512(unsafe { load64(sb, 4 * i + 64 * j) }, keep);
        }
        let v = narrow_u32x64(a[0], a[1], a[2], a[3]);
        // SAFETY: `at + 8W <= bytes.len()` (`pack_frame`).
        unsafe { pack_step_avx512::<W>(bytes, at, v, idx) };
    });
}
