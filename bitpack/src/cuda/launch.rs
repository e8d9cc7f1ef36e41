//! The one way a kernel is launched: the names of the entries the crate
//! runs, the functions loaded once per loaded module, the thread mapping of
//! each entry family (in [`map`], one function a family), and the builder
//! that runs a launch.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaFunction, CudaModule, LaunchArgs, LaunchConfig, PushKernelArg};

use super::Gpu;
use super::driver_error::driver;
use crate::{Error, Result};

/// Threads per CTA of every launch of one thread per unit.
pub(super) const THREADS: u32 = 256;

/// Threads of one warp.
const WARP: u32 = 32;

/// How a launch maps threads to work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Threads {
    /// One thread per unit of work (`n` units: values, word blocks,
    /// scales), in CTAs of [`THREADS`]; threads of the last CTA past the
    /// last unit return. Nothing runs for `n == 0`.
    PerUnit(usize),
    /// Exactly one warp (one CTA of 32 threads), for a kernel whose lanes
    /// work together and that no other lane may join.
    OneWarp,
}

impl Threads {
    /// The launch configuration, or `None` when there is nothing to run.
    ///
    /// # Errors
    ///
    /// [`Error::ValueTooWide`] naming the number of CTAs when it does not
    /// fit the `u32` of a grid dimension.
    pub(super) fn config(self) -> Result<Option<LaunchConfig>> {
        let (grid, block) = match self {
            Threads::PerUnit(0) => return Ok(None),
            Threads::PerUnit(units) => {
                let ctas = units.div_ceil(THREADS as usize);
                let grid = u32::try_from(ctas).map_err(|_| Error::ValueTooWide {
                    value: ctas as u128,
                    bits: u32::BITS,
                })?;
                (grid, THREADS)
            }
            Threads::OneWarp => (1, WARP),
        };
        Ok(Some(LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        }))
    }

    /// The warps a launch of this mapping runs (the number of per-warp
    /// partials a reduction kernel writes).
    pub(super) fn warps(self) -> usize {
        match self {
            Threads::PerUnit(units) => units.div_ceil(THREADS as usize) * (THREADS / WARP) as usize,
            Threads::OneWarp => 1,
        }
    }
}

/// The thread mapping of each entry family, as the kernels document it:
/// the one place a launch's size is computed, so that a change of a
/// kernel's mapping is one edit here. The kernels loop grid-stride, so any
/// grid is correct; these are the sizes they are tuned for.
pub(super) mod map {
    use super::{THREADS, Threads};
    use crate::kernels::fixed;

    /// The word-block kernels (`pack_*`, `unpack_*`, `encode_*`,
    /// `decode_*`): one thread per word block of `n` values of `bits`
    /// bits.
    pub(in super::super) fn word_blocks(bits: u32, n: usize) -> Threads {
        Threads::PerUnit(n.div_ceil(fixed::block_elems(bits.min(64))))
    }

    /// `sum_w*`: one thread per four word blocks (the kernels'
    /// `SUM_BLOCKS`), one `u64` partial per warp.
    pub(in super::super) fn sum(bits: u32, n: usize) -> Threads {
        Threads::PerUnit(n.div_ceil(4 * fixed::block_elems(bits.min(64))))
    }

    /// `sum_partials`: exactly one warp.
    pub(in super::super) fn sum_partials() -> Threads {
        Threads::OneWarp
    }

    /// The one-pass block-scaled kernels (`mx_quantize_*`,
    /// `mx_dequantize_*`, `nvfp4_quantize*`, `nvfp4_dequantize`): one
    /// thread per 32 values (a lane's unit of the fast path: one MX block,
    /// two NVFP4 blocks; the 6-bit MX formats' lanes take 64, and the
    /// grid-stride loops leave the surplus threads idle).
    pub(in super::super) fn blocked(n: usize) -> Threads {
        Threads::PerUnit(n.div_ceil(32))
    }

    /// `amax_partials`: eight values per thread at least, at most 1024
    /// CTAs (the kernel loops grid-stride), one `u32` partial per warp.
    pub(in super::super) fn amax(n: usize) -> Threads {
        let ctas = n.div_ceil(8 * THREADS as usize).min(1024);
        Threads::PerUnit(ctas * THREADS as usize)
    }
}

