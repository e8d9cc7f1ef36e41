//! A raw pointer in an aggregate.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
struct Node {
    value: u64,
    next: *const Node,
}

fn main() {}
