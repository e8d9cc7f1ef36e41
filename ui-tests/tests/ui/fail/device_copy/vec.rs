//! A `Vec` field in an enum variant; the enum cannot be `Copy` either.

use bitpack::DeviceCopy;

#[derive(Clone, DeviceCopy)]
#[repr(u8)]
enum Buffer {
    Empty,
    Owned(Vec<u8>),
}

fn main() {}
