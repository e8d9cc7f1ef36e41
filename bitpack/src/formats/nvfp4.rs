//! NVFP4: E2M1 values in blocks of 16, each block with an E4M3 scale, and
//! one `f32` scale for the whole tensor.

use alloc::vec;
use alloc::vec::Vec;

pub use super::block::TinyScale;
use super::block::{
    FP4_TIMES_FP8_MAX, Nvfp4Scaler, block_amax, e2m1_threshold_bits, nvfp4_codes, nvfp4_scale,
};
use super::blocked::{Blocked, split_shape};
use super::types::{E2M1, E4M3};
use super::wide::{Real, Rounding, f32s_of};
use crate::kernels::minifloat::{self, StochasticScale};
use crate::{Error, LengthOf, NarrowArray, Result};

/// Which values share an NVFP4 block scale.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{Nvfp4Blocks, Nvfp4Options};
///
/// assert_eq!(Nvfp4Options::default().blocks, Nvfp4Blocks::Rows);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Nvfp4Blocks {
    /// 16 consecutive values of a row (1 x 16): activations, and what
    /// cuBLASLt's `VEC16_UE4M3` describes.
    #[default]
    Rows,
    /// 16 x 16 tiles of the last two dimensions (TransformerEngine's weight
    /// recipe): one scale from the tile's amax, stored for each of the
    /// tile's 16 rows, so that [`scales`](Nvfp4Array::scales) keeps the 1 x
    /// 16 layout a GEMM reads (and the transposed weight gets the same
    /// scales). A 1-d array is one row.
    Tiles16x16,
}

/// Options of [`Nvfp4Array::quantize_with`].
///
/// # Examples
///
/// ```
/// use bitpack::formats::{Nvfp4Blocks, Nvfp4Options, Rounding, TinyScale};
///
/// let o = Nvfp4Options::default();
/// assert_eq!(
///     (o.blocks, o.tensor_scale, o.tiny, o.rounding),
///     (Nvfp4Blocks::Rows, None, TinyScale::Flush, Rounding::Nearest)
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Nvfp4Options {
    /// 1 x 16 or 16 x 16 blocks.
    pub blocks: Nvfp4Blocks,
    /// The tensor scale; `None`:
    /// [`default_tensor_scale`](Nvfp4Array::default_tensor_scale) of the
    /// data (`amax / (448 * 6)`).
    pub tensor_scale: Option<f32>,
    /// The rule for scales below the smallest E4M3 value.
    pub tiny: TinyScale,
    /// Round the E2M1 values to nearest, or stochastically (element `i` of
    /// the row-major data uses [`random_bits(seed, i)`](super::random_bits)). The
    /// block scales always round to nearest.
    pub rounding: Rounding,
}

/// The default tensor scale of any [`Real`] data: the largest finite
/// magnitude (rounded to `f32`) over `6 * 448`, in `f32`, or 1 if zero;
/// [`NO_FINITE_VALUE`] when the data is not empty and holds no finite value.
fn default_scale_of<S: Real>(data: &[S]) -> Result<f32> {
    // The largest finite magnitude and whether there is one, 256 values at
    // a time; split across threads (max and or: the cuts do not matter).
    // Compiled for AVX2 where the CPU has it (SSE2 has no unsigned
    // 32-bit max, which the `f32` amax of bits needs: without it, this
    // pass over the data took 40% of the quantize).
    let amax_of = |range: core::ops::Range<usize>| {
        crate::kernels::with_avx2(|| {
            let mut amax = 0f64;
            let mut any_finite = false;
            for chunk in data[range].chunks(256) {
                // One line in sixteen (`f32`) asked for ahead: this pass
                // reads at memory speed (`kernels::PREFETCH_AHEAD`).
                crate::kernels::prefetch_ahead(chunk.as_ptr().cast());
                let (a, finite) = S::amax(chunk);
                if finite {
                    amax = amax.max(a);
                    any_finite = true;
                } else {
                    // Leave the non-finite values out.
                    for &x in chunk {
                        let v = x.to_f64_exact().abs();
                        any_finite |= v.is_finite();
                        if v.is_finite() && v > amax {
                            amax = v;
                        }
                    }
                }
            }
            (amax, any_finite)
        })
    };
    let n = data.len();
    let (amax, any_finite) = crate::par::fold(
        n,
        n,
        |u| u.is_multiple_of(256),
        amax_of,
        |a, b| (a.0.max(b.0), a.1 | b.1),
    );
    if !data.is_empty() && !any_finite {
        return Err(NO_FINITE_VALUE);
    }
    let s = amax as f32 / FP4_TIMES_FP8_MAX;
    Ok(if s > 0.0 { s } else { 1.0 })
}

/// The error of a default tensor scale over data without a finite value
/// (all NaN or infinite). NVFP4 references (TransformerEngine, ModelOpt)
/// take the amax with NaN propagating, so such a tensor gets a NaN tensor
/// scale and every value dequantizes to NaN; a NaN tensor scale is not one
/// this crate stores (it must be finite and positive), and any finite
/// stand-in (1, say) would be a number the data never gave. So: an error,
/// and the caller who wants the all-NaN blocks anyway passes a scale.
pub(crate) const NO_FINITE_VALUE: Error = Error::Invalid(
    "the NVFP4 default tensor scale (amax / (6 * 448)) needs a finite value, and the data \
     has none (all NaN or infinite); pass a tensor scale (quantize_with_tensor_scale)",
);

