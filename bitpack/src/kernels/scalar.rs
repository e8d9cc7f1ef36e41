//! Portable kernels: one generic source per kernel, monomorphized per width.
//!
//! Every function here takes the width as a `const W: u32`, so shifts, masks,
//! word indices and block sizes are compile-time constants. The hot loops work
//! on *blocks*: the smallest run of elements whose bits are a whole number of
//! 64-bit words ([`block_elems`] elements in [`block_words`] words). Within a
//! block every element's word and shift are constants, and the block body is
//! unrolled by [`unroll64!`], so a block compiles to straight-line loads,
//! shifts, masks and stores. Elements before the first block boundary and
//! after the last one (an unaligned starting offset, a ragged length) go
//! through [`get64`]/[`set64`], one element at a time.
//!
//! The code is safe Rust, allocates nothing and is the source the
//! `nvptx64-nvidia-cuda` build compiles; the callers in `super` have checked
//! every length, and the kernels index slices (a wrong length panics rather
//! than reading out of bounds).

pub(crate) use super::bits::{
    hsum, load as ld, mask64, read_dense_at as get64, rep_mask, store as st,
    write_dense_at as set64,
};

mod sealed {
    pub trait Sealed {}
}

/// An element buffer type the word kernels write: `u8`, `u16`, `u32`, `u64`
/// (sealed).
pub trait Lane: sealed::Sealed + Copy + Default + bytemuck::Pod + Send + Sync + 'static {
    /// Width in bits.
    const BITS: u32;
    /// Truncates a word to this type.
    fn from_u64(v: u64) -> Self;
    /// Zero-extends to a word.
    fn to_u64(self) -> u64;
    /// The value of little-endian bytes.
    fn from_le(x: Self) -> Self;
    /// The little-endian bytes of the value.
    fn to_le(self) -> Self;
}

macro_rules! impl_lane {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Lane for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline(always)]
            fn from_u64(v: u64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_u64(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn from_le(x: Self) -> Self {
                <$t>::from_le(x)
            }
            #[inline(always)]
            fn to_le(self) -> Self {
                <$t>::to_le(self)
            }
        }
    )*};
}

impl_lane!(u8, u16, u32, u64);

/// `gcd(w, 64)` for `w >= 1`.
#[inline(always)]
pub(crate) const fn gcd64(w: u32) -> u32 {
    let tz = w.trailing_zeros();
    1 << if tz > 6 { 6 } else { tz }
}

/// Elements per block: the fewest elements of `w` bits that fill whole words.
#[inline(always)]
pub(crate) const fn block_elems(w: u32) -> usize {
    (64 / gcd64(w)) as usize
}

/// Words per block.
#[inline(always)]
pub(crate) const fn block_words(w: u32) -> usize {
    (w / gcd64(w)) as usize
}

/// How a run of `n` elements from element `offset` meets the blocks of
/// width `W`: the elements before the first block boundary (`..head`), the
/// whole blocks (`head..tail`, in stream words `words`), the rest (`tail..`);
/// element indices are relative to `offset`.
struct Split {
    head: usize,
    tail: usize,
    words: core::ops::Range<usize>,
}

#[inline(always)]
fn split<const W: u32>(offset: usize, n: usize) -> Split {
    let b = block_elems(W);
    let bw = block_words(W);
    let head = ((b - offset % b) % b).min(n);
    let blocks = (n - head) / b;
    let first_word = (offset + head) / b * bw;
    Split {
        head,
        tail: head + blocks * b,
        words: first_word..first_word + blocks * bw,
    }
}

// ---------------------------------------------------------------------------
// unpack
// ---------------------------------------------------------------------------

/// Unpacks one block: `words` holds exactly [`block_words`]`(W)` words,
/// `out` exactly [`block_elems`]`(W)` elements.
#[inline(always)]
fn unpack_block<const W: u32, U: Lane>(words: &[u64], out: &mut [U]) {
    let b = block_elems(W);
    let words = &words[..block_words(W)];
    let out = &mut out[..b];
    unroll64!(j => {
        if j < b {
            out[j] = U::from_u64(get64(words, j * W as usize, W));
        }
    });
}

/// Copies whole-width elements (`W == U::BITS`) straight from the words'
/// bytes, which are the stream's bytes. On little-endian targets the bytes of
/// a `U` are its value; elsewhere each element is then byte-swapped.
#[inline(always)]
fn copy_full<U: Lane>(words: &[u64], offset: usize, dst: &mut [U]) {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let size = core::mem::size_of::<U>();
    let src = &bytes[offset * size..(offset + dst.len()) * size];
    bytemuck::cast_slice_mut::<U, u8>(dst).copy_from_slice(src);
    if cfg!(target_endian = "big") {
        for d in dst {
            *d = U::from_le(*d);
        }
    }
}

