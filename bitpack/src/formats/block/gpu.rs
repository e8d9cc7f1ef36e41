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
//! ([`mx_scale_f32`], [`nvfp4_scale_f32`]: no `f64`), the codes
//! ([`mx_codes`], [`nvfp4_codes`]: the packed-pair encode) and the scale
//! byte are all made in registers and written in the same pass.
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

use super::codes::{mx_codes, mx_scale_f32, mx_value, nvfp4_codes, nvfp4_scale_f32, nvfp4_value};
use super::{BlockGrid, MxElement, ScaleRule, TinyScale, swizzled_index, swizzled_len};
use crate::formats::types::{E2M1, E4M3, E8M0};
use crate::formats::wide::Rounding;
use crate::kernels::gpu::float::Input;
use crate::kernels::simt::{
    Simt, U32x4, aligned16, global_thread, global_warp, grid_stride, grid_threads, lane,
};
use crate::kernels::words_for;

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

/// What an MX quantization launch computes: the input shape, the rule, the
/// rounding and where the outputs go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MxQuantize {
    /// The input as `[outer, d, inner]`, blocks of 32 along `d`; for
    /// [`columnwise`](Self::columnwise), the `[outer, d]` matrix (`inner`
    /// must be 1) whose columns are blocked.
    pub outer: usize,
    /// The extent of the blocked axis.
    pub d: usize,
    /// The product of the dimensions after the axis.
    pub inner: usize,
    /// The scale rule.
    pub rule: ScaleRule,
    /// Nearest or stochastic.
    pub rounding: Rounding,
    /// Scales in the 128 x 4 tiled layout of the scale matrix
    /// `[scales / last, last]`, `last` = the blocks of a run for `inner ==
    /// 1` (and for the columnwise output), else `inner`.
    pub swizzled: bool,
    /// The output is the transpose `[d, outer]` of the input, blocked
    /// along its last axis: [`MxArray::quantize_columnwise`](crate::formats::MxArray::quantize_columnwise).
    pub columnwise: bool,
}

impl MxQuantize {
    /// From the entries' arguments (`rule`: 0 Floor, 1 Ceil, 2 Even, 3
    /// RCeil; `flags`: [`STOCHASTIC`], [`SWIZZLED`], [`COLUMNWISE`]).
    #[inline(always)]
    pub fn from_args(outer: u64, d: u64, inner: u64, rule: u32, seed: u64, flags: u32) -> Self {
        MxQuantize {
            outer: outer as usize,
            d: d as usize,
            inner: inner as usize,
            rule: match rule {
                1 => ScaleRule::Ceil,
                2 => ScaleRule::Even,
                3 => ScaleRule::RCeil,
                _ => ScaleRule::Floor,
            },
            rounding: rounding_of(seed, flags),
            swizzled: flags & SWIZZLED != 0,
            columnwise: flags & COLUMNWISE != 0,
        }
    }

    /// The entries' `(rule, seed, flags)` for these options.
    pub fn args(&self) -> (u32, u64, u32) {
        let rule = match self.rule {
            ScaleRule::Floor => 0,
            ScaleRule::Ceil => 1,
            ScaleRule::Even => 2,
            ScaleRule::RCeil => 3,
        };
        let (seed, st) = match self.rounding {
            Rounding::Nearest => (0, 0),
            Rounding::Stochastic { seed } => (seed, STOCHASTIC),
        };
        let flags = st
            | if self.swizzled { SWIZZLED } else { 0 }
            | if self.columnwise { COLUMNWISE } else { 0 };
        (rule, seed, flags)
    }

    /// The grid of the output (row-major over the output's shape).
    #[inline(always)]
    pub fn grid(&self) -> BlockGrid {
        if self.columnwise {
            BlockGrid::along(self.d, self.outer, 1, 32)
        } else {
            BlockGrid::along(self.outer, self.d, self.inner, 32)
        }
    }

