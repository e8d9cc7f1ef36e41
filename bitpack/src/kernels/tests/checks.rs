//! The checks behind the width-by-width tests of `test_widths!`: each kernel
//! family's variants (portable, public, and every SIMD variant this CPU runs)
//! against the bit-at-a-time reference.

use super::*;

/// Pushes onto `$v` the SIMD variants (by [`runnable`]) of the table of
/// `U`'s lane type among `$t8 $t16 $t32 $t64` (the `u8`, `u16`, `u32` and
/// `u64` tables), each wrapped by `|$f| $wrap` into a `$boxed`.
#[cfg(simd_variants)]
macro_rules! lane_variants {
    ($v:ident, $boxed:ty; $t8:ident $t16:ident $t32:ident $t64:ident; |$f:ident| $wrap:expr) => {
        use crate::kernels::dispatch::simd;
        match <U as Lane>::BITS {
            8 => $v.extend(runnable(&simd::$t8, W, |$f| -> $boxed { $wrap })),
            16 => $v.extend(runnable(&simd::$t16, W, |$f| -> $boxed { $wrap })),
            32 => $v.extend(runnable(&simd::$t32, W, |$f| -> $boxed { $wrap })),
            64 => $v.extend(runnable(&simd::$t64, W, |$f| -> $boxed { $wrap })),
            _ => {}
        }
    };
}

// ---------------------------------------------------------------------------
// unpack
// ---------------------------------------------------------------------------

type UnpackFn<'a, U> = std::boxed::Box<dyn Fn(&[u64], usize, &mut [U]) + 'a>;
type Unpack<'a, U> = (String, UnpackFn<'a, U>);

fn unpack_variants<const W: u32, U: Lane + crate::kernels::Unsigned>() -> Vec<Unpack<'static, U>> {
    let mut v: Vec<Unpack<'static, U>> = vec![
        (
            "scalar".into(),
            std::boxed::Box::new(scalar::unpack::<W, U>),
        ),
        (
            "public".into(),
            std::boxed::Box::new(|w: &[u64], o: usize, d: &mut [U]| {
                crate::kernels::unpack(W, w, o, d).unwrap()
            }),
        ),
    ];
    #[cfg(simd_variants)]
    lane_variants!(v, UnpackFn<'static, U>; UNPACK_U8 UNPACK_U16 UNPACK_U32 UNPACK_U64; |f| {
        std::boxed::Box::new(move |w: &[u64], o: usize, d: &mut [U]| {
            // SAFETY: `runnable` passes only the variants whose features
            // this CPU has.
            unsafe { f(w, o, bytemuck::cast_slice_mut(d)) }
        })
    });
    v
}

pub(super) fn check_unpack<const W: u32, U: Lane + crate::kernels::Unsigned>() {
    let mut rng = Rng::new(W as u64 * 1000 + <U as Lane>::BITS as u64);
    let variants = unpack_variants::<W, U>();
    let mut cases: Vec<(usize, usize, usize)> = cases(&mut rng)
        .into_iter()
        .map(|(n, off)| (n, off, rng.below(64 / size_of::<U>())))
        .collect();
    if cfg!(miri) && <U as Lane>::BITS == 32 && W > 14 && W % 2 == 1 {
        // Under Miri, which checks every access of the SIMD variants, calls
        // long enough for the head to reach a line (`LINE_HEAD_MIN` is 64
        // there), at every place in a line: some start the steps at bit 4
        // of a byte, where the AVX2 steps of an odd `W` above 14 read their
        // second window a byte on.
        cases.extend((0..16).map(|lead| (200, 5, lead)));
    }
    for (case, (n, off, lead)) in cases.into_iter().enumerate() {
        // One spare word so kernels may not rely on the exact length.
        let nw = crate::kernels::words_for(W, off + n) + case % 2;
        let words = data(&mut rng, nw, case);
        let expect: Vec<u64> = (0..n).map(|i| ref_get(&words, off + i, W) as u64).collect();
        // The output starts `lead` values into a buffer (so at a random
        // place in a cache line: where the SIMD steps start depends on it),
        // between guard values that must survive.
        for (name, f) in &variants {
            let guarded: Vec<U> = (0..lead + n + 8).map(|_| U::from_u64(rng.next())).collect();
            let mut buf = guarded.clone();
            f(&words, off, &mut buf[lead..lead + n]);
            let out = &buf[lead..lead + n];
            for i in 0..n {
                assert_eq!(
                    out[i].to_u64(),
                    expect[i],
                    "unpack W={W} U=u{} {name}: len {n} offset {off} lead {lead} element {i}",
                    <U as Lane>::BITS
                );
            }
            assert!(
                buf[..lead] == guarded[..lead] && buf[lead + n..] == guarded[lead + n..],
                "unpack W={W} U=u{} {name}: len {n} offset {off} lead {lead}: wrote outside",
                <U as Lane>::BITS
            );
        }
    }
}

