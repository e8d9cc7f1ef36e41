//! MX and NVFP4 block-scaled arrays: `MxArray` over bitpack's
//! `MxArray<F>` for each MX element format, and `Nvfp4Array`.
//!
//! Both hold the packed values (a dense LSB-first stream of the whole
//! array, row-major) and the scale codes (one byte each) with the options
//! and errors of the Rust API; the Python side gives them shapes and
//! `ml_dtypes` dtypes.

use bitpack::NarrowArray;
use bitpack::formats::{
    E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, MxArray, MxOptions, Nvfp4Array, Nvfp4Blocks, Nvfp4Options,
    ScaleRule, TinyScale,
};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::floats::encoder;
use crate::{Floats, Half, format_of, new_array, value_error, with_floats};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Mx>()?;
    m.add_class::<Nvfp4>()?;
    m.add_function(wrap_pyfunction!(mx_quantize, m)?)?;
    m.add_function(wrap_pyfunction!(nvfp4_quantize, m)?)?;
    Ok(())
}

/// An MX array of one of the five MX element formats.
enum MxAny {
    E2M1(MxArray<E2M1>),
    E2M3(MxArray<E2M3>),
    E3M2(MxArray<E3M2>),
    E4M3(MxArray<E4M3>),
    E5M2(MxArray<E5M2>),
}

/// Runs `$body` with `$a` the `MxArray<F>` inside `$any`.
macro_rules! each_mx {
    ($any:expr, $a:ident => $body:expr) => {
        match $any {
            MxAny::E2M1($a) => $body,
            MxAny::E2M3($a) => $body,
            MxAny::E3M2($a) => $body,
            MxAny::E4M3($a) => $body,
            MxAny::E5M2($a) => $body,
        }
    };
}

/// Runs `$body` with `$F` the MX element type named `$fmt`, wrapping its
/// `MxArray` result with `$wrap` into `MxAny`.
macro_rules! with_mx_format {
    ($fmt:expr, $F:ident, $wrap:ident => $body:expr) => {{
        let f = format_of($fmt)?;
        if f == bitpack::formats::FloatFormat::E2M1 {
            type $F = E2M1;
            let $wrap = MxAny::E2M1;
            $body
        } else if f == bitpack::formats::FloatFormat::E2M3 {
            type $F = E2M3;
            let $wrap = MxAny::E2M3;
            $body
        } else if f == bitpack::formats::FloatFormat::E3M2 {
            type $F = E3M2;
            let $wrap = MxAny::E3M2;
            $body
        } else if f == bitpack::formats::FloatFormat::E4M3 {
            type $F = E4M3;
            let $wrap = MxAny::E4M3;
            $body
        } else if f == bitpack::formats::FloatFormat::E5M2 {
            type $F = E5M2;
            let $wrap = MxAny::E5M2;
            $body
        } else {
            Err(PyValueError::new_err(format!(
                "{} is not an MX element format; MX elements are float4_e2m1fn, \
                 float6_e2m3fn, float6_e3m2fn, float8_e4m3fn and float8_e5m2",
                $fmt
            )))
        }
    }};
}

fn scale_rule(name: &str) -> PyResult<ScaleRule> {
    match name {
        "floor" => Ok(ScaleRule::Floor),
        "ceil" => Ok(ScaleRule::Ceil),
        "even" => Ok(ScaleRule::Even),
        "rceil" => Ok(ScaleRule::RCeil),
        other => Err(PyValueError::new_err(format!(
            "scale_rule must be \"floor\", \"ceil\", \"even\" or \"rceil\", not {other:?}"
        ))),
    }
}

fn tiny_scale(name: &str) -> PyResult<TinyScale> {
    match name {
        "flush" => Ok(TinyScale::Flush),
        "smallest" => Ok(TinyScale::Smallest),
        "min_normal" => Ok(TinyScale::MinNormal),
        other => Err(PyValueError::new_err(format!(
            "tiny_scale must be \"flush\", \"smallest\" or \"min_normal\", not {other:?}"
        ))),
    }
}

fn bytes_of<'py>(py: Python<'py>, bytes: &[u8]) -> Bound<'py, PyArray1<u8>> {
    PyArray1::from_slice(py, bytes)
}

fn slice_of<'a>(ro: &'a numpy::PyReadonlyArray1<'_, u8>) -> PyResult<&'a [u8]> {
    ro.as_slice().map_err(crate::not_contiguous)
}

/// A packed array of `shape` from its dense stream `bytes`.
fn narrow<T: bitpack::BitElement>(bytes: &[u8], shape: &[usize]) -> PyResult<NarrowArray<T>> {
    let len = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| PyValueError::new_err(format!("the shape {shape:?} overflows")))?;
    let mut a = NarrowArray::<T>::from_bytes(bytes, len).map_err(value_error)?;
    a.reshape(shape).map_err(value_error)?;
    Ok(a)
}

/// An MX array: values of one MX element format in blocks of 32 along one
/// axis, each block with an E8M0 scale.
#[pyclass(name = "MxArray", module = "bitpack._bitpack")]
struct Mx {
    inner: MxAny,
    fmt: &'static str,
}

