//! The GPU kernel bodies of `bitpack::kernels::gpu`, run on a simulated grid
//! (`bitpack_tests::simt_sim`) on the host: every thread of every block,
//! with the buffers' bounds and one writer per byte checked, bit-exact
//! against the host kernels.

use bitpack::kernels::simt::{Simt, grid_stride, lane, warp_max_u32, warp_sum_u64};
use bitpack_tests::simt_sim::{Grid, Launch};

/// The simulator itself: shuffles, the barrier and the access checks.
mod simulator {
    use super::*;

    #[test]
    fn shuffles_and_barrier_exchange_between_threads() {
        let mut out = vec![0u64; 4 * 128];
        let mut l = Launch::new();
        let o = l.output("out", &mut out);
        l.run(Grid::new(2, 64), |t| {
            let g = bitpack::kernels::simt::global_thread(t);
            let s = warp_sum_u64(t, g as u64 + (1 << 40));
            let m = warp_max_u32(t, g as u32 * 7 % 31);
            let x = t.shfl_xor_u32(g as u32, 1);
            let i = t.shfl_idx_u32(g as u32, 5);
            t.sync_threads();
            let first = if lane(t) == 0 { s } else { 0 };
            for (k, v) in [first, m as u64, x as u64, i as u64]
                .into_iter()
                .enumerate()
            {
                // SAFETY: four values per thread, each thread its own.
                unsafe { t.store(o.get(), 4 * g + k, v) };
            }
        });
        drop(l);
        for g in 0..128usize {
            let w = g / 32 * 32;
            let sum: u64 = (w..w + 32).map(|k| k as u64 + (1 << 40)).sum();
            let max = (w..w + 32).map(|k| (k * 7 % 31) as u64).max().unwrap();
            assert_eq!(out[4 * g], if g % 32 == 0 { sum } else { 0 }, "thread {g}");
            assert_eq!(out[4 * g + 1], max, "thread {g}");
            assert_eq!(out[4 * g + 2], (g ^ 1) as u64, "thread {g}");
            assert_eq!(out[4 * g + 3], (w + 5) as u64, "thread {g}");
        }
    }

    #[test]
    fn warp_store_puts_each_lanes_chunks_in_lane_order() {
        use bitpack::kernels::simt::U32x4;
        for g in 1..=8usize {
            // Two warps, each storing its 32 lanes' `g` chunks.
            let mut out = vec![U32x4::default(); 2 * 32 * g];
            let mut l = Launch::new();
            let o = l.output("out", &mut out);
            l.run(Grid::new(1, 64), |t| {
                let gt = bitpack::kernels::simt::global_thread(t);
                let mut v = [U32x4::default(); 8];
                for (k, c) in v.iter_mut().enumerate() {
                    *c = U32x4([gt as u32, k as u32, 1000 + g as u32, 7]);
                }
                let base = gt / 32 * 32 * g;
                // The second warp's work ends 5 lanes early.
                let end = 64 * g - 5 * g;
                // SAFETY: each warp its own `32g` chunks, below `end`.
                unsafe { bitpack::kernels::gpu::warp_store(t, o.get(), (base, end), g, &v) };
            });
            drop(l);
            for (i, c) in out.iter().enumerate() {
                let want = if i < 59 * g {
                    U32x4([(i / g) as u32, (i % g) as u32, 1000 + g as u32, 7])
                } else {
                    U32x4::default()
                };
                assert_eq!(*c, want, "g {g}, chunk {i}");
            }
        }
    }

    #[test]
    fn an_access_out_of_bounds_fails_the_launch() {
        let src = vec![1u32; 64];
        let mut dst = vec![0u32; 64];
        let mut l = Launch::new();
        let (s, d) = (l.input("src", &src), l.output("dst", &mut dst));
        let e = l
            .try_run(Grid::new(1, 64), |t| {
                let i = t.thread_idx() as usize;
                // SAFETY: in bounds for every thread but the last, whose
                // read the simulator refuses (the point of the test).
                let v = unsafe { t.load(s.get_const(), i + 1) };
                // SAFETY: `i < 64`, each thread its own element.
                unsafe { t.store(d.get(), i, v) };
            })
            .unwrap_err();
        assert!(
            e.contains("thread 63") && e.contains("reads") && e.contains("`src`"),
            "{e}"
        );
    }

