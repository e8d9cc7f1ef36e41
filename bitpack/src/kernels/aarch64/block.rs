//! The block kernels of MX and NVFP4 with NEON, through the frames of the
//! x86 variants (`in_groups`, `mx_groups` and `scaled_blocks` in
//! `kernels/mod.rs`).
//!
//! The one-pass NVFP4 quantize (`kernels::nvfp4_blocks`) and the one-pass
//! MX quantize (`kernels::mx_blocks`) keep a block's partial maxima as one
//! register (the lane-wise maximum of its magnitudes' bits) and reduce a
//! group's with pairwise `umaxp` trees, four blocks' amaxes into one
//! register in three instructions. Their codes (one per `u32` lane, in
//! order: values `4k..4k + 4` in register `k`) are narrowed to one byte
//! each by two levels of `uzp1`, then joined in place: nibble pairs by one
//! `usra` of each 16-bit lane (its high byte shifted right by 4 onto the
//! low one) and a narrowing, 6-bit codes by an `ushr` and an `sli` (shift
//! left and insert) of each 16-bit and then each 32-bit lane and a `tbl`
//! that drops the fourth byte of each 32-bit lane.
//!
//! The scaled E2M1 decode of MX and NVFP4 blocks
//! (`kernels::e2m1_scaled_blocks`): each block's 16 products in four
//! registers, a 64-byte table that `tbl` (four registers) indexes by byte.
//! The scaled decode of 8-bit codes (`kernels::scaled8_blocks`): the NEON
//! decode of `mod.rs` (`decode4`) and one multiply by the block's factor.
//!
//! Every load and store is of arrays (`[f32; 16]`, `[u8; 16]`) moved in
//! and out of registers by value, which LLVM makes plain `ldp`/`stp`. An
//! `ld4` that deinterleaves a block's values, so that the codes of four
//! neighbouring values share a lane and three `sli` join them, was tried
//! and dropped: `vld4q_u32` reaches LLVM as a load and four shuffles, and
//! in the MX quantize, where the multiply came between, this build got
//! plain loads and about twenty permutes instead of the `ld4`.

use core::arch::aarch64::*;

use super::{decode4, encode4, v8, widen_u8x16};
use crate::float::MiniFloat;
use crate::kernels::{
    BlockCode, E2M1_MAGS, MX_GROUP, MxScaleBits, NVFP4_GROUP, Rows, in_groups, mx_groups, row,
    scaled_blocks,
};

// ---------------------------------------------------------------------------
// registers and arrays
// ---------------------------------------------------------------------------

/// The block of 16 values `x`.
#[inline(always)]
fn block16(x: &[f32]) -> &[f32; 16] {
    x.try_into().expect("16 values")
}

/// The two halves of the block of 32 values `x`.
#[inline(always)]
fn halves(x: &[f32]) -> (&[f32; 16], &[f32; 16]) {
    let (lo, hi) = x.split_at(16);
    (block16(lo), block16(hi))
}

/// The 16 values of `x` as bits, in order: values `4k..4k + 4` in
/// register `k`.
#[inline(always)]
fn lanes16(x: &[f32; 16]) -> [uint32x4_t; 4] {
    // SAFETY: both types are 64 bytes of plain data; every bit pattern is a
    // valid value of each.
    unsafe { core::mem::transmute::<[f32; 16], [uint32x4_t; 4]>(*x) }
}

/// The four lanes of `v`.
#[inline(always)]
fn u32s(v: uint32x4_t) -> [u32; 4] {
    // SAFETY: both types are 16 bytes of plain data; every bit pattern is a
    // valid value of each.
    unsafe { core::mem::transmute::<uint32x4_t, [u32; 4]>(v) }
}

/// The 16 bytes of `v`.
#[inline(always)]
fn u8s(v: uint8x16_t) -> [u8; 16] {
    // SAFETY: as in `u32s`.
    unsafe { core::mem::transmute::<uint8x16_t, [u8; 16]>(v) }
}

