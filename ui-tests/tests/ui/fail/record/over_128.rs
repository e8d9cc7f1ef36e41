//! 100 + 20 + 9 bits: the third field crosses bit 128, and the error is at
//! that field, not at the record.

use bitpack::arbitrary_int::{u100, u20, u9};
use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[bitpack(record)]
struct TooWide {
    a: u100,
    b: u20,
    c: u9,
}

fn main() {}
