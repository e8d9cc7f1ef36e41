//! NEON variants of the kernels for little-endian `aarch64`.
//!
//! NEON is part of the `aarch64` baseline (every `aarch64-unknown-linux-gnu`
//! CPU has it), so nothing is detected at run time: the variants are plain
//! functions over `core::arch::aarch64`, listed per width in the tables at
//! the end of this file, which `select!` consults. [`limit_features`] still
//! turns them off (`__limit_features(0)` forces the portable kernels, as on
//! `x86_64`).
//!
//! Like the x86 variants, each handles the byte-aligned middle of a call (the
//! first value at a multiple of 8, so groups of 8 values start on a byte)
//! and hands the head and the tail to the portable kernel, bit-exact with
//! it. Only little-endian `aarch64` with NEON compiles this file, so the
//! bytes of the `u64` words are the bytes of the stream.
//!
//! The width kernels and the float conversions (the encode and decode of
//! the small formats, and the widen of `binary16` bits by `fcvtl`, this
//! target's one inline assembly) are in this file; the block kernels of MX
//! and NVFP4 (the one-pass NVFP4 and MX quantizes, the scaled E2M1 decode,
//! and the scaled decode of 8-bit codes through this file's `decode4`) in
//! `block.rs`, as on x86 (where the last is the F16C decode's scaled form,
//! in `float.rs`).
//!
//! The variants are tested value by value against the bit-level reference
//! (`kernels/tests/`, under `qemu-aarch64` in CI); their speed is not
//! measured on the machines that build this crate.

use core::arch::aarch64::*;
use core::sync::atomic::{AtomicU32, Ordering};

mod block;

pub(crate) use block::{
    e2m1_scaled_blocks_neon, mx_blocks_neon, nvfp4_blocks_neon, scaled8_blocks_neon,
};

use super::bits::{head8, steps_within, write_le};
use super::dispatch::Table;
use super::scalar;
use crate::float::elem::{EncodeConsts, NanCodes};
use crate::float::{MiniFloat, Specials};

// ---------------------------------------------------------------------------
// features and tables
// ---------------------------------------------------------------------------

/// NEON allowed (always present on this target).
pub(crate) const NEON: u32 = 1;

static LIMIT: AtomicU32 = AtomicU32::new(u32::MAX);

/// The features the kernels may use: [`NEON`] unless [`limit_features`]
/// masked it.
#[inline]
pub(crate) fn features() -> u32 {
    NEON & LIMIT.load(Ordering::Relaxed)
}

/// Masks the features the kernels may use (`0` forces the portable kernels,
/// `u32::MAX` restores NEON). Not public API: for benchmarks and tests.
pub fn limit_features(mask: u32) {
    LIMIT.store(mask, Ordering::Relaxed);
}

// The variants enable `neon` (`#[target_feature]`), so their pointers are
// `unsafe fn`; NEON being baseline here, calling them needs nothing more.
type UnpackN<U> = unsafe fn(&[u64], usize, &mut [U]);
type PackN<U> = unsafe fn(&[U], &mut [u64], usize);
type SumN = unsafe fn(&[u64], usize, usize) -> u128;
type DecodeN = unsafe fn(&[u64], usize, &[u32], &mut [u32]);

pub(crate) static UNPACK_U8: Table<UnpackN<u8>, 8> = variants!(8;
    [NEON unpack_u8_neon] for 1 2 3 4 5 6 7 8;
);
pub(crate) static UNPACK_U16: Table<UnpackN<u16>, 16> = Table::EMPTY;
pub(crate) static UNPACK_U32: Table<UnpackN<u32>, 32> = variants!(32;
    [NEON unpack_u32_neon] for 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25;
);
pub(crate) static UNPACK_U64: Table<UnpackN<u64>, 64> = Table::EMPTY;
pub(crate) static UNPACK_U128: Table<UnpackN<u128>, 128> = Table::EMPTY;

pub(crate) static PACK_U8: Table<PackN<u8>, 8> = variants!(8;
    [NEON pack_u8_neon] for 1 2 3 4 5 6 7 8;
);
pub(crate) static PACK_U16: Table<PackN<u16>, 16> = Table::EMPTY;
pub(crate) static PACK_U32: Table<PackN<u32>, 32> = variants!(32;
    [NEON pack_u32_neon] for 1 2 3 4 5 6 7 8;
);
pub(crate) static PACK_U64: Table<PackN<u64>, 64> = Table::EMPTY;
pub(crate) static PACK_U128: Table<PackN<u128>, 128> = Table::EMPTY;

pub(crate) static SUM: Table<SumN, 64> = variants!(64;
    [NEON sum_neon] for 1 2 3 4 5 6 7 8;
    [NEON sum_wide_neon] for 16 32 64;
);

pub(crate) static DECODE_X32: Table<DecodeN, 16> = variants!(16;
    [NEON decode_tbl_neon] for 1 2 3 4;
);

/// The float conversions of one format, each a list of variants (chosen by
/// `dispatch::first`, as the width tables are); an entry is `None` where the
/// format's rules rule the variant out.
pub(crate) mod float_variants {
    use super::*;
    use crate::float::elem::{decode_fast_ok, e8m0_ok, encode_fast_ok};
    use crate::kernels::dispatch::Variant;

    /// Codes from `f32`, one per byte.
    pub(crate) type EncodeF = unsafe fn(&[f32], &mut [u8]);
    /// `f32` from codes, one per byte.
    pub(crate) type DecodeF = unsafe fn(&[u8], &mut [f32]);