/// The 8 bytes of `v`.
#[inline(always)]
fn u8s_half(v: uint8x8_t) -> [u8; 8] {
    // SAFETY: both types are 8 bytes of plain data; every bit pattern is a
    // valid value of each.
    unsafe { core::mem::transmute::<uint8x8_t, [u8; 8]>(v) }
}

/// The 64 bytes of four registers as 16 `f32`s, register `k` giving
/// values `4k..4k + 4`.
#[inline(always)]
fn f32s16(v: [uint8x16_t; 4]) -> [f32; 16] {
    // SAFETY: both types are 64 bytes of plain data; every bit pattern is a
    // valid value of each.
    unsafe { core::mem::transmute::<[uint8x16_t; 4], [f32; 16]>(v) }
}

/// A register of four `f32`s.
#[inline(always)]
fn f32x4(x: [f32; 4]) -> float32x4_t {
    // SAFETY: as in `u32s`.
    unsafe { core::mem::transmute::<[f32; 4], float32x4_t>(x) }
}

// ---------------------------------------------------------------------------
// shared steps
// ---------------------------------------------------------------------------

/// The lane-wise maximum of the magnitudes' bits (`bits & 0x7fff_ffff`)
/// of the 16 values of `x`: its largest lane is their amax.
#[target_feature(enable = "neon")]
#[inline]
fn max16(x: &[f32; 16]) -> uint32x4_t {
    let abs = vdupq_n_u32(0x7fff_ffff);
    let [a, b, c, d] = lanes16(x).map(|v| vandq_u32(v, abs));
    vmaxq_u32(vmaxq_u32(a, b), vmaxq_u32(c, d))
}

/// The four registers of `p` from `4 * i` on.
#[inline(always)]
fn quad(p: &[uint32x4_t], i: usize) -> &[uint32x4_t; 4] {
    p[4 * i..4 * i + 4].try_into().expect("4 registers")
}

/// Lane `j` of the result is the largest lane of `v[j]` (unsigned): two
/// levels of `umaxp`, the maxima of neighbouring lanes of two registers,
/// three instructions where four `umaxv` and their moves take eight.
#[target_feature(enable = "neon")]
#[inline]
fn hmax4(v: &[uint32x4_t; 4]) -> uint32x4_t {
    vpmaxq_u32(vpmaxq_u32(v[0], v[1]), vpmaxq_u32(v[2], v[3]))
}

/// The codes of 16 values, one per `u32` lane (values `4k..4k + 4` in
/// register `k`, each below 256), as 16 bytes in order: two levels of
/// `uzp1` (the even 16-bit halves, then the even bytes).
#[target_feature(enable = "neon")]
#[inline]
fn bytes16(c: &[uint32x4_t]) -> uint8x16_t {
    let [c0, c1, c2, c3] = [c[0], c[1], c[2], c[3]].map(|c| vreinterpretq_u16_u32(c));
    let lo = vreinterpretq_u8_u16(vuzp1q_u16(c0, c1));
    let hi = vreinterpretq_u8_u16(vuzp1q_u16(c2, c3));
    vuzp1q_u8(lo, hi)
}

/// 16 codes of 4 bits, one per byte, with each pair joined in the low
/// byte of its 16-bit lane (`code(2m) | code(2m + 1) << 4`; the high byte
/// is left as it was): one `usra`, the lane plus itself shifted right by 4.
#[target_feature(enable = "neon")]
#[inline]
fn nibble_pairs(b: uint8x16_t) -> uint16x8_t {
    let h = vreinterpretq_u16_u8(b);
    vsraq_n_u16::<4>(h, h)
}

/// 16 codes of 6 bits, one per byte, with each four joined in the low
/// three bytes of its 32-bit lane (`code(4m) | code(4m + 1) << 6 |
/// code(4m + 2) << 12 | code(4m + 3) << 18`): in each 16-bit lane the high
/// byte's code inserted above the low one's 6 bits (`ushr`, `sli`), then
/// the same in each 32-bit lane, 12 bits up.
#[target_feature(enable = "neon")]
#[inline]
fn sextet_quads(b: uint8x16_t) -> uint32x4_t {
    let h = vreinterpretq_u16_u8(b);
    let h = vsliq_n_u16::<6>(h, vshrq_n_u16::<8>(h));
    let w = vreinterpretq_u32_u16(h);
    vsliq_n_u32::<12>(w, vshrq_n_u32::<16>(w))
}