/// An N-d array in NVIDIA's NVFP4 format: [`E2M1`] values in blocks of 16
/// along the innermost dimension, each block with an [`E4M3`] scale (used
/// as unsigned, "UE4M3"), and one `f32` scale for the whole tensor.
///
/// The value of element `i` of block `b` is `value[i] * scale[b] *
/// tensor_scale`.
///
/// # Quantizing
///
/// The block-scale formula is common practice (NVIDIA TransformerEngine,
/// ModelOpt), not a published standard; this is the one used here:
///
/// 1. `tensor_scale = amax_tensor / (6 * 448)` over the finite values (so
///    the block holding the largest value gets the largest E4M3 scale), or
///    the scale given to
///    [`quantize_with_tensor_scale`](Self::quantize_with_tensor_scale). If
///    that quotient is zero (an all-zero tensor), the tensor scale is 1; a
///    tensor with no finite value (all NaN) has no default tensor scale
///    (an [`Error::Invalid`]: the references' amax would be NaN).
/// 2. Per block of 16 consecutive values of a row (the last block may be
///    shorter): `scale = E4M3(amax_block / (6 * tensor_scale))`, computed in
///    `f64` and rounded once to nearest, ties to even, saturating at 448.
/// 3. Each value is `x / (scale * tensor_scale)` rounded once to nearest,
///    ties to even, into E2M1, saturating at ±6 (the rounding of the scale
///    can put the block maximum slightly above 6). If the scale rounded to
///    zero, the values are zeros of their sign.
/// 4. A block holding a NaN or an infinity gets the E4M3 NaN scale (`0x7f`)
///    and `+0` values; it dequantizes to NaN.
///
/// # Byte layout (for GPU GEMMs)
///
/// - [`values`](Self::values): a [`NarrowArray<E2M1>`] with the array's
///   shape, row-major, two values per byte, element 0 in the low nibble.
/// - [`scales`](Self::scales): a [`NarrowArray<E4M3>`], one byte per block,
///   row-major with shape `[d0, ..., d(n-2), ceil(d(n-1) / 16)]`. cuBLASLt
///   (`VEC16_UE4M3`) reads them tiled: [`scales_swizzled`](Self::scales_swizzled).
/// - [`tensor_scale`](Self::tensor_scale): the `f32` a GEMM takes as its
///   per-tensor scale (alpha).
///
/// # Examples
///
/// ```
/// use bitpack::formats::Nvfp4Array;
///
/// let data: Vec<f32> = (0..32).map(|i| (i as f32 - 16.0) / 4.0).collect();
/// let q = Nvfp4Array::quantize(&data, &[2, 16])?;
/// assert_eq!(q.tensor_scale(), 4.0 / 2688.0);
/// assert_eq!(q.scales().len(), 2);
/// let back = q.dequantize();
/// assert_eq!(back[0], -4.0); // the tensor's largest magnitude is exact
/// # Ok::<(), bitpack::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Nvfp4Array {
    core: Blocked<E2M1, E4M3>,
    tensor_scale: f32,
}

impl Nvfp4Array {
    /// Values per block: 16.
    pub const BLOCK_SIZE: usize = 16;

