//! GPU arrays and the crate's kernels on the GPU (feature `cuda`).
//!
//! [`Gpu`] is the crate's kernels loaded into a [`cudarc`] context, bound to
//! one [`CudaStream`]. It loads the embedded PTX build that the device runs
//! best (the list of `bitpack/ptx/TARGETS`: `sm_120a` on compute capability
//! 12.0 exactly, `sm_100a` on 10.0 exactly, `sm_90` from 9.0, `sm_89` from
//! 8.9, `sm_80` from 8.0), falling back to the next older build when the
//! driver rejects a newer PTX ISA (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`,
//! `CUDA_ERROR_INVALID_PTX`, `CUDA_ERROR_NO_BINARY_FOR_GPU`).
//!
//! # Device memory in, device memory out
//!
//! Every operation has a form that reads device memory and writes into an
//! output the caller owns and allocated (`*_into`): [`f32`] inputs as
//! [`CudaView`]s, raw and decoded values as [`CudaViewMut`]s, packed values
//! as a [`DeviceNarrowArray`] (built from a [`CudaSlice<u64>`] and viewed as
//! one), block-scaled arrays as [`DeviceMxArray`] and [`DeviceNvfp4Array`].
//! The calls on host slices ([`Gpu::encode`], [`Gpu::decode`], ...) are
//! conveniences on top: they upload, run the `*_into` form and download.
//!
//! The layout in device memory is the host arrays' byte for byte: a
//! [`DeviceNarrowArray<T>`] holds the dense LSB-first stream of
//! [`NarrowArray::as_bytes`](crate::NarrowArray::as_bytes) as little-endian
//! `u64` words (value `i` at bits `i * T::BITS ..`, padding bits zero); an
//! MX array adds one E8M0 byte per block of 32 in the order of
//! [`MxArray::scales`](crate::formats::MxArray::scales), an NVFP4 array one
//! E4M3 byte per block of 16 in the order of
//! [`Nvfp4Array::scales`](crate::formats::Nvfp4Array::scales) and the `f32`
//! tensor scale (a kernel argument, kept on the host).
//!
//! # Streams, synchronisation, graphs and timing
//!
//! A [`Gpu`] launches on its stream: [`Gpu::new`] on the device's default
//! stream (as [`CudaContext::default_stream`]), [`Gpu::on_stream`] on a
//! stream of yours, [`Gpu::with_stream`] the same loaded kernels on another
//! stream (a cheap clone, as `cudarc` users pass an `Arc<CudaStream>`
//! around). Nothing waits for the device except the calls that return host
//! values: the downloads, the host-slice conveniences, [`Gpu::sum`],
//! [`Gpu::nvfp4_quantize_into`] without a tensor scale (its default scale
//! is the device amax, read back to become a kernel argument), and
//! [`Gpu::synchronize`]. Buffers are `cudarc`'s, freed in stream order, and
//! `cudarc`'s event tracking orders their uses across streams.
//!
//! Capturable into a CUDA graph (no allocation, no synchronisation, no host
//! read inside; sizes are checked on the host before anything is
//! enqueued): [`Gpu::pack_into`], [`Gpu::unpack_into`], [`Gpu::sum_into`]
//! (with its scratch buffer given), [`Gpu::encode_into`],
//! [`Gpu::decode_into`], [`Gpu::mx_quantize_into`],
//! [`Gpu::mx_dequantize_into`], [`Gpu::nvfp4_quantize_into`] with a given
//! tensor scale, and [`Gpu::nvfp4_dequantize_into`]. Capture on a stream
//! made with [`CudaContext::new_stream`] (the legacy default stream cannot
//! be captured), from buffers made before the capture began. Once a
//! context object has more than one stream, `cudarc` tracks each buffer's
//! uses with events and makes a launch wait on them; a capture cannot wait
//! on an event recorded before it began, so capture with the tracking off
//! (`CudaContext::disable_event_tracking` before the buffers are made, then
//! order the streams yourself), as the crate's test of a captured graph
//! does. Run each call once before capturing it: a kernel's function is
//! looked up (and, under the driver's lazy loading, loaded) on its first
//! launch.
//!
//! To time device work, record `cudarc` events on the [`Gpu::stream`]:
//!
//! ```no_run
//! # use bitpack::cuda::Gpu;
//! # use bitpack::formats::{E4M3, Mode};
//! # let gpu = Gpu::new(0)?;
//! # let x = gpu.stream().clone_htod(&[1.0f32; 1 << 20]).unwrap();
//! # let mut packed = gpu.alloc_narrow::<E4M3>(1 << 20)?;
//! use cudarc::driver::sys::CUevent_flags;
//! let start = gpu.stream().record_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).unwrap();
//! gpu.encode_into(&x.as_view(), Mode::SatFinite, &mut packed)?;
//! let end = gpu.stream().record_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).unwrap();
//! end.synchronize().unwrap();
//! println!("{} ms", start.elapsed_ms(&end).unwrap());
//! # Ok::<(), bitpack::Error>(())
//! ```
//!
//! # Errors
//!
//! Without a driver, without a device, or on a device older than 8.0, every
//! constructor returns [`Error::Device`] saying which; a failed driver call
//! is an [`Error::Device`] with the `CUresult` and, in the message, the
//! driver's name for it (`CUDA_ERROR_OUT_OF_MEMORY`); a module that does not
//! load adds the JIT compiler's error log. Sizes that do not match are
//! [`Error::Length`], [`Error::TooFewWords`] or [`Error::Shape`] naming the
//! numbers, checked before anything is enqueued. Nothing panics.
//!
//! # Example
//!
//! A chain on device memory, on a stream of the caller's, with one download
//! at the end: encode to FP8, decode back, MX-quantize the decoded values.
//!
//! ```no_run
//! use bitpack::cuda::{DeviceMxArray, Gpu};
//! use bitpack::formats::{E2M1, E4M3, Mode, MxArray, MxOptions};
//! use cudarc::driver::CudaContext;
//!
//! let ctx = CudaContext::new(0).map_err(|_| bitpack::Error::Invalid("no device"))?;
//! let stream = ctx.new_stream().map_err(|_| bitpack::Error::Invalid("no stream"))?;
//! let gpu = Gpu::on_stream(stream.clone())?;
//!
//! let host: Vec<f32> = (0..4096).map(|i| (i as f32 - 2048.0) / 64.0).collect();
//! let x = stream.clone_htod(&host).map_err(|_| bitpack::Error::Invalid("upload"))?;
//! let mut fp8 = gpu.alloc_narrow::<E4M3>(host.len())?;
//! gpu.encode_into(&x.as_view(), Mode::SatFinite, &mut fp8)?;
//! let mut y = gpu.alloc::<f32>(host.len())?;
//! gpu.decode_into(&fp8, &mut y.as_view_mut())?;
//! let mut mx: DeviceMxArray<E2M1> = gpu.alloc_mx(&[64, 64], 1)?;
//! gpu.mx_quantize_into(&y.as_view(), &MxOptions::default(), &mut mx)?;
//!
//! let back = gpu.download_mx(&mx)?; // the one wait for the device
//! let fp8_host = bitpack::formats::encode::<E4M3>(&host, Mode::SatFinite);
//! let want = MxArray::<E2M1>::quantize(&bitpack::formats::decode(&fp8_host), &[64, 64])?;
//! assert_eq!(back.values().as_bytes(), want.values().as_bytes());
//! # Ok::<(), bitpack::Error>(())
//! ```

