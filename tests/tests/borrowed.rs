//! `NarrowRef` and `NarrowMut` (packed arrays borrowed over bytes) against
//! `NarrowArray` on the same bytes and a bit-by-bit reference: every read at
//! widths 1..=8, 12, 13, 33, 64 and 127, bytes starting at every alignment
//! 0..8 with and without trailing zero bytes; writes; the bulk calls
//! (`pack_from`, `sum`, `unpack_into`), which run on the aligned words
//! inside the bytes in place, at 15 widths and every alignment; and the bad
//! inputs (short buffers, set padding bits, shapes, unaligned word views).

use arbitrary_int::{u3, u4, u5, u6, u7, u12, u13, u24, u33, u48, u127};
use bitpack::{
    BitElement, DynNarrowArray, E2M1, Error, LengthOf, NarrowArray, NarrowMut, NarrowRef,
    UnsignedElement,
};
use bitpack_tests::{low_bits, raw, value};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// The dense stream of `vals` (each cut to `bits`), built bit by bit.
fn reference_bytes(vals: &[u128], bits: u32) -> Vec<u8> {
    let mut out = vec![0u8; (vals.len() * bits as usize).div_ceil(8)];
    for (i, &v) in vals.iter().enumerate() {
        for b in 0..bits as usize {
            if (v >> b) & 1 == 1 {
                let k = i * bits as usize + b;
                out[k / 8] |= 1 << (k % 8);
            }
        }
    }
    out
}

