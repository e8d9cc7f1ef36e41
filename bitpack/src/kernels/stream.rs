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

/// Picks the table entry for `bits` among the tables of a kernel per element
/// buffer type (`u8`, `u16`, `u32`, `u64`), casting the buffer argument, and
/// calls it. Evaluates to `false` when no table covers the buffer type
/// (`u128`), so the caller takes its per-value path.
macro_rules! call_by_lane {
    ($u:ty, $bits:expr, [$t8:expr, $t16:expr, $t32:expr, $t64:expr], $cast:ident,
     |$f:ident, $buf:ident| $call:expr, $arg:expr) => {{
        let w = $bits as usize - 1;
        match <$u as Unsigned>::BITS {
            8 => {
                let $f = $t8[w];
                let $buf = bytemuck::$cast::<$u, u8>($arg);
                $call;
                true
            }
            16 => {
                let $f = $t16[w];
                let $buf = bytemuck::$cast::<$u, u16>($arg);
                $call;
                true
            }
            32 => {
                let $f = $t32[w];
                let $buf = bytemuck::$cast::<$u, u32>($arg);
                $call;
                true
            }
            64 => {
                let $f = $t64[w];
                let $buf = bytemuck::$cast::<$u, u64>($arg);
                $call;
                true
            }
            _ => false,
        }
    }};
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

/// `out[k]` = the value at `start + k * stride`.
#[inline(always)]
fn gather_core<U: Unsigned>(
    aligned: bool,
    bits: u32,
    words: &[u64],
    start: usize,
    stride: isize,
    out: &mut [U],
) {
    let mut c = Cursor::new(aligned, bits, start, stride);
    for o in out.iter_mut() {
        *o = U::from_u128_truncate(u128::from(c.read(aligned, bits, words)));
        c.advance(aligned, bits);
    }
}

/// Writes `src[k]` (its low `bits` bits) at `start + k * stride`.
#[inline(always)]
fn scatter_core<U: Unsigned>(
    aligned: bool,
    bits: u32,
    words: &mut [u64],
    start: usize,
    stride: isize,
    src: &[U],
) {
    let mut c = Cursor::new(aligned, bits, start, stride);
    for &v in src {
        c.write(aligned, bits, words, v.to_u128() as u64);
        c.advance(aligned, bits);
    }
}

fn gather_dense<const W: u32, U: Unsigned>(
    words: &[u64],
    start: usize,
    stride: isize,
    out: &mut [U],
) {
    gather_core(false, W, words, start, stride, out);
}

fn gather_aligned<const W: u32, U: Unsigned>(
    words: &[u64],
    start: usize,
    stride: isize,
    out: &mut [U],
) {
    gather_core(true, W, words, start, stride, out);
}

fn scatter_dense<const W: u32, U: Unsigned>(
    words: &mut [u64],
    start: usize,
    stride: isize,
    src: &[U],
) {
    scatter_core(false, W, words, start, stride, src);
}

fn scatter_aligned<const W: u32, U: Unsigned>(
    words: &mut [u64],
    start: usize,
    stride: isize,
    src: &[U],
) {
    scatter_core(true, W, words, start, stride, src);
}

type GatherFn<U> = fn(&[u64], usize, isize, &mut [U]);
type ScatterFn<U> = fn(&mut [u64], usize, isize, &[U]);
type UnpackFn<U> = fn(&[u64], usize, &mut [U]);
type PackFn<U> = fn(&[U], &mut [u64], usize);

/// Unpacks raw word-aligned integers of `W` bits (`W <= U::BITS`, `W <= 64`).
///
/// On x86_64 with `std`, `u8` output uses BMI2 `pdep` (eight values of a word
/// to eight bytes per instruction) and `u32`/`u64` output an AVX2 build of
/// the portable loop, where the CPU has them; both measured faster than the
/// portable loop, which the other cases keep.
pub(crate) fn unpack_raw<const W: u32, U: Unsigned>(words: &[u64], first: usize, dst: &mut [U]) {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if dst.len() >= 64 {
        use super::x86;
        if U::BITS == 8 && W <= 8 && x86::features() & x86::BMI2 != 0 {
            let dst: &mut [u8] = bytemuck::cast_slice_mut(dst);
            // SAFETY: `x86::features` reported BMI2 just above; it is the one feature
            // `unpack_u8_bmi2` enables, and the function is safe Rust.
            unsafe { x86::unpack_aligned_u8_bmi2::<W>(words, first, dst) };
            return;
        }
        if U::BITS >= 32 && x86::features() & x86::AVX2 != 0 {
            // SAFETY: `x86::features` reported AVX2 just above; it is the one feature
            // `unpack_raw_avx2` enables, and the function is safe Rust.
            unsafe { x86::unpack_aligned_raw_avx2::<W, U>(words, first, dst) };
            return;
        }
    }
    super::aligned::unpack_raw_body::<W, U>(words, first, dst);
}

/// Per-width tables: `[layout][width - 1]`, layout 0 dense, 1 word-aligned.
mod tables {
    use super::*;
    use crate::kernels::aligned::pack_raw;

    pub(super) static GATHER_U8: [[GatherFn<u8>; 8]; 2] = [
        width_table!(gather_dense, u8; 8),
        width_table!(gather_aligned, u8; 8),
    ];
    pub(super) static GATHER_U16: [[GatherFn<u16>; 16]; 2] = [
        width_table!(gather_dense, u16; 16),
        width_table!(gather_aligned, u16; 16),
    ];
    pub(super) static GATHER_U32: [[GatherFn<u32>; 32]; 2] = [
        width_table!(gather_dense, u32; 32),
        width_table!(gather_aligned, u32; 32),
    ];
    pub(super) static GATHER_U64: [[GatherFn<u64>; 64]; 2] = [
        width_table!(gather_dense, u64; 64),
        width_table!(gather_aligned, u64; 64),
    ];
    pub(super) static SCATTER_U8: [[ScatterFn<u8>; 8]; 2] = [
        width_table!(scatter_dense, u8; 8),
        width_table!(scatter_aligned, u8; 8),
    ];
    pub(super) static SCATTER_U16: [[ScatterFn<u16>; 16]; 2] = [
        width_table!(scatter_dense, u16; 16),
        width_table!(scatter_aligned, u16; 16),
    ];
    pub(super) static SCATTER_U32: [[ScatterFn<u32>; 32]; 2] = [
        width_table!(scatter_dense, u32; 32),
        width_table!(scatter_aligned, u32; 32),
    ];
    pub(super) static SCATTER_U64: [[ScatterFn<u64>; 64]; 2] = [
        width_table!(scatter_dense, u64; 64),
        width_table!(scatter_aligned, u64; 64),
    ];
    pub(super) static UNPACK_ALIGNED_U8: [UnpackFn<u8>; 8] = width_table!(unpack_raw, u8; 8);
    pub(super) static UNPACK_ALIGNED_U16: [UnpackFn<u16>; 16] = width_table!(unpack_raw, u16; 16);
    pub(super) static UNPACK_ALIGNED_U32: [UnpackFn<u32>; 32] = width_table!(unpack_raw, u32; 32);
    pub(super) static UNPACK_ALIGNED_U64: [UnpackFn<u64>; 64] = width_table!(unpack_raw, u64; 64);
    pub(super) static PACK_ALIGNED_U8: [PackFn<u8>; 8] = width_table!(pack_raw, u8; 8);
    pub(super) static PACK_ALIGNED_U16: [PackFn<u16>; 16] = width_table!(pack_raw, u16; 16);
    pub(super) static PACK_ALIGNED_U32: [PackFn<u32>; 32] = width_table!(pack_raw, u32; 32);
    pub(super) static PACK_ALIGNED_U64: [PackFn<u64>; 64] = width_table!(pack_raw, u64; 64);
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
    if out.is_empty() {
        return;
    }
    let aligned = aligned && !same_as_dense(bits);
    if !aligned && KERNEL_WORDS {
        crate::kernels::unpack(bits, words, first, out)
            .expect("stream bounds checked by the caller");
        return;
    }
    if aligned
        && call_by_lane!(
            U,
            bits,
            [
                tables::UNPACK_ALIGNED_U8,
                tables::UNPACK_ALIGNED_U16,
                tables::UNPACK_ALIGNED_U32,
                tables::UNPACK_ALIGNED_U64
            ],
            cast_slice_mut,
            |f, buf| f(words, first, buf),
            out
        )
    {
        return;
    }
    gather(aligned, bits, words, first, 1, out);
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
    if src.is_empty() {
        return;
    }
    let aligned = aligned && !same_as_dense(bits);
    if !aligned && KERNEL_WORDS {
        crate::kernels::pack(bits, src, words, first).expect("stream bounds checked by the caller");
        return;
    }
    if aligned
        && call_by_lane!(
            U,
            bits,
            [
                tables::PACK_ALIGNED_U8,
                tables::PACK_ALIGNED_U16,
                tables::PACK_ALIGNED_U32,
                tables::PACK_ALIGNED_U64
            ],
            cast_slice,
            |f, buf| f(buf, words, first),
            src
        )
    {
        return;
    }
    scatter(aligned, bits, words, first, 1, src);
}

/// `out[k]` = the raw value at `start + k * stride` (`bits` at most
/// `U::BITS`). A stride of 1 is [`unpack`].
pub(crate) fn gather<U: Unsigned>(
    aligned: bool,
    bits: u32,
    words: &[u64],
    start: usize,
    stride: isize,
    out: &mut [U],
) {
    if out.is_empty() {
        return;
    }
    let aligned = aligned && !same_as_dense(bits);
    if stride == 1 && (!aligned && KERNEL_WORDS || aligned && bits <= 64 && U::BITS <= 64) {
        return unpack(aligned, bits, words, start, out);
    }
    if bits <= 64
        && call_by_lane!(
            U,
            bits,
            [
                tables::GATHER_U8[aligned as usize],
                tables::GATHER_U16[aligned as usize],
                tables::GATHER_U32[aligned as usize],
                tables::GATHER_U64[aligned as usize]
            ],
            cast_slice_mut,
            |f, buf| f(words, start, stride, buf),
            out
        )
    {
        return;
    }
    // Raw `u128`: one value at a time (its products may wrap after the last).
    let mut i = start;
    for o in out.iter_mut() {
        *o = U::from_u128_truncate(read(aligned, bits, words, i));
        i = i.wrapping_add_signed(stride);
    }
}

/// Writes `src[k]` (its low `bits` bits) at `start + k * stride`, in order
/// (a value reached twice keeps the later one).
pub(crate) fn scatter<U: Unsigned>(
    aligned: bool,
    bits: u32,
    words: &mut [u64],
    start: usize,
    stride: isize,
    src: &[U],
) {
    if src.is_empty() {
        return;
    }
    let aligned = aligned && !same_as_dense(bits);
    if stride == 1 && (!aligned && KERNEL_WORDS || aligned && bits <= 64 && U::BITS <= 64) {
        return pack(aligned, bits, src, words, start);
    }
    if bits <= 64
        && call_by_lane!(
            U,
            bits,
            [
                tables::SCATTER_U8[aligned as usize],
                tables::SCATTER_U16[aligned as usize],
                tables::SCATTER_U32[aligned as usize],
                tables::SCATTER_U64[aligned as usize]
            ],
            cast_slice,
            |f, buf| f(words, start, stride, buf),
            src
        )
    {
        return;
    }
    let mut i = start;
    for &v in src {
        write(aligned, bits, words, i, v.to_u128());
        i = i.wrapping_add_signed(stride);
    }
}
