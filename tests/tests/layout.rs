//! Strided layouts against a reference that enumerates every coordinate in
//! `i128`.

use bitpack::{Error, Layout, LengthOf, MAX_DIMS};
use proptest::prelude::*;

/// Every linear index of the descriptor in row-major order, in `i128`.
fn reference_indices(shape: &[usize], strides: &[isize], offset: isize) -> Vec<i128> {
    let count: usize = shape.iter().product();
    let mut out = Vec::with_capacity(count);
    let mut coords = vec![0usize; shape.len()];
    for _ in 0..count {
        let mut at = offset as i128;
        for d in 0..shape.len() {
            at += coords[d] as i128 * strides[d] as i128;
        }
        out.push(at);
        for d in (0..shape.len()).rev() {
            coords[d] += 1;
            if coords[d] < shape[d] {
                break;
            }
            coords[d] = 0;
        }
    }
    out
}

fn descriptor() -> impl Strategy<Value = (Vec<usize>, Vec<isize>, isize, usize)> {
    (0usize..=4).prop_flat_map(|nd| {
        (
            prop::collection::vec(0usize..5, nd),
            prop::collection::vec(-7isize..8, nd),
            -20isize..60,
            0usize..60,
        )
    })
}

fn runs(l: &Layout) -> Vec<usize> {
    let mut out = Vec::new();
    l.for_each_run(|start, stride, count| {
        for k in 0..count {
            out.push((start as isize + k as isize * stride) as usize);
        }
    });
    out
}

proptest! {
    #[test]
    fn validation_and_iteration_match_reference((shape, strides, offset, len) in descriptor()) {
        let reference = reference_indices(&shape, &strides, offset);
        let valid = reference.iter().all(|&i| i >= 0 && i < len as i128);
        match Layout::new(&shape, &strides, offset, len) {
            Ok(l) => {
                prop_assert!(valid, "accepted an out-of-bounds view {:?}", l);
                let got: Vec<i128> = l.iter().map(|i| i as i128).collect();
                prop_assert_eq!(&got, &reference);
                prop_assert_eq!(l.len(), reference.len());
                prop_assert_eq!(l.iter().len(), reference.len());
                let by_runs: Vec<i128> = runs(&l).into_iter().map(|i| i as i128).collect();
                prop_assert_eq!(&by_runs, &reference);
                // index() agrees with iteration order.
                if !reference.is_empty() {
                    let last: Vec<usize> = shape.iter().map(|&n| n - 1).collect();
                    prop_assert_eq!(l.index(&last).map(|i| i as i128), reference.last().copied());
                    let mut past = last.clone();
                    if let Some(c) = past.first_mut() {
                        *c += 1;
                        prop_assert_eq!(l.index(&past), None);
                    }
                }
            }
            Err(e) => {
                prop_assert!(!valid, "rejected a valid view: {}", e);
                let is_bounds = matches!(e, Error::ViewBounds { .. });
                prop_assert!(is_bounds, "unexpected error {:?}", e);
            }
        }
    }

    #[test]
    fn helpers_match_reference(
        (shape, strides, offset, len) in descriptor(),
        axis_pick in 0usize..4,
        a in 0usize..6,
        b in 0usize..6,
        step in -4isize..5,
    ) {
        let Ok(l) = Layout::new(&shape, &strides, offset, len) else { return Ok(()) };
        if shape.is_empty() {
            let is_axis = matches!(l.slice(0, 0..0), Err(Error::Axis { axis: 0, ndim: 0 }));
            prop_assert!(is_axis);
            return Ok(());
        }
        let axis = axis_pick % shape.len();
        let n = shape[axis];
        let by_coords = |f: &dyn Fn(&[usize]) -> Option<Vec<usize>>, out_shape: &[usize]| {
            // Enumerate the output's coordinates and map them back to l's.
            let count: usize = out_shape.iter().product();
            let mut coords = vec![0usize; out_shape.len()];
            let mut out = Vec::new();
            for _ in 0..count {
                let src = f(&coords).expect("mapped coordinate");
                out.push(l.index(&src).expect("in range"));
                for d in (0..out_shape.len()).rev() {
                    coords[d] += 1;
                    if coords[d] < out_shape[d] { break; }
                    coords[d] = 0;
                }
            }
            out
        };

        // slice
        let (lo, hi) = (a.min(b), a.max(b));
        match l.slice(axis, lo..hi) {
            Ok(s) => {
                prop_assert!(hi <= n);
                let mut out_shape = shape.clone();
                out_shape[axis] = hi - lo;
                let want = by_coords(&|c| { let mut c = c.to_vec(); c[axis] += lo; Some(c) }, &out_shape);
                prop_assert_eq!(s.iter().collect::<Vec<_>>(), want);
            }
            Err(e) => {
                prop_assert!(hi > n);
                let is_range = matches!(e, Error::Range { .. });
                prop_assert!(is_range);
            }
        }

        // step_by
        if step == 0 {
            prop_assert!(l.step_by(axis, 0).is_err());
        } else {
            let s = l.step_by(axis, step).unwrap();
            let k = n.div_ceil(step.unsigned_abs());
            let mut out_shape = shape.clone();
            out_shape[axis] = k;
            let want = by_coords(&|c| {
                let mut c = c.to_vec();
                c[axis] = if step > 0 { c[axis] * step as usize } else { n - 1 - c[axis] * step.unsigned_abs() };
                Some(c)
            }, &out_shape);
            prop_assert_eq!(s.iter().collect::<Vec<_>>(), want);
        }

        // reversed
        let r = l.reversed(axis).unwrap();
        let want = by_coords(&|c| { let mut c = c.to_vec(); c[axis] = n - 1 - c[axis]; Some(c) }, &shape);
        prop_assert_eq!(r.iter().collect::<Vec<_>>(), want);

        // transpose
        let t = l.transpose();
        let rev_shape: Vec<usize> = shape.iter().rev().copied().collect();
        let want = by_coords(&|c| Some(c.iter().rev().copied().collect()), &rev_shape);
        prop_assert_eq!(t.iter().collect::<Vec<_>>(), want);

        // select
        if a < n {
            let s = l.select(axis, a).unwrap();
            let mut out_shape = shape.clone();
            out_shape.remove(axis);
            let want = by_coords(&|c| { let mut c = c.to_vec(); c.insert(axis, a); Some(c) }, &out_shape);
            prop_assert_eq!(s.iter().collect::<Vec<_>>(), want);
        } else {
            let is_index = matches!(l.select(axis, a), Err(Error::Index { .. }));
            prop_assert!(is_index);
        }
    }
}

