//! AVX2, BMI2 and POPCNT variants of the kernels, selected at run time.
//!
//! Each variant is a `#[target_feature]` function generic over the width, so
//! it is as monomorphized as the portable kernel it replaces; it handles the
//! element-aligned middle of a call and hands the unaligned head and the tail
//! to the portable kernel. Which variant serves which width is decided by the
//! tables at the end of this file, from the benchmarks (see the module docs
//! of `kernels` and `BENCHMARKS.md`).
//!
//! Only little-endian `x86_64` compiles this file, so the bytes of the `u64`
//! words are the bytes of the stream.

use core::arch::x86_64::*;
use core::sync::atomic::{AtomicU8, Ordering};

use super::scalar::{self, mask64, rep_mask};

// ---------------------------------------------------------------------------
// feature detection
// ---------------------------------------------------------------------------

/// `avx2` detected.
pub(crate) const AVX2: u8 = 1;
/// `bmi2` detected.
pub(crate) const BMI2: u8 = 2;
/// `popcnt` detected.
pub(crate) const POPCNT: u8 = 4;
/// Detection has run.
const DETECTED: u8 = 0x80;

static FEATURES: AtomicU8 = AtomicU8::new(0);
static LIMIT: AtomicU8 = AtomicU8::new(0xff);

/// The detected CPU features (bit set of [`AVX2`], [`BMI2`], [`POPCNT`]),
/// detected once with `is_x86_feature_detected!` and cached.
#[inline]
pub(crate) fn features() -> u8 {
    let f = FEATURES.load(Ordering::Relaxed);
    let f = if f & DETECTED != 0 { f } else { detect() };
    f & LIMIT.load(Ordering::Relaxed)
}

#[cold]
fn detect() -> u8 {
    let mut f = DETECTED;
    if std::is_x86_feature_detected!("avx2") {
        f |= AVX2;
    }
    if std::is_x86_feature_detected!("bmi2") {
        f |= BMI2;
    }
    if std::is_x86_feature_detected!("popcnt") {
        f |= POPCNT;
    }
    FEATURES.store(f, Ordering::Relaxed);
    f
}

/// Masks the features the kernels may use (`0` forces the portable kernels,
/// `0xff` restores detection). Not public API: for benchmarks.
pub fn limit_features(mask: u8) {
    LIMIT.store(mask, Ordering::Relaxed);
}

/// The detected features, ignoring [`limit_features`] (tests use it to run
/// every variant the machine has).
#[cfg(test)]
pub(crate) fn detected() -> u8 {
    let f = FEATURES.load(Ordering::Relaxed);
    if f & DETECTED != 0 { f } else { detect() }
}