mod array;
mod blocked;
mod driver_error;
mod launch;

use alloc::boxed::Box;
use alloc::ffi::CString;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaModule, CudaSlice, CudaStream, DeviceRepr, sys};
#[allow(unused_imports)] // linked from the docs
use cudarc::driver::{CudaView, CudaViewMut};
use cudarc::nvrtc::Ptx;

pub use array::{DeviceNarrowArray, DeviceRaw};
pub use blocked::{DeviceMxArray, DeviceNvfp4Array, QuantizeSource};
pub use driver_error::{error_message, error_name};

use driver_error::{driver, is_too_new};

use crate::{Error, Result};

/// One committed PTX build: `bitpack/ptx/bitpack-{target}.ptx`.
#[derive(Debug)]
struct Build {
    /// The `.target` (`sm_90`).
    target: &'static str,
    /// The PTX ISA it is built for (`ptx78`).
    isa: &'static str,
    /// The compute capability it needs.
    capability: (i32, i32),
    /// Architecture-specific: runs on exactly `capability` (else on it and
    /// every newer one).
    exact: bool,
    /// The PTX text.
    text: &'static str,
}

impl Build {
    /// Whether a device of compute capability `cc` runs this build.
    fn runs_on(&self, cc: (i32, i32)) -> bool {
        if self.exact {
            cc == self.capability
        } else {
            cc >= self.capability
        }
    }
}

