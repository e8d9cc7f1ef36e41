//! The kernel's argument struct, shared word for word with the host crate
//! (`../kernel-host` includes this file), so both sides see one layout.
//! Plain Rust: no nightly feature, no `unsafe`.

use bitpack::{DeviceCopy, DevicePtr, E2M1, NArray};

/// Eight FP4 values in one register (one `u32`).
pub type Fp4x8 = NArray<E2M1, 8>;

/// The kernel's arguments, passed by value: device buffers as `DevicePtr`s,
/// so the struct derives `DeviceCopy` (a `*mut` field would be refused).
/// With `bitpack`'s `cuda` feature (the host side) the derive also makes it
/// a `cudarc` kernel argument (`DeviceRepr`), with no `unsafe impl` here.
#[derive(Clone, Copy, Debug, DeviceCopy)]
#[repr(C)]
pub struct ScaleArgs {
    /// `groups` packed inputs.
    pub x: DevicePtr<Fp4x8>,
    /// `groups` packed outputs.
    pub y: DevicePtr<Fp4x8>,
    /// The number of `u32` groups (eight values each).
    pub groups: u64,
    /// The factor every value is multiplied by.
    pub scale: f32,
}
