//! Four variants fill every 2-bit code: a fallback would never be decoded
//! from an unused code.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Full {
    A,
    B,
    C,
    #[bitpack(fallback)]
    D,
}

fn main() {}