/// `builds![TARGET ISA (MAJOR, MINOR) exact|from, ...]`: the [`Build`]s of
/// those lines of `bitpack/ptx/TARGETS`, each with its committed PTX.
macro_rules! builds {
    ($($t:literal $isa:literal ($ma:literal, $mi:literal) $kind:ident),* $(,)?) => {
        [$(Build {
            target: $t,
            isa: $isa,
            capability: ($ma, $mi),
            exact: builds!(@exact $kind),
            text: include_str!(concat!("../../ptx/bitpack-", $t, ".ptx")),
        }),*]
    };
    (@exact exact) => { true };
    (@exact from) => { false };
}

/// The committed PTX builds, newest first: the lines of
/// `bitpack/ptx/TARGETS` (a test holds them equal).
const BUILDS: [Build; 5] = builds![
    "sm_120a" "ptx87" (12, 0) exact,
    "sm_100a" "ptx86" (10, 0) exact,
    "sm_90" "ptx78" (9, 0) from,
    "sm_89" "ptx81" (8, 9) from,
    "sm_80" "ptx70" (8, 0) from,
];

/// The builds a device of compute capability `cc` runs, best first: the
/// order a load tries them in.
fn builds_for(cc: (i32, i32)) -> impl Iterator<Item = &'static Build> {
    BUILDS.iter().filter(move |b| b.runs_on(cc))
}

/// What [`load_first`] gives: the module and its build, or the `CUresult`
/// of the last build tried and that build; `None` when there was none to
/// try.
type Loaded<'b, M> = Option<core::result::Result<(M, &'b Build), (u32, &'b Build)>>;

/// Loads the first of `builds` that `load` accepts, going on to the next
/// (older) one only when the driver rejects a build as too new for it
/// ([`is_too_new`]). The error is the `CUresult` of the last build tried,
/// with that build.
fn load_first<'b, M>(
    builds: impl IntoIterator<Item = &'b Build>,
    mut load: impl FnMut(&'b Build) -> core::result::Result<M, u32>,
) -> Loaded<'b, M> {
    let mut last = None;
    for b in builds {
        match load(b) {
            Ok(m) => return Some(Ok((m, b))),
            Err(code) => {
                last = Some((code, b));
                if !is_too_new(code) {
                    break;
                }
            }
        }
    }
    last.map(Err)
}

/// The JIT compiler's error log for `ptx`, from a second load through
/// `cuModuleLoadDataEx` with `CU_JIT_ERROR_LOG_BUFFER` (the first load went
/// through `cudarc`, which does not ask for it). `None` when the load
/// succeeds this time or the log is empty.
fn jit_error_log(ctx: &Arc<CudaContext>, ptx: &CString) -> Option<String> {
    ctx.bind_to_thread().ok()?;
    let mut log = vec![0u8; 16 * 1024];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    // The size option's value is the number itself, cast to a pointer, as
    // the driver API passes scalar options.
    let mut values: [*mut c_void; 2] = [log.as_mut_ptr().cast(), log.len() as *mut c_void];
    let mut module: sys::CUmodule = core::ptr::null_mut();
    // SAFETY: `ptx` is a NUL-terminated image that outlives the call; the
    // two options name a writable buffer of `log.len()` bytes and its size,
    // and both arrays have the `2` entries the call is told of; the
    // context is current on this thread (bound above).
    let r = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            ptx.as_ptr().cast(),
            2,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if r == sys::CUresult::CUDA_SUCCESS {
        // SAFETY: `module` was just loaded by the call above and is used
        // nowhere else.
        unsafe { sys::cuModuleUnload(module) };
        return None;
    }
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    let text: String = String::from_utf8_lossy(&log[..end]).trim().into();
    (!text.is_empty()).then_some(text)
}

/// Loads PTX text `ptx` into `ctx` through `cudarc`; on failure, the
/// `CUresult`.
fn load_text(ctx: &Arc<CudaContext>, ptx: &str) -> core::result::Result<Arc<CudaModule>, u32> {
    ctx.load_module(Ptx::from_src(ptx)).map_err(|e| e.0 as u32)
}

