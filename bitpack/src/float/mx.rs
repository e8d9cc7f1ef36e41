//! OCP Microscaling (MX v1.0) block arrays: 32 values of an element format
//! sharing one power-of-two [`E8M0`] scale.

use crate::error::LengthOf;
use alloc::vec;
use alloc::vec::Vec;

use super::bulk::decode_stream;
use super::spec::{MiniFloat, Mode, Parts};
use super::types::{E2M1, E2M3, E3M2, E4M3, E5M2, E8M0};
use crate::{Error, NarrowArray, Result};

mod sealed {
    pub trait Sealed {}
}

/// An element format of OCP MX v1.0: [`E2M1`] (MXFP4), [`E2M3`] and
/// [`E3M2`] (MXFP6), [`E4M3`] and [`E5M2`] (MXFP8). Sealed.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E4M3, MxElement};
///
/// fn block_emax<F: MxElement>() -> i32 {
///     F::EMAX
/// }
/// assert_eq!(block_emax::<E4M3>(), 8);
/// ```
pub trait MxElement: MiniFloat + sealed::Sealed {
    /// The exponent of the format's largest normal value (`emax_elem` in
    /// the spec): E2M1 2, E2M3 2, E3M2 4, E4M3 8, E5M2 15.
    const EMAX: i32 = Self::FORMAT.max_exponent();
}

macro_rules! mx_element {
    ($($t:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl MxElement for $t {}
    )*};
}

mx_element!(E2M1, E2M3, E3M2, E4M3, E5M2);

/// `(rows, cols)` of a row-major shape holding `len` values: `cols` is the
/// last (innermost) dimension, `rows` the product of the others.
pub(super) fn split_shape(shape: &[usize], len: usize) -> Result<(usize, usize)> {
    let Some((&cols, outer)) = shape.split_last() else {
        return Err(Error::Invalid(
            "a block-scaled array needs at least one dimension",
        ));
    };
    let rows = outer.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    let elements = rows.and_then(|r| r.checked_mul(cols));
    match (rows, elements) {
        (Some(rows), Some(n)) if n == len => Ok((rows, cols)),
        _ => Err(Error::Shape { elements, len }),
    }
}

/// The shape of the scales: `shape` with the last dimension replaced by the
/// number of blocks along it.
pub(super) fn scale_shape(shape: &[usize], block: usize) -> Vec<usize> {
    let mut s = shape.to_vec();
    if let Some(last) = s.last_mut() {
        *last = last.div_ceil(block);
    }
    s
}

/// The largest magnitude's bits (`|x|` as `u32`, which orders finite
/// magnitudes) and whether every value is finite.
#[inline]
pub(super) fn amax_bits(block: &[f32]) -> (u32, bool) {
    let mut amax = 0u32;
    for &x in block {
        amax = amax.max(x.to_bits() & 0x7fff_ffff);
    }
    (amax, amax < 0x7f80_0000)
}

/// `floor(log2(x))` for the positive finite `f32` with bits `bits`
/// (subnormals included), exactly.
#[inline]
fn floor_log2(bits: u32) -> i32 {
    let field = (bits >> 23) as i32;
    if field == 0 {
        (31 - bits.leading_zeros() as i32) - 149
    } else {
        field - 127
    }
}

/// The MX scale exponent of a block whose largest magnitude has bits `amax`
/// (finite): `floor(log2(amax)) - emax`, with an all-zero block taken as
/// `amax = 2^-126` (the `f32` smallest normal), clamped below at -127.
/// `None` if it exceeds 127 (a NaN scale).
#[inline]
fn shared_exponent<F: MxElement>(amax: u32) -> Option<i32> {
    let e = if amax == 0 { -126 } else { floor_log2(amax) } - F::EMAX;
    if e > 127 { None } else { Some(e.max(-127)) }
}

