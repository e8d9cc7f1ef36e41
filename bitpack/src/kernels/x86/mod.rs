//! The x86 variants of the kernels (AVX2, BMI2, POPCNT, F16C, AVX-512),
//! selected at run time: this file holds the feature detection, the feature
//! bits and the tables that say which variant serves which width; the
//! kernels live in one file per family, AVX2 and AVX-512 twins side by side:
//!
//! - `simd.rs`: load, store and vector helpers (256- and 512-bit);
//! - `unpack.rs`: unpack to `u8` and `u32`, and the word-aligned layout;
//! - `pack.rs`: pack from `u8` and `u32`;
//! - `sum.rs`: sums;
//! - `float.rs`: the table decode to 4-byte values and the float encode and
//!   decode;
//! - `block.rs`: the one-pass NVFP4 block quantize (amax, scale, codes)
//!   and the scaled E2M1 decode of MX and NVFP4 blocks.
//!
//! Each variant is a `#[target_feature]` function generic over the width, so
//! it is as monomorphized as the portable kernel it replaces; it handles the
//! element-aligned middle of a call and hands the unaligned head and the tail
//! to the portable kernel. The order of preference in the tables comes from
//! the benchmarks (see the module docs of `kernels` and `BENCHMARKS.md`).
//!
//! Only little-endian `x86_64` compiles this module, so the bytes of the
//! `u64` words are the bytes of the stream.

use core::sync::atomic::{AtomicU32, Ordering};

mod block;
mod float;
mod pack;
mod simd;
mod sum;
mod unpack;

#[cfg(test)]
pub(crate) use sum::csa_max_bytes;

use super::dispatch::Table;
pub(crate) use block::{
    e2m1_scaled_blocks_avx2, e2m1_scaled_blocks_avx512, mx_blocks_avx2, mx_blocks_avx512,
    nvfp4_blocks_avx2, nvfp4_blocks_avx512,
};
use float::decode_perm_avx512;
#[cfg(feature = "half")]
pub(crate) use float::widen_f16c;
pub(crate) use float::{
    decode_f16c, decode_f16c_avx512, decode_f16c_scaled, decode_split_avx2,
    decode_split_scaled_avx2, decode_table_avx512, decode_table_scaled_avx512, encode_f32_avx2,
    encode_f32_avx512, encode4_f32_avx2, encode4_f32_avx512, split_ok, stochastic_avx2,
    stochastic_avx512,
};
use float::{decode_nib_avx2, decode_perm_avx2};
use pack::{
    pack_u8_avx2, pack_u8_avx512, pack_u8_bmi2, pack_u32_avx2, pack_u32_avx512, pack_u32_wide_avx2,
    pack_u32_wide_avx512,
};
use sum::{
    sum_bytes_avx2, sum_bytes_avx512, sum_csa_avx2, sum_csa_avx512, sum_fold_avx2, sum_fold_avx512,
    sum_popcnt, sum_popcnt_avx512, sum_spread_avx2, sum_spread_avx512, sum_wide_avx2,
    sum_wide_avx512,
};
pub(crate) use unpack::{unpack_aligned_raw_avx2, unpack_aligned_u8_bmi2};
use unpack::{
    unpack_u8_avx2, unpack_u8_avx2_split, unpack_u8_avx512, unpack_u8_bmi2, unpack_u32_avx2,
    unpack_u32_avx512,
};

// ---------------------------------------------------------------------------
// feature detection
// ---------------------------------------------------------------------------

/// `avx2` detected.
pub(crate) const AVX2: u32 = 1;
/// `bmi2` detected.
pub(crate) const BMI2: u32 = 2;
/// `popcnt` detected.
pub(crate) const POPCNT: u32 = 4;
/// `f16c` detected.
pub(crate) const F16C: u32 = 8;
/// `avx512f` detected.
pub(crate) const AVX512F: u32 = 16;
/// `avx512bw` detected.
pub(crate) const AVX512BW: u32 = 32;
/// `avx512vbmi` detected.
pub(crate) const AVX512VBMI: u32 = 64;
/// `avx512vbmi2` detected.
pub(crate) const AVX512VBMI2: u32 = 128;
/// `avx512vpopcntdq` detected.
pub(crate) const AVX512VPOPCNTDQ: u32 = 256;
/// `avx512dq` and `avx512vl` detected.
pub(crate) const AVX512DQ_VL: u32 = 512;
/// `avx2` and `bmi2` detected.
pub(crate) const AVX2_BMI2: u32 = AVX2 | BMI2;
/// `avx2` and `f16c` detected.
pub(crate) const AVX2_F16C: u32 = AVX2 | F16C;
/// AVX-512 F, BW and VBMI detected (`vpermb`, `vpmultishiftqb`).
pub(crate) const AVX512_VBMI: u32 = AVX512F | AVX512BW | AVX512VBMI;
/// AVX-512 F and BW detected (512-bit `vpshufb`, `vpsadbw`).
pub(crate) const AVX512_BW: u32 = AVX512F | AVX512BW;
/// AVX-512 F and BW and BMI2 detected (masks deposited into nibbles by
/// `pdep`).
pub(crate) const AVX512_BW_BMI2: u32 = AVX512F | AVX512BW | BMI2;
/// AVX-512 F, BW, DQ and VL detected (`vpmullq`, and the autovectorized
/// loops' masked 256-bit forms).
pub(crate) const AVX512_DQ: u32 = AVX512F | AVX512BW | AVX512DQ_VL;
/// AVX-512 F and VPOPCNTDQ detected (`vpopcntq`).
pub(crate) const AVX512_POPCNT: u32 = AVX512F | AVX512VPOPCNTDQ;
/// AVX-512 F, BW and VPOPCNTDQ (the carry-save sum's masked loads).
pub(crate) const AVX512_BW_POPCNT: u32 = AVX512F | AVX512BW | AVX512VPOPCNTDQ;
/// Detection has run.
const DETECTED: u32 = 1 << 31;

