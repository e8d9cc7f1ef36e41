//! AVX-512 variants of unpack (to `u8` and `u32`) and sum.
//!
//! The sums of 1-bit values need AVX-512 F and VPOPCNTDQ, those of 2-, 4-
//! and 8-bit values F and BW; the others need AVX-512 F, BW and VBMI: `vpermb` (`_mm512_permutexvar_epi8`)
//! moves any byte of a 64-byte load to any byte of the result, so a step
//! needs no alignment trick to give each lane its group (the AVX2 variants
//! place their loads so that `pshufb`, confined to 128-bit halves, reaches
//! the bytes), and `vpmultishiftqb` (`_mm512_multishift_epi64_epi8`) cuts
//! eight 8-bit fields at any bit offsets out of each 64-bit lane.
//!
//! As in the AVX2 variants, the byte-aligned middle of a call is done here
//! and the head and the tail by the portable kernel; every step's extent is
//! asserted once before the loop.

use core::arch::x86_64::*;

use super::{count, head8, steps_within};
use crate::kernels::scalar::{self, mask64, rep_mask};

/// 64 bytes at `at`.
///
/// # Safety
///
/// `at + 64 <= bytes.len()`, and the CPU supports AVX-512 F.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn load64(bytes: &[u8], at: usize) -> __m512i {
    debug_assert!(at + 64 <= bytes.len());
    // SAFETY: the caller guarantees `at + 64 <= bytes.len()`, so the 64
    // bytes read are inside `bytes`; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(bytes.as_ptr().wrapping_add(at).cast()) }
}

/// Stores 64 bytes at `at`.
///
/// # Safety
///
/// `at + 64 <= bytes.len()`, and the CPU supports AVX-512 F.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn store64(bytes: &mut [u8], at: usize, v: __m512i) {
    debug_assert!(at + 64 <= bytes.len());
    // SAFETY: the caller guarantees `at + 64 <= bytes.len()`; `storeu` has
    // no alignment requirement.
    unsafe { _mm512_storeu_si512(bytes.as_mut_ptr().wrapping_add(at).cast(), v) }
}

/// A vector from eight 64-bit lanes, lane 0 first.
#[target_feature(enable = "avx512f")]
#[inline]
fn v512_u64(q: [u64; 8]) -> __m512i {
    let q = q.map(|x| x as i64);
    _mm512_set_epi64(q[7], q[6], q[5], q[4], q[3], q[2], q[1], q[0])
}

/// A vector from 64 bytes.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn v512(b: [u8; 64]) -> __m512i {
    v512_u64(bytemuck::cast(b))
}

/// A vector from 16 `u32` lanes.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn v512_u32(d: [u32; 16]) -> __m512i {
    v512_u64(bytemuck::cast(d))
}

/// The low bytes of four vectors of 16 `u32` lanes (each lane at most
/// 255), 64 bytes in element order: two `vpackusdw`, one `vpackuswb`, and
/// one `vpermd` that undoes the packs' 128-bit interleave (after them,
/// 32-bit lane `4L + j` holds elements `4L..4L + 4` of input `j`).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(super) fn narrow_u32x64(a0: __m512i, a1: __m512i, a2: __m512i, a3: __m512i) -> __m512i {
    let order = v512_u32([0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]);
    let p01 = _mm512_packus_epi32(a0, a1);
    let p23 = _mm512_packus_epi32(a2, a3);
    _mm512_permutexvar_epi32(order, _mm512_packus_epi16(p01, p23))
}

/// A vector with `x` in every 64-bit lane.
#[target_feature(enable = "avx512f")]
#[inline]
fn splat64(x: u64) -> __m512i {
    _mm512_set1_epi64(x as i64)
}

// ---------------------------------------------------------------------------
// unpack to u8, W in 1..=7
// ---------------------------------------------------------------------------

