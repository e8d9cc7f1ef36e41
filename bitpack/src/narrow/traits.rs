//! Trait implementations of [`NarrowArray`].

use core::fmt;
use core::hash::{Hash, Hasher};

use super::{Dense, NarrowArray, Packing, WordAligned};
use crate::BitElement;

impl<T: BitElement, L: Packing> Clone for NarrowArray<T, L> {
    fn clone(&self) -> Self {
        Self {
            words: self.words.clone(),
            len: self.len,
            dims: self.dims.clone(),
            _values: self._values,
        }
    }
}

/// An empty array.
///
/// ```
/// assert!(bitpack::NarrowArray::<bool>::default().is_empty());
/// ```
impl<T: BitElement, L: Packing> Default for NarrowArray<T, L> {
    fn default() -> Self {
        Self::new_in()
    }
}

/// Shows the values: a list for a 1-d array, and the shape with the flat
/// values otherwise (the same for both layouts).
///
/// ```
/// let mut a = bitpack::NarrowArray::from_slice(&[true, false]);
/// assert_eq!(format!("{a:?}"), "[true, false]");
/// a.reshape(&[1, 2])?;
/// assert_eq!(format!("{a:?}"), "NarrowArray { shape: [1, 2], values: [true, false] }");
/// # Ok::<(), bitpack::Error>(())
/// ```
impl<T: BitElement + fmt::Debug, L: Packing> fmt::Debug for NarrowArray<T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Values<'a, T: BitElement, L: Packing>(&'a NarrowArray<T, L>);
        impl<T: BitElement + fmt::Debug, L: Packing> fmt::Debug for Values<'_, T, L> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.0.iter()).finish()
            }
        }
        if self.dims.is_none() {
            Values(self).fmt(f)
        } else {
            f.debug_struct("NarrowArray")
                .field("shape", &self.shape())
                .field("values", &Values(self))
                .finish()
        }
    }
}

/// Equal when the shapes are equal and the values are equal, one by one,
/// whatever the two arrays' physical layouts.
///
/// ```
/// use bitpack::{NarrowArray, WordAligned};
///
/// let a = NarrowArray::from_slice(&[1u8, 2]);
/// assert_eq!(a, NarrowArray::from_bytes(&[1, 2], 2)?);
/// let mut b = a.clone();
/// b.reshape(&[1, 2])?;
/// assert_ne!(a, b);
/// assert_eq!(a, NarrowArray::<u8, WordAligned>::from_slice_in(&[1, 2]));
/// # Ok::<(), bitpack::Error>(())
/// ```
impl<T: BitElement + PartialEq, L: Packing, L2: Packing> PartialEq<NarrowArray<T, L2>>
    for NarrowArray<T, L>
{
    fn eq(&self, other: &NarrowArray<T, L2>) -> bool {
        self.shape() == other.shape() && self.iter().eq(other.iter())
    }
}

impl<T: BitElement + Eq, L: Packing> Eq for NarrowArray<T, L> {}

/// Hashes the shape and the values, consistently with `Eq` (so the same
/// for both layouts).
impl<T: BitElement + Hash, L: Packing> Hash for NarrowArray<T, L> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.shape().hash(state);
        for v in self {
            v.hash(state);
        }
    }
}

/// Packs the values of an iterator (a word at a time, through a small
/// buffer).
///
/// ```
/// let a: bitpack::NarrowArray<bool> = (0..10).map(|i| i % 3 == 0).collect();
/// assert_eq!(a.as_bytes(), [0b0100_1001, 0b10]);
/// ```
impl<T: BitElement, L: Packing> FromIterator<T> for NarrowArray<T, L> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut out = Self::new_in();
        out.extend(iter);
        out
    }
}

/// Appends the values of an iterator (the array becomes 1-d).
///
/// ```
/// let mut a = bitpack::NarrowArray::from_slice(&[1u8]);
/// a.extend([2u8, 3]);
/// a.extend(&[4u8]);
/// assert_eq!(a.to_vec(), [1, 2, 3, 4]);
/// ```
impl<T: BitElement, L: Packing> Extend<T> for NarrowArray<T, L> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        const BATCH: usize = 64;
        let mut iter = iter.into_iter();
        let mut buf = [Self::zero_value(); BATCH];
        let mut n = 0;
        // Reserve only once a value arrives, as `Vec::extend` does, and only
        // as a hint: a size hint may promise more than the iterator yields
        // (or more than can be allocated), so its failure is not an error.
        if let Some(first) = iter.next() {
            let _ = self.try_reserve(iter.size_hint().0.saturating_add(1));
            buf[0] = first;
            n = 1;
        }
        for v in iter {
            buf[n] = v;
            n += 1;
            if n == BATCH {
                self.extend_from_slice(&buf);
                n = 0;
            }
        }
        // Also for `n == 0`: the array becomes 1-d whatever was appended.
        self.extend_from_slice(&buf[..n]);
    }
}

impl<'a, T: BitElement, L: Packing> Extend<&'a T> for NarrowArray<T, L> {
    fn extend<I: IntoIterator<Item = &'a T>>(&mut self, iter: I) {
        self.extend(iter.into_iter().copied());
    }
}

/// Packs a slice; the same as [`NarrowArray::from_slice`].
///
/// ```
/// let a = bitpack::NarrowArray::from(&[true, true][..]);
/// assert_eq!(a.as_bytes(), [0b11]);
/// ```
impl<T: BitElement> From<&[T]> for NarrowArray<T> {
    fn from(values: &[T]) -> Self {
        Self::from_slice(values)
    }
}

/// Unpacks every value; the same as [`NarrowArray::to_vec`].
///
/// ```
/// let v: Vec<u8> = bitpack::NarrowArray::from_slice(&[7u8]).into();
/// assert_eq!(v, [7]);
/// ```
impl<T: BitElement, L: Packing> From<NarrowArray<T, L>> for alloc::vec::Vec<T> {
    fn from(array: NarrowArray<T, L>) -> Self {
        array.to_vec()
    }
}

/// Repacks a dense array word-aligned (the same as
/// [`to_layout`](NarrowArray::to_layout); no copy of the words where the
/// layouts are the same bits).
///
/// ```
/// use arbitrary_int::u5;
/// use bitpack::{NarrowArray, WordAligned};
///
/// let dense = NarrowArray::from_slice(&[u5::new(3); 20]);
/// let aligned = NarrowArray::<u5, WordAligned>::from(dense.clone());
/// assert_eq!(aligned, dense);
/// ```
impl<T: BitElement> From<NarrowArray<T, Dense>> for NarrowArray<T, WordAligned> {
    fn from(array: NarrowArray<T, Dense>) -> Self {
        array.into_layout()
    }
}

/// Repacks a word-aligned array densely (the same as
/// [`to_layout`](NarrowArray::to_layout)).
///
/// ```
/// use arbitrary_int::u7;
/// use bitpack::{NarrowArray, WordAligned};
///
/// let aligned = NarrowArray::<u7, WordAligned>::from_slice_in(&[u7::new(100); 10]);
/// let dense = NarrowArray::from(aligned);
/// assert_eq!(dense.as_bytes().len(), 9); // 70 bits
/// ```
impl<T: BitElement> From<NarrowArray<T, WordAligned>> for NarrowArray<T, Dense> {
    fn from(array: NarrowArray<T, WordAligned>) -> Self {
        array.into_layout()
    }
}
