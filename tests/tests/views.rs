//! Strided views of `NarrowArray`s in both layouts, for every width 1..=8,
//! 12, 16, 24 and 32, against a plain `Vec<u64>` of the values and
//! descriptors enumerated coordinate by coordinate: random shapes up to 4-d,
//! strides in -7..=7 (zero included), views rooted at element offsets 0, 1,
//! 7, 63, 64 and 65; reads, slicing, sums and axis sums, assignment (order,
//! atomicity, overlap), and the empty, scalar, 64-d and invalid cases.

use core::fmt::Debug;

use bitpack::{Error, Layout, LengthOf, NarrowArray, Packing, UnsignedElement, View};
use bitpack_tests::views::{
    axis_sums, coords, descriptor, in_bounds, indices, layout_words, mask, place, subsets,
};
use bitpack_tests::{raw, test_widths, value};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Element offsets where the views' roots start.
const SHIFTS: [usize; 6] = [0, 1, 7, 63, 64, 65];

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// An array of the low bits of `vals`.
fn array<T: UnsignedElement, L: Packing>(vals: &[u64]) -> NarrowArray<T, L> {
    let values: Vec<T> = vals.iter().map(|&v| value::<T>(v.into())).collect();
    NarrowArray::from_slice_in(&values)
}

fn vals_of<T: UnsignedElement, L: Packing>(a: &NarrowArray<T, L>) -> Vec<u64> {
    a.iter().map(|v| raw(v) as u64).collect()
}

/// `shift` leading values, then the root's, each cut to `bits` bits.
fn root_values(shift: usize, root: &[u64], bits: u32) -> Vec<u64> {
    (0..shift as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7)
        .chain(root.iter().copied())
        .map(|v| v & mask(bits))
        .collect()
}

/// Asserts that `a` holds `expected` and its words are exactly the layout's.
fn assert_holds<T: UnsignedElement, L: Packing>(a: &NarrowArray<T, L>, expected: &[u64]) {
    assert_eq!(vals_of(a), expected);
    assert_eq!(a.as_words(), layout_words::<L>(expected, T::BITS));
}

/// The raw values of a view.
fn view_vals<T: UnsignedElement, L: Packing>(v: &View<'_, T, L>) -> Vec<u64> {
    v.to_vec().into_iter().map(|x| raw(x) as u64).collect()
}

