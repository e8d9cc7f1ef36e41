//! Strided view descriptors against an `i128` reference: `view_strided`
//! accepts exactly the descriptors whose every index is in bounds, reads
//! give the reference's values, and writes (`set`, `fill`, `assign_from`,
//! `assign_within`) change exactly what a `Vec` model changes, keep the
//! padding zero, and change nothing when they fail.

#![no_main]

use arbitrary::Arbitrary;
use arbitrary_int::u5;
use bitpack::{Layout, NarrowArray};
use bitpack_fuzz::zero_from;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Desc {
    shape: Vec<u64>,
    strides: Vec<i64>,
    offset: i64,
}

#[derive(Arbitrary, Debug)]
struct Input {
    len: u8,
    seed: u8,
    a: Desc,
    b: Desc,
    coords: Vec<u64>,
    value: u8,
}

/// Small extents mostly, huge ones sometimes.
fn extent(x: u64) -> usize {
    match x % 8 {
        0 => usize::MAX - (x as usize >> 3) % 4,
        1 => 1 << (61 + (x >> 3) % 3),
        _ => (x % 6) as usize,
    }
}

fn stride(x: i64) -> isize {
    match x.rem_euclid(10) {
        0 => isize::MIN,
        1 => isize::MAX,
        _ => (x % 7) as isize,
    }
}

fn offset(x: i64) -> isize {
    if x % 5 == 0 {
        x as isize
    } else {
        (x % 45) as isize
    }
}

/// `Some(index range)` when the reference says the descriptor is valid
/// (`None` inside for an empty one).
fn reference(
    shape: &[usize],
    strides: &[isize],
    off: isize,
    n: usize,
) -> Option<Option<(i128, i128)>> {
    if shape.len() != strides.len() || shape.len() > 64 {
        return None;
    }
    if shape.contains(&0) {
        return Some(None);
    }
    shape.iter().try_fold(1usize, |a, &e| a.checked_mul(e))?;
    let (mut lo, mut hi) = (off as i128, off as i128);
    for (&e, &s) in shape.iter().zip(strides) {
        let span = (e as i128 - 1).checked_mul(s as i128)?;
        if span < 0 {
            lo = lo.checked_add(span)?
        } else {
            hi = hi.checked_add(span)?
        }
    }
    (lo >= 0 && hi < n as i128).then_some(Some((lo, hi)))
}

/// The linear index of flat element `k` (row-major), in `i128`.
fn index_of(shape: &[usize], strides: &[isize], off: isize, mut k: u128) -> i128 {
    let mut at = off as i128;
    for d in (0..shape.len()).rev() {
        let e = shape[d] as u128;
        at += (k % e) as i128 * strides[d] as i128;
        k /= e;
    }
    at
}

fn descriptor(d: &Desc) -> (Vec<usize>, Vec<isize>, isize) {
    let shape: Vec<usize> = d.shape.iter().take(5).map(|&x| extent(x)).collect();
    let strides: Vec<isize> = d.strides.iter().take(5).map(|&x| stride(x)).collect();
    (shape, strides, offset(d.offset))
}

fn padding_is_zero(a: &NarrowArray<u5>) -> bool {
    zero_from(a.as_bytes(), a.len() * 5)
}

fuzz_target!(|input: Input| {
    let n = input.len as usize % 41;
    let mut model: Vec<u5> = (0..n)
        .map(|i| u5::new(((i * 7 + input.seed as usize) % 32) as u8))
        .collect();
    let mut a: NarrowArray<u5> = model.iter().copied().collect();
    let (shape, strides, off) = descriptor(&input.a);
    let want = reference(&shape, &strides, off, n);
    let value = u5::new(input.value & 31);

    match a.view_strided(&shape, &strides, off) {
        Err(_) => assert!(
            want.is_none(),
            "rejected a valid view {shape:?} {strides:?} {off}"
        ),
        Ok(v) => {
            assert!(
                want.is_some(),
                "accepted an invalid view {shape:?} {strides:?} {off}"
            );
            let count = if shape.contains(&0) {
                0
            } else {
                shape.iter().product::<usize>()
            };
            assert_eq!(v.len(), count);
            for (k, x) in v.iter().take(64).enumerate() {
                let i = index_of(&shape, &strides, off, k as u128);
                assert_eq!(x, model[i as usize], "element {k}");
            }
            if count <= 64 {
                let want: u128 = v.iter().map(|x| x.value() as u128).sum();
                assert_eq!(v.sum(), want);
            }
        }
    }

    // A write at `coords`.
    let coords: Vec<usize> = input.coords.iter().take(5).map(|&x| extent(x)).collect();
    let before = a.clone();
    if let Ok(mut m) = a.view_strided_mut(&shape, &strides, off) {
        let in_range = coords.len() == shape.len() && coords.iter().zip(&shape).all(|(c, e)| c < e);
        match m.set(&coords, value) {
            Ok(()) => {
                assert!(in_range);
                let mut k = 0u128;
                for (c, e) in coords.iter().zip(&shape) {
                    k = k * *e as u128 + *c as u128;
                }
                model[index_of(&shape, &strides, off, k) as usize] = value;
            }
            Err(_) => assert!(!in_range),
        }
    }
    assert_eq!(a.to_vec(), model);
    assert!(before.len() == a.len() && padding_is_zero(&a));

    // Assignment between two descriptors, as if the source were read first.
    let (shape_b, strides_b, off_b) = descriptor(&input.b);
    let (Ok(dst), Ok(src)) = (
        Layout::new(&shape, &strides, off, n),
        Layout::new(&shape, &strides_b, off_b, n),
    ) else {
        let _ = shape_b;
        return;
    };
    let before = a.clone();
    match a.assign_within(&dst, &src) {
        Err(_) => assert_eq!(a, before),
        Ok(()) => {
            let count = dst.len();
            if count <= 4096 {
                let values: Vec<u5> = src.iter().map(|i| model[i]).collect();
                for (i, v) in dst.iter().zip(values) {
                    model[i] = v;
                }
                assert_eq!(a.to_vec(), model);
            }
            assert!(padding_is_zero(&a));
        }
    }
});
