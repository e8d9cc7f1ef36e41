//! Width-monomorphized bulk kernels on the dense LSB-first word stream.
//!
//! Every bulk operation of the crate goes through these kernels:
//! [`NarrowArray`](crate::NarrowArray)'s `from_slice`, `extend_from_slice`,
//! `to_vec`, `pack_from` and `unpack_into` ([`pack`] and [`unpack`] on the
//! values' raw bits), [`NarrowArray::sum`](crate::NarrowArray::sum)
//! ([`sum`]), and the float formats' bulk encode and decode
//! (the float formats' `encode` and its siblings, through
//! [`encode`], [`decode`] and [`decode_with`]). They are public too, on plain
//! slices, for code that keeps its own buffers.
//!
//! # The stream
//!
//! Value `i` of width `w` occupies bits `[i * w, (i + 1) * w)`; bit `k` is
//! bit `k % 64` of `u64::from_le(words[k / 64])`. The words hold the stream's
//! bytes, exactly as `NarrowArray` stores them, so on little-endian targets a
//! word's value is its 64 stream bits and its bytes are the packed byte
//! stream. Every kernel takes a starting value `offset`, aligned or not, and
//! a pack changes only the bits of the values it writes.
//!
//! # Monomorphization and dispatch
//!
//! Each kernel is one generic source with the width as a `const W: u32`
//! (`scalar.rs`), so shifts, masks and word indices are constants. The hot
//! loops work on *blocks*, the fewest values whose bits fill whole words
//! (64 values of 5 bits in 5 words, 8 values of 8 bits in one), unrolled so
//! that each value's word and shift fold to constants; the values before the
//! first block boundary and after the last are moved one at a time. The
//! portable kernels are safe Rust, allocate nothing, and are the same source
//! the `nvptx64-nvidia-cuda` build compiles.
//!
//! A macro (`width_table!`) instantiates a kernel at every width it supports
//! into a static table, so a width known only at run time costs one table
//! lookup and one indirect call per bulk call, never a decision per value.
//! The one dispatch macro (`select!`) makes that choice: on `x86_64` with
//! `std`, a second table per kernel lists, per width, the AVX-512, AVX2,
//! BMI2, POPCNT or F16C variants in order of measured preference with the CPU
//! features each needs; the features are detected once with
//! `is_x86_feature_detected!` and cached in an atomic. Where no variant
//! exists, or the CPU lacks its features, the portable instantiation runs.
//! Variants are `#[target_feature]` functions generic over the width too;
//! they handle the byte-aligned middle of a call and hand the unaligned head
//! and the tail to the portable kernel. From 2,048 values on, the head grows
//! (by at most a cache line's worth of values) to where the slice the steps
//! store to (an unpack's or table decode's output) or load from (a pack's
//! input; the stream of the AVX-512 sums of 1, 2, 4, 8, 16, 32 and 64 bits
//! and of the carry-save sums) starts on a 64-byte line: a vector access across two
//! lines costs about twice one inside a line, and the system allocator
//! returns large buffers 16 bytes past a line (the `u32` unpacks may start
//! their steps at bit 4 of a byte, so odd widths get there too). The
//! `binary16` decodes,
//! element-wise maps, run one extra step at 0 instead, then steps from the
//! first value on a line. On little-endian `aarch64` with
//! `std`, `select!` takes NEON variants from per-target tables of the same
//! kind (`aarch64/`; NEON is baseline there, so nothing is detected, and
//! `__limit_features(0)` still forces the portable kernels). Without `std`,
//! and on other targets, only the portable kernels exist.
//!
//! | kernel | x86 variant (widths) | how |
//! |---|---|---|
//! | [`unpack`] to `u8` | AVX-512 F+BW+VBMI (1..=7) | one 64-byte load per 64 values; `vpermb` gives each 64-bit lane its 8-value group, `vpmultishiftqb` moves each value to its own byte, mask |
//! | [`unpack`] to `u8` | AVX2 (1..=7), BMI2 (1..=7, slower, kept as fallback) | one 32-byte load gives each 128-bit half its 16 values; two `pshufb` put the even and the odd values' two bytes in 16-bit lanes, `vpmulhuw` shifts the even lanes right to bit 0 and `vpmullw` the odd ones left to bit 8, each by its own amount, two masks, `or` |
//! | [`unpack`] to `u32` | AVX-512 F+BW+VBMI (1..=31) | 16 values per step: `vpermb` gathers each value's bytes into its dword from one 64-byte load, `vpsrlvd` shifts, mask |
//! | [`unpack`] to `u32` | AVX2 (1..=31) | `pshufb` gathers each value's bytes into its dword, `vpsrlvd` shifts, mask |
//! | [`pack`] from `u8` | AVX-512 F/BW/VBMI (1..=7), AVX2+BMI2 (1..=7), BMI2 (1..=7, slower) | AVX-512: `vptestmb` (1 bit) or the multiply-add merges below, one `vpermb` to gather 64 values' `8w` bytes, a masked store; AVX2: `vpmovmskb` bit planes (1, 2 bits) or `vpmaddubsw`/`vpmaddwd`/shift merges of neighbours, then `pshufb` |
//! | [`pack`] from `u32` | AVX-512 F/BW/VBMI (1..=31), AVX2+BMI2 (1..=8), AVX2 (9..=31) | 1..=8: narrow to bytes (`vpackusdw`, `vpackuswb`, `vpermd`), then as from `u8`; 9..=31: `vpsllvd` puts each value at its bit offset (`vpsrlvd` gives the bits above the dword past 25 bits), then zero-masked `vpermb`/`vpermt2b` (AVX-512, 16 values, masked store) or `pshufb` per 128-bit half (AVX2, 8 values) move the even and the odd values' bytes, `or` |
//! | [`sum`] | AVX-512: F+VPOPCNTDQ (1), F+BW+VPOPCNTDQ (2..=6, counts in place; without VPOPCNTDQ F+BW at 2 and 4, F+BW+VBMI at 3, 5, 6), F+BW (8), F+BW+VBMI (7; 9..=25 but 16), F (16, 32, 64) | `vpopcntq`; the AVX2 methods below on 64-byte loads, with `vpermb` placing the folded groups |
//! | [`sum`] | AVX2 (1..=25, 32, 64; carry-save trees at 1 and 2), POPCNT (1, fallback) | see below |
//! | [`decode`] to 4-byte values | AVX-512 F+BW+VBMI (1..=4) | 16 values per step: one 8-byte load broadcast, `vpmultishiftqb` moves code `i` to dword `i`, one `vpermd` over the 16-entry table |
//! | [`decode`] to 4-byte values | AVX2 (1..=4) | the table lives in registers: `vpsrlvd` places the codes, `vpermd` looks up (two and a blend for 16 entries); at 4 bits, a table whose values end in 16 zero bits (the `f32`s of a 4-bit float format) by `vpshufb` instead, 64 values per step: the bytes ordered (`vpshufb`, `vpermq`), the nibbles split and interleaved, the two high bytes looked up, `vpunpck{l,h}bw`/`vpunpck{l,h}wd` with zero |
//! | float encode/decode | AVX-512 F+BW (+VBMI), AVX2, F16C | see *Float formats*; the AVX-512 builds (`x86/float.rs`) run the AVX2 arithmetic on 16 lanes, selects as mask blends, and decode by `vpermi2b` tables (VBMI) or `vcvtph2ps` on 16 lanes; the AVX2 decode by `vpshufb` nibble tables (`SplitTables`) where they fit the format, else `vcvtph2ps` (F16C) |
//!
//! The `aarch64` NEON variants (`aarch64/`, `core::arch::aarch64`): unpack
//! to `u8` (1..=8: two `tbl` lookups give each of 16 values its low and high
//! byte, `ushl` by per-lane counts, mask), to `u32` (1..=8: the same, widened;
//! 9..=25: a two-register `tbl` puts each value's four bytes in its lane,
//! `ushl`, mask), pack from `u8` and `u32` (1..=8: neighbours merged in
//! widening lanes; `u32` values narrowed to bytes first),
//! sum (1..=8: `cnt` or nibble sums for 1, 2, 4, 8 bits, the unpack for the
//! others, `uadalp` accumulation; 16, 32, 64: the wide sums below),
//! decode to 4-byte values (1..=4: a
//! four-register `tbl` table), the float encode and decode (the branch-free
//! element functions on four lanes), the widen of `binary16` bits to `f32`
//! (`fcvtl` and `fcvtl2`, inline assembly, 8 values a step), and in
//! `aarch64/block.rs` the block kernels of MX and NVFP4 (the one-pass NVFP4
//! and MX quantizes: `umaxp` trees of a group's amaxes, the codes narrowed
//! to bytes by `uzp1` and joined in place by `usra` or `sli`; the scaled
//! E2M1 decode: a block's 16 products as one four-register `tbl` table;
//! the scaled decode of 8-bit codes: the float decode and one `fmul` by
//! the block's factor). They are tested under
//! `qemu-aarch64` against the same references; their speed is not measured
//! here.
//!
//! Full-width values (`w` equal to the buffer's bits) are plain copies. Every
//! other combination (`u16` and `u64` buffers, widths above 8 for a `u8` pack,
//! `u128` at any width) runs the portable kernel. Wide `u128` values
//! (65..=128 bits) are moved one value at a time: correct, and slower.
//!
//! # Sum: in-word digit folding and counts in place
//!
//! [`sum`] never decodes into memory. Two-, four- and eight-bit values
//! never cross a byte: a nibble table (Mula's popcount for one bit) or a
//! nibble sum gives each byte's field sum, bytes accumulate for as many
//! steps as cannot overflow, and `vpsadbw` adds them into 64-bit lanes.
//! With AVX2 the one- and two-bit sums first fold each 16 vectors into one
//! by a tree of carry-save adders (Harley-Seal: the ones, twos, fours and
//! eights of each bit carried from step to step), and take the field sums
//! of the sixteens only, each weighed by its level; `popcnt` counts one
//! bit where AVX2 is missing.
//!
//! Other widths use *digit folding*: a word is a run of base-`2^w` digits,
//! and `(x & M) + ((x >> w) & M)`, with `M` selecting every other field,
//! adds neighbouring digits into slots twice as wide; repeating it leaves the
//! sum in one slot. The portable kernel folds each word of a block once into
//! `2w`-bit slots that accumulate across words (the slots stop below bit 64,
//! so no carry is lost, and they are flushed before they could overflow), and
//! adds the digits cut by word boundaries separately: the high part of a
//! value begun in the previous word, shifted to its weight, and the low part
//! of the next one. Every mask and shift is a constant of the width and the
//! word's place in the block. The AVX2 kernel (3, 5, 6, 7 bits) first moves
//! whole 8-value groups to the bottom of each 64-bit lane with one
//! `pshufb` per 32-byte load (unused high bits masked out), then splits the
//! fold across steps: a step only adds the lane and its odd fields into two
//! accumulators, and every `2^w + 1` steps the even fields are recovered as
//! their difference and both parities are folded into `4w`-bit slots.
//!
//! With AVX-512 VPOPCNTDQ, 2 to 6 bits are *counted in place* instead: bit
//! `b` of a value weighs `2^b`, so the sum is `sum over b of 2^b * (the
//! number of ones at bit b of a value)`, and those are popcounts of the
//! stream under a mask per place (one set per vector of a step, the few
//! vectors after which the places repeat: 1 at 2 and 4 bits, 3 at 3 and 6,
//! 5 at 5). The counting is deferred by Harley–Seal trees of carry-save
//! adders (two `vpternlogq` a 64-byte vector, bit by bit), whose
//! sixteens are counted every 16 steps; at 2 and 4 bits two trees take
//! turns, since one tree's chain of adders holds back the next run's, and
//! at 4 bits two `vpsadbw` (of the bytes, `l + 16 h`, and of the low
//! nibbles `l`) count the nibbles where four `vpopcntq` would. The trees
//! win while the stream is in the caches; a stream of more than 8 MiB may
//! come from memory, where they took 1.7-2.6x the time of the digit folds
//! at 3, 5 and 6 bits (which run near the read floor there), so it takes
//! those, or the byte sums at 2 and 4 bits.
//!
//! Sixteen-, 32- and 64-bit values start on bytes and need no fold: a
//! load is added into lanes of two values (`u32` lanes at 16 bits, `u64` at
//! 32; at 64 bits a `u64` lane of one value, its halves the two parts)
//! wrapping, and its high parts, shifted down, into a second accumulator;
//! the lanes' total less the high parts' shifted up is the exact sum of the
//! low parts while it fits a lane, so each batch (65,536 steps at 16 bits)
//! is added into a `u128` before it could wrap. NEON adds 16- and 32-bit
//! values pairwise into wider lanes (`uadalp`) and 64-bit ones as x86 does.
//!
//! Other widths from 9 to 25 bits are *spread*: the bytes of each value are
//! gathered into its own `u32` lane, as the unpack to `u32` gathers them
//! (`vpermb`, 16 values a step; `pshufb`, 8), then masked and added in
//! those lanes. A value so gathered sits `s` bits up (below 8), always the
//! same `s` in the same lane, so up to 16 bits the lanes are not shifted
//! per step: the sum of `v << s` is the sum of `v` shifted, and each batch
//! of steps (as many as a lane cannot overflow) is shifted once.
//!
//! Sums are exact for every length (a `u128` result; 2^20 values of
//! `2^w - 1` (2^22 at 16 bits, past two batches), random runs of 40,000 to
//! 70,000 values at every width, and streams on either side of 8 MiB at 2
//! to 6 bits are tested).
//!
//! # Float formats
//!
//! `minifloat.rs` holds the element functions for the small float formats,
//! generic over `MiniFloat`: a branch-free
//! round-to-nearest-even encode (integer rounding of the `f32` bits for
//! normal results, one FPU add that rounds to the subnormal quantum, selects
//! for overflow and NaN) and a branch-free decode (rebiased bits, subnormals
//! by an exact subtraction), both exact to the bit against the crate's
//! rounding routine and decode table (tested on every code and on millions of
//! inputs, both modes), for every shipped format but E8M0, which falls back to
//! the routine and the table. Encode runs as AVX-512 code 64 values at a
//! time (AVX2: 32), writing bytes (8-bit formats) or nibble pairs (4-bit)
//! straight into the stream. Decode of a 4-bit format is the register table
//! of [`decode`]; of wider ones, with AVX-512 VBMI a table of each code's
//! `f32` high bytes (`vpermi2b`, 64 codes per step; the 8-bit codes by
//! magnitude, the sign or-ed in), else with AVX-512 BW `vcvtph2ps` on
//! codes shifted into `binary16` (32 codes per step), else with AVX2 a
//! table of those bytes by the code's nibbles (`vpshufb`, 32 codes per
//! step: the high byte by the sign and high exponent bits, the low byte
//! by the low nibble, the zero, subnormal and top-binade codes corrected
//! by their low nibble; `x86::SplitTables`, checked on every code at
//! compile time: E4M3, E5M2, E2M3 and E3M2), else `vcvtph2ps` with F16C
//! (16 codes per step; the 8-bit codes are read in place), else the
//! branch-free function. Stochastic rounding
//! is a branch-free function too (`elem::encode_stochastic`, the rounding
//! on the integer bits, with the block's power-of-two scale or, for NVFP4,
//! the quotient in `f64`), whose portable loop runs as AVX-512 (F, BW,
//! DQ, VL: `vpmullq` for the random bits) or AVX2 builds.
//!
//! # Performance
//!
//! Measured by `benches/kernels.rs` (criterion, one group per kernel,
//! one `BenchmarkId` per width), every kernel beside its baselines in the
//! same run; `BENCHMARKS.md` has every median, every ratio and every target,
//! with the CPU and the command; `scripts/bench_report.py` writes the list
//! below from the same run (on a machine shared with other work medians move
//! by up to about 30% between runs).
//!
//! <!-- bench:kernels:begin -->
//! Measured 2026-12-07 on AMD EPYC (2 cores; avx2 bmi2 popcnt avx512f):
//!
//! - `sum/65536`: the 5-bit sum takes 531 ns, 1.48x `read_floor` (reading its
//!   40 KiB) and 446x faster than the bit-at-a-time `naive` loop; widths 1..=8
//!   run at 1.00-2.02x `read_floor`.
//! - `sum/65536` at 16, 32 and 64 bits: 0.99-1.10x `read_floor`, 2.65-3.70x
//!   faster than the portable sum and 3.44-8.69x faster than an iterator sum of
//!   the values as a slice.
//! - `sum/65536` at 12 and 24 bits: 1.24-2.51x `read_floor`, 3.48-4.44x faster
//!   than the portable sum.
//! - `sum/67108864`: 0.89-1.47x `read_floor` for widths 1..=8.
//! - `unpack_u8/65536`: 1.37-2.15x `write_floor` (`memset` of the 64 KiB
//!   output) and 1.31-2.09x `store_loop` (plain AVX2 stores of as many bytes);
//!   the 5-bit unpack takes 1.15 µs.
//! - `unpack_u8/65536` against `fastlanes` (the same values in its own
//!   transposed layout): 0.68-1.04x of its time for widths 1..=8.
//! - `unpack_u32/65536`: 0.67-1.52x the time of `bitpacker8x` (its own
//!   interleaved layout) and 2.32-10.16x faster than `bitpacker1x` (the same
//!   bytes); 5 bits: 3.77 µs against 3.66 µs and 21.25 µs.
//! - `pack_u32/65536`: 3.48-7.36x faster than `bitpacker1x` for widths 1..=8
//!   and 2.36-7.63x for 9..=31 (the same bytes written); 1.02-1.34x the
//!   read+write floor (`read_write`) for widths 1..=32.
//! - `pack_u8/65536`: 1.07-1.98x the read+write floor (`read_write`: the input
//!   read and the packed bytes written once each) for widths 1..=8.
//! - `decode_f32/65536`: E2M1 2.79 µs (1.20x `write_floor`, the `memset` of the
//!   256 KiB output), E4M3 3.11 µs (1.28x; `store_loop` alone is 1.00x); E4M3
//!   318x faster than the per-value `MiniFloat::to_f32` loop.
//! - `encode_f32/65536`: E2M1 5.27 and E4M3 6.69 Gval/s, 1.46 and 1.85 values
//!   per cycle at the measured 3.61 GHz (E4M3: 107x the per-value rounding
//!   routine; `half`'s `f32` to `f16` slice conversion: 1.32 per cycle).
//! <!-- bench:kernels:end -->
//!
//! What was measured and not kept (each against the kept code in one timing
//! loop, min of 3000 runs on the same machine): a `vpgatherdd` table decode
//! of 5..=8-bit codes (24.1 µs for 65,536 8-bit codes, against 20.8 µs for the
//! portable unpack-and-index loop, and 6.3 µs for the F16C decode that
//! replaced both for the float formats); the `vpmulhuw` intrinsic in the `u8`
//! unpack, which LLVM rewrites into widened 32-bit halves, two multiplies, a
//! `vpackusdw` and a `vpermq` (4.5 µs for 65,536 values, 1.5 µs with the
//! instruction issued through `asm!`); `vbroadcasti128` window loads, which
//! cost a shuffle on this core (two overlapping 32-byte loads replace them);
//! a per-chunk dispatch of the float decode map (256-value chunks: 13.2 µs;
//! 1024: 10.0 µs).

