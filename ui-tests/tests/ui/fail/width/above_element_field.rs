//! Wider than a field that is itself a `BitElement` (a 4-bit newtype, and
//! `arbitrary_int::u5`): the check is a constant assertion that `cargo check`
//! evaluates, reported on the literal.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
struct Float4(u8);

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(6)]
struct TooWide(Float4);

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(7)]
struct TooWideToo(arbitrary_int::u5);

fn main() {}