/// Every read of a valid view against the reference.
fn check_reads<T: UnsignedElement + PartialEq + Debug, L: Packing>(
    v: &View<'_, T, L>,
    vals: &[u64],
    (shape, strides, offset): (&[usize], &[isize], isize),
) {
    let expected: Vec<u64> = indices(shape, strides, offset)
        .into_iter()
        .map(|i| vals[i as usize])
        .collect();
    assert_eq!(v.shape(), shape);
    assert_eq!(v.strides(), strides);
    assert_eq!(v.offset(), offset);
    assert_eq!(v.len(), expected.len());
    assert_eq!(v.is_empty(), expected.is_empty());
    assert_eq!(v.width(), T::BITS);
    assert_eq!(view_vals(v), expected);
    assert_eq!(
        v.iter().map(|x| raw(x) as u64).collect::<Vec<_>>(),
        expected
    );
    assert_eq!(v.iter().len(), expected.len());
    // Into a slice over other values: contiguous runs come straight from
    // the width's kernel, strided ones through the chunked gather.
    let mut out = vec![T::from_raw_bits(bitpack::Unsigned::from_u128_truncate(1)); expected.len()];
    v.unpack_into(&mut out).unwrap();
    assert_eq!(
        out.iter().map(|&x| raw(x) as u64).collect::<Vec<_>>(),
        expected
    );
    for (c, &e) in coords(shape).iter().zip(&expected) {
        assert_eq!(v.get(c).map(|x| raw(x) as u64), Some(e), "get({c:?})");
    }
    if let Some(first) = shape.first() {
        let mut past = vec![0; shape.len()];
        past[0] = *first;
        assert_eq!(v.get(&past), None);
    }
    assert_eq!(v.get(&vec![0; shape.len() + 1]), None);

    // Compaction: a fresh array of the view's shape, words exact.
    let c = v.to_narrow_array();
    assert_eq!(c.shape(), shape);
    assert_holds(&c, &expected);

    // Sums and every axis sum, with and without keepdims.
    assert_eq!(
        v.sum(),
        expected.iter().map(|&x| u128::from(x)).sum::<u128>()
    );
    for axes in subsets(shape.len()) {
        let want = axis_sums(shape, &expected, &axes);
        for keepdims in [false, true] {
            let (got_shape, got) = v.sum_axes(&axes, keepdims).unwrap();
            let want_shape: Vec<usize> = (0..shape.len())
                .filter_map(|d| match (axes.contains(&d), keepdims) {
                    (false, _) => Some(shape[d]),
                    (true, true) => Some(1),
                    (true, false) => None,
                })
                .collect();
            assert_eq!(got_shape, want_shape, "axes {axes:?}");
            assert_eq!(
                got.iter().map(|&x| u128::from(x)).collect::<Vec<_>>(),
                want,
                "axes {axes:?} of {shape:?}/{strides:?}"
            );
        }
        // Axes in another order are the same set.
        let mut rev = axes.clone();
        rev.reverse();
        let mut out = vec![u64::MAX; want.len()];
        v.sum_axes_into(&rev, &mut out).unwrap();
        assert_eq!(out.iter().map(|&x| u128::from(x)).collect::<Vec<_>>(), want);
    }
    // Bad axis sets and output lengths change nothing.
    let n_out = shape
        .first()
        .map_or(1, |_| shape[1..].iter().product::<usize>());
    let mut out = vec![7u64; n_out + 1];
    if !shape.is_empty() {
        assert_eq!(
            v.sum_axes_into(&[0], &mut out).unwrap_err().to_string(),
            format!(
                "the axis-sum output holds {} values, needs {n_out}",
                n_out + 1
            )
        );
        assert_eq!(
            v.sum_axes_into(&[0], &mut out).unwrap_err(),
            Error::Length {
                of: LengthOf::AxisSumOutput,
                expected: n_out,
                actual: n_out + 1
            }
        );
        assert_eq!(
            v.sum_axes_into(&[0, 0], &mut out[..n_out]).unwrap_err(),
            Error::DuplicateAxis { axis: 0 }
        );
    }
    assert_eq!(
        v.sum_axes_into(&[shape.len()], &mut out).unwrap_err(),
        Error::Axis {
            axis: shape.len(),
            ndim: shape.len()
        }
    );
    assert!(out.iter().all(|&x| x == 7));
}

/// `new` equals `old` through the coordinate map `f` (new coordinates to
/// old ones), element by element and in bulk.
fn assert_maps<T: UnsignedElement + PartialEq + Debug, L: Packing>(
    new: &View<'_, T, L>,
    old: &View<'_, T, L>,
    f: impl Fn(&[usize]) -> Vec<usize>,
) {
    let want: Vec<T> = coords(new.shape())
        .iter()
        .map(|c| old.get(&f(c)).expect("mapped coordinates are in range"))
        .collect();
    assert_eq!(new.to_vec(), want);
    assert_eq!(new.sum(), want.iter().map(|&x| raw(x)).sum::<u128>());
}

