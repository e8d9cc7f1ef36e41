//! An unknown key in `#[bitpack(...)]`; the known key after it is still read.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
#[bitpack(width = 4, crate = "::bitpack")]
struct Float4(u8);

fn main() {}
