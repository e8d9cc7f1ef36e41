//! Iteration over the values of a [`NarrowArray`].

use core::fmt;
use core::iter::FusedIterator;

use super::{Dense, NarrowArray, Packing};
use crate::BitElement;

/// A borrowing iterator over the values of a [`NarrowArray`], in flat order.
///
/// Made by [`NarrowArray::iter`] and `IntoIterator` on `&NarrowArray`.
///
/// # Examples
///
/// ```
/// let a = bitpack::NarrowArray::from_slice(&[1u8, 2, 3]);
/// let mut it = a.iter();
/// assert_eq!(it.next_back(), Some(3));
/// assert_eq!(it.len(), 2);
/// assert_eq!(it.collect::<Vec<_>>(), [1, 2]);
/// ```
pub struct Iter<'a, T: BitElement, L: Packing = Dense> {
    array: &'a NarrowArray<T, L>,
    front: usize,
    back: usize,
}

impl<'a, T: BitElement, L: Packing> Iter<'a, T, L> {
    #[inline]
    pub(super) fn new(array: &'a NarrowArray<T, L>) -> Self {
        Self {
            array,
            front: 0,
            back: array.len,
        }
    }
}

impl<T: BitElement, L: Packing> Clone for Iter<'_, T, L> {
    #[inline]
    fn clone(&self) -> Self {
        Self {
            array: self.array,
            front: self.front,
            back: self.back,
        }
    }
}

impl<T: BitElement + fmt::Debug, L: Packing> fmt::Debug for Iter<'_, T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rest = Rest(self.array, self.front, self.back);
        f.debug_tuple("Iter").field(&rest).finish()
    }
}

/// The values `front..back` of an array, for `Debug`.
struct Rest<'a, T: BitElement, L: Packing>(&'a NarrowArray<T, L>, usize, usize);

impl<T: BitElement + fmt::Debug, L: Packing> fmt::Debug for Rest<'_, T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries((self.1..self.2).map(|i| self.0.value(i)))
            .finish()
    }
}

impl<T: BitElement, L: Packing> Iterator for Iter<'_, T, L> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.front < self.back {
            let v = self.array.value(self.front);
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

impl<T: BitElement, L: Packing> DoubleEndedIterator for Iter<'_, T, L> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        if self.front < self.back {
            self.back -= 1;
            Some(self.array.value(self.back))
        } else {
            None
        }
    }
}

impl<T: BitElement, L: Packing> ExactSizeIterator for Iter<'_, T, L> {}

impl<T: BitElement, L: Packing> FusedIterator for Iter<'_, T, L> {}

/// An owning iterator over the values of a [`NarrowArray`], in flat order.
///
/// Made by `IntoIterator` on `NarrowArray`.
///
/// # Examples
///
/// ```
/// let a = bitpack::NarrowArray::from_slice(&[true, false]);
/// let v: Vec<bool> = a.into_iter().rev().collect();
/// assert_eq!(v, [false, true]);
/// ```
pub struct IntoIter<T: BitElement, L: Packing = Dense> {
    array: NarrowArray<T, L>,
    front: usize,
    back: usize,
}

impl<T: BitElement, L: Packing> Clone for IntoIter<T, L> {
    #[inline]
    fn clone(&self) -> Self {
        Self {
            array: self.array.clone(),
            front: self.front,
            back: self.back,
        }
    }
}

impl<T: BitElement + fmt::Debug, L: Packing> fmt::Debug for IntoIter<T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rest = Rest(&self.array, self.front, self.back);
        f.debug_tuple("IntoIter").field(&rest).finish()
    }
}

impl<T: BitElement, L: Packing> Iterator for IntoIter<T, L> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.front < self.back {
            let v = self.array.value(self.front);
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

impl<T: BitElement, L: Packing> DoubleEndedIterator for IntoIter<T, L> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        if self.front < self.back {
            self.back -= 1;
            Some(self.array.value(self.back))
        } else {
            None
        }
    }
}

impl<T: BitElement, L: Packing> ExactSizeIterator for IntoIter<T, L> {}

impl<T: BitElement, L: Packing> FusedIterator for IntoIter<T, L> {}

impl<T: BitElement, L: Packing> IntoIterator for NarrowArray<T, L> {
    type Item = T;
    type IntoIter = IntoIter<T, L>;

    #[inline]
    fn into_iter(self) -> IntoIter<T, L> {
        let back = self.len;
        IntoIter {
            array: self,
            front: 0,
            back,
        }
    }
}

impl<'a, T: BitElement, L: Packing> IntoIterator for &'a NarrowArray<T, L> {
    type Item = T;
    type IntoIter = Iter<'a, T, L>;

    #[inline]
    fn into_iter(self) -> Iter<'a, T, L> {
        Iter::new(self)
    }
}