    /// `encode_fast::<F, SAT>` on a slice, one code per byte.
    pub(crate) fn encode<F: MiniFloat, const SAT: bool>() -> [Option<Variant<EncodeF>>; 1] {
        if !const { encode_fast_ok(&F::FORMAT) } {
            return [None];
        }
        [Some((NEON, "encode_f32_neon", encode_f32_neon::<F, SAT>))]
    }

    /// As [`encode`], two 4-bit codes per byte.
    pub(crate) fn encode4<F: MiniFloat, const SAT: bool>() -> [Option<Variant<EncodeF>>; 1] {
        if !const { encode_fast_ok(&F::FORMAT) && F::FORMAT.bits() == 4 } {
            return [None];
        }
        [Some((NEON, "encode4_f32_neon", encode4_f32_neon::<F, SAT>))]
    }

    /// Codes from `f32` times `2^-e`, rounded stochastically.
    pub(crate) type StochasticF =
        unsafe fn(&[f32], crate::float::elem::StochasticScale<'_>, (u64, u64), &mut [u8]);

    /// None: NEON is in the target's baseline, so the portable loop is
    /// already its NEON build.
    #[allow(
        clippy::extra_unused_type_parameters,
        reason = "the signature of the x86 list"
    )]
    pub(crate) fn stochastic<F: MiniFloat, const SAT: bool>() -> [Option<Variant<StochasticF>>; 0] {
        []
    }

    /// `decode_fast::<F>` on four lanes.
    pub(crate) fn decode<F: MiniFloat>() -> [Option<Variant<DecodeF>>; 1] {
        if !const { decode_fast_ok(&F::FORMAT) && !e8m0_ok(&F::FORMAT) } {
            return [None];
        }
        [Some((NEON, "decode_f32_neon", decode_f32_neon::<F>))]
    }
}

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------
//
// Each loop computes, before it starts, how many steps keep its loads and
// stores inside the slices, asserts the last step's extent once, and then
// reads and writes through the unchecked helpers below, whose precondition
// is that extent.

/// A vector from 16 bytes.
#[inline(always)]
fn v8(b: [u8; 16]) -> uint8x16_t {
    // SAFETY: both types are 16 bytes of plain data; every bit pattern is a
    // valid value of each.
    unsafe { core::mem::transmute::<[u8; 16], uint8x16_t>(b) }
}

/// A vector of signed byte shift counts.
#[inline(always)]
fn s8(b: [i8; 16]) -> int8x16_t {
    // SAFETY: as in `v8`.
    unsafe { core::mem::transmute::<[i8; 16], int8x16_t>(b) }
}

/// 16 bytes at `at`.
///
/// # Safety
///
/// `at + 16 <= bytes.len()`.
#[target_feature(enable = "neon")]
#[inline]
unsafe fn load16(bytes: &[u8], at: usize) -> uint8x16_t {
    debug_assert!(at + 16 <= bytes.len());
    // SAFETY: the caller guarantees the 16 bytes read are inside `bytes`;
    // `vld1q_u8` has no alignment requirement beyond a byte's.
    unsafe { vld1q_u8(bytes.as_ptr().wrapping_add(at)) }
}

/// Stores 16 bytes at `at`.
///
/// # Safety
///
/// `at + 16 <= bytes.len()`.
#[target_feature(enable = "neon")]
#[inline]
unsafe fn store16(bytes: &mut [u8], at: usize, v: uint8x16_t) {
    debug_assert!(at + 16 <= bytes.len());
    // SAFETY: the caller guarantees the 16 bytes written are inside `bytes`.
    unsafe { vst1q_u8(bytes.as_mut_ptr().wrapping_add(at), v) }
}

/// Stores 4 `u32` lanes at element `at`.
///
/// # Safety
///
/// `at + 4 <= out.len()`.
#[target_feature(enable = "neon")]
#[inline]
unsafe fn store_u32(out: &mut [u32], at: usize, v: uint32x4_t) {
    debug_assert!(at + 4 <= out.len());
    // SAFETY: the caller guarantees the 4 lanes written are inside `out`.
    unsafe { vst1q_u32(out.as_mut_ptr().wrapping_add(at), v) }
}

/// 4 `u32` lanes at element `at`.
///
/// # Safety
///
/// `at + 4 <= src.len()`.
#[target_feature(enable = "neon")]
#[inline]
unsafe fn load_u32(src: &[u32], at: usize) -> uint32x4_t {
    debug_assert!(at + 4 <= src.len());
    // SAFETY: the caller guarantees the 4 lanes read are inside `src`.
    unsafe { vld1q_u32(src.as_ptr().wrapping_add(at)) }
}

/// `2^w - 1` as a byte (`w <= 8`).
const fn mask8(w: u32) -> u8 {
    if w >= 8 { 0xff } else { (1u8 << w) - 1 }
}

// ---------------------------------------------------------------------------
// unpack
// ---------------------------------------------------------------------------

/// Byte lookups of 16 values of `W <= 8` bits that start on a byte: value
/// `j`'s low byte index, its high byte index, the right shift of the low
/// byte (negated, for `ushl`) and the left shift of the high byte.
const fn lanes8(w: u32) -> ([u8; 16], [u8; 16], [i8; 16], [i8; 16]) {
    let mut lo = [0u8; 16];
    let mut hi = [0u8; 16];
    let mut shr = [0i8; 16];
    let mut shl = [0i8; 16];
    let mut j = 0;
    while j < 16 {
        let bit = j as u32 * w;
        lo[j] = (bit / 8) as u8;
        hi[j] = (bit / 8 + 1) as u8;
        shr[j] = -((bit % 8) as i8);
        shl[j] = 8 - (bit % 8) as i8;
        j += 1;
    }
    (lo, hi, shr, shl)
}

