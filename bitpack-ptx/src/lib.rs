//! `bitpack`'s kernels as PTX entry points, for `nvptx64-nvidia-cuda`.
//!
//! Every entry point is one instantiation of the generic, width-monomorphized
//! source in `bitpack::kernels::fixed` (the same functions the host tables
//! are built from), so the device computes the host's bits.
//! `scripts/build-ptx.sh` builds this crate for `sm_80` (portable code only),
//! `sm_90` (the FP8 `cvt`) and `sm_100a` (every packed `cvt`) into
//! `ptx/bitpack-<target>.ptx`, and CI assembles each with `ptxas`.
//!
//! # Thread mapping
//!
//! A thread owns whole *blocks*: the fewest values whose bits fill whole
//! 64-bit words (16 four-bit values in one word, 64 five-bit values in five,
//! 32 six-bit values in three). Thread `t` (over the whole grid,
//! `blockIdx.x * blockDim.x + threadIdx.x`) reads and writes only the words
//! of its block(s), so no two threads write one word and no atomics are
//! needed; the thread holding the last, partial block writes its words whole
//! (padding bits zero). A warp's 32 threads touch 32 consecutive blocks, one
//! contiguous span of memory, so every sector it fetches is used in full. The
//! launcher (`bitpack`'s `cuda` feature) uses 256 threads per CTA and
//! `ceil(blocks / 256)` CTAs.
//!
//! # Entry points
//!
//! Arguments are device addresses (`u64`) and counts (`u64`); `n` is always a
//! number of values.
//!
//! | entry | arguments | what |
//! |---|---|---|
//! | `unpack_u8_w{1..8}`, `unpack_u16_w{9..16}`, `unpack_u32_w{17..32}` | `words, n, out` | `out[i]` = value `i` |
//! | `pack_u8_w{1..8}`, `pack_u32_w{9..32}` | `src, n, words` | packs `src[..n]` |
//! | `sum_w{1..32}` | `words, n, partials` | one `u64` partial per warp (`ceil(threads / 32)`) |
//! | `sum_partials` | `partials, n, out` | one warp: `out[0]` = the sum of `partials[..n]` |
//! | `encode_{e2m1,e2m3,e3m2,e4m3,e5m2,e8m0}_{nearest,satfinite}` | `src, n, words` | `f32` to packed codes |
//! | `decode_{fmt}_f32`, `decode_{fmt}_f16`, `decode_{fmt}_bf16` | `words, n, out` | packed codes to `f32` / `f16` bits / `bf16` bits |
//!
//! | `amax_partials` | `src, n, partials` | one `u32` per warp: the largest finite `\|x\|` bits of a grid-stride share |
//! | `mx_scales_{fmt}` | `src, outer, d, inner, rule, scales` | one thread per block: its E8M0 scale |
//! | `mx_encode_{fmt}` | `src, outer, d, inner, scales, seed, stochastic, words` | values under their block's scale |
//! | `mx_decode_{fmt}` | `words, outer, d, inner, scales, out` | `f32` values times their scale |
//! | `nvfp4_scales` | `src, rows, cols, matrix_rows, tile, tensor_scale, tiny, scales` | one thread per scale: its E4M3 value |
//! | `nvfp4_encode` | `src, rows, cols, scales, tensor_scale, seed, stochastic, words` | E2M1 codes under their scales |
//! | `nvfp4_decode` | `words, rows, cols, scales, tensor_scale, out` | `f32` values |
//!
//! The `f16`/`bf16` decodes exist for E2M1, E2M3, E3M2, E4M3 and E5M2, whose
//! every value both types hold exactly.
//!
//! # Block scaling
//!
//! The MX entries exist for every MX element format (`fmt` = `e2m1`,
//! `e2m3`, `e3m2`, `e4m3`, `e5m2`) and take the array as `[outer, d,
//! inner]` with blocks of 32 along `d` (any axis of the host array); the
//! NVFP4 entries take `[rows, cols]` with blocks of 16 along `cols`, or 16 x
//! 16 tiles (`tile` = 16) that stop at every `matrix_rows`. A scale kernel
//! runs first (one thread per scale: it reads the block's values, strided
//! when `inner > 1`, and writes one byte), then the encode kernel (one
//! thread per word block of the packed stream, as for `encode_*`: each value
//! takes the scale of its block through `BlockGrid::scale_walk`). Both call
//! the device-callable block core of `bitpack::formats` (`mx_scale_f32`,
//! `mx_codes`, `nvfp4_scale_f32`, `nvfp4_codes`, `mx_value`, `nvfp4_value`,
//! with the block amax as `f32` bits from `BlockGrid::amax_bits_f32`: no
//! `f64`), which the host arrays run too, so the bytes are the host's. `rule` is
//! 0 Floor, 1 Ceil, 2 Even, 3 RCeil; `tiny` 0 Flush, 1 Smallest, 2
//! MinNormal; `stochastic` non-zero rounds stochastically with `seed` (the
//! random bits of element `i` are `random_bits(seed, i)`, as on the host).
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

use core::arch::asm;
use core::arch::nvptx;
use core::slice;

