//! The bulk paths of [`NarrowArray`](super::NarrowArray): packing values into
//! the dense LSB-first word stream and unpacking them, a word at a time.
//!
//! Every bulk operation of the container (`from_slice`, `extend`,
//! `pack_from`, `to_vec`, `unpack_into`, `from_bytes`) goes through the
//! functions here, which take plain slices; [`pack`] and [`unpack`] are the
//! width-monomorphized kernels of [`crate::kernels`], chosen once per call.
//!
//! # The stream
//!
//! Element `i` of width `BITS` occupies bits `[i * BITS, (i + 1) * BITS)` of
//! the stream; stream bit `k` is bit `k % 64` of word `k / 64`. Words are kept
//! in memory as little-endian bytes ([`load`] and [`store`] convert, and are
//! free on little-endian targets), so the bytes of the word buffer are the
//! dense byte stream on every target.

use crate::BitElement;
use crate::unsigned::mask_u128;

/// The value of a stored word (stored words are little-endian bytes).
#[inline(always)]
pub(crate) fn load(word: u64) -> u64 {
    u64::from_le(word)
}

/// The stored form of a word value.
#[inline(always)]
pub(crate) fn store(value: u64) -> u64 {
    value.to_le()
}

/// The low `bits` bits set (`bits` in `0..=64`).
#[inline(always)]
fn mask64(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Words needed for `bits` stream bits.
#[inline(always)]
pub(crate) const fn words_for_bits(bits: usize) -> usize {
    bits.div_ceil(64)
}

/// Reads `width` (1..=128) bits at stream bit `bit`.
///
/// # Panics
///
/// When the bits run past the end of `words`.
#[inline]
pub(crate) fn read(words: &[u64], bit: usize, width: u32) -> u128 {
    let idx = bit / 64;
    let off = (bit % 64) as u32;
    let first = load(words[idx]) >> off;
    if off + width <= 64 {
        return u128::from(first & mask64(width));
    }
    let mut value = u128::from(first);
    let mut got = 64 - off;
    let mut i = idx + 1;
    while got < width {
        value |= u128::from(load(words[i])) << got;
        got += 64;
        i += 1;
    }
    value & mask_u128(width)
}

/// Writes the low `width` (1..=128) bits of `value` at stream bit `bit`; the
/// other bits of the stream are unchanged.
///
/// # Panics
///
/// When the bits run past the end of `words`.
#[inline]
pub(crate) fn write(words: &mut [u64], bit: usize, width: u32, value: u128) {
    let mut idx = bit / 64;
    let mut off = (bit % 64) as u32;
    let mut done = 0u32;
    while done < width {
        let take = (64 - off).min(width - done);
        let m = mask64(take) << off;
        let piece = (((value >> done) as u64) & mask64(take)) << off;
        words[idx] = store((load(words[idx]) & !m) | piece);
        done += take;
        off = 0;
        idx += 1;
    }
}

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

/// Clears every stream bit at or above `bit`.
pub(crate) fn clear_from(words: &mut [u64], bit: usize) {
    let idx = bit / 64;
    let off = (bit % 64) as u32;
    if idx >= words.len() {
        return;
    }
    let (partial, rest) = words[idx..].split_at_mut(1);
    partial[0] = store(load(partial[0]) & mask64(off));
    rest.fill(0);
}

/// Fills `dst` from the byte stream `src` (`src.len() <= 8 * dst.len()`);
/// the bytes of `dst` past `src` are zero.
pub(crate) fn bytes_to_words(src: &[u8], dst: &mut [u64]) {
    let mut chunks = src.chunks_exact(8);
    let mut i = 0;
    for chunk in chunks.by_ref() {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        dst[i] = store(u64::from_le_bytes(b));
        i += 1;
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        let mut b = [0u8; 8];
        b[..tail.len()].copy_from_slice(tail);
        dst[i] = store(u64::from_le_bytes(b));
        i += 1;
    }
    dst[i..].fill(0);
}

/// The bytes of the stored words, in memory order (the dense byte stream).
#[inline]
pub(crate) fn word_bytes(words: &[u64]) -> &[u8] {
    bytemuck::cast_slice(words)
}

/// The bytes of the stored words, mutably.
#[cfg(target_endian = "little")]
#[inline]
pub(crate) fn word_bytes_mut(words: &mut [u64]) -> &mut [u8] {
    bytemuck::cast_slice_mut(words)
}
