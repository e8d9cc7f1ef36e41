//! Sums of runs `start, start + stride, ..., start + (count - 1) * stride`,
//! monomorphized per width and layout (the tables are in `super`).
//!
//! Three kernels, chosen per run by its stride and length:
//!
//! - *Contiguous* (stride 1): the dense whole-array kernel of
//!   [`crate::kernels::sum`] (popcount, digit folding, byte reduction), or the
//!   word-aligned fold of [`super::fold`].
//! - *Masked* (a small stride, at least one selected value per word on
//!   average: `stride * W <= 64` dense, `stride <= floor(64 / W)`
//!   word-aligned): every word of the run is ANDed with a periodic mask that
//!   keeps the selected values, then folded like a contiguous sum. The mask
//!   period is at most 64 words and is built once per run; dense runs are
//!   masked into a 2 KiB stack buffer a block of words at a time and summed
//!   by the dense kernel.
//! - *Reader* (any other stride): a cursor that steps by the stride with
//!   additions only (a bit position dense, a word and slot word-aligned),
//!   one shift and mask per value, no division and no call per value.
//!
//! Sums accumulate in `u64` for at most `u64::MAX / (2^W - 1)` values at a
//! time and in `u128` across those, so every sum is exact.

use super::fold::{fold_words, word_sum};
use crate::narrow::aligned::mask64;
use crate::narrow::bulk::load;
use crate::narrow::stream::Cursor;

/// Whether the dense kernels read the stored words as they are (see
/// `narrow::stream`).
pub(crate) const KERNEL_WORDS: bool = cfg!(target_endian = "little");

/// Runs shorter than this use the reader whatever their stride.
const SHORT: usize = 32;

/// `gcd(a, b)` for `a, b >= 1`.
const fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// The reader: one value per step of a division-free cursor.
#[inline(always)]
fn sum_reader(
    aligned: bool,
    w: u32,
    words: &[u64],
    start: usize,
    stride: isize,
    count: usize,
) -> u128 {
    let per_acc = (u64::MAX / mask64(w)).min(usize::MAX as u64) as usize;
    let mut c = Cursor::new(aligned, w, start, stride);
    let mut total = 0u128;
    let mut left = count;
    while left > 0 {
        let n = left.min(per_acc);
        let mut acc = 0u64;
        for _ in 0..n {
            acc += c.read(aligned, w, words);
            c.advance(aligned, w);
        }
        total += u128::from(acc);
        left -= n;
    }
    total
}

/// Dense contiguous run.
pub(crate) fn contiguous_dense<const W: u32>(words: &[u64], start: usize, count: usize) -> u128 {
    if KERNEL_WORDS && count >= SHORT {
        crate::kernels::sum(W, words, start, count).expect("stream bounds checked by the caller")
    } else {
        sum_reader(false, W, words, start, 1, count)
    }
}

/// Word-aligned contiguous run.
pub(crate) fn contiguous_aligned<const W: u32>(words: &[u64], start: usize, count: usize) -> u128 {
    if 64 % W == 0 {
        contiguous_dense::<W>(words, start, count)
    } else if count >= SHORT {
        super::fold::sum_aligned::<W>(words, start, count)
    } else {
        sum_reader(true, W, words, start, 1, count)
    }
}

/// Dense run with `stride >= 2`.
pub(crate) fn strided_dense<const W: u32>(
    words: &[u64],
    start: usize,
    stride: usize,
    count: usize,
) -> u128 {
    if KERNEL_WORDS && count >= SHORT && stride.saturating_mul(W as usize) <= 64 {
        masked_dense::<W>(words, start, stride, count)
    } else {
        sum_reader(false, W, words, start, stride as isize, count)
    }
}

/// Word-aligned run with `stride >= 2`.
pub(crate) fn strided_aligned<const W: u32>(
    words: &[u64],
    start: usize,
    stride: usize,
    count: usize,
) -> u128 {
    if 64 % W == 0 {
        return strided_dense::<W>(words, start, stride, count);
    }
    if count >= SHORT && stride <= (64 / W) as usize {
        masked_aligned::<W>(words, start, stride, count)
    } else {
        sum_reader(true, W, words, start, stride as isize, count)
    }
}

