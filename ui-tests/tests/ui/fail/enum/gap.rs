//! Discriminants 0, 1, 3: three variants, and 2 is missing.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Gap {
    A = 0,
    B = 1,
    D = 3,
}

fn main() {}
