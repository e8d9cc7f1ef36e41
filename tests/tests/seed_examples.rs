//! The examples of the bit-model seed (`../shared/seeds/000_*.txt`),
//! translated to Rust: `NVector{T,N}` is `NArray<T, N>`, indices are 0-based,
//! and `reinterpret(T, x)` is `x.reinterpret::<T, ..>()`.

use arbitrary_int::*;
use bitpack::{BitElement, Error, NArray, NarrowArray};

#[test]
fn raw_bits_of_an_narray() {
    // raw_bits(NVector(true, false, true, false, true, false, true, false)) == 0x55
    let v = NArray::<bool, 8>::new([true, false, true, false, true, false, true, false]);
    assert_eq!(v.raw_bits(), 0x55);
    assert_eq!(bitpack::raw_bits(v), 0x55u8);
}

#[test]
fn from_raw_bits_of_an_narray() {
    // from_raw_bits(NVector{Bool,8}, 0x0f) == NVector{Bool,8}(1, 1, 1, 1, 0, 0, 0, 0)
    let a = bitpack::from_raw_bits::<NArray<bool, 8>>(0x0f);
    assert_eq!(
        a,
        NArray::new([true, true, true, true, false, false, false, false])
    );
    assert_eq!(a.get(0), Some(true)); // 0-based: lane 0 is the lowest bit
    assert_eq!(a.get(4), Some(false));
}

#[test]
fn reinterpret_two_bytes_as_one_u16() {
    // reinterpret(UInt16, NVector{UInt8,2}(0x21, 0x43)) == [0x4321]
    let v = NArray::<u8, 2>::new([0x21, 0x43]);
    assert_eq!(v.reinterpret::<u16, 1>().unwrap().to_array(), [0x4321]);
    let n = NarrowArray::from_slice(&[0x21u8, 0x43])
        .reinterpret::<u16>()
        .unwrap();
    assert_eq!(n.to_vec(), [0x4321]);
}

#[test]
fn reinterpret_two_bytes_as_sixteen_bools() {
    // reinterpret(Bool, v) |> size == (16,)
    let v = NArray::<u8, 2>::new([0x21, 0x43]);
    let bits = v.reinterpret::<bool, 16>().unwrap();
    assert_eq!(NArray::<bool, 16>::LEN, 16);
    assert_eq!(bits.get(0), Some(true)); // 0x21: bit 0 set
    assert_eq!(bits.get(5), Some(true)); // 0x21: bit 5 set
    let n = NarrowArray::from_slice(&[0x21u8, 0x43])
        .reinterpret::<bool>()
        .unwrap();
    assert_eq!(n.shape(), [16]);
}

#[test]
fn reinterpret_three_bytes_as_u16_is_an_error() {
    // reinterpret(UInt16, NVector{UInt8,3}(0x01, 0x02, 0x03)) throws
    // "cannot reinterpret 3 8-bit value(s) along dimension 1 as 16-bit values"
    let v = NArray::<u8, 3>::new([0x01, 0x02, 0x03]);
    let err = v.reinterpret::<u16, 1>().unwrap_err();
    assert_eq!(
        err,
        Error::Reinterpret {
            count: 3,
            from_bits: 8,
            to_bits: 16
        }
    );
    assert!(
        err.to_string()
            .starts_with("cannot reinterpret 3 8-bit values as 16-bit values")
    );

    let n = NarrowArray::from_slice(&[0x01u8, 0x02, 0x03]);
    let err = n.reinterpret::<u16>().unwrap_err();
    assert!(
        err.to_string()
            .starts_with("NarrowArray<u8>: cannot reinterpret 3 8-bit values as 16-bit values")
    );
    assert_eq!(err.into_array().to_vec(), [1, 2, 3]);
}

