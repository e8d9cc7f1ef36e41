//! Descriptors and sizes chosen to break the arithmetic: each once made a
//! function that returns `Result` panic (debug), wrap (release) or abort.
//! Each must now return an `Error` that names the numbers, or the right
//! answer, and leave the array as it was.

use bitpack::{DynNarrowArray, Error, Layout, NarrowArray, checked_storage_bytes, storage_bytes};

#[test]
fn reversing_a_stride_of_isize_min_is_an_error() {
    let l = Layout::new(&[1], &[isize::MIN], 0, 4).unwrap();
    let e = l.reversed(0).unwrap_err();
    assert_eq!(
        e,
        Error::LayoutOverflow {
            what: "stride",
            value: 1i128 << 63
        }
    );
    assert_eq!(
        e.to_string(),
        "the view's stride would be 9223372036854775808, outside isize"
    );
    // Through `step_by` with a negative step, which reverses first.
    assert!(l.step_by(0, -1).is_err());
}

#[test]
fn reversing_a_huge_broadcast_axis_is_exact() {
    let l = Layout::new(&[1 << 63], &[0], 2, 4).unwrap();
    let r = l.reversed(0).unwrap();
    assert_eq!(
        (r.offset(), r.strides(), r.len()),
        (2, &[0isize][..], 1 << 63)
    );
    assert_eq!(r.iter().take(3).collect::<Vec<_>>(), [2, 2, 2]);
    let full = Layout::new(&[usize::MAX], &[0], 3, 4).unwrap();
    assert_eq!(full.reversed(0).unwrap().index(&[usize::MAX - 1]), Some(3));
}

#[test]
fn select_and_slice_on_an_empty_layout_with_a_huge_stride_are_errors() {
    let l = Layout::new(&[0, 10], &[1, isize::MAX], 0, 4).unwrap();
    let e = l.select(1, 5).unwrap_err();
    assert_eq!(
        e,
        Error::LayoutOverflow {
            what: "offset",
            value: 5 * isize::MAX as i128
        }
    );
    assert!(l.slice(1, 5..7).is_err());
    // In range, and still empty: fine.
    assert!(l.select(1, 0).unwrap().is_empty());
    assert!(l.slice(1, 1..2).unwrap().is_empty());
    // A negative stride that overflows below isize::MIN.
    let n = Layout::new(&[0, 4], &[1, isize::MIN], -1, 4).unwrap();
    let e = n.select(1, 1).unwrap_err();
    assert_eq!(
        e,
        Error::LayoutOverflow {
            what: "offset",
            value: isize::MIN as i128 - 1
        }
    );
}

#[test]
fn step_by_scales_strides_exactly() {
    // `isize::MIN.unsigned_abs()` is 2^63, which is not an `isize`.
    let l = Layout::new(&[3], &[1], 0, 3).unwrap();
    let s = l.step_by(0, isize::MIN).unwrap();
    assert_eq!(s.iter().collect::<Vec<_>>(), [2]);
    let e = Layout::new(&[0, 3], &[1, 4], 0, 3)
        .unwrap()
        .step_by(1, isize::MAX)
        .unwrap_err();
    assert_eq!(
        e,
        Error::LayoutOverflow {
            what: "stride",
            value: 4 * isize::MAX as i128
        }
    );
}

#[test]
fn index_and_set_on_an_empty_view_with_a_huge_offset() {
    let l = Layout::new(&[2, 0], &[isize::MAX, 1], isize::MAX, 4).unwrap();
    assert_eq!(l.index(&[1, 0]), None);
    let mut m = NarrowArray::from_slice(&[1u8, 2, 3, 4]);
    let before = m.clone();
    let mut v = m
        .view_strided_mut(&[2, 0], &[isize::MAX, 1], isize::MAX)
        .unwrap();
    let e = v.set(&[1, 0], 9).unwrap_err();
    assert_eq!(e, Error::Index { index: 0, len: 0 });
    assert!(v.fill(9).is_ok());
    assert_eq!(m, before);
}

#[test]
fn sum_axes_of_an_empty_array_with_a_huge_extent_is_an_alloc_error() {
    let mut a = NarrowArray::<u8>::zeroed(0);
    a.reshape(&[0, usize::MAX]).unwrap();
    let e = a.view().sum_axes(&[0], false).unwrap_err();
    assert_eq!(
        e,
        Error::Alloc {
            what: "the output of sum_axes",
            count: Some(usize::MAX),
            value_bytes: 8
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "cannot allocate the output of sum_axes: {} values of 8 bytes",
            usize::MAX
        )
    );
    // Summing the huge axis instead gives nothing to allocate.
    assert_eq!(a.view().sum_axes(&[1], false).unwrap(), (vec![0], vec![]));
}

