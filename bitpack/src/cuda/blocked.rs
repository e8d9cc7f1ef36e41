//! The MX and NVFP4 device arrays and their kernels: scales, encode and
//! decode on the device, the tensor amax, and the copies to and from the
//! host arrays.

use alloc::vec::Vec;

use cudarc::driver::CudaSlice;

use super::Gpu;
use super::array::{DeviceNarrowArray, format_index};
use super::launch::{
    AMAX_PARTIALS, MX_DECODE, MX_ENCODE, MX_SCALES, NVFP4_DECODE, NVFP4_ENCODE, NVFP4_SCALES,
    THREADS, Threads,
};
use crate::formats::{
    BlockGrid, E2M1, E4M3, E8M0, MxArray, MxElement, MxOptions, Nvfp4Array, Nvfp4Blocks,
    Nvfp4Options, Rounding, ScaleRule, TinyScale,
};
use crate::kernels::fixed;
use crate::{BitElement, Error, NarrowArray, Result};

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
    /// `bytes` in device memory (at least one byte allocated).
    fn upload_bytes(&self, bytes: &[u8]) -> Result<CudaSlice<u8>> {
        let mut host = bytes.to_vec();
        host.resize(bytes.len().max(1), 0);
        self.htod(&host)
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
        let mut bytes = self.dtoh(scales)?;
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
        let threads = Threads::PerUnit(ctas * THREADS as usize);
        let mut partials = self.zeros::<u32>(threads.warps())?;
        let n = n as u64;
        let mut launch = self.launch(AMAX_PARTIALS, threads)?;
        launch.arg(x).arg(&n).arg(&mut partials);
        // SAFETY: `amax_partials(src, n, partials)` reads `src[..n]` (`x`
        // holds `n` values) and writes one `u32` per warp of the grid, which
        // `partials` holds; the CTA size is a multiple of 32.
        unsafe { launch.run() }?;
        let p = self.dtoh(&partials)?;
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
        let f = format_index::<F>()?;
        let (outer, d, inner) = crate::formats::split_axis(shape, axis);
        let grid = BlockGrid::along(outer, d, inner, MxArray::<F>::BLOCK_SIZE);
        let n = data.len();
        let mut scales = self.zeros::<u8>(grid.scales())?;
        let mut words = self.alloc_words(F::BITS, n)?;
        if n > 0 {
            let input = self.htod(data)?;
            let (o, dd, i) = (outer as u64, d as u64, inner as u64);
            let rule = match opts.scale {
                ScaleRule::Floor => 0u32,
                ScaleRule::Ceil => 1,
                ScaleRule::Even => 2,
                ScaleRule::RCeil => 3,
            };
            let mut launch = self.launch(MX_SCALES[f], Threads::PerUnit(grid.scales()))?;
            launch.arg(&input).arg(&o).arg(&dd).arg(&i).arg(&rule);
            // SAFETY: `mx_scales_*(src, outer, d, inner, rule, scales)`
            // reads `outer * d * inner` values (`input` holds them) and
            // writes one byte for each of the grid's `scales()` threads
            // (`scales` holds them); threads past them return.
            unsafe { launch.arg(&mut scales).run() }?;
            let (seed, stochastic) = rounding_args(opts.rounding);
            let blocks = n.div_ceil(fixed::block_elems(F::BITS));
            let mut launch = self.launch(MX_ENCODE[f], Threads::PerUnit(blocks))?;
            launch.arg(&input).arg(&o).arg(&dd).arg(&i).arg(&scales);
            launch.arg(&seed).arg(&stochastic);
            // SAFETY: `mx_encode_*` reads the values and scales sized above
            // and writes the words of `n` packed values (`words` holds them);
            // one thread per word block, threads past the end return.
            unsafe { launch.arg(&mut words).run() }?;
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
        let f = format_index::<F>()?;
        let n = a.len();
        let (outer, d, inner) = crate::formats::split_axis(&a.shape, a.axis);
        self.to_host(n, |out| {
            if n == 0 {
                return Ok(());
            }
            let (o, dd, i) = (outer as u64, d as u64, inner as u64);
            let blocks = n.div_ceil(fixed::block_elems(F::BITS));
            let mut launch = self.launch(MX_DECODE[f], Threads::PerUnit(blocks))?;
            launch
                .arg(&a.values.words)
                .arg(&o)
                .arg(&dd)
                .arg(&i)
                .arg(&a.scales);
            // SAFETY: `mx_decode_*` reads the `n` packed values and the
            // grid's scales of `a` (which hold them) and writes `n` values
            // (`out` holds them); one thread per word block.
            unsafe { launch.arg(out).run() }
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
        let input = self.htod(if n == 0 { &[0f32][..] } else { data })?;
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
        let mut scales = self.zeros::<u8>(n_scales)?;
        let mut words = self.alloc_words(4, n)?;
        if n > 0 {
            let (r, c, m, t) = (rows as u64, cols as u64, matrix_rows as u64, tile as u64);
            let tiny = match opts.tiny {
                TinyScale::Flush => 0u32,
                TinyScale::Smallest => 1,
                TinyScale::MinNormal => 2,
            };
            let mut launch = self.launch(NVFP4_SCALES, Threads::PerUnit(grid.scales()))?;
            launch.arg(&input).arg(&r).arg(&c).arg(&m).arg(&t);
            launch.arg(&tensor_scale).arg(&tiny);
            // SAFETY: `nvfp4_scales` reads `rows * cols` values (`input`
            // holds them) and writes one byte per scale thread (`scales`
            // holds the grid's scales); threads past them return.
            unsafe { launch.arg(&mut scales).run() }?;
            let (seed, stochastic) = rounding_args(opts.rounding);
            let threads = Threads::PerUnit(n.div_ceil(fixed::block_elems(4)));
            let mut launch = self.launch(NVFP4_ENCODE, threads)?;
            launch
                .arg(&input)
                .arg(&r)
                .arg(&c)
                .arg(&scales)
                .arg(&tensor_scale);
            launch.arg(&seed).arg(&stochastic);
            // SAFETY: `nvfp4_encode` reads the values and scales sized
            // above and writes the words of `n` packed codes (`words` holds
            // them); one thread per 16 values.
            unsafe { launch.arg(&mut words).run() }?;
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
            let threads = Threads::PerUnit(n.div_ceil(fixed::block_elems(4)));
            let mut launch = self.launch(NVFP4_DECODE, threads)?;
            launch.arg(&a.values.words).arg(&r).arg(&c).arg(&a.scales);
            // SAFETY: `nvfp4_decode` reads the `n` packed codes and the
            // scales of `a` and writes `n` values (`out` holds them).
            unsafe { launch.arg(&a.tensor_scale).arg(out).run() }
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