#[pymethods]
impl Mx {
    /// The element format's `ml_dtypes` name.
    #[getter]
    fn fmt(&self) -> &'static str {
        self.fmt
    }

    /// The shape of the values.
    #[getter]
    fn shape(&self) -> Vec<usize> {
        each_mx!(&self.inner, a => a.shape().to_vec())
    }

    /// The axis the blocks run along.
    #[getter]
    fn axis(&self) -> usize {
        each_mx!(&self.inner, a => a.axis())
    }

    /// The shape of the scales.
    #[getter]
    fn scale_shape(&self) -> Vec<usize> {
        each_mx!(&self.inner, a => a.scales().shape().to_vec())
    }

    /// The values' dense packed stream, flat (a copy).
    #[getter]
    fn codes<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        each_mx!(&self.inner, a => bytes_of(py, a.values().as_bytes()))
    }

    /// The E8M0 scale codes, flat (a copy).
    #[getter]
    fn scales<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        each_mx!(&self.inner, a => bytes_of(py, a.scales().as_bytes()))
    }

    /// The scales in the 128x4 swizzled layout of cuBLASLt and CUTLASS.
    fn scales_swizzled<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        let bytes = each_mx!(&self.inner, a => a.scales_swizzled());
        PyArray1::from_vec(py, bytes)
    }

    /// The values times their block scales, flat `float32`.
    fn dequantize<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let n = each_mx!(&self.inner, a => a.len());
        let inner = &self.inner;
        new_array::<f32>(py, n, |out| each_mx!(inner, a => a.dequantize_into(out)))
    }

    /// Quantizes the flat values `x` (as many as the array holds, of its
    /// shape) into this array's storage, along its axis: the same bits as a
    /// fresh `mx_quantize`, without allocating. Unchanged on error.
    #[pyo3(signature = (x, half, scale_rule_name, seed))]
    fn requantize(
        &mut self,
        py: Python<'_>,
        x: Floats<'_>,
        half: &str,
        scale_rule_name: &str,
        seed: Option<u64>,
    ) -> PyResult<()> {
        let opts = MxOptions {
            scale: scale_rule(scale_rule_name)?,
            axis: Some(self.axis()),
            rounding: encoder("nearest", seed)?.rounding_of(),
        };
        let half = match x {
            Floats::U16(_) => Half::parse(half)?,
            _ => Half::F16,
        };
        let inner = &mut self.inner;
        with_floats!(x, half, |src: &[S]| {
            each_mx!(&mut *inner, a => {
                py.detach(|| a.requantize::<S>(src, &opts)).map_err(value_error)
            })
        })
    }

    /// An MX array from its packed values (the dense stream of `shape`),
    /// its scale codes and the axis of its blocks.
    #[staticmethod]
    #[pyo3(signature = (codes, scales, fmt, shape, scale_shape, axis))]
    fn from_parts(
        codes: numpy::PyReadonlyArray1<'_, u8>,
        scales: numpy::PyReadonlyArray1<'_, u8>,
        fmt: &str,
        shape: Vec<usize>,
        scale_shape: Vec<usize>,
        axis: usize,
    ) -> PyResult<Mx> {
        let (codes, scales) = (slice_of(&codes)?, slice_of(&scales)?);
        let fmt_name = crate::format_info(fmt)?.0;
        with_mx_format!(fmt, F, wrap => {
            let values = narrow::<F>(codes, &shape)?;
            let scales = narrow::<E8M0>(scales, &scale_shape)?;
            let a = MxArray::from_parts_along(values, scales, axis).map_err(value_error)?;
            Ok(Mx { inner: wrap(a), fmt: fmt_name })
        })
    }
}

/// Quantizes the flat values `x` of `shape` to MX blocks of the format
/// `fmt` along `axis`.
#[pyfunction]
#[allow(clippy::too_many_arguments, reason = "one argument per Python keyword")]
#[pyo3(signature = (x, half, shape, fmt, axis, scale_rule_name, seed))]
fn mx_quantize(
    py: Python<'_>,
    x: Floats<'_>,
    half: &str,
    shape: Vec<usize>,
    fmt: &str,
    axis: usize,
    scale_rule_name: &str,
    seed: Option<u64>,
) -> PyResult<Mx> {
    let opts = MxOptions {
        scale: scale_rule(scale_rule_name)?,
        axis: Some(axis),
        rounding: encoder("nearest", seed)?.rounding_of(),
    };
    let half = match x {
        Floats::U16(_) => Half::parse(half)?,
        _ => Half::F16,
    };
    let fmt_name = crate::format_info(fmt)?.0;
    with_floats!(x, half, |src: &[S]| {
        with_mx_format!(fmt, F, wrap => {
            let a = py
                .detach(|| MxArray::<F>::quantize_with::<S>(src, &shape, &opts))
                .map_err(value_error)?;
            Ok(Mx { inner: wrap(a), fmt: fmt_name })
        })
    })
}