/// Unpacks `dst.len()` elements of `W` bits (`W <= U::BITS`, `W <= 64`)
/// starting at element `offset` of the stream.
pub(crate) fn unpack<const W: u32, U: Lane>(words: &[u64], offset: usize, dst: &mut [U]) {
    if W == U::BITS {
        copy_full(words, offset, dst);
        return;
    }
    let sp = split::<W>(offset, dst.len());
    let body = dst[sp.head..sp.tail].chunks_exact_mut(block_elems(W));
    for (out, ws) in body.zip(words[sp.words].chunks_exact(block_words(W))) {
        unpack_block::<W, U>(ws, out);
    }
    let edges = (0..sp.head).chain(sp.tail..dst.len());
    for i in edges {
        dst[i] = U::from_u64(get64(words, (offset + i) * W as usize, W));
    }
}

/// Unpacks into `u128` elements, `W` in `1..=128`, one element at a time.
pub(crate) fn unpack_wide<const W: u32>(words: &[u64], offset: usize, dst: &mut [u128]) {
    for (i, d) in dst.iter_mut().enumerate() {
        *d = super::bits::read(words, (offset + i) * W as usize, W);
    }
}

// ---------------------------------------------------------------------------
// pack
// ---------------------------------------------------------------------------

/// Packs one block: `src` holds exactly [`block_elems`]`(W)` elements, `words`
/// exactly [`block_words`]`(W)` words, which are overwritten.
#[inline(always)]
fn pack_block<const W: u32, U: Lane>(src: &[U], words: &mut [u64]) {
    let b = block_elems(W);
    let src = &src[..b];
    let words = &mut words[..block_words(W)];
    let mut cur = 0u64;
    unroll64!(j => {
        if j < b {
            let bit = j * W as usize;
            let w = bit / 64;
            let s = (bit % 64) as u32;
            let v = src[j].to_u64() & mask64(W);
            if s == 0 {
                cur = v;
            } else {
                cur |= v << s;
            }
            if s + W >= 64 {
                words[w] = st(cur);
                cur = if s + W > 64 { v >> (64 - s) } else { 0 };
            }
        }
    });
    // The last element ends on a word boundary, so nothing is left over.
    debug_assert_eq!(cur, 0);
}

/// Copies whole-width elements (`W == U::BITS`) straight into the words'
/// bytes (byte-swapping each element first on big-endian targets).
#[inline(always)]
fn copy_full_in<U: Lane>(src: &[U], words: &mut [u64], offset: usize) {
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
    let size = core::mem::size_of::<U>();
    let out = &mut bytes[offset * size..(offset + src.len()) * size];
    out.copy_from_slice(bytemuck::cast_slice(src));
    if cfg!(target_endian = "big") {
        for d in bytemuck::cast_slice_mut::<u8, U>(out) {
            *d = d.to_le();
        }
    }
}

/// Packs `src` (`W <= U::BITS`, `W <= 64`) into the stream at element
/// `offset`; bits of `src` above `W` are ignored and stream bits outside the
/// written elements are unchanged.
pub(crate) fn pack<const W: u32, U: Lane>(src: &[U], words: &mut [u64], offset: usize) {
    if W == U::BITS {
        copy_full_in(src, words, offset);
        return;
    }
    let sp = split::<W>(offset, src.len());
    let body = src[sp.head..sp.tail].chunks_exact(block_elems(W));
    for (s, ws) in body.zip(words[sp.words].chunks_exact_mut(block_words(W))) {
        pack_block::<W, U>(s, ws);
    }
    // The edge elements share no word with the blocks.
    let edges = (0..sp.head).chain(sp.tail..src.len());
    for i in edges {
        set64(words, (offset + i) * W as usize, W, src[i].to_u64());
    }
}

/// Packs `u128` elements, `W` in `1..=128`, one element at a time.
pub(crate) fn pack_wide<const W: u32>(src: &[u128], words: &mut [u64], offset: usize) {
    for (i, &v) in src.iter().enumerate() {
        super::bits::write(words, (offset + i) * W as usize, W, v);
    }
}

// ---------------------------------------------------------------------------
// sum
// ---------------------------------------------------------------------------

/// Sum of the `n` elements of `W` bits (`W` in `1..=64`) from element
/// `offset`.
///
/// - `W == 1`: population count of the bit range, whole words at a time.
/// - `W` in `2..=32`: in-word digit folding ([`sum_fold`]).
/// - `W` in `33..=64`: word extraction into a `u128` accumulator.
pub(crate) fn sum<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    if W == 1 {
        popcount_range(words, offset, n) as u128
    } else if W <= 32 {
        sum_fold::<W>(words, offset, n)
    } else {
        sum_extract::<W>(words, offset, n)
    }
}

