//! DLPack (feature `dlpack`): the data type table against the fact sheet's
//! codes, zero-copy export of arrays and views and their re-import for
//! random shapes (0-d to 3-d, empty and odd extents) and strides, the padded
//! and unpacked-bool layouts, and hostile descriptors: every malformed field
//! gives an `Error`, calls the producer's deleter exactly once, and reads no
//! data (the data pointer of those descriptors points at unmapped memory).
#![cfg(feature = "dlpack")]

use std::cell::Cell;
use std::ffi::c_void;
use std::ptr;

use arbitrary_int::{u3, u4, u5, u12};
use bitpack::dlpack::{
    COPY_LIMIT_FLOOR, DLDataType, DLDevice, DLManagedTensorVersioned, DLPackVersion, DLTensor,
    DTYPES, DlpackElement, DlpackTensor, ShapeUnit, code, device, flags,
};
use bitpack::{BitElement, E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, Error, NarrowArray};
use bitpack_tests::{low_bits, value};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn dtype_table_matches_the_header() {
    let expect: &[(&str, u8, u8)] = &[
        ("u8", 1, 8),
        ("u16", 1, 16),
        ("u32", 1, 32),
        ("u64", 1, 64),
        ("u128", 1, 128),
        ("i8", 0, 8),
        ("i16", 0, 16),
        ("i32", 0, 32),
        ("i64", 0, 64),
        ("i128", 0, 128),
        ("f32", 2, 32),
        ("f64", 2, 64),
        ("f16", 2, 16),
        ("bf16", 4, 16),
        ("E2M1", 17, 4),
        ("E2M3", 15, 6),
        ("E3M2", 16, 6),
        ("E4M3", 10, 8),
        ("E5M2", 12, 8),
        ("E8M0", 14, 8),
        ("E4M3Ieee", 8, 8),
        ("E3M4", 7, 8),
        ("E4M3Fnuz", 11, 8),
        ("E5M2Fnuz", 13, 8),
        ("E4M3B11Fnuz", 9, 8),
    ];
    assert_eq!(DTYPES.len(), expect.len());
    for (&(name, dt), &(en, ec, eb)) in DTYPES.iter().zip(expect) {
        assert_eq!((name, dt.code, dt.bits, dt.lanes), (en, ec, eb, 1));
    }
    // One type per (code, bits): the mapping works both ways.
    for (i, a) in DTYPES.iter().enumerate() {
        for b in &DTYPES[i + 1..] {
            assert_ne!(a.1, b.1, "{} and {}", a.0, b.0);
        }
    }
    assert_eq!(<E2M1 as DlpackElement>::DTYPE, DTYPES[14].1);
    assert_eq!(<E8M0 as DlpackElement>::DTYPE.code, code::FLOAT8_E8M0FNU);
    assert_eq!(<half::bf16 as DlpackElement>::DTYPE.code, code::BFLOAT);
    assert_eq!(
        <u5 as DlpackElement>::DTYPE,
        DLDataType::scalar(code::UINT, 5)
    );
    assert_eq!(
        <bool as DlpackElement>::DTYPE,
        DLDataType::scalar(code::UINT, 1)
    );
    assert!(bool::accepts(DLDataType::scalar(code::BOOL, 1)));
    assert!(!u8::accepts(DLDataType::scalar(code::INT, 8)));
}

/// An array of `T` with random values in a random shape.
fn shaped<T: BitElement>(shape: &[usize], seed: u64) -> NarrowArray<T> {
    let n: usize = shape.iter().product();
    let mut x = seed | 1;
    let mut a: NarrowArray<T> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            value::<T>(u128::from(x) << 64 | u128::from(x.rotate_left(17)))
        })
        .collect();
    a.reshape(shape).unwrap();
    a
}

/// Export, hand over the raw pointer, take it back, and compare.
fn round_trip<T: DlpackElement + PartialEq + core::fmt::Debug>(shape: &[usize], seed: u64) {
    let a = shaped::<T>(shape, seed);
    let expect = a.clone();
    let data = a.as_bytes().as_ptr();
    let t = DlpackTensor::from_narrow_array(a);
    let m = t.as_raw();
    assert_eq!(m.version, DLPackVersion { major: 1, minor: 3 });
    assert_eq!(m.flags, 0);
    let dl = &m.dl_tensor;
    assert_eq!(
        dl.device,
        DLDevice {
            device_type: device::CPU,
            device_id: 0
        }
    );
    assert_eq!(dl.dtype, T::DTYPE);
    assert_eq!(dl.ndim as usize, shape.len());
    assert_eq!(dl.byte_offset, 0);
    if expect.is_empty() {
        assert!(dl.data.is_null(), "a zero-size tensor has data == NULL");
    } else {
        assert_eq!(dl.data as *const u8, data, "no copy");
    }
    if !shape.is_empty() {
        // SAFETY: `ndim` extents, owned by the live export.
        let sh = unsafe { std::slice::from_raw_parts(dl.shape, shape.len()) };
        // SAFETY: `ndim` strides, owned by the live export.
        let st = unsafe { std::slice::from_raw_parts(dl.strides, shape.len()) };
        assert_eq!(sh, shape.iter().map(|&d| d as i64).collect::<Vec<_>>());
        let mut want = vec![0i64; shape.len()];
        let mut s = 1i64;
        for k in (0..shape.len()).rev() {
            want[k] = s;
            s *= shape[k].max(1) as i64;
        }
        assert_eq!(st, want, "strides always present, compact");
    }
    let raw = t.into_raw();
    // SAFETY: an export of this crate, handed over once.
    let back = unsafe { DlpackTensor::from_raw(raw) }.unwrap();
    let r = back.as_narrow_ref::<T>().unwrap();
    assert_eq!(r.shape(), expect.shape());
    assert_eq!(r.as_bytes(), expect.as_bytes());
    let copy = back.to_narrow_array::<T>().unwrap();
    // Bytes, not values: float NaNs are unequal to themselves.
    assert_eq!(
        (copy.shape(), copy.as_bytes()),
        (expect.shape(), expect.as_bytes())
    );
}

