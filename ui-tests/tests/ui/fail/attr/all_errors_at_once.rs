//! Several mistakes in one input are all reported, each at its own token, and
//! nothing else: the stub impl keeps `Float4` usable, so the uses in `main` add
//! no errors.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(Rust)]
#[bitwidth(0)]
#[bitpack(krate = "::bitpack")]
struct Float4(u8, u8);

fn main() {
    let _ = Float4::BITS;
    let _: <Float4 as bitpack::Lanes<8>>::Storage = 0;
}