#[macro_use]
mod dispatch;

/// Expands `$body` 64 times with `$j` bound to `0usize..64` (a literal in
/// each copy), so indices and shifts computed from `$j` fold to constants.
macro_rules! unroll64 {
    ($j:ident => $body:block) => {
        unroll64!(@go $j $body;
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60
            61 62 63)
    };
    (@go $j:ident $body:block; $($n:literal)*) => {
        $( { let $j: usize = $n; $body } )*
    };
}

#[cfg(feature = "alloc")]
pub(crate) use dispatch::width_table;

#[cfg(all(simd_variants, target_arch = "aarch64"))]
pub(crate) mod aarch64;
#[cfg(feature = "alloc")]
pub(crate) mod aligned;
pub(crate) mod bits;
pub mod fixed;
pub mod gpu;
#[cfg(target_arch = "nvptx64")]
pub(crate) mod ptx;
mod scalar;
pub mod simt;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(all(feature = "std", target_arch = "x86_64"))]
pub(crate) mod x86;

use crate::error::LengthOf;
use crate::error::{Error, Result};
use crate::unsigned::Unsigned;

pub(crate) mod minifloat;
#[cfg(feature = "alloc")]
pub(crate) mod stream;

/// Portable instantiations, one per width.
mod tables {
    use super::scalar;

