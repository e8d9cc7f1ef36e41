//! `DynNarrowArray` against a plain `Vec<u64>` and the layouts built bit by
//! bit: construction and its errors, get/set/push/pop/truncate/extend,
//! widening and narrowing for every pair of widths in both layouts (words
//! exact, padding and gap bits zero, failures changing nothing), views and
//! sums at run-time widths.

use bitpack::{Dense, DynNarrowArray, Error, Layout, NarrowArray, Packing, WordAligned};
use bitpack_tests::views::{layout_words, mask};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// Asserts that `a` holds `want` at width `width`, words exact.
fn assert_holds<L: Packing>(a: &DynNarrowArray<L>, want: &[u64], width: u32) {
    assert_eq!(a.width(), width);
    assert_eq!(a.len(), want.len());
    assert_eq!(a.to_vec(), want);
    assert_eq!(
        a.as_words(),
        layout_words::<L>(want, width),
        "width {width}"
    );
}

/// Values of `width` bits: all ones, zero, and a pattern.
fn pattern(width: u32, len: usize, salt: u64) -> Vec<u64> {
    (0..len as u64)
        .map(|i| match i % 5 {
            0 => mask(width),
            1 => 0,
            _ => {
                (i ^ salt)
                    .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    .rotate_left(i as u32)
                    & mask(width)
            }
        })
        .collect()
}

/// Widening from every width to every wider one, and narrowing back, at
/// lengths around word boundaries.
fn every_width_pair<L: Packing>() {
    for from in 1..=64u32 {
        for len in [0usize, 1, 11, 64, 65, 200] {
            let vals = pattern(from, len, u64::from(from));
            let base = DynNarrowArray::<L>::from_slice_in(from, &vals).unwrap();
            assert_holds(&base, &vals, from);
            for to in from..=64 {
                let mut a = base.clone();
                a.widen(to).unwrap();
                assert_holds(&a, &vals, to);
                assert_eq!(a.sum(), vals.iter().map(|&v| u128::from(v)).sum::<u128>());
                // Narrowing back to the original width, then to the
                // narrowest that holds the values.
                a.narrow_to(from).unwrap();
                assert_holds(&a, &vals, from);
                let min = a.min_width();
                a.narrow_to(min).unwrap();
                assert_holds(&a, &vals, min);
            }
            // A width below the original one, when some value does not fit.
            if from > 1 && len > 0 {
                let mut a = base.clone();
                let err = a.narrow_to(from - 1).unwrap_err();
                assert_eq!(
                    err,
                    Error::ValueTooWide {
                        value: mask(from).into(),
                        bits: from - 1
                    }
                );
                assert_holds(&a, &vals, from);
            }
        }
    }
}

#[test]
fn widen_and_narrow_every_width_pair_dense() {
    every_width_pair::<Dense>();
}

#[test]
fn widen_and_narrow_every_width_pair_word_aligned() {
    every_width_pair::<WordAligned>();
}

