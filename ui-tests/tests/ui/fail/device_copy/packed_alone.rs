//! `DeviceCopy` with `repr(packed)` but not `C`.

use bitpack::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(packed)]
struct Params {
    flag: u8,
    count: u32,
}

fn main() {}
