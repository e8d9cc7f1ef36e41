//! The one-pass MX and NVFP4 GPU kernel bodies, generic over [`Simt`]:
//! `bitpack-ptx`'s `mx_*` and `nvfp4_*` entries are one-line calls of
//! them, and the tests run them on a simulated grid. They live here, beside
//! the block core whose scales and codes they compute (`kernels/` may not
//! import `formats/`), and give the bits of [`MxArray`](crate::formats::MxArray)
//! and [`Nvfp4Array`](crate::formats::Nvfp4Array).
//!
//! # Quantize: one pass
//!
//! Each block's values are read once: the amax (an integer max of the
//! magnitudes' bits, inputs widened exactly to `f32`), the scale
//! (the bits of [`mx_scale_f32`](crate::formats::mx_scale_f32) and
//! [`nvfp4_scale_f32`](crate::formats::nvfp4_scale_f32), without `f64` or
//! a branch), the codes (per value, pair or eight: the bits of `mx_codes`
//! and `nvfp4_codes`: the packed-pair encode, the thresholds (`f16` and
//! `bf16` data compare their own bits with thresholds on their grid, two
//! values a `u32`), the integer stochastic E2M1 rounding; a zero NVFP4
//! scale gives sign-only codes without `f64`) and the scale
//! byte are all made in registers and written in the same pass. Every
//! array index of the fast paths is a constant (unrolled by `rep!`), so
//! nothing goes through local memory; the stochastic codes are one
//! out-of-line routine per value (scalars only), which keeps the loops
//! small.
//!
//! **Fast path** (chosen once per launch): blocks along the last axis
//! (`inner == 1`), every row a whole number of a lane's blocks, `src` and
//! `words` 16-byte aligned. One lane owns 32 values (MX E2M1 and
//! 8-bit formats: one block; MX 6-bit formats: two blocks, 64 values, so
//! that their codes fill three whole 16-byte chunks; NVFP4: two blocks of
//! 16): it reads them with 128-bit loads, writes their codes with 128-bit
//! stores, and the lanes of a warp (consecutive units) gather their scale
//! bytes with shuffles into `u32` stores, row-major or swizzled.
//!
//! **Element path** (any other launch: blocks along another axis, the
//! columnwise output, a row that is not a whole number of units, a pointer
//! that is not 16-byte aligned, NVFP4 16 x 16 tiles): slower, the same
//! bits. The scales are written as `u32` words (each word's scales from
//! their blocks' values), a row-major tail of 1 to 3 bytes by one thread
//! after the loops; the codes by units of 32 output values, one load per
//! value and one `u64` store per word, each value's scale computed from its
//! block again.
//!
//! Swizzled scales ([`swizzled_index`]) are written whole, the padding of
//! the 128 x 4 tiles as zeros. `scales` must be 4-byte aligned, `words` 8.
//!
//! # Dequantize
//!
//! A lane owns the same units: it loads the codes (128-bit), each block's
//! scale once (one byte load per block), and stores the `f32` values as
//! 128-bit chunks; an element path as above for the rest.

use super::codes::{
    Nvfp4Scaler, e2m1_stochastic_f32, e2m1_threshold_bits, e2m1_thresholds_f32, e8m0_f32,
    mx_operand, mx_scale_f32_branchless, mx_value, nvfp4_value,
};
use super::{BlockGrid, MxElement, ScaleRule, TinyScale, swizzled_index, swizzled_len};
use crate::float::Mode;
use crate::formats::types::{E2M1, E4M3, E8M0};
use crate::formats::wide::{Rounding, random_bits};
use crate::kernels::fixed;
use crate::kernels::gpu::float::Input;
use crate::kernels::gpu::{map_out_by, rep, warp_store};
use crate::kernels::simt::{
    Simt, U32x4, aligned16, global_thread, global_warp, grid_stride, grid_threads, lane,
};
use crate::kernels::words_for;

pub use mx::{MxQuantize, mx_dequantize, mx_quantize};
pub use nvfp4::{Nvfp4Quantize, nvfp4_dequantize, nvfp4_quantize};

/// Flag bit of the entries' `flags` argument: stochastic rounding with
/// `seed` (element `i` of the output uses `random_bits(seed, i)`).
pub const STOCHASTIC: u32 = 1;
/// Flag bit: the scales in the 128 x 4 tiled layout ([`swizzled_index`]).
pub const SWIZZLED: u32 = 2;
/// Flag bit (MX): the columnwise output, the transpose of `[outer, d]`.
pub const COLUMNWISE: u32 = 4;

