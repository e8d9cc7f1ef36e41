//! Strided layouts: shape, strides and offset in elements, validated against
//! the length of the storage they address.

use super::accessors::shape_accessors;
use crate::error::LengthOf;
use crate::error::{Error, Result};

/// The most dimensions a [`Layout`] can have.
pub const MAX_DIMS: usize = 64;

/// A strided N-d layout over a linear run of elements: `shape`, `strides` and
/// `offset`, all counted in **elements**.
///
/// The element at coordinates `[i0, i1, ...]` is the one at linear index
/// `offset + i0 * strides[0] + i1 * strides[1] + ...`. Strides may be
/// negative (a reversed axis), zero (a broadcast axis: one element repeated)
/// or repeat elements; a 0-d layout is a scalar, and a layout with a zero
/// extent is empty.
///
/// A `Layout` is only ever built validated against a storage length (see
/// [`Layout::new`]): every index it can produce lies in `0..len`, and its
/// element count fits in `usize`. The arithmetic of that check is done in
/// `i128` with checked operations, so no descriptor can overflow into a
/// wrong "valid" answer. An empty layout may carry an offset outside the
/// storage; it never yields an index.
///
/// # Examples
///
/// ```
/// use bitpack::Layout;
///
/// // A 2x3 row-major matrix over 6 elements, then transposed.
/// let l = Layout::new(&[2, 3], &[3, 1], 0, 6).unwrap();
/// assert_eq!(l.index(&[1, 2]), Some(5));
/// let t = l.transpose();
/// assert_eq!(t.shape(), &[3, 2]);
/// assert_eq!(t.iter().collect::<Vec<_>>(), [0, 3, 1, 4, 2, 5]);
///
/// // A reversed axis and a broadcast axis.
/// let r = Layout::new(&[3], &[-1], 5, 6).unwrap();
/// assert_eq!(r.iter().collect::<Vec<_>>(), [5, 4, 3]);
/// let b = Layout::new(&[4], &[0], 2, 6).unwrap();
/// assert_eq!(b.iter().collect::<Vec<_>>(), [2, 2, 2, 2]);
///
/// // Bad descriptors are errors that name the problem.
/// let e = Layout::new(&[2, 3], &[3, 1], 1, 6).unwrap_err();
/// assert_eq!(e.to_string(), "view reaches element 6, past the storage's 6 elements");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    ndim: u8,
    shape: [usize; MAX_DIMS],
    strides: [isize; MAX_DIMS],
    offset: isize,
    len: usize,
    storage_len: usize,
}

impl core::fmt::Debug for Layout {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Layout")
            .field("shape", &self.shape())
            .field("strides", &self.strides())
            .field("offset", &self.offset)
            .finish()
    }
}

impl Layout {
    /// Validates a descriptor against a storage of `storage_len` elements.
    ///
    /// # Errors
    ///
    /// - [`Error::TooManyDims`] for more than [`MAX_DIMS`] dimensions;
    /// - [`Error::Length`] when `shape` and `strides` differ in length;
    /// - [`Error::Shape`] when the element count overflows `usize`;
    /// - [`Error::ViewBounds`] when a non-empty view would reach an index
    ///   below 0 or at or past `storage_len`, or its extent overflows.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::Layout;
    ///
    /// let scalar = Layout::new(&[], &[], 3, 4).unwrap();
    /// assert_eq!(scalar.len(), 1);
    /// assert_eq!(scalar.iter().collect::<Vec<_>>(), [3]);
    ///
    /// // Empty: the offset may lie anywhere and is never used.
    /// let empty = Layout::new(&[0, 5], &[1, 1], -100, 4).unwrap();
    /// assert!(empty.is_empty());
    ///
    /// assert!(Layout::new(&[2], &[-1], 0, 4).is_err()); // reaches index -1
    /// assert!(Layout::new(&[1; 65], &[0; 65], 0, 4).is_err()); // 65 dims
    /// ```
    pub fn new(
        shape: &[usize],
        strides: &[isize],
        offset: isize,
        storage_len: usize,
    ) -> Result<Self> {
        if shape.len() > MAX_DIMS {
            return Err(Error::TooManyDims { ndim: shape.len() });
        }
        if strides.len() != shape.len() {
            return Err(Error::Length {
                of: LengthOf::Strides,
                expected: shape.len(),
                actual: strides.len(),
            });
        }
        let mut l = Layout {
            ndim: shape.len() as u8,
            shape: [0; MAX_DIMS],
            strides: [0; MAX_DIMS],
            offset,
            len: 0,
            storage_len,
        };
        l.shape[..shape.len()].copy_from_slice(shape);
        l.strides[..strides.len()].copy_from_slice(strides);
        l.validate()?;
        Ok(l)
    }

