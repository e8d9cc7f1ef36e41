//! `pack_u8/u32_w*`: `U` values to the packed `W`-bit stream.

use super::super::fixed::Lane;
use super::super::simt::Simt;
use super::map_in;

/// Packs `src[..n]` (the low `W` bits of each) into `words_for(W, n)` words;
/// the last word's bits past value `n` are zero.
///
/// Fast path: `src` and `words` 16-byte aligned (128-bit loads and stores
/// only, the lanes of a warp on consecutive chunks of output); otherwise,
/// and near the ends, one load per value and one store per word (the same
/// result). See `map_in`.
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
    // SAFETY: the caller's promise.
    unsafe { map_in::<S, U, W>(s, src, n, words, |a, b| (a, b)) }
}