    /// The default tensor scale of `data`: the largest finite magnitude
    /// divided by `6 * 448` (in `f32`), or 1 if that is zero (all zeros, or
    /// no values).
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] when `data` is not empty and holds no finite
    /// value (all NaN or infinite): NVFP4 references get a NaN tensor scale
    /// there, which is not a scale this crate stores.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::Nvfp4Array;
    ///
    /// assert_eq!(Nvfp4Array::default_tensor_scale(&[1.0, -2688.0, f32::INFINITY])?, 1.0);
    /// assert_eq!(Nvfp4Array::default_tensor_scale(&[0.0; 4])?, 1.0);
    /// assert!(Nvfp4Array::default_tensor_scale(&[f32::NAN; 4]).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn default_tensor_scale(data: &[f32]) -> Result<f32> {
        default_scale_of(data)
    }

    /// Quantizes `data` (row-major, shape `shape`) with the
    /// [default tensor scale](Self::default_tensor_scale).
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] when the shape does not hold `data.len()` values,
    /// [`Error::Invalid`] for an empty (0-d) shape, and when `data` holds no
    /// finite value (all NaN or infinite: see
    /// [`default_tensor_scale`](Self::default_tensor_scale)).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::Nvfp4Array;
    ///
    /// // 5.25 = 6 * 448 / 512: the tensor scale is 2^-9, exactly.
    /// let q = Nvfp4Array::quantize(&[5.25; 20], &[20])?;
    /// assert_eq!(q.tensor_scale(), 1.0 / 512.0);
    /// assert_eq!(q.scales().len(), 2); // 16 and a tail of 4
    /// assert_eq!(q.dequantize(), [5.25; 20]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn quantize(data: &[f32], shape: &[usize]) -> Result<Self> {
        Self::quantize_with_tensor_scale(data, shape, Self::default_tensor_scale(data)?)
    }

    /// Quantizes `data` (row-major, shape `shape`) with a given tensor scale
    /// (for instance one computed over a larger tensor, or fixed in
    /// advance).
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] unless `tensor_scale` is finite and positive, and
    /// the errors of [`quantize`](Self::quantize).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::Nvfp4Array;
    ///
    /// let q = Nvfp4Array::quantize_with_tensor_scale(&[1.0, 2.0], &[2], 1.0)?;
    /// assert_eq!(q.scales().get(0).unwrap().to_f32(), 0.34375); // E4M3(2 / 6)
    /// assert!(Nvfp4Array::quantize_with_tensor_scale(&[1.0], &[1], 0.0).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn quantize_with_tensor_scale(
        data: &[f32],
        shape: &[usize],
        tensor_scale: f32,
    ) -> Result<Self> {
        let opts = Nvfp4Options {
            tensor_scale: Some(tensor_scale),
            ..Nvfp4Options::default()
        };
        Self::quantize_with(data, shape, &opts)
    }

    /// Quantizes `data` (row-major, shape `shape`, any [`Real`] type) with
    /// the given block shape, tensor scale, tiny-scale rule and rounding
    /// ([`Nvfp4Options`]).
    ///
    /// Every quotient rounds once from the exact value: for `f32`, `f16` and
    /// `bf16` input the `f64` quotients are exact enough by construction (a
    /// 24-bit value over a 28-bit divisor cannot fall within 2^-53 of an
    /// E2M1 or E4M3 midpoint without being one); for `f64` input they are
    /// rounded to odd with an exact residual. The default tensor scale of
    /// `f64` data is computed from its amax rounded to `f32`. A block
    /// holding a NaN or an infinity gets the NaN scale and `+0` values.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] unless the tensor scale is finite and positive
    /// (the default one of data without a finite value is neither),
    /// [`Error::Shape`] when the shape does not hold `data.len()` values,
    /// [`Error::Invalid`] for an empty (0-d) shape.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{Nvfp4Array, Nvfp4Blocks, Nvfp4Options};
    ///
    /// // A 16 x 32 weight: two 16 x 16 tiles, one scale each, stored per row.
    /// let w: Vec<f64> = (0..16 * 32).map(|i| if i % 32 < 16 { 1.0 } else { 3.0 }).collect();
    /// let opts = Nvfp4Options { blocks: Nvfp4Blocks::Tiles16x16, ..Nvfp4Options::default() };
    /// let q = Nvfp4Array::quantize_with(&w, &[16, 32], &opts)?;
    /// assert_eq!(q.scales().shape(), [16, 2]);
    /// let d = q.dequantize();
    /// // The tile holding the tensor's amax keeps it (block scale 448, up to
    /// // the f32 rounding of the tensor scale 3 / 2688).
    /// assert!((d[16] - 3.0).abs() < 1e-6);
    /// // The other tile's scale 149.3 rounds to the E4M3 value 144, so 1.0
    /// // comes back as 6 * 144 * 3 / 2688 = 0.964.
    /// assert!((d[0] - 0.9643).abs() < 1e-4 && d[0] == d[1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn quantize_with<S: Real>(
        data: &[S],
        shape: &[usize],
        opts: &Nvfp4Options,
    ) -> Result<Self> {
        let tensor_scale = tensor_scale_for(data, opts)?;
        let (rows, cols) = split_shape(shape, data.len())?;
        let mut values = NarrowArray::<E2M1>::zeroed(data.len());
        let mut scales = NarrowArray::<E4M3>::zeroed(rows * cols.div_ceil(Self::BLOCK_SIZE));
        let dims = (rows, cols, matrix_rows(shape));
        let (words, scale_bytes) = (values.words_mut(), scales.bytes_mut());
        quantize_parts(data, dims, tensor_scale, opts, words, scale_bytes);
        values.reshape(shape)?;
        Self::from_parts(values, scales, tensor_scale)
    }

    /// Quantizes `data` into this array's own storage, replacing its values,
    /// scales and tensor scale: [`quantize_with`](Self::quantize_with) of
    /// `data` with this array's shape, without allocating. The result is
    /// the same, bit for bit, as a fresh `quantize_with`; for repeated
    /// quantizations of one shape it saves the allocation and the first
    /// writes of fresh memory, which for large arrays cost as much as the
    /// quantization itself.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] (`QuantizeInput`) unless `data` holds
    /// [`len()`](Self::len) values; [`Error::Invalid`] unless the tensor
    /// scale (given, or the default one of `data`) is finite and positive.
    /// The array is unchanged on error.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{Nvfp4Array, Nvfp4Options};
    ///
    /// let mut q = Nvfp4Array::quantize(&[1.0; 32], &[2, 16])?;
    /// let step: Vec<f32> = (0..32).map(|i| i as f32 - 8.0).collect();
    /// q.requantize(&step, &Nvfp4Options::default())?;
    /// let fresh = Nvfp4Array::quantize(&step, &[2, 16])?;
    /// assert_eq!(q.tensor_scale(), fresh.tensor_scale());
    /// assert_eq!(q.values().as_bytes(), fresh.values().as_bytes());
    /// assert_eq!(q.scales().as_bytes(), fresh.scales().as_bytes());
    /// // No finite value, so no default tensor scale: the array is kept.
    /// assert!(q.requantize(&[f32::NAN; 32], &Nvfp4Options::default()).is_err());
    /// assert_eq!(q.dequantize(), fresh.dequantize());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn requantize<S: Real>(&mut self, data: &[S], opts: &Nvfp4Options) -> Result<()> {
        LengthOf::QuantizeInput.check(self.len(), data.len())?;
        let tensor_scale = tensor_scale_for(data, opts)?;
        let (rows, cols) = split_shape(self.shape(), data.len())?;
        let dims = (rows, cols, matrix_rows(self.shape()));
        let Blocked { values, scales, .. } = &mut self.core;
        let (words, scale_bytes) = (values.words_mut(), scales.bytes_mut());
        quantize_parts(data, dims, tensor_scale, opts, words, scale_bytes);
        self.tensor_scale = tensor_scale;
        Ok(())
    }

    /// An array from packed values, block scales (one per block,
    /// row-major) and the tensor scale.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for a 0-d `values` or a tensor scale that is not
    /// finite and positive; [`Error::Length`] when `scales` does not hold
    /// one value per block.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    /// use bitpack::formats::{E2M1, E4M3, Nvfp4Array};
    ///
    /// let values = NarrowArray::<E2M1>::from_bytes(&[0x7a], 2)?; // [-1.0, 6.0]
    /// let scales = NarrowArray::from_slice(&[E4M3::from_f32(0.5)]);
    /// let q = Nvfp4Array::from_parts(values, scales, 2.0)?;
    /// assert_eq!(q.dequantize(), [-1.0, 6.0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_parts(
        values: NarrowArray<E2M1>,
        scales: NarrowArray<E4M3>,
        tensor_scale: f32,
    ) -> Result<Self> {
        if !(tensor_scale > 0.0 && tensor_scale.is_finite()) {
            return Err(Error::Invalid(
                "the NVFP4 tensor scale must be finite and positive",
            ));
        }
        let axis = values.shape().len().saturating_sub(1);
        Ok(Nvfp4Array {
            core: Blocked::from_parts(values, scales, axis, Self::BLOCK_SIZE, "NVFP4")?,
            tensor_scale,
        })
    }

    /// The values, the scales and the tensor scale.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::Nvfp4Array;
    ///
    /// let (values, scales, ts) = Nvfp4Array::quantize(&[1.0; 33], &[33])?.into_parts();
    /// assert_eq!((values.len(), scales.len(), ts), (33, 3, 1.0 / 2688.0));
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn into_parts(self) -> (NarrowArray<E2M1>, NarrowArray<E4M3>, f32) {
        (self.core.values, self.core.scales, self.tensor_scale)
    }

    super::blocked::blocked_methods! {
        /// The packed E2M1 values, with the array's shape.
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::Nvfp4Array;
        ///
        /// let q = Nvfp4Array::quantize_with_tensor_scale(&[6.0, -6.0], &[2], 1.0)?;
        /// assert_eq!(q.values().as_bytes(), [0xf7]);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        values<E2M1>,
        /// The E4M3 block scales, shape `[..., ceil(cols / 16)]`, row-major.
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::Nvfp4Array;
        ///
        /// let q = Nvfp4Array::quantize(&[1.0; 48], &[3, 16])?;
        /// assert_eq!(q.scales().shape(), [3, 1]);
        /// assert_eq!(q.scales().get(0).unwrap().to_f32(), 448.0);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        scales<E4M3>,
    }

    /// The per-tensor `f32` scale.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::Nvfp4Array;
    ///
    /// let q = Nvfp4Array::quantize(&[2688.0], &[1])?;
    /// assert_eq!(q.tensor_scale(), 1.0);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn tensor_scale(&self) -> f32 {
        self.tensor_scale
    }

    super::blocked::blocked_methods! {
        /// The shape of the values.
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::Nvfp4Array;
        ///
        /// assert_eq!(Nvfp4Array::quantize(&[0.0; 6], &[3, 2])?.shape(), [3, 2]);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        shape,
        /// The number of values.
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::Nvfp4Array;
        ///
        /// assert_eq!(Nvfp4Array::quantize(&[0.0; 6], &[3, 2])?.len(), 6);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        len,
        /// Whether the array holds no values.
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::Nvfp4Array;
        ///
        /// assert!(Nvfp4Array::quantize(&[], &[0])?.is_empty());
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        is_empty,
    }

    /// Dequantizes into `out` (row-major, `len()` values): `value * scale *
    /// tensor_scale`, computed exactly and rounded once to `f32`. A block
    /// with a NaN scale gives NaN.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] when `out.len() != len()`; `out` is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::Nvfp4Array;
    ///
    /// let q = Nvfp4Array::quantize(&[0.875, 1.75, 5.25], &[3])?;
    /// let mut out = [0.0; 3];
    /// q.dequantize_into(&mut out)?;
    /// assert_eq!(out, [0.875, 1.75, 5.25]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn dequantize_into(&self, out: &mut [f32]) -> Result<()> {
        let st = self.tensor_scale;
        // The E4M3 scales' values, from a table (`to_f32` is the format's
        // general decode).
        let table = &crate::float::Tables::<E4M3>::DECODE_F32;
        let fused = Some((table, st));
        self.core
            .dequantize_into(out, Self::BLOCK_SIZE, fused, |run, c| {
                // `value * scale` is exact in f32 (at most 2 + 4 significant
                // bits), so times the tensor scale it rounds once, as the
                // product of the three does in f64: `nvfp4_value`'s bits.
                let s = table[usize::from(c)];
                for v in run {
                    *v = *v * s * st;
                }
            })
    }

    super::blocked::blocked_methods! {
        /// Dequantizes into a new `Vec<f32>` (row-major).
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::Nvfp4Array;
        ///
        /// let q = Nvfp4Array::quantize(&[0.1, 0.2, 0.3, 0.4], &[4])?;
        /// let back = q.dequantize();
        /// assert!(back.iter().zip([0.1, 0.2, 0.3, 0.4]).all(|(b, x)| (b - x).abs() <= 0.05));
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        dequantize,
        /// The block scales in the tiled layout cuBLASLt (`VEC16_UE4M3`) reads:
        /// see [`swizzle_scales`](super::swizzle_scales). The leading dimensions are flattened into
        /// rows.
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::formats::Nvfp4Array;
        ///
        /// let q = Nvfp4Array::quantize(&[1.0; 64], &[64])?;
        /// assert_eq!(q.scales_swizzled().len(), 512);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        scales_swizzled,
    }
}

