//! A reference field holds a host address.

use bitpack::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Params {
    scale: f32,
    table: &'static [f32; 4],
}

fn main() {}