fn errors_change_nothing<L: Packing>() {
    assert_eq!(
        DynNarrowArray::<L>::new_in(0).unwrap_err(),
        Error::Width { width: 0, max: 64 }
    );
    assert_eq!(
        DynNarrowArray::<L>::zeroed_in(65, 3).unwrap_err(),
        Error::Width { width: 65, max: 64 }
    );
    assert_eq!(
        DynNarrowArray::<L>::from_slice_in(7, &[1, 127, 128, 300]).unwrap_err(),
        Error::ValueTooWide {
            value: 128,
            bits: 7
        }
    );
    let vals = pattern(9, 100, 3);
    let mut a = DynNarrowArray::<L>::from_slice_in(9, &vals).unwrap();
    for bad in [0, 65, 1000] {
        assert_eq!(
            a.widen(bad).unwrap_err(),
            Error::Width {
                width: bad,
                max: 64
            }
        );
        assert_eq!(
            a.narrow_to(bad).unwrap_err(),
            Error::Width {
                width: bad,
                max: 64
            }
        );
        assert_holds(&a, &vals, 9);
    }
    // An index past the end is an error before any widening.
    assert_eq!(
        a.set(100, u64::MAX).unwrap_err(),
        Error::Index {
            index: 100,
            len: 100
        }
    );
    assert_holds(&a, &vals, 9);
    // A view cannot widen the array it borrows: too wide is an error.
    let mut vm = a.view_mut();
    assert_eq!(
        vm.fill(512).unwrap_err(),
        Error::ValueTooWide {
            value: 512,
            bits: 9
        }
    );
    let mut wide = vals.clone();
    wide[40] = 1 << 9;
    assert_eq!(
        vm.assign_from(&wide).unwrap_err(),
        Error::ValueTooWide {
            value: 512,
            bits: 9
        }
    );
    assert_eq!(
        vm.assign_from_uints(&wide).unwrap_err(),
        Error::ValueTooWide {
            value: 512,
            bits: 9
        }
    );
    assert!(vm.set(&[3], 1 << 20).is_err());
    assert_holds(&a, &vals, 9);
    // A wider source view is checked before anything is written.
    let src = DynNarrowArray::<Dense>::from_slice(12, &wide).unwrap();
    assert_eq!(
        a.view_mut().assign_view(&src.view()).unwrap_err(),
        Error::ValueTooWide {
            value: 512,
            bits: 9
        }
    );
    assert_holds(&a, &vals, 9);
    // ...and copied when it fits.
    let fits = DynNarrowArray::<Dense>::from_slice(30, &vals).unwrap();
    a.view_mut()
        .reversed(0)
        .unwrap()
        .assign_view(&fits.view())
        .unwrap();
    let rev: Vec<u64> = vals.iter().rev().copied().collect();
    assert_holds(&a, &rev, 9);
    assert!(a.reshape(&[3, 33]).is_err());
    assert_eq!(a.shape(), [100]);
}

#[test]
fn errors_change_nothing_dense() {
    errors_change_nothing::<Dense>();
}

#[test]
fn errors_change_nothing_word_aligned() {
    errors_change_nothing::<WordAligned>();
}

/// One operation of the random sequences.
#[derive(Clone, Debug)]
enum Op {
    Push(u64),
    Set(usize, u64),
    Pop,
    Truncate(usize),
    Extend(Vec<u64>),
    Widen(u32),
    Narrow,
}

fn op() -> impl Strategy<Value = Op> {
    let value = (0u32..=64, any::<u64>()).prop_map(|(b, v)| v & mask(b));
    prop_oneof![
        4 => value.clone().prop_map(Op::Push),
        3 => (any::<usize>(), value.clone()).prop_map(|(i, v)| Op::Set(i, v)),
        1 => Just(Op::Pop),
        1 => any::<usize>().prop_map(Op::Truncate),
        2 => prop::collection::vec(value, 0..70).prop_map(Op::Extend),
        1 => (0u32..=66).prop_map(Op::Widen),
        1 => Just(Op::Narrow),
    ]
}

fn sequences<L: Packing>() {
    runner(256)
        .run(
            &(1u32..=64, prop::collection::vec(op(), 0..40)),
            |(width, ops)| {
                let mut a = DynNarrowArray::<L>::new_in(width).unwrap();
                let mut want: Vec<u64> = Vec::new();
                let mut w = width;
                let need = |v: u64| (64 - v.leading_zeros()).max(1);
                for op in ops {
                    match op {
                        Op::Push(v) => {
                            a.push(v);
                            want.push(v);
                            w = w.max(need(v));
                        }
                        Op::Set(i, v) => {
                            let i = if want.is_empty() {
                                i
                            } else {
                                i % (want.len() + 1)
                            };
                            match a.set(i, v) {
                                Ok(()) => {
                                    want[i] = v;
                                    w = w.max(need(v));
                                }
                                Err(e) => {
                                    assert_eq!(
                                        e,
                                        Error::Index {
                                            index: i,
                                            len: want.len()
                                        }
                                    );
                                }
                            }
                        }
                        Op::Pop => assert_eq!(a.pop(), want.pop()),
                        Op::Truncate(n) => {
                            let n = n % (want.len() + 2);
                            a.truncate(n);
                            want.truncate(n);
                        }
                        Op::Extend(vs) => {
                            a.extend_from_slice(&vs);
                            w = vs.iter().map(|&v| need(v)).fold(w, u32::max);
                            want.extend(vs);
                        }
                        Op::Widen(to) => match a.widen(to) {
                            Ok(()) => w = w.max(to),
                            Err(e) => {
                                assert!(to == 0 || to > 64);
                                assert_eq!(e, Error::Width { width: to, max: 64 });
                            }
                        },
                        Op::Narrow => {
                            let min = want.iter().map(|&v| need(v)).max().unwrap_or(1);
                            assert_eq!(a.min_width(), min);
                            a.narrow_to(min).unwrap();
                            w = min;
                        }
                    }
                    assert_holds(&a, &want, w);
                    for (i, &v) in want.iter().enumerate() {
                        assert_eq!(a.get(i), Some(v));
                    }
                    assert_eq!(a.get(want.len()), None);
                    assert_eq!(a.sum(), want.iter().map(|&v| u128::from(v)).sum::<u128>());
                }
                Ok(())
            },
        )
        .unwrap();
}

