//! Every kernel variant against a bit-at-a-time reference, one test per width.
//!
//! `test_widths!` makes one `#[test]` per width (as portable-simd's
//! `test_lanes!` makes one per lane count). Each test runs the portable
//! kernel, every x86 variant the tables list for that width that this CPU can
//! run (the others are reported as skipped by `x86_variants_report`), and the
//! public dispatching function, on lengths around block and word boundaries
//! and random lengths, at aligned, unaligned and random element offsets, over
//! random data with random garbage around the written range and random bits
//! above the width in the source values, plus all-ones extremes.

extern crate std;

use std::string::String;
use std::string::ToString;
use std::vec;
use std::vec::Vec;

use super::scalar::{self, Lane};

// ---------------------------------------------------------------------------
// reference and data
// ---------------------------------------------------------------------------

/// Element `i` of width `w`, one bit at a time.
fn ref_get(words: &[u64], i: usize, w: u32) -> u128 {
    let mut v = 0u128;
    for b in 0..w as usize {
        let bit = i * w as usize + b;
        v |= (((u64::from_le(words[bit / 64]) >> (bit % 64)) & 1) as u128) << b;
    }
    v
}

/// Sets element `i` of width `w` to the low `w` bits of `v`, one bit at a
/// time.
fn ref_set(words: &mut [u64], i: usize, w: u32, v: u128) {
    for b in 0..w as usize {
        let bit = i * w as usize + b;
        let x = ((v >> b) & 1) as u64;
        let old = u64::from_le(words[bit / 64]);
        words[bit / 64] = ((old & !(1 << (bit % 64))) | (x << (bit % 64))).to_le();
    }
}

/// A small deterministic generator (xorshift64*), seeded per test (the
/// reductions' tests use it too).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn words(&mut self, n: usize) -> Vec<u64> {
        (0..n).map(|_| self.next()).collect()
    }
}

/// `(length, offset)` cases: lengths around block and word boundaries and
/// random, offsets aligned, unaligned and random.
fn cases(rng: &mut Rng) -> Vec<(usize, usize)> {
    if cfg!(miri) {
        // Under Miri (which checks every unsafe access of the SIMD variants)
        // a few cases cover the head, the vector body and the tail.
        return vec![(0, 0), (1, 1), (65, 7), (300, 63), (129, 64)];
    }
    let mut lens = vec![0, 1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 127, 128, 129];
    lens.extend([4095, 4096, 4097]);
    lens.extend((0..3).map(|_| rng.below(1500)));
    let mut offs = vec![0, 1, 7, 8, 63, 64, 65];
    offs.extend((0..2).map(|_| rng.below(300)));
    let mut out = Vec::new();
    for &n in &lens {
        for &o in &offs {
            out.push((n, o));
        }
    }
    out
}

/// Random words, with a third of the cases all ones (the extreme values).
fn data(rng: &mut Rng, n: usize, case: usize) -> Vec<u64> {
    if case % 3 == 2 {
        vec![u64::MAX; n]
    } else {
        rng.words(n)
    }
}

/// The variants the x86 table lists for a width: `(name, runnable, f)`;
/// `runnable` is false when this CPU lacks a feature the variant needs.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
fn x86_list<F: Copy, const N: usize>(
    t: &super::dispatch::Table<F, N>,
    w: u32,
) -> Vec<(&'static str, bool, F)> {
    let have = super::x86::detected();
    t.0[w as usize - 1]
        .iter()
        .flatten()
        .map(|&(need, name, f)| (name, have & need == need, f))
        .collect()
}

/// The NEON variant the aarch64 table lists for a width, by name (NEON is
/// baseline there, so every listed variant runs).
#[cfg(all(simd_variants, target_arch = "aarch64"))]
fn neon_list<F: Copy, const N: usize>(
    t: &super::dispatch::Table<F, N>,
    w: u32,
) -> Option<(&'static str, F)> {
    t.0[w as usize - 1][0].map(|(_, name, f)| (name, f))
}

