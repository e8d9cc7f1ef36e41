//! A narrow newtype (`#[bitwidth]`) with no repr: it must be `repr(transparent)`.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[bitwidth(4)]
struct Float4(u8);

fn main() {}