/// The rounding of the entries' `(seed, flags)`.
#[inline(always)]
fn rounding_of(seed: u64, flags: u32) -> Rounding {
    if flags & STOCHASTIC != 0 {
        Rounding::Stochastic { seed }
    } else {
        Rounding::Nearest
    }
}

/// The entries' `(seed, flags)` of a rounding and the swizzled option (the
/// inverse of [`rounding_of`]; a format's own flags are ored in).
fn rounding_args(rounding: Rounding, swizzled: bool) -> (u64, u32) {
    let (seed, st) = match rounding {
        Rounding::Nearest => (0, 0),
        Rounding::Stochastic { seed } => (seed, STOCHASTIC),
    };
    (seed, st | if swizzled { SWIZZLED } else { 0 })
}

/// The scale of block `g` of `grid` from its values (`src` read at
/// `index(k)` for each output index `k` of the block, widened), through
/// `scale(amax_bits)`: the element path.
///
/// # Safety
///
/// `src` holds every `index(k)` for `k < grid.len()`.
#[inline(always)]
unsafe fn block_scale_slow<S: Simt, I: Input>(
    s: &S,
    src: *const I,
    grid: &BlockGrid,
    index: impl Fn(usize) -> usize,
    g: usize,
    scale: impl Fn(u32) -> u8,
) -> u8 {
    let mut m = 0u32;
    grid.visit(grid.len(), g, |k| {
        // SAFETY: the caller's promise: `k < grid.len()`.
        let x = unsafe { s.load(src, index(k)) }.widen();
        m = m.max(x.to_bits() & 0x7fff_ffff);
        true
    });
    scale(m)
}

/// The scale bytes of the element path: `len` bytes at `scales`, byte `p`
/// the scale of block `at(p)` (`None`: a padding byte, 0), written as
/// `u32` words by a grid-stride loop, the last 1 to 3 bytes of a length
/// that is not a multiple of 4 by the grid's thread 0 after it.
///
/// # Safety
///
/// `scales` holds `len` bytes, 4-byte aligned, which no other thread
/// writes.
#[inline(always)]
unsafe fn store_scales_slow<S: Simt>(
    s: &S,
    scales: *mut u8,
    len: usize,
    at: impl Fn(usize) -> Option<usize>,
    scale_of: impl Fn(usize) -> u8,
) {
    let byte = |p: usize| at(p).map_or(0, &scale_of);
    let words = len / 4;
    for w in grid_stride(s, words) {
        let v = u32::from_le_bytes([
            byte(4 * w),
            byte(4 * w + 1),
            byte(4 * w + 2),
            byte(4 * w + 3),
        ]);
        // SAFETY: word `w < len / 4` of the aligned buffer, this thread's.
        unsafe { s.store(scales.cast::<u32>(), w, v) };
    }
    if global_thread(s) == 0 {
        // SAFETY: bytes `4 * words..len` of the buffer; only thread 0
        // writes them.
        unsafe { store_tail_of(s, scales, 4 * words, len, byte) };
    }
}

/// The block of scale-matrix position `p` of a `[rows, cols]` scale matrix
/// stored tiled ([`swizzled_index`] inverted), `None` for padding.
#[inline(always)]
fn unswizzle(p: usize, rows: usize, cols: usize) -> Option<usize> {
    let (tile, at) = (p / 512, p % 512);
    let per_row = cols.div_ceil(4).max(1);
    let r = tile / per_row * 128 + (at % 16) / 4 * 32 + at / 16;
    let c = tile % per_row * 4 + at % 4;
    (r < rows && c < cols).then(|| r * cols + c)
}

