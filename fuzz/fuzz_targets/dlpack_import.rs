//! The DLPack importer against hostile but in-bounds producers: a random
//! descriptor (dtype, lanes, padded flag, shape, strides with negative,
//! zero and repeated steps, byte offset) over a random buffer, kept only
//! when every element it reaches lies inside the buffer (what a producer
//! promises). The import then must succeed or fail with an error, call the
//! deleter exactly once, and every value `to_narrow_array` and
//! `padded_values` give must be the reference reader's: the bits of logical
//! element `k` at its own address, read one bit at a time.

#![no_main]

use std::cell::Cell;
use std::ptr;

use arbitrary::Arbitrary;
use arbitrary_int::u4;
use bitpack::dlpack::{
    DLDataType, DLDevice, DLManagedTensorVersioned, DLPackVersion, DLTensor, DlpackElement,
    DlpackTensor, code, device, flags,
};
use bitpack::{E2M1, Unsigned};
use libfuzzer_sys::fuzz_target;

thread_local! {
    static DELETED: Cell<usize> = const { Cell::new(0) };
}

unsafe extern "C" fn deleter(p: *mut DLManagedTensorVersioned) {
    DELETED.with(|d| d.set(d.get() + 1));
    // SAFETY: made by `Box::into_raw` below, freed once.
    drop(unsafe { Box::from_raw(p) });
}

#[derive(Arbitrary, Debug)]
struct Input {
    data: Vec<u8>,
    kind: u8,
    padded: bool,
    dims: Vec<(u8, i8)>,
    offset: u8,
}

/// The bit at stream bit `bit` of `data`.
fn bit(data: &[u8], bit: i128) -> u128 {
    u128::from(data[(bit / 8) as usize] >> (bit % 8) & 1)
}

fn check<T: DlpackElement + PartialEq + core::fmt::Debug>(
    input: &Input,
    dtype: DLDataType,
    padded: bool,
) {
    let nd = input.dims.len().min(4);
    let lanes = i128::from(dtype.lanes);
    let mut shape: Vec<i64> = input.dims[..nd]
        .iter()
        .map(|d| i64::from(d.0 % 7))
        .collect();
    let mut strides: Vec<i64> = input.dims[..nd]
        .iter()
        .map(|d| i64::from(d.1 % 9))
        .collect();
    if let Some(first) = input.dims.first() {
        // Now and then a huge broadcast axis.
        if first.0 >= 250 && nd > 0 {
            shape[0] = 1 << 40;
            strides[0] = 0;
        }
    }
    // One value per byte: the padded flag, or kDLBool's 8-bit bytes.
    let per_byte = padded || dtype.bits == 8 && dtype.code == code::BOOL;
    let elem_bits = if padded {
        8
    } else {
        i128::from(dtype.bits) * lanes
    };
    let count: i128 = shape.iter().map(|&e| i128::from(e)).product();
    // The element (vector) indices reached, relative to the first one.
    let (mut lo, mut hi) = (0i128, 0i128);
    for (&e, &s) in shape.iter().zip(&strides) {
        let span = (i128::from(e) - 1).max(0) * i128::from(s);
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    let base = i128::from(input.offset) * 8;
    if count > 0
        && (base + lo * elem_bits < 0 || base + (hi + 1) * elem_bits > input.data.len() as i128 * 8)
    {
        return; // not a producer's promise: out of bounds
    }
    let mut data = input.data.clone();
    DELETED.with(|d| d.set(0));
    let m = Box::new(DLManagedTensorVersioned {
        version: DLPackVersion { major: 1, minor: 3 },
        manager_ctx: ptr::null_mut(),
        deleter: Some(deleter),
        flags: if padded {
            flags::IS_SUBBYTE_TYPE_PADDED
        } else {
            0
        },
        dl_tensor: DLTensor {
            data: if data.is_empty() {
                ptr::null_mut()
            } else {
                data.as_mut_ptr().cast()
            },
            device: DLDevice {
                device_type: device::CPU,
                device_id: 0,
            },
            ndim: nd as i32,
            dtype,
            shape: shape.as_mut_ptr(),
            strides: strides.as_mut_ptr(),
            byte_offset: u64::from(input.offset),
        },
    });
    // SAFETY: a fresh descriptor whose reachable bytes are inside `data`,
    // which outlives the import, with its shape and strides alive too.
    let t = unsafe { DlpackTensor::from_raw(Box::into_raw(m)) };
    if let Ok(t) = &t {
        // The reference: logical value `k` (row-major over the value shape).
        let vshape = t.shape().to_vec();
        let vstrides = t.strides().to_vec();
        let w = T::BITS as i128;
        let reference = |k: usize| -> u128 {
            let (mut rest, mut idx) = (k, 0i128);
            for (&e, &s) in vshape.iter().zip(&vstrides).rev() {
                idx += (rest % e) as i128 * s as i128;
                rest /= e;
            }
            let first = if per_byte {
                base + idx * 8
            } else {
                base + idx * w
            };
            (0..w).fold(0u128, |v, b| v | bit(&data, first + b) << b)
        };
        if let Ok(a) = t.to_narrow_array::<T>() {
            assert_eq!(a.shape(), &vshape[..]);
            for k in 0..a.len().min(4096) {
                assert_eq!(
                    a.get(k).unwrap().raw_bits().to_u128(),
                    reference(k),
                    "value {k}"
                );
            }
        }
        if let Ok(values) = t.padded_values::<T>() {
            for (k, v) in values.take(4096).enumerate() {
                assert_eq!(v.raw_bits().to_u128(), reference(k), "padded value {k}");
            }
        }
        if let Ok(r) = t.as_narrow_ref::<T>() {
            for k in 0..r.len().min(4096) {
                assert_eq!(
                    r.get(k).unwrap().raw_bits().to_u128(),
                    reference(k),
                    "borrowed {k}"
                );
            }
        }
    }
    drop(t);
    assert_eq!(DELETED.with(Cell::get), 1, "the deleter runs exactly once");
}

fuzz_target!(|input: Input| {
    let x2 = DLDataType {
        code: code::FLOAT4_E2M1FN,
        bits: 4,
        lanes: 2,
    };
    match input.kind % 6 {
        0 => check::<u8>(&input, DLDataType::scalar(code::UINT, 8), false),
        1 => check::<u4>(&input, DLDataType::scalar(code::UINT, 4), input.padded),
        2 => check::<bool>(&input, DLDataType::scalar(code::UINT, 1), false),
        3 => check::<bool>(&input, DLDataType::scalar(code::BOOL, 8), false),
        4 => check::<E2M1>(
            &input,
            DLDataType::scalar(code::FLOAT4_E2M1FN, 4),
            input.padded,
        ),
        _ => check::<E2M1>(&input, x2, false),
    }
});