/// `vpermb` control for [`unpack_u8_avx512`]: qword `g` receives the 8 bytes
/// from byte `gW` of the load (its 8-element group at bit 0, the rest
/// ignored).
const fn unpack_u8_perm(w: u32) -> [u8; 64] {
    let mut c = [0u8; 64];
    let mut g = 0;
    while g < 8 {
        let mut t = 0;
        while t < 8 {
            c[8 * g + t] = (g * w as usize + t) as u8;
            t += 1;
        }
        g += 1;
    }
    c
}

/// `vpmultishiftqb` control: byte `j` of each qword takes the 8 bits from
/// bit `jW`, element `j` of the group in its low `W` bits.
const fn unpack_u8_shifts(w: u32) -> [u8; 64] {
    let mut c = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        c[i] = ((i % 8) * w as usize) as u8;
        i += 1;
    }
    c
}

/// Unpacks `W`-bit elements (`W` in `1..=7`) to bytes, 64 per step: one
/// 64-byte load holds the step's eight 8-element groups (`8W` bytes),
/// `vpermb` gives each 64-bit lane its group, `vpmultishiftqb` moves each
/// element to its own byte, a mask keeps `W` bits: one load, two shuffles,
/// one `and` and one store per 64 elements.
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn unpack_u8_avx512<const W: u32>(words: &[u64], offset: usize, dst: &mut [u8]) {
    let n = dst.len();
    let head = head8(offset, n);
    scalar::unpack::<W, u8>(words, offset, &mut dst[..head]);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let w = W as usize;
    let first = (offset + head) / 8 * w;
    let steps = steps_within(first, 8 * w, 64, bytes.len(), (n - head) / 64);
    assert!(steps == 0 || first + (steps - 1) * 8 * w + 64 <= bytes.len());
    assert!(head + 64 * steps <= n);
    let perm = v512(unpack_u8_perm(W));
    let shifts = v512(unpack_u8_shifts(W));
    let mask = _mm512_set1_epi8(mask64(W) as i8);
    for s in 0..steps {
        // SAFETY: `s < steps`, so `first + 8ws + 64 <= bytes.len()` by the
        // assertion above.
        let v = unsafe { load64(bytes, first + 8 * w * s) };
        let v = _mm512_permutexvar_epi8(perm, v);
        let v = _mm512_and_si512(_mm512_multishift_epi64_epi8(shifts, v), mask);
        // SAFETY: `head + 64 * steps <= dst.len()` was asserted above.
        unsafe { store64(dst, head + 64 * s, v) };
    }
    let i = head + 64 * steps;
    scalar::unpack::<W, u8>(words, offset + i, &mut dst[i..]);
}

// ---------------------------------------------------------------------------
// unpack to u32, W in 1..=31
// ---------------------------------------------------------------------------

/// `vpermb` controls and shifts for [`unpack_u32_avx512`]: dword `j` (of 16,
/// two 8-element groups, `2W` bytes from the load's start) gathers bytes
/// `k..k + 4` of the load, `k` the byte of element `j`'s first bit, and then
/// shifts right by the bit's place in that byte; for `W > 25` an element can
/// reach byte `k + 4`, which the second control brings to the dword's low
/// byte (its other bytes land above the element and are masked off).
const fn unpack_u32_consts(w: u32) -> ([u8; 64], [u8; 64], [u32; 16]) {
    let mut c0 = [0u8; 64];
    let mut c1 = [0u8; 64];
    let mut sh = [0u32; 16];
    let mut j = 0;
    while j < 16 {
        let bit = j * w as usize;
        let (b, s) = (bit / 8, bit % 8);
        let mut t = 0;
        while t < 4 {
            // `b + 4 + t <= 15 * 31 / 8 + 7 = 65`: wrap (bytes above the
            // element's are masked off).
            c0[4 * j + t] = ((b + t) % 64) as u8;
            c1[4 * j + t] = ((b + 4 + t) % 64) as u8;
            t += 1;
        }
        sh[j] = s as u32;
        j += 1;
    }
    (c0, c1, sh)
}

