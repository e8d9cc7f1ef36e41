//! The bulk GPU kernel bodies, generic over [`Simt`]: the same source runs
//! as the `bitpack-ptx` entry points (each a one-line call of a body here)
//! and on the tests' simulated grid.
//!
//! # Memory access
//!
//! Every bulk body moves 16-byte chunks ([`U32x4`]) with 128-bit loads and
//! stores, and gives each thread **one chunk of output** per step of a
//! grid-stride loop ([`grid_stride`]): the lanes
//! of a warp store consecutive chunks, so one store instruction of a warp
//! covers 512 contiguous bytes (4 lines of 128 bytes), and any grid and
//! block size is correct. Nothing a thread keeps is indexed by a run-time
//! value, so nothing lives in local memory.
//!
//! - `map_out` (unpack, decode: a packed stream to an array): output chunk
//!   `c` needs at most 128 bits of the stream, from a bit that depends on
//!   `c`; one or two 128-bit loads (neighbouring lanes load the same chunk,
//!   which one load instruction serves once) and a funnel shift line them
//!   up, then every value sits at a constant place.
//! - `map_in` (pack, encode: an array to a packed stream): output chunk
//!   `c` is bits `128c..128c + 128` of the stream; the values that touch it
//!   are loaded as chunks, shifted into line, converted and placed at
//!   constant places, and the result is shifted by the first value's bits
//!   before the chunk. Where `W` divides 128 a chunk holds whole values and
//!   `map`'s units (the fewest values whose bits fill whole chunks on
//!   both sides, here one output chunk) do the same with every shift a
//!   constant.
//! - Sums and `amax_partials` read one unit or chunk per thread and reduce
//!   across the warp with shuffles.
//!
//! A buffer whose start lacks 16-byte alignment (a sub-slice at an offset
//! that is not a multiple of 16 bytes; `cudaMalloc` and `cuMemAlloc` return
//! aligned ones), the last partial chunk, and chunks whose input reaches
//! into a buffer's last partial chunk take the slower element path, kept out
//! of line: one load per value (and per word), whole 4-byte words of output
//! between a head and a tail of at most three elements written alone, one
//! store per word of a stream. The result is the same bits, never wrong;
//! the words of a stream are written whole, padding bits zero, as the host
//! kernels write them.
//!
//! | family | file | fast path needs |
//! |---|---|---|
//! | unpack to `u8`/`u16`/`u32` | `unpack.rs` | `words` and `out` 16-byte aligned |
//! | pack from `u8`/`u32` | `pack.rs` | `src` and `words` 16-byte aligned |
//! | sums | `sum.rs` | `words` (`partials` for `sum_partials`) 16-byte aligned |
//! | encode from `f32`/`f16`/`bf16`, decode to them | `float.rs` | both buffers 16-byte aligned |
//! | `amax_partials` | `amax.rs` | `src` 16-byte aligned |
//!
//! The bytes of a chunk are little-endian (the order of every GPU target).

use super::simt::{Simt, U32x4, aligned16, grid_stride};

pub mod amax;
pub mod float;
pub mod pack;
pub mod sum;
pub mod unpack;

/// An element of an array a kernel reads or writes, as its little-endian
/// bits: the unsigned lanes (`u8`..`u64`), `f32` and the 16-bit float bits
/// ([`float::Half`]).
pub trait Elem: bytemuck::Pod {
    /// Width in bits (8 to 64).
    const BITS: u32;
    /// The element's bits, zero-extended.
    fn to_bits(self) -> u64;
    /// The element of the low [`BITS`](Self::BITS) bits of `x`.
    fn from_bits(x: u64) -> Self;
}

impl<T: super::fixed::Lane> Elem for T {
    const BITS: u32 = <T as super::fixed::Lane>::BITS;
    #[inline(always)]
    fn to_bits(self) -> u64 {
        self.to_u64()
    }
    #[inline(always)]
    fn from_bits(x: u64) -> Self {
        T::from_u64(x)
    }
}

impl Elem for f32 {
    const BITS: u32 = 32;
    #[inline(always)]
    fn to_bits(self) -> u64 {
        f32::to_bits(self) as u64
    }
    #[inline(always)]
    fn from_bits(x: u64) -> Self {
        f32::from_bits(x as u32)
    }
}

const fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Values per unit of a stream of `a`-bit values turned into one of
/// `b`-bit values: the least count whose bits on both sides fill whole
/// 128-bit chunks.
pub(crate) const fn unit_len(a: u32, b: u32) -> usize {
    let x = 128 / gcd(a as usize, 128);
    let y = 128 / gcd(b as usize, 128);
    x / gcd(x, y) * y
}

/// Values per unit for width `w` and unpacked values of `size` bytes: the
/// least `v` with `v * w` a multiple of 128 bits and `v * size` a multiple
/// of 16 bytes.
///
/// # Examples
///
/// ```
/// use bitpack::kernels::gpu::unit_values;
/// assert_eq!(unit_values(4, 1), 32);
/// assert_eq!(unit_values(5, 4), 128);
/// assert_eq!(unit_values(32, 4), 4);
/// ```
pub const fn unit_values(w: u32, size: usize) -> usize {
    unit_len(w, 8 * size as u32)
}

/// Expands `$body` for `$j` in `0..$v` (`$v <= 128`, a constant), with
/// `$j` a literal in each copy: the value loop of a unit.
macro_rules! each_value {
    ($v:expr, $j:ident => $body:block) => {
        unroll64!(j0 => {
            if j0 < $v {
                let $j = j0;
                $body
            }
        });
        unroll64!(j1 => {
            if j1 + 64 < $v {
                let $j = j1 + 64;
                $body
            }
        });
    };
}
pub(crate) use each_value;

/// Expands `$body` once per literal with `$k` bound to it (a constant in
/// each copy), so that every array index of the fast paths is a constant
/// and their arrays live in registers (a run-time index, a slice or an
/// iterator over one would put them in local memory).
macro_rules! rep {
    ($k:ident in [$($n:literal)*] => $body:block) => {
        $( { let $k: usize = $n; $body } )*
    };
}
pub(crate) use rep;

/// Expands `$body` for `$k` in `0..16`, a literal in each copy: the values
/// of one 16-byte chunk of output (at most 16).
macro_rules! unroll16 {
    ($k:ident => $body:block) => {
        rep!($k in [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15] => $body)
    };
}

/// The low `w` bits set (`w` in `1..=64`).
#[inline(always)]
pub(crate) const fn mask(w: u32) -> u64 {
    if w >= 64 { !0 } else { (1u64 << w) - 1 }
}

/// Reads the 128-bit chunks of one unit in order, holding the last chunk
/// loaded. Every index a unit's walk passes is a constant, so the chunk
/// held and the test of whether to load are resolved at compile time: the
/// walk is straight-line code with one 128-bit load per chunk and nothing
/// kept but one chunk.
pub(crate) struct ChunkReader<'a, S> {
    s: &'a S,
    base: *const U32x4,
    at: usize,
    cur: [u64; 2],
}

impl<'a, S: Simt> ChunkReader<'a, S> {
    /// The reader of the chunks from chunk `first` of `base`.
    #[inline(always)]
    pub(crate) fn new(s: &'a S, base: *const U32x4, first: usize) -> Self {
        // SAFETY of later loads: the callers' promise on `base.add(first..)`.
        ChunkReader {
            s,
            base: base.wrapping_add(first),
            at: usize::MAX,
            cur: [0; 2],
        }
    }

    /// Word `k` (64 bits) of the unit.
    ///
    /// # Safety
    ///
    /// Chunk `k / 2` of the unit is inside the buffer; `k` never decreases
    /// between calls (the chunk held is the last one loaded).
    #[inline(always)]
    pub(crate) unsafe fn word(&mut self, k: usize) -> u64 {
        if k / 2 != self.at {
            self.at = k / 2;
            // SAFETY: the caller's promise.
            self.cur = unsafe { self.s.load(self.base, k / 2) }.to_u64s();
        }
        self.cur[k % 2]
    }

    /// The `b` bits (`b <= 64`) at bit `bit` of the unit.
    ///
    /// # Safety
    ///
    /// As [`word`](Self::word), for the words those bits lie in.
    #[inline(always)]
    pub(crate) unsafe fn bits(&mut self, bit: usize, b: u32) -> u64 {
        let (k, sh) = (bit / 64, (bit % 64) as u32);
        // SAFETY: the caller's promise.
        let mut x = unsafe { self.word(k) } >> sh;
        if sh + b > 64 {
            // SAFETY: the caller's promise.
            x |= unsafe { self.word(k + 1) } << (64 - sh);
        }
        x & mask(b)
    }
}

