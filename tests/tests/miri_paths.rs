//! The `unsafe` and byte-order paths outside the kernels, on small fixed
//! inputs checked against a bit-at-a-time reference: typed views,
//! zero-copy reinterpret, `NArray` checked casts, the word-aligned layout
//! (whose bulk paths use BMI2 and AVX2 where the build enables them),
//! strided views, the float formats' bulk paths, and the bulk calls of
//! `NarrowRef`/`NarrowMut`, whose kernels run on the caller's bytes in place.
//!
//! Cheap enough for Miri, which `.ci/run` runs them under with the x86 SIMD
//! features enabled, and on big-endian s390x; no proptest, no file system.

use arbitrary_int::{u4, u5, u20};
use bitpack::formats::{self, E2M1, E4M3, Mode};
use bitpack::{BitElement, DynNarrowArray, Layout, NArray, NarrowArray, WordAligned};

/// Value `i` of `w` bits from an LSB-first byte stream, one bit at a time.
fn ref_get(bytes: &[u8], i: usize, w: usize) -> u128 {
    (0..w).fold(0, |v, b| {
        let bit = i * w + b;
        v | ((((bytes[bit / 8] >> (bit % 8)) & 1) as u128) << b)
    })
}

/// A few pseudo-random bytes (xorshift), deterministic.
fn bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn zero_copy_reinterpret_keeps_every_bit() {
    for len in [1usize, 2, 7, 16, 33] {
        let raw = bytes(len.div_ceil(2), len as u64);
        let mut raw = raw;
        if len % 2 == 1 {
            *raw.last_mut().unwrap() &= 0x0f; // padding zero
        }
        let a = NarrowArray::<u4>::from_bytes(&raw, len).unwrap();
        for i in 0..len {
            assert_eq!(a.get(i).unwrap().value() as u128, ref_get(&raw, i, 4));
        }
        assert_eq!(a.as_bytes(), &raw[..]);
        let bits = a.clone().reinterpret::<bool>().unwrap();
        assert_eq!(bits.len(), 4 * len);
        for i in 0..4 * len {
            assert_eq!(bits.get(i).unwrap() as u128, ref_get(&raw, i, 1));
        }
        if len % 2 == 0 {
            let b = a.reinterpret::<u8>().unwrap();
            assert_eq!(b.to_vec(), raw);
        } else {
            // An odd number of nibbles is not whole bytes: an error that
            // gives the array back unchanged.
            let e = a.clone().reinterpret::<u8>().unwrap_err();
            assert_eq!(e.into_array(), a);
        }
    }
}

#[cfg(target_endian = "little")]
#[test]
fn typed_views_are_the_bytes() {
    let raw = bytes(24, 3);
    let mut a = NarrowArray::<u8>::from_bytes(&raw, 24).unwrap();
    assert_eq!(a.as_slice_of::<u8>().unwrap(), &raw[..]);
    let words = a.as_slice_of::<u32>().unwrap();
    for (k, w) in words.iter().enumerate() {
        assert_eq!(*w as u128, ref_get(&raw, k, 32));
    }
    let halves = a.as_slice_of_mut::<u16>().unwrap();
    halves[3] = 0xbeef;
    assert_eq!(a.get(6), Some(0xef));
    assert_eq!(a.get(7), Some(0xbe));
    // Not whole elements.
    let odd = NarrowArray::<u8>::from_bytes(&raw[..3], 3).unwrap();
    assert!(odd.as_slice_of::<u16>().is_err());
}

