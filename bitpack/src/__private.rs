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

// ---- end: support for the derives ----
