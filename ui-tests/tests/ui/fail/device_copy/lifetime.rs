//! A lifetime parameter: device values are `'static`.

use bitpack::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct View<'a> {
    data: &'a [u8; 4],
}

fn main() {}
