//! [`DeviceNarrowArray`] and the element kernels on it: copies, pack and
//! unpack, the exact sum, and the float encode and decode, each as a call
//! on device memory (`*_into`) and a host convenience on top.

use alloc::vec::Vec;
use core::marker::PhantomData;

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DeviceRepr, ValidAsZeroBits};

use super::Gpu;
use super::driver_error::driver;
use super::launch::{
    DECODE_BF16, DECODE_F16, DECODE_F32, ENCODE_NEAREST, ENCODE_NEAREST_BF16, ENCODE_NEAREST_F16,
    ENCODE_SATFINITE, ENCODE_SATFINITE_BF16, ENCODE_SATFINITE_F16, PACK_U8, PACK_U32, SUM,
    SUM_PARTIALS, UNPACK_U8, UNPACK_U16, UNPACK_U32, by_width, map,
};
use crate::formats::{FloatFormat, MiniFloat, Mode};
use crate::kernels::words_for;
use crate::shape::check_len;
use crate::{BitElement, Error, LengthOf, NarrowArray, Result, Unsigned, UnsignedElement};

/// The index of a shipped float format in the per-format kernel tables:
/// E2M1, E2M3, E3M2, E4M3, E5M2 (the MX element formats, 0 to 4), E8M0
/// (5).
pub(super) fn format_index<F: MiniFloat>() -> Result<usize> {
    const FORMATS: [FloatFormat; 6] = [
        FloatFormat::E2M1,
        FloatFormat::E2M3,
        FloatFormat::E3M2,
        FloatFormat::E4M3,
        FloatFormat::E5M2,
        FloatFormat::E8M0,
    ];
    FORMATS
        .iter()
        .position(|&g| g == F::FORMAT)
        .ok_or(Error::Invalid(
            "the GPU kernels cover E2M1, E2M3, E3M2, E4M3, E5M2 and E8M0 only",
        ))
}

/// The index of E8M0 in the per-format tables.
const E8M0_INDEX: usize = 5;

mod sealed {
    pub trait Sealed {}
}

/// A plain number type in device memory: every bit pattern is a value, so
/// a buffer of it may be allocated without being set ([`Gpu::alloc`]).
/// `u8`, `u16`, `u32`, `u64`, `f32`, `f16` and `bf16`.
pub trait DeviceRaw: DeviceRepr + ValidAsZeroBits + Copy + Default + sealed::Sealed {
    /// For an unsigned integer type (the raw bits of packed values: `u8`,
    /// `u16`, `u32`), its width; 0 for the others.
    #[doc(hidden)]
    const LANE_BITS: u32;
    /// The low 64 bits of an unsigned value (0 for the others).
    #[doc(hidden)]
    fn lane_to_u64(self) -> u64;
    /// For a float type (`f32`, `f16`, `bf16`), the decode kernel of
    /// format `f` (by [`format_index`]) to it.
    #[doc(hidden)]
    fn decode_entry(f: usize) -> Option<&'static str>;
    /// For a float type, the encode kernel of format `f` in `mode` from it.
    /// Only `f32` has them so far; the `encode_{fmt}_{mode}_f16` and
    /// `_bf16` entries go here once the PTX has them.
    #[doc(hidden)]
    fn encode_entry(f: usize, mode: Mode) -> Option<&'static str>;
}

macro_rules! device_raw {
    ($($t:ty: $bits:expr, $to:expr, $dec:expr, $enc:expr;)+) => {$(
        impl sealed::Sealed for $t {}
        impl DeviceRaw for $t {
            const LANE_BITS: u32 = $bits;
            fn lane_to_u64(self) -> u64 {
                $to(self)
            }
            fn decode_entry(f: usize) -> Option<&'static str> {
                $dec(f)
            }
            fn encode_entry(f: usize, mode: Mode) -> Option<&'static str> {
                $enc(f, mode)
            }
        }
    )+};
}

fn none(_: usize) -> Option<&'static str> {
    None
}

fn no_encode(_: usize, _: Mode) -> Option<&'static str> {
    None
}

fn encode_f32(f: usize, mode: Mode) -> Option<&'static str> {
    match mode {
        Mode::Nearest => ENCODE_NEAREST.get(f).copied(),
        Mode::SatFinite => ENCODE_SATFINITE.get(f).copied(),
    }
}

