//! [`View`] and [`ViewMut`]: validated strided N-d views over the words of a
//! packed array.

use crate::error::LengthOf;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::ops::Range;

use super::{Layout, MAX_DIMS};
use crate::kernels::stream;
use crate::narrow::{Dense, DynNarrowArray, NarrowArray, Packing};
use crate::reduce::{self, UnsignedElement};
use crate::{BitElement, Error, Result, Unsigned};

/// Values per stack chunk of the bulk paths (gathered, converted, scattered).
const CHUNK: usize = 256;

/// The value of `T` whose raw bits are `raw`.
#[inline(always)]
fn from_raw<T: BitElement>(raw: u128) -> T {
    T::from_raw_bits(T::Raw::from_u128_truncate(raw))
}

/// The raw value at linear index `i` of a stream of `bits`-bit values (the
/// width is a constant when it is `T::BITS`, the typed arrays' case).
#[inline(always)]
fn raw_at<T: BitElement, L: Packing>(words: &[u64], bits: u32, i: usize) -> u128 {
    if bits == T::BITS {
        stream::read(L::WORD_ALIGNED, T::BITS, words, i)
    } else {
        stream::read(L::WORD_ALIGNED, bits, words, i)
    }
}

/// `ValueTooWide` unless `raw` fits in `bits` bits.
#[inline(always)]
fn check_fits(raw: u128, bits: u32) -> Result<()> {
    if bits < 128 && raw >> bits != 0 {
        return Err(Error::ValueTooWide { value: raw, bits });
    }
    Ok(())
}

/// Revalidates `layout` against `len` elements when it was validated against
/// another length.
fn layout_for(layout: &Layout, len: usize) -> Result<Layout> {
    if layout.storage_len() == len {
        Ok(*layout)
    } else {
        Layout::new(layout.shape(), layout.strides(), layout.offset(), len)
    }
}

/// `n` zeros in a new `Vec`, or [`Error::Alloc`] (naming `what`) when they
/// cannot be allocated: the size overflows, or the allocator refuses.
pub(crate) fn try_zeroed_vec<X: Copy + Default>(n: usize, what: &'static str) -> Result<Vec<X>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::Alloc {
        what,
        count: Some(n),
        value_bytes: core::mem::size_of::<X>(),
    })?;
    v.resize(n, X::default());
    Ok(v)
}

/// `dst` and `src` (of one shape) restricted to the last index of every
/// axis along which `dst` has stride 0: all writes along such an axis go to
/// one element and the last in logical order wins, so the result is the
/// same, with work bounded by the distinct writes rather than the repeats (a
/// broadcast of `usize::MAX` elements is one write).
fn last_writes(dst: &Layout, src: &Layout) -> (Layout, Layout) {
    let (mut d, mut s) = (*dst, *src);
    if dst.is_empty() {
        return (d, s);
    }
    for axis in 0..dst.ndim() {
        let n = dst.shape()[axis];
        if dst.strides()[axis] == 0 && n > 1 {
            // Non-empty and validated: the last index moves the offset
            // within the validated extent.
            d = d
                .slice(axis, n - 1..n)
                .expect("a non-empty view's last index");
            s = s.slice(axis, n - 1..n).expect("the same shape");
        }
    }
    (d, s)
}

/// `ShapeMismatch` unless the shapes are equal.
fn check_same_shape(expected: &[usize], actual: &[usize]) -> Result<()> {
    if expected.len() != actual.len() {
        return Err(Error::ShapeMismatch {
            axis: None,
            expected: expected.len(),
            actual: actual.len(),
        });
    }
    match expected.iter().zip(actual).position(|(a, b)| a != b) {
        Some(axis) => Err(Error::ShapeMismatch {
            axis: Some(axis),
            expected: expected[axis],
            actual: actual[axis],
        }),
        None => Ok(()),
    }
}

/// The lowest and highest linear index a non-empty layout reaches.
fn index_range(layout: &Layout) -> Option<(usize, usize)> {
    let n = reduce::nd::Normal::of(layout)?;
    let span: usize = n.dims[..n.nd].iter().map(|&(e, s)| (e - 1) * s).sum();
    Some((n.offset, n.offset + span))
}

/// Calls `f(start, stride, n)` for the chunks of at most [`CHUNK`] values of
/// each run of `layout`, in logical order.
#[inline]
fn for_each_chunk(layout: &Layout, mut f: impl FnMut(usize, isize, usize)) {
    for (start, stride, count) in layout.runs() {
        let mut k = 0;
        while k < count {
            let n = (count - k).min(CHUNK);
            // Inside the run, so inside the validated extent.
            f(start.wrapping_add_signed(k as isize * stride), stride, n);
            k += n;
        }
    }
}

