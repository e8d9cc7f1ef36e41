//! Records in containers: one field of every record of a
//! [`NarrowArray`] or a [`View`] as a column ([`NarrowArray::field`],
//! [`View::field`]), a column written back ([`NarrowArray::set_field`],
//! through a strided view [`ViewMut::set_field`]),
//! and sums of an unsigned field ([`NarrowArray::field_sum`],
//! [`View::field_sum`]), all without building the record values.
//!
//! A field of width `w` at bit `off` of an `R::BITS`-bit record is the
//! bits `off..off + w` of each record's raw bits. The records of a run are
//! unpacked a chunk of 1024 at a time by the stream's width kernels (the
//! SIMD unpack of `R::BITS`-bit values into `u32` lanes for a contiguous
//! dense run of records of at most 32 bits, the per-width strided kernels
//! otherwise), then shifted and masked, a loop the compiler vectorizes;
//! codes go to the column through the dense pack kernel of the field's
//! width. A column write is the same walk back: unpack, replace the field's
//! bits, pack. Each function is generic over the record and field types, so
//! both widths are constants of its loops.

use super::NarrowArray;
use crate::kernels::stream;
use crate::reduce::nd::Normal;
use crate::shape::{Layout, Packing};
use crate::view::{View, ViewMut};
use crate::{BitElement, Field, LengthOf, Result, Unsigned, UnsignedElement};

/// Records moved per chunk: enough that the kernel's per-call set-up is
/// small beside the chunk (at 256 it was a third of a 15-bit column's
/// time), small enough for the stack (16 KiB of `u128` lanes).
const CHUNK: usize = 1024;

/// A packed stream of records: whether it is in the aligned layout, and
/// its words.
type Stream<'a> = (bool, &'a [u64]);

/// Calls `f(recs)` for each chunk of the run `start + k * stride`
/// (`count` records), `recs` the chunk's records unpacked into `B` (`u32` up
/// to 32 bits, `u64` up to 64, else `u128`).
#[inline(always)]
fn for_each_chunk<B: Unsigned, R: BitElement>(
    (aligned, words): Stream<'_>,
    (start, stride, count): (usize, isize, usize),
    mut f: impl FnMut(&mut [B]),
) {
    let mut recs = [B::ZERO; CHUNK];
    let mut k = 0;
    while k < count {
        let n = (count - k).min(CHUNK);
        let first = start.wrapping_add_signed(k as isize * stride);
        stream::gather(aligned, R::BITS, words, first, stride, &mut recs[..n]);
        f(&mut recs[..n]);
        k += n;
    }
}

/// Calls `f(codes)` for each chunk of the run (as [`for_each_chunk`]),
/// `codes` the field's codes of the chunk's records, shifted and masked in
/// place in the lane's own type, so that the loop is a vector shift and
/// mask (`off < R::BITS <= B::BITS`).
#[inline(always)]
fn for_each_codes<B: Unsigned, R: BitElement, F: BitElement>(
    src: Stream<'_>,
    run: (usize, isize, usize),
    field: Field<R, F>,
    mut f: impl FnMut(&[B]),
) {
    let (off, m) = (field.offset(), B::low_mask(F::BITS));
    for_each_chunk::<B, R>(src, run, |recs| {
        crate::kernels::with_avx2(|| shift_mask(recs, off, m));
        f(recs);
    });
}

/// `out[i]` = bits `off..off + w` of `recs[i]` (`w <= 8`).
#[inline(always)]
fn field_bytes(recs: &[u32], off: u32, w: u32, out: &mut [u8]) {
    let m = (1u32 << w) - 1;
    for (o, &r) in out.iter_mut().zip(recs) {
        *o = ((r >> off) & m) as u8;
    }
}

/// `r = (r >> off) & m` for every lane.
#[inline(always)]
fn shift_mask<B: Unsigned>(recs: &mut [B], off: u32, m: B) {
    for r in recs {
        *r = (*r >> off) & m;
    }
}

/// The sum of bits `off..` under the mask `m` of every lane in `recs`
/// (at most `CHUNK`).
#[inline(always)]
fn field_total<B: Unsigned, F: BitElement>(recs: &[B], off: u32, m: B) -> u128 {
    let codes = recs.iter().map(|&r| ((r >> off) & m).to_u128());
    // 1024 codes of at most 54 bits fit a `u64`.
    if F::BITS <= 54 {
        u128::from(codes.map(|c| c as u64).sum::<u64>())
    } else {
        codes.sum::<u128>()
    }
}

