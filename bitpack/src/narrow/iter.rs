//! Iteration over the values of a [`NarrowArray`].

use super::{Dense, NarrowArray, Packing};
use crate::BitElement;
use crate::array::{IndexIter, Indexable, index_iter_impls};

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
pub struct Iter<'a, T: BitElement, L: Packing = Dense>(IndexIter<&'a NarrowArray<T, L>>);

impl<'a, T: BitElement, L: Packing> Iter<'a, T, L> {
    #[inline]
    pub(super) fn new(array: &'a NarrowArray<T, L>) -> Self {
        Self(IndexIter::new(array))
    }
}

index_iter_impls!("Iter", impl['a, T: BitElement, L: Packing] Iter<'a, T, L> => T);

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
pub struct IntoIter<T: BitElement, L: Packing = Dense>(IndexIter<NarrowArray<T, L>>);

impl<T: BitElement, L: Packing> Indexable for NarrowArray<T, L> {
    type Item = T;

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn get(&self, i: usize) -> T {
        self.value(i)
    }
}

index_iter_impls!("IntoIter", impl[T: BitElement, L: Packing] IntoIter<T, L> => T);

impl<T: BitElement, L: Packing> IntoIterator for NarrowArray<T, L> {
    type Item = T;
    type IntoIter = IntoIter<T, L>;

    #[inline]
    fn into_iter(self) -> IntoIter<T, L> {
        IntoIter(IndexIter::new(self))
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