    pub(super) type UnpackFn<U> = fn(&[u64], usize, &mut [U]);
    pub(super) type PackFn<U> = fn(&[U], &mut [u64], usize);
    pub(super) type SumFn = fn(&[u64], usize, usize) -> u128;

    pub(super) static UNPACK_U8: [UnpackFn<u8>; 8] = width_table!(scalar::unpack, u8; 8);
    pub(super) static UNPACK_U16: [UnpackFn<u16>; 16] = width_table!(scalar::unpack, u16; 16);
    pub(super) static UNPACK_U32: [UnpackFn<u32>; 32] = width_table!(scalar::unpack, u32; 32);
    pub(super) static UNPACK_U64: [UnpackFn<u64>; 64] = width_table!(scalar::unpack, u64; 64);
    pub(super) static UNPACK_U128: [UnpackFn<u128>; 128] = width_table!(scalar::unpack_wide; 128);
    pub(super) static PACK_U8: [PackFn<u8>; 8] = width_table!(scalar::pack, u8; 8);
    pub(super) static PACK_U16: [PackFn<u16>; 16] = width_table!(scalar::pack, u16; 16);
    pub(super) static PACK_U32: [PackFn<u32>; 32] = width_table!(scalar::pack, u32; 32);
    pub(super) static PACK_U64: [PackFn<u64>; 64] = width_table!(scalar::pack, u64; 64);
    pub(super) static PACK_U128: [PackFn<u128>; 128] = width_table!(scalar::pack_wide; 128);
    pub(super) static SUM: [SumFn; 64] = width_table!(scalar::sum; 64);
}

/// Limits the run-time CPU features the kernels may use (a mask of the
/// internal feature bits; `0` forces the portable kernels). Not public API:
/// benchmarks use it to measure each variant through the public functions.
#[doc(hidden)]
pub use dispatch::limit_features as __limit_features;

/// `f()`, compiled with AVX2 where `dispatch::features()` reports it (so
/// `__limit_features` holds), else as it is: how the portable loops of the
/// reductions and the mapped encode/decode paths get their AVX2 builds
/// without a `#[target_feature]` of their own.
#[inline(always)]
pub(crate) fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
    // SAFETY: `have` is `dispatch::features()` itself.
    unsafe { with_avx2_in(dispatch::features(), f) }
}

pub(crate) use dispatch::with_avx2_in;

/// How far ahead of a loop over its input [`prefetch_ahead`] asks for a
/// line. Where the input comes from memory, the hardware's prefetchers stop
/// at each 4 KiB page and a loop waits there; a few software prefetches
/// well ahead cover the page crossings, and more of them hold the core's
/// few outstanding misses. Measured on AMD Zen 4 with 16 Mi `f32` values
/// (64 MiB), one line in sixteen ([`prefetch_per_kib`]): the NVFP4 tensor
/// amax (a read and an integer max) 2.2 ms, 2.9 ms with none and 3.3 ms
/// with one line in four; the NVFP4 quantize with a given tensor scale
/// 5.35 ms, 6.33 ms with one line in four, 10.3 ms with none and 7.9 ms
/// with one line in one or two; the E2M1 encode 3.62 ms, 4.24 ms with
/// none. 16, 32 and 64 KiB ahead measured within noise of each other.
#[cfg(feature = "alloc")]
pub(crate) const PREFETCH_AHEAD: usize = 64 << 10;

/// Asks for the line [`PREFETCH_AHEAD`] bytes past `p` (x86-64:
/// `prefetcht0`; elsewhere nothing). A prefetch reads nothing and faults
/// on no address, so one past the end of the input is harmless.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn prefetch_ahead(p: *const u8) {
    prefetch_line(p.wrapping_add(PREFETCH_AHEAD));
}

/// Asks for the line at `p` (x86-64: `prefetcht0`; elsewhere nothing):
/// the one body of [`prefetch_ahead`] and [`prefetch_near`], whose
/// addresses, formed with `wrapping_add`, may lie past the input.
#[cfg(feature = "alloc")]
#[inline(always)]
fn prefetch_line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: every x86-64 CPU has SSE (`prefetcht0`); a prefetch
        // dereferences nothing, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// How far ahead of the loads of [`in_groups`]'s partial maxima
/// [`prefetch_near`] asks for a line: every line, 3 KiB ahead (the frame's
/// steps read the same values 4 KiB later). Where the input comes from
/// memory, the far prefetch of one line in sixteen ([`PREFETCH_AHEAD`])
/// brings the pages on, and this one each line into the first-level cache
/// before the loop's compares wait on it. Measured on AMD Zen 4 with 16 Mi
/// `f32` values, the NVFP4 quantize with a given tensor scale (AVX-512):
/// 4.4 ms against 5.45 ms without it, 4.45-4.5 ms at 2 KiB ahead, 4.65-4.7
/// at 4 KiB, 4.8 at 6 KiB, and 6.4-6.7 ms with it and no far prefetch;
/// every other line alone, 8.3-8.5 ms. In cache, no change. The same near
/// prefetch measured no gain in the MX quantize and a loss in the tensor
/// amax (3.0 against 2.3 ms), whose loops wait on memory alone.
#[cfg(feature = "alloc")]
pub(crate) const PREFETCH_NEAR: usize = 3 << 10;

/// Asks for the line [`PREFETCH_NEAR`] bytes past `p` (x86-64:
/// `prefetcht0`; elsewhere nothing), as [`prefetch_ahead`] does.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn prefetch_near(p: *const u8) {
    prefetch_line(p.wrapping_add(PREFETCH_NEAR));
}

/// Whether a step of `step` bytes at address `addr`, in a contiguous run
/// of them, is the first of the run to start in its KiB (`step` at most
/// 1024): one step in `1024 / step` when `step` divides 1024. A test of
/// the address, not a count of steps, and not of its alignment alone:
/// that would never pass on data 16 bytes past a page, as a large
/// allocation is.
#[cfg(any(test, all(feature = "std", target_arch = "x86_64")))]
#[inline(always)]
pub(crate) const fn first_in_kib(addr: usize, step: usize) -> bool {
    addr % 1024 < step
}

