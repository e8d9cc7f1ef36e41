//! `#[bitwidth(0)]`: an element has at least one value bit.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(0)]
struct Nothing(u8);

fn main() {}
