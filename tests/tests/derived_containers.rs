//! `NArray` and `NarrowArray` of `#[derive(BitElement)]` types: a narrow
//! float (`Float4`), a full-bytes aggregate (`Rgb`), a 2-bit enum and a
//! 6-bit newtype, against the bit-by-bit model.

use bitpack::{BitElement, Error, NArray, NarrowArray};
use bitpack_tests::{model, raw, value};
use proptest::prelude::*;

/// An E2M1 code in the low nibble of a byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
struct Float4(u8);

/// A 6-bit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, BitElement)]
#[repr(transparent)]
#[bitwidth(6)]
struct Float6(u8);

/// Three bytes, first field lowest: 24 bits.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, BitElement, bytemuck::Zeroable, bytemuck::Pod,
)]
#[repr(C)]
struct Rgb {
    r: u8,
    g: u8,
    b: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, BitElement)]
#[repr(u8)]
enum Lane {
    A,
    B,
    C,
    D,
}

fn check_narrow<T: BitElement + PartialEq + core::fmt::Debug>(raws: &[u128]) {
    let values: Vec<T> = raws.iter().map(|&r| value::<T>(r)).collect();
    let stream = model::pack(&values.iter().map(|&v| raw(v)).collect::<Vec<_>>(), T::BITS);
    let a = NarrowArray::from_slice(&values);
    assert_eq!(a.as_bytes(), model::bytes(&stream));
    assert_eq!(a.to_vec(), values);
    for (i, &v) in values.iter().enumerate() {
        assert_eq!(a.get(i), Some(v));
    }
    assert_eq!(
        NarrowArray::<T>::from_bytes(a.as_bytes(), values.len()).unwrap(),
        a
    );
    let collected: NarrowArray<T> = values.iter().copied().collect();
    assert_eq!(collected, a);
}

proptest! {
    #[test]
    fn derived_elements_pack_like_the_model(raws in proptest::collection::vec(any::<u128>(), 0..=300)) {
        check_narrow::<Float4>(&raws);
        check_narrow::<Float6>(&raws);
        check_narrow::<Rgb>(&raws);
        check_narrow::<Lane>(&raws);
    }
}

#[test]
fn float4_in_both_layouts() {
    // E2M1 codes: 1.0 is 0x2, -0.5 is 0x9, 6.0 is 0x7, 3.0 is 0x5.
    let codes = [0x2, 0x9, 0x7, 0x5].map(Float4);
    let lanes = NArray::<Float4, 4>::new(codes);
    let _: u16 = lanes.storage(); // 16 bits: the default storage is a u16
    assert_eq!(lanes.raw_bits(), 0x5792);
    assert_eq!(lanes.to_array(), codes);
    // The register order of cvt.rn.satfinite.e2m1x2.f32 d, a, b: b low.
    let pair = NArray::<Float4, 2>::new([Float4(0x2), Float4(0x9)]);
    assert_eq!(pair.raw_bits(), 0x92);

    let packed = NarrowArray::from_slice(&codes);
    assert_eq!(packed.as_bytes(), [0x92, 0x57]); // torch.float4_e2m1fn_x2 order
    let words = packed.clone().reinterpret::<u16>().unwrap();
    assert_eq!(words.to_vec(), [0x5792]);
    let back = words.reinterpret::<Float4>().unwrap();
    assert_eq!(back, packed);
    let err = NarrowArray::from_slice(&codes[..3])
        .reinterpret::<u8>()
        .unwrap_err();
    assert_eq!(
        err.error(),
        &Error::Reinterpret {
            count: 3,
            from_bits: 4,
            to_bits: 8
        }
    );
    // A Float4 array as raw bytes, and back.
    let bytes = packed.reinterpret::<u8>().unwrap();
    assert_eq!(bytes.to_vec(), [0x92, 0x57]);
    // Eight lanes default to a u32; vectors of Float4 vectors pack too.
    let eight = NArray::<Float4, 8>::from_raw_bits(0x7654_3210);
    let _: u32 = eight.storage();
    assert_eq!(eight.get(7), Some(Float4(7)));
    let rows = NarrowArray::from_slice(&[eight, eight.map(|f| Float4(f.0 ^ 0xf))]);
    assert_eq!(
        rows.as_bytes(),
        [0x10, 0x32, 0x54, 0x76, 0xef, 0xcd, 0xab, 0x89]
    );
}

#[test]
fn rgb_fills_its_bytes() {
    let pixels = [Rgb { r: 1, g: 2, b: 3 }, Rgb { r: 4, g: 5, b: 6 }];
    // NArray<Rgb, 2>: 6 bytes, a [u16; 3], holding exactly the [Rgb; 2] bytes.
    let a = NArray::<Rgb, 2>::new(pixels);
    let _: [u16; 3] = a.storage();
    if cfg!(target_endian = "little") {
        assert_eq!(a.as_bytes(), bytemuck::bytes_of(&pixels));
    }
    let n = NarrowArray::from_slice(&pixels);
    assert_eq!(n.as_bytes(), [1, 2, 3, 4, 5, 6]);
    let bytes = n.clone().reinterpret::<u8>().unwrap();
    assert_eq!(bytes.to_vec(), [1, 2, 3, 4, 5, 6]);
    #[cfg(target_endian = "little")]
    {
        // A zero-copy view of plain bytes as pixels (Rgb is Pod, align 1).
        assert_eq!(bytes.as_slice_of::<Rgb>().unwrap(), pixels);
        assert_eq!(n.as_slice_of::<u8>().unwrap(), [1, 2, 3, 4, 5, 6]);
        assert_eq!(n.as_slice_of::<u16>().unwrap(), [0x0201, 0x0403, 0x0605]);
    }
    let err = NarrowArray::from_slice(&pixels[..1])
        .reinterpret::<u16>()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "NarrowArray<Rgb>: cannot reinterpret 1 24-bit values as 16-bit values \
         (24 bits is not a multiple of 16)"
    );
}

#[test]
fn enum_lanes() {
    let lanes = NArray::<Lane, 4>::new([Lane::D, Lane::A, Lane::C, Lane::B]);
    assert_eq!(lanes.raw_bits(), 0b01_10_00_11);
    let n: NarrowArray<Lane> = [Lane::B; 5].into_iter().collect();
    assert_eq!(n.as_bytes(), [0b0101_0101, 0b01]);
    assert_eq!(n.reinterpret::<bool>().unwrap().len(), 10);
}
