//! [`View`]: a read-only validated strided N-d view over the words of a
//! packed array.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::ops::Range;

use super::ViewIter;
use super::strided::{CHUNK, for_each_chunk, from_raw, raw_at, run_chunks, try_zeroed_vec};
use crate::kernels::stream;
use crate::reduce::{self, UnsignedElement};
use crate::shape::{Dense, Layout, Packing, shape_accessors};
use crate::{BitElement, Error, Result, Unsigned};

/// A read-only strided N-d view of a packed array: a validated [`Layout`]
/// (shape, strides and offset in elements) over the array's values.
///
/// Made by [`NarrowArray::view`](crate::NarrowArray::view) (the array's own shape),
/// [`NarrowArray::view_strided`](crate::NarrowArray::view_strided) and [`NarrowArray::view_with`](crate::NarrowArray::view_with) (any
/// descriptor, validated against the array before anything is read), and the
/// same on [`DynNarrowArray`](crate::DynNarrowArray) (where `T` is `u64` and the width is the
/// array's). Strides may be negative (a reversed axis), zero (a broadcast
/// axis) or repeat elements; a view may be 0-d (a scalar) or empty, and has
/// at most [`MAX_DIMS`](crate::MAX_DIMS) dimensions.
///
/// Reads: [`get`](Self::get), [`iter`](Self::iter) (logical, row-major
/// order), [`to_vec`](Self::to_vec), [`to_narrow_array`](Self::to_narrow_array)
/// (a compact copy with the view's shape). Slicing
/// ([`slice`](Self::slice), [`step_by`](Self::step_by),
/// [`reversed`](Self::reversed), [`permute`](Self::permute),
/// [`transpose`](Self::transpose), [`select`](Self::select)) gives new
/// validated views of the same values. For unsigned elements,
/// [`sum`](Self::sum) and [`sum_axes_into`](Self::sum_axes_into) reduce
/// without unpacking.
///
/// A `View` is `Copy`; it holds its descriptor inline (about 1 KiB).
///
/// # Examples
///
/// ```
/// use arbitrary_int::u5;
/// use bitpack::NarrowArray;
///
/// let mut a: NarrowArray<u5> = (0..12u8).map(u5::new).collect();
/// a.reshape(&[3, 4])?;
/// let v = a.view();
/// assert_eq!(v.get(&[1, 2]), Some(u5::new(6)));
///
/// let t = v.transpose(); // 4 x 3
/// assert_eq!(t.get(&[2, 1]), Some(u5::new(6)));
/// let col = v.select(1, 3)?; // the last column
/// assert_eq!(col.to_vec(), [3, 7, 11].map(u5::new));
/// let back = v.step_by(1, -2)?; // columns 3 and 1, every row
/// assert_eq!(back.to_vec(), [3, 1, 7, 5, 11, 9].map(u5::new));
/// assert_eq!(back.sum(), 36);
///
/// // Any descriptor, validated before it is used.
/// let diag = a.view_strided(&[3], &[5], 0)?;
/// assert_eq!(diag.to_vec(), [0, 5, 10].map(u5::new));
/// let err = a.view_strided(&[3], &[5], 2).unwrap_err();
/// assert_eq!(err.to_string(), "view reaches element 12, past the storage's 12 elements");
/// # Ok::<(), bitpack::Error>(())
/// ```
pub struct View<'a, T: BitElement, L: Packing = Dense> {
    pub(super) words: &'a [u64],
    pub(super) bits: u32,
    pub(super) layout: Layout,
    _values: PhantomData<(T, L)>,
}

impl<T: BitElement, L: Packing> Clone for View<'_, T, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: BitElement, L: Packing> Copy for View<'_, T, L> {}

impl<'a, T: BitElement, L: Packing> View<'a, T, L> {
    /// A view of `bits`-bit values over `words`, through a layout validated
    /// against the stream's length.
    #[inline]
    pub(crate) fn from_parts(words: &'a [u64], bits: u32, layout: Layout) -> Self {
        View {
            words,
            bits,
            layout,
            _values: PhantomData,
        }
    }

