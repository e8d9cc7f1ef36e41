//! Sums over a set of axes, written into a caller-owned `u64` buffer,
//! without unpacking the input.
//!
//! The output is row-major over the kept axes. The strategy depends on the
//! innermost axis:
//!
//! - *Kept innermost axis of at least 32 columns* (column sums): column
//!   tiles. For each output row and tile of up to 1024 columns, every reduced
//!   coordinate contributes one row segment, decoded into a stack buffer of
//!   at most 1 KiB (`u8` values for widths up to 8, `u16` up to 16, then
//!   `u32`, `u64`) and added into tile accumulators of at most 2 KiB: `u16`
//!   for widths up to 8, `u32` up to 16, flushed into the `u64` output after
//!   at most `floor(MAX / (2^b - 1))` rows, so they cannot overflow; wider
//!   values add into the output directly. Adjacent short rows are decoded
//!   several per call.
//! - *Short contiguous reduced rows* (row sums of up to 64 values, rows
//!   adjacent): a block of rows is decoded into the buffer at once and summed
//!   row by row.
//! - *Anything else* (long rows, a short kept innermost axis, any other
//!   layout): each output is the N-d sum of the reduced axes from its base
//!   index, normalized once (see [`super::nd`]) and walked run by run with
//!   the width's run kernels (so a few long strided columns use the masked
//!   kernels).
//!
//! The decoders are the width's kernels, looked up once per call (or per
//! decoded block).

use crate::error::LengthOf;
use alloc::vec::Vec;

use super::RunSum;
use super::nd::{Normal, for_each_index};
use crate::kernels::bits::mask64;
use crate::kernels::stream;
use crate::shape::MAX_DIMS;
use crate::{Error, Layout, Result, Unsigned};

/// Kept innermost axes at least this long use column tiles; shorter ones
/// sum each output as a strided run (for 5-bit values, 4 columns of 16,384
/// rows: 275 µs through tiles of 4 columns, a few µs as 4 masked runs).
const TILE_MIN: usize = 32;

/// Reduced runs at most this long (contiguous, in adjacent rows) are summed
/// a decoded block of rows at a time.
const SHORT_ROW: usize = 64;

/// Which axes are reduced, checked: each below `ndim`, none twice.
pub(crate) fn check_axes(ndim: usize, axes: &[usize]) -> Result<[bool; MAX_DIMS]> {
    let mut reduce = [false; MAX_DIMS];
    for &a in axes {
        if a >= ndim {
            return Err(Error::Axis { axis: a, ndim });
        }
        if reduce[a] {
            return Err(Error::DuplicateAxis { axis: a });
        }
        reduce[a] = true;
    }
    Ok(reduce)
}

