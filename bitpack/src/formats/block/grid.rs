//! Where the blocks of a block-scaled array lie in its row-major data.

use crate::formats::wide::Real;
#[cfg(doc)]
use crate::formats::{block_amax, mx_scale_f32, nvfp4_scale_f32};

/// Where the blocks of a block-scaled array lie in its row-major data, and
/// which scale each value uses: the index arithmetic a kernel needs, with
/// no allocation.
///
/// Two kinds of grid:
///
/// - [`along`](Self::along): blocks of `block` consecutive values of one
///   axis of extent `d` (the row-major shape seen as `[outer, d, inner]`),
///   the last block of each run possibly shorter. The scales are row-major
///   `[outer, ceil(d / block), inner]`: [`MxArray`](crate::formats::MxArray) along
///   any axis, [`Nvfp4Array`](crate::formats::Nvfp4Array) with 1 x 16 blocks.
/// - [`tiles`](Self::tiles): `tile x block` tiles of `[rows, cols]` (tiles
///   never cross a matrix of `matrix_rows` rows), one scale per tile stored
///   once for each of its rows, row-major `[rows, ceil(cols / block)]`: NVFP4
///   with 16 x 16 tiles.
///
/// Device-callable.
///
/// # Examples
///
/// ```
/// use bitpack::formats::BlockGrid;
///
/// // A [2, 40] array in blocks of 32 along the last axis: 2 blocks a row.
/// let g = BlockGrid::along(2, 40, 1, 32);
/// assert_eq!(g.scales(), 4);
/// assert_eq!(g.scale_of(0), 0);
/// assert_eq!(g.scale_of(39), 1);
/// assert_eq!(g.scale_of(40), 2);
/// assert_eq!(g.scale_walk(31).take(3).collect::<Vec<_>>(), [0, 1, 1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockGrid {
    outer: usize,
    d: usize,
    inner: usize,
    block: usize,
    /// Rows per tile: 1 for [`along`](Self::along).
    tile: usize,
    /// Rows per matrix (tiles only).
    matrix: usize,
}

impl BlockGrid {
    /// Blocks of `block` (at least 1) consecutive values along the middle
    /// axis of `[outer, d, inner]`.
    pub const fn along(outer: usize, d: usize, inner: usize, block: usize) -> BlockGrid {
        BlockGrid {
            outer,
            d,
            inner,
            block: if block == 0 { 1 } else { block },
            tile: 1,
            matrix: 1,
        }
    }

    /// `tile x block` tiles of a `[rows, cols]` array made of matrices of
    /// `matrix_rows` rows each (tiles do not cross them).
    pub const fn tiles(
        rows: usize,
        cols: usize,
        matrix_rows: usize,
        tile: usize,
        block: usize,
    ) -> BlockGrid {
        BlockGrid {
            outer: rows,
            d: cols,
            inner: 1,
            block: if block == 0 { 1 } else { block },
            tile: if tile == 0 { 1 } else { tile },
            matrix: if matrix_rows == 0 { 1 } else { matrix_rows },
        }
    }

    /// Blocks per run of `d` values.
    #[inline]
    const fn per_run(&self) -> usize {
        self.d.div_ceil(self.block)
    }

    /// The number of values (saturating: a grid from a validated shape
    /// never saturates).
    #[inline]
    pub const fn len(&self) -> usize {
        self.outer.saturating_mul(self.d).saturating_mul(self.inner)
    }

    /// Whether the grid holds no values.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of scales (saturating, as [`len`](Self::len)).
    #[inline]
    pub const fn scales(&self) -> usize {
        self.outer
            .saturating_mul(self.per_run())
            .saturating_mul(self.inner)
    }

    /// `(o, a, j)` of value `i` (row-major): its run along the axis, its
    /// place in that run, and its inner index.
    #[inline(always)]
    fn coords(&self, i: usize) -> (usize, usize, usize) {
        let inner = self.inner.max(1);
        let d = self.d.max(1);
        let (t, j) = (i / inner, i % inner);
        (t / d, t % d, j)
    }

    /// The scale of value `i` (row-major), for `i < len()`.
    #[inline]
    pub fn scale_of(&self, i: usize) -> usize {
        let (o, a, j) = self.coords(i);
        (o * self.per_run() + a / self.block) * self.inner.max(1) + j
    }

    /// The scales of values `first, first + 1, ...`: [`scale_of`](Self::scale_of)
    /// of each, with one division for the first and none after.
    #[inline]
    pub fn scale_walk(&self, first: usize) -> ScaleWalk {
        let (o, a, j) = self.coords(first);
        ScaleWalk {
            grid: *self,
            o,
            a,
            j,
        }
    }

