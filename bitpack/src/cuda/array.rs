//! [`DeviceNarrowArray`] and the element kernels on it: copies, pack and
//! unpack, the exact sum, and the float encode and decode.

use alloc::vec::Vec;
use core::marker::PhantomData;

use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};

use super::Gpu;
use super::launch::{
    DECODE_BF16, DECODE_F16, DECODE_F32, ENCODE_NEAREST, ENCODE_SATFINITE, PACK_U8, PACK_U32, SUM,
    SUM_PARTIALS, Threads, UNPACK_U8, UNPACK_U16, UNPACK_U32, by_width,
};
use crate::formats::{FloatFormat, MiniFloat, Mode};
use crate::kernels::{fixed, words_for};
use crate::{BitElement, Error, NarrowArray, Result, Unsigned, UnsignedElement};

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

/// A packed array in device memory: the dense LSB-first stream of `len`
/// values of `T`, as 64-bit words (the bytes of
/// [`NarrowArray::as_bytes`](crate::NarrowArray::as_bytes), padding zero).
#[derive(Debug)]
pub struct DeviceNarrowArray<T> {
    pub(super) words: CudaSlice<u64>,
    pub(super) len: usize,
    _type: PhantomData<fn() -> T>,
}

impl<T> DeviceNarrowArray<T> {
    pub(super) fn from_words(words: CudaSlice<u64>, len: usize) -> Self {
        DeviceNarrowArray {
            words,
            len,
            _type: PhantomData,
        }
    }
}

impl<T: BitElement> DeviceNarrowArray<T> {
    /// The number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no values.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device buffer of words (`ceil(len * T::BITS / 64)` of them, at
    /// least one), for launching your own kernels on it.
    pub fn words(&self) -> &CudaSlice<u64> {
        &self.words
    }
}

impl Gpu {
    /// Runs `entry`, one thread per unit of `units`, with the arguments
    /// `(a, n, b)` that every element kernel takes.
    ///
    /// # Safety
    ///
    /// `entry` takes (input buffer, value count, output buffer) as
    /// (pointer, u64, pointer), reads at most `a` and writes at most `b`
    /// for `n` values, which the caller sized them for.
    unsafe fn run_element<A: DeviceRepr, B: DeviceRepr>(
        &self,
        entry: &'static str,
        units: usize,
        a: &CudaSlice<A>,
        n: u64,
        b: &mut CudaSlice<B>,
    ) -> Result<()> {
        let mut launch = self.launch(entry, Threads::PerUnit(units))?;
        launch.arg(a).arg(&n).arg(b);
        // SAFETY: the caller's contract: the parameters are the entry's and
        // both buffers hold `n` values of its types.
        unsafe { launch.run() }
    }

    /// Copies a packed array to the device, as it is.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when the allocation or the copy fails.
    pub fn upload<T: BitElement>(&self, a: &NarrowArray<T>) -> Result<DeviceNarrowArray<T>> {
        let n = words_for(T::BITS, a.len());
        let mut host: Vec<u64> = a.as_words().iter().take(n).copied().collect();
        host.resize(n.max(1), 0);
        let words = self.htod(&host)?;
        Ok(DeviceNarrowArray::from_words(words, a.len()))
    }

    /// Copies a device array back into a packed host array.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when the copy fails; [`Error::NonZeroPadding`] if
    /// a kernel of yours left padding bits set.
    pub fn download<T: BitElement>(&self, a: &DeviceNarrowArray<T>) -> Result<NarrowArray<T>> {
        let words = self.dtoh(&a.words)?;
        let bytes: &[u8] = bytemuck::cast_slice(&words);
        NarrowArray::from_bytes(bytes, a.len)
    }

    /// Packs `values` on the device: their raw bits go up as `u8`s (up to 8
    /// bits) or `u32`s (9 to 32 bits) and the width's pack kernel writes the
    /// stream.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] for elements wider than 32 bits; [`Error::Device`]
    /// when a driver call fails.
    pub fn pack<T: BitElement>(&self, values: &[T]) -> Result<DeviceNarrowArray<T>> {
        let w = T::BITS;
        if w > 32 {
            return Err(Error::Width { width: w, max: 32 });
        }
        let mut words = self.alloc_words(w, values.len())?;
        if w <= 8 {
            let entry = by_width(&PACK_U8, 1, w, 32)?;
            self.pack_raw(values, entry, |r| r as u8, &mut words)?;
        } else {
            let entry = by_width(&PACK_U32, 9, w, 32)?;
            self.pack_raw(values, entry, |r| r as u32, &mut words)?;
        }
        Ok(DeviceNarrowArray::from_words(words, values.len()))
    }

