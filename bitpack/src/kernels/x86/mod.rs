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
use core::sync::atomic::{AtomicU32, Ordering};

mod pack;

use pack::{pack_u8_avx512, pack_u32_avx512, pack_u32_wide_avx2, pack_u32_wide_avx512};

use super::aligned;
use super::dispatch::Table;
use super::bits::{head8, per_word, steps_within, write_le};
use super::scalar::{self, ld, mask64, rep_mask};
use crate::float::elem::NanCodes;
use crate::Unsigned;

mod avx512;
mod float512;
use avx512::{
    sum_bytes_avx512, sum_fold_avx512, sum_popcnt_avx512, unpack_u8_avx512, unpack_u32_avx512,
};
use float512::decode_perm_avx512;
pub(crate) use float512::{decode_f16c_avx512, encode_f32_avx512, encode4_f32_avx512};

// ---------------------------------------------------------------------------
// feature detection
// ---------------------------------------------------------------------------

/// `avx2` detected.
pub(crate) const AVX2: u32 = 1;
/// `bmi2` detected.
pub(crate) const BMI2: u32 = 2;
/// `popcnt` detected.
pub(crate) const POPCNT: u32 = 4;
/// `f16c` detected.
pub(crate) const F16C: u32 = 8;
/// `avx512f` detected.
pub(crate) const AVX512F: u32 = 16;
/// `avx512bw` detected.
pub(crate) const AVX512BW: u32 = 32;
/// `avx512vbmi` detected.
pub(crate) const AVX512VBMI: u32 = 64;
/// `avx512vbmi2` detected.
pub(crate) const AVX512VBMI2: u32 = 128;
/// `avx512vpopcntdq` detected.
pub(crate) const AVX512VPOPCNTDQ: u32 = 256;
/// `avx2` and `bmi2` detected.
pub(crate) const AVX2_BMI2: u32 = AVX2 | BMI2;
/// `avx2` and `f16c` detected.
pub(crate) const AVX2_F16C: u32 = AVX2 | F16C;
/// AVX-512 F, BW and VBMI detected (`vpermb`, `vpmultishiftqb`).
pub(crate) const AVX512_VBMI: u32 = AVX512F | AVX512BW | AVX512VBMI;
/// AVX-512 F and BW detected (512-bit `vpshufb`, `vpsadbw`).
pub(crate) const AVX512_BW: u32 = AVX512F | AVX512BW;
/// AVX-512 F and VPOPCNTDQ detected (`vpopcntq`).
pub(crate) const AVX512_POPCNT: u32 = AVX512F | AVX512VPOPCNTDQ;
/// Detection has run.
const DETECTED: u32 = 1 << 31;

static FEATURES: AtomicU32 = AtomicU32::new(0);
static LIMIT: AtomicU32 = AtomicU32::new(u32::MAX);

/// The detected CPU features (bit set of [`AVX2`], [`BMI2`], [`POPCNT`],
/// [`F16C`] and the AVX-512 bits), detected once with
/// `is_x86_feature_detected!` and cached.
#[inline]
pub(crate) fn features() -> u32 {
    let f = FEATURES.load(Ordering::Relaxed);
    let f = if f & DETECTED != 0 { f } else { detect() };
    f & LIMIT.load(Ordering::Relaxed)
}

#[cold]
fn detect() -> u32 {
    let mut f = DETECTED;
    for (have, bit) in [
        (std::is_x86_feature_detected!("avx2"), AVX2),
        (std::is_x86_feature_detected!("bmi2"), BMI2),
        (std::is_x86_feature_detected!("popcnt"), POPCNT),
        (std::is_x86_feature_detected!("f16c"), F16C),
        (std::is_x86_feature_detected!("avx512f"), AVX512F),
        (std::is_x86_feature_detected!("avx512bw"), AVX512BW),
        (std::is_x86_feature_detected!("avx512vbmi"), AVX512VBMI),
        (std::is_x86_feature_detected!("avx512vbmi2"), AVX512VBMI2),
        (
            std::is_x86_feature_detected!("avx512vpopcntdq"),
            AVX512VPOPCNTDQ,
        ),
    ] {
        if have {
            f |= bit;
        }
    }
    FEATURES.store(f, Ordering::Relaxed);
    f
}

/// Masks the features the kernels may use (`0` forces the portable kernels,
/// `u32::MAX` restores detection). Not public API: for benchmarks.
pub fn limit_features(mask: u32) {
    LIMIT.store(mask, Ordering::Relaxed);
}

/// The detected features, ignoring [`limit_features`] (tests use it to run
/// every variant the machine has).
#[cfg(test)]
pub(crate) fn detected() -> u32 {
    let f = FEATURES.load(Ordering::Relaxed);
    if f & DETECTED != 0 { f } else { detect() }
}

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------
//
// The loops below compute, before they start, how many steps stay inside the
// slices they read and write, `assert!` the last step's extent once, and then
// load and store through raw pointers without a bounds check per access (the
// checks cost up to a third of the loop: see `BENCHMARKS.md`). Each such
// access is an `unsafe` call to one of the helpers here, whose precondition is
// that extent.

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

/// A shift count for `_mm256_srl_epi64`.
#[inline(always)]
fn count(n: u32) -> __m128i {
    bytemuck::cast([n as u64, 0])
}

/// 16 bytes at `at`.
///
/// # Safety
///
/// `at + 16 <= bytes.len()`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load16(bytes: &[u8], at: usize) -> __m128i {
    debug_assert!(at + 16 <= bytes.len());
    // SAFETY: the caller guarantees `at + 16 <= bytes.len()`, so the 16 bytes
    // read are inside `bytes`; `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(bytes.as_ptr().wrapping_add(at).cast()) }
}

/// 32 bytes at `at`.
///
/// # Safety
///
/// `at + 32 <= bytes.len()`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load32(bytes: &[u8], at: usize) -> __m256i {
    debug_assert!(at + 32 <= bytes.len());
    // SAFETY: the caller guarantees `at + 32 <= bytes.len()`; `loadu` has no
    // alignment requirement.
    unsafe { _mm256_loadu_si256(bytes.as_ptr().wrapping_add(at).cast()) }
}

/// 16 bytes at `lo` in the low 128 bits, 16 bytes at `hi` in the high.
///
/// # Safety
///
/// `lo + 16 <= bytes.len()` and `hi + 16 <= bytes.len()`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load2(bytes: &[u8], lo: usize, hi: usize) -> __m256i {
    // SAFETY: the caller guarantees both 16-byte ranges are inside `bytes`.
    let l = unsafe { load16(bytes, lo) };
    // SAFETY: as above.
    let h = unsafe { load16(bytes, hi) };
    _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(l), h)
}

