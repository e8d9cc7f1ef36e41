//! The bulk paths of the word-aligned layout ([`WordAligned`]): packing and
//! unpacking whole words, for typed values and, instantiated per width, for
//! raw integers.
//!
//! For `b`-bit values with `b <= 64`, word `k` holds `p = floor(64 / b)`
//! values, value `k * p + j` at bits `[j * b, (j + 1) * b)`; the top `64 - p *
//! b` bits are zero. Whole words are built (or split) in registers with
//! constant shifts, so the body of a pack writes each word once, gap bits
//! included. Values before the first word boundary and after the last one go
//! one at a time through [`bulk::read`]/[`bulk::write`]. Wider values and
//! widths that divide 64 (where the layout is the dense one) take the dense
//! paths.
//!
//! [`WordAligned`]: super::WordAligned

use super::bulk::{self, load, store};
use super::packing::{bit_of, per_word, same_as_dense};
use crate::{BitElement, Unsigned};

/// The low `bits` bits set (`bits` in `1..=64`).
#[inline(always)]
pub(crate) const fn mask64(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// The number of values before the first word boundary at or after index
/// `first`, capped at `n`.
#[inline(always)]
fn head_len(per: usize, first: usize, n: usize) -> usize {
    ((per - first % per) % per).min(n)
}

/// Packs `src` (its values' bits above `bits` clear, `raw` giving each as a
/// `u64`) at index `first` of a word-aligned stream of `bits`-bit values
/// (`bits` in `1..=64`). Only those values' bits change, except that whole
/// words written by the body also clear their gap bits (which are zero).
#[inline(always)]
fn pack_core<S: Copy>(
    bits: u32,
    words: &mut [u64],
    first: usize,
    src: &[S],
    raw: impl Fn(S) -> u64,
) {
    let per = per_word(bits);
    let b = bits as usize;
    let n = src.len();
    let head = head_len(per, first, n);
    for (j, &v) in src[..head].iter().enumerate() {
        bulk::write(
            words,
            bit_of(true, bits, first + j),
            bits,
            u128::from(raw(v)),
        );
    }
    let body = (n - head) / per * per;
    let k0 = (first + head) / per;
    for (w, vs) in words[k0..k0 + body / per]
        .iter_mut()
        .zip(src[head..head + body].chunks_exact(per))
    {
        let mut x = 0u64;
        for (j, &v) in vs.iter().enumerate() {
            x |= raw(v) << (j * b);
        }
        *w = store(x);
    }
    for (j, &v) in src.iter().enumerate().skip(head + body) {
        bulk::write(
            words,
            bit_of(true, bits, first + j),
            bits,
            u128::from(raw(v)),
        );
    }
}

/// Unpacks `dst.len()` values from index `first` of a word-aligned stream
/// of `bits`-bit values (`bits` in `1..=64`), `make` turning each into `D`.
#[inline(always)]
fn unpack_core<D>(bits: u32, words: &[u64], first: usize, dst: &mut [D], make: impl Fn(u64) -> D) {
    let per = per_word(bits);
    let b = bits as usize;
    let m = mask64(bits);
    let n = dst.len();
    let head = head_len(per, first, n);
    for (j, d) in dst[..head].iter_mut().enumerate() {
        *d = make(bulk::read(words, bit_of(true, bits, first + j), bits) as u64);
    }
    let body = (n - head) / per * per;
    let k0 = (first + head) / per;
    for (&w, ds) in words[k0..k0 + body / per]
        .iter()
        .zip(dst[head..head + body].chunks_exact_mut(per))
    {
        let x = load(w);
        for (j, d) in ds.iter_mut().enumerate() {
            *d = make((x >> (j * b)) & m);
        }
    }
    for (j, d) in dst.iter_mut().enumerate().skip(head + body) {
        *d = make(bulk::read(words, bit_of(true, bits, first + j), bits) as u64);
    }
}

/// Packs `src` into the word-aligned stream, `src[j]` at index `first + j`.
///
/// # Panics
///
/// When the values run past the end of `words`.
pub(crate) fn pack<T: BitElement>(src: &[T], words: &mut [u64], first: usize) {
    if same_as_dense(T::BITS) {
        bulk::pack(src, words, first);
    } else if T::BITS > 64 {
        for (j, v) in src.iter().enumerate() {
            let at = bit_of(true, T::BITS, first + j);
            bulk::write(words, at, T::BITS, v.raw_bits().to_u128());
        }
    } else {
        pack_core(T::BITS, words, first, src, |v: T| {
            v.raw_bits().to_u128() as u64
        });
    }
}

/// Unpacks the values at indices `first..first + dst.len()` of the
/// word-aligned stream into `dst`.
///
/// # Panics
///
/// When the values run past the end of `words`.
pub(crate) fn unpack<T: BitElement>(words: &[u64], first: usize, dst: &mut [T]) {
    if same_as_dense(T::BITS) {
        bulk::unpack(words, first, dst);
    } else if T::BITS > 64 {
        for (j, d) in dst.iter_mut().enumerate() {
            let raw = bulk::read(words, bit_of(true, T::BITS, first + j), T::BITS);
            *d = T::from_raw_bits(T::Raw::from_u128_truncate(raw));
        }
    } else {
        unpack_typed(words, first, dst);
    }
}

/// The body of [`unpack`] for `T::BITS <= 64`: the raw values are unpacked
/// a stack chunk at a time by the width's raw kernel ([`unpack_raw`], with
/// its BMI2 and AVX2 builds), then turned into values.
#[inline(always)]
fn unpack_typed<T: BitElement>(words: &[u64], first: usize, dst: &mut [T]) {
    const MAP: usize = 256;
    let per = per_word(T::BITS);
    // Whole words per chunk after the first, which ends on a word.
    let chunk = MAP / per * per;
    let mut buf = [T::Raw::ZERO; MAP];
    let n = dst.len();
    let mut done = 0;
    while done < n {
        let head = (per - (first + done) % per) % per;
        let len = if head > 0 { head } else { chunk }.min(n - done);
        super::stream::unpack(true, T::BITS, words, first + done, &mut buf[..len]);
        for (d, &r) in dst[done..done + len].iter_mut().zip(&buf[..len]) {
            *d = T::from_raw_bits(r);
        }
        done += len;
    }
}

/// [`pack`] for raw integers of `W` bits (`W <= U::BITS`, `W <= 64`); bits of
/// the source above `W` are ignored.
pub(crate) fn pack_raw<const W: u32, U: Unsigned>(src: &[U], words: &mut [u64], first: usize) {
    pack_core(W, words, first, src, |v: U| v.to_u128() as u64 & mask64(W));
}

/// [`unpack`] for raw integers of `W` bits (`W <= U::BITS`, `W <= 64`).
///
/// On x86_64 with `std`, `u8` output uses BMI2 `pdep` (eight values of a word
/// to eight bytes per instruction) and `u32`/`u64` output an AVX2 build of
/// the portable loop, where the CPU has them; both measured faster than the
/// portable loop, which the other cases keep.
pub(crate) fn unpack_raw<const W: u32, U: Unsigned>(words: &[u64], first: usize, dst: &mut [U]) {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if dst.len() >= 64 {
        if U::BITS == 8 && W <= 8 && std::is_x86_feature_detected!("bmi2") {
            let dst: &mut [u8] = bytemuck::cast_slice_mut(dst);
            // SAFETY: BMI2 was detected just above; it is the one feature
            // `unpack_u8_bmi2` enables, and the function is safe Rust.
            unsafe { unpack_u8_bmi2::<W>(words, first, dst) };
            return;
        }
        if U::BITS >= 32 && std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected just above; it is the one feature
            // `unpack_raw_avx2` enables, and the function is safe Rust.
            unsafe { unpack_raw_avx2::<W, U>(words, first, dst) };
            return;
        }
    }
    unpack_raw_body::<W, U>(words, first, dst);
}

