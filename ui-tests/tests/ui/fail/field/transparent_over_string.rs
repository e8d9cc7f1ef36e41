//! A `repr(transparent)` wrapper over a type that is not an element.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
struct Name(&'static str);

fn main() {}