#[test]
fn narray_checked_casts_check_the_padding() {
    for b in 0u8..=255 {
        let cast = bytemuck::checked::try_from_bytes::<NArray<bool, 4>>(core::slice::from_ref(&b));
        assert_eq!(cast.is_ok(), b >> 4 == 0, "{b:#x}");
        if let Ok(a) = cast {
            assert_eq!(a.raw_bits(), b);
        }
        assert_eq!(NArray::<bool, 4>::try_from_bytes(&[b]).is_ok(), b >> 4 == 0);
    }
    let raw = [0x21u8, 0x43, 0x05];
    let a = NArray::<u4, 5>::try_from_bytes(&raw).unwrap();
    for i in 0..5 {
        assert_eq!(a.get(i).unwrap().value() as u128, ref_get(&raw, i, 4));
    }
    assert!(NArray::<u4, 5>::try_from_bytes(&[0x21, 0x43, 0x15]).is_err());
    assert!(NArray::<u4, 5>::try_from_bytes(&raw[..2]).is_err());
    let zero: NArray<u4, 5> = bytemuck::Zeroable::zeroed();
    assert_eq!(zero.raw_bits(), 0);
}

#[test]
fn word_aligned_layout_matches_the_dense_one() {
    for len in [0usize, 1, 11, 12, 13, 64, 200] {
        let values: Vec<u5> = bytes(len, 7 + len as u64)
            .iter()
            .map(|&b| u5::new(b & 31))
            .collect();
        let dense: NarrowArray<u5> = values.iter().copied().collect();
        let wide: NarrowArray<u5, WordAligned> = values.iter().copied().collect();
        assert_eq!(wide.to_vec(), values);
        assert_eq!(dense.to_layout::<WordAligned>(), wide);
        assert_eq!(wide.to_layout::<bitpack::Dense>(), dense);
        let want: u64 = values.iter().map(|v| v.value() as u64).sum();
        assert_eq!(wide.sum() as u64, want);
        assert_eq!(dense.sum() as u64, want);
        // 12 five-bit values per word, never straddling.
        assert_eq!(wide.as_words().len(), len.div_ceil(12));
        let mut w = wide.clone();
        if len > 0 {
            w.set(len - 1, u5::new(31)).unwrap();
            assert_eq!(w.get(len - 1), Some(u5::new(31)));
        }
        // Wider raw type: 20 bits in a u32, three per word.
        let v20: Vec<u20> = (0..len as u32)
            .map(|i| u20::new(i * 4099 % (1 << 20)))
            .collect();
        let a20: NarrowArray<u20, WordAligned> = v20.iter().copied().collect();
        assert_eq!(a20.to_vec(), v20);
    }
}

#[test]
fn strided_views_read_and_write_through_the_stream() {
    let values: Vec<u5> = (0..24u8).map(|i| u5::new(i + 1)).collect();
    let mut a: NarrowArray<u5> = values.iter().copied().collect();
    a.reshape(&[4, 6]).unwrap();
    let v = a.view().transpose().reversed(0).unwrap();
    for i in 0..6 {
        for j in 0..4 {
            let want = values[j * 6 + (5 - i)];
            assert_eq!(v.get(&[i, j]), Some(want));
        }
    }
    assert_eq!(
        a.view().sum_axes(&[0], false).unwrap().1,
        [40, 44, 48, 52, 56, 60]
    );
    let broadcast = a.view_strided(&[3, 5], &[0, 1], 2).unwrap();
    assert_eq!(broadcast.sum(), 3 * (3 + 4 + 5 + 6 + 7));
    // Unpacked: contiguous rows straight from the width's kernel (on a
    // little-endian target), strided ones through the gather.
    let mut out = vec![u5::new(0); 15];
    broadcast.unpack_into(&mut out).unwrap();
    assert_eq!(out, [&values[2..7], &values[2..7], &values[2..7]].concat());
    let mut out = vec![u5::new(0); 24];
    v.unpack_into(&mut out).unwrap();
    assert_eq!(out, v.to_vec());
    let rows = a.view().slice(1, 1..6).unwrap();
    let mut out = vec![u5::new(0); 20];
    rows.unpack_into(&mut out).unwrap();
    let want: Vec<u5> = (0..4)
        .flat_map(|r| values[r * 6 + 1..r * 6 + 6].to_vec())
        .collect();
    assert_eq!(out, want);
    // Overlapping assignment, as if the source were copied first.
    let mut model: Vec<u5> = values.clone();
    let dst = Layout::new(&[10], &[1], 1, 24).unwrap();
    let src = Layout::new(&[10], &[1], 0, 24).unwrap();
    a.assign_within(&dst, &src).unwrap();
    let snapshot: Vec<u5> = model[0..10].to_vec();
    model[1..11].copy_from_slice(&snapshot);
    assert_eq!(a.to_vec(), model);
    a.view_strided_mut(&[4], &[-6], 23)
        .unwrap()
        .fill(u5::new(0))
        .unwrap();
    for k in 0..4 {
        model[23 - 6 * k] = u5::new(0);
    }
    assert_eq!(a.to_vec(), model);
    let mut d = DynNarrowArray::from_slice(3, &[1, 2, 3, 4, 5]).unwrap();
    d.widen(17).unwrap();
    d.set(4, 100_000).unwrap();
    assert_eq!(d.to_vec(), [1, 2, 3, 4, 100_000]);
}

