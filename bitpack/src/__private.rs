//! Items used by generated code. Not public API: names and signatures here
//! change without notice.

pub use crate::storage::{ByteCount, StorageFor};
pub use core;

/// `ceil(n * bits / 8)`, the byte count of `n` lanes.
pub const fn storage_bytes(n: usize, bits: u32) -> usize {
    crate::storage::storage_bytes(n, bits)
}

/// The narrowest unsigned integer holding a byte count: `u8` for 1, `u16` for
/// 2, `u32` for 3..=4, `u64` for 5..=8, `u128` for 9..=16.
pub trait RawFor {
    /// That integer.
    type Raw: crate::Unsigned;
}

macro_rules! raw_for {
    ($($raw:ty: $($b:literal)*;)*) => {$($(
        impl RawFor for ByteCount<$b> { type Raw = $raw; }
    )*)*};
}

raw_for! {
    u8: 1;
    u16: 2;
    u32: 3 4;
    u64: 5 6 7 8;
    u128: 9 10 11 12 13 14 15 16;
}

// ---- begin: support for `#[derive(BitElement)]` and `#[derive(DeviceCopy)]` ----

/// `BITS` of a full-bytes aggregate of `size` bytes: `8 * size`. An aggregate
/// over 16 bytes is rejected by its own assertion; the value is clamped to
/// 128 so that that one error is all the compiler reports.
#[inline(always)]
pub const fn aggregate_bits(size: usize) -> u32 {
    if size > 16 { 128 } else { 8 * size as u32 }
}

/// The byte count whose [`RawFor`] is an aggregate's `Raw`: `size`, clamped
/// to 16 as in [`aggregate_bits`].
pub const fn aggregate_bytes(size: usize) -> usize {
    if size > 16 { 16 } else { size }
}

/// `bits` moved up to byte `offset` (0 past the top of a `u128`).
#[inline(always)]
pub const fn place(bits: u128, offset: usize) -> u128 {
    if offset >= 16 {
        0
    } else {
        bits << (8 * offset)
    }
}

/// The bits of `raw` from byte `offset` up (0 past the top of a `u128`).
#[inline(always)]
pub const fn extract(raw: u128, offset: usize) -> u128 {
    if offset >= 16 { 0 } else { raw >> (8 * offset) }
}

/// Compiles only when `T: DeviceCopy`; the derive calls it once per field,
/// so the error points at that field's type.
#[inline(always)]
pub const fn assert_device_copy<T: crate::DeviceCopy>() {}

/// `BITS` of a record whose last field ends at bit `end`: `end`, clamped to
/// `1..=128` so that the record's own assertion (a field past bit 128) is
/// the one error the compiler reports.
#[inline(always)]
pub const fn record_bits(end: u32) -> u32 {
    if end > 128 {
        128
    } else if end == 0 {
        1
    } else {
        end
    }
}

/// The byte count whose [`RawFor`] is a record's `Raw`: the bytes of
/// [`record_bits`] bits.
pub const fn record_bytes(end: u32) -> usize {
    record_bits(end).div_ceil(8) as usize
}

/// `bits` moved up to bit `offset` (0 at or past bit 128).
#[inline(always)]
pub const fn place_bits(bits: u128, offset: u32) -> u128 {
    if offset >= 128 { 0 } else { bits << offset }
}

/// The bits of `raw` from bit `offset` up (0 at or past bit 128).
#[inline(always)]
pub const fn take_bits(raw: u128, offset: u32) -> u128 {
    if offset >= 128 { 0 } else { raw >> offset }
}

/// The low `bits` bits set (`bits` in `0..=128`).
#[inline(always)]
pub const fn low_bits(bits: u32) -> u128 {
    crate::unsigned::mask_u128(bits)
}

pub use crate::record::{NestedElement, NestedRecord, Probe, check_fixed};

// ---- end: support for the derives ----

/// Gives a record (`#[bitpack(record)]`) its DLPack data type, `kDLUInt`
/// with its width: its carrier integer's low `BITS` bits, packed. Expands to
/// nothing without the `dlpack` feature.
#[cfg(feature = "dlpack")]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_record_dlpack {
    ($t:ty) => {
        impl $crate::dlpack::DlpackElement for $t {
            const DTYPE: $crate::dlpack::DLDataType = $crate::dlpack::DLDataType::scalar(
                $crate::dlpack::code::UINT,
                <$t as $crate::BitElement>::BITS as u8,
            );
        }
    };
}

/// Gives a record its DLPack data type; expands to nothing without the
/// `dlpack` feature.
#[cfg(not(feature = "dlpack"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_record_dlpack {
    ($t:ty) => {};
}

/// `cudarc`, for [`__impl_device_repr!`](crate::__impl_device_repr) (the
/// crate that derives `DeviceCopy` need not depend on `cudarc` itself).
#[cfg(feature = "cuda")]
pub use cudarc;

/// Makes a `#[derive(DeviceCopy)]` type a `cudarc` kernel argument: with the
/// `cuda` feature, `unsafe impl cudarc::driver::DeviceRepr` for it (so
/// `launch_builder(&f).arg(&value)` takes it without `unsafe` in the user's
/// code); without the feature, nothing. The derive emits one call per type:
/// `__impl_device_repr!([<impl generics>] Type<..> [where clause])`, the
/// generics and where clause of its `DeviceCopy` impl (so a generic type is
/// a `DeviceRepr` under the same bounds: every parameter that a field names
/// is `DeviceCopy`).
#[cfg(feature = "cuda")]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_device_repr {
    ([$($generics:tt)*] $t:ty [$($where_clause:tt)*]) => {
        // SAFETY: the derive emits this only beside `unsafe impl DeviceCopy`
        // for the same type under the same bounds, and `DeviceCopy`'s
        // guarantees are what `DeviceRepr` requires of a kernel argument:
        // a fixed layout (`repr(C)`, `repr(transparent)` or an integer
        // repr) that the device code sees field for field, no host
        // pointers, references or handles (every field is `DeviceCopy`),
        // and `Copy` with no `Drop`, so passing the value's bytes as the
        // kernel parameter (which is what `cudarc` does with a `DeviceRepr`
        // argument) passes the value. Padding bytes go along as raw bytes,
        // which the driver copies and the kernel never reads as values.
        #[automatically_derived]
        unsafe impl $($generics)* $crate::__private::cudarc::driver::DeviceRepr for $t
            $($where_clause)*
        {
        }
    };
}

/// Without the `cuda` feature there is no `cudarc`: nothing to implement.
#[cfg(not(feature = "cuda"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_device_repr {
    ([$($generics:tt)*] $t:ty [$($where_clause:tt)*]) => {};
}
