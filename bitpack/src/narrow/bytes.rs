//! The dense byte stream: the checks of bytes handed in
//! ([`check_stream`]), their copy into words ([`stream_to_words`],
//! [`words_from_stream`]), one value at a stream bit of bytes
//! ([`read_bits`], [`write_bits`]) and the walks that run the word kernels
//! over bytes of any alignment ([`for_each_chunk`], [`unpack_from_bytes`],
//! [`sum_from_bytes`], [`pack_into_bytes`]; the last three split across
//! threads with the `rayon` feature): on the aligned words inside the bytes
//! in place ([`interior`]), on the values before and after those through a
//! stack buffer ([`with_buffer`]).
//!
//! Every container's `from_bytes`, [`NarrowRef`](super::NarrowRef),
//! [`NarrowMut`](super::NarrowMut) and DLPack's import read bytes through
//! here. A value at a stream bit is read by the one reader of
//! [`crate::kernels::bits`]: [`read_bits`] and [`write_bits`] only carry the
//! few words around the value between the bytes and that reader.

use alloc::vec;
use alloc::vec::Vec;

use super::NarrowArray;
use crate::kernels::bits;
use crate::{BitElement, Error, Result};

/// Words in the stack buffer of the chunked bulk paths (2 KiB).
const CHUNK_WORDS: usize = 256;

/// Words around a value of up to 128 bits at any bit of a byte (17 bytes).
const VALUE_WORDS: usize = 3;

/// Checks that `bytes` holds the dense stream of `len` values of `bits` bits
/// with zero padding (bits past the last value, and every byte past the
/// stream), and returns the stream's length in bytes.
/// `what` names the caller, for the message.
pub(crate) fn check_stream(
    what: &'static str,
    bytes: &[u8],
    len: usize,
    bits: u32,
) -> Result<usize> {
    let needed = len.checked_mul(bits as usize).map(|b| b.div_ceil(8));
    let Some(needed) = needed.filter(|&n| n <= bytes.len()) else {
        return Err(Error::TooFewBytes {
            what,
            values: len,
            bits,
            needed: needed.unwrap_or(usize::MAX),
            actual: bytes.len(),
        });
    };
    let stream_bits = len * bits as usize;
    if !stream_bits.is_multiple_of(8) && bytes[stream_bits / 8] >> (stream_bits % 8) != 0 {
        return Err(Error::NonZeroPadding {
            byte: stream_bits / 8,
        });
    }
    if let Some(k) = bytes[needed..].iter().position(|&b| b != 0) {
        return Err(Error::NonZeroPadding { byte: needed + k });
    }
    Ok(needed)
}

/// The dense stream `bytes` (exactly its bytes, `ceil(bits / 8)` for a
/// stream of `bits` bits) copied into words: `ceil(bits / 64)` of them, the
/// bits past the stream zero.
pub(crate) fn stream_to_words(bytes: &[u8]) -> Vec<u64> {
    let mut words = vec![0; bytes.len().div_ceil(8)];
    bits::bytes_to_words(bytes, &mut words);
    words
}

/// The words of the dense stream of `len` values of `bits` bits in `bytes`,
/// after the checks of [`check_stream`].
pub(crate) fn words_from_stream(
    what: &'static str,
    bytes: &[u8],
    len: usize,
    bits: u32,
) -> Result<Vec<u64>> {
    let needed = check_stream(what, bytes, len, bits)?;
    Ok(stream_to_words(&bytes[..needed]))
}

/// The bytes of `bytes` holding the `width` bits at stream bit `bit`, and
/// the bit where the value starts in the first of them.
#[inline(always)]
fn span(bit: usize, width: u32) -> (core::ops::Range<usize>, usize) {
    let first = bit / 8;
    let shift = bit % 8;
    (first..(bit + width as usize).div_ceil(8), shift)
}

/// Reads `width` (1..=128) bits at stream bit `bit` of a byte stream.
///
/// # Panics
///
/// When the bits run past the end of `bytes`.
#[inline]
pub(crate) fn read_bits(bytes: &[u8], bit: usize, width: u32) -> u128 {
    let (range, shift) = span(bit, width);
    let mut words = [0u64; VALUE_WORDS];
    bits::bytes_to_words(&bytes[range], &mut words);
    bits::read(&words, shift, width)
}

