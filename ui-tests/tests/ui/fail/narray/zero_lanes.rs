// An `NArray` holds at least one value: with a named storage, the layout
// assertion rejects N = 0 (with the default storage, `Lanes<0>` does not
// exist; see the `NArray` docs).
use bitpack::NArray;

const _: () = NArray::<bool, 0, u8>::LAYOUT_OK;

fn main() {}
