//! OCP Microscaling (MX v1.0) block arrays: 32 values of an element format
//! sharing one power-of-two [`E8M0`] scale.

use alloc::vec;
use alloc::vec::Vec;

pub use super::block::{MxElement, ScaleRule};
use super::block::{
    block_amax, e8m0_f32, inv_pow2_f32, mx_code, mx_operand, mx_scale, mx_scale_bits, mx_scale_f32,
    scale_exponent,
};
use super::blocked::{Blocked, scale_shape_along, split_axis, split_shape};
use super::types::E8M0;
use super::wide::{Real, Rounding, block_amax_bits_f32, f32s_of};
use crate::kernels::{self, minifloat};
use crate::{Error, LengthOf, NarrowArray, Result};

/// Options of [`MxArray::quantize_with`]: the scale rule, the axis the
/// blocks run along, and the rounding of the elements.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{MxOptions, Rounding, ScaleRule};
///
/// let o = MxOptions::default();
/// assert_eq!((o.scale, o.axis, o.rounding), (ScaleRule::Floor, None, Rounding::Nearest));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MxOptions {
    /// How each block's scale is chosen.
    pub scale: ScaleRule,
    /// The dimension the blocks of 32 run along; `None` is the last
    /// (innermost) one.
    pub axis: Option<usize>,
    /// Round to nearest (ties to even), or stochastically: element `i` of
    /// the row-major data uses [`random_bits(seed, i)`](super::random_bits).
    pub rounding: Rounding,
}

/// Codes of `src[i] / 2^exps[i]` in `F`, saturating, with `rounding`
/// (element `i` has index `first + i`). `exps[i]` is `None` for the NaN
/// scale (code `+0`), and constant over aligned runs of `run` values. The
/// `f32` (and exactly widened `f16`/`bf16`) round to
/// nearest case multiplies by `2^-e` in `f32` (exact, except results below
/// `f32`'s smallest normal, which encode to zero either way) and runs the
/// branch-free kernels; rounded stochastically, it runs the branch-free
/// stochastic encode, which applies `e` to the exponent.
fn scaled_codes<F: MxElement, S: Real>(
    src: &[S],
    exps: impl Fn(usize) -> Option<i32>,
    run: usize,
    rounding: Rounding,
    first: u64,
    codes: &mut [u8],
) {
    match rounding {
        Rounding::Nearest if S::WIDENS => {
            let mut buf = [0f32; CHUNK];
            for (k, (c, s)) in codes.chunks_mut(CHUNK).zip(src.chunks(CHUNK)).enumerate() {
                let b = &mut buf[..s.len()];
                // Runs of equal exponents (a block, or one value when the
                // blocks run across rows) multiply by one factor.
                let mut any_nan = false;
                for (r, (o, x)) in b.chunks_mut(run).zip(s.chunks(run)).enumerate() {
                    let f = match exps(k * CHUNK + r * run) {
                        Some(e) => inv_pow2_f32(e),
                        None => {
                            any_nan = true;
                            0.0
                        }
                    };
                    for (o, &x) in o.iter_mut().zip(x) {
                        *o = mx_operand(x, f);
                    }
                }
                minifloat::encode_codes_f32::<F>(b, true, c);
                if any_nan {
                    // The NaN scale's values are +0 codes.
                    for (r, c) in c.chunks_mut(run).enumerate() {
                        if exps(k * CHUNK + r * run).is_none() {
                            c.fill(0);
                        }
                    }
                }
            }
        }
        Rounding::Stochastic { seed } if S::WIDENS => {
            // `f32` as it is, `f16` and `bf16` widened (exactly): the
            // branch-free stochastic encode with each value's exponent.
            let mut widened = [0f32; CHUNK];
            let mut es = [0i32; CHUNK];
            for (k, (c, s)) in codes.chunks_mut(CHUNK).zip(src.chunks(CHUNK)).enumerate() {
                let xs = f32s_of(s, &mut widened);
                let es = &mut es[..s.len()];
                let mut any_nan = false;
                for (r, e) in es.chunks_mut(run).enumerate() {
                    e.fill(exps(k * CHUNK + r * run).unwrap_or_else(|| {
                        any_nan = true;
                        0
                    }));
                }
                let at = first + (k * CHUNK) as u64;
                let es = minifloat::StochasticScale::Exps(es);
                minifloat::encode_codes_stochastic::<F>(xs, es, true, (seed, at), c);
                if any_nan {
                    // The NaN scale's values are +0 codes.
                    for (r, c) in c.chunks_mut(run).enumerate() {
                        if exps(k * CHUNK + r * run).is_none() {
                            c.fill(0);
                        }
                    }
                }
            }
        }
        _ => {
            for (i, (c, &x)) in codes.iter_mut().zip(src).enumerate() {
                *c = match exps(i) {
                    Some(e) => mx_code::<F, S>(x, e, rounding, first + i as u64),
                    None => 0,
                };
            }
        }
    }
}

