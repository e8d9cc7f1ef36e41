//! A generic struct is `DeviceCopy` only for `DeviceCopy` parameters: the bound
//! is reported where `Pair<&u8>` is used.

use bitpack::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Pair<T> {
    a: T,
    b: T,
}

fn upload<T: DeviceCopy>(_: &T) {}

fn main() {
    static X: u8 = 1;
    upload(&Pair { a: &X, b: &X });
}
