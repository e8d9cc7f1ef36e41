//! GPU arrays and the crate's kernels on the GPU (feature `cuda`).
//!
//! [`Gpu`] opens a device through [`cudarc`] (the driver is loaded at run
//! time, so this builds and links without CUDA), loads the crate's embedded
//! PTX for the device (the best of the committed builds it runs: `sm_100a`
//! on compute capability 10.0, else `sm_90` from 9.0, else `sm_80` from
//! 8.0), and runs the `bitpack-ptx` kernels on [`DeviceNarrowArray`]s,
//! which hold the same dense LSB-first byte stream as a
//! [`NarrowArray`](crate::NarrowArray).
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

mod array;
mod blocked;
mod launch;

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use std::sync::{Arc, Mutex};

use cudarc::driver::{
    CudaContext, CudaModule, CudaSlice, CudaStream, DeviceRepr, DriverError, ValidAsZeroBits,
};
use cudarc::nvrtc::Ptx;

pub use array::DeviceNarrowArray;
pub use blocked::{DeviceMxArray, DeviceNvfp4Array};

use crate::kernels::words_for;
use crate::{Error, Result};

/// The committed PTX builds: target, the compute capabilities it runs on,
/// and the text.
const BUILDS: [(&str, (i32, i32), bool, &str); 3] = [
    // Architecture-specific: runs on exactly 10.0.
    (
        "sm_100a",
        (10, 0),
        true,
        include_str!("../../ptx/bitpack-sm_100a.ptx"),
    ),
    (
        "sm_90",
        (9, 0),
        false,
        include_str!("../../ptx/bitpack-sm_90.ptx"),
    ),
    (
        "sm_80",
        (8, 0),
        false,
        include_str!("../../ptx/bitpack-sm_80.ptx"),
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

/// The [`Error::Device`] of a failed driver `call`: its `CUresult`, and the
/// driver's name of it in the message (`cuMemAlloc
/// (CUDA_ERROR_OUT_OF_MEMORY)`).
fn driver(call: &'static str) -> impl Fn(DriverError) -> Error {
    move |e| Error::Device {
        call: named(call, &e),
        code: Some(e.0 as u32),
    }
}

/// `call (NAME)` for the driver's name of `e`, as a `&'static str`: each
/// pair of call and code is written once and kept. The calls are this
/// module's literals and the codes the driver's enumeration, so what is kept
/// stays a few short strings.
fn named(call: &'static str, e: &DriverError) -> &'static str {
    static NAMED: Mutex<BTreeMap<(&'static str, u32), &'static str>> = Mutex::new(BTreeMap::new());
    let mut named = NAMED.lock().unwrap_or_else(|p| p.into_inner());
    named.entry((call, e.0 as u32)).or_insert_with(|| {
        let name = match e.error_name().ok().and_then(|n| n.to_str().ok()) {
            Some(n) => String::from(n),
            None => format!("{:?}", e.0),
        };
        Box::leak(format!("{call} ({name})").into_boxed_str())
    })
}

/// One CUDA device with the crate's kernels loaded.
#[derive(Debug)]
pub struct Gpu {
    stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    functions: launch::Functions,
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
            functions: launch::Functions::new(),
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

    /// `host` copied to a new device buffer.
    fn htod<T: DeviceRepr>(&self, host: &[T]) -> Result<CudaSlice<T>> {
        self.stream.clone_htod(host).map_err(driver("cuMemcpyHtoD"))
    }

    /// A device buffer copied to the host.
    fn dtoh<T: DeviceRepr>(&self, dev: &CudaSlice<T>) -> Result<Vec<T>> {
        self.stream.clone_dtoh(dev).map_err(driver("cuMemcpyDtoH"))
    }

    /// `n` zeroed values of `T` in device memory (at least one allocated).
    fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, n: usize) -> Result<CudaSlice<T>> {
        self.stream
            .alloc_zeros::<T>(n.max(1))
            .map_err(driver("cuMemAlloc"))
    }

    /// The zeroed words of `len` packed values of `width` bits.
    fn alloc_words(&self, width: u32, len: usize) -> Result<CudaSlice<u64>> {
        self.zeros(words_for(width, len))
    }

    /// `n` values of `O` that `run` writes into a zeroed device buffer (at
    /// least one value allocated), copied to the host.
    fn to_host<O: DeviceRepr + ValidAsZeroBits>(
        &self,
        n: usize,
        run: impl FnOnce(&mut CudaSlice<O>) -> Result<()>,
    ) -> Result<Vec<O>> {
        let mut out = self.zeros::<O>(n)?;
        run(&mut out)?;
        let mut v = self.dtoh(&out)?;
        v.truncate(n);
        Ok(v)
    }
}

// SAFETY: `DevicePtr<T>` is `#[repr(transparent)]` over a `u64` holding a
// device address, which is how the driver passes a `CUdeviceptr` kernel
// parameter (`DeviceRepr`'s one requirement: the bytes are the parameter).
unsafe impl<T> cudarc::driver::DeviceRepr for crate::DevicePtr<T> {}