    /// The largest magnitude of the values of scale `g` ([`block_amax`]:
    /// `None` when one is NaN or infinite). Values past the end of `data`
    /// are left out, so no `g` can make it panic.
    pub fn amax<S: Real>(&self, data: &[S], g: usize) -> Option<f64> {
        let mut amax = 0f64;
        let finite = self.visit(data.len(), g, |k| {
            let (a, finite) = S::amax(core::slice::from_ref(&data[k]));
            if a > amax {
                amax = a;
            }
            finite
        });
        finite.then_some(amax)
    }

    /// The largest `|x|` bits of the `f32` values of scale `g` (the sign
    /// bits cleared; NaN and infinite bits order above every finite one, so
    /// a block holding one gives bits of `0x7f80_0000` or more), 0 for a
    /// block without values: what [`mx_scale_f32`] and [`nvfp4_scale_f32`]
    /// take, with no `f64`. Values past the end of `data` are left out.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::BlockGrid;
    ///
    /// let g = BlockGrid::along(1, 40, 1, 32);
    /// let data: Vec<f32> = (0..40).map(|i| -(i as f32)).collect();
    /// assert_eq!(g.amax_bits_f32(&data, 0), 31.0f32.to_bits());
    /// assert_eq!(g.amax_bits_f32(&data, 1), 39.0f32.to_bits());
    /// ```
    pub fn amax_bits_f32(&self, data: &[f32], g: usize) -> u32 {
        let mut m = 0u32;
        self.visit(data.len(), g, |k| {
            m = m.max(data[k].to_bits() & 0x7fff_ffff);
            true
        });
        m
    }

    /// Calls `f(k)` for the index `k` (below `n`) of each value of scale
    /// `g`, until it returns `false`; whether it never did.
    #[inline(always)]
    pub(super) fn visit(&self, n: usize, g: usize, mut f: impl FnMut(usize) -> bool) -> bool {
        let nb = self.per_run().max(1);
        let inner = self.inner.max(1);
        let (t, j) = (g / inner, g % inner);
        let (o, b) = (t / nb, t % nb);
        // Every position is computed checked: one that overflows is past
        // any slice, so the block has no values there.
        let a0 = b.saturating_mul(self.block);
        let a1 = self.d.min(a0.saturating_add(self.block));
        // The values at `lo, lo + step, ...` below `hi`, below `n`.
        let mut run = |lo: Option<usize>, hi: Option<usize>, step: usize| -> bool {
            let (Some(mut k), Some(hi)) = (lo, hi) else {
                return true;
            };
            let hi = hi.min(n);
            while k < hi {
                if !f(k) {
                    return false;
                }
                match k.checked_add(step) {
                    Some(next) => k = next,
                    None => break,
                }
            }
            true
        };
        if self.tile == 1 {
            let base = o
                .checked_mul(self.d)
                .and_then(|x| x.checked_mul(inner))
                .and_then(|x| x.checked_add(j));
            let at = |a: usize| base?.checked_add(a.checked_mul(inner)?);
            return run(at(a0), at(a1), inner);
        }
        // The tile holding row `o`: from the tile's first row, at most
        // `tile` rows, not past the row's matrix.
        let in_matrix = o % self.matrix;
        let r0 = o - in_matrix % self.tile;
        let end = (o - in_matrix)
            .saturating_add(self.matrix)
            .min(self.outer)
            .min(r0.saturating_add(self.tile));
        for r in r0..end {
            let Some(base) = r.checked_mul(self.d) else {
                break;
            };
            if base >= n {
                break;
            }
            if !run(base.checked_add(a0), base.checked_add(a1), 1) {
                return false;
            }
        }
        true
    }
}

/// The scale of each next value: see [`BlockGrid::scale_walk`].
#[derive(Clone, Debug)]
pub struct ScaleWalk {
    grid: BlockGrid,
    o: usize,
    a: usize,
    j: usize,
}

impl Iterator for ScaleWalk {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let g = &self.grid;
        let s = (self.o * g.per_run() + self.a / g.block) * g.inner.max(1) + self.j;
        self.j += 1;
        if self.j >= g.inner.max(1) {
            self.j = 0;
            self.a += 1;
            if self.a >= g.d.max(1) {
                self.a = 0;
                self.o += 1;
            }
        }
        Some(s)
    }
}
