// Default storages for built-in elements, named storages for nested arrays,
// and the storage that the rule picks for each.
use bitpack::{BitElement, NArray};

type Nibble = NArray<bool, 4>;
type Byte = NArray<Nibble, 2, u8>;
type Word = NArray<Byte, 3, [u8; 3]>;

const _: () = NArray::<bool, 9, u16>::LAYOUT_OK;
const _: () = Word::LAYOUT_OK;

fn main() {
    let n = Nibble::new([true, false, false, true]);
    let b = Byte::new([n, Nibble::from_raw_bits(0x6)]);
    assert_eq!(b.raw_bits(), 0x69);
    let w = Word::new([b, Byte::from_raw_bits(0xff), Byte::default()]);
    assert_eq!(w.raw_bits(), 0x00_ff_69);
    assert_eq!(<Word as BitElement>::BITS, 24);
    assert_eq!(core::mem::size_of::<Word>(), 3);
    let _: [u8; 3] = w.storage();
}