/// The codes of the element path: units of 32 output values, each value's
/// code from `code(i, x)` (`x` = input `index(i)`), packed `W` bits each
/// into the words, one `u64` store per word (the stream's last word
/// whole, padding bits zero).
///
/// # Safety
///
/// `src` holds every `index(i)`, `i < n`; `words` holds `words_for(W, n)`
/// words, which no other thread writes.
#[inline(always)]
unsafe fn store_codes_slow<S: Simt, I: Input, const W: u32>(
    s: &S,
    src: *const I,
    n: usize,
    words: *mut u64,
    index: impl Fn(usize) -> usize,
    mut code: impl FnMut(usize, f32) -> u8,
) {
    let avail = words_for(W, n);
    for u in grid_stride(s, n.div_ceil(32)) {
        let first = u * 32;
        let count = (n - first).min(32);
        let mut w = first * W as usize / 64;
        let (mut acc, mut fill) = (0u128, 0u32);
        for i in first..first + count {
            // SAFETY: `i < n`: the caller's promise.
            let x = unsafe { s.load(src, index(i)) }.widen();
            acc |= u128::from(code(i, x) & ((1 << W) - 1) as u8) << fill;
            fill += W;
            if fill >= 64 {
                // SAFETY: a whole word of this unit's (`w < avail`).
                unsafe { s.store(words, w, acc as u64) };
                (acc, fill, w) = (acc >> 64, fill - 64, w + 1);
            }
        }
        if fill > 0 && w < avail {
            // SAFETY: the unit's last, partial word.
            unsafe { s.store(words, w, acc as u64) };
        }
    }
}

/// Expands `$body` for `$k` in `0..32` (constants).
macro_rules! rep32 {
    ($k:ident => $body:block) => {
        rep!($k in [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27
            28 29 30 31] => $body)
    };
}

/// The bits of value `j` of a chunk of `I`s: an `f32`'s 32, a half's 16.
#[inline(always)]
fn lane_bits<I: Input>(c: U32x4, j: usize) -> u32 {
    if size_of::<I>() == 4 {
        c.0[j % 4]
    } else {
        (c.0[(j / 2) % 4] >> (16 * (j % 2))) & 0xffff
    }
}

/// The value of [`lane_bits`], widened to `f32` (exact).
#[inline(always)]
fn widen_bits<I: Input>(b: u32) -> f32 {
    if size_of::<I>() == 4 {
        return f32::from_bits(b);
    }
    // `f16` on the GPU: one `cvt.f32.f16` (the same value; a NaN's payload
    // may differ, and no output depends on it).
    #[cfg(target_arch = "nvptx64")]
    if core::any::TypeId::of::<I>()
        == core::any::TypeId::of::<crate::kernels::gpu::float::Half<false>>()
    {
        return crate::kernels::ptx::f32x2_from_f16x2(b)[0];
    }
    {
        bytemuck::try_cast::<u16, I>(b as u16)
            .unwrap_or_default()
            .widen()
    }
}

/// [`lane_bits`] with the sign cleared: their integer order is the order
/// of the magnitudes (NaN and infinity above every finite one).
#[inline(always)]
fn magnitude_bits<I: Input>(b: u32) -> u32 {
    if size_of::<I>() == 4 {
        b & 0x7fff_ffff
    } else {
        b & 0x7fff
    }
}

/// How a quantize path codes a block: `scale(amax_bits)` its scale byte
/// from the `f32` bits of its largest magnitude; `prep(scale)` the block's
/// state `P` and a mask of its code words (0: every code zero, the NaN
/// scale); `pair(&state, i, x, y)` the codes of values `i` (`x`) and `i +
/// 1` (`y`), `2 * W` bits; `eight`, where the coder has it, the 4-bit
/// codes of a chunk of eight 16-bit values at once (nibble `j` value `j`'s),
/// which the fast path takes instead of `pair` for such inputs.
#[derive(Clone, Copy)]
struct Coder<A, B, C, D> {
    scale: A,
    prep: B,
    pair: C,
    eight: Option<D>,
}