use bitpack::formats::{
    BlockGrid, E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, MiniFloat, Mode, MxElement, Rounding, ScaleRule,
    ScaleWalk, TinyScale, mx_codes, mx_scale_f32, mx_value, nvfp4_codes, nvfp4_scale_f32,
    nvfp4_value,
};
use bitpack::kernels::fixed::{self, Lane};
use bitpack::kernels::words_for;

mod simt;
pub use simt::Gpu;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: `trap` aborts the kernel; it has no preconditions.
    unsafe { nvptx::trap() }
}

/// The thread's index over the whole (one-dimensional) grid.
#[inline(always)]
fn global_thread() -> u64 {
    // SAFETY: reading the special registers `%ctaid.x`, `%ntid.x` and
    // `%tid.x` has no preconditions inside a kernel.
    let (b, d, t) = unsafe {
        (
            nvptx::_block_idx_x(),
            nvptx::_block_dim_x(),
            nvptx::_thread_idx_x(),
        )
    };
    b as u64 * d as u64 + t as u64
}

/// The values of the block owned by thread `t`: `(first value, count)`, or
/// `None` past the end.
#[inline(always)]
fn block_of(t: u64, per: usize, n: u64) -> Option<(usize, usize)> {
    let first = t.checked_mul(per as u64)?;
    if first >= n {
        return None;
    }
    let count = (n - first).min(per as u64) as usize;
    Some((first as usize, count))
}

/// The `w`-bit value (`w` in `1..=64`) at stream bit `bit`, for the last,
/// partial block: one value at a time, through `get`, so no length can make
/// it panic (a word past the end reads as zero).
#[inline(always)]
fn get_bits(words: &[u64], bit: usize, w: u32) -> u64 {
    let (i, s) = (bit / 64, (bit % 64) as u32);
    let word = |k: usize| words.get(k).map_or(0, |&x| u64::from_le(x));
    let mut v = word(i) >> s;
    if s != 0 && s + w > 64 {
        v |= word(i + 1) << (64 - s);
    }
    if w == 64 { v } else { v & ((1 << w) - 1) }
}

/// Ors the low `w` bits of `v` into the zeroed stream `words` at bit `bit`
/// (the partial-block counterpart of [`get_bits`]).
#[inline(always)]
fn or_bits(words: &mut [u64], bit: usize, w: u32, v: u64) {
    let (i, s) = (bit / 64, (bit % 64) as u32);
    let v = if w == 64 { v } else { v & ((1 << w) - 1) };
    if let Some(x) = words.get_mut(i) {
        *x = (u64::from_le(*x) | v << s).to_le();
    }
    if s != 0 && s + w > 64 {
        if let Some(x) = words.get_mut(i + 1) {
            *x = (u64::from_le(*x) | v >> (64 - s)).to_le();
        }
    }
}

/// `(words[w0..w0 + nw], out[first..first + nv])`.
///
/// # Safety
///
/// Both ranges lie inside valid buffers, and no other thread accesses the
/// range of `out` while the slices live.
#[inline(always)]
unsafe fn words_in<'a, V>(
    words: *const u64,
    w0: usize,
    nw: usize,
    out: *mut V,
    first: usize,
    nv: usize,
) -> (&'a [u64], &'a mut [V]) {
    // SAFETY: the caller's promise.
    let src = unsafe { slice::from_raw_parts(words.add(w0), nw) };
    // SAFETY: the caller's promise.
    let dst = unsafe { slice::from_raw_parts_mut(out.add(first), nv) };
    (src, dst)
}

/// `(src[first..first + nv], words[w0..w0 + nw])`.
///
/// # Safety
///
/// As [`words_in`], with the words written.
#[inline(always)]
unsafe fn words_out<'a, V>(
    src: *const V,
    first: usize,
    nv: usize,
    words: *mut u64,
    w0: usize,
    nw: usize,
) -> (&'a [V], &'a mut [u64]) {
    // SAFETY: the caller's promise.
    let src = unsafe { slice::from_raw_parts(src.add(first), nv) };
    // SAFETY: the caller's promise.
    let dst = unsafe { slice::from_raw_parts_mut(words.add(w0), nw) };
    (src, dst)
}

/// Unpacks the block of thread `t`.
///
/// Whole blocks run the fixed-length block code on the thread's own slices,
/// whose lengths are constants, so no bounds check is left in it; the last,
/// partial block moves one value at a time through [`get_bits`] (CI checks
/// that no entry of the PTX calls a panic).
///
/// # Safety
///
/// `words` holds `words_for(W, n)` words and `out` `n` values, both valid
/// device addresses.
#[inline(always)]
unsafe fn unpack_kernel<const W: u32, U: Lane>(words: *const u64, n: u64, out: *mut U) {
    let (b, bw) = (fixed::block_elems(W), fixed::block_words(W));
    let Some((first, count)) = block_of(global_thread(), b, n) else {
        return;
    };
    let w0 = first / b * bw;
    if count == b {
        // SAFETY: as below, for a whole block.
        let (src, dst) = unsafe { words_in(words, w0, bw, out, first, b) };
        fixed::unpack::<W, U>(src, 0, dst);
    } else {
        // SAFETY: the caller's buffers hold `n` values; this thread's values
        // `first..first + count` and their words `w0..w0 + words_for(W,
        // count)` lie inside them, and no other thread writes them.
        let (src, dst) = unsafe { words_in(words, w0, words_for(W, count), out, first, count) };
        for (i, d) in dst.iter_mut().enumerate() {
            *d = U::from_u64(get_bits(src, i * W as usize, W));
        }
    }
}

