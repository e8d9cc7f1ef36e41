//! Apache Arrow interop (feature `arrow`): boolean bitmaps and unsigned
//! integer arrays.
//!
//! Arrow's boolean data and validity bitmaps number bits LSB-first
//! (`is_valid[j] = bitmap[j / 8] & (1 << (j % 8))`), which is the byte
//! stream of a `NarrowArray<bool>`:
//!
//! - `NarrowArray<bool>` → [`BooleanBuffer`] / [`NullBuffer`] (`From`)
//!   hands the array's words to a [`Buffer`] without copying.
//! - [`BooleanBuffer`] → `NarrowArray<bool>` (`From`) takes the buffer's
//!   memory back without copying when the bitmap starts at bit 0 and the
//!   buffer is not shared (the bits past the last value are then cleared, as
//!   the bit model asks); otherwise it copies a 64-bit word at a time,
//!   shifting out the offset. `From<&BooleanBuffer>` always copies.
//! - Narrow unsigned integers unpack to [`PrimitiveArray`]s of `u8`..`u64`
//!   ([`to_primitive_array`](NarrowArray::to_primitive_array), e.g.
//!   `UInt8Array` for `arbitrary_int::u5`) and pack back from them
//!   ([`from_primitive_array`](NarrowArray::from_primitive_array)), with
//!   every value checked to fit and null slots refused.
//! - An array of packed records (`#[bitpack(record)]`) exports as a
//!   [`StructArray`] with one child per field that is not reserved
//!   ([`to_struct_array`](NarrowArray::to_struct_array)): each field's code
//!   (its raw bits, zero-extended) in the narrowest of `UInt8`..`UInt64`.
//!   A signed, enum or float field is its code, not its value: read it with
//!   the field type's `from_raw_bits`.
//!
//! # Examples
//!
//! ```
//! use arrow_array::{BooleanArray, UInt8Array};
//! use arrow_buffer::BooleanBuffer;
//! use arbitrary_int::u3;
//! use bitpack::NarrowArray;
//!
//! let flags = NarrowArray::from_slice(&[true, false, true, true]);
//! let words = flags.as_words().as_ptr();
//! let bits = BooleanBuffer::from(flags); // no copy
//! assert_eq!(bits.values().as_ptr(), words.cast());
//! let arr = BooleanArray::new(bits.slice(1, 3), None);
//! assert_eq!(arr.iter().collect::<Vec<_>>(), [Some(false), Some(true), Some(true)]);
//!
//! let back = NarrowArray::<bool>::from(arr.values()); // offset 1: copied
//! assert_eq!(back.to_vec(), [false, true, true]);
//!
//! let small: NarrowArray<u3> = (0..8).map(u3::new).collect();
//! let wide: UInt8Array = small.to_primitive_array()?;
//! assert_eq!(wide.values(), &[0, 1, 2, 3, 4, 5, 6, 7]);
//! assert_eq!(NarrowArray::<u3>::from_primitive_array(&wide)?, small);
//! # Ok::<(), bitpack::Error>(())
//! ```

use alloc::vec::Vec;

use alloc::sync::Arc;

use arrow_array::types::{ArrowPrimitiveType, UInt8Type, UInt16Type, UInt32Type, UInt64Type};
use arrow_array::{ArrayRef, PrimitiveArray, StructArray};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, ScalarBuffer};
use arrow_schema::{DataType, Fields};

use crate::narrow::bulk;
use crate::{BitElement, Error, NarrowArray, Record, Result, Unsigned};

impl From<NarrowArray<bool>> for BooleanBuffer {
    /// The array's words as an Arrow bitmap, without copying.
    fn from(array: NarrowArray<bool>) -> BooleanBuffer {
        let len = array.len();
        BooleanBuffer::new(Buffer::from_vec(array.into_words()), 0, len)
    }
}

impl From<NarrowArray<bool>> for NullBuffer {
    /// The array as a validity bitmap (`true`: valid), without copying.
    fn from(array: NarrowArray<bool>) -> NullBuffer {
        NullBuffer::new(BooleanBuffer::from(array))
    }
}

