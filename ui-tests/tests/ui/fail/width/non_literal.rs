//! The width must be written as a literal: a constant and an expression.

use bitpack::BitElement;

const FOUR: u32 = 4;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(FOUR)]
struct Named(u8);

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(2 + 2)]
struct Sum(u8);

fn main() {}
