//! `u32, u8` in `repr(C)`: three trailing padding bytes.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
struct Tail(u32, u8);

fn main() {}