/// A check of the sums of a `NarrowRef` (whole, or over a 1-d descriptor)
/// against the owned array's.
type SumCheck<T> = fn(&NarrowRef<'_, T>, &NarrowArray<T>, &[usize], &[isize], isize);

/// Every read of a `NarrowRef` over `stream` placed at `align` bytes into a
/// buffer, with `extra` zero bytes after it, against `NarrowArray::from_bytes`
/// and the values.
fn check_reads<T: BitElement + core::fmt::Debug + PartialEq>(
    vals: &[u128],
    align: usize,
    extra: usize,
    step: isize,
    sums: Option<SumCheck<T>>,
) {
    let vals: Vec<u128> = vals.iter().map(|&v| low_bits(v, T::BITS)).collect();
    let stream = reference_bytes(&vals, T::BITS);
    // A u64 buffer so `align` is an offset from an 8-byte boundary.
    let mut words = vec![0u64; (align + stream.len() + extra).div_ceil(8) + 1];
    let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
    buf[align..align + stream.len()].copy_from_slice(&stream);
    let bytes = &buf[align..align + stream.len() + extra];

    let r = NarrowRef::<T>::from_bytes(bytes, vals.len()).unwrap();
    let owned = NarrowArray::<T>::from_bytes(bytes, vals.len()).unwrap();
    let expect: Vec<T> = vals.iter().map(|&v| value::<T>(v)).collect();
    assert_eq!(r.len(), vals.len());
    assert_eq!(r.as_bytes(), &stream[..]);
    assert_eq!(r.as_bytes(), owned.as_bytes());
    for (i, e) in expect.iter().enumerate() {
        assert_eq!(r.get(i).as_ref(), Some(e), "get({i})");
    }
    assert_eq!(r.get(vals.len()), None);
    assert_eq!(r.iter().collect::<Vec<_>>(), expect);
    assert_eq!(
        r.iter().rev().collect::<Vec<_>>(),
        expect.iter().rev().copied().collect::<Vec<_>>()
    );
    assert_eq!(r.iter().len(), vals.len());
    assert_eq!(r.to_vec(), expect);
    assert_eq!(r.to_narrow_array(), owned);
    if let Some(f) = sums {
        f(&r, &owned, &[], &[], 0);
    }
    // Views, borrowed or through the kept copy.
    let whole_words = bytes.len() >= (vals.len() * T::BITS as usize).div_ceil(64) * 8;
    assert_eq!(r.views_borrow(), align == 0 && whole_words);
    assert_eq!(r.view().to_vec(), owned.view().to_vec());
    if !vals.is_empty() {
        let n = vals.len();
        let count = (n - 1) / step.unsigned_abs() + 1;
        let start = if step < 0 { (n - 1) as isize } else { 0 };
        let v = r.view_strided(&[count], &[step], start).unwrap();
        let w = owned.view_strided(&[count], &[step], start).unwrap();
        assert_eq!(v.to_vec(), w.to_vec());
        if let Some(f) = sums {
            f(&r, &owned, &[count], &[step], start);
        }
    }
}

/// The sums of a `NarrowRef` (whole, or of a strided view) against the
/// owned array's and the plain sum of its values.
fn sums<T: UnsignedElement>(
    r: &NarrowRef<'_, T>,
    owned: &NarrowArray<T>,
    shape: &[usize],
    strides: &[isize],
    offset: isize,
) {
    if shape.is_empty() {
        let total: u128 = owned.iter().map(raw).sum();
        assert_eq!(r.sum(), total);
        assert_eq!(r.sum(), owned.sum());
    } else {
        let v = r.view_strided(shape, strides, offset).unwrap();
        let w = owned.view_strided(shape, strides, offset).unwrap();
        assert_eq!(v.sum(), w.sum());
    }
}

macro_rules! reads {
    ($($name:ident => $t:ty, $sums:expr;)*) => {$(
        #[test]
        fn $name() {
            runner(48)
                .run(
                    &(
                        prop::collection::vec(any::<u128>(), 0..300),
                        0usize..8,
                        0usize..10,
                        prop_oneof![Just(1isize), Just(-1), 2isize..9, -9isize..-1],
                    ),
                    |(vals, align, extra, step)| {
                        check_reads::<$t>(&vals, align, extra, step, $sums);
                        Ok(())
                    },
                )
                .unwrap();
            // Long enough for several 2 KiB chunks of the bulk paths.
            let long: Vec<u128> = (0..40_000u128).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
            check_reads::<$t>(&long, 3, 1, 7, $sums);
            check_reads::<$t>(&long, 0, 8, -3, $sums);
        }
    )*};
}

reads! {
    reads_bool => bool, Some(sums::<bool>);
    reads_u3 => u3, Some(sums::<u3>);
    reads_u4 => u4, Some(sums::<u4>);
    reads_u5 => u5, Some(sums::<u5>);
    reads_u8 => u8, Some(sums::<u8>);
    reads_u12 => u12, Some(sums::<u12>);
    reads_u13 => u13, Some(sums::<u13>);
    reads_u33 => u33, Some(sums::<u33>);
    reads_u64 => u64, Some(sums::<u64>);
    reads_u127 => u127, None;
}

#[test]
fn reinterpret_keeps_the_bytes() {
    let bytes = [0x21u8, 0x43, 0x65, 0x87, 0xa9, 0xcb];
    let r = NarrowRef::<u8>::from_bytes_shaped(&bytes, &[2, 3]).unwrap();
    let owned = NarrowArray::<u8>::from_bytes(&bytes, 6).unwrap();
    let mut owned = owned;
    owned.reshape(&[2, 3]).unwrap();
    let as12 = r.reinterpret::<u12>().unwrap();
    assert_eq!(as12.shape(), [2, 2]);
    assert_eq!(
        as12.to_vec(),
        owned.clone().reinterpret::<u12>().unwrap().to_vec()
    );
    assert_eq!(as12.as_bytes().as_ptr(), bytes.as_ptr());
    // 24 bits per row are not whole u16s.
    assert_eq!(
        r.reinterpret::<u16>().unwrap_err(),
        Error::Reinterpret {
            count: 3,
            from_bits: 8,
            to_bits: 16
        }
    );
    let flat = NarrowRef::<u8>::from_bytes(&bytes, 6).unwrap();
    assert_eq!(
        flat.reinterpret::<u16>().unwrap().to_vec(),
        [0x4321, 0x8765, 0xcba9]
    );
    assert_eq!(flat.reinterpret::<bool>().unwrap().len(), 48);
}

#[test]
fn decode_matches_the_owned_decode() {
    let codes: Vec<u8> = (0..=255u8).map(|i| i % 16).chain(0..5).collect();
    let a: NarrowArray<E2M1> = codes.iter().map(|&c| E2M1::from_bits(c)).collect();
    let mut buf = vec![0u8; a.as_bytes().len() + 1];
    buf[1..].copy_from_slice(a.as_bytes());
    let r = NarrowRef::<E2M1>::from_bytes(&buf[1..], a.len()).unwrap();
    assert_eq!(r.decode(), bitpack::formats::decode(&a));
    let mut short = vec![0.0; 3];
    assert_eq!(
        r.decode_into(&mut short).unwrap_err(),
        Error::Length {
            of: LengthOf::DecodeOutput,
            expected: a.len(),
            actual: 3
        }
    );
}

#[test]
fn bad_bytes_are_refused() {
    assert_eq!(
        NarrowRef::<u5>::from_bytes(&[0; 3], 5).unwrap_err(),
        Error::TooFewBytes {
            what: "NarrowRef::from_bytes",
            values: 5,
            bits: 5,
            needed: 4,
            actual: 3
        }
    );
    assert_eq!(
        NarrowRef::<u5>::from_bytes(&[0; 3], usize::MAX).unwrap_err(),
        Error::TooFewBytes {
            what: "NarrowRef::from_bytes",
            values: usize::MAX,
            bits: 5,
            needed: usize::MAX,
            actual: 3
        }
    );
    // Bit 25 (the first padding bit of five 5-bit values) set.
    assert_eq!(
        NarrowRef::<u5>::from_bytes(&[0, 0, 0, 0b10], 5).unwrap_err(),
        Error::NonZeroPadding { byte: 3 }
    );
    // The last value's top bit is not padding.
    assert!(NarrowRef::<u5>::from_bytes(&[0, 0, 0, 0b1], 5).is_ok());
    assert_eq!(
        NarrowRef::<u5>::from_bytes(&[0, 0, 0, 0, 0, 9], 5).unwrap_err(),
        Error::NonZeroPadding { byte: 5 }
    );
    assert_eq!(
        NarrowRef::<u8>::from_bytes_shaped(&[0; 6], &[4, 2]).unwrap_err(),
        Error::TooFewBytes {
            what: "NarrowRef::from_bytes_shaped",
            values: 8,
            bits: 8,
            needed: 8,
            actual: 6
        }
    );
    let overflow = NarrowRef::<u8>::from_bytes_shaped(&[0; 6], &[usize::MAX, 2]).unwrap_err();
    assert!(
        matches!(overflow, Error::Shape { elements: None, .. }),
        "{overflow:?}"
    );
    let mut r = NarrowRef::<u8>::from_bytes(&[1, 2, 3, 4], 4).unwrap();
    assert_eq!(
        r.reshape(&[3]).unwrap_err(),
        Error::Shape {
            elements: Some(3),
            len: 4
        }
    );
    assert_eq!(r.shape(), [4]);
    assert_eq!(
        r.unpack_into(&mut [0; 5]).unwrap_err(),
        Error::Length {
            of: LengthOf::UnpackOutput,
            expected: 4,
            actual: 5
        }
    );
    assert!(r.view_strided(&[3], &[2], 0).is_err());
}

#[test]
fn writes_match_the_owned_array() {
    runner(64)
        .run(
            &(
                prop::collection::vec(any::<u16>(), 1..500),
                prop::collection::vec((any::<usize>(), any::<u16>()), 0..40),
                0usize..8,
            ),
            |(vals, sets, align)| {
                let vals: Vec<u13> = vals.iter().map(|&v| value::<u13>(v.into())).collect();
                let n = vals.len();
                let nbytes = (n * 13).div_ceil(8);
                let mut words = vec![0u64; (align + nbytes).div_ceil(8) + 1];
                let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
                let mut owned = NarrowArray::<u13>::zeroed(n);
                {
                    let mut m =
                        NarrowMut::<u13>::from_bytes(&mut buf[align..align + nbytes], n).unwrap();
                    m.pack_from(&vals).unwrap();
                    owned.pack_from(&vals).unwrap();
                    for &(i, v) in &sets {
                        let i = i % (n + 1);
                        let v = value::<u13>(v.into());
                        assert_eq!(m.set(i, v).is_ok(), owned.set(i, v).is_ok());
                    }
                    assert_eq!(m.as_bytes(), owned.as_bytes());
                    assert_eq!(m.as_ref().to_vec(), owned.to_vec());
                    prop_assert_eq!(
                        m.pack_from(&vals[1..]).unwrap_err(),
                        Error::Length {
                            of: LengthOf::PackSource,
                            expected: n,
                            actual: n - 1
                        }
                    );
                }
                // Nothing outside the borrowed bytes was touched.
                prop_assert!(buf[..align].iter().all(|&b| b == 0));
                prop_assert!(buf[align + nbytes..].iter().all(|&b| b == 0));
                Ok(())
            },
        )
        .unwrap();
}

/// The bulk calls of a `NarrowMut` and a `NarrowRef` over bytes at `align`
/// bytes past an 8-byte boundary (`extra` zero bytes after the stream, `0xa5`
/// around the borrowed bytes): `pack_from`, `sum`, `unpack_into` and `to_vec`
/// against the bit-by-bit stream and the values. These run the values that
/// whole aligned words of the bytes hold in place, and those before and
/// after through a stack buffer, so lengths and alignments vary where those
/// parts meet.
fn check_bulk_in_place<T: UnsignedElement + core::fmt::Debug + PartialEq>(
    vals: &[u128],
    align: usize,
    extra: usize,
) {
    let vals: Vec<u128> = vals.iter().map(|&v| low_bits(v, T::BITS)).collect();
    let typed: Vec<T> = vals.iter().map(|&v| value::<T>(v)).collect();
    let stream = reference_bytes(&vals, T::BITS);
    let span = align..align + stream.len() + extra;
    let mut words = vec![0u64; span.end.div_ceil(8) + 1];
    let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
    buf.fill(0xa5);
    buf[span.clone()].fill(0);
    {
        let mut m = NarrowMut::<T>::from_bytes(&mut buf[span.clone()], vals.len()).unwrap();
        m.pack_from(&typed).unwrap();
    }
    let ctx = format!(
        "{} bits, {} values, align {align}, extra {extra}",
        T::BITS,
        vals.len()
    );
    assert_eq!(&buf[align..align + stream.len()], &stream[..], "{ctx}");
    assert!(
        buf[align + stream.len()..span.end].iter().all(|&b| b == 0),
        "{ctx}"
    );
    assert!(buf[..align].iter().all(|&b| b == 0xa5), "{ctx}");
    assert!(buf[span.end..].iter().all(|&b| b == 0xa5), "{ctx}");

    let r = NarrowRef::<T>::from_bytes(&buf[span], vals.len()).unwrap();
    assert_eq!(r.sum(), vals.iter().sum::<u128>(), "{ctx}");
    assert_eq!(r.to_vec(), typed, "{ctx}");
    let mut out = vec![value::<T>(1); vals.len()];
    r.unpack_into(&mut out).unwrap();
    assert_eq!(out, typed, "{ctx}");
}

macro_rules! bulk_in_place {
    ($($name:ident => $t:ty;)*) => {$(
        #[test]
        fn $name() {
            runner(40)
                .run(
                    &(prop::collection::vec(any::<u128>(), 0..600), 0usize..8, 0usize..12),
                    |(vals, align, extra)| {
                        check_bulk_in_place::<$t>(&vals, align, extra);
                        Ok(())
                    },
                )
                .unwrap();
            // Several 2 KiB chunks on either side of the in-place words, at
            // every alignment.
            let long: Vec<u128> =
                (0..9_000u128).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (i % 64)).collect();
            for align in 0..8 {
                check_bulk_in_place::<$t>(&long, align, align % 3);
                check_bulk_in_place::<$t>(&long[..long.len() - align - 1], align, 0);
            }
        }
    )*};
}

