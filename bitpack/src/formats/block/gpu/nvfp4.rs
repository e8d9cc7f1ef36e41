//! The NVFP4 bodies: [`Nvfp4Quantize`], [`nvfp4_quantize`],
//! [`nvfp4_dequantize`].

use super::{
    BlockGrid, Coder, DivU32, E2M1, E4M3, Input, NoEight, Nvfp4Scaler, Rounding, SWIZZLED, Simt,
    TinyScale, U32x4, aligned16, block_scale_slow, dequantize_slow, e2m1_nearest_x8,
    e2m1_stochastic_f32, e2m1_thresholds_f32, fixed, global_thread, half_threshold_words,
    map_out_by, nvfp4_value, quantize_fast, quantize_slow, random_bits, rep, rounding_args,
    rounding_of, store_tail_of, swizzled_len, swizzled_pos, unswizzle, zero_padding,
};

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

/// The entries' `tiny` codes: index 0 Flush, 1 Smallest, 2 MinNormal.
const TINY: [TinyScale; 3] = [TinyScale::Flush, TinyScale::Smallest, TinyScale::MinNormal];

impl Nvfp4Quantize {
    /// From the entries' arguments (`tiny`: 0 Flush, 1 Smallest, 2
    /// MinNormal; `flags`: [`STOCHASTIC`](super::STOCHASTIC),
    /// [`SWIZZLED`](super::SWIZZLED)).
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
            tiny: TINY.get(tiny as usize).copied().unwrap_or(TinyScale::Flush),
            rounding: rounding_of(seed, flags),
            swizzled: flags & SWIZZLED != 0,
        }
    }

    /// The entries' `(tiny, seed, flags)` for these options.
    pub fn args(&self) -> (u32, u64, u32) {
        let tiny = TINY.iter().position(|&t| t == self.tiny).unwrap_or(0) as u32;
        let (seed, flags) = rounding_args(self.rounding, self.swizzled);
        (tiny, seed, flags)
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
/// As [`mx_quantize`](super::mx_quantize), for `rows * cols` values of 4 bits.
#[inline(always)]
pub unsafe fn nvfp4_quantize<S: Simt, I: Input>(
    s: &S,
    src: *const I,
    q: &Nvfp4Quantize,
    words: *mut u64,
    scales: *mut u8,
) {
    let grid = q.grid();
    let (ts, tiny, rounding) = (q.tensor_scale, q.tiny, q.rounding);
    let scaler = Nvfp4Scaler::new(ts, tiny);
    let scale = move |m: u32| scaler.scale(m).to_bits();
    let nb = q.cols.div_ceil(16);
    let index = |i: usize| i;
    let fast = q.tile <= 1
        && q.cols.is_multiple_of(32)
        && aligned16(src)
        && aligned16(words)
        && (!q.swizzled || nb.is_multiple_of(4));
    // Round to nearest: compares with the block's thresholds; a zero scale
    // (infinite thresholds) gives zeros of each value's sign, the NaN
    // scale's codes are masked to zero: `nvfp4_codes`' bits. `f16` and
    // `bf16` data compare their own bits, two values at a time, with the
    // thresholds on their grid (`e2m1_threshold_bits`) in both halves of a
    // `u32`; `f32` data with the `f32` thresholds.
    let half = size_of::<I>() == 2;
    let nearest = Coder {
        scale,
        prep: move |sc: u8| {
            // The thresholds of a zero (and of the NaN) scale are infinite:
            // computed for another scale, then replaced (no branch).
            let special = matches!(sc, 0 | 0x7f);
            let scale = E4M3::from_bits(if special { 0x38 } else { sc });
            let h = if half {
                half_threshold_words::<I>(scale, ts, special)
            } else {
                [0; 7]
            };
            let f = e2m1_thresholds_f32(scale, ts).map(|t| if special { f32::INFINITY } else { t });
            (if sc == 0x7f { 0 } else { !0 }, (f, h))
        },
        pair: |(u, _): &([f32; 7], [u32; 7]), _: u64, x: f32, y: f32| {
            u16::from(e2m1_nearest(x.to_bits(), u)) | u16::from(e2m1_nearest(y.to_bits(), u)) << 4
        },
        eight: half.then_some(|(_, t): &([f32; 7], [u32; 7]), c: U32x4| e2m1_nearest_x8(c, t)),
    };
    let (seed, _) = rounding_args(rounding, false);
    let stochastic = Coder {
        scale,
        prep: |sc: u8| (!0u64, sc),
        pair: move |&sc: &u8, i: u64, x: f32, y: f32| {
            let a = nvfp4_stochastic_code(x, sc, ts, seed, i);
            let b = nvfp4_stochastic_code(y, sc, ts, seed, i + 1);
            u16::from(a) | u16::from(b) << 4
        },
        eight: None::<NoEight<u8>>,
    };
    let is_nearest = matches!(rounding, Rounding::Nearest);
    if fast {
        let swz = q.swizzled;
        let by_nb = DivU32::new(nb);
        let pos = move |g: usize| if swz { swizzled_pos(g, nb, by_nb) } else { g };
        let blocks = grid.scales();
        if is_nearest {
            // SAFETY: the caller's promise (and the fast path's conditions
            // where it runs).
            unsafe {
                quantize_fast::<S, I, 4, 16, 2, _>(s, src, blocks / 2, words, scales, pos, nearest)
            };
        } else {
            // SAFETY: the caller's promise (and the fast path's conditions
            // where it runs).
            unsafe {
                quantize_fast::<S, I, 4, 16, 2, _>(
                    s,
                    src,
                    blocks / 2,
                    words,
                    scales,
                    pos,
                    stochastic,
                )
            };
        }
        if q.swizzled {
            // SAFETY: the tiled buffer: the caller's promise.
            unsafe { zero_padding(s, scales, q.rows, nb / 4) };
        } else if global_thread(s) == 0 {
            // `blocks` is even: at most 2 scales past the last `u32`.
            // SAFETY: `src` holds every value of the grid.
            let byte = move |g: usize| unsafe { block_scale_slow(s, src, &grid, index, g, scale) };
            // SAFETY: scales of the grid; only thread 0 writes the tail.
            unsafe { store_tail_of(s, scales, blocks / 4 * 4, blocks, byte) };
        }
        return;
    }
    let (swz, rows) = (q.swizzled, q.rows);
    let at = move |p: usize| {
        if swz { unswizzle(p, rows, nb) } else { Some(p) }
    };
    let len = q.scales_len();
    if is_nearest {
        // SAFETY: the caller's promise (and the fast path's conditions
        // where it runs).
        unsafe { quantize_slow::<S, I, 4, _>(s, src, grid, index, words, scales, len, at, nearest) }
    } else {
        // SAFETY: the caller's promise (and the fast path's conditions
        // where it runs).
        unsafe {
            quantize_slow::<S, I, 4, _>(s, src, grid, index, words, scales, len, at, stochastic)
        }
    }
}

/// The NVFP4 code of `x` (value `i`) under the E4M3 scale byte `sc` and
/// the tensor scale `ts`, rounded stochastically with `random_bits(seed,
/// i)`: `nvfp4_codes`' bits (the NaN scale gives 0, a zero scale the
/// value's sign). Out of line, as `mx_stochastic_code` (`mx.rs`).
#[inline(never)]
fn nvfp4_stochastic_code(x: f32, sc: u8, ts: f32, seed: u64, i: u64) -> u8 {
    match sc {
        0x7f => 0,
        0 => ((x.to_bits() >> 31) as u8) << 3,
        _ => e2m1_stochastic_f32(x, E4M3::from_bits(sc), ts, random_bits(seed, i)),
    }
}

/// The E2M1 code (sign included) of the `f32` with bits `b` against a
/// block's thresholds (`e2m1_thresholds_f32`, or all infinite for a zero
/// scale): how many of them `|x|` reaches, and the sign.
#[inline(always)]
fn e2m1_nearest(b: u32, u: &[f32; 7]) -> u8 {
    let a = f32::from_bits(b & 0x7fff_ffff);
    let mut c = ((b >> 31) as u8) << 3;
    rep!(k in [0 1 2 3 4 5 6] => {
        c += (a >= u[k]) as u8;
    });
    c
}

/// Dequantizes an NVFP4 array of `[rows, cols]` (row-major scales, one per
/// block of 16 of a row): the bits of
/// [`Nvfp4Array::dequantize`](crate::formats::Nvfp4Array::dequantize).
///
/// # Safety
///
/// As [`mx_dequantize`](super::mx_dequantize), for `rows * cols` values of 4 bits.
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
    if cols.is_multiple_of(16) {
        // Blocks of 16 consecutive values: value `j`'s scale is byte
        // `j / 16` (one load per chunk of 4 values). `nvfp4_value`: (code
        // times scale, exact) times the tensor scale.
        let prep = move |j: usize| {
            // SAFETY: block `j / 16 < grid.scales()`: the caller's promise.
            fixed::decode(E4M3::from_bits(unsafe { s.load(scales, j / 16) }))
        };
        let f = move |m: f32, a: u64, b: u64| {
            let [x, y] = fixed::decode_pair::<E2M1>((a | b << 4) as u16);
            (
                (x * m * tensor_scale).to_bits() as u64,
                (y * m * tensor_scale).to_bits() as u64,
            )
        };
        // SAFETY: the caller's promise.
        unsafe { map_out_by::<S, 4, f32, f32>(s, words, grid.len(), out, prep, f) }
    } else {
        let value = |c: u8, sc: u8| {
            nvfp4_value(E2M1::from_bits(c & 0xf), E4M3::from_bits(sc), tensor_scale)
        };
        // SAFETY: the caller's promise.
        unsafe { dequantize_slow::<S, 4>(s, words, grid, scales, out, value) }
    }
}