    #[test]
    fn two_writers_of_one_byte_fail_the_launch() {
        let mut dst = vec![0u8; 64];
        let mut l = Launch::new();
        let d = l.output("dst", &mut dst);
        let e = l
            .try_run(Grid::new(2, 32), |t| {
                let i = t.thread_idx() as usize;
                // SAFETY: in bounds; the two blocks write the same bytes
                // (the race the simulator must report).
                unsafe { t.store(d.get(), i, 1u8) };
            })
            .unwrap_err();
        assert!(
            e.contains("also writes") && e.contains("of `dst`") && e.contains("of block 0"),
            "{e}"
        );
    }

    #[test]
    fn a_write_to_an_input_fails_the_launch() {
        let src = vec![0u16; 32];
        let mut l = Launch::new();
        let s = l.input("src", &src);
        let e = l
            .try_run(Grid::new(1, 32), |t| {
                // SAFETY: in bounds; the simulator refuses the write to an
                // input (the point of the test).
                unsafe { t.store(s.get(), t.thread_idx() as usize, 3u16) };
            })
            .unwrap_err();
        assert!(e.contains("input `src`"), "{e}");
    }

    #[test]
    fn a_divergent_shuffle_fails_instead_of_hanging() {
        let l = Launch::new();
        let e = l
            .try_run(Grid::new(1, 32), |t| {
                if t.thread_idx() < 16 {
                    t.shfl_down_u32(1, 1);
                }
            })
            .unwrap_err();
        assert!(e.contains("divergent"), "{e}");
    }

    #[test]
    fn grid_stride_covers_every_unit_once() {
        for (blocks, threads, units) in [(1, 32, 5), (3, 64, 1000), (2, 256, 511)] {
            let mut hits = vec![0u8; units];
            let mut l = Launch::new();
            let h = l.output("hits", &mut hits);
            l.run(Grid::new(blocks, threads), |t| {
                for u in grid_stride(t, units) {
                    // SAFETY: `u < units`; the simulator checks one writer.
                    unsafe { t.store(h.get(), u, 1u8) };
                }
            });
            drop(l);
            assert!(
                hits.iter().all(|&x| x == 1),
                "{blocks} x {threads}, {units} units"
            );
        }
    }
}

/// Every bulk entry point of `bitpack-ptx`, run through its body on the
/// simulator, bit-exact against the host kernels.
mod entries {
    use super::*;
    use bitpack::formats::{E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, MiniFloat, Mode};
    use bitpack::kernels::fixed::Lane;
    use bitpack::kernels::gpu::float::Half;
    use bitpack::kernels::gpu::{self, unit_values};
    use bitpack::kernels::words_for;
    use bitpack_tests::rng;
    use bytemuck::Pod;

    /// The launches every entry runs: `(blocks, threads, units of work as a
    /// multiple of the entry's unit plus a tail, offset of the packed side in
    /// words, offset of the other side in elements)`.
    const CASES: [(u32, u32, usize, usize, usize, usize); 5] = [
        // Fewer threads than units (grid-stride), a tail, aligned.
        (1, 32, 40, 3, 0, 0),
        // Several blocks, misaligned packed side, a value tail.
        (3, 64, 7, 1, 1, 0),
        // Misaligned value side (an odd element offset).
        (2, 96, 9, 5, 0, 3),
        // More threads than units, exact length.
        (1, 256, 2, 0, 0, 0),
        // A few values only, both sides misaligned.
        (2, 128, 0, 7, 1, 1),
    ];

    /// A buffer of `len` `T`s after `off` elements of a 16-byte aligned
    /// allocation: the allocation and the range.
    fn buf<T: Pod>(len: usize, off: usize) -> (Vec<u128>, std::ops::Range<usize>) {
        let bytes = (len + off) * size_of::<T>();
        (vec![0u128; bytes.div_ceil(16) + 1], off..off + len)
    }

    fn view<T: Pod>(b: &mut [u128], len: usize) -> &mut [T] {
        let all: &mut [T] = bytemuck::cast_slice_mut(b);
        &mut all[..len]
    }