/// A variant: the features it needs, its name, the function.
pub(crate) type Variant<F> = (u8, &'static str, F);

/// A per-width table of variants: entry `w - 1` lists the functions for
/// width `w` in order of preference (measured), each with the features it
/// needs; an empty entry means the portable kernel serves that width.
pub(crate) struct XTable<F: Copy, const N: usize>(pub(crate) [[Option<Variant<F>>; 2]; N]);

impl<F: Copy, const N: usize> XTable<F, N> {
    /// The preferred variant for width `w` whose features the CPU has.
    #[inline]
    pub(crate) fn get(&self, w: usize) -> Option<F> {
        let have = features();
        self.0
            .get(w.wrapping_sub(1))?
            .iter()
            .flatten()
            .find(|(need, _, _)| have & need == *need)
            .map(|&(_, _, f)| f)
    }
}

/// Builds an [`XTable`]: `N; [FEATURE function, ...] for widths...; ...`.
macro_rules! xtable {
    ($n:literal; $( [$($need:ident $f:ident),+] for $($w:literal)+ );* $(;)?) => {{
        let mut t = [[None; 2]; $n];
        $( xtable!(@set t [$($need $f),+] $($w)+); )*
        XTable(t)
    }};
    (@set $t:ident [$($need:ident $f:ident),+] $w:literal $($rest:literal)*) => {
        $t[$w - 1] = xtable!(@cands $w [$($need $f),+]);
        xtable!(@set $t [$($need $f),+] $($rest)*);
    };
    (@set $t:ident [$($need:ident $f:ident),+]) => {};
    (@cands $w:literal [$n1:ident $f1:ident]) => {
        [Some(($n1, stringify!($f1), $f1::<$w> as _)), None]
    };
    (@cands $w:literal [$n1:ident $f1:ident, $n2:ident $f2:ident]) => {
        [
            Some(($n1, stringify!($f1), $f1::<$w> as _)),
            Some(($n2, stringify!($f2), $f2::<$w> as _)),
        ]
    };
}

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

/// A vector from 32 bytes.
#[inline(always)]
fn v256(b: [u8; 32]) -> __m256i {
    bytemuck::cast(b)
}

/// A vector from 16 `u16` lanes.
#[inline(always)]
fn v256_u16(h: [u16; 16]) -> __m256i {
    bytemuck::cast(h)
}

/// A vector from 8 `u32` lanes.
#[inline(always)]
fn v256_u32(d: [u32; 8]) -> __m256i {
    bytemuck::cast(d)
}

/// A vector with `x` in every 64-bit lane.
#[inline(always)]
fn splat64(x: u64) -> __m256i {
    bytemuck::cast([x; 4])
}

/// A shift count for `_mm256_srl_epi64`/`_mm256_srl_epi16`.
#[inline(always)]
fn count(n: u32) -> __m128i {
    bytemuck::cast([n as u64, 0])
}

/// Elements before the next multiple of 8 from `offset`, capped at `n`: the
/// SIMD loops start where an element begins on a byte boundary.
#[inline(always)]
fn head8(offset: usize, n: usize) -> usize {
    ((8 - offset % 8) % 8).min(n)
}

/// Reads 16 bytes at `lo` of `bytes` into the low 128 bits and 16 bytes at
/// `hi` into the high 128 bits.
#[target_feature(enable = "avx2")]
#[inline]
fn load2(bytes: &[u8], lo: usize, hi: usize) -> __m256i {
    let lo = &bytes[lo..lo + 16];
    let hi = &bytes[hi..hi + 16];
    // SAFETY: `lo` and `hi` are 16 readable bytes each (the indexing above
    // checked it); `_mm256_loadu2_m128i` reads 16 bytes from each pointer
    // with no alignment requirement ("loadu"); its `avx` feature is implied
    // by this function's `avx2`.
    unsafe { _mm256_loadu2_m128i(hi.as_ptr().cast(), lo.as_ptr().cast()) }
}

/// Reads 32 bytes at `at`.
#[target_feature(enable = "avx2")]
#[inline]
fn load32(bytes: &[u8], at: usize) -> __m256i {
    let s = &bytes[at..at + 32];
    // SAFETY: `s` is 32 readable bytes (checked above) and `loadu` has no
    // alignment requirement.
    unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
}

/// Writes 32 bytes at `at`.
#[target_feature(enable = "avx2")]
#[inline]
fn store32(bytes: &mut [u8], at: usize, v: __m256i) {
    let s = &mut bytes[at..at + 32];
    // SAFETY: `s` is 32 writable bytes (checked above) and `storeu` has no
    // alignment requirement.
    unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
}

/// Writes 16 bytes at `at`.
#[target_feature(enable = "avx2")]
#[inline]
fn store16(bytes: &mut [u8], at: usize, v: __m128i) {
    let s = &mut bytes[at..at + 16];
    // SAFETY: `s` is 16 writable bytes (checked above) and `storeu` has no
    // alignment requirement.
    unsafe { _mm_storeu_si128(s.as_mut_ptr().cast(), v) }
}

/// Reads 8 bytes at `at`, little-endian.
#[inline(always)]
fn read8(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]))
}

