// A type the storage rule never picks is not a `Storage`: four bytes are a
// `u32`, not a `[u8; 4]`, and sixteen a `u128`, not a `[u64; 2]`.
use bitpack::NArray;

fn four_bytes(_: NArray<bool, 32, [u8; 4]>) {}
fn sixteen_bytes(_: NArray<u8, 16, [u64; 2]>) {}

fn main() {}
