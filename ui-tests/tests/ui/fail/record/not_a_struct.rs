//! `#[bitpack(record)]` on an enum: a record's fields are all present at once.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[bitpack(record)]
#[repr(u8)]
enum Choice {
    A,
    B,
}

fn main() {}
