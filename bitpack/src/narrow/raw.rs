//! The raw stream core of the owned containers: the rules of a buffer of
//! words holding `len` values of `bits` bits in one layout, written once for
//! [`NarrowArray`](super::NarrowArray) (a `const` [`Raw`] built from `T` and
//! `L`) and [`DynNarrowArray`](super::DynNarrowArray) (a [`Raw`] built from
//! its run-time width).
//!
//! A [`Raw`] holds no words: its functions take the container's word buffer
//! and length (the fields stay on the containers, where the shape accessors
//! read them). It sizes the buffer ([`words_for`](Raw::words_for), the
//! [`Error::Alloc`] of a size that overflows or is refused), grows it
//! ([`reserve`](Raw::reserve), [`grow`](Raw::grow), [`push`](Raw::push)),
//! shrinks it ([`truncate`](Raw::truncate), [`pop`](Raw::pop)), reads and
//! writes one value ([`get`](Raw::get), [`set`](Raw::set), the index check),
//! and repacks the values into another width or layout
//! ([`repack`](Raw::repack)). The bits of the stream are those of
//! [`crate::kernels::bits`]; the bulk paths are the kernels of
//! [`crate::kernels::stream`].

use alloc::vec::Vec;

use crate::kernels::{bits, stream};
use crate::shape::packing::{self, per_word, same_as_dense};
use crate::{Error, Result, Unsigned};

/// Values per stack chunk when repacking (1 KiB of `u64`s).
const CHUNK: usize = 128;

/// The shape of a stream of words: its layout and width, and the names its
/// errors and panics give.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Raw {
    /// Whether values never straddle a word ([`WordAligned`](crate::WordAligned)).
    pub(crate) aligned: bool,
    /// The width of each value, in bits (1..=128).
    pub(crate) bits: u32,
    /// The container's name, as an overflowing size's panic names it.
    pub(crate) name: &'static str,
    /// What [`Error::Alloc`] names for the words.
    pub(crate) words: &'static str,
}

/// Where a [`Raw::repack`] reads and writes.
pub(crate) enum Words<'a> {
    /// One buffer: the values move in place (it holds the larger of the two
    /// streams).
    InPlace(&'a mut [u64]),
    /// From the first buffer into the second, which starts zeroed.
    Copy(&'a [u64], &'a mut [u64]),
}

/// [`Error::Index`] unless `i < len`.
#[inline]
pub(crate) fn check_index(i: usize, len: usize) -> Result<()> {
    if i >= len {
        return Err(Error::Index { index: i, len });
    }
    Ok(())
}

impl Raw {
    /// The same stream at another width.
    #[inline]
    pub(crate) const fn with_bits(self, bits: u32) -> Raw {
        Raw { bits, ..self }
    }

    /// The panic of a size that overflows `usize`, as `Vec` panics.
    #[cold]
    fn overflow(self) -> ! {
        panic!("{} capacity overflow", self.name)
    }

    /// The [`Error::Alloc`] of the words (`None`: the count overflows).
    pub(crate) fn alloc_error(self, count: Option<usize>) -> Error {
        Error::Alloc {
            what: self.words,
            count,
            value_bytes: 8,
        }
    }

    /// The words holding `len` values, panicking on overflow.
    #[inline]
    pub(crate) fn words_for(self, len: usize) -> usize {
        packing::words_for(self.aligned, self.bits, len).unwrap_or_else(|| self.overflow())
    }

    /// The words holding `len` values, or [`Error::Alloc`] on overflow.
    #[inline]
    pub(crate) fn try_words_for(self, len: usize) -> Result<usize> {
        packing::words_for(self.aligned, self.bits, len).ok_or_else(|| self.alloc_error(None))
    }

    /// The stream bit where value `i` starts.
    #[inline(always)]
    pub(crate) fn bit_of(self, i: usize) -> usize {
        packing::bit_of(self.aligned, self.bits, i)
    }

    /// The bytes of the dense stream of `len` values, `ceil(len * bits /
    /// 8)`, panicking on overflow.
    #[inline]
    pub(crate) fn stream_bytes(self, len: usize) -> usize {
        len.checked_mul(self.bits as usize)
            .unwrap_or_else(|| self.overflow())
            .div_ceil(8)
    }

