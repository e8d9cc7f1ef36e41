//! The container half of the block-scaled core, shared by
//! [`MxArray`](super::MxArray) and [`Nvfp4Array`](super::Nvfp4Array): the
//! packed values, one scale byte per block, the axis the blocks run along;
//! the shape rules, `from_parts` validation, `dequantize_into` and the
//! swizzled scale layout. Each array supplies only its block size, its
//! scale type and how a scale applies to a value (and NVFP4 its tensor
//! scale). The per-block rules are in `block.rs`.

use alloc::vec;
use alloc::vec::Vec;

use super::block::{swizzled_index, swizzled_len};
use crate::error::LengthOf;
use crate::float::MiniFloat;
use crate::{BitElement, Error, NarrowArray, Result};

/// `(rows, cols)` of a row-major shape holding `len` values: `cols` is the
/// last (innermost) dimension, `rows` the product of the others.
pub(crate) fn split_shape(shape: &[usize], len: usize) -> Result<(usize, usize)> {
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

/// The shape of the scales of blocks along `axis`: `shape` with
/// `shape[axis]` replaced by the number of blocks along it.
pub(crate) fn scale_shape_along(shape: &[usize], axis: usize, block: usize) -> Vec<usize> {
    let mut s = shape.to_vec();
    s[axis] = s[axis].div_ceil(block);
    s
}

/// `(outer, d, inner)`: the products of the dimensions before `axis`, the
/// extent of `axis`, and the product of those after it; all zero when some
/// extent is zero (an empty array has no blocks and no scales, and the
/// product of the other extents alone may not fit).
pub(crate) fn split_axis(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    if shape.contains(&0) {
        return (0, 0, 0);
    }
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// The methods [`MxArray`](super::MxArray) and
/// [`Nvfp4Array`](super::Nvfp4Array) share word for word, each a call on
/// their `core: Blocked`: list the names with each one's docs (`values`
/// and `scales` with their element type, `values<F>`).
macro_rules! blocked_methods {
    ($($(#[$doc:meta])* $name:ident $(<$t:ty>)?,)*) => {$(
        $crate::formats::blocked::blocked_methods!(@ $name [$($t)?] $(#[$doc])*);
    )*};
    (@values [$t:ty] $(#[$doc:meta])*) => {
        $(#[$doc])*
        pub fn values(&self) -> &NarrowArray<$t> {
            &self.core.values
        }
    };
    (@scales [$t:ty] $(#[$doc:meta])*) => {
        $(#[$doc])*
        pub fn scales(&self) -> &NarrowArray<$t> {
            &self.core.scales
        }
    };
    (@shape [] $(#[$doc:meta])*) => {
        $(#[$doc])*
        pub fn shape(&self) -> &[usize] {
            self.core.shape()
        }
    };
    (@len [] $(#[$doc:meta])*) => {
        $(#[$doc])*
        pub fn len(&self) -> usize {
            self.core.len()
        }
    };
    (@is_empty [] $(#[$doc:meta])*) => {
        $(#[$doc])*
        pub fn is_empty(&self) -> bool {
            self.core.values.is_empty()
        }
    };
    (@dequantize [] $(#[$doc:meta])*) => {
        $(#[$doc])*
        pub fn dequantize(&self) -> Vec<f32> {
            let mut out = vec![0.0f32; self.len()];
            self.dequantize_into(&mut out)
                .expect("the output has the array's length");
            out
        }
    };
    (@scales_swizzled [] $(#[$doc:meta])*) => {
        $(#[$doc])*
        pub fn scales_swizzled(&self) -> Vec<u8> {
            self.core.scales_swizzled()
        }
    };
}
pub(crate) use blocked_methods;

/// Packed values with one scale per block of `block` values along `axis`.
#[derive(Clone, Debug)]
pub(crate) struct Blocked<V: BitElement, S: BitElement> {
    pub(crate) values: NarrowArray<V>,
    pub(crate) scales: NarrowArray<S>,
    pub(crate) axis: usize,
}

impl<V: MiniFloat, S: BitElement> Blocked<V, S> {
    /// Checks `scales` against the values' shape (one per block of `block`
    /// along `axis`) and shapes them. `scheme` names the format in errors.
    pub(crate) fn from_parts(
        values: NarrowArray<V>,
        mut scales: NarrowArray<S>,
        axis: usize,
        block: usize,
        scheme: &'static str,
    ) -> Result<Self> {
        split_shape(values.shape(), values.len())?;
        let shape = values.shape();
        if axis >= shape.len() {
            return Err(Error::Axis {
                axis,
                ndim: shape.len(),
            });
        }
        let sshape = scale_shape_along(shape, axis, block);
        // Fits: `split_shape` bounds the products of the values' shape, and
        // each scale extent is at most its value extent.
        let expected: usize = sshape.iter().product();
        LengthOf::BlockScales { scheme, block }.check(expected, scales.len())?;
        scales.reshape(&sshape)?;
        Ok(Blocked {
            values,
            scales,
            axis,
        })
    }

    /// The shape of the values.
    pub(crate) fn shape(&self) -> &[usize] {
        self.values.shape()
    }

    /// The number of values.
    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }

    /// Decodes the values into `out` and applies each block's scale code:
    /// `apply(run, code)` for every run of values of one block (a whole
    /// block when the blocks run along the last axis, one value otherwise).
    ///
    /// `factors` is `(lut, post)` where `apply` makes each value `v` of a
    /// block with scale code `c` into `(v * lut[c]) * post`. Where the
    /// blocks run along the last axis and rows are whole blocks, the scaled
    /// decode of each block then runs in one pass, with the same bits: of
    /// E2M1 codes in whole words (`kernels::e2m1_scaled_blocks`), of 8-bit
    /// codes with `post` 1 by the
    /// scaled 8-bit decode where a variant serves the format
    /// (`kernels::scaled8_blocks`).
    pub(crate) fn dequantize_into(
        &self,
        out: &mut [f32],
        block: usize,
        factors: Option<(&[f32; 256], f32)>,
        apply: impl Fn(&mut [f32], u8) + Sync,
    ) -> Result<()> {
        LengthOf::DequantizeOutput.check(self.len(), out.len())?;
        let (outer, d, inner) = split_axis(self.shape(), self.axis);
        let nb = d.div_ceil(block);
        let scales = self.scales.as_bytes();
        let words = self.values.as_words();
        // Blocks along the last axis, rows of whole blocks: each block's
        // scaled decode in one pass where a kernel serves `V` (E2M1 codes in
        // whole words; 8-bit codes with `post` 1 by the scaled 8-bit
        // decode), split across threads at blocks.
        let whole = inner == 1 && d.is_multiple_of(block) && scales.len() >= outer * nb;
        let e2m1 = V::BITS == 4 && block.is_multiple_of(16);
        let scaled8 =
            |post: f32| V::BITS == 8 && post == 1.0 && crate::kernels::scaled8_serves::<V>(block);
        if let Some((lut, post)) = factors.filter(|&(_, post)| whole && (e2m1 || scaled8(post))) {
            let bytes = self.values.as_bytes();
            let parts = crate::par::Out {
                slice: out,
                at: |u| u * block,
            };
            crate::par::split(
                self.len(),
                outer * nb,
                |_| true,
                parts,
                |us, out, _| {
                    let ss = &scales[us.clone()];
                    if e2m1 {
                        let per = block / 16;
                        let ws = &words[us.start * per..us.end * per];
                        crate::kernels::e2m1_scaled_blocks(ws, out, per, ss, lut, post);
                    } else {
                        let cs = &bytes[us.start * block..us.end * block];
                        crate::kernels::scaled8_blocks::<V>(cs, out, block, ss, lut);
                    }
                },
            );
            return Ok(());
        }
        let grid = super::block::BlockGrid::along(outer, d, inner, block);
        let code = |g: usize| scales.get(g).copied().unwrap_or(0xff);
        // Value by value (decode, then the scale): split across threads at
        // whole chunks, which start on a byte of the values.
        let n = out.len();
        let parts = crate::par::Out {
            slice: out,
            at: |u| u,
        };
        crate::par::split(n, n, crate::par::on_grain, parts, |us, out, _| {
            // The codes through the word kernels, as `formats::decode` runs them.
            crate::kernels::minifloat::decode_words::<V>(
                words,
                us.start,
                out,
                &crate::float::Tables::<V>::DECODE_F32,
            );
            if inner == 1 {
                // Runs of one block within the piece: row `r`, block `b`
                // of the row (divided out once, then counted).
                let mut p = us.start;
                let (mut r, mut b) = (p / d.max(1), p % d.max(1) / block);
                while p < us.end {
                    let q = us.end.min(r * d + d.min(b * block + block));
                    apply(&mut out[p - us.start..q - us.start], code(r * nb + b));
                    p = q;
                    b += 1;
                    if b == nb {
                        (r, b) = (r + 1, 0);
                    }
                }
                return;
            }
            for (v, g) in out.iter_mut().zip(grid.scale_walk(us.start)) {
                apply(core::slice::from_mut(v), code(g));
            }
        });
        Ok(())
    }

    /// The scales in the tiled layout of [`swizzle_scales`], the leading
    /// dimensions flattened into rows.
    pub(crate) fn scales_swizzled(&self) -> Vec<u8> {
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
    let mut out = vec![0u8; swizzled_len(rows, cols)];
    for (r, row) in scales.chunks_exact(cols.max(1)).enumerate().take(rows) {
        for (c, &s) in row.iter().enumerate() {
            out[swizzled_index(r, c, cols)] = s;
        }
    }
    Ok(out)
}

/// The row-major scales (`rows` x `cols` bytes) of a tiled layout made by
/// [`swizzle_scales`]: its inverse (the padding is dropped).
///
/// # Errors
///
/// [`Error::Length`] when `tiled` is not [`swizzled_len`]`(rows, cols)`
/// bytes long (or that size overflows).
///
/// # Examples
///
/// ```
/// use bitpack::formats::{swizzle_scales, unswizzle_scales};
///
/// let scales: Vec<u8> = (0..=255).cycle().take(130 * 5).collect();
/// let tiled = swizzle_scales(&scales, 130, 5)?;
/// assert_eq!(tiled.len(), 2 * 2 * 512);
/// assert_eq!(unswizzle_scales(&tiled, 130, 5)?, scales);
/// assert!(unswizzle_scales(&tiled[1..], 130, 5).is_err());
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn unswizzle_scales(tiled: &[u8], rows: usize, cols: usize) -> Result<Vec<u8>> {
    let expected = rows
        .div_ceil(128)
        .checked_mul(cols.div_ceil(4))
        .and_then(|t| t.checked_mul(512));
    if expected != Some(tiled.len()) {
        return Err(Error::Length {
            of: LengthOf::SwizzledScales,
            expected: expected.unwrap_or(usize::MAX),
            actual: tiled.len(),
        });
    }
    let mut out = vec![0u8; rows * cols];
    for (r, row) in out.chunks_exact_mut(cols.max(1)).enumerate().take(rows) {
        for (c, s) in row.iter_mut().enumerate() {
            *s = tiled[swizzled_index(r, c, cols)];
        }
    }
    Ok(out)
}
