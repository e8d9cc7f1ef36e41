//! The block-scaled core: what one MX or NVFP4 block computes, with no
//! allocation, so the host arrays ([`MxArray`](super::MxArray),
//! [`Nvfp4Array`](super::Nvfp4Array)) and GPU kernels run the same code.
//!
//! The public functions here are device-callable (they build under
//! `default-features = false` and for `nvptx64-nvidia-cuda`); a kernel
//! quantizes a block in registers with [`block_amax`], [`mx_scale`] or
//! [`nvfp4_scale`], then [`mx_codes`] or [`nvfp4_codes`], and the result is
//! bit for bit what the host arrays hold.

use super::types::{E2M1, E2M3, E3M2, E4M3, E5M2};
use crate::float::MiniFloat;

mod codes;
pub mod gpu;
mod grid;
mod swizzle;

#[cfg(feature = "alloc")]
pub(crate) use codes::FP4_TIMES_FP8_MAX;
#[cfg(feature = "alloc")]
pub(super) use codes::{
    Nvfp4Scaler, e2m1_threshold_bits, e8m0_f32, inv_pow2_f32, mx_code, mx_operand, mx_scale_bits,
    scale_exponent,
};
pub use codes::{
    block_amax, mx_codes, mx_scale, mx_scale_f32, mx_value, nvfp4_codes, nvfp4_scale,
    nvfp4_scale_f32, nvfp4_value,
};
pub use grid::{BlockGrid, ScaleWalk};
pub use swizzle::{swizzled_index, swizzled_len};

mod sealed {
    pub trait Sealed {}
}

/// An element format of OCP MX v1.0: [`E2M1`] (MXFP4), [`E2M3`] and
/// [`E3M2`] (MXFP6), [`E4M3`] and [`E5M2`] (MXFP8). Sealed.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E4M3, MxElement};
///
/// fn block_emax<F: MxElement>() -> i32 {
///     F::EMAX
/// }
/// assert_eq!(block_emax::<E4M3>(), 8);
/// ```
pub trait MxElement: MiniFloat + sealed::Sealed {
    /// The exponent of the format's largest normal value (`emax_elem` in
    /// the spec): E2M1 2, E2M3 2, E3M2 4, E4M3 8, E5M2 15.
    const EMAX: i32 = Self::FORMAT.max_exponent();
}

macro_rules! mx_element {
    ($($t:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl MxElement for $t {}
    )*};
}

mx_element!(E2M1, E2M3, E3M2, E4M3, E5M2);

/// How an MX block's shared exponent is chosen from its largest magnitude
/// `amax` (the four rules torchao names; `emax` is the element format's
/// [`MxElement::EMAX`], `max` its largest value, `m` its mantissa bits).
/// Each is computed exactly from the bits of `amax`.
///
/// | rule | shared exponent `e` | the block maximum after scaling |
/// |---|---|---|
/// | [`Floor`](Self::Floor) | `floor(log2(amax)) - emax` (OCP MX v1.0) | may exceed `max` and clamp |
/// | [`Ceil`](Self::Ceil) | `ceil(log2(amax)) - emax` | at most `2^emax` |
/// | [`Even`](Self::Even) | `floor(log2(round(amax))) - emax`, `round` to `m` mantissa bits, half up | may clamp |
/// | [`RCeil`](Self::RCeil) | `ceil(log2(amax / max))` (NVIDIA's `cvt.rp` scale rule) | at most `max`: never clamps |
///
/// For all four, a block of zeros gets `e = -127`, `e` is clamped below at
/// -127, and `e > 127` (only reachable from `f64` input) gives the NaN scale.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, MxArray, MxOptions, ScaleRule};
///
/// let data = [7.0f32, 1.0];
/// let floor = MxArray::<E2M1>::quantize(&data, &[2])?;
/// assert_eq!(floor.dequantize(), [6.0, 1.0]); // 2^(2 - 2) = 1: 7 clamps to 6
/// let opts = MxOptions { scale: ScaleRule::RCeil, ..MxOptions::default() };
/// let rceil = MxArray::<E2M1>::quantize_with(&data, &[2], &opts)?;
/// assert_eq!(rceil.scales().get(0).unwrap().to_f32(), 2.0); // ceil(log2(7 / 6)) = 1
/// assert_eq!(rceil.dequantize(), [8.0, 1.0]);
/// # Ok::<(), bitpack::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ScaleRule {
    /// `floor(log2(amax)) - emax`: the OCP MX v1.0 rule (and microxcaling's).
    #[default]
    Floor,
    /// `ceil(log2(amax)) - emax`: torchao's `CEIL`.
    Ceil,
    /// `floor(log2(amax'))- emax` where `amax'` is `amax` rounded to the
    /// element's mantissa bits, ties up: torchao's `EVEN`.
    Even,
    /// `ceil(log2(amax / max_elem))`: NVIDIA's rule (torchao's `RCEIL`), what
    /// `cvt.rp.satfinite.ue8m0x2.f32` of `amax / max` gives.
    RCeil,
}

/// `(floor(log2(a)), the 52 fraction bits of a's significand)` for a
/// What happens to a block whose scale `amax / (6 * tensor_scale)` is below
/// the smallest E4M3 value.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{Nvfp4Array, Nvfp4Options, TinyScale};
///
/// let data = [1.0f32, 1e-9];
/// let rows = [2, 1]; // two blocks of one value
/// let flush = Nvfp4Array::quantize_with(&data, &rows, &Nvfp4Options::default())?;
/// assert_eq!(flush.dequantize()[1], 0.0); // 1e-9 / (6 * ts) rounds to a zero scale
/// let opts = Nvfp4Options { tiny: TinyScale::MinNormal, ..Nvfp4Options::default() };
/// let clamp = Nvfp4Array::quantize_with(&data, &rows, &opts)?;
/// assert_eq!(clamp.scales().get(1).unwrap().to_f32(), 2f32.powi(-6));
/// # Ok::<(), bitpack::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TinyScale {
    /// bitpack's default: the scale is the E4M3 rounding of the formula,
    /// subnormal scales (`2^-9`..) included; when it rounds to zero the
    /// block's values are stored as zeros of their sign. Every stored scale
    /// is then what the formula gives, so any dequantizer or re-quantizer
    /// that knows the formula agrees with the bytes, and a zero scale only
    /// happens for blocks below `2^-10` of the scale the tensor maximum
    /// gets (values under about `amax_tensor / 458752`).
    #[default]
    Flush,
    /// The scale is at least the smallest subnormal E4M3 (`2^-9`): a block
    /// that would flush keeps its largest values (more accurate than
    /// [`Flush`](Self::Flush) for such blocks, at the cost of a scale the
    /// formula does not give).
    Smallest,
    /// The scale is at least the smallest normal E4M3 (`2^-6`), as torchao
    /// clamps it (`E4M3_EPS`); no subnormal scales.
    MinNormal,
}