/// The SIMD variants `t` lists for width `w` that this CPU runs, each by
/// name and wrapped by `wrap`: on x86 those whose features it has
/// ([`x86_list`]), on aarch64 the NEON one ([`neon_list`]). `wrap` is given
/// only such variants, so it may call them.
#[cfg(simd_variants)]
fn runnable<F: Copy, const N: usize, G>(
    t: &super::dispatch::Table<F, N>,
    w: u32,
    wrap: impl Fn(F) -> G,
) -> Vec<(String, G)> {
    #[cfg(target_arch = "x86_64")]
    let list = x86_list(t, w).into_iter().filter(|&(_, ok, _)| ok);
    #[cfg(target_arch = "x86_64")]
    let list = list.map(|(name, _, f)| (name, f));
    #[cfg(target_arch = "aarch64")]
    let list = neon_list(t, w).into_iter();
    list.map(|(name, f)| (name.into(), wrap(f))).collect()
}

#[cfg(feature = "alloc")]
mod block;
mod checks;
use checks::*;

// ---------------------------------------------------------------------------
// one test per width
// ---------------------------------------------------------------------------

/// One `#[test]` per width: `test_widths!(module, check::<W, extra>, up_to)`,
/// or `test_widths! { module(check, extra; up_to) ... }` for several.
macro_rules! test_widths {
    ($($m:ident($($spec:tt)*))*) => {
        $( test_widths!($m, $($spec)*); )*
    };
    ($m:ident, $check:ident $(, $x:ty)?; 8) => {
        test_widths!(@ $m, $check $(, $x)?; w1 1 w2 2 w3 3 w4 4 w5 5 w6 6 w7 7 w8 8);
    };
    ($m:ident, $check:ident $(, $x:ty)?; 16) => {
        test_widths!(@ $m, $check $(, $x)?; w1 1 w2 2 w3 3 w4 4 w5 5 w6 6 w7 7 w8 8 w9 9 w10 10
            w11 11 w12 12 w13 13 w14 14 w15 15 w16 16);
    };
    ($m:ident, $check:ident $(, $x:ty)?; 32) => {
        test_widths!(@ $m, $check $(, $x)?; w1 1 w2 2 w3 3 w4 4 w5 5 w6 6 w7 7 w8 8 w9 9 w10 10
            w11 11 w12 12 w13 13 w14 14 w15 15 w16 16 w17 17 w18 18 w19 19 w20 20 w21 21 w22 22
            w23 23 w24 24 w25 25 w26 26 w27 27 w28 28 w29 29 w30 30 w31 31 w32 32);
    };
    ($m:ident, $check:ident $(, $x:ty)?; 64) => {
        test_widths!(@ $m, $check $(, $x)?; w1 1 w2 2 w3 3 w4 4 w5 5 w6 6 w7 7 w8 8 w9 9 w10 10
            w11 11 w12 12 w13 13 w14 14 w15 15 w16 16 w17 17 w18 18 w19 19 w20 20 w21 21 w22 22
            w23 23 w24 24 w25 25 w26 26 w27 27 w28 28 w29 29 w30 30 w31 31 w32 32 w33 33 w34 34
            w35 35 w36 36 w37 37 w38 38 w39 39 w40 40 w41 41 w42 42 w43 43 w44 44 w45 45 w46 46
            w47 47 w48 48 w49 49 w50 50 w51 51 w52 52 w53 53 w54 54 w55 55 w56 56 w57 57 w58 58
            w59 59 w60 60 w61 61 w62 62 w63 63 w64 64);
    };
    ($m:ident, $check:ident $(, $x:ty)?; 65..=128) => {
        test_widths!(@ $m, $check $(, $x)?; w65 65 w66 66 w67 67 w68 68 w69 69 w70 70 w71 71
            w72 72 w73 73 w74 74 w75 75 w76 76 w77 77 w78 78 w79 79 w80 80 w81 81 w82 82 w83 83
            w84 84 w85 85 w86 86 w87 87 w88 88 w89 89 w90 90 w91 91 w92 92 w93 93 w94 94 w95 95
            w96 96 w97 97 w98 98 w99 99 w100 100 w101 101 w102 102 w103 103 w104 104 w105 105
            w106 106 w107 107 w108 108 w109 109 w110 110 w111 111 w112 112 w113 113 w114 114
            w115 115 w116 116 w117 117 w118 118 w119 119 w120 120 w121 121 w122 122 w123 123
            w124 124 w125 125 w126 126 w127 127 w128 128);
    };
    (@ $m:ident, $check:ident; $($name:ident $w:literal)*) => {
        mod $m {
            $( #[test] fn $name() { super::$check::<$w>() } )*
        }
    };
    (@ $m:ident, $check:ident, $x:ty; $($name:ident $w:literal)*) => {
        mod $m {
            $( #[test] fn $name() { super::$check::<$w, $x>() } )*
        }
    };
}

test_widths! {
    unpack_u8(check_unpack, u8; 8) unpack_u16(check_unpack, u16; 16)
    unpack_u32(check_unpack, u32; 32) unpack_u64(check_unpack, u64; 64)
    unpack_u128_narrow(check_unpack_wide; 64) unpack_u128(check_unpack_wide; 65..=128)
    pack_u8(check_pack, u8; 8) pack_u16(check_pack, u16; 16) pack_u32(check_pack, u32; 32)
    pack_u64(check_pack, u64; 64) pack_u128_narrow(check_pack_wide; 64)
    pack_u128(check_pack_wide; 65..=128) sum(check_sum; 64) decode(check_decode; 16)
    decode_with(check_decode_with; 8) encode(check_encode; 8)
}

// ---------------------------------------------------------------------------
// variants report, errors
// ---------------------------------------------------------------------------

/// Lists, for every kernel table and width, the x86 variants run and the
/// ones skipped for lack of a CPU feature (`cargo test -- --nocapture`
/// shows it).
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[test]
fn x86_variants_report() {
    use super::dispatch::Table;
    use super::x86;
    fn line<F: Copy, const N: usize>(name: &str, t: &Table<F, N>) -> String {
        let mut ran = Vec::new();
        let mut skipped = Vec::new();
        for w in 1..=N as u32 {
            for (v, ok, _) in x86_list(t, w) {
                let s = std::format!("{v}@{w}");
                if ok { ran.push(s) } else { skipped.push(s) }
            }
        }
        std::format!(
            "{name}: tested {} variant-widths, skipped [{}]",
            ran.len(),
            skipped.join(" ")
        )
    }
    let f = x86::detected();
    std::eprintln!(
        "x86 features: avx2={} bmi2={} popcnt={} avx512f+bw+vbmi={}",
        f & x86::AVX2 != 0,
        f & x86::BMI2 != 0,
        f & x86::POPCNT != 0,
        f & x86::AVX512_VBMI == x86::AVX512_VBMI
    );
    std::eprintln!(
        "x86 AVX-512: f={} bw={} vbmi={} vbmi2={} dq+vl={} (variants needing a missing one are skipped)",
        f & x86::AVX512F != 0,
        f & x86::AVX512BW != 0,
        f & x86::AVX512VBMI != 0,
        f & x86::AVX512VBMI2 != 0,
        f & x86::AVX512DQ_VL != 0
    );
    for l in [
        line("unpack_u8", &x86::UNPACK_U8),
        line("unpack_u32", &x86::UNPACK_U32),
        line("pack_u8", &x86::PACK_U8),
        line("pack_u32", &x86::PACK_U32),
        line("sum", &x86::SUM),
        line("decode_x32", &x86::DECODE_X32),
    ] {
        std::eprintln!("{l}");
    }
    // A build with the features enabled at compile time (the Miri step of
    // `.ci/run`, where detection reports exactly those) runs every variant:
    // none may be skipped there.
    if cfg!(all(
        target_feature = "avx2",
        target_feature = "bmi2",
        target_feature = "popcnt"
    )) {
        let all = x86::AVX2 | x86::BMI2 | x86::POPCNT;
        assert_eq!(
            f & all,
            all,
            "features enabled at compile time not detected"
        );
    }
    // Every table entry must need at least one feature (a variant without
    // one would belong in the portable kernels).
    fn all_need_features<F: Copy, const N: usize>(t: &Table<F, N>) {
        for (w, entry) in t.0.iter().enumerate() {
            for &(need, name, _) in entry.iter().flatten() {
                assert_ne!(need, 0, "{name} at width {} needs no feature", w + 1);
            }
        }
    }
    all_need_features(&x86::UNPACK_U8);
    all_need_features(&x86::UNPACK_U32);
    all_need_features(&x86::PACK_U8);
    all_need_features(&x86::PACK_U32);
    all_need_features(&x86::SUM);
    all_need_features(&x86::DECODE_X32);
}

/// Lists the NEON variants per kernel table and checks the widths each
/// covers; the width tests above run every one of them (NEON is baseline on
/// this target). `limit_features(0)` hides them, the MX block kernel's,
/// the scaled 8-bit decode's and the `binary16` widen's, from the dispatch.
#[cfg(all(simd_variants, target_arch = "aarch64"))]
#[test]
fn neon_variants_report() {
    use super::aarch64;
    use super::dispatch::Table;
    fn widths<F: Copy, const N: usize>(name: &str, t: &Table<F, N>) -> Vec<u32> {
        let ws: Vec<u32> = (1..=N as u32)
            .filter(|&w| neon_list(t, w).is_some())
            .collect();
        std::eprintln!("{name}: NEON at widths {ws:?}");
        for &w in &ws {
            let (v, _) = neon_list(t, w).unwrap();
            assert!(v.ends_with("_neon"), "{name}@{w}: {v}");
        }
        ws
    }
    let upto = |n: u32| (1..=n).collect::<Vec<u32>>();
    assert_eq!(widths("unpack_u8", &aarch64::UNPACK_U8), upto(8));
    assert_eq!(widths("unpack_u32", &aarch64::UNPACK_U32), upto(25));
    assert_eq!(widths("pack_u8", &aarch64::PACK_U8), upto(8));
    assert_eq!(widths("pack_u32", &aarch64::PACK_U32), upto(8));
    let sums: Vec<u32> = upto(8).into_iter().chain([16, 32, 64]).collect();
    assert_eq!(widths("sum", &aarch64::SUM), sums);
    assert_eq!(widths("decode_x32", &aarch64::DECODE_X32), upto(4));
    assert!(aarch64::SUM.get(3).is_some());
    // The one-pass MX quantize (its variant chosen by `mx_ok`, where the
    // NVFP4 and scaled E2M1 block kernels read the same mask).
    assert!(super::dispatch::block::mx_ok());
    // The scaled decode of 8-bit codes (`scaled8_serves` reads it).
    assert!(super::dispatch::block::scaled8_ok());
    // The widen of `binary16` bits: whether the dispatch converted `n` of
    // 9 values (8 by NEON, 0 by none).
    #[cfg(feature = "half")]
    let widened = |n: usize| super::widen_f16(&[0x3c00; 9], &mut [0.0; 9]) == n;
    #[cfg(not(feature = "half"))]
    let widened = |_: usize| true;
    assert!(widened(8));
    // The mask is global: other tests running meanwhile only take the
    // (equally checked) portable path while it is 0.
    aarch64::limit_features(0);
    let hidden = aarch64::SUM.get(3).is_none()
        && aarch64::UNPACK_U8.get(5).is_none()
        && !super::dispatch::block::mx_ok()
        && !super::dispatch::block::scaled8_ok()
        && widened(0);
    aarch64::limit_features(0xff);
    assert!(hidden, "limit_features(0) must force the portable kernels");
    assert!(aarch64::PACK_U8.get(5).is_some());
}

#[test]
fn errors_name_the_numbers_and_change_nothing() {
    use crate::{Error, LengthOf};
    let mut words = [0x1234u64; 2];
    let mut out = [9u8; 4];
    assert_eq!(
        super::unpack(0, &words, 0, &mut out),
        Err(Error::Width { width: 0, max: 8 })
    );
    assert_eq!(
        super::unpack(9, &words, 0, &mut out),
        Err(Error::Width { width: 9, max: 8 })
    );
    assert_eq!(
        super::unpack(5, &words, 100, &mut out),
        Err(Error::TooFewWords {
            needed: 9,
            actual: 2
        })
    );
    assert_eq!(out, [9; 4]);
    assert_eq!(
        super::pack(33, &[1u32], &mut words, 0),
        Err(Error::Width { width: 33, max: 32 })
    );
    assert_eq!(
        super::pack(7, &[1u8; 19], &mut words, 0),
        Err(Error::TooFewWords {
            needed: 3,
            actual: 2
        })
    );
    assert_eq!(
        super::pack(129, &[1u128], &mut words, 0),
        Err(Error::Width {
            width: 129,
            max: 128
        })
    );
    assert_eq!(words, [0x1234; 2]);
    assert_eq!(
        super::sum(65, &words, 0, 1),
        Err(Error::Width { width: 65, max: 64 })
    );
    assert_eq!(
        super::sum(64, &words, 1, 2),
        Err(Error::TooFewWords {
            needed: 3,
            actual: 2
        })
    );
    assert_eq!(
        super::sum(1, &words, usize::MAX, 2),
        Err(Error::TooFewWords {
            needed: (1 << 58) + 1,
            actual: 2
        })
    );
    assert_eq!(
        super::sum(64, &words, usize::MAX, usize::MAX),
        Err(Error::TooFewWords {
            needed: usize::MAX,
            actual: 2
        })
    );
    let mut f = [1.5f32; 3];
    assert_eq!(
        super::decode(4, &[0.0f32; 15], &words, 0, &mut f),
        Err(Error::Length {
            of: LengthOf::DecodeTable,
            expected: 16,
            actual: 15
        })
    );
    assert_eq!(
        super::decode(17, &[0.0f32; 4], &words, 0, &mut f),
        Err(Error::Width { width: 17, max: 16 })
    );
    assert_eq!(f, [1.5; 3]);
    assert_eq!(
        super::decode_with(9, |c| c, &words, 0, &mut out),
        Err(Error::Width { width: 9, max: 8 })
    );
    assert_eq!(
        super::decode_with(8, |c| c, &words, 14, &mut out),
        Err(Error::TooFewWords {
            needed: 3,
            actual: 2
        })
    );
    assert_eq!(out, [9; 4]);
    assert_eq!(
        super::encode(9, &[1.0f32], |_| 0, &mut words, 0),
        Err(Error::Width { width: 9, max: 8 })
    );
    assert_eq!(
        super::encode(8, &[1.0f32; 17], |_| 0, &mut words, 0),
        Err(Error::TooFewWords {
            needed: 3,
            actual: 2
        })
    );
    assert_eq!(words, [0x1234; 2]);
    assert_eq!(
        Error::TooFewWords {
            needed: 3,
            actual: 2
        }
        .to_string(),
        "need 3 64-bit words, got 2"
    );
    assert_eq!(
        Error::Width { width: 9, max: 8 }.to_string(),
        "width 9 is not supported here: must be 1..=8"
    );
}

#[test]
fn words_for_rounds_up_and_saturates() {
    assert_eq!(super::words_for(5, 0), 0);
    assert_eq!(super::words_for(5, 12), 1);
    assert_eq!(super::words_for(5, 13), 2);
    assert_eq!(super::words_for(128, 3), 6);
    assert_eq!(super::words_for(128, usize::MAX), usize::MAX);
}

#[test]
fn block_geometry() {
    for w in 1..=64u32 {
        let (b, bw) = (scalar::block_elems(w), scalar::block_words(w));
        assert_eq!(b * w as usize, bw * 64, "width {w}");
        assert!((1..=64).contains(&b));
        // No smaller run of elements fills whole words.
        assert!(
            (1..b).all(|k| !(k * w as usize).is_multiple_of(64)),
            "width {w}"
        );
    }
}

#[test]
fn hsum_adds_every_slot() {
    let mut rng = Rng::new(11);
    for s in [2u32, 3, 4, 6, 10, 12, 14, 16, 20, 28, 32] {
        for _ in 0..200 {
            // Slots hold at most half their range, as the folds guarantee.
            let mut x = 0u64;
            let mut expect = 0u64;
            let mut p = 0;
            while p + s <= 64 {
                let v = rng.next() & scalar::mask64(s - 1);
                x |= v << p;
                expect += v;
                p += s;
            }
            assert_eq!(scalar::hsum(x, s), expect, "slot width {s}");
        }
    }
}

// ---------------------------------------------------------------------------
// table-free float conversions
// ---------------------------------------------------------------------------

mod minifloat;