/// [`prefetch_ahead`] for a step of `STEP` bytes at `p` of a loop over a
/// contiguous input, once per KiB of it ([`first_in_kib`]): one line in
/// sixteen, what the one-pass quantizes ask for.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn prefetch_per_kib<const STEP: usize>(p: *const u8) {
    const { assert!(STEP > 0 && 1024 % STEP == 0) };
    if first_in_kib(p as usize, STEP) {
        prefetch_ahead(p);
    }
}

/// Widens `binary16` bits to `f32` (exact; NaNs quieted, payloads kept)
/// by the CPU's variant (x86: F16C; `aarch64`: NEON's `fcvtl`; 8 values a
/// step), up to the last whole step; returns how many it converted (0
/// without a variant), the caller converts the rest.
#[cfg(feature = "half")]
#[inline]
pub(crate) fn widen_f16(src: &[u16], dst: &mut [f32]) -> usize {
    dispatch::widen_f16(src, dst)
}

/// The scale codes of the blocks of the one-pass NVFP4 quantize
/// ([`nvfp4_blocks`]), a group at a time, and the compares that give their
/// codes: per scale code a row of seven thresholds (as `i32`s; a
/// magnitude's code counts those its bits exceed, and one that none passes
/// is `i32::MAX`) and the sign mask (`i32::MIN`, the sign bit, keeps a
/// value's sign as bit 3 of its code, 0 drops it: one AND, or one
/// `vptestmd`, of the value's bits). A row's thresholds never decrease:
/// the x86 variants find the count by binary search (three compares, not
/// seven). A trait, not a closure, so that the `#[inline(always)]` method
/// compiles into the kernels' `#[target_feature]` loops.
#[cfg(feature = "alloc")]
pub(crate) trait BlockCode {
    /// The blocks of a group (`scales.len()` of them, the rest of
    /// `amax_bits` to be ignored): block `b`'s scale code into `scales[b]`
    /// from its largest magnitude's bits `amax_bits[b]` (or, for an
    /// implementation whose scales are given, read from `scales[b]`), and
    /// the table whose row `scales[b]` is `[t0..t6, sign mask]` for block
    /// `b`. The kernels read the rows in place: a row is 32 bytes
    /// that a copy per block would store and the compares load back.
    fn codes(&mut self, amax_bits: &[u32; NVFP4_GROUP], scales: &mut [u8]) -> &Rows;
}

/// The threshold rows of [`BlockCode`], one per scale code (a code and
/// the code with its sign bit flipped have equal rows: the sign of a scale
/// is ignored). 256 rows, so that a code indexes them as it is.
#[cfg(feature = "alloc")]
pub(crate) type Rows = [[i32; 8]; 256];

/// The row of scale code `s` in `rows`.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn row(rows: &Rows, s: u8) -> &[i32; 8] {
    &rows[usize::from(s)]
}

/// Blocks per group of [`in_groups`].
#[cfg(feature = "alloc")]
pub(crate) const NVFP4_GROUP: usize = 32;
#[cfg(feature = "alloc")]
use NVFP4_GROUP as GROUP;

/// The frame of every [`nvfp4_blocks`] variant, a group of 32 blocks at a
/// time, as a pipeline three groups deep. At group `g`:
///
/// - the next group's amaxes from its blocks' partial maxima (`reduce`,
///   vector where the variant reduces many blocks at once), then their
///   scale codes and threshold rows (`code.codes`, the scales as one vector
///   loop where the implementation has it);
/// - group `g`'s codes, `PER` blocks a step (`step(blocks, scales, rows,
///   words)`, vector: the blocks' scale codes, whose rows in `rows`
///   ([`row`]) hold their thresholds, and their words), each step followed
///   by the partial maxima (`part`, vector) of the same blocks two groups
///   on.
///
/// So the loads of a later group's values, which reach memory, overlap
/// this group's compares, which the cache serves (a loop of amaxes alone
/// waits on memory while the compares wait on nothing), and the next
/// group's chain of amax tree, scales and rows overlaps this group's steps
/// rather than holding them up: one group ahead, the NVFP4 quantize took
/// 0.94x the time in cache. Each block's partial maxima first asks for the
/// line [`PREFETCH_NEAR`] bytes on ([`prefetch_near`]).
///
/// Every step takes `PER` whole blocks, with no length to check: a last
/// partial group is copied into a group of zeros first (whose scale codes
/// are 0 and whose rows are read but not kept), and its scales and words
/// copied back.
#[cfg(feature = "alloc")]
#[inline(always)]
#[expect(clippy::too_many_arguments, reason = "the frame's closures")]
pub(crate) fn in_groups<V: Copy, const PER: usize>(
    xs: &[f32],
    scales: &mut [u8],
    words: &mut [u64],
    code: &mut impl BlockCode,
    zero: V,
    mut part: impl FnMut(&[f32; 16]) -> V,
    mut reduce: impl FnMut(&[V; GROUP]) -> [u32; GROUP],
    mut step: impl FnMut(&[[f32; 16]; PER], &[u8; PER], &Rows, &mut [u64; PER]),
) {
    const { assert!(PER > 0 && GROUP.is_multiple_of(PER)) };
    let (blocks, _) = xs.as_chunks::<16>();
    let (groups, tail) = blocks.as_chunks::<GROUP>();
    let (scale_groups, scale_tail) = scales.as_chunks_mut::<GROUP>();
    let (word_groups, word_tail) = words.as_chunks_mut::<GROUP>();
    let n = groups.len();
    // The partial maxima of two groups, by the group's parity: swapping
    // them would copy both arrays a group.
    let mut parts = [[zero; GROUP]; 2];
    let mut fill = |p: &mut [V; GROUP], blocks: &[[f32; 16]; GROUP]| {
        for (p, block) in p.iter_mut().zip(blocks) {
            *p = part(block);
        }
    };
    if n > 0 {
        fill(&mut parts[0], &groups[0]);
        code.codes(&reduce(&parts[0]), &mut scale_groups[0]);
    }
    if n > 1 {
        fill(&mut parts[1], &groups[1]);
    }
    for g in 0..n {
        // The scales of the next group, one group ahead: its chain (the
        // amax tree, the scales, the rows) overlaps this group's steps
        // rather than holding them up.
        let rows = match scale_groups.get_mut(g + 1) {
            Some(s) => code.codes(&reduce(&parts[(g + 1) % 2]), s),
            // The last whole group: the table alone (no block's scale).
            None => code.codes(&[0; GROUP], &mut []),
        };
        let here = groups[g].as_chunks::<PER>().0;
        let scales = scale_groups[g].as_chunks::<PER>().0;
        let words = word_groups[g].as_chunks_mut::<PER>().0;
        // Each step followed by the partial maxima of the same blocks two
        // groups on, into the slot this group's maxima left.
        match groups.get(g + 2) {
            Some(ahead) => {
                let ahead = ahead.as_chunks::<PER>().0;
                let next = parts[g % 2].as_chunks_mut::<PER>().0;
                for ((((x, s), w), a), n) in here.iter().zip(scales).zip(words).zip(ahead).zip(next)
                {
                    step(x, s, rows, w);
                    for (n, block) in n.iter_mut().zip(a) {
                        prefetch_near(block.as_ptr().cast());
                        *n = part(block);
                    }
                }
            }
            None => {
                for ((x, s), w) in here.iter().zip(scales).zip(words) {
                    step(x, s, rows, w);
                }
            }
        }
    }
    let k = tail.len();
    if k == 0 {
        return;
    }
    let mut x = [[0f32; 16]; GROUP];
    let (mut s, mut w) = ([0u8; GROUP], [0u64; GROUP]);
    x[..k].copy_from_slice(tail);
    s[..k].copy_from_slice(scale_tail);
    let p = &mut parts[0];
    for (p, block) in p.iter_mut().zip(&x[..k]) {
        *p = part(block);
    }
    let rows = code.codes(&reduce(p), &mut s[..k]);
    let steps = k.div_ceil(PER);
    let x = x.as_chunks::<PER>().0;
    let (sc, wd) = (s.as_chunks::<PER>().0, w.as_chunks_mut::<PER>().0);
    for ((x, s), w) in x.iter().zip(sc).zip(wd).take(steps) {
        step(x, s, rows, w);
    }
    scale_tail.copy_from_slice(&s[..k]);
    word_tail.copy_from_slice(&w[..k]);
}

/// The one-pass NVFP4 quantize of whole blocks of 16 `f32` values (`xs`,
/// `16 * words.len()` of them): for block `b`, the largest magnitude's bits
/// `m` (an integer max of `bits & 0x7fff_ffff`, NaN above infinity), then
/// `scales[b]` and the block's thresholds `t` from `code.codes`, and
/// `words[b]` = the block's 16 E2M1 codes as nibbles, value 0 in the low
/// nibble ([`BlockCode`] says what `t` means).
///
/// The AVX-512 (F and BW) or AVX2 variant where the CPU has it
/// (`kernels/x86/block.rs`), the NEON one on `aarch64`
/// (`kernels/aarch64/block.rs`), else the portable loop.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn nvfp4_blocks(
    xs: &[f32],
    scales: &mut [u8],
    words: &mut [u64],
    code: &mut impl BlockCode,
) {
    debug_assert_eq!(xs.len(), 16 * words.len());
    debug_assert_eq!(scales.len(), words.len());
    if !dispatch::block::nvfp4(xs, scales, words, code) {
        nvfp4_blocks_portable(xs, scales, words, code);
    }
}

