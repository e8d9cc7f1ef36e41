//! Field keys mean something only in a record: on a `repr(C)` aggregate's
//! field `at` is an error at the attribute, as is `#[bitpack(default)]` on a
//! type that is not a record.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[bitpack(default)]
#[repr(C)]
struct Rgb {
    #[bitpack(at = 8)]
    r: u8,
    g: u8,
}

fn main() {}
