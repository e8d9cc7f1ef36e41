//! DLPack export and import (feature `dlpack`): [`DlpackTensor`], the
//! `repr(C)` structs of `dlpack.h`, and the mapping of element types to
//! DLPack data types ([`DlpackElement`]).
//!
//! # Data types
//!
//! Each element type has one `(code, bits, lanes)`; import checks the
//! tensor's against the target type's. Shapes count **logical elements**, so
//! an FP4 tensor of odd extent is representable, and strides count elements
//! (the [`ShapeUnit::Values`] convention). Sub-byte types whose width divides
//! 8 also travel in the [`ShapeUnit::Bytes`] convention, PyTorch's: one
//! `8 / bits`-lane element per byte, with the shape and strides counted in
//! bytes (see [Conventions](#conventions)).
//!
//! | bitpack type | DLPack code | bits | lanes |
//! |---|---|---|---|
//! | `u8`, `u16`, `u32`, `u64`, `u128` | `kDLUInt` (1) | 8..128 | 1 |
//! | `i8`, `i16`, `i32`, `i64`, `i128` | `kDLInt` (0) | 8..128 | 1 |
//! | `arbitrary_int::u1`..`u127` | `kDLUInt` (1) | 1..127 | 1 |
//! | `arbitrary_int::i1`..`i127` (two's complement) | `kDLInt` (0) | 1..127 | 1 |
//! | `bool`, packed (`NarrowArray<bool>`) | `kDLUInt` (1) | 1 | 1 |
//! | `bool`, unpacked ([`DlpackTensor::from_bools_unpacked`]) | `kDLBool` (6) | 8 | 1 |
//! | `half::f16`, `f32`, `f64` | `kDLFloat` (2) | 16, 32, 64 | 1 |
//! | `half::bf16` | `kDLBfloat` (4) | 16 | 1 |
//! | [`E4M3`](crate::E4M3) | `kDLFloat8_e4m3fn` (10) | 8 | 1 |
//! | [`E5M2`](crate::E5M2) | `kDLFloat8_e5m2` (12) | 8 | 1 |
//! | [`E8M0`](crate::E8M0) | `kDLFloat8_e8m0fnu` (14) | 8 | 1 |
//! | [`E2M3`](crate::E2M3) | `kDLFloat6_e2m3fn` (15) | 6 | 1 |
//! | [`E3M2`](crate::E3M2) | `kDLFloat6_e3m2fn` (16) | 6 | 1 |
//! | [`E2M1`](crate::E2M1) | `kDLFloat4_e2m1fn` (17) | 4 | 1 |
//! | [`E4M3Ieee`](crate::formats::E4M3Ieee) | `kDLFloat8_e4m3` (8) | 8 | 1 |
//! | [`E3M4`](crate::formats::E3M4) | `kDLFloat8_e3m4` (7) | 8 | 1 |
//! | [`E4M3Fnuz`](crate::formats::E4M3Fnuz) | `kDLFloat8_e4m3fnuz` (11) | 8 | 1 |
//! | [`E5M2Fnuz`](crate::formats::E5M2Fnuz) | `kDLFloat8_e5m2fnuz` (13) | 8 | 1 |
//! | [`E4M3B11Fnuz`](crate::formats::E4M3B11Fnuz) | `kDLFloat8_e4m3b11fnuz` (9) | 8 | 1 |
//! | a packed record (`#[bitpack(record)]`, see [`Record`](crate::Record)) | `kDLUInt` (1) | its `BITS`, 1..128 | 1 |
//!
//! A record exports as its carrier bits: each element is the record's
//! `BITS`-bit `raw_bits` (field 0 in the low bits), packed as the array
//! holds them; the derive gives it this data type. A consumer that knows
//! the layout unpacks the fields itself (`Record::FIELDS` has each field's
//! offset and width), or takes one column at a time
//! (`NarrowArray::field`), which exports as the field's own type.
//!
//! A packed `NarrowArray<bool>` exports as `kDLUInt` with 1 bit: DLPack
//! does not describe a 1-bit `kDLBool`, and PyTorch and NumPy accept
//! `kDLBool` only with 8 bits, which is one value per byte. For those
//! consumers, [`DlpackTensor::from_bools_unpacked`] copies the bools out one
//! per byte. A `bool` import accepts `kDLUInt`/1, `kDLBool`/1 (packed) and
//! `kDLBool`/8 (one byte per value, each 0 or 1, repacked by
//! [`to_narrow_array`](DlpackTensor::to_narrow_array)).
//!
//! The table is [`DTYPES`]; a new format adds one row to the macro that
//! makes it and the trait impls.
//!
//! # Conventions
//!
//! | convention | `dtype` of E2M1 | shape of 6 values | who reads and writes it |
//! |---|---|---|---|
//! | [`ShapeUnit::Values`] (default export) | `(17, 4, 1)` | `[6]` | DLPack's sub-byte rule; bitpack; JAX/XLA |
//! | [`ShapeUnit::Bytes`] ([`DlpackTensor::from_narrow_array_with`]) | `(17, 4, 2)` | `[3]` | PyTorch (`torch.float4_e2m1fn_x2`, both ways) |
//! | padded ([`DlpackTensor::from_narrow_array_padded`]) | `(17, 4, 1)` + `IS_SUBBYTE_TYPE_PADDED` | `[6]` | one value per byte: ml_dtypes' `float4_e2m1fn` storage |
//! | bytes as `u8` ([`DlpackTensor::from_narrow_array_padded`] of the raw codes, or a `u8` reinterpret) | `(1, 8, 1)` | `[6]` or `[3]` | NumPy, whose `from_dlpack` knows no float codes below 16 bits: view the result as an ml_dtypes dtype |
//!
//! Import takes every one of them: a tensor with `lanes > 1` is read as
//! `lanes` values per element when `bits * lanes` is a multiple of 8 and the
//! last dimension is contiguous, so torch's `(17, 4, 2)` tensor of shape
//! `[m, k / 2]` imports as `k` E2M1 values per row, shape `[m, k]`.
//! Wider vector types (`float32x4`) are refused.
//!
//! # Layouts
//!
//! - **Packed** (flags without `IS_SUBBYTE_TYPE_PADDED`): element `i` of the
//!   flat row-major order is at bit `i * bits` of the byte stream, LSB-first:
//!   exactly the bytes of a [`NarrowArray`].
//! - **Padded** (`IS_SUBBYTE_TYPE_PADDED`, sub-byte types only): one value
//!   per byte, in its low bits, the storage of ml_dtypes' `float4_e2m1fn` and
//!   of PTX's FP6 conversions. Import checks that the bits above the width
//!   are zero ([`Error::PaddedValue`]) and repacks
//!   ([`to_narrow_array`](DlpackTensor::to_narrow_array)) or reads in place
//!   ([`padded_values`](DlpackTensor::padded_values));
//!   [`DlpackTensor::from_narrow_array_padded`] exports it.
//!
//! Strides are always present on export (DLPack 1.2). A packed type whose
//! elements do not fill bytes needs its last dimension contiguous and every
//! row and the first element on a byte boundary; DLPack has no bit offset,
//! so a view like `f4[1:5]` is an [`Error::DlpackLayout`] (copy it first with
//! [`View::to_narrow_array`](crate::View::to_narrow_array)).
//!
//! # Hostile input
//!
//! Import is bounded by what a tensor **stores**, never by its logical size:
//!
//! - every field is validated before anything is read, and every byte
//!   count is computed from the validated `dtype.bits`, which must equal the
//!   target type's `BITS` ([`DlpackElement`] cannot lie about it);
//! - a copy ([`to_narrow_array`](DlpackTensor::to_narrow_array)) may be at
//!   most the larger of the bytes the tensor reaches and
//!   [`COPY_LIMIT_FLOOR`] (64 MiB); beyond that it is [`Error::SizeLimit`]
//!   before anything is allocated, so `numpy.broadcast_to(x, (2**40,))`
//!   fails at once instead of asking for a TiB;
//!   [`to_narrow_array_within`](DlpackTensor::to_narrow_array_within) sets
//!   another limit, and a refused allocation is [`Error::Alloc`];
//! - a check of one-value-per-byte data walks the stored bytes once: an axis
//!   of stride 0 is checked once, not once per repeat, and a self-overlapping
//!   layout (`as_strided` windows) whose walk would exceed the same limit
//!   is [`Error::SizeLimit`];
//! - every index is computed in `i128`, so no stride (up to `i64::MAX`, on
//!   an axis of extent 1 or not) can overflow it.
//!
//! DLPack does not promise zero bits after the last value of a packed
//! sub-byte tensor, so [`to_narrow_array`](DlpackTensor::to_narrow_array)
//! clears them (the copy is a valid array whatever the producer left
//! there), while the in-place borrows
//! [`as_narrow_ref`](DlpackTensor::as_narrow_ref) and
//! [`as_narrow_mut`](DlpackTensor::as_narrow_mut), which cannot change the
//! producer's bytes, refuse them with [`Error::NonZeroPadding`].
//!
//! # Import
//!
//! [`DlpackTensor::from_raw`] validates every field before anything is
//! read: the version (a different major version calls the deleter and reads
//! nothing else), flags, device (host memory only), `ndim`, dtype, each
//! extent, the strides, `byte_offset`, null data with a non-zero size, and
//! the size arithmetic. Then [`as_narrow_ref`](DlpackTensor::as_narrow_ref)
//! borrows a compact packed tensor in place, and
//! [`to_narrow_array`](DlpackTensor::to_narrow_array) copies any tensor it
//! can read (strided, padded) into a `NarrowArray`.
//!
//! # Examples
//!
//! ```
//! use bitpack::dlpack::{DlpackTensor, code};
//! use bitpack::E2M1;
//! use bitpack::formats::{Mode, encode};
//!
//! let mut a = encode::<E2M1>(&[1.0, -2.0, 6.0, 0.5, 3.0, 0.0], Mode::Nearest);
//! a.reshape(&[2, 3])?;
//! let t = DlpackTensor::from_narrow_array(a); // no copy
//! let dl = &t.as_raw().dl_tensor;
//! assert_eq!((dl.dtype.code, dl.dtype.bits, dl.dtype.lanes), (code::FLOAT4_E2M1FN, 4, 1));
//! assert_eq!(t.shape(), [2, 3]);
//! assert_eq!(t.strides(), [3, 1]);
//!
//! // A consumer takes the pointer; `from_raw` validates it and takes it back.
//! let raw = t.into_raw();
//! // SAFETY: `raw` came from `into_raw` and is passed on once.
//! let back = unsafe { DlpackTensor::from_raw(raw) }?;
//! assert_eq!(back.as_narrow_ref::<E2M1>()?.decode(), [1.0, -2.0, 6.0, 0.5, 3.0, 0.0]);
//! # Ok::<(), bitpack::Error>(())
//! ```

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::ptr::NonNull;

