//! The derives' attributes belong on the type, not on a field or variant.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
struct Rgb {
    #[bitwidth(5)]
    r: u8,
    g: u8,
    b: u8,
}

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Lane {
    #[bitpack(crate = "::bitpack")]
    A,
    B,
}

fn main() {}
