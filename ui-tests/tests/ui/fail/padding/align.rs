//! `repr(C, align(4))` pads two `u8` fields to four bytes.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C, align(4))]
struct Aligned {
    a: u8,
    b: u8,
}

fn main() {}
