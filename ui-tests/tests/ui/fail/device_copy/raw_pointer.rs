//! A raw pointer field holds a host address.

use bitpack::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Node {
    value: f32,
    next: *const Node,
}

fn main() {}
