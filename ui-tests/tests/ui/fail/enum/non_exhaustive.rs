//! A `#[non_exhaustive]` enum could gain variants, changing its width.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
#[non_exhaustive]
enum Growing {
    A,
    B,
}

fn main() {}
