//! Strided N-d views over packed storage: validated [`Layout`]s, and the
//! [`View`]s and [`ViewMut`]s of packed arrays built on them.

mod layout;
#[cfg(feature = "alloc")]
mod strided;

pub use layout::{Layout, LayoutIter, MAX_DIMS, Runs};
#[cfg(feature = "alloc")]
pub use strided::{View, ViewIter, ViewMut};
#[cfg(feature = "alloc")]
pub(crate) use strided::{assign_within, try_zeroed_vec};