/// The E2M1 codes (signs included) of the eight 16-bit values of chunk
/// `c`, nibble `j` value `j`'s, against a block's thresholds `t`: each the
/// bits of a threshold of the data's grid (`e2m1_threshold_bits`, or
/// infinity for a zero scale) in both halves of a `u32`.
///
/// A half's magnitude with bit 15 set, minus a threshold, keeps bit 15
/// exactly when the magnitude reaches the threshold (bit 15 alone exceeds
/// every threshold, so no borrow crosses into the other half). The
/// thresholds reached are a prefix of the seven (they rise), so the code's
/// magnitude bits are the parity of all seven compares, the parity of the
/// 2nd, 4th and 6th, and the 4th; the sign is the value's own.
#[inline(always)]
fn e2m1_nearest_x8(c: U32x4, t: &[u32; 7]) -> u32 {
    // Nibble `i` of the low half: value `2i`'s code; of the high half:
    // value `2i + 1`'s.
    let mut x = 0u32;
    rep!(i in [0 1 2 3] => {
        let w = c.0[i];
        let a = w | 0x8000_8000;
        let d = t.map(|tk| a.wrapping_sub(tk));
        let b0 = d[0] ^ d[1] ^ d[2] ^ d[3] ^ d[4] ^ d[5] ^ d[6];
        let b1 = d[1] ^ d[3] ^ d[5];
        // Bits 15 and 31 of `w`, `d[3]`, `b1` and `b0` to bits 3, 2, 1 and
        // 0 of nibble `i` of each half.
        const M: u32 = 0x0001_0001;
        x |= (w >> (12 - 4 * i)) & (M << (4 * i + 3))
            | (d[3] >> (13 - 4 * i)) & (M << (4 * i + 2))
            | (b1 >> (14 - 4 * i)) & (M << (4 * i + 1))
            | (b0 >> (15 - 4 * i)) & (M << (4 * i));
    });
    // Interleave the halves' nibbles: swap bytes 1 and 2, then nibbles 1
    // and 2 of each half.
    let s = (x ^ (x >> 8)) & 0x0000_ff00;
    let x = x ^ s ^ (s << 8);
    let s = (x ^ (x >> 4)) & 0x00f0_00f0;
    x ^ s ^ (s << 4)
}

/// Division of `u32`s by one divisor `d`, each with two multiplies (D.
/// Lemire et al., "Faster remainder by direct computation", 2019: `m =
/// ceil(2^64 / d)`, `n / d = floor(m * n / 2^64)` for every `u32` `n` and
/// `d > 1`). `m` is 0 for a divisor of 0, 1 or past `u32`, which
/// [`swizzled_pos`] leaves to a plain division.
#[derive(Clone, Copy)]
struct DivU32 {
    m: u64,
}

impl DivU32 {
    #[inline(always)]
    fn new(d: usize) -> Self {
        let m = match u32::try_from(d) {
            Ok(0 | 1) | Err(_) => 0,
            Ok(d) => u64::MAX / u64::from(d) + 1,
        };
        DivU32 { m }
    }

    /// `n / d`, for `n` a `u32` and `d` in `2..2^32`.
    #[inline(always)]
    fn div(self, n: u32) -> u32 {
        let n = u64::from(n);
        let lo = (self.m & 0xffff_ffff) * n;
        let hi = (self.m >> 32) * n;
        ((hi + (lo >> 32)) >> 32) as u32
    }
}

/// [`swizzled_index`] of block `g` of a `[rows, nb]` scale matrix, the
/// division by `nb` through `by_nb`; indices or a divisor past `u32` (and
/// `nb <= 1`) take the plain division, out of line.
#[inline(always)]
fn swizzled_pos(g: usize, nb: usize, by_nb: DivU32) -> usize {
    match (u32::try_from(g), by_nb.m) {
        (Ok(n), 1..) => {
            let q = by_nb.div(n) as usize;
            swizzled_index(q, g - q * nb, nb)
        }
        _ => swizzled_pos_slow(g, nb),
    }
}

/// [`swizzled_pos`] by a plain division (no division by zero: `max(1)`).
#[inline(never)]
fn swizzled_pos_slow(g: usize, nb: usize) -> usize {
    swizzled_index(g / nb.max(1), g % nb.max(1), nb)
}

/// The thresholds of [`e2m1_nearest_x8`] for `f16` or `bf16` data `I`:
/// [`e2m1_threshold_bits`] on the data's grid under `scale` and
/// `tensor_scale`, or all infinity where `infinite` (no value reaches
/// them), each in both halves of a `u32`.
#[inline(always)]
fn half_threshold_words<I: Input>(scale: E4M3, tensor_scale: f32, infinite: bool) -> [u32; 7] {
    let (t, inf) = if I::BF16 {
        (
            e2m1_threshold_bits::<8, -133, 0x7f80>(scale, tensor_scale),
            0x7f80,
        )
    } else {
        (
            e2m1_threshold_bits::<11, -24, 0x7c00>(scale, tensor_scale),
            0x7c00,
        )
    };
    t.map(|t| if infinite { inf } else { t } * 0x1_0001)
}

