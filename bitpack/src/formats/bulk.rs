//! Bulk conversions between `f32` slices and packed arrays of a float
//! format: encode (both modes) and decode.
//!
//! The packed paths go through the width's kernels
//! ([`crate::kernels`]): decode by a table held in registers for 4-bit
//! formats, else by a branch-free (or, on x86 with F16C, `vcvtph2ps`)
//! conversion of unpacked codes, exact to the bit against the 256-entry
//! table; encode by a branch-free rounding exact against the crate's rounding
//! routine, which itself serves the formats the fast path does not cover (see
//! `kernels::minifloat`). No allocation, no per-element dispatch.

use crate::error::LengthOf;
#[cfg(feature = "alloc")]
use alloc::vec;
#[cfg(feature = "alloc")]
use alloc::vec::Vec;

#[cfg(feature = "alloc")]
use crate::NarrowArray;
use crate::float::{MiniFloat, Mode, Tables};
use crate::{Error, Result};

use crate::kernels::minifloat;
#[cfg(feature = "alloc")]
use crate::par;

/// Values per stack chunk when a byte stream goes through the word kernels:
/// 512 values of any width up to 8 bits are a whole number of bytes and fit
/// in 64 words.
const BYTE_CHUNK: usize = 512;

/// Encodes `src` into `dst` (the same length) with `mode`.
#[inline]
pub(crate) fn encode_chunk<F: MiniFloat>(src: &[f32], mode: Mode, dst: &mut [F]) {
    match mode {
        Mode::Nearest => encode_chunk_as::<F, false>(src, dst),
        Mode::SatFinite => encode_chunk_as::<F, true>(src, dst),
    }
}

/// [`encode_chunk`] with the mode a constant (`SAT`: saturating).
#[inline]
fn encode_chunk_as<F: MiniFloat, const SAT: bool>(src: &[f32], dst: &mut [F]) {
    debug_assert_eq!(src.len(), dst.len());
    if const { minifloat::encode_fast_ok(&F::FORMAT) } {
        for (d, &x) in dst.iter_mut().zip(src) {
            *d = F::from_raw_bits(minifloat::encode_fast::<F, SAT>(x));
        }
        return;
    }
    let mode = Mode::from_satfinite(SAT);
    for (d, &x) in dst.iter_mut().zip(src) {
        *d = F::from_raw_bits(F::FORMAT.encode_f32(x, mode) as u8);
    }
}

/// Decodes the first `out.len()` values of the dense LSB-first stream
/// `bytes` (element `i` at bits `[i * F::BITS, (i + 1) * F::BITS)`).
///
/// `bytes` must hold at least `ceil(out.len() * F::BITS / 8)` bytes. 8-bit
/// codes are converted in place; narrower ones go through the word kernels
/// a stack chunk at a time.
pub(crate) fn decode_stream<F: MiniFloat>(bytes: &[u8], out: &mut [f32]) {
    let table = &Tables::<F>::DECODE_F32;
    if F::BITS == 8 {
        let n = out.len();
        minifloat::decode_codes::<F>(&bytes[..n], out, |c| table[c as usize]);
        return;
    }
    let mut words = [0u64; BYTE_CHUNK / 8];
    for (k, chunk) in out.chunks_mut(BYTE_CHUNK).enumerate() {
        let start = k * BYTE_CHUNK * F::BITS as usize / 8;
        let len = (chunk.len() * F::BITS as usize).div_ceil(8);
        let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        buf[..len].copy_from_slice(&bytes[start..start + len]);
        minifloat::decode_words::<F>(&words, 0, chunk, table);
    }
}

/// Encodes `src` into `dst` (the same length), one value per element
/// (unpacked), with the given [`Mode`]. Needs no allocator.
///
/// # Errors
///
/// [`Error::Length`] when the lengths differ; `dst` is unchanged.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E5M2, Mode, encode_slice};
///
/// let mut out = [E5M2::ZERO; 2];
/// encode_slice(&[1e6, -1.0], Mode::Nearest, &mut out)?;
/// assert_eq!(out[0], E5M2::INFINITY);
/// assert_eq!(out[1].to_f32(), -1.0);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn encode_slice<F: MiniFloat>(src: &[f32], mode: Mode, dst: &mut [F]) -> Result<()> {
    LengthOf::EncodeInput.check(dst.len(), src.len())?;
    encode_chunk(src, mode, dst);
    Ok(())
}

