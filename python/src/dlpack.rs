//! DLPack both ways, zero copy.
//!
//! `dlpack_export` lends a numpy array's memory to a consumer as a
//! `dltensor_versioned` capsule with the dtype code of a bitpack format
//! (`kDLFloat8_e4m3fn`, `kDLFloat4_e2m1fn` with two lanes for torch's
//! `float4_e2m1fn_x2`, ...): the managed tensor keeps a reference to the
//! array until the consumer calls its deleter. `dlpack_import` takes a
//! producer's capsule, validates it with bitpack's importer
//! (`DlpackTensor::from_raw`: version, device, dtype, shape, strides and
//! the byte range they reach) and returns the memory's description with an
//! owner object that calls the producer's deleter when the last numpy view
//! of it is gone.

use std::ffi::{CStr, c_void};
use std::ptr::NonNull;

use bitpack::dlpack::{
    DLDataType, DLDevice, DLManagedTensorVersioned, DLPackVersion, DLTensor, DlpackTensor, device,
    flags,
};
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyBufferError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::value_error;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(dlpack_export, m)?)?;
    m.add_function(wrap_pyfunction!(dlpack_import, m)?)?;
    m.add_class::<DlpackOwner>()?;
    Ok(())
}

const VERSIONED: &CStr = c"dltensor_versioned";
const USED: &CStr = c"used_dltensor_versioned";

/// What a managed tensor of this module owns: the struct the consumer
/// reads, the shape and strides it points to, and the array whose memory
/// it lends.
struct Manager {
    tensor: DLManagedTensorVersioned,
    shape: Vec<i64>,
    strides: Vec<i64>,
    owner: Option<Py<PyAny>>,
}

/// The deleter of this module's managed tensors.
///
/// # Safety
///
/// `m` is null or a `DLManagedTensorVersioned` made by `dlpack_export`
/// (the first field of a leaked `Box<Manager>`), not yet deleted.
unsafe extern "C" fn delete(m: *mut DLManagedTensorVersioned) {
    if m.is_null() {
        return;
    }
    // SAFETY: `m` is a live tensor of this module (the caller's promise),
    // whose `manager_ctx` export set to its leaked `Box<Manager>`.
    let ctx = unsafe { (*m).manager_ctx };
    // SAFETY: `ctx` is the pointer `Box::into_raw` gave at export, and the
    // deleter runs once (the caller's promise).
    let mut manager = unsafe { Box::from_raw(ctx.cast::<Manager>()) };
    // The array's reference is released with the interpreter attached: the
    // deleter may run on any thread.
    if let Some(owner) = manager.owner.take() {
        Python::attach(|_| drop(owner));
    }
}

/// The destructor of the capsules of `dlpack_export`: a capsule that no
/// consumer took (its name is still `dltensor_versioned`) deletes its
/// tensor.
///
/// # Safety
///
/// Called by Python with a live capsule object.
unsafe extern "C" fn capsule_destructor(capsule: *mut pyo3::ffi::PyObject) {
    // SAFETY: a live capsule (the caller's promise); `IsValid` only reads
    // its name and pointer.
    if unsafe { pyo3::ffi::PyCapsule_IsValid(capsule, VERSIONED.as_ptr()) } != 1 {
        return;
    }
    // SAFETY: valid under that name, checked above.
    let m = unsafe { pyo3::ffi::PyCapsule_GetPointer(capsule, VERSIONED.as_ptr()) };
    // SAFETY: the capsules named so by this module hold a managed tensor of
    // `dlpack_export`, and an unconsumed one was never deleted.
    unsafe { delete(m.cast()) };
}