    fn unpack_case<const W: u32, U: Lane + bitpack::Unsigned>(name: &str) {
        let v = unit_values(W, size_of::<U>());
        for (k, &(blocks, threads, units, tail, woff, voff)) in CASES.iter().enumerate() {
            let n = units * v + tail;
            let mut r = rng(k as u64 + W as u64 * 31);
            let vals: Vec<U> = (0..n)
                .map(|_| U::from_u64(r() & ((1u64 << W) - 1)))
                .collect();
            let nw = words_for(W, n);
            let (mut wb, wr) = buf::<u64>(nw, woff);
            let words = &mut view::<u64>(&mut wb, wr.end)[wr.clone()];
            bitpack::kernels::pack(W, &vals, words, 0).unwrap();
            let words: &[u64] = words;
            let (mut ob, or) = buf::<U>(n, voff);
            let out = &mut view::<U>(&mut ob, or.end)[or];
            let mut l = Launch::new();
            let (wp, op) = (l.input("words", words), l.output("out", out));
            l.run(Grid::new(blocks, threads), |t| {
                // SAFETY: the buffers hold what the body reads and writes.
                unsafe { gpu::unpack::unpack::<_, W, U>(t, wp.get_const(), n, op.get()) }
            });
            drop(l);
            let mut want = vec![U::default(); n];
            bitpack::kernels::unpack(W, words, 0, &mut want).unwrap();
            assert!(
                out == &want[..],
                "{name}: case {k} (n = {n}) differs from the host"
            );
        }
    }

    fn pack_case<const W: u32, U: Lane + bitpack::Unsigned>(name: &str) {
        let v = unit_values(W, size_of::<U>());
        for (k, &(blocks, threads, units, tail, woff, voff)) in CASES.iter().enumerate() {
            let n = units * v + tail;
            let mut r = rng(k as u64 + W as u64 * 17);
            // Bits above `W` set too: the kernels must ignore them.
            let (mut sb, sr) = buf::<U>(n, voff);
            let src = &mut view::<U>(&mut sb, sr.end)[sr];
            for x in src.iter_mut() {
                *x = U::from_u64(r());
            }
            let src: &[U] = src;
            let nw = words_for(W, n);
            let (mut wb, wr) = buf::<u64>(nw, woff);
            let words = &mut view::<u64>(&mut wb, wr.end)[wr];
            words.fill(u64::MAX);
            let mut l = Launch::new();
            let (sp, wp) = (l.input("src", src), l.output("words", words));
            l.run(Grid::new(blocks, threads), |t| {
                // SAFETY: the buffers hold what the body reads and writes.
                unsafe { gpu::pack::pack::<_, W, U>(t, sp.get_const(), n, wp.get()) }
            });
            drop(l);
            let mut want = vec![0u64; nw];
            let masked: Vec<U> = src
                .iter()
                .map(|x| U::from_u64(x.to_u64() & ((1u64 << W) - 1)))
                .collect();
            bitpack::kernels::pack(W, &masked, &mut want, 0).unwrap();
            assert!(
                words == &want[..],
                "{name}: case {k} (n = {n}) differs from the host"
            );
        }
    }

    fn sum_case<const W: u32>(name: &str) {
        let v = unit_values(W, 16);
        for (k, &(blocks, threads, units, tail, woff, _)) in CASES.iter().enumerate() {
            let n = units * v + tail;
            let mut r = rng(k as u64 + W as u64 * 7);
            let nw = words_for(W, n);
            let (mut wb, wr) = buf::<u64>(nw, woff);
            let words = &mut view::<u64>(&mut wb, wr.end)[wr];
            for x in words.iter_mut() {
                *x = r();
            }
            let words: &[u64] = words;
            let warps = (blocks * threads / 32) as usize;
            let mut partials = vec![u64::MAX; warps];
            let mut total = [0u64];
            let mut l = Launch::new();
            let (wp, pp) = (l.input("words", words), l.output("partials", &mut partials));
            l.run(Grid::new(blocks, threads), |t| {
                // SAFETY: the buffers hold what the body reads and writes.
                unsafe { gpu::sum::sum::<_, W>(t, wp.get_const(), n, pp.get()) }
            });
            drop(l);
            let mut l = Launch::new();
            let (pp, tp) = (l.input("partials", &partials), l.output("out", &mut total));
            l.run(Grid::new(1, 32), |t| {
                // SAFETY: the buffers hold what the body reads and writes.
                unsafe { gpu::sum::sum_partials(t, pp.get_const(), warps, tp.get()) }
            });
            drop(l);
            let want = bitpack::kernels::sum(W, words, 0, n).unwrap();
            assert_eq!(total[0], want as u64, "{name}: case {k} (n = {n})");
        }
    }