/// Unpacks `W`-bit elements (`W` in `1..=31`) to `u32`, 16 per step: one
/// 64-byte load holds the step's two groups (`2W` bytes), `vpermb` gathers
/// each element's 4 bytes into its dword, `vpsrlvd` shifts each dword by its
/// own amount and a mask keeps `W` bits (for `W > 25` a second `vpermb` and
/// `vpsllvd` bring in the fifth byte).
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn unpack_u32_avx512<const W: u32>(
    words: &[u64],
    offset: usize,
    dst: &mut [u32],
) {
    let n = dst.len();
    let head = head8(offset, n);
    scalar::unpack::<W, u32>(words, offset, &mut dst[..head]);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let out: &mut [u8] = bytemuck::cast_slice_mut(dst);
    let w = W as usize;
    let (c0, c1, sh) = unpack_u32_consts(W);
    let (c0, c1, sh) = (v512(c0), v512(c1), v512_u32(sh));
    let sh_hi = _mm512_sub_epi32(_mm512_set1_epi32(32), sh);
    let mask = _mm512_set1_epi32(mask64(W) as i32);
    let first = (offset + head) / 8 * w;
    let steps = steps_within(first, 2 * w, 64, bytes.len(), (n - head) / 16);
    assert!(steps == 0 || first + (steps - 1) * 2 * w + 64 <= bytes.len());
    assert!(4 * (head + 16 * steps) <= out.len());
    for s in 0..steps {
        // SAFETY: `s < steps`, so `first + 2ws + 64 <= bytes.len()`
        // (asserted above).
        let v = unsafe { load64(bytes, first + 2 * w * s) };
        let mut r = _mm512_srlv_epi32(_mm512_permutexvar_epi8(c0, v), sh);
        if W > 25 {
            let hi = _mm512_sllv_epi32(_mm512_permutexvar_epi8(c1, v), sh_hi);
            r = _mm512_or_si512(r, hi);
        }
        let r = _mm512_and_si512(r, mask);
        // SAFETY: step `s`'s output bytes end at most at
        // `4 * (head + 16 * steps) <= out.len()` (asserted).
        unsafe { store64(out, 4 * (head + 16 * s), r) };
    }
    let i = head + 16 * steps;
    scalar::unpack::<W, u32>(words, offset + i, &mut dst[i..]);
}

// ---------------------------------------------------------------------------
// sum, W in {3, 5, 6, 7}
// ---------------------------------------------------------------------------

/// Groups of 8 elements (`W` bytes) per 64-bit lane in [`sum_fold_avx512`].
const fn groups_per_lane(w: u32) -> usize {
    (8 / w) as usize
}

/// `vpermb` control for [`sum_fold_avx512`]: qword `q` receives the `KW`
/// bytes from byte `qKW` of the load (`K = 8 / W` whole groups) at its
/// bottom; the byte mask returned beside it zeroes the rest.
const fn sum_perm(w: u32) -> ([u8; 64], u64) {
    let kw = groups_per_lane(w) * w as usize;
    let mut c = [0u8; 64];
    let mut keep = 0u64;
    let mut q = 0;
    while q < 8 {
        let mut t = 0;
        while t < kw {
            c[8 * q + t] = (q * kw + t) as u8;
            keep |= 1 << (8 * q + t);
            t += 1;
        }
        q += 1;
    }
    (c, keep)
}

/// Sum of the `s`-bit slots of each 64-bit lane (see `scalar::hsum`).
#[target_feature(enable = "avx512f")]
#[inline]
fn hsum_lanes(mut x: __m512i, mut s: u32) -> __m512i {
    while s < 64 {
        let m = splat64(rep_mask(s, 2 * s));
        x = _mm512_add_epi64(
            _mm512_and_si512(x, m),
            _mm512_and_si512(_mm512_srl_epi64(x, count(s)), m),
        );
        s *= 2;
    }
    x
}