    /// The number of values.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.grid().len()
    }

    /// Whether there are no values.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The scale matrix `(rows, cols)` that [`swizzled`](Self::swizzled)
    /// tiles.
    #[inline(always)]
    fn scale_matrix(&self) -> (usize, usize) {
        let g = self.grid();
        let cols = if self.columnwise {
            self.outer.div_ceil(32)
        } else if self.inner <= 1 {
            self.d.div_ceil(32)
        } else {
            self.inner
        };
        (g.scales().checked_div(cols).unwrap_or(0), cols)
    }

    /// The bytes the scale output holds: the grid's scales, or their
    /// tiled layout with its padding.
    pub fn scales_len(&self) -> usize {
        if self.swizzled {
            let (r, c) = self.scale_matrix();
            swizzled_len(r, c)
        } else {
            self.grid().scales()
        }
    }

    /// The input index of output value `i`.
    #[inline(always)]
    fn src_index(&self, i: usize) -> usize {
        if self.columnwise {
            let rows = self.outer.max(1);
            (i % rows) * self.d + i / rows
        } else {
            i
        }
    }
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
        // Straight-line: no byte store in a loop.
        let p = 4 * words;
        if len > p {
            // SAFETY: `p < len`; only thread 0 writes the tail.
            unsafe { s.store(scales, p, byte(p)) };
        }
        if len > p + 1 {
            // SAFETY: as above.
            unsafe { s.store(scales, p + 1, byte(p + 1)) };
        }
        if len > p + 2 {
            // SAFETY: as above.
            unsafe { s.store(scales, p + 2, byte(p + 2)) };
        }
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

/// The most values a lane of the fast paths owns (two MX blocks).
const V: usize = 64;

/// Loads values `first..first + nv` of `src` (16-byte aligned, `first *
/// size` and `nv * size` multiples of 16) with 128-bit loads, widened.
///
/// # Safety
///
/// `src` holds them.
#[inline(always)]
unsafe fn load_unit<S: Simt, I: Input>(
    s: &S,
    src: *const I,
    first: usize,
    nv: usize,
    xs: &mut [f32; V],
) {
    let per = 16 / size_of::<I>();
    let c = src.cast::<U32x4>();
    for k in 0..nv / per {
        // SAFETY: the caller's promise.
        let x = unsafe { s.load(c, first / per + k) };
        let bytes: [u8; 16] = bytemuck::cast(x.0);
        for j in 0..per {
            let b = &bytes[j * size_of::<I>()..(j + 1) * size_of::<I>()];
            xs[k * per + j] = bytemuck::pod_read_unaligned::<I>(b).widen();
        }
    }
}

/// Packs `codes[..nv]` (`W` bits each) into `out` (`nv * W / 64` words).
#[inline(always)]
fn pack_unit<const W: u32>(codes: &[u8; V], nv: usize, out: &mut [u64; 8]) {
    for (j, &c) in codes.iter().enumerate().take(nv) {
        let (bit, x) = (j * W as usize, u64::from(c) & ((1 << W) - 1));
        let (k, sh) = (bit / 64, bit % 64);
        out[k] |= x << sh;
        if sh + W as usize > 64 {
            out[k + 1] |= x >> (64 - sh);
        }
    }
}