    /// The contiguous row-major layout of `shape` over exactly its elements.
    ///
    /// # Errors
    ///
    /// As [`Layout::new`]; also when the element count is not `storage_len`.
    ///
    /// # Examples
    ///
    /// ```
    /// let l = bitpack::Layout::contiguous(&[2, 3, 4], 24).unwrap();
    /// assert_eq!(l.strides(), &[12, 4, 1]);
    /// ```
    pub fn contiguous(shape: &[usize], storage_len: usize) -> Result<Self> {
        if shape.len() > MAX_DIMS {
            return Err(Error::TooManyDims { ndim: shape.len() });
        }
        let count = checked_count(shape);
        if count != Some(storage_len) {
            return Err(Error::Shape {
                elements: count,
                len: storage_len,
            });
        }
        let mut strides = [0isize; MAX_DIMS];
        let mut step: isize = 1;
        for d in (0..shape.len()).rev() {
            strides[d] = step;
            // Cannot overflow: the product of the extents is storage_len, which
            // fits in usize, and a zero extent makes every later step irrelevant.
            step = step.saturating_mul(shape[d] as isize);
        }
        Self::new(shape, &strides[..shape.len()], 0, storage_len)
    }

    fn validate(&mut self) -> Result<()> {
        let shape = &self.shape[..self.ndim as usize];
        let count = checked_count(shape).ok_or(Error::Shape {
            elements: None,
            len: self.storage_len,
        })?;
        self.len = count;
        if count == 0 {
            return Ok(());
        }
        let (lo, hi) = self.extent().ok_or(Error::ViewBounds {
            lowest: None,
            highest: None,
            len: self.storage_len,
        })?;
        if lo < 0 || hi >= self.storage_len as i128 || hi > isize::MAX as i128 {
            return Err(Error::ViewBounds {
                lowest: Some(lo),
                highest: Some(hi),
                len: self.storage_len,
            });
        }
        Ok(())
    }

    /// Lowest and highest linear index reached, in `i128` with checked
    /// arithmetic (`None` on overflow). Only meaningful when non-empty.
    fn extent(&self) -> Option<(i128, i128)> {
        let mut lo = self.offset as i128;
        let mut hi = self.offset as i128;
        for d in 0..self.ndim as usize {
            let span = (self.shape[d] as i128 - 1).checked_mul(self.strides[d] as i128)?;
            if span < 0 {
                lo = lo.checked_add(span)?;
            } else {
                hi = hi.checked_add(span)?;
            }
        }
        Some((lo, hi))
    }

    /// Number of dimensions.
    #[inline]
    pub fn ndim(&self) -> usize {
        self.ndim as usize
    }

