//! Strided N-d views over packed storage: validated [`Layout`]s, and the
//! [`View`]s and [`ViewMut`]s of packed arrays built on them.

#[cfg(feature = "alloc")]
mod iter;
#[cfg(feature = "alloc")]
mod strided;
#[cfg(feature = "alloc")]
#[allow(
    clippy::module_inception,
    reason = "`view::view` holds `View`, beside `view_mut` and `iter`"
)]
mod view;
#[cfg(feature = "alloc")]
mod view_mut;

#[cfg(feature = "alloc")]
pub use iter::ViewIter;
#[cfg(feature = "alloc")]
pub(crate) use strided::{assign_within, layout_for};
#[cfg(feature = "alloc")]
pub use view::View;
#[cfg(feature = "alloc")]
pub use view_mut::ViewMut;