/// The sum of the field over the run, from the unpacked records directly
/// (one vector shift, mask and add per lane).
#[inline(always)]
fn sum_run<B: Unsigned, R: BitElement, F: BitElement>(
    src: Stream<'_>,
    run: (usize, isize, usize),
    field: Field<R, F>,
) -> u128 {
    let (off, m) = (field.offset(), B::low_mask(F::BITS));
    let mut total = 0u128;
    for_each_chunk::<B, R>(src, run, |recs| {
        total += crate::kernels::with_avx2(|| field_total::<B, F>(recs, off, m));
    });
    total
}

/// The column of the run packed at `*at..` of the dense stream `dst`, the
/// lane chosen by the record width; `*at` moves past it.
#[inline(always)]
fn pack_run<R: BitElement, F: BitElement>(
    aligned: bool,
    words: &[u64],
    run: (usize, isize, usize),
    field: Field<R, F>,
    dst: &mut [u64],
    at: &mut usize,
) {
    macro_rules! go {
        ($b:ty) => {
            for_each_codes::<$b, R, F>((aligned, words), run, field, |codes| {
                stream::pack(false, F::BITS, codes, dst, *at);
                *at += codes.len();
            })
        };
    }
    if R::BITS <= 32 && F::BITS <= 8 {
        // Codes of at most 8 bits go to the pack kernels as bytes, which
        // they take in SIMD registers (from `u32` lanes they take them a
        // word at a time): the records of a chunk unpacked into `u32`
        // lanes, shifted, masked and narrowed in one loop.
        let (start, stride, count) = run;
        let mut recs = [0u32; CHUNK];
        let mut bytes = [0u8; CHUNK];
        let off = field.offset();
        let mut k = 0;
        while k < count {
            let n = (count - k).min(CHUNK);
            let first = start.wrapping_add_signed(k as isize * stride);
            stream::gather(aligned, R::BITS, words, first, stride, &mut recs[..n]);
            let b = &mut bytes[..n];
            crate::kernels::with_avx2(|| field_bytes(&recs[..n], off, F::BITS, b));
            stream::pack(false, F::BITS, b, dst, *at);
            *at += n;
            k += n;
        }
    } else if R::BITS <= 32 {
        go!(u32);
    } else if R::BITS <= 64 {
        go!(u64);
    } else {
        go!(u128);
    }
}

/// The column of `field` over the records of `layout` (in its logical
/// order), as a dense array of the layout's shape.
///
/// # Errors
///
/// [`Error::Alloc`](crate::Error::Alloc) when the column cannot be
/// allocated (a broadcast view of `usize::MAX` records).
fn column<R: BitElement, F: BitElement>(
    aligned: bool,
    words: &[u64],
    layout: &Layout,
    field: Field<R, F>,
) -> Result<NarrowArray<F>> {
    let mut out = NarrowArray::<F>::try_zeroed(layout.len())?;
    let mut at = 0;
    {
        let dst = out.words_mut();
        for run in layout.runs() {
            pack_run(aligned, words, run, field, dst, &mut at);
        }
    }
    if layout.ndim() != 1 {
        out.reshape(layout.shape())
            .expect("the column has the layout's element count");
    }
    Ok(out)
}

/// The sum of `field` over the records of `layout`, walked as the sums of
/// the reductions walk it: the layout normalized (broadcast axes a repeat
/// factor, reversed axes flipped, tiling axes merged), so the work is
/// bounded by the records stored, not by the view's element count.
fn column_sum<R: BitElement, F: UnsignedElement>(
    aligned: bool,
    words: &[u64],
    layout: &Layout,
    field: Field<R, F>,
) -> u128 {
    const { crate::reduce::assert_summable::<F>() };
    let Some(normal) = Normal::of(layout) else {
        return 0;
    };
    let (count, stride) = normal.inner();
    let mut total = 0u128;
    normal.for_each_run_from(normal.offset, |start| {
        let run = (start, stride as isize, count);
        total += if R::BITS <= 32 {
            sum_run::<u32, R, F>((aligned, words), run, field)
        } else if R::BITS <= 64 {
            sum_run::<u64, R, F>((aligned, words), run, field)
        } else {
            sum_run::<u128, R, F>((aligned, words), run, field)
        };
    });
    total * normal.repeat
}

/// The field under the mask `m` (at bit `off`) of each record in `recs`
/// replaced by the code beside it.
#[inline(always)]
fn replace_field<B: Unsigned, C: Unsigned>(recs: &mut [B], codes: &[C], off: u32, m: B) {
    for (r, c) in recs.iter_mut().zip(codes) {
        let code = B::from_u128_truncate(c.to_u128());
        *r = (*r & !m) | ((code << off) & m);
    }
}