/// The dequantize of E2M1 codes in blocks (MX and NVFP4): `words` holds
/// the codes (16 per word, value 0 in the low nibble), block `b` is the
/// `per_block` words from `b * per_block` on and its values the
/// `16 * per_block` of `out` from `b * 16 * per_block` on; a value is `(v *
/// lut[scales[b]]) * post`, `v` its code's value (0, ±0.5, ±1, ±1.5, ±2,
/// ±3, ±4 or ±6): the product the decode and the scale pass compute (the
/// portable, AVX-512 and NEON loops from two tables of eight products, one
/// per sign, per block; the AVX2 one by the plain decode's nibble tables
/// and two multiplies). Which NaN a
/// product that is NaN gives, Rust leaves open (and the compiler may fold
/// a negation through a product), so only a NaN's being NaN is promised.
///
/// The AVX-512 or AVX2 variant where the CPU has it
/// (`kernels/x86/block.rs`), the NEON one on `aarch64`
/// (`kernels/aarch64/block.rs`), else the portable loop.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn e2m1_scaled_blocks(
    words: &[u64],
    out: &mut [f32],
    per_block: usize,
    scales: &[u8],
    lut: &[f32; 256],
    post: f32,
) {
    debug_assert_eq!(out.len(), 16 * words.len());
    debug_assert_eq!(words.len(), per_block * scales.len());
    if !dispatch::block::e2m1_scaled(words, out, per_block, scales, lut, post) {
        e2m1_scaled_blocks_portable(words, out, per_block, scales, lut, post);
    }
}

/// Whether [`scaled8_blocks`] serves `F` in blocks of `block` values on
/// this CPU: it takes them ([`scaled8_takes`]) and the CPU has a variant
/// (x86: AVX2 and F16C; `aarch64`: NEON).
#[cfg(feature = "alloc")]
pub(crate) fn scaled8_serves<F: crate::float::MiniFloat>(block: usize) -> bool {
    scaled8_takes::<F>(block) && dispatch::block::scaled8_ok()
}

/// Whether [`scaled8_blocks`] takes `F` in blocks of `block` values at all
/// (a CPU aside): an 8-bit format the F16C decode takes (`elem::f16_ok`,
/// which implies the `decode_fast_ok` of the NEON decode), blocks of whole
/// 16-value steps.
#[cfg(feature = "alloc")]
pub(crate) fn scaled8_takes<F: crate::float::MiniFloat>(block: usize) -> bool {
    let format = const { crate::float::elem::f16_ok(&F::FORMAT) && F::FORMAT.bits() == 8 };
    format && block.is_multiple_of(16) && block > 0
}

/// The dequantize of 8-bit codes of `F` in blocks of `block` values
/// (`codes` and `out` hold whole blocks): each value is its code's value
/// times `lut[scales[b]]`, its block's factor, as the decode and a scale
/// pass over its output compute it, in one pass (x86: the table decode
/// with AVX-512 VBMI, `decode_table_scaled_avx512`, else the AVX2 nibble
/// tables, `decode_split_scaled_avx2`, where they fit the format (E4M3 and
/// E5M2 among them), else the F16C one, `decode_f16c_scaled`, all in
/// `x86/float.rs`; `aarch64`: the NEON
/// decode and a multiply, `scaled8_blocks_neon` in `aarch64/block.rs`).
///
/// # Panics
///
/// Unless [`scaled8_takes`] (the caller checks [`scaled8_serves`]), and on
/// x86 where the CPU lacks AVX2 or F16C. On `aarch64`, as in
/// [`mx_blocks`], a feature mask changed since the caller asked cannot
/// make it panic.
#[cfg(feature = "alloc")]
pub(crate) fn scaled8_blocks<F: crate::float::MiniFloat>(
    codes: &[u8],
    out: &mut [f32],
    block: usize,
    scales: &[u8],
    lut: &[f32; 256],
) {
    assert!(
        scaled8_takes::<F>(block),
        "the caller checks scaled8_serves"
    );
    const CHUNK: usize = 64;
    let mut factors = [0f32; CHUNK];
    for ((c, o), s) in codes
        .chunks(CHUNK * block)
        .zip(out.chunks_mut(CHUNK * block))
        .zip(scales.chunks(CHUNK))
    {
        let f = &mut factors[..s.len()];
        for (f, &s) in f.iter_mut().zip(s) {
            *f = lut[usize::from(s)];
        }
        dispatch::block::scaled8::<F>(c, o, f, block / 16);
    }
}

/// The magnitudes of the E2M1 codes 0 to 7 (codes 8 to 15 are their
/// negatives), the table [`e2m1_scaled_blocks`] and its variants scale.
#[cfg(feature = "alloc")]
pub(crate) const E2M1_MAGS: [f32; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];

/// The portable loop of [`e2m1_scaled_blocks`].
#[cfg(feature = "alloc")]
pub(crate) fn e2m1_scaled_blocks_portable(
    words: &[u64],
    out: &mut [f32],
    per_block: usize,
    scales: &[u8],
    lut: &[f32; 256],
    post: f32,
) {
    let table = |f: f32| {
        let pos = E2M1_MAGS.map(|m| (m * f) * post);
        let neg = E2M1_MAGS.map(|m| (-m * f) * post);
        (pos, neg)
    };
    let word = |(pos, neg): &([f32; 8], [f32; 8]), w: u64, o: &mut [f32]| {
        for (i, o) in o.iter_mut().enumerate() {
            let c = (w >> (4 * i)) as usize & 15;
            *o = if c & 8 == 0 { pos[c & 7] } else { neg[c & 7] };
        }
    };
    scaled_blocks(words, out, per_block, scales, lut, table, word);
}

/// The frame of every [`e2m1_scaled_blocks`] variant: for block `b`, its
/// tables from its factor (`table(lut[scales[b]])`), then each of its
/// words with the 16 values it decodes to (`word(&tables, w, out16)`).
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn scaled_blocks<T>(
    words: &[u64],
    out: &mut [f32],
    per_block: usize,
    scales: &[u8],
    lut: &[f32; 256],
    mut table: impl FnMut(f32) -> T,
    mut word: impl FnMut(&T, u64, &mut [f32]),
) {
    for ((ws, os), &s) in words
        .chunks_exact(per_block)
        .zip(out.chunks_exact_mut(16 * per_block))
        .zip(scales)
    {
        let t = table(lut[usize::from(s)]);
        for (&w, o) in ws.iter().zip(os.chunks_exact_mut(16)) {
            word(&t, w, o);
        }
    }
}

/// The portable loop of [`nvfp4_blocks`] (the reference of its variants).
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn nvfp4_blocks_portable(
    xs: &[f32],
    scales: &mut [u8],
    words: &mut [u64],
    code: &mut impl BlockCode,
) {
    let abs =
        |block: &[f32]| -> [u32; 16] { core::array::from_fn(|i| block[i].to_bits() & 0x7fff_ffff) };
    in_groups::<_, 1>(
        xs,
        scales,
        words,
        code,
        0u32,
        |block| abs(block).iter().copied().max().unwrap_or(0),
        |m| *m,
        |[block], &[s], rows, [w]| {
            let t = row(rows, s);
            let mut word = 0u64;
            for (i, (&a, x)) in abs(block).iter().zip(block).enumerate() {
                let n: u32 = t[..7].iter().map(|&tk| u32::from(a as i32 > tk)).sum();
                let c = n | ((x.to_bits() & t[7] as u32) >> 28);
                word |= u64::from(c) << (4 * i);
            }
            *w = word;
        },
    );
}

/// How the one-pass MX quantize ([`mx_blocks`]) turns a block's largest
/// magnitude into its scale: for amax bits `a` below infinity's, the E8M0
/// code `c = max(((a + add) >> 23) - emax, 0)` and the factor `2^(127 -
/// c)` (bits `(254 - c) << 23`) the block's values are multiplied by; a
/// block whose amax is infinite or NaN has none (the caller's general path
/// writes the NaN scale). The formula needs `emax >= 2` (so `c <= 253`);
/// `formats::block` gives the `add` and `emax` of each scale rule and
/// proves them equal to its scales.
#[cfg(feature = "alloc")]
#[cfg_attr(
    not(simd_variants),
    allow(dead_code, reason = "read by the SIMD variants and the tests")
)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct MxScaleBits {
    /// Added to the amax bits before the exponent field is read (the
    /// rule's rounding of the exponent).
    pub(crate) add: u32,
    /// Subtracted from the exponent field (the element format's largest
    /// exponent, plus nothing: the bias of E8M0 and of `f32` are equal).
    pub(crate) emax: u32,
}