/// Writes the low `width` (1..=128) bits of `value` at stream bit `bit`,
/// leaving every other bit as it was.
///
/// # Panics
///
/// When the bits run past the end of `bytes`.
#[inline]
pub(crate) fn write_bits(bytes: &mut [u8], bit: usize, width: u32, value: u128) {
    let (range, shift) = span(bit, width);
    let bytes = &mut bytes[range];
    let mut words = [0u64; VALUE_WORDS];
    bits::bytes_to_words(bytes, &mut words);
    bits::write(&mut words, shift, width, value);
    let n = bytes.len();
    bytes.copy_from_slice(&bits::word_bytes(&words)[..n]);
}

/// The values and the bytes of a piece of the chunked bulk paths: whole
/// chunks of [`NarrowArray`] (so every piece starts at a value and a byte
/// boundary) that fill at most `CHUNK_WORDS` words.
fn stack_chunk<T: BitElement>() -> (usize, usize) {
    let chunk_bytes = NarrowArray::<T>::CHUNK_BYTES;
    let per = (CHUNK_WORDS * 8) / chunk_bytes;
    (per * NarrowArray::<T>::CHUNK_LEN, per * chunk_bytes)
}

/// Calls `f(first, count, span)` for consecutive pieces of the stream of
/// `len` values of `T` (`count` values from value `first`, in bytes `span`
/// of the stream), each a [`stack_chunk`].
fn for_each_piece<T: BitElement>(
    len: usize,
    mut f: impl FnMut(usize, usize, core::ops::Range<usize>),
) {
    let (values, bytes) = stack_chunk::<T>();
    let mut first = 0;
    while first < len {
        let count = (len - first).min(values);
        let start = first / values * bytes;
        f(
            first,
            count,
            start..start + (count * T::BITS as usize).div_ceil(8),
        );
        first += count;
    }
}

/// The in-place part of a dense stream found by [`interior`]: values
/// `first..first + count`, in the whole words of bytes `words` (starting at
/// an 8-byte aligned address), the values after them starting at byte
/// `rest`.
#[derive(Debug, PartialEq)]
struct Interior {
    first: usize,
    count: usize,
    words: core::ops::Range<usize>,
    rest: usize,
}

/// The in-place part of the dense stream of `len` values of `bits` bits in
/// the `avail` bytes from address `addr`: from the first byte at an 8-byte
/// aligned address where a value starts, the values that whole words of the
/// bytes hold, cut so that the values after them start on a byte (or are
/// none). `None` where no such byte exists (a width of a multiple of 16
/// bits whose values never start at an aligned address of these bytes) or
/// no value fits.
///
/// The word kernels read and write those values in place, as words borrowed
/// from the bytes (stored words are the stream's little-endian bytes on
/// every target), where a copy through a stack buffer would cost a second
/// pass over them.
fn interior(addr: usize, avail: usize, bits: u32, len: usize) -> Option<Interior> {
    let bits = bits as usize;
    // Byte `b` starts a value when `8 b` is a multiple of `bits`; over the
    // aligned bytes `b + 8 j` that repeats with period `bits` in `j`.
    let mut byte = addr.wrapping_neg() % 8;
    let mut tries = bits;
    while !(8 * byte).is_multiple_of(bits) {
        tries -= 1;
        if tries == 0 {
            return None;
        }
        byte += 8;
    }
    let first = 8 * byte / bits;
    if first >= len || byte >= avail {
        return None;
    }
    let mut count = (len - first).min((avail - byte) / 8 * 64 / bits);
    if count < len - first {
        // Values `first + c` start on a byte where `c * bits` is a multiple
        // of 8.
        let period = 8 >> (bits.trailing_zeros().min(3));
        count -= count % period;
    }
    (count > 0).then(|| Interior {
        first,
        count,
        words: byte..byte + 8 * bits::words_for_bits(count * bits),
        rest: (first + count) * bits / 8,
    })
}

