//! An aggregate of 20 bytes: it packs into one `Raw` word, at most 16 bytes.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(C)]
struct Big {
    a: u32,
    b: u32,
    c: u32,
    d: u32,
    e: u32,
}

fn main() {}