/// Packs the block of thread `t` (the last block one value at a time, as in
/// [`unpack_kernel`]; its words are written whole, padding zero).
///
/// # Safety
///
/// `src` holds `n` values and `words` `words_for(W, n)` words, both valid
/// device addresses.
#[inline(always)]
unsafe fn pack_kernel<const W: u32, U: Lane>(src: *const U, n: u64, words: *mut u64) {
    let (b, bw) = (fixed::block_elems(W), fixed::block_words(W));
    let Some((first, count)) = block_of(global_thread(), b, n) else {
        return;
    };
    let w0 = first / b * bw;
    if count == b {
        // SAFETY: as below, for a whole block.
        let (src, dst) = unsafe { words_out(src, first, b, words, w0, bw) };
        fixed::pack::<W, U>(src, dst, 0);
    } else {
        // SAFETY: as in `unpack_kernel`: this thread's values and words lie
        // inside the caller's buffers and no other thread writes those words.
        let (src, dst) = unsafe { words_out(src, first, count, words, w0, words_for(W, count)) };
        dst.fill(0);
        for (i, &v) in src.iter().enumerate() {
            or_bits(dst, i * W as usize, W, v.to_u64());
        }
    }
}

/// `shfl.sync.down.b32` of a 64-bit value: lane `l` gets lane `l + delta`'s.
#[inline(always)]
fn shfl_down(v: u64, delta: u32) -> u64 {
    let (lo, hi) = (v as u32, (v >> 32) as u32);
    let (a, b): (u32, u32);
    // SAFETY: a register-only warp shuffle; every lane of the warp executes
    // it (the callers have no lane-dependent exit before it) with the full
    // mask.
    unsafe {
        asm!(
            "shfl.sync.down.b32 {a}, {lo}, {d}, 0x1f, 0xffffffff;",
            "shfl.sync.down.b32 {b}, {hi}, {d}, 0x1f, 0xffffffff;",
            a = out(reg32) a,
            b = out(reg32) b,
            lo = in(reg32) lo,
            hi = in(reg32) hi,
            d = in(reg32) delta,
            options(nomem, nostack),
        )
    };
    a as u64 | (b as u64) << 32
}

/// The sum over the warp's 32 lanes, in lane 0.
#[inline(always)]
fn warp_sum(mut v: u64) -> u64 {
    let mut d = 16;
    while d > 0 {
        v += shfl_down(v, d);
        d /= 2;
    }
    v
}

/// Blocks per thread in `sum`.
const SUM_BLOCKS: usize = 4;

/// One partial sum per warp.
///
/// # Safety
///
/// `words` holds `words_for(W, n)` words; `partials` holds one `u64` per warp
/// of the grid; the CTA size is a multiple of 32.
#[inline(always)]
unsafe fn sum_kernel<const W: u32>(words: *const u64, n: u64, partials: *mut u64) {
    let (b, bw) = (fixed::block_elems(W), fixed::block_words(W));
    let t = global_thread();
    let per = b * SUM_BLOCKS;
    let mine = match block_of(t, per, n) {
        Some((first, count)) => {
            let w0 = first / b * bw;
            if count == per {
                // SAFETY: this thread's words lie inside the caller's buffer.
                let src = unsafe { slice::from_raw_parts(words.add(w0), bw * SUM_BLOCKS) };
                fixed::sum::<W>(src, 0, per) as u64
            } else {
                // SAFETY: as above.
                let src = unsafe { slice::from_raw_parts(words.add(w0), words_for(W, count)) };
                (0..count).map(|i| get_bits(src, i * W as usize, W)).sum()
            }
        }
        None => 0,
    };
    // Every lane reaches the shuffles.
    let total = warp_sum(mine);
    if t % 32 == 0 {
        // SAFETY: one `u64` per warp; warp `t / 32` writes only its own.
        unsafe { partials.add((t / 32) as usize).write(total) };
    }
}

/// Sums `partials[..n]` with one warp into `out[0]`.
///
/// # Safety
///
/// `partials` holds `n` values, `out` one; launched with one CTA of 32
/// threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sum_partials(partials: *const u64, n: u64, out: *mut u64) {
    let lane = global_thread();
    let mut acc = 0u64;
    let mut i = lane;
    while i < n {
        // SAFETY: `i < n`, inside the caller's buffer.
        acc += unsafe { partials.add(i as usize).read() };
        i += 32;
    }
    let total = warp_sum(acc);
    if lane == 0 {
        // SAFETY: the caller's one-value output.
        unsafe { out.write(total) };
    }
}

/// Encodes the block of thread `t`.
///
/// # Safety
///
/// `src` holds `n` values and `words` `words_for(F::BITS, n)` words.
#[inline(always)]
unsafe fn encode_kernel<F: MiniFloat>(src: *const f32, n: u64, words: *mut u64, mode: Mode) {
    let w = F::BITS;
    let (b, bw) = (fixed::block_elems(w), fixed::block_words(w));
    let Some((first, count)) = block_of(global_thread(), b, n) else {
        return;
    };
    let w0 = first / b * bw;
    if count == b {
        // SAFETY: as below, for a whole block.
        let (src, dst) = unsafe { words_out(src, first, b, words, w0, bw) };
        fixed::encode_words::<F>(src, mode, dst);
    } else {
        // SAFETY: as in `unpack_kernel`.
        let (src, dst) = unsafe { words_out(src, first, count, words, w0, words_for(w, count)) };
        dst.fill(0);
        for (i, &x) in src.iter().enumerate() {
            let code = fixed::encode::<F>(x, mode).raw_bits();
            or_bits(dst, i * w as usize, w, code as u64);
        }
    }
}