#[test]
fn random_sequences_dense() {
    sequences::<Dense>();
}

#[test]
fn random_sequences_word_aligned() {
    sequences::<WordAligned>();
}

fn views_and_conversions<L: Packing>() {
    for width in [1u32, 3, 5, 7, 8, 12, 13, 31, 33, 63, 64] {
        let vals = pattern(width, 60, 9);
        let mut a = DynNarrowArray::<L>::from_slice_in(width, &vals).unwrap();
        a.reshape(&[5, 12]).unwrap();
        let v = a.view();
        assert_eq!(v.width(), width);
        let t = v.transpose();
        let tv: Vec<u64> = (0..12)
            .flat_map(|c| (0..5).map(move |r| (r, c)))
            .map(|(r, c)| vals[r * 12 + c])
            .collect();
        assert_eq!(t.to_vec(), tv);
        assert_eq!(t.iter().collect::<Vec<_>>(), tv);
        let d = t.to_dyn_array();
        assert_eq!(d.width(), width);
        assert_eq!(d.shape(), [12, 5]);
        assert_eq!(d.to_vec(), tv);
        let col_sums: Vec<u64> = (0..12)
            .map(|c| {
                (0..5)
                    .map(|r| vals[r * 12 + c])
                    .fold(0u64, u64::wrapping_add)
            })
            .collect();
        let sums_fit = width <= 61;
        if sums_fit {
            assert_eq!(v.sum_axes(&[0], false).unwrap().1, col_sums);
            assert_eq!(t.sum_axes(&[1], false).unwrap().1, col_sums);
        }
        assert_eq!(v.sum(), vals.iter().map(|&x| u128::from(x)).sum::<u128>());
        // The same values in the other layout, and as a typed array.
        let other = a.to_layout::<Dense>();
        assert_eq!(other.to_vec(), vals);
        assert_eq!(other.shape(), [5, 12]);
        assert_eq!(other, a);
        let other = a.to_layout::<WordAligned>();
        assert_eq!(other.to_vec(), vals);
        assert_eq!(other, a);
        // Assignment within, overlapping.
        let mut b = a.clone();
        let all = Layout::contiguous(&[60], 60).unwrap();
        b.assign_within(&all.slice(0, 1..60).unwrap(), &all.slice(0, 0..59).unwrap())
            .unwrap();
        let mut want = vals.clone();
        want.copy_within(0..59, 1);
        assert_eq!(b.to_vec(), want);
        assert_eq!(b.as_words(), layout_words::<L>(&want, width));
    }
    // From a typed array: the same words.
    let typed = NarrowArray::<arbitrary_int::u5, L>::from_slice_in(
        &(0..40u8)
            .map(|i| arbitrary_int::u5::new(i % 32))
            .collect::<Vec<_>>(),
    );
    let words = typed.as_words().to_vec();
    let d = DynNarrowArray::from(typed);
    assert_eq!(d.width(), 5);
    assert_eq!(d.as_words(), words);
    assert_eq!(d.to_vec(), (0..40u64).map(|i| i % 32).collect::<Vec<_>>());
    assert_eq!(DynNarrowArray::<L>::from_values_in(&[0, 0]).width(), 1);
    assert_eq!(DynNarrowArray::<L>::from_values_in(&[u64::MAX]).width(), 64);
}

#[test]
fn views_and_conversions_dense() {
    views_and_conversions::<Dense>();
}

#[test]
fn views_and_conversions_word_aligned() {
    views_and_conversions::<WordAligned>();
}