/// The [`Error::Device`] of a module that did not load: `what` failed with
/// `code`, and the JIT error log of `ptx`. The message is made once per
/// failed load and kept for the life of the process (an [`Error`] holds a
/// `&'static str`); loads fail rarely, and each is a process's mistake to
/// see.
fn load_error(ctx: &Arc<CudaContext>, what: &str, code: u32, ptx: &CString) -> Error {
    let mut call = driver_error::describe(what, code);
    if let Some(log) = jit_error_log(ctx, ptx) {
        call.push_str("; JIT error log: ");
        call.push_str(&log);
    }
    Error::Device {
        call: Box::leak(call.into_boxed_str()),
        code: Some(code),
    }
}

/// Loads PTX text into a context, as [`CudaContext::load_module`] does,
/// with the driver's error name and the JIT compiler's error log in the
/// error: the way to load a kernel module of your own with the errors this
/// crate gives.
///
/// # Errors
///
/// [`Error::Invalid`] for text with a NUL byte (PTX has none);
/// [`Error::Device`] when the driver does not load it, with the
/// `CUresult` (`CUDA_ERROR_INVALID_PTX`, ...) and the JIT error log.
pub fn load_ptx(ctx: &Arc<CudaContext>, ptx: &str) -> Result<Arc<CudaModule>> {
    let Ok(c) = CString::new(ptx) else {
        return Err(Error::Invalid("PTX text with a NUL byte"));
    };
    load_text(ctx, ptx).map_err(|code| load_error(ctx, "cuModuleLoadData", code, &c))
}

/// The crate's kernels loaded into one context: shared by the [`Gpu`]s of
/// its streams.
#[derive(Debug)]
struct Kernels {
    ctx: Arc<CudaContext>,
    functions: launch::Functions,
    target: &'static str,
    capability: (i32, i32),
}

/// The crate's kernels loaded on a CUDA device, launching on one stream.
///
/// Cloning is cheap (the loaded module is shared);
/// [`with_stream`](Self::with_stream) gives the same kernels on another
/// stream.
#[derive(Debug, Clone)]
pub struct Gpu {
    stream: Arc<CudaStream>,
    kernels: Arc<Kernels>,
}

impl Gpu {
    /// Opens device `ordinal` (its primary context, as
    /// [`CudaContext::new`]) and loads the PTX build it runs best, to
    /// launch on the context's default stream.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when the CUDA driver library cannot be loaded
    /// (`code: None`), when a driver call fails (no such device, ...), when
    /// the device is older than compute capability 8.0, or when no build
    /// loads (with the JIT error log).
    pub fn new(ordinal: usize) -> Result<Gpu> {
        // SAFETY: `is_culib_present` only tries to open the driver library
        // by its usual names (libloading), which has no precondition.
        if !unsafe { sys::is_culib_present() } {
            return Err(Error::Device {
                call: "loading the CUDA driver library (libcuda.so / nvcuda.dll)",
                code: None,
            });
        }
        let ctx =
            CudaContext::new(ordinal).map_err(driver("cuInit / cuDeviceGet / cuCtxCreate"))?;
        Gpu::on_stream(ctx.default_stream())
    }

    /// Loads the kernels into the context of `stream`, to launch on it.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), past opening the device.
    pub fn on_stream(stream: Arc<CudaStream>) -> Result<Gpu> {
        let ctx = stream.context().clone();
        let capability = ctx
            .compute_capability()
            .map_err(driver("cuDeviceGetAttribute (compute capability)"))?;
        let loaded = load_first(builds_for(capability), |b| load_text(&ctx, b.text));
        let (module, build) = match loaded {
            None => {
                return Err(Error::Device {
                    call: "choosing a PTX build: the kernels need compute capability 8.0 or newer",
                    code: None,
                });
            }
            Some(Ok(m)) => m,
            Some(Err((code, build))) => {
                let text = CString::new(build.text).unwrap_or_default();
                let what = format!(
                    "cuModuleLoadData (the embedded {} PTX, ISA {})",
                    build.target, build.isa
                );
                return Err(load_error(&ctx, &what, code, &text));
            }
        };
        Ok(Gpu {
            stream,
            kernels: Arc::new(Kernels {
                ctx,
                functions: launch::Functions::new(module),
                target: build.target,
                capability,
            }),
        })
    }

