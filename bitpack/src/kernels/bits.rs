//! The bits of the packed stream, shared by every kernel, container, view
//! and reduction: stored words and their bytes, masks, values at a stream
//! bit, and where value `i` starts in the dense and word-aligned layouts.
//!
//! # The stream
//!
//! Element `i` of width `BITS` occupies bits `[i * BITS, (i + 1) * BITS)` of
//! the dense stream; stream bit `k` is bit `k % 64` of word `k / 64`. Words
//! are kept in memory as little-endian bytes ([`load`] and [`store`]
//! convert, and are free on little-endian targets), so the bytes of the word
//! buffer are the dense byte stream on every target. The word-aligned layout
//! puts `64 / BITS` values in each word, none straddling.

// Without `alloc` only the kernels use these; the containers use the rest.
#![cfg_attr(not(feature = "alloc"), allow(dead_code))]

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

/// Words needed for `bits` stream bits.
#[inline(always)]
pub(crate) const fn words_for_bits(bits: usize) -> usize {
    bits.div_ceil(64)
}

/// The low `w` bits set (`w` in `0..=64`).
#[inline(always)]
pub(crate) const fn mask64(w: u32) -> u64 {
    if w >= 64 { u64::MAX } else { (1 << w) - 1 }
}

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

/// The `bits`-bit value (`bits` in `1..=64`) at dense stream bit `bit`.
#[inline(always)]
pub(crate) fn read_dense_at(words: &[u64], bit: usize, bits: u32) -> u64 {
    let i = bit / 64;
    let sh = (bit % 64) as u32;
    let lo = load(words[i]) >> sh;
    if bits == 1 {
        return lo & 1;
    }
    // A branch (taken for the straddling values only, a pattern the
    // predictor learns) measured faster than always loading the next word.
    if sh + bits > 64 {
        (lo | (load(words[i + 1]) << (64 - sh))) & mask64(bits)
    } else {
        lo & mask64(bits)
    }
}

/// Writes the low `bits` bits of `v` (`bits` in `1..=64`) at dense stream bit
/// `bit`, leaving every other bit unchanged.
#[inline(always)]
pub(crate) fn write_dense_at(words: &mut [u64], bit: usize, bits: u32, v: u64) {
    let i = bit / 64;
    let sh = (bit % 64) as u32;
    let m = mask64(bits);
    let v = v & m;
    words[i] = store((load(words[i]) & !(m << sh)) | (v << sh));
    if sh + bits > 64 {
        let hi = sh + bits - 64;
        words[i + 1] = store((load(words[i + 1]) & !mask64(hi)) | (v >> (64 - sh)));
    }
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
/// Values per word of the word-aligned layout (`bits` in `1..=64`).
#[inline(always)]
pub(crate) const fn per_word(bits: u32) -> usize {
    (64 / bits) as usize
}

/// Whether the word-aligned layout of `bits`-bit values is the dense one.
#[inline(always)]
pub(crate) const fn same_as_dense(bits: u32) -> bool {
    bits <= 64 && 64 % bits == 0
}

/// The stream bit where value `i` starts. The caller knows the value exists
/// (its bit fits in `usize`).
#[inline(always)]
pub(crate) fn bit_of(aligned: bool, bits: u32, i: usize) -> usize {
    if !aligned || same_as_dense(bits) {
        i * bits as usize
    } else if bits > 64 {
        i * 128
    } else {
        let per = per_word(bits);
        (i / per) * 64 + (i % per) * bits as usize
    }
}

/// Sum of the `w`-bit slots of `x` (slot 0 at bit 0, slots up to bit 63),
/// exact when each slot holds at most its width: pairs of slots are added into
/// slots twice as wide until one slot remains.
#[inline(always)]
pub(crate) const fn hsum(mut x: u64, mut w: u32) -> u64 {
    while w < 64 {
        let m = rep_mask(w, 2 * w);
        x = (x & m) + ((x >> w) & m);
        w *= 2;
    }
    x
}

/// Values before the next multiple of 8 from `offset`, capped at `n`: the
/// SIMD loops start where a value begins on a byte boundary.
#[allow(dead_code, reason = "used by the SIMD targets only")]
#[inline(always)]
pub(crate) fn head8(offset: usize, n: usize) -> usize {
    ((8 - offset % 8) % 8).min(n)
}

/// Steps of `stride` bytes from byte `first` whose accesses, each reaching
/// `span` bytes past the step's start, stay inside `len` bytes; at most
/// `max`.
#[allow(dead_code, reason = "used by the SIMD targets only")]
#[inline(always)]
pub(crate) fn steps_within(
    first: usize,
    stride: usize,
    span: usize,
    len: usize,
    max: usize,
) -> usize {
    match len.checked_sub(first + span) {
        Some(room) => (room / stride + 1).min(max),
        None => 0,
    }
}

/// Writes `v` (a `u32` or `u64`) at `at`: its little-endian bytes, since
/// only little-endian targets have this (their SIMD kernels use it).
///
/// # Safety
///
/// `at + size_of::<T>() <= bytes.len()`.
#[cfg(target_endian = "little")]
#[allow(dead_code, reason = "used by the SIMD targets only")]
#[inline(always)]
pub(crate) unsafe fn write_le<T: crate::Unsigned>(bytes: &mut [u8], at: usize, v: T) {
    debug_assert!(at + T::BYTES <= bytes.len());
    // SAFETY: the caller guarantees `at + size_of::<T>() <= bytes.len()`;
    // `write_unaligned` has no alignment requirement.
    unsafe {
        bytes
            .as_mut_ptr()
            .wrapping_add(at)
            .cast::<T>()
            .write_unaligned(v)
    }
}
