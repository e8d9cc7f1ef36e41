//! The bulk paths of [`NarrowArray`](super::NarrowArray): packing values into
//! the dense LSB-first word stream and unpacking them, a word at a time.
//!
//! Every bulk operation of the container (`from_slice`, `extend`,
//! `pack_from`, `to_vec`, `unpack_into`, `from_bytes`) goes through the
//! functions here, which take plain slices; [`pack`] and [`unpack`] are the
//! width-monomorphized kernels of [`crate::kernels`], chosen once per call.
//!
//! The stream itself (bit order, stored words) is described in
//! `kernels/bits.rs`; the word-aligned layout's typed paths are here too
//! ([`pack_aligned`], [`unpack_aligned`]).

use crate::kernels::bits::{bit_of, per_word, same_as_dense};
use crate::kernels::{aligned, bits, stream};
use crate::{BitElement, Unsigned};
use core::ops::Range;

#[cfg(target_endian = "little")]
pub(crate) use crate::kernels::bits::word_bytes_mut;
pub(crate) use crate::kernels::bits::{word_bytes, words_for_bits};

/// Packs `src` into the stream, element `src[j]` at index `first + j`. Only
/// the bits of those elements change.
///
/// Goes through the width's pack kernel ([`crate::kernels`]), chosen once
/// per call, with the values' raw bits converted a stack chunk at a time.
///
/// # Panics
///
/// When the elements run past the end of `dst`.
pub(crate) fn pack<T: BitElement>(src: &[T], dst: &mut [u64], first: usize) {
    if src.is_empty() {
        return;
    }
    crate::kernels::pack_map(T::BITS, src, T::raw_bits, dst, first);
}

/// Unpacks the elements at indices `first..first + dst.len()` of the stream
/// into `dst`, through the width's unpack kernel (see [`pack`]).
///
/// # Panics
///
/// When the elements run past the end of `src`.
pub(crate) fn unpack<T: BitElement>(src: &[u64], first: usize, dst: &mut [T]) {
    if dst.is_empty() {
        return;
    }
    crate::kernels::unpack_map(T::BITS, src, first, dst, T::from_raw_bits);
}

/// Packs `values` into the stream of layout `aligned` (word-aligned, else
/// dense) at index `first`: [`pack_aligned`] or [`pack`], the bulk path of
/// `NarrowArray`'s `from_slice`, `extend` and `pack_from`, split across
/// threads by [`split_pack`].
///
/// # Panics
///
/// When the values run past the end of `words`.
pub(crate) fn pack_at<T: BitElement>(aligned: bool, values: &[T], words: &mut [u64], first: usize) {
    split_pack(
        aligned,
        T::BITS,
        values.len(),
        first,
        words,
        |r, part, at| {
            if aligned {
                pack_aligned(&values[r], part, at);
            } else {
                pack(&values[r], part, at);
            }
        },
    );
}

/// Unpacks the values at `first..first + dst.len()` of the stream of layout
/// `aligned` into `dst`: [`unpack_aligned`] or [`unpack`], the bulk path of
/// `to_vec` and `unpack_into`, split across threads by [`split_unpack`].
///
/// # Panics
///
/// When the values run past the end of `words`.
pub(crate) fn unpack_at<T: BitElement>(aligned: bool, words: &[u64], first: usize, dst: &mut [T]) {
    split_unpack(aligned, T::BITS, first, dst, |at, part| {
        if aligned {
            unpack_aligned(words, at, part);
        } else {
            unpack(words, at, part);
        }
    });
}

/// A pack of `n` values of `bits` bits into `words` from index `first` (layout
/// `aligned`) as `f(range, part, at)`, which packs values `range` into `part`
/// from its index `at`: one call with every value, or with the `rayon`
/// feature above the threshold (`crate::par`) one a piece, the pieces cut
/// where a value starts a word, each writing its own words. The first piece
/// holds the words before `first` too, where a pack changes only its values'
/// bits; a later piece's first value is value 0 of its part.
pub(crate) fn split_pack(
    aligned: bool,
    bits: u32,
    n: usize,
    first: usize,
    words: &mut [u64],
    f: impl Fn(Range<usize>, &mut [u64], usize) + Sync,
) {
    let bit = |u: usize| bit_of(aligned, bits, first + u);
    let words = crate::par::Out {
        slice: words,
        at: |u| bit(u) / 64,
    };
    crate::par::split(
        n,
        n,
        |u| bit(u).is_multiple_of(64),
        words,
        |r, part, _| {
            let at = if r.start == 0 { first } else { 0 };
            f(r, part, at)
        },
    );
}

