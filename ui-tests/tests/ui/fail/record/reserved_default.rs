//! A reserved field always holds its fixed bits: a non-zero `default` on a
//! zero-reserved field, and any `default` on a ones-reserved one, are errors
//! at the literal.

use bitpack::arbitrary_int::{u2, u3};
use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[bitpack(record, default)]
struct Header {
    #[bitpack(reserved, default = 3)]
    pad: u3,
    #[bitpack(reserved = ones, default = 3)]
    marker: u2,
}

fn main() {}
