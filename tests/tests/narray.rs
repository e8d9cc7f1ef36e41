//! `NArray`, the value layout: the storage rule, lane order against the
//! bit-by-bit model, padding, equality and hashing, conversions, nesting and
//! the byte-cast traits.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use arbitrary_int::*;
use bitpack::{BitElement, DeviceCopy, Error, LengthOf, NArray, NarrowArray, Storage};
use bitpack_tests::{low_bits, model, raw, value};
use proptest::prelude::*;

fn hash_of<H: Hash>(x: &H) -> u64 {
    let mut h = DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

/// The storage's bits as a stream (LSB first through its words).
fn storage_stream<S: Storage>(s: &S) -> Vec<bool> {
    (0..8 * S::BYTES).map(|k| s.get_bits(k, 1) == 1).collect()
}

/// One `NArray<T, N, S>` built from random raws, checked lane by lane and
/// bit by bit against the model.
fn check_array<T, const N: usize, S>(raws: &[u128], garbage: u128, fresh: u128)
where
    T: BitElement + PartialEq + Hash + core::fmt::Debug,
    S: Storage,
{
    let bits = T::BITS;
    let values: [T; N] = core::array::from_fn(|i| value::<T>(raws[i]));
    let lane_raws: Vec<u128> = raws[..N].iter().map(|&r| low_bits(r, bits)).collect();
    let mut stream = model::pack(&lane_raws, bits);
    stream.resize(8 * S::BYTES, false); // the padding: zero

    let a = NArray::<T, N, S>::new(values);
    assert_eq!(
        core::mem::size_of::<NArray<T, N, S>>(),
        (N * bits as usize).div_ceil(8)
    );
    assert_eq!(storage_stream(&a.storage()), stream);
    #[cfg(target_endian = "little")]
    assert_eq!(a.as_bytes(), model::bytes(&stream));
    assert_eq!(a.to_array(), values);
    assert_eq!(<[T; N]>::from(a), values);
    assert_eq!(NArray::<T, N, S>::from(values), a);
    assert_eq!(NArray::<T, N, S>::try_from_slice(&values).unwrap(), a);
    assert_eq!(NArray::<T, N, S>::try_from(&values[..]).unwrap(), a);
    assert_eq!(a.iter().collect::<Vec<_>>(), values);
    assert_eq!(
        (&a).into_iter().rev().collect::<Vec<_>>(),
        values.iter().rev().copied().collect::<Vec<_>>()
    );
    assert_eq!(a.into_iter().len(), N);
    for (i, &v) in values.iter().enumerate() {
        assert_eq!(a.get(i).map(raw), Some(model::get(&stream, i, bits)));
        assert_eq!(a.iter().nth(i), Some(v));
    }
    assert_eq!(a.get(N), None);

    // The storage enters through `from_storage`, which clears padding: equal
    // values, equal arrays, equal hashes.
    let mut dirty = a.storage();
    let pad = 8 * S::BYTES - N * bits as usize;
    if pad > 0 {
        dirty.set_bits(N * bits as usize, pad as u32, garbage);
    }
    let cleaned = NArray::<T, N, S>::from_storage(dirty);
    assert_eq!(cleaned, a);
    assert_eq!(cleaned.storage(), a.storage());
    assert_eq!(hash_of(&cleaned), hash_of(&a));

    // Bytes in and out.
    let back = NArray::<T, N, S>::try_from_bytes(bytemuck::bytes_of(&a)).unwrap();
    assert_eq!(back, a);
    assert_eq!(
        bytemuck::checked::try_from_bytes::<NArray<T, N, S>>(bytemuck::bytes_of(&a)).copied(),
        Ok(a)
    );
    if pad > 0 && garbage & 1 == 1 {
        assert!(NArray::<T, N, S>::try_from_bytes(bytemuck::bytes_of(&dirty)).is_err());
        assert!(
            bytemuck::checked::try_from_bytes::<NArray<T, N, S>>(bytemuck::bytes_of(&dirty))
                .is_err()
        );
    }

    // Set every lane: only that lane changes.
    let mut b = a;
    for i in 0..N {
        let v = value::<T>(fresh.rotate_left(i as u32 * 11));
        b.set(i, v).unwrap();
        model::set(&mut stream, i, bits, raw(v));
        assert_eq!(storage_stream(&b.storage()), stream, "after set({i})");
        assert_eq!(a.with(i, v).unwrap().get(i), Some(v));
    }

    // map stays packed, with the same lane order.
    let m: NArray<T, N, S> = a.map_with_storage(|x| value::<T>(!raw(x)));
    for (i, &r) in lane_raws.iter().enumerate() {
        assert_eq!(m.get(i).map(raw), Some(low_bits(!r, bits)));
    }
}

macro_rules! arrays {
    ($($name:ident: $t:ty, $n:literal, $s:ty;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
            $(
                #[test]
                fn $name(
                    raws in proptest::collection::vec(any::<u128>(), $n),
                    garbage in any::<u128>(),
                    fresh in any::<u128>(),
                ) {
                    // The default storage is the named one.
                    let _: NArray<$t, $n, $s> = NArray::<$t, $n>::new(core::array::from_fn(|_| value::<$t>(0)));
                    check_array::<$t, $n, $s>(&raws, garbage, fresh);
                }
            )*
        }
    };
}

arrays! {
    bool_1: bool, 1, u8;
    bool_8: bool, 8, u8;
    bool_9: bool, 9, u16;
    bool_17: bool, 17, [u8; 3];
    bool_33: bool, 33, [u8; 5];
    bool_64: bool, 64, u64;
    u4_2: u4, 2, u8;
    u4_3: u4, 3, u16;
    u6_4: u6, 4, [u8; 3];
    u6_5: u6, 5, u32;
    u12_2: u12, 2, [u8; 3];
    u3_21: u3, 21, u64;
    u16_3: u16, 3, [u16; 3];
    u8_12: u8, 12, [u32; 3];
    u24_3: u24, 3, [u8; 9];
    u7_64: u7, 64, [u64; 7];
    u40_3: u40, 3, [u8; 15];
    u65_2: u65, 2, [u8; 17];
    u100_1: u100, 1, [u8; 13];
    u127_3: u127, 3, [u128; 3];
    u128_2: u128, 2, [u128; 2];
    u64_64: u64, 64, [u128; 32];
    i16_5: i16, 5, [u16; 5];
}

#[test]
fn storage_rule_examples() {
    use core::mem::size_of;
    let _: u8 = NArray::<bool, 8>::default().storage();
    let _: u16 = NArray::<bool, 9>::default().storage();
    let _: [u8; 3] = NArray::<bool, 17>::default().storage();
    let _: [u8; 3] = NArray::<u6, 4>::default().storage();
    let _: [u16; 3] = NArray::<u16, 3>::default().storage();
    let _: [u32; 3] = NArray::<u8, 12>::default().storage();
    let _: [u128; 2] = NArray::<u128, 2>::default().storage();
    for (size, expected) in [
        (size_of::<NArray<bool, 1>>(), 1),
        (size_of::<NArray<bool, 63>>(), 8),
        (size_of::<NArray<u5, 64>>(), 40),
        (size_of::<NArray<u127, 64>>(), 1016),
        (size_of::<NArray<u4, 3>>(), 2),
    ] {
        assert_eq!(size, expected);
    }
}

#[test]
fn small_arrays_have_raw_bits() {
    // raw_bits is the storage as the narrowest integer of its bytes.
    let a = NArray::<u8, 3>::new([1, 2, 3]);
    let r: u32 = a.raw_bits();
    assert_eq!(r, 0x03_02_01);
    let b = NArray::<u12, 5>::from_raw_bits(u64::MAX);
    let r: u64 = b.raw_bits();
    assert_eq!(r, (1 << 60) - 1);
    assert_eq!(b.to_array(), [u12::new(0xfff); 5]);
    let c = NArray::<u9, 14>::from_raw_bits(u128::MAX);
    assert_eq!(c.raw_bits(), (1u128 << 126) - 1);
    // from_raw_bits ignores the bits above the values.
    assert_eq!(
        NArray::<bool, 3>::from_raw_bits(0xf8),
        NArray::<bool, 3>::from_raw_bits(0)
    );
    assert_eq!(
        hash_of(&NArray::<bool, 3>::from_raw_bits(0xfd)),
        hash_of(&NArray::<bool, 3>::from_raw_bits(0x05))
    );
}

proptest! {
    #[test]
    fn raw_bits_match_the_model(raw_in in any::<u128>()) {
        fn one<T, const N: usize>(raw_in: u128)
        where
            T: bitpack::Lanes<N> + PartialEq + core::fmt::Debug,
            <T as bitpack::Lanes<N>>::Storage: bitpack::SmallStorage,
        {
            let bits = (N as u32) * T::BITS;
            let a = <NArray<T, N> as BitElement>::from_raw_bits(bitpack::Unsigned::from_u128_truncate(raw_in));
            let expected = low_bits(raw_in, bits);
            assert_eq!(raw(a), expected);
            assert_eq!(<NArray<T, N> as BitElement>::BITS, bits);
            let stream = model::pack(&[expected], bits);
            for i in 0..N {
                assert_eq!(a.get(i).map(raw), Some(model::get(&stream, i, T::BITS)));
            }
        }
        one::<bool, 8>(raw_in);
        one::<bool, 13>(raw_in);
        one::<u4, 2>(raw_in);
        one::<u4, 7>(raw_in);
        one::<u6, 4>(raw_in);
        one::<u5, 25>(raw_in);
        one::<u8, 16>(raw_in);
        one::<u16, 7>(raw_in);
        one::<u60, 2>(raw_in);
        one::<u128, 1>(raw_in);
    }
}

#[test]
fn full_byte_elements_hold_the_bytes_of_the_array() {
    fn same<T, const N: usize>(values: [T; N])
    where
        T: bitpack::Lanes<N> + bytemuck::Pod,
    {
        let a = NArray::<T, N>::new(values);
        assert_eq!(a.as_bytes(), bytemuck::bytes_of(&values));
        assert_eq!(bytemuck::bytes_of(&a), bytemuck::bytes_of(&values));
    }
    if cfg!(target_endian = "little") {
        same([0x11u8, 0x22, 0x33]);
        same([0x1122u16, 0x3344, 0x5566]);
        same([0x1122_3344u32, 0x5566_7788]);
        same([1.5f32, -0.0, f32::MAX]);
        same([-1i64, 2, i64::MIN]);
        same([1u128 << 100, 7]);
        same([
            half::f16::ONE,
            half::f16::NEG_INFINITY,
            half::f16::MIN_POSITIVE,
        ]);
        same(core::array::from_fn::<u8, 12, _>(|i| i as u8 * 17));
    }
}

#[test]
fn register_order_is_ptx_packed_cvt_order() {
    // cvt.rn.satfinite.e4m3x2.f32 d, a, b: d[15:8] = a, d[7:0] = b.
    let b = 0x38u8; // e4m3(1.0)
    let a = 0x40u8; // e4m3(2.0)
    assert_eq!(NArray::<u8, 2>::new([b, a]).raw_bits(), 0x4038);
    // cvt.rn.satfinite.e2m1x2.f32 d, a, b: d[7:4] = a, d[3:0] = b.
    assert_eq!(
        NArray::<u4, 2>::new([u4::new(0x2), u4::new(0xc)]).raw_bits(),
        0xc2
    );
    // cvt.rn.f16x2.f32 d, a, b: d[31:16] = a, d[15:0] = b.
    let halves = NArray::<half::f16, 2>::new([half::f16::ONE, half::f16::from_f32(2.0)]);
    assert_eq!(halves.raw_bits(), 0x4000_3c00);
    // The packed e2m3x2 form keeps one 6-bit value per byte: the register
    // layout is [u8; 2] with the codes in the low bits, not a dense NArray.
    let dense = NArray::<u6, 2>::new([u6::new(0x3f), u6::new(0x01)]);
    assert_eq!(dense.raw_bits(), 0x07f);
}

#[test]
fn arrays_nest() {
    type Nibble = NArray<bool, 4>;
    assert_eq!(<Nibble as BitElement>::BITS, 4);
    let outer = NArray::<Nibble, 3, u16>::new([
        Nibble::from_raw_bits(0x1),
        Nibble::from_raw_bits(0x2),
        Nibble::from_raw_bits(0xf),
    ]);
    assert_eq!(outer.raw_bits(), 0xf21);
    assert_eq!(<NArray<Nibble, 3, u16> as BitElement>::BITS, 12);
    assert_eq!(outer.get(2).unwrap().to_array(), [true; 4]);
    // The flat view of the same bits.
    let flat: NArray<bool, 12> = outer.reinterpret().unwrap();
    assert_eq!(flat.raw_bits(), 0xf21);
    // Three levels.
    let deep = NArray::<NArray<NArray<u2, 2>, 2, u8>, 2, u16>::from_raw_bits(0xabcd);
    assert_eq!(
        deep.get(1).unwrap().get(0).unwrap().to_array(),
        [u2::new(3), u2::new(2)]
    );
    // Vectors of vectors: a NarrowArray of NArrays is the dense stream.
    let triples: Vec<NArray<bool, 3>> = (0..20)
        .map(|i| NArray::from_raw_bits(i as u8 * 5))
        .collect();
    let packed = NarrowArray::from_slice(&triples);
    assert_eq!(packed.as_bytes().len(), 8); // 60 bits
    let bits = packed.clone().reinterpret::<bool>().unwrap();
    let expected: Vec<bool> = triples.iter().flat_map(|t| t.to_array()).collect();
    assert_eq!(bits.to_vec(), expected);
    assert_eq!(packed.to_vec(), triples);
}

#[test]
fn map_keeps_the_value_layout() {
    let v = NArray::<bool, 8>::new([true, false, true, false, true, false, true, false]);
    let not: NArray<bool, 8> = v.map(|b| !b);
    assert_eq!(not.raw_bits(), 0xaa);
    let counts: NArray<u4, 8> = v.map(|b| u4::new(if b { 9 } else { 1 }));
    assert_eq!(counts.raw_bits(), 0x1919_1919);
    let wide = NArray::<u4, 3>::new([u4::new(1), u4::new(2), u4::new(3)])
        .map(|x| u32::from(x.value()) << 20);
    assert_eq!(wide.to_array(), [1 << 20, 2 << 20, 3 << 20]);
}

#[test]
fn reinterpret_rescales_or_errors() {
    let v = NArray::<u8, 2>::new([0x21, 0x43]);
    assert_eq!(v.reinterpret::<u16, 1>().unwrap().to_array(), [0x4321]);
    assert_eq!(v.reinterpret::<u4, 4>().unwrap().raw_bits(), 0x4321);
    assert_eq!(v.reinterpret::<bool, 16>().unwrap().raw_bits(), 0x4321);
    let e = NArray::<u8, 3>::new([1, 2, 3])
        .reinterpret::<u16, 1>()
        .unwrap_err();
    assert_eq!(
        e,
        Error::Reinterpret {
            count: 3,
            from_bits: 8,
            to_bits: 16
        }
    );
    let e = v.reinterpret::<u4, 3>().unwrap_err();
    assert_eq!(
        e,
        Error::Length {
            of: LengthOf::ReinterpretLanes,
            expected: 4,
            actual: 3
        }
    );
    // Wide arrays: 2 x u100 = 200 bits = 25 x u8.
    let w = NArray::<u100, 2>::new([u100::new((1 << 99) | 5), u100::new(3 << 98)]);
    let bytes = w.reinterpret::<u8, 25>().unwrap();
    assert_eq!(bytes.get(0), Some(5));
    assert_eq!(bytes.get(12), Some(0x08)); // bit 99
    assert_eq!(bytes.get(24), Some(0xc0)); // bits 198, 199
    assert_eq!(bytes.reinterpret::<u100, 2>().unwrap(), w);
}

#[test]
fn formatting_and_defaults() {
    let a = NArray::<u4, 3>::new([u4::new(1), u4::new(2), u4::new(3)]);
    assert_eq!(format!("{a:?}"), "[1, 2, 3]");
    let mut it = a.iter();
    it.next();
    assert_eq!(format!("{it:?}"), "IntoIter([2, 3])");
    assert_eq!(NArray::<u8, 4>::default().to_array(), [0; 4]);
    assert_eq!(
        NArray::<bool, 4>::default(),
        <NArray<bool, 4> as bytemuck::Zeroable>::zeroed()
    );
    assert_eq!(NArray::<bool, 4>::LEN, 4);
}

#[test]
fn marker_traits() {
    fn device<T: DeviceCopy>() {}
    fn no_uninit<T: bytemuck::NoUninit + bytemuck::Zeroable>() {}
    device::<NArray<bool, 8>>();
    device::<NArray<u128, 2>>();
    device::<NArray<NArray<bool, 4>, 2, u8>>();
    no_uninit::<NArray<u6, 4>>();
    no_uninit::<NArray<u64, 64>>();
    // Not AnyBitPattern: a cast from bytes must check the padding.
    static_assertions::assert_not_impl_any!(NArray<bool, 4>: bytemuck::AnyBitPattern, bytemuck::Pod);
    static_assertions::assert_impl_all!(NArray<bool, 4>: bytemuck::CheckedBitPattern, Send, Sync);
}

#[test]
fn float_lanes_compare_by_value() {
    let nan = NArray::<f32, 2>::new([f32::NAN, 1.0]);
    assert_ne!(nan, nan);
    assert_eq!(NArray::<f32, 1>::new([0.0]), NArray::new([-0.0]));
}

#[test]
fn narrow_array_chunks_are_narrays() {
    fn chunks<T, const L: usize>(values: &[T])
    where
        T: bitpack::Lanes<L> + PartialEq + core::fmt::Debug,
    {
        assert_eq!(NarrowArray::<T>::CHUNK_LEN, L);
        let a = NarrowArray::from_slice(values);
        let cb = NarrowArray::<T>::CHUNK_BYTES;
        assert_eq!(core::mem::size_of::<NArray<T, L>>(), cb);
        for (k, chunk) in values.chunks(L).enumerate() {
            let n = NArray::<T, L>::try_from_slice(chunk);
            if chunk.len() == L {
                let n = n.unwrap();
                if cfg!(target_endian = "little") {
                    assert_eq!(&a.as_bytes()[k * cb..(k + 1) * cb], n.as_bytes());
                }
            }
        }
    }
    let raws: Vec<u128> = (0..41u128).map(|i| i * 0x1234_5678_9abc_def1).collect();
    chunks::<bool, 8>(&raws.iter().map(|&r| value(r)).collect::<Vec<_>>());
    chunks::<u4, 2>(&raws.iter().map(|&r| value(r)).collect::<Vec<_>>());
    chunks::<u6, 4>(&raws.iter().map(|&r| value(r)).collect::<Vec<_>>());
    chunks::<u12, 2>(&raws.iter().map(|&r| value(r)).collect::<Vec<_>>());
    chunks::<u3, 8>(&raws.iter().map(|&r| value(r)).collect::<Vec<_>>());
    chunks::<u10, 4>(&raws.iter().map(|&r| value(r)).collect::<Vec<_>>());
    chunks::<u16, 1>(&raws.iter().map(|&r| value(r)).collect::<Vec<_>>());
    chunks::<u24, 1>(&raws.iter().map(|&r| value(r)).collect::<Vec<_>>());
}