/// Writes 8 bytes at `at`, little-endian.
#[inline(always)]
fn write8(bytes: &mut [u8], at: usize, v: u64) {
    bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

// ---------------------------------------------------------------------------
// unpack to u8, W in 1..=7
// ---------------------------------------------------------------------------

/// `pshufb` control for [`unpack_u8_avx2`]: 16-bit lane `j` of each half
/// gathers the two bytes holding element `j` of an 8-element group (W bytes
/// at the start of the half). An element that starts on a byte boundary takes
/// that byte as the high byte (low byte zero) so that every lane shifts right
/// by 1..=8.
const fn unpack_u8_shuffle(w: u32) -> [u8; 32] {
    let mut c = [0u8; 32];
    let mut j = 0;
    while j < 8 {
        let bit = j * w as usize;
        let (b, s) = (bit / 8, bit % 8);
        let (lo, hi) = if s == 0 {
            (0x80, b as u8)
        } else {
            (b as u8, b as u8 + 1)
        };
        c[2 * j] = lo;
        c[2 * j + 1] = hi;
        c[16 + 2 * j] = lo;
        c[16 + 2 * j + 1] = hi;
        j += 1;
    }
    c
}

/// Multipliers for `_mm256_mulhi_epu16`: `2^(16 - s)` shifts a lane right by
/// `s` (1..=8).
const fn unpack_u8_mul(w: u32) -> [u16; 16] {
    let mut m = [0u16; 16];
    let mut j = 0;
    while j < 8 {
        let s = (j * w as usize) % 8;
        let s = if s == 0 { 8 } else { s };
        m[j] = 1 << (16 - s);
        m[8 + j] = 1 << (16 - s);
        j += 1;
    }
    m
}

/// Unpacks `W`-bit elements (`W` in `1..=7`) to bytes, 32 per iteration: four
/// 8-element groups (`W` bytes each) are loaded into the four 128-bit
/// half-lanes of two vectors, `pshufb` puts each element's two bytes in a
/// 16-bit lane, `vpmulhuw` shifts each lane right by its own amount, a mask
/// keeps `W` bits and `vpackuswb` interleaves the two vectors back into
/// element order.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unpack_u8_avx2<const W: u32>(words: &[u64], offset: usize, dst: &mut [u8]) {
    let n = dst.len();
    let head = head8(offset, n);
    scalar::unpack::<W, u8>(words, offset, &mut dst[..head]);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let w = W as usize;
    let shuf = v256(unpack_u8_shuffle(W));
    let mul = v256_u16(unpack_u8_mul(W));
    let mask = _mm256_set1_epi16(mask64(W) as i16);
    let mut i = head;
    let mut at = (offset + head) / 8 * w;
    while i + 32 <= n && at + 3 * w + 16 <= bytes.len() {
        let a = load2(bytes, at, at + 2 * w);
        let b = load2(bytes, at + w, at + 3 * w);
        let a = _mm256_and_si256(_mm256_mulhi_epu16(_mm256_shuffle_epi8(a, shuf), mul), mask);
        let b = _mm256_and_si256(_mm256_mulhi_epu16(_mm256_shuffle_epi8(b, shuf), mul), mask);
        store32(dst, i, _mm256_packus_epi16(a, b));
        i += 32;
        at += 4 * w;
    }
    scalar::unpack::<W, u8>(words, offset + i, &mut dst[i..]);
}

/// Unpacks `W`-bit elements (`W` in `1..=7`) to bytes with BMI2: one `pdep`
/// spreads an 8-element group (`W` bytes) over 8 bytes.
///
/// # Safety
///
/// The CPU must support BMI2.
#[target_feature(enable = "bmi2")]
pub(crate) unsafe fn unpack_u8_bmi2<const W: u32>(words: &[u64], offset: usize, dst: &mut [u8]) {
    let n = dst.len();
    let head = head8(offset, n);
    scalar::unpack::<W, u8>(words, offset, &mut dst[..head]);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let w = W as usize;
    let dep = rep_mask(W, 8);
    let mut i = head;
    let mut at = (offset + head) / 8 * w;
    while i + 32 <= n && at + 3 * w + 8 <= bytes.len() {
        let out = &mut dst[i..i + 32];
        for g in 0..4 {
            let x = read8(bytes, at + g * w);
            write8(out, 8 * g, _pdep_u64(x, dep));
        }
        i += 32;
        at += 4 * w;
    }
    scalar::unpack::<W, u8>(words, offset + i, &mut dst[i..]);
}

// ---------------------------------------------------------------------------
// unpack to u32, W in 1..=31
// ---------------------------------------------------------------------------

/// Byte index of the 16-byte window for half `h` (elements `4h..4h + 4` of an
/// 8-element group) and the bit where the window's first element starts.
const fn u32_window(w: u32, h: usize) -> (usize, usize) {
    let bit = 4 * h * w as usize;
    (bit / 8, bit % 8)
}

/// `pshufb` controls and shifts for [`unpack_u32_avx2`]: dword `j` of half
/// `h` gathers 4 bytes from byte `k` of its window (`k + 4..k + 8` for the
/// second control, used when `W > 25`), then shifts right by the element's
/// bit offset in that byte.
const fn unpack_u32_consts(w: u32) -> ([u8; 32], [u8; 32], [u32; 8]) {
    let mut c0 = [0x80u8; 32];
    let mut c1 = [0x80u8; 32];
    let mut sh = [0u32; 8];
    let mut h = 0;
    while h < 2 {
        let (_, phase) = u32_window(w, h);
        let mut j = 0;
        while j < 4 {
            let bit = phase + j * w as usize;
            let (b, s) = (bit / 8, bit % 8);
            let mut t = 0;
            while t < 4 {
                if b + t < 16 {
                    c0[16 * h + 4 * j + t] = (b + t) as u8;
                }
                if b + 4 + t < 16 {
                    c1[16 * h + 4 * j + t] = (b + 4 + t) as u8;
                }
                t += 1;
            }
            sh[4 * h + j] = s as u32;
            j += 1;
        }
        h += 1;
    }
    (c0, c1, sh)
}

