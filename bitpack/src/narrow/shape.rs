//! The shape of a packed array, written once for every container and view:
//! the checks of a new shape, of a reinterpreted one and of a caller's
//! buffer, and [`shape_accessors!`], which writes the `len`, `is_empty`,
//! `shape`, `ndim` and `reshape` methods (and a view's `layout`, `strides`,
//! `offset`) of [`NarrowArray`](super::NarrowArray),
//! [`DynNarrowArray`](super::DynNarrowArray), [`NarrowRef`](super::NarrowRef),
//! [`NarrowMut`](super::NarrowMut), [`View`](crate::View),
//! [`ViewMut`](crate::ViewMut) and [`Layout`](crate::Layout).

use alloc::boxed::Box;

use crate::error::LengthOf;
use crate::{BitElement, Error, Result};

/// The shape of an array of `len` values given `shape`: `None` for 1-d,
/// else the extents.
///
/// # Errors
///
/// [`Error::TooManyDims`] above [`MAX_DIMS`](crate::MAX_DIMS) dimensions,
/// [`Error::Shape`] when the product of `shape` is not `len` (or overflows).
pub(crate) fn checked_shape(shape: &[usize], len: usize) -> Result<Option<Box<[usize]>>> {
    if shape.len() > crate::MAX_DIMS {
        return Err(Error::TooManyDims { ndim: shape.len() });
    }
    let elements = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if elements != Some(len) {
        return Err(Error::Shape { elements, len });
    }
    Ok((shape.len() != 1).then(|| shape.into()))
}

/// The length and shape of `len` values of `T` in `shape` (`dims` as an
/// array stores it) seen as values of `U`: the innermost dimension is
/// rescaled so that every row keeps its bits (the rule of
/// [`NarrowArray::reinterpret`](super::NarrowArray::reinterpret)).
///
/// # Errors
///
/// [`Error::Reinterpret`] when a row's bits are not a whole number of `U`
/// values, [`Error::Invalid`] for a 0-d array and a `U` of another width,
/// [`Error::Shape`] when the new row length overflows `usize`.
pub(crate) fn reinterpreted<T: BitElement, U: BitElement>(
    shape: &[usize],
    dims: &Option<Box<[usize]>>,
    len: usize,
) -> Result<(usize, Option<Box<[usize]>>)> {
    let Some((&inner, outer)) = shape.split_last() else {
        if T::BITS == U::BITS {
            return Ok((len, dims.clone()));
        }
        return Err(Error::Invalid(
            "cannot reinterpret a 0-d array as values of another width",
        ));
    };
    // In `u128`: an empty array may have rows longer than its bits.
    let row_bits = inner as u128 * u128::from(T::BITS);
    if !row_bits.is_multiple_of(u128::from(U::BITS)) {
        return Err(Error::Reinterpret {
            count: inner,
            from_bits: T::BITS,
            to_bits: U::BITS,
        });
    }
    let Ok(new_inner) = usize::try_from(row_bits / u128::from(U::BITS)) else {
        return Err(Error::Shape {
            elements: None,
            len,
        });
    };
    // A nonempty array has every extent at least 1, so the row count is at
    // most `len` and the new length is its bits over `U::BITS`: both fit.
    let new_len = if len == 0 {
        0
    } else {
        outer.iter().product::<usize>() * new_inner
    };
    let new_dims = dims.as_ref().map(|_| {
        let mut d: Box<[usize]> = shape.into();
        d[outer.len()] = new_inner;
        d
    });
    Ok((new_len, new_dims))
}

/// [`Error::Length`] of `of` unless a caller's buffer of `actual` values has
/// the `expected` length.
#[inline]
pub(crate) fn check_len(of: LengthOf, expected: usize, actual: usize) -> Result<()> {
    if actual != expected {
        return Err(Error::Length {
            of,
            expected,
            actual,
        });
    }
    Ok(())
}

/// Writes shape accessors, each with the docs given before its name, in the
/// order given.
///
/// `shape_accessors! { fields: len; is_empty; shape; ndim; reshape;
/// set_flat_len; own_layout; }` reads the fields `len: usize` and `dims: Option<Box<[usize]>>`
/// (`None` is 1-d) of a packed array; `reshape` checks with
/// [`checked_shape`], and the private `set_flat_len` sets a new length and
/// makes the array 1-d (what `push`, `truncate` and the like do), and the
/// private `own_layout` is the contiguous [`Layout`](crate::Layout) of the
/// array's shape.
/// `shape_accessors! { layout: layout; shape; strides; offset; ndim; len;
/// is_empty; }` reads the field `layout: Layout` of a view, each method
/// returning what `Layout`'s method of the same name does.
macro_rules! shape_accessors {
    (@fields len $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        pub fn len(&self) -> usize {
            self.len
        }
    };
    (@fields is_empty $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }
    };
    (@fields shape $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        pub fn shape(&self) -> &[usize] {
            match &self.dims {
                Some(dims) => dims,
                None => ::core::slice::from_ref(&self.len),
            }
        }
    };
    (@fields ndim $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        pub fn ndim(&self) -> usize {
            self.shape().len()
        }
    };
    (@fields reshape $(#[$doc:meta])*) => {
        $(#[$doc])*
        pub fn reshape(&mut self, shape: &[usize]) -> $crate::Result<()> {
            self.dims = $crate::narrow::shape::checked_shape(shape, self.len)?;
            Ok(())
        }
    };
    (@fields set_flat_len $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        fn set_flat_len(&mut self, len: usize) {
            self.len = len;
            self.dims = None;
        }
    };
    (@fields own_layout $(#[$doc:meta])*) => {
        $(#[$doc])*
        fn own_layout(&self) -> $crate::Layout {
            $crate::Layout::contiguous(self.shape(), self.len)
                .expect("an array's shape is a valid layout")
        }
    };
    (@layout layout $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        pub fn layout(&self) -> &$crate::Layout {
            &self.layout
        }
    };
    (@layout $name:ident $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(&self) -> $crate::narrow::shape::shape_accessors!(@returns $name) {
            self.layout.$name()
        }
    };
    (@returns shape) => { &[usize] };
    (@returns strides) => { &[isize] };
    (@returns offset) => { isize };
    (@returns ndim) => { usize };
    (@returns len) => { usize };
    (@returns is_empty) => { bool };
    ($kind:ident: $($(#[$doc:meta])* $name:ident;)*) => {
        $($crate::narrow::shape::shape_accessors!(@$kind $name $(#[$doc])*);)*
    };
}

pub(crate) use shape_accessors;