/// Copies the values of `src` (a layout over `src_words`) into `dst` (a
/// layout of the same shape over `dst_words`, another buffer), in logical
/// order, a chunk at a time. `aligned` and `bits` are the two streams'
/// layouts and widths (source first); the source's values fit the
/// destination's width.
fn copy_runs<U: Unsigned>(
    aligned: (bool, bool),
    bits: (u32, u32),
    (src, src_words): (&Layout, &[u64]),
    (dst, dst_words): (&Layout, &mut [u64]),
) {
    let mut buf = [U::ZERO; CHUNK];
    let mut dst_runs = dst.runs();
    let mut dst_run = dst_runs.next();
    let mut dst_k = 0;
    for_each_chunk(src, |start, stride, n| {
        stream::gather(aligned.0, bits.0, src_words, start, stride, &mut buf[..n]);
        // The same shape gives the same run lengths: a chunk never spans two
        // destination runs.
        let (ds, dstride, dcount) = dst_run.expect("same shape, same number of values");
        let at = ds.wrapping_add_signed(dst_k as isize * dstride);
        stream::scatter(aligned.1, bits.1, dst_words, at, dstride, &buf[..n]);
        dst_k += n;
        if dst_k == dcount {
            dst_run = dst_runs.next();
            dst_k = 0;
        }
    });
}

/// A read-only strided N-d view of a packed array: a validated [`Layout`]
/// (shape, strides and offset in elements) over the array's values.
///
/// Made by [`NarrowArray::view`] (the array's own shape),
/// [`NarrowArray::view_strided`] and [`NarrowArray::view_with`] (any
/// descriptor, validated against the array before anything is read), and the
/// same on [`DynNarrowArray`] (where `T` is `u64` and the width is the
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
    words: &'a [u64],
    bits: u32,
    layout: Layout,
    _values: PhantomData<(T, L)>,
}

impl<T: BitElement, L: Packing> Clone for View<'_, T, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: BitElement, L: Packing> Copy for View<'_, T, L> {}