/// An NVFP4 array: E2M1 values in blocks of 16 (1 x 16 or 16 x 16), each
/// with an E4M3 scale, and one `float32` tensor scale.
#[pyclass(name = "Nvfp4Array", module = "bitpack._bitpack")]
struct Nvfp4 {
    inner: Nvfp4Array,
}

#[pymethods]
impl Nvfp4 {
    /// The element format's `ml_dtypes` name.
    #[getter]
    fn fmt(&self) -> &'static str {
        "float4_e2m1fn"
    }

    /// The shape of the values.
    #[getter]
    fn shape(&self) -> Vec<usize> {
        self.inner.shape().to_vec()
    }

    /// The shape of the scales.
    #[getter]
    fn scale_shape(&self) -> Vec<usize> {
        self.inner.scales().shape().to_vec()
    }

    /// The tensor scale.
    #[getter]
    fn tensor_scale(&self) -> f32 {
        self.inner.tensor_scale()
    }

    /// The E2M1 values, two per byte, low nibble first, flat (a copy).
    #[getter]
    fn codes<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        bytes_of(py, self.inner.values().as_bytes())
    }

    /// The E4M3 scale codes, flat (a copy).
    #[getter]
    fn scales<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        bytes_of(py, self.inner.scales().as_bytes())
    }

    /// The scales in the 128x4 swizzled layout of cuBLASLt and CUTLASS.
    fn scales_swizzled<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        PyArray1::from_vec(py, self.inner.scales_swizzled())
    }

    /// The values times their block and tensor scales, flat `float32`.
    fn dequantize<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let inner = &self.inner;
        new_array::<f32>(py, inner.len(), |out| inner.dequantize_into(out))
    }

    /// Quantizes the flat values `x` (as many as the array holds, of its
    /// shape) into this array's storage: the same bits as a fresh
    /// `nvfp4_quantize`, without allocating. Unchanged on error.
    #[allow(clippy::too_many_arguments, reason = "one argument per Python keyword")]
    #[pyo3(signature = (x, half, tiles, tensor_scale, tiny, seed))]
    fn requantize(
        &mut self,
        py: Python<'_>,
        x: Floats<'_>,
        half: &str,
        tiles: bool,
        tensor_scale: Option<f32>,
        tiny: &str,
        seed: Option<u64>,
    ) -> PyResult<()> {
        let opts = nvfp4_options(tiles, tensor_scale, tiny, seed)?;
        let half = match x {
            Floats::U16(_) => Half::parse(half)?,
            _ => Half::F16,
        };
        let inner = &mut self.inner;
        with_floats!(x, half, |src: &[S]| {
            py.detach(|| inner.requantize::<S>(src, &opts))
                .map_err(value_error)
        })
    }

    /// An NVFP4 array from its packed E2M1 values (the dense stream of
    /// `shape`), its E4M3 scale codes and its tensor scale.
    #[staticmethod]
    #[pyo3(signature = (codes, scales, tensor_scale, shape, scale_shape))]
    fn from_parts(
        codes: numpy::PyReadonlyArray1<'_, u8>,
        scales: numpy::PyReadonlyArray1<'_, u8>,
        tensor_scale: f32,
        shape: Vec<usize>,
        scale_shape: Vec<usize>,
    ) -> PyResult<Nvfp4> {
        let values = narrow::<E2M1>(slice_of(&codes)?, &shape)?;
        let scales = narrow::<E4M3>(slice_of(&scales)?, &scale_shape)?;
        let inner = Nvfp4Array::from_parts(values, scales, tensor_scale).map_err(value_error)?;
        Ok(Nvfp4 { inner })
    }
}

/// The options of an NVFP4 quantize from its Python arguments.
fn nvfp4_options(
    tiles: bool,
    tensor_scale: Option<f32>,
    tiny: &str,
    seed: Option<u64>,
) -> PyResult<Nvfp4Options> {
    Ok(Nvfp4Options {
        blocks: if tiles {
            Nvfp4Blocks::Tiles16x16
        } else {
            Nvfp4Blocks::Rows
        },
        tensor_scale,
        tiny: tiny_scale(tiny)?,
        rounding: encoder("nearest", seed)?.rounding_of(),
    })
}

/// Quantizes the flat values `x` of `shape` to NVFP4.
#[pyfunction]
#[allow(clippy::too_many_arguments, reason = "one argument per Python keyword")]
#[pyo3(signature = (x, half, shape, tiles, tensor_scale, tiny, seed))]
fn nvfp4_quantize(
    py: Python<'_>,
    x: Floats<'_>,
    half: &str,
    shape: Vec<usize>,
    tiles: bool,
    tensor_scale: Option<f32>,
    tiny: &str,
    seed: Option<u64>,
) -> PyResult<Nvfp4> {
    let opts = nvfp4_options(tiles, tensor_scale, tiny, seed)?;
    let half = match x {
        Floats::U16(_) => Half::parse(half)?,
        _ => Half::F16,
    };
    with_floats!(x, half, |src: &[S]| {
        let inner = py
            .detach(|| Nvfp4Array::quantize_with::<S>(src, &shape, &opts))
            .map_err(value_error)?;
        Ok(Nvfp4 { inner })
    })
}
