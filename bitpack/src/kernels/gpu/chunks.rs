//! The walks that give each thread one 16-byte chunk of output:
//! [`map_out`] and [`map_out_by`] (a packed stream to an array),
//! [`map_in`] (an array to a packed stream), and [`warp_store`] for a body
//! whose lanes own several chunks.

use super::super::simt::{Simt, U32x4, aligned16, grid_stride};
use super::{Array, Elem, Packed, Run, Sink, Source, map, mask, unit_len};

/// `a >> r` continued by the low bits of `b` (`r < 64`): bits `r..r + 64`
/// of the 128-bit `b:a`, with no shift by 64 for `r == 0`.
#[inline(always)]
fn funnel(a: u64, b: u64, r: u32) -> u64 {
    (a >> r) | ((b << 1) << (63 - r))
}

/// The `w` bits at the constant bit `bit` of the 128-bit `hi:lo`.
#[inline(always)]
fn field(lo: u64, hi: u64, bit: usize, w: u32) -> u64 {
    let x = if bit >= 64 {
        hi >> (bit - 64)
    } else if bit + w as usize <= 64 {
        lo >> bit
    } else {
        (lo >> bit) | (hi << (64 - bit))
    };
    x & mask(w)
}

/// [`map`] from a packed stream of `W`-bit values to an array of `T`
/// (`W <= T::BITS`: unpack and decode), one 16-byte chunk of output per
/// thread: the lanes of a warp store consecutive chunks, so each 128-bit
/// store instruction of a warp covers one contiguous 512 bytes.
///
/// Chunk `c` holds values `c * p..(c + 1) * p` (`p = 128 / T::BITS`), whose
/// `p * W <= 128` bits start at stream bit `c * p * W`: one or two 128-bit
/// loads (neighbouring lanes load the same chunks, which the warp's load
/// instruction serves once), a funnel shift by the start's offset, then
/// every value at a constant place. The last, partial chunk and chunks
/// whose input reaches into the stream's last, partial 16 bytes go value by
/// value; buffers without 16-byte alignment take [`map`]'s slow path.
///
/// # Safety
///
/// As [`map`], with `words` holding `words_for(W, n)` words.
#[inline(always)]
pub(crate) unsafe fn map_out<S: Simt, const W: u32, T: Elem>(
    s: &S,
    words: *const u64,
    n: usize,
    out: *mut T,
    f: impl Fn(u64, u64) -> (u64, u64) + Copy,
) {
    // SAFETY: the caller's promise.
    unsafe { map_out_by::<S, W, T, ()>(s, words, n, out, |_| (), move |_, a, b| f(a, b)) }
}

/// [`map_out`] with a value `prep(j)` computed once per chunk of output
/// from the index `j` of its first value (a block's scale, for instance)
/// and handed to `f` with each pair of the chunk. `prep(j)` must be the
/// same for every value of a chunk (`p = 128 / T::BITS` values from a
/// multiple of `p`); the element path calls it for each value.
///
/// # Safety
///
/// As [`map_out`], and `prep` is safe to call for every `j < n`.
#[inline(always)]
pub(crate) unsafe fn map_out_by<S: Simt, const W: u32, T: Elem, P: Copy>(
    s: &S,
    words: *const u64,
    n: usize,
    out: *mut T,
    prep: impl Fn(usize) -> P + Copy,
    f: impl Fn(P, u64, u64) -> (u64, u64) + Copy,
) {
    const { assert!(W >= 1 && W <= T::BITS, "W must fit the output element") };
    let src = Packed::<W, *const u64> {
        words,
        avail: super::super::words_for(W, n),
    };
    let dst = Array(out);
    let one = move |j: usize, x: u64| f(prep(j), x, 0).0;
    if !(aligned16(words) && aligned16(out)) {
        for u in grid_stride(s, n.div_ceil(64)) {
            let first = 64 * u;
            // SAFETY: the values below `n`, `64u..64u + 64` this thread's.
            unsafe { each_slow(s, src, first, (n - first).min(64), dst, one) };
        }
        return;
    }
    let p = const { 128 / T::BITS as usize };
    let span = p * W as usize;
    // Whole chunks of the stream: the input of a fast chunk lies in them.
    let in_chunks = src.avail / 2;
    let (inp, outp) = (words.cast::<U32x4>(), out.cast::<U32x4>());
    for c in grid_stride(s, n.div_ceil(p)) {
        let b0 = c * span;
        let last = (b0 + span - 1) / 128;
        if (c + 1) * p > n || last >= in_chunks {
            let first = c * p;
            // SAFETY: the values below `n`, chunk `c` this thread's alone.
            unsafe { each_slow(s, src, first, (n - first).min(p), dst, one) };
            continue;
        }
        let a = b0 / 128;
        let r = (b0 % 128) as u32;
        // SAFETY: chunks `a..=last` are whole chunks of the stream.
        let [a0, a1] = unsafe { s.load(inp, a) }.to_u64s();
        let [b0w, b1w] = if last > a {
            // SAFETY: as above.
            unsafe { s.load(inp, a + 1) }.to_u64s()
        } else {
            [0, 0]
        };
        let (x0, x1, x2, r) = if r >= 64 {
            (a1, b0w, b1w, r - 64)
        } else {
            (a0, a1, b0w, r)
        };
        let lo = funnel(x0, x1, r);
        let hi = if span > 64 { funnel(x1, x2, r) } else { 0 };
        let pc = prep(c * p);
        let mut acc = [0u64; 2];
        let ob = T::BITS as usize;
        unroll16!(j => {
            if j < p && j.is_multiple_of(2) {
                let (x, y) = f(pc, field(lo, hi, j * W as usize, W), field(lo, hi, (j + 1) * W as usize, W));
                acc[j * ob / 64] |= (x & mask(T::BITS)) << (j * ob % 64);
                acc[(j + 1) * ob / 64] |= (y & mask(T::BITS)) << ((j + 1) * ob % 64);
            }
        });
        // SAFETY: chunk `c` of the output holds values below `n`; this
        // thread alone writes it.
        unsafe { s.store(outp, c, U32x4::from_u64s(acc)) };
    }
}