/// The scales of the blocks of 32 `f32` values in `xs` (`scales`, one
/// code per block) and `xs` divided by them (`out`): [`chunk_scales`], and
/// the division a multiply by `2^-e`; both loops run in AVX2 builds where
/// the CPU has it. `false` (with `out` unfinished) when a block holds a NaN
/// or an infinity, or its scale is NaN: the caller takes the general path,
/// which writes the NaN scale's `+0` codes.
fn scale_f32_blocks<F: MxElement>(
    xs: &[f32],
    rule: ScaleRule,
    scales: &mut [u8],
    out: &mut [f32],
) -> bool {
    let mut factors = [0f32; CHUNK / 32];
    if !chunk_scales::<F>(xs, rule, scales, |b, e| factors[b] = inv_pow2_f32(e)) {
        return false;
    }
    crate::kernels::with_avx2(|| scale_blocks(xs, &factors, out));
    true
}

/// The scales of the blocks of 32 `f32` values in `xs`, at most a chunk
/// (`scales`, one code per block) by [`scale_exponents`]: the amax is an
/// integer max of the magnitudes' bits (which order them, NaN above
/// infinity), as [`block_amax`] computes it, in a loop compiled for AVX2
/// where the CPU has it.
fn chunk_scales<F: MxElement>(
    xs: &[f32],
    rule: ScaleRule,
    scales: &mut [u8],
    each: impl FnMut(usize, i32),
) -> bool {
    const B: usize = 32;
    let mut bits = [0u32; CHUNK / B];
    crate::kernels::with_avx2(|| block_amax_bits_f32(xs, B, &mut bits));
    scale_exponents::<F>(&bits, rule, scales, each)
}

/// The scale code (`scales[i]`) of each amax's bits `bits[i]` (as many as
/// `scales` holds), and `each(i, e)` with the exponent `e` of its scale
/// `2^e`; `false` at the first amax that is infinite or NaN, or whose scale
/// is NaN.
fn scale_exponents<F: MxElement>(
    bits: &[u32],
    rule: ScaleRule,
    scales: &mut [u8],
    mut each: impl FnMut(usize, i32),
) -> bool {
    for (i, (&m, s)) in bits.iter().zip(scales.iter_mut()).enumerate() {
        let scale = mx_scale_f32::<F>(m, rule);
        let Some(e) = scale_exponent(scale) else {
            return false;
        };
        *s = scale.to_bits();
        each(i, e);
    }
    true
}

/// `out[i] = xs[i] * factors[i / 32]`.
#[inline(always)]
fn scale_blocks(xs: &[f32], factors: &[f32], out: &mut [f32]) {
    for ((o, x), &f) in out.chunks_mut(32).zip(xs.chunks(32)).zip(factors) {
        for (o, &x) in o.iter_mut().zip(x) {
            *o = x * f;
        }
    }
}

/// [`e8m0_f32`] of every scale code, bit for bit (the NaN included).
const E8M0_F32: [f32; 256] = {
    let mut t = [0f32; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = match c {
            0xff => f32::NAN,
            0 => f32::from_bits(0x0040_0000),
            _ => f32::from_bits((c as u32) << 23),
        };
        c += 1;
    }
    t
};

/// Values per stack chunk of the quantizer: 16 blocks.
const CHUNK: usize = 512;