    /// How many values a buffer of `word_capacity` words holds.
    #[inline]
    pub(crate) fn capacity(self, word_capacity: usize) -> usize {
        packing::capacity_of(self.aligned, self.bits, word_capacity)
    }

    /// The zeroed words of `len` values, or [`Error::Alloc`] (nothing is
    /// allocated then).
    ///
    /// The words come zeroed from the allocator (`alloc_zeroed`), not
    /// written: for a large array that is fresh memory the system hands
    /// over as zero pages, so the call costs no pass over it, and the first
    /// writes (a quantize's, on every thread of a split one) are the only
    /// ones. A `resize` would write every word once more, on one thread.
    pub(crate) fn try_zeroed(self, len: usize) -> Result<Vec<u64>> {
        let n = self.try_words_for(len)?;
        zeroed_words(n).ok_or_else(|| self.alloc_error(Some(n)))
    }

    /// Resizes `words` to hold exactly `len` values (new words zero), or
    /// returns [`Error::Alloc`] with `words` unchanged.
    pub(crate) fn try_resize(self, words: &mut Vec<u64>, len: usize) -> Result<()> {
        let n = self.try_words_for(len)?;
        words
            .try_reserve_exact(n.saturating_sub(words.len()))
            .map_err(|_| self.alloc_error(Some(n)))?;
        words.resize(n, 0);
        Ok(())
    }

    /// Reserves room in `words` (holding `len` values) for `additional`
    /// more, panicking on overflow or a refused allocation.
    pub(crate) fn reserve(self, words: &mut Vec<u64>, len: usize, additional: usize) {
        let total = len
            .checked_add(additional)
            .unwrap_or_else(|| self.overflow());
        let need = self.words_for(total);
        words.reserve(need.saturating_sub(words.len()));
    }

    /// Reserves room in `words` (holding `len` values) for `additional`
    /// more, or returns [`Error::Alloc`] with `words` unchanged.
    pub(crate) fn try_reserve(
        self,
        words: &mut Vec<u64>,
        len: usize,
        additional: usize,
    ) -> Result<()> {
        let total = len
            .checked_add(additional)
            .ok_or_else(|| self.alloc_error(None))?;
        let need = self.try_words_for(total)?;
        words
            .try_reserve(need.saturating_sub(words.len()))
            .map_err(|_| self.alloc_error(Some(need)))
    }

    /// Grows `words` (holding `len` values) to hold `more` more, zero, and
    /// returns the new length; panics on overflow or a refused allocation.
    #[inline]
    pub(crate) fn grow(self, words: &mut Vec<u64>, len: usize, more: usize) -> usize {
        let total = len.checked_add(more).unwrap_or_else(|| self.overflow());
        words.resize(self.words_for(total), 0);
        total
    }

    /// Appends the low `bits` bits of `value` to `words` (holding `len`
    /// values) and returns the new length.
    #[inline]
    pub(crate) fn push(self, words: &mut Vec<u64>, len: usize, value: u128) -> usize {
        let total = self.grow(words, len, 1);
        self.write(words, len, value);
        total
    }

    /// Cuts `words` (holding `len` values) to the first `new_len` values,
    /// clearing every bit past them; `false` (nothing changes) when
    /// `new_len >= len`.
    pub(crate) fn truncate(self, words: &mut Vec<u64>, len: usize, new_len: usize) -> bool {
        if new_len >= len {
            return false;
        }
        self.cut(words, new_len);
        true
    }

    /// Cuts `words` to the words of `len` values, clearing every bit past
    /// them.
    pub(crate) fn cut(self, words: &mut Vec<u64>, len: usize) {
        words.truncate(self.words_for(len));
        bits::clear_from(words, self.bit_of(len));
    }

    /// Removes the last of the `len` values of `words` and returns it
    /// (`None` when `len` is 0); the new length is `len - 1`.
    pub(crate) fn pop(self, words: &mut Vec<u64>, len: usize) -> Option<u128> {
        let last = len.checked_sub(1)?;
        let value = self.read(words, last);
        self.truncate(words, len, last);
        Some(value)
    }

