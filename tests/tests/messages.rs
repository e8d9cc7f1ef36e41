//! What error messages say: every constructor from bytes names itself, the
//! values and the width in its length error; `ReinterpretError` names the
//! element as the crate does (`u4`, not `UInt<u8, 4>`) and converts into
//! `bitpack::Error` with `?`; an NVFP4 tensor with no finite value has no
//! default tensor scale.

use bitpack::arbitrary_int::{u4, u5};
use bitpack::formats::{self, E2M1, E4M3, Encoder, Mode, Nvfp4Array, Nvfp4Options};
use bitpack::{DynNarrowArray, E5M2, Error, NArray, NarrowArray, NarrowMut, NarrowRef};

/// `from_bytes(3 bytes, 7 values)` of 4-bit values: 4 bytes needed.
#[test]
fn every_constructor_from_bytes_names_itself() {
    let bytes = [0u8; 3];
    let cases: [(&str, Error); 5] = [
        (
            "NarrowArray::from_bytes",
            NarrowArray::<u4>::from_bytes(&bytes, 7).unwrap_err(),
        ),
        (
            "NarrowRef::from_bytes",
            NarrowRef::<u4>::from_bytes(&bytes, 7).unwrap_err(),
        ),
        (
            "NarrowRef::from_bytes_shaped",
            NarrowRef::<u4>::from_bytes_shaped(&bytes, &[7]).unwrap_err(),
        ),
        (
            "NarrowMut::from_bytes",
            NarrowMut::<u4>::from_bytes(&mut [0u8; 3], 7).unwrap_err(),
        ),
        (
            "DynNarrowArray::from_bytes",
            DynNarrowArray::from_bytes(4, &bytes, 7).unwrap_err(),
        ),
    ];
    for (what, e) in cases {
        assert_eq!(
            e,
            Error::TooFewBytes {
                what,
                values: 7,
                bits: 4,
                needed: 4,
                actual: 3
            }
        );
        assert_eq!(
            e.to_string(),
            format!("{what}: 7 values of 4 bits need 4 bytes, got 3")
        );
    }
}

#[test]
fn packed_float_paths_name_themselves() {
    let mut out = [0f32; 5];
    let e = formats::decode_packed::<E2M1>(&[0u8; 2], &mut out).unwrap_err();
    assert_eq!(
        e.to_string(),
        "decode_packed: 5 values of 4 bits need 3 bytes, got 2"
    );
    let e = formats::decode_packed_as::<E5M2, f64>(&[0u8; 4], &mut [0f64; 5]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "decode_packed_as: 5 values of 8 bits need 5 bytes, got 4"
    );
    let e = formats::encode_packed::<E2M1>(&[1.0; 5], Mode::Nearest, &mut [0u8; 2]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "encode_packed: 5 values of 4 bits need 3 bytes, got 2"
    );
    let mut bytes = [0xaau8; 2];
    let e = Encoder::new(Mode::Nearest)
        .packed::<E2M1, f64>(&[1.0; 5], &mut bytes)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Encoder::packed: 5 values of 4 bits need 3 bytes, got 2"
    );
    assert_eq!(bytes, [0xaa; 2]); // unchanged
}

#[test]
fn narray_from_bytes_names_itself() {
    let e = NArray::<u5, 3>::try_from_bytes(&[0u8; 3]).unwrap_err();
    assert_eq!(
        e,
        Error::ByteCount {
            what: "NArray::try_from_bytes",
            expected: 2,
            actual: 3
        }
    );
    assert_eq!(
        e.to_string(),
        "NArray::try_from_bytes: the array is 2 bytes, got 3"
    );
}

