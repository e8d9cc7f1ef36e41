//! `bitpack._bitpack`: the Rust half of the `bitpack` Python package.
//!
//! The Python half (`python/bitpack/__init__.py`) takes any array-like,
//! makes it a C-contiguous numpy array of `float32`, `float64` or (for
//! `float16`/`bfloat16`) `uint16`, and calls the functions here with
//! flat buffers, a format name and the options; it gives the results their
//! shapes and `ml_dtypes` dtypes. Every bulk call here releases the GIL
//! (`Python::detach`) while bitpack's kernels run. Errors are `ValueError`
//! (bitpack's message) or `TypeError` (an argument of the wrong kind).
//!
//! - `floats.rs`: encode and decode for every shipped format;
//! - `blocked.rs`: MX and NVFP4 arrays (`MxArray`, `Nvfp4Array`);
//! - `ints.rs`: packing narrow integers;
//! - `threads.rs`: large calls split over threads;
//! - `dlpack.rs`: DLPack export of numpy memory with bitpack's dtype codes,
//!   and import of any producer's capsule through bitpack's validation.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

mod blocked;
mod dlpack;
mod floats;
mod ints;
mod threads;

/// A bitpack error as a Python `ValueError` with its message.
pub(crate) fn value_error(e: bitpack::Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A new 1-d numpy array of `len` zeros of `T`, filled by `fill` with the
/// GIL released; `fill`'s error leaves no array behind.
pub(crate) fn new_array<'py, T: numpy::Element + Send>(
    py: Python<'py>,
    len: usize,
    fill: impl FnOnce(&mut [T]) -> bitpack::Result<()> + Send,
) -> PyResult<Bound<'py, PyArray1<T>>> {
    let out = PyArray1::<T>::zeros(py, len, false);
    {
        let mut w = out.readwrite();
        let values = w.as_slice_mut().map_err(not_contiguous)?;
        py.detach(|| fill(values)).map_err(value_error)?;
    }
    Ok(out)
}

