//! A generic wrapper is an element only for element parameters: the bound
//! the derive adds is reported where `Wrapper<String>` is used.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(transparent)]
struct Wrapper<T>(T);

fn bits<T: BitElement>() -> u32 {
    T::BITS
}

fn main() {
    let _ = bits::<Wrapper<&'static str>>();
}
