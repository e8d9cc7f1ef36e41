//! `at = 2` puts `b` inside `a` (bits 0..4): fields may not share bits. The
//! error is at the literal.

use bitpack::arbitrary_int::{u3, u4};
use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[bitpack(record)]
struct Overlap {
    a: u4,
    #[bitpack(at = 2)]
    b: u3,
}

fn main() {}
