//! Iteration over the values of a [`NarrowArray`].

use core::fmt;
use core::iter::FusedIterator;

use super::NarrowArray;
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
pub struct Iter<'a, T: BitElement> {
    array: &'a NarrowArray<T>,
    front: usize,
    back: usize,
}

impl<'a, T: BitElement> Iter<'a, T> {
    #[inline]
    pub(super) fn new(array: &'a NarrowArray<T>) -> Self {
        Self {
            array,
            front: 0,
            back: array.len,
        }
    }
}

impl<T: BitElement> Clone for Iter<'_, T> {
    #[inline]
    fn clone(&self) -> Self {
        Self {
            array: self.array,
            front: self.front,
            back: self.back,
        }
    }
}

impl<T: BitElement + fmt::Debug> fmt::Debug for Iter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rest = Rest(self.array, self.front, self.back);
        f.debug_tuple("Iter").field(&rest).finish()
    }
}

/// The values `front..back` of an array, for `Debug`.
struct Rest<'a, T: BitElement>(&'a NarrowArray<T>, usize, usize);

impl<T: BitElement + fmt::Debug> fmt::Debug for Rest<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries((self.1..self.2).map(|i| self.0.value(i)))
            .finish()
    }
}

impl<T: BitElement> Iterator for Iter<'_, T> {
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

impl<T: BitElement> DoubleEndedIterator for Iter<'_, T> {
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

impl<T: BitElement> ExactSizeIterator for Iter<'_, T> {}

impl<T: BitElement> FusedIterator for Iter<'_, T> {}

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
pub struct IntoIter<T: BitElement> {
    array: NarrowArray<T>,
    front: usize,
    back: usize,
}

impl<T: BitElement> Clone for IntoIter<T> {
    #[inline]
    fn clone(&self) -> Self {
        Self {
            array: self.array.clone(),
            front: self.front,
            back: self.back,
        }
    }
}

impl<T: BitElement + fmt::Debug> fmt::Debug for IntoIter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rest = Rest(&self.array, self.front, self.back);
        f.debug_tuple("IntoIter").field(&rest).finish()
    }
}

impl<T: BitElement> Iterator for IntoIter<T> {
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

impl<T: BitElement> DoubleEndedIterator for IntoIter<T> {
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

impl<T: BitElement> ExactSizeIterator for IntoIter<T> {}

impl<T: BitElement> FusedIterator for IntoIter<T> {}

impl<T: BitElement> IntoIterator for NarrowArray<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;

    #[inline]
    fn into_iter(self) -> IntoIter<T> {
        let back = self.len;
        IntoIter {
            array: self,
            front: 0,
            back,
        }
    }
}

impl<'a, T: BitElement> IntoIterator for &'a NarrowArray<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;

    #[inline]
    fn into_iter(self) -> Iter<'a, T> {
        Iter::new(self)
    }
}
