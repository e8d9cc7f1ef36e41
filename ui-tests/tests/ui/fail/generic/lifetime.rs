//! A lifetime parameter: elements are `'static`.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
struct Ref<'a>(&'a u8);

fn main() {}