fn shapes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..6, 0..=3)
}

macro_rules! round_trips {
    ($($name:ident => $t:ty;)*) => {$(
        #[test]
        fn $name() {
            runner(32)
                .run(&(shapes(), any::<u64>()), |(shape, seed)| {
                    round_trip::<$t>(&shape, seed);
                    Ok(())
                })
                .unwrap();
            round_trip::<$t>(&[7, 3, 5], 1);
            round_trip::<$t>(&[], 2);
            round_trip::<$t>(&[0], 3);
        }
    )*};
}

round_trips! {
    round_trip_u8 => u8;
    round_trip_u16 => u16;
    round_trip_i32 => i32;
    round_trip_i128 => i128;
    round_trip_f32 => f32;
    round_trip_f16 => half::f16;
    round_trip_bf16 => half::bf16;
    round_trip_bool => bool;
    round_trip_u3 => u3;
    round_trip_u12 => u12;
    round_trip_e2m1 => E2M1;
    round_trip_e2m3 => E2M3;
    round_trip_e3m2 => E3M2;
    round_trip_e4m3 => E4M3;
    round_trip_e5m2 => E5M2;
    round_trip_e8m0 => E8M0;
    round_trip_e4m3_ieee => bitpack::formats::E4M3Ieee;
    round_trip_e3m4 => bitpack::formats::E3M4;
    round_trip_e4m3_fnuz => bitpack::formats::E4M3Fnuz;
    round_trip_e5m2_fnuz => bitpack::formats::E5M2Fnuz;
    round_trip_e4m3b11_fnuz => bitpack::formats::E4M3B11Fnuz;
    round_trip_i4 => arbitrary_int::i4;
    round_trip_i13 => arbitrary_int::i13;
}

/// Narrow two's-complement integers export as kDLInt with their width.
#[test]
fn narrow_signed_integers_are_kdlint() {
    assert_eq!(
        <arbitrary_int::i4 as DlpackElement>::DTYPE,
        DLDataType::scalar(0, 4)
    );
    assert_eq!(
        <arbitrary_int::i1 as DlpackElement>::DTYPE,
        DLDataType::scalar(0, 1)
    );
    assert_eq!(
        <arbitrary_int::i127 as DlpackElement>::DTYPE,
        DLDataType::scalar(0, 127)
    );
}

/// Every strided view of a 3-d `u8` array (steps -3..=3 on each axis)
/// exports without a copy and re-imports to the view's values.
#[test]
fn byte_views_export_with_their_strides() {
    let a = shaped::<u8>(&[4, 5, 6], 9);
    for s0 in [-2isize, -1, 1, 2, 3] {
        for s2 in [-3isize, -1, 1, 2] {
            let v = a.view().step_by(0, s0).unwrap().step_by(2, s2).unwrap();
            let t = DlpackTensor::from_view(&v).unwrap();
            assert_eq!(t.flags(), flags::READ_ONLY);
            assert_eq!(t.shape(), v.shape());
            assert_eq!(t.strides(), v.strides());
            assert_eq!(
                t.as_raw().dl_tensor.data as *const u8,
                a.as_bytes().as_ptr()
            );
            assert_eq!(t.as_raw().dl_tensor.byte_offset, v.offset() as u64);
            assert_eq!(t.to_narrow_array::<u8>().unwrap(), v.to_narrow_array());
            assert_eq!(t.is_compact(), s0 == 1 && s2 == 1);
            if !t.is_compact() {
                let err = t.as_narrow_ref::<u8>().unwrap_err();
                assert!(matches!(err, Error::DlpackLayout { .. }), "{err:?}");
            }
        }
    }
    // Broadcast (stride 0) and transposed views too.
    let b = a.view().transpose();
    let t = DlpackTensor::from_view(&b).unwrap();
    assert_eq!(t.to_narrow_array::<u8>().unwrap().to_vec(), b.to_vec());
}

#[test]
fn sub_byte_views_need_byte_rows_and_a_contiguous_last_axis() {
    let a = shaped::<u4>(&[4, 6], 5);
    let rows = a.view().step_by(0, -2).unwrap();
    let t = DlpackTensor::from_view(&rows).unwrap();
    assert_eq!(t.to_narrow_array::<u4>().unwrap(), rows.to_narrow_array());
    // A column: the packed dimension is not contiguous.
    let err = DlpackTensor::from_view(&a.view().transpose()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "stride 6 on axis 1 cannot be used for 4-bit values: the packed (last) dimension must be \
         contiguous (stride 1)"
    );
    // Starting mid-byte (element 1 of 4-bit values is bit 4).
    let err = DlpackTensor::from_view(&a.view().slice(1, 1..5).unwrap()).unwrap_err();
    assert_eq!(
        err,
        Error::DlpackLayout {
            axis: None,
            value: 4,
            bits: 4,
            rule: "DLPack has no bit offset, so it must start on a byte boundary",
        }
    );
    // Rows of 3 five-bit values are 15 bits: not whole bytes.
    let c = shaped::<u5>(&[3, 3], 1);
    let err = DlpackTensor::from_view(&c.view()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::DlpackLayout {
                axis: Some(0),
                value: 3,
                bits: 5,
                ..
            }
        ),
        "{err:?}"
    );
    // But the whole array exports (the compact stream).
    assert_eq!(
        DlpackTensor::from_narrow_array(c.clone())
            .to_narrow_array::<u5>()
            .unwrap(),
        c
    );
    // Odd extents of E2M1 are representable.
    let odd = shaped::<E2M1>(&[3, 5], 4);
    let t = DlpackTensor::from_narrow_array(odd.clone());
    assert_eq!(t.shape(), [3, 5]);
    assert_eq!(t.as_narrow_ref::<E2M1>().unwrap().as_bytes().len(), 8);
}

