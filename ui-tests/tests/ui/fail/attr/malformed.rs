//! Malformed attributes, each reported at the token that is wrong: a bare
//! `#[bitwidth]`, `#[bitwidth = 4]`, `#[bitwidth(4, 5)]`, a bare `#[bitpack]`,
//! `crate = 1` and a string that is not a path.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth]
struct Bare(u8);

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth = 4]
struct NameValue(u8);

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(4, 5)]
struct TwoValues(u8);

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
#[bitpack]
struct BareBitpack(u8);

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
#[bitpack(crate = 1)]
struct NumberCrate(u8);

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
#[bitpack(crate = "not a path")]
struct BadPath(u8);

fn main() {}