/// A mutable strided N-d view of a packed array (see [`View`] for the
/// descriptor and the reads).
///
/// Writes validate everything first, then write, so an error changes
/// nothing: [`set`](Self::set), [`fill`](Self::fill),
/// [`assign_from`](Self::assign_from) (values in logical order),
/// [`assign_from_uints`](Self::assign_from_uints) (wider unsigned integers,
/// each checked to fit), [`assign_view`](Self::assign_view) (another view of
/// the same shape). An element that the view reaches more than once (a zero
/// or repeating stride) keeps the value written last in logical order. To
/// assign between two views of the same array, which the borrow rules keep
/// from coexisting with a `ViewMut`, use
/// [`NarrowArray::assign_within`]: it behaves as if the source were copied
/// first.
///
/// Slicing consumes the view and returns a narrower one;
/// [`reborrow`](Self::reborrow) keeps the original.
///
/// # Examples
///
/// ```
/// use arbitrary_int::u3;
/// use bitpack::{Error, NarrowArray};
///
/// let mut a = NarrowArray::<u3>::zeroed(8);
/// a.reshape(&[2, 4])?;
/// let mut v = a.view_mut();
/// v.reborrow().select(0, 1)?.fill(u3::new(5))?; // the second row
/// v.reborrow().select(1, 0)?.assign_from(&[u3::new(1), u3::new(2)])?; // the first column
///
/// // A value wider than the element is an error, and nothing is written.
/// let err = v.assign_from_uints(&[7u64, 1, 2, 3, 4, 5, 6, 8]).unwrap_err();
/// assert_eq!(err, Error::ValueTooWide { value: 8, bits: 3 });
/// assert_eq!(a.to_vec(), [1, 0, 0, 0, 2, 5, 5, 5].map(u3::new));
/// # Ok::<(), bitpack::Error>(())
/// ```
pub struct ViewMut<'a, T: BitElement, L: Packing = Dense> {
    words: &'a mut [u64],
    bits: u32,
    layout: Layout,
    _values: PhantomData<(T, L)>,
}

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
    #[cfg(feature = "dlpack")]
    #[inline]
    pub(crate) fn words(&self) -> &'a [u64] {
        self.words
    }

    /// The view's descriptor.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert_eq!(a.view().layout().strides(), [1]);
    /// ```
    #[inline]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

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
    #[inline]
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }

    /// The stride of each dimension, in elements.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert_eq!(a.view().reversed(0)?.strides(), [-1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn strides(&self) -> &[isize] {
        self.layout.strides()
    }

    /// The linear index of the element at coordinates all zero.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert_eq!(a.view().reversed(0)?.offset(), 2);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn offset(&self) -> isize {
        self.layout.offset()
    }

    /// The number of dimensions.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert_eq!(a.view().select(0, 1)?.ndim(), 0); // a scalar
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }

    /// The number of elements the view addresses (repeats counted).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert_eq!(a.view_strided(&[4, 2], &[0, 1], 0)?.len(), 8);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.layout.len()
    }

    /// Whether some extent is zero.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert!(a.view().slice(0, 1..1)?.is_empty());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.layout.is_empty()
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
    /// As `Vec` does, when the copy cannot be allocated: a broadcast view
    /// can address far more elements than its storage holds.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4, 5]);
    /// assert_eq!(a.view().step_by(0, 2)?.to_vec(), [1, 3, 5]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn to_vec(&self) -> Vec<T> {
        let mut out = Vec::with_capacity(self.len());
        let mut buf = [T::Raw::ZERO; CHUNK];
        let aligned = L::WORD_ALIGNED;
        for_each_chunk(&self.layout, |start, stride, n| {
            stream::gather(aligned, self.bits, self.words, start, stride, &mut buf[..n]);
            out.extend(buf[..n].iter().map(|&r| T::from_raw_bits(r)));
        });
        out
    }

    /// A compact copy: a fresh packed array, in layout `L`, holding the
    /// view's elements in logical order with the view's shape (the empty
    /// shape for a 0-d view). No unpacked temporary: values go through a
    /// small stack buffer. Values keep their raw bits as `T` (a run-time
    /// width view of `u64`s gives 64-bit values: see
    /// [`to_dyn_array`](Self::to_dyn_array)).
    ///
    /// # Panics
    ///
    /// As `Vec` does, when the copy cannot be allocated: a broadcast view
    /// can address far more elements than its storage holds.
    ///
    /// # Examples
    ///
    /// ```
    /// use arbitrary_int::u4;
    /// use bitpack::NarrowArray;
    ///
    /// let mut a: NarrowArray<u4> = (0..6u8).map(u4::new).collect();
    /// a.reshape(&[2, 3])?;
    /// let t = a.view().transpose().to_narrow_array();
    /// assert_eq!(t.shape(), [3, 2]);
    /// assert_eq!(t.as_bytes(), [0x30, 0x41, 0x52]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn to_narrow_array(&self) -> NarrowArray<T, L> {
        let mut dst = NarrowArray::<T, L>::zeroed_in(self.len());
        self.pack_into(L::WORD_ALIGNED, T::BITS, dst.words_mut());
        dst.reshape(self.shape())
            .expect("the view's shape holds its elements");
        dst
    }

    /// Packs the view's values, in logical order, at indices `0..len` of a
    /// stream of `bits`-bit values (at least the view's width).
    fn pack_into(&self, aligned: bool, bits: u32, words: &mut [u64]) {
        let mut buf = [T::Raw::ZERO; CHUNK];
        let mut at = 0;
        for_each_chunk(&self.layout, |start, stride, n| {
            stream::gather(
                L::WORD_ALIGNED,
                self.bits,
                self.words,
                start,
                stride,
                &mut buf[..n],
            );
            stream::pack(aligned, bits, &buf[..n], words, at);
            at += n;
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
    /// The accumulator rule is in the crate docs ("Reductions").
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
        let n = crate::view::layout::checked_count(&shape).ok_or(Error::Shape {
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

impl<'a, L: Packing> View<'a, u64, L> {
    /// A compact copy as a run-time-width array of the view's width, with
    /// the view's shape.
    ///
    /// # Panics
    ///
    /// As `Vec` does, when the copy cannot be allocated (a broadcast view
    /// can address far more elements than its storage holds).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_slice(3, &[1, 2, 3, 4, 5])?;
    /// let odd = a.view().step_by(0, 2)?.to_dyn_array();
    /// assert_eq!(odd.width(), 3);
    /// assert_eq!(odd.to_vec(), [1, 3, 5]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn to_dyn_array(&self) -> DynNarrowArray<L> {
        let mut dst = DynNarrowArray::<L>::zeroed_in(self.bits, self.len())
            .expect("a view's width is 1..=64");
        self.pack_into(L::WORD_ALIGNED, self.bits, dst.words_mut());
        dst.reshape(self.shape())
            .expect("the view's shape holds its elements");
        dst
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

impl<'a, T: BitElement, L: Packing> ViewMut<'a, T, L> {
    /// A mutable view of `bits`-bit values over `words`, through a layout
    /// validated against the stream's length.
    #[inline]
    pub(crate) fn from_parts(words: &'a mut [u64], bits: u32, layout: Layout) -> Self {
        ViewMut {
            words,
            bits,
            layout,
            _values: PhantomData,
        }
    }

    /// A read-only view of the same elements, for the reads of [`View`].
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// let v = a.view_mut();
    /// assert_eq!(v.as_view().reversed(0)?.to_vec(), [3, 2, 1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn as_view(&self) -> View<'_, T, L> {
        View::from_parts(self.words, self.bits, self.layout)
    }

    /// A shorter-lived mutable view of the same elements (so that slicing,
    /// which consumes a `ViewMut`, can leave this one usable).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4]);
    /// let mut v = a.view_mut();
    /// v.reborrow().slice(0, 0..2)?.fill(0)?;
    /// v.reborrow().slice(0, 3..4)?.fill(9)?;
    /// assert_eq!(v.to_vec(), [0, 0, 3, 9]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn reborrow(&mut self) -> ViewMut<'_, T, L> {
        ViewMut::from_parts(self.words, self.bits, self.layout)
    }

    /// The view's descriptor.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert_eq!(a.view_mut().layout().shape(), [3]);
    /// ```
    #[inline]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The extent of each dimension.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert_eq!(a.view_mut().shape(), [3]);
    /// ```
    #[inline]
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }

    /// The number of elements the view addresses (repeats counted).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert_eq!(a.view_mut().len(), 3);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.layout.len()
    }

    /// Whether some extent is zero.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::<u8>::new();
    /// assert!(a.view_mut().is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.layout.is_empty()
    }

    /// The element at `coords` (see [`View::get`]).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert_eq!(a.view_mut().get(&[2]), Some(3));
    /// ```
    #[inline]
    pub fn get(&self, coords: &[usize]) -> Option<T> {
        self.as_view().get(coords)
    }

    /// An iterator over the elements in logical order (see [`View::iter`]).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert_eq!(a.view_mut().iter().max(), Some(3));
    /// ```
    #[inline]
    pub fn iter(&self) -> ViewIter<'_, T, L> {
        ViewIter::new(self.words, self.bits, self.layout)
    }

    /// The elements in logical order (see [`View::to_vec`]).
    ///
    /// # Panics
    ///
    /// As [`View::to_vec`].
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert_eq!(a.view_mut().to_vec(), [1, 2, 3]);
    /// ```
    pub fn to_vec(&self) -> Vec<T> {
        self.as_view().to_vec()
    }

    /// The raw bits of `value`, checked to fit the view's width.
    #[inline]
    fn raw_of(&self, value: T) -> Result<u128> {
        let raw = value.raw_bits().to_u128();
        if self.bits < T::BITS {
            check_fits(raw, self.bits)?;
        }
        Ok(raw)
    }

    /// Sets the element at `coords`.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] when the number of coordinates is not `ndim`,
    /// [`Error::Index`] naming the first coordinate past its extent (and the
    /// extent), and, for a run-time-width view, [`Error::ValueTooWide`];
    /// nothing is written then.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4]);
    /// a.reshape(&[2, 2])?;
    /// a.view_mut().transpose().set(&[0, 1], 9)?;
    /// assert_eq!(a.to_vec(), [1, 2, 9, 4]);
    /// assert!(a.view_mut().set(&[2, 0], 9).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn set(&mut self, coords: &[usize], value: T) -> Result<()> {
        if coords.len() != self.layout.ndim() {
            return Err(Error::Length {
                of: LengthOf::Coordinates,
                expected: self.layout.ndim(),
                actual: coords.len(),
            });
        }
        let Some(i) = self.layout.index(coords) else {
            let (axis, &c) = coords
                .iter()
                .enumerate()
                .find(|&(d, &c)| c >= self.layout.shape()[d])
                .expect("an out-of-range coordinate");
            return Err(Error::Index {
                index: c,
                len: self.layout.shape()[axis],
            });
        };
        let raw = self.raw_of(value)?;
        stream::write(L::WORD_ALIGNED, self.bits, self.words, i, raw);
        Ok(())
    }

    /// Writes `value` to every element.
    ///
    /// # Errors
    ///
    /// For a run-time-width view, [`Error::ValueTooWide`] when `value` does
    /// not fit its width; nothing is written then. A typed view always
    /// succeeds.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4, 5]);
    /// a.view_mut().step_by(0, 2)?.fill(0)?;
    /// assert_eq!(a.to_vec(), [0, 2, 0, 4, 0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn fill(&mut self, value: T) -> Result<()> {
        let raw = self.raw_of(value)?;
        let buf = [T::Raw::from_u128_truncate(raw); CHUNK];
        let (aligned, bits) = (L::WORD_ALIGNED, self.bits);
        let words = &mut *self.words;
        let (layout, _) = last_writes(&self.layout, &self.layout);
        for_each_chunk(&layout, |start, stride, n| {
            stream::scatter(aligned, bits, words, start, stride, &buf[..n]);
        });
        Ok(())
    }

    /// Writes `src` over the elements in logical order.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] when `src.len()` is not the view's length and, for
    /// a run-time-width view, [`Error::ValueTooWide`] naming the first value
    /// that does not fit; nothing is written then.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::<u8>::zeroed(4);
    /// a.reshape(&[2, 2])?;
    /// a.view_mut().transpose().assign_from(&[1, 2, 3, 4])?;
    /// assert_eq!(a.to_vec(), [1, 3, 2, 4]);
    /// assert!(a.view_mut().assign_from(&[1, 2]).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn assign_from(&mut self, src: &[T]) -> Result<()> {
        if src.len() != self.len() {
            return Err(Error::Length {
                of: LengthOf::AssignSource,
                expected: self.len(),
                actual: src.len(),
            });
        }
        if self.bits < T::BITS {
            for &v in src {
                check_fits(v.raw_bits().to_u128(), self.bits)?;
            }
        }
        self.write_raw(src.len(), |k| src[k].raw_bits());
        Ok(())
    }

    /// Writes `value(k)` (raw bits that fit) over element `k` in logical
    /// order, for `k` in `0..len`.
    fn write_raw(&mut self, len: usize, value: impl Fn(usize) -> T::Raw) {
        debug_assert_eq!(len, self.len());
        let mut buf = [T::Raw::ZERO; CHUNK];
        let (aligned, bits) = (L::WORD_ALIGNED, self.bits);
        let words = &mut *self.words;
        let mut k = 0;
        for_each_chunk(&self.layout, |start, stride, n| {
            for (j, b) in buf[..n].iter_mut().enumerate() {
                *b = value(k + j);
            }
            stream::scatter(aligned, bits, words, start, stride, &buf[..n]);
            k += n;
        });
    }

    /// Writes the elements of `src`, a view of the same shape over another
    /// array (of either layout), in logical order.
    ///
    /// # Errors
    ///
    /// [`Error::ShapeMismatch`] when the shapes differ and, when the source
    /// is wider than this view (run-time widths), [`Error::ValueTooWide`]
    /// naming the first value written that does not fit; nothing is written
    /// then. Along an axis where this view has stride 0 (a broadcast), only
    /// the last value in logical order is written (it is the one that
    /// stays), so only it is checked.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::<u8>::zeroed(3);
    /// let b = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// a.view_mut().assign_view(&b.view().reversed(0)?)?;
    /// assert_eq!(a.to_vec(), [3, 2, 1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn assign_view<L2: Packing>(&mut self, src: &View<'_, T, L2>) -> Result<()> {
        check_same_shape(self.shape(), src.shape())?;
        let (dst, src_layout) = last_writes(&self.layout, &src.layout);
        if src.bits > self.bits {
            let mut buf = [T::Raw::ZERO; CHUNK];
            let mut bad = None;
            for_each_chunk(&src_layout, |start, stride, n| {
                if bad.is_some() {
                    return;
                }
                stream::gather(
                    L2::WORD_ALIGNED,
                    src.bits,
                    src.words,
                    start,
                    stride,
                    &mut buf[..n],
                );
                bad = buf[..n]
                    .iter()
                    .find(|r| check_fits(r.to_u128(), self.bits).is_err())
                    .copied();
            });
            if let Some(r) = bad {
                return Err(Error::ValueTooWide {
                    value: r.to_u128(),
                    bits: self.bits,
                });
            }
        }
        copy_runs::<T::Raw>(
            (L2::WORD_ALIGNED, L::WORD_ALIGNED),
            (src.bits, self.bits),
            (&src_layout, src.words),
            (&dst, self.words),
        );
        Ok(())
    }

    /// Restricts `axis` to `range` (see [`View::slice`]).
    ///
    /// # Errors
    ///
    /// As [`View::slice`].
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// a.view_mut().slice(0, 1..3)?.fill(0)?;
    /// assert_eq!(a.to_vec(), [1, 0, 0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn slice(self, axis: usize, range: Range<usize>) -> Result<Self> {
        let layout = self.layout.slice(axis, range)?;
        Ok(Self::from_parts(self.words, self.bits, layout))
    }

    /// Every `step`-th element along `axis` (see [`View::step_by`]).
    ///
    /// # Errors
    ///
    /// As [`View::step_by`].
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// a.view_mut().step_by(0, -2)?.assign_from(&[7, 8])?;
    /// assert_eq!(a.to_vec(), [8, 2, 7]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn step_by(self, axis: usize, step: isize) -> Result<Self> {
        let layout = self.layout.step_by(axis, step)?;
        Ok(Self::from_parts(self.words, self.bits, layout))
    }

    /// Reverses `axis` (see [`View::reversed`]).
    ///
    /// # Errors
    ///
    /// As [`View::reversed`].
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::<u8>::zeroed(3);
    /// a.view_mut().reversed(0)?.assign_from(&[1, 2, 3])?;
    /// assert_eq!(a.to_vec(), [3, 2, 1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn reversed(self, axis: usize) -> Result<Self> {
        let layout = self.layout.reversed(axis)?;
        Ok(Self::from_parts(self.words, self.bits, layout))
    }

    /// Reorders the axes (see [`View::permute`]).
    ///
    /// # Errors
    ///
    /// As [`View::permute`].
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::<u8>::zeroed(4);
    /// a.reshape(&[2, 2])?;
    /// a.view_mut().permute(&[1, 0])?.assign_from(&[1, 2, 3, 4])?;
    /// assert_eq!(a.to_vec(), [1, 3, 2, 4]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn permute(self, order: &[usize]) -> Result<Self> {
        let layout = self.layout.permute(order)?;
        Ok(Self::from_parts(self.words, self.bits, layout))
    }

    /// Reverses the order of the axes (see [`View::transpose`]).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::<u8>::zeroed(6);
    /// a.reshape(&[2, 3])?;
    /// a.view_mut().transpose().select(0, 2)?.fill(7)?; // the last column
    /// assert_eq!(a.to_vec(), [0, 0, 7, 0, 0, 7]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn transpose(self) -> Self {
        let layout = self.layout.transpose();
        Self::from_parts(self.words, self.bits, layout)
    }

    /// Fixes `axis` at `index` (see [`View::select`]).
    ///
    /// # Errors
    ///
    /// As [`View::select`].
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::<u8>::zeroed(4);
    /// a.reshape(&[2, 2])?;
    /// a.view_mut().select(0, 1)?.fill(1)?;
    /// assert_eq!(a.to_vec(), [0, 0, 1, 1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn select(self, axis: usize, index: usize) -> Result<Self> {
        let layout = self.layout.select(axis, index)?;
        Ok(Self::from_parts(self.words, self.bits, layout))
    }
}

