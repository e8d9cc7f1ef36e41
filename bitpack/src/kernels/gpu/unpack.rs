//! `unpack_u8/u16/u32_w*`: packed `W`-bit values to `U`.

use super::super::fixed::{self, Lane};
use super::super::simt::{Simt, grid_stride};
use super::super::words_for;
use super::{
    MAX_VALUES, MAX_WORDS, both_aligned, each_value, extract, load_words_fast, load_words_slow,
    store_values_fast, store_values_slow, unit_values, unit_words,
};

/// `out[i]` = value `i` of the `W`-bit stream `words`, for `i < n`.
///
/// Fast path: `words` and `out` 16-byte aligned (each unit one run of
/// 128-bit loads, then 128-bit stores); otherwise, and for the last partial
/// unit, one word load and one `U` store per value (the same result).
///
/// # Safety
///
/// `words` holds `words_for(W, n)` words and `out` `n` values, valid for
/// the launch; nothing else writes `out` during it.
#[inline(always)]
pub unsafe fn unpack<S: Simt, const W: u32, U: Lane>(
    s: &S,
    words: *const u64,
    n: usize,
    out: *mut U,
) {
    let v = const { unit_values(W, U::BITS as usize / 8) };
    let fast = both_aligned(words, out);
    let avail = words_for(W, n);
    for u in grid_stride(s, n.div_ceil(v)) {
        let first = u * v;
        let count = (n - first).min(v);
        if fast && count == v {
            // SAFETY: a whole unit inside both aligned buffers; this thread
            // alone writes its values.
            unsafe { fast_unit::<S, W, U>(s, words, u, out) };
        } else {
            // SAFETY: the words below `avail` and the values below `n`.
            unsafe { slow_unit::<S, W, U>(s, words, u, avail, out, count) };
        }
    }
}

/// One whole unit through 128-bit loads and stores, in registers.
///
/// # Safety
///
/// Both buffers 16-byte aligned and holding unit `u`; this thread alone
/// writes its values.
#[inline(always)]
unsafe fn fast_unit<S: Simt, const W: u32, U: Lane>(
    s: &S,
    words: *const u64,
    u: usize,
    out: *mut U,
) {
    let v = const { unit_values(W, U::BITS as usize / 8) };
    let nw = const { unit_words(W, U::BITS as usize / 8) };
    let mut regs = [0u64; MAX_WORDS];
    let mut vals = [U::default(); MAX_VALUES];
    // SAFETY: the caller's promise.
    unsafe { load_words_fast(s, words, u, nw, &mut regs) };
    each_value!(v, j => {
        vals[j] = U::from_u64(extract::<W>(&regs, j));
    });
    // SAFETY: the caller's promise.
    unsafe { store_values_fast(s, out, u * v, v, &vals) };
}

/// The first `count` values of unit `u`, one access per word and value
/// (kept out of line: the rare path).
///
/// # Safety
///
/// `words` holds `avail` words and `out` values `u * v..u * v + count`,
/// which this thread alone writes.
#[inline(never)]
unsafe fn slow_unit<S: Simt, const W: u32, U: Lane>(
    s: &S,
    words: *const u64,
    u: usize,
    avail: usize,
    out: *mut U,
    count: usize,
) {
    let v = const { unit_values(W, U::BITS as usize / 8) };
    let nw = const { unit_words(W, U::BITS as usize / 8) };
    let mut regs = [0u64; MAX_WORDS];
    let mut vals = [U::default(); MAX_VALUES];
    // SAFETY: the caller's promise.
    unsafe { load_words_slow(s, words, u * nw, nw, avail, &mut regs) };
    for r in regs.iter_mut().take(nw) {
        *r = r.to_le();
    }
    fixed::unpack::<W, U>(&regs[..nw], 0, &mut vals[..count]);
    // SAFETY: the caller's promise.
    unsafe { store_values_slow(s, out, u * v, count, &vals) };
}
