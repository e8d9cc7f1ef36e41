//! `DeviceCopy` without a repr: the layout is the compiler's.

use bitpack::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
struct Params {
    scale: f32,
    count: u32,
}

fn main() {}
