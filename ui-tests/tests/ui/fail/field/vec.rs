//! A `Vec` in an aggregate: it points to the heap, it is not bits (nor `Copy`,
//! nor small enough).

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
struct Owned {
    len: u64,
    data: Vec<u8>,
}

fn main() {}
