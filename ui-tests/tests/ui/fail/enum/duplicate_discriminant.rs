//! Two variants with discriminant 1 (rustc reports it too).

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Twice {
    A = 0,
    B = 1,
    C = 1,
    D = 3,
}

fn main() {}
