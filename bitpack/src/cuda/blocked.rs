//! The MX and NVFP4 device arrays and their kernels: scales, encode and
//! decode on the device, the tensor amax, and the copies to and from the
//! host arrays; each kernel call on device memory (`*_into`) with a host
//! convenience on top.

use alloc::vec::Vec;

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut};

use super::Gpu;
use super::array::{DeviceNarrowArray, DeviceRaw, format_index};
use super::launch::{
    AMAX_PARTIALS, MX_DEQUANTIZE, MX_QUANTIZE, MX_QUANTIZE_BF16, MX_QUANTIZE_F16, NVFP4_DEQUANTIZE,
    NVFP4_QUANTIZE, map,
};
use crate::formats::gpu::{MxQuantize, Nvfp4Quantize};
use crate::formats::{
    BlockGrid, E2M1, E4M3, E8M0, MxArray, MxElement, MxOptions, Nvfp4Array, Nvfp4Blocks,
    Nvfp4Options, split_axis, split_shape,
};
use crate::shape::check_len;
use crate::{BitElement, Error, LengthOf, NarrowArray, Result};

/// The scale grid of an MX array of `shape` blocked along `axis`.
fn mx_grid(shape: &[usize], axis: usize) -> BlockGrid {
    let (outer, d, inner) = split_axis(shape, axis);
    BlockGrid::along(outer, d, inner, 32)
}

/// The number of NVFP4 scales of `shape`: one per block of 16 along the
/// last axis (a 16 x 16 tile repeats its scale in each of its rows).
fn nvfp4_scales_len(shape: &[usize]) -> usize {
    let cols = *shape.last().unwrap_or(&0);
    let n: usize = shape.iter().product();
    let rows = n.checked_div(cols).unwrap_or(0);
    rows * cols.div_ceil(Nvfp4Array::BLOCK_SIZE)
}

/// Checks a shape against `len` values, and `scales` against the `needed`
/// scales of `scheme`'s blocks of `block`.
fn check_parts(
    shape: &[usize],
    len: usize,
    scales: &CudaSlice<u8>,
    needed: usize,
    scheme: &'static str,
    block: usize,
) -> Result<()> {
    split_shape(shape, len)?;
    if scales.len() < needed {
        return Err(Error::Length {
            of: LengthOf::BlockScales { scheme, block },
            expected: needed,
            actual: scales.len(),
        });
    }
    Ok(())
}