#[test]
fn float_bulk_paths_match_the_one_value_routine() {
    // Every E4M3 code, through the bulk decode (table, F16C where enabled).
    let codes: Vec<E4M3> = (0..=255u8).map(E4M3::from_raw_bits).collect();
    let mut out = vec![0f32; 256];
    formats::decode_slice(&codes, &mut out).unwrap();
    for (c, x) in codes.iter().zip(&out) {
        let want = c.to_f32();
        // NaN signs are not promised by Rust's float semantics (Miri picks
        // them at random): compare NaN-ness there, bits elsewhere.
        if want.is_nan() {
            assert!(x.is_nan(), "{c:?}");
        } else {
            assert_eq!(x.to_bits(), want.to_bits(), "{c:?}");
        }
    }
    let inputs: Vec<f32> = (-40..40).map(|i| i as f32 * 0.37).collect();
    let packed = formats::encode::<E2M1>(&inputs, Mode::Nearest);
    for (i, &x) in inputs.iter().enumerate() {
        assert_eq!(packed.get(i), Some(E2M1::from_f32(x)), "{x}");
    }
}

/// The DLPack round trips under Miri, which reports any leak at exit: a
/// 3-d export handed out and taken back (the wrapper's shape and strides
/// must be freed by `into_raw`), a lent view, torch's byte convention, a
/// padded export, a broadcast foreign tensor and a type that accepts every
/// data type (refused without forming a slice).
#[cfg(feature = "dlpack")]
#[test]
fn dlpack_round_trips_free_everything_and_read_in_bounds() {
    use bitpack::dlpack::{
        DLDataType, DLDevice, DLManagedTensorVersioned, DLPackVersion, DLTensor, DlpackTensor,
        ShapeUnit, code, device,
    };
    use bitpack_tests::lying::Greedy;
    use std::ptr;

    let mut a: NarrowArray<u4> = (0..24u8).map(|x| u4::new(x & 15)).collect();
    a.reshape(&[2, 3, 4]).unwrap();
    let raw = DlpackTensor::from_narrow_array(a.clone()).into_raw();
    // SAFETY: an export of this crate, handed back once.
    let back = unsafe { DlpackTensor::from_raw(raw) }.unwrap();
    assert_eq!(back.to_narrow_array::<u4>().unwrap(), a);
    drop(back);

    let view = a.view().step_by(1, 2).unwrap();
    let lent = DlpackTensor::from_view(&view).unwrap();
    let raw = lent.into_raw();
    // SAFETY: a lent export, handed back once while `a` lives.
    let back = unsafe { DlpackTensor::from_raw(raw) }.unwrap();
    assert_eq!(
        back.to_narrow_array::<u4>().unwrap(),
        view.to_narrow_array()
    );
    drop(back);

    let f4 = formats::encode::<E2M1>(&[1.0, -2.0, 6.0, 0.5], Mode::Nearest);
    let raw = DlpackTensor::from_narrow_array_with(f4.clone(), ShapeUnit::Bytes)
        .unwrap()
        .into_raw();
    // SAFETY: as above.
    let back = unsafe { DlpackTensor::from_raw(raw) }.unwrap();
    assert_eq!(
        back.as_narrow_ref::<E2M1>().unwrap().as_bytes(),
        f4.as_bytes()
    );
    let padded = DlpackTensor::from_narrow_array_padded(&f4);
    assert_eq!(padded.to_narrow_array::<E2M1>().unwrap(), f4);
    let raw = padded.into_raw();
    // SAFETY: a live export of this crate.
    let delete = unsafe { (*raw).deleter }.unwrap();
    // SAFETY: its deleter, called once.
    unsafe { delete(raw) };
    drop(back);

    unsafe extern "C" fn free(p: *mut DLManagedTensorVersioned) {
        // SAFETY: made by `Box::into_raw` below, freed once.
        drop(unsafe { Box::from_raw(p) });
    }
    let mut data = [5u8; 8];
    let (mut shape, mut strides) = ([1i64 << 40], [0i64]);
    let m = Box::new(DLManagedTensorVersioned {
        version: DLPackVersion { major: 1, minor: 3 },
        manager_ctx: ptr::null_mut(),
        deleter: Some(free),
        flags: 0,
        dl_tensor: DLTensor {
            data: data.as_mut_ptr().cast(),
            device: DLDevice {
                device_type: device::CPU,
                device_id: 0,
            },
            ndim: 1,
            dtype: DLDataType::scalar(code::UINT, 8),
            shape: shape.as_mut_ptr(),
            strides: strides.as_mut_ptr(),
            byte_offset: 0,
        },
    });
    // SAFETY: a fresh descriptor over `data`, `shape` and `strides`, which
    // outlive the import.
    let t = unsafe { DlpackTensor::from_raw(Box::into_raw(m)) }.unwrap();
    assert!(t.as_narrow_ref::<Greedy>().is_err());
    assert!(t.to_narrow_array::<Greedy>().is_err());
    assert!(t.to_narrow_array::<u8>().is_err());
    assert!(t.to_narrow_array_within::<u8>(64).is_err());
}