#[test]
fn sum_axes_whose_reduced_extents_overflow_before_a_zero() {
    // Reduced axes 2 x (2^64 - 4) x 0: the product of the first two alone
    // overflows, the group is empty, so each of the outputs is 0.
    let values: Vec<u8> = (0..12).collect();
    let a = NarrowArray::<u8>::from_slice(&values);
    let v = a
        .view_strided(&[1, 2, usize::MAX - 3, 0], &[0, 0, 0, 0], 0)
        .unwrap();
    assert_eq!(v.sum_axes(&[3, 1, 2], false).unwrap(), (vec![1], vec![0]));
    let mut out = [7u64; 1];
    v.sum_axes_into(&[1, 2, 3], &mut out).unwrap();
    assert_eq!(out, [0]);
    assert_eq!(v.sum(), 0);
    // Kept extents that overflow before a zero: no outputs at all.
    let w = a.view_strided(&[usize::MAX, 2, 0], &[0, 0, 0], 0).unwrap();
    assert_eq!(
        w.sum_axes(&[], false).unwrap(),
        (vec![usize::MAX, 2, 0], vec![])
    );
    let mut none: [u64; 0] = [];
    w.sum_axes_into(&[], &mut none).unwrap();
}

#[test]
fn sum_axes_of_a_huge_broadcast_is_an_alloc_error() {
    let a = NarrowArray::from_slice(&[1u8, 2]);
    // 2^61 outputs of 8 bytes: more than isize::MAX bytes.
    let v = a.view_strided(&[1 << 61, 2], &[0, 1], 0).unwrap();
    let e = v.sum_axes(&[1], false).unwrap_err();
    assert!(
        matches!(e, Error::Alloc { count: Some(n), .. } if n == 1 << 61),
        "{e}"
    );
    // The other axis is fine: 2 outputs.
    assert_eq!(v.sum_axes(&[0], false).unwrap().1, [1 << 61, 2u64 << 61]);
}

/// Whether Linux refuses obvious overcommits here (policy 0 or 2), so that
/// an 8 TiB allocation must fail; says why not when it may be granted.
fn overcommit_is_checked() -> bool {
    let policy = std::fs::read_to_string("/proc/sys/vm/overcommit_memory").unwrap_or_default();
    let checked = matches!(policy.trim(), "0" | "2");
    if !checked {
        eprintln!("skipped: overcommit policy {policy:?} may grant 8 TiB");
    }
    checked
}

/// The size from the report: 2^40 outputs, 8 TiB. Whether that allocation
/// is refused depends on the system's overcommit policy, so this runs only
/// where Linux refuses obvious overcommits (policy 0 or 2).
#[test]
fn sum_axes_of_an_8_tib_output_is_refused_where_overcommit_is_checked() {
    if !overcommit_is_checked() {
        return;
    }
    let a = NarrowArray::from_slice(&[1u8, 2]);
    let v = a.view_strided(&[1 << 40, 2], &[0, 1], 0).unwrap();
    let e = v.sum_axes(&[1], false).unwrap_err();
    assert!(
        matches!(e, Error::Alloc { count: Some(n), .. } if n == 1 << 40),
        "{e}"
    );
}

#[test]
fn assign_within_over_a_huge_overlapping_broadcast() {
    let l = Layout::new(&[usize::MAX], &[0], 0, 2).unwrap();
    let mut a = NarrowArray::from_slice(&[5u8, 7]);
    a.assign_within(&l, &l).unwrap();
    assert_eq!(a.to_vec(), [5, 7]);
    // The last write wins: element 0 takes element 1's value.
    let src = Layout::new(&[usize::MAX], &[0], 1, 2).unwrap();
    a.assign_within(&l, &src).unwrap();
    assert_eq!(a.to_vec(), [7, 7]);
    let mut d = DynNarrowArray::from_slice(3, &[1, 2]).unwrap();
    d.assign_within(&l, &l).unwrap();
    assert_eq!(d.to_vec(), [1, 2]);
}

