//! The `repr(C)` mirror of `dlpack.h`: data type codes, device types,
//! flags and the structs, with their LP64 ABI checked at compile time.

use core::ffi::c_void;

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

    pub(crate) const fn triple(self) -> (u8, u8, u16) {
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
