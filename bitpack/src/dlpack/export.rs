//! Export: arrays and views handed to a consumer as
//! `DLManagedTensorVersioned`, with the context their deleter frees.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::ffi::c_void;
use core::marker::PhantomData;
use core::ptr::{self, NonNull};

use super::dtype::dtype_of;
use super::ffi::{
    DLDataType, DLDevice, DLManagedTensorVersioned, DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION,
    DLPackVersion, DLTensor, code, device, flags,
};
use super::{
    DlpackElement, DlpackTensor, ShapeUnit, check_packed_layout, compact_strides, field_err,
};
use crate::{NarrowArray, Result, Unsigned, View};

/// What an export owns.
enum Owner {
    /// A `NarrowArray`'s words.
    Words(#[allow(dead_code, reason = "kept alive for the consumer")] Vec<u64>),
    /// Bytes made for the export (unpacked values).
    Bytes(#[allow(dead_code, reason = "kept alive for the consumer")] Vec<u8>),
    /// Nothing: the data is lent.
    Lent,
}

/// The context of an export: the managed tensor first, so its address is the
/// context's.
#[repr(C)]
struct ExportCtx {
    managed: DLManagedTensorVersioned,
    shape: Box<[i64]>,
    strides: Box<[i64]>,
    _owner: Owner,
}

/// The deleter of this crate's exports.
///
/// # Safety
///
/// `p` is a pointer from [`DlpackTensor::into_raw`] of an export of this
/// crate, not deleted before.
unsafe extern "C" fn delete_export(p: *mut DLManagedTensorVersioned) {
    if p.is_null() {
        return;
    }
    // SAFETY:
    // - every export is a leaked `Box<ExportCtx>` whose first field (offset
    //   0, `repr(C)`) is the managed tensor, so `p` is that box's pointer;
    // - the caller passes it once (the deleter's contract in `dlpack.h`:
    //   "destructor ... called once").
    drop(unsafe { Box::from_raw(p.cast::<ExportCtx>()) });
}

/// The `i64`s of extents or strides (DLPack's type), or `DlpackField`
/// naming the first that does not fit.
fn to_i64s<N: Copy + TryInto<i64>>(
    field: &'static str,
    values: &[N],
    wide: fn(N) -> i128,
) -> Result<Box<[i64]>> {
    values
        .iter()
        .enumerate()
        .map(|(axis, &v)| {
            v.try_into().map_err(|_| {
                field_err(field, Some(axis), wide(v), "must fit in i64, DLPack's type")
            })
        })
        .collect()
}

/// The DLPack dtype, shape and strides of a compact array of `T` in `unit`.
fn in_unit<T: DlpackElement>(
    shape: &[usize],
    unit: ShapeUnit,
) -> Result<(DLDataType, Vec<usize>, Vec<isize>)> {
    let dtype = dtype_of::<T>();
    match unit {
        ShapeUnit::Values => Ok((dtype, shape.into(), compact_strides(shape))),
        ShapeUnit::Bytes => {
            if T::BITS >= 8 || 8 % T::BITS != 0 {
                return Err(field_err(
                    "dtype.bits",
                    None,
                    T::BITS.into(),
                    "ShapeUnit::Bytes needs a width that divides 8 (1, 2 or 4 bits)",
                ));
            }
            let lanes = (8 / T::BITS) as usize;
            let Some((&last, _)) = shape.split_last() else {
                return Err(field_err(
                    "ndim",
                    None,
                    0,
                    "ShapeUnit::Bytes needs at least one dimension",
                ));
            };
            if last % lanes != 0 {
                return Err(field_err(
                    "shape",
                    Some(shape.len() - 1),
                    last as i128,
                    "ShapeUnit::Bytes needs the last extent to be a multiple of 8 / bits",
                ));
            }
            let mut bytes: Vec<usize> = shape.into();
            *bytes.last_mut().expect("checked above") = last / lanes;
            let strides = compact_strides(&bytes);
            let dtype = DLDataType {
                lanes: lanes as u16,
                ..dtype
            };
            Ok((dtype, bytes, strides))
        }
    }
}

impl DlpackTensor<'static> {
    /// Exports an array without copying: the tensor owns the array's words
    /// (freed by the deleter) and lets the consumer write (no `READ_ONLY`).
    /// The shape is the array's, in logical elements; the strides are the
    /// compact row-major ones.
    ///
    /// # Panics
    ///
    /// When an extent exceeds `i64::MAX`, DLPack's limit (only an empty
    /// array can have such a shape);
    /// [`from_narrow_array_with`](Self::from_narrow_array_with) returns the
    /// error instead.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    /// use bitpack::dlpack::DlpackTensor;
    ///
    /// let a = NarrowArray::from_slice(&[1u16, 2, 3]);
    /// let data = a.as_bytes().as_ptr();
    /// let t = DlpackTensor::from_narrow_array(a);
    /// assert_eq!(t.as_raw().dl_tensor.data as *const u8, data); // the same memory
    /// assert_eq!(t.flags(), 0);
    /// ```
    pub fn from_narrow_array<T: DlpackElement>(array: NarrowArray<T>) -> Self {
        Self::from_narrow_array_with(array, ShapeUnit::Values)
            .unwrap_or_else(|e| panic!("DlpackTensor::from_narrow_array: {e}"))
    }

    /// Exports an array without copying, its shape counted in `unit`:
    /// [`ShapeUnit::Bytes`] gives PyTorch's `float4_e2m1fn_x2` tensors
    /// (`lanes` 2, the last extent halved) for E2M1, and the same rule for
    /// every type of 1, 2 or 4 bits. [`shape`](Self::shape) still counts
    /// values.
    ///
    /// # Errors
    ///
    /// [`Error::DlpackField`](crate::Error::DlpackField) for [`ShapeUnit::Bytes`] of a type whose width
    /// does not divide 8, of a 0-d array, or of a last extent that is not a
    /// multiple of `8 / bits`; and for an extent above `i64::MAX`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::dlpack::{DlpackTensor, ShapeUnit, code};
    /// use bitpack::E2M1;
    /// use bitpack::formats::{Mode, encode};
    ///
    /// let mut a = encode::<E2M1>(&[1.0, -2.0, 6.0, 0.5], Mode::Nearest);
    /// a.reshape(&[1, 4])?;
    /// let t = DlpackTensor::from_narrow_array_with(a, ShapeUnit::Bytes)?;
    /// let dl = &t.as_raw().dl_tensor;
    /// assert_eq!((dl.dtype.code, dl.dtype.bits, dl.dtype.lanes), (code::FLOAT4_E2M1FN, 4, 2));
    /// // SAFETY: the export's two extents.
    /// assert_eq!(unsafe { std::slice::from_raw_parts(dl.shape, 2) }, [1, 2]); // bytes
    /// assert_eq!(t.shape(), [1, 4]); // values
    ///
    /// let odd = encode::<E2M1>(&[1.0; 3], Mode::Nearest);
    /// assert!(DlpackTensor::from_narrow_array_with(odd, ShapeUnit::Bytes).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_narrow_array_with<T: DlpackElement>(
        array: NarrowArray<T>,
        unit: ShapeUnit,
    ) -> Result<Self> {
        let shape: Vec<usize> = array.shape().into();
        let (dtype, dl_shape, dl_strides) = in_unit::<T>(&shape, unit)?;
        let len = array.len();
        let reach = (len * T::BITS as usize).div_ceil(8);
        let words = array.into_words();
        let data = if len == 0 {
            ptr::null_mut()
        } else {
            words.as_ptr().cast_mut().cast()
        };
        let strides = compact_strides(&shape);
        Self::export(
            data,
            dtype,
            (&dl_shape, &dl_strides),
            (&shape, &strides),
            (0, reach),
            0,
            Owner::Words(words),
        )
    }

