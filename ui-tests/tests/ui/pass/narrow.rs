//! Narrow newtypes over every kind of field: primitive integers (tuple and
//! named), the full width of a `u128`, another newtype, an enum,
//! `arbitrary_int`, a signed integer and `bool`.

use bitpack::BitElement;

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
struct Float4(u8);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(12)]
struct Named {
    bits: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(128)]
struct Full(u128);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(3)]
struct InFloat4(Float4);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(u8)]
enum Quad {
    A,
    B,
    C,
    D,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(1)]
struct LowBitOfQuad(Quad);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(5)]
struct InU7(arbitrary_int::u7);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(6)]
struct Signed(i8);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(1)]
struct Flag(bool);

fn main() {
    assert_eq!(Float4::BITS, 4);
    assert_eq!(Float4(0xF3).raw_bits(), 0x3u8);
    assert_eq!(Float4::from_raw_bits(0xA5), Float4(0x5));

    assert_eq!(Named::BITS, 12);
    assert_eq!(Named { bits: 0xFABC }.raw_bits(), 0xABCu16);

    assert_eq!(Full::BITS, 128);
    assert_eq!(Full(u128::MAX).raw_bits(), u128::MAX);

    assert_eq!(InFloat4::BITS, 3);
    assert_eq!(InFloat4(Float4(0xFF)).raw_bits(), 0b111u8);
    assert_eq!(InFloat4::from_raw_bits(0xFE), InFloat4(Float4(0b110)));

    assert_eq!(LowBitOfQuad::BITS, 1);
    assert_eq!(LowBitOfQuad(Quad::D).raw_bits(), 1u8);
    assert_eq!(LowBitOfQuad::from_raw_bits(0b10), LowBitOfQuad(Quad::A));

    assert_eq!(InU7::BITS, 5);
    assert_eq!(InU7(arbitrary_int::u7::new(0x7F)).raw_bits(), 0x1Fu8);

    assert_eq!(Signed::BITS, 6);
    assert_eq!(Signed(-1).raw_bits(), 0x3Fu8);
    assert_eq!(Signed::from_raw_bits(0xFF), Signed(0x3F));

    assert_eq!(Flag::BITS, 1);
    assert_eq!(Flag::from_raw_bits(0b11), Flag(true));
}