/// The element as the crate's docs write it, for crate, `arbitrary_int`,
/// `half` and built-in types, and nested in an `NArray`.
#[test]
fn reinterpret_error_names_the_element() {
    let a: NarrowArray<u4> = (1..=3).map(u4::new).collect();
    let e = a.reinterpret::<u8>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "NarrowArray<u4>: cannot reinterpret 3 4-bit values as 8-bit values \
         (12 bits is not a multiple of 8)"
    );
    assert!(format!("{e:?}").contains("element: \"u4\""), "{e:?}");
    let codes = formats::encode::<E2M1>(&[1.0; 3], Mode::Nearest);
    let e = codes.reinterpret::<u8>().unwrap_err();
    assert!(e.to_string().starts_with("NarrowArray<E2M1>: "), "{e}");
    let e = NarrowArray::from_slice(&[bitpack::half::f16::ONE])
        .reinterpret::<u32>()
        .unwrap_err();
    assert!(e.to_string().starts_with("NarrowArray<f16>: "), "{e}");
    let e = NarrowArray::from_slice(&[true; 3])
        .reinterpret::<u8>()
        .unwrap_err();
    assert!(e.to_string().starts_with("NarrowArray<bool>: "), "{e}");
    let lanes = NArray::<u5, 3>::new([u5::new(1); 3]);
    let e = NarrowArray::from_slice(&[lanes])
        .reinterpret::<u4>()
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("NarrowArray<NArray<u5, 3, u16>>: "),
        "{e}"
    );
    let e = NarrowArray::from_slice(&[bitpack::arbitrary_int::i3::new(1)])
        .reinterpret::<bitpack::arbitrary_int::u2>()
        .unwrap_err();
    assert!(e.to_string().starts_with("NarrowArray<i3>: "), "{e}");
}

/// `?` turns a `ReinterpretError` into the crate's `Error`.
#[test]
fn reinterpret_error_converts_with_question_mark() {
    fn words(a: NarrowArray<u4>) -> bitpack::Result<Vec<u16>> {
        Ok(a.reinterpret::<u16>()?.to_vec())
    }
    let four: NarrowArray<u4> = (1..=4).map(u4::new).collect();
    assert_eq!(words(four).unwrap(), [0x4321]);
    let three: NarrowArray<u4> = (1..=3).map(u4::new).collect();
    assert_eq!(
        words(three),
        Err(Error::Reinterpret {
            count: 3,
            from_bits: 4,
            to_bits: 16
        })
    );
}

/// No finite value, no default tensor scale: an error that says so; with a
/// tensor scale given, the blocks get the NaN scale and dequantize to NaN.
#[test]
fn nvfp4_all_nan_has_no_default_tensor_scale() {
    for data in [
        vec![f32::NAN; 32],
        vec![f32::INFINITY; 16],
        vec![f32::NAN, f32::NEG_INFINITY, f32::NAN],
    ] {
        let e = Nvfp4Array::quantize(&data, &[data.len()]).unwrap_err();
        assert!(matches!(e, Error::Invalid(_)), "{e:?}");
        assert!(e.to_string().contains("needs a finite value"), "{e}");
        assert_eq!(Nvfp4Array::default_tensor_scale(&data), Err(e.clone()));
        let opts = Nvfp4Options::default();
        assert_eq!(
            Nvfp4Array::quantize_with(&data, &[data.len()], &opts).unwrap_err(),
            e
        );
        let q = Nvfp4Array::quantize_with_tensor_scale(&data, &[data.len()], 1.0).unwrap();
        assert!(q.dequantize().iter().all(|x| x.is_nan()));
        assert!(q.scales().iter().all(|s: E4M3| s.to_f32().is_nan()));
    }
    // One finite value is enough; all zeros and no values keep the scale 1.
    let mut data = vec![f32::NAN; 32];
    data[20] = 2688.0;
    assert_eq!(Nvfp4Array::default_tensor_scale(&data), Ok(1.0));
    assert!(Nvfp4Array::quantize(&data, &[32]).is_ok());
    assert_eq!(Nvfp4Array::default_tensor_scale(&[0.0; 16]), Ok(1.0));
    assert_eq!(Nvfp4Array::default_tensor_scale(&[]), Ok(1.0));
}
