//! A reserved field has no field constant, so the packed form cannot set it.

use bitpack::arbitrary_int::{u2, u6};
use bitpack::{BitElement, Packed};

#[derive(Clone, Copy, BitElement)]
#[bitpack(record)]
struct Header {
    version: u2,
    #[bitpack(reserved)]
    pad: u6,
}

fn main() {
    let mut p = Packed::new(Header { version: u2::new(1), pad: u6::new(0) });
    p.set(Header::PAD, u6::new(5));
}