/// Decodes `src` (one value per element, unpacked) into `dst` (the same
/// length), by table. Needs no allocator.
///
/// # Errors
///
/// [`Error::Length`] when the lengths differ; `dst` is unchanged.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, decode_slice};
///
/// let mut out = [0.0f32; 3];
/// decode_slice(&[E2M1::ONE, E2M1::MAX, E2M1::from_bits(0x9)], &mut out)?;
/// assert_eq!(out, [1.0, 6.0, -0.5]);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn decode_slice<F: MiniFloat>(src: &[F], dst: &mut [f32]) -> Result<()> {
    LengthOf::DecodeOutput.check(src.len(), dst.len())?;
    let table = &Tables::<F>::DECODE_F32;
    for (d, s) in dst.iter_mut().zip(src) {
        *d = table[s.raw_bits() as usize];
    }
    Ok(())
}

/// Decodes the first `dst.len()` values of a dense LSB-first packed stream
/// of `F` (value `i` at bits `[i * F::BITS, (i + 1) * F::BITS)`, as
/// `NarrowArray::as_bytes` or a GPU buffer
/// holds them), by table. Needs no allocator.
///
/// # Errors
///
/// [`Error::TooFewBytes`] when `bytes` is shorter than `ceil(dst.len() *
/// F::BITS / 8)`; `dst` is unchanged.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M3, decode_packed};
///
/// // Four 6-bit codes in three bytes: 1.0 (0x08), 7.5 (0x1f), -1.0 (0x28), 0.
/// let bytes = [0xc8, 0x87, 0x02];
/// let mut out = [0.0f32; 4];
/// decode_packed::<E2M3>(&bytes, &mut out)?;
/// assert_eq!(out, [1.0, 7.5, -1.0, 0.0]);
/// assert!(decode_packed::<E2M3>(&bytes[..2], &mut out).is_err());
/// # Ok::<(), bitpack::Error>(())
/// ```
pub fn decode_packed<F: MiniFloat>(bytes: &[u8], dst: &mut [f32]) -> Result<()> {
    check_packed::<F>("decode_packed", dst.len(), bytes.len())?;
    decode_stream::<F>(bytes, dst);
    Ok(())
}

/// `Ok` when `bytes` bytes hold `n` packed values of `F`
/// (`ceil(n * F::BITS / 8)`), else [`Error::TooFewBytes`]. `n` counts the
/// elements of a slice of values of at least 2 bytes, so `n * 8` does not
/// overflow. `what` names the caller, for the message.
pub(super) fn check_packed<F: MiniFloat>(what: &'static str, n: usize, bytes: usize) -> Result<()> {
    let needed = (n * F::BITS as usize).div_ceil(8);
    if bytes < needed {
        return Err(Error::TooFewBytes {
            what,
            values: n,
            bits: F::BITS,
            needed,
            actual: bytes,
        });
    }
    Ok(())
}

/// Encodes every value of `src` into a new packed array (1-d, `src.len()`
/// values) with the given [`Mode`].
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, Mode, encode};
///
/// let a = encode::<E2M1>(&[1.0, -2.0, 7.0], Mode::Nearest);
/// assert_eq!(a.len(), 3);
/// // 1.0 is 0x2 (low nibble of byte 0), -2.0 is 0xc, 7.0 saturates to 6.0 = 0x7.
/// assert_eq!(a.as_bytes(), [0xc2, 0x07]);
/// ```
#[cfg(feature = "alloc")]
pub fn encode<F: MiniFloat>(src: &[f32], mode: Mode) -> NarrowArray<F> {
    let mut out = NarrowArray::zeroed(src.len());
    encode_words::<F>(src, mode, out.words_mut());
    out
}

/// Encodes `src` over values `0..src.len()` of `words` (which hold them),
/// split across threads by [`par`] at cuts of [`par::GRAIN`] values (whole
/// words at any width).
#[cfg(feature = "alloc")]
pub(crate) fn encode_words<F: MiniFloat>(src: &[f32], mode: Mode, words: &mut [u64]) {
    let bits = F::BITS as usize;
    let out = par::Out {
        slice: words,
        at: |u| u * bits / 64,
    };
    par::split(src.len(), src.len(), par::on_grain, out, |r, w, base| {
        let offset = r.start - base * 64 / bits;
        minifloat::encode_mode::<F>(&src[r], mode, w, offset);
    });
}