/// Calls `f(words, first, count)` for consecutive pieces of the stream of
/// `len` values in `bytes`, each starting at a value and a byte boundary (so
/// the word kernels can run over bytes of any alignment): the values that
/// whole aligned words of `bytes` hold as one piece borrowed in place
/// ([`interior`]), those before and after it copied into a stack buffer of
/// words ([`with_buffer`]).
pub(crate) fn for_each_chunk<T: BitElement>(
    bytes: &[u8],
    len: usize,
    mut f: impl FnMut(&[u64], usize, usize),
) {
    match interior(bytes.as_ptr().addr(), bytes.len(), T::BITS, len) {
        Some(Interior {
            first,
            count,
            words,
            rest,
        }) => {
            copied_chunks::<T>(bytes, first, &mut f);
            // `words` starts at an 8-byte aligned address (`interior`), so
            // the cast cannot fail.
            f(bytemuck::cast_slice(&bytes[words]), first, count);
            let next = first + count;
            copied_chunks::<T>(&bytes[rest..], len - next, |w, i, c| f(w, next + i, c));
        }
        None => copied_chunks::<T>(bytes, len, f),
    }
}

/// [`for_each_chunk`] with every piece copied into the stack buffer.
fn copied_chunks<T: BitElement>(bytes: &[u8], len: usize, mut f: impl FnMut(&[u64], usize, usize)) {
    with_buffer::<T>(len, |buf| {
        for_each_piece::<T>(len, |first, count, span| {
            let span = span.start..span.end.min(bytes.len());
            let words = span.len().div_ceil(8);
            bits::bytes_to_words(&bytes[span], &mut buf[..words]);
            f(&buf[..words], first, count);
        });
    });
}

/// Words of the small stack buffer (256 bytes) that [`with_buffer`] takes
/// for a few values.
const SMALL_WORDS: usize = 32;

/// Runs `f` with a zeroed stack buffer for the pieces of `len` values of
/// `T` ([`for_each_piece`]): nothing for no values, [`SMALL_WORDS`] where
/// the whole stream fits them (the few values around the in-place words of
/// [`interior`]), else `CHUNK_WORDS`, so that those values do not cost a
/// 2 KiB buffer's zeroing each.
fn with_buffer<T: BitElement>(len: usize, f: impl FnOnce(&mut [u64])) {
    match bits::words_for_bits(len * T::BITS as usize) {
        0 => {}
        w if w <= SMALL_WORDS => f(&mut [0u64; SMALL_WORDS]),
        _ => f(&mut [0u64; CHUNK_WORDS]),
    }
}

/// The byte of a dense stream where the values from `start` begin, for a
/// piece of a split call: its first value starts a word (`crate::par::on_word`),
/// so a byte too.
fn piece_byte(bits: u32, start: usize) -> usize {
    start * bits as usize / 8
}

/// Unpacks the `dst.len()` values of the dense stream in `bytes` (any
/// alignment) into `dst` through [`for_each_chunk`], split across threads
/// with the `rayon` feature (`crate::par`): a piece starts where a value
/// starts a word, so at a byte, and walks its own bytes from there.
pub(crate) fn unpack_from_bytes<T: BitElement>(bytes: &[u8], dst: &mut [T]) {
    let n = dst.len();
    let out = crate::par::Out {
        slice: dst,
        at: |u| u,
    };
    crate::par::split(
        n,
        n,
        |u| crate::par::on_word(T::BITS, u),
        out,
        |r, part, _| {
            let bytes = &bytes[piece_byte(T::BITS, r.start)..];
            for_each_chunk::<T>(bytes, r.len(), |w, first, count| {
                super::bulk::unpack(w, 0, &mut part[first..first + count]);
            });
        },
    );
}

/// The exact sum of the `len` values of `T` in the dense stream in `bytes`
/// (any alignment), through [`for_each_chunk`], split as
/// [`unpack_from_bytes`] is (a sum counts an eighth of a value's work, as in
/// `super::bulk::split_sum`).
pub(crate) fn sum_from_bytes<T: BitElement>(bytes: &[u8], len: usize) -> u128 {
    let run = crate::reduce::RunSum::new(false, T::BITS);
    crate::par::fold(
        len / 8,
        len,
        |u| crate::par::on_word(T::BITS, u),
        |r| {
            let mut total = 0u128;
            let bytes = &bytes[piece_byte(T::BITS, r.start)..];
            for_each_chunk::<T>(bytes, r.len(), |w, _, n| total += run.run(w, 0, 1, n));
            total
        },
        |a, b| a + b,
    )
}

