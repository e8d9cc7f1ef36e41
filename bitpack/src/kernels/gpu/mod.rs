//! The bulk GPU kernel bodies, generic over [`Simt`]: the same source runs
//! as the `bitpack-ptx` entry points (each a one-line call of a body here)
//! and on the tests' simulated grid.
//!
//! # Units and memory access
//!
//! Every body walks *units*: the fewest values whose packed bits and whose
//! unpacked values both fill whole 16-byte chunks ([`U32x4`]), e.g. 32
//! four-bit values (16 bytes packed, 32 bytes as `u8`), 128 five-bit values
//! (80 bytes packed, 128 bytes as `u8`, 512 as `u32`), 4 `f32`s of a 32-bit
//! stream. Thread `t` of a grid of `T` threads takes units `t, t + T, ...`
//! ([`grid_stride`](super::simt::grid_stride)), so any grid and block size
//! is correct and the lanes of a warp take consecutive units: a warp's
//! accesses cover one contiguous span of each buffer.
//!
//! A whole unit whose buffers both start 16-byte aligned (what `cudaMalloc`
//! and `cuMemAlloc` return) moves as 128-bit loads and stores only: its
//! chunks are loaded into registers, converted there, and its output chunks
//! are stored whole (no byte stores). The last, partial unit, and every unit
//! of a launch whose pointer lacks 16-byte alignment (a sub-slice at an
//! offset that is not a multiple of 16 bytes), take the slower element path:
//! one load or store per value (and per word), in the element's own type, so
//! the result is the same bits and never wrong. The words of a partial last
//! unit are written whole, padding bits zero, as the host kernels write them.
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

use super::simt::{Simt, U32x4, aligned16};

pub mod amax;
pub mod float;
pub mod pack;
pub mod sum;
pub mod unpack;

/// Expands `$body` 32 times with `$k` bound to `0usize..32` (a literal in
/// each copy): the chunk loops of a unit (at most 32 chunks a side).
macro_rules! unroll32 {
    ($k:ident => $body:block) => {
        unroll32!(@go $k $body; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25
            26 27 28 29 30 31)
    };
    (@go $k:ident $body:block; $($n:literal)*) => {
        $( { let $k: usize = $n; $body } )*
    };
}

/// The most 64-bit words of one unit (128 values of 32 bits).
pub(crate) const MAX_WORDS: usize = 64;
/// The most values of one unit.
pub(crate) const MAX_VALUES: usize = 128;

const fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
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
    let a = 128 / gcd(w as usize, 128);
    let b = 16 / size;
    a / gcd(a, b) * b
}

/// The 64-bit words of one unit's packed bits (`v * w / 64`, even).
pub(crate) const fn unit_words(w: u32, size: usize) -> usize {
    unit_values(w, size) * w as usize / 64
}

/// Loads `nw` (even) words of unit `u` of `words` as `nw / 2` chunks.
///
/// # Safety
///
/// `words` is 16-byte aligned and holds words `u * nw..(u + 1) * nw`.
#[inline(always)]
pub(crate) unsafe fn load_words_fast<S: Simt>(
    s: &S,
    words: *const u64,
    u: usize,
    nw: usize,
    regs: &mut [u64; MAX_WORDS],
) {
    let c = words.cast::<U32x4>();
    // Unrolled, so that every index into `regs` is a constant and the array
    // lives in registers.
    unroll32!(k => {
        if k < nw / 2 {
            // SAFETY: the caller's promise: chunk `u * nw / 2 + k` is inside
            // the aligned buffer.
            let [a, b] = unsafe { s.load(c, u * nw / 2 + k) }.to_u64s();
            regs[2 * k] = a;
            regs[2 * k + 1] = b;
        }
    });
}

/// Loads words `first..first + nw` of `words`, those below `avail` (the
/// others read as zero), one word at a time.
///
/// # Safety
///
/// `words` holds `avail` words.
#[inline(always)]
pub(crate) unsafe fn load_words_slow<S: Simt>(
    s: &S,
    words: *const u64,
    first: usize,
    nw: usize,
    avail: usize,
    regs: &mut [u64; MAX_WORDS],
) {
    for (k, r) in regs.iter_mut().enumerate().take(nw) {
        if first + k < avail {
            // SAFETY: `first + k < avail`, inside the buffer.
            *r = u64::from_le(unsafe { s.load(words, first + k) });
        }
    }
}

/// Stores `nw` (even) words as chunks of unit `u`.
///
/// # Safety
///
/// `words` is 16-byte aligned and holds words `u * nw..(u + 1) * nw`, which
/// no other thread writes.
#[inline(always)]
pub(crate) unsafe fn store_words_fast<S: Simt>(
    s: &S,
    words: *mut u64,
    u: usize,
    nw: usize,
    regs: &[u64; MAX_WORDS],
) {
    let c = words.cast::<U32x4>();
    unroll32!(k => {
        if k < nw / 2 {
            let v = U32x4::from_u64s([regs[2 * k], regs[2 * k + 1]]);
            // SAFETY: the caller's promise.
            unsafe { s.store(c, u * nw / 2 + k, v) };
        }
    });
}