/// Unpacks `W`-bit elements (`W` in `1..=31`) to `u32`, 8 per step: the two
/// 4-element halves of an 8-element group (`W` bytes) are loaded into the two
/// 128-bit lanes, `pshufb` gathers each element's bytes into its dword,
/// `vpsrlvd` shifts each dword by its own amount and a mask keeps `W` bits
/// (for `W > 25` an element can span 5 bytes, so a second gather is shifted
/// left and or-ed in).
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unpack_u32_avx2<const W: u32>(words: &[u64], offset: usize, dst: &mut [u32]) {
    let n = dst.len();
    let head = head8(offset, n);
    scalar::unpack::<W, u32>(words, offset, &mut dst[..head]);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let out: &mut [u8] = bytemuck::cast_slice_mut(dst);
    let w = W as usize;
    let (c0, c1, sh) = unpack_u32_consts(W);
    let (c0, c1, sh) = (v256(c0), v256(c1), v256_u32(sh));
    let sh_hi = _mm256_sub_epi32(_mm256_set1_epi32(32), sh);
    let mask = _mm256_set1_epi32(mask64(W) as i32);
    let (hi_off, _) = u32_window(W, 1);
    let mut i = head;
    let mut at = (offset + head) / 8 * w;
    while i + 8 <= n && at + hi_off + 16 <= bytes.len() {
        let v = load2(bytes, at, at + hi_off);
        let mut r = _mm256_srlv_epi32(_mm256_shuffle_epi8(v, c0), sh);
        if W > 25 {
            r = _mm256_or_si256(r, _mm256_sllv_epi32(_mm256_shuffle_epi8(v, c1), sh_hi));
        }
        let r = _mm256_and_si256(r, mask);
        store32(out, 4 * i, r);
        i += 8;
        at += w;
    }
    scalar::unpack::<W, u32>(words, offset + i, &mut dst[i..]);
}

// ---------------------------------------------------------------------------
// pack from u8 / u32, W in 1..=7
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

/// Packs 32 bytes (each `< 2^W`, `W` in `1..=7`) into four `W`-byte groups,
/// one at the bottom of each qword: `vpmaddubsw` merges byte pairs, `vpmaddwd`
/// merges those pairs, and a shift merges the dword pairs. Then `pshufb`
/// moves the groups of each half together; the result's two halves each hold
/// `2W` packed bytes at their start.
#[target_feature(enable = "avx2")]
#[inline]
fn pack_32_bytes<const W: u32>(v: __m256i) -> __m256i {
    let m8 = _mm256_set1_epi16((1 | (1 << (8 + W))) as i16);
    let m16 = _mm256_set1_epi32(1 | (1 << (16 + 2 * W)));
    let p16 = _mm256_maddubs_epi16(m8, v);
    let p32 = _mm256_madd_epi16(p16, m16);
    let lo = _mm256_blend_epi32::<0b1010_1010>(p32, _mm256_setzero_si256());
    let hi = _mm256_and_si256(
        _mm256_srl_epi64(p32, count(32 - 4 * W)),
        splat64(!mask64(4 * W)),
    );
    _mm256_shuffle_epi8(_mm256_or_si256(lo, hi), v256(pack_compact(W)))
}

/// Stores the two halves of a [`pack_32_bytes`] result: `2W` bytes at `at`
/// and `2W` at `at + 2W` (each store writes 16 bytes; the bytes past `4W` are
/// overwritten by the next step or the tail).
#[target_feature(enable = "avx2")]
#[inline]
fn store_packed<const W: u32>(bytes: &mut [u8], at: usize, v: __m256i) {
    store16(bytes, at, _mm256_castsi256_si128(v));
    store16(bytes, at + 2 * W as usize, _mm256_extracti128_si256::<1>(v));
}

/// The SIMD steps of a pack from element `start` (a multiple of 8) while the
/// 16-byte stores stay inside the bytes that values `start..offset + n` own
/// entirely: returns the number of source elements consumed, `32k`.
#[inline(always)]
fn pack_steps(w: u32, start: usize, offset: usize, n: usize, bytes_len: usize) -> usize {
    let w = w as usize;
    let first = start * w / 8;
    let end_byte = ((offset + n) * w / 8).min(bytes_len);
    let by_len = (n - (start - offset)) / 32;
    // Step k stores up to byte `first + 4kw + 2w + 16`.
    let by_bytes = match end_byte.checked_sub(first + 2 * w + 16) {
        Some(room) => room / (4 * w) + 1,
        None => 0,
    };
    32 * by_len.min(by_bytes)
}