/// `NarrowRef::sum`, `unpack_into` and `NarrowMut::pack_from` over bytes at
/// every alignment: the word kernels read and write the aligned words inside
/// the caller's bytes in place (the SIMD kernels' loads and stores stay
/// inside them), the values around those through a stack buffer; and the
/// stream's bytes as words on either byte order.
#[test]
fn borrowed_bytes_in_place_at_every_alignment() {
    use bitpack::{NarrowMut, NarrowRef};
    fn check<T: bitpack::UnsignedElement + PartialEq + core::fmt::Debug>(n: usize) {
        let w = T::BITS as usize;
        let mut stream = bytes((n * w).div_ceil(8), n as u64 + 7);
        if !(n * w).is_multiple_of(8) {
            let last = stream.len() - 1;
            stream[last] &= (1u8 << ((n * w) % 8)) - 1;
        }
        let vals: Vec<u128> = (0..n).map(|i| ref_get(&stream, i, w)).collect();
        let typed: Vec<T> = vals
            .iter()
            .map(|&v| T::from_raw_bits(bitpack::Unsigned::from_u128_truncate(v)))
            .collect();
        for align in 0..8 {
            let mut buf = vec![0u64; (align + stream.len()).div_ceil(8) + 1];
            let all: &mut [u8] = bytemuck::cast_slice_mut(&mut buf);
            let span = align..align + stream.len();
            {
                let mut m = NarrowMut::<T>::from_bytes(&mut all[span.clone()], n).unwrap();
                m.pack_from(&typed).unwrap();
            }
            assert_eq!(&all[span.clone()], &stream[..], "{w} bits, align {align}");
            let r = NarrowRef::<T>::from_bytes(&all[span], n).unwrap();
            assert_eq!(
                r.sum(),
                vals.iter().sum::<u128>(),
                "{w} bits, align {align}"
            );
            let mut out = typed.clone();
            out.reverse();
            r.unpack_into(&mut out).unwrap();
            assert_eq!(out, typed, "{w} bits, align {align}");
        }
    }
    check::<u4>(300);
    check::<u5>(300);
    check::<u20>(90);
    check::<u16>(70);
}
