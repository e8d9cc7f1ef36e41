//! Five variants: not 2^k, so some patterns of 3 bits would name no variant.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Five {
    A,
    B,
    C,
    D,
    E,
}

fn main() {}