    /// Extent of each dimension.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.shape[..self.ndim as usize]
    }

    /// Stride of each dimension, in elements.
    #[inline]
    pub fn strides(&self) -> &[isize] {
        &self.strides[..self.ndim as usize]
    }

    /// Linear index of the first element (coordinates all zero).
    #[inline]
    pub fn offset(&self) -> isize {
        self.offset
    }

    shape_accessors! { fields:
        /// Number of elements the layout addresses (with repeats).
        len;
        /// Whether some extent is zero.
        is_empty;
    }

    /// Length of the storage the layout was validated against.
    #[inline]
    pub fn storage_len(&self) -> usize {
        self.storage_len
    }

    /// Whether the layout is the row-major contiguous run
    /// `offset..offset + len`.
    pub fn is_contiguous(&self) -> bool {
        let mut step = 1usize;
        for d in (0..self.ndim()).rev() {
            if self.shape[d] != 1 && self.strides[d] != step as isize {
                return false;
            }
            step = step.wrapping_mul(self.shape[d]);
        }
        true
    }

    /// Linear index of the element at `coords`, or `None` when the number of
    /// coordinates is not `ndim` or one is out of range.
    #[inline]
    pub fn index(&self, coords: &[usize]) -> Option<usize> {
        if coords.len() != self.ndim() {
            return None;
        }
        // Every coordinate first: an empty layout (which has no valid
        // coordinates) may carry any offset and strides, which must not be
        // added up.
        if coords.iter().zip(self.shape()).any(|(&c, &n)| c >= n) {
            return None;
        }
        let mut at = self.offset;
        for (d, &c) in coords.iter().enumerate() {
            // In range by validation of the non-empty layout: offset + c *
            // stride lies between its lowest and highest index, both inside
            // 0..storage_len.
            at += c as isize * self.strides[d];
        }
        Some(at as usize)
    }

    /// The linear indices in logical (row-major) order.
    #[inline]
    pub fn iter(&self) -> LayoutIter<'_> {
        LayoutIter::new(self)
    }

    /// The innermost runs in logical order, as `(start, stride, count)`: the
    /// same runs as [`for_each_run`](Self::for_each_run), as an iterator (so
    /// two layouts of the same shape can be walked in step).
    ///
    /// # Examples
    ///
    /// ```
    /// let l = bitpack::Layout::new(&[2, 3], &[1, 2], 0, 6).unwrap();
    /// assert_eq!(l.runs().collect::<Vec<_>>(), [(0, 2, 3), (1, 2, 3)]);
    /// let empty = bitpack::Layout::new(&[2, 0], &[1, 1], 0, 6).unwrap();
    /// assert_eq!(empty.runs().count(), 0);
    /// ```
    #[inline]
    pub fn runs(&self) -> Runs<'_> {
        let (stride, count, left) = match self.ndim() {
            _ if self.is_empty() => (1, 0, 0),
            0 => (1, 1, 1),
            nd => (
                self.strides[nd - 1],
                self.shape[nd - 1],
                self.len / self.shape[nd - 1],
            ),
        };
        Runs {
            layout: self,
            coords: [0; MAX_DIMS],
            base: self.offset,
            stride,
            count,
            left,
        }
    }

    /// Calls `f(start, stride, count)` once per innermost run, in logical
    /// order: each run is the indices `start + k * stride` for `k` in
    /// `0..count`. Outer coordinates are walked once per run, with no
    /// division; a 0-d layout is one run of one element.
    pub fn for_each_run(&self, mut f: impl FnMut(usize, isize, usize)) {
        if self.is_empty() {
            return;
        }
        let nd = self.ndim();
        if nd == 0 {
            f(self.offset as usize, 1, 1);
            return;
        }
        let inner = nd - 1;
        let mut coords = [0usize; MAX_DIMS];
        let mut base = self.offset;
        let (outer, outer_strides) = (&self.shape[..inner], &self.strides[..inner]);
        loop {
            f(base as usize, self.strides[inner], self.shape[inner]);
            if !next_coords(&mut coords, outer, outer_strides, &mut base) {
                return;
            }
        }
    }

    /// Restricts `axis` to `start..end` (clamped to nothing when empty).
    ///
    /// # Errors
    ///
    /// [`Error::Axis`] for an axis past `ndim`; [`Error::Range`] when
    /// `start > end` or `end` exceeds the extent; [`Error::LayoutOverflow`]
    /// when the new offset leaves `isize` (only an empty layout, whose
    /// strides were never bounded).
    ///
    /// # Examples
    ///
    /// ```
    /// let l = bitpack::Layout::contiguous(&[4, 5], 20).unwrap();
    /// let s = l.slice(1, 1..3).unwrap();
    /// assert_eq!(s.shape(), &[4, 2]);
    /// assert_eq!(s.index(&[2, 0]), Some(11));
    /// ```
    pub fn slice(&self, axis: usize, range: core::ops::Range<usize>) -> Result<Self> {
        let extent = self.axis_extent(axis)?;
        if range.start > range.end || range.end > extent {
            return Err(Error::Range {
                start: range.start,
                end: range.end,
                len: extent,
            });
        }
        let mut l = *self;
        l.shape[axis] = range.end - range.start;
        if range.start < range.end {
            // Checked: the layout may be empty along another axis, and then
            // its offset and strides were never bounded.
            l.offset = moved(self.offset, range.start, self.strides[axis])?;
        }
        l.revalidate()
    }

    /// Takes every `step`-th element along `axis`; a negative step walks the
    /// axis backwards from its last element.
    ///
    /// # Errors
    ///
    /// [`Error::Axis`] for an axis past `ndim`; [`Error::Invalid`] for a zero
    /// step; [`Error::LayoutOverflow`] when the scaled stride leaves `isize`.
    ///
    /// # Examples
    ///
    /// ```
    /// let l = bitpack::Layout::contiguous(&[7], 7).unwrap();
    /// assert_eq!(l.step_by(0, 3).unwrap().iter().collect::<Vec<_>>(), [0, 3, 6]);
    /// assert_eq!(l.step_by(0, -2).unwrap().iter().collect::<Vec<_>>(), [6, 4, 2, 0]);
    /// ```
    pub fn step_by(&self, axis: usize, step: isize) -> Result<Self> {
        let extent = self.axis_extent(axis)?;
        if step == 0 {
            return Err(Error::Invalid("step must not be zero"));
        }
        let mut l = *self;
        if step < 0 && extent > 0 {
            l = l.reversed(axis)?;
        }
        let s = step.unsigned_abs();
        l.shape[axis] = extent.div_ceil(s);
        let stride = (l.strides[axis] as i128).saturating_mul(s as i128);
        l.strides[axis] = isize::try_from(stride).map_err(|_| Error::LayoutOverflow {
            what: "stride",
            value: stride,
        })?;
        l.revalidate()
    }

    /// Reverses `axis`.
    ///
    /// # Errors
    ///
    /// [`Error::Axis`] for an axis past `ndim`; [`Error::LayoutOverflow`]
    /// when the new offset or the negated stride leaves `isize` (an empty
    /// layout, whose strides were never bounded, or a stride of `isize::MIN`).
    ///
    /// # Examples
    ///
    /// ```
    /// let l = bitpack::Layout::contiguous(&[2, 2], 4).unwrap();
    /// assert_eq!(l.reversed(0).unwrap().iter().collect::<Vec<_>>(), [2, 3, 0, 1]);
    /// ```
    pub fn reversed(&self, axis: usize) -> Result<Self> {
        let extent = self.axis_extent(axis)?;
        let mut l = *self;
        if extent > 0 {
            l.offset = moved(self.offset, extent - 1, self.strides[axis])?;
        }
        l.strides[axis] = self.strides[axis]
            .checked_neg()
            .ok_or(Error::LayoutOverflow {
                what: "stride",
                value: -(self.strides[axis] as i128),
            })?;
        l.revalidate()
    }

    /// Reorders the axes: axis `d` of the result is axis `order[d]` of `self`.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] when `order` is not a permutation of `0..ndim`.
    ///
    /// # Examples
    ///
    /// ```
    /// let l = bitpack::Layout::contiguous(&[2, 3, 4], 24).unwrap();
    /// let p = l.permute(&[2, 0, 1]).unwrap();
    /// assert_eq!(p.shape(), &[4, 2, 3]);
    /// assert_eq!(p.strides(), &[1, 12, 4]);
    /// ```
    pub fn permute(&self, order: &[usize]) -> Result<Self> {
        let nd = self.ndim();
        if order.len() != nd {
            return Err(Error::Length {
                of: LengthOf::AxisOrder,
                expected: nd,
                actual: order.len(),
            });
        }
        let mut seen = [false; MAX_DIMS];
        let mut l = *self;
        for (d, &src) in order.iter().enumerate() {
            if src >= nd || seen[src] {
                return Err(Error::Invalid("axis order is not a permutation of 0..ndim"));
            }
            seen[src] = true;
            l.shape[d] = self.shape[src];
            l.strides[d] = self.strides[src];
        }
        Ok(l)
    }

    /// Reverses the order of the axes.
    ///
    /// # Examples
    ///
    /// ```
    /// let l = bitpack::Layout::contiguous(&[2, 3], 6).unwrap();
    /// assert_eq!(l.transpose().strides(), &[1, 3]);
    /// ```
    pub fn transpose(&self) -> Self {
        let mut l = *self;
        let nd = self.ndim();
        l.shape[..nd].reverse();
        l.strides[..nd].reverse();
        l
    }

    /// Fixes `axis` at `index`, dropping that dimension.
    ///
    /// # Errors
    ///
    /// [`Error::Axis`] for an axis past `ndim`; [`Error::Index`] for an index
    /// past the extent; [`Error::LayoutOverflow`] when the new offset leaves
    /// `isize` (only an empty layout, whose strides were never bounded).
    ///
    /// # Examples
    ///
    /// ```
    /// let l = bitpack::Layout::contiguous(&[2, 3], 6).unwrap();
    /// let row = l.select(0, 1).unwrap();
    /// assert_eq!(row.iter().collect::<Vec<_>>(), [3, 4, 5]);
    /// ```
    pub fn select(&self, axis: usize, index: usize) -> Result<Self> {
        let extent = self.axis_extent(axis)?;
        if index >= extent {
            return Err(Error::Index { index, len: extent });
        }
        let nd = self.ndim();
        let mut l = *self;
        l.offset = moved(self.offset, index, self.strides[axis])?;
        l.shape.copy_within(axis + 1..nd, axis);
        l.strides.copy_within(axis + 1..nd, axis);
        l.ndim -= 1;
        l.shape[nd - 1] = 0;
        l.strides[nd - 1] = 0;
        l.revalidate()
    }

    fn axis_extent(&self, axis: usize) -> Result<usize> {
        if axis >= self.ndim() {
            return Err(Error::Axis {
                axis,
                ndim: self.ndim(),
            });
        }
        Ok(self.shape[axis])
    }

    fn revalidate(mut self) -> Result<Self> {
        self.validate()?;
        Ok(self)
    }
}