    /// The same loaded kernels, launching on `stream` instead.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] when `stream` belongs to another context (the
    /// kernels are loaded into one).
    pub fn with_stream(&self, stream: Arc<CudaStream>) -> Result<Gpu> {
        if stream.context().cu_ctx() != self.kernels.ctx.cu_ctx() {
            return Err(Error::Invalid(
                "the stream belongs to another CUDA context than the loaded kernels",
            ));
        }
        Ok(Gpu {
            stream,
            kernels: self.kernels.clone(),
        })
    }

    /// The stream the kernels launch on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The context the kernels are loaded into.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.kernels.ctx
    }

    /// Waits until the work enqueued on the stream is done.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] with the error of a kernel that failed.
    pub fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(driver("cuStreamSynchronize"))
    }

    /// The committed PTX build that a device of compute capability
    /// `(major, minor)` loads first: `sm_120a` on exactly 12.0 and
    /// `sm_100a` on exactly 10.0 (architecture-specific code runs nowhere
    /// else), else `sm_90` from 9.0, `sm_89` from 8.9, `sm_80` from 8.0;
    /// `None` below 8.0. When the driver rejects it as too new, the next
    /// build of [`targets_for`](Self::targets_for) is loaded.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::cuda::Gpu;
    /// assert_eq!(Gpu::target_for((10, 0)), Some("sm_100a"));
    /// assert_eq!(Gpu::target_for((12, 1)), Some("sm_90"));
    /// assert_eq!(Gpu::target_for((8, 9)), Some("sm_89"));
    /// assert_eq!(Gpu::target_for((7, 5)), None);
    /// ```
    pub fn target_for(capability: (i32, i32)) -> Option<&'static str> {
        builds_for(capability).next().map(|b| b.target)
    }

    /// Every committed build that a device of compute capability
    /// `(major, minor)` runs, in the order a load tries them.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::cuda::Gpu;
    /// assert_eq!(Gpu::targets_for((12, 0)), ["sm_120a", "sm_90", "sm_89", "sm_80"]);
    /// assert_eq!(Gpu::targets_for((9, 0)), ["sm_90", "sm_89", "sm_80"]);
    /// ```
    pub fn targets_for(capability: (i32, i32)) -> Vec<&'static str> {
        builds_for(capability).map(|b| b.target).collect()
    }

    /// The PTX text of a committed build (`"sm_80"`, ..., `"sm_120a"`).
    pub fn ptx(target: &str) -> Option<&'static str> {
        BUILDS.iter().find(|b| b.target == target).map(|b| b.text)
    }

    /// The PTX build loaded (`"sm_90"`, ...).
    pub fn target(&self) -> &'static str {
        self.kernels.target
    }

    /// The device's compute capability `(major, minor)`.
    pub fn compute_capability(&self) -> (i32, i32) {
        self.kernels.capability
    }

    /// `n` values of `T` in device memory, on the stream, not set: for the
    /// outputs of the `*_into` calls, which write every value of an output.
    /// `T` is a plain number type (`f32`, `u8`, `u16`, `u32`, `u64`,
    /// `f16`, `bf16`), for which every bit pattern is a value, so reading
    /// one before a kernel wrote it is sound (and meaningless).
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when the allocation fails.
    pub fn alloc<T: DeviceRaw>(&self, n: usize) -> Result<CudaSlice<T>> {
        // SAFETY: `DeviceRaw` types are plain numbers, valid for every bit
        // pattern, so unset memory holds values of `T`.
        unsafe { self.uninit(n) }
    }

    /// `n` (at least one) values of `T` in device memory, not set.
    ///
    /// # Safety
    ///
    /// Every bit pattern is a `T`, or every value is written before it is
    /// read.
    unsafe fn uninit<T: DeviceRepr>(&self, n: usize) -> Result<CudaSlice<T>> {
        // SAFETY: the caller's contract.
        unsafe { self.stream.alloc::<T>(n.max(1)) }.map_err(driver("cuMemAllocAsync"))
    }

    /// `host` copied to a new device buffer (at least one value allocated).
    fn htod<T: DeviceRepr + Default + Clone>(&self, host: &[T]) -> Result<CudaSlice<T>> {
        if host.is_empty() {
            return self
                .stream
                .clone_htod(&[T::default()][..])
                .map_err(driver("cuMemcpyHtoDAsync"));
        }
        self.stream
            .clone_htod(host)
            .map_err(driver("cuMemcpyHtoDAsync"))
    }

    /// The first `n` values of a device buffer, copied to the host (waits
    /// for the stream).
    fn dtoh<T: DeviceRepr + Default + Clone>(
        &self,
        dev: &CudaSlice<T>,
        n: usize,
    ) -> Result<Vec<T>> {
        let mut host = vec![T::default(); n];
        if n > 0 {
            self.stream
                .memcpy_dtoh(&dev.slice(..n), &mut host[..])
                .map_err(driver("cuMemcpyDtoH"))?;
        }
        Ok(host)
    }
}

