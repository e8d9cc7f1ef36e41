//! `bitpack`'s kernels as PTX entry points, for `nvptx64-nvidia-cuda`.
//!
//! Every bulk entry point (unpack, pack, sums, encode, decode, amax) is a
//! one-line call of a body of `bitpack::kernels::gpu`, generic over the
//! `bitpack::kernels::simt::Simt` trait, with [`Gpu`] (this crate's `Simt`:
//! the special registers, `shfl.sync`, `bar.sync`, plain global accesses).
//! The same bodies run on the host under the tests' simulated grid
//! (`tests/tests/simulated_grid.rs`), bit-exact against the host kernels.
//! `scripts/build-ptx.sh` builds this crate for every target of
//! `bitpack/ptx/TARGETS` into `ptx/bitpack-<target>.ptx`, and CI assembles
//! each with `ptxas`.
//!
//! # Thread mapping and alignment
//!
//! The bulk bodies walk *units* of values whose packed bits and unpacked
//! values both fill whole 16-byte chunks (32 four-bit values: 16 bytes
//! packed, 32 as `u8`). Thread `t` of a grid of `T` threads takes units `t,
//! t + T, ...` (grid-stride: any grid and block size is correct, so the
//! launcher may launch fewer CTAs than units), so the lanes of a warp take
//! consecutive units. A whole unit whose two buffers start 16-byte aligned
//! moves through 128-bit loads and stores only (`ld/st.global.v4.u32`),
//! converted in registers; the last, partial unit, and every unit of a
//! launch with a pointer that is not 16-byte aligned, take an element path
//! (one load or store per value and per word: slower, the same bits). The
//! words of the last unit are written whole, padding bits zero. `sum_w*`
//! and `amax_partials` write one partial per warp of the grid.
//!
//! | entry | fast path needs | without it |
//! |---|---|---|
//! | `unpack_*`, `decode_*` | `words` and `out` 16-byte aligned | element path |
//! | `pack_*`, `encode_*` | `src` and `words` 16-byte aligned | element path |
//! | `sum_w*` | `words` 16-byte aligned | one load per word |
//! | `sum_partials` | `partials` 16-byte aligned | one load per partial |
//! | `amax_partials` | `src` 16-byte aligned | one load per value |
//!
//! The MX and NVFP4 entries keep their own mapping: a thread owns whole
//! blocks (the fewest values whose bits fill whole 64-bit words).
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
//! | `sum_partials` | `partials, n, out` | the grid's first warp: `out[0]` = the sum of `partials[..n]` |
//! | `encode_{e2m1,e2m3,e3m2,e4m3,e5m2,e8m0}_{nearest,satfinite}` | `src, n, words` | `f32` to packed codes |
//! | `encode_{e2m1,e2m3,e3m2,e4m3,e5m2}_{nearest,satfinite}_{f16,bf16}` | `src, n, words` | `f16` / `bf16` bits to packed codes (widened exactly) |
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
//! The `f16`/`bf16` decodes look each code up in a 256-entry table of the
//! format's 16-bit values (no `f32` on the way); they exist for E2M1, E2M3, E3M2, E4M3 and E5M2, whose
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

use core::arch::nvptx;
use core::slice;

use bitpack::formats::{
    BlockGrid, E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, Mode, MxElement, Rounding, ScaleRule, ScaleWalk,
    TinyScale, mx_codes, mx_scale_f32, mx_value, nvfp4_codes, nvfp4_scale_f32, nvfp4_value,
};
use bitpack::kernels::fixed;
use bitpack::kernels::gpu::{self, float::Half};
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

macro_rules! unpack_entries {
    ($u:ty; $($name:ident = $w:literal),* $(,)?) => {$(
        /// Unpacks `n` values (see the crate docs and `bitpack::kernels::gpu::unpack`).
        ///
        /// # Safety
        ///
        /// `words` holds the packed values, `out` room for `n` of them.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(words: *const u64, n: u64, out: *mut $u) {
            // SAFETY: the caller's promise.
            unsafe { gpu::unpack::unpack::<_, $w, $u>(&Gpu, words, n as usize, out) }
        }
    )*};
}

macro_rules! pack_entries {
    ($u:ty; $($name:ident = $w:literal),* $(,)?) => {$(
        /// Packs `n` values (see the crate docs and `bitpack::kernels::gpu::pack`).
        ///
        /// # Safety
        ///
        /// `src` holds `n` values, `words` room for them packed.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(src: *const $u, n: u64, words: *mut u64) {
            // SAFETY: the caller's promise.
            unsafe { gpu::pack::pack::<_, $w, $u>(&Gpu, src, n as usize, words) }
        }
    )*};
}

macro_rules! sum_entries {
    ($($name:ident = $w:literal),* $(,)?) => {$(
        /// One partial sum per warp (see the crate docs and `bitpack::kernels::gpu::sum`).
        ///
        /// # Safety
        ///
        /// `words` holds `n` packed values, `partials` one `u64` per warp.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(words: *const u64, n: u64, partials: *mut u64) {
            // SAFETY: the caller's promise.
            unsafe { gpu::sum::sum::<_, $w>(&Gpu, words, n as usize, partials) }
        }
    )*};
}

