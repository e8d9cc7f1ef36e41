//! A C ABI over `bitpack`'s DLPack and Arrow interop, for the Python
//! round-trip test (`python/tests/test_roundtrip.py`, through `ctypes`).
//!
//! Element kinds are small integers (`KIND_*`). Every function returns 0 on
//! success and 1 on failure, with the error's message written (truncated,
//! NUL-terminated) into the caller's `err` buffer; none panics across the
//! boundary.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use arbitrary_int::u4;
use arrow_buffer::{BooleanBuffer, Buffer};
use bitpack::dlpack::{DLManagedTensorVersioned, DlpackElement, DlpackTensor, ShapeUnit};
use bitpack::formats::{self, MiniFloat, Mode};
use bitpack::{BitElement, E2M1, E4M3, Error, NarrowArray};

/// `u8`.
pub const KIND_U8: u32 = 0;
/// `u16`.
pub const KIND_U16: u32 = 1;
/// `i32`.
pub const KIND_I32: u32 = 2;
/// `half::f16`.
pub const KIND_F16: u32 = 3;
/// `f32`.
pub const KIND_F32: u32 = 4;
/// `bool`: exported unpacked (`kDLBool`, 8 bits), packed in bitpack.
pub const KIND_BOOL: u32 = 5;
/// [`E4M3`] (`kDLFloat8_e4m3fn`).
pub const KIND_E4M3: u32 = 6;
/// [`E2M1`] (`kDLFloat4_e2m1fn`).
pub const KIND_E2M1: u32 = 7;
/// `arbitrary_int::u4` (`kDLUInt`, 4 bits).
pub const KIND_U4: u32 = 8;

/// A raw mutable byte buffer from the caller.
struct Out {
    ptr: *mut u8,
    len: usize,
}

impl Out {
    /// Copies `src` in, or fails naming both sizes.
    fn write(&self, src: &[u8]) -> Result<(), String> {
        if src.len() > self.len {
            return Err(format!(
                "output buffer holds {} bytes, {} needed",
                self.len,
                src.len()
            ));
        }
        if !src.is_empty() {
            // SAFETY: the caller gives `len` writable bytes at `ptr`, and
            // `src` is at most `len` bytes of another buffer.
            unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr, src.len()) };
        }
        Ok(())
    }
}

/// Writes `msg` into the caller's error buffer (NUL-terminated).
fn report(err: *mut c_char, err_len: usize, msg: &str) {
    if err.is_null() || err_len == 0 {
        return;
    }
    let n = msg.len().min(err_len - 1);
    let out = Out {
        ptr: err.cast(),
        len: err_len,
    };
    let mut bytes = msg.as_bytes()[..n].to_vec();
    bytes.push(0);
    let _ = out.write(&bytes);
}

/// Runs `f`, turning an error or a panic into 1 and a message.
fn guard(err: *mut c_char, err_len: usize, f: impl FnOnce() -> Result<(), String>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => 0,
        Ok(Err(msg)) => {
            report(err, err_len, &msg);
            1
        }
        Err(_) => {
            report(err, err_len, "panic in bitpack-python");
            1
        }
    }
}

// The CPython capsule API, resolved when Python loads this library (a
// Python process exports it), as in every CPython extension.
unsafe extern "C" {
    fn PyCapsule_IsValid(capsule: *mut c_void, name: *const c_char) -> c_int;
    fn PyCapsule_GetPointer(capsule: *mut c_void, name: *const c_char) -> *mut c_void;
}

/// The destructor of the `dltensor_versioned` capsules the Python side makes
/// from bitpack exports: calls the tensor's deleter when no consumer took
/// it (the DLPack Python specification), and does nothing for a consumed
/// (renamed) capsule. It is C, not a Python callback, so that it runs even
/// when the consumer raised before dropping the capsule (a Python callback
/// cannot start while an exception is set: numpy's refusal of a float4
/// export ended in a `SystemError` that way, and leaked the tensor).
///
/// # Safety
///
/// Called by CPython with a live capsule, with the GIL held.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bitpack_capsule_destructor(capsule: *mut c_void) {
    const NAME: &CStr = c"dltensor_versioned";
    // SAFETY: a live capsule (CPython's call); neither function touches the
    // error state on this path.
    if unsafe { PyCapsule_IsValid(capsule, NAME.as_ptr()) } != 1 {
        return;
    }
    // SAFETY: as above; the name matched, so this returns the pointer.
    let m =
        unsafe { PyCapsule_GetPointer(capsule, NAME.as_ptr()) }.cast::<DLManagedTensorVersioned>();
    if m.is_null() {
        return;
    }
    // SAFETY: an unconsumed export of this library: its deleter, once.
    if let Some(deleter) = unsafe { (*m).deleter } {
        // SAFETY: as above.
        unsafe { deleter(m) };
    }
}

/// A borrowed input byte slice.
///
/// # Safety
///
/// `ptr` points to `len` readable bytes (or `len` is 0).
unsafe fn input<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the caller's promise.
    unsafe { std::slice::from_raw_parts(ptr, len) }
}

