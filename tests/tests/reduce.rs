//! Sums against a plain `Vec<u64>` reference, for every width 1..=8, 12, 16,
//! 24 and 32 in both layouts: whole arrays, strided runs with steps in
//! -257..=257 from shifted roots, N-d views (reversed, transposed,
//! broadcast), axis sums large enough to fill and flush the column tiles;
//! and, for every width 1..=64, 2^20 values all at `2^b - 1`.

use core::fmt::Debug;

use bitpack::{Dense, DynNarrowArray, Error, NarrowArray, Packing, UnsignedElement, WordAligned};
use bitpack_tests::views::{axis_sums, indices, mask, subsets};
use bitpack_tests::{raw, test_widths, value};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

fn array<T: UnsignedElement, L: Packing>(vals: &[u64]) -> NarrowArray<T, L> {
    let values: Vec<T> = vals.iter().map(|&v| value::<T>(v.into())).collect();
    NarrowArray::from_slice_in(&values)
}

/// Random values of `bits` bits, biased towards the extremes: a third all
/// ones, a third zero or small, a third uniform.
fn values(bits: u32, len: usize, seed: &[u64]) -> Vec<u64> {
    (0..len)
        .map(|i| {
            let r = seed[i % seed.len()].rotate_left(i as u32 * 13)
                ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            match r % 3 {
                0 => mask(bits),
                1 => r >> 60,
                _ => r >> 2,
            }
        })
        .map(|v| v & mask(bits))
        .collect()
}

fn sum(vals: impl IntoIterator<Item = u64>) -> u128 {
    vals.into_iter().map(u128::from).sum()
}

fn whole_and_strided_sums<T: UnsignedElement + PartialEq + Debug, L: Packing>() {
    let bits = T::BITS;
    let strategy = (
        0usize..4000,
        prop::collection::vec(any::<u64>(), 1..8),
        prop::sample::select(vec![0usize, 1, 7, 63, 64, 65]),
        -257isize..=257,
        any::<u32>(),
    );
    runner(256)
        .run(&strategy, |(len, seed, shift, step, pick)| {
            let len = len + shift;
            let vals = values(bits, len, &seed);
            let a = array::<T, L>(&vals);
            // Whole array, and every prefix and suffix around the root.
            assert_eq!(a.sum(), sum(vals.iter().copied()));
            let head = (pick as usize) % (len + 1);
            assert_eq!(
                a.view().slice(0, 0..head).unwrap().sum(),
                sum(vals[..head].iter().copied())
            );
            assert_eq!(
                a.view().slice(0, shift..len).unwrap().sum(),
                sum(vals[shift..].iter().copied())
            );

            // A strided run from the root: as many values as fit, or fewer.
            if step != 0 && len > shift {
                let room = len - shift;
                let start = shift + (pick as usize >> 3) % room;
                let fit = if step > 0 {
                    (len - 1 - start) / step as usize + 1
                } else {
                    (start - shift) / step.unsigned_abs() + 1
                };
                for count in [fit, fit / 2, fit.min(40), 1, 0] {
                    let v = a.view_strided(&[count], &[step], start as isize).unwrap();
                    let want = sum(
                        (0..count).map(|k| vals[(start as isize + k as isize * step) as usize])
                    );
                    assert_eq!(v.sum(), want, "start {start} step {step} count {count}");
                }
                // The same through step_by.
                let s = a
                    .view()
                    .slice(0, shift..len)
                    .unwrap()
                    .step_by(0, step)
                    .unwrap();
                let want = sum(s.iter().map(|x| raw(x) as u64));
                assert_eq!(s.sum(), want);
                // 2-d: rows of a strided run, the row stride random too.
                let rows = 1 + (pick as usize % 5);
                let cols = fit.min(50) / rows.max(1);
                let rstride = (pick as isize % 97) - 48;
                let shape = [rows, cols];
                let strides = [rstride, step];
                let lo = (0..rows).flat_map(|r| [0, cols.saturating_sub(1)].map(move |c| (r, c)));
                let mut ok = cols > 0;
                for (r, c) in lo {
                    let i = start as isize + r as isize * rstride + c as isize * step;
                    ok &= i >= 0 && (i as usize) < len;
                }
                if ok {
                    let v = a.view_strided(&shape, &strides, start as isize).unwrap();
                    let idx = indices(&shape, &strides, start as isize);
                    assert_eq!(v.sum(), sum(idx.iter().map(|&i| vals[i as usize])));
                }
            }
            // Broadcast: a zero stride repeats one value.
            if len > 0 {
                let i = pick as usize % len;
                let v = a.view_strided(&[3, 1000], &[0, 0], i as isize).unwrap();
                assert_eq!(v.sum(), 3000 * u128::from(vals[i]));
            }
            Ok(())
        })
        .unwrap();
}

test_widths!(whole_and_strided_sums);

