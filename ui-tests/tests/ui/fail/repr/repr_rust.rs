//! `#[repr(Rust)]`, written out, is no layout to pack.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(Rust)]
struct Rgb {
    r: u8,
    g: u8,
    b: u8,
}

fn main() {}