fn encode_f16(f: usize, mode: Mode) -> Option<&'static str> {
    match mode {
        Mode::Nearest => ENCODE_NEAREST_F16.get(f).copied(),
        Mode::SatFinite => ENCODE_SATFINITE_F16.get(f).copied(),
    }
}

fn encode_bf16(f: usize, mode: Mode) -> Option<&'static str> {
    match mode {
        Mode::Nearest => ENCODE_NEAREST_BF16.get(f).copied(),
        Mode::SatFinite => ENCODE_SATFINITE_BF16.get(f).copied(),
    }
}

device_raw! {
    u8: 8, u64::from, none, no_encode;
    u16: 16, u64::from, none, no_encode;
    u32: 32, u64::from, none, no_encode;
    u64: 0, |_| 0, none, no_encode;
    f32: 0, |_| 0, |f| DECODE_F32.get(f).copied(), encode_f32;
    half::f16: 0, |_| 0, |f| DECODE_F16.get(f).copied(), encode_f16;
    half::bf16: 0, |_| 0, |f| DECODE_BF16.get(f).copied(), encode_bf16;
}

/// A packed array in device memory: the dense LSB-first stream of `len`
/// values of `T` in 64-bit words, the bytes of
/// [`NarrowArray::as_bytes`](crate::NarrowArray::as_bytes) (value `i` at
/// bits `i * T::BITS ..` of the little-endian stream, the padding bits of
/// the last word zero).
///
/// It owns a [`CudaSlice<u64>`] of at least
/// [`words_len`](Self::words_len) words ([`from_words`](Self::from_words),
/// [`into_words`](Self::into_words)); words past those are never read or
/// written by the crate. [`as_view`](Self::as_view) and
/// [`as_view_mut`](Self::as_view_mut) give the words of the stream to
/// kernels of your own.
#[derive(Debug)]
pub struct DeviceNarrowArray<T> {
    pub(super) words: CudaSlice<u64>,
    pub(super) len: usize,
    _type: PhantomData<fn() -> T>,
}

impl<T> DeviceNarrowArray<T> {
    /// `words` as the array of `len` values, unchecked: the crate's own
    /// allocations, made for `len` values.
    pub(super) fn from_words_unchecked(words: CudaSlice<u64>, len: usize) -> Self {
        DeviceNarrowArray {
            words,
            len,
            _type: PhantomData,
        }
    }
}

impl<T: BitElement> DeviceNarrowArray<T> {
    /// The array of `len` values of `T` held in `words` (the stream's
    /// [`words_len`](Self::words_len) words first; more are allowed and
    /// left alone).
    ///
    /// # Errors
    ///
    /// [`Error::TooFewWords`] naming the words needed and given.
    pub fn from_words(words: CudaSlice<u64>, len: usize) -> Result<Self> {
        let needed = words_for(T::BITS, len);
        if words.len() < needed {
            return Err(Error::TooFewWords {
                needed,
                actual: words.len(),
            });
        }
        Ok(DeviceNarrowArray::from_words_unchecked(words, len))
    }

    /// The device buffer, given back.
    pub fn into_words(self) -> CudaSlice<u64> {
        self.words
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no values.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of words of the stream: `ceil(len * T::BITS / 64)`.
    pub fn words_len(&self) -> usize {
        words_for(T::BITS, self.len)
    }

    /// The whole device buffer (at least [`words_len`](Self::words_len)
    /// words).
    pub fn words(&self) -> &CudaSlice<u64> {
        &self.words
    }

    /// The words of the stream, to read in a kernel of your own.
    pub fn as_view(&self) -> CudaView<'_, u64> {
        self.words.slice(..self.words_len())
    }

    /// The words of the stream, to write in a kernel of your own (keep the
    /// padding bits past the last value zero: [`Gpu::download`] checks
    /// them).
    pub fn as_view_mut(&mut self) -> CudaViewMut<'_, u64> {
        let n = self.words_len();
        self.words.slice_mut(..n)
    }
}

/// The error for a raw lane type `R` that is not the one the kernels of
/// width `w` use.
fn lane_error(what: &'static str) -> Error {
    Error::Invalid(what)
}