/// Sum of `W`-bit elements for `W` in {3, 5, 6, 7} by in-word digit
/// folding, as `sum_fold_avx2` does it, on eight 64-bit lanes: a zero-masking
/// `vpermb` gives each lane `K = 8 / W` whole groups at its bottom (`64K`
/// elements per step from one 64-byte load), a step adds the lanes and their
/// odd fields into two accumulators, and every `2^W + 1` steps the even
/// fields (`all - odd`, exact modulo `2^64`) and the odd ones are folded
/// into `4W`-bit slots of a third, reduced to 64-bit lanes before it could
/// overflow.
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn sum_fold_avx512<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    let head = head8(offset, n);
    let mut total = scalar::sum::<W>(words, offset, head);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let w = W as usize;
    let kw = groups_per_lane(W) * w;
    let per_step = 64 * groups_per_lane(W);
    let first = (offset + head) / 8 * w;
    let steps = steps_within(first, 8 * kw, 64, bytes.len(), (n - head) / per_step);
    assert!(steps == 0 || first + (steps - 1) * 8 * kw + 64 <= bytes.len());
    let (perm, keep) = sum_perm(W);
    let perm = v512(perm);
    let odd = splat64(rep_mask(W, 2 * W) << W & mask64(8 * kw as u32));
    let m4 = splat64(rep_mask(2 * W, 4 * W));
    // As in `sum_fold_avx2`: steps per combine (a `2W`-bit slot of either
    // parity gains at most `2^W - 1` a step) and combines per reduction of
    // the `4W`-bit slots (each gains at most `4 (2^(2W) - 1)` a combine).
    let r1 = (mask64(2 * W) / mask64(W)) as usize;
    let r2 = (mask64(4 * W) / (4 * mask64(2 * W))).min(1 << 20) as usize;
    let zero = _mm512_setzero_si512();
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
            let v = unsafe { load64(bytes, first + 8 * kw * s) };
            let v = _mm512_maskz_permutexvar_epi8(keep, perm, v);
            all = _mm512_add_epi64(all, v);
            odds = _mm512_add_epi64(odds, _mm512_and_si512(v, odd));
            s += 1;
        }
        let evens = _mm512_sub_epi64(all, odds);
        let odds = _mm512_srl_epi64(odds, count(W));
        let fold = |x: __m512i| {
            _mm512_add_epi64(
                _mm512_and_si512(x, m4),
                _mm512_and_si512(_mm512_srl_epi64(x, count(2 * W)), m4),
            )
        };
        acc2 = _mm512_add_epi64(acc2, _mm512_add_epi64(fold(evens), fold(odds)));
        combines += 1;
        if combines == r2 {
            lanes = _mm512_add_epi64(lanes, hsum_lanes(acc2, 4 * W));
            acc2 = zero;
            combines = 0;
        }
    }
    lanes = _mm512_add_epi64(lanes, hsum_lanes(acc2, 4 * W));
    total += lanes_sum(lanes);
    let done = head + steps * per_step;
    total + scalar::sum::<W>(words, offset + done, n - done)
}

// ---------------------------------------------------------------------------
// sum, W in {1, 2, 4, 8}
// ---------------------------------------------------------------------------

/// A sum of `n` values of `W` bits from `offset` whose byte-aligned middle
/// `middle(bytes, first, steps)` adds in `steps` 64-byte steps from byte
/// `first` (`512 / W` values each; `first + 64 * steps <= bytes.len()`,
/// asserted here); the head and the tail go to the portable sum.
#[inline(always)]
fn sum_by_steps64<const W: u32>(
    words: &[u64],
    offset: usize,
    n: usize,
    middle: impl FnOnce(&[u8], usize, usize) -> u128,
) -> u128 {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let per_step = 512 / W as usize;
    let head = head8(offset, n);
    let first = (offset + head) * W as usize / 8;
    let steps = steps_within(first, 64, 64, bytes.len(), (n - head) / per_step);
    assert!(steps == 0 || first + 64 * steps <= bytes.len());
    let done = head + steps * per_step;
    scalar::sum::<W>(words, offset, head)
        + middle(bytes, first, steps)
        + scalar::sum::<W>(words, offset + done, n - done)
}

