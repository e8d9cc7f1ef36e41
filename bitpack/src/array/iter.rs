//! Iteration over the values of an [`NArray`].

use core::fmt;

use super::NArray;
use crate::{BitElement, Storage};

/// A sequence read by index: its length, and the value at an index below it.
///
/// The one source shape behind the arrays' index iterators ([`IntoIter`]
/// here, `narrow::Iter` and `narrow::IntoIter`): each supplies the reads,
/// [`IndexIter`] the iteration.
pub(crate) trait Indexable {
    /// The values read.
    type Item;

    /// The number of values.
    fn len(&self) -> usize;

    /// The value at `i`, for `i < self.len()` (the iterator never asks for
    /// another).
    fn get(&self, i: usize) -> Self::Item;
}

/// A borrowed source reads as the source itself.
impl<A: Indexable + ?Sized> Indexable for &A {
    type Item = A::Item;

    #[inline]
    fn len(&self) -> usize {
        A::len(self)
    }

    #[inline]
    fn get(&self, i: usize) -> A::Item {
        A::get(self, i)
    }
}

/// The values `front..back` of an [`Indexable`] source, taken from either end.
#[derive(Clone)]
pub(crate) struct IndexIter<A> {
    source: A,
    front: usize,
    back: usize,
}

impl<A: Indexable> IndexIter<A> {
    /// All the values of `source`.
    #[inline]
    pub(crate) fn new(source: A) -> Self {
        let back = source.len();
        Self {
            source,
            front: 0,
            back,
        }
    }

    /// `Debug` as `name([the values not yet yielded])`.
    pub(crate) fn fmt_named(&self, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result
    where
        A::Item: fmt::Debug,
    {
        f.debug_tuple(name).field(&Remaining(self)).finish()
    }
}

/// The values not yet yielded, for `Debug`.
struct Remaining<'a, A>(&'a IndexIter<A>);

impl<A: Indexable> fmt::Debug for Remaining<'_, A>
where
    A::Item: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let it = self.0;
        f.debug_list()
            .entries((it.front..it.back).map(|i| it.source.get(i)))
            .finish()
    }
}

impl<A: Indexable> Iterator for IndexIter<A> {
    type Item = A::Item;

    #[inline]
    fn next(&mut self) -> Option<A::Item> {
        if self.front < self.back {
            let v = self.source.get(self.front);
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
    fn nth(&mut self, n: usize) -> Option<A::Item> {
        self.front = self.front.saturating_add(n).min(self.back);
        self.next()
    }
}

impl<A: Indexable> DoubleEndedIterator for IndexIter<A> {
    #[inline]
    fn next_back(&mut self) -> Option<A::Item> {
        if self.front < self.back {
            self.back -= 1;
            Some(self.source.get(self.back))
        } else {
            None
        }
    }
}

/// The impls of a public iterator that wraps an [`IndexIter`] as its one
/// field: `Clone`, `Debug` (named `$name`), `Iterator` (`next`, `size_hint`,
/// `nth`), `DoubleEndedIterator`, `ExactSizeIterator`, `FusedIterator`.
macro_rules! index_iter_impls {
    ($name:literal, impl[$($gen:tt)*] $ty:ty => $item:ty) => {
        impl<$($gen)*> Clone for $ty {
            #[inline]
            fn clone(&self) -> Self {
                Self(self.0.clone())
            }
        }

        impl<$($gen)*> core::fmt::Debug for $ty
        where
            $item: core::fmt::Debug,
        {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                self.0.fmt_named($name, f)
            }
        }

        impl<$($gen)*> Iterator for $ty {
            type Item = $item;

            #[inline]
            fn next(&mut self) -> Option<$item> {
                self.0.next()
            }

            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                self.0.size_hint()
            }

            #[inline]
            fn nth(&mut self, n: usize) -> Option<$item> {
                self.0.nth(n)
            }
        }

        impl<$($gen)*> DoubleEndedIterator for $ty {
            #[inline]
            fn next_back(&mut self) -> Option<$item> {
                self.0.next_back()
            }
        }

        impl<$($gen)*> ExactSizeIterator for $ty {}

        impl<$($gen)*> core::iter::FusedIterator for $ty {}
    };
}
#[cfg(feature = "alloc")]
pub(crate) use index_iter_impls;

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
pub struct IntoIter<T: BitElement, const N: usize, S: Storage>(IndexIter<NArray<T, N, S>>);

impl<T: BitElement, const N: usize, S: Storage> IntoIter<T, N, S> {
    #[inline]
    pub(super) fn new(array: NArray<T, N, S>) -> Self {
        Self(IndexIter::new(array))
    }
}

impl<T: BitElement, const N: usize, S: Storage> Indexable for NArray<T, N, S> {
    type Item = T;

    #[inline]
    fn len(&self) -> usize {
        N
    }

    #[inline]
    fn get(&self, i: usize) -> T {
        self.lane(i)
    }
}

index_iter_impls!("IntoIter", impl[T: BitElement, const N: usize, S: Storage] IntoIter<T, N, S> => T);

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
