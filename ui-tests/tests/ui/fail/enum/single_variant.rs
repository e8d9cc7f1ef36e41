//! One variant would be 0 bits wide.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Only {
    One,
}

fn main() {}
