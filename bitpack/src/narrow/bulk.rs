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
/// `NarrowArray`'s `from_slice`, `extend` and `pack_from`.
///
/// With the `rayon` feature a large call is cut where a value starts a
/// word (`crate::par`), each piece writing its own words: the first piece
/// holds the words before `first` too and, as the whole call does, changes
/// only its values' bits there.
///
/// # Panics
///
/// When the values run past the end of `words`.
pub(crate) fn pack_at<T: BitElement>(aligned: bool, values: &[T], words: &mut [u64], first: usize) {
    let bit = |u: usize| bit_of(aligned, T::BITS, first + u);
    let words = crate::par::Out {
        slice: words,
        at: |u| bit(u) / 64,
    };
    crate::par::split(
        values.len(),
        values.len(),
        |u| bit(u).is_multiple_of(64),
        words,
        |r, part, _| {
            // A piece after the first starts on a word: its first value is
            // value 0 of its part.
            let at = if r.start == 0 { first } else { 0 };
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
/// `to_vec` and `unpack_into`. Split as [`pack_at`] is, each piece writing
/// its own part of `dst`.
///
/// # Panics
///
/// When the values run past the end of `words`.
pub(crate) fn unpack_at<T: BitElement>(aligned: bool, words: &[u64], first: usize, dst: &mut [T]) {
    let n = dst.len();
    let dst = crate::par::Out {
        slice: dst,
        at: |u| u,
    };
    crate::par::split(
        n,
        n,
        |u| bit_of(aligned, T::BITS, first + u).is_multiple_of(64),
        dst,
        |r, part, _| {
            if aligned {
                unpack_aligned(words, first + r.start, part);
            } else {
                unpack(words, first + r.start, part);
            }
        },
    );
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
