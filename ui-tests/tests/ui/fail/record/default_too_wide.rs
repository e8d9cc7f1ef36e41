//! `default = 9` is a code of 4 bits; the field is 3 bits wide. Checked
//! against the field type's `BITS`, at the literal.

use bitpack::arbitrary_int::u3;
use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[bitpack(record, default)]
struct Small {
    #[bitpack(default = 9)]
    a: u3,
    b: bool,
}

fn main() {}