/// Decodes the codes of `words` to `f32`, or to `f16`/`bf16` bits.
trait Out: Copy + Default {
    /// A whole block.
    fn run<F: MiniFloat>(words: &[u64], dst: &mut [Self]);
    /// One value.
    fn one(x: f32) -> Self;
}

impl Out for f32 {
    #[inline(always)]
    fn run<F: MiniFloat>(words: &[u64], dst: &mut [f32]) {
        fixed::decode_words::<F>(words, dst);
    }
    #[inline(always)]
    fn one(x: f32) -> f32 {
        x
    }
}

/// `f16` bits (`BF = false`) or `bf16` bits.
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
struct Half<const BF: bool>(u16);

impl<const BF: bool> Out for Half<BF> {
    #[inline(always)]
    fn run<F: MiniFloat>(words: &[u64], dst: &mut [Half<BF>]) {
        // A pair of codes at a time, straight from the words (whole blocks
        // hold an even number of values), so nothing goes through memory.
        let k = 2 * F::BITS;
        for (i, d) in dst.chunks_exact_mut(2).enumerate() {
            let codes = get_bits(words, i * k as usize, k) as u16;
            let [a, b] = fixed::decode_pair::<F>(codes);
            let h = if BF {
                fixed::bf16x2(a, b)
            } else {
                fixed::f16x2(a, b)
            };
            d[0] = Half(h as u16);
            d[1] = Half((h >> 16) as u16);
        }
    }
    #[inline(always)]
    fn one(x: f32) -> Self {
        let h = if BF {
            fixed::bf16x2(x, 0.0)
        } else {
            fixed::f16x2(x, 0.0)
        };
        Half(h as u16)
    }
}

/// Decodes the block of thread `t`.
///
/// # Safety
///
/// `words` holds `words_for(F::BITS, n)` words and `out` `n` values.
#[inline(always)]
unsafe fn decode_kernel<F: MiniFloat, O: Out>(words: *const u64, n: u64, out: *mut O) {
    let w = F::BITS;
    let (b, bw) = (fixed::block_elems(w), fixed::block_words(w));
    let Some((first, count)) = block_of(global_thread(), b, n) else {
        return;
    };
    let w0 = first / b * bw;
    if count == b {
        // SAFETY: as below, for a whole block.
        let (src, dst) = unsafe { words_in(words, w0, bw, out, first, b) };
        O::run::<F>(src, dst);
    } else {
        // SAFETY: as in `unpack_kernel`.
        let (src, dst) = unsafe { words_in(words, w0, words_for(w, count), out, first, count) };
        for (i, d) in dst.iter_mut().enumerate() {
            let code = get_bits(src, i * w as usize, w) as u8;
            *d = O::one(fixed::decode(F::from_raw_bits(code)));
        }
    }
}

macro_rules! unpack_entries {
    ($u:ty; $($name:ident = $w:literal),* $(,)?) => {$(
        /// Unpacks `n` values (see the crate docs).
        ///
        /// # Safety
        ///
        /// `words` holds the packed values, `out` room for `n` of them.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(words: *const u64, n: u64, out: *mut $u) {
            // SAFETY: the caller's promise.
            unsafe { unpack_kernel::<$w, $u>(words, n, out) }
        }
    )*};
}

macro_rules! pack_entries {
    ($u:ty; $($name:ident = $w:literal),* $(,)?) => {$(
        /// Packs `n` values (see the crate docs).
        ///
        /// # Safety
        ///
        /// `src` holds `n` values, `words` room for them packed.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(src: *const $u, n: u64, words: *mut u64) {
            // SAFETY: the caller's promise.
            unsafe { pack_kernel::<$w, $u>(src, n, words) }
        }
    )*};
}

macro_rules! sum_entries {
    ($($name:ident = $w:literal),* $(,)?) => {$(
        /// One partial sum per warp (see the crate docs).
        ///
        /// # Safety
        ///
        /// `words` holds `n` packed values, `partials` one `u64` per warp.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(words: *const u64, n: u64, partials: *mut u64) {
            // SAFETY: the caller's promise.
            unsafe { sum_kernel::<$w>(words, n, partials) }
        }
    )*};
}