impl Gpu {
    /// A device array of `len` values of `T`, its words not set: the output
    /// of [`pack_into`](Self::pack_into), [`encode_into`](Self::encode_into),
    /// ..., which write every word of the stream. (Its words are `u64`s,
    /// which every bit pattern is, so an array no kernel wrote yet is
    /// sound to read, only meaningless: [`download`](Self::download) may
    /// find padding bits set.)
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when the allocation fails.
    pub fn alloc_narrow<T: BitElement>(&self, len: usize) -> Result<DeviceNarrowArray<T>> {
        let words = self.alloc::<u64>(words_for(T::BITS, len))?;
        Ok(DeviceNarrowArray::from_words_unchecked(words, len))
    }

    /// Copies a packed array to the device, as it is.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when the allocation or the copy fails.
    pub fn upload<T: BitElement>(&self, a: &NarrowArray<T>) -> Result<DeviceNarrowArray<T>> {
        let n = words_for(T::BITS, a.len());
        let words = self.htod(&a.as_words()[..n])?;
        Ok(DeviceNarrowArray::from_words_unchecked(words, a.len()))
    }

    /// Copies a device array back into a packed host array (waits for the
    /// stream).
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when the copy fails; [`Error::NonZeroPadding`] if
    /// a kernel of yours left padding bits set.
    pub fn download<T: BitElement>(&self, a: &DeviceNarrowArray<T>) -> Result<NarrowArray<T>> {
        let words = self.dtoh(&a.words, a.words_len())?;
        let bytes: &[u8] = bytemuck::cast_slice(&words);
        NarrowArray::from_bytes(bytes, a.len)
    }

    /// The pack kernel of width `w` and the lane width it reads.
    fn pack_entry(w: u32) -> Result<(&'static str, u32)> {
        match w {
            1..=8 => Ok((by_width(&PACK_U8, 1, w, 32)?, 8)),
            9..=32 => Ok((by_width(&PACK_U32, 9, w, 32)?, 32)),
            _ => Err(Error::Width { width: w, max: 32 }),
        }
    }

    /// The unpack kernel of width `w` and the lane width it writes.
    fn unpack_entry(w: u32) -> Result<(&'static str, u32)> {
        match w {
            1..=8 => Ok((by_width(&UNPACK_U8, 1, w, 32)?, 8)),
            9..=16 => Ok((by_width(&UNPACK_U16, 9, w, 32)?, 16)),
            17..=32 => Ok((by_width(&UNPACK_U32, 17, w, 32)?, 32)),
            _ => Err(Error::Width { width: w, max: 32 }),
        }
    }

    /// Packs raw values in device memory into `out`: `src[i]`'s low
    /// `T::BITS` bits become value `i`. The raw values are `u8`s for
    /// elements of up to 8 bits and `u32`s for 9 to 32 bits. Capturable.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] for elements wider than 32 bits;
    /// [`Error::Invalid`] for another raw type `R`; [`Error::Length`]
    /// (`PackSource`) unless `src` has `out.len()` values;
    /// [`Error::Device`] when the launch fails.
    pub fn pack_into<T: BitElement, R: DeviceRaw>(
        &self,
        src: &CudaView<'_, R>,
        out: &mut DeviceNarrowArray<T>,
    ) -> Result<()> {
        let (entry, lane) = Gpu::pack_entry(T::BITS)?;
        if R::LANE_BITS != lane {
            return Err(lane_error(
                "the pack kernels read u8 raw values for widths 1..=8, u32 for 9..=32",
            ));
        }
        check_len(LengthOf::PackSource, out.len, src.len())?;
        let n = out.len as u64;
        let mut launch = self.launch(entry, map::word_blocks(T::BITS, out.len))?;
        launch.arg(src).arg(&n).arg(&mut out.words);
        // SAFETY: `pack_*(src, n, words)` reads `n` raw values (`src` has
        // them, checked) and writes the `words_for(W, n)` words of `n`
        // packed values (`out.words` holds at least those, an invariant of
        // `DeviceNarrowArray`); one thread per word block.
        unsafe { launch.run() }
    }

