//! A generic `repr(C)` aggregate: its `Raw` would depend on a generic size.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
struct Pair<T, U> {
    a: T,
    b: U,
}

fn main() {}