#[cfg(feature = "alloc")]
impl MxScaleBits {
    /// The scale code and factor of a block whose amax has the bits `a`,
    /// one block at a time (the portable loop and the tests' reference).
    #[cfg(test)]
    #[inline(always)]
    pub(crate) fn scale(self, a: u32) -> Option<(u8, f32)> {
        if a >= 0x7f80_0000 {
            return None;
        }
        let c = (((a + self.add) >> 23) as i32 - self.emax as i32).max(0) as u32;
        Some((c as u8, f32::from_bits((254 - c) << 23)))
    }
}

/// Blocks per group of [`mx_groups`]: 512 values.
#[cfg(feature = "alloc")]
#[cfg_attr(
    not(simd_variants),
    allow(dead_code, reason = "read by the SIMD variants and the tests")
)]
pub(crate) const MX_GROUP: usize = 16;

/// Whether [`mx_blocks`] serves `F` on this CPU: a format of 4, 6 or 8
/// bits that the branch-free encode covers, and a SIMD variant the CPU
/// runs (AVX2 or AVX-512 on `x86_64`, NEON on `aarch64`).
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn mx_blocks_serve<F: crate::float::MiniFloat>() -> bool {
    mx_blocks_format::<F>() && dispatch::block::mx_ok()
}

/// Whether [`mx_blocks`] takes `F` at all (a CPU aside).
#[cfg(feature = "alloc")]
pub(crate) const fn mx_blocks_format<F: crate::float::MiniFloat>() -> bool {
    crate::float::elem::encode_fast_ok(&F::FORMAT) && matches!(F::FORMAT.bits(), 4 | 6 | 8)
}

/// The one-pass MX quantize of whole blocks of 32 `f32` values (`xs`, `32 *
/// scales.len()` of them): for block `b`, the largest magnitude's bits `a`
/// (an integer max of `bits & 0x7fff_ffff`, NaN above infinity), its scale
/// code `scales[b]` and factor `f` from `a` by `rule`
/// ([`MxScaleBits::scale`]), and its codes, each value `x` encoded as `x *
/// f` to nearest (saturating), written to `out` as the dense stream's
/// bytes: one per code for 8-bit formats, nibble pairs (value `2i` in the
/// low nibble of byte `i`) for 4-bit ones, four codes in three bytes for
/// 6-bit ones (value `i` at bit `6i`). `out` holds `xs.len() * BITS / 8`
/// bytes.
///
/// `false` where a block has no scale (its amax is infinite or NaN): the
/// groups of [`MX_GROUP`] blocks before its group are written, the rest of
/// `scales` and `out` is unspecified (the caller's general path writes it
/// all again).
///
/// The AVX-512 (F and BW) or AVX2 variant (`kernels/x86/block.rs`), or
/// the NEON one (`kernels/aarch64/block.rs`).
///
/// # Panics
///
/// Unless [`mx_blocks_serve`] says it serves `F` (the portable loop,
/// `mx_blocks_portable`, is the variants' reference in the tests, not a
/// fallback: a CPU without them keeps the general path's vector encode).
/// The format is checked here and the CPU where the variant is chosen
/// (`dispatch::block::mx`), which on `aarch64` runs NEON, its baseline,
/// even where the feature mask changed since the caller asked.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn mx_blocks<F: crate::float::MiniFloat>(
    xs: &[f32],
    scales: &mut [u8],
    out: &mut [u8],
    rule: MxScaleBits,
) -> bool {
    assert!(mx_blocks_format::<F>(), "the caller checks mx_blocks_serve");
    debug_assert_eq!(xs.len(), 32 * scales.len());
    debug_assert_eq!(out.len(), xs.len() * F::BITS as usize / 8);
    debug_assert!(rule.emax >= 2);
    dispatch::block::mx::<F>(xs, scales, out, rule)
}

/// The frame of every [`mx_blocks`] variant, a group of [`MX_GROUP`]
/// blocks at a time: the group's scale codes and factors from its blocks'
/// partial maxima (`group`, vector: the maxima reduced and the scales
/// computed for the whole group at once; `None` where a block has no
/// scale), then its codes, `per` blocks a step (`step(values, factors,
/// out)`, vector: `values` holds `32 * k` values of `k <= per` blocks,
/// `factors` their `k` factors, `out` their `4 * k * bits` bytes, `bits`
/// the format's width), each step followed by the partial maxima (`part`,
/// vector) of the same blocks of the next group. So the loads of the next
/// group's values, which reach memory, overlap the encode of this group's,
/// which the cache serves (a loop of amaxes alone waits on memory while the
/// encode waits on nothing). A partial group's missing blocks are `zero`.
#[cfg(feature = "alloc")]
#[cfg_attr(
    not(simd_variants),
    allow(dead_code, reason = "read by the SIMD variants and the tests")
)]
#[inline(always)]
#[expect(clippy::too_many_arguments, reason = "the frame's closures")]
pub(crate) fn mx_groups<V: Copy>(
    xs: &[f32],
    scales: &mut [u8],
    out: &mut [u8],
    (bits, per): (usize, usize),
    zero: V,
    mut part: impl FnMut(&[f32]) -> V,
    mut group: impl FnMut(&[V; MX_GROUP]) -> Option<([u8; MX_GROUP], [f32; MX_GROUP])>,
    mut step: impl FnMut(&[f32], &[f32], &mut [u8]),
) -> bool {
    const G: usize = MX_GROUP;
    let block_bytes = 4 * bits;
    let (mut p, mut next) = ([zero; G], [zero; G]);
    for (p, block) in p.iter_mut().zip(xs.chunks_exact(32)) {
        *p = part(block);
    }
    for (g, (scales, out)) in scales
        .chunks_mut(G)
        .zip(out.chunks_mut(block_bytes * G))
        .enumerate()
    {
        let Some((codes, f)) = group(&p) else {
            return false;
        };
        scales.copy_from_slice(&codes[..scales.len()]);
        let here = &xs[32 * G * g..][..32 * scales.len()];
        // The next group's values: none after the last group, and where
        // there are some this group is whole, `G / per` steps.
        let ahead = xs.get(32 * G * (g + 1)..).unwrap_or(&[]);
        if ahead.len() < 32 * G {
            next = [zero; G];
        }
        let f = &f[..scales.len()];
        for (k, ((x, f), o)) in here
            .chunks(32 * per)
            .zip(f.chunks(per))
            .zip(out.chunks_mut(block_bytes * per))
            .enumerate()
        {
            step(x, f, o);
            let blocks = ahead.chunks_exact(32).skip(per * k);
            for (next, block) in next[per * k..per * k + per].iter_mut().zip(blocks) {
                *next = part(block);
            }
        }
        core::mem::swap(&mut p, &mut next);
    }
    true
}

/// The portable loop of [`mx_blocks`] (the reference of its variants, in
/// the tests): [`encode_fast`](crate::float::elem::encode_fast) of each
/// product.
#[cfg(all(feature = "alloc", test))]
pub(crate) fn mx_blocks_portable<F: crate::float::MiniFloat>(
    xs: &[f32],
    scales: &mut [u8],
    out: &mut [u8],
    rule: MxScaleBits,
) -> bool {
    assert!(mx_blocks_format::<F>(), "a format mx_blocks takes");
    let bits = F::BITS as usize;
    let part = |block: &[f32]| {
        let abs = block.iter().map(|x| x.to_bits() & 0x7fff_ffff);
        abs.max().unwrap_or(0)
    };
    let group = |m: &[u32; MX_GROUP]| {
        let (mut codes, mut f) = ([0u8; MX_GROUP], [0f32; MX_GROUP]);
        for ((c, f), &m) in codes.iter_mut().zip(&mut f).zip(m) {
            (*c, *f) = rule.scale(m)?;
        }
        Some((codes, f))
    };
    let step = |x: &[f32], f: &[f32], o: &mut [u8]| {
        let c = |i: usize| crate::float::elem::encode_fast::<F, true>(x[i] * f[i / 32]);
        if bits == 8 {
            for (i, o) in o.iter_mut().enumerate() {
                *o = c(i);
            }
        } else if bits == 6 {
            // Four codes in three bytes, the first in the low bits.
            for (i, o) in o.chunks_exact_mut(3).enumerate() {
                let v = (0..4).fold(0u32, |v, k| v | u32::from(c(4 * i + k) & 63) << (6 * k));
                o.copy_from_slice(&v.to_le_bytes()[..3]);
            }
        } else {
            for (i, o) in o.iter_mut().enumerate() {
                *o = (c(2 * i) & 15) | (c(2 * i + 1) & 15) << 4;
            }
        }
    };
    mx_groups(xs, scales, out, (bits, 1), 0, part, group, step)
}