/// An unpack of `dst.len()` values of `bits` bits from index `first` (layout
/// `aligned`) as `f(index, part)`, which unpacks the values from `index` into
/// `part`: one call, or one a piece as [`split_pack`] cuts them, each
/// writing its own part of `dst`.
pub(crate) fn split_unpack<T: Send>(
    aligned: bool,
    bits: u32,
    first: usize,
    dst: &mut [T],
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    let n = dst.len();
    let dst = crate::par::Out {
        slice: dst,
        at: |u| u,
    };
    crate::par::split(
        n,
        n,
        |u| bit_of(aligned, bits, first + u).is_multiple_of(64),
        dst,
        |r, part, _| f(first + r.start, part),
    );
}

/// The exact sum of the `len` values of `bits` bits in `words` (layout
/// `aligned`): the bulk path of `NarrowArray::sum` and `DynNarrowArray::sum`.
/// With the `rayon` feature a large sum is cut on words (`crate::par`); the
/// pieces' sums are exact, so their total is the one-thread sum. A sum is
/// cheap per value: it counts as an eighth of the work of the other bulk
/// calls (`par::THRESHOLD`).
pub(crate) fn split_sum(aligned: bool, bits: u32, words: &[u64], len: usize) -> u128 {
    if len == 0 {
        return 0;
    }
    let run = crate::reduce::RunSum::new(aligned, bits);
    crate::par::fold(
        len / 8,
        len,
        |u| bit_of(aligned, bits, u).is_multiple_of(64),
        |r| run.run(words, r.start, 1, r.len()),
        |a, b| a + b,
    )
}

/// Packs `src` into the word-aligned stream, `src[j]` at index `first + j`.
///
/// # Panics
///
/// When the values run past the end of `words`.
pub(crate) fn pack_aligned<T: BitElement>(src: &[T], words: &mut [u64], first: usize) {
    if same_as_dense(T::BITS) {
        pack(src, words, first);
    } else if T::BITS > 64 {
        for (j, v) in src.iter().enumerate() {
            let at = bit_of(true, T::BITS, first + j);
            bits::write(words, at, T::BITS, v.raw_bits().to_u128());
        }
    } else {
        aligned::pack_core(T::BITS, words, first, src, |v: T| {
            v.raw_bits().to_u128() as u64
        });
    }
}

/// Unpacks the values at indices `first..first + dst.len()` of the
/// word-aligned stream into `dst`.
///
/// # Panics
///
/// When the values run past the end of `words`.
pub(crate) fn unpack_aligned<T: BitElement>(words: &[u64], first: usize, dst: &mut [T]) {
    if same_as_dense(T::BITS) {
        unpack(words, first, dst);
    } else if T::BITS > 64 {
        for (j, d) in dst.iter_mut().enumerate() {
            let raw = bits::read(words, bit_of(true, T::BITS, first + j), T::BITS);
            *d = T::from_raw_bits(T::Raw::from_u128_truncate(raw));
        }
    } else {
        unpack_typed(words, first, dst);
    }
}

/// The body of [`unpack_aligned`] for `T::BITS <= 64`: the raw values are unpacked
/// a stack chunk at a time by the width's raw kernel (`unpack_raw`, with
/// its BMI2 and AVX2 builds), then turned into values.
#[inline(always)]
fn unpack_typed<T: BitElement>(words: &[u64], first: usize, dst: &mut [T]) {
    const MAP: usize = 256;
    let per = per_word(T::BITS);
    // Whole words per chunk after the first, which ends on a word.
    let chunk = MAP / per * per;
    let mut buf = [T::Raw::ZERO; MAP];
    let n = dst.len();
    let mut done = 0;
    while done < n {
        let head = (per - (first + done) % per) % per;
        let len = if head > 0 { head } else { chunk }.min(n - done);
        stream::unpack(true, T::BITS, words, first + done, &mut buf[..len]);
        for (d, &r) in dst[done..done + len].iter_mut().zip(&buf[..len]) {
            *d = T::from_raw_bits(r);
        }
        done += len;
    }
}
