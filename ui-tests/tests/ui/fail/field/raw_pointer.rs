//! A raw pointer in an aggregate.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
struct Pointer {
    tag: u64,
    data: *const u64,
}

fn main() {}