    fn sum_partials_case(name: &str) {
        for (k, &(blocks, threads, units, tail, woff, _)) in CASES.iter().enumerate() {
            let n = units * 2 + tail;
            let mut r = rng(k as u64 + 99);
            let (mut pb, pr) = buf::<u64>(n, woff);
            let parts = &mut view::<u64>(&mut pb, pr.end)[pr];
            for x in parts.iter_mut() {
                *x = r() >> 8;
            }
            let parts: &[u64] = parts;
            let mut out = [0u64];
            let mut l = Launch::new();
            let (pp, op) = (l.input("partials", parts), l.output("out", &mut out));
            l.run(Grid::new(blocks, threads), |t| {
                // SAFETY: the buffers hold what the body reads and writes.
                unsafe { gpu::sum::sum_partials(t, pp.get_const(), n, op.get()) }
            });
            drop(l);
            let want = parts.iter().fold(0u64, |a, &x| a.wrapping_add(x));
            assert_eq!(out[0], want, "{name}: case {k} (n = {n})");
        }
    }

    /// `f32` inputs that cover every case of the conversions: zeros,
    /// subnormals, NaNs of both signs, infinities, overflow, ties.
    fn floats(n: usize, seed: u64) -> Vec<f32> {
        let special = [
            0.0f32,
            -0.0,
            1.0,
            -1.5,
            0.25,
            448.0,
            464.0,
            57344.0,
            1e30,
            -1e30,
            6.0,
            7.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            1e-40,
            -3.0e-8,
            0.0625,
            2.5,
        ];
        let mut r = rng(seed);
        (0..n)
            .map(|i| match i % 3 {
                0 => special[(r() % special.len() as u64) as usize],
                1 => f32::from_bits(r() as u32),
                _ => (r() % 2000) as f32 / 64.0 - 15.0,
            })
            .collect()
    }

    trait In: Pod + Default {
        fn from_f32(x: f32) -> Self;
    }
    impl In for f32 {
        fn from_f32(x: f32) -> Self {
            x
        }
    }
    impl In for Half<false> {
        fn from_f32(x: f32) -> Self {
            Half(half::f16::from_f32(x).to_bits())
        }
    }
    impl In for Half<true> {
        fn from_f32(x: f32) -> Self {
            Half(half::bf16::from_f32(x).to_bits())
        }
    }

    fn encode_case<F: MiniFloat, const W: u32, I: In + gpu::float::Input>(name: &str, mode: Mode) {
        let v = unit_values(W, size_of::<I>());
        for (k, &(blocks, threads, units, tail, woff, voff)) in CASES.iter().enumerate() {
            let n = units * v + tail;
            let xs = floats(n, k as u64 + W as u64);
            let (mut sb, sr) = buf::<I>(n, voff);
            let src = &mut view::<I>(&mut sb, sr.end)[sr];
            for (d, &x) in src.iter_mut().zip(&xs) {
                *d = I::from_f32(x);
            }
            let src: &[I] = src;
            let nw = words_for(W, n);
            let (mut wb, wr) = buf::<u64>(nw, woff);
            let words = &mut view::<u64>(&mut wb, wr.end)[wr];
            words.fill(u64::MAX);
            let mut l = Launch::new();
            let (sp, wp) = (l.input("src", src), l.output("words", words));
            l.run(Grid::new(blocks, threads), |t| {
                // SAFETY: the buffers hold what the body reads and writes.
                unsafe { gpu::float::encode::<_, F, W, I>(t, sp.get_const(), n, wp.get(), mode) }
            });
            drop(l);
            let wide: Vec<f32> = src.iter().map(|&x| gpu::float::Input::widen(x)).collect();
            let mut want = vec![0u8; nw * 8];
            bitpack::formats::encode_packed::<F>(
                &wide,
                mode,
                &mut want[..(n * W as usize).div_ceil(8)],
            )
            .unwrap();
            let got: &[u8] = bytemuck::cast_slice(words);
            assert!(
                got == &want[..],
                "{name}: case {k} (n = {n}) differs from the host"
            );
        }
    }