/// The 16 values of `W <= 8` bits held by the first `2 * W` bytes of `v`
/// (the first value at bit 0), one per byte.
///
/// Two table lookups give each value its low and high byte; `ushl` shifts
/// each lane by its own amount (a count of 8 clears the lane, and index 16,
/// out of the table, reads as 0), or, mask.
#[target_feature(enable = "neon")]
#[inline]
fn unpack16<const W: u32>(v: uint8x16_t) -> uint8x16_t {
    let (lo, hi, shr, shl) = const { lanes8(W) };
    let lo = vqtbl1q_u8(v, v8(lo));
    let hi = vqtbl1q_u8(v, v8(hi));
    let x = vorrq_u8(vshlq_u8(lo, s8(shr)), vshlq_u8(hi, s8(shl)));
    vandq_u8(x, vdupq_n_u8(mask8(W)))
}

/// The 16 bytes of `v` as four vectors of `u32` lanes, in order.
#[target_feature(enable = "neon")]
#[inline]
fn widen_u8x16(v: uint8x16_t) -> [uint32x4_t; 4] {
    let (l, h) = (vmovl_u8(vget_low_u8(v)), vmovl_u8(vget_high_u8(v)));
    [
        vmovl_u16(vget_low_u16(l)),
        vmovl_u16(vget_high_u16(l)),
        vmovl_u16(vget_low_u16(h)),
        vmovl_u16(vget_high_u16(h)),
    ]
}

/// Unpacks the values before the first byte boundary with the portable
/// kernel: their count, and the byte where the vector loop starts.
#[inline(always)]
fn unpack_head<const W: u32, U: scalar::Lane>(
    words: &[u64],
    offset: usize,
    dst: &mut [U],
) -> (usize, usize) {
    let head = head8(offset, dst.len());
    scalar::unpack::<W, U>(words, offset, &mut dst[..head]);
    (head, (offset + head) / 8 * W as usize)
}

/// Unpacks to bytes (`W <= 8`): 16 values from each `2 * W` bytes, through
/// [`unpack16`], one 16-byte load and one 16-byte store per step.
#[target_feature(enable = "neon")]
pub(crate) fn unpack_u8_neon<const W: u32>(words: &[u64], offset: usize, dst: &mut [u8]) {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let n = dst.len();
    let (head, first) = unpack_head::<W, _>(words, offset, dst);
    let stride = 2 * W as usize;
    let steps = steps_within(first, stride, 16, bytes.len(), (n - head) / 16);
    if steps > 0 {
        assert!(first + (steps - 1) * stride + 16 <= bytes.len() && head + 16 * steps <= n);
    }
    for s in 0..steps {
        // SAFETY: step `s < steps` reads 16 bytes from `first + s * stride`,
        // inside `bytes` by the assertion above.
        let v = unsafe { load16(bytes, first + s * stride) };
        let x = unpack16::<W>(v);
        // SAFETY: it writes `dst[head + 16 s..head + 16 (s + 1)]`, inside
        // `dst` by the assertion above.
        unsafe { store16(dst, head + 16 * s, x) };
    }
    let done = head + 16 * steps;
    scalar::unpack::<W, u8>(words, offset + done, &mut dst[done..]);
}

/// Byte lookups of 8 values of `W <= 25` bits that start on a byte, as two
/// groups of four `u32` lanes: each lane's four bytes from the value's first
/// byte on, and the lane's right shift (negated).
const fn lanes32(w: u32) -> ([[u8; 16]; 2], [[i32; 4]; 2]) {
    let mut idx = [[0u8; 16]; 2];
    let mut shr = [[0i32; 4]; 2];
    let mut j = 0;
    while j < 8 {
        let bit = j as u32 * w;
        let mut k = 0;
        while k < 4 {
            idx[j / 4][(j % 4) * 4 + k] = (bit / 8) as u8 + k as u8;
            k += 1;
        }
        shr[j / 4][j % 4] = -((bit % 8) as i32);
        j += 1;
    }
    (idx, shr)
}

