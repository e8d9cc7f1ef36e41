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

// ---------------------------------------------------------------------------
// unpack
// ---------------------------------------------------------------------------

type Unpack<'a, U> = (
    String,
    std::boxed::Box<dyn Fn(&[u64], usize, &mut [U]) + 'a>,
);

fn unpack_variants<const W: u32, U: Lane + super::Unsigned>() -> Vec<Unpack<'static, U>> {
    let mut v: Vec<Unpack<'static, U>> = vec![
        (
            "scalar".into(),
            std::boxed::Box::new(scalar::unpack::<W, U>),
        ),
        (
            "public".into(),
            std::boxed::Box::new(|w: &[u64], o: usize, d: &mut [U]| {
                super::unpack(W, w, o, d).unwrap()
            }),
        ),
    ];
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    {
        use super::x86;
        macro_rules! add {
            ($t:ty, $table:ident) => {
                if <U as Lane>::BITS == <$t>::BITS {
                    for (name, ok, f) in x86_list(&x86::$table, W) {
                        if ok {
                            v.push((
                                name.into(),
                                std::boxed::Box::new(move |w: &[u64], o: usize, d: &mut [U]| {
                                    // SAFETY: `ok` says this CPU has every
                                    // feature the variant enables.
                                    unsafe { f(w, o, bytemuck::cast_slice_mut::<U, $t>(d)) }
                                }),
                            ));
                        }
                    }
                }
            };
        }
        add!(u8, UNPACK_U8);
        add!(u16, UNPACK_U16);
        add!(u32, UNPACK_U32);
        add!(u64, UNPACK_U64);
    }
    #[cfg(all(simd_variants, target_arch = "aarch64"))]
    {
        use super::aarch64;
        macro_rules! add {
            ($t:ty, $table:ident) => {
                if <U as Lane>::BITS == <$t>::BITS
                    && let Some((name, f)) = neon_list(&aarch64::$table, W)
                {
                    v.push((
                        name.into(),
                        std::boxed::Box::new(move |w: &[u64], o: usize, d: &mut [U]| {
                            // SAFETY: NEON, all the variant enables, is in
                            // this target's cfg.
                            unsafe { f(w, o, bytemuck::cast_slice_mut::<U, $t>(d)) }
                        }),
                    ));
                }
            };
        }
        add!(u8, UNPACK_U8);
        add!(u16, UNPACK_U16);
        add!(u32, UNPACK_U32);
        add!(u64, UNPACK_U64);
    }
    v
}

fn check_unpack<const W: u32, U: Lane + super::Unsigned>() {
    let mut rng = Rng::new(W as u64 * 1000 + <U as Lane>::BITS as u64);
    let variants = unpack_variants::<W, U>();
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate() {
        // One spare word so kernels may not rely on the exact length.
        let nw = super::words_for(W, off + n) + case % 2;
        let words = data(&mut rng, nw, case);
        let expect: Vec<u64> = (0..n).map(|i| ref_get(&words, off + i, W) as u64).collect();
        for (name, f) in &variants {
            let mut out: Vec<U> = (0..n).map(|_| U::from_u64(rng.next())).collect();
            f(&words, off, &mut out);
            for i in 0..n {
                assert_eq!(
                    out[i].to_u64(),
                    expect[i],
                    "unpack W={W} U=u{} {name}: len {n} offset {off} element {i}",
                    <U as Lane>::BITS
                );
            }
        }
    }
}

