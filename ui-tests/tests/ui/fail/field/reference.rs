//! A reference in an aggregate.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
struct Borrowed {
    tag: u64,
    data: &'static u64,
}

fn main() {}