/// The `eight` of a [`Coder`] that has none.
type NoEight<P> = fn(&P, U32x4) -> u32;

/// The fast quantize path: units of `U` blocks of `B` values, unit `u` of
/// the stream taken by lane `u % 32` of a warp, every unit whole. A lane
/// loads a block's chunks (128-bit), reduces its amax, codes it through
/// `coder` (every index a constant: the words live in registers) and
/// stores the unit's code words as 128-bit chunks; `pos(g)` is where block
/// `g`'s scale goes (`g` a multiple of 4: the four bytes `g..g + 4` go
/// together as one `u32` at `pos(g)`). Blocks past the last whole `u32` of
/// scales are left to the caller.
///
/// # Safety
///
/// `src` (16-byte aligned) holds `units * U * B` values, `words` (16-byte
/// aligned) their `W`-bit codes, `scales` (4-byte aligned) every `pos(g)
/// + 4`; nothing else writes them.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn quantize_fast<
    S: Simt,
    I: Input,
    const W: u32,
    const B: usize,
    const U: usize,
    P: Copy,
>(
    s: &S,
    src: *const I,
    units: usize,
    words: *mut u64,
    scales: *mut u8,
    pos: impl Fn(usize) -> usize,
    coder: Coder<
        impl Fn(u32) -> u8,
        impl Fn(u8) -> (u64, P),
        impl Fn(&P, u64, f32, f32) -> u16,
        impl Fn(&P, U32x4) -> u32,
    >,
) {
    // `B * W` is a multiple of 64 and `U * B * W` of 128 for every
    // instance the callers run (both `U` of a format are compiled, one is
    // dead).
    let per = 16 / size_of::<I>();
    let cpb = B / per;
    let bw = B * W as usize / 64;
    let cin = src.cast::<U32x4>();
    let cout = words.cast::<U32x4>();
    let blocks = units * U;
    let tiles = units.div_ceil(32);
    let step = (grid_threads(s) / 32).max(1);
    let mut t = global_warp(s);
    // Warp-uniform: every lane of a warp runs the same tiles (the
    // shuffles below need all 32).
    while t < tiles {
        let u = t * 32 + lane(s) as usize;
        let mut bits = 0u32;
        let mut out = [0u64; 8];
        if u < units {
            rep!(b in [0 1] => {
                if b < U {
                    let mut ch = [U32x4::default(); 8];
                    rep!(k in [0 1 2 3 4 5 6 7] => {
                        if k < cpb {
                            // SAFETY: chunk `k` of block `b` of unit `u <
                            // units` of the aligned input.
                            ch[k] = unsafe { s.load(cin, (u * U + b) * cpb + k) };
                        }
                    });
                    let mut m = 0u32;
                    if per == 8 {
                        // Two 16-bit values a word: the high halves'
                        // magnitudes compare in place, the low halves'
                        // apart.
                        let (mut hi, mut lo) = (0u32, 0u32);
                        rep!(j in [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15] => {
                            if 2 * j < B {
                                let w = ch[j / 4].0[j % 4];
                                hi = hi.max(w & 0x7fff_0000);
                                lo = lo.max(w << 17);
                            }
                        });
                        m = (hi >> 16).max(lo >> 17);
                    } else {
                        rep32!(j => {
                            if j < B {
                                m = m.max(magnitude_bits::<I>(lane_bits::<I>(ch[j / per], j % per)));
                            }
                        });
                    }
                    let sc = (coder.scale)(widen_bits::<I>(m).to_bits() & 0x7fff_ffff);
                    let (keep, p) = (coder.prep)(sc);
                    let first = ((u * U + b) * B) as u64;
                    let mut wb = [0u64; 8];
                    let eight = coder.eight.as_ref().filter(|_| W == 4 && per == 8);
                    if let Some(eight) = eight {
                        // Eight codes of 4 bits per chunk: chunk `k` is half
                        // of word `k / 2`.
                        rep!(k in [0 1 2 3 4 5 6 7] => {
                            if k < cpb {
                                wb[k / 2] |= u64::from(eight(&p, ch[k])) << (32 * (k % 2));
                            }
                        });
                    }
                    rep!(j in [0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30] => {
                        if j < B && eight.is_none() {
                            let x = widen_bits::<I>(lane_bits::<I>(ch[j / per], j % per));
                            let y = widen_bits::<I>(lane_bits::<I>(ch[(j + 1) / per], (j + 1) % per));
                            let c = u64::from((coder.pair)(&p, first + j as u64, x, y));
                            let bit = j * W as usize;
                            let (k, sh) = (bit / 64, bit % 64);
                            wb[k] |= c << sh;
                            if sh + 2 * W as usize > 64
                                    && let Some(w) = wb.get_mut(k + 1)
                            {
                                *w |= c >> (64 - sh);
                            }
                        }
                    });
                    rep!(k in [0 1 2 3] => {
                        if k < bw
                                && let Some(w) = out.get_mut(b * bw + k)
                        {
                            *w = wb[k] & keep;
                        }
                    });
                    bits |= u32::from(sc) << (8 * b);
                }
            });
        }
        // A unit's codes are `g` chunks. With more than one, the tile goes
        // through the warp's shuffles, so that each store instruction covers
        // 32 consecutive chunks; a lane storing its own would put its
        // neighbours `16g` bytes apart.
        let g = U * bw / 2;
        if g > 1 {
            let mut v = [U32x4::default(); 8];
            rep!(k in [0 1 2] => {
                if k < g {
                    v[k] = U32x4::from_u64s([out[2 * k], out[2 * k + 1]]);
                }
            });
            // SAFETY: the tile's chunks of codes below `units * g`, this
            // warp's alone.
            unsafe { warp_store(s, cout, (t * 32 * g, units * g), g, &v) };
        } else if u < units {
            let v = U32x4::from_u64s([out[0], out[1]]);
            // SAFETY: unit `u`'s one chunk of codes, this lane's alone.
            unsafe { s.store(cout, u, v) };
        }
        // Four scale bytes a `u32`: lanes `l..l + 4 / U` give theirs to
        // lane `l`.
        let mut word = bits;
        rep!(k in [1 2 3] => {
            if k < 4 / U {
                word |= s.shfl_down_u32(bits, k as u32) << (8 * U * k);
            }
        });
        let g = u * U;
        if (lane(s) as usize).is_multiple_of(4 / U) && g + 4 <= blocks {
            // SAFETY: the caller's promise; this lane alone writes blocks
            // `g..g + 4`'s scales.
            unsafe { s.store(scales.cast::<u32>(), pos(g) / 4, word) };
        }
        t += step;
    }
}