/// `offset + k * stride`, exactly, or [`Error::LayoutOverflow`] when it is
/// outside `isize`.
fn moved(offset: isize, k: usize, stride: isize) -> Result<isize> {
    // |k * stride| < 2^127 and |offset| <= 2^63: saturation never changes a
    // value that fits in isize.
    let value = (k as i128)
        .saturating_mul(stride as i128)
        .saturating_add(offset as i128);
    isize::try_from(value).map_err(|_| Error::LayoutOverflow {
        what: "offset",
        value,
    })
}

/// `prod(shape)`, or `None` when it overflows `usize`. A zero extent gives 0
/// even when the other extents' product would overflow.
pub(crate) fn checked_count(shape: &[usize]) -> Option<usize> {
    if shape.contains(&0) {
        return Some(0);
    }
    shape.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n))
}

/// Moves `coords` (at least `shape.len()` of them) to the next position of
/// `shape` in row-major order, the last coordinate fastest, and `at` by the
/// `strides` with it; `false` when every coordinate was at its last and went
/// back to 0 (the walk is over). Within a validated layout `at` stays in its
/// extent.
#[inline]
pub(crate) fn next_coords(
    coords: &mut [usize],
    shape: &[usize],
    strides: &[isize],
    at: &mut isize,
) -> bool {
    for d in (0..shape.len()).rev() {
        if coords[d] + 1 < shape[d] {
            coords[d] += 1;
            *at += strides[d];
            return true;
        }
        *at -= strides[d] * (shape[d] as isize - 1);
        coords[d] = 0;
    }
    false
}