#[test]
fn padded_layouts() {
    runner(64)
        .run(&prop::collection::vec(any::<u8>(), 0..100), |codes| {
            let a: NarrowArray<E2M1> = codes.iter().map(|&c| E2M1::from_bits(c & 0xf)).collect();
            let t = DlpackTensor::from_narrow_array_padded(&a);
            prop_assert_eq!(t.flags(), flags::IS_SUBBYTE_TYPE_PADDED | flags::IS_COPIED);
            let r = t.to_narrow_array::<E2M1>().unwrap();
            prop_assert_eq!(&r, &a);
            let v: Vec<u8> = t
                .padded_values::<E2M1>()
                .unwrap()
                .map(|e| e.to_bits())
                .collect();
            prop_assert_eq!(v, codes.iter().map(|c| c & 0xf).collect::<Vec<_>>());
            prop_assert!(t.as_narrow_ref::<E2M1>().is_err());
            Ok(())
        })
        .unwrap();
    let e3 = NarrowArray::from_slice(&[E3M2::from_f32(28.0), E3M2::from_f32(-0.0625)]);
    assert_eq!(
        DlpackTensor::from_narrow_array_padded(&e3)
            .to_narrow_array::<E3M2>()
            .unwrap(),
        e3
    );
    // Byte-filling types export as themselves (copied).
    let e4 = NarrowArray::from_slice(&[E4M3::from_f32(448.0)]);
    let t = DlpackTensor::from_narrow_array_padded(&e4);
    assert_eq!(t.flags(), flags::IS_COPIED);
    assert_eq!(t.as_narrow_ref::<E4M3>().unwrap().decode(), [448.0]);
    // Unpacked bools.
    let b = NarrowArray::from_slice(&[true, false, true, true, false]);
    let t = DlpackTensor::from_bools_unpacked(&b);
    assert_eq!(t.dtype(), DLDataType::scalar(code::BOOL, 8));
    assert_eq!(t.to_narrow_array::<bool>().unwrap(), b);
    assert!(t.to_narrow_array::<u8>().is_err());
}

// ---- Foreign descriptors ----

thread_local! {
    static DELETED: Cell<usize> = const { Cell::new(0) };
}

/// Frees a test descriptor and counts the call.
unsafe extern "C" fn test_deleter(p: *mut DLManagedTensorVersioned) {
    DELETED.with(|d| d.set(d.get() + 1));
    // SAFETY: `p` came from `Box::into_raw` in `Foreign::raw`, once.
    drop(unsafe { Box::from_raw(p) });
}

/// The data pointer of descriptors that must never be read: the first
/// page is never mapped, so any read of it faults.
const UNREADABLE: *mut c_void = 64 as *mut c_void;

/// A descriptor built field by field, with its shape and strides kept alive.
struct Foreign {
    version: DLPackVersion,
    flags: u64,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: Option<Vec<i64>>,
    strides: Option<Vec<i64>>,
    byte_offset: u64,
    data: *mut c_void,
}

impl Foreign {
    /// A valid compact 1-d tensor of `n` `u8`s over `data`.
    fn bytes(data: &mut [u8]) -> Foreign {
        Foreign {
            version: DLPackVersion { major: 1, minor: 2 },
            flags: 0,
            device: DLDevice {
                device_type: device::CPU,
                device_id: 0,
            },
            ndim: 1,
            dtype: DLDataType::scalar(code::UINT, 8),
            shape: Some(vec![data.len() as i64]),
            strides: Some(vec![1]),
            byte_offset: 0,
            data: data.as_mut_ptr().cast(),
        }
    }

    /// The same fields over unreadable data.
    fn hostile() -> Foreign {
        Foreign {
            data: UNREADABLE,
            ..Foreign::bytes(&mut [])
        }
        .with_shape(&[4], &[1])
    }

    fn with_shape(mut self, shape: &[i64], strides: &[i64]) -> Foreign {
        self.ndim = shape.len() as i32;
        self.shape = Some(shape.into());
        self.strides = Some(strides.into());
        self
    }