/// Unpacks to `u32` (`W <= 25`). Up to 8 bits: [`unpack16`] on each `2 * W`
/// bytes, widened to four vectors of `u32`. Wider: each 8 values (`W`
/// bytes) from a 32-byte window; a two-register table lookup gives each
/// value's four bytes in its lane (a value starting at bit 7 of a byte still
/// fits its 32 bits), `ushl` shifts each lane by its own amount, mask.
#[target_feature(enable = "neon")]
pub(crate) fn unpack_u32_neon<const W: u32>(words: &[u64], offset: usize, dst: &mut [u32]) {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let n = dst.len();
    let (head, first) = unpack_head::<W, _>(words, offset, dst);
    let done = if W <= 8 {
        let stride = 2 * W as usize;
        let steps = steps_within(first, stride, 16, bytes.len(), (n - head) / 16);
        if steps > 0 {
            assert!(first + (steps - 1) * stride + 16 <= bytes.len() && head + 16 * steps <= n);
        }
        for s in 0..steps {
            // SAFETY: step `s < steps` reads 16 bytes from
            // `first + s * stride`, inside `bytes` by the assertion above.
            let v = unpack16::<W>(unsafe { load16(bytes, first + s * stride) });
            let at = head + 16 * s;
            for (j, &qj) in widen_u8x16(v).iter().enumerate() {
                // SAFETY: it writes `dst[at + 4 j..at + 4 j + 4]`, inside
                // `dst` (`at + 16 <= n`) by the assertion above.
                unsafe { store_u32(dst, at + 4 * j, qj) };
            }
        }
        head + 16 * steps
    } else {
        let (idx, shr) = const { lanes32(W) };
        let (i0, i1) = (v8(idx[0]), v8(idx[1]));
        // SAFETY: both are four `i32` of plain data, any bits valid.
        let s0 = unsafe { core::mem::transmute::<[i32; 4], int32x4_t>(shr[0]) };
        // SAFETY: as above.
        let s1 = unsafe { core::mem::transmute::<[i32; 4], int32x4_t>(shr[1]) };
        let mask = vdupq_n_u32((1u32 << W) - 1);
        let stride = W as usize;
        let steps = steps_within(first, stride, 32, bytes.len(), (n - head) / 8);
        if steps > 0 {
            assert!(first + (steps - 1) * stride + 32 <= bytes.len() && head + 8 * steps <= n);
        }
        for s in 0..steps {
            let at = first + s * stride;
            // SAFETY: step `s < steps` reads 32 bytes from `at`, inside
            // `bytes` by the assertion above.
            let t0 = unsafe { load16(bytes, at) };
            // SAFETY: as above.
            let t1 = unsafe { load16(bytes, at + 16) };
            let t = uint8x16x2_t(t0, t1);
            let g0 = vreinterpretq_u32_u8(vqtbl2q_u8(t, i0));
            let g1 = vreinterpretq_u32_u8(vqtbl2q_u8(t, i1));
            let out = head + 8 * s;
            let (v0, v1) = (
                vandq_u32(vshlq_u32(g0, s0), mask),
                vandq_u32(vshlq_u32(g1, s1), mask),
            );
            // SAFETY: it writes `dst[out..out + 8]`, inside `dst` by the
            // assertion above.
            unsafe { store_u32(dst, out, v0) };
            // SAFETY: as above.
            unsafe { store_u32(dst, out + 4, v1) };
        }
        head + 8 * steps
    };
    scalar::unpack::<W, u32>(words, offset + done, &mut dst[done..]);
}

// ---------------------------------------------------------------------------
// pack
// ---------------------------------------------------------------------------

/// Packs from bytes (`W <= 8`) through [`pack_steps`].
#[target_feature(enable = "neon")]
pub(crate) fn pack_u8_neon<const W: u32>(src: &[u8], words: &mut [u64], offset: usize) {
    let n = src.len();
    let head = head8(offset, n);
    scalar::pack::<W, u8>(&src[..head], words, offset);
    let done = pack_steps::<W, 1>(src, n, head, words, offset);
    scalar::pack::<W, u8>(&src[done..], words, offset + done);
}

/// Packs from `u32` (`W <= 8`) through [`pack_steps`], each step's 16 values
/// first narrowed to bytes (`xtn` twice: the low 8 bits of each, all a
/// `W`-bit pack keeps).
#[target_feature(enable = "neon")]
pub(crate) fn pack_u32_neon<const W: u32>(src: &[u32], words: &mut [u64], offset: usize) {
    let n = src.len();
    let head = head8(offset, n);
    scalar::pack::<W, u32>(&src[..head], words, offset);
    let done = pack_steps::<W, 4>(bytemuck::cast_slice(src), n, head, words, offset);
    scalar::pack::<W, u32>(&src[done..], words, offset + done);
}

/// The NEON middle of a pack of `n` values of `B` bytes each (`B` is 1 or
/// 4; `src` holds their bytes) from value `head` on, where the stream
/// position `offset + head` is a multiple of 8 values; returns where the
/// portable tail starts (`head + 16 * steps`).
///
/// Each step takes 16 values (narrowed to bytes where `B` is 4), masks them
/// and merges neighbours in widening lanes (pairs into `u16`, quads into
/// `u32`, eights into `u64`: `lo | hi << k`), leaving two runs of `W` bytes,
/// written as two overlapping 8-byte stores. A step's stores reach `8 - W`
/// bytes past its own `2 * W`; the next step (or the portable tail)
/// overwrites them, so the steps stop where those bytes would leave the
/// bytes wholly inside the values written.
#[target_feature(enable = "neon")]
#[inline]
fn pack_steps<const W: u32, const B: usize>(
    src: &[u8],
    n: usize,
    head: usize,
    words: &mut [u64],
    offset: usize,
) -> usize {
    let start = offset + head;
    let first = start / 8 * W as usize;
    // Bytes wholly inside the values written.
    let limit = (offset + n) * W as usize / 8;
    let w = W as usize;
    let stride = 2 * w;
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
    let steps = steps_within(first, stride, w + 8, limit, (n - head) / 16);
    if steps > 0 {
        assert!(
            first + (steps - 1) * stride + w + 8 <= limit
                && limit <= bytes.len()
                && B * (head + 16 * steps) <= src.len()
        );
    }
    let m = vdupq_n_u8(mask8(W));
    let (k1, k2, k4) = (
        vdupq_n_s16(W as i16),
        vdupq_n_s32(2 * W as i32),
        vdupq_n_s64(4 * W as i64),
    );
    for s in 0..steps {
        let at = B * (head + 16 * s);
        let v = if B == 1 {
            // SAFETY: step `s < steps` reads `src[at..at + 16]`, inside
            // `src` by the assertion above.
            unsafe { load16(src, at) }
        } else {
            // SAFETY: as above, for the 64 bytes `src[at..at + 64]`.
            let q = |k: usize| vreinterpretq_u32_u8(unsafe { load16(src, at + 16 * k) });
            let lo = vcombine_u16(vmovn_u32(q(0)), vmovn_u32(q(1)));
            let hi = vcombine_u16(vmovn_u32(q(2)), vmovn_u32(q(3)));
            vcombine_u8(vmovn_u16(lo), vmovn_u16(hi))
        };
        let h = vreinterpretq_u16_u8(vandq_u8(v, m));
        let p16 = vorrq_u16(
            vandq_u16(h, vdupq_n_u16(0xff)),
            vshlq_u16(vshrq_n_u16::<8>(h), k1),
        );
        let q = vreinterpretq_u32_u16(p16);
        let p32 = vorrq_u32(
            vandq_u32(q, vdupq_n_u32(0xffff)),
            vshlq_u32(vshrq_n_u32::<16>(q), k2),
        );
        let r = vreinterpretq_u64_u32(p32);
        let p64 = vorrq_u64(
            vandq_u64(r, vdupq_n_u64(0xffff_ffff)),
            vshlq_u64(vshrq_n_u64::<32>(r), k4),
        );
        let out = first + s * stride;
        let (l0, l1) = (vgetq_lane_u64::<0>(p64), vgetq_lane_u64::<1>(p64));
        // SAFETY: the two stores write `bytes[out..out + W + 8]`, inside
        // `bytes` (below `limit`) by the assertion above.
        unsafe { write_le(bytes, out, l0) };
        // SAFETY: as above.
        unsafe { write_le(bytes, out + w, l1) };
    }
    head + 16 * steps
}

