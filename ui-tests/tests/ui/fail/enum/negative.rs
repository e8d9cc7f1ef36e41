//! A negative discriminant is outside 0..2^k.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(i8)]
enum Sign {
    Minus = -1,
    Zero = 0,
}

fn main() {}
