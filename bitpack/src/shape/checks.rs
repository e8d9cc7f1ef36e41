//! The shape checks every packed array shares: of a new shape, of a
//! reinterpreted one and of a caller's buffer (the accessors themselves are
//! written once by `shape_accessors!`, in `view/accessors.rs`).

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
/// [`NarrowArray::reinterpret`](crate::NarrowArray::reinterpret)).
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
