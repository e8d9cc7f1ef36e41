//! A type alias named like a primitive: `u8` here is `bool`, one value bit.
//! The width check reads the field's `BitElement::BITS`, not its spelling,
//! so `#[bitwidth(8)]` over it is rejected.

use bitpack::BitElement;

#[allow(non_camel_case_types)]
type u8 = bool;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(8)]
struct Fake(u8);

fn main() {}
