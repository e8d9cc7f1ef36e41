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
use crate::kernels::bits::load;
use crate::kernels::bits::mask64;
use crate::kernels::stream::Cursor;

/// Whether the dense kernels read the stored words as they are (see
/// `kernels::stream`).
pub(crate) const KERNEL_WORDS: bool = cfg!(target_endian = "little");

/// Runs shorter than this use the reader whatever their stride.
const SHORT: usize = 32;

/// Runs shorter than this use the reader rather than the masked kernels
/// (which build up to 1 KiB of masks first).
const MASKED_MIN: usize = 128;

/// Dense runs use the masked kernel up to this many bits per step (beyond,
/// the reader, which touches only the selected values, wins: measured with
/// `examples`-style probes on 5-bit data, the masked kernel costs about 0.45
/// ns per word read, the reader about 0.8 ns per value).
const DENSE_MASKED_MAX: usize = 96;

/// Word-aligned runs use the masked kernel up to this many words per step
/// (about 0.2 ns per word against 1.1 ns per value for the reader).
const ALIGNED_MASKED_WORDS: usize = 4;

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
        crate::kernels::Sum::of::<W>()
            .run(words, start, count)
            .expect("stream bounds checked by the caller")
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
    if KERNEL_WORDS && count >= MASKED_MIN && stride.saturating_mul(W as usize) <= DENSE_MASKED_MAX
    {
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
    let masked_ok = const {
        W <= 32 && super::fold::Fold::of(W).flush >= ALIGNED_MASKED_WORDS * (64 / W) as usize
    };
    if masked_ok && count >= MASKED_MIN && stride <= ALIGNED_MASKED_WORDS * (64 / W) as usize {
        masked_aligned::<W>(words, start, stride, count)
    } else {
        sum_reader(true, W, words, start, stride as isize, count)
    }
}

/// Stack words of expanded masks in the masked kernels (1 KiB).
const MASK_BUF: usize = 128;

/// Stack words of masked words in the dense masked kernel (8 KiB: the
/// dense kernel has a fixed cost per call of about as much as 500 words).
const WORD_BUF: usize = 1024;

/// `buf[j] = load(words[j]) & ext[j % ext.len()]`, where `words.len()` is a
/// multiple of `ext.len()` or the last piece is short.
#[inline(always)]
fn mask_into(buf: &mut [u64], words: &[u64], ext: &[u64]) {
    for (b, w) in buf.chunks_mut(ext.len()).zip(words.chunks(ext.len())) {
        for ((b, &x), &m) in b.iter_mut().zip(w).zip(ext) {
            *b = load(x) & m;
        }
    }
}

/// [`mask_into`], by its AVX2 build where the CPU has AVX2.
#[inline(always)]
fn mask_words(buf: &mut [u64], words: &[u64], ext: &[u64]) {
    crate::kernels::with_avx2(|| mask_into(buf, words, ext));
}

/// The bits of a 64-bit word that start `phase` bits into a period of
/// `period` bits and lie in the first `w` bits of a period.
fn period_mask(phase: usize, period: usize, w: usize) -> u64 {
    let mut m = 0u64;
    let mut t = -(phase as isize);
    while t < 64 {
        let lo = t.max(0) as u32;
        let hi = (t + w as isize).min(64);
        if hi > lo as isize {
            m |= mask64(hi as u32 - lo) << lo;
        }
        t += period as isize;
    }
    m
}

/// Dense masked sum, `2 <= stride`, `stride * W <= 96` (little-endian).
///
/// Word `k` of the run keeps the bits `t` with `(64 k + t - start * W) mod
/// (stride * W) < W`; the masks repeat every `P = stride W / gcd(stride W,
/// 64)` words (at most 96), and `P` is a multiple of the dense block length
/// `W / gcd(W, 64)`. Chunks of up to 512 words, a multiple of `P` (whole
/// blocks, so whole values), are masked into a stack buffer by a
/// vectorized loop over the masks expanded to at most 128 words, then summed
/// by [`crate::kernels::sum`].
fn masked_dense<const W: u32>(words: &[u64], start: usize, stride: usize, count: usize) -> u128 {
    let w = W as usize;
    let period = stride * w;
    let last = start + (count - 1) * stride;
    let first_bit = start * w;
    let end_word = ((last + 1) * w).div_ceil(64);
    let masks_len = period / gcd(period, 64);
    let block_words = w / gcd(w, 64);
    debug_assert_eq!(masks_len % block_words, 0);
    let ext_len = MASK_BUF / masks_len * masks_len;
    let chunk = WORD_BUF / ext_len * ext_len;
    let mut k = first_bit / 64 / block_words * block_words;

    // Word `k` starts `(64 k - first_bit) mod period` bits into a period,
    // whose first `W` bits are the selected value.
    let mut ext = [0u64; MASK_BUF];
    let mut phase = (period - (first_bit - 64 * k) % period) % period;
    for e in ext.iter_mut().take(masks_len) {
        *e = period_mask(phase, period, w);
        phase = (phase + 64) % period;
    }
    for j in masks_len..ext_len {
        ext[j] = ext[j - masks_len];
    }

    let mut buf = [0u64; WORD_BUF];
    let mut total = 0u128;
    let sum = crate::kernels::Sum::of::<W>();
    while k < end_word {
        let n = chunk.min(end_word - k);
        mask_words(&mut buf[..n], &words[k..k + n], &ext[..ext_len]);
        let e0 = k * 64 / w;
        let e1 = (k + n) * 64 / w;
        let lo = e0.max(start);
        let hi = e1.min(last + 1);
        if hi > lo {
            total += sum
                .run(&buf[..n], lo - e0, hi - lo)
                .expect("the chunk holds the values it sums");
        }
        k += n;
    }
    total
}

/// Word-aligned masked sum, `2 <= stride <= 4 floor(64 / W)`, `64 mod W !=
/// 0`.
///
/// Word `w0 + j` keeps the slots `r_j, r_j + stride, ...` below the values
/// per word, where `r_{j+1} = (r_j - per) mod stride`: the masks repeat
/// every `stride / gcd(stride, per)` words. They are expanded over chunks of
/// whole periods and the words folded by [`fold_words`]; the first and last
/// words are cut to the run.
fn masked_aligned<const W: u32>(words: &[u64], start: usize, stride: usize, count: usize) -> u128 {
    let per = (64 / W) as usize;
    let last = start + (count - 1) * stride;
    let (w0, s0) = (start / per, start % per);
    let (w1, s1) = (last / per, last % per);
    let masks_len = stride / gcd(stride, per);
    let mut masks = [0u64; MASK_BUF];
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
    // The body starts at word `w0 + 1`: phase 1 of the masks.
    let flush = const { super::fold::Fold::of(W) }.flush.min(MASK_BUF);
    let chunk = flush / masks_len * masks_len;
    let mut ext = [0u64; MASK_BUF];
    for (j, e) in ext[..chunk].iter_mut().enumerate() {
        *e = masks[(1 + j) % masks_len];
    }
    total += fold_words::<W, true>(&words[w0 + 1..w1], &ext[..chunk]);
    let tail = masks[(w1 - w0) % masks_len];
    total + u128::from(word_sum::<W>(load(words[w1]) & tail & to_s1))
}