    /// Imports the descriptor; returns the result and how many times the
    /// deleter ran by the time the result was dropped.
    fn import_with<R>(
        &mut self,
        f: impl FnOnce(bitpack::Result<DlpackTensor<'static>>) -> R,
    ) -> (R, usize) {
        DELETED.with(|d| d.set(0));
        let m = Box::new(DLManagedTensorVersioned {
            version: self.version,
            manager_ctx: ptr::null_mut(),
            deleter: Some(test_deleter),
            flags: self.flags,
            dl_tensor: DLTensor {
                data: self.data,
                device: self.device,
                ndim: self.ndim,
                dtype: self.dtype,
                shape: self
                    .shape
                    .as_mut()
                    .map_or(ptr::null_mut(), |s| s.as_mut_ptr()),
                strides: self
                    .strides
                    .as_mut()
                    .map_or(ptr::null_mut(), |s| s.as_mut_ptr()),
                byte_offset: self.byte_offset,
            },
        });
        // SAFETY: a fresh descriptor whose shape and strides live in `self`
        // (longer than the import), handed over once.
        let result = unsafe { DlpackTensor::from_raw(Box::into_raw(m)) };
        let r = f(result);
        (r, DELETED.with(Cell::get))
    }

    /// The import's error (the deleter ran exactly once).
    fn error(mut self) -> Error {
        let (e, deleted) = self.import_with(|r| r.map(|_| ()).unwrap_err());
        assert_eq!(
            deleted, 1,
            "the deleter runs once when an import fails: {e}"
        );
        e
    }
}

#[test]
fn hostile_descriptors_are_refused_without_reading_data() {
    // Another major version: only the deleter is touched, whatever the rest.
    for major in [0, 2, u32::MAX] {
        let mut f = Foreign::hostile();
        f.version = DLPackVersion { major, minor: 7 };
        f.ndim = -9;
        f.shape = None;
        assert_eq!(f.error(), Error::DlpackVersion { major, minor: 7 });
    }
    let field = |f: Foreign, name: &str| {
        let e = f.error();
        match &e {
            Error::DlpackField { field, .. } => assert_eq!(*field, name, "{e}"),
            _ => panic!("expected a DlpackField error on {name}, got {e:?}"),
        }
        e
    };
    let mut f = Foreign::hostile();
    f.flags = 1 << 9;
    field(f, "flags");
    let mut f = Foreign::hostile();
    f.device = DLDevice {
        device_type: device::CUDA,
        device_id: 3,
    };
    assert_eq!(
        f.error(),
        Error::DlpackDevice {
            device_type: 2,
            device_id: 3
        }
    );
    let mut f = Foreign::hostile();
    f.ndim = -1;
    assert_eq!(f.error().to_string(), "DLPack ndim is -1: must be >= 0");
    let mut f = Foreign::hostile().with_shape(&[1; 65], &[1; 65]);
    f.ndim = 65;
    assert_eq!(f.error(), Error::TooManyDims { ndim: 65 });
    let mut f = Foreign::hostile();
    f.dtype.lanes = 2;
    field(f, "dtype.lanes");
    let mut f = Foreign::hostile();
    f.dtype.bits = 0;
    field(f, "dtype.bits");
    let mut f = Foreign::hostile();
    f.flags = flags::IS_SUBBYTE_TYPE_PADDED;
    field(f, "dtype.bits");
    let mut f = Foreign::hostile();
    f.shape = None;
    field(f, "shape");
    let e = field(Foreign::hostile().with_shape(&[3, -2], &[1, 1]), "shape");
    assert_eq!(e.to_string(), "DLPack shape[1] is -2: extents must be >= 0");
    let big = 1i64 << 40;
    field(
        Foreign::hostile().with_shape(&[big, big, big], &[0, 0, 0]),
        "shape",
    );
    // Null strides: refused from 1.2 on, compact before.
    let mut f = Foreign::hostile();
    f.strides = None;
    field(f, "strides");
    let mut f = Foreign::hostile();
    f.data = ptr::null_mut();
    field(f, "data");
    // Negative strides reaching below address 0.
    field(Foreign::hostile().with_shape(&[4], &[-1000]), "strides");
    // Reaching past the address space.
    let mut f = Foreign::hostile().with_shape(&[16], &[i64::MAX / 32]);
    f.data = (usize::MAX - 64) as *mut c_void;
    field(f, "shape");
    let mut f = Foreign::hostile();
    f.byte_offset = u64::MAX;
    field(f, "shape");
}

#[test]
fn valid_foreign_descriptors() {
    // Null strides before DLPack 1.2 are compact.
    let mut data = [1u8, 2, 3, 4, 5, 6];
    let mut f = Foreign::bytes(&mut data).with_shape(&[2, 3], &[3, 1]);
    f.version.minor = 1;
    f.strides = None;
    let (v, deleted) = f.import_with(|r| {
        let t = r.unwrap();
        assert_eq!(t.strides(), [3, 1]);
        t.as_narrow_ref::<u8>().unwrap().view().get(&[1, 2])
    });
    assert_eq!((v, deleted), (Some(6), 1));
    // An empty tensor with null data; a negative stride with a byte offset.
    let mut f = Foreign::hostile().with_shape(&[0, 5], &[5, 1]);
    f.data = ptr::null_mut();
    let (n, deleted) = f.import_with(|r| r.unwrap().as_narrow_ref::<u8>().unwrap().len());
    assert_eq!((n, deleted), (0, 1));
    let mut f = Foreign::bytes(&mut data).with_shape(&[3], &[-2]);
    f.byte_offset = 5;
    let (v, _) = f.import_with(|r| r.unwrap().to_narrow_array::<u8>().unwrap().to_vec());
    assert_eq!(v, [6, 4, 2]);
    // NumPy's reversed arrays point `data` at the first logical element.
    let mut f = Foreign::bytes(&mut data[3..]).with_shape(&[4], &[-1]);
    let (v, _) = f.import_with(|r| r.unwrap().to_narrow_array::<u8>().unwrap().to_vec());
    assert_eq!(v, [4, 3, 2, 1]);
    // A minor version from the future is read (minor bumps add enum values).
    let mut f = Foreign::bytes(&mut data);
    f.version.minor = 99;
    let (ok, _) = f.import_with(|r| r.is_ok());
    assert!(ok);
}

#[test]
fn typed_access_checks_the_dtype_layout_and_padding() {
    let mut data = [0x21u8, 0x43, 0x65];
    let mut f = Foreign::bytes(&mut data);
    f.dtype = DLDataType::scalar(code::FLOAT4_E2M1FN, 4);
    f.shape = Some(vec![6]);
    let (r, _) = f.import_with(|r| {
        let t = r.unwrap();
        let err = t.as_narrow_ref::<u4>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "DLPack dtype (code 17, 4 bits, 1 lanes) is not the target type's (code 1, 4 bits, 1 lanes)"
        );
        t.as_narrow_ref::<E2M1>().unwrap().to_vec()
    });
    assert_eq!(
        r.iter().map(|e| e.to_bits()).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    // Five FP4 values in three bytes: the top nibble is padding and is set.
    let mut f = Foreign::bytes(&mut data);
    f.dtype = DLDataType::scalar(code::FLOAT4_E2M1FN, 4);
    f.shape = Some(vec![5]);
    let (e, _) = f.import_with(|r| r.unwrap().as_narrow_ref::<E2M1>().unwrap_err());
    assert_eq!(e, Error::NonZeroPadding { byte: 2 });
    // A non-contiguous packed dimension is refused, even for a copy.
    let mut f = Foreign::bytes(&mut data).with_shape(&[3], &[2]);
    f.dtype = DLDataType::scalar(code::FLOAT4_E2M1FN, 4);
    let (e, _) = f.import_with(|r| r.unwrap().to_narrow_array::<E2M1>().unwrap_err());
    assert!(
        matches!(
            e,
            Error::DlpackLayout {
                axis: Some(0),
                value: 2,
                bits: 4,
                ..
            }
        ),
        "{e:?}"
    );
    // Padded data with a high bit set names the value.
    let mut padded = [0x01u8, 0x0f, 0x13, 0x02];
    let mut f = Foreign::bytes(&mut padded);
    f.dtype = DLDataType::scalar(code::FLOAT4_E2M1FN, 4);
    f.flags = flags::IS_SUBBYTE_TYPE_PADDED;
    let (e, _) = f.import_with(|r| r.unwrap().to_narrow_array::<E2M1>().unwrap_err());
    assert_eq!(
        e,
        Error::PaddedValue {
            index: 2,
            byte: 0x13,
            bits: 4
        }
    );
    assert_eq!(
        e.to_string(),
        "value 2 is stored as byte 0x13, which has bits set above its 4 value bits"
    );
    // Unpacked bools must be 0 or 1.
    let mut bools = [1u8, 0, 2];
    let mut f = Foreign::bytes(&mut bools);
    f.dtype = DLDataType::scalar(code::BOOL, 8);
    let (e, _) = f.import_with(|r| r.unwrap().to_narrow_array::<bool>().unwrap_err());
    assert_eq!(
        e,
        Error::PaddedValue {
            index: 2,
            byte: 2,
            bits: 1
        }
    );
    // READ_ONLY forbids a mutable borrow but not a read.
    let mut f = Foreign::bytes(&mut data);
    f.flags = flags::READ_ONLY;
    let (ok, _) = f.import_with(|r| {
        let mut t = r.unwrap();
        assert!(matches!(
            t.as_narrow_mut::<u8>().unwrap_err(),
            Error::DlpackField { field: "flags", .. }
        ));
        t.as_narrow_ref::<u8>().is_ok()
    });
    assert!(ok);
    // Writes through a writable import land in the producer's memory.
    let mut f = Foreign::bytes(&mut data);
    let (_, deleted) = f.import_with(|r| {
        r.unwrap()
            .as_narrow_mut::<u8>()
            .unwrap()
            .set(0, 0xaa)
            .unwrap()
    });
    assert_eq!((data[0], deleted), (0xaa, 1));
}

#[test]
fn strided_copies_against_a_reference() {
    runner(64)
        .run(
            &(
                prop::collection::vec(1usize..5, 1..=3),
                prop::collection::vec(-3isize..=3, 3),
                any::<u64>(),
            ),
            |(shape, steps, seed)| {
                let a = shaped::<u16>(&[5, 5, 5], seed);
                let mut v = a.view();
                for (axis, &s) in steps.iter().enumerate() {
                    if s != 0 {
                        v = v.step_by(axis, s).unwrap();
                    }
                }
                let shape: Vec<usize> = shape
                    .iter()
                    .zip(v.shape())
                    .map(|(&a, &b)| a.min(b))
                    .collect();
                let mut w = v;
                for (axis, &e) in shape.iter().enumerate() {
                    w = w.slice(axis, 0..e).unwrap();
                }
                let t = DlpackTensor::from_view(&w).unwrap();
                let expect: Vec<u128> = w.iter().map(|x| low_bits(x.into(), 16)).collect();
                let got: Vec<u128> = t
                    .to_narrow_array::<u16>()
                    .unwrap()
                    .iter()
                    .map(u128::from)
                    .collect();
                prop_assert_eq!(got, expect);
                Ok(())
            },
        )
        .unwrap();
}

// ---- Hostile but valid foreign tensors: bounded work, no lying types ----

use bitpack_tests::lying::{Greedy, GreedyNibble};

/// Imports `f`, runs `check` on the tensor, and asserts the deleter ran
/// once by the end.
fn with_import(mut f: Foreign, check: impl FnOnce(&mut DlpackTensor<'static>)) {
    let ((), deleted) = f.import_with(|r| {
        let mut t = r.expect("a valid descriptor");
        check(&mut t);
    });
    assert_eq!(deleted, 1);
}

fn is_dtype_error<T>(r: bitpack::Result<T>) -> bool {
    matches!(r, Err(Error::DlpackDtype { .. }))
}

#[test]
fn a_lying_element_type_cannot_reach_memory_outside_the_tensor() {
    let mut data = [1u8, 2, 3, 4, 5, 6, 7, 8];
    with_import(Foreign::bytes(&mut data), |t| {
        assert!(is_dtype_error(t.as_narrow_ref::<Greedy>()));
        assert!(is_dtype_error(t.to_narrow_array::<Greedy>()));
        assert!(is_dtype_error(t.padded_values::<Greedy>().map(|_| ())));
        assert!(is_dtype_error(t.as_narrow_mut::<Greedy>()));
        assert!(is_dtype_error(t.as_narrow_ref::<GreedyNibble>()));
        assert!(is_dtype_error(t.to_narrow_array::<GreedyNibble>()));
    });
    // Padded 4-bit data: the width matches `GreedyNibble` (so it reads the
    // right bytes under the wrong name), never `Greedy`.
    let mut f = Foreign::bytes(&mut data);
    f.flags = flags::IS_SUBBYTE_TYPE_PADDED;
    f.dtype = DLDataType::scalar(code::FLOAT4_E2M1FN, 4);
    let mut data2 = [1u8, 2, 3, 4, 5, 6, 7, 8];
    f.data = data2.as_mut_ptr().cast();
    with_import(f, |t| {
        assert!(is_dtype_error(t.to_narrow_array::<Greedy>()));
        assert!(is_dtype_error(t.padded_values::<Greedy>().map(|_| ())));
        let v: Vec<u8> = t
            .padded_values::<GreedyNibble>()
            .unwrap()
            .map(|x| x.0)
            .collect();
        assert_eq!(v, [1, 2, 3, 4, 5, 6, 7, 8]);
    });
    // 16 real bytes of kDLUInt/128: `Greedy` reads exactly them.
    let mut wide = [0xabu8; 16];
    let mut f = Foreign::bytes(&mut wide).with_shape(&[1], &[1]);
    f.dtype = DLDataType::scalar(code::UINT, 128);
    with_import(f, |t| {
        assert_eq!(
            t.to_narrow_array::<Greedy>().unwrap().to_vec(),
            [Greedy(u128::from_le_bytes([0xab; 16]))]
        );
    });
}

/// `numpy.broadcast_to(x, (2**40,))` and its relatives: one stored value,
/// 2^40 logical ones.
fn broadcast(data: &mut [u8], dtype: DLDataType, flag_bits: u64, n: i64) -> Foreign {
    let mut f = Foreign::bytes(data).with_shape(&[n], &[0]);
    f.dtype = dtype;
    f.flags = flag_bits;
    f
}

#[test]
fn a_broadcast_to_2_pow_40_is_refused_at_once_or_borrowed() {
    const N: i64 = 1 << 40;
    let limit = |e: Error| match e {
        Error::SizeLimit {
            bytes,
            limit,
            stored,
            ..
        } => (bytes, limit, stored),
        e => panic!("expected SizeLimit, got {e}"),
    };
    let mut one = [1u8; 16];
    let packed = [
        DLDataType::scalar(code::UINT, 8),
        DLDataType::scalar(code::UINT, 1),
        DLDataType::scalar(code::BOOL, 1),
        DLDataType::scalar(code::UINT, 4),
        DLDataType::scalar(code::FLOAT4_E2M1FN, 4),
        DLDataType::scalar(code::FLOAT6_E2M3FN, 6),
        DLDataType::scalar(code::FLOAT8_E4M3FN, 8),
        DLDataType::scalar(code::FLOAT, 32),
        DLDataType::scalar(code::UINT, 128),
    ];
    for dtype in packed {
        with_import(broadcast(&mut one, dtype, 0, N), |t| {
            assert_eq!(t.len(), 1 << 40);
            assert_eq!(t.stored_bytes(), (dtype.bits as usize).div_ceil(8));
            let bits = u128::from(dtype.bits);
            let e = match (dtype.code, dtype.bits) {
                (code::UINT, 8) => t.to_narrow_array::<u8>().unwrap_err(),
                (code::UINT | code::BOOL, 1) => t.to_narrow_array::<bool>().unwrap_err(),
                (code::UINT, 4) => t.to_narrow_array::<u4>().unwrap_err(),
                (code::FLOAT4_E2M1FN, _) => t.to_narrow_array::<E2M1>().unwrap_err(),
                (code::FLOAT6_E2M3FN, _) => t.to_narrow_array::<E2M3>().unwrap_err(),
                (code::FLOAT8_E4M3FN, _) => t.to_narrow_array::<E4M3>().unwrap_err(),
                (code::FLOAT, 32) => t.to_narrow_array::<f32>().unwrap_err(),
                _ => t.to_narrow_array::<u128>().unwrap_err(),
            };
            let stored = t.stored_bytes();
            if bits % 8 == 0 {
                assert_eq!(
                    limit(e),
                    ((1u128 << 40) * bits / 8, COPY_LIMIT_FLOOR, stored),
                    "{dtype:?}"
                );
            } else {
                // A packed sub-byte stream cannot repeat a value in place:
                // the layout is refused before any size is computed.
                assert!(
                    matches!(
                        e,
                        Error::DlpackLayout {
                            axis: Some(0),
                            value: 0,
                            ..
                        }
                    ),
                    "{e}"
                );
            }
        });
    }
    // One value per byte: kDLBool/8 (numpy's bool) and padded FP4. The
    // check reads the one stored byte once; the values are lent lazily.
    for (dtype, flag_bits) in [
        (DLDataType::scalar(code::BOOL, 8), 0),
        (
            DLDataType::scalar(code::FLOAT4_E2M1FN, 4),
            flags::IS_SUBBYTE_TYPE_PADDED,
        ),
    ] {
        with_import(broadcast(&mut one, dtype, flag_bits, N), |t| {
            if dtype.code == code::BOOL {
                assert!(t.padded_values::<bool>().unwrap().take(5).all(|b| b));
                limit(t.to_narrow_array::<bool>().unwrap_err());
            } else {
                let v: Vec<f32> = t
                    .padded_values::<E2M1>()
                    .unwrap()
                    .take(3)
                    .map(E2M1::to_f32)
                    .collect();
                assert_eq!(v, [0.5; 3]);
                limit(t.to_narrow_array::<E2M1>().unwrap_err());
            }
        });
    }
    // A bad stored byte is found by the one check, naming flat index 0.
    let mut bad = [0x21u8];
    with_import(
        broadcast(
            &mut bad,
            DLDataType::scalar(code::FLOAT4_E2M1FN, 4),
            flags::IS_SUBBYTE_TYPE_PADDED,
            N,
        ),
        |t| {
            assert_eq!(
                t.padded_values::<E2M1>().map(|_| ()).unwrap_err(),
                Error::PaddedValue {
                    index: 0,
                    byte: 0x21,
                    bits: 4
                }
            );
        },
    );
    // With no limit, the allocator refuses 2^62 bytes: an error, no abort.
    with_import(
        broadcast(&mut one, DLDataType::scalar(code::UINT, 8), 0, 1 << 62),
        |t| {
            assert!(matches!(
                t.to_narrow_array_within::<u8>(usize::MAX),
                Err(Error::Alloc { .. })
            ));
        },
    );
    // u128 broadcast to 2^57 values (2^61 bytes): refused, not a panic.
    with_import(
        broadcast(&mut one, DLDataType::scalar(code::UINT, 128), 0, 1 << 57),
        |t| {
            limit(t.to_narrow_array::<u128>().unwrap_err());
            assert!(t.to_narrow_array_within::<u128>(usize::MAX).is_err());
        },
    );
    // A small broadcast copies, under the floor.
    let mut seven = [7u8];
    with_import(
        broadcast(&mut seven, DLDataType::scalar(code::UINT, 8), 0, 1000),
        |t| {
            assert_eq!(t.to_narrow_array::<u8>().unwrap().to_vec(), vec![7u8; 1000]);
            assert!(matches!(
                t.to_narrow_array_within::<u8>(999),
                Err(Error::SizeLimit { .. })
            ));
        },
    );
}

#[test]
fn self_overlapping_windows_are_bounded_and_exact() {
    // as_strided windows: shape [4, 3] over 6 bytes with strides [1, 1].
    let mut data = [1u8, 2, 3, 4, 5, 6];
    let windows = |data: &mut [u8]| {
        let mut f = Foreign::bytes(data).with_shape(&[4, 3], &[1, 1]);
        f.flags = flags::IS_SUBBYTE_TYPE_PADDED;
        f.dtype = DLDataType::scalar(code::UINT, 4);
        f
    };
    with_import(windows(&mut data), |t| {
        let v: Vec<u8> = t.padded_values::<u4>().unwrap().map(u8::from).collect();
        assert_eq!(v, [1, 2, 3, 2, 3, 4, 3, 4, 5, 4, 5, 6]);
        assert_eq!(
            t.to_narrow_array::<u4>().unwrap().to_vec(),
            v.iter().map(|&x| u4::new(x)).collect::<Vec<_>>()
        );
    });
    // 2^20 x 2^20 windows over 2^21 bytes: 2^40 visits, refused at once.
    let mut big = vec![0u8; 1 << 21];
    let mut f = Foreign::bytes(&mut big).with_shape(&[1 << 20, 1 << 20], &[1, 1]);
    f.flags = flags::IS_SUBBYTE_TYPE_PADDED;
    f.dtype = DLDataType::scalar(code::UINT, 4);
    with_import(f, |t| {
        assert!(matches!(
            t.padded_values::<u4>().map(|_| ()),
            Err(Error::SizeLimit { .. })
        ));
        assert!(matches!(
            t.to_narrow_array::<u4>(),
            Err(Error::SizeLimit { .. })
        ));
    });
}

#[test]
fn extent_one_axes_with_extreme_strides() {
    let mut data = [9u8, 8, 7];
    for (shape, strides) in [
        (vec![1, 3], vec![i64::MAX, 1]),
        (vec![3, 1], vec![1, i64::MAX]),
        (vec![1, 3, 1], vec![i64::MIN, 1, i64::MAX]),
    ] {
        with_import(
            Foreign::bytes(&mut data).with_shape(&shape, &strides),
            |t| {
                assert_eq!(t.to_narrow_array::<u8>().unwrap().to_vec(), [9, 8, 7]);
                assert_eq!(t.as_narrow_ref::<u8>().unwrap().to_vec(), [9, 8, 7]);
            },
        );
        let mut f = Foreign::bytes(&mut data).with_shape(&shape, &strides);
        f.flags = flags::IS_SUBBYTE_TYPE_PADDED;
        f.dtype = DLDataType::scalar(code::UINT, 4);
        with_import(f, |t| {
            let v: Vec<u8> = t.padded_values::<u4>().unwrap().map(u8::from).collect();
            assert_eq!(v, [9, 8, 7]);
            assert_eq!(t.to_narrow_array::<u4>().unwrap().len(), 3);
        });
    }
}

#[test]
fn stray_bits_after_the_last_packed_value_are_masked_by_the_copy() {
    // Three u4 values in two bytes; the producer left 0xF in the unused
    // high nibble (DLPack does not promise zeros there).
    let mut data = [0x21u8, 0xF3];
    let mut f = Foreign::bytes(&mut data).with_shape(&[3], &[1]);
    f.dtype = DLDataType::scalar(code::UINT, 4);
    with_import(f, |t| {
        assert_eq!(
            t.as_narrow_ref::<u4>().unwrap_err(),
            Error::NonZeroPadding { byte: 1 }
        );
        assert_eq!(
            t.as_narrow_mut::<u4>().unwrap_err(),
            Error::NonZeroPadding { byte: 1 }
        );
        let a = t.to_narrow_array::<u4>().unwrap();
        assert_eq!(a.to_vec(), [1, 2, 3].map(u4::new));
        assert_eq!(a.as_bytes(), [0x21, 0x03]);
    });
    assert_eq!(data, [0x21, 0xF3], "the producer's bytes are unchanged");
}

#[test]
fn exports_of_extents_past_i64_are_errors() {
    let mut a = NarrowArray::<u8>::new();
    a.reshape(&[0, usize::MAX]).unwrap();
    let names_axis_1 = |e: &Error| {
        matches!(
            e,
            Error::DlpackField {
                field: "shape",
                axis: Some(1),
                ..
            }
        )
    };
    let e = DlpackTensor::from_view(&a.view()).unwrap_err();
    assert!(names_axis_1(&e), "{e}");
    let e = DlpackTensor::from_narrow_array_with(a, ShapeUnit::Values).unwrap_err();
    assert!(names_axis_1(&e), "{e}");
}

// ---- PyTorch's convention: sub-byte lanes, shape in bytes ----

#[test]
fn torch_float4_x2_tensors_import_as_values() {
    // torch.float4_e2m1fn_x2 of shape [2, 3]: 6 bytes, 12 E2M1 values.
    let mut data = [0x21u8, 0x43, 0x65, 0x87, 0xa9, 0xcb];
    let x2 = DLDataType {
        code: code::FLOAT4_E2M1FN,
        bits: 4,
        lanes: 2,
    };
    let mut f = Foreign::bytes(&mut data).with_shape(&[2, 3], &[3, 1]);
    f.dtype = x2;
    with_import(f, |t| {
        assert_eq!(t.dtype(), x2);
        assert_eq!((t.shape(), t.strides()), (&[2, 6][..], &[6, 1][..]));
        let codes: Vec<u8> = t
            .as_narrow_ref::<E2M1>()
            .unwrap()
            .iter()
            .map(|v| v.raw_bits())
            .collect();
        assert_eq!(codes, (1..=12).collect::<Vec<u8>>());
        assert_eq!(t.to_narrow_array::<E2M1>().unwrap().as_bytes(), data_copy());
        assert!(is_dtype_error(t.as_narrow_ref::<u4>()));
    });
    fn data_copy() -> [u8; 6] {
        [0x21, 0x43, 0x65, 0x87, 0xa9, 0xcb]
    }
    // Rows two bytes apart in a transposed or sliced tensor copy too.
    let mut data = [0x21u8, 0x43, 0x65, 0x87];
    let mut f = Foreign::bytes(&mut data).with_shape(&[2, 1], &[2, 1]);
    f.dtype = x2;
    with_import(f, |t| {
        assert_eq!(t.shape(), [2, 2]);
        let codes: Vec<u8> = t
            .to_narrow_array::<E2M1>()
            .unwrap()
            .iter()
            .map(|v| v.raw_bits())
            .collect();
        assert_eq!(codes, [1, 2, 5, 6]);
    });
    // Refused: a last dimension that is not contiguous, lanes that do not
    // fill bytes, vector types of whole-byte lanes, padded vectors, 0-d.
    let mut data = [0u8; 8];
    let mut f = Foreign::bytes(&mut data).with_shape(&[2, 2], &[1, 2]);
    f.dtype = x2;
    assert!(matches!(
        f.error(),
        Error::DlpackLayout {
            axis: Some(1),
            value: 2,
            ..
        }
    ));
    for (bits, lanes, flag_bits, shape) in [
        (4u8, 3u16, 0, vec![2i64]),
        (8, 2, 0, vec![2]),
        (32, 4, 0, vec![2]),
        (4, 0, 0, vec![2]),
        (4, 2, flags::IS_SUBBYTE_TYPE_PADDED, vec![2]),
        (4, 2, 0, vec![]),
    ] {
        let mut f = Foreign::bytes(&mut data);
        f.dtype = DLDataType {
            code: code::FLOAT4_E2M1FN,
            bits,
            lanes,
        };
        f.flags = flag_bits;
        let strides = vec![1; shape.len()];
        let e = f.with_shape(&shape, &strides).error();
        assert!(
            matches!(
                e,
                Error::DlpackField {
                    field: "dtype.lanes" | "ndim",
                    ..
                }
            ),
            "{e}"
        );
    }
}

#[test]
fn exports_in_bytes_round_trip_for_every_width_that_divides_8() {
    fn check<T: DlpackElement + PartialEq + core::fmt::Debug>(
        rows: usize,
        bytes: usize,
        seed: u64,
    ) {
        let lanes = 8 / T::BITS as usize;
        let a = shaped::<T>(&[rows, bytes * lanes], seed);
        let t = DlpackTensor::from_narrow_array_with(a.clone(), ShapeUnit::Bytes).unwrap();
        let dl = &t.as_raw().dl_tensor;
        assert_eq!(
            (dl.dtype.lanes as usize, dl.dtype.bits as u32),
            (lanes, T::BITS)
        );
        // SAFETY: the export's two extents.
        let sh = unsafe { std::slice::from_raw_parts(dl.shape, 2) };
        // SAFETY: the export's two strides.
        let st = unsafe { std::slice::from_raw_parts(dl.strides, 2) };
        assert_eq!(sh, [rows as i64, bytes as i64]);
        assert_eq!(st, [bytes.max(1) as i64, 1]);
        assert_eq!(t.shape(), a.shape());
        let raw = t.into_raw();
        // SAFETY: an export of this crate, handed back once.
        let back = unsafe { DlpackTensor::from_raw(raw) }.unwrap();
        assert_eq!(back.shape(), a.shape());
        assert_eq!(back.to_narrow_array::<T>().unwrap(), a);
        assert_eq!(back.as_narrow_ref::<T>().unwrap().as_bytes(), a.as_bytes());
    }
    runner(64)
        .run(
            &(0usize..4, 0usize..9, any::<u64>()),
            |(rows, bytes, seed)| {
                check::<E2M1>(rows, bytes, seed);
                check::<u4>(rows, bytes, seed);
                check::<arbitrary_int::u2>(rows, bytes, seed);
                check::<arbitrary_int::u1>(rows, bytes, seed);
                check::<bool>(rows, bytes, seed);
                Ok(())
            },
        )
        .unwrap();
    // Widths that do not divide 8, odd extents and 0-d arrays are errors.
    let six = NarrowArray::from_slice(&[E2M3::from_f32(1.0); 4]);
    assert!(DlpackTensor::from_narrow_array_with(six, ShapeUnit::Bytes).is_err());
    let odd = NarrowArray::from_slice(&[E2M1::from_f32(1.0); 3]);
    assert!(DlpackTensor::from_narrow_array_with(odd, ShapeUnit::Bytes).is_err());
    let mut scalar = NarrowArray::from_slice(&[E2M1::from_f32(1.0)]);
    scalar.reshape(&[]).unwrap();
    assert!(DlpackTensor::from_narrow_array_with(scalar, ShapeUnit::Bytes).is_err());
}
