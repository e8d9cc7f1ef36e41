//! A field cannot start at bit 128 or above: a record is at most 128 bits.

use bitpack::arbitrary_int::u3;
use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[bitpack(record)]
struct Far {
    #[bitpack(at = 130)]
    a: u3,
}

fn main() {}