/// Number of set bits in stream bits `[start, start + n)`.
#[inline(always)]
pub(crate) fn popcount_range(words: &[u64], start: usize, n: usize) -> u64 {
    if n == 0 {
        return 0;
    }
    let end = start + n;
    let (w0, s0) = (start / 64, start % 64);
    let (w1, s1) = (end / 64, end % 64);
    if w0 == w1 {
        return ((ld(words[w0]) >> s0) & mask64((s1 - s0) as u32)).count_ones() as u64;
    }
    let mut total = (ld(words[w0]) >> s0).count_ones() as u64;
    // Four independent sums, so that the adds do not serialize the counts.
    let mid = &words[w0 + 1..w1];
    let mut quads = mid.chunks_exact(4);
    let mut acc = [0u64; 4];
    for q in &mut quads {
        for (a, &x) in acc.iter_mut().zip(q) {
            *a += x.count_ones() as u64;
        }
    }
    total += acc.iter().sum::<u64>();
    for &x in quads.remainder() {
        total += x.count_ones() as u64;
    }
    if s1 > 0 {
        total += (ld(words[w1]) & mask64(s1 as u32)).count_ones() as u64;
    }
    total
}

/// Sum of `n` elements read one at a time (head and tail of the block loops).
#[inline(always)]
fn sum_each<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    let mut t = 0u128;
    for i in 0..n {
        t += get64(words, (offset + i) * W as usize, W) as u128;
    }
    t
}

/// First element boundary inside word `k` of a block: element bits
/// `[0, e)` of the word are the high part of an element begun in word `k - 1`.
#[inline(always)]
const fn first_boundary(w: u32, k: usize) -> u32 {
    let r = ((64 * k) % w as usize) as u32;
    if r == 0 { 0 } else { w - r }
}

/// Words per flush of the fold accumulator: each word adds at most
/// `2 * (2^W - 1)` to a `2W`-bit slot.
#[inline(always)]
const fn fold_words_per_flush(w: u32) -> usize {
    let cap = mask64(2 * w);
    let per = 2 * mask64(w);
    let r = (cap / per) as usize;
    if r > 1 << 12 { 1 << 12 } else { r }
}

/// In-word digit folding for `W` in `2..=32`.
///
/// Each word is a run of base-`2^W` digits (the elements), which may be cut
/// at both ends by the word boundary. For word `k` of a block, with its first
/// element boundary at bit `e`:
///
/// - the bits below `e` are the high part of an element: added as
///   `(x & mask(e)) << (W - e)`;
/// - `y = x >> e` has whole elements at bits `0, W, 2W, ...`; the first
///   `2 * pairs` of them are folded pairwise, `(y & M) + ((y >> W) & M)` with
///   `M` selecting even fields, into `2W`-bit slots that accumulate across
///   words (the slots never reach bit 64, so carries cannot be lost);
/// - what is left above them (at most one whole element plus the low part of
///   the element the next word finishes) is added as `(r & mask(W)) + (r >> W)`.
///
/// Every shift and mask is a constant of `W` and `k`. The slot accumulator is
/// flushed (its slots summed by [`hsum`]) before it can overflow.
pub(crate) fn sum_fold<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    let bw = block_words(W);
    let sp = split::<W>(offset, n);
    let mut total = sum_each::<W>(words, offset, sp.head);
    let body = &words[sp.words];
    let m1 = rep_mask(W, 2 * W);
    let per_flush = {
        let r = fold_words_per_flush(W) / bw;
        if r == 0 { 1 } else { r }
    };
    for group in body.chunks(per_flush * bw) {
        let mut acc = 0u64;
        let mut extra = 0u64;
        for ws in group.chunks_exact(bw) {
            let ws = &ws[..bw];
            unroll64!(k => {
                if k < bw {
                    let x = ld(ws[k]);
                    let e = first_boundary(W, k);
                    if e > 0 {
                        extra += (x & mask64(e)) << (W - e);
                    }
                    let y = x >> e;
                    let whole = (64 - e) / W;
                    let pairs = whole / 2;
                    if pairs > 0 {
                        let main = y & mask64(2 * W * pairs);
                        acc += (main & m1) + ((main >> W) & m1);
                    }
                    let rest_at = 2 * W * pairs;
                    if rest_at < 64 {
                        let r = y >> rest_at;
                        extra += (r & mask64(W)) + if W < 64 { r >> W } else { 0 };
                    }
                }
            });
        }
        total += hsum(acc, 2 * W) as u128 + extra as u128;
    }
    total + sum_each::<W>(words, offset + sp.tail, n - sp.tail)
}

/// Word extraction for `W` in `33..=64`: each element is read with constant
/// shifts (a block at a time) and added to a `u128`.
pub(crate) fn sum_extract<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    let b = block_elems(W);
    let bw = block_words(W);
    let sp = split::<W>(offset, n);
    let mut total = sum_each::<W>(words, offset, sp.head);
    for ws in words[sp.words].chunks_exact(bw) {
        let ws = &ws[..bw];
        unroll64!(j => {
            if j < b {
                total += get64(ws, j * W as usize, W) as u128;
            }
        });
    }
    total + sum_each::<W>(words, offset + sp.tail, n - sp.tail)
}

