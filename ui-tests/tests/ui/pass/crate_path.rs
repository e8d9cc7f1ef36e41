//! `#[bitpack(crate = "...")]` for crates that re-export `bitpack`: every
//! form, and `DeviceCopy`, through a re-export under another name.

mod facade {
    pub use ::bitpack as packing;
}

use facade::packing::{BitElement, DeviceCopy, Lanes};

#[derive(Clone, Copy, Debug, PartialEq, BitElement, DeviceCopy)]
#[bitpack(crate = "facade::packing")]
#[repr(transparent)]
#[bitwidth(4)]
struct Float4(u8);

#[derive(Clone, Copy, Debug, PartialEq, BitElement, DeviceCopy)]
#[bitpack(crate = "crate::facade::packing")]
#[repr(C)]
struct Rgb {
    r: u8,
    g: u8,
    b: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement, DeviceCopy)]
#[bitpack(crate = "self::facade::packing")]
#[repr(u8)]
enum Lane {
    A,
    B,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement, DeviceCopy)]
#[bitpack(crate = "::bitpack")]
#[repr(transparent)]
struct Wrapper<T>(T);

fn main() {
    assert_eq!(Float4(0xF3).raw_bits(), 3);
    assert_eq!(Rgb { r: 1, g: 2, b: 3 }.raw_bits(), 0x030201);
    assert_eq!(Lane::from_raw_bits(3), Lane::B);
    assert_eq!(Wrapper(Lane::B).raw_bits(), 1);
    let _: <Float4 as Lanes<8>>::Storage = 0u32;
    let _: <Rgb as Lanes<2>>::Storage = [0u16; 3];
}