/// The same for 127-bit values (no sum): each value starts at a different
/// bit of a byte, the in-place words begin up to 127 bytes in.
#[test]
fn bulk_in_place_u127() {
    let vals: Vec<u128> = (0..300u128)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835))
        .collect();
    for align in 0..8 {
        for n in [0, 1, 9, 64, 65, 150, 300] {
            let vals: Vec<u128> = vals[..n].iter().map(|&v| low_bits(v, 127)).collect();
            let typed: Vec<u127> = vals.iter().map(|&v| value::<u127>(v)).collect();
            let stream = reference_bytes(&vals, 127);
            let mut words = vec![0u64; (align + stream.len()).div_ceil(8) + 1];
            let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
            buf.fill(0xa5);
            let span = align..align + stream.len();
            buf[span.clone()].fill(0);
            NarrowMut::<u127>::from_bytes(&mut buf[span.clone()], n)
                .unwrap()
                .pack_from(&typed)
                .unwrap();
            assert_eq!(&buf[span.clone()], &stream[..], "{n} values, align {align}");
            assert!(
                buf[..align]
                    .iter()
                    .chain(&buf[span.end..])
                    .all(|&b| b == 0xa5)
            );
            let r = NarrowRef::<u127>::from_bytes(&buf[span], n).unwrap();
            let mut out = vec![value::<u127>(1); n];
            r.unpack_into(&mut out).unwrap();
            assert_eq!(out, typed, "{n} values, align {align}");
        }
    }
}

