//! The views of a [`NarrowArray`]: [`view`](NarrowArray::view),
//! [`view_strided`](NarrowArray::view_strided), [`view_with`](NarrowArray::view_with),
//! their `_mut` forms, and [`assign_within`](NarrowArray::assign_within).

use super::{DynNarrowArray, NarrowArray};
use crate::shape::Layout;
use crate::shape::Packing;
use crate::view::{View, ViewMut, assign_within, layout_for};
use crate::{BitElement, Result};

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
        View::from_parts(self.as_words(), T::BITS, self.own_layout())
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
        self.view_with(&Layout::new(shape, strides, offset, self.len())?)
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
        let layout = self.own_layout();
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
        self.view_with_mut(&Layout::new(shape, strides, offset, self.len())?)
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
    /// [`Error::ShapeMismatch`](crate::Error::ShapeMismatch) when the shapes differ, and [`Error::Alloc`](crate::Error::Alloc)
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

/// The compact copies of a [`View`] into the containers (here, not in
/// `view/`, which sits below the containers).
impl<T: BitElement, L: Packing> View<'_, T, L> {
    /// A compact copy: a fresh packed array, in layout `L`, holding the
    /// view's elements in logical order with the view's shape (the empty
    /// shape for a 0-d view). No unpacked temporary: values go through a
    /// small stack buffer. Values keep their raw bits as `T` (a run-time
    /// width view of `u64`s gives 64-bit values: see
    /// [`to_dyn_array`](Self::to_dyn_array)).
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
        self.try_to_narrow_array()
            .unwrap_or_else(|e| panic!("View::to_narrow_array: {e}"))
    }

    /// A compact copy, as [`to_narrow_array`](Self::to_narrow_array), or an
    /// error where it would panic.
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`](crate::Error::Alloc) when the copy's words cannot
    /// be allocated (nothing is allocated then).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[true]);
    /// let wide = a.view_strided(&[usize::MAX], &[0], 0)?;
    /// assert!(wide.try_to_narrow_array().is_err());
    /// assert_eq!(a.view_strided(&[9], &[0], 0)?.try_to_narrow_array()?.as_bytes(), [0xff, 1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn try_to_narrow_array(&self) -> crate::Result<NarrowArray<T, L>> {
        let mut dst = NarrowArray::<T, L>::try_zeroed_in(self.len())?;
        self.pack_into(L::WORD_ALIGNED, T::BITS, dst.words_mut());
        dst.reshape(self.shape())?;
        Ok(dst)
    }
}

impl<L: Packing> View<'_, u64, L> {
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
        let mut dst = DynNarrowArray::<L>::zeroed_in(self.width(), self.len())
            .expect("a view's width is 1..=64");
        self.pack_into(L::WORD_ALIGNED, self.width(), dst.words_mut());
        dst.reshape(self.shape())
            .expect("the view's shape holds its elements");
        dst
    }
}
