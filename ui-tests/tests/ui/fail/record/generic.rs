//! A record's width is the sum of its fields' widths, which picks its `Raw`;
//! with a type parameter it cannot be known. The error is at the parameter.

use bitpack::arbitrary_int::u3;
use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[bitpack(record)]
struct Pair<T> {
    tag: u3,
    value: T,
}

fn main() {}