/// Values `first..first + count` of [`map_out_by`], value `j` being
/// `one(j, code j)`, one at a time (kept out of line: the rare path).
///
/// # Safety
///
/// The values below `n` of the launch; this thread alone writes them.
#[inline(never)]
unsafe fn each_slow<S: Simt, const W: u32, T: Elem>(
    s: &S,
    src: Packed<W, *const u64>,
    first: usize,
    count: usize,
    dst: Array<*mut T>,
    one: impl Fn(usize, u64) -> u64,
) {
    // SAFETY: the caller's promise: value `j` of the run is inside `src`.
    let value = |j: usize| one(j, unsafe { src.get(s, j) });
    // SAFETY: the caller's promise.
    unsafe { dst.write_run(s, Run(first, count), value) };
}

/// [`map`] from an array of `T` to a packed stream of `W`-bit values
/// (pack and encode), one 16-byte chunk of output per thread where a unit
/// of [`map`] would span several output chunks (`W` not a divisor of 128):
/// the lanes of a warp store consecutive chunks.
///
/// Chunk `c` holds stream bits `128c..128c + 128`: values from
/// `j0 = 128c / W`, the first starting `off = 128c - j0 * W` bits before
/// the chunk. The thread loads the 128-bit chunks of input that hold the at
/// most `K = ceil((128 + W - 1) / W)` values from `j0`, shifts them by the
/// first value's offset in its chunk (a funnel shift per word), converts and
/// places every value at a constant place, then shifts the result by `off`.
/// Chunks near the end of either buffer, and the last partial chunk, are
/// built word by word from the values that touch each word; buffers
/// without 16-byte alignment take [`map`]'s slow path.
///
/// # Safety
///
/// As [`map`], with `words` room for `words_for(W, n)` words.
#[inline(always)]
pub(crate) unsafe fn map_in<S: Simt, T: Elem, const W: u32>(
    s: &S,
    src: *const T,
    n: usize,
    words: *mut u64,
    f: impl Fn(u64, u64) -> (u64, u64) + Copy,
) {
    let one_chunk = const { unit_len(T::BITS, W) * W as usize == 128 };
    let (from, dst) = (
        Array(src),
        Packed::<W, *mut u64> {
            words,
            avail: super::super::words_for(W, n),
        },
    );
    if one_chunk || !(aligned16(src) && aligned16(words)) {
        // SAFETY: the caller's promise.
        return unsafe { map(s, from, n, dst, f) };
    }
    let (ib, w) = (T::BITS as usize, W as usize);
    let kmax = const { kmax_of(W) };
    let qmax = const {
        let q = (128 - T::BITS as usize + kmax_of(W) * T::BITS as usize).div_ceil(128);
        let one_chunk = unit_len(T::BITS, W) * W as usize == 128;
        assert!(
            one_chunk || q <= 8,
            "at most 8 input chunks per output chunk"
        );
        q
    };
    let in_chunks = n * ib / 128;
    let (inp, outp) = (src.cast::<U32x4>(), words.cast::<U32x4>());
    for c in grid_stride(s, dst.avail.div_ceil(2)) {
        let j0 = 128 * c / w;
        let off = (128 * c - j0 * w) as u32;
        let q0 = j0 * ib / 128;
        if j0 + kmax > n || q0 + qmax > in_chunks || 2 * c + 2 > dst.avail {
            // SAFETY: the values below `n`; words `2c`, `2c + 1` this
            // thread's alone.
            unsafe { chunk_slow(s, from, n, dst, c, f) };
            continue;
        }
        let mut x = [0u64; 16];
        rep!(q in [0 1 2 3 4 5 6 7] => {
            if q < qmax {
                // SAFETY: chunk `q0 + q < in_chunks` of the input.
                let [a, b] = unsafe { s.load(inp, q0 + q) }.to_u64s();
                x[2 * q] = a;
                x[2 * q + 1] = b;
            }
        });
        // The first value's offset in chunk `q0`: whole words, then bits.
        // (`get`: every index is a constant below 16 where it is reached.)
        let e = j0 * ib % 128;
        let (wo, sh) = (e >= 64, (e % 64) as u32);
        let at = |i: usize| x.get(i).copied().unwrap_or(0);
        let word = |i: usize| {
            let (a, b) = if wo {
                (at(i + 1), at(i + 2))
            } else {
                (at(i), at(i + 1))
            };
            funnel(a, b, sh)
        };
        let mut acc = [0u64; 3];
        let per = 64 / ib;
        unroll64!(k => {
            if k < kmax && k.is_multiple_of(2) {
                let a = (word(k / per) >> (k % per * ib)) & mask(T::BITS);
                let k1 = k + 1;
                let b = if k1 < kmax { (word(k1 / per) >> (k1 % per * ib)) & mask(T::BITS) } else { 0 };
                let (y0, y1) = f(a, b);
                put3(&mut acc, k * w, W, y0);
                if k1 < kmax {
                    put3(&mut acc, k1 * w, W, y1);
                }
            }
        });
        let out = [funnel(acc[0], acc[1], off), funnel(acc[1], acc[2], off)];
        // SAFETY: words `2c`, `2c + 1 < avail`, this thread's alone.
        unsafe { s.store(outp, c, U32x4::from_u64s(out)) };
    }
}