/// The fast quantize path: units of `V` values (`U` blocks of `B`), unit
/// `u` of the stream taken by lane `u % 32` of a warp, every unit whole.
/// `quant(first, xs, codes)` quantizes one block (its first value index,
/// its values, its codes) and gives its scale byte; `pos(g)` is where block
/// `g`'s scale goes (`g` a multiple of 4: the four bytes `g..g + 4` go
/// together as one `u32` at `pos(g)`). Blocks past the last whole `u32` of
/// scales are left to the caller.
///
/// # Safety
///
/// `src` (16-byte aligned) holds `units * V` values, `words` (16-byte
/// aligned) their `W`-bit codes, `scales` (4-byte aligned) every `pos(g)
/// + 4`; nothing else writes them.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn quantize_fast<S: Simt, I: Input, const W: u32, const B: usize, const U: usize>(
    s: &S,
    src: *const I,
    units: usize,
    words: *mut u64,
    scales: *mut u8,
    pos: impl Fn(usize) -> usize,
    quant: impl Fn(usize, &[f32; B], &mut [u8; B]) -> u8,
) {
    // `U * B * W` is a multiple of 128 for the instances the callers run
    // (both `U` of a format are compiled, one is dead).
    let nv = U * B;
    let chunks = nv * W as usize / 128;
    let blocks = units * U;
    let tiles = units.div_ceil(32);
    let step = (grid_threads(s) / 32).max(1);
    let mut t = global_warp(s);
    // Warp-uniform: every lane of a warp runs the same tiles (the
    // shuffles below need all 32).
    while t < tiles {
        let u = t * 32 + lane(s) as usize;
        let mut bits = 0u32;
        if u < units {
            let mut xs = [0f32; V];
            // SAFETY: unit `u < units` of the aligned input.
            unsafe { load_unit(s, src, u * nv, nv, &mut xs) };
            let mut codes = [0u8; V];
            for b in 0..U {
                let (mut x, mut c) = ([0f32; B], [0u8; B]);
                x.copy_from_slice(&xs[b * B..(b + 1) * B]);
                let sc = quant(u * nv + b * B, &x, &mut c);
                codes[b * B..(b + 1) * B].copy_from_slice(&c);
                bits |= u32::from(sc) << (8 * b);
            }
            let mut out = [0u64; 8];
            pack_unit::<W>(&codes, nv, &mut out);
            for k in 0..chunks {
                let v = U32x4::from_u64s([out[2 * k], out[2 * k + 1]]);
                // SAFETY: chunk `k` of unit `u`, this lane's alone.
                unsafe { s.store(words.cast::<U32x4>(), u * chunks + k, v) };
            }
        }
        // Four scale bytes a `u32`: lanes `l..l + 4 / U` give theirs to
        // lane `l`.
        let mut word = bits;
        for k in 1..4 / U {
            word |= s.shfl_down_u32(bits, k as u32) << (8 * U * k);
        }
        let g = u * U;
        if (lane(s) as usize).is_multiple_of(4 / U) && g + 4 <= blocks {
            // SAFETY: the caller's promise; this lane alone writes blocks
            // `g..g + 4`'s scales.
            unsafe { s.store(scales.cast::<u32>(), pos(g) / 4, word) };
        }
        t += step;
    }
}