// ---------------------------------------------------------------------------
// NVFP4 quantize
// ---------------------------------------------------------------------------

/// [`nvfp4_blocks`](crate::kernels::nvfp4_blocks) with NEON, a block a
/// step: the partial maxima are [`max16`] registers, a group's 32 amaxes
/// eight [`hmax4`] trees; each lane's code starts as its sign bit masked
/// by `t[7]` (the sign bit or 0) and shifted to bit 3 (so the count, at
/// most 7, adds below it), the seven compares of its magnitude's bits with the
/// thresholds (`cmgt`, signed) count by subtracting their all-ones masks,
/// and [`bytes16`], [`nibble_pairs`] and one narrowing (`xtn`) put the 16
/// nibbles in order into one `u64`.
#[target_feature(enable = "neon")]
pub(crate) fn nvfp4_blocks_neon(
    xs: &[f32],
    scales: &mut [u8],
    words: &mut [u64],
    code: &mut impl BlockCode,
) {
    let abs = vdupq_n_u32(0x7fff_ffff);
    let part = |x: &[f32; 16]| max16(block16(x));
    let reduce = |p: &[uint32x4_t; NVFP4_GROUP]| -> [u32; NVFP4_GROUP] {
        let m: [[u32; 4]; NVFP4_GROUP / 4] = core::array::from_fn(|i| u32s(hmax4(quad(p, i))));
        bytemuck::cast(m)
    };
    let step = |[x]: &[[f32; 16]; 1], &[s]: &[u8; 1], rows: &Rows, [w]: &mut [u64; 1]| {
        let t = row(rows, s);
        let sign = vdupq_n_u32(t[7] as u32);
        let c = lanes16(block16(x)).map(|v| {
            let a = vreinterpretq_s32_u32(vandq_u32(v, abs));
            let mut c = vshrq_n_u32::<28>(vandq_u32(v, sign));
            for &tk in &t[..7] {
                // A compare's mask is all ones where the magnitude passes
                // the threshold: subtracting it counts.
                c = vsubq_u32(c, vcgtq_s32(a, vdupq_n_s32(tk)));
            }
            c
        });
        let n = vmovn_u16(nibble_pairs(bytes16(&c)));
        *w = vget_lane_u64::<0>(vreinterpret_u64_u8(n));
    };
    in_groups(xs, scales, words, code, vdupq_n_u32(0), part, reduce, step);
}

// ---------------------------------------------------------------------------
// MX quantize
// ---------------------------------------------------------------------------

/// The `tbl` indices that take the low three bytes of each of the eight
/// `u32` lanes of two registers: output byte `i` is byte `i % 3` of lane
/// `i / 3`.
const fn sextet_bytes() -> [u8; 24] {
    let mut idx = [0u8; 24];
    let mut i = 0;
    while i < 24 {
        idx[i] = (i / 3 * 4 + i % 3) as u8;
        i += 1;
    }
    idx
}