/// Writes the 128-bit chunks of one unit in order, building one chunk in
/// registers and storing it whole when the walk moves past it (the
/// counterpart of [`ChunkReader`]).
pub(crate) struct ChunkWriter<'a, S> {
    s: &'a S,
    base: *mut U32x4,
    at: usize,
    cur: [u64; 2],
}

impl<'a, S: Simt> ChunkWriter<'a, S> {
    /// The writer of the chunks from chunk `first` of `base`.
    #[inline(always)]
    pub(crate) fn new(s: &'a S, base: *mut U32x4, first: usize) -> Self {
        ChunkWriter {
            s,
            base: base.wrapping_add(first),
            at: 0,
            cur: [0; 2],
        }
    }

    /// Ors `x` into word `k` of the unit.
    ///
    /// # Safety
    ///
    /// Every chunk up to `k / 2` is inside the buffer and this thread's
    /// alone; `k` never decreases between calls.
    #[inline(always)]
    unsafe fn or_word(&mut self, k: usize, x: u64) {
        if k / 2 != self.at {
            // SAFETY: the caller's promise.
            unsafe { self.flush() };
            self.at = k / 2;
        }
        self.cur[k % 2] |= x;
    }

    /// Puts the low `b` bits (`b <= 64`) of `x` at bit `bit` of the unit.
    ///
    /// # Safety
    ///
    /// As [`or_word`](Self::or_word), for the words those bits lie in; the
    /// bits put do not overlap.
    #[inline(always)]
    pub(crate) unsafe fn put(&mut self, bit: usize, b: u32, x: u64) {
        let x = x & mask(b);
        let (k, sh) = (bit / 64, (bit % 64) as u32);
        // SAFETY: the caller's promise.
        unsafe { self.or_word(k, x << sh) };
        if sh + b > 64 {
            // SAFETY: the caller's promise.
            unsafe { self.or_word(k + 1, x >> (64 - sh)) };
        }
    }

    /// Stores the chunk being built.
    ///
    /// # Safety
    ///
    /// As [`or_word`](Self::or_word): the chunk is inside the buffer and
    /// this thread's alone.
    #[inline(always)]
    pub(crate) unsafe fn flush(&mut self) {
        // SAFETY: the caller's promise.
        unsafe { self.s.store(self.base, self.at, U32x4::from_u64s(self.cur)) };
        self.cur = [0; 2];
    }
}

/// One side of a kernel: a packed stream of `W`-bit values or an array of
/// [`Elem`]s, read or written `BITS` bits per value.
pub(crate) trait Side {
    /// Bits per value.
    const BITS: u32;
    /// The start of the buffer.
    fn addr(&self) -> usize;
}

/// A packed stream of `W`-bit values in `words` (`avail` words long).
#[derive(Clone, Copy)]
pub(crate) struct Packed<const W: u32, P> {
    pub(crate) words: P,
    pub(crate) avail: usize,
}

/// An array of `T`.
#[derive(Clone, Copy)]
pub(crate) struct Array<P>(pub(crate) P);

impl<const W: u32> Side for Packed<W, *const u64> {
    const BITS: u32 = W;
    fn addr(&self) -> usize {
        self.words as usize
    }
}
impl<const W: u32> Side for Packed<W, *mut u64> {
    const BITS: u32 = W;
    fn addr(&self) -> usize {
        self.words as usize
    }
}
impl<T: Elem> Side for Array<*const T> {
    const BITS: u32 = T::BITS;
    fn addr(&self) -> usize {
        self.0 as usize
    }
}
impl<T: Elem> Side for Array<*mut T> {
    const BITS: u32 = T::BITS;
    fn addr(&self) -> usize {
        self.0 as usize
    }
}

/// What a kernel reads: value `j` one access at a time (the slow path).
pub(crate) trait Source: Side + Copy {
    /// The 16-byte chunks of the buffer.
    fn chunks(&self) -> *const U32x4;
    /// Value `j`'s bits, with loads of the words (or the element) it lies
    /// in.
    ///
    /// # Safety
    ///
    /// Value `j` is inside the buffer (for a stream: its bits below
    /// `avail` words are read, the others read as zero).
    unsafe fn get<S: Simt>(&self, s: &S, j: usize) -> u64;
}

