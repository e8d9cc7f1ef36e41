//! `DeviceCopy` requires `Copy`: the error names the type.

use bitpack::DeviceCopy;

#[derive(Clone, DeviceCopy)]
#[repr(C)]
struct Params {
    scale: f32,
}

fn main() {}
