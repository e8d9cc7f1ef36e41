//! Packed streams with a run-time width and layout: where the containers and
//! views hand a bulk operation to a width-monomorphized kernel.
//!
//! A stream is a word buffer, a width `bits` and a layout (`aligned`). Each
//! bulk function here looks the kernel up **once per call** in a table
//! generated per width (and element buffer type), then runs it; the kernels
//! themselves have the width as a constant. Per-element functions
//! ([`read`], [`write`]) take the width at run time.
//!
//! Dense contiguous runs go to [`crate::kernels`] (on little-endian targets,
//! where the stored words are the kernels' words); everything else to the
//! kernels here and in [`super::aligned`]. Widths above 64 (raw `u128`
//! values) go one value at a time.
//!
//! Strided kernels walk a run `start, start + stride, ...` with a cursor that
//! steps without division: a bit position for the dense layout, a word and a
//! slot (carried when the slot passes the values per word) for the
//! word-aligned one.

use super::bits::{
    self, bit_of, load, mask64, per_word, read_dense_at, same_as_dense, store, write_dense_at,
};
use crate::Unsigned;

/// `lane!(U, TABLE, aligned, bits, cast, buf, args...)` calls
/// `tables::<lane of U>::TABLE[aligned][bits - 1](args..., buf)`, `buf`
/// cast by `bytemuck::cast` to the lane type (`u8`, `u16`, `u32` or `u64`).
/// Evaluates to `false` when no lane has tables (`u128`), so the caller
/// takes its per-value path.
macro_rules! lane {
    ($u:ty, $table:ident, $aligned:expr, $bits:expr, $cast:ident, $buf:expr, $($a:expr),*) => {
        lane!(@ $u, $table, $aligned, $bits, $cast, $buf, ($($a),*);
            8 lane8 u8, 16 lane16 u16, 32 lane32 u32, 64 lane64 u64)
    };
    (@ $u:ty, $table:ident, $aligned:expr, $bits:expr, $cast:ident, $buf:expr, $args:tt;
     $($n:literal $lane:ident $l:ty),*) => {
        match <$u as Unsigned>::BITS {
            $($n => {
                let f = tables::$lane::$table[$aligned as usize][$bits as usize - 1];
                let buf = bytemuck::$cast::<$u, $l>($buf);
                lane!(@call f $args buf);
                true
            })*
            _ => false,
        }
    };
    (@call $f:ident ($($a:expr),*) $buf:ident) => {
        $f($($a,)* $buf)
    };
}

/// The value of `bits` bits (1..=128) at index `i` of the stream.
#[inline]
pub(crate) fn read(aligned: bool, bits: u32, words: &[u64], i: usize) -> u128 {
    bits::read(words, bit_of(aligned, bits, i), bits)
}

/// Writes the low `bits` bits of `value` at index `i` of the stream.
#[inline]
pub(crate) fn write(aligned: bool, bits: u32, words: &mut [u64], i: usize, value: u128) {
    bits::write(words, bit_of(aligned, bits, i), bits, value);
}

// ---------------------------------------------------------------------------
// cursors and per-value reads at a constant width
// ---------------------------------------------------------------------------

/// A position in a stream of `bits`-bit values (`bits` in `1..=64`) that
/// steps by a fixed stride with additions only: the bit position for the
/// dense layout; the word and the slot for the word-aligned one.
#[derive(Clone, Copy)]
pub(crate) struct Cursor {
    /// Dense: the stream bit. Word-aligned: the word.
    pos: usize,
    /// Word-aligned: the slot in the word.
    slot: usize,
    /// Dense: the stride in bits (wrapping). Word-aligned: whole words per
    /// step (wrapping).
    step: usize,
    /// Word-aligned: slots per step beyond the whole words, `0..per`.
    step_slots: usize,
}

impl Cursor {
    /// A cursor at value `start`, stepping by `stride` values. The stride
    /// may be anything (its products wrap) when no step past the last value
    /// is read.
    #[inline(always)]
    pub(crate) fn new(aligned: bool, bits: u32, start: usize, stride: isize) -> Self {
        if aligned && !same_as_dense(bits) {
            let per = per_word(bits) as isize;
            Cursor {
                pos: start / per as usize,
                slot: start % per as usize,
                step: stride.div_euclid(per) as usize,
                step_slots: stride.rem_euclid(per) as usize,
            }
        } else {
            Cursor {
                pos: start.wrapping_mul(bits as usize),
                slot: 0,
                step: (stride as usize).wrapping_mul(bits as usize),
                step_slots: 0,
            }
        }
    }

