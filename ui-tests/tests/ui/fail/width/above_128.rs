//! `#[bitwidth(129)]`: no `Raw` holds more than 128 bits (the field is a `u128`).

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(129)]
struct Wide(u128);

fn main() {}