fn check_unpack_wide<const W: u32>() {
    let mut rng = Rng::new(W as u64 * 77);
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate().step_by(3) {
        let words = data(&mut rng, super::words_for(W, off + n), case);
        let mut out = vec![0u128; n];
        scalar::unpack_wide::<W>(&words, off, &mut out);
        let mut public = vec![7u128; n];
        super::unpack(W, &words, off, &mut public).unwrap();
        for i in 0..n {
            let e = ref_get(&words, off + i, W);
            assert_eq!(
                out[i], e,
                "unpack_wide W={W}: len {n} offset {off} element {i}"
            );
            assert_eq!(
                public[i], e,
                "unpack u128 public W={W}: len {n} offset {off}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// pack
// ---------------------------------------------------------------------------

type Pack<'a, U> = (
    String,
    std::boxed::Box<dyn Fn(&[U], &mut [u64], usize) + 'a>,
);

fn pack_variants<const W: u32, U: Lane + super::Unsigned>() -> Vec<Pack<'static, U>> {
    let mut v: Vec<Pack<'static, U>> = vec![
        ("scalar".into(), std::boxed::Box::new(scalar::pack::<W, U>)),
        (
            "public".into(),
            std::boxed::Box::new(|s: &[U], w: &mut [u64], o: usize| {
                super::pack(W, s, w, o).unwrap()
            }),
        ),
    ];
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    {
        use super::x86;
        macro_rules! add {
            ($t:ty, $table:ident) => {
                if <U as Lane>::BITS == <$t>::BITS {
                    for (name, ok, f) in x86_list(&x86::$table, W) {
                        if ok {
                            v.push((
                                name.into(),
                                std::boxed::Box::new(move |s: &[U], w: &mut [u64], o: usize| {
                                    // SAFETY: `ok` says this CPU has every
                                    // feature the variant enables.
                                    unsafe { f(bytemuck::cast_slice::<U, $t>(s), w, o) }
                                }),
                            ));
                        }
                    }
                }
            };
        }
        add!(u8, PACK_U8);
        add!(u16, PACK_U16);
        add!(u32, PACK_U32);
        add!(u64, PACK_U64);
    }
    #[cfg(all(simd_variants, target_arch = "aarch64"))]
    {
        use super::aarch64;
        macro_rules! add {
            ($t:ty, $table:ident) => {
                if <U as Lane>::BITS == <$t>::BITS
                    && let Some((name, f)) = neon_list(&aarch64::$table, W)
                {
                    v.push((
                        name.into(),
                        std::boxed::Box::new(move |s: &[U], w: &mut [u64], o: usize| {
                            // SAFETY: NEON, all the variant enables, is in
                            // this target's cfg.
                            unsafe { f(bytemuck::cast_slice::<U, $t>(s), w, o) }
                        }),
                    ));
                }
            };
        }
        add!(u8, PACK_U8);
        add!(u16, PACK_U16);
        add!(u32, PACK_U32);
        add!(u64, PACK_U64);
    }
    v
}

fn check_pack<const W: u32, U: Lane + super::Unsigned>() {
    let mut rng = Rng::new(W as u64 * 3000 + <U as Lane>::BITS as u64);
    let variants = pack_variants::<W, U>();
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate() {
        let nw = super::words_for(W, off + n) + case % 2;
        // Garbage around the written range must survive; source values carry
        // random bits above the width, which must be ignored.
        let before = data(&mut rng, nw, case + 1);
        let src: Vec<U> = (0..n).map(|_| U::from_u64(rng.next())).collect();
        let mut expect = before.clone();
        for (i, s) in src.iter().enumerate() {
            ref_set(&mut expect, off + i, W, s.to_u64() as u128);
        }
        for (name, f) in &variants {
            let mut words = before.clone();
            f(&src, &mut words, off);
            assert!(
                words == expect,
                "pack W={W} U=u{} {name}: len {n} offset {off}: first wrong word {:?}",
                <U as Lane>::BITS,
                words.iter().zip(&expect).position(|(a, b)| a != b)
            );
        }
    }
}

fn check_pack_wide<const W: u32>() {
    let mut rng = Rng::new(W as u64 * 91);
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate().step_by(3) {
        let before = data(&mut rng, super::words_for(W, off + n), case + 1);
        let src: Vec<u128> = (0..n)
            .map(|_| (rng.next() as u128) << 64 | rng.next() as u128)
            .collect();
        let mut expect = before.clone();
        for (i, &s) in src.iter().enumerate() {
            ref_set(&mut expect, off + i, W, s);
        }
        let mut words = before.clone();
        scalar::pack_wide::<W>(&src, &mut words, off);
        assert_eq!(words, expect, "pack_wide W={W}: len {n} offset {off}");
        let mut words = before.clone();
        super::pack(W, &src, &mut words, off).unwrap();
        assert_eq!(
            words, expect,
            "pack u128 public W={W}: len {n} offset {off}"
        );
    }
}

// ---------------------------------------------------------------------------
// sum
// ---------------------------------------------------------------------------

type Sum<'a> = (
    String,
    std::boxed::Box<dyn Fn(&[u64], usize, usize) -> u128 + 'a>,
);