/// Stores words `first..first + nw`, those below `avail`, one at a time.
///
/// # Safety
///
/// `words` holds `avail` words; no other thread writes these.
#[inline(always)]
pub(crate) unsafe fn store_words_slow<S: Simt>(
    s: &S,
    words: *mut u64,
    first: usize,
    nw: usize,
    avail: usize,
    regs: &[u64; MAX_WORDS],
) {
    for (k, &r) in regs.iter().enumerate().take(nw) {
        if first + k < avail {
            // SAFETY: `first + k < avail`, inside the buffer.
            unsafe { s.store(words, first + k, r.to_le()) };
        }
    }
}

/// Loads `v` values `first..first + v` of `src` as chunks into `vals`.
///
/// # Safety
///
/// `src` is 16-byte aligned and holds those values; `v * size_of::<T>()` is
/// a multiple of 16.
#[inline(always)]
pub(crate) unsafe fn load_values_fast<S: Simt, T: bytemuck::Pod>(
    s: &S,
    src: *const T,
    first: usize,
    v: usize,
    vals: &mut [T; MAX_VALUES],
) {
    let per = 16 / size_of::<T>();
    let c = src.cast::<U32x4>();
    unroll32!(k => {
        if k < v / per {
            // SAFETY: the caller's promise.
            let x = unsafe { s.load(c, first / per + k) };
            let bytes: [u8; 16] = bytemuck::cast(x.0);
            for j in 0..per {
                let b = &bytes[j * size_of::<T>()..(j + 1) * size_of::<T>()];
                vals[k * per + j] = bytemuck::pod_read_unaligned(b);
            }
        }
    });
}

/// Loads values `first..first + count` of `src` one at a time.
///
/// # Safety
///
/// `src` holds those values.
#[inline(always)]
pub(crate) unsafe fn load_values_slow<S: Simt, T: Copy>(
    s: &S,
    src: *const T,
    first: usize,
    count: usize,
    vals: &mut [T; MAX_VALUES],
) {
    for (k, x) in vals.iter_mut().enumerate().take(count) {
        // SAFETY: the caller's promise.
        *x = unsafe { s.load(src, first + k) };
    }
}

/// Stores `vals[..v]` as chunks at values `first..first + v` of `out`.
///
/// # Safety
///
/// As [`load_values_fast`], with no other thread writing those values.
#[inline(always)]
pub(crate) unsafe fn store_values_fast<S: Simt, T: bytemuck::Pod>(
    s: &S,
    out: *mut T,
    first: usize,
    v: usize,
    vals: &[T; MAX_VALUES],
) {
    let per = 16 / size_of::<T>();
    let c = out.cast::<U32x4>();
    unroll32!(k => {
        if k < v / per {
            // The chunk's words from the values' bytes by shifts (a byte
            // buffer here would become byte stores).
            let mut x = [0u32; 4];
            for j in 0..per {
                let mut bits = 0u32;
                for (q, &b) in bytemuck::bytes_of(&vals[k * per + j]).iter().enumerate() {
                    bits |= (b as u32) << (8 * q);
                }
                let at = j * size_of::<T>();
                x[at / 4] |= bits << (8 * (at % 4));
            }
            // SAFETY: the caller's promise.
            unsafe { s.store(c, first / per + k, U32x4(x)) };
        }
    });
}

/// Stores `vals[..count]` at values `first..` of `out` one at a time.
///
/// # Safety
///
/// `out` holds those values; no other thread writes them.
#[inline(always)]
pub(crate) unsafe fn store_values_slow<S: Simt, T: Copy>(
    s: &S,
    out: *mut T,
    first: usize,
    count: usize,
    vals: &[T; MAX_VALUES],
) {
    for (k, &x) in vals.iter().enumerate().take(count) {
        // SAFETY: the caller's promise.
        unsafe { s.store(out, first + k, x) };
    }
}

/// Value `j` (`W` bits) of the words `regs`; with `j` a constant every
/// index and shift is one.
#[inline(always)]
pub(crate) fn extract<const W: u32>(regs: &[u64; MAX_WORDS], j: usize) -> u64 {
    let bit = j * W as usize;
    let (k, sh) = (bit / 64, (bit % 64) as u32);
    let mut x = regs[k] >> sh;
    if sh + W > 64 {
        x |= regs[k + 1] << (64 - sh);
    }
    if W == 64 { x } else { x & ((1u64 << W) - 1) }
}

/// Ors value `j`'s low `W` bits into the zeroed words `regs`.
#[inline(always)]
pub(crate) fn deposit<const W: u32>(regs: &mut [u64; MAX_WORDS], j: usize, x: u64) {
    let x = if W == 64 { x } else { x & ((1u64 << W) - 1) };
    let bit = j * W as usize;
    let (k, sh) = (bit / 64, (bit % 64) as u32);
    regs[k] |= x << sh;
    if sh + W > 64 {
        regs[k + 1] |= x >> (64 - sh);
    }
}

/// Calls `f(j)` for `j` in `0..v` (`v <= 128`), unrolled: `j` is a
/// constant in each copy.
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

/// Whether two buffers both start 16-byte aligned.
#[inline(always)]
pub(crate) fn both_aligned<A, B>(a: *const A, b: *const B) -> bool {
    aligned16(a) && aligned16(b)
}