/// Bytes `p..end` (at most 3) of `scales`, byte `p + k` = `bytes[k]`:
/// the scales past the last whole `u32`, by one thread, out of line (its
/// byte stores in no loop of the entry; only scalars cross the call, so
/// nothing goes through local memory).
///
/// # Safety
///
/// `scales` holds bytes `p..end`, which no other thread writes.
#[inline(never)]
unsafe fn store_tail<S: Simt>(
    s: &S,
    scales: *mut u8,
    p: usize,
    end: usize,
    b0: u8,
    b1: u8,
    b2: u8,
) {
    if end > p {
        // SAFETY: `p < end`: the caller's promise.
        unsafe { s.store(scales, p, b0) };
    }
    if end > p + 1 {
        // SAFETY: as above.
        unsafe { s.store(scales, p + 1, b1) };
    }
    if end > p + 2 {
        // SAFETY: as above.
        unsafe { s.store(scales, p + 2, b2) };
    }
}

/// [`store_tail`] of `byte(q)` for the bytes `q` in `p..end` (at most 3).
///
/// # Safety
///
/// As [`store_tail`].
#[inline(always)]
unsafe fn store_tail_of<S: Simt>(
    s: &S,
    scales: *mut u8,
    p: usize,
    end: usize,
    byte: impl Fn(usize) -> u8,
) {
    let b = |q: usize| if q < end { byte(q) } else { 0 };
    // SAFETY: the caller's promise.
    unsafe { store_tail(s, scales, p, end, b(p), b(p + 1), b(p + 2)) };
}