/// Writes `column` (logical order) into `field` of the records of `runs`
/// (`(start, stride, count)` each), a chunk at a time: gather the chunk's
/// records, replace the field's bits, scatter them back in order (so a
/// record reached twice keeps the later code). A whole array is the one
/// run `(0, 1, len)`, which gathers and scatters through the unpack and
/// pack kernels.
fn write_column_runs<B: Unsigned, R: BitElement, F: BitElement>(
    aligned: bool,
    words: &mut [u64],
    runs: impl IntoIterator<Item = (usize, isize, usize)>,
    field: Field<R, F>,
    column: &NarrowArray<F>,
) {
    let mut recs = [B::ZERO; CHUNK];
    let mut codes = [F::Raw::ZERO; CHUNK];
    let off = field.offset();
    let m = B::low_mask(F::BITS) << off;
    let src = column.as_words();
    let mut at = 0;
    for (start, stride, count) in runs {
        let mut k = 0;
        while k < count {
            let n = (count - k).min(CHUNK);
            let first = start.wrapping_add_signed(k as isize * stride);
            stream::unpack(false, F::BITS, src, at, &mut codes[..n]);
            stream::gather(aligned, R::BITS, words, first, stride, &mut recs[..n]);
            replace_field(&mut recs[..n], &codes[..n], off, m);
            if stride == 0 {
                // One record, written once with the chunk's last code.
                stream::scatter(aligned, R::BITS, words, first, 0, &recs[n - 1..n]);
            } else {
                stream::scatter(aligned, R::BITS, words, first, stride, &recs[..n]);
            }
            at += n;
            k += n;
        }
    }
}

/// [`write_column_runs`] in the lane the record width needs (`u32` up to
/// 32 bits, `u64` up to 64, else `u128`).
fn write_column<R: BitElement, F: BitElement>(
    aligned: bool,
    words: &mut [u64],
    runs: impl IntoIterator<Item = (usize, isize, usize)>,
    field: Field<R, F>,
    column: &NarrowArray<F>,
) {
    if R::BITS <= 32 {
        write_column_runs::<u32, R, F>(aligned, words, runs, field, column);
    } else if R::BITS <= 64 {
        write_column_runs::<u64, R, F>(aligned, words, runs, field, column);
    } else {
        write_column_runs::<u128, R, F>(aligned, words, runs, field, column);
    }
}

impl<R: BitElement, L: Packing> NarrowArray<R, L> {
    /// One field of every record, as a dense array of the field's type with
    /// the array's shape: the column, read without unpacking the records.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::arbitrary_int::{u3, u5};
    /// use bitpack::{BitElement, NarrowArray};
    ///
    /// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
    /// #[bitpack(record)]
    /// struct Entry {
    ///     tag: u3,
    ///     len: u5,
    ///     last: bool,
    /// }
    ///
    /// let a: NarrowArray<Entry> = (0..10u8)
    ///     .map(|i| Entry { tag: u3::new(i % 8), len: u5::new(3 * i), last: i == 9 })
    ///     .collect();
    /// assert_eq!(a.as_bytes().len(), 12); // 10 records of 9 bits
    /// let lens = a.field(Entry::LEN);
    /// assert_eq!(lens.to_vec(), (0..10u8).map(|i| u5::new(3 * i)).collect::<Vec<_>>());
    /// assert_eq!(a.field_sum(Entry::LEN), 135);
    /// assert_eq!(a.field(Entry::LAST).to_vec().iter().filter(|&&b| b).count(), 1);
    /// ```
    pub fn field<F: BitElement>(&self, field: Field<R, F>) -> NarrowArray<F> {
        // The column is never larger than the array.
        column(L::WORD_ALIGNED, self.as_words(), &self.own_layout(), field)
            .unwrap_or_else(|e| panic!("NarrowArray::field: {e}"))
    }

    /// The exact sum of one unsigned field over every record, without
    /// unpacking the records or building the column.
    pub fn field_sum<F: UnsignedElement>(&self, field: Field<R, F>) -> u128 {
        column_sum(L::WORD_ALIGNED, self.as_words(), &self.own_layout(), field)
    }

    /// Writes `column` into one field of every record (record `i` gets
    /// `column[i]`); the other fields are unchanged.
    ///
    /// # Errors
    ///
    /// [`Error::Length`](crate::Error::Length) (of
    /// [`LengthOf::Column`]) when `column` does not hold one value per
    /// record; the array is then unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::arbitrary_int::u4;
    /// use bitpack::{BitElement, NarrowArray};
    ///
    /// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
    /// #[bitpack(record)]
    /// struct Pair(u4, bool);
    ///
    /// let mut a = NarrowArray::from_slice(&[Pair(u4::new(1), true); 3]);
    /// let col = NarrowArray::from_slice(&[u4::new(7), u4::new(8), u4::new(9)]);
    /// a.set_field(Pair::F0, &col)?;
    /// assert_eq!(a.get(2), Some(Pair(u4::new(9), true)));
    /// assert!(a.set_field(Pair::F1, &NarrowArray::from_slice(&[false])).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn set_field<F: BitElement>(
        &mut self,
        field: Field<R, F>,
        column: &NarrowArray<F>,
    ) -> Result<()> {
        self.view_mut().set_field(field, column)
    }
}

