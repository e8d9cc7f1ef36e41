//! `encode_*` (from `f32`, `f16`, `bf16`) and `decode_*` (to `f32`, `f16`,
//! `bf16`): the small float formats' codes in the packed stream.
//!
//! Each body takes the format `F` and its width `W` (`F::BITS`, checked at
//! compile time) so that the unpack and pack of the codes are the
//! constant-shift kernels of [`fixed`].

use super::super::fixed;
use super::super::simt::{Simt, grid_stride};
use super::super::words_for;
use super::{
    MAX_VALUES, MAX_WORDS, both_aligned, deposit, each_value, extract, load_values_fast,
    load_values_slow, load_words_fast, load_words_slow, store_values_fast, store_values_slow,
    store_words_fast, store_words_slow, unit_values, unit_words,
};
use crate::float::{MiniFloat, Mode};

/// An element type an encode reads: `f32`, or `f16`/`bf16` bits, each
/// widened to `f32` exactly.
pub trait Input: bytemuck::Pod + Default {
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

#[cfg(feature = "half")]
impl<const BF: bool> Input for Half<BF> {
    #[inline(always)]
    fn widen(self) -> f32 {
        if BF {
            half::bf16::from_bits(self.0).to_f32()
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
/// Fast path: `src` and `words` 16-byte aligned; otherwise, and for the
/// last partial unit, one load per value and one store per word.
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
    let v = const { unit_values(W, size_of::<I>()) };
    let nw = const { unit_words(W, size_of::<I>()) };
    let fast = both_aligned(src, words);
    let avail = words_for(W, n);
    for u in grid_stride(s, n.div_ceil(v)) {
        let first = u * v;
        let count = (n - first).min(v);
        if fast && count == v {
            let mut regs = [0u64; MAX_WORDS];
            let mut vals = [I::default(); MAX_VALUES];
            // SAFETY: a whole unit inside both aligned buffers; this thread
            // alone writes its words.
            unsafe { load_values_fast(s, src, first, v, &mut vals) };
            // A pair of lanes at a time (the packed `cvt` where the target
            // has it), each code put at its constant place.
            each_value!(v, j => {
                if j.is_multiple_of(2) {
                    // (`get`: `j + 1 < v` always; no index to check.)
                    let hi = vals.get(j + 1).copied().unwrap_or_default();
                    let c = fixed::encode_pair::<F>(vals[j].widen(), hi.widen(), mode);
                    deposit::<W>(&mut regs, j, c as u64);
                    deposit::<W>(&mut regs, j + 1, (c >> W) as u64);
                }
            });
            // SAFETY: as above.
            unsafe { store_words_fast(s, words, u, nw, &regs) };
        } else {
            // SAFETY: the values below `n` and the words below `avail`.
            unsafe { encode_slow::<S, F, W, I>(s, src, u, count, words, avail, mode) };
        }
    }
}

/// The first `count` values of unit `u` of [`encode`], one load per value
/// and one store per word (kept out of line: the rare path).
///
/// # Safety
///
/// `src` holds the unit's first `count` values, `words` `avail` words, of
/// which this thread alone writes the unit's.
#[inline(never)]
unsafe fn encode_slow<S: Simt, F: MiniFloat, const W: u32, I: Input>(
    s: &S,
    src: *const I,
    u: usize,
    count: usize,
    words: *mut u64,
    avail: usize,
    mode: Mode,
) {
    let v = const { unit_values(W, size_of::<I>()) };
    let nw = const { unit_words(W, size_of::<I>()) };
    let mut regs = [0u64; MAX_WORDS];
    let mut vals = [I::default(); MAX_VALUES];
    let mut xs = [0f32; MAX_VALUES];
    // SAFETY: the caller's promise.
    unsafe { load_values_slow(s, src, u * v, count, &mut vals) };
    for (x, &a) in xs.iter_mut().zip(&vals).take(count) {
        *x = a.widen();
    }
    let k = words_for(W, count).min(nw);
    fixed::encode_words::<F>(&xs[..count], mode, &mut regs[..k]);
    for r in regs.iter_mut().take(nw) {
        *r = u64::from_le(*r);
    }
    // SAFETY: the caller's promise.
    unsafe { store_words_slow(s, words, u * nw, nw, avail, &regs) };
}

/// An element type a decode writes.
pub trait Output: bytemuck::Pod + Default {
    /// Decodes `codes` (one code per byte) of `F` into `out`.
    fn decode<F: MiniFloat>(codes: &[u8], out: &mut [Self]);
    /// Decodes the codes `a` and `b` of `F`.
    fn pair<F: MiniFloat>(a: u8, b: u8) -> [Self; 2];
}

impl Output for f32 {
    #[inline(always)]
    fn pair<F: MiniFloat>(a: u8, b: u8) -> [f32; 2] {
        fixed::decode_pair::<F>(a as u16 | (b as u16) << F::BITS)
    }
    #[inline(always)]
    fn decode<F: MiniFloat>(codes: &[u8], out: &mut [f32]) {
        // Pairs of lanes, through the packed `cvt` where the target has it.
        let last = out.len().wrapping_sub(1);
        let mut pairs = out.chunks_exact_mut(2);
        for (k, p) in (&mut pairs).enumerate() {
            let c = codes[2 * k] as u16 | (codes[2 * k + 1] as u16) << F::BITS;
            let [a, b] = fixed::decode_pair::<F>(c);
            p[0] = a;
            p[1] = b;
        }
        if let [x] = pairs.into_remainder() {
            *x = fixed::decode::<F>(F::from_raw_bits(codes[last]));
        }
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
    #[inline(always)]
    fn decode<F: MiniFloat>(codes: &[u8], out: &mut [Half<BF>]) {
        // One lookup per code, straight to the 16-bit bits: no `f32` on the
        // way (the table is a constant of the format).
        let table = const { &half_table::<F, BF>() };
        for (o, &c) in out.iter_mut().zip(codes) {
            *o = Half(table[c as usize]);
        }
    }
}

/// Decodes the `n` codes of `F` packed in `words` to `out`: the bits of
/// `F::to_f32` (for `f32`), or of that value as `f16`/`bf16` bits (exact for
/// the formats that have these entries).
///
/// Fast path: `words` and `out` 16-byte aligned; otherwise, and for the last
/// partial unit, one load per word and one store per value.
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
    let v = const { unit_values(W, size_of::<O>()) };
    let nw = const { unit_words(W, size_of::<O>()) };
    let fast = both_aligned(words, out);
    let avail = words_for(W, n);
    for u in grid_stride(s, n.div_ceil(v)) {
        let first = u * v;
        let count = (n - first).min(v);
        if fast && count == v {
            let mut regs = [0u64; MAX_WORDS];
            let mut vals = [O::default(); MAX_VALUES];
            // SAFETY: a whole unit inside both aligned buffers; this thread
            // alone writes its values.
            unsafe { load_words_fast(s, words, u, nw, &mut regs) };
            each_value!(v, j => {
                if j.is_multiple_of(2) {
                    let a = extract::<W>(&regs, j) as u8;
                    let b = extract::<W>(&regs, j + 1) as u8;
                    let [x, y] = O::pair::<F>(a, b);
                    vals[j] = x;
                    if let Some(d) = vals.get_mut(j + 1) {
                        *d = y;
                    }
                }
            });
            // SAFETY: as above.
            unsafe { store_values_fast(s, out, first, v, &vals) };
        } else {
            // SAFETY: the words below `avail` and the values below `n`.
            unsafe { decode_slow::<S, F, W, O>(s, words, u, avail, out, count) };
        }
    }
}

/// The first `count` values of unit `u` of [`decode`], one load per word and
/// one store per value (kept out of line: the rare path).
///
/// # Safety
///
/// `words` holds `avail` words, `out` the unit's first `count` values, which
/// this thread alone writes.
#[inline(never)]
unsafe fn decode_slow<S: Simt, F: MiniFloat, const W: u32, O: Output>(
    s: &S,
    words: *const u64,
    u: usize,
    avail: usize,
    out: *mut O,
    count: usize,
) {
    let v = const { unit_values(W, size_of::<O>()) };
    let nw = const { unit_words(W, size_of::<O>()) };
    let mut regs = [0u64; MAX_WORDS];
    let mut codes = [0u8; MAX_VALUES];
    let mut vals = [O::default(); MAX_VALUES];
    // SAFETY: the caller's promise.
    unsafe { load_words_slow(s, words, u * nw, nw, avail, &mut regs) };
    for r in regs.iter_mut().take(nw) {
        *r = r.to_le();
    }
    fixed::unpack::<W, u8>(&regs[..nw], 0, &mut codes[..count]);
    O::decode::<F>(&codes[..count], &mut vals[..count]);
    // SAFETY: the caller's promise.
    unsafe { store_values_slow(s, out, u * v, count, &vals) };
}