/// A shape from the caller.
///
/// # Safety
///
/// `shape` points to `ndim` readable `i64`s (or `ndim` is 0).
unsafe fn shape_of(shape: *const i64, ndim: i32) -> Result<Vec<usize>, String> {
    let ndim = usize::try_from(ndim).map_err(|_| format!("ndim {ndim} is negative"))?;
    if ndim == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: the caller's promise.
    let raw = unsafe { std::slice::from_raw_parts(shape, ndim) };
    raw.iter()
        .map(|&d| usize::try_from(d).map_err(|_| format!("extent {d} is negative")))
        .collect()
}

/// A packed array of `T` from the caller's packed bytes and shape.
fn array<T: BitElement>(bytes: &[u8], shape: &[usize]) -> Result<NarrowArray<T>, Error> {
    let n = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or(Error::Shape {
            elements: None,
            len: bytes.len(),
        })?;
    let mut a = NarrowArray::<T>::from_bytes(bytes, n)?;
    a.reshape(shape)?;
    Ok(a)
}

fn export<T: DlpackElement>(
    bytes: &[u8],
    shape: &[usize],
    unit: ShapeUnit,
) -> Result<DlpackTensor<'static>, Error> {
    DlpackTensor::from_narrow_array_with(array::<T>(bytes, shape)?, unit)
}

/// Exports the packed stream `bytes` of an array of `kind` with `shape` as a
/// DLPack tensor (owned by the result; the consumer calls its deleter).
/// `bool` is exported unpacked (`kDLBool`, 8 bits), everything else without
/// a copy of the array bitpack builds. `unit` 0 counts the shape in values
/// (`ShapeUnit::Values`), 1 in bytes (`ShapeUnit::Bytes`, torch's
/// `float4_e2m1fn_x2` for E2M1).
///
/// # Safety
///
/// `bytes` points to `nbytes` readable bytes, `shape` to `ndim` `i64`s,
/// `out` to one writable pointer, `err` to `err_len` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bitpack_export(
    kind: u32,
    bytes: *const u8,
    nbytes: usize,
    shape: *const i64,
    ndim: i32,
    unit: u32,
    out: *mut *mut DLManagedTensorVersioned,
    err: *mut c_char,
    err_len: usize,
) -> i32 {
    guard(err, err_len, || {
        // SAFETY: the caller's promises, passed on.
        let bytes = unsafe { input(bytes, nbytes) };
        // SAFETY: as above.
        let shape = unsafe { shape_of(shape, ndim) }?;
        let unit = match unit {
            0 => ShapeUnit::Values,
            1 => ShapeUnit::Bytes,
            _ => return Err(format!("unknown shape unit {unit}")),
        };
        let t = match kind {
            KIND_U8 => export::<u8>(bytes, &shape, unit),
            KIND_U16 => export::<u16>(bytes, &shape, unit),
            KIND_I32 => export::<i32>(bytes, &shape, unit),
            KIND_F16 => export::<half::f16>(bytes, &shape, unit),
            KIND_F32 => export::<f32>(bytes, &shape, unit),
            KIND_E4M3 => export::<E4M3>(bytes, &shape, unit),
            KIND_E2M1 => export::<E2M1>(bytes, &shape, unit),
            KIND_U4 => export::<u4>(bytes, &shape, unit),
            KIND_BOOL => {
                array::<bool>(bytes, &shape).map(|a| DlpackTensor::from_bools_unpacked(&a))
            }
            _ => return Err(format!("unknown kind {kind}")),
        }
        .map_err(|e| e.to_string())?;
        // SAFETY: the caller gives one writable pointer.
        unsafe { out.write(t.into_raw()) };
        Ok(())
    })
}

/// Imports `managed` as `kind` and writes its packed stream to `out`, its
/// shape to `shape_out` (room for 64) and `ndim_out`. `mode` 0 borrows the
/// tensor in place (compact packed data only), 1 copies it into a
/// `NarrowArray` (strided, padded and unpacked-bool data too). The tensor is
/// released either way, also on error.
///
/// # Safety
///
/// `managed` is a DLPack tensor the caller hands over (see
/// `DlpackTensor::from_raw`); `out` points to `out_len` writable bytes,
/// `written` to a `usize`, `shape_out` to 64 `i64`s, `ndim_out` to an
/// `i32`, `err` to `err_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bitpack_import(
    kind: u32,
    managed: *mut DLManagedTensorVersioned,
    mode: u32,
    out: *mut u8,
    out_len: usize,
    written: *mut usize,
    shape_out: *mut i64,
    ndim_out: *mut i32,
    err: *mut c_char,
    err_len: usize,
) -> i32 {
    guard(err, err_len, || {
        // SAFETY: the caller hands the tensor over.
        let t = unsafe { DlpackTensor::from_raw(managed) }.map_err(|e| e.to_string())?;
        let (bytes, shape) = match kind {
            KIND_U8 => packed::<u8>(&t, mode),
            KIND_U16 => packed::<u16>(&t, mode),
            KIND_I32 => packed::<i32>(&t, mode),
            KIND_F16 => packed::<half::f16>(&t, mode),
            KIND_F32 => packed::<f32>(&t, mode),
            KIND_BOOL => packed::<bool>(&t, mode),
            KIND_E4M3 => packed::<E4M3>(&t, mode),
            KIND_E2M1 => packed::<E2M1>(&t, mode),
            KIND_U4 => packed::<u4>(&t, mode),
            _ => return Err(format!("unknown kind {kind}")),
        }
        .map_err(|e| e.to_string())?;
        Out {
            ptr: out,
            len: out_len,
        }
        .write(&bytes)?;
        if shape.len() > 64 {
            return Err(format!("{} dimensions", shape.len()));
        }
        let shape_bytes: Vec<u8> = shape
            .iter()
            .flat_map(|&d| (d as i64).to_ne_bytes())
            .collect();
        Out {
            ptr: shape_out.cast(),
            len: 64 * 8,
        }
        .write(&shape_bytes)?;
        // SAFETY: the caller gives a writable `usize` and `i32`.
        unsafe { written.write(bytes.len()) };
        // SAFETY: as above.
        unsafe { ndim_out.write(shape.len() as i32) };
        Ok(())
    })
}