#[test]
fn assign_within_snapshots_a_repeating_source_through_the_stream() {
    // dst rows alias (strides [1, 1]); src repeats its one row: its packed
    // copy (8 values) is larger than the array (5 values).
    let mut a = NarrowArray::from_slice(&[10u64, 11, 12, 13, 14]);
    let dst = Layout::new(&[2, 4], &[1, 1], 0, 5).unwrap();
    let src = Layout::new(&[2, 4], &[0, 1], 1, 5).unwrap();
    // Model: read every source value first, then write in logical order.
    let mut model = a.to_vec();
    let values: Vec<u64> = src.iter().map(|i| model[i]).collect();
    for (i, v) in dst.iter().zip(values) {
        model[i] = v;
    }
    a.assign_within(&dst, &src).unwrap();
    assert_eq!(a.to_vec(), model);
    assert_eq!(model, [11, 11, 12, 13, 14]);
}

#[test]
fn storage_bytes_is_exact_near_the_top_of_usize() {
    assert_eq!(storage_bytes(1 << 62, 8), 1 << 62);
    assert_eq!(storage_bytes(usize::MAX, 1), usize::MAX.div_ceil(8));
    assert_eq!(storage_bytes(usize::MAX, 8), usize::MAX);
    assert_eq!(checked_storage_bytes(usize::MAX, 9), None);
    assert_eq!(checked_storage_bytes(1 << 61, 64), None);
    assert_eq!(
        checked_storage_bytes((1 << 61) - 1, 64),
        Some(usize::MAX - 7)
    );
    for n in [0usize, 1, 7, 8, 9, 1000, 1 << 40] {
        for bits in [1u32, 3, 8, 13, 64, 128] {
            let want = (n as u128 * bits as u128).div_ceil(8) as usize;
            assert_eq!(storage_bytes(n, bits), want, "n={n} bits={bits}");
        }
    }
}

#[test]
#[should_panic(expected = "overflows usize")]
fn storage_bytes_panics_past_usize_as_documented() {
    let _ = storage_bytes(usize::MAX, 16);
}

#[test]
fn zeroed_arrays_of_every_size_hold_zeros_and_grow() {
    // The words come zeroed from the allocator (`alloc_zeroed`), not from
    // a resize: every word must still read zero, the length must be the
    // one asked for, and the buffer must behave as any other (push,
    // reallocation, drop).
    for len in [0usize, 1, 7, 63, 64, 65, 1000, 1 << 20, (1 << 20) + 3] {
        let mut a = NarrowArray::<arbitrary_int::u5>::try_zeroed(len).unwrap();
        assert_eq!(a.len(), len);
        assert_eq!(a.as_bytes().len(), (len * 5).div_ceil(8));
        assert!(a.as_bytes().iter().all(|&b| b == 0), "len {len}");
        a.push(arbitrary_int::u5::new(31));
        assert_eq!(a.len(), len + 1);
        assert_eq!(a.get(len), Some(arbitrary_int::u5::new(31)));
        assert_eq!(a.view().sum(), 31);
        let d = DynNarrowArray::zeroed(13, len).unwrap();
        assert_eq!(d.len(), len);
        assert!(d.as_bytes().iter().all(|&b| b == 0), "len {len}");
    }
}

#[test]
fn zeroed_arrays_too_large_for_the_address_space_are_alloc_errors() {
    // 2^57 words, 1 EiB: more than any 64-bit address space maps, so the
    // allocator refuses whatever the overcommit policy.
    let e = NarrowArray::<u64>::try_zeroed(1 << 57).unwrap_err();
    assert_eq!(
        e,
        Error::Alloc {
            what: "the words of a NarrowArray",
            count: Some(1 << 57),
            value_bytes: 8
        }
    );
    let e = DynNarrowArray::zeroed(64, 1 << 57).unwrap_err();
    assert!(
        matches!(e, Error::Alloc { count: Some(n), value_bytes: 8, .. } if n == 1 << 57),
        "{e}"
    );
    // A bit count beyond `usize` is refused before any allocation: no count.
    let e = NarrowArray::<u64>::try_zeroed(1 << 58).unwrap_err();
    assert!(matches!(e, Error::Alloc { count: None, .. }), "{e}");
}

/// 2^40 words, 8 TiB: refused by the allocator where Linux checks
/// overcommits (policy 0 or 2), as the sum's output above.
#[test]
fn a_zeroed_8_tib_array_is_refused_where_overcommit_is_checked() {
    if !overcommit_is_checked() {
        return;
    }
    let e = NarrowArray::<u64>::try_zeroed(1 << 40).unwrap_err();
    assert!(
        matches!(e, Error::Alloc { count: Some(n), .. } if n == 1 << 40),
        "{e}"
    );
}
