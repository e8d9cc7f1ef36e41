//! Fieldless enums: implicit, explicit and shuffled discriminants, signed,
//! wide and pointer-sized reprs.

use bitpack::BitElement;

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(u8)]
enum Bit {
    Zero,
    One,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(u8)]
enum Shuffled {
    C = 2,
    A = 0,
    D = 3,
    B = 1,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(i16)]
enum Octal {
    B = 1,
    C,
    D,
    A = 0,
    E = 4,
    F,
    G,
    H,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(u32)]
enum Wide {
    X = 0x1,
    Y = 0x0,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(usize)]
enum Pointer {
    A,
    B,
    C,
    D,
}

fn main() {
    assert_eq!(Bit::BITS, 1);
    assert_eq!(Bit::from_raw_bits(0xFF), Bit::One);

    assert_eq!(Shuffled::BITS, 2);
    assert_eq!(Shuffled::C.raw_bits(), 2u8);
    assert_eq!(Shuffled::from_raw_bits(0b111), Shuffled::D);

    assert_eq!(Octal::BITS, 3);
    let _: <Octal as BitElement>::Raw = 0u16;
    assert_eq!(Octal::H.raw_bits(), 7);
    assert_eq!(Octal::from_raw_bits(0xFFF9), Octal::B);

    let _: <Wide as BitElement>::Raw = 0u32;
    assert_eq!(Wide::from_raw_bits(3), Wide::X);

    let _: <Pointer as BitElement>::Raw = 0usize as <Pointer as BitElement>::Raw;
    assert_eq!(Pointer::BITS, 2);
    assert_eq!(Pointer::from_raw_bits(6), Pointer::C);
}
