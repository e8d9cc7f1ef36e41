//! The one place where bulk calls split across threads (feature `rayon`).
//!
//! A bulk call describes its work as `units` in order (values, blocks, or
//! chunks of a row), says before which units a cut may fall (`cut_ok`: a
//! cut on a packed word boundary, so that no two threads write one word,
//! and on a block or chunk boundary, so that every piece computes what the
//! whole call would), and how far into each output a unit starts. The
//! pieces then run on the current `rayon` pool, each with its own part of
//! each output; every value is computed by the same code from the same
//! inputs (stochastic rounding takes its random bits from the value's index,
//! which the pieces keep), so the result is bit-identical to one thread's.
//!
//! Below [`THRESHOLD`] values of work, in a pool of one thread, and without
//! the feature, the call runs as one piece on the calling thread: `f` gets
//! the whole outputs, and nothing is allocated.

use core::ops::Range;

/// The amount of work (in values) below which a bulk call stays on the
/// calling thread: 2^20 values.
///
/// Measured with `cargo bench -p bitpack-bench --features rayon --bench
/// parallel -- threshold` on 2 shared cores (`BENCHMARKS.md`, "All
/// cores"): a split costs 13 to 20 microseconds there (waking the pool's
/// threads, their cold caches). At 2^20 values a forced split was still
/// slightly behind one thread for encode, decode and unpack (0.7x to
/// 0.93x, after main's faster one-thread paths) and ahead at 2^26 (encode
/// 1.4x, unpack 1.6x); 2^20 is kept as the point where the split costs
/// little either way. On a quiet AMD Zen 4 (2 cores) the packs and unpacks
/// of `NarrowArray` crossed over between 2^18 and 2^20 values as the
/// decode did (1.30x and 1.45x split at 2^20, 0.74x and 0.83x at 2^18), so
/// they count one unit a value too. Sums, some 30 times cheaper per value
/// than an encode, count each value as an eighth of one, so they split
/// from 2^23 values on.
#[cfg(feature = "rayon")]
pub const THRESHOLD: usize = 1 << 20;

/// Pieces per thread: more than one, so that a thread slowed by another
/// process leaves its share to the others.
#[cfg(feature = "rayon")]
const PIECES_PER_THREAD: usize = 4;

#[cfg(feature = "rayon")]
std::thread_local! {
    /// The threshold and piece count set by [`with_threshold`] on this
    /// thread (tests), else `None`.
    static FORCED: core::cell::Cell<Option<(usize, usize)>> = const { core::cell::Cell::new(None) };
}

