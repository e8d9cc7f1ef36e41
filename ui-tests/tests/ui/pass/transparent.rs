//! `repr(transparent)` wrappers without `bitwidth`: the same element as the
//! field, whether it fills its bytes or not.

use bitpack::BitElement;

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
struct Meters(f32);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
struct Mask {
    set: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(6)]
struct Float6(u8);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
struct Scaled(Float6);

fn main() {
    assert_eq!(Meters::BITS, 32);
    let _: <Meters as BitElement>::Raw = 0u32;
    assert_eq!(Meters(1.5).raw_bits(), 1.5f32.to_bits());

    assert_eq!(Mask::BITS, 1);
    assert_eq!(Mask::from_raw_bits(0b10), Mask { set: false });

    assert_eq!(Scaled::BITS, 6);
    let _: <Scaled as BitElement>::Raw = 0u8;
    assert_eq!(Scaled(Float6(0xFF)).raw_bits(), 0x3F);
}