/// 64-bit words holding `len` values of `width` bits: `ceil(len * width / 64)`
/// (saturating at `usize::MAX`).
///
/// # Examples
///
/// ```
/// assert_eq!(bitpack::kernels::words_for(5, 13), 2); // 65 bits
/// assert_eq!(bitpack::kernels::words_for(1, 64), 1);
/// ```
pub const fn words_for(width: u32, len: usize) -> usize {
    let bits = len as u128 * width as u128;
    let words = bits.div_ceil(64);
    if words > usize::MAX as u128 {
        usize::MAX
    } else {
        words as usize
    }
}

fn check_width(width: u32, max: u32) -> Result<()> {
    if width == 0 || width > max {
        return Err(Error::Width { width, max });
    }
    Ok(())
}

fn check_words(width: u32, offset: usize, len: usize, actual: usize) -> Result<()> {
    let end = offset as u128 + len as u128;
    let needed = (end * width as u128).div_ceil(64);
    if needed > actual as u128 {
        let needed = if needed > usize::MAX as u128 {
            usize::MAX
        } else {
            needed as usize
        };
        return Err(Error::TooFewWords { needed, actual });
    }
    Ok(())
}

/// `match U::BITS` with one arm per lane type, `$run!(TABLE, type)` in
/// each: the kernel tables of `u8`, `u16`, `u32`, `u64` and `u128`, in that
/// order.
macro_rules! per_lane {
    ($run:ident; $t8:ident $t16:ident $t32:ident $t64:ident $t128:ident) => {
        match U::BITS {
            8 => $run!($t8, u8),
            16 => $run!($t16, u16),
            32 => $run!($t32, u32),
            64 => $run!($t64, u64),
            _ => $run!($t128, u128),
        }
    };
}

/// Unpacks `dst.len()` values of `width` bits, starting at value `offset` of
/// the stream `words`, into `dst`.
///
/// The stream is dense and LSB-first: value `i` sits at bits
/// `[i * width, (i + 1) * width)`, bit `k` being bit `k % 64` of
/// `u64::from_le(words[k / 64])` (the words hold the stream's bytes, as
/// [`NarrowArray::as_words`](crate::NarrowArray::as_words) does; on
/// little-endian targets a word's value is its 64 stream bits). `width` may be `1..=U::BITS` (`1..=128` for `u128`).
/// One variant of the kernel is picked per call for the width (see the
/// module docs); no allocation.
///
/// # Errors
///
/// [`Error::Width`] when `width` is 0 or wider than `U`,
/// [`Error::TooFewWords`] when the stream ends before value
/// `offset + dst.len()`. `dst` is unchanged then.
///
/// # Examples
///
/// ```
/// use bitpack::kernels;
///
/// // Three 5-bit values, 1, 2 and 31, packed LSB-first.
/// let words = [(1u64 | 2 << 5 | 31 << 10).to_le()];
/// let mut out = [0u8; 2];
/// kernels::unpack(5, &words, 1, &mut out)?;
/// assert_eq!(out, [2, 31]);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn unpack<U: Unsigned>(width: u32, words: &[u64], offset: usize, dst: &mut [U]) -> Result<()> {
    check_width(width, U::BITS)?;
    check_words(width, offset, dst.len(), words.len())?;
    macro_rules! run {
        ($table:ident, $t:ty) => {
            select!($table[width](w: &[u64], o: usize, d: &mut [$t]))(
                words,
                offset,
                bytemuck::cast_slice_mut(dst),
            )
        };
    }
    per_lane!(run; UNPACK_U8 UNPACK_U16 UNPACK_U32 UNPACK_U64 UNPACK_U128);
    Ok(())
}

/// Packs `src` as values of `width` bits into the stream `words`, starting at
/// value `offset`.
///
/// Bits of each value above `width` are ignored (as
/// [`from_raw_bits`](crate::BitElement::from_raw_bits) ignores them); every
/// stream bit outside values `offset..offset + src.len()` is left as it was,
/// so packing into the middle of a stream keeps its neighbours and its zero
/// padding. `width` may be `1..=U::BITS` (`1..=128` for `u128`).
///
/// # Errors
///
/// [`Error::Width`] when `width` is 0 or wider than `U`,
/// [`Error::TooFewWords`] when the stream ends before value
/// `offset + src.len()`. `words` is unchanged then.
///
/// # Examples
///
/// ```
/// use bitpack::kernels;
///
/// let mut words = [0u64; 1];
/// kernels::pack(5, &[1u8, 2, 31], &mut words, 0)?;
/// assert_eq!(u64::from_le(words[0]), 1 | 2 << 5 | 31 << 10);
/// kernels::pack(5, &[0xFFu8], &mut words, 1)?; // only the low 5 bits are kept
/// assert_eq!(u64::from_le(words[0]), 1 | 31 << 5 | 31 << 10);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn pack<U: Unsigned>(width: u32, src: &[U], words: &mut [u64], offset: usize) -> Result<()> {
    check_width(width, U::BITS)?;
    check_words(width, offset, src.len(), words.len())?;
    macro_rules! run {
        ($table:ident, $t:ty) => {
            select!($table[width](s: &[$t], w: &mut [u64], o: usize))(
                bytemuck::cast_slice(src),
                words,
                offset,
            )
        };
    }
    per_lane!(run; PACK_U8 PACK_U16 PACK_U32 PACK_U64 PACK_U128);
    Ok(())
}

/// The sum of `len` values of `width` bits (`1..=64`) from value `offset` of
/// the stream, exact, as a `u128`.
///
/// No value is decoded into memory: one bit by population count, 2..=32 bits
/// by in-word digit folding, wider by word extraction (see the module docs).
/// The result is a `u128` because `len` values of up to 64 bits can exceed
/// `u64::MAX`; for `width <= 32` and fewer than `2^32` values it always fits
/// a `u64`.
///
/// # Errors
///
/// [`Error::Width`] when `width` is not in `1..=64`, [`Error::TooFewWords`]
/// when the stream ends before value `offset + len`.
///
/// # Examples
///
/// ```
/// use bitpack::kernels;
///
/// let words = [(1u64 | 2 << 5 | 31 << 10).to_le()];
/// assert_eq!(kernels::sum(5, &words, 0, 3)?, 34);
/// assert_eq!(kernels::sum(5, &words, 1, 2)?, 33);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn sum(width: u32, words: &[u64], offset: usize, len: usize) -> Result<u128> {
    Sum::for_width(width)?.run(words, offset, len)
}

/// A SIMD sum variant: `(words, first value, count) -> sum`.
#[allow(dead_code, reason = "only the builds with a SIMD target use it")]
type SimdSum = unsafe fn(&[u64], usize, usize) -> u128;

/// The [`sum`] kernel chosen once for one width ([`Sum::for_width`], or
/// [`Sum::of`] for a width known at compile time): the portable
/// instantiation and the SIMD variant the CPU allows, if any, so that a
/// caller summing many runs of one width chooses once, not per run.
#[derive(Clone, Copy)]
pub(crate) struct Sum {
    width: u32,
    portable: tables::SumFn,
    #[cfg(simd_variants)]
    simd: Option<SimdSum>,
}

impl Sum {
    /// The kernel for a run-time `width`.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] when `width` is not in `1..=64`.
    pub(crate) fn for_width(width: u32) -> Result<Sum> {
        check_width(width, 64)?;
        Ok(Sum::with(width, tables::SUM[width as usize - 1]))
    }

    /// The kernel for the width `W` (`1..=64`), without a width table.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    #[inline]
    pub(crate) fn of<const W: u32>() -> Sum {
        const { assert!(W >= 1 && W <= 64, "sum widths are 1..=64") };
        Sum::with(W, scalar::sum::<W>)
    }

    #[inline]
    fn with(width: u32, portable: tables::SumFn) -> Sum {
        Sum {
            width,
            portable,
            #[cfg(simd_variants)]
            simd: dispatch::simd::SUM.get(width as usize),
        }
    }

    /// The sum of `len` values from value `offset` of the stream (see
    /// [`sum`]).
    ///
    /// # Errors
    ///
    /// [`Error::TooFewWords`] when the stream ends before value
    /// `offset + len`.
    #[inline]
    pub(crate) fn run(self, words: &[u64], offset: usize, len: usize) -> Result<u128> {
        check_words(self.width, offset, len, words.len())?;
        #[cfg(simd_variants)]
        if let Some(f) = self.simd {
            // SAFETY: `Table::get` returned it, so every CPU feature its
            // `#[target_feature]` enables is in `dispatch::features()`
            // (detected at run time, or baseline for NEON).
            return Ok(unsafe { f(words, offset, len) });
        }
        Ok((self.portable)(words, offset, len))
    }
}

