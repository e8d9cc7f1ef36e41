//! The MX bodies: [`MxQuantize`], [`mx_quantize`], [`mx_dequantize`].

use super::{
    BlockGrid, COLUMNWISE, Coder, DivU32, E4M3, E8M0, Input, Mode, MxElement, NoEight, Rounding,
    SWIZZLED, ScaleRule, Simt, U32x4, aligned16, block_scale_slow, dequantize_slow,
    e2m1_nearest_x8, e8m0_f32, fixed, global_thread, half_threshold_words, map_out_by, mx_operand,
    mx_scale_f32_branchless, mx_value, quantize_fast, quantize_slow, random_bits, rounding_args,
    rounding_of, store_tail_of, swizzled_len, swizzled_pos, unswizzle, zero_padding,
};

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

/// The entries' `rule` codes: index 0 Floor, 1 Ceil, 2 Even, 3 RCeil.
const RULES: [ScaleRule; 4] = [
    ScaleRule::Floor,
    ScaleRule::Ceil,
    ScaleRule::Even,
    ScaleRule::RCeil,
];

impl MxQuantize {
    /// From the entries' arguments (`rule`: 0 Floor, 1 Ceil, 2 Even, 3
    /// RCeil; `flags`: [`STOCHASTIC`](super::STOCHASTIC), [`SWIZZLED`](super::SWIZZLED),
    /// [`COLUMNWISE`](super::COLUMNWISE)).
    #[inline(always)]
    pub fn from_args(outer: u64, d: u64, inner: u64, rule: u32, seed: u64, flags: u32) -> Self {
        MxQuantize {
            outer: outer as usize,
            d: d as usize,
            inner: inner as usize,
            rule: RULES
                .get(rule as usize)
                .copied()
                .unwrap_or(ScaleRule::Floor),
            rounding: rounding_of(seed, flags),
            swizzled: flags & SWIZZLED != 0,
            columnwise: flags & COLUMNWISE != 0,
        }
    }