mod dtype;
mod export;
mod ffi;
mod import;

pub use dtype::{DTYPES, DlpackElement};
pub use ffi::{
    DLDataType, DLDevice, DLManagedTensorVersioned, DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION,
    DLPackVersion, DLTensor, Deleter, code, device, flags,
};
pub use import::COPY_LIMIT_FLOOR;

use crate::{Error, NarrowArray, Result};

/// How the shape and strides of a sub-byte tensor count: see
/// [Conventions](self#conventions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ShapeUnit {
    /// One lane; shape and strides count values (DLPack's sub-byte rule, the
    /// default export).
    #[default]
    Values,
    /// `8 / bits` lanes per element, one element per byte; shape and strides
    /// count bytes (PyTorch's `float4_e2m1fn_x2`). Only for types whose width
    /// divides 8 (1, 2 and 4 bits).
    Bytes,
}

/// A validated DLPack tensor: an export of this crate, or a foreign tensor
/// taken over by [`from_raw`](Self::from_raw). Dropping it calls the
/// deleter.
///
/// `'a` is the lifetime of lent data: exports that own their data and
/// imports are `DlpackTensor<'static>`; [`from_view`](Self::from_view)
/// borrows the array it lends.
///
/// [`shape`](Self::shape) and [`strides`](Self::strides) count values
/// whatever the convention the tensor came in (a torch `float4_e2m1fn_x2`
/// tensor of shape `[2, 3]` has shape `[2, 6]` here).
///
/// See the [module docs](self) for the data types and layouts.
pub struct DlpackTensor<'a> {
    raw: NonNull<DLManagedTensorVersioned>,
    /// The extents, in values.
    shape: Vec<usize>,
    /// The strides, in values.
    strides: Vec<isize>,
    /// Bytes from `data` to the first element.
    offset: usize,
    /// The bytes the layout reaches, from the lowest to the highest (what
    /// the tensor stores, whatever its logical size).
    reach: usize,
    _lent: PhantomData<&'a [u8]>,
}