/// Flat, C-contiguous input values: the element types the Python side
/// hands over (`float16` and `bfloat16` travel as `uint16`, with their
/// kind named by a separate argument).
#[derive(FromPyObject)]
pub(crate) enum Floats<'py> {
    F32(numpy::PyReadonlyArray1<'py, f32>),
    F64(numpy::PyReadonlyArray1<'py, f64>),
    U16(numpy::PyReadonlyArray1<'py, u16>),
}

/// The element type of a `Floats::U16` buffer, from the Python side's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Half {
    F16,
    Bf16,
}

impl Half {
    pub(crate) fn parse(kind: &str) -> PyResult<Half> {
        match kind {
            "float16" => Ok(Half::F16),
            "bfloat16" => Ok(Half::Bf16),
            other => Err(PyTypeError::new_err(format!(
                "a uint16 buffer must be float16 or bfloat16, not {other}"
            ))),
        }
    }
}

/// Runs `$body` with `$S` the Rust type of `$x`'s elements and `$src` the
/// slice, for every input kind.
macro_rules! with_floats {
    ($x:expr, $half:expr, |$src:ident: &[$S:ident]| $body:expr) => {{
        match &$x {
            $crate::Floats::F32(a) => {
                type $S = f32;
                let $src: &[$S] = a.as_slice().map_err($crate::not_contiguous)?;
                $body
            }
            $crate::Floats::F64(a) => {
                type $S = f64;
                let $src: &[$S] = a.as_slice().map_err($crate::not_contiguous)?;
                $body
            }
            $crate::Floats::U16(a) => {
                let raw: &[u16] = a.as_slice().map_err($crate::not_contiguous)?;
                match $half {
                    $crate::Half::F16 => {
                        type $S = half::f16;
                        let $src: &[$S] = bytemuck::cast_slice(raw);
                        $body
                    }
                    $crate::Half::Bf16 => {
                        type $S = half::bf16;
                        let $src: &[$S] = bytemuck::cast_slice(raw);
                        $body
                    }
                }
            }
        }
    }};
}
pub(crate) use with_floats;

pub(crate) fn not_contiguous(e: numpy::AsSliceError) -> PyErr {
    PyValueError::new_err(format!("the buffer must be C-contiguous: {e}"))
}

/// Runs `$body` with `$F` the shipped element type of the format `$fmt`
/// (a `FloatFormat`); `$other` for `float16` and `bfloat16`, which are no
/// `MiniFloat`.
macro_rules! with_format {
    ($fmt:expr, $F:ident => $body:expr, else $other:expr) => {{
        use bitpack::formats::*;
        let f: FloatFormat = $fmt;
        if f == E2M1::FORMAT {
            type $F = E2M1;
            $body
        } else if f == E2M3::FORMAT {
            type $F = E2M3;
            $body
        } else if f == E3M2::FORMAT {
            type $F = E3M2;
            $body
        } else if f == E4M3::FORMAT {
            type $F = E4M3;
            $body
        } else if f == E5M2::FORMAT {
            type $F = E5M2;
            $body
        } else if f == E8M0::FORMAT {
            type $F = E8M0;
            $body
        } else if f == E3M4::FORMAT {
            type $F = E3M4;
            $body
        } else if f == E4M3Ieee::FORMAT {
            type $F = E4M3Ieee;
            $body
        } else if f == E4M3Fnuz::FORMAT {
            type $F = E4M3Fnuz;
            $body
        } else if f == E5M2Fnuz::FORMAT {
            type $F = E5M2Fnuz;
            $body
        } else if f == E4M3B11Fnuz::FORMAT {
            type $F = E4M3B11Fnuz;
            $body
        } else {
            $other
        }
    }};
}
pub(crate) use with_format;

/// The format of a name (`float8_e4m3fn`, `E4M3`, any case).
pub(crate) fn format_of(name: &str) -> PyResult<bitpack::formats::FloatFormat> {
    bitpack::formats::FloatFormat::try_by_name(name).map_err(value_error)
}

/// `(ml_dtypes name, bits)` of a format name, for the Python side.
#[pyfunction]
fn format_info(name: &str) -> PyResult<(&'static str, u32)> {
    let f = format_of(name)?;
    let canonical = f
        .names()
        .map(|n| n.ml_dtypes)
        .ok_or_else(|| PyValueError::new_err(format!("{name} has no ml_dtypes name")))?;
    Ok((canonical, f.bits()))
}

/// The `ml_dtypes` names of every shipped format, smallest first (the
/// crate's table order within a width).
#[pyfunction]
fn format_names() -> Vec<&'static str> {
    let mut shipped = bitpack::formats::FloatFormat::shipped().to_vec();
    shipped.sort_by_key(|(f, _)| f.bits());
    shipped.iter().map(|(_, n)| n.ml_dtypes).collect()
}

/// `(code, bits)` of a format's DLPack data type (one lane).
#[pyfunction]
fn dlpack_code(name: &str) -> PyResult<(u8, u8)> {
    use bitpack::dlpack::DlpackElement;
    let f = format_of(name)?;
    let t = with_format!(f, F => <F as DlpackElement>::DTYPE, else {
        if f == bitpack::formats::FloatFormat::BF16 {
            <half::bf16 as DlpackElement>::DTYPE
        } else {
            <half::f16 as DlpackElement>::DTYPE
        }
    });
    Ok((t.code, t.bits))
}

/// DLPack's codes of the plain numeric kinds: `int`, `uint`, `float`,
/// `bfloat`, `bool`.
#[pyfunction]
fn dlpack_kinds() -> Vec<(&'static str, u8)> {
    use bitpack::dlpack::code;
    vec![
        ("int", code::INT),
        ("uint", code::UINT),
        ("float", code::FLOAT),
        ("bfloat", code::BFLOAT),
        ("bool", code::BOOL),
    ]
}

/// `bitpack._bitpack`.
#[pymodule]
fn _bitpack(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(format_info, m)?)?;
    m.add_function(wrap_pyfunction!(format_names, m)?)?;
    m.add_function(wrap_pyfunction!(dlpack_code, m)?)?;
    m.add_function(wrap_pyfunction!(dlpack_kinds, m)?)?;
    floats::register(m)?;
    blocked::register(m)?;
    ints::register(m)?;
    dlpack::register(m)?;
    threads::register(m)?;
    Ok(())
}