pub(super) fn check_unpack_wide<const W: u32>() {
    let mut rng = Rng::new(W as u64 * 77);
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate().step_by(3) {
        let words = data(&mut rng, crate::kernels::words_for(W, off + n), case);
        let mut out = vec![0u128; n];
        scalar::unpack_wide::<W>(&words, off, &mut out);
        let mut public = vec![7u128; n];
        crate::kernels::unpack(W, &words, off, &mut public).unwrap();
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

type PackFn<'a, U> = std::boxed::Box<dyn Fn(&[U], &mut [u64], usize) + 'a>;
type Pack<'a, U> = (String, PackFn<'a, U>);

fn pack_variants<const W: u32, U: Lane + crate::kernels::Unsigned>() -> Vec<Pack<'static, U>> {
    let mut v: Vec<Pack<'static, U>> = vec![
        ("scalar".into(), std::boxed::Box::new(scalar::pack::<W, U>)),
        (
            "public".into(),
            std::boxed::Box::new(|s: &[U], w: &mut [u64], o: usize| {
                crate::kernels::pack(W, s, w, o).unwrap()
            }),
        ),
    ];
    #[cfg(simd_variants)]
    lane_variants!(v, PackFn<'static, U>; PACK_U8 PACK_U16 PACK_U32 PACK_U64; |f| {
        std::boxed::Box::new(move |s: &[U], w: &mut [u64], o: usize| {
            // SAFETY: `runnable` passes only the variants whose features
            // this CPU has.
            unsafe { f(bytemuck::cast_slice(s), w, o) }
        })
    });
    v
}

pub(super) fn check_pack<const W: u32, U: Lane + crate::kernels::Unsigned>() {
    let mut rng = Rng::new(W as u64 * 3000 + <U as Lane>::BITS as u64);
    let variants = pack_variants::<W, U>();
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate() {
        let nw = crate::kernels::words_for(W, off + n) + case % 2;
        // Garbage around the written range must survive; source values carry
        // random bits above the width, which must be ignored.
        let before = data(&mut rng, nw, case + 1);
        // The source starts at a random place in a cache line (where the
        // SIMD steps start depends on it).
        let lead = rng.below(64 / size_of::<U>());
        let buf: Vec<U> = (0..lead + n).map(|_| U::from_u64(rng.next())).collect();
        let src = &buf[lead..];
        let mut expect = before.clone();
        for (i, s) in src.iter().enumerate() {
            ref_set(&mut expect, off + i, W, s.to_u64() as u128);
        }
        for (name, f) in &variants {
            let mut words = before.clone();
            f(src, &mut words, off);
            assert!(
                words == expect,
                "pack W={W} U=u{} {name}: len {n} offset {off} lead {lead}: first wrong word {:?}",
                <U as Lane>::BITS,
                words.iter().zip(&expect).position(|(a, b)| a != b)
            );
        }
    }
}