static FEATURES: AtomicU32 = AtomicU32::new(0);
static LIMIT: AtomicU32 = AtomicU32::new(u32::MAX);

/// The detected CPU features (bit set of [`AVX2`], [`BMI2`], [`POPCNT`],
/// [`F16C`] and the AVX-512 bits), detected once with
/// `is_x86_feature_detected!` and cached.
#[inline]
pub(crate) fn features() -> u32 {
    let f = FEATURES.load(Ordering::Relaxed);
    let f = if f & DETECTED != 0 { f } else { detect() };
    f & LIMIT.load(Ordering::Relaxed)
}

#[cold]
fn detect() -> u32 {
    let mut f = DETECTED;
    for (have, bit) in [
        (std::is_x86_feature_detected!("avx2"), AVX2),
        (std::is_x86_feature_detected!("bmi2"), BMI2),
        (std::is_x86_feature_detected!("popcnt"), POPCNT),
        (std::is_x86_feature_detected!("f16c"), F16C),
        (std::is_x86_feature_detected!("avx512f"), AVX512F),
        (std::is_x86_feature_detected!("avx512bw"), AVX512BW),
        (std::is_x86_feature_detected!("avx512vbmi"), AVX512VBMI),
        (std::is_x86_feature_detected!("avx512vbmi2"), AVX512VBMI2),
        (
            std::is_x86_feature_detected!("avx512vpopcntdq"),
            AVX512VPOPCNTDQ,
        ),
        (
            std::is_x86_feature_detected!("avx512dq") && std::is_x86_feature_detected!("avx512vl"),
            AVX512DQ_VL,
        ),
    ] {
        if have {
            f |= bit;
        }
    }
    FEATURES.store(f, Ordering::Relaxed);
    f
}

/// Masks the features the kernels may use (`0` forces the portable kernels,
/// `u32::MAX` restores detection). Not public API: for benchmarks.
pub fn limit_features(mask: u32) {
    LIMIT.store(mask, Ordering::Relaxed);
}

/// The detected features, ignoring [`limit_features`] (tests use it to run
/// every variant the machine has).
#[cfg(test)]
pub(crate) fn detected() -> u32 {
    let f = FEATURES.load(Ordering::Relaxed);
    if f & DETECTED != 0 { f } else { detect() }
}

// ---------------------------------------------------------------------------
// tables
// ---------------------------------------------------------------------------

type UnpackX<U> = unsafe fn(&[u64], usize, &mut [U]);
type PackX<U> = unsafe fn(&[U], &mut [u64], usize);
type SumX = unsafe fn(&[u64], usize, usize) -> u128;
type DecodeX = unsafe fn(&[u64], usize, &[u32], &mut [u32]);

pub(crate) static UNPACK_U8: Table<UnpackX<u8>, 8> = variants!(8;
    // Measured (65,536 values, same-run A/B): the AVX2 split takes
    // 0.77-0.92x the AVX-512 variant's time at 1, 2 and 4 bits.
    [AVX2 unpack_u8_avx2_split, AVX512_VBMI unpack_u8_avx512, AVX2 unpack_u8_avx2,
        BMI2 unpack_u8_bmi2] for 1 2 4;
    [AVX512_VBMI unpack_u8_avx512, AVX2 unpack_u8_avx2, BMI2 unpack_u8_bmi2] for 3 5 6 7;
);
pub(crate) static UNPACK_U16: Table<UnpackX<u16>, 16> = Table::EMPTY;
pub(crate) static UNPACK_U32: Table<UnpackX<u32>, 32> = variants!(32;
    // Measured (65,536 values, output on a line, two full runs of the
    // kernels bench): the AVX2 twin takes 0.86-0.98x the AVX-512 one's time
    // at 1 to 25 bits, and 1.0-1.07x above.
    [AVX2 unpack_u32_avx2, AVX512_VBMI unpack_u32_avx512] for 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
        16 17 18 19 20 21 22 23 24 25;
    [AVX512_VBMI unpack_u32_avx512, AVX2 unpack_u32_avx2] for 26 27 28 29 30 31;
);
pub(crate) static UNPACK_U64: Table<UnpackX<u64>, 64> = Table::EMPTY;
pub(crate) static UNPACK_U128: Table<UnpackX<u128>, 128> = Table::EMPTY;

