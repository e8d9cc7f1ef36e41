//! `encode_*` (from `f32`, `f16`, `bf16`) and `decode_*` (to `f32`, `f16`,
//! `bf16`): the small float formats' codes in the packed stream.
//!
//! Each body takes the format `F` and its width `W` (`F::BITS`, checked at
//! compile time) so that the unpack and pack of the codes are the
//! constant-shift kernels of [`fixed`].

use super::super::fixed;
use super::super::simt::Simt;
use super::{Elem, map_in, map_out, mask};
use crate::float::{MiniFloat, Mode};

/// An element type an encode reads: `f32`, or `f16`/`bf16` bits, each
/// widened to `f32` exactly.
pub trait Input: Elem + Default {
    /// Whether the bits are `bf16`'s (`f16`'s for the other 16-bit input).
    const BF16: bool = false;
    /// The value as an `f32` (exact).
    fn widen(self) -> f32;
}

impl Input for f32 {
    #[inline(always)]
    fn widen(self) -> f32 {
        self
    }
}

/// `f16` bits (`BF = false`) or `bf16` bits (`BF = true`), as a kernel
/// reads and writes them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub struct Half<const BF: bool>(pub u16);

// SAFETY: a `repr(transparent)` `u16`: no padding, every bit pattern valid.
unsafe impl<const BF: bool> bytemuck::Zeroable for Half<BF> {}
// SAFETY: as above; `Copy` and `'static`.
unsafe impl<const BF: bool> bytemuck::Pod for Half<BF> {}

impl<const BF: bool> Elem for Half<BF> {
    const BITS: u32 = 16;
    #[inline(always)]
    fn to_bits(self) -> u64 {
        self.0 as u64
    }
    #[inline(always)]
    fn from_bits(x: u64) -> Self {
        Half(x as u16)
    }
}

#[cfg(feature = "half")]
impl<const BF: bool> Input for Half<BF> {
    const BF16: bool = BF;
    #[inline(always)]
    fn widen(self) -> f32 {
        // One `cvt.f32.f16` on the GPU (the `half` crate's conversion is a
        // software one on that target).
        #[cfg(target_arch = "nvptx64")]
        if !BF {
            return super::super::ptx::f32x2_from_f16x2(self.0 as u32)[0];
        }
        if BF {
            // The bits in the high half: the same value (a NaN keeps its
            // payload, where `half` quiets a signalling one; no output
            // depends on a NaN's payload).
            f32::from_bits(u32::from(self.0) << 16)
        } else {
            half::f16::from_bits(self.0).to_f32()
        }
    }
}

/// Encodes `src[..n]` into `F`'s codes (`mode` the rounding rule), packed
/// densely into `words_for(W, n)` words, padding bits zero: the bits of
/// `kernels::encode` on the host (and of `F::from_f32` per value, or of the
/// value widened to `f32` for `f16`/`bf16` inputs, which is exact).
///
/// Fast path: `src` and `words` 16-byte aligned (128-bit loads and stores,
/// the lanes of a warp on consecutive chunks of output, a pair of lanes per
/// conversion: the packed `cvt` where the target has it); otherwise, and
/// near the ends, one load per value and one store per word. See
/// `map_in`.
///
/// # Safety
///
/// `src` holds `n` values, `words` room for `words_for(W, n)` words, valid
/// for the launch; nothing else writes `words` during it.
#[inline(always)]
pub unsafe fn encode<S: Simt, F: MiniFloat, const W: u32, I: Input>(
    s: &S,
    src: *const I,
    n: usize,
    words: *mut u64,
    mode: Mode,
) {
    const { assert!(W == F::BITS, "W must be F::BITS") };
    let f = move |a: u64, b: u64| {
        let c = fixed::encode_pair::<F>(I::from_bits(a).widen(), I::from_bits(b).widen(), mode);
        (c as u64 & mask(W), (c >> W) as u64)
    };
    // SAFETY: the caller's promise.
    unsafe { map_in::<S, I, W>(s, src, n, words, f) }
}

/// An element type a decode writes.
pub trait Output: Elem + Default {
    /// Decodes the codes `a` and `b` of `F`.
    fn pair<F: MiniFloat>(a: u8, b: u8) -> [Self; 2];
}

impl Output for f32 {
    #[inline(always)]
    fn pair<F: MiniFloat>(a: u8, b: u8) -> [f32; 2] {
        fixed::decode_pair::<F>(a as u16 | (b as u16) << F::BITS)
    }
}

/// The `f16` (or, with `BF`, `bf16`) bits of every code of `F` (256 entries;
/// those past `2^F::BITS` unused): the value of `F::to_f32` rounded to the
/// 16-bit type, which holds it exactly for the formats decoded to 16 bits.
#[cfg(feature = "half")]
pub const fn half_table<F: MiniFloat, const BF: bool>() -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut c = 0;
    while c < 256 && c < 1 << F::BITS {
        let x = F::FORMAT.decode_f32(c as u32);
        t[c] = if BF {
            half::bf16::from_f32_const(x).to_bits()
        } else {
            half::f16::from_f32_const(x).to_bits()
        };
        c += 1;
    }
    t
}

#[cfg(feature = "half")]
impl<const BF: bool> Output for Half<BF> {
    #[inline(always)]
    fn pair<F: MiniFloat>(a: u8, b: u8) -> [Self; 2] {
        let table = const { &half_table::<F, BF>() };
        [Half(table[a as usize]), Half(table[b as usize])]
    }
}

/// Decodes the `n` codes of `F` packed in `words` to `out`: the bits of
/// `F::to_f32` (for `f32`), or of that value as `f16`/`bf16` bits (exact for
/// the formats that have these entries).
///
/// Fast path: `words` and `out` 16-byte aligned, one 16-byte chunk of
/// output per thread (the lanes of a warp on consecutive chunks), a pair of
/// codes per conversion; otherwise, and for the last partial chunk, one
/// load per word and whole 4-byte words of output between an unrolled head
/// and tail. See `map_out`.
///
/// # Safety
///
/// `words` holds `words_for(W, n)` words and `out` room for `n` values,
/// valid for the launch; nothing else writes `out` during it.
#[inline(always)]
pub unsafe fn decode<S: Simt, F: MiniFloat, const W: u32, O: Output>(
    s: &S,
    words: *const u64,
    n: usize,
    out: *mut O,
) {
    const { assert!(W == F::BITS && W <= 8, "W must be F::BITS") };
    let f = |a: u64, b: u64| {
        let [x, y] = O::pair::<F>(a as u8, b as u8);
        (x.to_bits(), y.to_bits())
    };
    // SAFETY: the caller's promise.
    unsafe { map_out::<S, W, O>(s, words, n, out, f) }
}
