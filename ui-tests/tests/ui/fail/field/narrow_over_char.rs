//! A narrow newtype over `char`, which is not a `BitElement` (not every pattern is a `char`).

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(8)]
struct Ascii(char);

fn main() {}
