//! The strided machinery that [`View`](super::View) and
//! [`ViewMut`](super::ViewMut) share: element reads and width checks,
//! descriptor revalidation, chunked run walks and copies, and assignment
//! between two views of one stream.

use alloc::vec::Vec;

use super::View;
use crate::kernels::stream;
use crate::reduce;
use crate::shape::{Layout, Packing};
use crate::{BitElement, Error, Result, Unsigned};

/// Values per stack chunk of the bulk paths (gathered, converted, scattered).
pub(super) const CHUNK: usize = 256;

/// The value of `T` whose raw bits are `raw`.
#[inline(always)]
pub(super) fn from_raw<T: BitElement>(raw: u128) -> T {
    T::from_raw_bits(T::Raw::from_u128_truncate(raw))
}

/// The raw value at linear index `i` of a stream of `bits`-bit values (the
/// width is a constant when it is `T::BITS`, the typed arrays' case).
#[inline(always)]
pub(super) fn raw_at<T: BitElement, L: Packing>(words: &[u64], bits: u32, i: usize) -> u128 {
    if bits == T::BITS {
        stream::read(L::WORD_ALIGNED, T::BITS, words, i)
    } else {
        stream::read(L::WORD_ALIGNED, bits, words, i)
    }
}

/// `ValueTooWide` unless `raw` fits in `bits` bits.
#[inline(always)]
pub(super) fn check_fits(raw: u128, bits: u32) -> Result<()> {
    if bits < 128 && raw >> bits != 0 {
        return Err(Error::ValueTooWide { value: raw, bits });
    }
    Ok(())
}

/// Revalidates `layout` against `len` elements when it was validated against
/// another length.
pub(crate) fn layout_for(layout: &Layout, len: usize) -> Result<Layout> {
    if layout.storage_len() == len {
        Ok(*layout)
    } else {
        Layout::new(layout.shape(), layout.strides(), layout.offset(), len)
    }
}

/// `n` zeros in a new `Vec`, or [`Error::Alloc`] (naming `what`) when they
/// cannot be allocated: the size overflows, or the allocator refuses.
pub(crate) fn try_zeroed_vec<X: Copy + Default>(n: usize, what: &'static str) -> Result<Vec<X>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::Alloc {
        what,
        count: Some(n),
        value_bytes: core::mem::size_of::<X>(),
    })?;
    v.resize(n, X::default());
    Ok(v)
}

/// `dst` and `src` (of one shape) restricted to the last index of every
/// axis along which `dst` has stride 0: all writes along such an axis go to
/// one element and the last in logical order wins, so the result is the
/// same, with work bounded by the distinct writes rather than the repeats (a
/// broadcast of `usize::MAX` elements is one write).
pub(super) fn last_writes(dst: &Layout, src: &Layout) -> (Layout, Layout) {
    let (mut d, mut s) = (*dst, *src);
    if dst.is_empty() {
        return (d, s);
    }
    for axis in 0..dst.ndim() {
        let n = dst.shape()[axis];
        if dst.strides()[axis] == 0 && n > 1 {
            // Non-empty and validated: the last index moves the offset
            // within the validated extent.
            d = d
                .slice(axis, n - 1..n)
                .expect("a non-empty view's last index");
            s = s.slice(axis, n - 1..n).expect("the same shape");
        }
    }
    (d, s)
}

/// `ShapeMismatch` unless the shapes are equal.
pub(super) fn check_same_shape(expected: &[usize], actual: &[usize]) -> Result<()> {
    if expected.len() != actual.len() {
        return Err(Error::ShapeMismatch {
            axis: None,
            expected: expected.len(),
            actual: actual.len(),
        });
    }
    match expected.iter().zip(actual).position(|(a, b)| a != b) {
        Some(axis) => Err(Error::ShapeMismatch {
            axis: Some(axis),
            expected: expected[axis],
            actual: actual[axis],
        }),
        None => Ok(()),
    }
}

/// The lowest and highest linear index a non-empty layout reaches.
pub(super) fn index_range(layout: &Layout) -> Option<(usize, usize)> {
    let n = reduce::nd::Normal::of(layout)?;
    let span: usize = n.dims[..n.nd].iter().map(|&(e, s)| (e - 1) * s).sum();
    Some((n.offset, n.offset + span))
}

/// Calls `f(start, stride, n)` for the chunks of at most [`CHUNK`] values of
/// each run of `layout`, in logical order.
#[inline]
pub(super) fn for_each_chunk(layout: &Layout, mut f: impl FnMut(usize, isize, usize)) {
    for (start, stride, count) in layout.runs() {
        run_chunks((start, stride, count), &mut f);
    }
}

