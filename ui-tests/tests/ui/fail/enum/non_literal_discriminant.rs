//! A discriminant given by a constant is not read by the derive.

use bitpack::BitElement;

const ONE: u8 = 1;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Named {
    Zero = 0,
    One = ONE,
}

fn main() {}