macro_rules! float_entries {
    ($f:ty: $enc_n:ident, $enc_s:ident, $dec:ident) => {
        /// Encodes `n` `f32`s, round to nearest (`from_f32`).
        ///
        /// # Safety
        ///
        /// `src` holds `n` values, `words` room for them packed.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $enc_n(src: *const f32, n: u64, words: *mut u64) {
            // SAFETY: the caller's promise.
            unsafe { encode_kernel::<$f>(src, n, words, Mode::Nearest) }
        }

        /// Encodes `n` `f32`s, saturating (`from_f32_satfinite`, `cvt.rn.satfinite`).
        ///
        /// # Safety
        ///
        /// `src` holds `n` values, `words` room for them packed.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $enc_s(src: *const f32, n: u64, words: *mut u64) {
            // SAFETY: the caller's promise.
            unsafe { encode_kernel::<$f>(src, n, words, Mode::SatFinite) }
        }

        /// Decodes `n` packed codes to `f32`.
        ///
        /// # Safety
        ///
        /// `words` holds `n` packed codes, `out` room for `n` values.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $dec(words: *const u64, n: u64, out: *mut f32) {
            // SAFETY: the caller's promise.
            unsafe { decode_kernel::<$f, f32>(words, n, out) }
        }
    };
    ($f:ty: $enc_n:ident, $enc_s:ident, $dec:ident, $dec16:ident, $decbf:ident) => {
        float_entries!($f: $enc_n, $enc_s, $dec);

        /// Decodes `n` packed codes to `f16` bits.
        ///
        /// # Safety
        ///
        /// `words` holds `n` packed codes, `out` room for `n` values.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $dec16(words: *const u64, n: u64, out: *mut u16) {
            // SAFETY: the caller's promise.
            unsafe { decode_kernel::<$f, Half<false>>(words, n, out.cast()) }
        }

        /// Decodes `n` packed codes to `bf16` bits.
        ///
        /// # Safety
        ///
        /// `words` holds `n` packed codes, `out` room for `n` values.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $decbf(words: *const u64, n: u64, out: *mut u16) {
            // SAFETY: the caller's promise.
            unsafe { decode_kernel::<$f, Half<true>>(words, n, out.cast()) }
        }
    };
}

unpack_entries!(u8; unpack_u8_w1 = 1, unpack_u8_w2 = 2, unpack_u8_w3 = 3, unpack_u8_w4 = 4,
    unpack_u8_w5 = 5, unpack_u8_w6 = 6, unpack_u8_w7 = 7, unpack_u8_w8 = 8);
unpack_entries!(u16; unpack_u16_w9 = 9, unpack_u16_w10 = 10, unpack_u16_w11 = 11,
    unpack_u16_w12 = 12, unpack_u16_w13 = 13, unpack_u16_w14 = 14, unpack_u16_w15 = 15,
    unpack_u16_w16 = 16);
unpack_entries!(u32; unpack_u32_w17 = 17, unpack_u32_w18 = 18, unpack_u32_w19 = 19,
    unpack_u32_w20 = 20, unpack_u32_w21 = 21, unpack_u32_w22 = 22, unpack_u32_w23 = 23,
    unpack_u32_w24 = 24, unpack_u32_w25 = 25, unpack_u32_w26 = 26, unpack_u32_w27 = 27,
    unpack_u32_w28 = 28, unpack_u32_w29 = 29, unpack_u32_w30 = 30, unpack_u32_w31 = 31,
    unpack_u32_w32 = 32);

pack_entries!(u8; pack_u8_w1 = 1, pack_u8_w2 = 2, pack_u8_w3 = 3, pack_u8_w4 = 4,
    pack_u8_w5 = 5, pack_u8_w6 = 6, pack_u8_w7 = 7, pack_u8_w8 = 8);
pack_entries!(u32; pack_u32_w9 = 9, pack_u32_w10 = 10, pack_u32_w11 = 11,
    pack_u32_w12 = 12, pack_u32_w13 = 13, pack_u32_w14 = 14, pack_u32_w15 = 15,
    pack_u32_w16 = 16, pack_u32_w17 = 17, pack_u32_w18 = 18, pack_u32_w19 = 19,
    pack_u32_w20 = 20, pack_u32_w21 = 21, pack_u32_w22 = 22, pack_u32_w23 = 23,
    pack_u32_w24 = 24, pack_u32_w25 = 25, pack_u32_w26 = 26, pack_u32_w27 = 27,
    pack_u32_w28 = 28, pack_u32_w29 = 29, pack_u32_w30 = 30, pack_u32_w31 = 31,
    pack_u32_w32 = 32);

sum_entries!(
    sum_w1 = 1,
    sum_w2 = 2,
    sum_w3 = 3,
    sum_w4 = 4,
    sum_w5 = 5,
    sum_w6 = 6,
    sum_w7 = 7,
    sum_w8 = 8,
    sum_w9 = 9,
    sum_w10 = 10,
    sum_w11 = 11,
    sum_w12 = 12,
    sum_w13 = 13,
    sum_w14 = 14,
    sum_w15 = 15,
    sum_w16 = 16,
    sum_w17 = 17,
    sum_w18 = 18,
    sum_w19 = 19,
    sum_w20 = 20,
    sum_w21 = 21,
    sum_w22 = 22,
    sum_w23 = 23,
    sum_w24 = 24,
    sum_w25 = 25,
    sum_w26 = 26,
    sum_w27 = 27,
    sum_w28 = 28,
    sum_w29 = 29,
    sum_w30 = 30,
    sum_w31 = 31,
    sum_w32 = 32
);

float_entries!(E2M1: encode_e2m1_nearest, encode_e2m1_satfinite, decode_e2m1_f32,
    decode_e2m1_f16, decode_e2m1_bf16);
