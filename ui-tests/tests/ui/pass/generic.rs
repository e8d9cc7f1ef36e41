//! Generic narrow newtypes and `repr(transparent)` wrappers: the derive adds a
//! `BitElement` bound per field; where clauses, defaults and const
//! parameters pass through.

use bitpack::BitElement;
use core::fmt::Debug;

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(3)]
struct Low3<T>(T);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
struct Low4<T = u8>
where
    T: Debug,
{
    bits: T,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
struct Wrapper<T: Copy>(T);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(2)]
struct OfUInt<const B: usize>(arbitrary_int::UInt<u8, B>);

fn bits<T: BitElement>() -> u32 {
    T::BITS
}

fn main() {
    assert_eq!(bits::<Low3<u8>>(), 3);
    assert_eq!(Low3(0xFFu8).raw_bits(), 7);
    assert_eq!(Low3::<u16>::from_raw_bits(0xFFF8), Low3(0));
    assert_eq!(Low3(arbitrary_int::u5::new(0b11111)).raw_bits(), 0b111);

    assert_eq!(bits::<Low4>(), 4);
    assert_eq!(Low4 { bits: 0xABu8 }.raw_bits(), 0xB);

    assert_eq!(bits::<Wrapper<bool>>(), 1);
    assert_eq!(bits::<Wrapper<u64>>(), 64);
    assert_eq!(bits::<Wrapper<Low3<u8>>>(), 3);
    assert_eq!(Wrapper(-1i16).raw_bits(), 0xFFFF);

    assert_eq!(bits::<OfUInt<5>>(), 2);
    assert_eq!(OfUInt::<5>::from_raw_bits(0xFF), OfUInt(arbitrary_int::u5::new(3)));
}