/// The methods [`DeviceMxArray`] and [`DeviceNvfp4Array`] share: `[generics]
/// Type, value type`.
macro_rules! device_blocked {
    ([$($g:tt)*] $t:ty, $v:ty) => {
        impl<$($g)*> $t {
            /// The packed values.
            pub fn values(&self) -> &DeviceNarrowArray<$v> {
                &self.values
            }

            /// The packed values, to write with a kernel of your own.
            pub fn values_mut(&mut self) -> &mut DeviceNarrowArray<$v> {
                &mut self.values
            }

            /// The device buffer of scale bytes (at least
            /// [`scales_len`](Self::scales_len) of them).
            pub fn scales(&self) -> &CudaSlice<u8> {
                &self.scales
            }

            /// The scale bytes, to read in a kernel of your own.
            pub fn scales_view(&self) -> CudaView<'_, u8> {
                self.scales.slice(..self.n_scales)
            }

            /// The scale bytes, to write in a kernel of your own.
            pub fn scales_view_mut(&mut self) -> CudaViewMut<'_, u8> {
                self.scales.slice_mut(..self.n_scales)
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
/// [`MxArray::values`]) and one E8M0 scale byte per block of 32 along the
/// axis (in the order of [`MxArray::scales`]: row-major over the scale
/// shape, which is the value shape with the axis divided by 32, rounded
/// up).
#[derive(Debug)]
pub struct DeviceMxArray<F: MxElement> {
    values: DeviceNarrowArray<F>,
    scales: CudaSlice<u8>,
    n_scales: usize,
    shape: Vec<usize>,
    axis: usize,
}

device_blocked!([F: MxElement] DeviceMxArray<F>, F);

impl<F: MxElement> DeviceMxArray<F> {
    /// The MX array of `shape`, blocked along `axis`, held in `values`
    /// and `scales` (its first [`scales_len`](Self::scales_len) bytes).
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] when `shape` does not hold `values.len()` values
    /// ([`Error::Invalid`] for no dimensions); [`Error::Axis`] for an axis
    /// past the last; [`Error::Length`] (`BlockScales`) when `scales` is
    /// shorter than one byte per block.
    pub fn from_parts(
        values: DeviceNarrowArray<F>,
        scales: CudaSlice<u8>,
        shape: &[usize],
        axis: usize,
    ) -> Result<Self> {
        split_shape(shape, values.len)?;
        if axis >= shape.len() {
            return Err(Error::Axis {
                axis,
                ndim: shape.len(),
            });
        }
        let n_scales = mx_grid(shape, axis).scales();
        check_parts(shape, values.len, &scales, n_scales, "MX", 32)?;
        Ok(DeviceMxArray {
            values,
            scales,
            n_scales,
            shape: shape.to_vec(),
            axis,
        })
    }

    /// The values and the scale buffer, given back.
    pub fn into_parts(self) -> (DeviceNarrowArray<F>, CudaSlice<u8>) {
        (self.values, self.scales)
    }

    /// The axis the blocks of 32 run along.
    pub fn axis(&self) -> usize {
        self.axis
    }
}

/// An NVFP4 array in device memory: packed E2M1 values, one E4M3 scale byte
/// per block of 16 along the last axis (row-major, as
/// [`Nvfp4Array::scales`]) and the `f32` tensor scale.
#[derive(Debug)]
pub struct DeviceNvfp4Array {
    values: DeviceNarrowArray<E2M1>,
    scales: CudaSlice<u8>,
    n_scales: usize,
    shape: Vec<usize>,
    tensor_scale: f32,
}

device_blocked!([] DeviceNvfp4Array, E2M1);

impl DeviceNvfp4Array {
    /// The NVFP4 array of `shape` held in `values`, `scales` (its first
    /// [`scales_len`](Self::scales_len) bytes) and `tensor_scale`.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] when `shape` does not hold `values.len()` values
    /// ([`Error::Invalid`] for no dimensions); [`Error::Length`]
    /// (`BlockScales`) when `scales` is shorter than one byte per block of
    /// 16; [`Error::Invalid`] for a tensor scale that is not finite and
    /// positive.
    pub fn from_parts(
        values: DeviceNarrowArray<E2M1>,
        scales: CudaSlice<u8>,
        shape: &[usize],
        tensor_scale: f32,
    ) -> Result<Self> {
        check_tensor_scale(tensor_scale)?;
        split_shape(shape, values.len)?;
        let n_scales = nvfp4_scales_len(shape);
        check_parts(shape, values.len, &scales, n_scales, "NVFP4", 16)?;
        Ok(DeviceNvfp4Array {
            values,
            scales,
            n_scales,
            shape: shape.to_vec(),
            tensor_scale,
        })
    }

    /// The values, the scale buffer and the tensor scale, given back.
    pub fn into_parts(self) -> (DeviceNarrowArray<E2M1>, CudaSlice<u8>, f32) {
        (self.values, self.scales, self.tensor_scale)
    }

    /// The tensor scale.
    pub fn tensor_scale(&self) -> f32 {
        self.tensor_scale
    }
}

/// `Ok` for a finite, positive tensor scale.
fn check_tensor_scale(s: f32) -> Result<()> {
    if s > 0.0 && s.is_finite() {
        Ok(())
    } else {
        Err(Error::Invalid(
            "the NVFP4 tensor scale must be finite and positive",
        ))
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

/// A value type the GPU block quantizers read: `f32`, `half::f16` or
/// `half::bf16` (sealed), each widened to `f32` exactly.
pub trait QuantizeSource: DeviceRaw + sealed::Sealed {
    /// The kernel tables' index: 0 `f32`, 1 `f16`, 2 `bf16`.
    #[doc(hidden)]
    const INDEX: usize;
}

impl QuantizeSource for f32 {
    const INDEX: usize = 0;
}
impl QuantizeSource for half::f16 {
    const INDEX: usize = 1;
}
impl QuantizeSource for half::bf16 {
    const INDEX: usize = 2;
}

/// What one MX quantize launch computes: the input as `[outer, d, inner]`,
/// `opts`' rule and rounding, and where the outputs go.
fn mx_job(
    (outer, d, inner): (usize, usize, usize),
    opts: &MxOptions,
    swizzled: bool,
    columnwise: bool,
) -> MxQuantize {
    MxQuantize {
        outer,
        d,
        inner,
        rule: opts.scale,
        rounding: opts.rounding,
        swizzled,
        columnwise,
    }
}

/// The MX quantize kernel of format `f` from `S`.
fn mx_quantize_entry<S: QuantizeSource>(f: usize) -> &'static str {
    [MX_QUANTIZE, MX_QUANTIZE_F16, MX_QUANTIZE_BF16][S::INDEX][f]
}

/// The blocks along the last axis of `shape` (`opts.axis`, if given, must
/// be it): the rowwise quantization a GEMM reads, which the swizzled
/// scales need.
fn check_last_axis(shape: &[usize], opts: &MxOptions) -> Result<()> {
    match opts.axis {
        Some(a) if a + 1 != shape.len() => Err(Error::Invalid(
            "swizzled MX scales need blocks along the last axis (MxOptions::axis None)",
        )),
        _ => Ok(()),
    }
}

/// [`Error::Length`] (`BlockScales`) unless `actual >= needed`.
fn check_scales(needed: usize, actual: usize, scheme: &'static str, block: usize) -> Result<()> {
    if actual < needed {
        return Err(Error::Length {
            of: LengthOf::BlockScales { scheme, block },
            expected: needed,
            actual,
        });
    }
    Ok(())
}

impl Gpu {
    /// An MX array of `shape` blocked along `axis` in device memory, not
    /// set: the output of [`mx_quantize_into`](Self::mx_quantize_into),
    /// whose kernels write every value word and scale byte.
    ///
    /// # Errors
    ///
    /// As [`DeviceMxArray::from_parts`]; [`Error::Device`] when an
    /// allocation fails.
    pub fn alloc_mx<F: MxElement>(&self, shape: &[usize], axis: usize) -> Result<DeviceMxArray<F>> {
        let n = split_shape(shape, shape.iter().product())?;
        let len = n.0 * n.1;
        if axis >= shape.len() {
            return Err(Error::Axis {
                axis,
                ndim: shape.len(),
            });
        }
        let values = self.alloc_narrow::<F>(len)?;
        let scales = self.alloc::<u8>(mx_grid(shape, axis).scales())?;
        DeviceMxArray::from_parts(values, scales, shape, axis)
    }

    /// An NVFP4 array of `shape` in device memory, not set, with tensor
    /// scale 1: the output of
    /// [`nvfp4_quantize_into`](Self::nvfp4_quantize_into), which writes
    /// every value word, scale byte and the tensor scale.
    ///
    /// # Errors
    ///
    /// As [`DeviceNvfp4Array::from_parts`]; [`Error::Device`] when an
    /// allocation fails.
    pub fn alloc_nvfp4(&self, shape: &[usize]) -> Result<DeviceNvfp4Array> {
        let n = split_shape(shape, shape.iter().product())?;
        let values = self.alloc_narrow::<E2M1>(n.0 * n.1)?;
        let scales = self.alloc::<u8>(nvfp4_scales_len(shape))?;
        DeviceNvfp4Array::from_parts(values, scales, shape, 1.0)
    }

    /// `bytes` in device memory (at least one byte allocated).
    fn upload_bytes(&self, bytes: &[u8]) -> Result<CudaSlice<u8>> {
        self.htod(bytes)
    }

    /// The host copies of a device block-scaled array's values (with
    /// `shape`) and its `n` scale bytes (1-d). Waits for the stream.
    fn download_blocked<V: BitElement, S: BitElement>(
        &self,
        values: &DeviceNarrowArray<V>,
        shape: &[usize],
        scales: &CudaSlice<u8>,
        n: usize,
    ) -> Result<(NarrowArray<V>, NarrowArray<S>)> {
        let mut host = self.download(values)?;
        host.reshape(shape)?;
        let bytes = self.dtoh(scales, n)?;
        Ok((host, NarrowArray::from_bytes(&bytes, n)?))
    }

    /// The largest finite magnitude of `x` (0 if none), on the device, read
    /// back (waits for the stream).
    fn amax(&self, x: &CudaView<'_, f32>) -> Result<f32> {
        let n = x.len();
        if n == 0 {
            return Ok(0.0);
        }
        let threads = map::amax(n);
        let mut partials = self.alloc::<u32>(threads.warps())?;
        let n64 = n as u64;
        let mut launch = self.launch(AMAX_PARTIALS, threads)?;
        launch.arg(x).arg(&n64).arg(&mut partials);
        // SAFETY: `amax_partials(src, n, partials)` reads `src[..n]` (`x`
        // holds `n` values) and writes one `u32` per warp of the grid
        // (every one: a warp with no value writes 0), which `partials`
        // holds; the CTA size is a multiple of 32.
        unsafe { launch.run() }?;
        let p = self.dtoh(&partials, threads.warps())?;
        Ok(f32::from_bits(p.into_iter().max().unwrap_or(0)))
    }

    /// Quantizes values in device memory (`f32`, `half::f16` or
    /// `half::bf16`, row-major, `out`'s shape) into the MX array `out`,
    /// along `out`'s axis: the bits of [`MxArray::quantize_with`] for the
    /// same options (every scale rule, both roundings; `f16`/`bf16` as their
    /// exact `f32` values). One launch, one pass over the input: each
    /// block's values are read once and its codes and scale written.
    /// Capturable.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] when `opts.axis` is given and is not `out`'s
    /// axis; [`Error::Length`] (`EncodeInput`) unless `src` has `out.len()`
    /// values; [`Error::Device`] when a launch fails.
    pub fn mx_quantize_into<F: MxElement, S: QuantizeSource>(
        &self,
        src: &CudaView<'_, S>,
        opts: &MxOptions,
        out: &mut DeviceMxArray<F>,
    ) -> Result<()> {
        let entry = mx_quantize_entry::<S>(format_index::<F>()?);
        if opts.axis.is_some_and(|a| a != out.axis) {
            return Err(Error::Invalid(
                "MxOptions::axis is not the axis of the output MX array",
            ));
        }
        let n = out.len();
        check_len(LengthOf::EncodeInput, n, src.len())?;
        let (outer, d, inner) = split_axis(&out.shape, out.axis);
        let q = mx_job((outer, d, inner), opts, false, false);
        // SAFETY: `out.values` holds `words_for(F::BITS, n)` words and
        // `out.scales` one byte per block, `q.scales_len()`, both whole
        // allocations (aligned).
        unsafe { self.mx_launch(entry, src, &q, &mut out.values.words, &mut out.scales) }
    }

    /// Quantizes the `[rows, cols]` matrix `src` (row-major, `shape` with
    /// the leading dimensions flattened into rows) into its columnwise MX
    /// array `out` (shape `[cols, rows]`, blocks of 32 along the columns of
    /// `src`): the bits of [`MxArray::quantize_columnwise`], in one launch.
    /// The rowwise array is [`mx_quantize_into`](Self::mx_quantize_into)
    /// (a second read of the input). Capturable.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] when `opts.axis` is given or `out` is not
    /// `[cols, rows]` blocked along its last axis; [`Error::Shape`] when
    /// `shape` does not hold `src.len()` values; [`Error::Device`] when the
    /// launch fails.
    pub fn mx_quantize_columnwise_into<F: MxElement, S: QuantizeSource>(
        &self,
        src: &CudaView<'_, S>,
        shape: &[usize],
        opts: &MxOptions,
        out: &mut DeviceMxArray<F>,
    ) -> Result<()> {
        let entry = mx_quantize_entry::<S>(format_index::<F>()?);
        if opts.axis.is_some() {
            return Err(Error::Invalid(
                "a columnwise MX quantization takes no axis: its blocks run along the columns",
            ));
        }
        let (rows, cols) = split_shape(shape, src.len())?;
        if out.shape != [cols, rows] || out.axis != 1 {
            return Err(Error::Invalid(
                "the columnwise output must have shape [cols, rows], blocked along its last axis",
            ));
        }
        let q = mx_job((rows, cols, 1), opts, false, true);
        // SAFETY: `out` holds the codes and the scales of `[cols, rows]`
        // blocked along its rows, `q.scales_len()` bytes; whole allocations.
        unsafe { self.mx_launch(entry, src, &q, &mut out.values.words, &mut out.scales) }
    }

    /// Quantizes `src` (row-major, `shape`, blocks along the last axis) or,
    /// with `columnwise`, its transpose `[cols, rows]`, into packed codes
    /// `values` and scales in the 128 x 4 tiled layout cuBLASLt and CUTLASS
    /// block-scaled GEMMs read (`scales`: at least
    /// [`swizzled_len(rows, ceil(cols / 32))`](crate::formats::swizzled_len)
    /// bytes, `rows`/`cols` those of the output, padding written as zeros):
    /// the bits of [`MxArray::scales_swizzled`] of the host quantization,
    /// in one launch. Capturable.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for an axis other than the last; [`Error::Shape`] when `shape` does not hold
    /// `src.len()` values; [`Error::Length`] (`EncodeInput`) unless
    /// `values` holds `src.len()` values, (`BlockScales`) when `scales` is
    /// shorter than the tiled layout; [`Error::Device`] when the launch
    /// fails.
    pub fn mx_quantize_swizzled_into<F: MxElement, S: QuantizeSource>(
        &self,
        src: &CudaView<'_, S>,
        shape: &[usize],
        opts: &MxOptions,
        columnwise: bool,
        values: &mut DeviceNarrowArray<F>,
        scales: &mut CudaSlice<u8>,
    ) -> Result<()> {
        let entry = mx_quantize_entry::<S>(format_index::<F>()?);
        check_last_axis(shape, opts)?;
        if columnwise && opts.axis.is_some() {
            return Err(Error::Invalid(
                "a columnwise MX quantization takes no axis: its blocks run along the columns",
            ));
        }
        let (rows, cols) = split_shape(shape, src.len())?;
        check_len(LengthOf::EncodeInput, values.len, src.len())?;
        let q = mx_job((rows, cols, 1), opts, true, columnwise);
        check_scales(q.scales_len(), scales.len(), "MX", 32)?;
        // SAFETY: `values` holds the codes, `scales` the tiled layout
        // (checked), whole allocations.
        unsafe { self.mx_launch(entry, src, &q, &mut values.words, scales) }
    }

    /// Runs the MX quantize kernel `entry` for `q`.
    ///
    /// # Safety
    ///
    /// `src` holds `q.len()` values of `S` (the entry's source type),
    /// `words` the codes of `q.len()` values of `F`, `scales`
    /// `q.scales_len()` bytes; both are whole allocations (aligned).
    unsafe fn mx_launch<S: QuantizeSource>(
        &self,
        entry: &'static str,
        src: &CudaView<'_, S>,
        q: &MxQuantize,
        words: &mut CudaSlice<u64>,
        scales: &mut CudaSlice<u8>,
    ) -> Result<()> {
        let n = q.len();
        if n == 0 {
            return Ok(());
        }
        let (o, dd, i) = (q.outer as u64, q.d as u64, q.inner as u64);
        let (rule, seed, flags) = q.args();
        let mut launch = self.launch(entry, map::blocked(n))?;
        launch
            .arg(src)
            .arg(&o)
            .arg(&dd)
            .arg(&i)
            .arg(&rule)
            .arg(&seed)
            .arg(&flags);
        // SAFETY: `mx_quantize_*(src, outer, d, inner, rule, seed, flags,
        // words, scales)` reads `outer * d * inner` = `n` values and writes
        // the words of `n` codes and `q.scales_len()` scale bytes: the
        // caller's promise sizes them; grid-stride, any grid.
        unsafe { launch.arg(words).arg(scales).run() }
    }

    /// Quantizes `data` (row-major, `shape`) to MX on the device: uploads,
    /// [`mx_quantize_into`](Self::mx_quantize_into) a new array.
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
        split_shape(shape, data.len())?;
        format_index::<F>()?;
        let axis = opts.axis.unwrap_or(shape.len() - 1);
        let mut out = self.alloc_mx::<F>(shape, axis)?;
        let input = self.htod(data)?;
        self.mx_quantize_into(&input.slice(..data.len()), opts, &mut out)?;
        Ok(out)
    }

    /// Dequantizes an MX array on the device into `out`: the bits of
    /// [`MxArray::dequantize`] (NaN for a NaN scale). Capturable.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] (`DequantizeOutput`) unless `out` holds
    /// `a.len()` values; [`Error::Device`] when the launch fails.
    pub fn mx_dequantize_into<F: MxElement>(
        &self,
        a: &DeviceMxArray<F>,
        out: &mut CudaViewMut<'_, f32>,
    ) -> Result<()> {
        let f = format_index::<F>()?;
        let n = a.len();
        check_len(LengthOf::DequantizeOutput, n, out.len())?;
        if n == 0 {
            return Ok(());
        }
        let (outer, d, inner) = split_axis(&a.shape, a.axis);
        let (o, dd, i) = (outer as u64, d as u64, inner as u64);
        let mut launch = self.launch(MX_DEQUANTIZE[f], map::blocked(n))?;
        launch.arg(&a.values.words).arg(&o).arg(&dd).arg(&i);
        launch.arg(&a.scales);
        // SAFETY: `mx_dequantize_*` reads the `n` packed values and the
        // grid's scales of `a` (which hold them) and writes `n` values
        // (`out` holds them, checked); grid-stride, any grid.
        unsafe { launch.arg(out).run() }
    }

    /// Dequantizes an MX array on the device and reads the values back.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when a driver call fails.
    pub fn mx_dequantize<F: MxElement>(&self, a: &DeviceMxArray<F>) -> Result<Vec<f32>> {
        let mut out = self.alloc::<f32>(a.len())?;
        self.mx_dequantize_into(a, &mut out.slice_mut(..a.len()))?;
        self.dtoh(&out, a.len())
    }

    /// Copies an MX array to the device.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when an allocation or a copy fails.
    pub fn upload_mx<F: MxElement>(&self, a: &MxArray<F>) -> Result<DeviceMxArray<F>> {
        let values = self.upload(a.values())?;
        let scales = self.upload_bytes(a.scales().as_bytes())?;
        DeviceMxArray::from_parts(values, scales, a.shape(), a.axis())
    }

    /// Copies an MX array back to the host (waits for the stream).
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

    /// Quantizes values in device memory (`f32`, `half::f16` or
    /// `half::bf16`, row-major, `out`'s shape) into the NVFP4 array `out`:
    /// the bits of [`Nvfp4Array::quantize_with`] for the same options (1 x
    /// 16 blocks or 16 x 16 tiles, every tiny-scale rule, both roundings, a
    /// given or the default tensor scale). One launch, one pass over the
    /// input, with a given tensor scale (capturable); without one, the
    /// default scale is the device amax read back first (`f32` input only:
    /// a wait for the stream), and an input whose amax is 0 is read back
    /// too, to tell all zeros (scale 1) from no finite value (an error).
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for a tensor scale that is not finite and
    /// positive, for data without a finite value and no tensor scale, for
    /// `f16`/`bf16` input without a tensor scale; [`Error::Length`] (`EncodeInput`) unless `src` has `out.len()`
    /// values; [`Error::Device`] when a driver call fails.
    pub fn nvfp4_quantize_into<S: QuantizeSource>(
        &self,
        src: &CudaView<'_, S>,
        opts: &Nvfp4Options,
        out: &mut DeviceNvfp4Array,
    ) -> Result<()> {
        let shape = out.shape.clone();
        let ts = self.nvfp4_launch(
            src,
            &shape,
            opts,
            false,
            &mut out.values.words,
            &mut out.scales,
        )?;
        out.tensor_scale = ts;
        Ok(())
    }

    /// Quantizes `src` (row-major, `shape`) to NVFP4 codes `values` and
    /// scales in the 128 x 4 tiled layout cuBLASLt (`VEC16_UE4M3`) reads
    /// (`scales`: at least [`swizzled_len(rows, ceil(cols / 16))`](crate::formats::swizzled_len)
    /// bytes, padding written as zeros): the bits of
    /// [`Nvfp4Array::scales_swizzled`] of the host quantization, in one
    /// launch (with a given tensor scale). Returns the tensor scale.
    ///
    /// # Errors
    ///
    /// As [`nvfp4_quantize_into`](Self::nvfp4_quantize_into);
    /// [`Error::Shape`] when `shape` does not hold `src.len()` values;
    /// [`Error::Length`] (`EncodeInput`) unless `values` holds `src.len()`
    /// values, (`BlockScales`) when `scales` is shorter than the tiled
    /// layout.
    pub fn nvfp4_quantize_swizzled_into<S: QuantizeSource>(
        &self,
        src: &CudaView<'_, S>,
        shape: &[usize],
        opts: &Nvfp4Options,
        values: &mut DeviceNarrowArray<E2M1>,
        scales: &mut CudaSlice<u8>,
    ) -> Result<f32> {
        split_shape(shape, src.len())?;
        check_len(LengthOf::EncodeInput, values.len, src.len())?;
        self.nvfp4_launch(src, shape, opts, true, &mut values.words, scales)
    }

    /// The NVFP4 quantize launch of `src` (`shape`) into `words` and
    /// `scales` (checked against the layout); the tensor scale used.
    fn nvfp4_launch<S: QuantizeSource>(
        &self,
        src: &CudaView<'_, S>,
        shape: &[usize],
        opts: &Nvfp4Options,
        swizzled: bool,
        words: &mut CudaSlice<u64>,
        scales: &mut CudaSlice<u8>,
    ) -> Result<f32> {
        let entry = NVFP4_QUANTIZE[S::INDEX];
        if let Some(s) = opts.tensor_scale {
            check_tensor_scale(s)?;
        }
        let n: usize = shape.iter().product();
        check_len(LengthOf::EncodeInput, n, src.len())?;
        let tensor_scale = match opts.tensor_scale {
            Some(s) => s,
            None => {
                // SAFETY: `f32` is `S` (index 0).
                let Some(x) = (S::INDEX == 0)
                    .then(|| unsafe { src.transmute::<f32>(n) })
                    .flatten()
                else {
                    return Err(Error::Invalid(
                        "the NVFP4 default tensor scale is computed from f32 input only: pass one",
                    ));
                };
                self.default_tensor_scale(&x)?
            }
        };
        if n == 0 {
            return Ok(tensor_scale);
        }
        let (rows, cols) = split_shape(shape, n)?;
        let matrix_rows = if shape.len() >= 2 {
            shape[shape.len() - 2]
        } else {
            1
        };
        let q = Nvfp4Quantize {
            rows,
            cols,
            matrix_rows,
            tile: match opts.blocks {
                Nvfp4Blocks::Rows => 1,
                Nvfp4Blocks::Tiles16x16 => 16,
            },
            tensor_scale,
            tiny: opts.tiny,
            rounding: opts.rounding,
            swizzled,
        };
        check_scales(q.scales_len(), scales.len(), "NVFP4", 16)?;
        if words.len() < crate::kernels::words_for(4, n) {
            return Err(Error::Length {
                of: LengthOf::EncodeInput,
                expected: n,
                actual: words.len() * 16,
            });
        }
        let (tiny, seed, flags) = q.args();
        let (r, c, m, t) = (rows as u64, cols as u64, matrix_rows as u64, q.tile as u64);
        let mut launch = self.launch(entry, map::blocked(n))?;
        launch.arg(src).arg(&r).arg(&c).arg(&m).arg(&t);
        launch.arg(&tensor_scale).arg(&tiny).arg(&seed).arg(&flags);
        // SAFETY: `nvfp4_quantize*(src, rows, cols, matrix_rows, tile,
        // tensor_scale, tiny, seed, flags, words, scales)` reads `rows *
        // cols` = `n` values of `S` (the entry's type; `src` holds them,
        // checked), writes the words of `n` codes (checked) and
        // `q.scales_len()` scale bytes (checked); whole allocations.
        unsafe { launch.arg(words).arg(scales).run() }?;
        Ok(tensor_scale)
    }

    /// As `Nvfp4Array::default_tensor_scale`: the amax in `f32` over
    /// 6 * 448, or 1 for an all-zero tensor; an error for data without a
    /// finite value (the amax leaves those out, so it is 0 there: the data,
    /// read back, says which).
    fn default_tensor_scale(&self, src: &CudaView<'_, f32>) -> Result<f32> {
        let s = self.amax(src)? / crate::formats::FP4_TIMES_FP8_MAX;
        if s > 0.0 {
            return Ok(s);
        }
        if !src.is_empty() {
            let mut host = alloc::vec![0f32; src.len()];
            self.stream
                .memcpy_dtoh(src, &mut host[..])
                .map_err(super::driver_error::driver("cuMemcpyDtoH"))?;
            if !host.iter().any(|x| x.is_finite()) {
                return Err(crate::formats::NO_FINITE_VALUE);
            }
        }
        Ok(1.0)
    }

    /// Quantizes `data` (row-major, `shape`) to NVFP4 on the device:
    /// uploads, [`nvfp4_quantize_into`](Self::nvfp4_quantize_into) a new
    /// array.
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
        if let Some(s) = opts.tensor_scale {
            check_tensor_scale(s)?;
        }
        split_shape(shape, data.len())?;
        let mut out = self.alloc_nvfp4(shape)?;
        let input = self.htod(data)?;
        self.nvfp4_quantize_into(&input.slice(..data.len()), opts, &mut out)?;
        Ok(out)
    }

    /// Dequantizes an NVFP4 array on the device into `out`: the bits of
    /// [`Nvfp4Array::dequantize`]. Capturable.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] (`DequantizeOutput`) unless `out` holds
    /// `a.len()` values; [`Error::Device`] when the launch fails.
    pub fn nvfp4_dequantize_into(
        &self,
        a: &DeviceNvfp4Array,
        out: &mut CudaViewMut<'_, f32>,
    ) -> Result<()> {
        let n = a.len();
        check_len(LengthOf::DequantizeOutput, n, out.len())?;
        if n == 0 {
            return Ok(());
        }
        let cols = *a.shape.last().unwrap_or(&0);
        let rows = n.checked_div(cols).unwrap_or(0);
        let (r, c) = (rows as u64, cols as u64);
        let mut launch = self.launch(NVFP4_DEQUANTIZE, map::blocked(n))?;
        launch.arg(&a.values.words).arg(&r).arg(&c).arg(&a.scales);
        // SAFETY: `nvfp4_dequantize` reads the `n` packed codes and the
        // scales of `a` and writes `n` values (`out` holds them, checked);
        // grid-stride, any grid.
        unsafe { launch.arg(&a.tensor_scale).arg(out).run() }
    }

    /// Dequantizes an NVFP4 array on the device and reads the values back.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when a driver call fails.
    pub fn nvfp4_dequantize(&self, a: &DeviceNvfp4Array) -> Result<Vec<f32>> {
        let mut out = self.alloc::<f32>(a.len())?;
        self.nvfp4_dequantize_into(a, &mut out.slice_mut(..a.len()))?;
        self.dtoh(&out, a.len())
    }

    /// Copies an NVFP4 array to the device.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when an allocation or a copy fails.
    pub fn upload_nvfp4(&self, a: &Nvfp4Array) -> Result<DeviceNvfp4Array> {
        let values = self.upload(a.values())?;
        let scales = self.upload_bytes(a.scales().as_bytes())?;
        DeviceNvfp4Array::from_parts(values, scales, a.shape(), a.tensor_scale())
    }

    /// Copies an NVFP4 array back to the host (waits for the stream).
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
