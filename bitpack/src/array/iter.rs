//! Iteration over the values of an [`NArray`].

use core::fmt;
use core::iter::FusedIterator;

use super::NArray;
use crate::{BitElement, Storage};

/// An iterator over the values of an [`NArray`], lane 0 first. It holds a
/// copy of the array (which is `Copy`), so it borrows nothing.
///
/// Made by [`NArray::iter`] and by `IntoIterator` on `NArray` and `&NArray`.
///
/// # Examples
///
/// ```
/// use bitpack::NArray;
///
/// let a = NArray::<bool, 4>::from_raw_bits(0b0110);
/// let mut it = a.into_iter();
/// assert_eq!(it.len(), 4);
/// assert_eq!(it.next(), Some(false));
/// assert_eq!(it.next_back(), Some(false));
/// assert_eq!(it.collect::<Vec<_>>(), [true, true]);
/// ```
pub struct IntoIter<T: BitElement, const N: usize, S: Storage> {
    array: NArray<T, N, S>,
    front: usize,
    back: usize,
}

impl<T: BitElement, const N: usize, S: Storage> IntoIter<T, N, S> {
    #[inline]
    pub(super) fn new(array: NArray<T, N, S>) -> Self {
        Self {
            array,
            front: 0,
            back: N,
        }
    }
}

impl<T: BitElement, const N: usize, S: Storage> Clone for IntoIter<T, N, S> {
    #[inline]
    fn clone(&self) -> Self {
        Self {
            array: self.array,
            front: self.front,
            back: self.back,
        }
    }
}

impl<T: BitElement + fmt::Debug, const N: usize, S: Storage> fmt::Debug for IntoIter<T, N, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("IntoIter")
            .field(&self.as_remaining())
            .finish()
    }
}

impl<T: BitElement, const N: usize, S: Storage> IntoIter<T, N, S> {
    /// The values not yet yielded, for `Debug`.
    fn as_remaining(&self) -> Remaining<'_, T, N, S> {
        Remaining(self)
    }
}

struct Remaining<'a, T: BitElement, const N: usize, S: Storage>(&'a IntoIter<T, N, S>);

impl<T: BitElement + fmt::Debug, const N: usize, S: Storage> fmt::Debug for Remaining<'_, T, N, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.clone()).finish()
    }
}

impl<T: BitElement, const N: usize, S: Storage> Iterator for IntoIter<T, N, S> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.front < self.back {
            let v = self.array.lane(self.front);
            self.front += 1;
            Some(v)
        } else {
            None
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }

    #[inline]
    fn nth(&mut self, n: usize) -> Option<T> {
        self.front = self.front.saturating_add(n).min(self.back);
        self.next()
    }
}

impl<T: BitElement, const N: usize, S: Storage> DoubleEndedIterator for IntoIter<T, N, S> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        if self.front < self.back {
            self.back -= 1;
            Some(self.array.lane(self.back))
        } else {
            None
        }
    }
}

impl<T: BitElement, const N: usize, S: Storage> ExactSizeIterator for IntoIter<T, N, S> {}

impl<T: BitElement, const N: usize, S: Storage> FusedIterator for IntoIter<T, N, S> {}

impl<T: BitElement, const N: usize, S: Storage> IntoIterator for NArray<T, N, S> {
    type Item = T;
    type IntoIter = IntoIter<T, N, S>;

    #[inline]
    fn into_iter(self) -> IntoIter<T, N, S> {
        IntoIter::new(self)
    }
}

impl<T: BitElement, const N: usize, S: Storage> IntoIterator for &NArray<T, N, S> {
    type Item = T;
    type IntoIter = IntoIter<T, N, S>;

    #[inline]
    fn into_iter(self) -> IntoIter<T, N, S> {
        IntoIter::new(*self)
    }
}
