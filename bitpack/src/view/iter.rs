//! [`ViewIter`]: the elements of a [`View`](super::View) in logical (row-major) order.

use core::fmt;
use core::marker::PhantomData;

use super::strided::{from_raw, raw_at};
use crate::BitElement;
use crate::shape::{Dense, Layout, MAX_DIMS, Packing, walk_step};

/// An iterator over the elements of a [`View`](super::View) in logical
/// (row-major) order.
///
/// Made by [`View::iter`](super::View::iter) and
/// [`ViewMut::iter`](super::ViewMut::iter); it owns a copy of the
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
    pub(super) fn new(words: &'a [u64], bits: u32, layout: Layout) -> Self {
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
        let l = &self.layout;
        let at = walk_step(
            &mut self.coords,
            l.shape(),
            l.strides(),
            &mut self.at,
            &mut self.remaining,
        )?;
        Some(from_raw(raw_at::<T, L>(self.words, self.bits, at as usize)))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T: BitElement, L: Packing> ExactSizeIterator for ViewIter<'_, T, L> {}

impl<T: BitElement, L: Packing> core::iter::FusedIterator for ViewIter<'_, T, L> {}