impl From<&BooleanBuffer> for NarrowArray<bool> {
    /// Copies the bits, a word at a time, whatever the offset.
    fn from(bits: &BooleanBuffer) -> NarrowArray<bool> {
        let len = bits.len();
        let chunks = bits.inner().bit_chunks(bits.offset(), len);
        let mut words = Vec::with_capacity(bulk::words_for_bits(len));
        words.extend(chunks.iter().map(crate::kernels::bits::store));
        if chunks.remainder_len() > 0 {
            words.push(crate::kernels::bits::store(chunks.remainder_bits()));
        }
        NarrowArray::from_parts(words, len, None)
    }
}

impl From<BooleanBuffer> for NarrowArray<bool> {
    /// Takes the buffer's memory without copying when the bitmap starts at
    /// bit 0 of an unshared buffer allocated as 64-bit words (as one made
    /// from a `NarrowArray` is); otherwise copies.
    fn from(bits: BooleanBuffer) -> NarrowArray<bool> {
        let (len, offset) = (bits.len(), bits.offset());
        if offset == 0 {
            let copy = NarrowArray::from(&bits);
            let buffer = bits.into_inner();
            match buffer.into_vec::<u64>() {
                Ok(mut words) if words.len() >= bulk::words_for_bits(len) => {
                    words.truncate(bulk::words_for_bits(len));
                    crate::kernels::bits::clear_from(&mut words, len);
                    return NarrowArray::from_parts(words, len, None);
                }
                _ => return copy,
            }
        }
        NarrowArray::from(&bits)
    }
}

impl From<NullBuffer> for NarrowArray<bool> {
    /// The validity bits (`true`: valid), as `From<BooleanBuffer>`.
    fn from(nulls: NullBuffer) -> NarrowArray<bool> {
        NarrowArray::from(nulls.into_inner())
    }
}

/// Arrow's unsigned integer types, which narrow unsigned elements unpack to.
pub trait ArrowUnsigned: ArrowPrimitiveType<Native: Unsigned> {}

impl ArrowUnsigned for UInt8Type {}
impl ArrowUnsigned for UInt16Type {}
impl ArrowUnsigned for UInt32Type {}
impl ArrowUnsigned for UInt64Type {}

impl<T: BitElement> NarrowArray<T> {
    /// Unpacks the values into an Arrow array of a wider unsigned type
    /// (`UInt8Array` for widths up to 8, and so on), zero-extended; the
    /// array has no nulls.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] when `T::BITS` is wider than the Arrow type.
    ///
    /// # Examples
    ///
    /// See the [module docs](self).
    pub fn to_primitive_array<P: ArrowUnsigned>(&self) -> Result<PrimitiveArray<P>> {
        let max = <P::Native as Unsigned>::BITS;
        if T::BITS > max {
            return Err(Error::Width {
                width: T::BITS,
                max,
            });
        }
        let values: Vec<P::Native> = self
            .iter()
            .map(|v| P::Native::from_u128_truncate(v.raw_bits().to_u128()))
            .collect();
        Ok(PrimitiveArray::new(ScalarBuffer::from(values), None))
    }