    trait Out: Pod + Default + PartialEq + std::fmt::Debug {
        fn host<F: MiniFloat>(bytes: &[u8], n: usize) -> Vec<Self>;
    }
    impl Out for f32 {
        fn host<F: MiniFloat>(bytes: &[u8], n: usize) -> Vec<f32> {
            let mut v = vec![0f32; n];
            bitpack::formats::decode_packed::<F>(bytes, &mut v).unwrap();
            v
        }
    }
    impl Out for Half<false> {
        fn host<F: MiniFloat>(bytes: &[u8], n: usize) -> Vec<Self> {
            let mut v = vec![half::f16::ZERO; n];
            bitpack::formats::decode_packed_as::<F, half::f16>(bytes, &mut v).unwrap();
            v.into_iter().map(|x| Half(x.to_bits())).collect()
        }
    }
    impl Out for Half<true> {
        fn host<F: MiniFloat>(bytes: &[u8], n: usize) -> Vec<Self> {
            let mut v = vec![half::bf16::ZERO; n];
            bitpack::formats::decode_packed_as::<F, half::bf16>(bytes, &mut v).unwrap();
            v.into_iter().map(|x| Half(x.to_bits())).collect()
        }
    }

    fn decode_case<F: MiniFloat, const W: u32, O: Out + gpu::float::Output>(name: &str) {
        let v = unit_values(W, size_of::<O>());
        for (k, &(blocks, threads, units, tail, woff, voff)) in CASES.iter().enumerate() {
            let n = units * v + tail;
            let mut r = rng(k as u64 + 5 * W as u64);
            let nw = words_for(W, n);
            let (mut wb, wr) = buf::<u64>(nw, woff);
            let words = &mut view::<u64>(&mut wb, wr.end)[wr];
            for x in words.iter_mut() {
                *x = r();
            }
            let words: &[u64] = words;
            let (mut ob, or) = buf::<O>(n, voff);
            let out = &mut view::<O>(&mut ob, or.end)[or];
            let mut l = Launch::new();
            let (wp, op) = (l.input("words", words), l.output("out", out));
            l.run(Grid::new(blocks, threads), |t| {
                // SAFETY: the buffers hold what the body reads and writes.
                unsafe { gpu::float::decode::<_, F, W, O>(t, wp.get_const(), n, op.get()) }
            });
            drop(l);
            let bytes: &[u8] = bytemuck::cast_slice(words);
            let want = O::host::<F>(&bytes[..(n * W as usize).div_ceil(8)], n);
            let got: Vec<u32> = bytemuck::cast_slice::<O, u8>(out)
                .chunks(size_of::<O>())
                .map(|c| c.iter().rev().fold(0, |a, &b| a << 8 | b as u32))
                .collect();
            let exp: Vec<u32> = bytemuck::cast_slice::<O, u8>(&want)
                .chunks(size_of::<O>())
                .map(|c| c.iter().rev().fold(0, |a, &b| a << 8 | b as u32))
                .collect();
            assert!(
                got == exp,
                "{name}: case {k} (n = {n}) differs from the host"
            );
        }
    }

    fn amax_case(name: &str) {
        for (k, &(blocks, threads, units, tail, _, voff)) in CASES.iter().enumerate() {
            let n = units * 4 + tail;
            let xs = floats(n, k as u64 + 1000);
            let (mut sb, sr) = buf::<f32>(n, voff);
            let src = &mut view::<f32>(&mut sb, sr.end)[sr];
            src.copy_from_slice(&xs);
            let src: &[f32] = src;
            let warps = (blocks * threads / 32) as usize;
            let mut parts = vec![u32::MAX; warps];
            let mut l = Launch::new();
            let (sp, pp) = (l.input("src", src), l.output("partials", &mut parts));
            l.run(Grid::new(blocks, threads), |t| {
                // SAFETY: the buffers hold what the body reads and writes.
                unsafe { gpu::amax::amax_partials(t, sp.get_const(), n, pp.get()) }
            });
            drop(l);
            let want = xs
                .iter()
                .map(|x| x.to_bits() & 0x7fff_ffff)
                .filter(|&b| b < 0x7f80_0000)
                .max()
                .unwrap_or(0);
            assert_eq!(
                parts.iter().max().copied(),
                Some(want),
                "{name}: case {k} (n = {n})"
            );
        }
    }