/// Calls `f(start, stride, n)` for the chunks of at most [`CHUNK`] values of
/// the one run of `count` values from `start` by `stride`, in order.
#[inline]
pub(super) fn run_chunks(
    (start, stride, count): (usize, isize, usize),
    mut f: impl FnMut(usize, isize, usize),
) {
    let mut k = 0;
    while k < count {
        let n = (count - k).min(CHUNK);
        // Inside the run, so inside the validated extent.
        f(start.wrapping_add_signed(k as isize * stride), stride, n);
        k += n;
    }
}

/// Copies the values of `src` (a layout over `src_words`) into `dst` (a
/// layout of the same shape over `dst_words`, another buffer), in logical
/// order, a chunk at a time. `aligned` and `bits` are the two streams'
/// layouts and widths (source first); the source's values fit the
/// destination's width.
pub(super) fn copy_runs<U: Unsigned>(
    aligned: (bool, bool),
    bits: (u32, u32),
    (src, src_words): (&Layout, &[u64]),
    (dst, dst_words): (&Layout, &mut [u64]),
) {
    let mut buf = [U::ZERO; CHUNK];
    let mut dst_runs = dst.runs();
    let mut dst_run = dst_runs.next();
    let mut dst_k = 0;
    for_each_chunk(src, |start, stride, n| {
        stream::gather(aligned.0, bits.0, src_words, start, stride, &mut buf[..n]);
        // The same shape gives the same run lengths: a chunk never spans two
        // destination runs.
        let (ds, dstride, dcount) = dst_run.expect("same shape, same number of values");
        let at = ds.wrapping_add_signed(dst_k as isize * dstride);
        stream::scatter(aligned.1, bits.1, dst_words, at, dstride, &buf[..n]);
        dst_k += n;
        if dst_k == dcount {
            dst_run = dst_runs.next();
            dst_k = 0;
        }
    });
}

/// Assignment between two views of one stream of layout `L`: validates both
/// descriptors against `len` elements and the shapes, then copies as if the
/// source were copied first (through a packed snapshot of the source when
/// the two index ranges overlap, directly otherwise).
pub(crate) fn assign_within<L: Packing>(
    bits: u32,
    words: &mut [u64],
    len: usize,
    dst: &Layout,
    src: &Layout,
) -> Result<()> {
    let aligned = L::WORD_ALIGNED;
    let dst = layout_for(dst, len)?;
    let src = layout_for(src, len)?;
    check_same_shape(dst.shape(), src.shape())?;
    let (dst, src) = last_writes(&dst, &src);
    let (Some((dlo, dhi)), Some((slo, shi))) = (index_range(&dst), index_range(&src)) else {
        return Ok(());
    };
    if dhi < slo || shi < dlo {
        // Disjoint: no write reaches a value still to be read, so gather and
        // scatter alternate on the one buffer, a chunk at a time.
        let mut buf = [0u128; CHUNK];
        let mut dst_runs = dst.runs();
        let mut dst_run = dst_runs.next();
        let mut dst_k = 0;
        for_each_chunk(&src, |start, stride, n| {
            stream::gather(aligned, bits, words, start, stride, &mut buf[..n]);
            let (ds, dstride, dcount) = dst_run.expect("same shape, same number of values");
            let at = ds.wrapping_add_signed(dst_k as isize * dstride);
            stream::scatter(aligned, bits, words, at, dstride, &buf[..n]);
            dst_k += n;
            if dst_k == dcount {
                dst_run = dst_runs.next();
                dst_k = 0;
            }
        });
        return Ok(());
    }
    // Overlap: snapshot the source, packed densely at its own width; or,
    // when that copy would be larger than the stream itself (a source that
    // repeats values, such as a broadcast), a copy of the stream's words,
    // which the source's own layout then reads.
    let n = src.len();
    let packed = crate::kernels::words_for(bits, n);
    if packed <= words.len() {
        let mut snapshot = try_zeroed_vec::<u64>(packed, "the source snapshot of assign_within")?;
        View::<u128, L>::from_parts(words, bits, src).pack_into(false, bits, &mut snapshot);
        let flat =
            Layout::contiguous(src.shape(), n).expect("the source's shape holds its elements");
        copy_runs::<u128>(
            (false, aligned),
            (bits, bits),
            (&flat, &snapshot),
            (&dst, words),
        );
    } else {
        let mut snapshot =
            try_zeroed_vec::<u64>(words.len(), "the source snapshot of assign_within")?;
        snapshot.copy_from_slice(words);
        copy_runs::<u128>(
            (aligned, aligned),
            (bits, bits),
            (&src, &snapshot),
            (&dst, words),
        );
    }
    Ok(())
}
