//! `#[bitwidth]` on an enum: its width follows from its variants.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
#[bitwidth(4)]
enum Lane {
    A,
    B,
}

fn main() {}
