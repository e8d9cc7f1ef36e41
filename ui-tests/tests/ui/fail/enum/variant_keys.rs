//! `fallback` is the one key on a variant; it takes no value, and
//! `#[bitwidth]` belongs on no variant.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Keys {
    #[bitpack(fallback = true)]
    A,
    #[bitpack(reserved)]
    B,
    #[bitwidth(2)]
    C,
}

fn main() {}