/// Packs bytes into `W`-bit elements (`W` in `1..=7`), 32 per step (see
/// [`pack_32_bytes`]).
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn pack_u8_avx2<const W: u32>(src: &[u8], words: &mut [u64], offset: usize) {
    let n = src.len();
    let head = head8(offset, n);
    scalar::pack::<W, u8>(&src[..head], words, offset);
    let start = offset + head;
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
    let simd = pack_steps(W, start, offset, n, bytes.len());
    let w = W as usize;
    let keep = _mm256_set1_epi8(mask64(W) as i8);
    let mut at = start / 8 * w;
    let mut i = head;
    while i < head + simd {
        let v = _mm256_and_si256(load32(src, i), keep);
        store_packed::<W>(bytes, at, pack_32_bytes::<W>(v));
        i += 32;
        at += 4 * w;
    }
    scalar::pack::<W, u8>(&src[i..], words, offset + i);
}

/// Packs bytes into `W`-bit elements (`W` in `1..=7`) with BMI2: one `pext`
/// gathers 8 elements into `W` bytes.
///
/// # Safety
///
/// The CPU must support BMI2.
#[target_feature(enable = "bmi2")]
pub(crate) unsafe fn pack_u8_bmi2<const W: u32>(src: &[u8], words: &mut [u64], offset: usize) {
    let n = src.len();
    let head = head8(offset, n);
    scalar::pack::<W, u8>(&src[..head], words, offset);
    let start = offset + head;
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
    let w = W as usize;
    let ext = rep_mask(W, 8);
    let end_byte = ((offset + n) * w / 8).min(bytes.len());
    let mut at = start / 8 * w;
    let mut i = head;
    while i + 8 <= n && at + 8 <= end_byte {
        write8(bytes, at, _pext_u64(read8(src, i), ext));
        i += 8;
        at += w;
    }
    scalar::pack::<W, u8>(&src[i..], words, offset + i);
}

/// Packs `u32` elements into `W`-bit elements (`W` in `1..=7`): each 32
/// values are masked, narrowed to bytes (`vpackusdw`, `vpackuswb`, a dword
/// permute to undo their lane interleave) and packed as bytes.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn pack_u32_avx2<const W: u32>(src: &[u32], words: &mut [u64], offset: usize) {
    let n = src.len();
    let head = head8(offset, n);
    scalar::pack::<W, u32>(&src[..head], words, offset);
    let start = offset + head;
    let sb: &[u8] = bytemuck::cast_slice(src);
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
    let simd = pack_steps(W, start, offset, n, bytes.len());
    let w = W as usize;
    let keep = _mm256_set1_epi32(mask64(W) as i32);
    let order = v256_u32([0, 4, 1, 5, 2, 6, 3, 7]);
    let mut at = start / 8 * w;
    let mut i = head;
    while i < head + simd {
        let b = 4 * i;
        let a0 = _mm256_and_si256(load32(sb, b), keep);
        let a1 = _mm256_and_si256(load32(sb, b + 32), keep);
        let a2 = _mm256_and_si256(load32(sb, b + 64), keep);
        let a3 = _mm256_and_si256(load32(sb, b + 96), keep);
        let p01 = _mm256_packus_epi32(a0, a1);
        let p23 = _mm256_packus_epi32(a2, a3);
        let v = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(p01, p23), order);
        store_packed::<W>(bytes, at, pack_32_bytes::<W>(v));
        i += 32;
        at += 4 * w;
    }
    scalar::pack::<W, u32>(&src[i..], words, offset + i);
}

// ---------------------------------------------------------------------------
// sum, W in 1..=8
// ---------------------------------------------------------------------------

/// Horizontal sum of the four 64-bit lanes.
#[inline(always)]
fn hsum4(v: __m256i) -> u128 {
    let l: [u64; 4] = bytemuck::cast(v);
    l.iter().map(|&x| x as u128).sum()
}

/// Sum of one-bit elements: `popcnt` over the words.
///
/// # Safety
///
/// The CPU must support POPCNT.
#[target_feature(enable = "popcnt")]
pub(crate) unsafe fn sum_popcnt<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    scalar::popcount_range(words, offset, n) as u128
}

