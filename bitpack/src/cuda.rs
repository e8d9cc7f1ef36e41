//! GPU arrays and the crate's kernels on the GPU (feature `cuda`).
//!
//! [`Gpu`] opens a device through [`cudarc`] (the driver is loaded at run
//! time, so this builds and links without CUDA), loads the crate's embedded
//! PTX for the device (the best of the committed builds it runs: `sm_100a`
//! on compute capability 10.0, else `sm_90` from 9.0, else `sm_80` from
//! 8.0), and runs the `bitpack-ptx` kernels on [`DeviceNarrowArray`]s,
//! which hold the same dense LSB-first byte stream as a
//! [`NarrowArray`].
//!
//! MX and NVFP4 quantize and dequantize on the device too
//! ([`Gpu::mx_quantize`], [`Gpu::nvfp4_quantize`], with the host's options):
//! a scale kernel (one thread per block) and an encode kernel built on the
//! device-callable block core of [`formats`](crate::formats), so
//! [`Gpu::download_mx`] gives the bytes of
//! [`MxArray::quantize_with`](crate::formats::MxArray::quantize_with).
//!
//! Without a driver, without a device, or on a device older than 8.0, every
//! call returns [`Error::Device`] saying which; nothing panics.
//!
//! ```no_run
//! use bitpack::cuda::Gpu;
//! use bitpack::formats::{E2M1, Mode};
//! use bitpack::NarrowArray;
//!
//! let gpu = Gpu::new(0)?;
//! let x: Vec<f32> = (0..4096).map(|i| (i as f32 - 2048.0) / 256.0).collect();
//! let packed = gpu.encode::<E2M1>(&x, Mode::SatFinite)?; // on the device
//! let host: NarrowArray<E2M1> = gpu.download(&packed)?;
//! assert_eq!(host, bitpack::formats::encode::<E2M1>(&x, Mode::SatFinite));
//! assert_eq!(gpu.decode(&packed)?, bitpack::formats::decode(&host));
//! # Ok::<(), bitpack::Error>(())
//! ```

use alloc::format;
use alloc::vec::Vec;
use core::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaModule, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use crate::formats::{
    BlockGrid, E2M1, E4M3, E8M0, FloatFormat, MiniFloat, Mode, MxArray, MxElement, MxOptions,
    Nvfp4Array, Nvfp4Blocks, Nvfp4Options, Rounding, ScaleRule, TinyScale,
};
use crate::kernels::{fixed, words_for};
use crate::{BitElement, Error, NarrowArray, Result, Unsigned, UnsignedElement};

/// The committed PTX builds: target, the compute capabilities it runs on,
/// and the text.
const BUILDS: [(&str, (i32, i32), bool, &str); 3] = [
    // Architecture-specific: runs on exactly 10.0.
    (
        "sm_100a",
        (10, 0),
        true,
        include_str!("../ptx/bitpack-sm_100a.ptx"),
    ),
    (
        "sm_90",
        (9, 0),
        false,
        include_str!("../ptx/bitpack-sm_90.ptx"),
    ),
    (
        "sm_80",
        (8, 0),
        false,
        include_str!("../ptx/bitpack-sm_80.ptx"),
    ),
];

/// The committed build for a device of compute capability `cc`: the first
/// of [`BUILDS`] it can run.
pub(crate) fn build_for(cc: (i32, i32)) -> Option<(&'static str, &'static str)> {
    BUILDS
        .iter()
        .find(|(_, min, exact, _)| if *exact { cc == *min } else { cc >= *min })
        .map(|&(t, _, _, text)| (t, text))
}

/// Threads per CTA of every launch.
const THREADS: u32 = 256;

fn driver(call: &'static str) -> impl Fn(DriverError) -> Error {
    move |e| Error::Device {
        call,
        code: Some(e.0 as u32),
    }
}

/// The kernel name of a shipped float format (`"e2m1"`, ...).
fn format_name<F: MiniFloat>() -> Result<&'static str> {
    let f = F::FORMAT;
    let names = [
        (FloatFormat::E2M1, "e2m1"),
        (FloatFormat::E2M3, "e2m3"),
        (FloatFormat::E3M2, "e3m2"),
        (FloatFormat::E4M3, "e4m3"),
        (FloatFormat::E5M2, "e5m2"),
        (FloatFormat::E8M0, "e8m0"),
    ];
    names
        .iter()
        .find(|(g, _)| *g == f)
        .map(|&(_, n)| n)
        .ok_or(Error::Invalid(
            "the GPU kernels cover E2M1, E2M3, E3M2, E4M3, E5M2 and E8M0 only",
        ))
}