/// The entry points of the embedded PTX (one name a line), the same in
/// every build.
const ENTRIES: &str = include_str!("../../ptx/ENTRIES");

/// The functions of a loaded module, each looked up the first time it is
/// launched and kept for the life of the module (no name is formatted or
/// looked up in the driver again).
pub(super) struct Functions {
    module: Arc<CudaModule>,
    cache: HashMap<&'static str, OnceLock<CudaFunction>>,
}

impl Functions {
    /// An empty cache of `module`'s functions, with a place for every entry
    /// of the PTX.
    pub(super) fn new(module: Arc<CudaModule>) -> Functions {
        let cache = ENTRIES.lines().map(|e| (e, OnceLock::new())).collect();
        Functions { module, cache }
    }

    /// The function `entry`, loaded on first use.
    fn get(&self, entry: &'static str) -> Result<&CudaFunction> {
        let module = &self.module;
        let Some(cell) = self.cache.get(entry) else {
            return Err(Error::Invalid(
                "a kernel entry that the embedded PTX does not have",
            ));
        };
        if let Some(f) = cell.get() {
            return Ok(f);
        }
        let f = module
            .load_function(entry)
            .map_err(driver("cuModuleGetFunction"))?;
        Ok(cell.get_or_init(|| f))
    }
}

impl core::fmt::Debug for Functions {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let loaded = self.cache.values().filter(|c| c.get().is_some()).count();
        write!(f, "Functions({loaded} of {} loaded)", self.cache.len())
    }
}

/// A kernel launch being built: its function, configuration and
/// arguments. Made by [`Gpu::launch`]; [`arg`](Self::arg) adds the
/// parameters in order, [`run`](Self::run) launches.
pub(super) struct Launch<'a> {
    args: LaunchArgs<'a>,
    config: Option<LaunchConfig>,
}

impl<'a> Launch<'a> {
    /// Adds the next kernel parameter: a device buffer (`&CudaSlice`,
    /// `&mut CudaSlice`) or a scalar by reference.
    pub(super) fn arg<T>(&mut self, arg: T) -> &mut Self
    where
        LaunchArgs<'a>: PushKernelArg<T>,
    {
        self.args.arg(arg);
        self
    }

    /// Launches the kernel on the [`Gpu`]'s stream (nothing, for no units).
    ///
    /// # Safety
    ///
    /// The arguments are the entry's parameters, in order and of their
    /// types, and every access the kernel makes with them, for the threads
    /// of this launch's [`Threads`], is inside the buffers given.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when the launch fails.
    pub(super) unsafe fn run(&mut self) -> Result<()> {
        let Some(config) = self.config else {
            return Ok(());
        };
        // SAFETY: the caller's contract: the parameters match the entry and
        // its accesses for this configuration are in bounds.
        unsafe { self.args.launch(config) }
            .map(drop)
            .map_err(driver("cuLaunchKernel"))
    }
}

