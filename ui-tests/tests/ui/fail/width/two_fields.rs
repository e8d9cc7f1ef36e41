//! A narrow newtype wraps exactly one field.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
struct Halves {
    low: u8,
    high: u8,
}

fn main() {}