pub(super) fn check_pack_wide<const W: u32>() {
    let mut rng = Rng::new(W as u64 * 91);
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate().step_by(3) {
        let before = data(&mut rng, crate::kernels::words_for(W, off + n), case + 1);
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
        crate::kernels::pack(W, &src, &mut words, off).unwrap();
        assert_eq!(
            words, expect,
            "pack u128 public W={W}: len {n} offset {off}"
        );
    }
}

// ---------------------------------------------------------------------------
// sum
// ---------------------------------------------------------------------------

type SumFn<'a> = std::boxed::Box<dyn Fn(&[u64], usize, usize) -> u128 + 'a>;
type Sum<'a> = (String, SumFn<'a>);

fn sum_variants<const W: u32>() -> Vec<Sum<'static>> {
    let mut v: Vec<Sum<'static>> = vec![
        ("scalar".into(), std::boxed::Box::new(scalar::sum::<W>)),
        (
            "public".into(),
            std::boxed::Box::new(|w: &[u64], o: usize, n: usize| {
                crate::kernels::sum(W, w, o, n).unwrap()
            }),
        ),
    ];
    if W <= 32 {
        v.push((
            "scalar_extract".into(),
            std::boxed::Box::new(scalar::sum_extract::<W>),
        ));
    }
    #[cfg(simd_variants)]
    v.extend(runnable(
        &crate::kernels::dispatch::simd::SUM,
        W,
        |f| -> SumFn<'static> {
            std::boxed::Box::new(move |w: &[u64], o: usize, n: usize| {
                // SAFETY: `runnable` passes only the variants whose features
                // this CPU has.
                unsafe { f(w, o, n) }
            })
        },
    ));
    v
}