impl fmt::Debug for DlpackTensor<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DlpackTensor")
            .field("dtype", &self.dtype())
            .field("shape", &self.shape)
            .field("strides", &self.strides)
            .field("flags", &self.flags())
            .finish()
    }
}

impl Drop for DlpackTensor<'_> {
    fn drop(&mut self) {
        import::release(self.raw);
    }
}

/// `DlpackField` for `field` (at `axis`) with `value`.
fn field_err(field: &'static str, axis: Option<usize>, value: i128, rule: &'static str) -> Error {
    Error::DlpackField {
        field,
        axis,
        value,
        rule,
    }
}

/// The packed-layout rules for `bits`-bit elements: where `bits` does not
/// fill bytes, the last dimension is contiguous, and every other stride and
/// the offset land on bytes.
fn check_packed_layout(bits: u32, shape: &[usize], strides: &[isize], offset: i128) -> Result<()> {
    if bits.is_multiple_of(8) {
        return Ok(());
    }
    if let Some((last, rest)) = shape.split_last() {
        let axis = rest.len();
        if *last > 1 && strides[axis] != 1 {
            return Err(Error::DlpackLayout {
                axis: Some(axis),
                value: strides[axis] as i128,
                bits,
                rule: "the packed (last) dimension must be contiguous (stride 1)",
            });
        }
        for (axis, (&e, &s)) in rest.iter().zip(strides).enumerate() {
            if e > 1 && (s as i128 * bits as i128) % 8 != 0 {
                return Err(Error::DlpackLayout {
                    axis: Some(axis),
                    value: s as i128,
                    bits,
                    rule: "each step along it must be a whole number of bytes",
                });
            }
        }
    }
    let bit = offset * bits as i128;
    if bit % 8 != 0 {
        return Err(Error::DlpackLayout {
            axis: None,
            value: bit,
            bits,
            rule: "DLPack has no bit offset, so it must start on a byte boundary",
        });
    }
    Ok(())
}