impl<T: UnsignedElement, L: Packing> ViewMut<'_, T, L> {
    /// Writes unsigned integers of any width over the elements in logical
    /// order, each checked to fit the view's width (`&[u64]` into a 5-bit
    /// array, say).
    ///
    /// # Errors
    ///
    /// [`Error::Length`] when `src.len()` is not the view's length,
    /// [`Error::ValueTooWide`] naming the first value that does not fit and
    /// the width; nothing is written then.
    ///
    /// # Examples
    ///
    /// ```
    /// use arbitrary_int::u5;
    /// use bitpack::{Error, NarrowArray};
    ///
    /// let mut a = NarrowArray::<u5>::zeroed(3);
    /// a.view_mut().assign_from_uints(&[1u64, 31, 7])?;
    /// assert_eq!(a.to_vec(), [1, 31, 7].map(u5::new));
    /// let err = a.view_mut().assign_from_uints(&[0u32, 32, 1]).unwrap_err();
    /// assert_eq!(err.to_string(), "value 32 does not fit in 5 bits");
    /// assert_eq!(a.to_vec(), [1, 31, 7].map(u5::new)); // unchanged
    /// # Ok::<(), Error>(())
    /// ```
    pub fn assign_from_uints<S: Unsigned>(&mut self, src: &[S]) -> Result<()> {
        const { reduce::assert_summable::<T>() };
        if src.len() != self.len() {
            return Err(Error::Length {
                of: LengthOf::AssignSource,
                expected: self.len(),
                actual: src.len(),
            });
        }
        for &v in src {
            check_fits(v.to_u128(), self.bits)?;
        }
        self.write_raw(src.len(), |k| T::Raw::from_u128_truncate(src[k].to_u128()));
        Ok(())
    }

    /// The exact sum of the elements (see [`View::sum`]).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert_eq!(a.view_mut().sum(), 6);
    /// ```
    pub fn sum(&self) -> u128 {
        self.as_view().sum()
    }
}

