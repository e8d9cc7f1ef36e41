//! Narrow integers: `pack` writes values of 1..=64 bits as one dense
//! LSB-first stream (at 1 bit, the bytes of `numpy.packbits(...,
//! bitorder="little")`), `unpack` reads them back, through bitpack's
//! width-monomorphized kernels.

use bitpack::kernels;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::new_array;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pack, m)?)?;
    m.add_function(wrap_pyfunction!(unpack, m)?)?;
    Ok(())
}

/// Flat, C-contiguous integer input of any numpy integer type.
#[derive(FromPyObject)]
enum Ints<'py> {
    U8(PyReadonlyArray1<'py, u8>),
    U16(PyReadonlyArray1<'py, u16>),
    U32(PyReadonlyArray1<'py, u32>),
    U64(PyReadonlyArray1<'py, u64>),
    I8(PyReadonlyArray1<'py, i8>),
    I16(PyReadonlyArray1<'py, i16>),
    I32(PyReadonlyArray1<'py, i32>),
    I64(PyReadonlyArray1<'py, i64>),
}

/// Values packed per call of the kernel: a chunk's range check and its
/// conversion stay in the cache.
const CHUNK: usize = 4096;

/// An integer type of the input, as what `pack` needs: its value as `i128`
/// and its bits as the kernel's carrier.
trait Int: Copy + Send + Sync {
    fn wide(self) -> i128;
}

macro_rules! int {
    ($($t:ty),*) => {$(
        impl Int for $t {
            fn wide(self) -> i128 {
                self as i128
            }
        }
    )*};
}
int!(u8, u16, u32, u64, i8, i16, i32, i64);

/// Packs `src` at `bits` into `words`: each value checked against the
/// range of `bits` (signed or not) unless `wrap`, where its low `bits`
/// are kept (two's complement), as `ml_dtypes`' integer casts do.
fn pack_into<T: Int>(
    src: &[T],
    bits: u32,
    signed: bool,
    wrap: bool,
    words: &mut [u64],
) -> Result<(), String> {
    let (lo, hi): (i128, i128) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let mut buf = [0u64; CHUNK];
    for (k, chunk) in src.chunks(CHUNK).enumerate() {
        let b = &mut buf[..chunk.len()];
        for (i, (o, &x)) in b.iter_mut().zip(chunk).enumerate() {
            let v = x.wide();
            if !wrap && (v < lo || v > hi) {
                return Err(format!(
                    "value {v} at index {} does not fit in {bits} {} bits (range {lo}..={hi}); \
                     pass overflow=\"wrap\" to keep its low {bits} bits",
                    k * CHUNK + i,
                    if signed { "signed" } else { "unsigned" },
                ));
            }
            *o = (v as u64) & mask;
        }
        kernels::pack(bits, &*b, words, k * CHUNK).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Packs the flat integers `values` at `bits` (1..=64) into a dense
/// LSB-first stream of `ceil(n * bits / 8)` bytes.
#[pyfunction]
#[pyo3(signature = (values, bits, signed, wrap))]
fn pack<'py>(
    py: Python<'py>,
    values: Ints<'py>,
    bits: u32,
    signed: bool,
    wrap: bool,
) -> PyResult<Bound<'py, PyArray1<u8>>> {
    if !(1..=64).contains(&bits) {
        return Err(PyValueError::new_err(format!(
            "bits must be 1..=64, not {bits}"
        )));
    }
    macro_rules! run {
        ($($v:ident),*) => {
            match &values {
                $(Ints::$v(a) => {
                    let src = a.as_slice().map_err(crate::not_contiguous)?;
                    let nbits = src.len() as u128 * bits as u128;
                    let mut words = vec![0u64; nbits.div_ceil(64) as usize];
                    py.detach(|| pack_into(src, bits, signed, wrap, &mut words))
                        .map_err(PyValueError::new_err)?;
                    let stream: &[u8] = bytemuck::cast_slice(&words);
                    Ok(PyArray1::from_slice(py, &stream[..nbits.div_ceil(8) as usize]))
                })*
            }
        };
    }
    run!(U8, U16, U32, U64, I8, I16, I32, I64)
}

/// Unpacks `n` values of `bits` from the stream `packed` into the smallest
/// numpy integer type that holds them (sign-extended when `signed`).
#[pyfunction]
#[pyo3(signature = (packed, bits, n, signed))]
fn unpack<'py>(
    py: Python<'py>,
    packed: PyReadonlyArray1<'py, u8>,
    bits: u32,
    n: usize,
    signed: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if !(1..=64).contains(&bits) {
        return Err(PyValueError::new_err(format!(
            "bits must be 1..=64, not {bits}"
        )));
    }
    let bytes = packed.as_slice().map_err(crate::not_contiguous)?;
    let needed = (n as u128 * bits as u128).div_ceil(8);
    if needed > bytes.len() as u128 {
        return Err(PyValueError::new_err(format!(
            "unpack of {n} values of {bits} bits needs {needed} bytes; the buffer has {}",
            bytes.len()
        )));
    }
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
    macro_rules! run {
        ($u:ty, $i:ty, $name:literal) => {{
            let out = new_array::<$u>(py, n, |dst| {
                kernels::unpack(bits, &words, 0, dst)?;
                if signed && bits < <$u>::BITS {
                    let shift = <$u>::BITS - bits;
                    for v in dst.iter_mut() {
                        *v = (((*v << shift) as $i) >> shift) as $u;
                    }
                }
                Ok(())
            })?;
            if signed {
                // The same bytes as the signed type of the same size.
                Ok(out.call_method1("view", ($name,))?)
            } else {
                Ok(out.into_any())
            }
        }};
    }
    match bits {
        1..=8 => run!(u8, i8, "int8"),
        9..=16 => run!(u16, i16, "int16"),
        17..=32 => run!(u32, i32, "int32"),
        _ => run!(u64, i64, "int64"),
    }
}
