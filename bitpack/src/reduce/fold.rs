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

use crate::narrow::aligned::mask64;
use crate::narrow::bulk::load;

/// `field` low bits set in every `period`-bit slot of a word, slot 0 at bit 0.
pub(crate) const fn rep_mask(field: u32, period: u32) -> u64 {
    let mut m = 0u64;
    let mut p = 0;
    while p < 64 {
        m |= mask64(field) << p;
        p += period;
    }
    m
}

/// The sum of the `w`-bit slots of `x`, exact when the sum fits a slot of
/// the final width: pairs of slots are added into slots twice as wide until
/// one slot remains.
#[inline(always)]
pub(crate) const fn hsum(mut x: u64, mut w: u32) -> u64 {
    while w < 64 {
        let m = rep_mask(w, 2 * w);
        x = (x & m) + ((x >> w) & m);
        w *= 2;
    }
    x
}

/// Constants of the fold for `W`-bit values (`W` in `2..=32`).
struct Fold {
    /// Even digits of the paired part.
    even: u64,
    /// Bit of the unpaired last digit (64 when there is none).
    top: u32,
    /// Words per flush of the slot accumulator.
    flush: usize,
}

impl Fold {
    #[inline(always)]
    const fn of(w: u32) -> Fold {
        if w > 32 {
            // Unused: one value per word needs no folding.
            return Fold {
                even: 0,
                top: 64,
                flush: 1,
            };
        }
        let per = 64 / w;
        let pairs = per / 2;
        let paired = 2 * w * pairs;
        let even = rep_mask(w, 2 * w) & mask64(paired);
        let top = if per % 2 == 1 { paired } else { 64 };
        let cap = mask64(2 * w) / (2 * mask64(w));
        let flush = if cap > 4096 { 4096 } else { cap as usize };
        Fold { even, top, flush }
    }
}

/// Sums the values of word-aligned words, each first ANDed with
/// `mask(k)` (`k` the word's position in `words`; an all-ones mask for a
/// plain sum). `W` in `3..=63`, not dividing 64.
#[inline(always)]
pub(crate) fn fold_words<const W: u32>(words: &[u64], mut mask: impl FnMut(usize) -> u64) -> u128 {
    let mut total = 0u128;
    if W > 32 {
        // One value per word.
        let flush = (u64::MAX / mask64(W)).min(4096) as usize;
        let mut k = 0;
        for chunk in words.chunks(flush) {
            let mut acc = 0u64;
            for &x in chunk {
                acc += load(x) & mask(k);
                k += 1;
            }
            total += u128::from(acc);
        }
        return total;
    }
    let f = const { Fold::of(W) };
    let mut k = 0;
    for chunk in words.chunks(f.flush) {
        let mut acc = 0u64;
        let mut extra = 0u64;
        for &x in chunk {
            let x = load(x) & mask(k);
            k += 1;
            acc += (x & f.even) + ((x >> W) & f.even);
            if f.top < 64 {
                extra += x >> f.top;
            }
        }
        total += u128::from(hsum(acc, 2 * W)) + u128::from(extra);
    }
    total
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
    total += fold_words::<W>(&words[w0 + 1..w1], |_| u64::MAX);
    if s1 > 0 {
        total += u128::from(word_sum::<W>(load(words[w1]) & mask64(s1 as u32 * W)));
    }
    total
}