/// Quantizes one block (at most 32 values) into `out`, returning its scale.
#[inline]
pub(crate) fn quantize_block<F: MxElement>(block: &[f32], out: &mut [F]) -> E8M0 {
    let (amax, finite) = amax_bits(block);
    let exp = if finite {
        shared_exponent::<F>(amax)
    } else {
        None
    };
    let Some(exp) = exp else {
        out.fill(F::from_raw_bits(0));
        return E8M0::NAN;
    };
    let format = F::FORMAT;
    for (o, &x) in out.iter_mut().zip(block) {
        *o = F::from_raw_bits(format.encode(Parts::from_f32(x).scaled(exp), Mode::SatFinite) as u8);
    }
    // `exp` is in -127..=127.
    E8M0::from_bits((exp + 127) as u8)
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
    values: NarrowArray<F>,
    scales: NarrowArray<E8M0>,
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
        let (rows, cols) = split_shape(shape, data.len())?;
        let blocks = cols.div_ceil(Self::BLOCK_SIZE);
        let mut values = NarrowArray::with_capacity(data.len());
        let mut scales = NarrowArray::with_capacity(rows * blocks);
        let mut buf = [F::from_raw_bits(0); 32];
        if cols > 0 {
            for row in data.chunks_exact(cols) {
                for block in row.chunks(Self::BLOCK_SIZE) {
                    let out = &mut buf[..block.len()];
                    scales.push(quantize_block(block, out));
                    values.extend_from_slice(out);
                }
            }
        }
        values.reshape(shape)?;
        scales.reshape(&scale_shape(shape, Self::BLOCK_SIZE))?;
        Ok(MxArray { values, scales })
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
    pub fn from_parts(values: NarrowArray<F>, mut scales: NarrowArray<E8M0>) -> Result<Self> {
        let (rows, cols) = split_shape(values.shape(), values.len())?;
        let expected = rows * cols.div_ceil(Self::BLOCK_SIZE);
        if scales.len() != expected {
            return Err(Error::Length {
                of: LengthOf::BlockScales {
                    scheme: "MX",
                    block: Self::BLOCK_SIZE,
                },
                expected,
                actual: scales.len(),
            });
        }
        scales.reshape(&scale_shape(values.shape(), Self::BLOCK_SIZE))?;
        Ok(MxArray { values, scales })
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
        (self.values, self.scales)
    }

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
    pub fn values(&self) -> &NarrowArray<F> {
        &self.values
    }

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
    pub fn scales(&self) -> &NarrowArray<E8M0> {
        &self.scales
    }

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
    pub fn shape(&self) -> &[usize] {
        self.values.shape()
    }

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
    pub fn len(&self) -> usize {
        self.values.len()
    }

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
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
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
        if out.len() != self.len() {
            return Err(Error::Length {
                of: LengthOf::DequantizeOutput,
                expected: self.len(),
                actual: out.len(),
            });
        }
        decode_stream::<F>(self.values.as_bytes(), out);
        let cols = *self.shape().last().unwrap_or(&0);
        if cols == 0 {
            return Ok(());
        }
        let mut scales = self.scales.as_bytes().iter();
        for row in out.chunks_exact_mut(cols) {
            for block in row.chunks_mut(Self::BLOCK_SIZE) {
                let scale = E8M0::from_bits(*scales.next().unwrap_or(&0xff));
                // Exact: every value times 2^k (|k| <= 127, the product
                // within f32's range) is an f32.
                let s = scale.to_f32();
                for v in block {
                    *v *= s;
                }
            }
        }
        Ok(())
    }

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
    pub fn dequantize(&self) -> Vec<f32> {
        let mut out = vec![0.0f32; self.len()];
        self.dequantize_into(&mut out)
            .expect("the output has the array's length");
        out
    }

    /// The scales in the tiled layout that cuBLASLt (`VEC32_UE8M0`) and
    /// CUTLASS block-scaled GEMMs read: see [`swizzle_scales`]. The leading
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
    pub fn scales_swizzled(&self) -> Vec<u8> {
        let shape = self.scales.shape();
        let cols = *shape.last().unwrap_or(&0);
        let rows = self.scales.len().checked_div(cols).unwrap_or(0);
        swizzle_scales(self.scales.as_bytes(), rows, cols)
            .expect("the scales hold rows * cols bytes")
    }
}

/// Rearranges row-major block scales (`rows` x `cols` bytes, one per block)
/// into the tiled layout of cuBLASLt's block-scaled matmuls and CUTLASS's
/// Blackwell block-scaled GEMMs (cuBLAS docs, "1D block scaling factors
/// layout").
///
/// The scales are padded with zero bytes to a multiple of 128 rows and 4
/// columns and cut into 128 x 4 tiles, stored tile after tile in row-major
/// tile order, 512 bytes each. Within a tile, the scale at tile row `r`
/// (0..128) and column `c` (0..4) is at byte `(r % 32) * 16 + (r / 32) * 4 +
/// c`. The same layout serves MX (`VEC32_UE8M0`) and NVFP4
/// (`VEC16_UE4M3`) scales.
///
/// # Errors
///
/// [`Error::Shape`] when `scales.len() != rows * cols` (or the product
/// overflows).
///
/// # Examples
///
/// ```
/// use bitpack::formats::swizzle_scales;
///
/// let scales: Vec<u8> = (1..=6).collect(); // 3 rows x 2 blocks
/// let tiled = swizzle_scales(&scales, 3, 2)?;
/// assert_eq!(tiled.len(), 512);
/// assert_eq!(&tiled[0..4], [1, 2, 0, 0]); // row 0
/// assert_eq!(&tiled[16..20], [3, 4, 0, 0]); // row 1
/// assert_eq!(&tiled[32..36], [5, 6, 0, 0]); // row 2
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn swizzle_scales(scales: &[u8], rows: usize, cols: usize) -> Result<Vec<u8>> {
    let elements = rows.checked_mul(cols);
    if elements != Some(scales.len()) {
        return Err(Error::Shape {
            elements,
            len: scales.len(),
        });
    }
    let row_tiles = rows.div_ceil(128);
    let col_tiles = cols.div_ceil(4);
    let mut out = vec![0u8; row_tiles * col_tiles * 512];
    for (r, row) in scales.chunks_exact(cols.max(1)).enumerate().take(rows) {
        let tile_row = (r / 128) * col_tiles;
        let within = (r % 32) * 16 + ((r % 128) / 32) * 4;
        for (c, &s) in row.iter().enumerate() {
            out[(tile_row + c / 4) * 512 + within + c % 4] = s;
        }
    }
    Ok(out)
}
