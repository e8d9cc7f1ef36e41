//! The description of a small binary float format and everything computed
//! from it alone: [`FloatFormat`] and its rules, the one `const fn` rounding
//! routine, the [`MiniFloat`] element trait, and the branch-free element
//! conversions that the bulk kernels build their loops from.
//!
//! This module uses only the element and storage layer; the bulk kernels and
//! the public float-format API are built on it, and the public names are
//! re-exported (and documented) there.
//!
//! - `format.rs`: [`FloatFormat`], [`Specials`], [`Overflow`], [`Ties`],
//!   [`NanFallback`], the shipped formats' constants, the code queries and
//!   the exact decode;
//! - `round.rs`: [`Mode`] and the rounding routine (`FloatFormat::encode_*`
//!   and the stochastic variants, the NaN and overflow results, and
//!   [`random_bits`], the random bits of stochastic rounding);
//! - `minifloat.rs`: the [`MiniFloat`] trait and the per-format compile-time
//!   tables;
//! - `elem.rs`: the branch-free element conversions (`encode_fast`,
//!   `decode_fast`, the E8M0 pair) and the format constants they share with
//!   their SIMD builds.

pub(crate) mod elem;
mod format;
mod minifloat;
mod round;

pub use format::{FloatFormat, NanFallback, Overflow, Specials, Ties};
pub use minifloat::MiniFloat;
pub(crate) use minifloat::Tables;
pub(crate) use round::{Class, Parts};
pub use round::{Mode, random_bits};