float_entries!(E2M3: encode_e2m3_nearest, encode_e2m3_satfinite, decode_e2m3_f32,
    decode_e2m3_f16, decode_e2m3_bf16);
float_entries!(E3M2: encode_e3m2_nearest, encode_e3m2_satfinite, decode_e3m2_f32,
    decode_e3m2_f16, decode_e3m2_bf16);
float_entries!(E4M3: encode_e4m3_nearest, encode_e4m3_satfinite, decode_e4m3_f32,
    decode_e4m3_f16, decode_e4m3_bf16);
float_entries!(E5M2: encode_e5m2_nearest, encode_e5m2_satfinite, decode_e5m2_f32,
    decode_e5m2_f16, decode_e5m2_bf16);
float_entries!(E8M0: encode_e8m0_nearest, encode_e8m0_satfinite, decode_e8m0_f32);

/// The codes of values `first..first + count` of a `W`-bit block-scaled
/// stream, computed by `fill(first, values, codes)`, packed into the
/// thread's words (whole blocks through the fixed-length pack, the last
/// block one value at a time).
///
/// # Safety
///
/// `src` holds `n` values and `words` `words_for(W, n)` words, valid device
/// addresses.
#[inline(always)]
unsafe fn encode_scaled<const W: u32>(
    src: *const f32,
    n: u64,
    words: *mut u64,
    fill: impl FnOnce(usize, &[f32], &mut [u8]),
) -> Option<(usize, usize)> {
    let (b, bw) = (fixed::block_elems(W), fixed::block_words(W));
    let (first, count) = block_of(global_thread(), b, n)?;
    let w0 = first / b * bw;
    // SAFETY: as in `unpack_kernel`: this thread's values and words lie
    // inside the caller's buffers and no other thread writes those words.
    let (src, dst) = unsafe { words_out(src, first, count, words, w0, words_for(W, count)) };
    let mut codes = [0u8; 32];
    let n = src.len().min(codes.len());
    if let (Some(x), Some(c)) = (src.get(..n), codes.get_mut(..n)) {
        fill(first, x, c);
    }
    if let (true, Some(c), Some(d)) = (count == b, codes.get(..b), dst.get_mut(..bw)) {
        // Whole blocks: constant lengths, no bounds check left.
        fixed::pack::<W, u8>(c, d, 0);
    } else {
        dst.fill(0);
        for (i, &c) in codes.iter().take(count).enumerate() {
            or_bits(dst, i * W as usize, W, c as u64);
        }
    }
    Some((first, count))
}

/// The values `first..first + count` of a `W`-bit block-scaled stream:
/// `out[i] = value_of(code, scale index)`, the scale indices from
/// `walk(first)`.
///
/// # Safety
///
/// `words` holds `words_for(W, n)` words and `out` `n` values.
#[inline(always)]
unsafe fn decode_scaled<const W: u32>(
    words: *const u64,
    n: u64,
    out: *mut f32,
    walk: impl Fn(usize) -> ScaleWalk,
    value_of: impl Fn(u8, usize) -> f32,
) {
    let (b, bw) = (fixed::block_elems(W), fixed::block_words(W));
    let Some((first, count)) = block_of(global_thread(), b, n) else {
        return;
    };
    let w0 = first / b * bw;
    // SAFETY: as in `unpack_kernel`.
    let (src, dst) = unsafe { words_in(words, w0, words_for(W, count), out, first, count) };
    let mut codes = [0u8; 32];
    if let (true, Some(s), Some(c)) = (count == b, src.get(..bw), codes.get_mut(..b)) {
        fixed::unpack::<W, u8>(s, 0, c);
    } else {
        for (i, c) in codes.iter_mut().take(count).enumerate() {
            *c = get_bits(src, i * W as usize, W) as u8;
        }
    }
    for ((d, &c), g) in dst.iter_mut().zip(&codes).zip(walk(first)) {
        *d = value_of(c, g);
    }
}

/// Calls `f(scale, k, xs[k..e], codes[k..e])` for each run `k..e` of
/// values with one scale (the scale indices from `walk`): a whole block at
/// a time, so the block core converts pairs of lanes.
#[inline(always)]
fn runs(
    mut walk: ScaleWalk,
    xs: &[f32],
    codes: &mut [u8],
    mut f: impl FnMut(usize, usize, &[f32], &mut [u8]),
) {
    let n = xs.len().min(codes.len());
    let mut next = walk.next().unwrap_or(0);
    let mut k = 0;
    while k < n {
        let (start, cur) = (k, next);
        k += 1;
        while k < n {
            next = walk.next().unwrap_or(0);
            if next != cur {
                break;
            }
            k += 1;
        }
        if let (Some(x), Some(c)) = (xs.get(start..k), codes.get_mut(start..k)) {
            f(cur, start, x, c);
        }
    }
}

#[inline(always)]
fn rule_of(rule: u32) -> ScaleRule {
    match rule {
        1 => ScaleRule::Ceil,
        2 => ScaleRule::Even,
        3 => ScaleRule::RCeil,
        _ => ScaleRule::Floor,
    }
}

#[inline(always)]
fn rounding_of(seed: u64, stochastic: u32) -> Rounding {
    if stochastic != 0 {
        Rounding::Stochastic { seed }
    } else {
        Rounding::Nearest
    }
}