// ---------------------------------------------------------------------------
// sum
// ---------------------------------------------------------------------------

/// Per-byte field sums of a 16-byte vector of `W`-bit values for `W` in
/// 1, 2, 4, 8 (fields never cross a byte): `cnt`, nibble sums, the bytes.
/// Other widths: the 16 values of [`unpack16`].
#[target_feature(enable = "neon")]
#[inline]
fn byte_sums<const W: u32>(v: uint8x16_t) -> uint8x16_t {
    match W {
        1 => vcntq_u8(v),
        2 => {
            let m = vdupq_n_u8(0x33);
            let t = vaddq_u8(vandq_u8(v, m), vandq_u8(vshrq_n_u8::<2>(v), m));
            vaddq_u8(vandq_u8(t, vdupq_n_u8(0x0f)), vshrq_n_u8::<4>(t))
        }
        4 => vaddq_u8(vandq_u8(v, vdupq_n_u8(0x0f)), vshrq_n_u8::<4>(v)),
        8 => v,
        _ => unpack16::<W>(v),
    }
}

/// The sum of the two `u64` lanes.
#[target_feature(enable = "neon")]
#[inline]
fn lanes_total(v: uint64x2_t) -> u128 {
    vgetq_lane_u64::<0>(v) as u128 + vgetq_lane_u64::<1>(v) as u128
}

/// Sums values of `W <= 8` bits. 1, 2, 4 and 8 bits read 16 bytes a step
/// (`128 / W` values) and take each byte's field sum; other widths unpack 16
/// values from each `2 * W` bytes. Byte sums accumulate pairwise into `u16`
/// lanes (`uadalp`, at most 510 a step, flushed every 128 steps into `u64`
/// lanes), so the sum is exact for every length.
#[target_feature(enable = "neon")]
pub(crate) fn sum_neon<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let head = head8(offset, n);
    let mut total = scalar::sum::<W>(words, offset, head);
    let start = offset + head;
    let first = start / 8 * W as usize;
    let whole = matches!(W, 1 | 2 | 4 | 8);
    let (stride, per) = if whole {
        (16, 128 / W as usize)
    } else {
        (2 * W as usize, 16)
    };
    let steps = steps_within(first, stride, 16, bytes.len(), (n - head) / per);
    if steps > 0 {
        assert!(first + (steps - 1) * stride + 16 <= bytes.len());
    }
    let mut acc64 = vdupq_n_u64(0);
    let mut s = 0;
    while s < steps {
        let end = (s + 128).min(steps);
        let mut acc16 = vdupq_n_u16(0);
        while s < end {
            // SAFETY: step `s < steps` reads 16 bytes from
            // `first + s * stride`, inside `bytes` by the assertion above.
            let v = unsafe { load16(bytes, first + s * stride) };
            acc16 = vpadalq_u8(acc16, byte_sums::<W>(v));
            s += 1;
        }
        acc64 = vpadalq_u32(acc64, vpaddlq_u16(acc16));
    }
    total += lanes_total(acc64);
    let done = head + per * steps;
    total + scalar::sum::<W>(words, offset + done, n - done)
}

/// Sums values of 16, 32 or 64 bits, 16 bytes a step: 16-bit values add
/// pairwise into `u32` lanes (`uadalp`, flushed every 32,768 steps, before
/// a lane could overflow), 32-bit values pairwise into `u64` lanes, and
/// 64-bit values into `u64` lanes (wrapping) beside the sums of their high
/// halves, so that `all - (highs << 32)` is the exact sum of their low
/// halves (for up to 2^24 steps). Each batch's lanes are added into a
/// `u128`, so the sum is exact for every length.
#[target_feature(enable = "neon")]
pub(crate) fn sum_wide_neon<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    const { assert!(W == 16 || W == 32 || W == 64) };
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let per = 128 / W as usize;
    // Every value starts on a byte.
    let first = offset * W as usize / 8;
    let steps = steps_within(first, 16, 16, bytes.len(), n / per);
    if steps > 0 {
        assert!(first + (steps - 1) * 16 + 16 <= bytes.len());
    }
    let batch: usize = if W == 16 { 1 << 15 } else { 1 << 24 };
    // SAFETY: step `s < steps` reads 16 bytes from `first + 16 s`, inside
    // `bytes` by the assertion above.
    let load = |s: usize| unsafe { load16(bytes, first + 16 * s) };
    let mut total = 0u128;
    let mut s = 0;
    while s < steps {
        let end = (s + batch).min(steps);
        if W == 16 {
            let mut acc = vdupq_n_u32(0);
            for s in s..end {
                acc = vpadalq_u16(acc, vreinterpretq_u16_u8(load(s)));
            }
            total += lanes_total(vpaddlq_u32(acc));
        } else if W == 32 {
            let mut acc = vdupq_n_u64(0);
            for s in s..end {
                acc = vpadalq_u32(acc, vreinterpretq_u32_u8(load(s)));
            }
            total += lanes_total(acc);
        } else {
            let (mut all, mut highs) = (vdupq_n_u64(0), vdupq_n_u64(0));
            for s in s..end {
                let v = vreinterpretq_u64_u8(load(s));
                all = vaddq_u64(all, v);
                highs = vaddq_u64(highs, vshrq_n_u64::<32>(v));
            }
            let lows = vsubq_u64(all, vshlq_n_u64::<32>(highs));
            total += lanes_total(lows) + (lanes_total(highs) << 32);
        }
        s = end;
    }
    let done = per * steps;
    total + scalar::sum::<W>(words, offset + done, n - done)
}