impl<const W: u32> Source for Packed<W, *const u64> {
    fn chunks(&self) -> *const U32x4 {
        self.words.cast()
    }
    #[inline(always)]
    unsafe fn get<S: Simt>(&self, s: &S, j: usize) -> u64 {
        let bit = j * W as usize;
        let (k, sh) = (bit / 64, (bit % 64) as u32);
        let word = |i: usize| {
            if i < self.avail {
                // SAFETY: `i < avail`, inside the buffer.
                u64::from_le(unsafe { s.load(self.words, i) })
            } else {
                0
            }
        };
        let mut x = word(k) >> sh;
        if sh + W > 64 {
            x |= word(k + 1) << (64 - sh);
        }
        x & mask(W)
    }
}

impl<T: Elem> Source for Array<*const T> {
    fn chunks(&self) -> *const U32x4 {
        self.0.cast()
    }
    #[inline(always)]
    unsafe fn get<S: Simt>(&self, s: &S, j: usize) -> u64 {
        // SAFETY: the caller's promise.
        unsafe { s.load(self.0, j) }.to_bits()
    }
}

/// Values `first..first + count`: `Run(first, count)`.
#[derive(Clone, Copy)]
pub(crate) struct Run(pub(crate) usize, pub(crate) usize);

/// What a kernel writes: a run of values one at a time (the slow path).
pub(crate) trait Sink: Side + Copy {
    /// The 16-byte chunks of the buffer.
    fn chunks(&self) -> *mut U32x4;
    /// Writes the values `first..first + count` of `run` (the first `count`
    /// of unit `first / v`, `v` values a unit), value `j` being `value(j)`, with
    /// no byte store in a loop and no other thread's bytes touched.
    ///
    /// # Safety
    ///
    /// The buffer holds those values (a stream: `avail` words); this thread
    /// alone writes them (a stream: the unit's words).
    unsafe fn write_run<S: Simt>(&self, s: &S, run: Run, value: impl FnMut(usize) -> u64);
}

impl<const W: u32> Sink for Packed<W, *mut u64> {
    fn chunks(&self) -> *mut U32x4 {
        self.words.cast()
    }
    #[inline(always)]
    unsafe fn write_run<S: Simt>(&self, s: &S, run: Run, mut value: impl FnMut(usize) -> u64) {
        let Run(first, count) = run;
        // A unit starts on a word boundary; its words are this thread's.
        let mut at = first * W as usize / 64;
        let mut acc = 0u64;
        let store = |i: usize, x: u64| {
            if i < self.avail {
                // SAFETY: `i < avail`, a word of this thread's unit.
                unsafe { s.store(self.words, i, x.to_le()) };
            }
        };
        for j in first..first + count {
            let x = value(j) & mask(W);
            let bit = j * W as usize;
            let (k, sh) = (bit / 64, (bit % 64) as u32);
            if k != at {
                store(at, acc);
                (at, acc) = (k, 0);
            }
            acc |= x << sh;
            if sh + W > 64 {
                store(at, acc);
                (at, acc) = (k + 1, x >> (64 - sh));
            }
        }
        store(at, acc);
    }
}

impl<T: Elem> Sink for Array<*mut T> {
    fn chunks(&self) -> *mut U32x4 {
        self.0.cast()
    }
    #[inline(always)]
    unsafe fn write_run<S: Simt>(&self, s: &S, run: Run, mut value: impl FnMut(usize) -> u64) {
        let Run(first, count) = run;
        let end = first + count;
        // Elements narrower than 4 bytes go as whole 4-byte words between
        // a head and a tail of at most 3 elements (each written alone,
        // unrolled): the words at the ends may hold another thread's
        // elements, the ones between are this thread's.
        let per = (4 / size_of::<T>()).max(1);
        let mis = (self.0 as usize + first * size_of::<T>()) % 4 / size_of::<T>();
        let head = if per == 1 {
            0
        } else {
            ((per - mis) % per).min(count)
        };
        let one = |j: usize, x: u64| {
            // SAFETY: `j` is one of this thread's values.
            unsafe { s.store(self.0, j, T::from_bits(x)) };
        };
        let (mut j, mut k) = (first, 0);
        while k < 3 {
            if k < head {
                one(j, value(j));
                j += 1;
            }
            k += 1;
        }
        while j + per <= end {
            let mut word = 0u32;
            for i in 0..per {
                word |= (value(j + i) as u32 & mask(T::BITS) as u32) << (T::BITS as usize * i);
            }
            // SAFETY: `per` elements from `j`, all this thread's, start
            // 4-byte aligned (after the head).
            unsafe { s.store(self.0.wrapping_add(j).cast::<u32>(), 0, word) };
            j += per;
        }
        let mut k = 0;
        while k < 3 {
            if j < end {
                one(j, value(j));
                j += 1;
            }
            k += 1;
        }
    }
}