// SAFETY: `DevicePtr<T>` is `#[repr(transparent)]` over a `u64` holding a
// device address, which is how the driver passes a `CUdeviceptr` kernel
// parameter (`DeviceRepr`'s one requirement: the bytes are the parameter).
unsafe impl<T> cudarc::driver::DeviceRepr for crate::DevicePtr<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_are_the_lines_of_targets() {
        let lines: Vec<Vec<&str>> = include_str!("../../ptx/TARGETS")
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| l.split_whitespace().collect())
            .collect();
        let ours: Vec<Vec<String>> = BUILDS
            .iter()
            .map(|b| {
                let (ma, mi) = b.capability;
                let runs = if b.exact { "exact" } else { "from" };
                vec![
                    b.target.into(),
                    b.isa.into(),
                    format!("{ma}.{mi}"),
                    runs.into(),
                ]
            })
            .collect();
        assert_eq!(lines, ours);
        for b in &BUILDS {
            assert!(
                b.text.contains(&format!(".target {}\n", b.target)),
                "{}",
                b.target
            );
            let isa = &b.isa[3..];
            let version = format!(".version {}.{}\n", &isa[..1], &isa[1..]);
            assert!(b.text.contains(&version), "{} {version}", b.target);
        }
    }

    #[test]
    fn the_best_build_loads_first_and_older_ones_after_a_rejection() {
        let order = |cc| builds_for(cc).map(|b| b.target).collect::<Vec<_>>();
        assert_eq!(order((12, 0)), ["sm_120a", "sm_90", "sm_89", "sm_80"]);
        assert_eq!(order((12, 1)), ["sm_90", "sm_89", "sm_80"]);
        assert_eq!(order((10, 0)), ["sm_100a", "sm_90", "sm_89", "sm_80"]);
        assert_eq!(order((10, 3)), ["sm_90", "sm_89", "sm_80"]);
        assert_eq!(order((9, 0)), ["sm_90", "sm_89", "sm_80"]);
        assert_eq!(order((8, 9)), ["sm_89", "sm_80"]);
        assert_eq!(order((8, 6)), ["sm_80"]);
        assert!(order((7, 5)).is_empty());

        // The driver rejects sm_120a's ISA and sm_90's: sm_89 loads.
        let mut tried = Vec::new();
        let r = load_first(builds_for((12, 0)), |b| {
            tried.push(b.target);
            match b.target {
                "sm_120a" => Err(222), // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
                "sm_90" => Err(218),   // CUDA_ERROR_INVALID_PTX
                _ => Ok(b.target),
            }
        });
        assert_eq!(tried, ["sm_120a", "sm_90", "sm_89"]);
        assert!(matches!(r, Some(Ok(("sm_89", b))) if b.target == "sm_89"));
        // No code for the GPU: the next build.
        let r = load_first(builds_for((9, 0)), |b| {
            if b.target == "sm_90" {
                Err(209)
            } else {
                Ok(b.target)
            }
        });
        assert!(matches!(r, Some(Ok(("sm_89", _)))));
        // Any other failure stops at once, with that build's code.
        let mut tried = Vec::new();
        let r = load_first(builds_for((10, 0)), |b| -> core::result::Result<(), u32> {
            tried.push(b.target);
            Err(2) // CUDA_ERROR_OUT_OF_MEMORY
        });
        assert_eq!(tried, ["sm_100a"]);
        assert!(matches!(r, Some(Err((2, b))) if b.target == "sm_100a"));
        // Every build rejected: the last one's code.
        let r = load_first(builds_for((8, 9)), |_| -> core::result::Result<(), u32> {
            Err(222)
        });
        assert!(matches!(r, Some(Err((222, b))) if b.target == "sm_80"));
        // Nothing to try.
        assert!(load_first(builds_for((7, 0)), |_| Ok(())).is_none());
    }
}