/// Slicing helpers against coordinate maps, on every axis.
fn check_slicing<T: UnsignedElement + PartialEq + Debug, L: Packing>(
    v: &View<'_, T, L>,
    pick: u16,
) {
    let nd = v.ndim();
    let p = pick as usize;
    for d in 0..nd {
        let n = v.shape()[d];
        let (a, b) = (p % (n + 1), (p / 7) % (n + 1));
        let (a, b) = (a.min(b), a.max(b));
        let s = v.slice(d, a..b).unwrap();
        assert_maps(&s, v, |c| {
            let mut c = c.to_vec();
            c[d] += a;
            c
        });
        assert_eq!(
            v.slice(d, b..n + 1).unwrap_err(),
            Error::Range {
                start: b,
                end: n + 1,
                len: n
            }
        );
        for step in [1isize, 2, 3, -1, -2, -5] {
            let s = v.step_by(d, step).unwrap();
            assert_eq!(s.shape()[d], n.div_ceil(step.unsigned_abs()));
            assert_maps(&s, v, |c| {
                let mut c = c.to_vec();
                c[d] = if step > 0 {
                    c[d] * step as usize
                } else {
                    n - 1 - c[d] * step.unsigned_abs()
                };
                c
            });
        }
        assert!(v.step_by(d, 0).is_err());
        let r = v.reversed(d).unwrap();
        assert_maps(&r, v, |c| {
            let mut c = c.to_vec();
            c[d] = n - 1 - c[d];
            c
        });
        if n > 0 {
            let i = p % n;
            let s = v.select(d, i).unwrap();
            assert_eq!(s.ndim(), nd - 1);
            assert_maps(&s, v, |c| {
                let mut c = c.to_vec();
                c.insert(d, i);
                c
            });
        }
        assert_eq!(
            v.select(d, n).unwrap_err(),
            Error::Index { index: n, len: n }
        );
    }
    assert_eq!(
        v.slice(nd, 0..0).unwrap_err(),
        Error::Axis { axis: nd, ndim: nd }
    );
    let t = v.transpose();
    assert_maps(&t, v, |c| c.iter().rev().copied().collect());
    // A rotation of the axes.
    let order: Vec<usize> = (0..nd).map(|d| (d + p) % nd.max(1)).collect();
    let q = v.permute(&order).unwrap();
    assert_maps(&q, v, |c| {
        let mut old = vec![0; nd];
        for (d, &src) in order.iter().enumerate() {
            old[src] = c[d];
        }
        old
    });
    if nd >= 2 {
        assert!(v.permute(&vec![0; nd]).is_err());
    }
}

fn views_match_reference<T: UnsignedElement + PartialEq + Debug, L: Packing>() {
    let strategy = (
        0..SHIFTS.len(),
        prop::collection::vec(any::<u64>(), 0..120),
        descriptor(4, 4),
    );
    runner(128)
        .run(&strategy, |(si, root, (shape, strides, pick))| {
            let vals = root_values(SHIFTS[si], &root, T::BITS);
            let a = array::<T, L>(&vals);
            let offset = place(&shape, &strides, SHIFTS[si], vals.len(), pick);
            let ok = in_bounds(&shape, &strides, offset, vals.len());
            match a.view_strided(&shape, &strides, offset) {
                Err(e) => {
                    assert!(!ok, "rejected a valid view: {e}");
                    assert!(matches!(e, Error::ViewBounds { .. }), "{e:?}");
                }
                Ok(v) => {
                    assert!(ok, "accepted an invalid view {v:?}");
                    check_reads(&v, &vals, (&shape, &strides, offset));
                    check_slicing(&v, pick);
                    // The same descriptor as a Layout, validated against a
                    // longer storage, is revalidated against the array.
                    let l = Layout::new(&shape, &strides, offset, vals.len() + 10).unwrap();
                    assert_eq!(a.view_with(&l).unwrap().to_vec(), v.to_vec());
                }
            }
            Ok(())
        })
        .unwrap();
}

test_widths!(views_match_reference);