    /// Uploads the raw bits of `values` as `R`s and runs the pack kernel
    /// `entry` from them into `words`.
    fn pack_raw<T: BitElement, R: DeviceRepr>(
        &self,
        values: &[T],
        entry: &'static str,
        narrow: impl Fn(u128) -> R,
        words: &mut CudaSlice<u64>,
    ) -> Result<()> {
        let raw: Vec<R> = values
            .iter()
            .map(|v| narrow(v.raw_bits().to_u128()))
            .collect();
        let src = self.htod(&raw)?;
        let units = values.len().div_ceil(fixed::block_elems(T::BITS));
        // SAFETY: `pack_*(src, n, words)` reads `n` raw values (`src` holds
        // them) and writes the words of `n` packed values of `T::BITS`
        // (`words` was allocated for them); one thread per word block.
        unsafe { self.run_element(entry, units, &src, values.len() as u64, words) }
    }

    /// Unpacks a device array on the device (to `u8`, `u16` or `u32` raw
    /// bits by width) and returns the values.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] for elements wider than 32 bits; [`Error::Device`]
    /// when a driver call fails.
    pub fn unpack<T: BitElement>(&self, a: &DeviceNarrowArray<T>) -> Result<Vec<T>> {
        let w = T::BITS;
        match w {
            1..=8 => self.unpack_as::<T, u8>(a, by_width(&UNPACK_U8, 1, w, 32)?),
            9..=16 => self.unpack_as::<T, u16>(a, by_width(&UNPACK_U16, 9, w, 32)?),
            17..=32 => self.unpack_as::<T, u32>(a, by_width(&UNPACK_U32, 17, w, 32)?),
            _ => Err(Error::Width { width: w, max: 32 }),
        }
    }

    /// The values of `a`, unpacked by `entry` to raw bits of type `U`.
    fn unpack_as<T: BitElement, U: DeviceRepr + ValidAsZeroBits + Into<u128>>(
        &self,
        a: &DeviceNarrowArray<T>,
        entry: &'static str,
    ) -> Result<Vec<T>> {
        let units = a.len.div_ceil(fixed::block_elems(T::BITS.min(64)));
        let raw = self.to_host::<U>(a.len, |out| {
            // SAFETY: `unpack_*(words, n, out)` reads the words of `n` packed
            // values (`a` holds them) and writes `n` raw values of `U`
            // (`out` holds them); one thread per word block.
            unsafe { self.run_element(entry, units, &a.words, a.len as u64, out) }
        })?;
        Ok(raw
            .into_iter()
            .map(|r| T::from_raw_bits(<T::Raw as Unsigned>::from_u128_truncate(r.into())))
            .collect())
    }

    /// The exact sum of an unsigned device array (1 to 32 bits): one partial
    /// per warp on the device, then one warp adds the partials.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] for elements wider than 32 bits,
    /// [`Error::SumOverflow`] when the sum could exceed a `u64`;
    /// [`Error::Device`] when a driver call fails.
    pub fn sum<T: UnsignedElement>(&self, a: &DeviceNarrowArray<T>) -> Result<u128> {
        let w = T::BITS;
        if w > 32 {
            return Err(Error::Width { width: w, max: 32 });
        }
        if (a.len as u128) * ((1u128 << w) - 1) > u64::MAX as u128 {
            return Err(Error::SumOverflow { index: 0 });
        }
        // Four blocks per thread (the kernels' `SUM_BLOCKS`).
        let threads = Threads::PerUnit(a.len.div_ceil(4 * fixed::block_elems(w)));
        if a.len == 0 {
            return Ok(0);
        }
        let warps = threads.warps();
        let mut partials = self.zeros::<u64>(warps)?;
        let n = a.len as u64;
        let mut launch = self.launch(by_width(&SUM, 1, w, 32)?, threads)?;
        launch.arg(&a.words).arg(&n).arg(&mut partials);
        // SAFETY: `sum_w*(words, n, partials)` reads the words of `n` packed
        // values (`a` holds them) and writes one `u64` per warp of the
        // launch, `warps` of them, which `partials` holds.
        unsafe { launch.run() }?;
        let total = self.to_host::<u64>(1, |total| {
            let n = warps as u64;
            let mut launch = self.launch(SUM_PARTIALS, Threads::OneWarp)?;
            launch.arg(&partials).arg(&n).arg(total);
            // SAFETY: `sum_partials(partials, n, out)` reads `n` values of
            // `partials` (allocated with `warps` values) and writes `out[0]`;
            // it is launched with exactly one warp, as it requires (lanes
            // past the first warp would not be harmless).
            unsafe { launch.run() }
        })?;
        Ok(total[0] as u128)
    }