/// Sum of `W`-bit elements for `W` in {2, 4, 8}, where no element crosses a
/// byte: fields are folded pairwise inside each byte (2-bit pairs into
/// nibbles, nibbles into bytes), byte sums accumulate in 8-bit lanes for as
/// many steps as cannot overflow, and `vpsadbw` adds each 8 bytes into a
/// 64-bit lane.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn sum_bytes_avx2<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    let head = head8(offset, n);
    let mut total = scalar::sum::<W>(words, offset, head);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let w = W as usize;
    let start = offset + head;
    let per_step = 256 / w;
    let steps = (n - head) / per_step;
    let first = start * w / 8;
    // Largest byte sum one step adds, and how many steps a byte holds.
    let per_byte: usize = if W == 8 {
        255
    } else {
        (8 / w) * ((1 << w) - 1)
    };
    let batch = (255 / per_byte).max(1);
    let m2 = _mm256_set1_epi8(0x33);
    let m4 = _mm256_set1_epi8(0x0f);
    let zero = _mm256_setzero_si256();
    let mut acc = zero;
    let mut s = 0;
    while s < steps {
        let end = (s + batch).min(steps);
        let mut bsum = zero;
        while s < end {
            let mut v = load32(bytes, first + 32 * s);
            if W == 2 {
                v = _mm256_add_epi8(
                    _mm256_and_si256(v, m2),
                    _mm256_and_si256(_mm256_srli_epi16::<2>(v), m2),
                );
            }
            if W <= 4 {
                v = _mm256_add_epi8(
                    _mm256_and_si256(v, m4),
                    _mm256_and_si256(_mm256_srli_epi16::<4>(v), m4),
                );
            }
            if W == 8 {
                acc = _mm256_add_epi64(acc, _mm256_sad_epu8(v, zero));
            } else {
                bsum = _mm256_add_epi8(bsum, v);
            }
            s += 1;
        }
        if W != 8 {
            acc = _mm256_add_epi64(acc, _mm256_sad_epu8(bsum, zero));
        }
    }
    total += hsum4(acc);
    let done = head + steps * per_step;
    total + scalar::sum::<W>(words, offset + done, n - done)
}

/// Groups of 8 elements (`W` bytes) per 64-bit lane in [`sum_fold_avx2`].
const fn groups_per_lane(w: u32) -> usize {
    (8 / w) as usize
}

/// `pshufb` control for [`sum_fold_avx2`]: qword `q` of each half receives
/// `K = 8 / W` consecutive 8-element groups (bytes `qKW..(q + 1)KW` of the
/// half's window) at its bottom; the rest is zero.
const fn sum_shuffle(w: u32) -> [u8; 32] {
    let kw = groups_per_lane(w) * w as usize;
    let mut c = [0x80u8; 32];
    let mut h = 0;
    while h < 2 {
        let mut q = 0;
        while q < 2 {
            let mut t = 0;
            while t < kw {
                c[16 * h + 8 * q + t] = (q * kw + t) as u8;
                t += 1;
            }
            q += 1;
        }
        h += 1;
    }
    c
}

/// Sum of the `s`-bit slots of each 64-bit lane (see `scalar::hsum`).
#[target_feature(enable = "avx2")]
#[inline]
fn hsum_lanes(mut x: __m256i, mut s: u32) -> __m256i {
    while s < 64 {
        let m = splat64(rep_mask(s, 2 * s));
        x = _mm256_add_epi64(
            _mm256_and_si256(x, m),
            _mm256_and_si256(_mm256_srl_epi64(x, count(s)), m),
        );
        s *= 2;
    }
    x
}