/// A `dltensor_versioned` capsule lending `array`'s memory with the dtype
/// `(code, bits, lanes)`.
///
/// With `padded`, one value of fewer than 8 bits per byte (DLPack's
/// `IS_SUBBYTE_TYPE_PADDED`, the storage of `ml_dtypes`' FP4 and FP6).
/// With `stream_shape` (a packed stream of sub-byte values, counted in
/// values), `array` must be C-contiguous and hold at least `ceil(prod *
/// bits * lanes / 8)` bytes, and the tensor is compact. Otherwise the
/// tensor has `array`'s shape and strides, whose item size must be `bits *
/// lanes / 8` bytes.
#[pyfunction]
#[pyo3(signature = (array, code, bits, lanes, stream_shape=None, padded=false))]
fn dlpack_export<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyUntypedArray>,
    code: u8,
    bits: u8,
    lanes: u16,
    stream_shape: Option<Vec<i64>>,
    padded: bool,
) -> PyResult<Bound<'py, PyCapsule>> {
    let itemsize = array.dtype().itemsize();
    let elem_bits = bits as usize * lanes as usize;
    if bits == 0 || lanes == 0 {
        return Err(PyValueError::new_err(
            "a DLPack dtype has at least one bit and one lane",
        ));
    }
    let (shape, strides) = match stream_shape {
        Some(shape) => {
            if !array.is_c_contiguous() {
                return Err(PyBufferError::new_err(
                    "a packed stream is exported from C-contiguous bytes",
                ));
            }
            let count = shape.iter().try_fold(1u128, |n, &d| {
                u128::try_from(d).ok().and_then(|d| n.checked_mul(d))
            });
            let count = count.ok_or_else(|| {
                PyValueError::new_err(format!("the shape {shape:?} is negative or overflows"))
            })?;
            let needed = (count * elem_bits as u128).div_ceil(8);
            let have = (array.len() * itemsize) as u128;
            if needed > have {
                return Err(PyValueError::new_err(format!(
                    "{count} values of {elem_bits} bits need {needed} bytes; the array has {have}"
                )));
            }
            let mut strides = vec![0i64; shape.len()];
            let mut step = 1i64;
            for (s, &d) in strides.iter_mut().zip(&shape).rev() {
                *s = step;
                step = step.saturating_mul(d.max(1));
            }
            (shape, strides)
        }
        None => {
            let item_bits = if padded {
                if !(elem_bits < 8 && lanes == 1 && itemsize == 1) {
                    return Err(PyValueError::new_err(
                        "the padded layout is one value of fewer than 8 bits per byte",
                    ));
                }
                8
            } else {
                elem_bits
            };
            if item_bits != itemsize * 8 {
                return Err(PyValueError::new_err(format!(
                    "a dtype of {bits} bits x {lanes} lanes does not match items of {itemsize} bytes"
                )));
            }
            let shape = array.shape().iter().map(|&d| d as i64).collect();
            let strides = array
                .strides()
                .iter()
                .map(|&s| {
                    if s % itemsize as isize == 0 {
                        Ok((s / itemsize as isize) as i64)
                    } else {
                        Err(PyBufferError::new_err(format!(
                            "a stride of {s} bytes is not a whole number of {itemsize}-byte items"
                        )))
                    }
                })
                .collect::<PyResult<Vec<i64>>>()?;
            (shape, strides)
        }
    };
    let writeable: bool = array.getattr("flags")?.getattr("writeable")?.extract()?;
    // The address of the first element, as numpy reports it.
    let data: usize = array
        .getattr("__array_interface__")?
        .get_item("data")?
        .get_item(0)?
        .extract()?;
    let data = data as *mut c_void;
    let mut manager = Box::new(Manager {
        tensor: DLManagedTensorVersioned {
            version: DLPackVersion {
                major: bitpack::dlpack::DLPACK_MAJOR_VERSION,
                minor: bitpack::dlpack::DLPACK_MINOR_VERSION,
            },
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete),
            flags: if writeable { 0 } else { flags::READ_ONLY }
                | if padded {
                    flags::IS_SUBBYTE_TYPE_PADDED
                } else {
                    0
                },
            dl_tensor: DLTensor {
                data,
                device: DLDevice {
                    device_type: device::CPU,
                    device_id: 0,
                },
                ndim: shape.len() as i32,
                dtype: DLDataType { code, bits, lanes },
                shape: std::ptr::null_mut(),
                strides: std::ptr::null_mut(),
                byte_offset: 0,
            },
        },
        shape,
        strides,
        owner: Some(array.clone().into_any().unbind()),
    });
    manager.tensor.dl_tensor.shape = manager.shape.as_mut_ptr();
    manager.tensor.dl_tensor.strides = manager.strides.as_mut_ptr();
    let raw = Box::into_raw(manager);
    // SAFETY: `raw` is the Box just leaked; the fields are set before any
    // consumer sees the tensor.
    unsafe { (*raw).tensor.manager_ctx = raw.cast() };
    // SAFETY: `raw` is the live Box just leaked; this only takes the
    // address of its `tensor` field (`delete` finds the Box again through
    // `manager_ctx`).
    let tensor = unsafe { &raw mut (*raw).tensor };
    let ptr = NonNull::new(tensor.cast::<c_void>()).expect("a Box is not null");
    // SAFETY: `ptr` is a managed tensor that lives until its deleter runs;
    // `capsule_destructor` runs that deleter only while no consumer took it,
    // and may run on any thread (it attaches to release the array).
    let capsule = unsafe {
        PyCapsule::new_with_pointer_and_destructor(py, ptr, VERSIONED, Some(capsule_destructor))
    };
    if capsule.is_err() {
        // SAFETY: no capsule owns the tensor: it is deleted here, once.
        unsafe { delete(tensor) };
    }
    capsule
}