    /// Exports an array of a sub-byte type one value per byte, in the low
    /// bits, with `IS_SUBBYTE_TYPE_PADDED` and `IS_COPIED` (the storage of
    /// ml_dtypes and of PTX's FP6 conversions). Types that fill bytes export
    /// as [`from_narrow_array`](Self::from_narrow_array) would, but copied.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::dlpack::{DlpackTensor, flags};
    /// use bitpack::{E2M1, NarrowArray};
    ///
    /// let a = NarrowArray::from_slice(&[E2M1::from_f32(1.0), E2M1::from_f32(-6.0)]);
    /// let t = DlpackTensor::from_narrow_array_padded(&a);
    /// assert_eq!(t.flags(), flags::IS_SUBBYTE_TYPE_PADDED | flags::IS_COPIED);
    /// assert_eq!(t.to_narrow_array::<E2M1>()?, a);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_narrow_array_padded<T: DlpackElement>(array: &NarrowArray<T>) -> Self {
        if T::BITS >= 8 {
            let mut t = Self::from_narrow_array(array.clone());
            t.set_flags(flags::IS_COPIED);
            return t;
        }
        let bytes: Vec<u8> = array.iter().map(|v| v.raw_bits().to_u128() as u8).collect();
        Self::export_bytes(
            bytes,
            dtype_of::<T>(),
            array.shape(),
            flags::IS_SUBBYTE_TYPE_PADDED,
        )
    }

    /// Exports bools one per byte (0 or 1) as `kDLBool` with 8 bits, the
    /// type NumPy and PyTorch import, with `IS_COPIED`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    /// use bitpack::dlpack::{DlpackTensor, code};
    ///
    /// let t = DlpackTensor::from_bools_unpacked(&NarrowArray::from_slice(&[true, false]));
    /// assert_eq!(t.dtype().code, code::BOOL);
    /// assert_eq!(t.dtype().bits, 8);
    /// assert_eq!(t.to_narrow_array::<bool>()?.to_vec(), [true, false]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_bools_unpacked(array: &NarrowArray<bool>) -> Self {
        let bytes: Vec<u8> = array.iter().map(u8::from).collect();
        Self::export_bytes(bytes, DLDataType::scalar(code::BOOL, 8), array.shape(), 0)
    }

    /// Exports owned bytes, one value per byte, compact.
    fn export_bytes(bytes: Vec<u8>, dtype: DLDataType, shape: &[usize], extra: u64) -> Self {
        let strides = compact_strides(shape);
        let data = if bytes.is_empty() {
            ptr::null_mut()
        } else {
            bytes.as_ptr().cast_mut().cast()
        };
        let reach = bytes.len();
        Self::export(
            data,
            dtype,
            (shape, &strides),
            (shape, &strides),
            (0, reach),
            extra | flags::IS_COPIED,
            Owner::Bytes(bytes),
        )
        .unwrap_or_else(|e| panic!("DlpackTensor export: {e}"))
    }
}

