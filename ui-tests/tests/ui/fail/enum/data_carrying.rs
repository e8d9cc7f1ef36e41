//! A variant with fields: a `BitElement` enum is fieldless.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Shape {
    Empty,
    Square(u8),
}

fn main() {}