// ---------------------------------------------------------------------------
// decode through a table
// ---------------------------------------------------------------------------

/// Decodes codes of `W <= 4` bits through a table of 4-byte values held in
/// four registers (64 bytes, 16 entries): 16 codes per step by
/// [`unpack16`], each code times 4 spread over its output's four bytes plus
/// 0..=3, then one four-register table lookup per four outputs.
#[target_feature(enable = "neon")]
pub(crate) fn decode_tbl_neon<const W: u32>(
    words: &[u64],
    offset: usize,
    table: &[u32],
    dst: &mut [u32],
) {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let n = dst.len();
    let mut t = [0u32; 16];
    t[..1 << W].copy_from_slice(&table[..1 << W]);
    let tb: [u8; 64] = bytemuck::cast(t);
    let part = |k: usize| v8(tb[16 * k..16 * k + 16].try_into().unwrap_or([0; 16]));
    let regs = uint8x16x4_t(part(0), part(1), part(2), part(3));
    let head = head8(offset, n);
    let unpack_scalar = scalar::unpack::<W, u8>;
    scalar::decode_chunks(unpack_scalar, words, offset, table, &mut dst[..head]);
    let start = offset + head;
    let first = start / 8 * W as usize;
    let stride = 2 * W as usize;
    let steps = steps_within(first, stride, 16, bytes.len(), (n - head) / 16);
    if steps > 0 {
        assert!(first + (steps - 1) * stride + 16 <= bytes.len() && head + 16 * steps <= n);
    }
    let spread: [[u8; 16]; 4] =
        core::array::from_fn(|k| core::array::from_fn(|b| (4 * k + b / 4) as u8));
    let plus = v8(core::array::from_fn(|b| (b % 4) as u8));
    for s in 0..steps {
        // SAFETY: step `s < steps` reads 16 bytes from `first + s * stride`,
        // inside `bytes` by the assertion above.
        let c = unpack16::<W>(unsafe { load16(bytes, first + s * stride) });
        let c4 = vshlq_n_u8::<2>(c);
        let at = head + 16 * s;
        for (k, sp) in spread.iter().enumerate() {
            let idx = vaddq_u8(vqtbl1q_u8(c4, v8(*sp)), plus);
            let out = vreinterpretq_u32_u8(vqtbl4q_u8(regs, idx));
            // SAFETY: it writes `dst[at + 4 k..at + 4 k + 4]`, inside `dst`
            // (`at + 16 <= n`) by the assertion above.
            unsafe { store_u32(dst, at + 4 * k, out) };
        }
    }
    let done = head + 16 * steps;
    scalar::decode_chunks(unpack_scalar, words, offset + done, table, &mut dst[done..]);
}

// ---------------------------------------------------------------------------
// float formats
// ---------------------------------------------------------------------------

/// [`encode_fast`](crate::float::elem::encode_fast) on four lanes: the same
/// integer rounding, FPU add for subnormal results, and selects, lane by
/// lane.
#[target_feature(enable = "neon")]
#[inline]
fn encode4<F: MiniFloat, const SAT: bool>(x: float32x4_t) -> uint32x4_t {
    let k = const { EncodeConsts::of(&F::FORMAT, SAT) };
    let (sign_shift, max, over_mag) = (k.sign_shift, k.max as i32, k.over_mag as i32);
    let (nan_pos, nan_neg) = (k.nan_pos, k.nan_neg);
    let bits = vreinterpretq_u32_f32(x);
    let sign = vshlq_u32(vshrq_n_u32::<31>(bits), vdupq_n_s32(sign_shift as i32));
    let a = vreinterpretq_s32_u32(vandq_u32(bits, vdupq_n_u32(0x7fff_ffff)));
    let shift = k.shift as i32;
    let odd = vandq_s32(vshlq_s32(a, vdupq_n_s32(-shift)), vdupq_n_s32(1));
    let r = vaddq_s32(vaddq_s32(a, vdupq_n_s32((1 << (shift - 1)) - 1)), odd);
    let normal = vsubq_s32(vshlq_s32(r, vdupq_n_s32(-shift)), vdupq_n_s32(k.rebias));
    let magic = f32::from_bits(k.magic);
    let raised = vreinterpretq_f32_s32(vmaxq_s32(a, vdupq_n_s32(0x0080_0000)));
    let sub = vsubq_s32(
        vreinterpretq_s32_f32(vaddq_f32(raised, vdupq_n_f32(magic))),
        vdupq_n_s32(magic.to_bits() as i32),
    );
    let mag = vbslq_s32(vcltq_s32(a, vdupq_n_s32(k.min_normal)), sub, normal);
    let mag = vbslq_s32(vcgtq_s32(mag, vdupq_n_s32(max)), vdupq_n_s32(over_mag), mag);
    let is_nan = vcgtq_s32(a, vdupq_n_s32(0x7f80_0000));
    if k.nan == NanCodes::Signed {
        let mag = vbslq_s32(is_nan, vdupq_n_s32(nan_pos as i32), mag);
        vorrq_u32(sign, vreinterpretq_u32_s32(mag))
    } else {
        let code = vorrq_u32(sign, vreinterpretq_u32_s32(mag));
        let neg = vtstq_u32(sign, sign);
        let nan = vbslq_u32(neg, vdupq_n_u32(nan_neg), vdupq_n_u32(nan_pos));
        vbslq_u32(is_nan, nan, code)
    }
}