fn axis_sums_match_reference<T: UnsignedElement + PartialEq + Debug, L: Packing>() {
    let bits = T::BITS;
    // Shapes up to 4-d whose axes are long enough to cross word, tile and
    // flush boundaries along some axis; axes permuted and reversed.
    let strategy = (
        prop::sample::select(vec![
            vec![300usize, 3],
            vec![3, 1100],
            vec![600, 2],
            vec![2, 3, 70],
            vec![70, 2, 3],
            vec![5, 4, 3, 2],
            vec![1, 1, 129],
            vec![9, 1, 1],
            vec![200, 40],
            vec![30, 5, 64],
            vec![2000, 5],
        ]),
        prop::collection::vec(any::<u64>(), 1..8),
        any::<u32>(),
    );
    runner(48)
        .run(&strategy, |(shape, seed, pick)| {
            let n: usize = shape.iter().product();
            let vals = values(bits, n, &seed);
            let mut a = array::<T, L>(&vals);
            a.reshape(&shape).unwrap();
            let nd = shape.len();
            let mut v = a.view();
            // A random axis order and some reversed axes.
            let order: Vec<usize> = (0..nd).map(|d| (d + pick as usize) % nd).collect();
            v = v.permute(&order).unwrap();
            for d in 0..nd {
                if pick >> (8 + d) & 1 == 1 {
                    v = v.reversed(d).unwrap();
                }
            }
            let vshape = v.shape().to_vec();
            let idx: Vec<u64> = indices(&vshape, v.strides(), v.offset())
                .iter()
                .map(|&i| vals[i as usize])
                .collect();
            assert_eq!(v.sum(), sum(idx.iter().copied()));
            for axes in subsets(nd) {
                let want = axis_sums(&vshape, &idx, &axes);
                let (_, got) = v.sum_axes(&axes, pick & 1 == 1).unwrap();
                assert_eq!(
                    got.iter().map(|&x| u128::from(x)).collect::<Vec<_>>(),
                    want,
                    "axes {axes:?} of {vshape:?} {:?}",
                    v.strides()
                );
            }
            Ok(())
        })
        .unwrap();
}

test_widths!(axis_sums_match_reference);

/// 2^20 values all at `2^b - 1`, for every width 1..=64: whole, strided,
/// reversed, broadcast and axis sums are exact; an axis sum whose outputs
/// exceed a `u64` is an error that writes nothing.
fn extreme<L: Packing>() {
    const N: usize = 1 << 20;
    for bits in 1..=64u32 {
        let max = mask(bits);
        let mut a = DynNarrowArray::<L>::from_slice_in(bits, &vec![max; N]).unwrap();
        let m = u128::from(max);
        assert_eq!(a.sum(), N as u128 * m, "width {bits}");
        let v = a.view();
        assert_eq!(
            v.step_by(0, 3).unwrap().sum(),
            N.div_ceil(3) as u128 * m,
            "width {bits}"
        );
        assert_eq!(
            v.step_by(0, -257).unwrap().sum(),
            N.div_ceil(257) as u128 * m
        );
        assert_eq!(v.slice(0, 5..N - 3).unwrap().sum(), (N - 8) as u128 * m);
        let b = a.view_strided(&[N, 1 << 10], &[1, 0], 0).unwrap();
        assert_eq!(b.sum(), (N as u128) * 1024 * m);
        a.reshape(&[1024, 1024]).unwrap();
        for axes in [[0usize], [1]] {
            let mut out = vec![7u64; 1024];
            let fits = 1024 * m <= u128::from(u64::MAX);
            match a.view().sum_axes_into(&axes, &mut out) {
                Ok(()) => {
                    assert!(fits, "width {bits}");
                    assert!(
                        out.iter().all(|&x| u128::from(x) == 1024 * m),
                        "width {bits}"
                    );
                }
                Err(e) => {
                    assert!(!fits, "width {bits}: {e}");
                    assert_eq!(e, Error::SumOverflow { index: 0 });
                    assert!(out.iter().all(|&x| x == 7));
                }
            }
        }
        let t = a.view().transpose();
        let mut out = vec![0u64; 1024];
        if 1024 * m <= u128::from(u64::MAX) {
            t.sum_axes_into(&[0], &mut out).unwrap();
            assert!(out.iter().all(|&x| u128::from(x) == 1024 * m));
        }
    }
}

#[test]
fn extreme_values_dense() {
    extreme::<Dense>();
}

#[test]
fn extreme_values_word_aligned() {
    extreme::<WordAligned>();
}

/// The same for the typed arrays of the test widths.
fn extreme_typed<T: UnsignedElement + PartialEq + Debug, L: Packing>() {
    const N: usize = 1 << 20;
    let max = value::<T>(mask(T::BITS).into());
    let all_max: Vec<T> = std::iter::repeat_n(max, N).collect();
    let mut a = NarrowArray::<T, L>::from_slice_in(&all_max);
    let m = u128::from(mask(T::BITS));
    assert_eq!(a.sum(), N as u128 * m);
    assert_eq!(
        a.view().step_by(0, 5).unwrap().sum(),
        N.div_ceil(5) as u128 * m
    );
    a.reshape(&[256, 4096]).unwrap();
    let (_, cols) = a.view().sum_axes(&[0], false).unwrap();
    assert!(cols.iter().all(|&x| u128::from(x) == 256 * m));
    let (_, rows) = a.view().sum_axes(&[1], false).unwrap();
    assert!(rows.iter().all(|&x| u128::from(x) == 4096 * m));
}

test_widths!(extreme_typed);
