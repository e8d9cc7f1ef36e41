//! `crate` given twice.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
#[bitpack(crate = "::bitpack")]
#[bitpack(crate = "::bitpack")]
struct Float4(u8);

fn main() {}