/// 16 codes of `F` from `src[at..at + 16]`, one per byte.
///
/// # Safety
///
/// `at + 16 <= src.len()`.
#[target_feature(enable = "neon")]
#[inline]
unsafe fn encode16<F: MiniFloat, const SAT: bool>(src: &[u32], at: usize) -> uint8x16_t {
    let mut c = [vdupq_n_u32(0); 4];
    for (k, ck) in c.iter_mut().enumerate() {
        // SAFETY: the caller guarantees `at + 16 <= src.len()`.
        let x = vreinterpretq_f32_u32(unsafe { load_u32(src, at + 4 * k) });
        *ck = encode4::<F, SAT>(x);
    }
    let lo = vcombine_u16(vmovn_u32(c[0]), vmovn_u32(c[1]));
    let hi = vcombine_u16(vmovn_u32(c[2]), vmovn_u32(c[3]));
    vcombine_u8(vmovn_u16(lo), vmovn_u16(hi))
}

/// `codes[i]` = the code of `src[i]` in `F` (as `encode_fast::<F, SAT>`),
/// 16 values a step, the tail by the element function. Only for formats
/// with `encode_fast_ok`.
#[target_feature(enable = "neon")]
pub(crate) fn encode_f32_neon<F: MiniFloat, const SAT: bool>(src: &[f32], codes: &mut [u8]) {
    let n = src.len().min(codes.len());
    let s: &[u32] = bytemuck::cast_slice(&src[..n]);
    let steps = n / 16;
    for k in 0..steps {
        // SAFETY: `16 (k + 1) <= n`, the length of both `s` and `codes`.
        let v = unsafe { encode16::<F, SAT>(s, 16 * k) };
        // SAFETY: as above.
        unsafe { store16(codes, 16 * k, v) };
    }
    let f = crate::float::elem::encode_fast::<F, SAT>;
    scalar::map_codes(&f, &src[16 * steps..n], &mut codes[16 * steps..n]);
}

/// Encodes `src` into nibble pairs (`out[i] = code(2i) | code(2i + 1) << 4`,
/// an odd last value alone in its byte's low nibble) for a 4-bit `F`: 16
/// values into 8 bytes a step.
#[target_feature(enable = "neon")]
pub(crate) fn encode4_f32_neon<F: MiniFloat, const SAT: bool>(src: &[f32], out: &mut [u8]) {
    let n = src.len().min(2 * out.len());
    let s: &[u32] = bytemuck::cast_slice(&src[..n]);
    let steps = n / 16;
    assert!(8 * steps <= out.len());
    for k in 0..steps {
        // SAFETY: `16 (k + 1) <= n = s.len()`.
        let c = vreinterpretq_u16_u8(unsafe { encode16::<F, SAT>(s, 16 * k) });
        let p = vorrq_u16(
            vandq_u16(c, vdupq_n_u16(0x0f)),
            vandq_u16(vshrq_n_u16::<4>(c), vdupq_n_u16(0xf0)),
        );
        let b = vget_lane_u64::<0>(vreinterpret_u64_u8(vmovn_u16(p)));
        out[8 * k..8 * k + 8].copy_from_slice(&b.to_le_bytes());
    }
    let f = crate::float::elem::encode_fast::<F, SAT>;
    for (i, pair) in src[16 * steps..n].chunks(2).enumerate() {
        let lo = f(pair[0]) & 0x0f;
        let hi = pair.get(1).map_or(0, |&x| (f(x) & 0x0f) << 4);
        out[8 * steps + i] = lo | hi;
    }
}

/// [`decode_fast`](crate::float::elem::decode_fast) on four lanes of codes.
#[target_feature(enable = "neon")]
#[inline]
fn decode4<F: MiniFloat>(c: uint32x4_t) -> uint32x4_t {
    let (e, m) = const { (F::FORMAT.exponent_bits, F::FORMAT.mantissa_bits) };
    let (bias, signed) = const { (F::FORMAT.bias, F::FORMAT.signed) };
    let specials = const { F::FORMAT.specials };
    let mag_mask = (1u32 << (e + m)) - 1;
    let mag = vandq_u32(c, vdupq_n_u32(mag_mask));
    let negative = if signed {
        vandq_u32(vshlq_u32(c, vdupq_n_s32(-((e + m) as i32))), vdupq_n_u32(1))
    } else {
        vdupq_n_u32(0)
    };
    let field = vshlq_u32(mag, vdupq_n_s32(-(m as i32)));
    let bits = vaddq_u32(
        vshlq_u32(mag, vdupq_n_s32(23 - m as i32)),
        vdupq_n_u32(((127 - bias) as u32) << 23),
    );
    let min_normal = f32::from_bits(((127 + 1 - bias) as u32) << 23);
    let sub = vsubq_f32(
        vreinterpretq_f32_u32(vaddq_u32(bits, vdupq_n_u32(1 << 23))),
        vdupq_n_f32(min_normal),
    );
    let zero = vceqq_u32(field, vdupq_n_u32(0));
    let v = vbslq_u32(zero, vreinterpretq_u32_f32(sub), bits);
    let qnan = vdupq_n_u32(0x7fc0_0000);
    let v = match specials {
        Specials::FiniteOnly => v,
        Specials::Ieee => {
            let top = vceqq_u32(field, vdupq_n_u32((1 << e) - 1));
            let man0 = vceqq_u32(vandq_u32(mag, vdupq_n_u32((1 << m) - 1)), vdupq_n_u32(0));
            let special = vbslq_u32(man0, vdupq_n_u32(0x7f80_0000), qnan);
            vbslq_u32(top, special, v)
        }
        Specials::AllOnesNan => vbslq_u32(vceqq_u32(mag, vdupq_n_u32(mag_mask)), qnan, v),
        Specials::NegativeZeroNan => {
            let nz = vandq_u32(
                vceqq_u32(mag, vdupq_n_u32(0)),
                vceqq_u32(negative, vdupq_n_u32(1)),
            );
            vbslq_u32(nz, qnan, v)
        }
    };
    vorrq_u32(v, vshlq_n_u32::<31>(negative))
}

