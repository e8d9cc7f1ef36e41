//! `#[bitwidth]` twice.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
#[bitwidth(4)]
struct Float4(u8);

fn main() {}