/// The 16 bytes at `at` in both 128-bit halves (`vbroadcasti128`, a load
/// with no shuffle).
///
/// # Safety
///
/// `at + 16 <= bytes.len()`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn bcast16(bytes: &[u8], at: usize) -> __m256i {
    // SAFETY: the caller guarantees `at + 16 <= bytes.len()`.
    _mm256_broadcastsi128_si256(unsafe { load16(bytes, at) })
}

/// 8 bytes at `at`, little-endian.
///
/// # Safety
///
/// `at + 8 <= bytes.len()`.
#[inline(always)]
unsafe fn read8(bytes: &[u8], at: usize) -> u64 {
    debug_assert!(at + 8 <= bytes.len());
    // SAFETY: the caller guarantees `at + 8 <= bytes.len()`;
    // `read_unaligned` has no alignment requirement.
    u64::from_le(unsafe {
        bytes
            .as_ptr()
            .wrapping_add(at)
            .cast::<u64>()
            .read_unaligned()
    })
}

/// 4 bytes at `at`, little-endian.
///
/// # Safety
///
/// `at + 4 <= bytes.len()`.
#[inline(always)]
unsafe fn read4(bytes: &[u8], at: usize) -> u32 {
    debug_assert!(at + 4 <= bytes.len());
    // SAFETY: the caller guarantees `at + 4 <= bytes.len()`.
    u32::from_le(unsafe {
        bytes
            .as_ptr()
            .wrapping_add(at)
            .cast::<u32>()
            .read_unaligned()
    })
}

/// Writes 32 bytes at `at`.
///
/// # Safety
///
/// `at + 32 <= bytes.len()`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store32(bytes: &mut [u8], at: usize, v: __m256i) {
    debug_assert!(at + 32 <= bytes.len());
    // SAFETY: the caller guarantees `at + 32 <= bytes.len()`; `storeu` has
    // no alignment requirement.
    unsafe { _mm256_storeu_si256(bytes.as_mut_ptr().wrapping_add(at).cast(), v) }
}

/// Writes 16 bytes at `at`.
///
/// # Safety
///
/// `at + 16 <= bytes.len()`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store16(bytes: &mut [u8], at: usize, v: __m128i) {
    debug_assert!(at + 16 <= bytes.len());
    // SAFETY: the caller guarantees `at + 16 <= bytes.len()`.
    unsafe { _mm_storeu_si128(bytes.as_mut_ptr().wrapping_add(at).cast(), v) }
}

// ---------------------------------------------------------------------------
// unpack to u8, W in 1..=7
// ---------------------------------------------------------------------------

/// Where two groups `2W` bytes apart land in one 32-byte load: loading at
/// `at + 2W - 16` puts the group at `at` at byte `16 - 2W` of the low half
/// and the group at `at + 2W` at byte 0 of the high half, so no lane-crossing
/// shuffle (`vinserti128`, or a `vbroadcasti128`, which is one on this core)
/// is needed to give each half its own group.
const fn low_base(two_groups: usize) -> usize {
    16 - two_groups
}

/// Steps to leave to the portable head so that the first 32-byte load,
/// `back` bytes before the first group, starts inside the buffer.
#[inline(always)]
fn skip_steps(first: usize, stride: usize, back: usize) -> usize {
    if first >= back {
        0
    } else {
        (back - first).div_ceil(stride)
    }
}

