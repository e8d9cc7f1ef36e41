//! Trait implementations of [`NarrowArray`].

use core::fmt;
use core::hash::{Hash, Hasher};

use super::NarrowArray;
use crate::BitElement;

impl<T: BitElement> Clone for NarrowArray<T> {
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
impl<T: BitElement> Default for NarrowArray<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Shows the values: a list for a 1-d array, and the shape with the flat
/// values otherwise.
///
/// ```
/// let mut a = bitpack::NarrowArray::from_slice(&[true, false]);
/// assert_eq!(format!("{a:?}"), "[true, false]");
/// a.reshape(&[1, 2])?;
/// assert_eq!(format!("{a:?}"), "NarrowArray { shape: [1, 2], values: [true, false] }");
/// # Ok::<(), bitpack::Error>(())
/// ```
impl<T: BitElement + fmt::Debug> fmt::Debug for NarrowArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Values<'a, T: BitElement>(&'a NarrowArray<T>);
        impl<T: BitElement + fmt::Debug> fmt::Debug for Values<'_, T> {
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

/// Equal when the shapes are equal and the values are equal, one by one.
///
/// ```
/// use bitpack::NarrowArray;
///
/// let a = NarrowArray::from_slice(&[1u8, 2]);
/// assert_eq!(a, NarrowArray::from_bytes(&[1, 2], 2)?);
/// let mut b = a.clone();
/// b.reshape(&[1, 2])?;
/// assert_ne!(a, b);
/// # Ok::<(), bitpack::Error>(())
/// ```
impl<T: BitElement + PartialEq> PartialEq for NarrowArray<T> {
    fn eq(&self, other: &Self) -> bool {
        self.shape() == other.shape() && self.iter().eq(other.iter())
    }
}

impl<T: BitElement + Eq> Eq for NarrowArray<T> {}

/// Hashes the shape and the values, consistently with `Eq`.
impl<T: BitElement + Hash> Hash for NarrowArray<T> {
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
impl<T: BitElement> FromIterator<T> for NarrowArray<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut out = Self::new();
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
impl<T: BitElement> Extend<T> for NarrowArray<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        const BATCH: usize = 64;
        let iter = iter.into_iter();
        self.reserve(iter.size_hint().0);
        let mut buf = [Self::zero_value(); BATCH];
        let mut n = 0;
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

impl<'a, T: BitElement> Extend<&'a T> for NarrowArray<T> {
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
impl<T: BitElement> From<NarrowArray<T>> for alloc::vec::Vec<T> {
    fn from(array: NarrowArray<T>) -> Self {
        array.to_vec()
    }
}