bulk_in_place! {
    bulk_in_place_bool => bool;
    bulk_in_place_u3 => u3;
    bulk_in_place_u4 => u4;
    bulk_in_place_u5 => u5;
    bulk_in_place_u6 => u6;
    bulk_in_place_u7 => u7;
    bulk_in_place_u8 => u8;
    bulk_in_place_u12 => u12;
    bulk_in_place_u13 => u13;
    bulk_in_place_u16 => u16;
    bulk_in_place_u24 => u24;
    bulk_in_place_u33 => u33;
    bulk_in_place_u48 => u48;
    bulk_in_place_u64 => u64;
}

#[test]
fn fill_and_mutable_views() {
    let mut bytes = [0u8; 4];
    let mut m = NarrowMut::<u3>::from_bytes(&mut bytes, 9).unwrap();
    m.fill(u3::new(5));
    assert_eq!(m.as_ref().to_vec(), vec![u3::new(5); 9]);
    assert_eq!(
        m.as_bytes(),
        NarrowArray::from_slice(&[u3::new(5); 9]).as_bytes()
    );
    // Four bytes are not a whole word: a word view is refused, naming it.
    let err = m.view_mut().unwrap_err();
    assert!(
        matches!(
            err,
            Error::BorrowedWords {
                len: 4,
                needed: 8,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(bytes[3] >> 3, 0, "padding stays zero");

    let mut words = [0u64; 2];
    let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
    let mut m = NarrowMut::<u4>::from_bytes(&mut buf[..16], 6).unwrap();
    m.reshape(&[2, 3]).unwrap();
    m.view_mut()
        .unwrap()
        .select(1, 2)
        .unwrap()
        .fill(u4::new(0xf))
        .unwrap();
    assert_eq!(m.as_bytes(), [0x00, 0x0f, 0xf0]); // elements 2 and 5
    let mut m = NarrowMut::<u4>::from_bytes(&mut buf[1..9], 6).unwrap();
    let err = m.view_mut().unwrap_err();
    assert!(
        matches!(
            err,
            Error::BorrowedWords {
                misalignment: 1,
                len: 8,
                needed: 8
            }
        ),
        "{err:?}"
    );
}

#[test]
fn dyn_array_bytes_round_trip() {
    runner(64)
        .run(
            &(1u32..=64, prop::collection::vec(any::<u64>(), 0..200)),
            |(width, vals)| {
                let vals: Vec<u64> = vals
                    .iter()
                    .map(|&v| low_bits(v.into(), width) as u64)
                    .collect();
                let d = DynNarrowArray::from_slice(width, &vals).unwrap();
                let bytes =
                    reference_bytes(&vals.iter().map(|&v| v.into()).collect::<Vec<_>>(), width);
                prop_assert_eq!(d.as_bytes(), &bytes[..]);
                let back = DynNarrowArray::from_bytes(width, &bytes, vals.len()).unwrap();
                prop_assert_eq!(back.to_vec(), vals);
                Ok(())
            },
        )
        .unwrap();
    assert_eq!(
        DynNarrowArray::from_bytes(0, &[], 0).unwrap_err(),
        Error::Width { width: 0, max: 64 }
    );
    assert_eq!(
        DynNarrowArray::from_bytes(3, &[0xff], 2).unwrap_err(),
        Error::NonZeroPadding { byte: 0 }
    );
    assert_eq!(
        DynNarrowArray::from_bytes(9, &[0xff], 1).unwrap_err(),
        Error::TooFewBytes {
            what: "DynNarrowArray::from_bytes",
            values: 1,
            bits: 9,
            needed: 2,
            actual: 1
        }
    );
}

#[test]
fn narrow_array_as_ref_borrows_its_words() {
    let mut a: NarrowArray<u5> = (0..50u8).map(|i| u5::new(i % 32)).collect();
    a.reshape(&[5, 10]).unwrap();
    let r = a.as_narrow_ref();
    assert!(r.views_borrow());
    assert_eq!(r.shape(), [5, 10]);
    assert_eq!(
        r.view().sum_axes(&[1], false).unwrap(),
        a.view().sum_axes(&[1], false).unwrap()
    );
    assert_eq!(raw(r.get(49).unwrap()), 17);
}
