//! Records in containers: one field of every record of a
//! [`NarrowArray`] or a [`View`] as a column ([`NarrowArray::field`],
//! [`View::field`]), a column written back ([`NarrowArray::set_field`]),
//! and sums of an unsigned field ([`NarrowArray::field_sum`],
//! [`View::field_sum`]), all without unpacking the records.
//!
//! A field of width `w` at bit `off` of an `R::BITS`-bit record is, in the
//! dense stream, a run of `w`-bit values at bits `off + i * R::BITS`: a
//! strided read of constant width and stride. Each function here is generic
//! over the record and field types, so both widths are constants of its
//! loop (one instantiation per record and field, as the kernels have one
//! per width); the codes go through a stack buffer of 256 into the dense
//! pack kernel of the column, chunk by chunk.

use super::NarrowArray;
use crate::kernels::bits::{self, read_dense_at, same_as_dense, write_dense_at};
use crate::kernels::stream;
use crate::shape::{Layout, Packing};
use crate::view::View;
use crate::{BitElement, Field, LengthOf, Result, Unsigned, UnsignedElement};

/// Values moved per chunk.
const CHUNK: usize = 256;

/// The stream bit of record `i`'s bit `off`.
#[inline(always)]
fn bit_at(aligned: bool, rbits: u32, i: usize, off: u32) -> usize {
    bits::bit_of(aligned, rbits, i) + off as usize
}

/// `out[k]` = the code of the `w`-bit field at bit `off` of record
/// `start + k * stride`.
#[inline(always)]
fn gather_codes<U: Unsigned>(
    aligned: bool,
    rbits: u32,
    off: u32,
    w: u32,
    words: &[u64],
    start: usize,
    stride: isize,
    out: &mut [U],
) {
    if !aligned || same_as_dense(rbits) {
        // A bit cursor: additions only, both widths constant.
        let mut bit = start
            .wrapping_mul(rbits as usize)
            .wrapping_add(off as usize);
        let step = (stride as usize).wrapping_mul(rbits as usize);
        if w <= 64 {
            for o in out.iter_mut() {
                *o = U::from_u128_truncate(u128::from(read_dense_at(words, bit, w)));
                bit = bit.wrapping_add(step);
            }
        } else {
            for o in out.iter_mut() {
                *o = U::from_u128_truncate(bits::read(words, bit, w));
                bit = bit.wrapping_add(step);
            }
        }
    } else {
        let mut i = start;
        for o in out.iter_mut() {
            *o = U::from_u128_truncate(bits::read(words, bit_at(true, rbits, i, off), w));
            i = i.wrapping_add_signed(stride);
        }
    }
}

/// Writes `src[k]` as the code of the `w`-bit field at bit `off` of record
/// `start + k`; every other bit is unchanged.
#[inline(always)]
fn scatter_codes<U: Unsigned>(
    aligned: bool,
    rbits: u32,
    off: u32,
    w: u32,
    words: &mut [u64],
    start: usize,
    src: &[U],
) {
    if (!aligned || same_as_dense(rbits)) && w <= 64 {
        let mut bit = start * rbits as usize + off as usize;
        for &v in src {
            write_dense_at(words, bit, w, v.to_u128() as u64);
            bit += rbits as usize;
        }
    } else {
        for (k, &v) in src.iter().enumerate() {
            bits::write(
                words,
                bit_at(aligned, rbits, start + k, off),
                w,
                v.to_u128(),
            );
        }
    }
}

/// The column of `field` over the records of `layout` (in its logical
/// order), as a dense array of the layout's shape.
fn column<R: BitElement, F: BitElement>(
    aligned: bool,
    words: &[u64],
    layout: &Layout,
    field: Field<R, F>,
) -> NarrowArray<F> {
    let mut out = NarrowArray::<F>::zeroed(layout.len());
    let mut buf = [F::Raw::ZERO; CHUNK];
    let mut at = 0;
    {
        let dst = out.words_mut();
        for (start, stride, count) in layout.runs() {
            let mut k = 0;
            while k < count {
                let n = (count - k).min(CHUNK);
                let first = start.wrapping_add_signed(k as isize * stride);
                gather_codes(
                    aligned,
                    R::BITS,
                    field.offset(),
                    F::BITS,
                    words,
                    first,
                    stride,
                    &mut buf[..n],
                );
                stream::pack(false, F::BITS, &buf[..n], dst, at);
                at += n;
                k += n;
            }
        }
    }
    if layout.ndim() != 1 {
        out.reshape(layout.shape())
            .expect("the column has the layout's element count");
    }
    out
}

/// The sum of `field` over the records of `layout`.
fn column_sum<R: BitElement, F: UnsignedElement>(
    aligned: bool,
    words: &[u64],
    layout: &Layout,
    field: Field<R, F>,
) -> u128 {
    const { crate::reduce::assert_summable::<F>() };
    let mut buf = [0u64; CHUNK];
    let mut total = 0u128;
    for (start, stride, count) in layout.runs() {
        let mut k = 0;
        while k < count {
            let n = (count - k).min(CHUNK);
            let first = start.wrapping_add_signed(k as isize * stride);
            gather_codes(
                aligned,
                R::BITS,
                field.offset(),
                F::BITS,
                words,
                first,
                stride,
                &mut buf[..n],
            );
            // 256 values of at most 56 bits fit a u64; wider ones add as u128.
            if F::BITS <= 56 {
                total += u128::from(buf[..n].iter().sum::<u64>());
            } else {
                total += buf[..n].iter().map(|&v| u128::from(v)).sum::<u128>();
            }
            k += n;
        }
    }
    total
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
        column(L::WORD_ALIGNED, self.as_words(), &self.own_layout(), field)
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
        LengthOf::Column.check(self.len(), column.len())?;
        let mut buf = [F::Raw::ZERO; CHUNK];
        let src = column.as_words();
        let dst = self.words_mut();
        let mut at = 0;
        while at < column.len() {
            let n = (column.len() - at).min(CHUNK);
            stream::unpack(false, F::BITS, src, at, &mut buf[..n]);
            scatter_codes(
                L::WORD_ALIGNED,
                R::BITS,
                field.offset(),
                F::BITS,
                dst,
                at,
                &buf[..n],
            );
            at += n;
        }
        Ok(())
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
    pub fn field<F: BitElement>(&self, field: Field<R, F>) -> NarrowArray<F> {
        column(L::WORD_ALIGNED, self.words(), self.layout(), field)
    }

    /// The exact sum of one unsigned field over the records the view sees.
    pub fn field_sum<F: UnsignedElement>(&self, field: Field<R, F>) -> u128 {
        column_sum(L::WORD_ALIGNED, self.words(), self.layout(), field)
    }
}
