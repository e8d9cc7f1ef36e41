//! Packed element types, stored bit-exact in the layouts GPUs read.
//!
//! `bitpack` stores values narrower than a byte (a 4-bit float, a 6-bit
//! float, a 1-bit bool, a 5-bit integer), values of odd widths up to 128
//! bits, and plain aggregates, in the dense LSB-first layout that PTX,
//! cuBLASLt/cuDNN, DLPack, PyTorch and Arrow read.
//!
//! # The bit model
//!
//! 1. A value of `T` has [`T::BITS`](BitElement::BITS) value bits (1..=128).
//!    Containers store value bits **LSB-first in index order**: element 0
//!    occupies the lowest bits of byte 0. Bits past the last element are
//!    padding, and padding is always zero.
//! 2. `reinterpret` keeps bits and never changes width; when bit counts don't
//!    match it returns an [`Error`]. Width changes are
//!    [`raw_bits`](BitElement::raw_bits) (zero-extension) and
//!    [`from_raw_bits`](BitElement::from_raw_bits) (truncation).
//! 3. Packed containers keep the total bit count under `reinterpret` and
//!    rescale the length of the packed (innermost) dimension.
//! 4. `NArray` is the value (register) layout, `NarrowArray` the memory
//!    layout, and `[T; N]` the compute layout.
//!
//! # Elements
//!
//! Any [`BitElement`] packs: the built-in integers, `bool` (1 bit), `f32`,
//! `f64`, `half::f16`/`half::bf16`, `arbitrary_int`'s `u1`..`u127`, and your
//! own types through `#[derive(BitElement)]`:
//!
//! ```
//! use bitpack::BitElement;
//!
//! // A narrow newtype: 4 value bits in a byte.
//! #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
//! #[repr(transparent)]
//! #[bitwidth(4)]
//! struct Float4(u8);
//!
//! assert_eq!(Float4::BITS, 4);
//! assert_eq!(Float4(0xF3).raw_bits(), 0x3); // bits above the width are cleared
//! assert_eq!(Float4::from_raw_bits(0xA5), Float4(0x5));
//!
//! // A full-bytes aggregate: packs as all of its bytes, first field lowest.
//! #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
//! #[repr(C)]
//! struct Rgb {
//!     r: u8,
//!     g: u8,
//!     b: u8,
//! }
//!
//! assert_eq!(Rgb::BITS, 24);
//! let raw: u32 = Rgb { r: 1, g: 2, b: 3 }.raw_bits();
//! assert_eq!(raw, 0x03_02_01);
//!
//! // A fieldless enum whose discriminants are exactly 0..2^k: k bits.
//! #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
//! #[repr(u8)]
//! enum Lane {
//!     A,
//!     B,
//!     C,
//!     D,
//! }
//!
//! assert_eq!(Lane::BITS, 2);
//! assert_eq!(Lane::from_raw_bits(0b110), Lane::C);
//! ```
//!
//! # Device copies
//!
//! [`DeviceCopy`] marks types whose bytes can be copied to a device as raw
//! bytes; `#[derive(DeviceCopy)]` checks the layout rules at compile time.
//!
//! # Features
//!
//! - `std` (default): implies `alloc`; `std::error::Error` and run-time CPU
//!   feature detection.
//! - `alloc`: the heap containers.
//! - `half` (default): `half::f16` and `half::bf16` elements.
//! - `arbitrary-int` (default): `arbitrary_int::u1`..`u127` elements.
//!
//! With no features the crate is `no_std` without an allocator and builds for
//! `nvptx64-nvidia-cuda`, so GPU kernel crates can embed it.
#![no_std]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

#[cfg(feature = "alloc")]
#[allow(unused_extern_crates, reason = "the heap containers use it")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod array;
mod device;
mod element;
mod error;
#[cfg(feature = "alloc")]
pub mod narrow;
mod storage;
mod unsigned;
mod view;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use array::NArray;
pub use device::DeviceCopy;
pub use element::{BitElement, bitwidth, from_raw_bits, raw_bits};
pub use error::{Error, Result};
#[cfg(feature = "alloc")]
pub use narrow::{NarrowArray, ReinterpretError};
pub use storage::{Lanes, SmallStorage, Storage, storage_bytes};
pub use unsigned::Unsigned;
pub use view::{Layout, LayoutIter, MAX_DIMS};

/// Derives [`BitElement`](trait@BitElement) for a narrow newtype, a full-bytes
/// aggregate or a fieldless enum. See the trait and the crate docs.
pub use bitpack_derive::BitElement;

/// Derives [`DeviceCopy`](trait@DeviceCopy) for a `repr(C)` or
/// `repr(transparent)` type whose fields are all `DeviceCopy`.
pub use bitpack_derive::DeviceCopy;