/// Decodes values `0..dst.len()` of `words` into `dst`, split across threads
/// by [`par`] (see [`encode_words`]).
#[cfg(feature = "alloc")]
pub(crate) fn decode_words<F: MiniFloat>(words: &[u64], dst: &mut [f32]) {
    let n = dst.len();
    let out = par::Out {
        slice: dst,
        at: |u| u,
    };
    par::split(n, n, par::on_grain, out, |r, d, _| {
        minifloat::decode_words::<F>(words, r.start, d, &Tables::<F>::DECODE_F32);
    });
}

/// Encodes `src` over every value of `dst`, which keeps its length and
/// shape.
///
/// # Errors
///
/// [`Error::Length`] when `src.len() != dst.len()`; `dst` is unchanged.
///
/// # Examples
///
/// ```
/// use bitpack::NarrowArray;
/// use bitpack::formats::{E4M3, Mode, encode_into};
///
/// let mut a = NarrowArray::<E4M3>::zeroed(2);
/// encode_into(&[1000.0, -0.5], Mode::SatFinite, &mut a)?;
/// assert_eq!(a.as_bytes(), [0x7e, 0xb0]);
/// assert!(encode_into(&[1.0], Mode::Nearest, &mut a).is_err());
/// # Ok::<(), bitpack::Error>(())
/// ```
#[cfg(feature = "alloc")]
pub fn encode_into<F: MiniFloat>(src: &[f32], mode: Mode, dst: &mut NarrowArray<F>) -> Result<()> {
    LengthOf::EncodeInput.check(dst.len(), src.len())?;
    // Every value is rewritten in place: the length, the shape and the zero
    // padding past the last value stay as they are.
    encode_words::<F>(src, mode, dst.words_mut());
    Ok(())
}

/// Decodes every value of `src` into `dst` (the same length), by table.
///
/// # Errors
///
/// [`Error::Length`] when `dst.len() != src.len()`; `dst` is unchanged.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E3M2, Mode, decode_into, encode};
///
/// let a = encode::<E3M2>(&[0.25, 13.0, -100.0], Mode::Nearest);
/// let mut out = [0.0f32; 3];
/// decode_into(&a, &mut out)?;
/// assert_eq!(out, [0.25, 12.0, -28.0]);
/// # Ok::<(), bitpack::Error>(())
/// ```
#[cfg(feature = "alloc")]
pub fn decode_into<F: MiniFloat>(src: &NarrowArray<F>, dst: &mut [f32]) -> Result<()> {
    LengthOf::DecodeOutput.check(src.len(), dst.len())?;
    decode_words::<F>(src.as_words(), dst);
    Ok(())
}

/// Decodes every value of `src` into a new `Vec<f32>`, by table.
///
/// # Examples
///
/// ```
/// use bitpack::formats::{E2M1, Mode, decode, encode};
///
/// let a = encode::<E2M1>(&[0.2, 0.3, 2.5, 5.0], Mode::Nearest);
/// assert_eq!(decode(&a), [0.0, 0.5, 2.0, 4.0]);
/// ```
#[cfg(feature = "alloc")]
pub fn decode<F: MiniFloat>(src: &NarrowArray<F>) -> Vec<f32> {
    let mut out = vec![0.0f32; src.len()];
    decode_words::<F>(src.as_words(), &mut out);
    out
}

/// The float decodes of a borrowed packed array (here, beside the owned
/// array's, because the containers sit below the formats).
#[cfg(feature = "alloc")]
impl<F: MiniFloat> crate::NarrowRef<'_, F> {
    /// Decodes every value into `dst` (the table decode of
    /// [`formats::decode_into`](crate::formats::decode_into)).
    ///
    /// # Errors
    ///
    /// [`Error::Length`] (naming both lengths) when `dst.len() != len`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{E2M1, NarrowRef};
    ///
    /// let a = NarrowRef::<E2M1>::from_bytes(&[0xc2, 0x07], 3)?;
    /// let mut out = [0.0; 3];
    /// a.decode_into(&mut out)?;
    /// assert_eq!(out, [1.0, -2.0, 6.0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn decode_into(&self, dst: &mut [f32]) -> Result<()> {
        crate::shape::check_len(LengthOf::DecodeOutput, self.len(), dst.len())?;
        decode_packed::<F>(self.as_bytes(), dst)
    }

    /// Decodes every value into a `Vec<f32>`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{E4M3, NarrowRef};
    ///
    /// let a = NarrowRef::<E4M3>::from_bytes(&[0x38, 0x7e], 2)?;
    /// assert_eq!(a.decode(), [1.0, 448.0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn decode(&self) -> Vec<f32> {
        let mut out = vec![0.0; self.len()];
        self.decode_into(&mut out)
            .expect("the buffer has the array's length");
        out
    }
}
