//! `sum_w*` and `sum_partials`: exact sums of packed values.

use super::super::fixed;
use super::super::simt::{Simt, U32x4, aligned16, global_warp, grid_stride, lane, warp_sum_u64};
use super::super::words_for;
use super::{
    MAX_WORDS, each_value, extract, load_words_fast, load_words_slow, unit_values, unit_words,
};

/// One `u64` per warp of the grid: `partials[w]` = the sum of the values of
/// the units warp `w`'s threads take (wrapping at 2^64, as the launcher's
/// `u64` total does). The sum of the partials is the sum of the `n` values.
///
/// Fast path: `words` 16-byte aligned; otherwise, and for the last partial
/// unit, one load per word.
///
/// # Safety
///
/// `words` holds `words_for(W, n)` words and `partials` one `u64` per warp
/// of the grid (`grid_dim * block_dim / 32`); the block size is a multiple
/// of 32.
#[inline(always)]
pub unsafe fn sum<S: Simt, const W: u32>(s: &S, words: *const u64, n: usize, partials: *mut u64) {
    // Units sized as for `u8` values: 128-bit multiples of packed bits.
    let v = const { unit_values(W, 16) };
    let nw = const { unit_words(W, 16) };
    let fast = aligned16(words);
    let avail = words_for(W, n);
    let mut acc = 0u64;
    for u in grid_stride(s, n.div_ceil(v)) {
        let first = u * v;
        let count = (n - first).min(v);
        if fast && count == v {
            let mut regs = [0u64; MAX_WORDS];
            // SAFETY: a whole unit inside the aligned buffer.
            unsafe { load_words_fast(s, words, u, nw, &mut regs) };
            if W == 1 {
                unroll64!(k => {
                    if k < nw {
                        acc += regs[k].count_ones() as u64;
                    }
                });
            } else {
                // Every value in the unit: a constant shift and mask each.
                let mut part = 0u64;
                each_value!(v, j => {
                    part += extract::<W>(&regs, j);
                });
                acc = acc.wrapping_add(part);
            }
        } else {
            // SAFETY: the words below `avail`.
            acc = acc.wrapping_add(unsafe { slow_unit::<S, W>(s, words, u, count, avail) });
        }
    }
    // Every lane reaches the shuffles.
    let total = warp_sum_u64(s, acc);
    if lane(s) == 0 {
        // SAFETY: one `u64` per warp; warp `w` writes only its own.
        unsafe { s.store(partials, global_warp(s), total) };
    }
}

/// The sum of the first `count` values of unit `u`, one load per word
/// (kept out of line: the rare path).
///
/// # Safety
///
/// `words` holds `avail` words.
#[inline(never)]
unsafe fn slow_unit<S: Simt, const W: u32>(
    s: &S,
    words: *const u64,
    u: usize,
    count: usize,
    avail: usize,
) -> u64 {
    let nw = const { unit_words(W, 16) };
    let mut regs = [0u64; MAX_WORDS];
    // SAFETY: the caller's promise.
    unsafe { load_words_slow(s, words, u * nw, nw, avail, &mut regs) };
    for r in regs.iter_mut().take(nw) {
        *r = r.to_le();
    }
    fixed::sum::<W>(&regs[..nw], 0, count) as u64
}

/// `out[0]` = the sum of `partials[..n]` (wrapping), by the grid's first
/// warp; the other warps do nothing, so any grid is correct (one block of
/// 32 threads is enough).
///
/// Fast path: `partials` 16-byte aligned (two partials per 128-bit load);
/// otherwise one load per partial.
///
/// # Safety
///
/// `partials` holds `n` values and `out` one; the block size is a multiple
/// of 32.
#[inline(always)]
pub unsafe fn sum_partials<S: Simt>(s: &S, partials: *const u64, n: usize, out: *mut u64) {
    if global_warp(s) != 0 {
        return;
    }
    let l = lane(s) as usize;
    let mut acc = 0u64;
    let body = if aligned16(partials) { n / 2 } else { 0 };
    let mut i = l;
    while i < body {
        // SAFETY: chunk `i` holds partials `2i, 2i + 1 < n`.
        let [a, b] = unsafe { s.load(partials.cast::<U32x4>(), i) }.to_u64s();
        acc = acc.wrapping_add(a).wrapping_add(b);
        i += 32;
    }
    let mut i = 2 * body + l;
    while i < n {
        // SAFETY: `i < n`.
        acc = acc.wrapping_add(unsafe { s.load(partials, i) });
        i += 32;
    }
    let total = warp_sum_u64(s, acc);
    if l == 0 {
        // SAFETY: the caller's one-value output.
        unsafe { s.store(out, 0, total) };
    }
}