/// `K` of [`map_in`]: the most `w`-bit values that touch one 128-bit chunk
/// of the stream counted from the one that starts in or before it.
const fn kmax_of(w: u32) -> usize {
    (128 + w as usize - 1).div_ceil(w as usize)
}

/// Ors the low `w` bits of `x` in at the constant bit `bit` of `acc`.
#[inline(always)]
fn put3(acc: &mut [u64; 3], bit: usize, w: u32, x: u64) {
    let x = x & mask(w);
    let (k, sh) = (bit / 64, bit % 64);
    acc[k] |= x << sh;
    if sh + w as usize > 64 && k + 1 < 3 {
        acc[k + 1] |= x >> (64 - sh);
    }
}

/// Words `2c` and `2c + 1` (those below `avail`) of [`map_in`]'s stream,
/// each from the values that touch it, one value at a time (kept out of
/// line: the rare path).
///
/// # Safety
///
/// `src` holds `n` values; those two words are this thread's alone.
#[inline(never)]
unsafe fn chunk_slow<S: Simt, T: Elem, const W: u32>(
    s: &S,
    src: Array<*const T>,
    n: usize,
    dst: Packed<W, *mut u64>,
    c: usize,
    f: impl Fn(u64, u64) -> (u64, u64),
) {
    let w = W as usize;
    for k in 2 * c..2 * c + 2 {
        if k >= dst.avail {
            break;
        }
        let lo = 64 * k;
        let mut acc = 0u64;
        let mut j = lo / w;
        while j < n && j * w < lo + 64 {
            // SAFETY: `j < n`.
            let x = f(unsafe { src.get(s, j) }, 0).0 & mask(W);
            let bit = j * w;
            acc |= if bit >= lo {
                x << (bit - lo)
            } else {
                x >> (lo - bit)
            };
            j += 1;
        }
        // SAFETY: `k < avail`, a word of chunk `c`.
        unsafe { s.store(dst.words, k, acc.to_le()) };
    }
}

/// Stores `g` chunks per lane (`g <= 8`, `v[..g]`) so that lane `l`'s chunk
/// `k` lands at chunk `base + g * l + k`, with every store instruction of
/// the warp on 32 consecutive chunks: step `i` stores chunk `base + 32i +
/// l`, which lane `(32i + l) / g` holds and hands over by shuffles (`4g`
/// per step, `4g²` in all). For bodies whose lanes each own `g` chunks of
/// output: their plain stores would put neighbours `16g` bytes apart.
/// Chunks from `end` on are not stored (the lanes past the end of the work
/// of a last, partial warp). Called by all 32 lanes of the warp
/// (converged).
///
/// # Safety
///
/// `out` holds chunks `base..min(base + 32g, end)`, which no other thread
/// writes.
#[inline(always)]
pub unsafe fn warp_store<S: Simt>(
    s: &S,
    out: *mut U32x4,
    (base, end): (usize, usize),
    g: usize,
    v: &[U32x4; 8],
) {
    let l = super::super::simt::lane(s) as usize;
    rep!(i in [0 1 2 3 4 5 6 7] => {
        if i < g {
            let idx = 32 * i + l;
            let (from, k) = ((idx / g) as u32, idx % g);
            let mut w = [0u32; 4];
            rep!(r in [0 1 2 3 4 5 6 7] => {
                if r < g {
                    rep!(q in [0 1 2 3] => {
                        let x = s.shfl_idx_u32(v[r].0[q], from);
                        if k == r {
                            w[q] = x;
                        }
                    });
                }
            });
            if base + idx < end {
                // SAFETY: `idx < 32g` and `base + idx < end`: the caller's
                // promise.
                unsafe { s.store(out, base + idx, U32x4(w)) };
            }
        }
    });
}
