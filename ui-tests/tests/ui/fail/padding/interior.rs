//! `u8, u16, u8` in `repr(C)`: a padding byte after each `u8`.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
struct Mixed {
    a: u8,
    b: u16,
    c: u8,
}

fn main() {}