/// Maps `n` values of `src` into `dst`: value `j` of `dst` is `f` of value
/// `j` of `src`, computed a pair at a time (`f(a, b)` returns the two
/// results; the pair lets a body convert two lanes with one packed `cvt`).
///
/// The values are walked by units ([`unit_len`]) of the grid-stride loop.
/// A whole unit with both buffers 16-byte aligned goes through one
/// [`ChunkReader`] and one [`ChunkWriter`]: 128-bit loads and stores only,
/// straight-line code, a chunk of each side in registers. The last partial
/// unit, and every unit when a buffer lacks 16-byte alignment, goes value by
/// value ([`Source::get`], [`Sink::write_run`]; `f(a, 0).0` for each): the
/// same bits.
///
/// # Safety
///
/// `src` holds `n` values and `dst` room for them (a stream: its `avail`
/// words), valid for the launch; nothing else writes `dst` during it.
#[inline(always)]
pub(crate) unsafe fn map<S: Simt, I: Source, O: Sink>(
    s: &S,
    src: I,
    n: usize,
    dst: O,
    f: impl Fn(u64, u64) -> (u64, u64) + Copy,
) {
    let v = const { unit_len(I::BITS, O::BITS) };
    let fast = aligned16(src.addr() as *const u8) && aligned16(dst.addr() as *const u8);
    for u in grid_stride(s, n.div_ceil(v)) {
        let first = u * v;
        let count = (n - first).min(v);
        if fast && count == v {
            // SAFETY: a whole unit inside both aligned buffers; this thread
            // alone writes it.
            unsafe { map_unit(s, src, u, dst, f) };
        } else {
            // SAFETY: the values below `n`; the unit is this thread's.
            unsafe { map_slow(s, src, first, count, dst, f) };
        }
    }
}

/// One whole unit `u` of [`map`] through 128-bit accesses.
///
/// # Safety
///
/// Both buffers 16-byte aligned and holding unit `u`; this thread alone
/// writes it.
#[inline(always)]
unsafe fn map_unit<S: Simt, I: Source, O: Sink>(
    s: &S,
    src: I,
    u: usize,
    dst: O,
    f: impl Fn(u64, u64) -> (u64, u64),
) {
    let v = const { unit_len(I::BITS, O::BITS) };
    let (ib, ob) = (I::BITS as usize, O::BITS as usize);
    let mut rd = ChunkReader::new(s, src.chunks(), u * v * ib / 128);
    let mut wr = ChunkWriter::new(s, dst.chunks(), u * v * ob / 128);
    // Values in pairs (`v` is even: 128 / gcd(w, 128) is, for w < 128).
    each_value!(v, j => {
        if j.is_multiple_of(2) {
            // SAFETY: the caller's promise; the bits walk forward.
            let a = unsafe { rd.bits(j * ib, I::BITS) };
            // SAFETY: as above.
            let b = unsafe { rd.bits((j + 1) * ib, I::BITS) };
            let (x, y) = f(a, b);
            // SAFETY: as above.
            unsafe { wr.put(j * ob, O::BITS, x) };
            // SAFETY: as above.
            unsafe { wr.put((j + 1) * ob, O::BITS, y) };
        }
    });
    // SAFETY: the unit's last chunk.
    unsafe { wr.flush() };
}

/// The values `first..first + count` of [`map`] (or [`map_out`]) one at a
/// time (kept out of line: the rare path).
///
/// # Safety
///
/// As [`map`], for those values, which this thread alone writes.
#[inline(never)]
unsafe fn map_slow<S: Simt, I: Source, O: Sink>(
    s: &S,
    src: I,
    first: usize,
    count: usize,
    dst: O,
    f: impl Fn(u64, u64) -> (u64, u64),
) {
    // SAFETY: the caller's promise: value `j` of the run is inside `src`.
    let value = |j: usize| f(unsafe { src.get(s, j) }, 0).0;
    // SAFETY: the caller's promise.
    unsafe { dst.write_run(s, Run(first, count), value) };
}

mod chunks;

pub use chunks::warp_store;
pub(crate) use chunks::{map_in, map_out, map_out_by};
