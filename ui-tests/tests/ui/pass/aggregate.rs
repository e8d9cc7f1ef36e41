//! Full-bytes aggregates: named and tuple fields, mixed widths without
//! padding, floats, signed integers, nested aggregates, `repr(C, packed)`,
//! and the 16-byte maximum.

use bitpack::BitElement;

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Rgb {
    r: u8,
    g: u8,
    b: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Mixed(u16, u8, i8);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Complex {
    re: f32,
    im: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Pixel {
    color: Rgb,
    alpha: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C, packed)]
struct Packed {
    tag: u8,
    value: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Widest {
    lo: u64,
    hi: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Halves(half::f16, half::bf16);

fn main() {
    let _: <Rgb as BitElement>::Raw = 0u32;
    assert_eq!(Rgb::BITS, 24);
    assert_eq!(Rgb { r: 1, g: 2, b: 3 }.raw_bits(), 0x03_02_01);
    assert_eq!(Rgb::from_raw_bits(0xFF_03_02_01), Rgb { r: 1, g: 2, b: 3 });

    let _: <Mixed as BitElement>::Raw = 0u32;
    assert_eq!(Mixed::BITS, 32);
    assert_eq!(Mixed(0x1234, 0x56, -1).raw_bits(), 0xFF_56_1234);

    let _: <Complex as BitElement>::Raw = 0u64;
    let z = Complex { re: 1.0, im: -2.0 };
    assert_eq!(z.raw_bits(), (((-2.0f32).to_bits() as u64) << 32) | 1.0f32.to_bits() as u64);
    assert_eq!(Complex::from_raw_bits(z.raw_bits()), z);

    let _: <Pixel as BitElement>::Raw = 0u32;
    let p = Pixel { color: Rgb { r: 1, g: 2, b: 3 }, alpha: 4 };
    assert_eq!(p.raw_bits(), 0x04_03_02_01);

    let _: <Packed as BitElement>::Raw = 0u64;
    assert_eq!(Packed::BITS, 40);
    let p = Packed { tag: 0xAA, value: 0x1122_3344 };
    assert_eq!(p.raw_bits(), 0x11_2233_44AA);
    assert_eq!(Packed::from_raw_bits(0xFFFF_FF11_2233_44AA), p);

    let _: <Widest as BitElement>::Raw = 0u128;
    assert_eq!(Widest::BITS, 128);
    assert_eq!(Widest { lo: 1, hi: 2 }.raw_bits(), (2u128 << 64) | 1);

    let _: <Halves as BitElement>::Raw = 0u32;
    let h = Halves(half::f16::ONE, half::bf16::NEG_ONE);
    assert_eq!(h.raw_bits(), ((half::bf16::NEG_ONE.to_bits() as u32) << 16) | 0x3C00);
}
