//! Enums need an explicit integer repr: none, and `repr(C)` alone.

use bitpack::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
enum Mode {
    Fast,
    Exact,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
enum Kind {
    Int(u32),
    Float(f32),
}

fn main() {}