/// Blocks per chunk of [`rows_split`].
const CHUNK_BLOCKS: usize = 32;

/// The tensor scale `opts` asks for (given, or the default one of
/// `data`), checked finite and positive.
fn tensor_scale_for<S: Real>(data: &[S], opts: &Nvfp4Options) -> Result<f32> {
    let tensor_scale = match opts.tensor_scale {
        Some(s) => s,
        None => default_scale_of(data)?,
    };
    if !(tensor_scale > 0.0 && tensor_scale.is_finite()) {
        return Err(Error::Invalid(
            "the NVFP4 tensor scale must be finite and positive",
        ));
    }
    Ok(tensor_scale)
}

/// The rows of each matrix of `shape`: the leading dimensions other than
/// the last two are independent matrices, which tiles never cross.
fn matrix_rows(shape: &[usize]) -> usize {
    if shape.len() >= 2 {
        shape[shape.len() - 2]
    } else {
        1
    }
    .max(1)
}

/// Quantizes `data` (`rows` x `cols` values, `matrix_rows` rows per
/// matrix) into packed codes (`words`, the whole stream) and block scale
/// codes (`scales`, `rows * ceil(cols / 16)`, row-major; a tile's scale on
/// each of its rows). Every value's bits and every scale are overwritten,
/// so the buffers may hold an earlier result.
fn quantize_parts<S: Real>(
    data: &[S],
    (rows, cols, matrix_rows): (usize, usize, usize),
    tensor_scale: f32,
    opts: &Nvfp4Options,
    words: &mut [u64],
    scales: &mut [u8],
) {
    const BS: usize = Nvfp4Array::BLOCK_SIZE;
    let nb = cols.div_ceil(BS);
    debug_assert_eq!(scales.len(), rows * nb);
    let tile_rows = match opts.blocks {
        Nvfp4Blocks::Rows => 1,
        Nvfp4Blocks::Tiles16x16 => 16,
    };
    // Tile rows of each matrix: group `g` is the `g % per_matrix`-th
    // of matrix `g / per_matrix`, its first row and its height.
    let per_matrix = matrix_rows.div_ceil(tile_rows);
    let group = |g: usize| {
        let (m, t) = (g / per_matrix, g % per_matrix);
        let r0 = m * matrix_rows + t * tile_rows;
        (r0, tile_rows.min(matrix_rows - t * tile_rows))
    };
    let n = data.len();
    // `f32`, `f16` and `bf16` rounded to nearest take the one-pass path
    // (`rows_split`): blocks of 1 x 16 with their scales, 16 x 16 tiles with
    // the tiles' scales computed first.
    let one_pass = matches!(opts.rounding, Rounding::Nearest) && S::WIDENS;
    if !(one_pass && tile_rows == 1) {
        // Bounded by the data: with no columns (or no rows) there is no
        // block, however many empty rows the shape names.
        let groups = if nb == 0 || rows == 0 {
            0
        } else {
            rows / matrix_rows * per_matrix
        };
        // One scale per tile (per block for rows): the tile's amax (a NaN or
        // infinity anywhere: the NaN scale), then the block core's scale.
        // Split across threads by tiles.
        let mut tile_scales = vec![0u8; if tile_rows == 1 { 0 } else { groups * nb }];
        let out = crate::par::Out {
            slice: if tile_rows == 1 {
                &mut *scales
            } else {
                &mut tile_scales[..]
            },
            at: |u| u,
        };
        crate::par::split(
            n,
            groups * nb,
            |_| true,
            out,
            |us, out, base| {
                let scaler = Nvfp4Scaler::new(tensor_scale, opts.tiny);
                for u in us {
                    let ((r0, height), b) = (group(u / nb), u % nb);
                    let (c0, c1) = (b * BS, cols.min(b * BS + BS));
                    if S::WIDENS {
                        // `f32`-exact data: the amax as an integer max of
                        // the magnitudes' bits (NaN above infinity), the
                        // scale without a division, as `nvfp4_scale` gives.
                        let mut m = 0u32;
                        for r in r0..r0 + height {
                            for x in &data[r * cols + c0..r * cols + c1] {
                                m = m.max(x.to_f32_odd().to_bits() & 0x7fff_ffff);
                            }
                        }
                        let scale = if m > 0x7f7f_ffff {
                            E4M3::NAN
                        } else {
                            scaler.scale(m)
                        };
                        out[u - base] = scale.to_bits();
                        continue;
                    }
                    let mut amax = Some(0f64);
                    for r in r0..r0 + height {
                        let a = block_amax(&data[r * cols + c0..r * cols + c1]);
                        amax = amax.zip(a).map(|(m, a)| m.max(a));
                    }
                    out[u - base] = nvfp4_scale::<S>(amax, tensor_scale, opts.tiny).to_bits();
                }
            },
        );
        if tile_rows > 1 {
            for g in 0..groups {
                let (r0, height) = group(g);
                for r in r0..r0 + height {
                    scales[r * nb..][..nb].copy_from_slice(&tile_scales[g * nb..][..nb]);
                }
            }
        }
    }
    if one_pass {
        let given = tile_rows > 1;
        rows_split(
            data,
            (rows, cols),
            tensor_scale,
            opts.tiny,
            words,
            scales,
            given,
        );
        return;
    }
    // The codes, value by value with their block's scale, packed a
    // chunk at a time; split across threads at whole chunks.
    let out = crate::par::Out {
        slice: words,
        at: |u| u / 16,
    };
    let scale_codes = &*scales;
    let stochastic = match opts.rounding {
        Rounding::Stochastic { seed } if S::WIDENS => Some(seed),
        _ => None,
    };
    crate::par::split(n, n, crate::par::on_grain, out, |us, words, base| {
        if us.is_empty() {
            return;
        }
        let mut codes = [0u8; crate::par::GRAIN];
        let mut widened = [0f32; crate::par::GRAIN];
        let mut divisors = [0f64; crate::par::GRAIN];
        let mut at = us.start;
        // Row `r`, block `b` of the row: divided out once, then counted.
        let (mut r, mut b) = (at / cols, at % cols / BS);
        while at < us.end {
            let end = us.end.min(at + crate::par::GRAIN);
            let c = &mut codes[..end - at];
            let (r0, b0) = (r, b);
            if let Some(seed) = stochastic {
                // `f32`, `f16` and `bf16` rounded stochastically: each
                // value's divisor (its block's scale times the tensor
                // scale, exact in `f64`), then the branch-free stochastic
                // encode of the quotients, unless a block's scale is zero
                // or NaN (the loop below writes those chunks).
                let mut p = at;
                let mut plain = true;
                while p < end {
                    let block_end = r * cols + cols.min(b * BS + BS);
                    let q = end.min(block_end);
                    let code = scale_codes[r * nb + b];
                    plain &= (1..0x7f).contains(&code);
                    let d = f64::from(E4M3::from_bits(code).to_f32()) * f64::from(tensor_scale);
                    divisors[p - at..q - at].fill(d);
                    p = q;
                    if q == block_end {
                        b += 1;
                        if b == nb {
                            (r, b) = (r + 1, 0);
                        }
                    }
                }
                if plain {
                    let xs = f32s_of(&data[at..end], &mut widened);
                    let d = StochasticScale::Divisors(&divisors[..end - at]);
                    let sf = (seed, at as u64);
                    minifloat::encode_codes_stochastic::<E2M1>(xs, d, true, sf, c);
                    if crate::kernels::pack(4, c, words, at - base * 16).is_err() {
                        unreachable!("the array holds every value");
                    }
                    at = end;
                    continue;
                }
                (r, b) = (r0, b0);
            }
            let mut p = at;
            while p < end {
                // The run of `p`'s block within `at..end`.
                let block_end = r * cols + cols.min(b * BS + BS);
                let q = end.min(block_end);
                let scale = E4M3::from_bits(scale_codes[r * nb + b]);
                let out = &mut c[p - at..q - at];
                nvfp4_codes::<S>(
                    &data[p..q],
                    scale,
                    tensor_scale,
                    opts.rounding,
                    p as u64,
                    out,
                );
                p = q;
                if q == block_end {
                    b += 1;
                    if b == nb {
                        (r, b) = (r + 1, 0);
                    }
                }
            }
            if crate::kernels::pack(4, c, words, at - base * 16).is_err() {
                unreachable!("the array holds every value");
            }
            at = end;
        }
    });
}

