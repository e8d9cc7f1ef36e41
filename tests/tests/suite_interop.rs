//! Interop: DLPack export and import (feature `dlpack`) and Arrow bitmaps and
//! unsigned arrays (feature `arrow`). One test binary (`cargo test -p
//! bitpack-tests --test suite_interop`); each module is the file of the same
//! name beside this one.

mod arrow;
mod dlpack;