/// The fast dequantize path: unit `u` (`U` blocks of `B`) by thread `u`
/// of a grid-stride walk; `value(code, scale byte)`; `scale_at(g)` is the
/// index of block `g`'s scale.
///
/// # Safety
///
/// `words` (16-byte aligned) holds `units * V` codes, `out` (16-byte
/// aligned) room for them, `scales` every `scale_at(g)`; nothing else
/// writes `out`.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
unsafe fn dequantize_fast<S: Simt, const W: u32, const B: usize, const U: usize>(
    s: &S,
    words: *const u64,
    units: usize,
    scales: *const u8,
    out: *mut f32,
    value: impl Fn(u8, u8) -> f32,
) {
    let nv = U * B;
    let chunks = nv * W as usize / 128;
    for u in grid_stride(s, units) {
        let mut regs = [0u64; 8];
        for k in 0..chunks {
            // SAFETY: chunk `k` of unit `u` of the aligned words.
            let [a, b] = unsafe { s.load(words.cast::<U32x4>(), u * chunks + k) }.to_u64s();
            (regs[2 * k], regs[2 * k + 1]) = (a, b);
        }
        let mut vals = [0f32; V];
        for b in 0..U {
            // SAFETY: block `u * U + b`'s scale: the caller's promise.
            let sc = unsafe { s.load(scales, u * U + b) };
            for j in b * B..(b + 1) * B {
                let (bit, m) = (j * W as usize, (1u64 << W) - 1);
                let (k, sh) = (bit / 64, bit % 64);
                let mut c = regs[k] >> sh;
                if sh + W as usize > 64 {
                    c |= regs[k + 1] << (64 - sh);
                }
                vals[j] = value((c & m) as u8, sc);
            }
        }
        for k in 0..nv / 4 {
            let x = U32x4([
                vals[4 * k].to_bits(),
                vals[4 * k + 1].to_bits(),
                vals[4 * k + 2].to_bits(),
                vals[4 * k + 3].to_bits(),
            ]);
            // SAFETY: chunk `k` of unit `u`'s values, this thread's.
            unsafe { s.store(out.cast::<U32x4>(), u * nv / 4 + k, x) };
        }
    }
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
    grid: &BlockGrid,
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

/// Blocks per lane of the MX fast paths: two for the 6-bit formats (so
/// that a lane's codes fill whole 16-byte chunks), else one.
const fn mx_unit_blocks(w: u32) -> usize {
    if w == 6 { 2 } else { 1 }
}

/// Quantizes `q.len()` values of `src` to MX (`F`, `W = F::BITS`) in one
/// pass: the codes into `words` (the dense stream of the output, row-major
/// over the output shape, `words_for(W, len)` words) and the scales into
/// `scales` (`q.scales_len()` bytes). The bits of
/// [`MxArray::quantize_with`](crate::formats::MxArray::quantize_with) (and
/// of `quantize_columnwise` for `q.columnwise`, and `scales_swizzled` of
/// their scales for `q.swizzled`).
///
/// # Safety
///
/// `src` holds `q.outer * q.d * q.inner` values (`q.inner == 1` when
/// columnwise); `words` room for `words_for(W, len)` words (8-byte aligned),
/// `scales` for `q.scales_len()` bytes (4-byte aligned); nothing else writes
/// them during the launch.
#[inline(always)]
pub unsafe fn mx_quantize<S: Simt, F: MxElement, const W: u32, I: Input>(
    s: &S,
    src: *const I,
    q: &MxQuantize,
    words: *mut u64,
    scales: *mut u8,
) {
    const { assert!(W == F::BITS) };
    let grid = q.grid();
    let n = grid.len();
    let (rule, rounding) = (q.rule, q.rounding);
    let scale_of_bits = |m: u32| mx_scale_f32::<F>(m, rule).to_bits();
    let (srows, scols) = q.scale_matrix();
    let u_blocks = mx_unit_blocks(W);
    let nb = q.d.div_ceil(32);
    let fast = !q.columnwise
        && q.inner == 1
        && q.d.is_multiple_of(32 * u_blocks)
        && aligned16(src)
        && aligned16(words)
        && (!q.swizzled || nb.is_multiple_of(4));
    let index = |i: usize| q.src_index(i);
    // SAFETY: `src` holds every `index(k)`, the caller's promise.
    let slow_scale = |g: usize| unsafe { block_scale_slow(s, src, &grid, index, g, scale_of_bits) };
    if fast {
        let units = grid.scales() / u_blocks;
        let pos = |g: usize| {
            if q.swizzled {
                swizzled_index(g / nb, g % nb, nb)
            } else {
                g
            }
        };
        let quant = |first: usize, xs: &[f32; 32], codes: &mut [u8; 32]| {
            let m = xs.iter().fold(0, |m, x| m.max(x.to_bits() & 0x7fff_ffff));
            let scale = mx_scale_f32::<F>(m, rule);
            mx_codes::<F, f32>(xs, scale, rounding, first as u64, codes);
            scale.to_bits()
        };
        if u_blocks == 2 {
            // SAFETY: the fast path's conditions hold; the caller's promise.
            unsafe { quantize_fast::<S, I, W, 32, 2>(s, src, units, words, scales, pos, quant) }
        } else {
            // SAFETY: as above.
            unsafe { quantize_fast::<S, I, W, 32, 1>(s, src, units, words, scales, pos, quant) }
        }
        let blocks = grid.scales();
        if q.swizzled {
            // The padding rows of the last tile row: zero words.
            let tiles_row = nb / 4;
            let first_pad = srows / 128 * 128;
            if srows > first_pad {
                let base = srows / 128 * tiles_row * 128;
                for w in grid_stride(s, tiles_row * 128) {
                    let at = (w % 128) * 4;
                    let r = first_pad + (at % 16) / 4 * 32 + at / 16;
                    if r >= srows {
                        // SAFETY: word `base + w` of the tiled buffer, this
                        // thread's alone (a padding word no lane wrote).
                        unsafe { s.store(scales.cast::<u32>(), base + w, 0) };
                    }
                }
            }
        } else if global_thread(s) == 0 {
            // The last 1 to 3 scales past the last whole `u32`.
            let p = blocks / 4 * 4;
            if blocks > p {
                // SAFETY: a scale of the grid; only thread 0 writes the tail.
                unsafe { s.store(scales, p, slow_scale(p)) };
            }
            if blocks > p + 1 {
                // SAFETY: as above.
                unsafe { s.store(scales, p + 1, slow_scale(p + 1)) };
            }
            if blocks > p + 2 {
                // SAFETY: as above.
                unsafe { s.store(scales, p + 2, slow_scale(p + 2)) };
            }
        }
        return;
    }
    let len = q.scales_len();
    let at = |p: usize| {
        if q.swizzled {
            unswizzle(p, srows, scols)
        } else {
            Some(p)
        }
    };
    // SAFETY: `scales` holds `len` bytes, 4-byte aligned: the caller's
    // promise.
    unsafe { store_scales_slow(s, scales, len, at, slow_scale) };
    let mut cur = (usize::MAX, E8M0::from_bits(0));
    let code = |i: usize, x: f32| {
        let g = grid.scale_of(i);
        if g != cur.0 {
            cur = (g, E8M0::from_bits(slow_scale(g)));
        }
        let mut c = [0u8];
        mx_codes::<F, f32>(&[x], cur.1, rounding, i as u64, &mut c);
        c[0]
    };
    // SAFETY: the caller's promise.
    unsafe { store_codes_slow::<S, I, W>(s, src, n, words, index, code) };
}

/// Dequantizes an MX array (`F`, `W = F::BITS`) of `[outer, d, inner]`
/// blocked along `d`: `words` the packed codes, `scales` the row-major
/// scales, `out` the `f32` values: the bits of
/// [`MxArray::dequantize`](crate::formats::MxArray::dequantize).
///
/// # Safety
///
/// `words` holds `words_for(W, len)` words, `scales` one byte per block,
/// `out` room for `outer * d * inner` values; nothing else writes `out`.
#[inline(always)]
pub unsafe fn mx_dequantize<S: Simt, F: MxElement, const W: u32>(
    s: &S,
    words: *const u64,
    outer: usize,
    d: usize,
    inner: usize,
    scales: *const u8,
    out: *mut f32,
) {
    const { assert!(W == F::BITS) };
    let grid = BlockGrid::along(outer, d, inner, 32);
    let value = |c: u8, sc: u8| mx_value(F::from_raw_bits(c), E8M0::from_bits(sc));
    let u_blocks = mx_unit_blocks(W);
    if inner == 1 && d.is_multiple_of(32 * u_blocks) && aligned16(words) && aligned16(out) {
        let units = grid.scales() / u_blocks;
        if u_blocks == 2 {
            // SAFETY: the fast path's conditions hold; the caller's promise.
            unsafe { dequantize_fast::<S, W, 32, 2>(s, words, units, scales, out, value) }
        } else {
            // SAFETY: as above.
            unsafe { dequantize_fast::<S, W, 32, 1>(s, words, units, scales, out, value) }
        }
    } else {
        // SAFETY: the caller's promise.
        unsafe { dequantize_slow::<S, W>(s, words, &grid, scales, out, value) }
    }
}

/// What an NVFP4 quantization launch computes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Nvfp4Quantize {
    /// Rows of the `[rows, cols]` input (the leading dimensions flattened).
    pub rows: usize,
    /// Columns: blocks of 16 run along them.
    pub cols: usize,
    /// Rows per matrix: 16 x 16 tiles do not cross matrices.
    pub matrix_rows: usize,
    /// 1 (1 x 16 blocks) or 16 (16 x 16 tiles).
    pub tile: usize,
    /// The tensor scale (finite, positive).
    pub tensor_scale: f32,
    /// The rule for tiny scales.
    pub tiny: TinyScale,
    /// Nearest or stochastic.
    pub rounding: Rounding,
    /// Scales in the 128 x 4 tiled layout of `[rows, ceil(cols / 16)]`.
    pub swizzled: bool,
}

