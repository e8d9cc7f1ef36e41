//! Arrow (feature `arrow`): `NarrowArray<bool>` against pyarrow's own bytes
//! (`bool.packbits.tsv`), zero-copy hand-over both ways, offsets and sliced
//! bitmaps against a bit-by-bit reference, and narrow unsigned integers
//! through `UInt8Array`..`UInt64Array`.
#![cfg(feature = "arrow")]

use arbitrary_int::{u1, u5, u12, u33};
use arrow_array::{Array, BooleanArray, UInt8Array, UInt16Array, UInt32Array, UInt64Array};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};
use bitpack::{Error, NarrowArray};
use bitpack_tests::{hex_bytes, read_tsv};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

fn bools(s: &str) -> Vec<bool> {
    if s == "-" {
        Vec::new()
    } else {
        s.bytes().map(|b| b == b'1').collect()
    }
}

#[test]
fn bitmaps_match_pyarrow() {
    let (header, rows) = read_tsv("bool.packbits.tsv");
    assert_eq!(
        header,
        [
            "length",
            "values",
            "numpy_packbits_little",
            "arrow_bool_buffer"
        ]
    );
    for row in &rows {
        let n: usize = row[0].parse().unwrap();
        let values = bools(&row[1]);
        assert_eq!(values.len(), n);
        let arrow = hex_bytes(&row[3]);
        assert_eq!(arrow, hex_bytes(&row[2]), "numpy little and arrow agree");
        let a = NarrowArray::from_slice(&values);
        assert_eq!(a.as_bytes(), &arrow[..], "length {n}");
        let bits = BooleanBuffer::from(a.clone());
        assert_eq!(&bits.values()[..arrow.len()], &arrow[..]);
        assert_eq!(bits.iter().collect::<Vec<_>>(), values);
        // pyarrow's bytes, as an Arrow buffer, come back as the same array.
        let theirs = BooleanBuffer::new(Buffer::from(arrow.clone()), 0, n);
        assert_eq!(NarrowArray::from(&theirs), a);
        assert_eq!(NarrowArray::from(theirs), a);
        let nulls = NullBuffer::from(a.clone());
        assert_eq!(nulls.null_count(), values.iter().filter(|&&v| !v).count());
        assert_eq!(NarrowArray::from(nulls), a);
    }
}

#[test]
fn hand_over_without_copying() {
    let a: NarrowArray<bool> = (0..1000).map(|i| i % 3 == 0).collect();
    let b = a.clone();
    let ptr = b.as_words().as_ptr();
    let bits = BooleanBuffer::from(b);
    assert_eq!(bits.values().as_ptr(), ptr.cast());
    let back = NarrowArray::from(bits);
    assert_eq!(back.as_words().as_ptr(), ptr, "taken back without a copy");
    assert_eq!(back, a);
    // A shared buffer is copied, and the original stays intact.
    let bits = BooleanBuffer::from(a.clone());
    let keep = bits.clone();
    let copied = NarrowArray::from(bits);
    assert_ne!(copied.as_words().as_ptr(), keep.values().as_ptr().cast());
    assert_eq!(copied, a);
}

#[test]
fn offsets_and_dirty_padding() {
    runner(128)
        .run(
            &(
                prop::collection::vec(any::<bool>(), 0..400),
                0usize..200,
                0usize..200,
            ),
            |(values, off, take)| {
                let off = off.min(values.len());
                let take = take.min(values.len() - off);
                // Arrow bitmaps may have set bits past the slice.
                let mut bytes: Vec<u8> = vec![0xff; values.len().div_ceil(8) + 8];
                for (i, &v) in values.iter().enumerate() {
                    if !v {
                        bytes[i / 8] &= !(1 << (i % 8));
                    }
                }
                let bits = BooleanBuffer::new(Buffer::from(bytes), off, take);
                let expect = &values[off..off + take];
                let copied = NarrowArray::from(&bits);
                prop_assert_eq!(copied.to_vec(), expect);
                let taken = NarrowArray::from(bits);
                prop_assert_eq!(taken.to_vec(), expect);
                // Padding is zero, whatever the buffer held.
                let mut again = taken.clone();
                again.push(false);
                prop_assert_eq!(
                    again.iter().filter(|&b| b).count(),
                    expect.iter().filter(|&&b| b).count()
                );
                let reference = NarrowArray::from_slice(expect);
                prop_assert_eq!(taken.as_bytes(), reference.as_bytes());
                Ok(())
            },
        )
        .unwrap();
    // A boolean array sliced by Arrow.
    let arr = BooleanArray::from(vec![
        true, false, true, true, false, true, false, false, true, true,
    ]);
    let s = arr.slice(3, 6);
    assert_eq!(
        NarrowArray::from(s.values()).to_vec(),
        [true, false, true, false, false, true]
    );
}

#[test]
fn unsigned_arrays() {
    runner(64)
        .run(&prop::collection::vec(any::<u64>(), 0..300), |raw| {
            let a: NarrowArray<u5> = raw.iter().map(|&v| u5::new((v & 31) as u8)).collect();
            let w: UInt8Array = a.to_primitive_array().unwrap();
            prop_assert_eq!(
                w.values().to_vec(),
                raw.iter().map(|&v| (v & 31) as u8).collect::<Vec<_>>()
            );
            prop_assert_eq!(w.null_count(), 0);
            prop_assert_eq!(
                NarrowArray::<u5>::from_primitive_array(&w).unwrap(),
                a.clone()
            );
            let w16: UInt16Array = a.to_primitive_array().unwrap();
            prop_assert_eq!(NarrowArray::<u5>::from_primitive_array(&w16).unwrap(), a);
            let b: NarrowArray<u33> = raw.iter().map(|&v| u33::new(v & ((1 << 33) - 1))).collect();
            let w64: UInt64Array = b.to_primitive_array().unwrap();
            prop_assert_eq!(
                w64.values().to_vec(),
                raw.iter().map(|&v| v & ((1 << 33) - 1)).collect::<Vec<_>>()
            );
            prop_assert_eq!(NarrowArray::<u33>::from_primitive_array(&w64).unwrap(), b);
            Ok(())
        })
        .unwrap();
    let a: NarrowArray<u12> = [1u16, 4095].into_iter().map(u12::new).collect();
    assert_eq!(
        a.to_primitive_array::<arrow_array::types::UInt8Type>()
            .unwrap_err(),
        Error::Width { width: 12, max: 8 }
    );
    let w = UInt32Array::from(vec![0, 1, 2]);
    assert_eq!(
        NarrowArray::<u1>::from_primitive_array(&w).unwrap_err(),
        Error::ValueTooWide { value: 2, bits: 1 }
    );
    let nulls = UInt8Array::from(vec![Some(1), None, None]);
    let err = NarrowArray::<u5>::from_primitive_array(&nulls).unwrap_err();
    assert_eq!(err, Error::ArrowNulls { nulls: 2, len: 3 });
    assert_eq!(
        err.to_string(),
        "the Arrow array has 2 null slots of 3; only arrays without nulls convert"
    );
}
