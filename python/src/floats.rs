//! Encode to and decode from every shipped format: one code per byte (the
//! storage of `ml_dtypes` arrays) or packed row by row (each row of the
//! last axis a dense LSB-first stream of `ceil(cols * bits / 8)` bytes,
//! which for FP4 is torch's `float4_e2m1fn_x2`).

use bitpack::formats::{
    Encoder, FloatFormat, MiniFloat, Mode, Real, Rounding, decode_packed_as, decode_unpacked_as,
    random_bits,
};
use bitpack::{BitElement, Error, LengthOf};
use half::{bf16, f16};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::threads::split;
use crate::{Floats, Half, format_of, new_array, with_floats, with_format};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    Ok(())
}

pub(crate) fn mode_of(mode: &str) -> PyResult<Mode> {
    match mode {
        "nearest" => Ok(Mode::Nearest),
        "satfinite" => Ok(Mode::SatFinite),
        other => Err(PyValueError::new_err(format!(
            "mode must be \"nearest\" or \"satfinite\", not {other:?}"
        ))),
    }
}

/// The encoder of `mode` and an optional stochastic-rounding seed.
pub(crate) fn encoder(mode: &str, seed: Option<u64>) -> PyResult<Encoder> {
    let e = Encoder::new(mode_of(mode)?);
    Ok(match seed {
        Some(s) => e.stochastic(s),
        None => e,
    })
}

/// `Error::Length` of a decode's input unless `expected == actual`.
fn check_length(expected: usize, actual: usize) -> bitpack::Result<()> {
    if expected == actual {
        return Ok(());
    }
    Err(Error::Length {
        of: LengthOf::DecodeOutput,
        expected,
        actual,
    })
}

/// Rows and bytes per row of `n` values packed `cols` to a row at `bits`.
fn rows_of(n: usize, cols: usize, bits: u32) -> PyResult<(usize, usize)> {
    if cols == 0 {
        return Ok((0, 0));
    }
    if !n.is_multiple_of(cols) {
        return Err(PyValueError::new_err(format!(
            "{n} values do not make rows of {cols}"
        )));
    }
    let row_bytes = (cols as u128 * bits as u128).div_ceil(8);
    Ok((n / cols, row_bytes as usize))
}

/// Whether rows of `cols` values end on byte boundaries (so the rows'
/// bytes are the one dense stream of the whole array).
fn rows_are_the_stream(rows: usize, cols: usize, bits: u32) -> bool {
    rows <= 1 || (cols as u128 * bits as u128).is_multiple_of(8)
}

/// Encodes `src` into `out`, one code a byte (`cols` None) or packed by
/// rows of `cols`.
fn encode_rows<F: MiniFloat, S: Real + Sync>(
    e: &Encoder,
    src: &[S],
    cols: Option<usize>,
    out: &mut [u8],
) -> bitpack::Result<()> {
    // Stochastic rounding draws the random bits of value `i` from its index
    // in the call: one thread, one call.
    let parallel = e.rounding_of() == Rounding::Nearest;
    let n = if parallel { src.len() } else { 0 };
    let bits = F::BITS as usize;
    let Some(cols) = cols else {
        return split(
            src,
            out,
            n,
            1,
            |i| i,
            |i| i,
            |s, o| e.unpacked::<F, S>(s, o),
        );
    };
    let rows = src.len().checked_div(cols).unwrap_or(0);
    if rows_are_the_stream(rows, cols, F::BITS) {
        let at = |i: usize| i * bits / 8;
        return split(src, out, n, 8, |i| i, at, |s, o| e.packed::<F, S>(s, o));
    }
    // Rows that end inside a byte: codes first (the random bits of
    // stochastic rounding follow the flat index), then one stream a row.
    let mut codes = vec![0u8; src.len()];
    e.unpacked::<F, S>(src, &mut codes)?;
    let row_bytes = out.len() / rows;
    let mut words = vec![0u64; (cols * F::BITS as usize).div_ceil(64)];
    for (row, bytes) in codes.chunks(cols).zip(out.chunks_mut(row_bytes)) {
        words.fill(0);
        bitpack::kernels::pack(F::BITS, row, &mut words, 0)?;
        let stream: &[u8] = bytemuck::cast_slice(&words);
        bytes.copy_from_slice(&stream[..row_bytes]);
    }
    Ok(())
}

