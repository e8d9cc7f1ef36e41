// Constructors take values, never the storage word: use `from_raw_bits`.
use bitpack::NArray;

fn main() {
    let _ = NArray::<bool, 8>::new(0x55);
}