/// One thread per scale of an MX grid.
///
/// # Safety
///
/// `src` holds `outer * d * inner` values, `scales` room for the grid's
/// scales.
#[inline(always)]
unsafe fn mx_scales_kernel<F: MxElement>(
    src: *const f32,
    outer: u64,
    d: u64,
    inner: u64,
    rule: u32,
    scales: *mut u8,
) {
    let grid = BlockGrid::along(outer as usize, d as usize, inner as usize, 32);
    let g = global_thread() as usize;
    if g >= grid.scales() {
        return;
    }
    // SAFETY: the caller's promise; only this thread writes byte `g`.
    let data = unsafe { slice::from_raw_parts(src, grid.len()) };
    let s = mx_scale_f32::<F>(grid.amax_bits_f32(data, g), rule_of(rule));
    // SAFETY: `g` is below the number of scales the caller sized.
    unsafe { scales.add(g).write(s.to_bits()) };
}

/// # Safety
///
/// As [`mx_scales_kernel`], with `scales` read and `words` room for the
/// packed codes.
#[inline(always)]
unsafe fn mx_encode_kernel<F: MxElement, const W: u32>(
    src: *const f32,
    outer: u64,
    d: u64,
    inner: u64,
    scales: *const u8,
    seed: u64,
    stochastic: u32,
    words: *mut u64,
) {
    let grid = BlockGrid::along(outer as usize, d as usize, inner as usize, 32);
    let rounding = rounding_of(seed, stochastic);
    // SAFETY: the caller's promise.
    let sc = unsafe { slice::from_raw_parts(scales, grid.scales()) };
    // SAFETY: the caller's promise.
    unsafe {
        encode_scaled::<W>(src, grid.len() as u64, words, |first, xs, codes| {
            runs(grid.scale_walk(first), xs, codes, |g, k, xs, codes| {
                let scale = E8M0::from_bits(sc.get(g).copied().unwrap_or(0xff));
                mx_codes::<F, f32>(xs, scale, rounding, (first + k) as u64, codes);
            })
        })
    };
}

/// # Safety
///
/// `words` holds the packed codes of the grid, `scales` its scales, `out`
/// room for its values.
#[inline(always)]
unsafe fn mx_decode_kernel<F: MxElement, const W: u32>(
    words: *const u64,
    outer: u64,
    d: u64,
    inner: u64,
    scales: *const u8,
    out: *mut f32,
) {
    let grid = BlockGrid::along(outer as usize, d as usize, inner as usize, 32);
    // SAFETY: the caller's promise.
    let sc = unsafe { slice::from_raw_parts(scales, grid.scales()) };
    // SAFETY: the caller's promise.
    unsafe {
        decode_scaled::<W>(
            words,
            grid.len() as u64,
            out,
            |f| grid.scale_walk(f),
            |c, g| {
                let scale = E8M0::from_bits(sc.get(g).copied().unwrap_or(0xff));
                mx_value(F::from_raw_bits(c.into()), scale)
            },
        )
    };
}

macro_rules! mx_entries {
    ($f:ty, $w:literal: $scales:ident, $enc:ident, $dec:ident) => {
        /// One E8M0 scale per thread (see the crate docs).
        ///
        /// # Safety
        ///
        /// `src` holds `outer * d * inner` values, `scales` one byte per block.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $scales(
            src: *const f32,
            outer: u64,
            d: u64,
            inner: u64,
            rule: u32,
            scales: *mut u8,
        ) {
            // SAFETY: the caller's promise.
            unsafe { mx_scales_kernel::<$f>(src, outer, d, inner, rule, scales) }
        }

        /// Encodes the values under their block's scale (see the crate docs).
        ///
        /// # Safety
        ///
        /// As the scale entry, with `words` room for the packed codes.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $enc(
            src: *const f32,
            outer: u64,
            d: u64,
            inner: u64,
            scales: *const u8,
            seed: u64,
            stochastic: u32,
            words: *mut u64,
        ) {
            // SAFETY: the caller's promise.
            unsafe {
                mx_encode_kernel::<$f, $w>(src, outer, d, inner, scales, seed, stochastic, words)
            }
        }

        /// Decodes the values times their block's scale (see the crate docs).
        ///
        /// # Safety
        ///
        /// `words` holds the packed codes, `scales` the scales, `out` room
        /// for the values.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $dec(
            words: *const u64,
            outer: u64,
            d: u64,
            inner: u64,
            scales: *const u8,
            out: *mut f32,
        ) {
            // SAFETY: the caller's promise.
            unsafe { mx_decode_kernel::<$f, $w>(words, outer, d, inner, scales, out) }
        }
    };
}

mx_entries!(E2M1, 4: mx_scales_e2m1, mx_encode_e2m1, mx_decode_e2m1);
mx_entries!(E2M3, 6: mx_scales_e2m3, mx_encode_e2m3, mx_decode_e2m3);
mx_entries!(E3M2, 6: mx_scales_e3m2, mx_encode_e3m2, mx_decode_e3m2);
mx_entries!(E4M3, 8: mx_scales_e4m3, mx_encode_e4m3, mx_decode_e4m3);
mx_entries!(E5M2, 8: mx_scales_e5m2, mx_encode_e5m2, mx_decode_e5m2);

