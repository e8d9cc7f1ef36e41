//! Fields sit in declaration order: `at = 3` after `at = 8` is an error at
//! the second literal, found from the tokens alone.

use bitpack::arbitrary_int::{u3, u4};
use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[bitpack(record)]
struct Backwards {
    #[bitpack(at = 8)]
    a: u4,
    #[bitpack(at = 3)]
    b: u3,
}

fn main() {}