fn sum_variants<const W: u32>() -> Vec<Sum<'static>> {
    let mut v: Vec<Sum<'static>> = vec![
        ("scalar".into(), std::boxed::Box::new(scalar::sum::<W>)),
        (
            "public".into(),
            std::boxed::Box::new(|w: &[u64], o: usize, n: usize| super::sum(W, w, o, n).unwrap()),
        ),
    ];
    if W <= 32 {
        v.push((
            "scalar_extract".into(),
            std::boxed::Box::new(scalar::sum_extract::<W>),
        ));
    }
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    for (name, ok, f) in x86_list(&super::x86::SUM, W) {
        if ok {
            v.push((
                name.into(),
                std::boxed::Box::new(move |w: &[u64], o: usize, n: usize| {
                    // SAFETY: `ok` says this CPU has every feature the
                    // variant enables.
                    unsafe { f(w, o, n) }
                }),
            ));
        }
    }
    #[cfg(all(simd_variants, target_arch = "aarch64"))]
    if let Some((name, f)) = neon_list(&super::aarch64::SUM, W) {
        v.push((
            name.into(),
            std::boxed::Box::new(move |w: &[u64], o: usize, n: usize| {
                // SAFETY: NEON, all the variant enables, is in this target's
                // cfg.
                unsafe { f(w, o, n) }
            }),
        ));
    }
    v
}