    /// The value under the cursor.
    #[inline(always)]
    pub(crate) fn read(&self, aligned: bool, bits: u32, words: &[u64]) -> u64 {
        if aligned && !same_as_dense(bits) {
            (load(words[self.pos]) >> (self.slot * bits as usize)) & mask64(bits)
        } else {
            read_dense_at(words, self.pos, bits)
        }
    }

    /// Writes the low `bits` bits of `v` under the cursor.
    #[inline(always)]
    pub(crate) fn write(&self, aligned: bool, bits: u32, words: &mut [u64], v: u64) {
        if aligned && !same_as_dense(bits) {
            let sh = self.slot * bits as usize;
            let m = mask64(bits) << sh;
            let w = &mut words[self.pos];
            *w = store((load(*w) & !m) | ((v << sh) & m));
        } else {
            write_dense_at(words, self.pos, bits, v);
        }
    }

    /// Moves one stride on.
    #[inline(always)]
    pub(crate) fn advance(&mut self, aligned: bool, bits: u32) {
        if aligned && !same_as_dense(bits) {
            let per = per_word(bits);
            self.slot += self.step_slots;
            self.pos = self.pos.wrapping_add(self.step);
            if self.slot >= per {
                self.slot -= per;
                self.pos = self.pos.wrapping_add(1);
            }
        } else {
            self.pos = self.pos.wrapping_add(self.step);
        }
    }
}

// ---------------------------------------------------------------------------
// strided gather and scatter, per width and layout
// ---------------------------------------------------------------------------

/// `out[k]` = the value at `start + k * stride`, at a constant width and
/// layout; a contiguous word-aligned run is [`unpack_raw`].
fn gather_at<const W: u32, U: Unsigned, const ALIGNED: bool>(
    words: &[u64],
    start: usize,
    stride: isize,
    out: &mut [U],
) {
    if ALIGNED && stride == 1 {
        return unpack_raw::<W, U>(words, start, out);
    }
    let mut c = Cursor::new(ALIGNED, W, start, stride);
    for o in out.iter_mut() {
        *o = U::from_u128_truncate(u128::from(c.read(ALIGNED, W, words)));
        c.advance(ALIGNED, W);
    }
}

/// Writes `src[k]` (its low `W` bits) at `start + k * stride`, at a constant
/// width and layout; a contiguous word-aligned run is `aligned::pack_raw`.
fn scatter_at<const W: u32, U: Unsigned, const ALIGNED: bool>(
    words: &mut [u64],
    start: usize,
    stride: isize,
    src: &[U],
) {
    if ALIGNED && stride == 1 {
        return super::aligned::pack_raw::<W, U>(src, words, start);
    }
    let mut c = Cursor::new(ALIGNED, W, start, stride);
    for &v in src {
        c.write(ALIGNED, W, words, v.to_u128() as u64);
        c.advance(ALIGNED, W);
    }
}

type GatherFn<U> = fn(&[u64], usize, isize, &mut [U]);
type ScatterFn<U> = fn(&mut [u64], usize, isize, &[U]);

/// Unpacks raw word-aligned integers of `W` bits (`W <= U::BITS`, `W <= 64`):
/// a target variant where [`super::dispatch::unpack_aligned_raw`] has one (for 64
/// values or more, below which the portable loop is as fast), else the
/// portable loop.
pub(crate) fn unpack_raw<const W: u32, U: Unsigned>(words: &[u64], first: usize, dst: &mut [U]) {
    if dst.len() >= 64 && super::dispatch::unpack_aligned_raw::<W, U>(words, first, dst) {
        return;
    }
    super::aligned::unpack_raw_body::<W, U>(words, first, dst);
}