/// The shape of a sum over `axes`: the kept extents, with a 1 in place of
/// each reduced axis when `keepdims`.
pub(crate) fn reduced_shape(shape: &[usize], axes: &[usize], keepdims: bool) -> Result<Vec<usize>> {
    let reduce = check_axes(shape.len(), axes)?;
    Ok(shape
        .iter()
        .enumerate()
        .filter_map(|(d, &e)| match (reduce[d], keepdims) {
            (false, _) => Some(e),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect())
}

/// `(extent, stride)` lists of the kept and reduced axes.
struct Split {
    kept: [(usize, isize); MAX_DIMS],
    nk: usize,
    red: [(usize, isize); MAX_DIMS],
    nr: usize,
}

impl Split {
    fn new(layout: &Layout, reduce: &[bool; MAX_DIMS]) -> Split {
        let mut s = Split {
            kept: [(0, 0); MAX_DIMS],
            nk: 0,
            red: [(0, 0); MAX_DIMS],
            nr: 0,
        };
        for (d, (&e, &st)) in layout.shape().iter().zip(layout.strides()).enumerate() {
            if reduce[d] {
                s.red[s.nr] = (e, st);
                s.nr += 1;
            } else {
                s.kept[s.nk] = (e, st);
                s.nk += 1;
            }
        }
        s
    }

    fn kept(&self) -> &[(usize, isize)] {
        &self.kept[..self.nk]
    }

    fn red(&self) -> &[(usize, isize)] {
        &self.red[..self.nr]
    }

    /// The reduced axes, normalized for sums from base index 0.
    fn red_normal(&self) -> Normal {
        let mut shape = [0usize; MAX_DIMS];
        let mut strides = [0isize; MAX_DIMS];
        for (i, &(e, s)) in self.red().iter().enumerate() {
            shape[i] = e;
            strides[i] = s;
        }
        Normal::new(&shape[..self.nr], &strides[..self.nr], 0)
    }
}

/// The product of the extents of `dims`, or `None` when it overflows; zero
/// when some extent is zero, even where the others' product would overflow.
fn extent_product(dims: &[(usize, isize)]) -> Option<usize> {
    if dims.iter().any(|&(e, _)| e == 0) {
        return Some(0);
    }
    dims.iter().try_fold(1usize, |n, &(e, _)| n.checked_mul(e))
}

/// Sums the elements of `layout` over `axes` into `out`.
pub(crate) fn sum_axes_into(
    aligned: bool,
    bits: u32,
    words: &[u64],
    layout: &Layout,
    axes: &[usize],
    out: &mut [u64],
) -> Result<()> {
    let reduce = check_axes(layout.ndim(), axes)?;
    let split = Split::new(layout, &reduce);
    let n_out = extent_product(split.kept()).ok_or(Error::Shape {
        elements: None,
        len: out.len(),
    })?;
    if out.len() != n_out {
        return Err(Error::Length {
            of: LengthOf::AxisSumOutput,
            expected: n_out,
            actual: out.len(),
        });
    }
    if n_out == 0 {
        return Ok(());
    }
    // Not empty of outputs, so the group size divides the element count
    // when that is not zero; a zero extent makes it zero whatever the others
    // (whose product alone may not fit).
    let group = extent_product(split.red()).unwrap_or(0);
    if group == 0 {
        out.fill(0);
        return Ok(());
    }
    let runs = RunSum::new(aligned, bits);
    let base = layout.offset() as usize;
    if group as u128 * u128::from(mask64(bits)) > u128::from(u64::MAX) {
        return exact_two_pass(words, &split, &runs, base, out);
    }
    out.fill(0);
    let nd = layout.ndim();
    let inner_kept = nd > 0 && !reduce[nd - 1];
    if inner_kept && split.kept[split.nk - 1].0 >= TILE_MIN {
        if bits <= 8 {
            column_tiles::<u8, u16, 1024>(aligned, bits, words, &split, base, out);
        } else if bits <= 16 {
            column_tiles::<u16, u32, 512>(aligned, bits, words, &split, base, out);
        } else if bits <= 32 {
            column_tiles::<u32, u64, 256>(aligned, bits, words, &split, base, out);
        } else {
            column_tiles::<u64, u64, 128>(aligned, bits, words, &split, base, out);
        }
        return Ok(());
    }
    let red = split.red_normal();
    let short = red.nd == 1
        && red.repeat == 1
        && red.dims[0].1 == 1
        && red.dims[0].0 <= SHORT_ROW
        && split.nk > 0
        && split.kept[split.nk - 1].1 == red.dims[0].0 as isize;
    if short {
        if bits <= 8 {
            short_rows::<u8, 1024>(aligned, bits, words, &split, &red, base, out);
        } else if bits <= 16 {
            short_rows::<u16, 512>(aligned, bits, words, &split, &red, base, out);
        } else if bits <= 32 {
            short_rows::<u32, 256>(aligned, bits, words, &split, &red, base, out);
        } else {
            short_rows::<u64, 128>(aligned, bits, words, &split, &red, base, out);
        }
        return Ok(());
    }
    // Each output: the N-d sum of the reduced axes from its base (for a
    // short kept innermost axis too, where each output is a long strided
    // run).
    let mut o = 0;
    for_each_index(split.kept(), base, |b| {
        let start = b.wrapping_add_signed(red.shift);
        // Fits: at most `group` values of at most `2^b - 1`.
        out[o] = (runs.normal(words, &red, start) * red.repeat) as u64;
        o += 1;
    });
    Ok(())
}

/// Where an output may overflow a `u64`: every output exactly, checked
/// before any is written.
fn exact_two_pass(
    words: &[u64],
    split: &Split,
    runs: &RunSum,
    base: usize,
    out: &mut [u64],
) -> Result<()> {
    let red = split.red_normal();
    let each = |f: &mut dyn FnMut(usize, u128)| {
        let mut o = 0;
        for_each_index(split.kept(), base, |b| {
            let start = b.wrapping_add_signed(red.shift);
            f(o, runs.normal(words, &red, start) * red.repeat);
            o += 1;
        });
    };
    let mut bad = None;
    each(&mut |o, s| {
        if bad.is_none() && s > u128::from(u64::MAX) {
            bad = Some(o);
        }
    });
    if let Some(index) = bad {
        return Err(Error::SumOverflow { index });
    }
    each(&mut |o, s| out[o] = s as u64);
    Ok(())
}

/// A tile accumulator: `u16`, `u32` or `u64`.
trait Acc: Copy + Default {
    /// The largest value it holds.
    const MAX: u64;
    fn add(self, v: u64) -> Self;
    fn get(self) -> u64;
}

macro_rules! impl_acc {
    ($($t:ty),*) => {$(
        impl Acc for $t {
            const MAX: u64 = <$t>::MAX as u64;
            #[inline(always)]
            fn add(self, v: u64) -> Self {
                self + v as $t
            }
            #[inline(always)]
            fn get(self) -> u64 {
                self as u64
            }
        }
    )*};
}

impl_acc!(u16, u32, u64);

/// Column tiles for a kept innermost axis: decode buffer of `TC` values of
/// `D`, `TC` accumulators of `A`. Where a whole row fits the buffer twice
/// and consecutive rows along the innermost reduced axis are adjacent
/// (`stride == cols`, columns contiguous), several rows are decoded by one
/// call.
fn column_tiles<D: Unsigned, A: Acc, const TC: usize>(
    aligned: bool,
    bits: u32,
    words: &[u64],
    split: &Split,
    base: usize,
    out: &mut [u64],
) {
    let (cols, col_stride) = split.kept[split.nk - 1];
    let outer = &split.kept[..split.nk - 1];
    let batch = (A::MAX / mask64(bits)).min(usize::MAX as u64) as usize;
    let red = split.red();
    // Rows decoded per call, and the reduced axes walked outside them.
    let (rows_at_once, red_outer, red_inner) = match red.split_last() {
        Some((&(e, s), rest)) if col_stride == 1 && cols <= TC / 2 && s == cols as isize => {
            (TC / cols, rest, e)
        }
        _ => (1, red, 1),
    };
    let mut buf = [D::ZERO; TC];
    let mut acc = [A::default(); TC];
    let mut o = 0;
    for_each_index(outer, base, |row_base| {
        let out_row = &mut out[o * cols..(o + 1) * cols];
        o += 1;
        let mut c0 = 0;
        while c0 < cols {
            let tc = TC.min(cols - c0);
            let tile_base = row_base.wrapping_add_signed((c0 as isize).wrapping_mul(col_stride));
            let dst = &mut out_row[c0..c0 + tc];
            let acc = &mut acc[..tc];
            acc.fill(A::default());
            let mut rows = 0;
            let mut add_rows = |decoded: &[D]| {
                for row in decoded.chunks_exact(tc) {
                    for (a, &v) in acc.iter_mut().zip(row) {
                        *a = a.add(v.to_u128() as u64);
                    }
                    rows += 1;
                    if rows == batch {
                        for (d, a) in dst.iter_mut().zip(acc.iter_mut()) {
                            *d += a.get();
                            *a = A::default();
                        }
                        rows = 0;
                    }
                }
            };
            for_each_index(red_outer, tile_base, |start| {
                if rows_at_once == 1 {
                    stream::gather(aligned, bits, words, start, col_stride, &mut buf[..tc]);
                    add_rows(&buf[..tc]);
                    return;
                }
                // Adjacent whole rows: one contiguous decode for several.
                let mut r0 = 0;
                while r0 < red_inner {
                    let k = rows_at_once.min(red_inner - r0);
                    let n = k * tc;
                    stream::unpack(aligned, bits, words, start + r0 * tc, &mut buf[..n]);
                    add_rows(&buf[..n]);
                    r0 += k;
                }
            });
            for (d, a) in dst.iter_mut().zip(acc.iter()) {
                *d += a.get();
            }
            c0 += tc;
        }
    });
}

/// Row sums of short contiguous rows (the reduced axes are one contiguous
/// run of `nr` values, and consecutive outputs along the innermost kept
/// axis have adjacent runs): each block of rows is decoded a buffer of `BUF`
/// values of `D` at a time and summed row by row, instead of one kernel
/// call per row.
fn short_rows<D: Unsigned, const BUF: usize>(
    aligned: bool,
    bits: u32,
    words: &[u64],
    split: &Split,
    red: &Normal,
    base: usize,
    out: &mut [u64],
) {
    let nr = red.dims[0].0;
    let (rows, _) = split.kept[split.nk - 1];
    let outer = &split.kept[..split.nk - 1];
    let per_chunk = BUF / nr;
    let mut buf = [D::ZERO; BUF];
    let mut o = 0;
    for_each_index(outer, base, |b| {
        let start = b.wrapping_add_signed(red.shift);
        let mut r0 = 0;
        while r0 < rows {
            let k = per_chunk.min(rows - r0);
            let n = k * nr;
            stream::unpack(aligned, bits, words, start + r0 * nr, &mut buf[..n]);
            let dst = &mut out[o + r0..o + r0 + k];
            match nr {
                1 => rows_of::<D, 1>(&buf[..n], dst),
                2 => rows_of::<D, 2>(&buf[..n], dst),
                3 => rows_of::<D, 3>(&buf[..n], dst),
                4 => rows_of::<D, 4>(&buf[..n], dst),
                8 => rows_of::<D, 8>(&buf[..n], dst),
                _ => {
                    for (d, row) in dst.iter_mut().zip(buf[..n].chunks_exact(nr)) {
                        *d = row.iter().map(|&v| v.to_u128() as u64).sum();
                    }
                }
            }
            r0 += k;
        }
        o += rows;
    });
}

/// The sums of the rows of `N` values of `buf` into `out` (`N` a constant,
/// so the inner loop unrolls).
#[inline(always)]
fn rows_of<D: Unsigned, const N: usize>(buf: &[D], out: &mut [u64]) {
    for (d, row) in out.iter_mut().zip(buf.chunks_exact(N)) {
        *d = row.iter().map(|&v| v.to_u128() as u64).sum();
    }
}