    /// The bulk entries of `bitpack/ptx/ENTRIES` (all but the block-scaled
    /// `mx_*` and `nvfp4_*`).
    fn bulk_entries() -> Vec<String> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../bitpack/ptx/ENTRIES");
        std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("reading {path}: {e}"))
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter(|l| !l.starts_with("mx_") && !l.starts_with("nvfp4_"))
            .map(String::from)
            .collect()
    }

    type Check = Box<dyn Fn(&str) + Send + Sync>;

    /// Every bulk entry point and its check, named as in `bitpack-ptx`.
    fn checks() -> Vec<(String, Check)> {
        let mut v: Vec<(String, Check)> = Vec::new();
        macro_rules! ints {
            ($u:ty, $un:literal, $pk:literal; $($w:literal)*) => {$(
                if $un != "" {
                    v.push((format!("unpack_{}_w{}", $un, $w), Box::new(|n: &str| unpack_case::<$w, $u>(n))));
                }
                if $pk != "" {
                    v.push((format!("pack_{}_w{}", $pk, $w), Box::new(|n: &str| pack_case::<$w, $u>(n))));
                }
            )*};
        }
        ints!(u8, "u8", "u8"; 1 2 3 4 5 6 7 8);
        ints!(u16, "u16", ""; 9 10 11 12 13 14 15 16);
        ints!(u32, "", "u32"; 9 10 11 12 13 14 15 16);
        ints!(u32, "u32", "u32"; 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
        macro_rules! sums {
            ($($w:literal)*) => {$(
                v.push((format!("sum_w{}", $w), Box::new(|n: &str| sum_case::<$w>(n))));
            )*};
        }
        sums!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
        v.push(("sum_partials".into(), Box::new(sum_partials_case)));
        v.push(("amax_partials".into(), Box::new(amax_case)));
        macro_rules! floats {
            ($f:ty, $w:literal, $name:literal, $halves:literal) => {
                for (mode, m) in [(Mode::Nearest, "nearest"), (Mode::SatFinite, "satfinite")] {
                    v.push((
                        format!("encode_{}_{m}", $name),
                        Box::new(move |n: &str| encode_case::<$f, $w, f32>(n, mode)),
                    ));
                    if $halves {
                        v.push((
                            format!("encode_{}_{m}_f16", $name),
                            Box::new(move |n: &str| encode_case::<$f, $w, Half<false>>(n, mode)),
                        ));
                        v.push((
                            format!("encode_{}_{m}_bf16", $name),
                            Box::new(move |n: &str| encode_case::<$f, $w, Half<true>>(n, mode)),
                        ));
                    }
                }
                v.push((
                    format!("decode_{}_f32", $name),
                    Box::new(|n: &str| decode_case::<$f, $w, f32>(n)),
                ));
                if $halves {
                    v.push((
                        format!("decode_{}_f16", $name),
                        Box::new(|n: &str| decode_case::<$f, $w, Half<false>>(n)),
                    ));
                    v.push((
                        format!("decode_{}_bf16", $name),
                        Box::new(|n: &str| decode_case::<$f, $w, Half<true>>(n)),
                    ));
                }
            };
        }
        floats!(E2M1, 4, "e2m1", true);
        floats!(E2M3, 6, "e2m3", true);
        floats!(E3M2, 6, "e3m2", true);
        floats!(E4M3, 8, "e4m3", true);
        floats!(E5M2, 8, "e5m2", true);
        floats!(E8M0, 8, "e8m0", false);
        v
    }

    #[test]
    fn every_bulk_entry_matches_the_host_kernels() {
        let checks = checks();
        let listed = bulk_entries();
        println!(
            "{} bulk entry points run on the simulated grid",
            checks.len()
        );
        let names: Vec<&str> = checks.iter().map(|c| c.0.as_str()).collect();
        let missing: Vec<_> = listed
            .iter()
            .filter(|e| !names.contains(&e.as_str()))
            .collect();
        assert!(
            missing.is_empty(),
            "bulk entries of ENTRIES with no check: {missing:?}"
        );
        assert_eq!(
            checks.len(),
            listed.len(),
            "checks {names:?}\nENTRIES {listed:?}"
        );
        // Two threads of checks, each running its launches one at a time.
        let next = std::sync::atomic::AtomicUsize::new(0);
        let failed = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let Some((name, check)) = checks.get(i) else {
                            break;
                        };
                        if std::env::var("SIM_ONLY").is_ok_and(|o| o != *name) {
                            continue;
                        }
                        let r =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(name)));
                        if let Err(e) = r {
                            let msg = e
                                .downcast_ref::<String>()
                                .cloned()
                                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_default();
                            failed.lock().unwrap().push(format!("{name}: {msg}"));
                        }
                    }
                });
            }
        });
        let failed = failed.into_inner().unwrap();
        assert!(
            failed.is_empty(),
            "{} entries failed:\n{}",
            failed.len(),
            failed.join("\n")
        );
    }
}