/// Quantizes `data` (row-major, of a shape split around the block axis as
/// [`split_axis`] gives it: `(outer, d, inner)`) into packed codes (`words`,
/// the whole stream) and E8M0 scale codes (`scales`: the shape with the
/// axis's extent `d` replaced by its block count, row-major).
/// Every value's bits and every scale are overwritten (the stream's
/// padding is not touched), so the buffers may hold an earlier result.
fn quantize_into<F: MxElement, S: Real>(
    data: &[S],
    (outer, d, inner): (usize, usize, usize),
    opts: &MxOptions,
    words: &mut [u64],
    scales: &mut [u8],
) {
    const B: usize = 32;
    let nb = d.div_ceil(B);
    debug_assert_eq!(scales.len(), outer * nb * inner);
    if data.is_empty() {
        // No block holds a value (and so no scale exists): the loops below
        // would walk the shape's empty rows.
        return;
    }
    let bits = F::BITS as usize;
    let pack = |c: &[u8], words: &mut [u64], at: usize| {
        if crate::kernels::pack(F::BITS, c, words, at).is_err() {
            unreachable!("the stream holds every value");
        }
    };
    let n = data.len();
    if inner == 1 {
        // Blocks are contiguous: a chunk of 16 blocks at a time. The units
        // split across threads are these chunks (row `u / per_row`, chunk
        // `u % per_row`), cut where a chunk starts on a word.
        let per_row = d.div_ceil(CHUNK);
        // Rows of whole blocks (every chunk holds whole blocks and starts
        // on a multiple of 32 values, so on a byte) of 4-, 6- and 8-bit
        // formats, rounded to nearest, take the one-pass kernel where the
        // CPU has it: `Some` of the kernel's scale rule.
        let one_pass = mx_scale_bits::<F>(opts.scale).filter(|_| {
            d.is_multiple_of(B)
                && matches!(opts.rounding, Rounding::Nearest)
                && kernels::mx_blocks_serve::<F>()
        });
        // The one-pass kernel on the values `xs` from index `at` of the
        // stream, writing their codes into the stream's bytes (`words`
        // from value `w0`) and their scales into `srow`.
        let one_pass_at = |rule, xs: &[f32], srow: &mut [u8], words: &mut [u64], at: usize| {
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
            let out = &mut bytes[at * bits / 8..][..xs.len() * bits / 8];
            kernels::mx_blocks::<F>(xs, srow, out, rule)
        };
        let first = |u: usize| (u / per_row * d + u % per_row * CHUNK).min(n);
        let scale_at = |u: usize| u / per_row * nb + u % per_row * (CHUNK / B);
        let values = crate::par::Out {
            slice: words,
            at: |u| first(u) * bits / 64,
        };
        let scale_out = crate::par::Out {
            slice: scales,
            at: scale_at,
        };
        let cut_ok = |u| crate::par::on_word(F::BITS, first(u));
        let units = outer * per_row;
        crate::par::split2(
            n,
            units,
            cut_ok,
            values,
            scale_out,
            |us, (words, wb), (scales, sb)| {
                let mut codes = [0u8; CHUNK];
                let mut scaled = [0f32; CHUNK];
                let mut widened = [0f32; CHUNK];
                let mut exps_of = [0i32; CHUNK];
                let w0 = wb * 64 / bits;
                let (v0, v1) = (first(us.start), first(us.end));
                if let Some(rule) = one_pass
                    && let Some(xs) = S::as_f32s(&data[v0..v1])
                {
                    // `f32` rows of whole blocks: the piece's values are one
                    // run, and so are its scales and its codes' bytes. One
                    // call, so that each group's loads overlap the encode of
                    // the group before.
                    let s0 = scale_at(us.start) - sb;
                    let srow = &mut scales[s0..s0 + (v1 - v0) / B];
                    if one_pass_at(rule, xs, srow, words, v0 - w0) {
                        return;
                    }
                }
                for u in us {
                    let (r, k) = (u / per_row, u % per_row);
                    let at = r * d + k * CHUNK;
                    let chunk = &data[at..r * d + d.min(k * CHUNK + CHUNK)];
                    let srow = &mut scales[scale_at(u) - sb..][..chunk.len().div_ceil(B)];
                    if matches!(opts.rounding, Rounding::Nearest) && S::WIDENS {
                        // `f32` as it is, `f16` and `bf16` widened (exactly):
                        // scaled a chunk at a time, then the fused
                        // encode-and-pack kernel (nibble pairs for 4-bit
                        // formats, bytes for 8-bit).
                        let xs = f32s_of(chunk, &mut widened);
                        if let Some(rule) = one_pass
                            && one_pass_at(rule, xs, srow, words, at - w0)
                        {
                            continue;
                        }
                        let buf = &mut scaled[..chunk.len()];
                        if scale_f32_blocks::<F>(xs, opts.scale, srow, buf) {
                            minifloat::encode_words::<F>(buf, true, words, at - w0);
                            continue;
                        }
                    }
                    if let Rounding::Stochastic { seed } = opts.rounding
                        && S::WIDENS
                    {
                        // The scales as for rounding to nearest, then the
                        // branch-free stochastic encode with each block's
                        // exponent.
                        let xs = f32s_of(chunk, &mut widened);
                        let es = &mut exps_of[..chunk.len()];
                        let n = es.len();
                        let fill = |b: usize, e: i32| es[b * B..n.min(b * B + B)].fill(e);
                        if chunk_scales::<F>(xs, opts.scale, srow, fill) {
                            let c = &mut codes[..chunk.len()];
                            let sf = (seed, at as u64);
                            let es = minifloat::StochasticScale::Exps(es);
                            minifloat::encode_codes_stochastic::<F>(xs, es, true, sf, c);
                            pack(c, words, at - w0);
                            continue;
                        }
                    }
                    let mut exps = [None; CHUNK / B];
                    for (b, block) in chunk.chunks(B).enumerate() {
                        let scale = mx_scale::<F>(block_amax(block), opts.scale);
                        exps[b] = scale_exponent(scale);
                        srow[b] = scale.to_bits();
                    }
                    let c = &mut codes[..chunk.len()];
                    scaled_codes::<F, S>(chunk, |i| exps[i / B], B, opts.rounding, at as u64, c);
                    pack(c, words, at - w0);
                }
            },
        );
        return;
    }
    // Blocks run across rows of `inner` contiguous values: the amax of a
    // block is taken row by row for every inner position at once. The units
    // split across threads are the blocks' rows (`outer` times `nb` of them,
    // each `inner` scales and up to 32 rows of values, contiguous), cut
    // where a unit starts on a word.
    let first = |u: usize| ((u / nb * d + u % nb * B) * inner).min(n);
    let values = crate::par::Out {
        slice: words,
        at: |u| first(u) * bits / 64,
    };
    let scale_out = crate::par::Out {
        slice: scales,
        at: |u| u * inner,
    };
    let cut_ok = |u| crate::par::on_word(F::BITS, first(u));
    crate::par::split2(
        n,
        outer * nb,
        cut_ok,
        values,
        scale_out,
        |us, (words, wb), (scales, sb)| {
            let mut codes = [0u8; CHUNK];
            let w0 = wb * 64 / bits;
            let mut amax = vec![0f64; inner];
            let mut finite = vec![true; inner];
            let mut exps: Vec<Option<i32>> = vec![None; inner];
            // `f32`, `f16` and `bf16` rounded to nearest: the amaxes as
            // integer maxes of the magnitudes' bits, the division a multiply,
            // the codes by the bulk encode (`AcrossRows`).
            let fast = matches!(opts.rounding, Rounding::Nearest) && S::WIDENS;
            let mut fast_bufs = fast.then(|| AcrossRows::new(inner));
            for u in us {
                let (o, b) = (u / nb, u % nb);
                let rows = b * B..d.min(b * B + B);
                let srow = &mut scales[u * inner - sb..][..inner];
                if let Some(bufs) = &mut fast_bufs {
                    let first_row = o * d + rows.start;
                    let tile = &data[first_row * inner..(o * d + rows.end) * inner];
                    let at = first_row * inner - w0;
                    if bufs.quantize::<F, S>(tile, opts.scale, srow, words, at) {
                        continue;
                    }
                }
                amax.fill(0.0);
                finite.fill(true);
                for a in rows.clone() {
                    let row = &data[(o * d + a) * inner..][..inner];
                    for (j, &x) in row.iter().enumerate() {
                        let v = x.to_f64_exact().abs();
                        finite[j] &= v.is_finite();
                        if v > amax[j] {
                            amax[j] = v;
                        }
                    }
                }
                for j in 0..inner {
                    let scale = mx_scale::<F>(finite[j].then_some(amax[j]), opts.scale);
                    exps[j] = scale_exponent(scale);
                    srow[j] = scale.to_bits();
                }
                for a in rows {
                    let base = (o * d + a) * inner;
                    let row = &data[base..][..inner];
                    for (k, chunk) in row.chunks(CHUNK).enumerate() {
                        let at = base + k * CHUNK;
                        let c = &mut codes[..chunk.len()];
                        let ex = &exps[k * CHUNK..];
                        scaled_codes::<F, S>(chunk, |i| ex[i], 1, opts.rounding, at as u64, c);
                        pack(c, words, at - w0);
                    }
                }
            }
        },
    );
}