impl<'a> DlpackTensor<'a> {
    /// Exports a view of a dense array without copying, lending its data:
    /// `READ_ONLY` is set, and the deleter frees only the shape and
    /// strides. The view's strides and offset go into `strides` and
    /// `byte_offset`.
    ///
    /// # Errors
    ///
    /// [`Error::DlpackLayout`](crate::Error::DlpackLayout) when DLPack cannot express the view: for a
    /// type that does not fill bytes, a last dimension that is not
    /// contiguous, a step along another axis that is not whole bytes, or a
    /// first element that is not on a byte boundary (copy such a view with
    /// [`View::to_narrow_array`] and export that); [`Error::DlpackField`](crate::Error::DlpackField)
    /// for an extent above `i64::MAX` (an empty view).
    ///
    /// # Examples
    ///
    /// ```
    /// use arbitrary_int::u4;
    /// use bitpack::NarrowArray;
    /// use bitpack::dlpack::{DlpackTensor, flags};
    ///
    /// let mut a: NarrowArray<u4> = (0..12).map(u4::new).collect();
    /// a.reshape(&[3, 4])?;
    /// let rows = a.view().step_by(0, 2)?; // rows 0 and 2
    /// let t = DlpackTensor::from_view(&rows)?;
    /// assert_eq!((t.shape(), t.strides()), (&[2, 4][..], &[8, 1][..]));
    /// assert_eq!(t.flags(), flags::READ_ONLY);
    /// assert_eq!(t.to_narrow_array::<u4>()?.to_vec(), [0, 1, 2, 3, 8, 9, 10, 11].map(u4::new));
    ///
    /// // A column of 4-bit values is not contiguous, and [1..] starts mid-byte.
    /// assert!(DlpackTensor::from_view(&a.view().select(1, 0)?).is_err());
    /// assert!(DlpackTensor::from_view(&a.view().slice(1, 1..3)?).is_err());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn from_view<T: DlpackElement>(view: &View<'a, T>) -> Result<Self> {
        let layout = view.layout();
        let bits = T::BITS;
        check_packed_layout(
            bits,
            layout.shape(),
            layout.strides(),
            layout.offset() as i128,
        )?;
        let words = view.words();
        let (data, byte_offset) = if layout.is_empty() {
            (ptr::null_mut(), 0)
        } else {
            let bit = layout.offset() as u128 * bits as u128;
            (words.as_ptr().cast_mut().cast(), (bit / 8) as usize)
        };
        let reach = words.len() * 8 - byte_offset.min(words.len() * 8);
        Self::export(
            data,
            dtype_of::<T>(),
            (layout.shape(), layout.strides()),
            (layout.shape(), layout.strides()),
            (byte_offset, reach),
            flags::READ_ONLY,
            Owner::Lent,
        )
    }

    /// Builds an export: `dl` is the shape and strides DLPack sees, `values`
    /// the same in values; `at` the byte offset and the bytes reached.
    fn export(
        data: *mut c_void,
        dtype: DLDataType,
        dl: (&[usize], &[isize]),
        values: (&[usize], &[isize]),
        at: (usize, usize),
        flag_bits: u64,
        owner: Owner,
    ) -> Result<Self> {
        let shape = to_i64s("shape", dl.0, |v| v as i128)?;
        let strides = to_i64s("strides", dl.1, |v| v as i128)?;
        let mut ctx = Box::new(ExportCtx {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion {
                    major: DLPACK_MAJOR_VERSION,
                    minor: DLPACK_MINOR_VERSION,
                },
                manager_ctx: ptr::null_mut(),
                deleter: Some(delete_export),
                flags: flag_bits,
                dl_tensor: DLTensor {
                    data,
                    device: DLDevice {
                        device_type: device::CPU,
                        device_id: 0,
                    },
                    ndim: dl.0.len() as i32,
                    dtype,
                    shape: ptr::null_mut(),
                    strides: ptr::null_mut(),
                    byte_offset: at.0 as u64,
                },
            },
            shape,
            strides,
            _owner: owner,
        });
        if !dl.0.is_empty() {
            ctx.managed.dl_tensor.shape = ctx.shape.as_mut_ptr();
            ctx.managed.dl_tensor.strides = ctx.strides.as_mut_ptr();
        }
        let raw = Box::into_raw(ctx);
        // SAFETY: `raw` is a fresh, live box; the field pointer is in it.
        unsafe { (*raw).managed.manager_ctx = raw.cast() };
        Ok(DlpackTensor {
            // SAFETY: `Box::into_raw` never returns null; `managed` is at
            // offset 0 of the `repr(C)` context.
            raw: unsafe { NonNull::new_unchecked(raw.cast()) },
            shape: values.0.into(),
            strides: values.1.into(),
            offset: at.0,
            reach: at.1,
            _lent: PhantomData,
        })
    }

    /// Sets flag bits of an export.
    fn set_flags(&mut self, bits: u64) {
        // SAFETY: called only on this crate's exports, which it owns.
        unsafe { (*self.raw.as_ptr()).flags |= bits };
    }
}