/// A deliberately wrong body must fail on the simulator.
mod mutation {
    use super::*;
    use bitpack::kernels::gpu::unit_values;
    use bitpack::kernels::words_for;

    /// The element path of `gpu::unpack::unpack` for `u8` values, a test-only
    /// copy; `extra` values are added to each thread's range (0: the real
    /// body; 1: the off-by-one).
    ///
    /// # Safety
    ///
    /// As `gpu::unpack::unpack`.
    unsafe fn unpack_copy<S: Simt, const W: u32>(
        s: &S,
        words: *const u64,
        n: usize,
        out: *mut u8,
        extra: usize,
    ) {
        let v = unit_values(W, 1);
        let avail = words_for(W, n);
        for u in grid_stride(s, n.div_ceil(v)) {
            let first = u * v;
            let count = (n - first).min(v) + extra;
            for i in 0..count {
                let bit = (first + i) * W as usize;
                let (k, sh) = (bit / 64, bit % 64);
                let word = |k: usize| {
                    if k < avail {
                        // SAFETY: `k < avail`, inside the buffer.
                        unsafe { s.load(words, k) }
                    } else {
                        0
                    }
                };
                let mut x = word(k) >> sh;
                if sh + W as usize > 64 {
                    x |= word(k + 1) << (64 - sh);
                }
                // SAFETY: in bounds for `extra = 0`; the mutation writes past
                // the thread's range, which the simulator must refuse.
                unsafe { s.store(out, first + i, (x & ((1 << W) - 1)) as u8) };
            }
        }
    }

    fn run(extra: usize, n: usize) -> Result<Vec<u8>, String> {
        let vals: Vec<u8> = (0..n).map(|i| (i * 5 % 8) as u8).collect();
        let mut words = vec![0u64; words_for(3, n)];
        bitpack::kernels::pack(3, &vals, &mut words, 0).unwrap();
        let mut out = vec![0u8; n];
        let mut l = Launch::new();
        let (wp, op) = (l.input("words", &words), l.output("out", &mut out));
        l.try_run(Grid::new(2, 64), |t| {
            // SAFETY: the buffers hold `n` values; see `unpack_copy`.
            unsafe { unpack_copy::<_, 3>(t, wp.get_const(), n, op.get(), extra) }
        })?;
        drop(l);
        assert_eq!(out, vals);
        Ok(out)
    }

    #[test]
    fn the_unmutated_copy_passes() {
        run(0, 128 * 300 + 17).unwrap();
    }

    #[test]
    fn an_off_by_one_in_a_threads_range_is_caught() {
        // Whole units: the extra value is the next thread's first (two
        // writers of one byte), or past the end for the last unit.
        let e = run(1, 128 * 300).unwrap_err();
        assert!(
            e.contains("also writes") || e.contains("past the end of `out`"),
            "{e}"
        );
        // One unit: the extra value is past the end of `out`.
        let e = run(1, 100).unwrap_err();
        assert!(e.contains("past the end of `out`"), "{e}");
    }
}
