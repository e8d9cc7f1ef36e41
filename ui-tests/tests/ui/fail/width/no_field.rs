//! A narrow newtype with no field has no bits to hold its value.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
struct Empty;

fn main() {}