impl<T: BitElement + fmt::Debug, L: Packing> fmt::Debug for ViewMut<'_, T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.as_view();
        f.debug_struct("ViewMut")
            .field("shape", &v.shape())
            .field("strides", &v.strides())
            .field("offset", &v.offset())
            .field("values", &v.iter().collect::<Vec<_>>())
            .finish()
    }
}

/// Assignment between two views of one stream of layout `L`: validates both
/// descriptors against `len` elements and the shapes, then copies as if the
/// source were copied first (through a packed snapshot of the source when
/// the two index ranges overlap, directly otherwise).
pub(crate) fn assign_within<L: Packing>(
    bits: u32,
    words: &mut [u64],
    len: usize,
    dst: &Layout,
    src: &Layout,
) -> Result<()> {
    let aligned = L::WORD_ALIGNED;
    let dst = layout_for(dst, len)?;
    let src = layout_for(src, len)?;
    check_same_shape(dst.shape(), src.shape())?;
    let (dst, src) = last_writes(&dst, &src);
    let (Some((dlo, dhi)), Some((slo, shi))) = (index_range(&dst), index_range(&src)) else {
        return Ok(());
    };
    if dhi < slo || shi < dlo {
        // Disjoint: no write reaches a value still to be read, so gather and
        // scatter alternate on the one buffer, a chunk at a time.
        let mut buf = [0u128; CHUNK];
        let mut dst_runs = dst.runs();
        let mut dst_run = dst_runs.next();
        let mut dst_k = 0;
        for_each_chunk(&src, |start, stride, n| {
            stream::gather(aligned, bits, words, start, stride, &mut buf[..n]);
            let (ds, dstride, dcount) = dst_run.expect("same shape, same number of values");
            let at = ds.wrapping_add_signed(dst_k as isize * dstride);
            stream::scatter(aligned, bits, words, at, dstride, &buf[..n]);
            dst_k += n;
            if dst_k == dcount {
                dst_run = dst_runs.next();
                dst_k = 0;
            }
        });
        return Ok(());
    }
    // Overlap: snapshot the source, packed densely at its own width; or,
    // when that copy would be larger than the stream itself (a source that
    // repeats values, such as a broadcast), a copy of the stream's words,
    // which the source's own layout then reads.
    let n = src.len();
    let packed = crate::kernels::words_for(bits, n);
    if packed <= words.len() {
        let mut snapshot = try_zeroed_vec::<u64>(packed, "the source snapshot of assign_within")?;
        View::<u128, L>::from_parts(words, bits, src).pack_into(false, bits, &mut snapshot);
        let flat =
            Layout::contiguous(src.shape(), n).expect("the source's shape holds its elements");
        copy_runs::<u128>(
            (false, aligned),
            (bits, bits),
            (&flat, &snapshot),
            (&dst, words),
        );
    } else {
        let mut snapshot =
            try_zeroed_vec::<u64>(words.len(), "the source snapshot of assign_within")?;
        snapshot.copy_from_slice(words);
        copy_runs::<u128>(
            (aligned, aligned),
            (bits, bits),
            (&src, &snapshot),
            (&dst, words),
        );
    }
    Ok(())
}