/// Sums `partials[..n]` with the grid's first warp into `out[0]`.
///
/// # Safety
///
/// `partials` holds `n` values, `out` one; the CTA size is a multiple of 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sum_partials(partials: *const u64, n: u64, out: *mut u64) {
    // SAFETY: the caller's promise.
    unsafe { gpu::sum::sum_partials(&Gpu, partials, n as usize, out) }
}

/// One `u32` per warp: the largest finite `|x|` bits of its grid-stride
/// share of `src[..n]` (see `bitpack::kernels::gpu::amax`).
///
/// # Safety
///
/// `src` holds `n` values, `partials` one `u32` per warp of the grid; the
/// CTA size is a multiple of 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn amax_partials(src: *const f32, n: u64, partials: *mut u32) {
    // SAFETY: the caller's promise.
    unsafe { gpu::amax::amax_partials(&Gpu, src, n as usize, partials) }
}

macro_rules! encode_entry {
    ($f:ty, $w:literal, $i:ty, $mode:expr, $name:ident, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        ///
        /// `src` holds `n` values, `words` room for them packed.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(src: *const $i, n: u64, words: *mut u64) {
            // SAFETY: the caller's promise.
            unsafe { gpu::float::encode::<_, $f, $w, $i>(&Gpu, src, n as usize, words, $mode) }
        }
    };
}

macro_rules! decode_entry {
    ($f:ty, $w:literal, $o:ty, $name:ident, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        ///
        /// `words` holds `n` packed codes, `out` room for `n` values.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(words: *const u64, n: u64, out: *mut $o) {
            // SAFETY: the caller's promise.
            unsafe { gpu::float::decode::<_, $f, $w, $o>(&Gpu, words, n as usize, out) }
        }
    };
}

macro_rules! float_entries {
    ($f:ty, $w:literal: $enc_n:ident, $enc_s:ident, $dec:ident) => {
        encode_entry!($f, $w, f32, Mode::Nearest, $enc_n,
            "Encodes `n` `f32`s, round to nearest (`from_f32`).");
        encode_entry!($f, $w, f32, Mode::SatFinite, $enc_s,
            "Encodes `n` `f32`s, saturating (`from_f32_satfinite`, `cvt.rn.satfinite`).");
        decode_entry!($f, $w, f32, $dec, "Decodes `n` packed codes to `f32`.");
    };
    ($f:ty, $w:literal: $enc_n:ident, $enc_s:ident, $dec:ident, $dec16:ident, $decbf:ident,
     $enc_n16:ident, $enc_s16:ident, $enc_nbf:ident, $enc_sbf:ident) => {
        float_entries!($f, $w: $enc_n, $enc_s, $dec);
        decode_entry!($f, $w, Half<false>, $dec16, "Decodes `n` packed codes to `f16` bits.");
        decode_entry!($f, $w, Half<true>, $decbf, "Decodes `n` packed codes to `bf16` bits.");
        encode_entry!($f, $w, Half<false>, Mode::Nearest, $enc_n16,
            "Encodes `n` `f16`s (bits), round to nearest.");
        encode_entry!($f, $w, Half<false>, Mode::SatFinite, $enc_s16,
            "Encodes `n` `f16`s (bits), saturating.");
        encode_entry!($f, $w, Half<true>, Mode::Nearest, $enc_nbf,
            "Encodes `n` `bf16`s (bits), round to nearest.");
        encode_entry!($f, $w, Half<true>, Mode::SatFinite, $enc_sbf,
            "Encodes `n` `bf16`s (bits), saturating.");
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

float_entries!(E2M1, 4: encode_e2m1_nearest, encode_e2m1_satfinite, decode_e2m1_f32,
    decode_e2m1_f16, decode_e2m1_bf16, encode_e2m1_nearest_f16, encode_e2m1_satfinite_f16,
    encode_e2m1_nearest_bf16, encode_e2m1_satfinite_bf16);
float_entries!(E2M3, 6: encode_e2m3_nearest, encode_e2m3_satfinite, decode_e2m3_f32,
    decode_e2m3_f16, decode_e2m3_bf16, encode_e2m3_nearest_f16, encode_e2m3_satfinite_f16,
    encode_e2m3_nearest_bf16, encode_e2m3_satfinite_bf16);
float_entries!(E3M2, 6: encode_e3m2_nearest, encode_e3m2_satfinite, decode_e3m2_f32,
    decode_e3m2_f16, decode_e3m2_bf16, encode_e3m2_nearest_f16, encode_e3m2_satfinite_f16,
    encode_e3m2_nearest_bf16, encode_e3m2_satfinite_bf16);
float_entries!(E4M3, 8: encode_e4m3_nearest, encode_e4m3_satfinite, decode_e4m3_f32,
    decode_e4m3_f16, decode_e4m3_bf16, encode_e4m3_nearest_f16, encode_e4m3_satfinite_f16,
    encode_e4m3_nearest_bf16, encode_e4m3_satfinite_bf16);
float_entries!(E5M2, 8: encode_e5m2_nearest, encode_e5m2_satfinite, decode_e5m2_f32,
    decode_e5m2_f16, decode_e5m2_bf16, encode_e5m2_nearest_f16, encode_e5m2_satfinite_f16,
    encode_e5m2_nearest_bf16, encode_e5m2_satfinite_bf16);
float_entries!(E8M0, 8: encode_e8m0_nearest, encode_e8m0_satfinite, decode_e8m0_f32);

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
