//! The bulk paths of the word-aligned layout ([`WordAligned`]): packing and
//! unpacking whole words, for typed values and, instantiated per width, for
//! raw integers.
//!
//! For `b`-bit values with `b <= 64`, word `k` holds `p = floor(64 / b)`
//! values, value `k * p + j` at bits `[j * b, (j + 1) * b)`; the top `64 - p *
//! b` bits are zero. Whole words are built (or split) in registers with
//! constant shifts, so the body of a pack writes each word once, gap bits
//! included. Values before the first word boundary and after the last one go
//! one at a time through [`bulk::read`]/[`bulk::write`]. Wider values and
//! widths that divide 64 (where the layout is the dense one) take the dense
//! paths.
//!
//! [`WordAligned`]: super::WordAligned

use super::bulk::{self, load, store};
use super::packing::{bit_of, per_word, same_as_dense};
use crate::{BitElement, Unsigned};

/// The low `bits` bits set (`bits` in `1..=64`).
#[inline(always)]
pub(crate) const fn mask64(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// Packs `n` values, value `j` given by `value(j)` (its bits above `bits`
/// clear), at index `first + j` of a word-aligned stream of `bits`-bit values
/// (`bits` in `1..=64`). Only those values' bits change, except that whole
/// words written by the body also clear their gap bits (which are zero).
#[inline(always)]
fn pack_core(bits: u32, words: &mut [u64], first: usize, n: usize, value: impl Fn(usize) -> u64) {
    let per = per_word(bits);
    let b = bits as usize;
    let head = ((per - first % per) % per).min(n);
    for j in 0..head {
        bulk::write(
            words,
            bit_of(true, bits, first + j),
            bits,
            u128::from(value(j)),
        );
    }
    let mut i = head;
    let mut k = (first + head) / per;
    while n - i >= per {
        let mut x = 0u64;
        for j in 0..per {
            x |= value(i + j) << (j * b);
        }
        words[k] = store(x);
        k += 1;
        i += per;
    }
    for j in i..n {
        bulk::write(
            words,
            bit_of(true, bits, first + j),
            bits,
            u128::from(value(j)),
        );
    }
}

/// Unpacks `n` values from index `first` of a word-aligned stream of
/// `bits`-bit values (`bits` in `1..=64`), handing value `j` to `put(j, v)`.
#[inline(always)]
fn unpack_core(bits: u32, words: &[u64], first: usize, n: usize, mut put: impl FnMut(usize, u64)) {
    let per = per_word(bits);
    let b = bits as usize;
    let m = mask64(bits);
    let head = ((per - first % per) % per).min(n);
    for j in 0..head {
        put(
            j,
            bulk::read(words, bit_of(true, bits, first + j), bits) as u64,
        );
    }
    let mut i = head;
    let mut k = (first + head) / per;
    while n - i >= per {
        let x = load(words[k]);
        for j in 0..per {
            put(i + j, (x >> (j * b)) & m);
        }
        k += 1;
        i += per;
    }
    for j in i..n {
        put(
            j,
            bulk::read(words, bit_of(true, bits, first + j), bits) as u64,
        );
    }
}

/// Packs `src` into the word-aligned stream, `src[j]` at index `first + j`.
///
/// # Panics
///
/// When the values run past the end of `words`.
pub(crate) fn pack<T: BitElement>(src: &[T], words: &mut [u64], first: usize) {
    if same_as_dense(T::BITS) {
        bulk::pack(src, words, first);
    } else if T::BITS > 64 {
        for (j, v) in src.iter().enumerate() {
            let at = bit_of(true, T::BITS, first + j);
            bulk::write(words, at, T::BITS, v.raw_bits().to_u128());
        }
    } else {
        pack_core(T::BITS, words, first, src.len(), |j| {
            src[j].raw_bits().to_u128() as u64
        });
    }
}

/// Unpacks the values at indices `first..first + dst.len()` of the
/// word-aligned stream into `dst`.
///
/// # Panics
///
/// When the values run past the end of `words`.
pub(crate) fn unpack<T: BitElement>(words: &[u64], first: usize, dst: &mut [T]) {
    if same_as_dense(T::BITS) {
        bulk::unpack(words, first, dst);
    } else if T::BITS > 64 {
        for (j, d) in dst.iter_mut().enumerate() {
            let raw = bulk::read(words, bit_of(true, T::BITS, first + j), T::BITS);
            *d = T::from_raw_bits(T::Raw::from_u128_truncate(raw));
        }
    } else {
        let n = dst.len();
        unpack_core(T::BITS, words, first, n, |j, v| {
            dst[j] = T::from_raw_bits(T::Raw::from_u128_truncate(u128::from(v)));
        });
    }
}

/// [`pack`] for raw integers of `W` bits (`W <= U::BITS`, `W <= 64`); bits of
/// the source above `W` are ignored.
pub(crate) fn pack_raw<const W: u32, U: Unsigned>(src: &[U], words: &mut [u64], first: usize) {
    pack_core(W, words, first, src.len(), |j| {
        src[j].to_u128() as u64 & mask64(W)
    });
}

/// [`unpack`] for raw integers of `W` bits (`W <= U::BITS`, `W <= 64`).
pub(crate) fn unpack_raw<const W: u32, U: Unsigned>(words: &[u64], first: usize, dst: &mut [U]) {
    let n = dst.len();
    unpack_core(W, words, first, n, |j, v| {
        dst[j] = U::from_u128_truncate(u128::from(v));
    });
}
