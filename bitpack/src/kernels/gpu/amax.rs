//! `amax_partials`: the largest finite magnitude of `f32`s.

use super::super::simt::{Simt, U32x4, aligned16, global_warp, grid_stride, lane, warp_max_u32};

/// The magnitude bits of `x` (sign cleared) if finite, else 0.
#[inline(always)]
fn mag(bits: u32) -> u32 {
    let b = bits & 0x7fff_ffff;
    if b < 0x7f80_0000 { b } else { 0 }
}

/// One `u32` per warp: the largest `|x|` bits (sign cleared) over the
/// finite values of the warp's grid-stride share of `src[..n]` (0 if none),
/// whose order is the order of the magnitudes.
///
/// Fast path: `src` 16-byte aligned (four values per 128-bit load, the last
/// `n % 4` values one at a time); otherwise one load per value.
///
/// # Safety
///
/// `src` holds `n` values, `partials` one `u32` per warp of the grid; the
/// block size is a multiple of 32.
#[inline(always)]
pub unsafe fn amax_partials<S: Simt>(s: &S, src: *const f32, n: usize, partials: *mut u32) {
    let mut m = 0u32;
    let chunks = if aligned16(src) { n / 4 } else { 0 };
    for c in grid_stride(s, chunks) {
        // SAFETY: chunk `c` holds values `4c..4c + 4 <= n`.
        let x = unsafe { s.load(src.cast::<U32x4>(), c) };
        for b in x.0 {
            m = m.max(mag(b));
        }
    }
    for i in grid_stride(s, n - 4 * chunks) {
        // SAFETY: `4 * chunks + i < n`.
        let b = unsafe { s.load(src, 4 * chunks + i) }.to_bits();
        m = m.max(mag(b));
    }
    let m = warp_max_u32(s, m);
    if lane(s) == 0 {
        // SAFETY: one `u32` per warp; warp `w` writes only its own.
        unsafe { s.store(partials, global_warp(s), m) };
    }
}