pub(crate) static PACK_U8: Table<PackX<u8>, 8> = variants!(8;
    [AVX512_VBMI pack_u8_avx512, AVX2_BMI2 pack_u8_avx2, BMI2 pack_u8_bmi2] for 1 2 3 4 5 6 7;
);
pub(crate) static PACK_U16: Table<PackX<u16>, 16> = Table::EMPTY;
pub(crate) static PACK_U32: Table<PackX<u32>, 32> = variants!(32;
    [AVX512_VBMI pack_u32_avx512, AVX2_BMI2 pack_u32_avx2] for 1;
    // Measured (65,536 values, same-run A/B): since the even widths' one
    // `vpermb` and plain stores, the AVX-512 narrow-and-pack takes
    // 0.65-0.88x the AVX2 one's time at 2..=7 bits, 1.00x at 8.
    [AVX512_VBMI pack_u32_avx512, AVX2_BMI2 pack_u32_avx2] for 2 3 4 5 6 7;
    [AVX2_BMI2 pack_u32_avx2, AVX512_VBMI pack_u32_avx512] for 8;
    [AVX512_VBMI pack_u32_wide_avx512, AVX2 pack_u32_wide_avx2] for 9 10 11 12 13 14 15 16 17 18
        19 20 21 22 23 24 25 26 27 28 29 30 31;
);
pub(crate) static PACK_U64: Table<PackX<u64>, 64> = Table::EMPTY;
pub(crate) static PACK_U128: Table<PackX<u128>, 128> = Table::EMPTY;

pub(crate) static SUM: Table<SumX, 64> = variants!(64;
    [AVX512_POPCNT sum_popcnt_avx512, AVX2 sum_csa_avx2, POPCNT sum_popcnt] for 1;
    [AVX512_BW_POPCNT sum_csa_avx512, AVX512_BW sum_bytes_avx512, AVX2 sum_csa_avx2] for 2;
    [AVX512_BW_POPCNT sum_csa_avx512, AVX512_BW sum_bytes_avx512, AVX2 sum_bytes_avx2] for 4;
    [AVX512_BW sum_bytes_avx512, AVX2 sum_bytes_avx2] for 8;
    [AVX512_BW_POPCNT sum_csa_avx512, AVX512_VBMI sum_fold_avx512, AVX2 sum_fold_avx2] for 3 5 6;
    [AVX512_VBMI sum_fold_avx512, AVX2 sum_fold_avx2] for 7;
    [AVX512F sum_wide_avx512, AVX2 sum_wide_avx2] for 16 32 64;
    [AVX512_VBMI sum_spread_avx512, AVX2 sum_spread_avx2] for 9 10 11 12 13 14 15 17 18 19 20 21
        22 23 24 25;
);

pub(crate) static DECODE_X32: Table<DecodeX, 16> = variants!(16;
    [AVX512_VBMI decode_perm_avx512, AVX2 decode_perm_avx2] for 1 2 3;
    [AVX512_VBMI decode_perm_avx512, AVX2 decode_nib_avx2] for 4;
);

/// The float conversions of one format, each a list of variants in order of
/// preference (chosen by `dispatch::first`, as the width tables are); an
/// entry is `None` where the format's rules rule the variant out.
pub(crate) mod float_variants {
    use super::*;
    use crate::float::MiniFloat;
    use crate::float::elem::{encode_fast_ok, f16_ok, table_ok};
    use crate::kernels::dispatch::Variant;

    /// Codes from `f32`, one per byte.
    pub(crate) type EncodeF = unsafe fn(&[f32], &mut [u8]);
    /// `f32` from codes, one per byte.
    pub(crate) type DecodeF = unsafe fn(&[u8], &mut [f32]);

    /// `encode_fast::<F, SAT>` on a slice, one code per byte.
    pub(crate) fn encode<F: MiniFloat, const SAT: bool>() -> [Option<Variant<EncodeF>>; 2] {
        if !const { encode_fast_ok(&F::FORMAT) } {
            return [None; 2];
        }
        [
            Some((AVX512_BW, "encode_f32_avx512", encode_f32_avx512::<F, SAT>)),
            Some((AVX2, "encode_f32_avx2", encode_f32_avx2::<F, SAT>)),
        ]
    }