// ---------------------------------------------------------------------------
// table decode, mapped encode
// ---------------------------------------------------------------------------

/// Elements per stack chunk in [`decode`] and [`encode`]: a multiple of every
/// block length, so chunks after the first start on a block boundary.
pub(crate) const CHUNK: usize = 1024;

/// The `(start, len)` of each chunk of `n` elements from element `offset`,
/// `start` relative to `offset`: the first chunk ends on a multiple of 64
/// elements (a block boundary for every width), so the others, `chunk` long
/// (a multiple of 64), start on one.
#[inline(always)]
pub(crate) fn chunk_ranges(
    offset: usize,
    n: usize,
    chunk: usize,
) -> impl Iterator<Item = (usize, usize)> {
    let mut done = 0;
    core::iter::from_fn(move || {
        (done < n).then(|| {
            let len = (chunk - (offset + done) % 64).min(n - done);
            done += len;
            (done - len, len)
        })
    })
}

/// Decodes codes through `table`: `dst[i] = table[code(offset + i)]`, with
/// the codes unpacked a stack chunk at a time by `unpack` (the width's
/// kernel, chosen once by the caller). `table.len()` is a power of two, at
/// least `2^W`.
#[inline(always)]
pub(crate) fn decode_chunks<C: Lane, O: Copy>(
    unpack: impl Fn(&[u64], usize, &mut [C]),
    words: &[u64],
    offset: usize,
    table: &[O],
    dst: &mut [O],
) {
    let mut codes = [C::default(); CHUNK];
    let index_mask = table.len() - 1;
    for (done, len) in chunk_ranges(offset, dst.len(), CHUNK) {
        let codes = &mut codes[..len];
        unpack(words, offset + done, codes);
        for (d, &c) in dst[done..done + len].iter_mut().zip(codes.iter()) {
            *d = table[c.to_u64() as usize & index_mask];
        }
    }
}

/// Decodes codes through `map` a stack chunk at a time: codes are unpacked
/// by `unpack` (the width's kernel, chosen once by the caller), then
/// `map_chunk` turns the chunk into values.
#[inline(always)]
pub(crate) fn decode_map_chunks<O: Copy>(
    unpack: impl Fn(&[u64], usize, &mut [u8]),
    map_chunk: impl Fn(&[u8], &mut [O]),
    words: &[u64],
    offset: usize,
    dst: &mut [O],
) {
    let mut codes = [0u8; CHUNK];
    for (done, len) in chunk_ranges(offset, dst.len(), CHUNK) {
        let codes = &mut codes[..len];
        unpack(words, offset + done, codes);
        map_chunk(codes, &mut dst[done..done + len]);
    }
}

/// `out[i] = f(codes[i])`: the portable map of [`decode_map_chunks`].
#[inline(always)]
pub(crate) fn map_values<O, F: Fn(u8) -> O>(f: &F, codes: &[u8], out: &mut [O]) {
    for (o, &c) in out.iter_mut().zip(codes) {
        *o = f(c);
    }
}

/// Maps values to codes a stack chunk at a time with `map` and packs each
/// chunk with `pack` (the width's kernel, chosen once by the caller) at
/// element `offset`.
#[inline(always)]
pub(crate) fn encode_chunks<S: Copy>(
    map: impl Fn(&[S], &mut [u8]),
    pack: impl Fn(&[u8], &mut [u64], usize),
    src: &[S],
    words: &mut [u64],
    offset: usize,
) {
    let mut codes = [0u8; CHUNK];
    for (done, len) in chunk_ranges(offset, src.len(), CHUNK) {
        let codes = &mut codes[..len];
        map(&src[done..done + len], codes);
        pack(codes, words, offset + done);
    }
}

/// `codes[i] = f(src[i])`: the portable map of [`encode_chunks`].
#[inline(always)]
pub(crate) fn map_codes<S: Copy, F: Fn(S) -> u8>(f: &F, src: &[S], codes: &mut [u8]) {
    // Blocks of 32 let the vectorizer narrow four vectors of results to
    // bytes at once.
    let n = codes.len().min(src.len());
    let (codes, src) = (&mut codes[..n], &src[..n]);
    let mut blocks = codes.chunks_exact_mut(32);
    let mut sblocks = src.chunks_exact(32);
    for (c, s) in (&mut blocks).zip(&mut sblocks) {
        for j in 0..32 {
            c[j] = f(s[j]);
        }
    }
    for (c, &s) in blocks.into_remainder().iter_mut().zip(sblocks.remainder()) {
        *c = f(s);
    }
}
