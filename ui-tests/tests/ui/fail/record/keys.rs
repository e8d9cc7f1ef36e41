//! Field keys: an unknown key, a duplicate, a non-literal `at`, a reserved
//! pattern other than zeros or ones. Each error is at its token, all at once.

use bitpack::arbitrary_int::u3;
use bitpack::BitElement;

const START: u32 = 4;

#[derive(Clone, Copy, BitElement)]
#[bitpack(record)]
struct Keys {
    #[bitpack(offset = 3)]
    a: u3,
    #[bitpack(at = 4, at = 5)]
    b: u3,
    #[bitpack(at = START)]
    c: u3,
    #[bitpack(reserved = twos)]
    d: u3,
}

fn main() {}