/// Runs `f` with the threshold set to `threshold` and the work of a call
/// cut into `pieces` pieces (when the cuts allow) on this thread, even in a
/// pool of one thread: what the tests use to run the parallel paths on
/// small inputs. Restores the default afterwards, also on a panic.
#[cfg(feature = "rayon")]
pub fn with_threshold<R>(threshold: usize, pieces: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<(usize, usize)>);
    impl Drop for Restore {
        fn drop(&mut self) {
            FORCED.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(FORCED.with(|c| c.replace(Some((threshold, pieces.max(1))))));
    f()
}

/// How many pieces `work` values are cut into: 1 (stay on this thread)
/// below the threshold or in a pool of one thread.
#[cfg(feature = "rayon")]
fn pieces(work: usize) -> usize {
    if let Some((threshold, pieces)) = FORCED.with(|c| c.get()) {
        return if work >= threshold { pieces } else { 1 };
    }
    let threads = rayon::current_num_threads();
    if work < THRESHOLD || threads < 2 {
        return 1;
    }
    // Pieces of at least a quarter of the threshold.
    (threads * PIECES_PER_THREAD)
        .min(work / (THRESHOLD / 4))
        .max(2)
}

/// The cuts of `0..units` into at most `pieces` pieces: `0`, then each
/// `k * units / pieces` moved down to the nearest unit before which
/// `cut_ok` allows a cut (at most `units / pieces` units down; a cut with
/// none that near is left out), then `units`. Strictly increasing.
#[cfg(feature = "rayon")]
fn cuts(units: usize, pieces: usize, cut_ok: &impl Fn(usize) -> bool) -> std::vec::Vec<usize> {
    let mut cuts = std::vec![0];
    let step = units / pieces.max(1);
    for k in 1..pieces {
        let target = k * step;
        let floor = *cuts.last().expect("starts with 0");
        let found = (floor + 1..=target)
            .rev()
            .take(step.max(1))
            .find(|&u| cut_ok(u));
        if let Some(u) = found {
            cuts.push(u);
        }
    }
    if units > 0 && *cuts.last().expect("starts with 0") < units {
        cuts.push(units);
    }
    cuts
}

/// `slice` cut at `at(c)` for every inner cut `c`: the first part starts
/// at 0 and the last ends at the slice's end. `at` must be non-decreasing
/// and at most `slice.len()` on the inner cuts.
#[cfg(feature = "rayon")]
fn split_at_cuts<'a, A>(
    mut slice: &'a mut [A],
    cuts: &[usize],
    at: &impl Fn(usize) -> usize,
) -> std::vec::Vec<(&'a mut [A], usize)> {
    let mut parts = std::vec::Vec::with_capacity(cuts.len());
    let mut base = 0;
    for &c in &cuts[1..cuts.len() - 1] {
        let end = at(c);
        let (head, tail) = slice.split_at_mut(end - base);
        parts.push((head, base));
        slice = tail;
        base = end;
    }
    parts.push((slice, base));
    parts
}

/// One output of a split call: the slice, and where unit `u` starts in it
/// (non-decreasing in `u`; two pieces never share an element, so the
/// position of a cut must be where the output of the units before it ends).
pub(crate) struct Out<'a, A, P: Fn(usize) -> usize> {
    /// The whole output.
    pub(crate) slice: &'a mut [A],
    /// Where the output of unit `u` starts.
    #[cfg_attr(
        not(feature = "rayon"),
        expect(dead_code, reason = "read only to split the output")
    )]
    pub(crate) at: P,
}

/// An output for units that write nothing.
pub(crate) fn no_out<'a>() -> Out<'a, (), fn(usize) -> usize> {
    Out {
        slice: &mut [],
        at: |_| 0,
    }
}

/// Runs `f(units, (a_part, a_base), (b_part, b_base))` over pieces of
/// `0..units` (see the module docs), where `a_part` starts at element
/// `a_base` of `a.slice` (0 for the first piece) and holds the output of the
/// piece's units (the first and last pieces also hold what is before and
/// after them). `work` is the number of values the call handles, which
/// decides whether it splits. With one piece, `f(0..units, (a, 0), (b, 0))`.
pub(crate) fn split2<A: Send, B: Send, PA, PB>(
    work: usize,
    units: usize,
    cut_ok: impl Fn(usize) -> bool,
    a: Out<'_, A, PA>,
    b: Out<'_, B, PB>,
    f: impl Fn(Range<usize>, (&mut [A], usize), (&mut [B], usize)) + Sync,
) where
    PA: Fn(usize) -> usize,
    PB: Fn(usize) -> usize,
{
    #[cfg(feature = "rayon")]
    {
        let n = pieces(work);
        if n > 1 {
            let cuts = cuts(units, n, &cut_ok);
            if cuts.len() > 2 {
                use rayon::prelude::*;
                let pa = split_at_cuts(a.slice, &cuts, &a.at);
                let pb = split_at_cuts(b.slice, &cuts, &b.at);
                let ranges: std::vec::Vec<_> = cuts.windows(2).map(|w| w[0]..w[1]).collect();
                ranges
                    .into_par_iter()
                    .zip(pa)
                    .zip(pb)
                    .for_each(|((r, a), b)| f(r, a, b));
                return;
            }
        }
    }
    let _ = (work, &cut_ok);
    f(0..units, (a.slice, 0), (b.slice, 0));
}