/// A producer's tensor, taken over from its capsule: dropping the last
/// numpy view of it (this object is their base) calls its deleter.
#[pyclass(module = "bitpack._bitpack", unsendable)]
struct DlpackOwner {
    tensor: DlpackTensor<'static>,
}

/// What `dlpack_import` returns: the owner, the address of the first
/// element, the shape, the strides in elements, `(code, bits, lanes)`,
/// the flags, and the stored bytes.
type Imported = (
    DlpackOwner,
    usize,
    Vec<usize>,
    Vec<isize>,
    (u8, u8, u16),
    u64,
    usize,
);

/// Takes over the tensor of a `dltensor_versioned` capsule (renaming it
/// `used_dltensor_versioned`, as the protocol asks), after bitpack's
/// validation; a refused tensor is released and reported.
#[pyfunction]
fn dlpack_import(capsule: &Bound<'_, PyCapsule>) -> PyResult<Imported> {
    let ptr = capsule.pointer_checked(Some(VERSIONED)).map_err(|_| {
        PyBufferError::new_err(
            "not an unconsumed DLPack 1.x capsule (\"dltensor_versioned\"): \
             the producer must support max_version=(1, 0)",
        )
    })?;
    // SAFETY: a live capsule; renaming it marks its tensor as taken, so its
    // destructor will not delete it again.
    if unsafe { pyo3::ffi::PyCapsule_SetName(capsule.as_ptr(), USED.as_ptr()) } != 0 {
        return Err(PyErr::fetch(capsule.py()));
    }
    // SAFETY: a `dltensor_versioned` capsule holds a managed tensor of
    // DLPack 1.x that the consumer takes over (the protocol), now ours
    // alone since the capsule is renamed.
    let tensor = unsafe { DlpackTensor::from_raw(ptr.as_ptr().cast()) }.map_err(value_error)?;
    let raw = tensor.as_raw();
    let first = raw.dl_tensor.data as usize + raw.dl_tensor.byte_offset as usize;
    let dtype = tensor.dtype();
    let shape = tensor.shape().to_vec();
    let strides = tensor.strides().to_vec();
    let (fl, stored) = (tensor.flags(), tensor.stored_bytes());
    Ok((
        DlpackOwner { tensor },
        first,
        shape,
        strides,
        (dtype.code, dtype.bits, dtype.lanes),
        fl,
        stored,
    ))
}

#[pymethods]
impl DlpackOwner {
    /// The number of values the tensor holds.
    fn __len__(&self) -> usize {
        self.tensor.len()
    }
}