/// Sum of `W`-bit elements for `W` in {3, 5, 6, 7} by in-word digit folding.
///
/// A step takes four 8-element groups per 64-bit lane... precisely: `pshufb`
/// gives each 64-bit lane `K = 8 / W` whole groups (`8K` elements) at its
/// bottom, so every lane holds whole fields at bits `0, W, 2W, ...`. One fold,
/// `(v - t) + (t >> W)` with `t` the odd fields, leaves pair sums in `2W`-bit
/// slots; these accumulate for as many steps as a slot can hold, then fold
/// into `4W`-bit slots of a second accumulator, which is reduced to 64-bit
/// lanes before it could overflow. Slots stop below bit `8KW`, so nothing is
/// ever carried out of a lane.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn sum_fold_avx2<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    let head = head8(offset, n);
    let mut total = scalar::sum::<W>(words, offset, head);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let w = W as usize;
    let kw = groups_per_lane(W) * w;
    let per_step = 32 * groups_per_lane(W);
    let start = offset + head;
    let first = start * w / 8;
    // Steps available, keeping each 16-byte load inside the buffer.
    let mut steps = (n - head) / per_step;
    while steps > 0 && first + (steps - 1) * 4 * kw + 2 * kw + 16 > bytes.len() {
        steps -= 1;
    }
    let shuf = v256(sum_shuffle(W));
    let fields = mask64(8 * kw as u32);
    let odd = splat64(rep_mask(W, 2 * W) << W & fields);
    let m4 = splat64(rep_mask(2 * W, 4 * W));
    // Steps per flush of the 2W-bit slots, flushes per reduction of the
    // 4W-bit slots.
    let r1 = (mask64(2 * W) / (2 * mask64(W))) as usize;
    let r2 = (mask64(4 * W) / (2 * mask64(2 * W))).min(1 << 20) as usize;
    let zero = _mm256_setzero_si256();
    let mut lanes = zero;
    let mut acc2 = zero;
    let mut flushes = 0;
    let mut s = 0;
    while s < steps {
        let end = (s + r1).min(steps);
        let mut acc1 = zero;
        while s < end {
            let at = first + 4 * kw * s;
            let v = _mm256_shuffle_epi8(load2(bytes, at, at + 2 * kw), shuf);
            let t = _mm256_and_si256(v, odd);
            let pairs = _mm256_add_epi64(_mm256_sub_epi64(v, t), _mm256_srl_epi64(t, count(W)));
            acc1 = _mm256_add_epi64(acc1, pairs);
            s += 1;
        }
        let quads = _mm256_add_epi64(
            _mm256_and_si256(acc1, m4),
            _mm256_and_si256(_mm256_srl_epi64(acc1, count(2 * W)), m4),
        );
        acc2 = _mm256_add_epi64(acc2, quads);
        flushes += 1;
        if flushes == r2 {
            lanes = _mm256_add_epi64(lanes, hsum_lanes(acc2, 4 * W));
            acc2 = zero;
            flushes = 0;
        }
    }
    lanes = _mm256_add_epi64(lanes, hsum_lanes(acc2, 4 * W));
    total += hsum4(lanes);
    let done = head + steps * per_step;
    total + scalar::sum::<W>(words, offset + done, n - done)
}

// ---------------------------------------------------------------------------
// table decode to 4-byte outputs
// ---------------------------------------------------------------------------

/// Decodes `W`-bit codes (`W` in `1..=4`) through a table of 4-byte values
/// held in registers: the 8 codes of a group (`W <= 4` bytes) are broadcast
/// to all dwords and shifted into place with `vpsrlvd`, then `vpermd` looks
/// them up (it reads only the low 3 index bits, so the table is repeated to
/// 8 entries for `W < 3`; for `W == 4` two lookups are blended on bit 3).
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn decode_perm_avx2<const W: u32>(
    words: &[u64],
    offset: usize,
    table: &[u32],
    dst: &mut [u32],
) {
    let n = dst.len();
    let head = head8(offset, n);
    let tmask = (1usize << W) - 1;
    let unpack = |w: &[u64], o: usize, d: &mut [u8]| scalar::unpack::<W, u8>(w, o, d);
    scalar::decode_chunks(unpack, words, offset, table, &mut dst[..head]);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let out: &mut [u8] = bytemuck::cast_slice_mut(dst);
    let mut lo = [0u32; 8];
    let mut hi = [0u32; 8];
    for k in 0..8 {
        lo[k] = table[k & tmask];
        hi[k] = table[(8 + k) & tmask];
    }
    let (lo, hi) = (v256_u32(lo), v256_u32(hi));
    let w = W as usize;
    let shifts = v256_u32(core::array::from_fn(|j| j as u32 * W));
    let mut i = head;
    let mut at = (offset + head) / 8 * w;
    while i + 8 <= n && at + 4 <= bytes.len() {
        let g = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let idx = _mm256_srlv_epi32(_mm256_set1_epi32(g as i32), shifts);
        let mut r = _mm256_permutevar8x32_epi32(lo, idx);
        if W == 4 {
            let r1 = _mm256_permutevar8x32_epi32(hi, idx);
            let sel = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(idx));
            r = _mm256_castps_si256(_mm256_blendv_ps(
                _mm256_castsi256_ps(r),
                _mm256_castsi256_ps(r1),
                sel,
            ));
        }
        store32(out, 4 * i, r);
        i += 8;
        at += w;
    }
    scalar::decode_chunks(unpack, words, offset + i, table, &mut dst[i..]);
}

