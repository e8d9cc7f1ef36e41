//! `unpack_u8/u16/u32_w*`: packed `W`-bit values to `U`.

use super::super::fixed::Lane;
use super::super::simt::Simt;
use super::map_out;

/// `out[i]` = value `i` of the `W`-bit stream `words`, for `i < n`.
///
/// Fast path: `words` and `out` 16-byte aligned, one 16-byte chunk of
/// output per thread, the lanes of a warp on consecutive chunks; otherwise,
/// and for the last partial chunk, one word load per value and whole 4-byte
/// words between an unrolled head and tail of `U`s (the same result). See
/// `map_out`.
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
    // SAFETY: the caller's promise.
    unsafe { map_out::<S, W, U>(s, words, n, out, |a, b| (a, b)) }
}