/// The one-pass NVFP4 quantize of rows in blocks of 1 x 16, rounding to
/// nearest: `rows` rows of `cols` values (`xs`, row-major; `f32`, or `f16`
/// and `bf16` widened exactly a chunk at a time), the codes packed into
/// `words` (the whole stream, every value's bits overwritten) and the scale
/// codes into `scale_codes` (`rows` times `ceil(cols / 16)`, row-major),
/// which hold the scales to use when `given` (16 x 16 tiles) and are
/// computed otherwise.
///
/// Each block is read once ([`kernels::nvfp4_blocks`](crate::kernels)):
/// its amax, its scale ([`Nvfp4Scaler`], no division) and its codes (seven
/// compares of each magnitude's bits with the scale's thresholds, which
/// [`Thresholds`] computes once per scale code) in registers, the 16
/// codes written as one word. The units split across threads are chunks of
/// 32 blocks (row `u / per_row`, chunk `u % per_row`), cut where a chunk
/// starts on a word.
fn rows_split<S: Real>(
    xs: &[S],
    (rows, cols): (usize, usize),
    tensor_scale: f32,
    tiny: super::TinyScale,
    words: &mut [u64],
    scale_codes: &mut [u8],
    given: bool,
) {
    const B: usize = Nvfp4Array::BLOCK_SIZE;
    const CH: usize = B * CHUNK_BLOCKS;
    let n = xs.len();
    let nb = cols.div_ceil(B);
    debug_assert_eq!(scale_codes.len(), rows * nb);
    let per_row = cols.div_ceil(CH).max(1);
    let units = if n == 0 { 0 } else { rows * per_row };
    let first = |u: usize| (u / per_row * cols + u % per_row * CH).min(n);
    let scale_at = |u: usize| u / per_row * nb + u % per_row * CHUNK_BLOCKS;
    let values = crate::par::Out {
        slice: words,
        at: |u| first(u) / 16,
    };
    let scale_out = crate::par::Out {
        slice: scale_codes,
        at: scale_at,
    };
    let cut_ok = |u| crate::par::on_word(4, first(u));
    crate::par::split2(
        n,
        units,
        cut_ok,
        values,
        scale_out,
        |us, (words, wb), (scales, sb)| {
            let mut table = Thresholds::new(tensor_scale, tiny);
            let (v0, v1) = (first(us.start), first(us.end));
            if cols.is_multiple_of(B)
                && let Some(run) = S::as_f32s(&xs[v0..v1])
            {
                // `f32` rows of whole blocks: the piece's values are one
                // run, and so are its scales and its words. One call, so
                // that each group's loads overlap the compares of the
                // group before.
                if (v1 - v0) / B >= FILL_ALL_BLOCKS {
                    table.fill_all();
                }
                let s0 = scale_at(us.start) - sb;
                let s = &mut scales[s0..s0 + (v1 - v0) / B];
                let w = &mut words[v0 / 16 - wb..][..(v1 - v0) / 16];
                if given {
                    crate::kernels::nvfp4_blocks(run, s, w, &mut Given(&mut table));
                } else {
                    crate::kernels::nvfp4_blocks(run, s, w, &mut table);
                }
                return;
            }
            let mut widened = [0f32; CH];
            for u in us {
                let (r, k) = (u / per_row, u % per_row);
                let at = r * cols + k * CH;
                let chunk = &xs[at..r * cols + cols.min(k * CH + CH)];
                let chunk = f32s_of(chunk, &mut widened);
                let s = &mut scales[scale_at(u) - sb..][..chunk.len().div_ceil(B)];
                if given {
                    // The scales given (16 x 16 tiles), read in place.
                    chunk_words(chunk, at - wb * 16, &mut Given(&mut table), s, words);
                } else {
                    chunk_words(chunk, at - wb * 16, &mut table, s, words);
                }
            }
        },
    );
}