/// Per-width tables of each lane type, `[layout][width - 1]` (layout 0
/// dense, 1 word-aligned), for every width a lane holds.
mod tables {
    macro_rules! lane_tables {
        ($($lane:ident: $u:ident, $n:tt;)*) => {$(
            pub(super) mod $lane {
                use super::super::*;

                pub(in super::super) static GATHER: [[GatherFn<$u>; $n]; 2] =
                    [width_table!(gather_at, $u, false; $n), width_table!(gather_at, $u, true; $n)];
                pub(in super::super) static SCATTER: [[ScatterFn<$u>; $n]; 2] =
                    [width_table!(scatter_at, $u, false; $n), width_table!(scatter_at, $u, true; $n)];
            }
        )*};
    }
    lane_tables! {
        lane8: u8, 8;
        lane16: u16, 16;
        lane32: u32, 32;
        lane64: u64, 64;
    }
}

/// Whether the dense kernels of [`crate::kernels`] read this crate's stored
/// words (they take words as integers; the stored words are little-endian
/// bytes).
const KERNEL_WORDS: bool = cfg!(target_endian = "little");

/// Unpacks the raw values at `first..first + out.len()` into `out` (`bits`
/// at most `U::BITS`).
pub(crate) fn unpack<U: Unsigned>(
    aligned: bool,
    bits: u32,
    words: &[u64],
    first: usize,
    out: &mut [U],
) {
    gather(aligned, bits, words, first, 1, out);
}

/// Unpacks the raw values at `first..first + out.len()` into `out` through
/// `from`, straight from the width's kernel, where the kernels read this
/// stream in place (a dense run, or word-aligned at a width where that is
/// the same, on a little-endian target); `false`, with nothing written,
/// where they do not.
pub(crate) fn unpack_mapped<T, U: Unsigned>(
    aligned: bool,
    bits: u32,
    words: &[u64],
    first: usize,
    out: &mut [T],
    from: impl Fn(U) -> T,
) -> bool {
    if (aligned && !same_as_dense(bits)) || !KERNEL_WORDS {
        return false;
    }
    if !out.is_empty() {
        crate::kernels::unpack_map(bits, words, first, out, from);
    }
    true
}

/// Packs `src` (the low `bits` bits of each, `bits` at most `U::BITS`) at
/// `first..first + src.len()`; other values are unchanged.
pub(crate) fn pack<U: Unsigned>(
    aligned: bool,
    bits: u32,
    src: &[U],
    words: &mut [u64],
    first: usize,
) {
    scatter(aligned, bits, words, first, 1, src);
}

/// `out[k]` = the raw value at `start + k * stride` (`bits` at most
/// `U::BITS`): a contiguous dense run on a little-endian target through
/// [`crate::kernels`], other runs through the lane's kernel for the width
/// and layout, raw `u128` values one at a time.
pub(crate) fn gather<U: Unsigned>(
    aligned: bool,
    bits: u32,
    words: &[u64],
    start: usize,
    stride: isize,
    out: &mut [U],
) {
    let aligned = aligned && !same_as_dense(bits);
    if out.is_empty() {
        return;
    }
    if stride == 1 && !aligned && KERNEL_WORDS {
        crate::kernels::unpack(bits, words, start, out)
            .expect("stream bounds checked by the caller");
    } else if !lane!(
        U,
        GATHER,
        aligned,
        bits,
        cast_slice_mut,
        out,
        words,
        start,
        stride
    ) {
        // Raw `u128`: its products may wrap after the last value.
        let mut i = start;
        for o in out.iter_mut() {
            *o = U::from_u128_truncate(read(aligned, bits, words, i));
            i = i.wrapping_add_signed(stride);
        }
    }
}

/// Writes `src[k]` (its low `bits` bits) at `start + k * stride`, in order
/// (a value reached twice keeps the later one); routed as [`gather`].
pub(crate) fn scatter<U: Unsigned>(
    aligned: bool,
    bits: u32,
    words: &mut [u64],
    start: usize,
    stride: isize,
    src: &[U],
) {
    let aligned = aligned && !same_as_dense(bits);
    if src.is_empty() {
        return;
    }
    if stride == 1 && !aligned && KERNEL_WORDS {
        crate::kernels::pack(bits, src, words, start).expect("stream bounds checked by the caller");
    } else if !lane!(
        U, SCATTER, aligned, bits, cast_slice, src, words, start, stride
    ) {
        let mut i = start;
        for &v in src {
            write(aligned, bits, words, i, v.to_u128());
            i = i.wrapping_add_signed(stride);
        }
    }
}
