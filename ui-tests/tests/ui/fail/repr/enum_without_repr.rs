//! A fieldless enum needs an explicit integer repr: none at all.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
enum Lane {
    A,
    B,
}

fn main() {}