/// Zero `u32` words for the padding rows of the last row of 128 x 4 tiles
/// of a `[rows, 4 * tiles_row]` scale matrix (the words no lane wrote).
///
/// # Safety
///
/// `scales` (4-byte aligned) holds the tiled matrix; nothing else writes
/// its padding.
#[inline(always)]
unsafe fn zero_padding<S: Simt>(s: &S, scales: *mut u8, rows: usize, tiles_row: usize) {
    let first_pad = rows / 128 * 128;
    if rows > first_pad {
        let base = rows / 128 * tiles_row * 128;
        for w in grid_stride(s, tiles_row * 128) {
            let at = (w % 128) * 4;
            let r = first_pad + (at % 16) / 4 * 32 + at / 16;
            if r >= rows {
                // SAFETY: word `base + w` of the tiled buffer, this
                // thread's alone (a padding word no lane wrote).
                unsafe { s.store(scales.cast::<u32>(), base + w, 0) };
            }
        }
    }
}

/// The element quantize path (see the module docs): the scales, then the
/// codes, each value's from its block's scale through `coder`.
///
/// # Safety
///
/// `src` holds every `index(i)`, `i < grid.len()`; `words` holds
/// `words_for(W, grid.len())` words (8-byte aligned), `scales` `len` bytes
/// (4-byte aligned); nothing else writes them.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn quantize_slow<S: Simt, I: Input, const W: u32, P: Copy>(
    s: &S,
    src: *const I,
    grid: BlockGrid,
    index: impl Fn(usize) -> usize + Copy,
    words: *mut u64,
    scales: *mut u8,
    len: usize,
    at: impl Fn(usize) -> Option<usize>,
    coder: Coder<
        impl Fn(u32) -> u8 + Copy,
        impl Fn(u8) -> (u64, P),
        impl Fn(&P, u64, f32, f32) -> u16,
        impl Fn(&P, U32x4) -> u32,
    >,
) {
    // SAFETY: `src` holds every `index(k)`, the caller's promise.
    let slow_scale = |g: usize| unsafe { block_scale_slow(s, src, &grid, index, g, coder.scale) };
    // SAFETY: `scales` holds `len` bytes, 4-byte aligned: the caller's
    // promise.
    unsafe { store_scales_slow(s, scales, len, at, slow_scale) };
    let mut cur = None;
    let code = |i: usize, x: f32| {
        let g = grid.scale_of(i);
        let (keep, p) = match cur {
            Some((h, keep, p)) if h == g => (keep, p),
            _ => {
                let (keep, p) = (coder.prep)(slow_scale(g));
                cur = Some((g, keep, p));
                (keep, p)
            }
        };
        ((coder.pair)(&p, i as u64, x, 0.0) as u64 & keep) as u8
    };
    // SAFETY: the caller's promise.
    unsafe { store_codes_slow::<S, I, W>(s, src, grid.len(), words, index, code) };
}

/// The element dequantize path: value `i` is `value(code i, scale byte of
/// grid.scale_of(i))`, one store per value.
///
/// # Safety
///
/// `words` holds `words_for(W, n)` words, `scales` the grid's scales, `out`
/// `n` values, which no other thread writes.
#[inline(always)]
unsafe fn dequantize_slow<S: Simt, const W: u32>(
    s: &S,
    words: *const u64,
    grid: BlockGrid,
    scales: *const u8,
    out: *mut f32,
    value: impl Fn(u8, u8) -> f32,
) {
    let n = grid.len();
    let avail = words_for(W, n);
    for u in grid_stride(s, n.div_ceil(32)) {
        let first = u * 32;
        let mut walk = grid.scale_walk(first);
        let (mut cur, mut sc) = (usize::MAX, 0u8);
        for i in first..n.min(first + 32) {
            let g = walk.next().unwrap_or(0);
            if g != cur {
                // SAFETY: `g` is one of the grid's scales.
                (cur, sc) = (g, unsafe { s.load(scales, g) });
            }
            let bit = i * W as usize;
            let (k, sh) = (bit / 64, (bit % 64) as u32);
            // SAFETY: word `k < avail` holds value `i`.
            let mut c = unsafe { s.load(words, k) } >> sh;
            if sh + W > 64 && k + 1 < avail {
                // SAFETY: `k + 1 < avail`.
                c |= unsafe { s.load(words, k + 1) } << (64 - sh);
            }
            let v = value((c & ((1 << W) - 1)) as u8, sc);
            // SAFETY: `i < n`, this thread's value.
            unsafe { s.store(out, i, v) };
        }
    }
}

// After the macros above, which the bodies use.
mod mx;
mod nvfp4;
