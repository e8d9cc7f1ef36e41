//! `sum_w*` and `sum_partials`: exact sums of packed values.

use super::super::simt::{Simt, U32x4, aligned16, global_warp, grid_stride, lane, warp_sum_u64};
use super::super::words_for;
use super::{ChunkReader, Packed, Source, each_value, unit_len};

/// The widest `W` whose sum runs by bit planes (population counts); wider
/// values are taken one by one.
const PLANES_UP_TO: u32 = 5;

/// Ones at bits `0, w, 2w, ...` up to bit 63 (`w >= 1`): shifted left by
/// `r < w` and cut to 32 bits, the bits `p < 32` with `p % w == r`.
const fn every(w: u32) -> u64 {
    let mut t = 0u64;
    let mut p = 0;
    while p < 64 {
        t |= 1 << p;
        p += w;
    }
    t
}

/// Expands `$body` for `$b` in `0..PLANES_UP_TO`, a literal in each copy.
macro_rules! each_plane {
    ($b:ident => $body:block) => {
        each_plane!(@go $b $body; 0 1 2 3 4)
    };
    (@go $b:ident $body:block; $($n:literal)*) => {
        $( { let $b: usize = $n; $body } )*
    };
}

/// One `u64` per warp of the grid: `partials[w]` = the sum of the values of
/// the units warp `w`'s threads take (wrapping at 2^64, as the launcher's
/// `u64` total does). The sum of the partials is the sum of the `n` values.
///
/// A unit is the fewest values that fill whole 128-bit chunks. Fast path:
/// `words` 16-byte aligned, each unit read by 128-bit loads: at 1 bit a
/// population count per 32 bits; at 2 to 5 bits, for each bit `b` of a
/// value, a population count of the stream's bits at `b` (a mask per 32-bit
/// word, weighted `2^b` once per unit), which counts values that cross a
/// word like any other; at 6 bits and more, every value by a constant shift
/// and mask. Otherwise, and for the last partial unit, one value at a time.
///
/// # Safety
///
/// `words` holds `words_for(W, n)` words and `partials` one `u64` per warp
/// of the grid (`grid_dim * block_dim / 32`); the block size is a multiple
/// of 32.
#[inline(always)]
pub unsafe fn sum<S: Simt, const W: u32>(s: &S, words: *const u64, n: usize, partials: *mut u64) {
    let v = const { unit_len(W, 128) };
    let fast = aligned16(words);
    let src = Packed::<W, *const u64> {
        words,
        avail: words_for(W, n),
    };
    let mut acc = 0u64;
    for u in grid_stride(s, n.div_ceil(v)) {
        let first = u * v;
        let count = (n - first).min(v);
        let part = if fast && count == v {
            // SAFETY: a whole unit inside the aligned buffer.
            unsafe { sum_unit::<S, W>(s, words, u) }
        } else {
            // SAFETY: the values below `n`.
            unsafe { sum_slow(s, src, first, count) }
        };
        acc = acc.wrapping_add(part);
    }
    // Every lane reaches the shuffles.
    let total = warp_sum_u64(s, acc);
    if lane(s) == 0 {
        // SAFETY: one `u64` per warp; warp `w` writes only its own.
        unsafe { s.store(partials, global_warp(s), total) };
    }
}

/// The sum of unit `u` (whole, 16-byte aligned), by 128-bit loads.
///
/// # Safety
///
/// `words` is 16-byte aligned and holds unit `u`.
#[inline(always)]
unsafe fn sum_unit<S: Simt, const W: u32>(s: &S, words: *const u64, u: usize) -> u64 {
    let v = const { unit_len(W, 128) };
    let chunks = v * W as usize / 128;
    let mut rd = ChunkReader::new(s, words.cast::<U32x4>(), u * chunks);
    if W <= PLANES_UP_TO {
        let every = const { every(W) };
        // Per bit of a value, the count of its ones in the unit (at most
        // 32 per word, so a `u32` never overflows).
        let mut cnt = [0u32; PLANES_UP_TO as usize];
        unroll64!(q => {
            if q < 4 * chunks {
                // SAFETY: the caller's promise; the words walk forward.
                let word = (unsafe { rd.word(q / 2) } >> (32 * (q % 2))) as u32;
                let phase = (32 * q) % W as usize;
                each_plane!(b => {
                    if b < W as usize {
                        let r = (b + W as usize - phase) % W as usize;
                        cnt[b] += (word & (every << r) as u32).count_ones();
                    }
                });
            }
        });
        let mut total = 0u64;
        each_plane!(b => {
            if b < W as usize {
                total += (cnt[b] as u64) << b;
            }
        });
        total
    } else if W <= 24 {
        // At most 128 values below 2^24 each: a `u32` holds the sum.
        let mut part = 0u32;
        each_value!(v, j => {
            // SAFETY: the caller's promise; the bits walk forward.
            part += unsafe { rd.bits(j * W as usize, W) } as u32;
        });
        part as u64
    } else {
        let mut part = 0u64;
        each_value!(v, j => {
            // SAFETY: as above.
            part += unsafe { rd.bits(j * W as usize, W) };
        });
        part
    }
}

/// The sum of values `first..first + count`, one at a time (kept out of
/// line: the rare path).
///
/// # Safety
///
/// `src` holds those values.
#[inline(never)]
unsafe fn sum_slow<S: Simt, const W: u32>(
    s: &S,
    src: Packed<W, *const u64>,
    first: usize,
    count: usize,
) -> u64 {
    let mut acc = 0u64;
    for j in first..first + count {
        // SAFETY: the caller's promise.
        acc = acc.wrapping_add(unsafe { src.get(s, j) });
    }
    acc
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
