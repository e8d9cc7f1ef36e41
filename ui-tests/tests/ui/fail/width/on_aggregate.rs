//! `#[bitwidth]` on a `repr(C)` aggregate, which packs all of its bytes.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
#[bitwidth(24)]
struct Rgb {
    r: u8,
    g: u8,
    b: u8,
}

fn main() {}
