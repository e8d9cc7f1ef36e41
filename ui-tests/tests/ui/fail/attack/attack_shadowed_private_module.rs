//! A user module named like the name generated code once imported the
//! runtime crate under (`__bitpack`): the field check must look at the
//! field's own type, here a host reference, and reject it.

use bitpack::DeviceCopy;

#[allow(dead_code)]
mod __bitpack {
    pub type E4M3 = &'static u32;
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Params {
    scale: f32,
    host: __bitpack::E4M3,
}

fn main() {}
