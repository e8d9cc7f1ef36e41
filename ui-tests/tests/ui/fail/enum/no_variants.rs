//! An enum with no variants has no values.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Never {}

fn main() {}