/// Decodes `dst.len()` codes of `width` bits (`1..=16`), from value `offset`
/// of the stream, through `table`: `dst[i] = table[code(offset + i)]`.
///
/// This is the decode of a format by table (a 4-bit float through its 16
/// values, an 8-bit float through 256). Codes are unpacked a stack chunk at a
/// time by the width's unpack kernel; where a SIMD lookup exists for the
/// width and a 4-byte output (`f32`, `u32`, `i32`), it decodes in registers
/// (see the module docs).
///
/// # Errors
///
/// [`Error::Width`] when `width` is not in `1..=16`, [`Error::Length`] when
/// `table` has fewer than `2^width` entries, [`Error::TooFewWords`] when the
/// stream ends before value `offset + dst.len()`.
///
/// # Examples
///
/// ```
/// use bitpack::kernels;
///
/// // 2-bit codes 0, 1, 2, 3 mapped to quarter steps.
/// let table = [0.0f32, 0.25, 0.5, 0.75];
/// let words = [0b11_10_01_00u64.to_le()];
/// let mut out = [0.0f32; 4];
/// kernels::decode(2, &table, &words, 0, &mut out)?;
/// assert_eq!(out, [0.0, 0.25, 0.5, 0.75]);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn decode<O: bytemuck::Pod>(
    width: u32,
    table: &[O],
    words: &[u64],
    offset: usize,
    dst: &mut [O],
) -> Result<()> {
    check_width(width, 16)?;
    let entries = 1usize << width;
    if table.len() < entries {
        return Err(Error::Length {
            of: LengthOf::DecodeTable,
            expected: entries,
            actual: table.len(),
        });
    }
    check_words(width, offset, dst.len(), words.len())?;
    let table = &table[..entries];
    #[cfg(simd_variants)]
    if core::mem::size_of::<O>() == 4
        && core::mem::align_of::<O>() == 4
        && let Some(f) = dispatch::simd::DECODE_X32.get(width as usize)
    {
        let t32: &[u32] = bytemuck::cast_slice(table);
        let d32: &mut [u32] = bytemuck::cast_slice_mut(dst);
        // SAFETY: `Table::get` returns a function only when every CPU
        // feature its `#[target_feature]` enables is in `dispatch::features`
        // (detected at run time, or baseline for NEON), the only
        // precondition of calling it.
        unsafe { f(words, offset, t32, d32) };
        return Ok(());
    }
    decode_generic(width, words, offset, table, dst);
    Ok(())
}

fn decode_generic<O: Copy>(width: u32, words: &[u64], offset: usize, table: &[O], dst: &mut [O]) {
    if width <= 8 {
        let unpack = select!(UNPACK_U8[width](w: &[u64], o: usize, d: &mut [u8]));
        scalar::decode_chunks(unpack, words, offset, table, dst);
    } else {
        let unpack = select!(UNPACK_U16[width](w: &[u64], o: usize, d: &mut [u16]));
        scalar::decode_chunks(unpack, words, offset, table, dst);
    }
}

/// Decodes `dst.len()` codes of `width` bits (`1..=8`), from value `offset`
/// of the stream, through `f`: `dst[i] = f(code(offset + i))`.
///
/// The table-free counterpart of [`decode`]: `f` is a format's decoding
/// function (a branch-free one vectorizes), monomorphized into the loop,
/// which maps a stack chunk of codes unpacked by the width's kernel. Where
/// AVX2 is detected the loop is compiled for it.
///
/// # Errors
///
/// [`Error::Width`] when `width` is not in `1..=8`, [`Error::TooFewWords`]
/// when the stream ends before value `offset + dst.len()`. `dst` is
/// unchanged then.
///
/// # Examples
///
/// ```
/// use bitpack::kernels;
///
/// // 3-bit codes as signed magnitudes: bit 2 is the sign.
/// let words = [0b101_001u64.to_le()];
/// let mut out = [0i8; 2];
/// let f = |c: u8| if c & 4 != 0 { -((c & 3) as i8) } else { c as i8 };
/// kernels::decode_with(3, f, &words, 0, &mut out)?;
/// assert_eq!(out, [1, -1]);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn decode_with<O: Copy, F: Fn(u8) -> O>(
    width: u32,
    f: F,
    words: &[u64],
    offset: usize,
    dst: &mut [O],
) -> Result<()> {
    check_width(width, 8)?;
    check_words(width, offset, dst.len(), words.len())?;
    let unpack = select!(UNPACK_U8[width](w: &[u64], o: usize, d: &mut [u8]));
    // AVX2 lets a branch-free `f` vectorize 8 values at a time.
    let map = |c: &[u8], o: &mut [O]| scalar::map_values(&f, c, o);
    with_avx2(|| scalar::decode_map_chunks(unpack, map, words, offset, dst));
    Ok(())
}

/// Values converted per stack chunk by [`pack_map`] and [`unpack_map`].
#[cfg(feature = "alloc")]
const MAP_CHUNK: usize = 256;

/// Packs `src`, each value converted to its raw bits by `raw`, as values of
/// `width` bits (`width <= U::BITS`) from value `offset` of the stream: the
/// bulk path of `NarrowArray`. The width's kernel is chosen once; values are
/// converted a stack chunk at a time (the first chunk ends on a multiple of
/// 64 values, so the others start on block boundaries).
///
/// # Panics
///
/// When the stream is too short (the callers size it).
#[cfg(feature = "alloc")]
pub(crate) fn pack_map<T: Copy, U: Unsigned>(
    width: u32,
    src: &[T],
    raw: impl Fn(T) -> U,
    words: &mut [u64],
    offset: usize,
) {
    debug_assert!(check_width(width, U::BITS).is_ok());
    debug_assert!(check_words(width, offset, src.len(), words.len()).is_ok());
    macro_rules! run {
        ($table:ident, $t:ty) => {{
            let f = select!($table[width](s: &[$t], w: &mut [u64], o: usize));
            let mut buf = [U::ZERO; MAP_CHUNK];
            for (done, len) in scalar::chunk_ranges(offset, src.len(), MAP_CHUNK) {
                for (b, &v) in buf.iter_mut().zip(&src[done..done + len]) {
                    *b = raw(v);
                }
                f(bytemuck::cast_slice(&buf[..len]), words, offset + done);
            }
        }};
    }
    per_lane!(run; PACK_U8 PACK_U16 PACK_U32 PACK_U64 PACK_U128);
}

/// Unpacks `dst.len()` values of `width` bits (`width <= U::BITS`) from value
/// `offset` of the stream, each converted from its raw bits by `from`: the
/// bulk path of `NarrowArray` (see [`pack_map`]).
///
/// # Panics
///
/// When the stream is too short (the callers size it).
#[cfg(feature = "alloc")]
pub(crate) fn unpack_map<T, U: Unsigned>(
    width: u32,
    words: &[u64],
    offset: usize,
    dst: &mut [T],
    from: impl Fn(U) -> T,
) {
    debug_assert!(check_width(width, U::BITS).is_ok());
    debug_assert!(check_words(width, offset, dst.len(), words.len()).is_ok());
    macro_rules! run {
        ($table:ident, $t:ty) => {{
            let f = select!($table[width](w: &[u64], o: usize, d: &mut [$t]));
            let mut buf = [U::ZERO; MAP_CHUNK];
            for (done, len) in scalar::chunk_ranges(offset, dst.len(), MAP_CHUNK) {
                f(words, offset + done, bytemuck::cast_slice_mut(&mut buf[..len]));
                for (d, &b) in dst[done..done + len].iter_mut().zip(&buf[..len]) {
                    *d = from(b);
                }
            }
        }};
    }
    per_lane!(run; UNPACK_U8 UNPACK_U16 UNPACK_U32 UNPACK_U64 UNPACK_U128);
}

/// Encodes `src` through `f` into codes of `width` bits (`1..=8`) packed into
/// the stream from value `offset`.
///
/// `f` maps one value to its code (a format's `from_f32`, say); it is
/// monomorphized into the loop, which fills a stack chunk of codes that the
/// width's pack kernel then writes. Bits of a code above `width` are ignored;
/// stream bits outside the written values are unchanged.
///
/// # Errors
///
/// [`Error::Width`] when `width` is not in `1..=8`, [`Error::TooFewWords`]
/// when the stream ends before value `offset + src.len()`. `words` is
/// unchanged then.
///
/// # Examples
///
/// ```
/// use bitpack::kernels;
///
/// // Round to the nearest of four 2-bit levels 0, 1, 2, 3.
/// let mut words = [0u64; 1];
/// let levels = |x: f32| x.clamp(0.0, 3.0).round() as u8;
/// kernels::encode(2, &[0.2f32, 1.7, 9.0], levels, &mut words, 0)?;
/// assert_eq!(u64::from_le(words[0]), 0b11_10_00);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn encode<S: Copy, F: Fn(S) -> u8>(
    width: u32,
    src: &[S],
    f: F,
    words: &mut [u64],
    offset: usize,
) -> Result<()> {
    check_width(width, 8)?;
    check_words(width, offset, src.len(), words.len())?;
    let pack = select!(PACK_U8[width](s: &[u8], w: &mut [u64], o: usize));
    let map = |s: &[S], c: &mut [u8]| scalar::map_codes(&f, s, c);
    with_avx2(|| scalar::encode_chunks(map, pack, src, words, offset));
    Ok(())
}
