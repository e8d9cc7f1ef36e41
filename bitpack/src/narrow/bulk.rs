//! The bulk paths of [`NarrowArray`](super::NarrowArray): packing values into
//! the dense LSB-first word stream and unpacking them, a word at a time.
//!
//! Every bulk operation of the container (`from_slice`, `extend`,
//! `pack_from`, `to_vec`, `unpack_into`, `from_bytes`) goes through the
//! functions here, which take plain slices, so that width-specialized kernels
//! can replace their bodies without touching the container.
//!
//! # The stream
//!
//! Element `i` of width `BITS` occupies bits `[i * BITS, (i + 1) * BITS)` of
//! the stream; stream bit `k` is bit `k % 64` of word `k / 64`. Words are kept
//! in memory as little-endian bytes ([`load`] and [`store`] convert, and are
//! free on little-endian targets), so the bytes of the word buffer are the
//! dense byte stream on every target.

use crate::unsigned::mask_u128;
use crate::{BitElement, Unsigned};

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

/// Streams pieces of up to 64 bits into consecutive stream bits.
struct Writer<'a> {
    words: &'a mut [u64],
    idx: usize,
    acc: u64,
    fill: u32,
}

impl<'a> Writer<'a> {
    /// A writer at stream bit `bit`; the stream bits below it are kept.
    #[inline(always)]
    fn new(words: &'a mut [u64], bit: usize) -> Self {
        let idx = bit / 64;
        let fill = (bit % 64) as u32;
        let acc = if fill == 0 {
            0
        } else {
            load(words[idx]) & mask64(fill)
        };
        Self {
            words,
            idx,
            acc,
            fill,
        }
    }

    /// Appends the low `n` (1..=64) bits of `value` (higher bits are clear).
    #[inline(always)]
    fn push(&mut self, value: u64, n: u32) {
        self.acc |= value << self.fill;
        let total = self.fill + n;
        if total >= 64 {
            self.words[self.idx] = store(self.acc);
            self.idx += 1;
            self.acc = if self.fill == 0 {
                0
            } else {
                value >> (64 - self.fill)
            };
            self.fill = total - 64;
        } else {
            self.fill = total;
        }
    }

    /// Writes the last partial word, keeping the stream bits above it.
    #[inline(always)]
    fn finish(self) {
        if self.fill > 0 {
            let keep = load(self.words[self.idx]) & !mask64(self.fill);
            self.words[self.idx] = store(keep | self.acc);
        }
    }
}

/// Streams pieces of up to 64 bits out of consecutive stream bits.
struct Reader<'a> {
    words: &'a [u64],
    /// The next word to load.
    idx: usize,
    /// The unread bits of the current word, shifted down.
    cur: u64,
    /// How many bits of `cur` are unread.
    avail: u32,
}

impl<'a> Reader<'a> {
    /// A reader at stream bit `bit`, which must be inside `words`.
    #[inline(always)]
    fn new(words: &'a [u64], bit: usize) -> Self {
        let idx = bit / 64;
        let off = (bit % 64) as u32;
        Self {
            words,
            idx: idx + 1,
            cur: load(words[idx]) >> off,
            avail: 64 - off,
        }
    }

    /// The next `n` (1..=64) bits.
    #[inline(always)]
    fn pull(&mut self, n: u32) -> u64 {
        if n <= self.avail {
            let v = self.cur & mask64(n);
            self.cur = if n == 64 { 0 } else { self.cur >> n };
            self.avail -= n;
            v
        } else {
            let next = load(self.words[self.idx]);
            self.idx += 1;
            // `avail < n <= 64`, so the shift is in range; `cur` is zero when
            // `avail` is.
            let v = (self.cur | (next << self.avail)) & mask64(n);
            let used = n - self.avail;
            self.cur = if used == 64 { 0 } else { next >> used };
            self.avail = 64 - used;
            v
        }
    }
}

/// Packs `src` into the stream, element `src[j]` at index `first + j`. Only
/// the bits of those elements change.
///
/// # Panics
///
/// When the elements run past the end of `dst`.
pub(crate) fn pack<T: BitElement>(src: &[T], dst: &mut [u64], first: usize) {
    if src.is_empty() {
        return;
    }
    let bits = T::BITS;
    let mut w = Writer::new(dst, first * bits as usize);
    if bits <= 64 {
        for v in src {
            w.push(v.raw_bits().to_u128() as u64, bits);
        }
    } else {
        for v in src {
            let raw = v.raw_bits().to_u128();
            w.push(raw as u64, 64);
            w.push((raw >> 64) as u64, bits - 64);
        }
    }
    w.finish();
}

/// Unpacks the elements at indices `first..first + dst.len()` of the stream
/// into `dst`.
///
/// # Panics
///
/// When the elements run past the end of `src`.
pub(crate) fn unpack<T: BitElement>(src: &[u64], first: usize, dst: &mut [T]) {
    if dst.is_empty() {
        return;
    }
    let bits = T::BITS;
    let mut r = Reader::new(src, first * bits as usize);
    if bits <= 64 {
        for v in dst {
            *v = T::from_raw_bits(T::Raw::from_u128_truncate(u128::from(r.pull(bits))));
        }
    } else {
        for v in dst {
            let lo = u128::from(r.pull(64));
            let hi = u128::from(r.pull(bits - 64));
            *v = T::from_raw_bits(T::Raw::from_u128_truncate(lo | (hi << 64)));
        }
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
