//! The trait implementations of [`DynNarrowArray`]: the move from a typed
//! array, `Clone`, `Debug`, and the value equality and hash.

use alloc::vec::Vec;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::marker::PhantomData;

use super::DynNarrowArray;
use crate::narrow::{NarrowArray, Packing};
use crate::reduce::UnsignedElement;

/// Moves the words of a typed array of unsigned elements into a run-time
/// width array of the same width (no copy: the layouts are the same bits).
///
/// ```
/// use arbitrary_int::u5;
/// use bitpack::{DynNarrowArray, NarrowArray};
///
/// let a = NarrowArray::from_slice(&[u5::new(3), u5::new(30)]);
/// let d = DynNarrowArray::from(a);
/// assert_eq!(d.width(), 5);
/// assert_eq!(d.to_vec(), [3, 30]);
/// ```
impl<T: UnsignedElement, L: Packing> From<NarrowArray<T, L>> for DynNarrowArray<L> {
    fn from(array: NarrowArray<T, L>) -> Self {
        const { crate::reduce::assert_summable::<T>() };
        let width = T::BITS;
        let len = array.len();
        let dims = (array.ndim() != 1).then(|| array.shape().into());
        DynNarrowArray {
            words: array.into_words(),
            len,
            width,
            dims,
            _layout: PhantomData,
        }
    }
}

impl<L: Packing> Clone for DynNarrowArray<L> {
    fn clone(&self) -> Self {
        DynNarrowArray {
            words: self.words.clone(),
            len: self.len,
            width: self.width,
            dims: self.dims.clone(),
            _layout: PhantomData,
        }
    }
}

/// The width, the shape and the values.
///
/// ```
/// let a = bitpack::DynNarrowArray::from_values(&[1, 2]);
/// assert_eq!(format!("{a:?}"), "DynNarrowArray { width: 2, shape: [2], values: [1, 2] }");
/// ```
impl<L: Packing> fmt::Debug for DynNarrowArray<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynNarrowArray")
            .field("width", &self.width)
            .field("shape", &self.shape())
            .field("values", &self.iter().collect::<Vec<_>>())
            .finish()
    }
}

/// Equal when the shapes and the values are equal, whatever the widths and
/// layouts.
///
/// ```
/// use bitpack::{DynNarrowArray, WordAligned};
///
/// let a = DynNarrowArray::from_slice(3, &[1, 2])?;
/// let b = DynNarrowArray::<WordAligned>::from_slice_in(9, &[1, 2])?;
/// assert_eq!(a, b);
/// # Ok::<(), bitpack::Error>(())
/// ```
impl<L: Packing, L2: Packing> PartialEq<DynNarrowArray<L2>> for DynNarrowArray<L> {
    fn eq(&self, other: &DynNarrowArray<L2>) -> bool {
        self.shape() == other.shape() && self.iter().eq(other.iter())
    }
}

impl<L: Packing> Eq for DynNarrowArray<L> {}

/// Hashes the shape and the values, consistently with `Eq`.
impl<L: Packing> Hash for DynNarrowArray<L> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.shape().hash(state);
        for v in self.iter() {
            v.hash(state);
        }
    }
}
