//! With a fallback, codes are still the discriminants, 0 and up.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(i8)]
enum Signed {
    Low = -1,
    Zero = 0,
    #[bitpack(fallback)]
    Other = 1,
}

fn main() {}