/// The packed bytes and shape of an import.
fn packed<T: DlpackElement>(
    t: &DlpackTensor<'_>,
    mode: u32,
) -> Result<(Vec<u8>, Vec<usize>), Error> {
    if mode == 0 {
        let r = t.as_narrow_ref::<T>()?;
        Ok((r.as_bytes().to_vec(), r.shape().to_vec()))
    } else {
        let a = t.to_narrow_array::<T>()?;
        Ok((a.as_bytes().to_vec(), a.shape().to_vec()))
    }
}

fn encode<F: MiniFloat>(src: &[f32], out: &Out) -> Result<(), String> {
    out.write(formats::encode::<F>(src, Mode::Nearest).as_bytes())
}

/// Encodes `n` floats with bitpack's round-to-nearest into the packed
/// stream of `kind` (`KIND_E2M1` or `KIND_E4M3`).
///
/// # Safety
///
/// `src` points to `n` `f32`s, `out` to `out_len` writable bytes, `err` to
/// `err_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bitpack_encode(
    kind: u32,
    src: *const f32,
    n: usize,
    out: *mut u8,
    out_len: usize,
    err: *mut c_char,
    err_len: usize,
) -> i32 {
    guard(err, err_len, || {
        let src: &[f32] = if n == 0 {
            &[]
        } else {
            // SAFETY: the caller gives `n` readable `f32`s.
            unsafe { std::slice::from_raw_parts(src, n) }
        };
        let out = Out {
            ptr: out,
            len: out_len,
        };
        match kind {
            KIND_E2M1 => encode::<E2M1>(src, &out),
            KIND_E4M3 => encode::<E4M3>(src, &out),
            _ => Err(format!("kind {kind} is not a float format")),
        }
    })
}

/// Packs `n` bools (one byte each, 0 or 1) into a `NarrowArray<bool>`,
/// hands it to Arrow as a `BooleanBuffer` (no copy) and writes that
/// buffer's bytes (`ceil(n / 8)`) to `out`.
///
/// # Safety
///
/// `bools` points to `n` bytes, `out` to `out_len` writable bytes, `err` to
/// `err_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bitpack_bools_to_arrow(
    bools: *const u8,
    n: usize,
    out: *mut u8,
    out_len: usize,
    err: *mut c_char,
    err_len: usize,
) -> i32 {
    guard(err, err_len, || {
        // SAFETY: the caller gives `n` readable bytes.
        let src = unsafe { input(bools, n) };
        let a: NarrowArray<bool> = src.iter().map(|&b| b != 0).collect();
        let bits = BooleanBuffer::from(a);
        Out {
            ptr: out,
            len: out_len,
        }
        .write(&bits.values()[..n.div_ceil(8)])
    })
}

/// Reads an Arrow bitmap (`nbytes` bytes, `len` bits from bit `offset`)
/// into a `NarrowArray<bool>` through `From<&BooleanBuffer>` and writes its
/// values one per byte to `out` (`len` bytes).
///
/// # Safety
///
/// `bitmap` points to `nbytes` bytes, `out` to `len` writable bytes, `err`
/// to `err_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bitpack_bools_from_arrow(
    bitmap: *const u8,
    nbytes: usize,
    offset: usize,
    len: usize,
    out: *mut u8,
    err: *mut c_char,
    err_len: usize,
) -> i32 {
    guard(err, err_len, || {
        // SAFETY: the caller gives `nbytes` readable bytes.
        let src = unsafe { input(bitmap, nbytes) };
        let end = offset
            .checked_add(len)
            .filter(|&e| e <= nbytes * 8)
            .ok_or_else(|| format!("bits {offset}..+{len} do not fit in {nbytes} bytes"))?;
        let _ = end;
        let bits = BooleanBuffer::new(Buffer::from_slice_ref(src), offset, len);
        let a = NarrowArray::<bool>::from(&bits);
        let bytes: Vec<u8> = a.iter().map(u8::from).collect();
        Out { ptr: out, len }.write(&bytes)
    })
}