    /// The entries' `(rule, seed, flags)` for these options.
    pub fn args(&self) -> (u32, u64, u32) {
        let rule = RULES.iter().position(|&r| r == self.rule).unwrap_or(0) as u32;
        let (seed, flags) = rounding_args(self.rounding, self.swizzled);
        (
            rule,
            seed,
            flags | if self.columnwise { COLUMNWISE } else { 0 },
        )
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
    let (rule, rounding) = (q.rule, q.rounding);
    let scale = move |m: u32| mx_scale_f32_branchless::<F>(m, rule).to_bits();
    let (srows, scols) = q.scale_matrix();
    let u_blocks = mx_unit_blocks(W);
    let nb = q.d.div_ceil(32);
    let fast = !q.columnwise
        && q.inner == 1
        && q.d.is_multiple_of(32 * u_blocks)
        && aligned16(src)
        && aligned16(words)
        && (!q.swizzled || nb.is_multiple_of(4));
    let qv = *q;
    let index = move |i: usize| qv.src_index(i);
    // Round to nearest: `x * 2^-e` encoded (a pair at a time), the NaN
    // scale's codes masked to zero; `f` is `2^-e`. E2M1 from `f16` and
    // `bf16` compares the values' own bits with the midpoints times 2^e on
    // their grid, eight values at a time (as NVFP4 does).
    let eight = F::BITS == 4 && size_of::<I>() == 2;
    let nearest = Coder {
        scale,
        prep: move |sc: u8| {
            let f = f32::from_bits(u32::from(254 - sc.min(254)) << 23);
            let h = if eight {
                mx_e2m1_threshold_words::<I>(sc)
            } else {
                [0; 7]
            };
            (if sc == 0xff { 0 } else { !0 }, (f, h))
        },
        pair: |&(f, _): &(f32, [u32; 7]), _: u64, x: f32, y: f32| {
            // A NaN's code is masked: the block's scale is NaN.
            fixed::encode_pair_not_nan::<F>(mx_operand(x, f), mx_operand(y, f), Mode::SatFinite)
        },
        eight: eight.then_some(|(_, t): &(f32, [u32; 7]), c: U32x4| e2m1_nearest_x8(c, t)),
    };
    let (seed, _) = rounding_args(rounding, false);
    let stochastic = Coder {
        scale,
        prep: |sc: u8| (!0u64, sc),
        pair: move |&sc: &u8, i: u64, x: f32, y: f32| {
            let a = mx_stochastic_code::<F>(x, sc, seed, i);
            let b = mx_stochastic_code::<F>(y, sc, seed, i + 1);
            u16::from(a) | u16::from(b) << W
        },
        eight: None::<NoEight<u8>>,
    };
    let is_nearest = matches!(rounding, Rounding::Nearest);
    if fast {
        let units = grid.scales() / u_blocks;
        let swz = q.swizzled;
        let by_nb = DivU32::new(nb);
        let pos = move |g: usize| if swz { swizzled_pos(g, nb, by_nb) } else { g };
        match (u_blocks == 2, is_nearest) {
            // SAFETY: the fast path's conditions hold; the caller's promise.
            (true, true) => unsafe {
                quantize_fast::<S, I, W, 32, 2, _>(s, src, units, words, scales, pos, nearest)
            },
            // SAFETY: the fast path's conditions hold; the caller's promise.
            (false, true) => unsafe {
                quantize_fast::<S, I, W, 32, 1, _>(s, src, units, words, scales, pos, nearest)
            },
            // SAFETY: the fast path's conditions hold; the caller's promise.
            (true, false) => unsafe {
                quantize_fast::<S, I, W, 32, 2, _>(s, src, units, words, scales, pos, stochastic)
            },
            // SAFETY: the fast path's conditions hold; the caller's promise.
            (false, false) => unsafe {
                quantize_fast::<S, I, W, 32, 1, _>(s, src, units, words, scales, pos, stochastic)
            },
        }
        let blocks = grid.scales();
        if q.swizzled {
            // SAFETY: the tiled buffer: the caller's promise.
            unsafe { zero_padding(s, scales, srows, nb / 4) };
        } else if global_thread(s) == 0 {
            // The last 1 to 3 scales past the last whole `u32`.
            // SAFETY: `src` holds every `index(k)`, the caller's promise.
            let byte = move |g: usize| unsafe { block_scale_slow(s, src, &grid, index, g, scale) };
            // SAFETY: scales of the grid; only thread 0 writes the tail.
            unsafe { store_tail_of(s, scales, blocks / 4 * 4, blocks, byte) };
        }
        return;
    }
    let len = q.scales_len();
    let swz = q.swizzled;
    let at = move |p: usize| {
        if swz {
            unswizzle(p, srows, scols)
        } else {
            Some(p)
        }
    };
    if is_nearest {
        // SAFETY: the caller's promise (and the fast path's conditions
        // where it runs).
        unsafe { quantize_slow::<S, I, W, _>(s, src, grid, index, words, scales, len, at, nearest) }
    } else {
        // SAFETY: the caller's promise (and the fast path's conditions
        // where it runs).
        unsafe {
            quantize_slow::<S, I, W, _>(s, src, grid, index, words, scales, len, at, stochastic)
        }
    }
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
    if inner == 1 && d.is_multiple_of(32) {
        // Blocks of 32 consecutive values: value `j`'s scale is byte
        // `j / 32`, the same for the 4 values of a chunk of output. One
        // scale load per chunk (the 8 lanes of a block load the same byte,
        // which their load instruction serves once), then the scale's value
        // (`mx_value`'s) times each decoded code.
        let prep = move |j: usize| {
            // SAFETY: block `j / 32 < grid.scales()`: the caller's promise.
            e8m0_f32(E8M0::from_bits(unsafe { s.load(scales, j / 32) }))
        };
        let f = move |m: f32, a: u64, b: u64| {
            let [x, y] = fixed::decode_pair::<F>((a | b << W) as u16);
            ((x * m).to_bits() as u64, (y * m).to_bits() as u64)
        };
        // SAFETY: the caller's promise.
        unsafe { map_out_by::<S, W, f32, f32>(s, words, grid.len(), out, prep, f) }
    } else {
        let value = |c: u8, sc: u8| mx_value(F::from_raw_bits(c), E8M0::from_bits(sc));
        // SAFETY: the caller's promise.
        unsafe { dequantize_slow::<S, W>(s, words, grid, scales, out, value) }
    }
}

/// The MX code of `x` (value `i`) under the scale byte `sc`, rounded
/// stochastically with `random_bits(seed, i)`: `mx_codes`' bits (the NaN
/// scale gives 0), by the host's branch-free stochastic encode
/// (`elem::encode_stochastic`: integer arithmetic on the `f32` bits, the
/// block exponent applied to the exponent). Out of line: one copy serves
/// every value of a unit.
#[inline(never)]
fn mx_stochastic_code<F: MxElement>(x: f32, sc: u8, seed: u64, i: u64) -> u8 {
    const { assert!(crate::float::elem::encode_fast_ok(&F::FORMAT)) };
    // The NaN scale's exponent stands in as 127; its codes are masked.
    let e = i32::from(sc.min(254)) - 127;
    let c = crate::float::elem::encode_stochastic::<F, true>(x, e, random_bits(seed, i));
    if sc == 0xff { 0 } else { c }
}

/// The thresholds of E2M1 codes of `x * 2^-e` (`f16` or `bf16` data `I`)
/// under the E8M0 scale code `sc` (`e = sc - 127`), on the data's grid, in
/// both halves of a `u32`: the midpoints times 2^e. The scales 254 (whose
/// `2^-e` the nearest path takes as 0: codes of zero) and 255 (NaN, masked)
/// get infinite ones.
#[inline(always)]
fn mx_e2m1_threshold_words<I: Input>(sc: u8) -> [u32; 7] {
    // 2^e as a tensor scale under the unit scale (E4M3 1.0).
    let ts = f32::from_bits(match sc {
        // 2^-127: a subnormal.
        0 => 0x40_0000,
        254.. => 127 << 23,
        _ => u32::from(sc) << 23,
    });
    half_threshold_words::<I>(E4M3::from_bits(0x38), ts, sc >= 254)
}
