//! A `bool` in an aggregate: 1 value bit in a byte, so a byte pattern such as
//! 2 could not round-trip. The message says to use a narrow newtype or `NArray`.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
struct Flagged {
    value: u8,
    flag: bool,
}

fn main() {}