/// One step of a walk that has `left` positions still to give: `None` when
/// it has none, else the position `at` (the linear index of `coords`), after
/// which `coords` and `at` move on by [`next_coords`] unless that was the
/// last one.
#[inline]
pub(crate) fn walk_step(
    coords: &mut [usize],
    shape: &[usize],
    strides: &[isize],
    at: &mut isize,
    left: &mut usize,
) -> Option<isize> {
    if *left == 0 {
        return None;
    }
    *left -= 1;
    let out = *at;
    if *left > 0 {
        next_coords(coords, shape, strides, at);
    }
    Some(out)
}

/// The linear indices of a [`Layout`] in logical order.
#[derive(Clone, Debug)]
pub struct LayoutIter<'a> {
    layout: &'a Layout,
    coords: [usize; MAX_DIMS],
    at: isize,
    remaining: usize,
}

impl<'a> LayoutIter<'a> {
    fn new(layout: &'a Layout) -> Self {
        LayoutIter {
            layout,
            coords: [0; MAX_DIMS],
            at: layout.offset,
            remaining: layout.len,
        }
    }
}

impl Iterator for LayoutIter<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let Self {
            layout,
            coords,
            at,
            remaining,
        } = self;
        let at = walk_step(coords, layout.shape(), layout.strides(), at, remaining)?;
        Some(at as usize)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for LayoutIter<'_> {}

/// The innermost runs of a [`Layout`] in logical order, as `(start, stride,
/// count)`; made by [`Layout::runs`].
#[derive(Clone, Debug)]
pub struct Runs<'a> {
    layout: &'a Layout,
    coords: [usize; MAX_DIMS],
    base: isize,
    stride: isize,
    count: usize,
    left: usize,
}

impl Iterator for Runs<'_> {
    type Item = (usize, isize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, isize, usize)> {
        // The outer dimensions: more than one run means there are some.
        let outer = self.layout.ndim().saturating_sub(1);
        let (shape, strides) = (self.layout.shape(), self.layout.strides());
        let base = walk_step(
            &mut self.coords,
            &shape[..outer],
            &strides[..outer],
            &mut self.base,
            &mut self.left,
        )?;
        Some((base as usize, self.stride, self.count))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Runs<'_> {}