/// Encodes the flat values `x` (`half`: the kind of a `uint16` buffer) to
/// the format `fmt`: one code per byte, or packed rows of `packed_cols`
/// values (`float16`/`bfloat16` results are `uint16`, never packed).
#[pyfunction]
#[pyo3(signature = (x, half, fmt, mode, seed, packed_cols))]
fn encode<'py>(
    py: Python<'py>,
    x: Floats<'py>,
    half: &str,
    fmt: &str,
    mode: &str,
    seed: Option<u64>,
    packed_cols: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let f = format_of(fmt)?;
    let e = encoder(mode, seed)?;
    let half = match x {
        Floats::U16(_) => Half::parse(half)?,
        _ => Half::F16,
    };
    with_floats!(x, half, |src: &[S]| {
        with_format!(f, F => {
            let len = match packed_cols {
                None => src.len(),
                Some(cols) => {
                    let (rows, row_bytes) = rows_of(src.len(), cols, F::BITS)?;
                    rows * row_bytes
                }
            };
            Ok(new_array::<u8>(py, len, |out| encode_rows::<F, S>(&e, src, packed_cols, out))?
                .into_any())
        }, else {
            encode_half::<S>(py, f, src, &e, packed_cols)
        })
    })
}

fn encode_half<'py, S: Real + Sync>(
    py: Python<'py>,
    f: FloatFormat,
    src: &[S],
    e: &Encoder,
    packed_cols: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    if packed_cols.is_some() {
        return Err(PyValueError::new_err(
            "float16 and bfloat16 are whole 16-bit values: packed=True does not apply",
        ));
    }
    let (mode, rounding) = (e.mode(), e.rounding_of());
    let out = new_array::<u16>(py, src.len(), |out| {
        for (i, (o, &x)) in out.iter_mut().zip(src).enumerate() {
            let x = x.to_f64_exact();
            *o = match rounding {
                Rounding::Nearest => f.encode_f64(x, mode),
                Rounding::Stochastic { seed } => {
                    f.encode_f64_stochastic(x, mode, random_bits(seed, i as u64))
                }
            } as u16;
        }
        Ok(())
    })?;
    Ok(out.into_any())
}

