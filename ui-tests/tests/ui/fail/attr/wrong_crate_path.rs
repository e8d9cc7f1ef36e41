//! `crate` names a path that does not exist: the error is at that string.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
#[bitpack(crate = "::bitpak")]
struct Float4(u8);

fn main() {}