/// An iterator over the elements of a [`View`] in logical (row-major) order.
///
/// Made by [`View::iter`] and [`ViewMut::iter`]; it owns a copy of the
/// descriptor.
///
/// # Examples
///
/// ```
/// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4]);
/// let mut it = a.view().step_by(0, 3)?.iter();
/// assert_eq!(it.len(), 2);
/// assert_eq!(it.next(), Some(1));
/// assert_eq!(it.next(), Some(4));
/// assert_eq!(it.next(), None);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub struct ViewIter<'a, T: BitElement, L: Packing = Dense> {
    words: &'a [u64],
    bits: u32,
    layout: Layout,
    coords: [usize; MAX_DIMS],
    at: isize,
    remaining: usize,
    _values: PhantomData<(T, L)>,
}

impl<'a, T: BitElement, L: Packing> ViewIter<'a, T, L> {
    fn new(words: &'a [u64], bits: u32, layout: Layout) -> Self {
        ViewIter {
            words,
            bits,
            at: layout.offset(),
            remaining: layout.len(),
            layout,
            coords: [0; MAX_DIMS],
            _values: PhantomData,
        }
    }
}

impl<T: BitElement, L: Packing> Clone for ViewIter<'_, T, L> {
    fn clone(&self) -> Self {
        ViewIter {
            words: self.words,
            bits: self.bits,
            layout: self.layout,
            coords: self.coords,
            at: self.at,
            remaining: self.remaining,
            _values: PhantomData,
        }
    }
}