/// The buffers of the quantize of blocks that run across rows (an axis
/// other than the last), for `f32`, `f16` and `bf16` rounded to nearest:
/// one entry per inner position.
struct AcrossRows {
    /// The running max of the magnitudes' bits of each column.
    bits: Vec<u32>,
    /// Each column's factor, `2^-e` of its scale `2^e`.
    factors: Vec<f32>,
    /// A chunk of a row, widened to `f32`.
    widened: [f32; CHUNK],
    /// A chunk of a row times its columns' factors.
    scaled: [f32; CHUNK],
}

impl AcrossRows {
    fn new(inner: usize) -> Self {
        AcrossRows {
            bits: vec![0; inner],
            factors: vec![0.0; inner],
            widened: [0.0; CHUNK],
            scaled: [0.0; CHUNK],
        }
    }

    /// Quantizes the blocks of `tile`, up to 32 rows of `inner` values
    /// (each column one block): the scales into `srow`, the codes into
    /// `words` from value `at` on. Two passes over the tile (the amaxes,
    /// then the scaled encode), the second from the cache. `false`, with
    /// no code written, when a column holds a NaN or an infinity (or its
    /// scale is NaN): the caller's general path writes that tile.
    fn quantize<F: MxElement, S: Real>(
        &mut self,
        tile: &[S],
        rule: ScaleRule,
        srow: &mut [u8],
        words: &mut [u64],
        at: usize,
    ) -> bool {
        let inner = self.bits.len();
        self.bits.fill(0);
        for row in tile.chunks(inner) {
            for (k, chunk) in row.chunks(CHUNK).enumerate() {
                let xs = f32s_of(chunk, &mut self.widened);
                let acc = &mut self.bits[k * CHUNK..][..xs.len()];
                kernels::with_avx2(|| max_bits_into(xs, acc));
            }
        }
        let factors = &mut self.factors;
        if !scale_exponents::<F>(&self.bits, rule, srow, |i, e| factors[i] = inv_pow2_f32(e)) {
            return false;
        }
        for (r, row) in tile.chunks(inner).enumerate() {
            for (k, chunk) in row.chunks(CHUNK).enumerate() {
                let xs = f32s_of(chunk, &mut self.widened);
                let buf = &mut self.scaled[..xs.len()];
                let f = &self.factors[k * CHUNK..][..xs.len()];
                kernels::with_avx2(|| mul_into(xs, f, buf));
                minifloat::encode_words::<F>(buf, true, words, at + r * inner + k * CHUNK);
            }
        }
        true
    }
}

