//! [`ViewMut`]: a mutable validated strided N-d view over the words of a
//! packed array.

use crate::error::LengthOf;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::ops::Range;

use super::strided::{CHUNK, check_fits, check_same_shape, copy_runs, for_each_chunk, last_writes};
use super::{View, ViewIter};
use crate::kernels::stream;
use crate::reduce::{self, UnsignedElement};
use crate::shape::{Dense, Layout, Packing, shape_accessors};
use crate::{BitElement, Error, Result, Unsigned};

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
/// [`NarrowArray::assign_within`](crate::NarrowArray::assign_within): it behaves as if the source were copied
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

    /// The words and the layout, for a container's writes through the view
    /// (a record column's, in `narrow/records.rs`).
    #[inline]
    pub(crate) fn words_and_layout(&mut self) -> (&mut [u64], &Layout) {
        (self.words, &self.layout)
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

    shape_accessors! { layout:
        /// The view's descriptor.
        ///
        /// # Examples
        ///
        /// ```
        /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
        /// assert_eq!(a.view_mut().layout().shape(), [3]);
        /// ```
        layout;
        /// The extent of each dimension.
        ///
        /// # Examples
        ///
        /// ```
        /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
        /// assert_eq!(a.view_mut().shape(), [3]);
        /// ```
        shape;
        /// The number of elements the view addresses (repeats counted).
        ///
        /// # Examples
        ///
        /// ```
        /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
        /// assert_eq!(a.view_mut().len(), 3);
        /// ```
        len;
        /// Whether some extent is zero.
        ///
        /// # Examples
        ///
        /// ```
        /// let mut a = bitpack::NarrowArray::<u8>::new();
        /// assert!(a.view_mut().is_empty());
        /// ```
        is_empty;
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

    /// Unpacks the elements into `dst` (see [`View::unpack_into`]).
    ///
    /// # Errors
    ///
    /// As [`View::unpack_into`].
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
    /// let mut out = [0u8; 3];
    /// a.view_mut().unpack_into(&mut out)?;
    /// assert_eq!(out, [1, 2, 3]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn unpack_into(&self, dst: &mut [T]) -> Result<()> {
        self.as_view().unpack_into(dst)
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
