//! `#[repr(packed)]` without `C` still lets the compiler reorder fields.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(packed)]
struct Pair {
    a: u8,
    b: u16,
}

fn main() {}
