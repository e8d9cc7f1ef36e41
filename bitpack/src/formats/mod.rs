//! Low-precision float formats: FP4, FP6, FP8 (OCP, IEEE-style and FNUZ)
//! and the E8M0 scale, with the rounding rules of the reference library and
//! of the GPU.
//!
//! | type | ml_dtypes name | bits | bias | largest | smallest > 0 | inf | NaN |
//! |---|---|---|---|---|---|---|---|
//! | [`E2M1`] | `float4_e2m1fn` (OCP MX FP4) | 4 | 1 | 6 | 0.5 | no | no |
//! | [`E2M3`] | `float6_e2m3fn` (OCP MX FP6) | 6 | 1 | 7.5 | 0.125 | no | no |
//! | [`E3M2`] | `float6_e3m2fn` (OCP MX FP6) | 6 | 3 | 28 | 0.0625 | no | no |
//! | [`E4M3`] | `float8_e4m3fn` (OCP FP8) | 8 | 7 | 448 | 2^-9 | no | `0x7f`, `0xff` |
//! | [`E5M2`] | `float8_e5m2` (OCP FP8) | 8 | 15 | 57344 | 2^-16 | yes | IEEE |
//! | [`E4M3Ieee`] | `float8_e4m3` | 8 | 7 | 240 | 2^-9 | yes | IEEE |
//! | [`E3M4`] | `float8_e3m4` | 8 | 3 | 15.5 | 2^-6 | yes | IEEE |
//! | [`E4M3Fnuz`] | `float8_e4m3fnuz` (AMD) | 8 | 8 | 240 | 2^-10 | no | `0x80` only |
//! | [`E5M2Fnuz`] | `float8_e5m2fnuz` (AMD) | 8 | 16 | 57344 | 2^-17 | no | `0x80` only |
//! | [`E4M3B11Fnuz`] | `float8_e4m3b11fnuz` | 8 | 11 | 30 | 2^-13 | no | `0x80` only |
//! | [`E8M0`] | `float8_e8m0fnu` (OCP MX scale, unsigned) | 8 | 127 | 2^127 | 2^-127 | no | `0xff` |
//!
//! [`FloatFormat::by_name`] goes from a dtype name (ml_dtypes, PyTorch or a
//! DLPack type-code name) to a format and [`FloatFormat::names`] back; each
//! type's docs give its names too. The FNUZ formats have no infinity and no
//! negative zero: `0x80` is their only NaN.
//!
//! Narrow integers (ml_dtypes' `int1`, `int2`, `int4`, `uint1`, `uint2`,
//! `uint4`) are `arbitrary_int`'s `i1`..`i127` and `u1`..`u127`, elements
//! with checked and wrapping conversions through [`NarrowInt`](crate::NarrowInt).
//!
//! Each type is a byte holding the code in its low bits, and a
//! [`BitElement`](crate::BitElement) of 4, 6 or 8 bits, so packed containers
//! store it densely. Every type converts exactly to `f32`, `f64` and
//! `half::bf16`, and rounds from `f32`, `f64`, `half::f16` and `half::bf16`
//! in two modes ([`Mode`]):
//!
//! - `from_f32` etc.: round to nearest (ties to even; E8M0 ties away) with
//!   the overflow and NaN rules of the reference library that ML frameworks
//!   use on the host (ml_dtypes): FP4/FP6 saturate, E4M3 overflows to NaN,
//!   E5M2 to infinity. Each type's `from_f32` documents its rule, including
//!   where it departs from the reference.
//! - `from_f32_satfinite` etc.: the GPU's `cvt.rn.satfinite` rule: clamp to
//!   the largest finite value; NaN stays NaN where the format has one and
//!   becomes the positive maximum where it does not.
//!
//! Every conversion goes through one `const fn` rounding routine driven by a
//! [`FloatFormat`] description, which rounds directly from the source's
//! sign, exponent and significand (no double rounding through `f32`).
//!
//! Values compare as numbers (`PartialEq`/`PartialOrd`: NaN is unequal to
//! everything, `+0 == -0`; `total_cmp` orders codes), and `Debug`/`Display`
//! print the value. Every type is [`DeviceCopy`](crate::DeviceCopy) and
//! `bytemuck::NoUninit`; the 8-bit ones are `bytemuck::Pod`, the 4- and
//! 6-bit ones are not `AnyBitPattern` (a byte with bits above the width set
//! is not one of their values).
//!
//! # Many values at once
//!
//! - With the `alloc` feature, `encode`/`decode` (and `encode_into`/
//!   `decode_into`) convert between `f32` slices and packed `NarrowArray`s.
//!   [`encode_packed`]/[`decode_packed`] work on a packed byte stream and
//!   [`encode_slice`]/[`decode_slice`] on unpacked values, without an
//!   allocator. Decoding goes through a table built at compile time, or a
//!   branch-free conversion (E8M0 has its own kernels both ways).
//! - [`Encoder`] does the same from `f64`, `half::f16` and `half::bf16` as
//!   well as `f32` (any [`Real`]), rounding once from the exact input, and
//!   optionally with **stochastic rounding** ([`Rounding::Stochastic`]):
//!   seeded, reproducible on every target (element `i` uses
//!   [`random_bits(seed, i)`](random_bits)), unbiased.
//!   [`decode_as`], [`decode_into_as`], [`decode_packed_as`] and
//!   [`decode_slice_as`] decode into any [`Real`].
//! - With `alloc`, `MxArray` holds an N-d array in an OCP Microscaling
//!   format (MXFP4, MXFP6, MXFP8: 32-value blocks with an [`E8M0`] scale)
//!   and `Nvfp4Array` one in NVFP4 (16-value or 16 x 16 blocks with an
//!   [`E4M3`] scale and an `f32` tensor scale); their docs give the byte
//!   layout a GPU GEMM reads. `MxArray::quantize_with` takes a scale rule
//!   (`ScaleRule`: OCP's `Floor`, `Ceil`, `Even`, NVIDIA's `RCeil`), the
//!   block axis and the rounding; `Nvfp4Array::quantize_with` the block
//!   shape, tensor scale, tiny-scale rule and rounding.
//!
//! ```
//! use bitpack::formats::{E2M1, MxArray};
//!
//! let data = [0.1f32, -0.7, 1.9, 3.2, -5.0, 0.0, 2.4, 6.5];
//! let mx = MxArray::<E2M1>::quantize(&data, &[data.len()])?;
//! assert_eq!(mx.values().as_bytes().len(), 4); // 8 values, 4 bits each
//! assert_eq!(mx.scales().get(0).unwrap().to_f32(), 1.0); // 2^(floor(log2 6.5) - 2)
//! assert_eq!(mx.dequantize(), [0.0, -0.5, 2.0, 3.0, -4.0, 0.0, 2.0, 6.0]);
//! # Ok::<(), bitpack::Error>(())
//! ```
//!
//! # Your own format
//!
//! A format the crate does not ship is a [`FloatFormat`] value and a
//! [`MiniFloat`] impl on a `#[derive(BitElement)]` newtype; the conversions
//! come with the trait. Here is the `fnuz` flavour of E4M3 written out by
//! hand (the crate ships it as [`E4M3Fnuz`]; bias 8, the negative-zero code
//! is the only NaN, no negative zero):
//!
//! ```
//! use bitpack::BitElement;
//! use bitpack::formats::{FloatFormat, MiniFloat, NanFallback, Overflow, Specials, Ties};
//!
//! #[derive(Clone, Copy, Debug, BitElement)]
//! #[repr(transparent)]
//! #[bitwidth(8)]
//! struct E4M3Fnuz(u8);
//!
//! impl MiniFloat for E4M3Fnuz {
//!     const FORMAT: FloatFormat = FloatFormat {
//!         exponent_bits: 4,
//!         mantissa_bits: 3,
//!         bias: 8,
//!         signed: true,
//!         subnormals: true,
//!         specials: Specials::NegativeZeroNan,
//!         overflow: Overflow::Nan,
//!         ties: Ties::Even,
//!         nan_fallback: NanFallback::MaxPositive,
//!     };
//! }
//!
//! assert_eq!(E4M3Fnuz::from_f32(240.0).to_f32(), 240.0); // the largest value
//! assert_eq!(E4M3Fnuz::from_f32(0.3).to_f32(), 0.3125);
//! assert!(E4M3Fnuz::from_f32(1e6).is_nan());
//! assert_eq!(E4M3Fnuz::from_f32_satfinite(-1e6).to_f32(), -240.0);
//! assert_eq!(E4M3Fnuz::from_f32(-0.0).raw_bits(), 0x00); // no negative zero
//! assert!(E4M3Fnuz::from_raw_bits(0x80).is_nan());
//! ```
//!
//! # Conformance
//!
//! The test suite checks every code's value and the encoding of every input
//! row of the reference vectors (ml_dtypes 0.6.0 for round to nearest, the
//! PTX ISA text for the saturating rule) for all eleven formats, asserts
//! each reference-specific policy row (the `note` tags) with the rule
//! bitpack chose, and every bit pattern of every format round-trips.