/// Packs `src` over the dense stream of `src.len()` values in `bytes`, a
/// piece at a time through a 2 KiB stack buffer of words; bits past the
/// stream are unchanged. With the `rayon` feature a large pack is split
/// across threads (`crate::par`), cut where a value starts a word: each
/// piece writes its own bytes.
pub(crate) fn pack_into_bytes<T: BitElement>(src: &[T], bytes: &mut [u8]) {
    let n = src.len();
    let out = crate::par::Out {
        slice: bytes,
        at: |u| piece_byte(T::BITS, u),
    };
    crate::par::split(
        n,
        n,
        |u| crate::par::on_word(T::BITS, u),
        out,
        |r, part, _| pack_piece(&src[r], part),
    );
}

/// [`pack_into_bytes`] on one thread: `src` over the stream from byte 0 of
/// `bytes`, the values that whole aligned words of `bytes` hold packed in
/// place ([`interior`]; a pack changes only its values' bits), those before
/// and after them through the stack buffer.
fn pack_piece<T: BitElement>(src: &[T], bytes: &mut [u8]) {
    match interior(bytes.as_ptr().addr(), bytes.len(), T::BITS, src.len()) {
        Some(Interior {
            first,
            count,
            words,
            rest,
        }) => {
            pack_copied(&src[..first], bytes);
            // `words` starts at an 8-byte aligned address (`interior`), so
            // the cast cannot fail.
            let words = bytemuck::cast_slice_mut(&mut bytes[words]);
            super::bulk::pack(&src[first..first + count], words, 0);
            pack_copied(&src[first + count..], &mut bytes[rest..]);
        }
        None => pack_copied(src, bytes),
    }
}

/// [`pack_piece`] with every value packed through the stack buffer.
fn pack_copied<T: BitElement>(src: &[T], bytes: &mut [u8]) {
    with_buffer::<T>(src.len(), |buf| {
        for_each_piece::<T>(src.len(), |first, count, span| {
            let words = span.len().div_ceil(8);
            buf[..words].fill(0);
            super::bulk::pack(&src[first..first + count], &mut buf[..words], 0);
            let n = span.len();
            bytes[span].copy_from_slice(&bits::word_bytes(&buf[..words])[..n]);
        });
    });
}

#[cfg(test)]
mod tests {
    use super::{Interior, interior};

    /// [`interior`] against a search of every byte and count: the first
    /// byte at an aligned address where a value starts, and the most values
    /// from there whose words fit the bytes and after which the rest starts
    /// on a byte.
    #[test]
    fn interior_is_the_first_aligned_value_and_the_most_whole_words() {
        for bits in 1..=128u32 {
            let b = bits as usize;
            for addr in 0..8usize {
                for avail in [0usize, 1, 7, 8, 9, 15, 16, 17, 40, 100, 257, 1000] {
                    let stream = |len: usize| (len * b).div_ceil(8);
                    for len in [0usize, 1, 2, 7, 8, 9, 63, 64, 65, 200, 513, 1000] {
                        if stream(len) > avail {
                            continue;
                        }
                        let want = (0..avail)
                            .find(|&k| (addr + k).is_multiple_of(8) && (8 * k).is_multiple_of(b))
                            .and_then(|byte| {
                                let first = 8 * byte / b;
                                let count = (1..=len.saturating_sub(first))
                                    .filter(|&c| {
                                        byte + 8 * (c * b).div_ceil(64) <= avail
                                            && (first + c == len || (c * b).is_multiple_of(8))
                                    })
                                    .max()?;
                                Some(Interior {
                                    first,
                                    count,
                                    words: byte..byte + 8 * (count * b).div_ceil(64),
                                    rest: (first + count) * b / 8,
                                })
                            });
                        assert_eq!(
                            interior(addr, avail, bits, len),
                            want,
                            "{bits} bits, address {addr}, {avail} bytes, {len} values"
                        );
                    }
                }
            }
        }
    }
}