    /// Packs `values` on the device: their raw bits go up as `u8`s (up to 8
    /// bits) or `u32`s (9 to 32 bits) and [`pack_into`](Self::pack_into)
    /// writes the stream.
    ///
    /// # Errors
    ///
    /// As [`pack_into`](Self::pack_into).
    pub fn pack<T: BitElement>(&self, values: &[T]) -> Result<DeviceNarrowArray<T>> {
        let (_, lane) = Gpu::pack_entry(T::BITS)?;
        let mut out = self.alloc_narrow::<T>(values.len())?;
        let raw = |v: &T| v.raw_bits().to_u128();
        if lane == 8 {
            let host: Vec<u8> = values.iter().map(|v| raw(v) as u8).collect();
            let src = self.htod(&host)?;
            self.pack_into(&src.slice(..values.len()), &mut out)?;
        } else {
            let host: Vec<u32> = values.iter().map(|v| raw(v) as u32).collect();
            let src = self.htod(&host)?;
            self.pack_into(&src.slice(..values.len()), &mut out)?;
        }
        Ok(out)
    }

    /// Unpacks a device array into raw values in device memory: `out[i]`
    /// is value `i`'s bits, as `u8` (widths 1 to 8), `u16` (9 to 16) or
    /// `u32` (17 to 32). Capturable.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] for elements wider than 32 bits;
    /// [`Error::Invalid`] for another raw type `R`; [`Error::Length`]
    /// (`UnpackOutput`) unless `out` holds `a.len()` values;
    /// [`Error::Device`] when the launch fails.
    pub fn unpack_into<T: BitElement, R: DeviceRaw>(
        &self,
        a: &DeviceNarrowArray<T>,
        out: &mut CudaViewMut<'_, R>,
    ) -> Result<()> {
        let (entry, lane) = Gpu::unpack_entry(T::BITS)?;
        if R::LANE_BITS != lane {
            return Err(lane_error(
                "the unpack kernels write u8 raw values for widths 1..=8, u16 for 9..=16, \
                 u32 for 17..=32",
            ));
        }
        check_len(LengthOf::UnpackOutput, a.len, out.len())?;
        let n = a.len as u64;
        let mut launch = self.launch(entry, map::word_blocks(T::BITS, a.len))?;
        launch.arg(&a.words).arg(&n).arg(out);
        // SAFETY: `unpack_*(words, n, out)` reads the words of `n` packed
        // values (`a` holds them) and writes `n` raw values of the lane
        // type (`out` is of that type, checked, and holds `n`); one thread
        // per word block.
        unsafe { launch.run() }
    }

    /// Unpacks a device array on the device and returns the values (waits
    /// for the stream).
    ///
    /// # Errors
    ///
    /// As [`unpack_into`](Self::unpack_into).
    pub fn unpack<T: BitElement>(&self, a: &DeviceNarrowArray<T>) -> Result<Vec<T>> {
        let (_, lane) = Gpu::unpack_entry(T::BITS)?;
        match lane {
            8 => self.unpack_host::<T, u8>(a),
            16 => self.unpack_host::<T, u16>(a),
            _ => self.unpack_host::<T, u32>(a),
        }
    }

    /// The values of `a`, unpacked to raw lanes `R` and copied back.
    fn unpack_host<T: BitElement, R: DeviceRaw>(&self, a: &DeviceNarrowArray<T>) -> Result<Vec<T>> {
        let mut raw = self.alloc::<R>(a.len)?;
        self.unpack_into(a, &mut raw.slice_mut(..a.len))?;
        Ok(self
            .dtoh(&raw, a.len)?
            .into_iter()
            .map(|r| {
                T::from_raw_bits(<T::Raw as Unsigned>::from_u128_truncate(
                    r.lane_to_u64().into(),
                ))
            })
            .collect())
    }

    /// The `u64`s of scratch that [`sum_into`](Self::sum_into) needs for
    /// `len` values of `T` (one partial per warp of its launch).
    pub fn sum_scratch_len<T: UnsignedElement>(&self, len: usize) -> usize {
        map::sum(T::BITS, len).warps()
    }

