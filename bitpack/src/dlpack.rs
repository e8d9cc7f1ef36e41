//! DLPack export and import (feature `dlpack`): [`DlpackTensor`], the
//! `repr(C)` structs of `dlpack.h`, and the mapping of element types to
//! DLPack data types ([`DlpackElement`]).
//!
//! # Data types
//!
//! Each element type has one `(code, bits, lanes)`; import checks the
//! tensor's against the target type's. Shapes count **logical elements**, so
//! an FP4 tensor of odd extent is representable, and strides count elements.
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
//! [`View::to_narrow_array`]).
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

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use core::ffi::c_void;
use core::fmt;
use core::marker::PhantomData;
use core::ptr::{self, NonNull};

use crate::{BitElement, Error, NarrowArray, NarrowMut, NarrowRef, Result, Unsigned, View};

/// The DLPack major version this crate reads and writes.
pub const DLPACK_MAJOR_VERSION: u32 = 1;
/// The DLPack minor version of the tensors this crate exports (the header
/// whose data type codes and strides rule it follows).
pub const DLPACK_MINOR_VERSION: u32 = 3;

/// Modules of documented constants of one type (the DLPack data type
/// codes): `pub mod name: type { NAME = value; ... }`.
macro_rules! const_modules {
    ($($(#[$m:meta])* pub mod $name:ident: $t:ty {
        $($(#[$d:meta])* $c:ident = $v:expr;)*
    })*) => {$(
        $(#[$m])*
        pub mod $name {
            $($(#[$d])* pub const $c: $t = $v;)*
        }
    )*};
}

const_modules! {
    /// `DLDataTypeCode` values (`DLDataType::code`).
    pub mod code: u8 {
        /// `kDLInt`: signed integers.
        INT = 0;
        /// `kDLUInt`: unsigned integers.
        UINT = 1;
        /// `kDLFloat`: IEEE floats.
        FLOAT = 2;
        /// `kDLOpaqueHandle`.
        OPAQUE_HANDLE = 3;
        /// `kDLBfloat`: bfloat16.
        BFLOAT = 4;
        /// `kDLComplex`.
        COMPLEX = 5;
        /// `kDLBool`.
        BOOL = 6;
        /// `kDLFloat8_e3m4`.
        FLOAT8_E3M4 = 7;
        /// `kDLFloat8_e4m3` (IEEE-like, with infinities).
        FLOAT8_E4M3 = 8;
        /// `kDLFloat8_e4m3b11fnuz`.
        FLOAT8_E4M3B11FNUZ = 9;
        /// `kDLFloat8_e4m3fn` (OCP E4M3, [`E4M3`](crate::E4M3)).
        FLOAT8_E4M3FN = 10;
        /// `kDLFloat8_e4m3fnuz`.
        FLOAT8_E4M3FNUZ = 11;
        /// `kDLFloat8_e5m2` ([`E5M2`](crate::E5M2)).
        FLOAT8_E5M2 = 12;
        /// `kDLFloat8_e5m2fnuz`.
        FLOAT8_E5M2FNUZ = 13;
        /// `kDLFloat8_e8m0fnu` ([`E8M0`](crate::E8M0)).
        FLOAT8_E8M0FNU = 14;
        /// `kDLFloat6_e2m3fn` ([`E2M3`](crate::E2M3)).
        FLOAT6_E2M3FN = 15;
        /// `kDLFloat6_e3m2fn` ([`E3M2`](crate::E3M2)).
        FLOAT6_E3M2FN = 16;
        /// `kDLFloat4_e2m1fn` ([`E2M1`](crate::E2M1)).
        FLOAT4_E2M1FN = 17;
    }
}

/// `DLDeviceType` values this crate names.
pub mod device {
    /// `kDLCPU`.
    pub const CPU: i32 = 1;
    /// `kDLCUDA`: device memory, not readable from the host.
    pub const CUDA: i32 = 2;
    /// `kDLCUDAHost`: pinned host memory.
    pub const CUDA_HOST: i32 = 3;
    /// `kDLROCMHost`: pinned host memory.
    pub const ROCM_HOST: i32 = 11;
    /// `kDLCUDAManaged`: unified memory, readable from the host.
    pub const CUDA_MANAGED: i32 = 13;
}

/// `DLManagedTensorVersioned::flags` bits.
pub mod flags {
    /// `DLPACK_FLAG_BITMASK_READ_ONLY`: the consumer must not write.
    pub const READ_ONLY: u64 = 1 << 0;
    /// `DLPACK_FLAG_BITMASK_IS_COPIED`: the producer made a copy.
    pub const IS_COPIED: u64 = 1 << 1;
    /// `DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED`: one sub-byte value per
    /// byte instead of packed.
    pub const IS_SUBBYTE_TYPE_PADDED: u64 = 1 << 2;
    /// Every flag this crate understands.
    pub const KNOWN: u64 = READ_ONLY | IS_COPIED | IS_SUBBYTE_TYPE_PADDED;
}

/// `DLDevice`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DLDevice {
    /// `DLDeviceType` (see [`device`]).
    pub device_type: i32,
    /// The device index.
    pub device_id: i32,
}

/// `DLDataType`: `(code, bits, lanes)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DLDataType {
    /// `DLDataTypeCode` (see [`code`]).
    pub code: u8,
    /// Bits per lane.
    pub bits: u8,
    /// Lanes per element (1 for scalars).
    pub lanes: u16,
}

impl DLDataType {
    /// A scalar data type (`lanes = 1`).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::dlpack::{DLDataType, DlpackElement, code};
    /// assert_eq!(bitpack::E2M1::DTYPE, DLDataType::scalar(code::FLOAT4_E2M1FN, 4));
    /// ```
    pub const fn scalar(code: u8, bits: u8) -> DLDataType {
        DLDataType {
            code,
            bits,
            lanes: 1,
        }
    }

    const fn triple(self) -> (u8, u8, u16) {
        (self.code, self.bits, self.lanes)
    }
}

/// `DLTensor`.
#[repr(C)]
#[derive(Debug)]
pub struct DLTensor {
    /// The data pointer (`void*`).
    pub data: *mut c_void,
    /// Where the data lives.
    pub device: DLDevice,
    /// The number of dimensions.
    pub ndim: i32,
    /// The element type.
    pub dtype: DLDataType,
    /// `ndim` extents, in elements.
    pub shape: *mut i64,
    /// `ndim` strides, in elements (NULL only before DLPack 1.2, or when
    /// `ndim == 0`).
    pub strides: *mut i64,
    /// Bytes from `data` to the first element.
    pub byte_offset: u64,
}

/// `DLPackVersion`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DLPackVersion {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

/// The deleter of a [`DLManagedTensorVersioned`].
pub type Deleter = unsafe extern "C" fn(*mut DLManagedTensorVersioned);

/// `DLManagedTensorVersioned`.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The producer's DLPack version.
    pub version: DLPackVersion,
    /// The producer's context, freed by the deleter.
    pub manager_ctx: *mut c_void,
    /// Frees `manager_ctx` and this struct; may be NULL.
    pub deleter: Option<Deleter>,
    /// [`flags`] bits.
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}

// The ABI of `dlpack.h` on LP64 targets, as offsets in the fact sheet.
#[cfg(target_pointer_width = "64")]
const _: () = {
    use core::mem::{offset_of, size_of};
    // `Type { field: offset, ... } size bytes;`
    macro_rules! assert_layout {
        ($($t:ty { $($field:ident: $off:literal),* } size $size:literal;)*) => {$(
            $(assert!(offset_of!($t, $field) == $off);)*
            assert!(size_of::<$t>() == $size);
        )*};
    }
    assert_layout! {
        DLDataType {} size 4;
        DLDevice {} size 8;
        DLTensor {
            data: 0, device: 8, ndim: 16, dtype: 20, shape: 24, strides: 32, byte_offset: 40
        } size 48;
        DLManagedTensorVersioned {
            version: 0, manager_ctx: 8, deleter: 16, flags: 24, dl_tensor: 32
        } size 80;
    }
};

/// An element type with a DLPack data type.
///
/// # Examples
///
/// ```
/// use bitpack::dlpack::{DlpackElement, code};
///
/// assert_eq!(<u16 as DlpackElement>::DTYPE.code, code::UINT);
/// assert_eq!(<arbitrary_int::u5 as DlpackElement>::DTYPE.bits, 5);
/// assert_eq!(<bitpack::E4M3 as DlpackElement>::DTYPE.code, code::FLOAT8_E4M3FN);
/// ```
pub trait DlpackElement: BitElement {
    /// The data type this element exports as.
    const DTYPE: DLDataType;

    /// Whether a packed tensor of `dtype` holds values of this type (the
    /// export type, and for `bool` also `kDLBool` with 1 bit).
    fn accepts(dtype: DLDataType) -> bool {
        dtype == Self::DTYPE
    }
}

macro_rules! dtypes {
    ($($(#[$m:meta])* $t:ty => $code:ident, $bits:literal, $name:literal;)*) => {
        $(
            $(#[$m])*
            impl DlpackElement for $t {
                const DTYPE: DLDataType = DLDataType::scalar(code::$code, $bits);
            }
        )*

        /// The element types with a DLPack data type, by name (narrow
        /// `arbitrary_int` integers, `kDLUInt` with their width, are left
        /// out): the table of the module docs, as data.
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::dlpack::DTYPES;
        /// let (name, dtype) = DTYPES.iter().find(|(n, _)| *n == "E2M1").unwrap();
        /// assert_eq!((*name, dtype.code, dtype.bits), ("E2M1", 17, 4));
        /// ```
        pub const DTYPES: &[(&str, DLDataType)] = &[
            $($(#[$m])* ($name, DLDataType::scalar(code::$code, $bits)),)*
        ];
    };
}

dtypes! {
    // The built-in types, by kind.
    u8 => UINT, 8, "u8"; u16 => UINT, 16, "u16"; u32 => UINT, 32, "u32"; u64 => UINT, 64, "u64";
        u128 => UINT, 128, "u128";
    i8 => INT, 8, "i8"; i16 => INT, 16, "i16"; i32 => INT, 32, "i32"; i64 => INT, 64, "i64";
        i128 => INT, 128, "i128";
    f32 => FLOAT, 32, "f32"; f64 => FLOAT, 64, "f64";
    #[cfg(feature = "half")]
    half::f16 => FLOAT, 16, "f16";
    #[cfg(feature = "half")]
    half::bf16 => BFLOAT, 16, "bf16";
    crate::E2M1 => FLOAT4_E2M1FN, 4, "E2M1";
    crate::E2M3 => FLOAT6_E2M3FN, 6, "E2M3";
    crate::E3M2 => FLOAT6_E3M2FN, 6, "E3M2";
    crate::E4M3 => FLOAT8_E4M3FN, 8, "E4M3";
    crate::E5M2 => FLOAT8_E5M2, 8, "E5M2";
    crate::E8M0 => FLOAT8_E8M0FNU, 8, "E8M0";
    crate::formats::E4M3Ieee => FLOAT8_E4M3, 8, "E4M3Ieee";
    crate::formats::E3M4 => FLOAT8_E3M4, 8, "E3M4";
    crate::formats::E4M3Fnuz => FLOAT8_E4M3FNUZ, 8, "E4M3Fnuz";
    crate::formats::E5M2Fnuz => FLOAT8_E5M2FNUZ, 8, "E5M2Fnuz";
    crate::formats::E4M3B11Fnuz => FLOAT8_E4M3B11FNUZ, 8, "E4M3B11Fnuz";
}

impl DlpackElement for bool {
    const DTYPE: DLDataType = DLDataType::scalar(code::UINT, 1);

    fn accepts(dtype: DLDataType) -> bool {
        dtype == Self::DTYPE || dtype == DLDataType::scalar(code::BOOL, 1)
    }
}

#[cfg(feature = "arbitrary-int")]
mod narrow_ints {
    use super::{DLDataType, DlpackElement, code};
    use arbitrary_int::{Int, UInt};

    // `u1`..`u127`: kDLUInt with their width; the two's-complement
    // `i1`..`i127`: kDLInt with their width.
    macro_rules! narrow_dtypes {
        ($($u:ty, $i:ty: $($bits:literal)*;)*) => {$($(
            impl DlpackElement for UInt<$u, $bits> {
                const DTYPE: DLDataType = DLDataType::scalar(code::UINT, $bits);
            }
            impl DlpackElement for Int<$i, $bits> {
                const DTYPE: DLDataType = DLDataType::scalar(code::INT, $bits);
            }
        )*)*};
    }

    crate::element::narrow_int_widths!(narrow_dtypes);
}

/// What an export owns.
enum Owner {
    /// A `NarrowArray`'s words.
    Words(#[allow(dead_code, reason = "kept alive for the consumer")] Vec<u64>),
    /// Bytes made for the export (unpacked values).
    Bytes(#[allow(dead_code, reason = "kept alive for the consumer")] Vec<u8>),
    /// Nothing: the data is lent.
    Lent,
}

/// The context of an export: the managed tensor first, so its address is the
/// context's.
#[repr(C)]
struct ExportCtx {
    managed: DLManagedTensorVersioned,
    shape: Box<[i64]>,
    strides: Box<[i64]>,
    _owner: Owner,
}

/// The deleter of this crate's exports.
///
/// # Safety
///
/// `p` is a pointer from [`DlpackTensor::into_raw`] of an export of this
/// crate, not deleted before.
unsafe extern "C" fn delete_export(p: *mut DLManagedTensorVersioned) {
    if p.is_null() {
        return;
    }
    // SAFETY:
    // - every export is a leaked `Box<ExportCtx>` whose first field (offset
    //   0, `repr(C)`) is the managed tensor, so `p` is that box's pointer;
    // - the caller passes it once (the deleter's contract in `dlpack.h`:
    //   "destructor ... called once").
    drop(unsafe { Box::from_raw(p.cast::<ExportCtx>()) });
}

/// The deleter of a foreign tensor, called at most once.
fn release(raw: NonNull<DLManagedTensorVersioned>) {
    // SAFETY: `raw` points to a live managed tensor (the caller of
    // `from_raw` promised it), and `deleter` is read before any other use.
    let deleter = unsafe { (*raw.as_ptr()).deleter };
    if let Some(d) = deleter {
        // SAFETY: the producer's deleter, called once with its own tensor,
        // as `dlpack.h` asks of the consumer.
        unsafe { d(raw.as_ptr()) };
    }
}

/// A validated DLPack tensor: an export of this crate, or a foreign tensor
/// taken over by [`from_raw`](Self::from_raw). Dropping it calls the
/// deleter.
///
/// `'a` is the lifetime of lent data: exports that own their data and
/// imports are `DlpackTensor<'static>`; [`from_view`](Self::from_view)
/// borrows the array it lends.
///
/// See the [module docs](self) for the data types and layouts.
pub struct DlpackTensor<'a> {
    raw: NonNull<DLManagedTensorVersioned>,
    shape: Vec<usize>,
    strides: Vec<isize>,
    /// Bytes from `data` to the first element.
    offset: usize,
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
        release(self.raw);
    }
}

/// The `i64` of a `usize` extent or stride (DLPack's type).
fn to_i64<N: TryInto<i64>>(n: N) -> i64 {
    n.try_into()
        .unwrap_or_else(|_| panic!("a DLPack extent or stride must fit in i64"))
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

impl DlpackTensor<'static> {
    /// Exports an array without copying: the tensor owns the array's words
    /// (freed by the deleter) and lets the consumer write (no `READ_ONLY`).
    /// The shape is the array's, in logical elements; the strides are the
    /// compact row-major ones.
    ///
    /// # Panics
    ///
    /// When an extent exceeds `i64::MAX`, DLPack's limit (only an empty
    /// array can have such a shape).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    /// use bitpack::dlpack::DlpackTensor;
    ///
    /// let a = NarrowArray::from_slice(&[1u16, 2, 3]);
    /// let data = a.as_bytes().as_ptr();
    /// let t = DlpackTensor::from_narrow_array(a);
    /// assert_eq!(t.as_raw().dl_tensor.data as *const u8, data); // the same memory
    /// assert_eq!(t.flags(), 0);
    /// ```
    pub fn from_narrow_array<T: DlpackElement>(array: NarrowArray<T>) -> Self {
        let shape: Vec<usize> = array.shape().into();
        let strides = compact_strides(&shape);
        let len = array.len();
        let words = array.into_words();
        let data = if len == 0 {
            ptr::null_mut()
        } else {
            words.as_ptr().cast_mut().cast()
        };
        Self::export(data, T::DTYPE, &shape, &strides, 0, 0, Owner::Words(words))
    }

    /// Exports an array of a sub-byte type one value per byte, in the low
    /// bits, with `IS_SUBBYTE_TYPE_PADDED` and `IS_COPIED` (the storage of
    /// ml_dtypes and of PTX's FP6 conversions). Types that fill bytes export
    /// as [`from_narrow_array`](Self::from_narrow_array) would, but copied.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::dlpack::{DlpackTensor, flags};
    /// use bitpack::{E2M1, NarrowArray};
    ///
    /// let a = NarrowArray::from_slice(&[E2M1::from_f32(1.0), E2M1::from_f32(-6.0)]);
    /// let t = DlpackTensor::from_narrow_array_padded(&a);
    /// assert_eq!(t.flags(), flags::IS_SUBBYTE_TYPE_PADDED | flags::IS_COPIED);
    /// assert_eq!(t.to_narrow_array::<E2M1>()?, a);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_narrow_array_padded<T: DlpackElement>(array: &NarrowArray<T>) -> Self {
        if T::BITS >= 8 {
            let mut copy = NarrowArray::<T>::from_bytes(array.as_bytes(), array.len())
                .expect("an array's bytes are a valid stream");
            copy.reshape(array.shape())
                .expect("the same number of values");
            let mut t = Self::from_narrow_array(copy);
            t.set_flags(flags::IS_COPIED);
            return t;
        }
        let bytes: Vec<u8> = array.iter().map(|v| v.raw_bits().to_u128() as u8).collect();
        Self::export_bytes(
            bytes,
            T::DTYPE,
            array.shape(),
            flags::IS_SUBBYTE_TYPE_PADDED,
        )
    }

    /// Exports bools one per byte (0 or 1) as `kDLBool` with 8 bits, the
    /// type NumPy and PyTorch import, with `IS_COPIED`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    /// use bitpack::dlpack::{DlpackTensor, code};
    ///
    /// let t = DlpackTensor::from_bools_unpacked(&NarrowArray::from_slice(&[true, false]));
    /// assert_eq!(t.dtype().code, code::BOOL);
    /// assert_eq!(t.dtype().bits, 8);
    /// assert_eq!(t.to_narrow_array::<bool>()?.to_vec(), [true, false]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_bools_unpacked(array: &NarrowArray<bool>) -> Self {
        let bytes: Vec<u8> = array.iter().map(u8::from).collect();
        Self::export_bytes(bytes, DLDataType::scalar(code::BOOL, 8), array.shape(), 0)
    }

    /// Takes over a DLPack tensor after validating every field; the tensor
    /// is released (its deleter called) when the returned value drops, and
    /// also when validation fails.
    ///
    /// Checked before anything else is read: a null pointer, the version
    /// (another major version: the deleter is called and nothing else is
    /// read). Then, before any data is read: unknown flag bits, the device
    /// (host memory: CPU, CUDA host, ROCm host, CUDA managed), `ndim`
    /// (0..=64), the dtype (`lanes` 1, `bits` non-zero, the padded flag only
    /// with fewer than 8 bits), a null `shape`, each extent (not negative),
    /// null strides (allowed, as compact, only before DLPack 1.2), a null
    /// `data` with a non-zero size, and the byte range the strides reach
    /// (negative strides may reach below `data`, as NumPy's do, but the
    /// range must lie inside the address space).
    ///
    /// # Errors
    ///
    /// [`Error::DlpackVersion`], [`Error::DlpackDevice`],
    /// [`Error::DlpackField`] (naming the field, the axis and the value),
    /// [`Error::TooManyDims`].
    ///
    /// # Safety
    ///
    /// `raw` is null, or points to a `DLManagedTensorVersioned` that the
    /// caller owns and hands over (it is not used again except through the
    /// result), laid out as `dlpack.h` says: when its major version is 1,
    /// `shape` and `strides` are null or point to `ndim` readable `i64`s, and
    /// the bytes the shape and strides describe from `data + byte_offset`
    /// are readable (and, unless `READ_ONLY`, writable) until the deleter is
    /// called.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    /// use bitpack::dlpack::DlpackTensor;
    ///
    /// let raw = DlpackTensor::from_narrow_array(NarrowArray::from_slice(&[7i32, 8])).into_raw();
    /// // SAFETY: an export of this crate, passed on once.
    /// let mut t = unsafe { DlpackTensor::from_raw(raw) }?;
    /// t.as_narrow_mut::<i32>()?.set(0, 9)?;
    /// assert_eq!(t.to_narrow_array::<i32>()?.to_vec(), [9, 8]);
    /// assert!(t.as_narrow_ref::<u32>().is_err()); // the dtype says i32
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub unsafe fn from_raw(raw: *mut DLManagedTensorVersioned) -> Result<Self> {
        let Some(raw) = NonNull::new(raw) else {
            return Err(field_err("tensor pointer", None, 0, "must not be NULL"));
        };
        // SAFETY: the caller hands over a valid managed tensor; the version
        // and deleter are the fields that stay stable across ABI versions.
        let version = unsafe { (*raw.as_ptr()).version };
        if version.major != DLPACK_MAJOR_VERSION {
            release(raw);
            return Err(Error::DlpackVersion {
                major: version.major,
                minor: version.minor,
            });
        }
        // SAFETY: major version 1, so the struct has the layout of
        // `DLManagedTensorVersioned` (the caller's promise).
        let m = unsafe { raw.as_ref() };
        match validate(m) {
            Ok((shape, strides, offset)) => Ok(DlpackTensor {
                raw,
                shape,
                strides,
                offset,
                _lent: PhantomData,
            }),
            Err(e) => {
                release(raw);
                Err(e)
            }
        }
    }
}

impl<'a> DlpackTensor<'a> {
    /// Exports a view of a dense array without copying, lending its data:
    /// `READ_ONLY` is set, and the deleter frees only the shape and
    /// strides. The view's strides and offset go into `strides` and
    /// `byte_offset`.
    ///
    /// # Errors
    ///
    /// [`Error::DlpackLayout`] when DLPack cannot express the view: for a
    /// type that does not fill bytes, a last dimension that is not
    /// contiguous, a step along another axis that is not whole bytes, or a
    /// first element that is not on a byte boundary (copy such a view with
    /// [`View::to_narrow_array`] and export that); [`Error::DlpackField`]
    /// for an extent above `i64::MAX` (an empty view).
    ///
    /// # Examples
    ///
    /// ```
    /// use arbitrary_int::u4;
    /// use bitpack::NarrowArray;
    /// use bitpack::dlpack::{DlpackTensor, flags};
    ///
    /// let mut a: NarrowArray<u4> = (0..12).map(u4::new).collect();
    /// a.reshape(&[3, 4])?;
    /// let rows = a.view().step_by(0, 2)?; // rows 0 and 2
    /// let t = DlpackTensor::from_view(&rows)?;
    /// assert_eq!((t.shape(), t.strides()), (&[2, 4][..], &[8, 1][..]));
    /// assert_eq!(t.flags(), flags::READ_ONLY);
    /// assert_eq!(t.to_narrow_array::<u4>()?.to_vec(), [0, 1, 2, 3, 8, 9, 10, 11].map(u4::new));
    ///
    /// // A column of 4-bit values is not contiguous, and [1..] starts mid-byte.
    /// assert!(DlpackTensor::from_view(&a.view().select(1, 0)?).is_err());
    /// assert!(DlpackTensor::from_view(&a.view().slice(1, 1..3)?).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_view<T: DlpackElement>(view: &View<'a, T>) -> Result<Self> {
        let layout = view.layout();
        let bits = T::BITS;
        check_packed_layout(
            bits,
            layout.shape(),
            layout.strides(),
            layout.offset() as i128,
        )?;
        let strides: Vec<isize> = layout.strides().into();
        let words = view.words();
        let (data, byte_offset) = if layout.is_empty() {
            (ptr::null_mut(), 0)
        } else {
            let bit = layout.offset() as u128 * bits as u128;
            (words.as_ptr().cast_mut().cast(), (bit / 8) as u64)
        };
        Ok(Self::export(
            data,
            T::DTYPE,
            layout.shape(),
            &strides,
            byte_offset,
            flags::READ_ONLY,
            Owner::Lent,
        ))
    }

    /// Builds an export.
    fn export(
        data: *mut c_void,
        dtype: DLDataType,
        shape: &[usize],
        strides: &[isize],
        byte_offset: u64,
        flag_bits: u64,
        owner: Owner,
    ) -> Self {
        let mut ctx = Box::new(ExportCtx {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion {
                    major: DLPACK_MAJOR_VERSION,
                    minor: DLPACK_MINOR_VERSION,
                },
                manager_ctx: ptr::null_mut(),
                deleter: Some(delete_export),
                flags: flag_bits,
                dl_tensor: DLTensor {
                    data,
                    device: DLDevice {
                        device_type: device::CPU,
                        device_id: 0,
                    },
                    ndim: shape.len() as i32,
                    dtype,
                    shape: ptr::null_mut(),
                    strides: ptr::null_mut(),
                    byte_offset,
                },
            },
            shape: shape.iter().map(|&d| to_i64(d)).collect(),
            strides: strides.iter().map(|&s| to_i64(s)).collect(),
            _owner: owner,
        });
        if !shape.is_empty() {
            ctx.managed.dl_tensor.shape = ctx.shape.as_mut_ptr();
            ctx.managed.dl_tensor.strides = ctx.strides.as_mut_ptr();
        }
        let raw = Box::into_raw(ctx);
        // SAFETY: `raw` is a fresh, live box; the field pointer is in it.
        unsafe { (*raw).managed.manager_ctx = raw.cast() };
        DlpackTensor {
            // SAFETY: `Box::into_raw` never returns null; `managed` is at
            // offset 0 of the `repr(C)` context.
            raw: unsafe { NonNull::new_unchecked(raw.cast()) },
            shape: shape.into(),
            strides: strides.into(),
            offset: byte_offset as usize,
            _lent: PhantomData,
        }
    }

    /// Exports owned bytes, one value per byte, compact.
    fn export_bytes(bytes: Vec<u8>, dtype: DLDataType, shape: &[usize], extra: u64) -> Self {
        let strides = compact_strides(shape);
        let data = if bytes.is_empty() {
            ptr::null_mut()
        } else {
            bytes.as_ptr().cast_mut().cast()
        };
        Self::export(
            data,
            dtype,
            shape,
            &strides,
            0,
            extra | flags::IS_COPIED,
            Owner::Bytes(bytes),
        )
    }

    /// Sets flag bits of an export.
    fn set_flags(&mut self, bits: u64) {
        // SAFETY: called only on this crate's exports, which it owns.
        unsafe { (*self.raw.as_ptr()).flags |= bits };
    }

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
    /// must be done with the data before `'a` ends.
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
        let raw = self.raw.as_ptr();
        core::mem::forget(self);
        raw
    }

    /// The data type.
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

    /// The shape, in elements.
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

    /// The strides, in elements (compact row-major ones when the producer
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

    /// The number of elements.
    ///
    /// # Examples
    ///
    /// ```
    /// let t = bitpack::dlpack::DlpackTensor::from_narrow_array(bitpack::NarrowArray::from_slice(&[1u8, 2]));
    /// assert_eq!(t.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether the tensor has no elements.
    ///
    /// # Examples
    ///
    /// ```
    /// let t = bitpack::dlpack::DlpackTensor::from_narrow_array(bitpack::NarrowArray::<u8>::new());
    /// assert!(t.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
        if self.is_empty() {
            return true;
        }
        let mut expect = 1usize;
        for (&e, &s) in self.shape.iter().zip(&self.strides).rev() {
            if e > 1 && s != expect as isize {
                return false;
            }
            expect = expect.saturating_mul(e);
        }
        true
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

    /// `DlpackDtype` unless `T` accepts the tensor's data type.
    fn check_dtype<T: DlpackElement>(&self) -> Result<()> {
        if T::accepts(self.dtype()) {
            Ok(())
        } else {
            Err(Error::DlpackDtype {
                found: self.dtype().triple(),
                expected: T::DTYPE.triple(),
            })
        }
    }

    /// The checks of an in-place packed borrow; the stream's byte length.
    fn check_in_place<T: DlpackElement>(&self) -> Result<usize> {
        self.check_dtype::<T>()?;
        if self.padded() {
            return Err(field_err(
                "flags",
                None,
                self.flags() as i128,
                "the data is one value per byte (IS_SUBBYTE_TYPE_PADDED): use \
                 to_narrow_array or padded_values",
            ));
        }
        if !self.is_compact() {
            let axis = self
                .shape
                .iter()
                .zip(&self.strides)
                .enumerate()
                .rev()
                .scan(1usize, |expect, (axis, (&e, &s))| {
                    let bad = e > 1 && s != *expect as isize;
                    *expect = expect.saturating_mul(e);
                    Some((axis, s, bad))
                })
                .find(|&(_, _, bad)| bad)
                .map(|(axis, s, _)| (axis, s));
            let (axis, s) = axis.unwrap_or((0, 0));
            return Err(Error::DlpackLayout {
                axis: Some(axis),
                value: s as i128,
                bits: T::BITS,
                rule: "a borrowed array needs compact row-major strides (to_narrow_array copies \
                       strided tensors)",
            });
        }
        Ok((self.len() * T::BITS as usize).div_ceil(8))
    }

    /// Borrows a compact packed tensor in place, read-only, after checking
    /// the dtype against `T` and the padding bits of the last byte.
    ///
    /// # Errors
    ///
    /// [`Error::DlpackDtype`] for another dtype, [`Error::DlpackField`] for
    /// padded data, [`Error::DlpackLayout`] for strides that are not compact
    /// row-major, [`Error::NonZeroPadding`] when bits past the last value
    /// are set.
    ///
    /// # Examples
    ///
    /// See the [module docs](self).
    pub fn as_narrow_ref<T: DlpackElement>(&self) -> Result<NarrowRef<'_, T>> {
        let n = self.check_in_place::<T>()?;
        let bytes: &[u8] = if n == 0 {
            &[]
        } else {
            // SAFETY: `from_raw` checked (or this crate made) that the `n`
            // bytes from the first element are inside the tensor's data,
            // readable while `self` lives, and not past the address space.
            unsafe { core::slice::from_raw_parts(self.base(), n) }
        };
        let mut r = NarrowRef::from_bytes(bytes, self.len())?;
        r.reshape(&self.shape)?;
        Ok(r)
    }

    /// Borrows a compact packed tensor in place, mutably (see
    /// [`as_narrow_ref`](Self::as_narrow_ref)).
    ///
    /// # Errors
    ///
    /// As [`as_narrow_ref`](Self::as_narrow_ref), and [`Error::DlpackField`]
    /// when the producer set `READ_ONLY`.
    ///
    /// # Examples
    ///
    /// See [`from_raw`](Self::from_raw).
    pub fn as_narrow_mut<T: DlpackElement>(&mut self) -> Result<NarrowMut<'_, T>> {
        if self.read_only() {
            return Err(field_err(
                "flags",
                None,
                self.flags() as i128,
                "the producer set READ_ONLY",
            ));
        }
        let n = self.check_in_place::<T>()?;
        let bytes: &mut [u8] = if n == 0 {
            &mut []
        } else {
            // SAFETY: as in `as_narrow_ref`; the producer allows writes (no
            // READ_ONLY), and `&mut self` makes this the only borrow.
            unsafe { core::slice::from_raw_parts_mut(self.base(), n) }
        };
        let mut m = NarrowMut::from_bytes(bytes, self.len())?;
        m.reshape(&self.shape)?;
        Ok(m)
    }

    /// The byte of the one-value-per-byte element at flat index `idx`.
    fn byte_at(&self, idx: isize) -> u8 {
        // SAFETY: `idx` is an element index the validated shape and strides
        // reach, which the producer promises readable (`from_raw`'s
        // contract) and `from_raw` checked to be inside the address space.
        unsafe { self.base().wrapping_offset(idx).read() }
    }

    /// The bits-wide value at stream element index `idx` (packed).
    fn packed_at(&self, idx: isize, bits: u32) -> u128 {
        let bit = idx as i128 * bits as i128;
        let (byte, shift) = (bit.div_euclid(8) as isize, bit.rem_euclid(8) as u32);
        let nbytes = (shift + bits).div_ceil(8) as usize;
        let mut buf = [0u8; 17];
        for (k, b) in buf[..nbytes].iter_mut().enumerate() {
            // SAFETY: the bytes of the element at `idx`, inside the data
            // (checked by `from_raw` over every reachable element).
            *b = unsafe { self.base().wrapping_offset(byte + k as isize).read() };
        }
        crate::narrow::borrowed::read_bits(&buf, shift as usize, bits)
    }

    /// The element indices of the tensor in row-major logical order.
    fn indices(&self) -> impl Iterator<Item = isize> + '_ {
        let n = self.len();
        let nd = self.shape.len();
        let mut coords = vec![0usize; nd];
        let mut idx: isize = 0;
        (0..n).map(move |k| {
            if k > 0 {
                for axis in (0..nd).rev() {
                    coords[axis] += 1;
                    idx += self.strides[axis];
                    if coords[axis] < self.shape[axis] {
                        break;
                    }
                    idx -= self.strides[axis] * self.shape[axis] as isize;
                    coords[axis] = 0;
                }
            }
            idx
        })
    }

    /// Checks padded (one value per byte) data; calls `f` with each value's
    /// byte.
    fn check_padded<T: DlpackElement>(&self) -> Result<()> {
        let bits = if self.dtype() == DLDataType::scalar(code::BOOL, 8) {
            1
        } else {
            T::BITS
        };
        for (i, idx) in self.indices().enumerate() {
            let b = self.byte_at(idx);
            if bits < 8 && b >> bits != 0 {
                return Err(Error::PaddedValue {
                    index: i,
                    byte: b,
                    bits,
                });
            }
        }
        Ok(())
    }

    /// Whether the data is one value per byte for a `T` target: the padded
    /// flag, or `kDLBool` with 8 bits for `bool`.
    fn one_per_byte<T: DlpackElement>(&self) -> Result<bool> {
        if T::BITS == 1 && self.dtype() == DLDataType::scalar(code::BOOL, 8) {
            return Ok(true);
        }
        self.check_dtype::<T>()?;
        Ok(self.padded())
    }

    /// Copies the tensor into a `NarrowArray` with its shape: packed data in
    /// any layout DLPack can express for `T` (strided, negative or zero
    /// strides), and one-value-per-byte data (padded, or unpacked `bool`),
    /// whose bits above the width must be zero.
    ///
    /// # Errors
    ///
    /// [`Error::DlpackDtype`] for another dtype, [`Error::DlpackLayout`] for
    /// a packed sub-byte layout without whole-byte rows or a contiguous last
    /// dimension, [`Error::PaddedValue`] naming the first byte with high
    /// bits set, [`Error::NonZeroPadding`] for set padding bits after the
    /// last packed value.
    ///
    /// # Examples
    ///
    /// See [`from_bools_unpacked`](Self::from_bools_unpacked) and
    /// [`from_view`](Self::from_view).
    pub fn to_narrow_array<T: DlpackElement>(&self) -> Result<NarrowArray<T>> {
        let mut out = if self.one_per_byte::<T>()? {
            self.check_padded::<T>()?;
            self.indices()
                .map(|idx| T::from_raw_bits(T::Raw::from_u128_truncate(self.byte_at(idx).into())))
                .collect::<NarrowArray<T>>()
        } else if self.is_compact() {
            return Ok(self.as_narrow_ref::<T>()?.to_narrow_array());
        } else {
            check_packed_layout(T::BITS, &self.shape, &self.strides, 0)?;
            self.indices()
                .map(|idx| {
                    T::from_raw_bits(T::Raw::from_u128_truncate(self.packed_at(idx, T::BITS)))
                })
                .collect::<NarrowArray<T>>()
        };
        out.reshape(&self.shape)?;
        Ok(out)
    }

    /// The values of one-value-per-byte data (padded, or unpacked `bool`),
    /// read in place in row-major order after every byte's high bits are
    /// checked.
    ///
    /// # Errors
    ///
    /// [`Error::DlpackDtype`], [`Error::PaddedValue`], and
    /// [`Error::DlpackField`] when the data is packed.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::dlpack::DlpackTensor;
    /// use bitpack::{E2M3, NarrowArray};
    ///
    /// let a = NarrowArray::from_slice(&[E2M3::from_f32(7.5), E2M3::from_f32(-1.0)]);
    /// let t = DlpackTensor::from_narrow_array_padded(&a);
    /// let v: Vec<f32> = t.padded_values::<E2M3>()?.map(E2M3::to_f32).collect();
    /// assert_eq!(v, [7.5, -1.0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn padded_values<T: DlpackElement>(&self) -> Result<impl Iterator<Item = T> + '_> {
        if !self.one_per_byte::<T>()? {
            return Err(field_err(
                "flags",
                None,
                self.flags() as i128,
                "the data is packed, not one value per byte: use as_narrow_ref",
            ));
        }
        self.check_padded::<T>()?;
        Ok(self
            .indices()
            .map(|idx| T::from_raw_bits(T::Raw::from_u128_truncate(self.byte_at(idx).into()))))
    }
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

