//! A fieldless enum with `repr(C)` alone: a C `int` differs between targets.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
enum Lane {
    A,
    B,
}

fn main() {}