impl<R: BitElement, L: Packing> View<'_, R, L> {
    /// One field of every record the view sees, in its logical order, as a
    /// dense array of the field's type with the view's shape.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::arbitrary_int::u4;
    /// use bitpack::{BitElement, NarrowArray};
    ///
    /// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
    /// #[bitpack(record)]
    /// struct Pair(u4, bool);
    ///
    /// let a: NarrowArray<Pair> = (0..8u8).map(|i| Pair(u4::new(i), i % 2 == 0)).collect();
    /// let every_third = a.view().step_by(0, 3)?;
    /// assert_eq!(every_third.field(Pair::F0).to_vec(), [0, 3, 6].map(u4::new));
    /// assert_eq!(a.view().reversed(0)?.field_sum(Pair::F0), 28);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    ///
    /// # Panics
    ///
    /// When the column cannot be allocated (a broadcast view of many
    /// records); [`try_field`](Self::try_field) returns the error instead.
    pub fn field<F: BitElement>(&self, field: Field<R, F>) -> NarrowArray<F> {
        self.try_field(field)
            .unwrap_or_else(|e| panic!("View::field: {e}"))
    }

    /// The column, as [`field`](Self::field), or an error where it would
    /// panic.
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`](crate::Error::Alloc) when the column cannot be
    /// allocated (nothing is allocated then).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::arbitrary_int::u4;
    /// use bitpack::{BitElement, NarrowArray};
    ///
    /// #[derive(Clone, Copy, BitElement)]
    /// #[bitpack(record)]
    /// struct Pair(u4, bool);
    ///
    /// let a = NarrowArray::from_slice(&[Pair(u4::new(3), true)]);
    /// let wide = a.view_strided(&[usize::MAX], &[0], 0)?;
    /// assert!(matches!(wide.try_field(Pair::F0), Err(bitpack::Error::Alloc { .. })));
    /// assert_eq!(wide.field_sum(Pair::F0), 3 * usize::MAX as u128);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn try_field<F: BitElement>(&self, field: Field<R, F>) -> Result<NarrowArray<F>> {
        column(L::WORD_ALIGNED, self.words(), self.layout(), field)
    }

    /// The exact sum of one unsigned field over the records the view sees.
    pub fn field_sum<F: UnsignedElement>(&self, field: Field<R, F>) -> u128 {
        column_sum(L::WORD_ALIGNED, self.words(), self.layout(), field)
    }
}

impl<R: BitElement, L: Packing> ViewMut<'_, R, L> {
    /// One field of every record the view sees, as [`View::field`].
    pub fn field<F: BitElement>(&self, field: Field<R, F>) -> NarrowArray<F> {
        self.as_view().field(field)
    }

    /// Writes `column` (in the view's logical order) into one field of
    /// every record the view sees; the other fields, and the records outside
    /// the view, are unchanged. A record the view reaches more than once
    /// keeps the later value, as in
    /// [`assign_from`](ViewMut::assign_from).
    ///
    /// # Errors
    ///
    /// [`Error::Length`](crate::Error::Length) (of [`LengthOf::Column`])
    /// when `column` does not hold one value per element of the view;
    /// nothing is written then.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::arbitrary_int::u4;
    /// use bitpack::{BitElement, NarrowArray};
    ///
    /// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
    /// #[bitpack(record)]
    /// struct Pair(u4, bool);
    ///
    /// let mut a: NarrowArray<Pair> = (0..6u8).map(|i| Pair(u4::new(i), true)).collect();
    /// let mut odd = a.view_mut().step_by(0, 2)?;
    /// odd.set_field(Pair::F0, &NarrowArray::from_slice(&[u4::new(9); 3]))?;
    /// assert_eq!(a.field(Pair::F0).to_vec(), [9, 1, 9, 3, 9, 5].map(u4::new));
    /// assert_eq!(a.field_sum(Pair::F1), 6);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn set_field<F: BitElement>(
        &mut self,
        field: Field<R, F>,
        column: &NarrowArray<F>,
    ) -> Result<()> {
        LengthOf::Column.check(self.len(), column.len())?;
        let (words, layout) = self.words_and_layout();
        let layout = *layout;
        write_column(L::WORD_ALIGNED, words, layout.runs(), field, column);
        Ok(())
    }
}