/// Compact row-major strides of `shape`.
fn compact_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut s = 1usize;
    for (st, &e) in strides.iter_mut().zip(shape).rev() {
        *st = s as isize;
        s = s.saturating_mul(e.max(1));
    }
    strides
}

impl<'a> DlpackTensor<'a> {
    /// The managed tensor.
    ///
    /// # Examples
    ///
    /// ```
    /// let t = bitpack::dlpack::DlpackTensor::from_narrow_array(bitpack::NarrowArray::from_slice(&[1u8]));
    /// assert_eq!(t.as_raw().version.major, 1);
    /// ```
    pub fn as_raw(&self) -> &DLManagedTensorVersioned {
        // SAFETY: `raw` is live until `self` drops (validated or made here).
        unsafe { self.raw.as_ref() }
    }

    /// Hands the managed tensor to a consumer, which must call its deleter
    /// once. For a lent export ([`from_view`](Self::from_view)) the consumer
    /// must be done with the data before `'a` ends. Nothing is leaked: the
    /// managed tensor owns everything the consumer needs, and the wrapper's
    /// own copies of the shape and strides are freed here.
    ///
    /// # Examples
    ///
    /// ```
    /// let t = bitpack::dlpack::DlpackTensor::from_narrow_array(bitpack::NarrowArray::from_slice(&[1u8]));
    /// let raw = t.into_raw();
    /// // SAFETY: the deleter of a live export, called once.
    /// unsafe { ((*raw).deleter.unwrap())(raw) };
    /// ```
    pub fn into_raw(self) -> *mut DLManagedTensorVersioned {
        let mut this = core::mem::ManuallyDrop::new(self);
        // The wrapper's vectors are not the managed tensor's: free them (an
        // empty `Vec` owns no memory), and skip only the deleter.
        drop(core::mem::take(&mut this.shape));
        drop(core::mem::take(&mut this.strides));
        this.raw.as_ptr()
    }

    /// The data type, as the producer wrote it (`lanes` 2 for a torch
    /// `float4_e2m1fn_x2` tensor).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::dlpack::{DlpackElement, DlpackTensor};
    /// let t = DlpackTensor::from_narrow_array(bitpack::NarrowArray::from_slice(&[1.5f32]));
    /// assert_eq!(t.dtype(), f32::DTYPE);
    /// ```
    pub fn dtype(&self) -> DLDataType {
        self.as_raw().dl_tensor.dtype
    }