    /// The exact sum of an unsigned device array (1 to 32 bits) into
    /// `out[0]`, on the device: one partial per warp into `scratch` (at
    /// least [`sum_scratch_len`](Self::sum_scratch_len) values), then one
    /// warp adds them. Capturable.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] for elements wider than 32 bits;
    /// [`Error::SumOverflow`] when the sum could exceed a `u64`;
    /// [`Error::Length`] (`AxisSumOutput`) unless `out` holds one value;
    /// [`Error::TooFewWords`] for a short `scratch`; [`Error::Device`] when
    /// a launch fails.
    pub fn sum_into<T: UnsignedElement>(
        &self,
        a: &DeviceNarrowArray<T>,
        scratch: &mut CudaViewMut<'_, u64>,
        out: &mut CudaViewMut<'_, u64>,
    ) -> Result<()> {
        let w = T::BITS;
        if w > 32 {
            return Err(Error::Width { width: w, max: 32 });
        }
        if (a.len as u128) * ((1u128 << w) - 1) > u64::MAX as u128 {
            return Err(Error::SumOverflow { index: 0 });
        }
        check_len(LengthOf::AxisSumOutput, 1, out.len())?;
        let threads = map::sum(w, a.len);
        let warps = threads.warps();
        if scratch.len() < warps {
            return Err(Error::TooFewWords {
                needed: warps,
                actual: scratch.len(),
            });
        }
        if a.len == 0 {
            return self
                .stream
                .memset_zeros(out)
                .map_err(driver("cuMemsetD8Async"));
        }
        let n = a.len as u64;
        let mut launch = self.launch(by_width(&SUM, 1, w, 32)?, threads)?;
        launch.arg(&a.words).arg(&n).arg(&mut *scratch);
        // SAFETY: `sum_w*(words, n, partials)` reads the words of `n` packed
        // values (`a` holds them) and writes one `u64` per warp of the
        // launch, `warps` of them, which `scratch` holds (checked).
        unsafe { launch.run() }?;
        let nw = warps as u64;
        let partials = scratch.as_view();
        let mut launch = self.launch(SUM_PARTIALS, map::sum_partials())?;
        launch.arg(&partials).arg(&nw).arg(out);
        // SAFETY: `sum_partials(partials, n, out)` reads `n` = `warps`
        // values of `scratch` and writes `out[0]` (`out` holds one); it is
        // launched with exactly one warp, as it requires.
        unsafe { launch.run() }
    }

    /// The exact sum of an unsigned device array (1 to 32 bits), computed
    /// on the device and read back (waits for the stream).
    ///
    /// # Errors
    ///
    /// As [`sum_into`](Self::sum_into).
    pub fn sum<T: UnsignedElement>(&self, a: &DeviceNarrowArray<T>) -> Result<u128> {
        if T::BITS > 32 {
            return Err(Error::Width {
                width: T::BITS,
                max: 32,
            });
        }
        let mut scratch = self.alloc::<u64>(self.sum_scratch_len::<T>(a.len))?;
        let mut total = self.alloc::<u64>(1)?;
        let n = scratch.len();
        self.sum_into(a, &mut scratch.slice_mut(..n), &mut total.slice_mut(..1))?;
        Ok(self.dtoh(&total, 1)?[0] as u128)
    }

    /// Encodes floats in device memory into `out` (the kernels of the
    /// shipped formats; the packed `cvt` where the target has it, in
    /// [`Mode::SatFinite`]): the bits of
    /// [`formats::encode`](crate::formats::encode). The source is `f32`,
    /// or `half::f16`/`half::bf16` for every format but E8M0 (the codes of
    /// the same values as `f32`, which hold them exactly). Capturable.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for a format or source type without a kernel;
    /// [`Error::Length`] (`EncodeInput`) unless `src` has `out.len()`
    /// values; [`Error::Device`] when the launch fails.
    pub fn encode_into<F: MiniFloat, S: DeviceRaw>(
        &self,
        src: &CudaView<'_, S>,
        mode: Mode,
        out: &mut DeviceNarrowArray<F>,
    ) -> Result<()> {
        let Some(entry) = S::encode_entry(format_index::<F>()?, mode) else {
            return Err(Error::Invalid(
                "the GPU encode kernels read f32, f16 or bf16 values (E8M0 only from f32)",
            ));
        };
        check_len(LengthOf::EncodeInput, out.len, src.len())?;
        let n = out.len as u64;
        let mut launch = self.launch(entry, map::word_blocks(F::BITS, out.len))?;
        launch.arg(src).arg(&n).arg(&mut out.words);
        // SAFETY: `encode_*(src, n, words)` reads `n` values of `S` (the
        // entry is `S`'s, and `src` holds `n`, checked) and writes the
        // words of `n` packed values of `F` (`out.words` holds them); one
        // thread per word block.
        unsafe { launch.run() }
    }