fn check_sum<const W: u32>() {
    let mut rng = Rng::new(W as u64 * 5000);
    let variants = sum_variants::<W>();
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate() {
        let nw = super::words_for(W, off + n) + case % 2;
        let words = data(&mut rng, nw, case);
        let expect: u128 = (0..n).map(|i| ref_get(&words, off + i, W)).sum();
        for (name, f) in &variants {
            assert_eq!(
                f(&words, off, n),
                expect,
                "sum W={W} {name}: len {n} offset {off}"
            );
        }
    }
    // Extremes: 2^20 values of 2^W - 1 sum exactly, at offsets 0, 1 and 63
    // (2^10 under Miri, which interprets every access).
    let n = if cfg!(miri) {
        1usize << 10
    } else {
        1usize << 20
    };
    for off in [0usize, 1, 63] {
        let words = vec![u64::MAX; super::words_for(W, off + n)];
        let expect = n as u128 * scalar::mask64(W) as u128;
        for (name, f) in &variants {
            assert_eq!(
                f(&words, off, n),
                expect,
                "sum W={W} {name}: 2^20 all-ones, offset {off}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// decode and encode
// ---------------------------------------------------------------------------

fn check_decode<const W: u32>() {
    let mut rng = Rng::new(W as u64 * 7000);
    let table: Vec<u32> = (0..1usize << W).map(|_| rng.next() as u32).collect();
    let ftable: Vec<f32> = table
        .iter()
        .map(|&b| f32::from_bits(b & 0x7fbf_ffff))
        .collect();
    type Dec<'a> = (
        String,
        std::boxed::Box<dyn Fn(&[u64], usize, &[u32], &mut [u32]) + 'a>,
    );
    let mut variants: Vec<Dec<'static>> = vec![
        (
            "generic".into(),
            std::boxed::Box::new(|w: &[u64], o: usize, t: &[u32], d: &mut [u32]| {
                super::decode_generic(W, w, o, t, d)
            }),
        ),
        (
            "public".into(),
            std::boxed::Box::new(|w: &[u64], o: usize, t: &[u32], d: &mut [u32]| {
                super::decode(W, t, w, o, d).unwrap()
            }),
        ),
    ];
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    for (name, ok, f) in x86_list(&super::x86::DECODE_X32, W) {
        if ok {
            variants.push((
                name.into(),
                std::boxed::Box::new(move |w: &[u64], o: usize, t: &[u32], d: &mut [u32]| {
                    // SAFETY: `ok` says this CPU has every feature the
                    // variant enables.
                    unsafe { f(w, o, t, d) }
                }),
            ));
        }
    }
    #[cfg(all(simd_variants, target_arch = "aarch64"))]
    if let Some((name, f)) = neon_list(&super::aarch64::DECODE_X32, W) {
        variants.push((
            name.into(),
            std::boxed::Box::new(move |w: &[u64], o: usize, t: &[u32], d: &mut [u32]| {
                // SAFETY: NEON, all the variant enables, is in this target's
                // cfg.
                unsafe { f(w, o, t, d) }
            }),
        ));
    }
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate() {
        let words = data(&mut rng, super::words_for(W, off + n), case);
        let expect: Vec<u32> = (0..n)
            .map(|i| table[ref_get(&words, off + i, W) as usize])
            .collect();
        for (name, f) in &variants {
            let mut out = vec![0xdead_beefu32; n];
            f(&words, off, &table, &mut out);
            assert!(out == expect, "decode W={W} {name}: len {n} offset {off}");
        }
        // f32 and 2-byte outputs through the public function.
        let mut fout = vec![0.0f32; n];
        super::decode(W, &ftable, &words, off, &mut fout).unwrap();
        for i in 0..n {
            assert_eq!(
                fout[i].to_bits(),
                ftable[expect_index(&words, off + i, W)].to_bits()
            );
        }
        let htable: Vec<u16> = table.iter().map(|&b| b as u16).collect();
        let mut hout = vec![0u16; n];
        super::decode(W, &htable, &words, off, &mut hout).unwrap();
        for i in 0..n {
            assert_eq!(hout[i], htable[expect_index(&words, off + i, W)]);
        }
    }
}

fn expect_index(words: &[u64], i: usize, w: u32) -> usize {
    ref_get(words, i, w) as usize
}

fn check_decode_with<const W: u32>() {
    let mut rng = Rng::new(W as u64 * 8000);
    let f = |c: u8| f32::from_bits((c as u32).wrapping_mul(0x0101_0101) & 0x7f7f_ffff);
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate() {
        let words = data(&mut rng, super::words_for(W, off + n), case);
        let expect: Vec<u32> = (0..n)
            .map(|i| f(ref_get(&words, off + i, W) as u8).to_bits())
            .collect();
        let mut out = vec![-1.0f32; n];
        super::decode_with(W, f, &words, off, &mut out).unwrap();
        let bits: Vec<u32> = out.iter().map(|x| x.to_bits()).collect();
        assert!(
            bits == expect,
            "decode_with W={W} public: len {n} offset {off}"
        );
        let mut out = vec![-1.0f32; n];
        let map = |c: &[u8], o: &mut [f32]| scalar::map_values(&f, c, o);
        scalar::decode_map_chunks(scalar::unpack::<W, u8>, map, &words, off, &mut out);
        let bits: Vec<u32> = out.iter().map(|x| x.to_bits()).collect();
        assert!(
            bits == expect,
            "decode_with W={W} portable: len {n} offset {off}"
        );
    }
}

fn check_encode<const W: u32>() {
    let mut rng = Rng::new(W as u64 * 9000);
    // A branch-free code function with bits above W set.
    let code = |x: f32| (x.to_bits().wrapping_mul(0x9E37_79B9) >> 24) as u8;
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate() {
        let before = data(&mut rng, super::words_for(W, off + n), case + 1);
        let src: Vec<f32> = (0..n)
            .map(|_| f32::from_bits(rng.next() as u32 & 0x7f7f_ffff))
            .collect();
        let mut expect = before.clone();
        for (i, &s) in src.iter().enumerate() {
            ref_set(&mut expect, off + i, W, code(s) as u128);
        }
        let mut words = before.clone();
        super::encode(W, &src, code, &mut words, off).unwrap();
        assert_eq!(words, expect, "encode W={W} public: len {n} offset {off}");
        let mut words = before.clone();
        let map = |s: &[f32], c: &mut [u8]| scalar::map_codes(&code, s, c);
        scalar::encode_chunks(map, scalar::pack::<W, u8>, &src, &mut words, off);
        assert_eq!(words, expect, "encode W={W} portable: len {n} offset {off}");
    }
}

// ---------------------------------------------------------------------------
// one test per width
// ---------------------------------------------------------------------------

/// One `#[test]` per width: `test_widths!(module, check::<W, extra>, up_to)`.
macro_rules! test_widths {
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

test_widths!(unpack_u8, check_unpack, u8; 8);
test_widths!(unpack_u16, check_unpack, u16; 16);
test_widths!(unpack_u32, check_unpack, u32; 32);
test_widths!(unpack_u64, check_unpack, u64; 64);
test_widths!(unpack_u128_narrow, check_unpack_wide; 64);
test_widths!(unpack_u128, check_unpack_wide; 65..=128);
test_widths!(pack_u8, check_pack, u8; 8);
test_widths!(pack_u16, check_pack, u16; 16);
test_widths!(pack_u32, check_pack, u32; 32);
test_widths!(pack_u64, check_pack, u64; 64);
test_widths!(pack_u128_narrow, check_pack_wide; 64);
test_widths!(pack_u128, check_pack_wide; 65..=128);
test_widths!(sum, check_sum; 64);
test_widths!(decode, check_decode; 16);
test_widths!(decode_with, check_decode_with; 8);
test_widths!(encode, check_encode; 8);

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
        "x86 AVX-512: f={} bw={} vbmi={} vbmi2={} (variants needing a missing one are skipped)",
        f & x86::AVX512F != 0,
        f & x86::AVX512BW != 0,
        f & x86::AVX512VBMI != 0,
        f & x86::AVX512VBMI2 != 0
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
/// this target). `limit_features(0)` hides them from the dispatch.
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
    assert_eq!(widths("sum", &aarch64::SUM), upto(8));
    assert_eq!(widths("decode_x32", &aarch64::DECODE_X32), upto(4));
    assert!(aarch64::SUM.get(3).is_some());
    // The mask is global: other tests running meanwhile only take the
    // (equally checked) portable path while it is 0.
    aarch64::limit_features(0);
    let hidden = aarch64::SUM.get(3).is_none() && aarch64::UNPACK_U8.get(5).is_none();
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

mod minifloat {
    use std::vec::Vec;

    use super::Rng;
    use crate::float::{MiniFloat, Mode};
    use crate::kernels::minifloat::{
        decode_codes, decode_fast, decode_fast_ok, encode_fast, encode_fast_ok, f16_ok,
    };
    use crate::{E2M1, E2M3, E3M2, E4M3, E5M2, E8M0};

    /// The bits of `x` to compare, with every NaN the same: Rust does not
    /// promise the sign or payload of a NaN that float operations produce
    /// (Miri picks them at random), so NaN-ness is what is checked there.
    fn key(x: f32) -> u32 {
        if x.is_nan() { u32::MAX } else { x.to_bits() }
    }

    /// Every code: the branch-free decode, and every path of
    /// `decode_codes`, against the format's own decode, bit for bit.
    fn check_decode<F: MiniFloat>() {
        let f = F::FORMAT;
        let codes: Vec<u8> = (0..=255u8).collect();
        let expect: Vec<u32> = codes.iter().map(|&c| key(f.decode_f32(c as u32))).collect();
        if decode_fast_ok(&f) {
            for &c in &codes {
                assert_eq!(
                    key(decode_fast::<F>(c)),
                    expect[c as usize],
                    "{f:?} decode_fast {c:#x}"
                );
            }
        }
        let table: Vec<f32> = codes.iter().map(|&c| f.decode_f32(c as u32)).collect();
        let mut out = std::vec![0f32; 256];
        decode_codes::<F>(&codes, &mut out, |c| table[c as usize]);
        let bits: Vec<u32> = out.iter().map(|&x| key(x)).collect();
        assert_eq!(bits, expect, "{f:?} decode_codes");
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        {
            use crate::kernels::x86;
            type Dec = unsafe fn(&[u8], &mut [f32]);
            let builds: [(&str, u32, Dec); 2] = [
                ("decode_f16c", x86::AVX2_F16C, x86::decode_f16c::<F>),
                (
                    "decode_f16c_avx512",
                    x86::AVX512_BW,
                    x86::decode_f16c_avx512::<F>,
                ),
            ];
            for (name, need, dec) in builds {
                if !f16_ok(&f) {
                    break;
                }
                if x86::detected() & need != need {
                    std::eprintln!("skipped: {name} for {f:?} (the CPU lacks it)");
                    continue;
                }
                // Tails of every size around the 16- and 32-code steps.
                for n in [0usize, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 256] {
                    let mut out = std::vec![0f32; n];
                    // SAFETY: the CPU has every feature of the build
                    // (checked above).
                    unsafe { dec(&codes[..n], &mut out) };
                    let bits: Vec<u32> = out.iter().map(|&x| key(x)).collect();
                    assert_eq!(bits, expect[..n], "{f:?} {name}, {n} codes");
                }
            }
        }
        #[cfg(all(simd_variants, target_arch = "aarch64"))]
        if decode_fast_ok(&f) && !crate::kernels::minifloat::e8m0_ok(&f) {
            for n in [0usize, 1, 15, 16, 17, 100, 256] {
                let mut out = std::vec![0f32; n];
                // SAFETY: NEON, all it enables, is in this target's cfg.
                unsafe { crate::kernels::aarch64::decode_f32_neon::<F>(&codes[..n], &mut out) };
                let bits: Vec<u32> = out.iter().map(|&x| key(x)).collect();
                assert_eq!(bits, expect[..n], "{f:?} decode_f32_neon, {n} codes");
            }
        }
        let _ = f16_ok(&f);
    }

    /// Inputs around every value and every rounding boundary of the format,
    /// special values, and a sweep of the whole `f32` range.
    fn inputs<F: MiniFloat>() -> Vec<f32> {
        let f = F::FORMAT;
        let mut vals: Vec<f32> = (0..1u32 << f.bits())
            .map(|c| f.decode_f32(c))
            .filter(|v| v.is_finite())
            .collect();
        vals.sort_by(f32::total_cmp);
        let mut out = Vec::new();
        let near = |x: f32, out: &mut Vec<f32>| {
            let b = x.to_bits();
            for d in [-2i64, -1, 0, 1, 2] {
                let nb = b as i64 + d;
                if (0..=u32::MAX as i64).contains(&nb) {
                    out.push(f32::from_bits(nb as u32));
                }
            }
        };
        for w in vals.windows(2) {
            near(w[0], &mut out);
            near((w[0] as f64 / 2.0 + w[1] as f64 / 2.0) as f32, &mut out);
        }
        if let Some(&top) = vals.last() {
            // Beyond the largest value: the overflow boundary and far above.
            let step = top - vals[vals.len() - 2];
            near(top + step / 2.0, &mut out);
            near(top + step, &mut out);
            near(top * 4.0, &mut out);
        }
        for x in [
            0.0f32,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x007f_ffff),
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            f32::from_bits(0x7f80_0001),
            f32::from_bits(0x7fff_ffff),
        ] {
            out.push(x);
            out.push(-x);
        }
        let mut rng = Rng::new(f.bits() as u64 * 31 + f.mantissa_bits as u64);
        for k in 0..(1u64 << 20) {
            out.push(f32::from_bits(
                (k as u32).wrapping_mul(4099) ^ rng.next() as u32 & 0xff,
            ));
        }
        out
    }

    /// The checks of the SIMD encode builds, on the targets that have some.
    #[cfg(simd_variants)]
    mod build {
        use std::vec::Vec;

        use crate::float::MiniFloat;

        /// A SIMD build of the encode: codes to bytes and, for 4-bit formats,
        /// to nibble pairs, each in both modes.
        pub(super) type Enc = unsafe fn(&[f32], &mut [u8]);

        /// Runs one build of the encode (`[nearest, satfinite, nearest nibble
        /// pairs, satfinite nibble pairs]`) against the rounding routine's codes
        /// `near` and `sat` of `xs`, on lengths that leave tails of every size
        /// around the 16-, 32- and 64-value steps, and on the whole set.
        ///
        /// # Safety
        ///
        /// The CPU must have every feature the four functions enable.
        pub(super) unsafe fn check_encode_build<F: MiniFloat>(
            name: &str,
            [enc, enc_sat, enc4, enc4_sat]: [Enc; 4],
            xs: &[f32],
            near: &[u8],
            sat: &[u8],
        ) {
            let f = F::FORMAT;
            let packed = |c: &[u8]| -> Vec<u8> {
                c.chunks(2)
                    .map(|p| p[0] | p.get(1).map_or(0, |h| h << 4))
                    .collect()
            };
            for n in [
                0usize,
                1,
                15,
                16,
                17,
                31,
                32,
                33,
                63,
                64,
                65,
                100,
                129,
                xs.len(),
            ] {
                let mut out = std::vec![0u8; n];
                // SAFETY: the caller guarantees the features of the build.
                unsafe { enc(&xs[..n], &mut out) };
                assert_eq!(
                    out,
                    near[..n],
                    "{f:?} encode_f32_{name} nearest, {n} values"
                );
                // SAFETY: as above.
                unsafe { enc_sat(&xs[..n], &mut out) };
                assert_eq!(
                    out,
                    sat[..n],
                    "{f:?} encode_f32_{name} satfinite, {n} values"
                );
                if f.bits() == 4 {
                    let mut out = std::vec![0u8; n.div_ceil(2)];
                    // SAFETY: as above.
                    unsafe { enc4(&xs[..n], &mut out) };
                    assert_eq!(
                        out,
                        packed(&near[..n]),
                        "{f:?} encode4_{name} nearest, {n} values"
                    );
                    // SAFETY: as above.
                    unsafe { enc4_sat(&xs[..n], &mut out) };
                    assert_eq!(
                        out,
                        packed(&sat[..n]),
                        "{f:?} encode4_{name} satfinite, {n} values"
                    );
                }
            }
        }
    }

    fn check_encode<F: MiniFloat>() {
        let f = F::FORMAT;
        if !encode_fast_ok(&f) {
            return;
        }
        let xs = inputs::<F>();
        let near: Vec<u8> = xs
            .iter()
            .map(|&x| f.encode_f32(x, Mode::Nearest) as u8)
            .collect();
        let sat: Vec<u8> = xs
            .iter()
            .map(|&x| f.encode_f32(x, Mode::SatFinite) as u8)
            .collect();
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        {
            use crate::kernels::x86;
            let builds: [(&str, u32, [build::Enc; 4]); 2] = [
                (
                    "avx2",
                    x86::AVX2,
                    [
                        x86::encode_f32_avx2::<F, false>,
                        x86::encode_f32_avx2::<F, true>,
                        x86::encode4_f32_avx2::<F, false>,
                        x86::encode4_f32_avx2::<F, true>,
                    ],
                ),
                (
                    "avx512",
                    x86::AVX512_BW,
                    [
                        x86::encode_f32_avx512::<F, false>,
                        x86::encode_f32_avx512::<F, true>,
                        x86::encode4_f32_avx512::<F, false>,
                        x86::encode4_f32_avx512::<F, true>,
                    ],
                ),
            ];
            for (name, need, fns) in builds {
                if x86::detected() & need != need {
                    std::eprintln!("skipped: encode_f32_{name} for {f:?} (the CPU lacks it)");
                    continue;
                }
                // SAFETY: the CPU has every feature of the build (checked
                // just above).
                unsafe { build::check_encode_build::<F>(name, fns, &xs, &near, &sat) };
            }
        }
        #[cfg(all(simd_variants, target_arch = "aarch64"))]
        {
            use crate::kernels::aarch64::{encode_f32_neon, encode4_f32_neon};
            let fns: [build::Enc; 4] = [
                encode_f32_neon::<F, false>,
                encode_f32_neon::<F, true>,
                encode4_f32_neon::<F, false>,
                encode4_f32_neon::<F, true>,
            ];
            // SAFETY: NEON, all the build enables, is in this target's cfg.
            unsafe { build::check_encode_build::<F>("neon", fns, &xs, &near, &sat) };
        }
        for (i, &x) in xs.iter().enumerate() {
            assert_eq!(
                encode_fast::<F, false>(x),
                near[i],
                "{f:?} nearest {x:e} ({:#x})",
                x.to_bits()
            );
            assert_eq!(
                encode_fast::<F, true>(x),
                sat[i],
                "{f:?} satfinite {x:e} ({:#x})",
                x.to_bits()
            );
        }
    }

    /// `encode_words` and `decode_words` at every small offset and length
    /// against the routine and the format's decode, value by value.
    fn check_words<F: MiniFloat>() {
        use crate::kernels::minifloat::{decode_words, encode_words};
        let f = F::FORMAT;
        let w = f.bits();
        let table: [f32; 256] = core::array::from_fn(|c| f.decode_f32(c as u32));
        let mut rng = Rng::new(w as u64 * 101);
        for off in 0..5usize {
            for n in (0..70usize).chain([255, 256, 257, 1000, 1025]) {
                let src: Vec<f32> = (0..n)
                    .map(|_| match rng.next() % 16 {
                        0 => f32::NAN,
                        1 => f32::NEG_INFINITY,
                        2 => 1e30,
                        3 => 1e-30,
                        _ => (rng.next() % 2000) as f32 / 64.0 - 15.0,
                    })
                    .collect();
                let nw = super::super::words_for(w, off + n) + 1;
                let before = rng.words(nw);
                for sat in [false, true] {
                    let mode = if sat { Mode::SatFinite } else { Mode::Nearest };
                    let mut expect = before.clone();
                    for (i, &x) in src.iter().enumerate() {
                        super::ref_set(&mut expect, off + i, w, f.encode_f32(x, mode) as u128);
                    }
                    let mut words = before.clone();
                    encode_words::<F>(&src, sat, &mut words, off);
                    assert_eq!(
                        words, expect,
                        "{f:?} encode_words sat={sat} offset {off} len {n}"
                    );
                }
                let mut out = std::vec![0f32; n];
                decode_words::<F>(&before, off, &mut out, &table);
                for (i, x) in out.iter().enumerate() {
                    let code = super::ref_get(&before, off + i, w) as u32;
                    assert_eq!(key(*x), key(f.decode_f32(code)), "{f:?} decode_words");
                }
            }
        }
    }

    #[test]
    fn words_paths_match_the_routine() {
        check_words::<E2M1>();
        check_words::<E2M3>();
        check_words::<E3M2>();
        check_words::<E4M3>();
        check_words::<E5M2>();
        check_words::<E8M0>();
    }

    #[test]
    fn coverage_of_the_fast_paths() {
        // Every shipped format but E8M0 (no zero, ties away) is covered.
        assert!(encode_fast_ok(&E2M1::FORMAT) && encode_fast_ok(&E4M3::FORMAT));
        assert!(encode_fast_ok(&E2M3::FORMAT) && encode_fast_ok(&E3M2::FORMAT));
        assert!(encode_fast_ok(&E5M2::FORMAT) && !encode_fast_ok(&E8M0::FORMAT));
        assert!(decode_fast_ok(&E4M3::FORMAT) && !decode_fast_ok(&E8M0::FORMAT));
        assert!(f16_ok(&E4M3::FORMAT) && f16_ok(&E5M2::FORMAT) && f16_ok(&E3M2::FORMAT));
    }

    #[test]
    fn decode_every_code() {
        check_decode::<E2M1>();
        check_decode::<E2M3>();
        check_decode::<E3M2>();
        check_decode::<E4M3>();
        check_decode::<E5M2>();
        check_decode::<E8M0>();
    }

    /// One test per format.
    macro_rules! encode_tests {
        ($($name:ident: $f:ty),*) => {
            $( #[test] fn $name() { check_encode::<$f>(); } )*
        };
    }
    encode_tests!(encode_e2m1: E2M1, encode_e2m3: E2M3, encode_e3m2: E3M2, encode_e4m3: E4M3, encode_e5m2: E5M2);
}
