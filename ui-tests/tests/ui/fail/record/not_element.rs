//! A record's field must be an element: a `&'static str` points elsewhere
//! and has no value bits. The error is at the field's type.

use bitpack::arbitrary_int::u3;
use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[bitpack(record)]
struct Named {
    tag: u3,
    name: &'static str,
}

fn main() {}
