//! Two variants marked `fallback`: an enum has at most one.

use bitpack::BitElement;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Kind {
    Word,
    Number,
    #[bitpack(fallback)]
    Other,
    #[bitpack(fallback)]
    Unknown,
    Space,
}

fn main() {}
