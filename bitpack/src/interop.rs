//! Which bitpack type or view matches each packed-data convention of other
//! systems, and the conversions between them.
//!
//! Every bitpack container stores value bits LSB-first in index order
//! (element `i` at bits `[i * BITS, (i + 1) * BITS)` of the byte stream,
//! padding zero), so most conventions are the same bytes with another name
//! for the shape.
//!
//! | convention | layout | bitpack | conversion |
//! |---|---|---|---|
//! | DLPack packed (flags 0) | element `i` at bit `i * bits`, LSB-first; shape in logical elements | `NarrowArray<T>`, `NarrowRef<T>` | zero-copy both ways: `DlpackTensor::from_narrow_array`, `DlpackTensor::as_narrow_ref` (feature `dlpack`) |
//! | DLPack padded (`IS_SUBBYTE_TYPE_PADDED`) | one sub-byte value per byte, low bits | `NarrowArray<T>` after a repack | `DlpackTensor::to_narrow_array` / `padded_values` (high bits checked), `from_narrow_array_padded` |
//! | ml_dtypes `float4_e2m1fn`, `float6_*`, `int4`, ... | one value per byte (`itemsize` 1), code in the low bits | as DLPack padded | view the numpy array as `uint8`, import it padded; or `NarrowArray::from_slice(&codes.map(E2M1::from_bits))` |
//! | ml_dtypes `float8_*` | one byte per value | `NarrowArray<E4M3>` etc. (same bytes) | `NarrowArray::from_bytes` / `NarrowRef::from_bytes`, `as_bytes` |
//! | PyTorch `float4_e2m1fn_x2` | one byte holds 2 values, element `2j` in bits 3:0; **shape counts bytes (pairs)** | `NarrowArray<E2M1>` of even last extent, or its pairs `NarrowArray<NArray<E2M1, 2>>` | `a.reinterpret::<NArray<E2M1, 2>>()` (no copy) and back; shapes with [`pairs_shape`] / [`logical_shape`] |
//! | CUDA `__nv_fp4x2_e2m1` | low nibble is `.x`, the first value | `NArray<E2M1, 2>` (lane 0 low) | the same byte |
//! | CUTLASS `Array<subbyte T>` | element `i` at bit `(i mod per_word) * bits` of its word | `NarrowArray<T>` for widths dividing the word | the same bytes |
//! | ONNX `int4`/`uint4` | 2 per byte, element `2j` in the low nibble; shape in elements | `NarrowArray<u4>` (narrow signed integers: the same nibbles) | the same bytes |
//! | numpy `packbits(bitorder='little')` | bit `i` of the stream is element `i`; zero-padded | `NarrowArray<bool>` | `NarrowArray::<bool>::from_bytes(&packed, n)`, `as_bytes` |
//! | numpy `packbits()` (default `'big'`) | element 0 in the **MSB** of byte 0 | none directly | use `bitorder='little'` (or reverse the bits of each byte) |
//! | Arrow boolean data and validity bitmaps | LSB numbering, any bit offset | `NarrowArray<bool>` | `BooleanBuffer::from(array)` (no copy); `NarrowArray::from(bits)` (no copy at offset 0, else a word-wise copy) (feature `arrow`) |
//! | PTX `cvt.*x2` results | the second source operand in the low lane | `NArray<T, 2>` (lane 0 low) | pass element `2j` as the second operand |
//!
//! DLPack packed export of a view needs the packed (last) dimension
//! contiguous and the first element on a byte boundary: DLPack has no bit
//! offset, so `f4[1:5]` must be copied (`View::to_narrow_array`) before it
//! is exported.
//!
//! # Examples
//!
//! A PyTorch `float4_e2m1fn_x2` tensor of shape `[2, 3]` (bytes) is an
//! E2M1 array of shape `[2, 6]` (values):
//!
//! ```
//! use bitpack::interop::{logical_shape, pairs_shape};
//! use bitpack::{E2M1, NArray, NarrowArray};
//!
//! let torch_bytes = [0x21u8, 0x43, 0x65, 0x07, 0xa9, 0xcb];
//! let torch_shape = [2, 3];
//! let shape = logical_shape(&torch_shape)?;
//! assert_eq!(shape, [2, 6]);
//! let mut values = NarrowArray::<E2M1>::from_bytes(&torch_bytes, 12)?;
//! values.reshape(&shape)?;
//! assert_eq!(values.get(0).unwrap().to_bits(), 0x1); // element 0: the low nibble
//! assert_eq!(values.view().get(&[1, 0]).unwrap().to_f32(), 6.0); // byte 3, low nibble 0x7
//! assert_eq!(pairs_shape(values.shape())?, torch_shape);
//!
//! let pairs = values.reinterpret::<NArray<E2M1, 2>>()?; // no copy
//! assert_eq!(pairs.shape(), torch_shape);
//! assert_eq!(pairs.get(0).unwrap().get(1).unwrap().to_bits(), 0x2); // lane 1: the high nibble
//! # Ok::<(), bitpack::Error>(())
//! ```

use alloc::vec::Vec;

use crate::{Error, Result};

/// The shape in pairs (bytes) of an array of 4-bit values with shape
/// `shape` (elements): the last extent halved, as PyTorch's
/// `float4_e2m1fn_x2` counts it.
///
/// # Errors
///
/// [`Error::Reinterpret`] when the last extent is odd (a pair would span
/// two rows); [`Error::Invalid`] for a 0-d shape.
///
/// # Examples
///
/// ```
/// use bitpack::interop::pairs_shape;
///
/// assert_eq!(pairs_shape(&[4, 6])?, [4, 3]);
/// assert_eq!(
///     pairs_shape(&[4, 5]).unwrap_err().to_string(),
///     "cannot reinterpret 5 4-bit values as 8-bit values (20 bits is not a multiple of 8)"
/// );
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn pairs_shape(shape: &[usize]) -> Result<Vec<usize>> {
    let Some((&last, _)) = shape.split_last() else {
        return Err(Error::Invalid(
            "a 0-d shape has no packed dimension to pair",
        ));
    };
    if !last.is_multiple_of(2) {
        return Err(Error::Reinterpret {
            count: last,
            from_bits: 4,
            to_bits: 8,
        });
    }
    let mut out: Vec<usize> = shape.into();
    out[shape.len() - 1] = last / 2;
    Ok(out)
}

/// The shape in elements of a pairs-shaped (bytes) array of 4-bit values:
/// the last extent doubled.
///
/// # Errors
///
/// [`Error::Shape`] when the doubled extent overflows `usize`;
/// [`Error::Invalid`] for a 0-d shape.
///
/// # Examples
///
/// ```
/// assert_eq!(bitpack::interop::logical_shape(&[4, 3])?, [4, 6]);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn logical_shape(pairs: &[usize]) -> Result<Vec<usize>> {
    let Some((&last, _)) = pairs.split_last() else {
        return Err(Error::Invalid(
            "a 0-d shape has no packed dimension to unpair",
        ));
    };
    let doubled = last.checked_mul(2).ok_or(Error::Shape {
        elements: None,
        len: last,
    })?;
    let mut out: Vec<usize> = pairs.into();
    out[pairs.len() - 1] = doubled;
    Ok(out)
}