#[inline(always)]
fn unpack_raw_body<const W: u32, U: Unsigned>(words: &[u64], first: usize, dst: &mut [U]) {
    unpack_core(W, words, first, dst, |v| {
        U::from_u128_truncate(u128::from(v))
    });
}

/// [`unpack_raw_body`] compiled for AVX2.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
fn unpack_raw_avx2<const W: u32, U: Unsigned>(words: &[u64], first: usize, dst: &mut [U]) {
    unpack_raw_body::<W, U>(words, first, dst);
}

/// Word-aligned unpacking to bytes (`W <= 8`) with BMI2: each whole word
/// deposits its values eight at a time into the bytes of a `u64` (`pdep`
/// with `2^W - 1` in every byte), whose low bytes are copied out; the values
/// before the first whole word and after the last one go one at a time.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "bmi2")]
fn unpack_u8_bmi2<const W: u32>(words: &[u64], first: usize, dst: &mut [u8]) {
    use core::arch::x86_64::_pdep_u64;
    let per = per_word(W);
    let bytes = 0x0101_0101_0101_0101u64 * mask64(W);
    let n = dst.len();
    let head = head_len(per, first, n);
    let body = (n - head) / per * per;
    let k0 = (first + head) / per;
    unpack_core(W, words, first, &mut dst[..head], |v| v as u8);
    for (&w, ds) in words[k0..k0 + body / per]
        .iter()
        .zip(dst[head..head + body].chunks_exact_mut(per))
    {
        let x = load(w);
        for (g, out) in ds.chunks_mut(8).enumerate() {
            let v = _pdep_u64(x >> (8 * W as usize * g), bytes).to_le_bytes();
            out.copy_from_slice(&v[..out.len()]);
        }
    }
    let done = head + body;
    unpack_core(W, words, first + done, &mut dst[done..], |v| v as u8);
}