/// Sum of one-bit elements: `vpopcntq` counts each 64-bit lane of a 64-byte
/// load and the counts accumulate in 64-bit lanes.
///
/// # Safety
///
/// The CPU must support AVX-512 F and VPOPCNTDQ.
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
pub(crate) unsafe fn sum_popcnt_avx512<const W: u32>(
    words: &[u64],
    offset: usize,
    n: usize,
) -> u128 {
    sum_by_steps64::<W>(words, offset, n, |bytes, first, steps| {
        let mut acc = _mm512_setzero_si512();
        for s in 0..steps {
            // SAFETY: `s < steps`, so `first + 64 s + 64 <= bytes.len()`
            // (asserted by `sum_by_steps64`).
            let v = unsafe { load64(bytes, first + 64 * s) };
            acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(v));
        }
        lanes_sum(acc)
    })
}

/// Sum of the eight 64-bit lanes.
#[target_feature(enable = "avx512f")]
#[inline]
fn lanes_sum(v: __m512i) -> u128 {
    let halves: [[u64; 4]; 2] = [
        bytemuck::cast(_mm512_castsi512_si256(v)),
        bytemuck::cast(_mm512_extracti64x4_epi64::<1>(v)),
    ];
    halves.as_flattened().iter().map(|&x| x as u128).sum()
}

/// Sum of `W`-bit elements for `W` in {2, 4, 8}, as `sum_bytes_avx2` does
/// it on 64-byte loads: each byte's field sum is two `vpshufb` lookups of
/// its nibbles' field sums (`W == 2`) or the sum of its nibbles (`W == 4`),
/// byte sums accumulate in 8-bit lanes for as many steps as cannot
/// overflow, and `vpsadbw` adds each 8 bytes into a 64-bit lane.
///
/// # Safety
///
/// The CPU must support AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn sum_bytes_avx512<const W: u32>(
    words: &[u64],
    offset: usize,
    n: usize,
) -> u128 {
    sum_by_steps64::<W>(words, offset, n, |bytes, first, steps| {
        let w = W as usize;
        // Largest byte sum one step adds, and how many steps a byte holds.
        let per_byte: usize = if W == 8 {
            255
        } else {
            (8 / w) * ((1 << w) - 1)
        };
        let batch = (255 / per_byte).max(1);
        let m4 = _mm512_set1_epi8(0x0f);
        // Field sums of a nibble: 2 two-bit fields.
        let lut = v512(core::array::from_fn(|i| {
            let n = (i % 16) as u8;
            (n & 3) + (n >> 2)
        }));
        let zero = _mm512_setzero_si512();
        let mut acc = zero;
        let mut s = 0;
        while s < steps {
            let end = (s + batch).min(steps);
            let mut bsum = zero;
            while s < end {
                // SAFETY: `s < steps`, so `first + 64 s + 64 <= bytes.len()`
                // (asserted by `sum_by_steps64`).
                let mut v = unsafe { load64(bytes, first + 64 * s) };
                let lo = _mm512_and_si512(v, m4);
                let hi = _mm512_and_si512(_mm512_srli_epi16::<4>(v), m4);
                if W == 2 {
                    v = _mm512_add_epi8(_mm512_shuffle_epi8(lut, lo), _mm512_shuffle_epi8(lut, hi));
                } else if W == 4 {
                    v = _mm512_add_epi8(lo, hi);
                }
                if W == 8 {
                    acc = _mm512_add_epi64(acc, _mm512_sad_epu8(v, zero));
                } else {
                    bsum = _mm512_add_epi8(bsum, v);
                }
                s += 1;
            }
            if W != 8 {
                acc = _mm512_add_epi64(acc, _mm512_sad_epu8(bsum, zero));
            }
        }
        lanes_sum(acc)
    })
}