impl Nvfp4Quantize {
    /// From the entries' arguments (`tiny`: 0 Flush, 1 Smallest, 2
    /// MinNormal; `flags`: [`STOCHASTIC`], [`SWIZZLED`]).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn from_args(
        rows: u64,
        cols: u64,
        matrix_rows: u64,
        tile: u64,
        tensor_scale: f32,
        tiny: u32,
        seed: u64,
        flags: u32,
    ) -> Self {
        Nvfp4Quantize {
            rows: rows as usize,
            cols: cols as usize,
            matrix_rows: matrix_rows as usize,
            tile: tile as usize,
            tensor_scale,
            tiny: match tiny {
                1 => TinyScale::Smallest,
                2 => TinyScale::MinNormal,
                _ => TinyScale::Flush,
            },
            rounding: rounding_of(seed, flags),
            swizzled: flags & SWIZZLED != 0,
        }
    }

    /// The entries' `(tiny, seed, flags)` for these options.
    pub fn args(&self) -> (u32, u64, u32) {
        let tiny = match self.tiny {
            TinyScale::Flush => 0,
            TinyScale::Smallest => 1,
            TinyScale::MinNormal => 2,
        };
        let (seed, st) = match self.rounding {
            Rounding::Nearest => (0, 0),
            Rounding::Stochastic { seed } => (seed, STOCHASTIC),
        };
        (tiny, seed, st | if self.swizzled { SWIZZLED } else { 0 })
    }

    /// The block grid.
    #[inline(always)]
    pub fn grid(&self) -> BlockGrid {
        BlockGrid::tiles(self.rows, self.cols, self.matrix_rows, self.tile, 16)
    }

    /// The bytes the scale output holds.
    pub fn scales_len(&self) -> usize {
        if self.swizzled {
            swizzled_len(self.rows, self.cols.div_ceil(16))
        } else {
            self.grid().scales()
        }
    }
}

