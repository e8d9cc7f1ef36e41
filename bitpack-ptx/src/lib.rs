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
//! The MX and NVFP4 entries are one-pass bodies of `bitpack::formats::gpu`
//! (beside the block core they run): a lane owns 32 values (one MX block,
//! two of a 6-bit format's, two NVFP4 blocks) on the fast path, see below.
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
//! | `mx_quantize_{fmt}`, `mx_quantize_{fmt}_{f16,bf16}` | `src, outer, d, inner, rule, seed, flags, words, scales` | one pass: codes and E8M0 scales |
//! | `mx_dequantize_{fmt}` | `words, outer, d, inner, scales, out` | `f32` values times their scale |
//! | `nvfp4_quantize`, `nvfp4_quantize_{f16,bf16}` | `src, rows, cols, matrix_rows, tile, tensor_scale, tiny, seed, flags, words, scales` | one pass: E2M1 codes and E4M3 scales |
//! | `nvfp4_dequantize` | `words, rows, cols, scales, tensor_scale, out` | `f32` values |

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
//! 16 tiles (`tile` = 16) that stop at every `matrix_rows`. One launch
//! quantizes: each block's values are read once, its amax, scale, codes and
//! scale byte made in registers (`bitpack::formats::gpu`, over the block
//! core the host arrays run: `mx_scale_f32`, `mx_codes`, `nvfp4_scale_f32`,
//! `nvfp4_codes`; no `f64`), so the bytes are the host's. `flags` bit 0
//! rounds stochastically with `seed` (the random bits of element `i` are
//! `random_bits(seed, i)`, as on the host), bit 1 writes the scales in the
//! 128 x 4 tiled layout of cuBLASLt (`swizzled_index`, padding zeroed), bit
//! 2 (MX) writes the columnwise output, the transpose of `[outer, d]`
//! blocked along its rows. `rule` is 0 Floor, 1 Ceil, 2 Even, 3 RCeil;
//! `tiny` 0 Flush, 1 Smallest, 2 MinNormal. The fast path (blocks along the
//! last axis, rows of whole lanes' units, 16-byte aligned buffers) moves
//! 128-bit chunks and stores the scales as `u32`s gathered by shuffles; any
//! other launch takes the element path (the same bits).
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

use core::arch::nvptx;

use bitpack::formats::gpu as block;
use bitpack::formats::{E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, Mode};
use bitpack::kernels::gpu::{self, float::Half};

mod simt;
pub use simt::Gpu;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: `trap` aborts the kernel; it has no preconditions.
    unsafe { nvptx::trap() }
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

macro_rules! mx_entries {
    ($f:ty, $w:literal: $q:ident, $q16:ident, $qbf:ident, $dq:ident) => {
        mx_entries!(@q $f, $w, f32, $q);
        mx_entries!(@q $f, $w, Half<false>, $q16);
        mx_entries!(@q $f, $w, Half<true>, $qbf);

        /// Dequantizes an MX array to `f32` (see the crate docs and
        /// `bitpack::formats::gpu::mx_dequantize`).
        ///
        /// # Safety
        ///
        /// `words` holds the packed codes, `scales` one byte per block,
        /// `out` room for `outer * d * inner` values.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $dq(
            words: *const u64,
            outer: u64,
            d: u64,
            inner: u64,
            scales: *const u8,
            out: *mut f32,
        ) {
            // SAFETY: the caller's promise.
            unsafe {
                block::mx_dequantize::<_, $f, $w>(
                    &Gpu, words, outer as usize, d as usize, inner as usize, scales, out,
                )
            }
        }
    };
    (@q $f:ty, $w:literal, $i:ty, $name:ident) => {
        /// Quantizes to MX in one pass: codes and scales (see the crate
        /// docs and `bitpack::formats::gpu::mx_quantize`).
        ///
        /// # Safety
        ///
        /// `src` holds `outer * d * inner` values, `words` room for their
        /// packed codes (8-byte aligned), `scales` for the scale bytes
        /// (4-byte aligned; `MxQuantize::scales_len`).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            src: *const $i,
            outer: u64,
            d: u64,
            inner: u64,
            rule: u32,
            seed: u64,
            flags: u32,
            words: *mut u64,
            scales: *mut u8,
        ) {
            let q = block::MxQuantize::from_args(outer, d, inner, rule, seed, flags);
            // SAFETY: the caller's promise.
            unsafe { block::mx_quantize::<_, $f, $w, $i>(&Gpu, src, &q, words, scales) }
        }
    };
}

mx_entries!(E2M1, 4: mx_quantize_e2m1, mx_quantize_e2m1_f16, mx_quantize_e2m1_bf16,
    mx_dequantize_e2m1);
mx_entries!(E2M3, 6: mx_quantize_e2m3, mx_quantize_e2m3_f16, mx_quantize_e2m3_bf16,
    mx_dequantize_e2m3);
mx_entries!(E3M2, 6: mx_quantize_e3m2, mx_quantize_e3m2_f16, mx_quantize_e3m2_bf16,
    mx_dequantize_e3m2);
mx_entries!(E4M3, 8: mx_quantize_e4m3, mx_quantize_e4m3_f16, mx_quantize_e4m3_bf16,
    mx_dequantize_e4m3);
mx_entries!(E5M2, 8: mx_quantize_e5m2, mx_quantize_e5m2_f16, mx_quantize_e5m2_bf16,
    mx_dequantize_e5m2);

macro_rules! nvfp4_quantize_entry {
    ($i:ty, $name:ident) => {
        /// Quantizes to NVFP4 in one pass under a given tensor scale (see
        /// the crate docs and `bitpack::formats::gpu::nvfp4_quantize`).
        ///
        /// # Safety
        ///
        /// `src` holds `rows * cols` values, `words` room for their packed
        /// codes (8-byte aligned), `scales` for the scale bytes (4-byte
        /// aligned; `Nvfp4Quantize::scales_len`).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            src: *const $i,
            rows: u64,
            cols: u64,
            matrix_rows: u64,
            tile: u64,
            tensor_scale: f32,
            tiny: u32,
            seed: u64,
            flags: u32,
            words: *mut u64,
            scales: *mut u8,
        ) {
            let q = block::Nvfp4Quantize::from_args(
                rows,
                cols,
                matrix_rows,
                tile,
                tensor_scale,
                tiny,
                seed,
                flags,
            );
            // SAFETY: the caller's promise.
            unsafe { block::nvfp4_quantize::<_, $i>(&Gpu, src, &q, words, scales) }
        }
    };
}

nvfp4_quantize_entry!(f32, nvfp4_quantize);
nvfp4_quantize_entry!(Half<false>, nvfp4_quantize_f16);
nvfp4_quantize_entry!(Half<true>, nvfp4_quantize_bf16);

/// Dequantizes an NVFP4 array to `f32` (see the crate docs and
/// `bitpack::formats::gpu::nvfp4_dequantize`).
///
/// # Safety
///
/// `words` holds `rows * cols` packed codes, `scales` one byte per block of
/// 16 of a row, `out` room for `rows * cols` values.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn nvfp4_dequantize(
    words: *const u64,
    rows: u64,
    cols: u64,
    scales: *const u8,
    tensor_scale: f32,
    out: *mut f32,
) {
    // SAFETY: the caller's promise.
    unsafe {
        block::nvfp4_dequantize(
            &Gpu,
            words,
            rows as usize,
            cols as usize,
            scales,
            tensor_scale,
            out,
        )
    }
}