impl<T: BitElement, L: Packing> fmt::Debug for ViewIter<'_, T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ViewIter")
            .field("layout", &self.layout)
            .field("remaining", &self.remaining)
            .finish_non_exhaustive()
    }
}

impl<T: BitElement, L: Packing> Iterator for ViewIter<'_, T, L> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let value = from_raw(raw_at::<T, L>(self.words, self.bits, self.at as usize));
        if self.remaining > 0 {
            let l = &self.layout;
            let (shape, strides) = (l.shape(), l.strides());
            let mut d = shape.len();
            loop {
                d -= 1;
                if self.coords[d] + 1 < shape[d] {
                    self.coords[d] += 1;
                    self.at += strides[d];
                    break;
                }
                // Back to coordinate 0: within the validated extent.
                self.at -= strides[d] * (shape[d] as isize - 1);
                self.coords[d] = 0;
            }
        }
        Some(value)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T: BitElement, L: Packing> ExactSizeIterator for ViewIter<'_, T, L> {}

impl<T: BitElement, L: Packing> core::iter::FusedIterator for ViewIter<'_, T, L> {}

/// The contiguous layout of an array's shape.
fn own_layout(shape: &[usize], len: usize) -> Layout {
    Layout::contiguous(shape, len).expect("an array's shape is a valid layout")
}

