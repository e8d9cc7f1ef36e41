//! Four variants, but one discriminant is 5 (and 3 is missing).

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Skips {
    A,
    B,
    C,
    F = 5,
}

fn main() {}
