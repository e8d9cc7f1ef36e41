//! N-d descriptors for reductions: the same multiset of elements in the
//! fewest, longest runs, and a walk over them.
//!
//! A sum does not depend on the order of its terms, so a layout can be
//! normalized before it is reduced: extent-1 axes are dropped, zero-stride
//! (broadcast) axes become a repeat factor, negative strides are flipped
//! (moving the offset to the lowest element), the axes are sorted by
//! decreasing stride, and neighbours that tile each other (`stride[d] ==
//! stride[d + 1] * extent[d + 1]`) merge. A transposed or reversed
//! contiguous array becomes one contiguous run.

use crate::shape::{Layout, MAX_DIMS};

/// Axes with positive strides, sorted by decreasing stride, merged where
/// they tile; the innermost is `dims[nd - 1]`.
#[derive(Clone, Copy)]
pub(crate) struct Normal {
    /// The lowest linear index.
    pub(crate) offset: usize,
    /// What the flips added to the offset: the lowest index of the same axes
    /// from another base `b` is `b + shift`.
    pub(crate) shift: isize,
    /// `(extent, stride)` per axis, extents at least 2, strides at least 1.
    pub(crate) dims: [(usize, usize); MAX_DIMS],
    pub(crate) nd: usize,
    /// How many times each element is counted (product of broadcast
    /// extents).
    pub(crate) repeat: u128,
}

impl Normal {
    /// Normalizes `shape`/`strides` at `offset` (a validated, non-empty
    /// descriptor, so every index lies in `0..isize::MAX`).
    pub(crate) fn new(shape: &[usize], strides: &[isize], offset: isize) -> Normal {
        let mut n = Normal {
            offset: 0,
            shift: 0,
            dims: [(0, 0); MAX_DIMS],
            nd: 0,
            repeat: 1,
        };
        let mut shift = 0isize;
        for (&e, &s) in shape.iter().zip(strides) {
            if e == 1 {
                continue;
            }
            if s == 0 {
                n.repeat *= e as u128;
                continue;
            }
            if s < 0 {
                // In range: the view reaches `offset + shift >= 0`.
                shift += (e as isize - 1) * s;
            }
            n.dims[n.nd] = (e, s.unsigned_abs());
            n.nd += 1;
        }
        n.shift = shift;
        n.offset = offset.wrapping_add(shift) as usize;
        // Insertion sort by decreasing stride (at most 64 axes).
        for i in 1..n.nd {
            let mut j = i;
            while j > 0 && n.dims[j - 1].1 < n.dims[j].1 {
                n.dims.swap(j - 1, j);
                j -= 1;
            }
        }
        // Merge from the inside out.
        let mut out = 0;
        for i in 0..n.nd {
            let (e, s) = n.dims[i];
            if out > 0 {
                let (pe, ps) = n.dims[out - 1];
                if ps == s * e {
                    n.dims[out - 1] = (pe * e, s);
                    continue;
                }
            }
            n.dims[out] = (e, s);
            out += 1;
        }
        n.nd = out;
        n
    }

    /// Normalizes a validated layout; `None` when it is empty.
    pub(crate) fn of(layout: &Layout) -> Option<Normal> {
        if layout.is_empty() {
            return None;
        }
        Some(Normal::new(
            layout.shape(),
            layout.strides(),
            layout.offset(),
        ))
    }

    /// The innermost run: `(extent, stride)`, `(1, 1)` for a single element.
    #[inline]
    pub(crate) fn inner(&self) -> (usize, usize) {
        if self.nd == 0 {
            (1, 1)
        } else {
            self.dims[self.nd - 1]
        }
    }

    /// Calls `f(start)` for the start of every innermost run (see
    /// [`inner`](Self::inner)), from base index `base` (the offset of this
    /// descriptor, or another offset with the same axes), walking the outer
    /// coordinates once per run with additions only.
    #[inline]
    pub(crate) fn for_each_run_from(&self, base: usize, mut f: impl FnMut(usize)) {
        if self.nd <= 1 {
            f(base);
            return;
        }
        // The outer axes as `for_each_index` takes them: every extent is at
        // least 1 (the layout is not empty) and every stride fits `isize`
        // (a validated layout's span does).
        let outer = &self.dims[..self.nd - 1];
        let mut dims = [(0usize, 0isize); MAX_DIMS];
        for (d, &(e, s)) in dims.iter_mut().zip(outer) {
            *d = (e, s as isize);
        }
        for_each_index(&dims[..outer.len()], base, f);
    }
}

/// Calls `f(index)` for every coordinate of the axes `dims` (`(extent,
/// stride)`, any strides) from `base`, in row-major order, with additions
/// only. Nothing when an extent is zero; once for no axes.
#[inline]
pub(crate) fn for_each_index(dims: &[(usize, isize)], base: usize, mut f: impl FnMut(usize)) {
    if dims.iter().any(|&(e, _)| e == 0) {
        return;
    }
    let mut coords = [0usize; MAX_DIMS];
    let mut at = base;
    loop {
        f(at);
        let mut d = dims.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            let (e, s) = dims[d];
            if coords[d] + 1 < e {
                coords[d] += 1;
                at = at.wrapping_add_signed(s);
                break;
            }
            at = at.wrapping_add_signed(s.wrapping_mul(1 - e as isize));
            coords[d] = 0;
        }
    }
}