impl<T: BitElement, L: Packing> NarrowArray<T, L> {
    /// A view of the whole array with its own shape (row-major, contiguous).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4, 5, 6]);
    /// a.reshape(&[2, 3])?;
    /// let v = a.view();
    /// assert_eq!(v.shape(), [2, 3]);
    /// assert_eq!(v.strides(), [3, 1]);
    /// assert_eq!(v.get(&[1, 1]), Some(5));
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view(&self) -> View<'_, T, L> {
        View::from_parts(
            self.as_words(),
            T::BITS,
            own_layout(self.shape(), self.len()),
        )
    }

    /// A view through the descriptor `shape`, `strides`, `offset` (in
    /// elements, over the flat values), validated against the array first.
    ///
    /// # Errors
    ///
    /// As [`Layout::new`]: too many dimensions, mismatched lengths, an
    /// element count that overflows, or a view that reaches outside the
    /// array (an empty view may have any offset).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3, 4]);
    /// // Two overlapping windows of three.
    /// let w = a.view_strided(&[2, 3], &[1, 1], 0)?;
    /// assert_eq!(w.to_vec(), [1, 2, 3, 2, 3, 4]);
    /// assert!(a.view_strided(&[2], &[-1], 0).is_err()); // reaches index -1
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view_strided(
        &self,
        shape: &[usize],
        strides: &[isize],
        offset: isize,
    ) -> Result<View<'_, T, L>> {
        let layout = Layout::new(shape, strides, offset, self.len())?;
        Ok(View::from_parts(self.as_words(), T::BITS, layout))
    }

    /// A view through `layout`, revalidated against this array when it was
    /// validated against another length.
    ///
    /// # Errors
    ///
    /// As [`view_strided`](Self::view_strided).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{Layout, NarrowArray};
    ///
    /// let l = Layout::new(&[2], &[2], 1, 4)?;
    /// let a = NarrowArray::from_slice(&[1u8, 2, 3, 4]);
    /// assert_eq!(a.view_with(&l)?.to_vec(), [2, 4]);
    /// let short = NarrowArray::from_slice(&[1u8, 2, 3]);
    /// assert!(short.view_with(&l).is_err()); // reaches index 3
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view_with(&self, layout: &Layout) -> Result<View<'_, T, L>> {
        let layout = layout_for(layout, self.len())?;
        Ok(View::from_parts(self.as_words(), T::BITS, layout))
    }

    /// A mutable view of the whole array with its own shape.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::<u8>::zeroed(3);
    /// a.view_mut().assign_from(&[1, 2, 3])?;
    /// assert_eq!(a.to_vec(), [1, 2, 3]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view_mut(&mut self) -> ViewMut<'_, T, L> {
        let layout = own_layout(self.shape(), self.len());
        ViewMut::from_parts(self.words_mut(), T::BITS, layout)
    }

    /// A mutable view through a descriptor, validated against the array
    /// first (see [`view_strided`](Self::view_strided)).
    ///
    /// # Errors
    ///
    /// As [`view_strided`](Self::view_strided).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::<u8>::zeroed(6);
    /// a.view_strided_mut(&[3], &[2], 1)?.fill(1)?;
    /// assert_eq!(a.to_vec(), [0, 1, 0, 1, 0, 1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view_strided_mut(
        &mut self,
        shape: &[usize],
        strides: &[isize],
        offset: isize,
    ) -> Result<ViewMut<'_, T, L>> {
        let layout = Layout::new(shape, strides, offset, self.len())?;
        Ok(ViewMut::from_parts(self.words_mut(), T::BITS, layout))
    }

    /// A mutable view through `layout` (see [`view_with`](Self::view_with)).
    ///
    /// # Errors
    ///
    /// As [`view_strided`](Self::view_strided).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::<u8>::zeroed(4);
    /// let l = bitpack::Layout::new(&[2], &[-1], 3, 4)?;
    /// a.view_with_mut(&l)?.assign_from(&[5, 6])?;
    /// assert_eq!(a.to_vec(), [0, 0, 6, 5]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn view_with_mut(&mut self, layout: &Layout) -> Result<ViewMut<'_, T, L>> {
        let layout = layout_for(layout, self.len())?;
        Ok(ViewMut::from_parts(self.words_mut(), T::BITS, layout))
    }

    /// Assigns the elements that `src` addresses to those that `dst`
    /// addresses (two descriptors of the same shape over this array), as if
    /// the source were copied first: overlapping, reversed and shifted
    /// descriptors give the values the source held before the call.
    ///
    /// When the two index ranges are disjoint the values are copied
    /// directly; otherwise the source is first packed into a temporary of
    /// its own size (`src.len() * T::BITS` bits).
    ///
    /// # Errors
    ///
    /// As [`view_with`](Self::view_with) for either descriptor,
    /// [`Error::ShapeMismatch`] when the shapes differ, and [`Error::Alloc`]
    /// when the snapshot of an overlapping source cannot be allocated (it is
    /// at most the smaller of the source's packed values and the array's own
    /// words); the array is unchanged then.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{Layout, NarrowArray};
    ///
    /// let mut a = NarrowArray::from_slice(&[1u8, 2, 3, 4, 5]);
    /// // Shift right by one, overlapping: a[1..5] = a[0..4].
    /// let dst = Layout::new(&[4], &[1], 1, 5)?;
    /// let src = Layout::new(&[4], &[1], 0, 5)?;
    /// a.assign_within(&dst, &src)?;
    /// assert_eq!(a.to_vec(), [1, 1, 2, 3, 4]);
    /// // Reverse in place: a = a[::-1].
    /// let all = Layout::contiguous(&[5], 5)?;
    /// a.assign_within(&all, &all.reversed(0)?)?;
    /// assert_eq!(a.to_vec(), [4, 3, 2, 1, 1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn assign_within(&mut self, dst: &Layout, src: &Layout) -> Result<()> {
        let len = self.len();
        assign_within::<L>(T::BITS, self.words_mut(), len, dst, src)
    }
}

impl<T: UnsignedElement, L: Packing> NarrowArray<T, L> {
    /// The exact sum of the values, without unpacking them: population count
    /// for 1 bit, in-word digit folding (dense) or whole-word folding
    /// (word-aligned) for 2..=7 and other widths that do not divide 64, byte
    /// and lane reductions for 8, 16, 32 bits, word extraction above 32 (see
    /// `BENCHMARKS.md` for the speeds).
    ///
    /// The sum is a `u128` because `n` values of `b` bits can exceed a `u64`;
    /// it accumulates in `u64` while `n * (2^b - 1)` fits one (always, for
    /// `b <= 32` and fewer than `2^32` values), and in `u128` across such
    /// pieces.
    ///
    /// # Examples
    ///
    /// ```
    /// use arbitrary_int::u5;
    /// use bitpack::{NarrowArray, WordAligned};
    ///
    /// let values: Vec<u5> = (0..1000u32).map(|i| u5::new((i % 32) as u8)).collect();
    /// let dense = NarrowArray::from_slice(&values);
    /// let aligned = NarrowArray::<u5, WordAligned>::from_slice_in(&values);
    /// let expected: u128 = (0..1000u128).map(|i| i % 32).sum();
    /// assert_eq!(dense.sum(), expected);
    /// assert_eq!(aligned.sum(), expected);
    /// assert_eq!(NarrowArray::from_slice(&[u64::MAX; 3]).sum(), 3 * u64::MAX as u128);
    /// ```
    pub fn sum(&self) -> u128 {
        const { reduce::assert_summable::<T>() };
        if self.is_empty() {
            return 0;
        }
        reduce::RunSum::new(L::WORD_ALIGNED, T::BITS).run(self.as_words(), 0, 1, self.len())
    }
}