    /// Encodes `src` on the device into a packed array of `F` (the kernels
    /// of the shipped formats; the packed `cvt` where the target has it, in
    /// [`Mode::SatFinite`]). The bits equal
    /// [`formats::encode`](crate::formats::encode)'s.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for a format without a kernel; [`Error::Device`]
    /// when a driver call fails.
    pub fn encode<F: MiniFloat>(&self, src: &[f32], mode: Mode) -> Result<DeviceNarrowArray<F>> {
        let f = format_index::<F>()?;
        let entry = match mode {
            Mode::Nearest => ENCODE_NEAREST[f],
            Mode::SatFinite => ENCODE_SATFINITE[f],
        };
        let input = self.htod(src)?;
        let mut words = self.alloc_words(F::BITS, src.len())?;
        let units = src.len().div_ceil(fixed::block_elems(F::BITS));
        // SAFETY: `encode_*(src, n, words)` reads `n` `f32`s (`input` holds
        // them) and writes the words of `n` packed values of `F` (`words`
        // was allocated for them); one thread per word block.
        unsafe { self.run_element(entry, units, &input, src.len() as u64, &mut words) }?;
        Ok(DeviceNarrowArray::from_words(words, src.len()))
    }

    /// The values of `a` decoded by `entry` to `O`s on the device.
    fn decode_to<F: MiniFloat, O: DeviceRepr + ValidAsZeroBits>(
        &self,
        a: &DeviceNarrowArray<F>,
        entry: &'static str,
    ) -> Result<Vec<O>> {
        let units = a.len.div_ceil(fixed::block_elems(F::BITS));
        self.to_host(a.len, |out| {
            // SAFETY: `decode_*(words, n, out)` reads the words of `n` packed
            // values of `F` (`a` holds them) and writes `n` values of `O`
            // (`out` holds them); one thread per word block.
            unsafe { self.run_element(entry, units, &a.words, a.len as u64, out) }
        })
    }

    /// Decodes a device array of `F` on the device to `f32` (the bits of
    /// [`formats::decode`](crate::formats::decode)).
    ///
    /// # Errors
    ///
    /// As [`encode`](Self::encode).
    pub fn decode<F: MiniFloat>(&self, a: &DeviceNarrowArray<F>) -> Result<Vec<f32>> {
        self.decode_to::<F, f32>(a, DECODE_F32[format_index::<F>()?])
    }

    /// Decodes a device array of `F` on the device to `f16` (exact: every
    /// value of E2M1, E2M3, E3M2, E4M3 and E5M2 is an `f16`).
    ///
    /// # Errors
    ///
    /// As [`encode`](Self::encode); [`Error::Invalid`] for E8M0, whose
    /// range `f16` does not hold.
    pub fn decode_f16<F: MiniFloat>(&self, a: &DeviceNarrowArray<F>) -> Result<Vec<half::f16>> {
        let Some(&entry) = DECODE_F16.get(format_index::<F>()?) else {
            return Err(Error::Invalid("E8M0 values do not fit in f16"));
        };
        let bits = self.decode_to::<F, u16>(a, entry)?;
        Ok(bits.into_iter().map(half::f16::from_bits).collect())
    }

    /// Decodes a device array of `F` on the device to `bf16` (exact, as
    /// [`decode_f16`](Self::decode_f16)).
    ///
    /// # Errors
    ///
    /// As [`decode_f16`](Self::decode_f16).
    pub fn decode_bf16<F: MiniFloat>(&self, a: &DeviceNarrowArray<F>) -> Result<Vec<half::bf16>> {
        let Some(&entry) = DECODE_BF16.get(format_index::<F>()?) else {
            return Err(Error::Invalid("the bf16 decode kernels cover E2M1..E5M2"));
        };
        let bits = self.decode_to::<F, u16>(a, entry)?;
        Ok(bits.into_iter().map(half::bf16::from_bits).collect())
    }
}

const _: () = assert!(DECODE_F16.len() == E8M0_INDEX && DECODE_BF16.len() == E8M0_INDEX);
