//! Reductions over packed streams: whole, strided, N-d and per-axis sums,
//! without unpacking the input.
//!
//! The containers and views call these with their words, width and layout;
//! each entry point picks the width's kernels **once per call** from tables
//! generated per width and layout (see [`strided`] for the kernels, [`fold`]
//! for the word-aligned digit folding, [`nd`] for the N-d walk and [`axis`]
//! for axis sums).
//!
//! # Exactness and the accumulator rule
//!
//! Every sum is exact. A run of `n` values of `b` bits accumulates in `u64`
//! while `n * (2^b - 1)` fits in a `u64` (for up to `u64::MAX / (2^b - 1)`
//! values at a time, which is always the case for `b <= 32` and fewer than
//! `2^32` values) and in `u128` across such pieces, so whole sums are
//! returned as `u128`. Axis sums write `u64`s: when a reduced group of `g`
//! values could exceed `u64::MAX` (`g * (2^b - 1) > u64::MAX`), each output
//! is computed exactly and an output that does not fit is an
//! [`Error::SumOverflow`](crate::Error::SumOverflow), found before anything
//! is written.

pub(crate) mod axis;
pub(crate) mod fold;
pub(crate) mod nd;
pub(crate) mod strided;
#[cfg(test)]
mod tests;

pub(crate) use crate::element::UnsignedElement;
use crate::kernels::width_table;
use crate::shape::Layout;
use strided::{contiguous_aligned, contiguous_dense, strided_aligned, strided_dense};

/// Rejects, at compile time, a summed element type wider than 64 bits.
pub(crate) const fn assert_summable<T: UnsignedElement>() {
    const { assert!(T::BITS <= 64, "sums need an element of at most 64 bits") }
}

type ContigFn = fn(&[u64], usize, usize) -> u128;
type StridedFn = fn(&[u64], usize, usize, usize) -> u128;

/// `[layout][width - 1]`, layout 0 dense, 1 word-aligned.
static CONTIGUOUS: [[ContigFn; 64]; 2] = [
    width_table!(contiguous_dense; 64),
    width_table!(contiguous_aligned; 64),
];
static STRIDED: [[StridedFn; 64]; 2] = [
    width_table!(strided_dense; 64),
    width_table!(strided_aligned; 64),
];

/// The run sums of one width and layout, looked up once.
#[derive(Clone, Copy)]
pub(crate) struct RunSum {
    contiguous: ContigFn,
    strided: StridedFn,
    aligned: bool,
    bits: u32,
}

impl RunSum {
    /// The kernels for `bits`-bit values (`1..=64`).
    #[inline]
    pub(crate) fn new(aligned: bool, bits: u32) -> RunSum {
        debug_assert!((1..=64).contains(&bits));
        let w = bits as usize - 1;
        RunSum {
            contiguous: CONTIGUOUS[aligned as usize][w],
            strided: STRIDED[aligned as usize][w],
            aligned,
            bits,
        }
    }

    /// The sum of `count` values from `start`, stepping by `stride` (any
    /// sign; the run lies in the stream).
    #[inline]
    pub(crate) fn run(&self, words: &[u64], start: usize, stride: isize, count: usize) -> u128 {
        match count {
            0 => 0,
            1 => crate::kernels::stream::read(self.aligned, self.bits, words, start),
            _ if stride == 0 => {
                count as u128 * crate::kernels::stream::read(self.aligned, self.bits, words, start)
            }
            _ => {
                // Sums do not depend on order: walk a negative stride from
                // its lowest element.
                let (lo, step) = if stride < 0 {
                    (
                        start - (count - 1) * stride.unsigned_abs(),
                        stride.unsigned_abs(),
                    )
                } else {
                    (start, stride as usize)
                };
                if step == 1 {
                    (self.contiguous)(words, lo, count)
                } else {
                    (self.strided)(words, lo, step, count)
                }
            }
        }
    }

    /// The sum of the elements of a normalized descriptor from `base` (its
    /// offset, or another offset with the same axes), without the repeat
    /// factor.
    #[inline]
    pub(crate) fn normal(&self, words: &[u64], n: &nd::Normal, base: usize) -> u128 {
        let (count, stride) = n.inner();
        let mut total = 0u128;
        n.for_each_run_from(base, |start| {
            total += self.run(words, start, stride as isize, count);
        });
        total
    }
}

/// The sum of every element the layout addresses (repeats counted). With
/// the `rayon` feature a large sum splits across threads (`crate::par`):
/// along the outermost axis of the normalized layout, or along its one run;
/// a sum writes nothing, so a cut may fall anywhere, and the pieces' exact
/// sums add up to the one-thread sum. Counted as an eighth of a value's
/// work, as the contiguous sums are.
pub(crate) fn sum_layout(aligned: bool, bits: u32, words: &[u64], layout: &Layout) -> u128 {
    let Some(n) = nd::Normal::of(layout) else {
        return 0;
    };
    let r = RunSum::new(aligned, bits);
    let add = |a: u128, b: u128| a + b;
    let sum = if n.nd <= 1 {
        let (count, stride) = n.inner();
        crate::par::fold(
            count / 8,
            count,
            |_| true,
            |p| r.run(words, n.offset + p.start * stride, stride as isize, p.len()),
            add,
        )
    } else {
        // Distinct elements (broadcast axes are in `repeat`): at most the
        // layout's span, so the product fits.
        let values: usize = n.dims[..n.nd].iter().map(|&(e, _)| e).product();
        let (outer, stride) = n.dims[0];
        crate::par::fold(
            values / 8,
            outer,
            |_| true,
            |p| {
                let mut piece = n;
                piece.dims[0].0 = p.len();
                r.normal(words, &piece, n.offset + p.start * stride)
            },
            add,
        )
    };
    sum * n.repeat
}