/// Quantizes `rows * cols` values of `src` to NVFP4 in one pass: the E2M1
/// codes into `words`, the E4M3 scales into `scales` (`q.scales_len()`
/// bytes): the bits of [`Nvfp4Array::quantize_with`](crate::formats::Nvfp4Array::quantize_with)
/// with `q.tensor_scale` given (and of `scales_swizzled` for
/// `q.swizzled`).
///
/// # Safety
///
/// As [`mx_quantize`], for `rows * cols` values of 4 bits.
#[inline(always)]
pub unsafe fn nvfp4_quantize<S: Simt, I: Input>(
    s: &S,
    src: *const I,
    q: &Nvfp4Quantize,
    words: *mut u64,
    scales: *mut u8,
) {
    let grid = q.grid();
    let n = grid.len();
    let (ts, tiny, rounding) = (q.tensor_scale, q.tiny, q.rounding);
    let scale_of_bits = |m: u32| nvfp4_scale_f32(m, ts, tiny).to_bits();
    let nb = q.cols.div_ceil(16);
    let index = |i: usize| i;
    // SAFETY: `src` holds every value of the grid, the caller's promise.
    let slow_scale = |g: usize| unsafe { block_scale_slow(s, src, &grid, index, g, scale_of_bits) };
    let fast = q.tile <= 1
        && q.cols.is_multiple_of(32)
        && aligned16(src)
        && aligned16(words)
        && (!q.swizzled || nb.is_multiple_of(4));
    if fast {
        let pos = |g: usize| {
            if q.swizzled {
                swizzled_index(g / nb, g % nb, nb)
            } else {
                g
            }
        };
        let quant = |first: usize, xs: &[f32; 16], codes: &mut [u8; 16]| {
            let m = xs.iter().fold(0, |m, x| m.max(x.to_bits() & 0x7fff_ffff));
            let scale = nvfp4_scale_f32(m, ts, tiny);
            nvfp4_codes::<f32>(xs, scale, ts, rounding, first as u64, codes);
            scale.to_bits()
        };
        let blocks = grid.scales();
        // SAFETY: the fast path's conditions hold and the caller's promise
        // sizes the buffers.
        unsafe { quantize_fast::<S, I, 4, 16, 2>(s, src, blocks / 2, words, scales, pos, quant) };
        if q.swizzled {
            let tiles_row = nb / 4;
            let first_pad = q.rows / 128 * 128;
            if q.rows > first_pad {
                let base = q.rows / 128 * tiles_row * 128;
                for w in grid_stride(s, tiles_row * 128) {
                    let at = (w % 128) * 4;
                    let r = first_pad + (at % 16) / 4 * 32 + at / 16;
                    if r >= q.rows {
                        // SAFETY: a padding word of the tiled buffer that
                        // no lane wrote, this thread's alone.
                        unsafe { s.store(scales.cast::<u32>(), base + w, 0) };
                    }
                }
            }
        } else if global_thread(s) == 0 {
            // `blocks` is even: at most 2 scales past the last `u32`.
            let p = blocks / 4 * 4;
            if blocks > p {
                // SAFETY: a scale of the grid; only thread 0 writes the tail.
                unsafe { s.store(scales, p, slow_scale(p)) };
            }
            if blocks > p + 1 {
                // SAFETY: as above.
                unsafe { s.store(scales, p + 1, slow_scale(p + 1)) };
            }
        }
        return;
    }
    let at = |p: usize| {
        if q.swizzled {
            unswizzle(p, q.rows, nb)
        } else {
            Some(p)
        }
    };
    // SAFETY: the caller's promise.
    unsafe { store_scales_slow(s, scales, q.scales_len(), at, slow_scale) };
    let mut cur = (usize::MAX, E4M3::from_bits(0));
    let code = |i: usize, x: f32| {
        let g = grid.scale_of(i);
        if g != cur.0 {
            cur = (g, E4M3::from_bits(slow_scale(g)));
        }
        let mut c = [0u8];
        nvfp4_codes::<f32>(&[x], cur.1, ts, rounding, i as u64, &mut c);
        c[0]
    };
    // SAFETY: the caller's promise.
    unsafe { store_codes_slow::<S, I, 4>(s, src, n, words, index, code) };
}

/// Dequantizes an NVFP4 array of `[rows, cols]` (row-major scales, one per
/// block of 16 of a row): the bits of
/// [`Nvfp4Array::dequantize`](crate::formats::Nvfp4Array::dequantize).
///
/// # Safety
///
/// As [`mx_dequantize`], for `rows * cols` values of 4 bits.
#[inline(always)]
pub unsafe fn nvfp4_dequantize<S: Simt>(
    s: &S,
    words: *const u64,
    rows: usize,
    cols: usize,
    scales: *const u8,
    tensor_scale: f32,
    out: *mut f32,
) {
    let grid = BlockGrid::along(rows, cols, 1, 16);
    let value =
        |c: u8, sc: u8| nvfp4_value(E2M1::from_bits(c & 0xf), E4M3::from_bits(sc), tensor_scale);
    if cols.is_multiple_of(32) && aligned16(words) && aligned16(out) {
        // SAFETY: the fast path's conditions; the caller's promise.
        unsafe { dequantize_fast::<S, 4, 16, 2>(s, words, grid.scales() / 2, scales, out, value) }
    } else {
        // SAFETY: the caller's promise.
        unsafe { dequantize_slow::<S, 4>(s, words, &grid, scales, out, value) }
    }
}