/// One E4M3 scale per thread of an NVFP4 grid (see the crate docs).
///
/// # Safety
///
/// `src` holds `rows * cols` values, `scales` one byte per block of 16 of
/// each row.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn nvfp4_scales(
    src: *const f32,
    rows: u64,
    cols: u64,
    matrix_rows: u64,
    tile: u64,
    tensor_scale: f32,
    tiny: u32,
    scales: *mut u8,
) {
    let grid = BlockGrid::tiles(
        rows as usize,
        cols as usize,
        matrix_rows as usize,
        tile as usize,
        16,
    );
    let g = global_thread() as usize;
    if g >= grid.scales() {
        return;
    }
    let tiny = match tiny {
        1 => TinyScale::Smallest,
        2 => TinyScale::MinNormal,
        _ => TinyScale::Flush,
    };
    // SAFETY: the caller's promise.
    let data = unsafe { slice::from_raw_parts(src, grid.len()) };
    let s = nvfp4_scale_f32(grid.amax_bits_f32(data, g), tensor_scale, tiny);
    // SAFETY: `g` is below the number of scales; only this thread writes it.
    unsafe { scales.add(g).write(s.to_bits()) };
}

/// Encodes `rows * cols` values to E2M1 under their scales (see the crate
/// docs).
///
/// # Safety
///
/// `src` holds `rows * cols` values, `scales` the scales, `words` room for
/// the packed codes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn nvfp4_encode(
    src: *const f32,
    rows: u64,
    cols: u64,
    scales: *const u8,
    tensor_scale: f32,
    seed: u64,
    stochastic: u32,
    words: *mut u64,
) {
    let grid = BlockGrid::along(rows as usize, cols as usize, 1, 16);
    let rounding = rounding_of(seed, stochastic);
    // SAFETY: the caller's promise.
    let sc = unsafe { slice::from_raw_parts(scales, grid.scales()) };
    // SAFETY: the caller's promise.
    unsafe {
        encode_scaled::<4>(src, grid.len() as u64, words, |first, xs, codes| {
            runs(grid.scale_walk(first), xs, codes, |g, k, xs, codes| {
                let scale = E4M3::from_bits(sc.get(g).copied().unwrap_or(0x7f));
                nvfp4_codes::<f32>(xs, scale, tensor_scale, rounding, (first + k) as u64, codes);
            })
        })
    };
}

/// Decodes `rows * cols` E2M1 codes times their scales and the tensor scale
/// (see the crate docs).
///
/// # Safety
///
/// `words` holds the packed codes, `scales` the scales, `out` room for the
/// values.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn nvfp4_decode(
    words: *const u64,
    rows: u64,
    cols: u64,
    scales: *const u8,
    tensor_scale: f32,
    out: *mut f32,
) {
    let grid = BlockGrid::along(rows as usize, cols as usize, 1, 16);
    // SAFETY: the caller's promise.
    let sc = unsafe { slice::from_raw_parts(scales, grid.scales()) };
    // SAFETY: the caller's promise.
    unsafe {
        decode_scaled::<4>(
            words,
            grid.len() as u64,
            out,
            |f| grid.scale_walk(f),
            |c, g| {
                let scale = E4M3::from_bits(sc.get(g).copied().unwrap_or(0x7f));
                nvfp4_value(E2M1::from_bits(c), scale, tensor_scale)
            },
        )
    };
}

/// `shfl.sync.down.b32`: lane `l` gets lane `l + delta`'s `v`.
#[inline(always)]
fn shfl_down32(v: u32, delta: u32) -> u32 {
    let a: u32;
    // SAFETY: a register-only warp shuffle that every lane of the warp
    // executes with the full mask.
    unsafe {
        asm!(
            "shfl.sync.down.b32 {a}, {v}, {d}, 0x1f, 0xffffffff;",
            a = out(reg32) a,
            v = in(reg32) v,
            d = in(reg32) delta,
            options(nomem, nostack),
        )
    };
    a
}

/// One `u32` per warp: the largest `|x|` bits (sign cleared) over the
/// finite values of a grid-stride share of `src[..n]` (0 if none), whose
/// order is the order of the magnitudes. The launcher takes the largest
/// partial: the amax of the NVFP4 default tensor scale.
///
/// # Safety
///
/// `src` holds `n` values, `partials` one `u32` per warp of the grid; the
/// CTA size is a multiple of 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn amax_partials(src: *const f32, n: u64, partials: *mut u32) {
    let t = global_thread();
    // SAFETY: reading the special registers has no preconditions.
    let stride = unsafe { nvptx::_grid_dim_x() as u64 * nvptx::_block_dim_x() as u64 };
    let mut m = 0u32;
    let mut i = t;
    while i < n {
        // SAFETY: `i < n`, inside the caller's buffer.
        let b = unsafe { src.add(i as usize).read() }.to_bits() & 0x7fff_ffff;
        if b < 0x7f80_0000 && b > m {
            m = b;
        }
        i += stride.max(1);
    }
    let mut d = 16;
    while d > 0 {
        m = m.max(shfl_down32(m, d));
        d /= 2;
    }
    if t % 32 == 0 {
        // SAFETY: one `u32` per warp; warp `t / 32` writes only its own.
        unsafe { partials.add((t / 32) as usize).write(m) };
    }
}
