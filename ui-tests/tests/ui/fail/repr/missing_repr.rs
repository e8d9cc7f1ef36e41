//! A full-bytes aggregate without any `#[repr]`: the field order is the compiler's.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
struct Rgb {
    r: u8,
    g: u8,
    b: u8,
}

fn main() {}
