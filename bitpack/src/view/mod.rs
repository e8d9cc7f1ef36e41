//! Strided N-d views over packed storage.

mod layout;

pub use layout::{Layout, LayoutIter, MAX_DIMS};