/// `pshufb` control for [`unpack_u8_avx2`]: 16-bit lane `j` of a half
/// gathers the two bytes holding element `j` of the half's 8-element group
/// (at byte `16 - 2W` of the low half, byte 0 of the high half). An element
/// that starts on a byte boundary takes that byte as the high byte (low byte
/// zero) so that every lane shifts right by 1..=8.
const fn unpack_u8_shuffle(w: u32) -> [u8; 32] {
    let mut c = [0u8; 32];
    let mut h = 0;
    while h < 2 {
        let base = if h == 0 { low_base(2 * w as usize) } else { 0 };
        let mut j = 0;
        while j < 8 {
            let bit = j * w as usize;
            let (b, s) = (base + bit / 8, bit % 8);
            let (lo, hi) = if s == 0 {
                (0x80, b as u8)
            } else {
                (b as u8, b as u8 + 1)
            };
            c[16 * h + 2 * j] = lo;
            c[16 * h + 2 * j + 1] = hi;
            j += 1;
        }
        h += 1;
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

/// `vpmulhuw` as written: through the intrinsic, LLVM turns the multiply
/// (followed by the mask and `vpackuswb` of [`unpack_u8_avx2`]) into
/// zero-extended 32-bit halves, two multiplies, `vpackusdw` and `vpermq`,
/// which measured twice as slow.
///
/// Miri cannot run `asm!`; under Miri the intrinsic stands in for it (the
/// same instruction, the same result), so that Miri checks every memory
/// access of the kernels around it.
#[cfg(not(miri))]
#[target_feature(enable = "avx2")]
#[inline]
fn mulhi_epu16(a: __m256i, b: __m256i) -> __m256i {
    let r: __m256i;
    // SAFETY: the instruction reads the two named vector registers and
    // writes the third, touches no memory, stack or flags, and needs only
    // AVX2, which this function enables.
    unsafe {
        core::arch::asm!(
            "vpmulhuw {r}, {a}, {b}",
            r = lateout(ymm_reg) r,
            a = in(ymm_reg) a,
            b = in(ymm_reg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    r
}

/// `vpmulhuw` through the intrinsic, for Miri (see the other
/// `mulhi_epu16`).
#[cfg(miri)]
#[target_feature(enable = "avx2")]
#[inline]
fn mulhi_epu16(a: __m256i, b: __m256i) -> __m256i {
    _mm256_mulhi_epu16(a, b)
}

/// Unpacks `W`-bit elements (`W` in `1..=7`) to bytes, 32 per step.
///
/// A step's four 8-element groups (`W` bytes each, from byte `at`) come from
/// two 32-byte loads, at `at + 2W - 16` (groups 0 and 2 in the low and high
/// halves) and `at + 3W - 16` (groups 1 and 3); `pshufb` puts each element's
/// two bytes in a 16-bit lane, `vpmulhuw` shifts each lane right by its own
/// amount, a mask keeps `W` bits and `vpackuswb` interleaves the two vectors
/// back into element order: two loads, two `pshufb`, two multiplies, two
/// masks, one pack and one store per 32 elements.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unpack_u8_avx2<const W: u32>(words: &[u64], offset: usize, dst: &mut [u8]) {
    let n = dst.len();
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let w = W as usize;
    let back = low_base(2 * w);
    let aligned = head8(offset, n);
    let g0 = (offset + aligned) / 8 * w;
    let skip = skip_steps(g0, 4 * w, back).min((n - aligned) / 32);
    let head = aligned + 32 * skip;
    scalar::unpack::<W, u8>(words, offset, &mut dst[..head]);
    // A step loads bytes `first + 4ws .. first + 4ws + w + 32`; with too few
    // values to reach a load start inside the buffer, there is no step.
    let (first, steps) = match (g0 + 4 * w * skip).checked_sub(back) {
        Some(f) => (
            f,
            steps_within(f, 4 * w, w + 32, bytes.len(), (n - head) / 32),
        ),
        None => (0, 0),
    };
    assert!(steps == 0 || first + (steps - 1) * 4 * w + w + 32 <= bytes.len());
    assert!(head + 32 * steps <= n);
    let shuf = v256(unpack_u8_shuffle(W));
    let mul = v256_u16(unpack_u8_mul(W));
    let mask = _mm256_set1_epi16(mask64(W) as i16);
    for s in 0..steps {
        let at = first + 4 * w * s;
        // SAFETY: `s < steps`, so `at + w + 32 <= bytes.len()` by the
        // assertion above.
        let a = unsafe { load32(bytes, at) };
        // SAFETY: as above.
        let b = unsafe { load32(bytes, at + w) };
        let a = _mm256_and_si256(mulhi_epu16(_mm256_shuffle_epi8(a, shuf), mul), mask);
        let b = _mm256_and_si256(mulhi_epu16(_mm256_shuffle_epi8(b, shuf), mul), mask);
        let r = _mm256_packus_epi16(a, b);
        // SAFETY: `head + 32 * steps <= dst.len()` was asserted above.
        unsafe { store32(dst, head + 32 * s, r) };
    }
    let i = head + 32 * steps;
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
    let first = (offset + head) / 8 * w;
    let steps = steps_within(first, w, 8, bytes.len(), (n - head) / 8);
    assert!(steps == 0 || first + (steps - 1) * w + 8 <= bytes.len());
    assert!(head + 8 * steps <= n);
    for s in 0..steps {
        // SAFETY: `s < steps`: the read is inside `bytes` and the write
        // inside `dst` by the assertions above.
        let x = unsafe { read8(bytes, first + w * s) };
        let v = _pdep_u64(x, dep);
        // SAFETY: as above.
        unsafe { write_le(dst, head + 8 * s, v) };
    }
    let i = head + 8 * steps;
    scalar::unpack::<W, u8>(words, offset + i, &mut dst[i..]);
}

// ---------------------------------------------------------------------------
// unpack to u32, W in 1..=31
// ---------------------------------------------------------------------------

/// Whether [`unpack_u32_avx2`] reads a whole 8-element group from one
/// 16-byte window broadcast to both halves: element 7's 4 bytes must lie in
/// the window.
const fn unpack_u32_bcast(w: u32) -> bool {
    w <= 14
}

/// Byte where half `h`'s window starts (4 elements per half) and the bit of
/// that byte where its first element starts.
const fn u32_window(w: u32, h: usize) -> (usize, usize) {
    if unpack_u32_bcast(w) {
        (0, 0)
    } else {
        let bit = 4 * h * w as usize;
        (bit / 8, bit % 8)
    }
}

/// `pshufb` controls and shifts for [`unpack_u32_avx2`]: dword `j` of half
/// `h` gathers bytes `k..k + 4` of its window (`k + 4..k + 8` for the second
/// control, used when `W > 25`), `k` the byte of the element's first bit;
/// it then shifts right by the bit's position in that byte.
const fn unpack_u32_consts(w: u32) -> ([u8; 32], [u8; 32], [u32; 8]) {
    let mut c0 = [0x80u8; 32];
    let mut c1 = [0x80u8; 32];
    let mut sh = [0u32; 8];
    let mut h = 0;
    while h < 2 {
        let (_, phase) = u32_window(w, h);
        let first = if unpack_u32_bcast(w) { 4 * h } else { 0 };
        let mut j = 0;
        while j < 4 {
            let bit = phase + (first + j) * w as usize;
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

/// Unpacks `W`-bit elements (`W` in `1..=31`) to `u32`, 8 per step: an
/// 8-element group (`W` bytes) is loaded into both 128-bit halves (one
/// broadcast window for `W <= 14`, else each half's own window), `pshufb`
/// gathers each element's bytes into its dword, `vpsrlvd` shifts each dword
/// by its own amount and a mask keeps `W` bits (for `W > 25` an element can
/// span 5 bytes, so a second gather is shifted left and or-ed in).
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
    let first = (offset + head) / 8 * w;
    let steps = steps_within(first, w, hi_off + 16, bytes.len(), (n - head) / 8);
    assert!(steps == 0 || first + (steps - 1) * w + hi_off + 16 <= bytes.len());
    assert!(4 * (head + 8 * steps) <= out.len());
    for s in 0..steps {
        let at = first + w * s;
        let v = if unpack_u32_bcast(W) {
            // SAFETY: `s < steps`, so `at + 16 <= bytes.len()` (asserted).
            unsafe { bcast16(bytes, at) }
        } else {
            // SAFETY: `s < steps`, so `at + hi_off + 16 <= bytes.len()`.
            unsafe { load2(bytes, at, at + hi_off) }
        };
        let mut r = _mm256_srlv_epi32(_mm256_shuffle_epi8(v, c0), sh);
        if W > 25 {
            r = _mm256_or_si256(r, _mm256_sllv_epi32(_mm256_shuffle_epi8(v, c1), sh_hi));
        }
        let r = _mm256_and_si256(r, mask);
        // SAFETY: the output bytes of step `s` end at most at
        // `4 * (head + 8 * steps) <= out.len()` (asserted).
        unsafe { store32(out, 4 * (head + 8 * s), r) };
    }
    let i = head + 8 * steps;
    scalar::unpack::<W, u32>(words, offset + i, &mut dst[i..]);
}

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

/// Steps of 32 elements of a pack from element `start` (a multiple of 8)
/// whose stores stay inside the bytes that values `start..offset + n` own
/// entirely (the garbage a 16-byte store leaves past `4W` is rewritten by the
/// next step or by the tail).
#[inline(always)]
fn pack_steps(w: u32, start: usize, offset: usize, n: usize, bytes_len: usize) -> usize {
    let wu = w as usize;
    let first = start * wu / 8;
    let end_byte = ((offset + n) * wu / 8).min(bytes_len);
    let by_len = (n - (start - offset)) / 32;
    steps_within(first, 4 * wu, pack_span(w), end_byte, by_len)
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
    let n = src.len();
    let head = head8(offset, n);
    scalar::pack::<W, u8>(&src[..head], words, offset);
    let start = offset + head;
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
    let steps = pack_steps(W, start, offset, n, bytes.len());
    let w = W as usize;
    let first = start / 8 * w;
    assert!(steps == 0 || first + (steps - 1) * 4 * w + pack_span(W) <= bytes.len());
    assert!(head + 32 * steps <= n);
    let keep = _mm256_set1_epi8(mask64(W) as i8);
    for s in 0..steps {
        // SAFETY: `head + 32 * steps <= src.len()` (asserted).
        let v = _mm256_and_si256(unsafe { load32(src, head + 32 * s) }, keep);
        // SAFETY: the step's stores end inside `bytes` (asserted above).
        unsafe { pack_step::<W>(bytes, first + 4 * w * s, v) };
    }
    let i = head + 32 * steps;
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
    let first = start / 8 * w;
    let end_byte = ((offset + n) * w / 8).min(bytes.len());
    let steps = steps_within(first, w, 8, end_byte, (n - head) / 8);
    assert!(steps == 0 || first + (steps - 1) * w + 8 <= bytes.len());
    assert!(head + 8 * steps <= n);
    for s in 0..steps {
        // SAFETY: `head + 8 * steps <= src.len()` (asserted).
        let x = unsafe { read8(src, head + 8 * s) };
        let v = _pext_u64(x, ext);
        // SAFETY: the 8 bytes written end inside `bytes` (asserted).
        unsafe { write_le(bytes, first + w * s, v) };
    }
    let i = head + 8 * steps;
    scalar::pack::<W, u8>(&src[i..], words, offset + i);
}

/// Packs `u32` elements into `W`-bit elements (`W` in `1..=8`): each 32
/// values are masked, narrowed to bytes ([`narrow_32`]) and packed as bytes.
///
/// # Safety
///
/// The CPU must support AVX2 and BMI2.
#[target_feature(enable = "avx2,bmi2")]
pub(crate) unsafe fn pack_u32_avx2<const W: u32>(src: &[u32], words: &mut [u64], offset: usize) {
    let n = src.len();
    let head = head8(offset, n);
    scalar::pack::<W, u32>(&src[..head], words, offset);
    let start = offset + head;
    let sb: &[u8] = bytemuck::cast_slice(src);
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
    let steps = pack_steps(W, start, offset, n, bytes.len());
    let w = W as usize;
    let first = start / 8 * w;
    assert!(steps == 0 || first + (steps - 1) * 4 * w + pack_span(W) <= bytes.len());
    assert!(4 * (head + 32 * steps) <= sb.len());
    let keep = _mm256_set1_epi32(mask64(W) as i32);
    for s in 0..steps {
        let b = 4 * (head + 32 * s);
        // SAFETY: `4 * (head + 32 * steps) <= sb.len()` (asserted), so the
        // four loads of this step are inside `sb`.
        let a0 = _mm256_and_si256(unsafe { load32(sb, b) }, keep);
        // SAFETY: as above.
        let a1 = _mm256_and_si256(unsafe { load32(sb, b + 32) }, keep);
        // SAFETY: as above.
        let a2 = _mm256_and_si256(unsafe { load32(sb, b + 64) }, keep);
        // SAFETY: as above.
        let a3 = _mm256_and_si256(unsafe { load32(sb, b + 96) }, keep);
        let v = narrow_32(a0, a1, a2, a3);
        // SAFETY: the step's stores end inside `bytes` (asserted above).
        unsafe { pack_step::<W>(bytes, first + 4 * w * s, v) };
    }
    let i = head + 32 * steps;
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

/// Sum of `W`-bit elements for `W` in {1, 2, 4, 8}, where no element crosses
/// a byte: each byte's field sum is two `pshufb` lookups of its nibbles'
/// field sums (`W <= 2`; Mula's popcount for one bit) or the sum of its
/// nibbles (`W == 4`); byte sums accumulate in 8-bit lanes for as many steps
/// as cannot overflow, and `vpsadbw` adds each 8 bytes into a 64-bit lane.
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
    let per_step = 256 / w;
    let first = (offset + head) * w / 8;
    let steps = steps_within(first, 32, 32, bytes.len(), (n - head) / per_step);
    assert!(steps == 0 || first + 32 * steps <= bytes.len());
    // Largest byte sum one step adds, and how many steps a byte holds.
    let per_byte: usize = if W == 8 {
        255
    } else {
        (8 / w) * ((1 << w) - 1)
    };
    let batch = (255 / per_byte).max(1);
    let m4 = _mm256_set1_epi8(0x0f);
    // Field sums of a nibble: 4 one-bit fields or 2 two-bit fields.
    let lut = v256(core::array::from_fn(|i| {
        let n = (i % 16) as u8;
        if W == 1 {
            n.count_ones() as u8
        } else {
            (n & 3) + (n >> 2)
        }
    }));
    let zero = _mm256_setzero_si256();
    let mut acc = zero;
    let mut s = 0;
    while s < steps {
        let end = (s + batch).min(steps);
        let mut bsum = zero;
        while s < end {
            // SAFETY: `s < steps`, so `first + 32 * s + 32 <= bytes.len()`
            // (asserted above).
            let mut v = unsafe { load32(bytes, first + 32 * s) };
            if W <= 2 {
                // A nibble's field sum by table (Mula's popcount for one
                // bit): two lookups per byte.
                let lo = _mm256_and_si256(v, m4);
                let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(v), m4);
                v = _mm256_add_epi8(_mm256_shuffle_epi8(lut, lo), _mm256_shuffle_epi8(lut, hi));
            } else if W == 4 {
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
/// `K = 8 / W` consecutive 8-element groups at its bottom (the half's groups
/// start at byte `16 - 2KW` of the low half and byte 0 of the high half, see
/// [`low_base`]); the rest is zero.
const fn sum_shuffle(w: u32) -> [u8; 32] {
    let kw = groups_per_lane(w) * w as usize;
    let mut c = [0x80u8; 32];
    let mut h = 0;
    while h < 2 {
        let base = if h == 0 { low_base(2 * kw) } else { 0 };
        let mut q = 0;
        while q < 2 {
            let mut t = 0;
            while t < kw {
                c[16 * h + 8 * q + t] = (base + q * kw + t) as u8;
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
/// `pshufb` gives each 64-bit lane `K = 8 / W` whole 8-element groups at its
/// bottom (32K elements per step from one 32-byte load), so every lane
/// holds whole fields at bits `0, W, 2W, ...` below bit `8KW`. Then the fold
/// `(v & even) + ((v & odd) >> W)`, which would leave pair sums in `2W`-bit
/// slots, is split across the steps: a step only adds `v` and `v & odd` into
/// two accumulators, and every `2^W + 1` steps, before a `2W`-bit slot of
/// either parity could overflow, the even fields are recovered as `all -
/// odd` (exact modulo `2^64`, and their true sum fits), both parities are
/// folded into `4W`-bit slots of a third accumulator, and that one is reduced
/// to 64-bit lanes before it could overflow. Slots stop below bit `8KW`, so
/// nothing is carried out of a lane. A step is one load, one shuffle, one
/// `and` and two adds for `32K` elements.
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
    // A step: 4 lanes of K groups, `4KW` bytes from byte `at`, loaded as 32
    // bytes from `at + 2KW - 16`.
    let per_step = 32 * groups_per_lane(W);
    let back = low_base(2 * kw);
    let g0 = (offset + head) / 8 * w;
    let skip = skip_steps(g0, 4 * kw, back).min((n - head) / per_step);
    total += scalar::sum::<W>(words, offset + head, per_step * skip);
    let head = head + per_step * skip;
    let (first, steps) = match (g0 + 4 * kw * skip).checked_sub(back) {
        Some(f) => (
            f,
            steps_within(f, 4 * kw, 32, bytes.len(), (n - head) / per_step),
        ),
        None => (0, 0),
    };
    assert!(steps == 0 || first + (steps - 1) * 4 * kw + 32 <= bytes.len());
    let shuf = v256(sum_shuffle(W));
    let fields = mask64(8 * kw as u32);
    let odd = splat64(rep_mask(W, 2 * W) << W & fields);
    let m4 = splat64(rep_mask(2 * W, 4 * W));
    // Steps per combine: a `2W`-bit slot of the even or the odd fields gains
    // at most `2^W - 1` a step. Combines per reduction of the `4W`-bit slots,
    // which gain at most `4 (2^(2W) - 1)` a combine.
    let r1 = (mask64(2 * W) / mask64(W)) as usize;
    let r2 = (mask64(4 * W) / (4 * mask64(2 * W))).min(1 << 20) as usize;
    let zero = _mm256_setzero_si256();
    let mut lanes = zero;
    let mut acc2 = zero;
    let mut combines = 0;
    let mut s = 0;
    while s < steps {
        let end = (s + r1).min(steps);
        let mut all = zero;
        let mut odds = zero;
        while s < end {
            // SAFETY: `s < steps`, so the load ends inside `bytes` (asserted
            // above).
            let v = _mm256_shuffle_epi8(unsafe { load32(bytes, first + 4 * kw * s) }, shuf);
            all = _mm256_add_epi64(all, v);
            odds = _mm256_add_epi64(odds, _mm256_and_si256(v, odd));
            s += 1;
        }
        // `all` may have wrapped, but `all - odds`, the even slots, did not.
        let evens = _mm256_sub_epi64(all, odds);
        let odds = _mm256_srl_epi64(odds, count(W));
        let fold = |x: __m256i| {
            _mm256_add_epi64(
                _mm256_and_si256(x, m4),
                _mm256_and_si256(_mm256_srl_epi64(x, count(2 * W)), m4),
            )
        };
        acc2 = _mm256_add_epi64(acc2, _mm256_add_epi64(fold(evens), fold(odds)));
        combines += 1;
        if combines == r2 {
            lanes = _mm256_add_epi64(lanes, hsum_lanes(acc2, 4 * W));
            acc2 = zero;
            combines = 0;
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
    let lo = v256_u32(core::array::from_fn(|k| table[k & tmask]));
    let hi = v256_u32(core::array::from_fn(|k| table[(8 + k) & tmask]));
    let w = W as usize;
    let shifts = v256_u32(core::array::from_fn(|j| j as u32 * W));
    let first = (offset + head) / 8 * w;
    let steps = steps_within(first, w, 4, bytes.len(), (n - head) / 8);
    assert!(steps == 0 || first + (steps - 1) * w + 4 <= bytes.len());
    assert!(4 * (head + 8 * steps) <= out.len());
    for s in 0..steps {
        // SAFETY: `s < steps`, so the 4 bytes read are inside `bytes`.
        let g = unsafe { read4(bytes, first + w * s) };
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
        // SAFETY: the 32 bytes written end inside `out` (asserted above).
        unsafe { store32(out, 4 * (head + 8 * s), r) };
    }
    let i = head + 8 * steps;
    scalar::decode_chunks(unpack, words, offset + i, table, &mut dst[i..]);
}

/// Decodes unpacked codes of a small float format (one per byte) to `f32`
/// through `binary16`, 16 per step: the code's magnitude bits are shifted
/// into a `binary16` code and its sign into bit 15 (16-bit lanes), NaN codes
/// of an all-ones-NaN format become the `binary16` quiet NaN and IEEE NaNs
/// are made canonical, `vcvtph2ps` converts 8 at a time, and a multiply by
/// `2^(15 - bias)` rescales (exact: a power of two, on normal `f32`s). The
/// format must satisfy `elem::f16_ok`.
///
/// # Safety
///
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(crate) unsafe fn decode_f16c<F: crate::float::MiniFloat>(codes: &[u8], out: &mut [f32]) {
    use crate::float::Specials;
    let (e, m) = const { (F::FORMAT.exponent_bits, F::FORMAT.mantissa_bits) };
    let (bias, specials) = const { (F::FORMAT.bias, F::FORMAT.specials) };
    let n = codes.len().min(out.len());
    let steps = n / 16;
    let mag_mask = _mm256_set1_epi16(((1u32 << (e + m)) - 1) as i16);
    let sign_bit = _mm256_set1_epi16((1u32 << (e + m)) as i16);
    let shift = count(10 - m);
    let sign_shift = count(15 - (e + m));
    let bit14 = _mm256_set1_epi16(0x4000);
    // The binary16 codes (sign clear) of the format's NaN magnitude and of
    // an IEEE format's infinity, the canonical quiet NaN, and the xor that
    // turns the first into the last.
    let nan_h_bits = ((1u32 << (e + m)) - 1) << (10 - m);
    let no_sign = _mm256_set1_epi16(0x7fff);
    let nan_h = _mm256_set1_epi16(nan_h_bits as i16);
    let nan_fix = _mm256_set1_epi16((nan_h_bits ^ 0x7e00) as i16);
    let inf_h = _mm256_set1_epi16(((((1u32 << e) - 1) << m) << (10 - m)) as i16);
    let qnan = _mm256_set1_epi16(0x7e00);
    let scale = _mm256_set1_ps(f32::from_bits(((127 + 15 - bias) as u32) << 23));
    let out_bytes: &mut [u8] = bytemuck::cast_slice_mut(out);
    assert!(16 * steps <= codes.len() && 64 * steps <= out_bytes.len());
    for s in 0..steps {
        // SAFETY: `16 * (s + 1) <= codes.len()` (asserted above).
        let x = _mm256_cvtepu8_epi16(unsafe { load16(codes, 16 * s) });
        let mut h = if e + 10 == 14 {
            // The sign lands on bit 14, one below binary16's: adding bit 14
            // to itself carries it to bit 15 and clears it.
            let y = _mm256_sll_epi16(x, shift);
            _mm256_add_epi16(y, _mm256_and_si256(y, bit14))
        } else {
            let mag = _mm256_and_si256(x, mag_mask);
            let sign = _mm256_sll_epi16(_mm256_and_si256(x, sign_bit), sign_shift);
            _mm256_or_si256(_mm256_sll_epi16(mag, shift), sign)
        };
        match specials {
            Specials::AllOnesNan => {
                // The NaN magnitude's binary16 code becomes the quiet NaN.
                let nan = _mm256_cmpeq_epi16(_mm256_and_si256(h, no_sign), nan_h);
                h = _mm256_xor_si256(h, _mm256_and_si256(nan, nan_fix));
            }
            Specials::Ieee => {
                let nan = _mm256_cmpgt_epi16(_mm256_and_si256(h, no_sign), inf_h);
                let sign = _mm256_andnot_si256(no_sign, h);
                h = _mm256_blendv_epi8(h, _mm256_or_si256(sign, qnan), nan);
            }
            _ => {}
        }
        let lo = _mm256_cvtph_ps(_mm256_castsi256_si128(h));
        let hi = _mm256_cvtph_ps(_mm256_extracti128_si256::<1>(h));
        let (lo, hi) = if bias == 15 {
            (lo, hi)
        } else {
            (_mm256_mul_ps(lo, scale), _mm256_mul_ps(hi, scale))
        };
        let (lo, hi) = (_mm256_castps_si256(lo), _mm256_castps_si256(hi));
        // SAFETY: `64 * (s + 1) <= out_bytes.len()` (asserted above).
        unsafe { store32(out_bytes, 64 * s, lo) };
        // SAFETY: as above.
        unsafe { store32(out_bytes, 64 * s + 32, hi) };
    }
    let done = 16 * steps;
    let tail = |c: u8| crate::float::elem::decode_fast::<F>(c);
    scalar::map_values(&tail, &codes[done..n], &mut out[done..n]);
}

/// The codes of 8 `f32` lanes (bits in `x`) under the format's
/// round-to-nearest-even encode, exact: the integer rounding, subnormal add
/// and selects of `elem::encode_fast`, written with signed 32-bit
/// compares (the compiler turns the element function's compares into
/// unsigned ones, two instructions each in AVX2), and with the overflow as
/// a `vpminsd` clamp where the format's constants allow (see
/// `float512::encode16`).
#[target_feature(enable = "avx2")]
#[inline]
fn encode8<F: crate::float::MiniFloat, const SAT: bool>(x: __m256i) -> __m256i {
    let k = const { crate::float::elem::EncodeConsts::of(&F::FORMAT, SAT) };
    let (shift, sign_shift, max, over_mag) = (k.shift, k.sign_shift, k.max, k.over_mag);
    let (nan_pos, nan_neg) = (k.nan_pos, k.nan_neg);
    let magic = f32::from_bits(k.magic);
    let c_sign = _mm256_set1_epi32(1 << sign_shift);
    let a = _mm256_and_si256(x, _mm256_set1_epi32(0x7fff_ffff));
    let sign = _mm256_and_si256(_mm256_srl_epi32(x, count(31 - sign_shift)), c_sign);
    let lsb = _mm256_and_si256(_mm256_srl_epi32(a, count(shift)), _mm256_set1_epi32(1));
    let r = _mm256_add_epi32(
        a,
        _mm256_add_epi32(_mm256_set1_epi32((1 << (shift - 1)) - 1), lsb),
    );
    let normal = _mm256_sub_epi32(
        _mm256_srl_epi32(r, count(shift)),
        _mm256_set1_epi32(k.rebias),
    );
    let lifted = _mm256_castsi256_ps(_mm256_max_epi32(a, _mm256_set1_epi32(0x0080_0000)));
    let sub = _mm256_sub_epi32(
        _mm256_castps_si256(_mm256_add_ps(lifted, _mm256_set1_ps(magic))),
        _mm256_set1_epi32(magic.to_bits() as i32),
    );
    let small = _mm256_cmpgt_epi32(_mm256_set1_epi32(k.min_normal), a);
    let mag = _mm256_blendv_epi8(normal, sub, small);
    // An overflow magnitude one above the largest finite one or equal to it
    // is a clamp; NaN and infinity inputs reach it too (their exponent field
    // is all ones), so a NaN code with that magnitude needs no select.
    let clamp = k.clamp;
    let mag = if clamp {
        _mm256_min_epi32(mag, _mm256_set1_epi32(over_mag as i32))
    } else {
        let over = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(max as i32));
        _mm256_blendv_epi8(mag, _mm256_set1_epi32(over_mag as i32), over)
    };
    let nan = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7f80_0000));
    let c_nan_pos = _mm256_set1_epi32(nan_pos as i32);
    if k.nan == NanCodes::Signed {
        // The NaN code is the positive one with the sign or-ed in.
        if clamp && nan_pos == over_mag {
            _mm256_or_si256(mag, sign)
        } else {
            _mm256_or_si256(_mm256_blendv_epi8(mag, c_nan_pos, nan), sign)
        }
    } else if k.nan == NanCodes::Same {
        // One NaN code for both signs.
        _mm256_blendv_epi8(_mm256_or_si256(mag, sign), c_nan_pos, nan)
    } else {
        let code = _mm256_or_si256(mag, sign);
        let neg = _mm256_cmpeq_epi32(sign, c_sign);
        let nan_code = _mm256_blendv_epi8(c_nan_pos, _mm256_set1_epi32(nan_neg as i32), neg);
        _mm256_blendv_epi8(code, nan_code, nan)
    }
}

/// Encodes 32 `f32` (bytes `at..at + 128` of `sb`) to 32 code bytes in
/// element order: four [`encode8`] and one narrowing.
///
/// # Safety
///
/// `at + 128 <= sb.len()`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn encode32<F: crate::float::MiniFloat, const SAT: bool>(sb: &[u8], at: usize) -> __m256i {
    // SAFETY: the caller guarantees the 128 bytes; each load reads 32 of
    // them.
    let c0 = encode8::<F, SAT>(unsafe { load32(sb, at) });
    // SAFETY: as above.
    let c1 = encode8::<F, SAT>(unsafe { load32(sb, at + 32) });
    // SAFETY: as above.
    let c2 = encode8::<F, SAT>(unsafe { load32(sb, at + 64) });
    // SAFETY: as above.
    let c3 = encode8::<F, SAT>(unsafe { load32(sb, at + 96) });
    let p01 = _mm256_packus_epi32(c0, c1);
    let p23 = _mm256_packus_epi32(c2, c3);
    let order = v256_u32([0, 4, 1, 5, 2, 6, 3, 7]);
    _mm256_permutevar8x32_epi32(_mm256_packus_epi16(p01, p23), order)
}

/// `codes[i] = float_elem::encode_fast::<F, SAT>(src[i])` (the format's
/// round-to-nearest-even encode, exact), 32 values per step. The format must
/// satisfy `elem::encode_fast_ok`.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn encode_f32_avx2<F: crate::float::MiniFloat, const SAT: bool>(
    src: &[f32],
    codes: &mut [u8],
) {
    let n = src.len().min(codes.len());
    let steps = n / 32;
    let sb: &[u8] = bytemuck::cast_slice(src);
    assert!(128 * steps <= sb.len() && 32 * steps <= codes.len());
    for s in 0..steps {
        // SAFETY: `128 * steps <= sb.len()` (asserted).
        let r = unsafe { encode32::<F, SAT>(sb, 128 * s) };
        // SAFETY: `32 * steps <= codes.len()` (asserted).
        unsafe { store32(codes, 32 * s, r) };
    }
    let done = 32 * steps;
    let tail = |x: f32| crate::float::elem::encode_fast::<F, SAT>(x);
    scalar::map_codes(&tail, &src[done..n], &mut codes[done..n]);
}

/// Encodes `src` to 4-bit codes of `F` packed two per byte (element `2i` in
/// the low nibble of `out[i]`, an odd tail's last nibble alone in a byte
/// whose high nibble is cleared): [`encode32`] and a `vpmaddubsw` merge of
/// nibble pairs, 32 values (16 bytes) per step. `out.len()` must be
/// `ceil(src.len() / 2)`.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn encode4_f32_avx2<F: crate::float::MiniFloat, const SAT: bool>(
    src: &[f32],
    out: &mut [u8],
) {
    let n = src.len();
    let steps = n / 32;
    let sb: &[u8] = bytemuck::cast_slice(src);
    assert!(128 * steps <= sb.len() && 16 * steps <= out.len());
    let pairs = _mm256_set1_epi16(0x1001);
    for s in 0..steps {
        // SAFETY: `128 * steps <= sb.len()` (asserted).
        let c = unsafe { encode32::<F, SAT>(sb, 128 * s) };
        let p = _mm256_maddubs_epi16(c, pairs);
        let b = _mm256_permute4x64_epi64::<0b00_00_10_00>(_mm256_packus_epi16(p, p));
        let b = _mm256_castsi256_si128(b);
        // SAFETY: `16 * steps <= out.len()` (asserted).
        unsafe { store16(out, 16 * s, b) };
    }
    for (i, pair) in src[32 * steps..].chunks(2).enumerate() {
        let lo = crate::float::elem::encode_fast::<F, SAT>(pair[0]) & 0xf;
        let hi = pair
            .get(1)
            .map_or(0, |&x| crate::float::elem::encode_fast::<F, SAT>(x) & 0xf);
        out[16 * steps + i] = lo | hi << 4;
    }
}

// ---------------------------------------------------------------------------
// tables
// ---------------------------------------------------------------------------

type UnpackX<U> = unsafe fn(&[u64], usize, &mut [U]);
type PackX<U> = unsafe fn(&[U], &mut [u64], usize);
type SumX = unsafe fn(&[u64], usize, usize) -> u128;
type DecodeX = unsafe fn(&[u64], usize, &[u32], &mut [u32]);

pub(crate) static UNPACK_U8: Table<UnpackX<u8>, 8> = variants!(8;
    [AVX512_VBMI unpack_u8_avx512, AVX2 unpack_u8_avx2, BMI2 unpack_u8_bmi2] for 1 2 3 4 5 6 7;
);
pub(crate) static UNPACK_U16: Table<UnpackX<u16>, 16> = Table::EMPTY;
pub(crate) static UNPACK_U32: Table<UnpackX<u32>, 32> = variants!(32;
    [AVX512_VBMI unpack_u32_avx512, AVX2 unpack_u32_avx2] for 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
        16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31;
);
pub(crate) static UNPACK_U64: Table<UnpackX<u64>, 64> = Table::EMPTY;
pub(crate) static UNPACK_U128: Table<UnpackX<u128>, 128> = Table::EMPTY;

pub(crate) static PACK_U8: Table<PackX<u8>, 8> = variants!(8;
    [AVX512_VBMI pack_u8_avx512, AVX2_BMI2 pack_u8_avx2, BMI2 pack_u8_bmi2] for 1 2 3 4 5 6 7;
);
pub(crate) static PACK_U16: Table<PackX<u16>, 16> = Table::EMPTY;
pub(crate) static PACK_U32: Table<PackX<u32>, 32> = variants!(32;
    [AVX512_VBMI pack_u32_avx512, AVX2_BMI2 pack_u32_avx2] for 1;
    // Measured: at 2..=8 bits the AVX-512 narrow-and-pack is not faster than
    // the AVX2 one (1.04-1.29x its time in two noisy runs).
    [AVX2_BMI2 pack_u32_avx2, AVX512_VBMI pack_u32_avx512] for 2 3 4 5 6 7 8;
    [AVX512_VBMI pack_u32_wide_avx512, AVX2 pack_u32_wide_avx2] for 9 10 11 12 13 14 15 16 17 18
        19 20 21 22 23 24 25 26 27 28 29 30 31;
);
pub(crate) static PACK_U64: Table<PackX<u64>, 64> = Table::EMPTY;
pub(crate) static PACK_U128: Table<PackX<u128>, 128> = Table::EMPTY;

pub(crate) static SUM: Table<SumX, 64> = variants!(64;
    [AVX512_POPCNT sum_popcnt_avx512, AVX2 sum_bytes_avx2, POPCNT sum_popcnt] for 1;
    [AVX512_BW sum_bytes_avx512, AVX2 sum_bytes_avx2] for 2 4 8;
    [AVX512_VBMI sum_fold_avx512, AVX2 sum_fold_avx2] for 3 5 6 7;
);

pub(crate) static DECODE_X32: Table<DecodeX, 16> = variants!(16;
    [AVX512_VBMI decode_perm_avx512, AVX2 decode_perm_avx2] for 1 2 3 4;
);

/// The float conversions of one format, each a list of variants in order of
/// preference (chosen by `dispatch::first`, as the width tables are); an
/// entry is `None` where the format's rules rule the variant out.
pub(crate) mod float_variants {
    use super::*;
    use crate::float::MiniFloat;
    use crate::float::elem::{encode_fast_ok, f16_ok};
    use crate::kernels::dispatch::Variant;

    /// Codes from `f32`, one per byte.
    pub(crate) type EncodeF = unsafe fn(&[f32], &mut [u8]);
    /// `f32` from codes, one per byte.
    pub(crate) type DecodeF = unsafe fn(&[u8], &mut [f32]);

    /// `encode_fast::<F, SAT>` on a slice, one code per byte.
    pub(crate) fn encode<F: MiniFloat, const SAT: bool>() -> [Option<Variant<EncodeF>>; 2] {
        if !const { encode_fast_ok(&F::FORMAT) } {
            return [None; 2];
        }
        [
            Some((AVX512_BW, "encode_f32_avx512", encode_f32_avx512::<F, SAT>)),
            Some((AVX2, "encode_f32_avx2", encode_f32_avx2::<F, SAT>)),
        ]
    }

    /// As [`encode`], two 4-bit codes per byte.
    pub(crate) fn encode4<F: MiniFloat, const SAT: bool>() -> [Option<Variant<EncodeF>>; 2] {
        if !const { encode_fast_ok(&F::FORMAT) && F::FORMAT.bits() == 4 } {
            return [None; 2];
        }
        [
            Some((AVX512_BW, "encode4_f32_avx512", encode4_f32_avx512::<F, SAT>)),
            Some((AVX2, "encode4_f32_avx2", encode4_f32_avx2::<F, SAT>)),
        ]
    }

    /// `vcvtph2ps` on the codes shifted into `binary16`.
    pub(crate) fn decode<F: MiniFloat>() -> [Option<Variant<DecodeF>>; 2] {
        if !const { f16_ok(&F::FORMAT) } {
            return [None; 2];
        }
        [
            Some((AVX512_BW, "decode_f16c_avx512", decode_f16c_avx512::<F>)),
            Some((AVX2_F16C, "decode_f16c", decode_f16c::<F>)),
        ]
    }
}

#[cfg(all(test, not(miri)))]
mod mulhi_tests {
    use super::*;

    /// The `asm!` form that the kernels run and the intrinsic that stands
    /// in for it under Miri agree lane by lane.
    #[test]
    fn asm_and_intrinsic_mulhi_agree() {
        if !std::is_x86_feature_detected!("avx2") {
            std::eprintln!("skipped: no AVX2");
            return;
        }
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1000 {
            let mut lanes = [0u16; 32];
            for l in &mut lanes {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *l = x as u16;
            }
            let a: __m256i = bytemuck::cast(<[u16; 16]>::try_from(&lanes[..16]).unwrap());
            let b: __m256i = bytemuck::cast(<[u16; 16]>::try_from(&lanes[16..]).unwrap());
            // SAFETY: AVX2, all that `mulhi_epu16` needs, was detected above.
            let asm = unsafe { mulhi_epu16(a, b) };
            // SAFETY: as above.
            let intrinsic = unsafe { _mm256_mulhi_epu16(a, b) };
            let (asm, intrinsic): ([u16; 16], [u16; 16]) =
                (bytemuck::cast(asm), bytemuck::cast(intrinsic));
            assert_eq!(asm, intrinsic, "{lanes:?}");
        }
    }
}
// ---------------------------------------------------------------------------
// the word-aligned layout
// ---------------------------------------------------------------------------

/// The word-aligned `unpack_raw_body` compiled for AVX2.
#[target_feature(enable = "avx2")]
pub(super) fn unpack_aligned_raw_avx2<const W: u32, U: Unsigned>(
    words: &[u64],
    first: usize,
    dst: &mut [U],
) {
    aligned::unpack_raw_body::<W, U>(words, first, dst);
}

/// Word-aligned unpacking to bytes (`W <= 8`) with BMI2: each whole word
/// deposits its values eight at a time into the bytes of a `u64` (`pdep`
/// with `2^W - 1` in every byte), whose low bytes are copied out; the values
/// before the first whole word and after the last one go one at a time.
#[target_feature(enable = "bmi2")]
pub(super) fn unpack_aligned_u8_bmi2<const W: u32>(words: &[u64], first: usize, dst: &mut [u8]) {
    let per = per_word(W);
    let bytes = 0x0101_0101_0101_0101u64 * mask64(W);
    let n = dst.len();
    let head = aligned::head_len(per, first, n);
    let body = (n - head) / per * per;
    let k0 = (first + head) / per;
    aligned::unpack_core(W, words, first, &mut dst[..head], |v| v as u8);
    for (&w, ds) in words[k0..k0 + body / per]
        .iter()
        .zip(dst[head..head + body].chunks_exact_mut(per))
    {
        let x = ld(w);
        for (g, out) in ds.chunks_mut(8).enumerate() {
            let v = _pdep_u64(x >> (8 * W as usize * g), bytes).to_le_bytes();
            out.copy_from_slice(&v[..out.len()]);
        }
    }
    let done = head + body;
    aligned::unpack_core(W, words, first + done, &mut dst[done..], |v| v as u8);
}

/// `f()` compiled with AVX2 (a closure of portable code, inlined into this
/// `#[target_feature]` function, vectorizes with AVX2 instructions).
///
/// # Safety
///
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn run_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `f()`, by its AVX2 build where the features `have` include AVX2 (the
/// reductions' portable loops use this).
///
/// # Safety
///
/// `have` holds no feature bit that [`features`] lacks.
#[inline(always)]
pub(crate) unsafe fn with_avx2_in<R>(have: u32, f: impl FnOnce() -> R) -> R {
    if have & AVX2 != 0 {
        // SAFETY: `run_avx2` needs only `avx2`, which `have` includes and
        // so (the caller's guarantee) `features` detected.
        return unsafe { run_avx2(f) };
    }
    f()
}
