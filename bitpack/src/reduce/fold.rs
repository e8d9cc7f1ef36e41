//! Sums over whole words of the word-aligned layout, by in-word digit
//! folding.
//!
//! A word-aligned word of `W`-bit values (`64 mod W != 0`; the other widths
//! are the dense layout) holds `p = floor(64 / W)` base-`2^W` digits at bits
//! `0, W, ..., (p - 1) W` and zero above. One mask-and-shift step adds the
//! digits pairwise into `2W`-bit slots: `(x & M) + ((x >> W) & M)`, `M`
//! selecting the even digits of the first `2 * floor(p / 2)`; an odd last
//! digit is `x >> (2W floor(p / 2))` (the gap above it is zero). The slot
//! accumulator takes a bounded number of words before its slots are folded
//! into one ([`hsum`]) and flushed into the `u128` total: each word adds at
//! most `2 (2^W - 1)` to a slot of `2W` bits, so the bound is `(2^(2W) - 1)
//! / (2^(W + 1) - 2)` words (4 for 3 bits, 16 for 5, 64 for 7, capped at
//! 4096), and the sum is exact for any data. For `W > 32` each word holds one
//! value, summed directly.
//!
//! Every mask, shift and bound is a constant of `W`. A masked variant ANDs
//! each word with a periodic mask first: the strided sums use it to keep only
//! the selected slots.

pub(crate) use crate::kernels::bits::{hsum, rep_mask};
use crate::kernels::bits::{load, mask64};

/// Constants of the fold for `W`-bit values (`W` in `3..=63`, not dividing
/// 64).
pub(crate) struct Fold {
    /// Even digits of the paired part (first level).
    even: u64,
    /// Even `2W`-bit slots (second level; 0 when there is one level).
    even2: u64,
    /// The width of the accumulator's slots: `2W`, or `4W` with two levels.
    slot: u32,
    /// Bit of the unpaired last digit (64 when there is none).
    top: u32,
    /// Words per flush of the slot accumulator.
    pub(crate) flush: usize,
}

impl Fold {
    /// The constants for `w`: one fold level when its accumulator takes at
    /// least 256 words between flushes, two otherwise (3, 5, 6 and 7 bits),
    /// the second adding the `2W`-bit slots pairwise into `4W`-bit ones.
    pub(crate) const fn of(w: u32) -> Fold {
        if w > 32 {
            // One value per word: summed as it is.
            let cap = u64::MAX / mask64(w);
            return Fold {
                even: 0,
                even2: 0,
                slot: 64,
                top: 64,
                flush: if cap > 4096 { 4096 } else { cap as usize },
            };
        }
        let per = 64 / w;
        let pairs = per / 2;
        let paired = 2 * w * pairs;
        let even = rep_mask(w, 2 * w) & mask64(paired);
        let top = if per % 2 == 1 { paired } else { 64 };
        // A word adds at most `2 (2^W - 1)` to a `2W`-bit slot.
        let cap1 = mask64(2 * w) / (2 * mask64(w));
        if cap1 >= 32 || pairs < 2 {
            return Fold {
                even,
                even2: 0,
                slot: 2 * w,
                top,
                flush: if cap1 > 4096 { 4096 } else { cap1 as usize },
            };
        }
        // A word adds at most `4 (2^W - 1)` to a `4W`-bit slot; the last slot
        // may be cut by bit 64.
        let even2 = rep_mask(2 * w, 4 * w) & mask64(paired);
        let last = 4 * w * ((pairs - 1) / 2);
        let room = if 64 - last < 4 * w { 64 - last } else { 4 * w };
        let cap2 = mask64(room) / (4 * mask64(w));
        Fold {
            even,
            even2,
            slot: 4 * w,
            top,
            flush: if cap2 > 4096 { 4096 } else { cap2 as usize },
        }
    }
}

/// Sums the values of word-aligned words (`W` in `3..=63`, not dividing 64).
/// `MASKED`: word `k` of each chunk of `ext.len()` words is first ANDed with
/// `ext[k]` (a periodic mask expanded over the chunk, at most
/// [`Fold::flush`] words long, in phase with `words[0]`).
#[inline(always)]
fn fold_body<const W: u32, const MASKED: bool>(words: &[u64], ext: &[u64]) -> u128 {
    let f = const { Fold::of(W) };
    let chunk = if MASKED { ext.len() } else { f.flush };
    let mut total = 0u128;
    for ws in words.chunks(chunk) {
        let mut acc = 0u64;
        let mut extra = 0u64;
        let mut step = |x: u64| {
            if W > 32 {
                acc += x;
                return;
            }
            let mut y = (x & f.even) + ((x >> W) & f.even);
            if f.even2 != 0 {
                y = (y & f.even2) + ((y >> (2 * W)) & f.even2);
            }
            acc += y;
            if f.top < 64 {
                extra += x >> f.top;
            }
        };
        if MASKED {
            for (&x, &m) in ws.iter().zip(ext) {
                step(load(x) & m);
            }
        } else {
            for &x in ws {
                step(load(x));
            }
        }
        total += u128::from(hsum(acc, f.slot)) + u128::from(extra);
    }
    total
}

/// [`fold_body`], by its AVX2 build (`kernels::with_avx2`: the loop
/// vectorizes four words at a time) where the CPU has AVX2 and there are
/// enough words to gain.
#[inline(always)]
pub(crate) fn fold_words<const W: u32, const MASKED: bool>(words: &[u64], ext: &[u64]) -> u128 {
    if words.len() >= 32 {
        return crate::kernels::with_avx2(|| fold_body::<W, MASKED>(words, ext));
    }
    fold_body::<W, MASKED>(words, ext)
}

/// The sum of the values of one word-aligned word (any of its slots, gap
/// zero), or of a word shifted down so that a slot starts at bit 0.
#[inline(always)]
pub(crate) fn word_sum<const W: u32>(x: u64) -> u64 {
    if W > 32 {
        return x;
    }
    let f = const { Fold::of(W) };
    let acc = (x & f.even) + ((x >> W) & f.even);
    hsum(acc, 2 * W) + if f.top < 64 { x >> f.top } else { 0 }
}

/// The sum of the word-aligned values `start..start + count` (`W` in
/// `3..=63`, not dividing 64): a partial first word, whole words folded, a
/// partial last word.
pub(crate) fn sum_aligned<const W: u32>(words: &[u64], start: usize, count: usize) -> u128 {
    if count == 0 {
        return 0;
    }
    let per = (64 / W) as usize;
    let end = start + count;
    let (w0, s0) = (start / per, start % per);
    let (w1, s1) = (end / per, end % per);
    if w0 == w1 {
        let x = (load(words[w0]) & mask64(s1 as u32 * W)) >> (s0 as u32 * W);
        return u128::from(word_sum::<W>(x));
    }
    let mut total = u128::from(word_sum::<W>(load(words[w0]) >> (s0 as u32 * W)));
    total += fold_words::<W, false>(&words[w0 + 1..w1], &[]);
    if s1 > 0 {
        total += u128::from(word_sum::<W>(load(words[w1]) & mask64(s1 as u32 * W)));
    }
    total
}
