//! Wider than a primitive field: known at parse time, reported on the literal.
//! Cases: 9 bits in a `u8`, 2 bits in a `bool`, 33 bits in an `i32` (named field).

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(9)]
struct NineInU8(u8);

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(2)]
struct TwoInBool(bool);

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
#[bitwidth(33)]
struct WideInI32 {
    bits: i32,
}

fn main() {}
