//! The geometry every container and view shares, below all of them:
//! [`Layout`] (a validated shape, strides and offset, with checked arithmetic
//! in every derived layout), the physical packings [`Dense`] and
//! [`WordAligned`] (where value `i` sits in the word buffer), the shape
//! checks of new, reshaped and reinterpreted arrays (`checks.rs`), and
//! `shape_accessors!`, the one shape API of every container, view and
//! `Layout` (`accessors.rs`).
//!
//! Nothing here knows a container: `narrow/`, `view/`, `reduce/` and the
//! interop modules build on it.

mod accessors;
#[cfg(feature = "alloc")]
pub(crate) mod checks;
mod layout;
#[cfg(feature = "alloc")]
pub(crate) mod packing;

pub(crate) use accessors::shape_accessors;
#[cfg(feature = "alloc")]
pub(crate) use checks::{check_len, checked_shape, reinterpreted};
pub use layout::{Layout, LayoutIter, MAX_DIMS, Runs};
#[cfg(feature = "alloc")]
pub(crate) use layout::{checked_count, walk_step};
#[cfg(feature = "alloc")]
pub use packing::{Dense, Packing, WordAligned};