/// `out[i] = decode_fast::<F>(codes[i])`, 16 codes a step (widened to four
/// `u32` vectors), the tail by the element function. Only for formats with
/// `decode_fast_ok`.
#[target_feature(enable = "neon")]
pub(crate) fn decode_f32_neon<F: MiniFloat>(codes: &[u8], out: &mut [f32]) {
    let n = codes.len().min(out.len());
    let o: &mut [u32] = bytemuck::cast_slice_mut(&mut out[..n]);
    let steps = n / 16;
    for k in 0..steps {
        // SAFETY: `16 (k + 1) <= n = codes.len()`.
        let c = unsafe { load16(codes, 16 * k) };
        for (j, &qj) in widen_u8x16(c).iter().enumerate() {
            let d = decode4::<F>(qj);
            // SAFETY: `16 k + 4 j + 4 <= n = o.len()`.
            unsafe { store_u32(o, 16 * k + 4 * j, d) };
        }
    }
    let f = crate::float::elem::decode_fast::<F>;
    scalar::map_values(&f, &codes[16 * steps..n], &mut out[16 * steps..n]);
}

// ---------------------------------------------------------------------------
// binary16 to f32
// ---------------------------------------------------------------------------

/// The eight `binary16` values whose bits are the lanes of `h`, as `f32`s
/// in order: `fcvtl` (lanes 0 to 3) and `fcvtl2` (lanes 4 to 7), exact. A
/// NaN is quieted and keeps its payload (with `FPCR.DN` clear, as Linux
/// starts a process and Rust leaves it): the result `half::f16::to_f32`
/// gives, and x86's `vcvtph2ps`.
///
/// Inline assembly because the `float16x4_t` intrinsics are not stable.
/// Not `preserves_flags`: on a signalling NaN the instruction sets
/// `FPSR.IOC`, and the Reference counts the FPSR among the flags that
/// option promises to keep.
#[cfg(feature = "half")]
#[target_feature(enable = "neon")]
#[inline]
fn fcvtl(h: uint16x8_t) -> [float32x4_t; 2] {
    let (lo, hi): (float32x4_t, float32x4_t);
    // SAFETY:
    // - the two instructions are AdvSIMD (`FCVTL`, `FCVTL2`), which this
    //   function enables (`neon`), and read and write only the named vector
    //   registers: "`nomem`: The assembly code does not read from or write
    //   to any memory accessible outside of the assembly code", and with
    //   `nostack` it pushes nothing;
    // - `pure` (with `nomem`): "The assembly code has no side effects, must
    //   eventually return, and its outputs depend only on its direct
    //   inputs" (the FP status flags aside, as for any float operation);
    // - `lo` is a plain `out`, so it is not allocated on `h`, which the
    //   second instruction still reads; `hi` is written last (`lateout`).
    unsafe {
        core::arch::asm!(
            "fcvtl {lo:v}.4s, {h:v}.4h",
            "fcvtl2 {hi:v}.4s, {h:v}.8h",
            h = in(vreg) h,
            lo = out(vreg) lo,
            hi = lateout(vreg) hi,
            options(pure, nomem, nostack),
        );
    }
    [lo, hi]
}

/// `dst[i]` = the `binary16` value of bits `src[i]` as an `f32` (exact; a
/// NaN quieted, its payload kept, as `half::f16::to_f32` does), 8 a step
/// through [`fcvtl`]; the values past the last whole 8 are left to the
/// caller. Returns how many were converted.
#[cfg(feature = "half")]
#[target_feature(enable = "neon")]
pub(crate) fn widen_f16_neon(src: &[u16], dst: &mut [f32]) -> usize {
    let n = src.len().min(dst.len()) / 8 * 8;
    for (s, d) in src[..n].chunks_exact(8).zip(dst[..n].chunks_exact_mut(8)) {
        let h: [u16; 8] = s.try_into().expect("8 values");
        // SAFETY: both types are 16 bytes of plain data; every bit pattern
        // is a valid value of each.
        let h = unsafe { core::mem::transmute::<[u16; 8], uint16x8_t>(h) };
        let w = fcvtl(h);
        // SAFETY: both types are 32 bytes of plain data; every bit pattern
        // is a valid value of each.
        let v = unsafe { core::mem::transmute::<[float32x4_t; 2], [f32; 8]>(w) };
        let d: &mut [f32; 8] = d.try_into().expect("8 values");
        *d = v;
    }
    n
}