/// Decodes `W`-bit codes (`W` in `5..=8`) through a table of 4-byte values
/// with `vpgatherdd`: codes are unpacked to dwords as in
/// [`unpack_u32_avx2`], then gathered 8 at a time.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn decode_gather_avx2<const W: u32>(
    words: &[u64],
    offset: usize,
    table: &[u32],
    dst: &mut [u32],
) {
    let n = dst.len();
    let head = head8(offset, n);
    let unpack = |w: &[u64], o: usize, d: &mut [u8]| scalar::unpack::<W, u8>(w, o, d);
    scalar::decode_chunks(unpack, words, offset, table, &mut dst[..head]);
    let table = &table[..1 << W];
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let out: &mut [u8] = bytemuck::cast_slice_mut(dst);
    let w = W as usize;
    let (c0, _, sh) = unpack_u32_consts(W);
    let (c0, sh) = (v256(c0), v256_u32(sh));
    let mask = _mm256_set1_epi32(mask64(W) as i32);
    let (hi_off, _) = u32_window(W, 1);
    let mut i = head;
    let mut at = (offset + head) / 8 * w;
    while i + 8 <= n && at + hi_off + 16 <= bytes.len() {
        let v = load2(bytes, at, at + hi_off);
        let idx = _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(v, c0), sh), mask);
        // SAFETY: every index is masked to `W` bits, so each gathered element
        // `table[idx]` (scale 4 bytes) lies inside `table`, which has exactly
        // `2^W` entries; AVX2 is enabled in this function.
        let r = unsafe { _mm256_i32gather_epi32::<4>(table.as_ptr().cast(), idx) };
        store32(out, 4 * i, r);
        i += 8;
        at += w;
    }
    scalar::decode_chunks(unpack, words, offset + i, table, &mut dst[i..]);
}

// ---------------------------------------------------------------------------
// encode map
// ---------------------------------------------------------------------------

/// `codes[i] = f(src[i])`, compiled with AVX2 enabled so that a branch-free
/// `f` is vectorized 8 values at a time.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn map_codes_avx2<S: Copy, F: Fn(S) -> u8>(f: &F, src: &[S], codes: &mut [u8]) {
    scalar::map_codes(f, src, codes)
}

// ---------------------------------------------------------------------------
// tables
// ---------------------------------------------------------------------------

type UnpackX<U> = unsafe fn(&[u64], usize, &mut [U]);
type PackX<U> = unsafe fn(&[U], &mut [u64], usize);
type SumX = unsafe fn(&[u64], usize, usize) -> u128;
type DecodeX = unsafe fn(&[u64], usize, &[u32], &mut [u32]);

pub(crate) static UNPACK_U8: XTable<UnpackX<u8>, 8> = xtable!(8;
    [AVX2 unpack_u8_avx2, BMI2 unpack_u8_bmi2] for 1 2 3 4 5 6 7;
);
pub(crate) static UNPACK_U16: XTable<UnpackX<u16>, 16> = XTable([[None; 2]; 16]);
pub(crate) static UNPACK_U32: XTable<UnpackX<u32>, 32> = xtable!(32;
    [AVX2 unpack_u32_avx2] for 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24
        25 26 27 28 29 30 31;
);
pub(crate) static UNPACK_U64: XTable<UnpackX<u64>, 64> = XTable([[None; 2]; 64]);
pub(crate) static UNPACK_U128: XTable<UnpackX<u128>, 128> = XTable([[None; 2]; 128]);

pub(crate) static PACK_U8: XTable<PackX<u8>, 8> = xtable!(8;
    [AVX2 pack_u8_avx2, BMI2 pack_u8_bmi2] for 1 2 3 4 5 6 7;
);
pub(crate) static PACK_U16: XTable<PackX<u16>, 16> = XTable([[None; 2]; 16]);
pub(crate) static PACK_U32: XTable<PackX<u32>, 32> = xtable!(32;
    [AVX2 pack_u32_avx2] for 1 2 3 4 5 6 7;
);
pub(crate) static PACK_U64: XTable<PackX<u64>, 64> = XTable([[None; 2]; 64]);
pub(crate) static PACK_U128: XTable<PackX<u128>, 128> = XTable([[None; 2]; 128]);

pub(crate) static SUM: XTable<SumX, 64> = xtable!(64;
    [POPCNT sum_popcnt] for 1;
    [AVX2 sum_bytes_avx2] for 2 4 8;
    [AVX2 sum_fold_avx2] for 3 5 6 7;
);

pub(crate) static DECODE_X32: XTable<DecodeX, 16> = xtable!(16;
    [AVX2 decode_perm_avx2] for 1 2 3 4;
    [AVX2 decode_gather_avx2] for 5 6 7 8;
);