/// [`mx_blocks`](crate::kernels::mx_blocks) with NEON, a block a step: a
/// block's partial maxima are its two halves' [`max16`] in one register,
/// a group's 16 amaxes four [`hmax4`] trees (one `umaxv` of their maximum
/// finds an infinite or NaN one), its scale codes and factors four
/// registers each, the codes narrowed to bytes by two levels of `uzp1`; a
/// block's codes are [`encode4`] of its eight registers of products,
/// narrowed to 32 bytes by [`bytes16`]: for 8-bit formats those bytes, for
/// 4-bit ones [`nibble_pairs`] and one `uzp1` of the even bytes (16
/// bytes), for 6-bit ones [`sextet_quads`] and two `tbl` lookups of three
/// bytes of each lane (24 bytes).
#[target_feature(enable = "neon")]
pub(crate) fn mx_blocks_neon<F: MiniFloat>(
    xs: &[f32],
    scales: &mut [u8],
    out: &mut [u8],
    rule: MxScaleBits,
) -> bool {
    let bits = F::BITS as usize;
    let part = |x: &[f32]| {
        let (lo, hi) = halves(x);
        vmaxq_u32(max16(lo), max16(hi))
    };
    let group = |p: &[uint32x4_t; MX_GROUP]| {
        // Lane `j` of `m[i]`: the amax bits of block `4i + j`.
        let m: [uint32x4_t; MX_GROUP / 4] = core::array::from_fn(|i| hmax4(quad(p, i)));
        let top = vmaxq_u32(vmaxq_u32(m[0], m[1]), vmaxq_u32(m[2], m[3]));
        if vmaxvq_u32(top) >= 0x7f80_0000 {
            return None;
        }
        let (add, emax) = (vdupq_n_u32(rule.add), vdupq_n_s32(rule.emax as i32));
        let c = m.map(|m| {
            let field = vreinterpretq_s32_u32(vshrq_n_u32::<23>(vaddq_u32(m, add)));
            vreinterpretq_u32_s32(vmaxq_s32(vsubq_s32(field, emax), vdupq_n_s32(0)))
        });
        let f = c.map(|c| {
            let f = vshlq_n_u32::<23>(vsubq_u32(vdupq_n_u32(254), c));
            vreinterpretq_u8_u32(f)
        });
        // Codes: at most 253, one byte each.
        Some((u8s(bytes16(&c)), f32s16(f)))
    };
    let sextets = const { sextet_bytes() };
    let (lo_idx, hi_idx) = (
        v8(*sextets.first_chunk::<16>().expect("24 indices")),
        vcreate_u8(u64::from_le_bytes(
            *sextets.last_chunk::<8>().expect("24 indices"),
        )),
    );
    let step = |x: &[f32], f: &[f32], o: &mut [u8]| {
        let f = f[0];
        let (lo, hi) = halves(x);
        let codes = |x: &[f32; 16]| {
            let c =
                lanes16(x).map(|v| encode4::<F, true>(vmulq_n_f32(vreinterpretq_f32_u32(v), f)));
            bytes16(&c)
        };
        let (b0, b1) = (codes(lo), codes(hi));
        if bits == 8 {
            let o: &mut [u8; 32] = o.try_into().expect("32 bytes");
            *o = bytemuck::cast([u8s(b0), u8s(b1)]);
        } else if bits == 6 {
            let (q0, q1) = (sextet_quads(b0), sextet_quads(b1));
            let t = uint8x16x2_t(vreinterpretq_u8_u32(q0), vreinterpretq_u8_u32(q1));
            let o: &mut [u8; 24] = o.try_into().expect("24 bytes");
            o[..16].copy_from_slice(&u8s(vqtbl2q_u8(t, lo_idx)));
            o[16..].copy_from_slice(&u8s_half(vqtbl2_u8(t, hi_idx)));
        } else {
            let (p0, p1) = (nibble_pairs(b0), nibble_pairs(b1));
            let n = vuzp1q_u8(vreinterpretq_u8_u16(p0), vreinterpretq_u8_u16(p1));
            let o: &mut [u8; 16] = o.try_into().expect("16 bytes");
            *o = u8s(n);
        }
    };
    let zero = vdupq_n_u32(0);
    mx_groups(xs, scales, out, (bits, 1), zero, part, group, step)
}

// ---------------------------------------------------------------------------
// scaled E2M1 decode
// ---------------------------------------------------------------------------