fn assignment_is_ordered_and_atomic<T: UnsignedElement + PartialEq + Debug, L: Packing>() {
    let strategy = (
        0..SHIFTS.len(),
        prop::collection::vec(any::<u64>(), 0..100),
        descriptor(3, 4),
        prop::collection::vec(any::<u64>(), 64),
    );
    let bits = T::BITS;
    runner(128)
        .run(&strategy, |(si, root, (shape, strides, pick), fresh)| {
            let vals = root_values(SHIFTS[si], &root, bits);
            let offset = place(&shape, &strides, SHIFTS[si], vals.len(), pick);
            if !in_bounds(&shape, &strides, offset, vals.len()) {
                let mut a = array::<T, L>(&vals);
                assert!(a.view_strided_mut(&shape, &strides, offset).is_err());
                return Ok(());
            }
            let idx: Vec<usize> = indices(&shape, &strides, offset)
                .into_iter()
                .map(|i| i as usize)
                .collect();
            let n = idx.len();
            let new: Vec<u64> = (0..n).map(|k| fresh[k % 64] & mask(bits)).collect();
            let base = array::<T, L>(&vals);

            // assign_from: written in logical order, the last write wins.
            let mut a = base.clone();
            let typed: Vec<T> = new.iter().map(|&x| value::<T>(x.into())).collect();
            a.view_strided_mut(&shape, &strides, offset)
                .unwrap()
                .assign_from(&typed)
                .unwrap();
            let mut want = vals.clone();
            for (k, &i) in idx.iter().enumerate() {
                want[i] = new[k];
            }
            assert_holds(&a, &want);

            // Wider integers: the same, and a value that does not fit is an
            // error naming it, with nothing written.
            let mut b = base.clone();
            {
                let mut vm = b.view_strided_mut(&shape, &strides, offset).unwrap();
                vm.assign_from_uints(&new).unwrap();
                let written = a.view_strided(&shape, &strides, offset).unwrap();
                assert_eq!(vm.to_vec(), written.to_vec());
            }
            assert_holds(&b, &want);
            let mut c = base.clone();
            if n > 0 {
                let mut bad = new.clone();
                let k = pick as usize % n;
                bad[k] = mask(bits) + 1 + (fresh[0] >> (bits + 1));
                let err = c
                    .view_strided_mut(&shape, &strides, offset)
                    .unwrap()
                    .assign_from_uints(&bad)
                    .unwrap_err();
                assert_eq!(
                    err,
                    Error::ValueTooWide {
                        value: bad[k].into(),
                        bits
                    }
                );
                assert_holds(&c, &vals);
                let wide: Vec<u128> = new.iter().map(|&x| u128::from(x) | 1 << 100).collect();
                assert!(
                    c.view_strided_mut(&shape, &strides, offset)
                        .unwrap()
                        .assign_from_uints(&wide)
                        .is_err()
                );
                assert_holds(&c, &vals);
            }
            // The wrong number of values.
            let err = c
                .view_strided_mut(&shape, &strides, offset)
                .unwrap()
                .assign_from(&[value::<T>(1)].repeat(n + 1))
                .unwrap_err();
            assert_eq!(
                err,
                Error::Length {
                    of: LengthOf::AssignSource,
                    expected: n,
                    actual: n + 1
                }
            );
            assert_holds(&c, &vals);

            // fill and set.
            let x = fresh[1] & mask(bits);
            c.view_strided_mut(&shape, &strides, offset)
                .unwrap()
                .fill(value::<T>(x.into()))
                .unwrap();
            let mut want = vals.clone();
            for &i in &idx {
                want[i] = x;
            }
            assert_holds(&c, &want);
            if n > 0 {
                let cs = coords(&shape);
                let k = pick as usize % n;
                let y = fresh[2] & mask(bits);
                let mut vm = c.view_strided_mut(&shape, &strides, offset).unwrap();
                vm.set(&cs[k], value::<T>(y.into())).unwrap();
                if !shape.is_empty() {
                    let err = vm.set(&shape, value::<T>(0)).unwrap_err();
                    assert_eq!(
                        err,
                        Error::Index {
                            index: shape[0],
                            len: shape[0]
                        }
                    );
                }
                assert!(vm.set(&[0; 5], value::<T>(0)).is_err());
                want[idx[k]] = y;
                assert_holds(&c, &want);
            }

            // assign_view from an array of the other layout, the same shape.
            let src_vals: Vec<u64> = (0..n).map(|k| fresh[(k + 7) % 64] & mask(bits)).collect();
            let mut src = NarrowArray::<T>::from_slice(
                &src_vals
                    .iter()
                    .map(|&x| value::<T>(x.into()))
                    .collect::<Vec<_>>(),
            );
            src.reshape(&shape).unwrap();
            let mut d = base.clone();
            d.view_strided_mut(&shape, &strides, offset)
                .unwrap()
                .assign_view(&src.view())
                .unwrap();
            let mut want = vals.clone();
            for (k, &i) in idx.iter().enumerate() {
                want[i] = src_vals[k];
            }
            assert_holds(&d, &want);
            // A source of another shape is an error; nothing is written.
            let mut other = src.clone();
            let flat: Vec<usize> = if shape.len() == 1 {
                vec![n, 1]
            } else {
                vec![n]
            };
            other.reshape(&flat).unwrap();
            let mut e = base.clone();
            assert!(matches!(
                e.view_strided_mut(&shape, &strides, offset)
                    .unwrap()
                    .assign_view(&other.view())
                    .unwrap_err(),
                Error::ShapeMismatch { .. }
            ));
            assert_holds(&e, &vals);
            Ok(())
        })
        .unwrap();
}

