//! A tour of bitpack: run with `cargo run --example tour`.

use arbitrary_int::{u4, u12};
use bitpack::{BitElement, NArray, NarrowArray};

fn main() -> bitpack::Result<()> {
    println!("bitpack tour");
    println!("============");
    println!();

    // Elements: every type has a fixed number of value bits.
    println!("bool is {} bit, u16 is {} bits", bool::BITS, u16::BITS);
    println!("-2i16 as raw bits: {:#06x}", (-2i16).raw_bits());
    println!();

    // The value layout: 4-bit values packed into one storage word, lane 0 in
    // the low bits (the order of PTX's packed `cvt` results).
    let codes = [0x1, 0x2, 0xa, 0xf].map(u4::new);
    let lanes = NArray::<u4, 4>::new(codes);
    println!("NArray<u4, 4> {lanes:?}");
    println!(
        "  size {} bytes, raw bits {:#06x}",
        size_of_val(&lanes),
        lanes.raw_bits()
    );
    println!("  bytes {:02x?}", lanes.as_bytes());
    let doubled: NArray<u4, 4> = lanes.map(|x| u4::new((x.value() * 2) & 0xf));
    println!("  map(x * 2 mod 16) {doubled:?}");
    println!();

    // The memory layout: a dense LSB-first byte stream, two values a byte.
    let mut packed: NarrowArray<u4> = (0..7u8).map(u4::new).collect();
    packed.push(u4::new(0xf));
    println!("NarrowArray<u4> of {} values {packed:?}", packed.len());
    println!("  bytes {:02x?}", packed.as_bytes());
    packed.set(0, u4::new(0x9))?;
    println!("  after set(0, 9): bytes {:02x?}", packed.as_bytes());

    // reinterpret keeps every bit and rescales the length, with no copy.
    let words = packed.clone().reinterpret::<u16>()?;
    println!("  as u16: {:04x?}", words.to_vec());
    let flags = packed.clone().reinterpret::<bool>()?;
    println!(
        "  as bool: {} values, {} set",
        flags.len(),
        flags.iter().filter(|&b| b).count()
    );
    match packed.reinterpret::<u12>() {
        Ok(_) => unreachable!("32 bits are not a whole number of 12-bit values"),
        Err(e) => println!("  as u12: error: {e}"),
    }

    // And back from plain bytes (checked: padding must be zero).
    let back = NarrowArray::<u4>::from_bytes(&[0x21, 0x03], 3)?;
    println!("  from bytes [21, 03] as 3 values: {back:?}");
    Ok(())
}