pub(super) fn check_sum<const W: u32>() {
    let mut rng = Rng::new(W as u64 * 5000);
    let variants = sum_variants::<W>();
    // Every variant's sum of `n` values from `off` against the reference;
    // `what` ends the message.
    let check = |words: &[u64], off: usize, n: usize, what: core::fmt::Arguments<'_>| {
        let expect: u128 = (0..n).map(|i| ref_get(words, off + i, W)).sum();
        for (name, f) in &variants {
            assert_eq!(f(words, off, n), expect, "sum W={W} {name}: len {n}{what}");
        }
    };
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate() {
        let nw = crate::kernels::words_for(W, off + n) + case % 2;
        let words = data(&mut rng, nw, case);
        check(&words, off, n, format_args!(" offset {off}"));
    }
    // Two steps of the AVX2 carry-save sum (16 vectors of 32 bytes: 4,096
    // values of 1 bit) and part of a third, from an odd offset: short
    // enough for Miri, which the longer calls below skip.
    if W <= 2 {
        let (off, n) = (3, 2 * 4096 / W as usize + 700);
        let words = rng.words(crate::kernels::words_for(W, off + n));
        check(&words, off, n, format_args!(" offset {off}"));
    }
    // Random values long enough for several whole rounds of the longest
    // loops (16 steps of 5 vectors: 8,192 values of 5 bits for the
    // carry-save sum), at offsets before, at and after a word's start, and
    // from each of the 8 words of a cache line (the carry-save sum starts
    // its steps on a line, wherever that falls in a value).
    if !cfg!(miri) {
        let offs = [0, 1, 64, 64 + rng.below(64)];
        let more: Vec<usize> = (0..8).map(|_| rng.below(200)).collect();
        for (k, off) in offs.into_iter().chain(more).enumerate() {
            let n = 40_000 + rng.below(30_000);
            let skip = k.saturating_sub(offs.len());
            let buf = rng.words(crate::kernels::words_for(W, off + n) + skip);
            check(
                &buf[skip..],
                off,
                n,
                format_args!(" offset {off} from word {skip}"),
            );
        }
        // Runs of the carry-save trees (16 steps; 8,192 values at 5 bits,
        // whose steps are 512 values) in blocks of 4, which two trees
        // take in turn: whole blocks, a block and a partial one of an odd
        // or even number of runs, each with 0, 1, 7 or 15 steps after the
        // last whole run (one step fewer where the first line falls after
        // the call's first word), and one value more or less.
        for (runs, rest) in [
            (4, 0),
            (4, 1),
            (3, 7),
            (5, 15),
            (8, 1),
            (7, 0),
            (2, 3),
            (1, 0),
        ] {
            let steps = 16 * runs + rest;
            for n in [steps * 512 - 1, steps * 512 + 1] {
                let words = rng.words(crate::kernels::words_for(W, n) + 1);
                check(&words, 0, n, format_args!(" ({runs} runs, {rest} steps)"));
            }
        }
    }
    // Streams at and just past the longest the AVX-512 carry-save sum
    // takes by its trees (`csa_max_bytes`; a longer one takes the byte sum
    // or the digit fold), from offsets 0 and 5: every SIMD variant and the
    // public call against the portable sum (checked against the reference
    // above; the bit-at-a-time reference would take seconds here).
    #[cfg(all(simd_variants, target_arch = "x86_64"))]
    if !cfg!(miri) && (2..=6).contains(&W) {
        let bits = 8 * crate::kernels::x86::csa_max_bytes(W);
        let long = bits / W as usize + 64;
        let words = rng.words(crate::kernels::words_for(W, long + 5));
        for (off, n) in [(0, bits / W as usize - 8), (0, long), (5, long - 5)] {
            let expect = scalar::sum::<W>(&words, off, n);
            for (name, f) in variants
                .iter()
                .filter(|(name, _)| !name.starts_with("scalar"))
            {
                assert_eq!(
                    f(&words, off, n),
                    expect,
                    "sum W={W} {name}: len {n} offset {off}"
                );
            }
        }
    }
    // Extremes: 2^20 values of 2^W - 1 sum exactly, at offsets 0, 1 and 63
    // (2^10 under Miri, which interprets every access); at 16 bits 2^22,
    // past two batches of the wide sums' 32-bit lanes (65,536 steps of 32
    // or 64 bytes each).
    let n = if cfg!(miri) {
        1usize << 10
    } else if W == 16 {
        (1usize << 22) + 1000
    } else {
        1usize << 20
    };
    for off in [0usize, 1, 63] {
        let words = vec![u64::MAX; crate::kernels::words_for(W, off + n)];
        let expect = n as u128 * scalar::mask64(W) as u128;
        for (name, f) in &variants {
            assert_eq!(
                f(&words, off, n),
                expect,
                "sum W={W} {name}: {n} all-ones, offset {off}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// decode and encode
// ---------------------------------------------------------------------------

pub(super) fn check_decode<const W: u32>() {
    let mut rng = Rng::new(W as u64 * 7000);
    let table: Vec<u32> = (0..1usize << W).map(|_| rng.next() as u32).collect();
    let ftable: Vec<f32> = table
        .iter()
        .map(|&b| f32::from_bits(b & 0x7fbf_ffff))
        .collect();
    type DecodeFn = std::boxed::Box<dyn Fn(&[u64], usize, &[u32], &mut [u32])>;
    type Dec = (String, DecodeFn);
    let mut variants: Vec<Dec> = vec![
        (
            "generic".into(),
            std::boxed::Box::new(|w: &[u64], o: usize, t: &[u32], d: &mut [u32]| {
                crate::kernels::decode_generic(W, w, o, t, d)
            }),
        ),
        (
            "public".into(),
            std::boxed::Box::new(|w: &[u64], o: usize, t: &[u32], d: &mut [u32]| {
                crate::kernels::decode(W, t, w, o, d).unwrap()
            }),
        ),
    ];
    #[cfg(simd_variants)]
    variants.extend(runnable(
        &crate::kernels::dispatch::simd::DECODE_X32,
        W,
        |f| -> DecodeFn {
            std::boxed::Box::new(move |w: &[u64], o: usize, t: &[u32], d: &mut [u32]| {
                // SAFETY: `runnable` passes only the variants whose features
                // this CPU has.
                unsafe { f(w, o, t, d) }
            })
        },
    ));
    // Tables whose values end in 16 zero bits (the `f32`s of small float
    // formats) take their own path in some variants (`decode_nib_avx2`).
    let high: Vec<u32> = table.iter().map(|&b| b & 0xffff_0000).collect();
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate() {
        let words = data(&mut rng, crate::kernels::words_for(W, off + n), case);
        for (kind, table) in [("random", &table), ("high-half", &high)] {
            let expect: Vec<u32> = (0..n)
                .map(|i| table[ref_get(&words, off + i, W) as usize])
                .collect();
            // The output at a random place in a cache line, between guards.
            let lead = rng.below(16);
            for (name, f) in &variants {
                let mut buf = vec![0xdead_beefu32; lead + n + 4];
                f(&words, off, table, &mut buf[lead..lead + n]);
                assert!(
                    buf[lead..lead + n] == expect[..],
                    "decode W={W} {name} ({kind} table): len {n} offset {off} lead {lead}"
                );
                assert!(
                    buf[..lead]
                        .iter()
                        .chain(&buf[lead + n..])
                        .all(|&x| x == 0xdead_beef),
                    "decode W={W} {name} ({kind} table): len {n} offset {off} lead {lead}: \
                     wrote outside"
                );
            }
        }
        // f32 and 2-byte outputs through the public function.
        let mut fout = vec![0.0f32; n];
        crate::kernels::decode(W, &ftable, &words, off, &mut fout).unwrap();
        for i in 0..n {
            assert_eq!(
                fout[i].to_bits(),
                ftable[expect_index(&words, off + i, W)].to_bits()
            );
        }
        let htable: Vec<u16> = table.iter().map(|&b| b as u16).collect();
        let mut hout = vec![0u16; n];
        crate::kernels::decode(W, &htable, &words, off, &mut hout).unwrap();
        for i in 0..n {
            assert_eq!(hout[i], htable[expect_index(&words, off + i, W)]);
        }
    }
}

fn expect_index(words: &[u64], i: usize, w: u32) -> usize {
    ref_get(words, i, w) as usize
}

pub(super) fn check_decode_with<const W: u32>() {
    let mut rng = Rng::new(W as u64 * 8000);
    let f = |c: u8| f32::from_bits((c as u32).wrapping_mul(0x0101_0101) & 0x7f7f_ffff);
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate() {
        let words = data(&mut rng, crate::kernels::words_for(W, off + n), case);
        let expect: Vec<u32> = (0..n)
            .map(|i| f(ref_get(&words, off + i, W) as u8).to_bits())
            .collect();
        let mut out = vec![-1.0f32; n];
        crate::kernels::decode_with(W, f, &words, off, &mut out).unwrap();
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

pub(super) fn check_encode<const W: u32>() {
    let mut rng = Rng::new(W as u64 * 9000);
    // A branch-free code function with bits above W set.
    let code = |x: f32| (x.to_bits().wrapping_mul(0x9E37_79B9) >> 24) as u8;
    for (case, (n, off)) in cases(&mut rng).into_iter().enumerate() {
        let before = data(&mut rng, crate::kernels::words_for(W, off + n), case + 1);
        let src: Vec<f32> = (0..n)
            .map(|_| f32::from_bits(rng.next() as u32 & 0x7f7f_ffff))
            .collect();
        let mut expect = before.clone();
        for (i, &s) in src.iter().enumerate() {
            ref_set(&mut expect, off + i, W, code(s) as u128);
        }
        let mut words = before.clone();
        crate::kernels::encode(W, &src, code, &mut words, off).unwrap();
        assert_eq!(words, expect, "encode W={W} public: len {n} offset {off}");
        let mut words = before.clone();
        let map = |s: &[f32], c: &mut [u8]| scalar::map_codes(&code, s, c);
        scalar::encode_chunks(map, scalar::pack::<W, u8>, &src, &mut words, off);
        assert_eq!(words, expect, "encode W={W} portable: len {n} offset {off}");
    }
}