/// Validates a major-version-1 managed tensor; returns its shape, strides
/// and byte offset. Reads the struct, `shape` and `strides`, never `data`.
fn validate(m: &DLManagedTensorVersioned) -> Result<(Vec<usize>, Vec<isize>, usize)> {
    let t = &m.dl_tensor;
    if m.flags & !flags::KNOWN != 0 {
        return Err(field_err(
            "flags",
            None,
            m.flags as i128,
            "has bits this importer does not know (known: READ_ONLY, IS_COPIED, \
             IS_SUBBYTE_TYPE_PADDED)",
        ));
    }
    let host = [
        device::CPU,
        device::CUDA_HOST,
        device::ROCM_HOST,
        device::CUDA_MANAGED,
    ];
    if !host.contains(&t.device.device_type) {
        return Err(Error::DlpackDevice {
            device_type: t.device.device_type,
            device_id: t.device.device_id,
        });
    }
    if t.ndim < 0 {
        return Err(field_err("ndim", None, t.ndim.into(), "must be >= 0"));
    }
    let nd = t.ndim as usize;
    if nd > crate::MAX_DIMS {
        return Err(Error::TooManyDims { ndim: nd });
    }
    if t.dtype.lanes != 1 {
        return Err(field_err(
            "dtype.lanes",
            None,
            t.dtype.lanes.into(),
            "must be 1 (vector types are not imported)",
        ));
    }
    if t.dtype.bits == 0 {
        return Err(field_err("dtype.bits", None, 0, "must be at least 1"));
    }
    let padded = m.flags & flags::IS_SUBBYTE_TYPE_PADDED != 0;
    if padded && t.dtype.bits >= 8 {
        return Err(field_err(
            "dtype.bits",
            None,
            t.dtype.bits.into(),
            "IS_SUBBYTE_TYPE_PADDED is set, so it must be below 8",
        ));
    }
    if nd > 0 && t.shape.is_null() {
        return Err(field_err(
            "shape",
            None,
            0,
            "must not be NULL when ndim > 0",
        ));
    }
    let shape_raw: &[i64] = if nd == 0 {
        &[]
    } else {
        // SAFETY: non-null, `ndim` readable `i64`s (the caller's promise).
        unsafe { core::slice::from_raw_parts(t.shape, nd) }
    };
    let mut shape = Vec::with_capacity(nd);
    for (axis, &e) in shape_raw.iter().enumerate() {
        if e < 0 {
            return Err(field_err(
                "shape",
                Some(axis),
                e.into(),
                "extents must be >= 0",
            ));
        }
        let e = usize::try_from(e).map_err(|_| {
            field_err(
                "shape",
                Some(axis),
                e.into(),
                "the extent does not fit in usize",
            )
        })?;
        shape.push(e);
    }
    let count = shape
        .iter()
        .try_fold(1usize, |n, &e| n.checked_mul(e))
        .ok_or_else(|| {
            field_err(
                "shape",
                None,
                shape_raw
                    .iter()
                    .fold(1i128, |n, &e| n.saturating_mul(i128::from(e))),
                "the element count overflows usize",
            )
        })?;
    let strides: Vec<isize> = if nd > 0 && t.strides.is_null() {
        if m.version.minor >= 2 {
            return Err(field_err(
                "strides",
                None,
                0,
                "must not be NULL when ndim > 0 (DLPack 1.2 and later)",
            ));
        }
        compact_strides(&shape)
    } else if nd == 0 {
        Vec::new()
    } else {
        // SAFETY: non-null, `ndim` readable `i64`s (the caller's promise).
        let raw = unsafe { core::slice::from_raw_parts(t.strides, nd) };
        let mut out = Vec::with_capacity(nd);
        for (axis, &s) in raw.iter().enumerate() {
            let s = isize::try_from(s).map_err(|_| {
                field_err(
                    "strides",
                    Some(axis),
                    s.into(),
                    "the stride does not fit in isize",
                )
            })?;
            out.push(s);
        }
        out
    };
    let offset = usize::try_from(t.byte_offset).map_err(|_| {
        field_err(
            "byte_offset",
            None,
            t.byte_offset.into(),
            "does not fit in usize",
        )
    })?;
    if count == 0 {
        return Ok((shape, strides, offset));
    }
    if t.data.is_null() {
        return Err(field_err(
            "data",
            None,
            0,
            "is NULL but the tensor has elements",
        ));
    }
    // The element indices reached, relative to the first element.
    let (mut lo, mut hi) = (0i128, 0i128);
    for (&e, &s) in shape.iter().zip(&strides) {
        let span = (e as i128 - 1) * s as i128;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    // The bits per element in memory, and the addresses reached. Negative
    // strides may reach below `data` (NumPy points `data` at the first
    // logical element), but not below address 0 or above `isize::MAX`.
    let bits = if padded { 8 } else { t.dtype.bits as i128 };
    let base = t.data as usize as i128 * 8 + offset as i128 * 8;
    let first_bit = base + lo * bits;
    let end_bit = base + (hi + 1) * bits;
    if first_bit < 0 {
        return Err(field_err(
            "strides",
            None,
            lo,
            "reach below address 0 (the negative strides go past the start of memory)",
        ));
    }
    let end_byte = (end_bit + 7) / 8;
    if end_byte > isize::MAX as i128 {
        return Err(field_err(
            "shape",
            None,
            end_byte,
            "the bytes the shape, strides and byte_offset reach run past the address space",
        ));
    }
    Ok((shape, strides, offset))
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