impl Gpu {
    /// The launch of `entry` over `threads`: the function from the cache,
    /// the configuration checked and chosen from the mapping. Add the
    /// arguments, then [`run`](Launch::run).
    ///
    /// # Errors
    ///
    /// As [`Threads::config`]; [`Error::Device`] when the function cannot
    /// be loaded.
    pub(super) fn launch(&self, entry: &'static str, threads: Threads) -> Result<Launch<'_>> {
        let config = threads.config()?;
        let f = self.kernels.functions.get(entry)?;
        Ok(Launch {
            args: self.stream.launch_builder(f),
            config,
        })
    }
}

/// The entry names `prefix` + each of `mids` + `suffix`, as an array.
macro_rules! names {
    ($prefix:literal, $suffix:literal; $($mid:literal)+) => {
        [$(concat!($prefix, $mid, $suffix)),+]
    };
}

/// A kernel per shipped float format, in the order of
/// [`format_index`](super::array::format_index): E2M1, E2M3, E3M2, E4M3,
/// E5M2 (the MX element formats) and E8M0.
macro_rules! per_format {
    ($prefix:literal, $suffix:literal) => {
        names!($prefix, $suffix; "e2m1" "e2m3" "e3m2" "e4m3" "e5m2" "e8m0")
    };
    ($prefix:literal, $suffix:literal, mx) => {
        names!($prefix, $suffix; "e2m1" "e2m3" "e3m2" "e4m3" "e5m2")
    };
}

/// `pack_u8_w1` .. `pack_u8_w8`.
pub(super) const PACK_U8: [&str; 8] = names!("pack_u8_w", ""; 1 2 3 4 5 6 7 8);
/// `pack_u32_w9` .. `pack_u32_w32`.
pub(super) const PACK_U32: [&str; 24] = names!("pack_u32_w", "";
    9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
/// `unpack_u8_w1` .. `unpack_u8_w8`.
pub(super) const UNPACK_U8: [&str; 8] = names!("unpack_u8_w", ""; 1 2 3 4 5 6 7 8);
/// `unpack_u16_w9` .. `unpack_u16_w16`.
pub(super) const UNPACK_U16: [&str; 8] = names!("unpack_u16_w", ""; 9 10 11 12 13 14 15 16);
/// `unpack_u32_w17` .. `unpack_u32_w32`.
pub(super) const UNPACK_U32: [&str; 16] = names!("unpack_u32_w", "";
    17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
/// `sum_w1` .. `sum_w32`.
pub(super) const SUM: [&str; 32] = names!("sum_w", "";
    1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
/// The one-warp sum of the per-warp partials of [`SUM`].
pub(super) const SUM_PARTIALS: &str = "sum_partials";
/// The per-warp largest finite magnitudes of an `f32` buffer.
pub(super) const AMAX_PARTIALS: &str = "amax_partials";

/// `encode_{f}_nearest`.
pub(super) const ENCODE_NEAREST: [&str; 6] = per_format!("encode_", "_nearest");
/// `encode_{f}_satfinite`.
pub(super) const ENCODE_SATFINITE: [&str; 6] = per_format!("encode_", "_satfinite");
/// `encode_{f}_nearest_f16` (no E8M0).
pub(super) const ENCODE_NEAREST_F16: [&str; 5] = per_format!("encode_", "_nearest_f16", mx);
/// `encode_{f}_satfinite_f16` (no E8M0).
pub(super) const ENCODE_SATFINITE_F16: [&str; 5] = per_format!("encode_", "_satfinite_f16", mx);
/// `encode_{f}_nearest_bf16` (no E8M0).
pub(super) const ENCODE_NEAREST_BF16: [&str; 5] = per_format!("encode_", "_nearest_bf16", mx);
/// `encode_{f}_satfinite_bf16` (no E8M0).
pub(super) const ENCODE_SATFINITE_BF16: [&str; 5] = per_format!("encode_", "_satfinite_bf16", mx);
/// `decode_{f}_f32`.
pub(super) const DECODE_F32: [&str; 6] = per_format!("decode_", "_f32");
/// `decode_{f}_f16` (no E8M0).
pub(super) const DECODE_F16: [&str; 5] = per_format!("decode_", "_f16", mx);
/// `decode_{f}_bf16` (no E8M0).
pub(super) const DECODE_BF16: [&str; 5] = per_format!("decode_", "_bf16", mx);

/// `mx_quantize_{f}` (from `f32`).
pub(super) const MX_QUANTIZE: [&str; 5] = per_format!("mx_quantize_", "", mx);
/// `mx_quantize_{f}_f16`.
pub(super) const MX_QUANTIZE_F16: [&str; 5] = per_format!("mx_quantize_", "_f16", mx);
/// `mx_quantize_{f}_bf16`.
pub(super) const MX_QUANTIZE_BF16: [&str; 5] = per_format!("mx_quantize_", "_bf16", mx);
/// `mx_dequantize_{f}`.
pub(super) const MX_DEQUANTIZE: [&str; 5] = per_format!("mx_dequantize_", "", mx);
/// The NVFP4 one-pass quantize kernels from `f32`, `f16`, `bf16`.
pub(super) const NVFP4_QUANTIZE: [&str; 3] = [
    "nvfp4_quantize",
    "nvfp4_quantize_f16",
    "nvfp4_quantize_bf16",
];
/// The NVFP4 dequantize kernel.
pub(super) const NVFP4_DEQUANTIZE: &str = "nvfp4_dequantize";

/// The entry of width `w` in `table`, whose first entry is for width
/// `first`; [`Error::Width`] (up to `max`) past it.
pub(super) fn by_width(
    table: &[&'static str],
    first: u32,
    w: u32,
    max: u32,
) -> Result<&'static str> {
    w.checked_sub(first)
        .and_then(|i| table.get(i as usize))
        .copied()
        .ok_or(Error::Width { width: w, max })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_entry_is_in_the_ptx() {
        let tables: [&[&str]; 20] = [
            &PACK_U8,
            &PACK_U32,
            &UNPACK_U8,
            &UNPACK_U16,
            &UNPACK_U32,
            &SUM,
            &ENCODE_NEAREST,
            &ENCODE_SATFINITE,
            &ENCODE_NEAREST_F16,
            &ENCODE_SATFINITE_F16,
            &ENCODE_NEAREST_BF16,
            &ENCODE_SATFINITE_BF16,
            &DECODE_F32,
            &DECODE_F16,
            &DECODE_BF16,
            &MX_QUANTIZE,
            &MX_QUANTIZE_F16,
            &MX_QUANTIZE_BF16,
            &MX_DEQUANTIZE,
            &NVFP4_QUANTIZE,
        ];
        let singles = [SUM_PARTIALS, AMAX_PARTIALS, NVFP4_DEQUANTIZE];
        for e in tables.iter().flat_map(|t| t.iter()).chain(&singles) {
            assert!(ENTRIES.lines().any(|l| l == *e), "{e}");
        }
        assert_eq!(by_width(&PACK_U32, 9, 9, 32), Ok("pack_u32_w9"));
        assert_eq!(by_width(&PACK_U32, 9, 32, 32), Ok("pack_u32_w32"));
        assert_eq!(
            by_width(&UNPACK_U16, 9, 17, 32),
            Err(Error::Width { width: 17, max: 32 })
        );
        assert_eq!(
            by_width(&UNPACK_U16, 9, 8, 32),
            Err(Error::Width { width: 8, max: 32 })
        );
    }

    #[test]
    fn each_family_has_its_mapping_in_one_place() {
        use crate::kernels::fixed::block_elems;
        let b = block_elems(5);
        assert_eq!(map::word_blocks(5, 0), Threads::PerUnit(0));
        assert_eq!(map::word_blocks(5, 1), Threads::PerUnit(1));
        assert_eq!(map::word_blocks(5, b), Threads::PerUnit(1));
        assert_eq!(map::word_blocks(5, b + 1), Threads::PerUnit(2));
        assert_eq!(map::sum(5, 4 * b), Threads::PerUnit(1));
        assert_eq!(map::sum(5, 4 * b + 1), Threads::PerUnit(2));
        assert_eq!(map::sum_partials(), Threads::OneWarp);
        assert_eq!(map::blocked(0), Threads::PerUnit(0));
        assert_eq!(map::blocked(33), Threads::PerUnit(2));
        assert_eq!(map::amax(1), Threads::PerUnit(256));
        assert_eq!(map::amax(8 * 256 + 1), Threads::PerUnit(512));
        assert_eq!(map::amax(1 << 40), Threads::PerUnit(1024 * 256));
        assert_eq!(map::amax(0), Threads::PerUnit(0));
    }

    #[test]
    fn launch_configs_follow_the_thread_mapping() {
        assert!(matches!(Threads::PerUnit(0).config(), Ok(None)));
        let c = Threads::PerUnit(257).config().unwrap().unwrap();
        assert_eq!((c.grid_dim, c.block_dim), ((2, 1, 1), (256, 1, 1)));
        let c = Threads::OneWarp.config().unwrap().unwrap();
        assert_eq!((c.grid_dim, c.block_dim), ((1, 1, 1), (32, 1, 1)));
        assert_eq!(Threads::PerUnit(257).warps(), 16);
        assert_eq!(Threads::OneWarp.warps(), 1);
        #[cfg(target_pointer_width = "64")]
        {
            let ctas = 1usize << 32;
            let e = Threads::PerUnit(ctas * 256).config().unwrap_err();
            assert_eq!(
                e,
                Error::ValueTooWide {
                    value: ctas as u128,
                    bits: 32
                }
            );
            let c = Threads::PerUnit((ctas - 1) * 256)
                .config()
                .unwrap()
                .unwrap();
            assert_eq!(c.grid_dim.0, u32::MAX);
        }
    }
}