test_widths!(assignment_is_ordered_and_atomic);

/// `assign_within` against the reference: snapshot the source, then write
/// in the destination's logical order.
fn check_within<T: UnsignedElement + PartialEq + Debug, L: Packing>(
    vals: &[u64],
    shape: &[usize],
    dst: (&[isize], isize),
    src: (&[isize], isize),
) {
    let len = vals.len();
    let mut a = array::<T, L>(vals);
    let ok = in_bounds(shape, dst.0, dst.1, len) && in_bounds(shape, src.0, src.1, len);
    let dl = Layout::new(shape, dst.0, dst.1, len + 1000);
    let sl = Layout::new(shape, src.0, src.1, len + 1000);
    let (Ok(dl), Ok(sl)) = (dl, sl) else {
        return;
    };
    let r = a.assign_within(&dl, &sl);
    if !ok {
        assert!(matches!(r, Err(Error::ViewBounds { .. })), "{r:?}");
        assert_holds(&a, vals);
        return;
    }
    r.unwrap();
    let snapshot: Vec<u64> = indices(shape, src.0, src.1)
        .iter()
        .map(|&i| vals[i as usize])
        .collect();
    let mut want = vals.to_vec();
    for (k, &i) in indices(shape, dst.0, dst.1).iter().enumerate() {
        want[i as usize] = snapshot[k];
    }
    assert_holds(&a, &want);
}

fn assign_within_copies_first<T: UnsignedElement + PartialEq + Debug, L: Packing>() {
    let strategy = (
        0..SHIFTS.len(),
        prop::collection::vec(any::<u64>(), 0..100),
        descriptor(3, 5),
        prop::collection::vec(-7isize..=7, 3),
        any::<u16>(),
    );
    runner(128)
        .run(
            &strategy,
            |(si, root, (shape, strides, pick), strides2, pick2)| {
                let vals = root_values(SHIFTS[si], &root, T::BITS);
                let strides2 = &strides2[..shape.len()];
                let o1 = place(&shape, &strides, SHIFTS[si], vals.len(), pick);
                let o2 = place(&shape, strides2, SHIFTS[si], vals.len(), pick2);
                check_within::<T, L>(&vals, &shape, (&strides, o1), (strides2, o2));
                Ok(())
            },
        )
        .unwrap();

    // Overlapping shapes of every kind: shifted by k both ways, reversed in
    // place, reversed and shifted, strided onto itself, and a square
    // transposed in place.
    let n = 150;
    let vals: Vec<u64> = (0..n as u64)
        .map(|i| i.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 5 & mask(T::BITS))
        .collect();
    for k in [1usize, 2, 7, 63, 64, 65] {
        let m = n - k;
        check_within::<T, L>(&vals, &[m], (&[1], k as isize), (&[1], 0));
        check_within::<T, L>(&vals, &[m], (&[1], 0), (&[1], k as isize));
        check_within::<T, L>(&vals, &[m], (&[-1], m as isize - 1), (&[1], k as isize));
        check_within::<T, L>(&vals, &[m / 2], (&[2], 0), (&[1], k as isize));
    }
    check_within::<T, L>(&vals, &[n], (&[1], 0), (&[-1], n as isize - 1));
    check_within::<T, L>(&vals, &[12, 12], (&[12, 1], 0), (&[1, 12], 0));
    check_within::<T, L>(&vals, &[5, 12], (&[12, 1], 3), (&[-12, 1], 60));
    // Shapes that differ are an error; nothing is written.
    let mut a = array::<T, L>(&vals);
    let l1 = Layout::new(&[2, 3], &[3, 1], 0, n).unwrap();
    let l2 = Layout::new(&[3, 2], &[2, 1], 0, n).unwrap();
    assert_eq!(
        a.assign_within(&l1, &l2).unwrap_err(),
        Error::ShapeMismatch {
            axis: Some(0),
            expected: 2,
            actual: 3
        }
    );
    assert_holds(&a, &vals);
}

