//! A record without fields has no bits.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[bitpack(record)]
struct Nothing {}

fn main() {}