/// `acc[i] = max(acc[i], xs[i].to_bits() & 0x7fff_ffff)`.
#[inline(always)]
fn max_bits_into(xs: &[f32], acc: &mut [u32]) {
    for (m, x) in acc.iter_mut().zip(xs) {
        *m = (*m).max(x.to_bits() & 0x7fff_ffff);
    }
}

/// `out[i] = xs[i] * f[i]`.
#[inline(always)]
fn mul_into(xs: &[f32], f: &[f32], out: &mut [f32]) {
    for ((o, &x), &f) in out.iter_mut().zip(xs).zip(f) {
        *o = x * f;
    }
}

/// An N-d array in an OCP MX format: values of `F` in blocks of 32 along
/// the innermost dimension, each block sharing one [`E8M0`] scale.
///
/// The value of element `i` of block `b` is `scale[b] * value[i]`.
///
/// # Quantizing
///
/// [`quantize`](Self::quantize) follows OCP MX v1.0 section 6.3 (and the
/// reference code, microsoft/microxcaling `mx_ops.py`) per block of 32
/// consecutive values of a row (the last block of a row may be shorter):
///
/// 1. `amax` = the largest `|x|` in the block.
/// 2. `shared_exp = floor(log2(amax)) - emax`, where `emax` is
///    [`MxElement::EMAX`] and `floor(log2)` is computed exactly from the
///    bits (a block of zeros uses `log2(2^-126) = -126`). It is clamped
///    below at -127; the scale is `2^shared_exp`.
/// 3. Each value is `x / 2^shared_exp` (exact) rounded to nearest, ties to
///    even, into `F`, clamping to `±F::MAX` (the saturating rule: because of
///    the `floor`, values in the block's top binade may exceed the element's
///    largest value, e.g. 7 with E2M1 clamps to 6).
/// 4. A block holding a NaN or an infinity gets the NaN scale (`0xff`), and
///    its values are stored as `+0` codes; it dequantizes to NaN.
///
/// # Byte layout (for GPU GEMMs)
///
/// - [`values`](Self::values): a [`NarrowArray<F>`] with the array's shape,
///   row-major, packed densely LSB-first: for E2M1 two values per byte,
///   element 0 in the low nibble (the `torch.float4_e2m1fn_x2` and CUTLASS
///   order, what cuBLASLt's FP4 operands use in practice); for E4M3/E5M2 one
///   byte per value; for E2M3/E3M2 four 6-bit values in three bytes (PTX's
///   FP6 `cvt` and ml_dtypes use one value per byte instead: unpack if a
///   kernel wants that). `values().as_bytes()` is the operand buffer.
/// - [`scales`](Self::scales): a [`NarrowArray<E8M0>`], one byte per block,
///   row-major with shape `[d0, ..., d(n-2), ceil(d(n-1) / 32)]`: the scale
///   of row `r`, block `b` is byte `r * ceil(cols / 32) + b`. This is the
///   layout of `MatmulMatrixScale` `VEC32_UE8M0` before tiling.
/// - cuBLASLt and CUTLASS block-scaled GEMMs read the scales in a tiled
///   ("swizzled") layout of 128 rows x 4 blocks;
///   [`scales_swizzled`](Self::scales_swizzled) produces it. GEMM kernels
///   also require the inner dimension to be a multiple of 32 (no tail
///   block), which the host-side array does not.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, MxArray};
///
/// let data = [0.5f32, -1.0, 3.0, 6.5, 0.0, 0.25];
/// let mx = MxArray::<E2M1>::quantize(&data, &[2, 3])?;
/// assert_eq!(mx.shape(), [2, 3]);
/// assert_eq!(mx.scales().len(), 2); // one block per row
/// // Row 0: amax 3 -> 2^(1 - 2) = 0.5; row 1: amax 6.5 -> 2^(2 - 2) = 1.
/// assert_eq!(mx.scales().get(0).unwrap().to_f32(), 0.5);
/// assert_eq!(mx.dequantize(), [0.5, -1.0, 3.0, 6.0, 0.0, 0.0]);
/// # Ok::<(), bitpack::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct MxArray<F: MxElement> {
    core: Blocked<F, E8M0>,
}

impl<F: MxElement> MxArray<F> {
    /// Values per block: 32.
    pub const BLOCK_SIZE: usize = 32;