test_widths!(assign_within_copies_first);

/// Views whose runs are longer than the 256-value chunks of the bulk reads:
/// contiguous (read straight by the width's kernel), strided, backwards and
/// a column, from roots at every shift, against the reference.
fn long_runs<T: UnsignedElement + PartialEq + Debug, L: Packing>() {
    let root: Vec<u64> = (0..2100u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 5)
        .collect();
    for &shift in &SHIFTS {
        let vals = root_values(shift, &root, T::BITS);
        let a = array::<T, L>(&vals);
        let s = shift as isize;
        let descriptors: [(&[usize], &[isize], isize); 6] = [
            (&[2000], &[1], s + 3),
            (&[700], &[3], s),
            (&[1000], &[-1], s + 1500),
            (&[600, 3], &[3, 1], s + 1),
            (&[3, 600], &[1, 3], s + 2),
            (&[2, 900], &[1000, 1], s + 50),
        ];
        for (shape, strides, offset) in descriptors {
            let v = a.view_strided(shape, strides, offset).unwrap();
            check_reads(&v, &vals, (shape, strides, offset));
        }
    }
}

test_widths!(long_runs);

/// The scalar, empty and 64-d cases, and descriptors that must be rejected.
fn edge_cases<T: UnsignedElement + PartialEq + Debug, L: Packing>() {
    let bits = T::BITS;
    let vals: Vec<u64> = (0..130u64)
        .map(|i| (i * 0x9E37_79B9) & mask(bits))
        .collect();
    let mut a = array::<T, L>(&vals);

    // Scalars at the shifted roots.
    for &s in &SHIFTS {
        let v = a.view_strided(&[], &[], s as isize).unwrap();
        assert_eq!(v.ndim(), 0);
        assert_eq!(v.len(), 1);
        assert_eq!(v.get(&[]).map(|x| raw(x) as u64), Some(vals[s]));
        assert_eq!(v.sum(), u128::from(vals[s]));
        assert_eq!(view_vals(&v), [vals[s]]);
        let c = v.to_narrow_array();
        assert_eq!(c.shape(), [] as [usize; 0]);
        assert_eq!(vals_of(&c), [vals[s]]);
        assert_eq!(v.sum_axes(&[], false).unwrap(), (vec![], vec![vals[s]]));
        let mut b = a.clone();
        b.view_strided_mut(&[], &[], s as isize)
            .unwrap()
            .assign_from_uints(&[1u8])
            .unwrap();
        let mut want = vals.clone();
        want[s] = 1;
        assert_holds(&b, &want);
    }

    // Empty views may carry any offset and never read or write it.
    for (shape, strides, offset) in [
        (vec![0], vec![1], 1_000_000isize),
        (vec![3, 0], vec![-5, 9], -77),
        (vec![0, usize::MAX], vec![1, 1], isize::MIN),
    ] {
        let v = a.view_strided(&shape, &strides, offset).unwrap();
        assert!(v.is_empty());
        assert_eq!(v.to_vec(), []);
        assert_eq!(v.iter().count(), 0);
        assert_eq!(v.sum(), 0);
        assert_eq!(v.to_narrow_array().len(), 0);
        let mut b = a.clone();
        let mut vm = b.view_strided_mut(&shape, &strides, offset).unwrap();
        vm.fill(value::<T>(1)).unwrap();
        vm.assign_from(&[]).unwrap();
        assert_holds(&b, &vals);
    }
    // An empty axis gives zero sums on the kept axes.
    let v = a.view_strided(&[3, 0], &[1, 1], 0).unwrap();
    assert_eq!(v.sum_axes(&[1], false).unwrap(), (vec![3], vec![0, 0, 0]));
    assert_eq!(v.sum_axes(&[0], true).unwrap(), (vec![1, 0], vec![]));

    // 64 dimensions: extents 1 and 2, strides of every sign.
    let shape: Vec<usize> = (0..64).map(|d| if d % 16 == 3 { 2 } else { 1 }).collect();
    let strides: Vec<isize> = (0..64)
        .map(|d| match d {
            3 => 40,
            19 => -9,
            35 => 0,
            51 => 1,
            _ => d as isize - 30,
        })
        .collect();
    let offset = 20;
    let v = a.view_strided(&shape, &strides, offset).unwrap();
    assert_eq!(v.ndim(), 64);
    check_reads_64(&v, &vals, &shape, &strides, offset);
    let mut b = a.clone();
    let fresh: Vec<u64> = (0..16u64).map(|k| (k * 7 + 3) & mask(bits)).collect();
    b.view_strided_mut(&shape, &strides, offset)
        .unwrap()
        .assign_from_uints(&fresh)
        .unwrap();
    let mut want = vals.clone();
    for (k, &i) in indices(&shape, &strides, offset).iter().enumerate() {
        want[i as usize] = fresh[k];
    }
    assert_holds(&b, &want);

    // Invalid descriptors: errors that name the problem, nothing read.
    let len = vals.len();
    assert_eq!(
        a.view_strided(&[1; 65], &[0; 65], 0).unwrap_err(),
        Error::TooManyDims { ndim: 65 }
    );
    assert_eq!(
        a.view_strided(&[usize::MAX, 3], &[1, 1], 0).unwrap_err(),
        Error::Shape {
            elements: None,
            len
        }
    );
    assert!(matches!(
        a.view_strided(&[3, 3], &[isize::MAX, 1], 0).unwrap_err(),
        Error::ViewBounds { .. }
    ));
    assert!(matches!(
        a.view_strided(&[usize::MAX / 2], &[2], 0).unwrap_err(),
        Error::ViewBounds { .. }
    ));
    assert!(matches!(
        a.view_strided(&[2, 2], &[isize::MIN, isize::MIN], -1)
            .unwrap_err(),
        Error::ViewBounds { .. }
    ));
    assert_eq!(
        a.view_strided(&[1], &[1], len as isize).unwrap_err(),
        Error::ViewBounds {
            lowest: Some(len as i128),
            highest: Some(len as i128),
            len
        }
    );
    assert_eq!(
        a.view_strided(&[2], &[1], -1).unwrap_err(),
        Error::ViewBounds {
            lowest: Some(-1),
            highest: Some(0),
            len
        }
    );
    assert_eq!(
        a.view_strided(&[2], &[1, 1], 0).unwrap_err(),
        Error::Length {
            of: LengthOf::Strides,
            expected: 1,
            actual: 2
        }
    );
    assert!(a.view_strided_mut(&[len + 1], &[1], 0).is_err());
    assert!(a.reshape(&[1; 65]).is_err());
    assert_holds(&a, &vals);
}

