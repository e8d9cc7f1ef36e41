//! Reference models for the view, reduction and run-time-width tests: the
//! logical values as a plain `Vec<u64>`, descriptors enumerated coordinate by
//! coordinate in `i128`, and both physical layouts built bit by bit.

use proptest::prelude::*;

/// One `#[test]` per element width (1..=8, 12, 16, 24, 32) and physical
/// layout: `test_widths!(check)` expands to a module `check` holding
/// `wN::dense` and `wN::word_aligned`, which call `check::<T, L>()` (a
/// generic function of the test file, `T` the `N`-bit unsigned element type,
/// `L` the layout).
#[macro_export]
macro_rules! test_widths {
    ($check:ident) => {
        $crate::test_widths!(@ $check;
            w1 => arbitrary_int::u1, w2 => arbitrary_int::u2, w3 => arbitrary_int::u3,
            w4 => arbitrary_int::u4, w5 => arbitrary_int::u5, w6 => arbitrary_int::u6,
            w7 => arbitrary_int::u7, w8 => u8, w12 => arbitrary_int::u12, w16 => u16,
            w24 => arbitrary_int::u24, w32 => u32);
    };
    (@ $check:ident; $($name:ident => $t:ty),*) => {
        mod $check {
            $(
                mod $name {
                    #[test]
                    fn dense() {
                        super::super::$check::<$t, bitpack::Dense>();
                    }
                    #[test]
                    fn word_aligned() {
                        super::super::$check::<$t, bitpack::WordAligned>();
                    }
                }
            )*
        }
    };
}

/// The low `bits` bits set (`bits` in `0..=64`).
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// The linear index of every coordinate of a descriptor, row-major, in
/// `i128` (so nothing overflows).
pub fn indices(shape: &[usize], strides: &[isize], offset: isize) -> Vec<i128> {
    coords(shape)
        .into_iter()
        .map(|c| {
            c.iter()
                .zip(strides)
                .fold(offset as i128, |at, (&x, &s)| at + x as i128 * s as i128)
        })
        .collect()
}

/// Every coordinate of `shape`, row-major (one empty coordinate for 0-d).
pub fn coords(shape: &[usize]) -> Vec<Vec<usize>> {
    let count: usize = shape.iter().product();
    let mut out = Vec::with_capacity(count);
    let mut c = vec![0usize; shape.len()];
    for _ in 0..count {
        out.push(c.clone());
        for d in (0..shape.len()).rev() {
            c[d] += 1;
            if c[d] < shape[d] {
                break;
            }
            c[d] = 0;
        }
    }
    out
}

/// Whether the descriptor stays inside `len` elements (an empty one always
/// does).
pub fn in_bounds(shape: &[usize], strides: &[isize], offset: isize, len: usize) -> bool {
    indices(shape, strides, offset)
        .iter()
        .all(|&i| i >= 0 && i < len as i128)
}

/// The words of `values` (each `width` bits, `width` in `1..=64`) in the
/// dense layout, as stored (little-endian bytes), built bit by bit.
pub fn dense_words(values: &[u64], width: u32) -> Vec<u64> {
    let bits = values.len() * width as usize;
    let mut words = vec![0u64; bits.div_ceil(64)];
    for (i, &v) in values.iter().enumerate() {
        for b in 0..width as usize {
            if (v >> b) & 1 == 1 {
                let k = i * width as usize + b;
                words[k / 64] |= 1 << (k % 64);
            }
        }
    }
    words.iter().map(|w| w.to_le()).collect()
}

/// The words of `values` (each `width` bits, `width` in `1..=64`) in the
/// word-aligned layout, as stored: `floor(64 / width)` values per word, the
/// rest of the word zero.
pub fn aligned_words(values: &[u64], width: u32) -> Vec<u64> {
    let per = (64 / width) as usize;
    let mut words = vec![0u64; values.len().div_ceil(per)];
    for (i, &v) in values.iter().enumerate() {
        for b in 0..width as usize {
            if (v >> b) & 1 == 1 {
                words[i / per] |= 1 << ((i % per) * width as usize + b);
            }
        }
    }
    words.iter().map(|w| w.to_le()).collect()
}

/// The stored words of `values` in the layout `L`.
pub fn layout_words<L: bitpack::Packing>(values: &[u64], width: u32) -> Vec<u64> {
    if L::WORD_ALIGNED {
        aligned_words(values, width)
    } else {
        dense_words(values, width)
    }
}

/// The reference of an axis sum: the sums over `axes` of the values at
/// `idx` (a descriptor's indices in row-major order over `shape`),
/// row-major over the kept axes.
pub fn axis_sums(shape: &[usize], idx: &[u64], axes: &[usize]) -> Vec<u128> {
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !axes.contains(d)).collect();
    let kept_shape: Vec<usize> = kept.iter().map(|&d| shape[d]).collect();
    let n: usize = kept_shape.iter().product();
    let mut out = vec![0u128; n];
    for (c, &v) in coords(shape).iter().zip(idx) {
        let mut o = 0;
        for &d in &kept {
            o = o * shape[d] + c[d];
        }
        out[o] += u128::from(v);
    }
    out
}

/// Every subset of `0..nd`, as sorted axis lists.
pub fn subsets(nd: usize) -> Vec<Vec<usize>> {
    (0..1u32 << nd)
        .map(|m| (0..nd).filter(|&d| m >> d & 1 == 1).collect())
        .collect()
}

/// A random strided descriptor over an array of `len` elements whose view
/// starts near element `shift`: up to `max_nd` dimensions of extent
/// `0..=max_extent`, strides in `-7..=7` (zero included), and an offset
/// placed so that most descriptors are valid and some reach just outside.
pub fn descriptor(
    max_nd: usize,
    max_extent: usize,
) -> impl Strategy<Value = (Vec<usize>, Vec<isize>, u16)> {
    (0..=max_nd).prop_flat_map(move |nd| {
        (
            prop::collection::vec(0..=max_extent, nd),
            prop::collection::vec(-7isize..=7, nd),
            any::<u16>(),
        )
    })
}

/// The offset of a descriptor from [`descriptor`]: from `pick`, between two
/// elements before the lowest valid offset at or after `shift` and two past
/// the highest.
pub fn place(shape: &[usize], strides: &[isize], shift: usize, len: usize, pick: u16) -> isize {
    let (mut neg, mut pos) = (0isize, 0isize);
    for (&e, &s) in shape.iter().zip(strides) {
        let span = e.saturating_sub(1) as isize * s;
        if span < 0 {
            neg -= span;
        } else {
            pos += span;
        }
    }
    let lo = (shift as isize).max(neg) - 2;
    let hi = (len as isize - 1 - pos + 2).max(lo);
    lo + (pick as isize) % (hi - lo + 1)
}
