//! `DeviceCopy` with `repr(Rust)` written out.

use bitpack::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(Rust)]
struct Params {
    scale: f32,
    count: u32,
}

fn main() {}
