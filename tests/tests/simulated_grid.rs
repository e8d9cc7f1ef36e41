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