    /// The data type of one value: [`dtype`](Self::dtype) with one lane.
    fn value_dtype(&self) -> DLDataType {
        DLDataType {
            lanes: 1,
            ..self.dtype()
        }
    }

    /// The flags.
    ///
    /// # Examples
    ///
    /// ```
    /// let t = bitpack::dlpack::DlpackTensor::from_narrow_array(bitpack::NarrowArray::from_slice(&[1u8]));
    /// assert_eq!(t.flags(), 0);
    /// ```
    pub fn flags(&self) -> u64 {
        self.as_raw().flags
    }

    /// The shape, in values.
    ///
    /// # Examples
    ///
    /// ```
    /// let t = bitpack::dlpack::DlpackTensor::from_narrow_array(bitpack::NarrowArray::from_slice(&[true; 5]));
    /// assert_eq!(t.shape(), [5]);
    /// ```
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The strides, in values (compact row-major ones when the producer
    /// gave none, before DLPack 1.2).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::NarrowArray::from_slice(&[0u8; 6]);
    /// a.reshape(&[2, 3])?;
    /// assert_eq!(bitpack::dlpack::DlpackTensor::from_narrow_array(a).strides(), [3, 1]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }

    /// The number of values.
    ///
    /// # Examples
    ///
    /// ```
    /// let t = bitpack::dlpack::DlpackTensor::from_narrow_array(bitpack::NarrowArray::from_slice(&[1u8, 2]));
    /// assert_eq!(t.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        // Checked to fit by `from_raw` (or made from an array).
        self.shape.iter().product()
    }

    /// Whether the tensor has no values.
    ///
    /// # Examples
    ///
    /// ```
    /// let t = bitpack::dlpack::DlpackTensor::from_narrow_array(bitpack::NarrowArray::<u8>::new());
    /// assert!(t.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.shape.contains(&0)
    }

    /// The bytes the tensor's layout reaches, from its lowest to its highest
    /// byte: what it stores, however many values its shape repeats (1 for a
    /// byte broadcast to any shape).
    ///
    /// # Examples
    ///
    /// ```
    /// let t = bitpack::dlpack::DlpackTensor::from_narrow_array(bitpack::NarrowArray::from_slice(&[true; 9]));
    /// assert_eq!(t.stored_bytes(), 2);
    /// ```
    pub fn stored_bytes(&self) -> usize {
        self.reach
    }

    /// Whether the strides are the compact row-major ones (extents of 1
    /// may have any stride, and an empty tensor is compact).
    ///
    /// # Examples
    ///
    /// ```
    /// let t = bitpack::dlpack::DlpackTensor::from_narrow_array(bitpack::NarrowArray::from_slice(&[1u8, 2]));
    /// assert!(t.is_compact());
    /// ```
    pub fn is_compact(&self) -> bool {
        self.first_non_compact_axis().is_none()
    }

    /// The innermost axis whose stride breaks the compact row-major order,
    /// with its stride.
    fn first_non_compact_axis(&self) -> Option<(usize, isize)> {
        if self.is_empty() {
            return None;
        }
        let mut expect = 1usize;
        for (axis, (&e, &s)) in self.shape.iter().zip(&self.strides).enumerate().rev() {
            if e > 1 && s != expect as isize {
                return Some((axis, s));
            }
            expect = expect.saturating_mul(e);
        }
        None
    }

    /// Whether the producer forbids writes.
    fn read_only(&self) -> bool {
        self.flags() & flags::READ_ONLY != 0
    }

    /// Whether the data is one sub-byte value per byte.
    fn padded(&self) -> bool {
        self.flags() & flags::IS_SUBBYTE_TYPE_PADDED != 0
    }

    /// The first element's address.
    fn base(&self) -> *mut u8 {
        self.as_raw()
            .dl_tensor
            .data
            .cast::<u8>()
            .wrapping_add(self.offset)
    }
}

impl<T: DlpackElement> NarrowArray<T> {
    /// Exports the array to DLPack without copying (see
    /// [`DlpackTensor::from_narrow_array`]).
    ///
    /// # Examples
    ///
    /// ```
    /// let t = bitpack::NarrowArray::from_slice(&[1u8, 2]).into_dlpack();
    /// assert_eq!(t.shape(), [2]);
    /// ```
    pub fn into_dlpack(self) -> DlpackTensor<'static> {
        DlpackTensor::from_narrow_array(self)
    }
}
