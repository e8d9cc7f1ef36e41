//! A narrow newtype with `repr(Rust)`: the repr is named in the error.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(Rust)]
#[bitwidth(4)]
struct Float4(u8);

fn main() {}