/// A packed array in device memory: the dense LSB-first stream of `len`
/// values of `T`, as 64-bit words (the bytes of
/// [`NarrowArray::as_bytes`](crate::NarrowArray::as_bytes), padding zero).
#[derive(Debug)]
pub struct DeviceNarrowArray<T> {
    words: CudaSlice<u64>,
    len: usize,
    _type: PhantomData<fn() -> T>,
}

impl<T> DeviceNarrowArray<T> {
    fn from_words(words: CudaSlice<u64>, len: usize) -> Self {
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

/// One CUDA device with the crate's kernels loaded.
#[derive(Debug)]
pub struct Gpu {
    stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    target: &'static str,
    capability: (i32, i32),
}

impl Gpu {
    /// Opens device `ordinal` and loads the PTX build it runs best.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when the CUDA driver library cannot be loaded
    /// (`code: None`), when a driver call fails (no such device, ...), or
    /// when the device is older than compute capability 8.0.
    pub fn new(ordinal: usize) -> Result<Gpu> {
        // SAFETY: `is_culib_present` only tries to open the driver library
        // by its usual names (libloading), which has no precondition.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(Error::Device {
                call: "loading the CUDA driver library (libcuda.so / nvcuda.dll)",
                code: None,
            });
        }
        let ctx =
            CudaContext::new(ordinal).map_err(driver("cuInit / cuDeviceGet / cuCtxCreate"))?;
        let capability = ctx
            .compute_capability()
            .map_err(driver("cuDeviceGetAttribute (compute capability)"))?;
        let Some((target, text)) = build_for(capability) else {
            return Err(Error::Device {
                call: "choosing a PTX build: the kernels need compute capability 8.0 or newer",
                code: None,
            });
        };
        let module = ctx
            .load_module(Ptx::from_src(text))
            .map_err(driver("cuModuleLoadData (the embedded PTX)"))?;
        Ok(Gpu {
            stream: ctx.default_stream(),
            module,
            target,
            capability,
        })
    }

    /// The committed PTX build that a device of compute capability
    /// `(major, minor)` loads: `sm_100a` on exactly 10.0 (architecture-
    /// specific code runs nowhere else), else `sm_90` from 9.0, else
    /// `sm_80` from 8.0; `None` below 8.0.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::cuda::Gpu;
    /// assert_eq!(Gpu::target_for((10, 0)), Some("sm_100a"));
    /// assert_eq!(Gpu::target_for((12, 0)), Some("sm_90"));
    /// assert_eq!(Gpu::target_for((7, 5)), None);
    /// ```
    pub fn target_for(capability: (i32, i32)) -> Option<&'static str> {
        build_for(capability).map(|b| b.0)
    }

    /// The PTX text of a committed build (`"sm_80"`, `"sm_90"`, `"sm_100a"`).
    pub fn ptx(target: &str) -> Option<&'static str> {
        BUILDS.iter().find(|b| b.0 == target).map(|b| b.3)
    }

    /// The PTX build loaded: `"sm_100a"`, `"sm_90"` or `"sm_80"`.
    pub fn target(&self) -> &'static str {
        self.target
    }

    /// The device's compute capability `(major, minor)`.
    pub fn compute_capability(&self) -> (i32, i32) {
        self.capability
    }

    fn alloc_words(&self, width: u32, len: usize) -> Result<CudaSlice<u64>> {
        self.stream
            .alloc_zeros::<u64>(words_for(width, len).max(1))
            .map_err(driver("cuMemAlloc"))
    }

    /// Runs `name` over `units` blocks of work with `(a, n, b)` arguments.
    fn launch<A: cudarc::driver::DeviceRepr, B: cudarc::driver::DeviceRepr>(
        &self,
        name: &str,
        units: usize,
        a: &CudaSlice<A>,
        n: u64,
        b: &mut CudaSlice<B>,
    ) -> Result<()> {
        if units == 0 {
            return Ok(());
        }
        let f = self
            .module
            .load_function(name)
            .map_err(driver("cuModuleGetFunction"))?;
        let grid = units.div_ceil(THREADS as usize);
        let grid =
            u32::try_from(grid).map_err(|_| Error::Invalid("too many values for one launch"))?;
        let cfg = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut args = self.stream.launch_builder(&f);
        args.arg(a).arg(&n).arg(b);
        // SAFETY: every kernel of the embedded PTX takes (input buffer, value
        // count, output buffer) as (pointer, u64, pointer), reads at most the
        // input for `n` values and writes at most the output for `n` values;
        // the callers size both buffers for `n` values of the kernel's types.
        unsafe { args.launch(cfg) }.map_err(driver("cuLaunchKernel"))?;
        Ok(())
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
        let words = self
            .stream
            .clone_htod(&host)
            .map_err(driver("cuMemcpyHtoD"))?;
        Ok(DeviceNarrowArray::from_words(words, a.len()))
    }

    /// Copies a device array back into a packed host array.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when the copy fails; [`Error::NonZeroPadding`] if
    /// a kernel of yours left padding bits set.
    pub fn download<T: BitElement>(&self, a: &DeviceNarrowArray<T>) -> Result<NarrowArray<T>> {
        let words = self
            .stream
            .clone_dtoh(&a.words)
            .map_err(driver("cuMemcpyDtoH"))?;
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
            self.pack_raw(values, &format!("pack_u8_w{w}"), |r| r as u8, &mut words)?;
        } else {
            self.pack_raw(values, &format!("pack_u32_w{w}"), |r| r as u32, &mut words)?;
        }
        Ok(DeviceNarrowArray::from_words(words, values.len()))
    }

    /// Uploads the raw bits of `values` as `R`s and runs the pack kernel
    /// `name` from them into `words`.
    fn pack_raw<T: BitElement, R: cudarc::driver::DeviceRepr>(
        &self,
        values: &[T],
        name: &str,
        narrow: impl Fn(u128) -> R,
        words: &mut CudaSlice<u64>,
    ) -> Result<()> {
        let raw: Vec<R> = values
            .iter()
            .map(|v| narrow(v.raw_bits().to_u128()))
            .collect();
        let src = self
            .stream
            .clone_htod(&raw)
            .map_err(driver("cuMemcpyHtoD"))?;
        let units = values.len().div_ceil(fixed::block_elems(T::BITS));
        self.launch(name, units, &src, values.len() as u64, words)
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
        let units = a.len.div_ceil(fixed::block_elems(w.min(64)));
        let n = a.len as u64;
        macro_rules! run {
            ($u:ty, $name:expr) => {{
                let mut out = self
                    .stream
                    .alloc_zeros::<$u>(a.len.max(1))
                    .map_err(driver("cuMemAlloc"))?;
                self.launch(&$name, units, &a.words, n, &mut out)?;
                let raw = self
                    .stream
                    .clone_dtoh(&out)
                    .map_err(driver("cuMemcpyDtoH"))?;
                raw.iter()
                    .take(a.len)
                    .map(|&r| T::from_raw_bits(<T::Raw as Unsigned>::from_u128_truncate(r as u128)))
                    .collect()
            }};
        }
        Ok(match w {
            1..=8 => run!(u8, format!("unpack_u8_w{w}")),
            9..=16 => run!(u16, format!("unpack_u16_w{w}")),
            17..=32 => run!(u32, format!("unpack_u32_w{w}")),
            _ => return Err(Error::Width { width: w, max: 32 }),
        })
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
        let threads = a.len.div_ceil(4 * fixed::block_elems(w));
        if threads == 0 {
            return Ok(0);
        }
        let warps = threads.div_ceil(THREADS as usize) * (THREADS as usize / 32);
        let mut partials = self
            .stream
            .alloc_zeros::<u64>(warps)
            .map_err(driver("cuMemAlloc"))?;
        self.launch(
            &format!("sum_w{w}"),
            threads,
            &a.words,
            a.len as u64,
            &mut partials,
        )?;
        let mut total = self
            .stream
            .alloc_zeros::<u64>(1)
            .map_err(driver("cuMemAlloc"))?;
        // One CTA of 32 threads: `launch` rounds 1 unit up to one CTA of
        // 256, and `sum_partials` lets lanes past the first warp do nothing
        // harmful only if they exit; so launch it exactly.
        let f = self
            .module
            .load_function("sum_partials")
            .map_err(driver("cuModuleGetFunction"))?;
        let cfg = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (32, 1, 1),
            shared_mem_bytes: 0,
        };
        let n = warps as u64;
        let mut args = self.stream.launch_builder(&f);
        args.arg(&partials).arg(&n).arg(&mut total);
        // SAFETY: `sum_partials(partials, n, out)` reads `n` values of
        // `partials` (allocated with `warps` values) and writes `out[0]`;
        // it is launched with one warp, as it requires.
        unsafe { args.launch(cfg) }.map_err(driver("cuLaunchKernel"))?;
        let t = self
            .stream
            .clone_dtoh(&total)
            .map_err(driver("cuMemcpyDtoH"))?;
        Ok(t[0] as u128)
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
        let name = format_name::<F>()?;
        let mode = match mode {
            Mode::Nearest => "nearest",
            Mode::SatFinite => "satfinite",
        };
        let input = self
            .stream
            .clone_htod(src)
            .map_err(driver("cuMemcpyHtoD"))?;
        let mut words = self.alloc_words(F::BITS, src.len())?;
        let units = src.len().div_ceil(fixed::block_elems(F::BITS));
        self.launch(
            &format!("encode_{name}_{mode}"),
            units,
            &input,
            src.len() as u64,
            &mut words,
        )?;
        Ok(DeviceNarrowArray::from_words(words, src.len()))
    }

    fn decode_to<F: MiniFloat, O: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
        &self,
        a: &DeviceNarrowArray<F>,
        suffix: &str,
    ) -> Result<Vec<O>> {
        let name = format_name::<F>()?;
        let units = a.len.div_ceil(fixed::block_elems(F::BITS));
        self.to_host(a.len, |out| {
            let name = format!("decode_{name}_{suffix}");
            self.launch(&name, units, &a.words, a.len as u64, out)
        })
    }

    /// Decodes a device array of `F` on the device to `f32` (the bits of
    /// [`formats::decode`](crate::formats::decode)).
    ///
    /// # Errors
    ///
    /// As [`encode`](Self::encode).
    pub fn decode<F: MiniFloat>(&self, a: &DeviceNarrowArray<F>) -> Result<Vec<f32>> {
        self.decode_to::<F, f32>(a, "f32")
    }

    /// Decodes a device array of `F` on the device to `f16` (exact: every
    /// value of E2M1, E2M3, E3M2, E4M3 and E5M2 is an `f16`).
    ///
    /// # Errors
    ///
    /// As [`encode`](Self::encode); [`Error::Invalid`] for E8M0, whose
    /// range `f16` does not hold.
    pub fn decode_f16<F: MiniFloat>(&self, a: &DeviceNarrowArray<F>) -> Result<Vec<half::f16>> {
        if format_name::<F>()? == "e8m0" {
            return Err(Error::Invalid("E8M0 values do not fit in f16"));
        }
        let bits = self.decode_to::<F, u16>(a, "f16")?;
        Ok(bits.into_iter().map(half::f16::from_bits).collect())
    }

    /// Decodes a device array of `F` on the device to `bf16` (exact, as
    /// [`decode_f16`](Self::decode_f16)).
    ///
    /// # Errors
    ///
    /// As [`decode_f16`](Self::decode_f16).
    pub fn decode_bf16<F: MiniFloat>(&self, a: &DeviceNarrowArray<F>) -> Result<Vec<half::bf16>> {
        if format_name::<F>()? == "e8m0" {
            return Err(Error::Invalid("the bf16 decode kernels cover E2M1..E5M2"));
        }
        let bits = self.decode_to::<F, u16>(a, "bf16")?;
        Ok(bits.into_iter().map(half::bf16::from_bits).collect())
    }
}