#[test]
fn map_keeps_an_narray_packed() {
    // map(!, v) isa NVector{Bool,8}
    let v = NArray::<bool, 8>::new([true, false, true, false, true, false, true, false]);
    let m: NArray<bool, 8> = v.map(|b| !b);
    assert_eq!(m.raw_bits(), !0x55u8);
    // (v .& v) isa SVector{8,Bool}: elementwise arithmetic goes through [T; N].
    let (x, y) = (v.to_array(), v.to_array());
    let and: [bool; 8] = core::array::from_fn(|i| x[i] & y[i]);
    assert_eq!(and, v.to_array());
}

#[test]
fn storage_is_never_larger_than_its_bytes() {
    // NVector{Bool,9} stores a UInt16; a 6-bit float NArray of 4 lanes is 3 bytes.
    let _: u16 = NArray::<bool, 9>::new([true; 9]).storage();
    assert_eq!(core::mem::size_of::<NArray<u6, 4>>(), 3);
    let six = NarrowArray::from_slice(&[u6::new(1); 4]);
    assert_eq!(six.as_bytes().len(), 3);
}

#[test]
fn raw_bits_widen_to_the_narrowest_integer_of_the_bytes() {
    // A 24-bit type gives a UInt32.
    let r: u32 = u24::new(0x12_3456).raw_bits();
    assert_eq!(r, 0x12_3456);
    let r: u32 = NArray::<u8, 3>::new([1, 2, 3]).raw_bits();
    assert_eq!(r, 0x03_02_01);
}

#[test]
fn chunk_lengths() {
    // 8 ÷ gcd(bitwidth(T), 8) values: 8 for Bool, 2 for 4- and 12-bit types,
    // 4 for 6-bit types, 1 for types that fill their bytes.
    assert_eq!(NarrowArray::<bool>::CHUNK_LEN, 8);
    assert_eq!(NarrowArray::<u4>::CHUNK_LEN, 2);
    assert_eq!(NarrowArray::<u12>::CHUNK_LEN, 2);
    assert_eq!(NarrowArray::<u6>::CHUNK_LEN, 4);
    assert_eq!(NarrowArray::<u8>::CHUNK_LEN, 1);
    assert_eq!(NarrowArray::<f32>::CHUNK_LEN, 1);
    assert_eq!(NarrowArray::<u6>::CHUNK_BYTES, 3);
    assert_eq!(NarrowArray::<u12>::CHUNK_BYTES, 3);
}

#[test]
fn reinterpret_as_bytes_is_the_dense_stream() {
    // reinterpret(UInt8, x) is the dense packed byte stream.
    let x = NarrowArray::from_slice(&[u4::new(1), u4::new(2), u4::new(3), u4::new(4)]);
    #[cfg(target_endian = "little")]
    assert_eq!(x.as_slice_of::<u8>().unwrap(), [0x21, 0x43]);
    assert_eq!(
        x.clone().reinterpret::<u8>().unwrap().to_vec(),
        [0x21, 0x43]
    );
    // reinterpret(Narrow(T), data) packs plain bytes.
    let back = NarrowArray::<u4>::from_bytes(&[0x21, 0x43], 4).unwrap();
    assert_eq!(back, x);
}

#[test]
fn copy_unpacks_and_setindex_works() {
    // copy(x) returns a plain array; NarrowArray has setindex! and undef dims.
    let mut x = NarrowArray::<u3>::zeroed(6);
    x.reshape(&[2, 3]).unwrap();
    x.set(4, u3::new(7)).unwrap();
    let plain: Vec<u3> = x.to_vec();
    assert_eq!(plain[4], u3::new(7));
    assert_eq!(x.shape(), [2, 3]);
}

#[test]
fn widths_above_eight_work_up_to_128() {
    let v = NArray::<u100, 1>::new([u100::new(1 << 99)]);
    assert_eq!(v.raw_bits(), 1 << 99);
    let w = NarrowArray::from_slice(&[u127::new(3), u127::new(1 << 126)]);
    assert_eq!(w.as_bytes().len(), 32);
    assert_eq!(w.get(1), Some(u127::new(1 << 126)));
}