    /// Quantizes `data`, a row-major array of shape `shape`, in blocks of 32
    /// along the last dimension (see [the type docs](Self)).
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] when the shape does not hold `data.len()` values,
    /// [`Error::Invalid`] for an empty (0-d) shape.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E4M3, MxArray};
    ///
    /// let data: Vec<f32> = (0..40).map(|i| i as f32 * 0.1).collect();
    /// let mx = MxArray::<E4M3>::quantize(&data, &[40])?;
    /// assert_eq!(mx.scales().len(), 2); // a block of 32 and a tail of 8
    /// assert!(MxArray::<E4M3>::quantize(&data, &[3, 7]).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn quantize(data: &[f32], shape: &[usize]) -> Result<Self> {
        Self::quantize_with(data, shape, &MxOptions::default())
    }

    /// Quantizes `data` (row-major, shape `shape`, any [`Real`] type) with
    /// the given scale rule, block axis and rounding ([`MxOptions`]).
    ///
    /// Blocks are 32 consecutive positions along the axis, all other
    /// indices fixed: along the last axis they are 32 consecutive values,
    /// along another they are 32 values `stride` apart (the product of the
    /// dimensions after the axis). **Tail block:** when the axis extent is
    /// not a multiple of 32, its last block holds the remaining `extent % 32`
    /// positions and its scale comes from those values alone (there is no
    /// padding). Input values round once, whatever their type: each is
    /// divided by its block's power-of-two scale exactly, then rounded into
    /// `F` with the saturating rule.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] when the shape does not hold `data.len()` values,
    /// [`Error::Invalid`] for an empty (0-d) shape, [`Error::Axis`] for an
    /// axis past the last dimension. Nothing is allocated on error.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E4M3, MxArray, MxOptions, ScaleRule};
    ///
    /// // Blocks along axis 0 of a 64 x 2 matrix: two blocks per column.
    /// let data: Vec<f64> = (0..128).map(|i| if i % 2 == 0 { 1.0 } else { 100.0 }).collect();
    /// let opts = MxOptions { axis: Some(0), scale: ScaleRule::Ceil, ..MxOptions::default() };
    /// let mx = MxArray::<E4M3>::quantize_with(&data, &[64, 2], &opts)?;
    /// assert_eq!(mx.scales().shape(), [2, 2]);
    /// // Ceil: 2^(ceil(log2 amax) - 8), so 2^-8 for the 1.0 column, 2^-1 for 100.
    /// assert_eq!(mx.scales().as_bytes(), [119, 126, 119, 126]);
    /// // 100 / 2^-1 = 200 rounds to the E4M3 value 192 (ties to even): 96.
    /// assert_eq!(mx.dequantize()[..2], [1.0, 96.0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn quantize_with<S: Real>(data: &[S], shape: &[usize], opts: &MxOptions) -> Result<Self> {
        split_shape(shape, data.len())?;
        let axis = opts.axis.unwrap_or(shape.len() - 1);
        if axis >= shape.len() {
            return Err(Error::Axis {
                axis,
                ndim: shape.len(),
            });
        }
        let mut values = NarrowArray::<F>::zeroed(data.len());
        let scale_shape = scale_shape_along(shape, axis, Self::BLOCK_SIZE);
        let mut scales = NarrowArray::<E8M0>::zeroed(scale_shape.iter().product());
        let scale_bytes = scales.bytes_mut();
        let split = split_axis(shape, axis);
        quantize_into::<F, S>(data, split, opts, values.words_mut(), scale_bytes);
        values.reshape(shape)?;
        Self::from_parts_along(values, scales, axis)
    }

    /// Quantizes `data` into this array's own storage, replacing its values
    /// and scales: [`quantize_with`](Self::quantize_with) of `data` with
    /// this array's shape and axis, without allocating. The result is the
    /// same, bit for bit, as a fresh `quantize_with`; for repeated
    /// quantizations of one shape (a layer's weights after each step, a
    /// stream of activations) it saves the allocation and the first
    /// writes of fresh memory, which for large arrays cost as much as the
    /// quantization itself.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] (`QuantizeInput`) unless `data` holds
    /// [`len()`](Self::len) values; [`Error::Invalid`] when `opts.axis`
    /// names another axis than this array's. The array is unchanged on
    /// error.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E2M1, MxArray, MxOptions};
    ///
    /// let mut mx = MxArray::<E2M1>::quantize(&[1.0; 64], &[2, 32])?;
    /// let step: Vec<f32> = (0..64).map(|i| i as f32 * 0.25).collect();
    /// mx.requantize(&step, &MxOptions::default())?;
    /// let fresh = MxArray::<E2M1>::quantize(&step, &[2, 32])?;
    /// assert_eq!(mx.values().as_bytes(), fresh.values().as_bytes());
    /// assert_eq!(mx.scales().as_bytes(), fresh.scales().as_bytes());
    /// assert!(mx.requantize(&step[..63], &MxOptions::default()).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn requantize<S: Real>(&mut self, data: &[S], opts: &MxOptions) -> Result<()> {
        LengthOf::QuantizeInput.check(self.len(), data.len())?;
        let axis = self.axis();
        if opts.axis.is_some_and(|a| a != axis) {
            return Err(Error::Invalid(
                "requantize keeps the array's block axis: opts.axis names another one",
            ));
        }
        let Blocked { values, scales, .. } = &mut self.core;
        let split = split_axis(values.shape(), axis);
        quantize_into::<F, S>(data, split, opts, values.words_mut(), scales.bytes_mut());
        Ok(())
    }

    /// Quantizes the transpose of `data` (row-major, shape `shape`, seen as
    /// a `[rows, cols]` matrix with the leading dimensions flattened into
    /// `rows`): the columnwise ("K-major") copy TransformerEngine keeps
    /// beside the rowwise one for the backward pass. The result has shape
    /// `[cols, rows]` and blocks of 32 along its last axis, that is along
    /// the columns of `data`; its scales are `[cols, ceil(rows / 32)]`.
    /// It is [`quantize_with`](Self::quantize_with) of the transposed data,
    /// stochastic rounding included (element `i` of the transposed,
    /// row-major data uses `random_bits(seed, i)`).
    ///
    /// # Errors
    ///
    /// The errors of [`quantize_with`](Self::quantize_with), and
    /// [`Error::Invalid`] when `opts.axis` is given (the blocks run along
    /// the columns of `data` by definition).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E4M3, MxArray, MxOptions};
    ///
    /// // 64 rows x 2 columns: each column is 64 values, two blocks.
    /// let data: Vec<f32> = (0..128).map(|i| (i % 2) as f32 * 2.0 + 1.0).collect();
    /// let t = MxArray::<E4M3>::quantize_columnwise(&data, &[64, 2], &MxOptions::default())?;
    /// assert_eq!(t.shape(), [2, 64]);
    /// assert_eq!(t.scales().shape(), [2, 2]);
    /// assert_eq!(t.dequantize()[..2], [1.0, 1.0]);
    /// assert_eq!(t.dequantize()[64..66], [3.0, 3.0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn quantize_columnwise<S: Real>(
        data: &[S],
        shape: &[usize],
        opts: &MxOptions,
    ) -> Result<Self> {
        if opts.axis.is_some() {
            return Err(Error::Invalid(
                "a columnwise MX quantization takes no axis: its blocks run along the columns",
            ));
        }
        let (rows, cols) = split_shape(shape, data.len())?;
        let mut t = Vec::with_capacity(data.len());
        for c in 0..cols {
            t.extend((0..rows).map(|r| data[r * cols + c]));
        }
        Self::quantize_with(&t, &[cols, rows], opts)
    }

    /// An array from packed values and their scales (as produced by a GPU
    /// kernel, or read from a file): `values` carries the shape, and
    /// `scales` must hold one scale per block, row-major (its own shape is
    /// replaced by the blocks' shape).
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for a 0-d `values`; [`Error::Length`] when
    /// `scales` does not hold one value per block.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    /// use bitpack::formats::{E2M1, E8M0, MxArray};
    ///
    /// let values = NarrowArray::<E2M1>::from_bytes(&[0x72], 2)?; // [1.0, 6.0]
    /// let scales = NarrowArray::from_slice(&[E8M0::from_exponent(-1).unwrap()]);
    /// let mx = MxArray::from_parts(values, scales)?;
    /// assert_eq!(mx.dequantize(), [0.5, 3.0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_parts(values: NarrowArray<F>, scales: NarrowArray<E8M0>) -> Result<Self> {
        let axis = values.shape().len().saturating_sub(1);
        Self::from_parts_along(values, scales, axis)
    }

    /// The dimension the blocks run along.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E2M1, MxArray};
    ///
    /// assert_eq!(MxArray::<E2M1>::quantize(&[0.0; 6], &[2, 3])?.axis(), 1);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn axis(&self) -> usize {
        self.core.axis
    }

    /// An array from packed values and their scales, with the blocks along
    /// `axis`: `scales` holds one scale per block, row-major over the
    /// values' shape with `shape[axis]` replaced by `ceil(shape[axis] /
    /// 32)`.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for a 0-d `values`, [`Error::Axis`] for an axis
    /// past the last dimension, [`Error::Length`] when `scales` does not
    /// hold one value per block.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    /// use bitpack::formats::{E4M3, E8M0, MxArray};
    ///
    /// let mut values = NarrowArray::<E4M3>::from_bytes(&[0x38, 0x40], 2)?; // 1.0, 2.0
    /// values.reshape(&[2, 1])?;
    /// let scales = NarrowArray::from_slice(&[E8M0::from_exponent(3).unwrap()]);
    /// let mx = MxArray::from_parts_along(values, scales, 0)?;
    /// assert_eq!(mx.dequantize(), [8.0, 16.0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_parts_along(
        values: NarrowArray<F>,
        scales: NarrowArray<E8M0>,
        axis: usize,
    ) -> Result<Self> {
        Ok(MxArray {
            core: Blocked::from_parts(values, scales, axis, Self::BLOCK_SIZE, "MX")?,
        })
    }

    /// The values and the scales.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E5M2, MxArray};
    ///
    /// let (values, scales) = MxArray::<E5M2>::quantize(&[1.0; 33], &[33])?.into_parts();
    /// assert_eq!((values.len(), scales.len()), (33, 2));
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn into_parts(self) -> (NarrowArray<F>, NarrowArray<E8M0>) {
        (self.core.values, self.core.scales)
    }

    super::blocked::blocked_methods! {
        /// The packed values, with the array's shape (see the byte layout in
        /// [the type docs](Self)).
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::{E2M1, MxArray};
        ///
        /// let mx = MxArray::<E2M1>::quantize(&[1.0, 2.0, 3.0, 4.0], &[4])?;
        /// // Scale 2^(2 - 2) = 1: codes 0x2, 0x4, 0x5, 0x6, two per byte.
        /// assert_eq!(mx.values().as_bytes(), [0x42, 0x65]);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        values<F>,
        /// The scales, one [`E8M0`] byte per block, shape `[..., ceil(cols /
        /// 32)]`, row-major.
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::{E4M3, MxArray};
        ///
        /// let mx = MxArray::<E4M3>::quantize(&[448.0, 1.0], &[2, 1])?;
        /// assert_eq!(mx.scales().shape(), [2, 1]);
        /// assert_eq!(mx.scales().as_bytes(), [127, 119]); // 2^0 and 2^-8
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        scales<E8M0>,
        /// The shape of the values.
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::{E3M2, MxArray};
        ///
        /// let mx = MxArray::<E3M2>::quantize(&[0.0; 6], &[1, 2, 3])?;
        /// assert_eq!(mx.shape(), [1, 2, 3]);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        shape,
        /// The number of values.
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::{E2M3, MxArray};
        ///
        /// assert_eq!(MxArray::<E2M3>::quantize(&[0.0; 5], &[5])?.len(), 5);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        len,
        /// Whether the array holds no values.
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::{E2M3, MxArray};
        ///
        /// assert!(MxArray::<E2M3>::quantize(&[], &[4, 0])?.is_empty());
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        is_empty,
    }

    /// Dequantizes into `out` (row-major, `len()` values): `scale * value`,
    /// exact in `f32`. A block with a NaN scale gives NaN.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] when `out.len() != len()`; `out` is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E2M1, MxArray};
    ///
    /// let mx = MxArray::<E2M1>::quantize(&[1.0, f32::NAN], &[2])?;
    /// let mut out = [0.0; 2];
    /// mx.dequantize_into(&mut out)?;
    /// assert!(out[0].is_nan() && out[1].is_nan()); // the block's scale is NaN
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn dequantize_into(&self, out: &mut [f32]) -> Result<()> {
        // Exact: every value times 2^k (|k| <= 127, the product within
        // f32's range) is an f32.
        // Each block's scaled decode in one pass where a kernel serves the
        // element format (E2M1; E4M3 and E5M2 with F16C or NEON), the
        // factors from the scale codes' table.
        let fused = Some((&E8M0_F32, 1.0));
        self.core
            .dequantize_into(out, Self::BLOCK_SIZE, fused, |run, c| {
                // From the bits (`to_f32` is the format's general decode).
                let s = e8m0_f32(E8M0::from_bits(c));
                for v in run {
                    *v *= s;
                }
            })
    }

    super::blocked::blocked_methods! {
        /// Dequantizes into a new `Vec<f32>` (row-major).
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::{E5M2, MxArray};
        ///
        /// let mx = MxArray::<E5M2>::quantize(&[1.0, 1e-3, -3.0], &[3])?;
        /// assert_eq!(mx.dequantize(), [1.0, 0.0009765625, -3.0]);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        dequantize,
        /// The scales in the tiled layout that cuBLASLt (`VEC32_UE8M0`) and
        /// CUTLASS block-scaled GEMMs read: see [`swizzle_scales`](super::swizzle_scales). The leading
        /// dimensions are flattened into rows.
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::{E4M3, MxArray};
        ///
        /// let mx = MxArray::<E4M3>::quantize(&[1.0; 2 * 64], &[2, 64])?;
        /// let tiled = mx.scales_swizzled();
        /// assert_eq!(tiled.len(), 128 * 4); // one tile, zero padded
        /// assert_eq!(&tiled[..2], [119, 119]); // row 0, blocks 0 and 1
        /// assert_eq!(&tiled[16..18], [119, 119]); // row 1
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        scales_swizzled,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The constant table of the fused dequantize is `e8m0_f32`, bit for
    /// bit, at every scale code.
    #[test]
    fn e8m0_table_is_e8m0_f32() {
        for c in 0..=255u8 {
            assert_eq!(
                E8M0_F32[usize::from(c)].to_bits(),
                e8m0_f32(E8M0::from_bits(c)).to_bits(),
                "code {c:#04x}"
            );
        }
    }
}
