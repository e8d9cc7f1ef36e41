//! A field whose type is a plain struct (not an element) inside a record:
//! the error is at the field's type and says what an element is.

use bitpack::arbitrary_int::u3;
use bitpack::BitElement;

#[derive(Clone, Copy)]
struct Plain {
    x: u8,
}

#[derive(Clone, Copy, BitElement)]
#[bitpack(record)]
struct Holder {
    a: u3,
    p: Plain,
}

fn main() {}
