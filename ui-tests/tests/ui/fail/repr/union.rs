//! Unions are not elements: their bits do not say which field is live.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