/// The scales (`scales`) and packed codes of one chunk of at most 32
/// blocks of a row (`xs`), its first value at index `at` of `words`: whole
/// words where the chunk starts on one, else each block's word shifted into
/// place (rows whose length is not a multiple of 16); a short last block
/// is padded with zeros, whose codes are 0 and whose magnitudes leave the
/// amax as it is.
fn chunk_words(
    xs: &[f32],
    at: usize,
    code: &mut impl crate::kernels::BlockCode,
    scales: &mut [u8],
    words: &mut [u64],
) {
    const B: usize = Nvfp4Array::BLOCK_SIZE;
    let full = xs.len() / B;
    let (body, tail) = xs.split_at(full * B);
    if at.is_multiple_of(B) {
        let w = &mut words[at / B..][..full];
        crate::kernels::nvfp4_blocks(body, &mut scales[..full], w, code);
    } else {
        let mut tmp = [0u64; CHUNK_BLOCKS];
        crate::kernels::nvfp4_blocks(body, &mut scales[..full], &mut tmp[..full], code);
        for (b, &w) in tmp[..full].iter().enumerate() {
            set_nibbles(words, at + b * B, w, B);
        }
    }
    if !tail.is_empty() {
        let mut block = [0f32; B];
        block[..tail.len()].copy_from_slice(tail);
        let mut w = [0u64];
        crate::kernels::nvfp4_blocks(&block, &mut scales[full..][..1], &mut w, code);
        set_nibbles(words, at + full * B, w[0], tail.len());
    }
}

