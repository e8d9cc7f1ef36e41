//! A 4-bit newtype and a 2-bit enum in an aggregate: neither fills its byte.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
struct Float4(u8);

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Lane {
    A,
    B,
    C,
    D,
}

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
struct Pair(Float4, Lane);

fn main() {}
