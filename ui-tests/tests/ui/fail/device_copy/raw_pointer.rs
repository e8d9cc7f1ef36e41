//! A raw pointer field holds a host address.

use bitpack::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Params {
    scale: f32,
    table: *const f32,
}

fn main() {}