    /// The words the view reads.
    #[inline]
    pub(crate) fn words(&self) -> &'a [u64] {
        self.words
    }

    shape_accessors! { layout:
        /// The view's descriptor.
        ///
        /// # Examples
        ///
        /// ```
        /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
        /// assert_eq!(a.view().layout().strides(), [1]);
        /// ```
        layout;
        /// The extent of each dimension.
        ///
        /// # Examples
        ///
        /// ```
        /// let mut a = bitpack::NarrowArray::from_slice(&[true; 6]);
        /// a.reshape(&[2, 3])?;
        /// assert_eq!(a.view().transpose().shape(), [3, 2]);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        shape;
        /// The stride of each dimension, in elements.
        ///
        /// # Examples
        ///
        /// ```
        /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
        /// assert_eq!(a.view().reversed(0)?.strides(), [-1]);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        strides;
        /// The linear index of the element at coordinates all zero.
        ///
        /// # Examples
        ///
        /// ```
        /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
        /// assert_eq!(a.view().reversed(0)?.offset(), 2);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        offset;
        /// The number of dimensions.
        ///
        /// # Examples
        ///
        /// ```
        /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
        /// assert_eq!(a.view().select(0, 1)?.ndim(), 0); // a scalar
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        ndim;
        /// The number of elements the view addresses (repeats counted).
        ///
        /// # Examples
        ///
        /// ```
        /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
        /// assert_eq!(a.view_strided(&[4, 2], &[0, 1], 0)?.len(), 8);
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        len;
        /// Whether some extent is zero.
        ///
        /// # Examples
        ///
        /// ```
        /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
        /// assert!(a.view().slice(0, 1..1)?.is_empty());
        /// # Ok::<(), bitpack::Error>(())
        /// ```
        is_empty;
    }

    /// The width of the values in bits: `T::BITS`, or a run-time-width
    /// array's width.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_slice(5, &[1, 2, 3])?;
    /// assert_eq!(a.view().width(), 5);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn width(&self) -> u32 {
        self.bits
    }

    /// The element at `coords`, or `None` when their number is not `ndim` or
    /// one is past its extent. O(1).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4]);
    /// a.reshape(&[2, 2])?;
    /// let v = a.view();
    /// assert_eq!(v.get(&[1, 0]), Some(3));
    /// assert_eq!(v.get(&[2, 0]), None);
    /// assert_eq!(v.get(&[1]), None);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn get(&self, coords: &[usize]) -> Option<T> {
        let i = self.layout.index(coords)?;
        Some(from_raw(raw_at::<T, L>(self.words, self.bits, i)))
    }

    /// An iterator over the elements in logical (row-major) order.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4, 5, 6]);
    /// a.reshape(&[2, 3])?;
    /// let t: Vec<u8> = a.view().transpose().iter().collect();
    /// assert_eq!(t, [1, 4, 2, 5, 3, 6]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn iter(&self) -> ViewIter<'a, T, L> {
        ViewIter::new(self.words, self.bits, self.layout)
    }

    /// The elements in logical order, unpacked a run at a time.
    ///
    /// # Panics
    ///
    /// When the copy cannot be allocated: a broadcast view can address far
    /// more elements than its storage holds (the `try_` form returns
    /// [`Error::Alloc`](crate::Error::Alloc) instead).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4, 5]);
    /// assert_eq!(a.view().step_by(0, 2)?.to_vec(), [1, 3, 5]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn to_vec(&self) -> Vec<T> {
        self.try_to_vec()
            .unwrap_or_else(|e| panic!("View::to_vec: {e}"))
    }

    /// The elements in logical order, as [`to_vec`](Self::to_vec), or an
    /// error where it would panic.
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`](crate::Error::Alloc) when the copy cannot be
    /// allocated (nothing is allocated then): a broadcast view of
    /// `usize::MAX` elements gives it at once.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[7u8]);
    /// let wide = a.view_strided(&[usize::MAX], &[0], 0)?;
    /// assert!(matches!(wide.try_to_vec(), Err(bitpack::Error::Alloc { .. })));
    /// assert_eq!(a.view_strided(&[3], &[0], 0)?.try_to_vec()?, [7, 7, 7]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn try_to_vec(&self) -> crate::Result<Vec<T>> {
        let mut out = Vec::new();
        out.try_reserve_exact(self.len())
            .map_err(|_| crate::Error::Alloc {
                what: "the copy of a view",
                count: Some(self.len()),
                value_bytes: core::mem::size_of::<T>(),
            })?;
        self.gather(|raws| out.extend(raws.iter().map(|&r| T::from_raw_bits(r))));
        Ok(out)
    }

    /// Unpacks the elements, in logical order, into `dst`, which must have
    /// the view's length: [`to_vec`](Self::to_vec) into a buffer the
    /// caller already has (a large new `Vec` costs its first touch of
    /// memory on top of the copy). Each contiguous run of the view (a row
    /// of a slice, say) is unpacked by the width's kernel straight into
    /// `dst`. With the `rayon` feature a large copy splits across threads
    /// along axis 0.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] (naming both lengths) when `dst.len()` is not the
    /// view's length; `dst` is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4, 5, 6]);
    /// a.reshape(&[2, 3])?;
    /// let mut out = [0u8; 2];
    /// a.view().select(1, 2)?.unpack_into(&mut out)?; // the last column
    /// assert_eq!(out, [3, 6]);
    /// assert!(a.view().unpack_into(&mut out).is_err()); // 6 values, 2 slots
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn unpack_into(&self, dst: &mut [T]) -> Result<()> {
        let n = self.len();
        crate::shape::check_len(crate::error::LengthOf::UnpackOutput, n, dst.len())?;
        let outer = self.shape().first().copied().unwrap_or(1);
        if outer < 2 || n == 0 {
            self.unpack_piece(dst);
            return Ok(());
        }
        let inner = n / outer;
        let parts = crate::par::Out {
            slice: dst,
            at: |u| u * inner,
        };
        crate::par::split(
            n,
            outer,
            |_| true,
            parts,
            |r, part, _| {
                self.slice(0, r)
                    .expect("a range of axis 0")
                    .unpack_piece(part);
            },
        );
        Ok(())
    }

    /// [`unpack_into`](Self::unpack_into) on one thread, `dst` of the
    /// view's length.
    fn unpack_piece(&self, dst: &mut [T]) {
        let mut buf = [T::Raw::ZERO; CHUNK];
        let mut at = 0;
        for (start, stride, count) in self.layout.runs() {
            let out = &mut dst[at..at + count];
            at += count;
            // A contiguous run straight from the width's kernel.
            if stride == 1
                && stream::unpack_mapped(
                    L::WORD_ALIGNED,
                    self.bits,
                    self.words,
                    start,
                    out,
                    T::from_raw_bits,
                )
            {
                continue;
            }
            let mut k = 0;
            run_chunks((start, stride, count), |first, stride, n| {
                let raws = &mut buf[..n];
                stream::gather(L::WORD_ALIGNED, self.bits, self.words, first, stride, raws);
                for (o, &r) in out[k..k + n].iter_mut().zip(raws.iter()) {
                    *o = T::from_raw_bits(r);
                }
                k += n;
            });
        }
    }

    /// Packs the view's values, in logical order, at indices `0..len` of a
    /// stream of `bits`-bit values (at least the view's width).
    pub(crate) fn pack_into(&self, aligned: bool, bits: u32, words: &mut [u64]) {
        let mut at = 0;
        self.gather(|raws| {
            stream::pack(aligned, bits, raws, words, at);
            at += raws.len();
        });
    }

    /// Hands `f` the view's raw values in logical order, a chunk of at most
    /// [`CHUNK`] at a time: the one walk of `try_to_vec` and `pack_into`
    /// (`unpack_into` walks the runs itself, its contiguous ones straight
    /// through the width's kernel).
    fn gather(&self, mut f: impl FnMut(&[T::Raw])) {
        let mut buf = [T::Raw::ZERO; CHUNK];
        for_each_chunk(&self.layout, |start, stride, n| {
            stream::gather(
                L::WORD_ALIGNED,
                self.bits,
                self.words,
                start,
                stride,
                &mut buf[..n],
            );
            f(&buf[..n]);
        });
    }

    /// Restricts `axis` to `range`.
    ///
    /// # Errors
    ///
    /// [`Error::Axis`] for an axis past `ndim`, [`Error::Range`] for a
    /// reversed range or one past the extent.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4, 5]);
    /// assert_eq!(a.view().slice(0, 1..4)?.to_vec(), [2, 3, 4]);
    /// assert!(a.view().slice(0, 4..6).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn slice(&self, axis: usize, range: Range<usize>) -> Result<Self> {
        Ok(Self::from_parts(
            self.words,
            self.bits,
            self.layout.slice(axis, range)?,
        ))
    }

    /// Takes every `step`-th element along `axis`; a negative step walks the
    /// axis backwards from its last element.
    ///
    /// # Errors
    ///
    /// [`Error::Axis`] for an axis past `ndim`, [`Error::Invalid`] for a zero
    /// step.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4, 5]);
    /// assert_eq!(a.view().step_by(0, -2)?.to_vec(), [5, 3, 1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn step_by(&self, axis: usize, step: isize) -> Result<Self> {
        Ok(Self::from_parts(
            self.words,
            self.bits,
            self.layout.step_by(axis, step)?,
        ))
    }

    /// Reverses `axis`.
    ///
    /// # Errors
    ///
    /// [`Error::Axis`] for an axis past `ndim`.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert_eq!(a.view().reversed(0)?.to_vec(), [3, 2, 1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn reversed(&self, axis: usize) -> Result<Self> {
        Ok(Self::from_parts(
            self.words,
            self.bits,
            self.layout.reversed(axis)?,
        ))
    }

    /// Reorders the axes: axis `d` of the result is axis `order[d]`.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] or [`Error::Invalid`] when `order` is not a
    /// permutation of `0..ndim`.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[0u8, 1, 2, 3, 4, 5, 6, 7]);
    /// a.reshape(&[2, 2, 2])?;
    /// let p = a.view().permute(&[2, 0, 1])?;
    /// assert_eq!(p.get(&[1, 0, 1]), Some(3));
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn permute(&self, order: &[usize]) -> Result<Self> {
        Ok(Self::from_parts(
            self.words,
            self.bits,
            self.layout.permute(order)?,
        ))
    }

    /// Reverses the order of the axes.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4, 5, 6]);
    /// a.reshape(&[3, 2])?;
    /// assert_eq!(a.view().transpose().to_vec(), [1, 3, 5, 2, 4, 6]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn transpose(&self) -> Self {
        Self::from_parts(self.words, self.bits, self.layout.transpose())
    }

    /// Fixes `axis` at `index`, dropping that dimension.
    ///
    /// # Errors
    ///
    /// [`Error::Axis`] for an axis past `ndim`, [`Error::Index`] for an index
    /// past the extent.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4, 5, 6]);
    /// a.reshape(&[3, 2])?;
    /// assert_eq!(a.view().select(0, 2)?.to_vec(), [5, 6]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn select(&self, axis: usize, index: usize) -> Result<Self> {
        Ok(Self::from_parts(
            self.words,
            self.bits,
            self.layout.select(axis, index)?,
        ))
    }

    /// The shape of a sum over `axes`: the kept extents, with a 1 in place
    /// of each reduced axis when `keepdims`.
    ///
    /// # Errors
    ///
    /// [`Error::Axis`] for an axis past `ndim`, [`Error::DuplicateAxis`] for
    /// an axis listed twice.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::<bool>::zeroed(24);
    /// a.reshape(&[2, 3, 4])?;
    /// assert_eq!(a.view().reduced_shape(&[0, 2], false)?, [3]);
    /// assert_eq!(a.view().reduced_shape(&[0, 2], true)?, [1, 3, 1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn reduced_shape(&self, axes: &[usize], keepdims: bool) -> Result<Vec<usize>> {
        reduce::axis::reduced_shape(self.shape(), axes, keepdims)
    }
}

impl<'a, T: UnsignedElement, L: Packing> View<'a, T, L> {
    /// The exact sum of the elements (repeats counted), without unpacking:
    /// the axes are normalized (broadcast axes become a factor, reversed
    /// axes are flipped, tiling axes merge), then each innermost run is
    /// summed by the width's kernel for its stride (see `BENCHMARKS.md`).
    /// The accumulator rule is in the crate docs ("Reductions"). With the
    /// `rayon` feature a large sum splits across threads along the
    /// outermost normalized axis (or the one run).
    ///
    /// # Examples
    ///
    /// ```
    /// use arbitrary_int::u5;
    /// use bitpack::NarrowArray;
    ///
    /// let a: NarrowArray<u5> = (0..30u8).map(u5::new).collect();
    /// assert_eq!(a.view().step_by(0, 3)?.sum(), (0..30).step_by(3).sum::<u128>());
    /// assert_eq!(a.view_strided(&[1000], &[0], 29)?.sum(), 29_000); // broadcast
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn sum(&self) -> u128 {
        const { reduce::assert_summable::<T>() };
        reduce::sum_layout(L::WORD_ALIGNED, self.bits, self.words, &self.layout)
    }

    /// Sums over `axes` (any set, in any order) into `out`, row-major over
    /// the kept axes (its length is their product; `keepdims` only changes
    /// the reported [`reduced_shape`](Self::reduced_shape)). The input is
    /// never unpacked: row sums run the width's run kernels, column sums add
    /// decoded row tiles into small `u16`/`u32` accumulators (see the
    /// `reduce` module docs); scratch is a few KiB.
    ///
    /// # Errors
    ///
    /// [`Error::Axis`], [`Error::DuplicateAxis`], [`Error::Length`] when
    /// `out` does not have one slot per output, and [`Error::SumOverflow`]
    /// when an output does not fit a `u64` (only possible when a reduced
    /// group has more than `u64::MAX / (2^width - 1)` elements). `out` is
    /// unchanged on error.
    ///
    /// # Examples
    ///
    /// ```
    /// use arbitrary_int::u3;
    /// use bitpack::NarrowArray;
    ///
    /// let mut a: NarrowArray<u3> = (0..6u8).map(u3::new).collect();
    /// a.reshape(&[2, 3])?; // [[0, 1, 2], [3, 4, 5]]
    /// let mut cols = [0u64; 3];
    /// a.view().sum_axes_into(&[0], &mut cols)?;
    /// assert_eq!(cols, [3, 5, 7]);
    /// let mut rows = [0u64; 2];
    /// a.view().sum_axes_into(&[1], &mut rows)?;
    /// assert_eq!(rows, [3, 12]);
    /// assert!(a.view().sum_axes_into(&[1], &mut cols).is_err()); // 3 slots for 2 sums
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn sum_axes_into(&self, axes: &[usize], out: &mut [u64]) -> Result<()> {
        const { reduce::assert_summable::<T>() };
        reduce::axis::sum_axes_into(
            L::WORD_ALIGNED,
            self.bits,
            self.words,
            &self.layout,
            axes,
            out,
        )
    }

    /// Sums over `axes` into a fresh buffer: the output's shape (see
    /// [`reduced_shape`](Self::reduced_shape)) and its values, row-major.
    ///
    /// # Errors
    ///
    /// As [`sum_axes_into`](Self::sum_axes_into); also [`Error::Shape`] when
    /// the output's value count overflows `usize` and [`Error::Alloc`] when
    /// the output cannot be allocated (an empty or broadcast view can have
    /// far more outputs than its storage has values). Both are checked before
    /// anything is summed.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[true, false, true, true, true, false]);
    /// a.reshape(&[2, 3])?;
    /// let (shape, sums) = a.view().sum_axes(&[1], true)?;
    /// assert_eq!(shape, [2, 1]);
    /// assert_eq!(sums, [2, 2]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn sum_axes(&self, axes: &[usize], keepdims: bool) -> Result<(Vec<usize>, Vec<u64>)> {
        let shape = self.reduced_shape(axes, keepdims)?;
        let n = crate::shape::checked_count(&shape).ok_or(Error::Shape {
            elements: None,
            len: self.len(),
        })?;
        // Sized and allocated fallibly before any work: the output of a
        // broadcast or empty view can be far larger than its storage.
        let mut out = try_zeroed_vec::<u64>(n, "the output of sum_axes")?;
        self.sum_axes_into(axes, &mut out)?;
        Ok((shape, out))
    }
}

impl<T: BitElement + fmt::Debug, L: Packing> fmt::Debug for View<'_, T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Values<'v, T: BitElement, L: Packing>(&'v View<'v, T, L>);
        impl<T: BitElement + fmt::Debug, L: Packing> fmt::Debug for Values<'_, T, L> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.0.iter()).finish()
            }
        }
        f.debug_struct("View")
            .field("shape", &self.shape())
            .field("strides", &self.strides())
            .field("offset", &self.offset())
            .field("values", &Values(self))
            .finish()
    }
}

impl<'a, T: BitElement, L: Packing> IntoIterator for View<'a, T, L> {
    type Item = T;
    type IntoIter = ViewIter<'a, T, L>;

    fn into_iter(self) -> ViewIter<'a, T, L> {
        self.iter()
    }
}

impl<'a, T: BitElement, L: Packing> IntoIterator for &View<'a, T, L> {
    type Item = T;
    type IntoIter = ViewIter<'a, T, L>;

    fn into_iter(self) -> ViewIter<'a, T, L> {
        self.iter()
    }
}