    /// Packs the values of an Arrow unsigned integer array, after checking
    /// that each fits in `T::BITS` bits and that there are no nulls.
    ///
    /// # Errors
    ///
    /// [`Error::ArrowNulls`] when the array has null slots,
    /// [`Error::ValueTooWide`] naming the first value that does not fit;
    /// nothing is built.
    ///
    /// # Examples
    ///
    /// ```
    /// use arrow_array::UInt16Array;
    /// use bitpack::{Error, NarrowArray};
    ///
    /// let a = UInt16Array::from(vec![1, 4095, 7]);
    /// let b = NarrowArray::<arbitrary_int::u12>::from_primitive_array(&a)?;
    /// assert_eq!(b.as_bytes().len(), 5);
    /// let err = NarrowArray::<arbitrary_int::u4>::from_primitive_array(&a).unwrap_err();
    /// assert_eq!(err, Error::ValueTooWide { value: 4095, bits: 4 });
    /// let nulls = UInt16Array::from(vec![Some(1), None]);
    /// assert!(NarrowArray::<u16>::from_primitive_array(&nulls).is_err());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_primitive_array<P: ArrowUnsigned>(array: &PrimitiveArray<P>) -> Result<Self> {
        use arrow_array::Array;
        if array.null_count() > 0 {
            return Err(Error::ArrowNulls {
                nulls: array.null_count(),
                len: array.len(),
            });
        }
        let values = array.values();
        if let Some(&v) = values
            .iter()
            .find(|v| T::BITS < 128 && v.to_u128() >> T::BITS != 0)
        {
            return Err(Error::ValueTooWide {
                value: v.to_u128(),
                bits: T::BITS,
            });
        }
        Ok(values
            .iter()
            .map(|v| T::from_raw_bits(T::Raw::from_u128_truncate(v.to_u128())))
            .collect())
    }
}

impl<R: Record> NarrowArray<R> {
    /// The records as an Arrow [`StructArray`]: one child per field that is
    /// not reserved, named after it, holding the field's code of every
    /// record in the narrowest of `UInt8Array`..`UInt64Array`; no nulls.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] for a field wider than 64 bits (Arrow has no wider
    /// unsigned type).
    ///
    /// # Examples
    ///
    /// ```
    /// use arrow_array::{Array, UInt8Array};
    /// use bitpack::arbitrary_int::{u3, u5};
    /// use bitpack::{BitElement, NarrowArray};
    ///
    /// #[derive(Clone, Copy, BitElement)]
    /// #[bitpack(record)]
    /// struct Entry {
    ///     tag: u3,
    ///     len: u5,
    /// }
    ///
    /// let a = NarrowArray::from_slice(&[
    ///     Entry { tag: u3::new(1), len: u5::new(20) },
    ///     Entry { tag: u3::new(6), len: u5::new(3) },
    /// ]);
    /// let s = a.to_struct_array()?;
    /// assert_eq!(s.column_names(), ["tag", "len"]);
    /// let len = s.column(1).as_any().downcast_ref::<UInt8Array>().unwrap();
    /// assert_eq!(len.values(), &[20, 3]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn to_struct_array(&self) -> Result<StructArray> {
        let fields: Vec<_> = R::FIELDS.iter().filter(|f| f.reserved.is_none()).collect();
        if let Some(f) = fields.iter().find(|f| f.bits > 64) {
            return Err(Error::Width {
                width: f.bits,
                max: 64,
            });
        }
        let raws: Vec<u128> = self.iter().map(|r| r.raw_bits().to_u128()).collect();
        let mut schema = Vec::with_capacity(fields.len());
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(fields.len());
        for f in fields {
            let codes = raws
                .iter()
                .map(|&r| (r >> f.offset) & crate::unsigned::mask_u128(f.bits));
            fn column<P: ArrowUnsigned>(codes: impl Iterator<Item = u128>) -> ArrayRef {
                let values: Vec<P::Native> = codes.map(P::Native::from_u128_truncate).collect();
                Arc::new(PrimitiveArray::<P>::new(ScalarBuffer::from(values), None))
            }
            let (array, ty) = match f.bits {
                0..=8 => (column::<UInt8Type>(codes), DataType::UInt8),
                9..=16 => (column::<UInt16Type>(codes), DataType::UInt16),
                17..=32 => (column::<UInt32Type>(codes), DataType::UInt32),
                _ => (column::<UInt64Type>(codes), DataType::UInt64),
            };
            schema.push(arrow_schema::Field::new(f.name, ty, false));
            columns.push(array);
        }
        StructArray::try_new_with_length(Fields::from(schema), columns, None, self.len())
            .map_err(|_| Error::Invalid("the record columns do not make an Arrow struct array"))
    }
}
