// A storage the rule picks, but for another byte count: rejected by the
// `LAYOUT_OK` assertion (a free constant makes `cargo check` evaluate it).
use bitpack::NArray;

// element, lanes: bytes needed | storage named: bytes
const _: () = NArray::<bool, 8, u16>::LAYOUT_OK; // 8 x 1 bit: 1 | u16: 2
const _: () = NArray::<bool, 9, u8>::LAYOUT_OK; // 9 x 1 bit: 2 | u8: 1
const _: () = NArray::<u16, 3, [u8; 3]>::LAYOUT_OK; // 3 x 16 bits: 6 | [u8; 3]: 3
const _: () = NArray::<u8, 12, [u16; 3]>::LAYOUT_OK; // 12 x 8 bits: 12 | [u16; 3]: 6

fn main() {}
