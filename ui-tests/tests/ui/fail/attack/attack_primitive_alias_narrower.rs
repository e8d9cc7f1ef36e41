//! A type alias named like a wider primitive: `u16` here is an 8-bit `u8`,
//! so `#[bitwidth(12)]` does not fit it (it would claim 12 value bits in an
//! 8-bit `Raw`).

use bitpack::BitElement;

#[allow(non_camel_case_types)]
type u16 = core::primitive::u8;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(12)]
struct Fake(u16);

fn main() {}