/// [`e2m1_scaled_blocks`](crate::kernels::e2m1_scaled_blocks) with NEON:
/// each block's 16 products (code `c`'s value times the factor, times
/// `post`: the positive codes' in two registers, the negative codes' in
/// two more) are a 64-byte table; a word's 16 codes are its bytes' low
/// and high nibbles interleaved (`zip1`) and times 4, each spread over the
/// four bytes of its output by a `tbl` and plus the byte offsets `0..4`,
/// and one four-register `tbl` per four outputs reads their bytes.
#[target_feature(enable = "neon")]
pub(crate) fn e2m1_scaled_blocks_neon(
    words: &[u64],
    out: &mut [f32],
    per_block: usize,
    scales: &[u8],
    lut: &[f32; 256],
    post: f32,
) {
    let mags: [[f32; 4]; 2] = bytemuck::cast(E2M1_MAGS);
    let mags = mags.map(f32x4);
    let post = vdupq_n_f32(post);
    // `(m * f) * post`, as the value-by-value path multiplies, and
    // `(-m * f) * post` as its negation: the same bits (round to nearest
    // even is symmetric), but for which NaN a NaN product is, which the
    // dequantize leaves open.
    let table = |f: f32| {
        let pos = mags.map(|m| vmulq_f32(vmulq_n_f32(m, f), post));
        let [p0, p1] = pos.map(|p| vreinterpretq_u8_f32(p));
        let [n0, n1] = pos.map(|p| vreinterpretq_u8_f32(vnegq_f32(p)));
        uint8x16x4_t(p0, p1, n0, n1)
    };
    // Byte `4i + b` of output register `k` (value `4k + i`) is byte `b`
    // of that value's table entry: the index `4 * code + b`, its code
    // times 4 from byte `4k + i` of `c4`, plus `b`.
    let spread: [uint8x16_t; 4] =
        core::array::from_fn(|k| v8(core::array::from_fn(|b| (4 * k + b / 4) as u8)));
    let offset = v8(core::array::from_fn(|b| (b % 4) as u8));
    let low = vdupq_n_u8(0x0f);
    let word = |t: &uint8x16x4_t, w: u64, o: &mut [f32]| {
        let b = vreinterpretq_u8_u64(vdupq_n_u64(w));
        // Code `i` in byte `i`: byte `i / 2`'s low nibble for even `i`,
        // its high nibble for odd `i`.
        let c = vzip1q_u8(vandq_u8(b, low), vshrq_n_u8::<4>(b));
        let c4 = vshlq_n_u8::<2>(c);
        let v = spread.map(|s| vqtbl4q_u8(*t, vaddq_u8(vqtbl1q_u8(c4, s), offset)));
        let o: &mut [f32; 16] = o.try_into().expect("16 values");
        *o = f32s16(v);
    };
    scaled_blocks(words, out, per_block, scales, lut, table, word);
}

// ---------------------------------------------------------------------------
// scaled 8-bit decode
// ---------------------------------------------------------------------------

/// [`scaled8_blocks`](crate::kernels::scaled8_blocks) with NEON, of whole
/// blocks of `16 * steps_per_block` codes (`codes` holds a whole number of
/// them, `out` as many values, `factors` one per block): a step's 16 codes
/// widened to four registers of `u32` lanes, each register decoded by
/// [`decode4`] (the bits of `elem::decode_fast`, which are the decode's),
/// then multiplied by the block's factor (`fmul` by element): one rounding,
/// the product a scale pass over the decode's output gives. `F` must
/// satisfy `elem::decode_fast_ok`, as every format `scaled8_serves` takes
/// does.
#[target_feature(enable = "neon")]
pub(crate) fn scaled8_blocks_neon<F: MiniFloat>(
    codes: &[u8],
    out: &mut [f32],
    factors: &[f32],
    steps_per_block: usize,
) {
    let block = 16 * steps_per_block;
    assert!(block > 0 && codes.len() == out.len() && codes.len() == block * factors.len());
    let blocks = codes.chunks_exact(block).zip(out.chunks_exact_mut(block));
    for ((cs, os), &f) in blocks.zip(factors) {
        for (c, o) in cs.chunks_exact(16).zip(os.chunks_exact_mut(16)) {
            let c: [u8; 16] = c.try_into().expect("16 codes");
            let v = widen_u8x16(v8(c)).map(|q| {
                let x = vreinterpretq_f32_u32(decode4::<F>(q));
                vreinterpretq_u8_f32(vmulq_n_f32(x, f))
            });
            let o: &mut [f32; 16] = o.try_into().expect("16 values");
            *o = f32s16(v);
        }
    }
}
