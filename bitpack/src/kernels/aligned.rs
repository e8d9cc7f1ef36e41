//! The word-aligned layout's engine ([`WordAligned`]): packing and
//! unpacking whole words of raw integers, instantiated per width (the
//! container's typed paths are in `narrow/bulk.rs`).
//!
//! For `b`-bit values with `b <= 64`, word `k` holds `p = floor(64 / b)`
//! values, value `k * p + j` at bits `[j * b, (j + 1) * b)`; the top `64 - p *
//! b` bits are zero. Whole words are built (or split) in registers with
//! constant shifts, so the body of a pack writes each word once, gap bits
//! included. Values before the first word boundary and after the last one go
//! one at a time through [`bits::read`]/[`bits::write`]. Wider values and
//! widths that divide 64 (where the layout is the dense one) take the dense
//! paths.
//!
//! [`WordAligned`]: crate::WordAligned

use super::bits::{self, bit_of, load, mask64, per_word, store};
use crate::Unsigned;

/// The number of values before the first word boundary at or after index
/// `first`, capped at `n`.
#[inline(always)]
pub(crate) fn head_len(per: usize, first: usize, n: usize) -> usize {
    ((per - first % per) % per).min(n)
}

/// Packs `src` (its values' bits above `bits` clear, `raw` giving each as a
/// `u64`) at index `first` of a word-aligned stream of `bits`-bit values
/// (`bits` in `1..=64`). Only those values' bits change, except that whole
/// words written by the body also clear their gap bits (which are zero).
#[inline(always)]
pub(crate) fn pack_core<S: Copy>(
    bits: u32,
    words: &mut [u64],
    first: usize,
    src: &[S],
    raw: impl Fn(S) -> u64,
) {
    let per = per_word(bits);
    let b = bits as usize;
    let n = src.len();
    let head = head_len(per, first, n);
    for (j, &v) in src[..head].iter().enumerate() {
        bits::write(
            words,
            bit_of(true, bits, first + j),
            bits,
            u128::from(raw(v)),
        );
    }
    let body = (n - head) / per * per;
    let k0 = (first + head) / per;
    for (w, vs) in words[k0..k0 + body / per]
        .iter_mut()
        .zip(src[head..head + body].chunks_exact(per))
    {
        let mut x = 0u64;
        for (j, &v) in vs.iter().enumerate() {
            x |= raw(v) << (j * b);
        }
        *w = store(x);
    }
    for (j, &v) in src.iter().enumerate().skip(head + body) {
        bits::write(
            words,
            bit_of(true, bits, first + j),
            bits,
            u128::from(raw(v)),
        );
    }
}

/// Unpacks `dst.len()` values from index `first` of a word-aligned stream
/// of `bits`-bit values (`bits` in `1..=64`), `make` turning each into `D`.
#[inline(always)]
pub(crate) fn unpack_core<D>(
    bits: u32,
    words: &[u64],
    first: usize,
    dst: &mut [D],
    make: impl Fn(u64) -> D,
) {
    let per = per_word(bits);
    let b = bits as usize;
    let m = mask64(bits);
    let n = dst.len();
    let head = head_len(per, first, n);
    for (j, d) in dst[..head].iter_mut().enumerate() {
        *d = make(bits::read(words, bit_of(true, bits, first + j), bits) as u64);
    }
    let body = (n - head) / per * per;
    let k0 = (first + head) / per;
    for (&w, ds) in words[k0..k0 + body / per]
        .iter()
        .zip(dst[head..head + body].chunks_exact_mut(per))
    {
        let x = load(w);
        for (j, d) in ds.iter_mut().enumerate() {
            *d = make((x >> (j * b)) & m);
        }
    }
    for (j, d) in dst.iter_mut().enumerate().skip(head + body) {
        *d = make(bits::read(words, bit_of(true, bits, first + j), bits) as u64);
    }
}

/// Packs raw integers of `W` bits (`W <= U::BITS`, `W <= 64`); bits of
/// the source above `W` are ignored.
pub(crate) fn pack_raw<const W: u32, U: Unsigned>(src: &[U], words: &mut [u64], first: usize) {
    pack_core(W, words, first, src, |v: U| v.to_u128() as u64 & mask64(W));
}

/// Unpacks raw integers of `W` bits (`W <= U::BITS`, `W <= 64`): the
/// portable body (`stream.rs` dispatches to the SIMD builds of `x86/`).
#[inline(always)]
pub(crate) fn unpack_raw_body<const W: u32, U: Unsigned>(
    words: &[u64],
    first: usize,
    dst: &mut [U],
) {
    unpack_core(W, words, first, dst, |v| {
        U::from_u128_truncate(u128::from(v))
    });
}