/// Writes the low `count` nibbles of `w` (`count <= 16`) into `words` from
/// value `at` on (4-bit values, LSB first), replacing what was there.
fn set_nibbles(words: &mut [u64], at: usize, w: u64, count: usize) {
    let m = if count < 16 {
        (1u64 << (4 * count)) - 1
    } else {
        u64::MAX
    };
    let (i, sh) = (at / 16, (at % 16) * 4);
    words[i] = (words[i] & !(m << sh)) | (w & m) << sh;
    if sh != 0 && sh + 4 * count > 64 {
        words[i + 1] = (words[i + 1] & !(m >> (64 - sh))) | (w & m) >> (64 - sh);
    }
}

/// Blocks from which a piece of the one-pass quantize fills every
/// threshold row first ([`Thresholds::fill_all`]), measured: filling the
/// 128 rows takes about 4 µs, checking a block's row about 0.3 ns.
const FILL_ALL_BLOCKS: usize = 16384;

/// The scale of a block from its amax bits, and the compares that give its
/// codes: for each of the 128 non-negative E4M3 scale codes (and, in the
/// same row twice, the code with its sign bit set), the seven E2M1
/// thresholds minus one as `i32` (a magnitude's bits exceed one
/// exactly when the magnitude reaches the threshold, [`e2m1_threshold_bits`])
/// and the sign mask (the sign bit, or 0 for the NaN scale, whose codes are
/// `+0`).
/// The zero scale's and the NaN scale's thresholds are `i32::MAX`, which no
/// magnitude exceeds. A row is computed the first time its scale occurs
/// (a chunk's blocks mostly share a few).
struct Thresholds {
    scaler: Nvfp4Scaler,
    tensor_scale: f32,
    rows: crate::kernels::Rows,
    filled: u128,
}

