//! `pack_u8/u32_w*`: `U` values to the packed `W`-bit stream.

use super::super::fixed::{self, Lane};
use super::super::simt::{Simt, grid_stride};
use super::super::words_for;
use super::{
    MAX_VALUES, MAX_WORDS, both_aligned, deposit, each_value, load_values_fast, load_values_slow,
    store_words_fast, store_words_slow, unit_values, unit_words,
};

/// Packs `src[..n]` (the low `W` bits of each) into `words_for(W, n)` words;
/// the last word's bits past value `n` are zero.
///
/// Fast path: `src` and `words` 16-byte aligned; otherwise, and for the
/// last partial unit, one load per value and one store per word.
///
/// # Safety
///
/// `src` holds `n` values and `words` `words_for(W, n)` words, valid for the
/// launch; nothing else writes `words` during it.
#[inline(always)]
pub unsafe fn pack<S: Simt, const W: u32, U: Lane>(
    s: &S,
    src: *const U,
    n: usize,
    words: *mut u64,
) {
    let v = const { unit_values(W, U::BITS as usize / 8) };
    let fast = both_aligned(src, words);
    let avail = words_for(W, n);
    for u in grid_stride(s, n.div_ceil(v)) {
        let first = u * v;
        let count = (n - first).min(v);
        if fast && count == v {
            // SAFETY: a whole unit inside both aligned buffers; this thread
            // alone writes its words.
            unsafe { fast_unit::<S, W, U>(s, src, u, words) };
        } else {
            // SAFETY: the values below `n` and the words below `avail`.
            unsafe { slow_unit::<S, W, U>(s, src, u, count, words, avail) };
        }
    }
}

/// One whole unit through 128-bit loads and stores, in registers.
///
/// # Safety
///
/// Both buffers 16-byte aligned and holding unit `u`; this thread alone
/// writes its words.
#[inline(always)]
unsafe fn fast_unit<S: Simt, const W: u32, U: Lane>(
    s: &S,
    src: *const U,
    u: usize,
    words: *mut u64,
) {
    let v = const { unit_values(W, U::BITS as usize / 8) };
    let nw = const { unit_words(W, U::BITS as usize / 8) };
    let mut regs = [0u64; MAX_WORDS];
    let mut vals = [U::default(); MAX_VALUES];
    // SAFETY: the caller's promise.
    unsafe { load_values_fast(s, src, u * v, v, &mut vals) };
    each_value!(v, j => {
        deposit::<W>(&mut regs, j, vals[j].to_u64());
    });
    // SAFETY: the caller's promise.
    unsafe { store_words_fast(s, words, u, nw, &regs) };
}

/// The first `count` values of unit `u`, one access per value and word
/// (kept out of line: the rare path).
///
/// # Safety
///
/// `src` holds values `u * v..u * v + count`, `words` holds `avail` words;
/// this thread alone writes the unit's words.
#[inline(never)]
unsafe fn slow_unit<S: Simt, const W: u32, U: Lane>(
    s: &S,
    src: *const U,
    u: usize,
    count: usize,
    words: *mut u64,
    avail: usize,
) {
    let v = const { unit_values(W, U::BITS as usize / 8) };
    let nw = const { unit_words(W, U::BITS as usize / 8) };
    let mut regs = [0u64; MAX_WORDS];
    let mut vals = [U::default(); MAX_VALUES];
    // SAFETY: the caller's promise.
    unsafe { load_values_slow(s, src, u * v, count, &mut vals) };
    fixed::pack::<W, U>(&vals[..count], &mut regs[..nw], 0);
    for r in regs.iter_mut().take(nw) {
        *r = u64::from_le(*r);
    }
    // SAFETY: the caller's promise.
    unsafe { store_words_slow(s, words, u * nw, nw, avail, &regs) };
}