/// [`split2`] with one output.
pub(crate) fn split<A: Send, PA: Fn(usize) -> usize>(
    work: usize,
    units: usize,
    cut_ok: impl Fn(usize) -> bool,
    a: Out<'_, A, PA>,
    f: impl Fn(Range<usize>, &mut [A], usize) + Sync,
) {
    split2(work, units, cut_ok, a, no_out(), |r, (a, base), _| {
        f(r, a, base)
    });
}

/// `f` over pieces of `0..units` (no output), the pieces' results combined
/// by `combine` in order: `f(0..units)` with one piece. `combine` must make
/// the result independent of where the cuts fall (an exact sum, a max).
pub(crate) fn fold<R: Send>(
    work: usize,
    units: usize,
    cut_ok: impl Fn(usize) -> bool,
    f: impl Fn(Range<usize>) -> R + Sync,
    combine: impl Fn(R, R) -> R + Sync,
) -> R {
    #[cfg(feature = "rayon")]
    {
        let n = pieces(work);
        if n > 1 {
            let cuts = cuts(units, n, &cut_ok);
            if cuts.len() > 2 {
                use rayon::prelude::*;
                let ranges: std::vec::Vec<_> = cuts.windows(2).map(|w| w[0]..w[1]).collect();
                return ranges
                    .into_par_iter()
                    .map(&f)
                    .reduce_with(&combine)
                    .expect("more than one piece");
            }
        }
    }
    let _ = (work, &cut_ok, &combine);
    f(0..units)
}

/// Values per cut of the element-wise calls: 512 values of any width are a
/// whole number of 64-bit words (and of bytes), and a multiple of every
/// block (32 for MX, 16 for NVFP4) and of the stack chunks of the float
/// paths.
pub(crate) const GRAIN: usize = 512;

/// Whether a cut may fall before value `u` of an element-wise call: `u` is
/// a multiple of [`GRAIN`].
#[inline]
pub(crate) fn on_grain(u: usize) -> bool {
    u.is_multiple_of(GRAIN)
}

/// Whether a cut before value `i` of a dense stream of `bits`-bit values
/// falls on a word boundary.
#[inline]
pub(crate) fn on_word(bits: u32, i: usize) -> bool {
    (i as u128 * bits as u128).is_multiple_of(64)
}

#[cfg(all(test, feature = "rayon"))]
mod tests {
    use super::*;

    #[test]
    fn cuts_are_increasing_and_allowed() {
        for units in [0usize, 1, 2, 7, 100, 1000, 4097] {
            for pieces in 1..10 {
                for align in [1usize, 3, 16, 64, 5000] {
                    let c = cuts(units, pieces, &|u| u % align == 0);
                    if units == 0 {
                        // No piece to cut: the callers run it whole.
                        assert_eq!(c, [0]);
                        continue;
                    }
                    assert_eq!(c[0], 0);
                    assert!(c.windows(2).all(|w| w[0] < w[1]), "{c:?}");
                    assert!(c[1..c.len() - 1].iter().all(|u| u % align == 0));
                    assert_eq!(*c.last().unwrap(), units);
                }
            }
        }
    }

    #[test]
    fn split_gives_disjoint_parts_covering_the_output() {
        let mut out = std::vec![0u32; 100];
        with_threshold(0, 7, || {
            split(
                100,
                100,
                |u| u % 3 == 0,
                Out {
                    slice: &mut out,
                    at: |u| u,
                },
                |r, part, base| {
                    assert_eq!(base, if r.start == 0 { 0 } else { r.start });
                    for (k, v) in part.iter_mut().enumerate() {
                        *v += (base + k) as u32;
                    }
                },
            )
        });
        assert_eq!(out, (0..100).collect::<std::vec::Vec<u32>>());
        let s = with_threshold(0, 5, || fold(10, 10, |_| true, |r| r.len(), |a, b| a + b));
        assert_eq!(s, 10);
    }
}