impl crate::kernels::BlockCode for Thresholds {
    /// The group's scales as one vector loop
    /// ([`Nvfp4Scaler::scale_lanes`]), then the rows of those not seen
    /// before.
    #[inline(always)]
    fn codes(
        &mut self,
        amax_bits: &[u32; crate::kernels::NVFP4_GROUP],
        scales: &mut [u8],
    ) -> &crate::kernels::Rows {
        let codes = self.scaler.scale_lanes(amax_bits);
        for (s, &c) in scales.iter_mut().zip(&codes) {
            *s = c;
        }
        self.rows_for(scales)
    }
}

/// Blocks whose scales are given (the 16 x 16 tiles' scales, computed over
/// the whole tile first and already in the kernel's scale slice, which
/// keeps them), with their thresholds.
struct Given<'a>(&'a mut Thresholds);

impl crate::kernels::BlockCode for Given<'_> {
    #[inline(always)]
    fn codes(
        &mut self,
        _amax_bits: &[u32; crate::kernels::NVFP4_GROUP],
        scales: &mut [u8],
    ) -> &crate::kernels::Rows {
        self.0.rows_for(scales)
    }
}

impl Thresholds {
    /// The table, with the rows of `scales` filled; once every row is
    /// ([`fill_all`](Self::fill_all)), with no check per block.
    #[inline(always)]
    fn rows_for(&mut self, scales: &[u8]) -> &crate::kernels::Rows {
        if self.filled != u128::MAX {
            for &s in scales {
                self.ensure(s);
            }
        }
        &self.rows
    }

    /// Fills the row of scale code `s` (its sign bit ignored) if it is not
    /// yet.
    #[inline(always)]
    fn ensure(&mut self, s: u8) {
        let i = usize::from(s & 0x7f);
        if (self.filled >> i) & 1 == 0 {
            self.fill(i);
        }
    }

    fn new(tensor_scale: f32, tiny: super::TinyScale) -> Self {
        Thresholds {
            scaler: Nvfp4Scaler::new(tensor_scale, tiny),
            tensor_scale,
            rows: [[0; 8]; 256],
            filled: 0,
        }
    }

    /// Fills every row not filled yet. About as long as checking the rows
    /// of [`FILL_ALL_BLOCKS`] blocks one by one, which a piece of at least
    /// as many blocks then skips.
    fn fill_all(&mut self) {
        for i in 0..128 {
            self.ensure(i);
        }
    }

    #[cold]
    #[inline(never)]
    fn fill(&mut self, i: usize) {
        const NEVER: i32 = i32::MAX;
        // The sign mask that keeps a value's sign (its sign bit).
        const KEEP: i32 = i32::MIN;
        let row = match i {
            0x7f => [NEVER, NEVER, NEVER, NEVER, NEVER, NEVER, NEVER, 0],
            0 => [NEVER, NEVER, NEVER, NEVER, NEVER, NEVER, NEVER, KEEP],
            _ => {
                let scale = E4M3::from_bits(i as u8);
                let t = e2m1_threshold_bits::<24, -149, 0x7f80_0000>(scale, self.tensor_scale);
                // Every threshold is a positive `f32`'s bits (at most
                // infinity's), so `t - 1` is an `i32` at least 0.
                let mut row = [KEEP; 8];
                for (r, &t) in row.iter_mut().zip(&t) {
                    *r = t as i32 - 1;
                }
                row
            }
        };
        // The kernels search the thresholds (`kernels::BlockCode`).
        debug_assert!(row[..7].is_sorted(), "{row:?}");
        // The code with its sign bit set has the same scale magnitude.
        (self.rows[i], self.rows[i | 0x80]) = (row, row);
        self.filled |= 1 << i;
    }
}