mod block;
#[cfg(feature = "alloc")]
mod blocked;
mod bulk;
mod define;
#[cfg(feature = "alloc")]
mod mx;
mod names;
#[cfg(feature = "alloc")]
mod nvfp4;
mod types;
mod wide;

#[doc(inline)]
pub use crate::float::{FloatFormat, MiniFloat, Mode, NanFallback, Overflow, Specials, Ties};
#[cfg(feature = "cuda")]
pub(crate) use block::FP4_TIMES_FP8_MAX;
pub use block::gpu;
pub use block::{
    BlockGrid, MxElement, ScaleRule, ScaleWalk, TinyScale, block_amax, mx_codes, mx_scale,
    mx_scale_f32, mx_value, nvfp4_codes, nvfp4_scale, nvfp4_scale_f32, nvfp4_value, swizzled_index,
    swizzled_len,
};
#[cfg(feature = "cuda")]
pub(crate) use blocked::{scale_shape_along, split_axis, split_shape};
#[cfg(feature = "alloc")]
pub use blocked::{swizzle_scales, unswizzle_scales};
#[cfg(feature = "alloc")]
pub use bulk::{decode, decode_into, encode, encode_into};
pub use bulk::{decode_packed, decode_slice, encode_slice};
#[cfg(feature = "alloc")]
pub use mx::{MxArray, MxOptions};
pub use names::FormatNames;
#[cfg(feature = "cuda")]
pub(crate) use nvfp4::NO_FINITE_VALUE;
#[cfg(feature = "alloc")]
pub use nvfp4::{Nvfp4Array, Nvfp4Blocks, Nvfp4Options};
pub use types::{
    E2M1, E2M3, E3M2, E3M4, E4M3, E4M3B11Fnuz, E4M3Fnuz, E4M3Ieee, E5M2, E5M2Fnuz, E8M0,
};
#[cfg(feature = "half")]
pub use types::{bf16_from_f32_satfinite, f16_from_f32_satfinite};
pub use wide::encode_packed;
pub use wide::{
    Encoder, Real, Rounding, decode_packed_as, decode_slice_as, decode_unpacked_as, random_bits,
};
#[cfg(feature = "alloc")]
pub use wide::{decode_as, decode_into_as};
