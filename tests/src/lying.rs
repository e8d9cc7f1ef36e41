//! Element types whose `DlpackElement` impls accept every data type: the
//! importer must refuse any tensor whose width is not theirs, whatever
//! `accepts` answers (used by `dlpack.rs` and, under Miri, `miri_paths.rs`).

use bitpack::BitElement;
use bitpack::dlpack::{DLDataType, DlpackElement, code};

/// A 128-bit element that accepts every data type.
#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
pub struct Greedy(pub u128);

impl DlpackElement for Greedy {
    const DTYPE: DLDataType = DLDataType::scalar(code::UINT, 128);
    fn accepts(_: DLDataType) -> bool {
        true
    }
}

/// A 4-bit element that accepts every data type.
#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
pub struct GreedyNibble(pub u8);

impl DlpackElement for GreedyNibble {
    const DTYPE: DLDataType = DLDataType::scalar(code::UINT, 4);
    fn accepts(_: DLDataType) -> bool {
        true
    }
}