    /// The value at `i`, which must be in bounds.
    #[inline(always)]
    pub(crate) fn read(self, words: &[u64], i: usize) -> u128 {
        bits::read(words, self.bit_of(i), self.bits)
    }

    /// Writes the low `bits` bits of `value` at `i`, which must be in
    /// bounds.
    #[inline(always)]
    pub(crate) fn write(self, words: &mut [u64], i: usize, value: u128) {
        bits::write(words, self.bit_of(i), self.bits, value);
    }

    /// The value at `i` of `len` values, or `None` when `i >= len`.
    #[inline]
    pub(crate) fn get(self, words: &[u64], len: usize, i: usize) -> Option<u128> {
        (i < len).then(|| self.read(words, i))
    }

    /// Writes `value` at `i` of `len` values, or returns [`Error::Index`]
    /// with nothing changed.
    #[inline]
    pub(crate) fn set(self, words: &mut [u64], len: usize, i: usize, value: u128) -> Result<()> {
        check_index(i, len)?;
        self.write(words, i, value);
        Ok(())
    }

    /// Moves the `len` values of a stream stored as `self` to their places
    /// as `to` (another width, another layout, or both), a chunk at a time
    /// through a stack buffer: O(n), no unpacked copy.
    ///
    /// In place ([`Words::InPlace`], one layout), a wider `to` moves the
    /// values from the last chunk down (each value moves to a place at least
    /// as far along, past the old places of every value before it) and a
    /// narrower one from the first up, so no value is overwritten before it
    /// moves. Chunks start on whole words of a word-aligned side, so every
    /// word but the last is rewritten whole, gap bits included. Bits past
    /// the new stream are the caller's (see [`truncate`](Self::truncate)).
    pub(crate) fn repack(self, to: Raw, words: Words<'_>, len: usize) {
        if self.bits > 64 || to.bits > 64 {
            repack_with::<u128>(self, to, words, len);
        } else {
            repack_with::<u64>(self, to, words, len);
        }
    }

    /// Values per repack chunk: a multiple of the values per word of the
    /// word-aligned side, if any.
    fn chunk_for(self, to: Raw) -> usize {
        let side = if to.aligned { to } else { self };
        if side.aligned && side.bits <= 64 && !same_as_dense(side.bits) {
            let per = per_word(side.bits);
            CHUNK / per * per
        } else {
            CHUNK
        }
    }
}

/// The body of [`Raw::repack`] with a stack buffer of `U` values (`u128`
/// for widths above 64).
fn repack_with<U: Unsigned>(from: Raw, to: Raw, mut words: Words<'_>, len: usize) {
    let chunk = from.chunk_for(to);
    let chunks = len.div_ceil(chunk);
    let backward = to.bits > from.bits;
    let mut buf = [U::ZERO; CHUNK];
    for k in 0..chunks {
        let start = if backward { chunks - 1 - k } else { k } * chunk;
        let buf = &mut buf[..chunk.min(len - start)];
        match &mut words {
            Words::InPlace(w) => {
                stream::unpack(from.aligned, from.bits, w, start, buf);
                stream::pack(to.aligned, to.bits, buf, w, start);
            }
            Words::Copy(src, dst) => {
                stream::unpack(from.aligned, from.bits, src, start, buf);
                stream::pack(to.aligned, to.bits, buf, dst, start);
            }
        }
    }
}

/// `n` zero words from the global allocator's `alloc_zeroed`, or `None`
/// where the size overflows or the allocator refuses.
fn zeroed_words(n: usize) -> Option<Vec<u64>> {
    if n == 0 {
        return Some(Vec::new());
    }
    let layout = core::alloc::Layout::array::<u64>(n).ok()?;
    // SAFETY: `layout` has a non-zero size (`n > 0`, checked above).
    let ptr = unsafe { alloc::alloc::alloc_zeroed(layout) }.cast::<u64>();
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout
    // of `[u64; n]` (as a `Vec<u64>` of capacity `n` allocates), and its
    // `n` words are initialized (zero bits are a `u64`).
    Some(unsafe { Vec::from_raw_parts(ptr, n, n) })
}
