//! A tour of bitpack: run with `cargo run --example tour`.

use bitpack::BitElement;

fn main() {
    println!("bitpack tour");
    println!("============");
    println!();

    // Elements: every type has a fixed number of value bits.
    println!("bool is {} bit, u16 is {} bits", bool::BITS, u16::BITS);
    println!("-2i16 as raw bits: {:#06x}", (-2i16).raw_bits());
}