    /// Encodes `src` on the device into a packed array of `F`: uploads,
    /// [`encode_into`](Self::encode_into) a new array.
    ///
    /// # Errors
    ///
    /// As [`encode_into`](Self::encode_into).
    pub fn encode<F: MiniFloat>(&self, src: &[f32], mode: Mode) -> Result<DeviceNarrowArray<F>> {
        format_index::<F>()?;
        let input = self.htod(src)?;
        let mut out = self.alloc_narrow::<F>(src.len())?;
        self.encode_into(&input.slice(..src.len()), mode, &mut out)?;
        Ok(out)
    }

    /// Decodes a device array of `F` into floats in device memory: `f32`
    /// (the bits of [`formats::decode`](crate::formats::decode)), or `f16`
    /// or `bf16` (exact: every value of E2M1, E2M3, E3M2, E4M3 and E5M2 is
    /// one; E8M0 decodes to `f32` only). Capturable.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for a format or output type without a kernel;
    /// [`Error::Length`] (`DecodeOutput`) unless `out` holds `a.len()`
    /// values; [`Error::Device`] when the launch fails.
    pub fn decode_into<F: MiniFloat, O: DeviceRaw>(
        &self,
        a: &DeviceNarrowArray<F>,
        out: &mut CudaViewMut<'_, O>,
    ) -> Result<()> {
        let Some(entry) = O::decode_entry(format_index::<F>()?) else {
            return Err(Error::Invalid(
                "the GPU decode kernels write f32, f16 or bf16 (E8M0: f32 only)",
            ));
        };
        check_len(LengthOf::DecodeOutput, a.len, out.len())?;
        let n = a.len as u64;
        let mut launch = self.launch(entry, map::word_blocks(F::BITS, a.len))?;
        launch.arg(&a.words).arg(&n).arg(out);
        // SAFETY: `decode_*(words, n, out)` reads the words of `n` packed
        // values of `F` (`a` holds them) and writes `n` values of `O` (the
        // entry is `O`'s, and `out` holds `n`, checked); one thread per
        // word block.
        unsafe { launch.run() }
    }

    /// The values of `a` decoded to `O` on the device, copied back.
    fn decode_host<F: MiniFloat, O: DeviceRaw>(&self, a: &DeviceNarrowArray<F>) -> Result<Vec<O>> {
        let mut out = self.alloc::<O>(a.len)?;
        self.decode_into(a, &mut out.slice_mut(..a.len))?;
        self.dtoh(&out, a.len)
    }

    /// Decodes a device array of `F` on the device to `f32` (waits for the
    /// stream).
    ///
    /// # Errors
    ///
    /// As [`decode_into`](Self::decode_into).
    pub fn decode<F: MiniFloat>(&self, a: &DeviceNarrowArray<F>) -> Result<Vec<f32>> {
        self.decode_host::<F, f32>(a)
    }

    /// Decodes a device array of `F` on the device to `f16`.
    ///
    /// # Errors
    ///
    /// As [`decode_into`](Self::decode_into); [`Error::Invalid`] for E8M0,
    /// whose range `f16` does not hold.
    pub fn decode_f16<F: MiniFloat>(&self, a: &DeviceNarrowArray<F>) -> Result<Vec<half::f16>> {
        self.decode_host::<F, half::f16>(a)
    }

    /// Decodes a device array of `F` on the device to `bf16`.
    ///
    /// # Errors
    ///
    /// As [`decode_f16`](Self::decode_f16).
    pub fn decode_bf16<F: MiniFloat>(&self, a: &DeviceNarrowArray<F>) -> Result<Vec<half::bf16>> {
        self.decode_host::<F, half::bf16>(a)
    }
}

const _: () = assert!(DECODE_F16.len() == E8M0_INDEX && DECODE_BF16.len() == E8M0_INDEX);