/// Output buffers of a decode, by the Python side's dtype name.
enum Out<'py> {
    F32(Bound<'py, PyArray1<f32>>),
    F64(Bound<'py, PyArray1<f64>>),
    U16(Bound<'py, PyArray1<u16>>),
}

/// Decodes `n` values of `fmt` from `codes` (one a byte, or packed rows of
/// `packed_cols`; `uint16` for `float16`/`bfloat16`) into a new flat array
/// of `dtype` (`float32`, `float64`, `float16` or `bfloat16`).
#[pyfunction]
#[pyo3(signature = (codes, fmt, n, packed_cols, dtype))]
fn decode<'py>(
    py: Python<'py>,
    codes: &Bound<'py, PyAny>,
    fmt: &str,
    n: usize,
    packed_cols: Option<usize>,
    dtype: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let f = format_of(fmt)?;
    let out_half = match dtype {
        "float32" | "float64" => None,
        other => Some(Half::parse(other).map_err(|_| {
            PyValueError::new_err(format!(
                "dtype must be float32, float64, float16 or bfloat16, not {other}"
            ))
        })?),
    };
    macro_rules! run {
        (|$dst:ident: &mut [$S:ident]| $fill:expr) => {{
            let out: Out<'py> = match (dtype, out_half) {
                ("float64", _) => {
                    type $S = f64;
                    Out::F64(new_array::<f64>(py, n, |$dst| $fill)?)
                }
                (_, Some(Half::F16)) => {
                    type $S = f16;
                    Out::U16(new_array::<u16>(py, n, |d| {
                        let $dst: &mut [$S] = bytemuck::cast_slice_mut(d);
                        $fill
                    })?)
                }
                (_, Some(Half::Bf16)) => {
                    type $S = bf16;
                    Out::U16(new_array::<u16>(py, n, |d| {
                        let $dst: &mut [$S] = bytemuck::cast_slice_mut(d);
                        $fill
                    })?)
                }
                _ => {
                    type $S = f32;
                    Out::F32(new_array::<f32>(py, n, |$dst| $fill)?)
                }
            };
            Ok(match out {
                Out::F32(a) => a.into_any(),
                Out::F64(a) => a.into_any(),
                Out::U16(a) => a.into_any(),
            })
        }};
    }
    with_format!(f, F => {
        let arr = codes.cast::<PyArray1<u8>>().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err("codes must be a flat uint8 array")
        })?;
        let ro = arr.readonly();
        let bytes: &[u8] = ro.as_slice().map_err(crate::not_contiguous)?;
        run!(|dst: &mut [S]| decode_rows::<F, S>(bytes, packed_cols, dst))
    }, else {
        let arr = codes.cast::<PyArray1<u16>>().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err("float16/bfloat16 codes must be a flat uint16 array")
        })?;
        let ro = arr.readonly();
        let bits: &[u16] = ro.as_slice().map_err(crate::not_contiguous)?;
        if packed_cols.is_some() {
            return Err(PyValueError::new_err(
                "float16 and bfloat16 are whole 16-bit values: packed=True does not apply",
            ));
        }
        run!(|dst: &mut [S]| {
            check_length(bits.len(), dst.len())?;
            for (d, &b) in dst.iter_mut().zip(bits) {
                *d = S::from_f64_rounded(f.decode_f64(b as u32));
            }
            Ok(())
        })
    })
}

/// A decode result type from the exact `f64` of a `float16`/`bfloat16`
/// value: rounded once (exact for `f32` and `f64`).
trait FromF64 {
    fn from_f64_rounded(v: f64) -> Self;
}

impl FromF64 for f32 {
    fn from_f64_rounded(v: f64) -> Self {
        v as f32
    }
}

impl FromF64 for f64 {
    fn from_f64_rounded(v: f64) -> Self {
        v
    }
}

impl FromF64 for f16 {
    fn from_f64_rounded(v: f64) -> Self {
        f16::from_bits(FloatFormat::F16.encode_f64(v, Mode::Nearest) as u16)
    }
}

impl FromF64 for bf16 {
    fn from_f64_rounded(v: f64) -> Self {
        bf16::from_bits(FloatFormat::BF16.encode_f64(v, Mode::Nearest) as u16)
    }
}

/// Decodes `bytes` (one code a byte, or rows of `cols` packed) into `dst`.
fn decode_rows<F: MiniFloat, S: Real + Send>(
    bytes: &[u8],
    cols: Option<usize>,
    dst: &mut [S],
) -> bitpack::Result<()> {
    let n = dst.len();
    let bits = F::BITS as usize;
    let Some(cols) = cols else {
        return split(bytes, dst, n, 1, |i| i, |i| i, decode_unpacked_as::<F, S>);
    };
    if cols == 0 {
        // Rows of no values: no bytes and nothing to decode.
        return check_length(0, bytes.len().max(dst.len()));
    }
    if !dst.len().is_multiple_of(cols) {
        return Err(Error::Invalid("the values do not make whole rows"));
    }
    let rows = dst.len() / cols;
    let row_bytes = (cols * F::BITS as usize).div_ceil(8);
    check_length(rows * row_bytes, bytes.len())?;
    if rows_are_the_stream(rows, cols, F::BITS) {
        let at = |i: usize| i * bits / 8;
        return split(bytes, dst, n, 8, at, |i| i, decode_packed_as::<F, S>);
    }
    for (row, d) in bytes.chunks(row_bytes).zip(dst.chunks_mut(cols)) {
        decode_packed_as::<F, S>(row, d)?;
    }
    Ok(())
}