/// A device buffer of scale bytes (at least one allocated) and their number.
type DeviceScales = (CudaSlice<u8>, usize);

/// The methods [`DeviceMxArray`] and [`DeviceNvfp4Array`] share, and a
/// constructor from their fields: `[generics] Type, value type, other
/// field: its type,` then the docs of `scales`.
macro_rules! device_blocked {
    ([$($g:tt)*] $t:ty, $v:ty, $extra:ident: $extra_ty:ty, $(#[$scales_doc:meta])*) => {
        impl<$($g)*> $t {
            fn new(
                values: DeviceNarrowArray<$v>,
                (scales, n_scales): DeviceScales,
                shape: Vec<usize>,
                $extra: $extra_ty,
            ) -> Self {
                Self {
                    values,
                    scales,
                    n_scales,
                    shape,
                    $extra,
                }
            }

            /// The packed values.
            pub fn values(&self) -> &DeviceNarrowArray<$v> {
                &self.values
            }

            $(#[$scales_doc])*
            pub fn scales(&self) -> &CudaSlice<u8> {
                &self.scales
            }

            /// The number of scales.
            pub fn scales_len(&self) -> usize {
                self.n_scales
            }

            /// The shape of the values.
            pub fn shape(&self) -> &[usize] {
                &self.shape
            }

            /// The number of values.
            pub fn len(&self) -> usize {
                self.values.len
            }

            /// Whether it holds no values.
            pub fn is_empty(&self) -> bool {
                self.values.len == 0
            }
        }
    };
}

/// Launches kernel `name` on `threads` threads (`THREADS`-wide CTAs) with
/// the arguments after the `;` (buffers and scalars by reference), and
/// evaluates to the launch's `Result<()>`. The launch is `unsafe`: call it in
/// an `unsafe` block that says why the kernel's accesses are in bounds.
macro_rules! launch {
    ($gpu:expr, $name:expr, $threads:expr; $($arg:expr),+ $(,)?) => {{
        let f = $gpu.function($name)?;
        let mut args = $gpu.stream.launch_builder(&f);
        $(args.arg($arg);)+
        args.launch(Gpu::config($threads)?)
            .map(drop)
            .map_err(driver("cuLaunchKernel"))
    }};
}

/// An MX array in device memory: the packed values (the stream of
/// [`MxArray::values`]) and one E8M0 scale byte per block (row-major, as
/// [`MxArray::scales`]).
#[derive(Debug)]
pub struct DeviceMxArray<F: MxElement> {
    values: DeviceNarrowArray<F>,
    scales: CudaSlice<u8>,
    n_scales: usize,
    shape: Vec<usize>,
    axis: usize,
}

device_blocked!(
    [F: MxElement] DeviceMxArray<F>, F, axis: usize,
    /// The device buffer of scale bytes ([`scales_len`](Self::scales_len)
    /// of them, at least one byte allocated).
);

impl<F: MxElement> DeviceMxArray<F> {
    /// The axis the blocks of 32 run along.
    pub fn axis(&self) -> usize {
        self.axis
    }
}

/// An NVFP4 array in device memory: packed E2M1 values, one E4M3 scale byte
/// per block of 16 (row-major, as [`Nvfp4Array::scales`]) and the tensor
/// scale.
#[derive(Debug)]
pub struct DeviceNvfp4Array {
    values: DeviceNarrowArray<E2M1>,
    scales: CudaSlice<u8>,
    n_scales: usize,
    shape: Vec<usize>,
    tensor_scale: f32,
}

device_blocked!(
    [] DeviceNvfp4Array, E2M1, tensor_scale: f32,
    /// The device buffer of scale bytes.
);

impl DeviceNvfp4Array {
    /// The tensor scale.
    pub fn tensor_scale(&self) -> f32 {
        self.tensor_scale
    }
}

/// `(seed, stochastic)` kernel arguments of a rounding.
fn rounding_args(r: Rounding) -> (u64, u32) {
    match r {
        Rounding::Nearest => (0, 0),
        Rounding::Stochastic { seed } => (seed, 1),
    }
}

impl Gpu {
    fn function(&self, name: &str) -> Result<cudarc::driver::CudaFunction> {
        self.module
            .load_function(name)
            .map_err(driver("cuModuleGetFunction"))
    }

    /// `THREADS`-wide CTAs covering `units` threads.
    fn config(units: usize) -> Result<LaunchConfig> {
        let grid = u32::try_from(units.div_ceil(THREADS as usize))
            .map_err(|_| Error::Invalid("too many values for one launch"))?;
        Ok(LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        })
    }

    /// `bytes` in device memory (at least one byte allocated).
    fn upload_bytes(&self, bytes: &[u8]) -> Result<CudaSlice<u8>> {
        let mut host = bytes.to_vec();
        host.resize(bytes.len().max(1), 0);
        self.stream
            .clone_htod(&host)
            .map_err(driver("cuMemcpyHtoD"))
    }

    fn alloc_bytes(&self, n: usize) -> Result<CudaSlice<u8>> {
        self.stream
            .alloc_zeros::<u8>(n.max(1))
            .map_err(driver("cuMemAlloc"))
    }

    /// `n` values of `O` that `run` writes into a zeroed device buffer (at
    /// least one value allocated), copied to the host.
    fn to_host<O: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
        &self,
        n: usize,
        run: impl FnOnce(&mut CudaSlice<O>) -> Result<()>,
    ) -> Result<Vec<O>> {
        let mut out = self
            .stream
            .alloc_zeros::<O>(n.max(1))
            .map_err(driver("cuMemAlloc"))?;
        run(&mut out)?;
        let mut v = self
            .stream
            .clone_dtoh(&out)
            .map_err(driver("cuMemcpyDtoH"))?;
        v.truncate(n);
        Ok(v)
    }

    /// The device copies of a block-scaled array's values and scale bytes
    /// (with their number).
    fn upload_blocked<V: BitElement>(
        &self,
        values: &NarrowArray<V>,
        scales: &[u8],
    ) -> Result<(DeviceNarrowArray<V>, DeviceScales)> {
        Ok((
            self.upload(values)?,
            (self.upload_bytes(scales)?, scales.len()),
        ))
    }

    /// The host copies of a device block-scaled array's values (with
    /// `shape`) and its `n` scale bytes (1-d).
    fn download_blocked<V: BitElement, S: BitElement>(
        &self,
        values: &DeviceNarrowArray<V>,
        shape: &[usize],
        scales: &CudaSlice<u8>,
        n: usize,
    ) -> Result<(NarrowArray<V>, NarrowArray<S>)> {
        let mut host = self.download(values)?;
        host.reshape(shape)?;
        let mut bytes = self
            .stream
            .clone_dtoh(scales)
            .map_err(driver("cuMemcpyDtoH"))?;
        bytes.truncate(n);
        Ok((host, NarrowArray::from_bytes(&bytes, n)?))
    }

    /// The largest finite magnitude of `x` (0 if none), on the device.
    fn amax(&self, x: &CudaSlice<f32>, n: usize) -> Result<f32> {
        if n == 0 {
            return Ok(0.0);
        }
        // Eight values per thread at least, at most 1024 CTAs (grid-stride).
        let ctas = n.div_ceil(8 * THREADS as usize).min(1024);
        let warps = ctas * (THREADS as usize / 32);
        let mut partials = self
            .stream
            .alloc_zeros::<u32>(warps)
            .map_err(driver("cuMemAlloc"))?;
        let f = self.function("amax_partials")?;
        let n64 = n as u64;
        let mut args = self.stream.launch_builder(&f);
        args.arg(x).arg(&n64).arg(&mut partials);
        // SAFETY: `amax_partials(src, n, partials)` reads `src[..n]` (`x`
        // holds `n` values) and writes one `u32` per warp of the grid, which
        // `partials` holds; the CTA size is a multiple of 32.
        unsafe { args.launch(Self::config(ctas * THREADS as usize)?) }
            .map_err(driver("cuLaunchKernel"))?;
        let p = self
            .stream
            .clone_dtoh(&partials)
            .map_err(driver("cuMemcpyDtoH"))?;
        Ok(f32::from_bits(p.into_iter().max().unwrap_or(0)))
    }

    /// Quantizes `data` (row-major, `shape`) to MX on the device: the bits
    /// of [`MxArray::quantize_with`] for the same options (any axis, every
    /// scale rule, both roundings). One scale kernel (a thread per block),
    /// then one encode kernel (a thread per word block of the stream).
    ///
    /// # Errors
    ///
    /// As [`MxArray::quantize_with`] for the shape and axis;
    /// [`Error::Device`] when a driver call fails.
    pub fn mx_quantize<F: MxElement>(
        &self,
        data: &[f32],
        shape: &[usize],
        opts: &MxOptions,
    ) -> Result<DeviceMxArray<F>> {
        crate::formats::split_shape(shape, data.len())?;
        let axis = opts.axis.unwrap_or(shape.len() - 1);
        if axis >= shape.len() {
            return Err(Error::Axis {
                axis,
                ndim: shape.len(),
            });
        }
        let name = format_name::<F>()?;
        let (outer, d, inner) = crate::formats::split_axis(shape, axis);
        let grid = BlockGrid::along(outer, d, inner, MxArray::<F>::BLOCK_SIZE);
        let n = data.len();
        let mut scales = self.alloc_bytes(grid.scales())?;
        let mut words = self.alloc_words(F::BITS, n)?;
        if n > 0 {
            let input = self
                .stream
                .clone_htod(data)
                .map_err(driver("cuMemcpyHtoD"))?;
            let (o, dd, i) = (outer as u64, d as u64, inner as u64);
            let rule = match opts.scale {
                ScaleRule::Floor => 0u32,
                ScaleRule::Ceil => 1,
                ScaleRule::Even => 2,
                ScaleRule::RCeil => 3,
            };
            // SAFETY: `mx_scales_*(src, outer, d, inner, rule, scales)`
            // reads `outer * d * inner` values (`input` holds them) and
            // writes one byte for each of the grid's `scales()` threads
            // (`scales` holds them); threads past them return.
            unsafe {
                launch!(self, &format!("mx_scales_{name}"), grid.scales();
                    &input, &o, &dd, &i, &rule, &mut scales)
            }?;
            let (seed, stochastic) = rounding_args(opts.rounding);
            let blocks = n.div_ceil(fixed::block_elems(F::BITS));
            // SAFETY: `mx_encode_*` reads the values and scales sized above
            // and writes the words of `n` packed values (`words` holds them);
            // one thread per word block, threads past the end return.
            unsafe {
                launch!(self, &format!("mx_encode_{name}"), blocks;
                    &input, &o, &dd, &i, &scales, &seed, &stochastic, &mut words)
            }?;
        }
        let values = DeviceNarrowArray::from_words(words, n);
        Ok(DeviceMxArray::new(
            values,
            (scales, grid.scales()),
            shape.to_vec(),
            axis,
        ))
    }

    /// Dequantizes an MX array on the device: the bits of
    /// [`MxArray::dequantize`] (NaN for a NaN scale).
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when a driver call fails.
    pub fn mx_dequantize<F: MxElement>(&self, a: &DeviceMxArray<F>) -> Result<Vec<f32>> {
        let name = format_name::<F>()?;
        let n = a.len();
        let (outer, d, inner) = crate::formats::split_axis(&a.shape, a.axis);
        self.to_host(n, |out| {
            if n == 0 {
                return Ok(());
            }
            let (o, dd, i) = (outer as u64, d as u64, inner as u64);
            let blocks = n.div_ceil(fixed::block_elems(F::BITS));
            // SAFETY: `mx_decode_*` reads the `n` packed values and the
            // grid's scales of `a` (which hold them) and writes `n` values
            // (`out` holds them); one thread per word block.
            unsafe {
                launch!(self, &format!("mx_decode_{name}"), blocks;
                    &a.values.words, &o, &dd, &i, &a.scales, out)
            }
        })
    }

    /// Copies an MX array to the device.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when an allocation or a copy fails.
    pub fn upload_mx<F: MxElement>(&self, a: &MxArray<F>) -> Result<DeviceMxArray<F>> {
        let (v, s) = self.upload_blocked(a.values(), a.scales().as_bytes())?;
        Ok(DeviceMxArray::new(v, s, a.shape().to_vec(), a.axis()))
    }

    /// Copies an MX array back to the host.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when a copy fails.
    pub fn download_mx<F: MxElement>(&self, a: &DeviceMxArray<F>) -> Result<MxArray<F>> {
        let (values, mut scales) =
            self.download_blocked::<F, E8M0>(&a.values, &a.shape, &a.scales, a.n_scales)?;
        scales.reshape(&crate::formats::scale_shape_along(
            &a.shape,
            a.axis,
            MxArray::<F>::BLOCK_SIZE,
        ))?;
        MxArray::from_parts_along(values, scales, a.axis)
    }

    /// Quantizes `data` (row-major, `shape`) to NVFP4 on the device: the
    /// bits of [`Nvfp4Array::quantize_with`] for the same options (1 x 16
    /// blocks or 16 x 16 tiles, every tiny-scale rule, both roundings, a
    /// given or the default tensor scale, whose amax is a device
    /// reduction).
    ///
    /// # Errors
    ///
    /// As [`Nvfp4Array::quantize_with`]; [`Error::Device`] when a driver
    /// call fails.
    pub fn nvfp4_quantize(
        &self,
        data: &[f32],
        shape: &[usize],
        opts: &Nvfp4Options,
    ) -> Result<DeviceNvfp4Array> {
        if let Some(s) = opts.tensor_scale
            && !(s > 0.0 && s.is_finite())
        {
            return Err(Error::Invalid(
                "the NVFP4 tensor scale must be finite and positive",
            ));
        }
        let (rows, cols) = crate::formats::split_shape(shape, data.len())?;
        let n = data.len();
        let input = self
            .stream
            .clone_htod(if n == 0 { &[0f32][..] } else { data })
            .map_err(driver("cuMemcpyHtoD"))?;
        let tensor_scale = match opts.tensor_scale {
            Some(s) => s,
            None => {
                // As `Nvfp4Array::default_tensor_scale`: the amax in f32 over
                // 6 * 448, or 1 for an all-zero tensor; an error for data
                // without a finite value (the amax leaves those out, so it is
                // 0 there: the host data says which).
                let s = self.amax(&input, n)? / crate::formats::FP4_TIMES_FP8_MAX;
                if s > 0.0 {
                    s
                } else if n > 0 && !data.iter().any(|x| x.is_finite()) {
                    return Err(crate::formats::NO_FINITE_VALUE);
                } else {
                    1.0
                }
            }
        };
        let tile = match opts.blocks {
            Nvfp4Blocks::Rows => 1usize,
            Nvfp4Blocks::Tiles16x16 => 16,
        };
        let matrix_rows = if shape.len() >= 2 {
            shape[shape.len() - 2]
        } else {
            1
        };
        let (rows, cols) = if n == 0 { (0, 0) } else { (rows, cols) };
        let grid = BlockGrid::tiles(rows, cols, matrix_rows, tile, Nvfp4Array::BLOCK_SIZE);
        let n_scales = grid.scales();
        let mut scales = self.alloc_bytes(n_scales)?;
        let mut words = self.alloc_words(4, n)?;
        if n > 0 {
            let (r, c, m, t) = (rows as u64, cols as u64, matrix_rows as u64, tile as u64);
            let tiny = match opts.tiny {
                TinyScale::Flush => 0u32,
                TinyScale::Smallest => 1,
                TinyScale::MinNormal => 2,
            };
            // SAFETY: `nvfp4_scales` reads `rows * cols` values (`input`
            // holds them) and writes one byte per scale thread (`scales`
            // holds the grid's scales); threads past them return.
            unsafe {
                launch!(self, "nvfp4_scales", grid.scales();
                    &input, &r, &c, &m, &t, &tensor_scale, &tiny, &mut scales)
            }?;
            let (seed, stochastic) = rounding_args(opts.rounding);
            // SAFETY: `nvfp4_encode` reads the values and scales sized
            // above and writes the words of `n` packed codes (`words` holds
            // them); one thread per 16 values.
            unsafe {
                launch!(self, "nvfp4_encode", n.div_ceil(fixed::block_elems(4));
                    &input, &r, &c, &scales, &tensor_scale, &seed, &stochastic, &mut words)
            }?;
        }
        let values = DeviceNarrowArray::from_words(words, n);
        let shape = shape.to_vec();
        Ok(DeviceNvfp4Array::new(
            values,
            (scales, n_scales),
            shape,
            tensor_scale,
        ))
    }

    /// Dequantizes an NVFP4 array on the device: the bits of
    /// [`Nvfp4Array::dequantize`].
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when a driver call fails.
    pub fn nvfp4_dequantize(&self, a: &DeviceNvfp4Array) -> Result<Vec<f32>> {
        let n = a.len();
        let cols = *a.shape.last().unwrap_or(&0);
        let rows = n.checked_div(cols).unwrap_or(0);
        self.to_host(n, |out| {
            if n == 0 {
                return Ok(());
            }
            let (r, c) = (rows as u64, cols as u64);
            // SAFETY: `nvfp4_decode` reads the `n` packed codes and the
            // scales of `a` and writes `n` values (`out` holds them).
            unsafe {
                launch!(self, "nvfp4_decode", n.div_ceil(fixed::block_elems(4));
                    &a.values.words, &r, &c, &a.scales, &a.tensor_scale, out)
            }
        })
    }

    /// Copies an NVFP4 array to the device.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when an allocation or a copy fails.
    pub fn upload_nvfp4(&self, a: &Nvfp4Array) -> Result<DeviceNvfp4Array> {
        let (v, s) = self.upload_blocked(a.values(), a.scales().as_bytes())?;
        Ok(DeviceNvfp4Array::new(
            v,
            s,
            a.shape().to_vec(),
            a.tensor_scale(),
        ))
    }

    /// Copies an NVFP4 array back to the host.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when a copy fails.
    pub fn download_nvfp4(&self, a: &DeviceNvfp4Array) -> Result<Nvfp4Array> {
        let (values, scales) =
            self.download_blocked::<E2M1, E4M3>(&a.values, &a.shape, &a.scales, a.n_scales)?;
        Nvfp4Array::from_parts(values, scales, a.tensor_scale)
    }
}

// SAFETY: `DevicePtr<T>` is `#[repr(transparent)]` over a `u64` holding a
// device address, which is how the driver passes a `CUdeviceptr` kernel
// parameter (`DeviceRepr`'s one requirement: the bytes are the parameter).
unsafe impl<T> cudarc::driver::DeviceRepr for crate::DevicePtr<T> {}