/// Dense masked sum, `2 <= stride`, `stride * W <= 64` (little-endian).
fn masked_dense<const W: u32>(words: &[u64], start: usize, stride: usize, count: usize) -> u128 {
    const BUF: usize = 256;
    let w = W as usize;
    // Blocks of `block_words` words start on element boundaries.
    let block_words = w / gcd(w, 64);
    let chunk = BUF / block_words * block_words;
    let period = stride * w;
    let last = start + (count - 1) * stride;
    let first_bit = start * w;
    let end_word = ((last + 1) * w).div_ceil(64);
    let mut k = first_bit / 64 / block_words * block_words;

    // Bit `t` of `pattern` is set when `t mod period < W`: the selected
    // values of a stream starting at a selected value. Word `k` sees it from
    // bit `(64 k - first_bit) mod period`.
    let mut pattern = 0u128;
    let mut t = 0;
    while t < 128 {
        pattern |= u128::from(mask64(W)) << t;
        t += period;
    }
    let masks_len = period / gcd(period, 64);
    let mut masks = [0u64; 64];
    let mut phase = (period - (first_bit - 64 * k) % period) % period;
    for m in masks.iter_mut().take(masks_len) {
        *m = (pattern >> phase) as u64;
        phase = (phase + 64) % period;
    }

    let mut buf = [0u64; BUF];
    let mut mi = 0;
    let mut total = 0u128;
    while k < end_word {
        let n = chunk.min(end_word - k);
        for (b, &x) in buf[..n].iter_mut().zip(&words[k..k + n]) {
            *b = load(x) & masks[mi];
            mi += 1;
            if mi == masks_len {
                mi = 0;
            }
        }
        let e0 = k * 64 / w;
        let e1 = (k + n) * 64 / w;
        let lo = e0.max(start);
        let hi = e1.min(last + 1);
        if hi > lo {
            total += crate::kernels::sum(W, &buf[..n], lo - e0, hi - lo)
                .expect("the chunk holds the values it sums");
        }
        k += n;
    }
    total
}

/// Word-aligned masked sum, `2 <= stride <= floor(64 / W)`, `64 mod W != 0`.
fn masked_aligned<const W: u32>(words: &[u64], start: usize, stride: usize, count: usize) -> u128 {
    let per = (64 / W) as usize;
    let last = start + (count - 1) * stride;
    let (w0, s0) = (start / per, start % per);
    let (w1, s1) = (last / per, last % per);
    // Word `w0 + j` has its first selected slot at `r_j`, and
    // `r_{j+1} = (r_j - per) mod stride`: period `stride / gcd(stride, per)`.
    let masks_len = stride / gcd(stride, per);
    let mut masks = [0u64; 32];
    let back = stride - per % stride;
    let mut r = s0 % stride;
    for m in masks.iter_mut().take(masks_len) {
        let mut slot = r;
        let mut bits = 0u64;
        while slot < per {
            bits |= mask64(W) << (slot as u32 * W);
            slot += stride;
        }
        *m = bits;
        r = (r + back) % stride;
    }
    let from_s0 = !mask64(s0 as u32 * W);
    let to_s1 = mask64((s1 as u32 + 1) * W);
    if w0 == w1 {
        return u128::from(word_sum::<W>(load(words[w0]) & masks[0] & from_s0 & to_s1));
    }
    let mut total = u128::from(word_sum::<W>(load(words[w0]) & masks[0] & from_s0));
    let mut mi = 1 % masks_len;
    total += fold_words::<W>(&words[w0 + 1..w1], |_| {
        let m = masks[mi];
        mi += 1;
        if mi == masks_len {
            mi = 0;
        }
        m
    });
    let tail = masks[(w1 - w0) % masks_len];
    total + u128::from(word_sum::<W>(load(words[w1]) & tail & to_s1))
}