    /// As [`encode`], two 4-bit codes per byte.
    pub(crate) fn encode4<F: MiniFloat, const SAT: bool>() -> [Option<Variant<EncodeF>>; 2] {
        if !const { encode_fast_ok(&F::FORMAT) && F::FORMAT.bits() == 4 } {
            return [None; 2];
        }
        [
            Some((
                AVX512_BW,
                "encode4_f32_avx512",
                encode4_f32_avx512::<F, SAT>,
            )),
            Some((AVX2, "encode4_f32_avx2", encode4_f32_avx2::<F, SAT>)),
        ]
    }

    /// Codes from `f32` times `2^-e`, rounded stochastically (see
    /// `elem::encode_stochastic_slice`).
    pub(crate) type StochasticF =
        unsafe fn(&[f32], crate::float::elem::StochasticScale<'_>, (u64, u64), &mut [u8]);

    /// `elem::encode_stochastic_slice::<F, SAT>` in the SIMD builds.
    pub(crate) fn stochastic<F: MiniFloat, const SAT: bool>() -> [Option<Variant<StochasticF>>; 2] {
        if !const { encode_fast_ok(&F::FORMAT) } {
            return [None; 2];
        }
        [
            Some((AVX512_DQ, "stochastic_avx512", stochastic_avx512::<F, SAT>)),
            Some((AVX2, "stochastic_avx2", stochastic_avx2::<F, SAT>)),
        ]
    }

    /// The `f32`s' high bytes looked up by `vpermi2b` (AVX-512 VBMI), else
    /// `vcvtph2ps` on 32 lanes (AVX-512 BW without VBMI: the Intel cores
    /// of that set shuffle on one port, where the nibble tables' ten
    /// shuffles per 32 codes would set the pace), else the high bytes by
    /// `vpshufb` from the codes' nibbles (AVX2, the formats [`split_ok`]
    /// takes; on AMD Zen 4 0.75x the time of the F16C decode), else
    /// `vcvtph2ps` with F16C.
    pub(crate) fn decode<F: MiniFloat>() -> [Option<Variant<DecodeF>>; 4] {
        let table = const { table_ok(&F::FORMAT) }.then_some((
            AVX512_VBMI,
            "decode_table_avx512",
            decode_table_avx512::<F> as DecodeF,
        ));
        let split = const { split_ok::<F>() }.then_some((
            AVX2,
            "decode_split_avx2",
            decode_split_avx2::<F> as DecodeF,
        ));
        if !const { f16_ok(&F::FORMAT) } {
            return [table, split, None, None];
        }
        [
            table,
            Some((AVX512_BW, "decode_f16c_avx512", decode_f16c_avx512::<F>)),
            split,
            Some((AVX2_F16C, "decode_f16c", decode_f16c::<F>)),
        ]
    }
}

/// `f()` compiled with AVX2 (a closure of portable code, inlined into this
/// `#[target_feature]` function, vectorizes with AVX2 instructions).
///
/// # Safety
///
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn run_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `f()` compiled with AVX-512 F and BW (as [`run_avx2`], with 512-bit
/// vectors and mask registers).
///
/// # Safety
///
/// The CPU has AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn run_avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `f()`, by its AVX-512 build where the features `have` include AVX-512
/// F and BW, else as [`with_avx2_in`] (portable loops that vectorize
/// without shuffles across lanes use this).
///
/// # Safety
///
/// `have` holds no feature bit that [`features`] lacks.
#[inline(always)]
pub(crate) unsafe fn with_avx512_in<R>(have: u32, f: impl FnOnce() -> R) -> R {
    if have & AVX512_BW == AVX512_BW {
        // SAFETY: `run_avx512` needs only AVX-512 F and BW, which `have`
        // includes and so (the caller's guarantee) `features` detected.
        return unsafe { run_avx512(f) };
    }
    // SAFETY: the caller's guarantee.
    unsafe { with_avx2_in(have, f) }
}

/// `f()`, by its AVX2 build where the features `have` include AVX2 (the
/// reductions' portable loops use this).
///
/// # Safety
///
/// `have` holds no feature bit that [`features`] lacks.
#[inline(always)]
pub(crate) unsafe fn with_avx2_in<R>(have: u32, f: impl FnOnce() -> R) -> R {
    if have & AVX2 != 0 {
        // SAFETY: `run_avx2` needs only `avx2`, which `have` includes and
        // so (the caller's guarantee) `features` detected.
        return unsafe { run_avx2(f) };
    }
    f()
}
