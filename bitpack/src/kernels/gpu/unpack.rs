//! `unpack_u8/u16/u32_w*`: packed `W`-bit values to `U`.

use super::super::simt::Simt;
use super::super::words_for;
use super::super::fixed::Lane;
use super::{Array, Packed, map};

/// `out[i]` = value `i` of the `W`-bit stream `words`, for `i < n`.
///
/// Fast path: `words` and `out` 16-byte aligned (each unit one run of
/// 128-bit loads and stores, a chunk of each side in registers); otherwise,
/// and for the last partial unit, one word load per value and whole 4-byte
/// words between an unrolled head and tail of `U`s (the same result). See
/// [`map`](super::map).
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
    let src = Packed::<W, *const u64> {
        words,
        avail: words_for(W, n),
    };
    // SAFETY: the caller's promise.
    unsafe { map(s, src, n, Array(out), |a, b| (a, b)) }
}