/// Reads of a 64-d view (a few axis sets: the coordinate sets are too many
/// for all of them).
fn check_reads_64<T: UnsignedElement + PartialEq + Debug, L: Packing>(
    v: &View<'_, T, L>,
    vals: &[u64],
    shape: &[usize],
    strides: &[isize],
    offset: isize,
) {
    let expected: Vec<u64> = indices(shape, strides, offset)
        .into_iter()
        .map(|i| vals[i as usize])
        .collect();
    assert_eq!(view_vals(v), expected);
    assert_eq!(
        v.sum(),
        expected.iter().map(|&x| u128::from(x)).sum::<u128>()
    );
    let c = v.to_narrow_array();
    assert_eq!(c.shape(), shape);
    assert_holds(&c, &expected);
    let all: Vec<usize> = (0..64).collect();
    let odd: Vec<usize> = (0..64).filter(|d| d % 2 == 1).collect();
    let some = vec![3, 35, 63];
    let inner = vec![51, 63];
    for axes in [vec![], all, odd, some, inner, vec![19]] {
        let want = axis_sums(shape, &expected, &axes);
        let (s, got) = v.sum_axes(&axes, true).unwrap();
        assert_eq!(s.len(), 64);
        assert_eq!(got.iter().map(|&x| u128::from(x)).collect::<Vec<_>>(), want);
    }
}

test_widths!(edge_cases);