#[test]
fn permute_checks_its_argument() {
    let l = Layout::contiguous(&[2, 3, 4], 24).unwrap();
    assert!(matches!(
        l.permute(&[0, 1]),
        Err(Error::Length {
            of: LengthOf::AxisOrder,
            expected: 3,
            actual: 2
        })
    ));
    assert!(l.permute(&[0, 0, 1]).is_err());
    assert!(l.permute(&[0, 1, 3]).is_err());
    let p = l.permute(&[1, 2, 0]).unwrap();
    assert_eq!(p.index(&[2, 3, 1]), l.index(&[1, 2, 3]));
}

#[test]
fn scalar_empty_and_64_dims() {
    let s = Layout::new(&[], &[], 0, 1).unwrap();
    assert_eq!(s.iter().collect::<Vec<_>>(), [0]);
    assert_eq!(s.index(&[]), Some(0));
    assert!(Layout::new(&[], &[], 1, 1).is_err());
    assert!(Layout::new(&[], &[], 0, 0).is_err());

    // Empty views never touch their offset, even one far outside storage.
    let e = Layout::new(&[3, 0], &[isize::MAX, 1], isize::MIN, 0).unwrap();
    assert!(e.is_empty());
    assert_eq!(e.iter().count(), 0);
    let mut called = false;
    e.for_each_run(|_, _, _| called = true);
    assert!(!called);

    let shape = [1usize; MAX_DIMS];
    let strides = [1isize; MAX_DIMS];
    let l = Layout::new(&shape, &strides, 0, 1).unwrap();
    assert_eq!(l.ndim(), 64);
    assert_eq!(l.iter().collect::<Vec<_>>(), [0]);
    let mut shape2 = [1usize; MAX_DIMS];
    shape2[0] = 2;
    shape2[63] = 3;
    let c = Layout::contiguous(&shape2, 6).unwrap();
    assert_eq!(c.iter().collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
    assert!(c.is_contiguous());
    let e = Layout::new(&[1; 65], &[0; 65], 0, 1).unwrap_err();
    assert_eq!(e, Error::TooManyDims { ndim: 65 });
    assert_eq!(e.to_string(), "65 dimensions given; a view has at most 64");
}

#[test]
fn overflowing_descriptors_are_errors() {
    // The element count overflows usize.
    let e = Layout::new(&[usize::MAX, 2], &[0, 0], 0, 1).unwrap_err();
    assert_eq!(
        e,
        Error::Shape {
            elements: None,
            len: 1
        }
    );
    // The extent overflows i128 after many large terms.
    let shape = [usize::MAX; 64];
    let strides = [isize::MAX; 64];
    assert!(matches!(
        Layout::new(&shape[..2], &strides[..2], 0, usize::MAX),
        Err(Error::Shape { elements: None, .. })
    ));
    let e = Layout::new(&[usize::MAX], &[isize::MAX], 0, usize::MAX).unwrap_err();
    assert!(matches!(e, Error::ViewBounds { .. }), "{e:?}");
    let e = Layout::new(&[usize::MAX], &[isize::MIN], isize::MAX, usize::MAX).unwrap_err();
    assert!(matches!(e, Error::ViewBounds { .. }), "{e:?}");
    // Offsets out of range.
    assert_eq!(
        Layout::new(&[1], &[1], -1, 4).unwrap_err().to_string(),
        "view reaches element -1, before the start of the storage"
    );
    assert_eq!(
        Layout::new(&[2], &[3], 2, 4).unwrap_err().to_string(),
        "view reaches element 5, past the storage's 4 elements"
    );
    // Mismatched descriptor lengths.
    assert_eq!(
        Layout::new(&[2, 3, 4], &[12, 4], 0, 24)
            .unwrap_err()
            .to_string(),
        "strides has 2 entries for a 3-d shape"
    );
    assert_eq!(
        Layout::contiguous(&[2, 3, 4], 24)
            .unwrap()
            .permute(&[0, 1])
            .unwrap_err()
            .to_string(),
        "the axis order has 2 entries for a 3-d view"
    );
    assert_eq!(
        Layout::new(&[2, 2], &[1], 0, 4).unwrap_err(),
        Error::Length {
            of: LengthOf::Strides,
            expected: 2,
            actual: 1
        }
    );
    // step_by with a stride that overflows.
    let l = Layout::new(&[2], &[isize::MAX / 2], 0, usize::MAX).unwrap();
    assert!(l.step_by(0, 4).is_err());
    // contiguous wants the exact count.
    assert_eq!(
        Layout::contiguous(&[2, 3], 7).unwrap_err(),
        Error::Shape {
            elements: Some(6),
            len: 7
        }
    );
}
