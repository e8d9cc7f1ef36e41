//! A record's width is the sum of its fields': `#[bitwidth]` on the record,
//! and on one of its fields, are errors at the key.

use bitpack::arbitrary_int::u3;
use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[bitpack(record)]
#[bitwidth(8)]
struct Sized8 {
    a: u3,
    #[bitwidth(2)]
    b: u8,
}

fn main() {}
