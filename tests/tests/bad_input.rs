//! Every error path of `NArray` and `NarrowArray`: the error names the
//! numbers, and the value or array is unchanged afterwards.

use arbitrary_int::*;
use bitpack::{BitElement, Error, LengthOf, MAX_DIMS, NArray, NarrowArray};
use bitpack_tests::{model, raw, value};
use proptest::prelude::*;

/// A 4-bit element type stored in a byte that is `Pod`: it does not
/// fill its bytes, so it has no typed view.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Zeroable, bytemuck::Pod)]
#[repr(transparent)]
struct Nib(u8);

impl BitElement for Nib {
    const BITS: u32 = 4;
    type Raw = u8;
    fn raw_bits(self) -> u8 {
        self.0 & 0xf
    }
    fn from_raw_bits(raw: u8) -> Self {
        Nib(raw & 0xf)
    }
}

#[test]
fn narray_slice_length() {
    for len in [0, 1, 2, 4, 5, 100] {
        let values = vec![true; len];
        let r = NArray::<bool, 3>::try_from_slice(&values);
        if len == 3 {
            assert!(r.is_ok());
        } else {
            let e = r.unwrap_err();
            assert_eq!(
                e,
                Error::Length {
                    of: LengthOf::Lanes,
                    expected: 3,
                    actual: len
                }
            );
            assert_eq!(
                e.to_string(),
                format!("an NArray of 3 lanes takes 3 values, got {len}")
            );
            assert_eq!(NArray::<bool, 3>::try_from(&values[..]).unwrap_err(), e);
        }
    }
}

#[test]
fn narray_index() {
    let a = NArray::<u5, 6>::new([1, 2, 3, 4, 5, 6].map(u5::new));
    for i in [6, 7, 100, usize::MAX] {
        let mut b = a;
        let e = b.set(i, u5::new(31)).unwrap_err();
        assert_eq!(e, Error::Index { index: i, len: 6 });
        assert_eq!(
            e.to_string(),
            format!("index {i} is out of bounds for length 6")
        );
        assert_eq!(b.storage(), a.storage());
        assert_eq!(a.with(i, u5::new(31)).unwrap_err(), e);
        assert_eq!(a.get(i), None);
    }
}

#[cfg(target_endian = "little")]
#[test]
fn narray_bytes_length_and_padding() {
    type A = NArray<u3, 5>; // 15 bits in a u16: bit 15 is padding
    let good = A::new([1, 2, 3, 4, 5].map(u3::new));
    let bytes = good.raw_bits().to_le_bytes();
    assert_eq!(A::try_from_bytes(&bytes).unwrap(), good);
    for len in [0, 1, 3, 4] {
        let buf = vec![0u8; len];
        let e = A::try_from_bytes(&buf).unwrap_err();
        assert_eq!(
            e,
            Error::ByteCount {
                what: "NArray::try_from_bytes",
                expected: 2,
                actual: len
            }
        );
        assert_eq!(
            e.to_string(),
            format!("NArray::try_from_bytes: the array is 2 bytes, got {len}")
        );
    }
    let mut dirty = bytes;
    dirty[1] |= 0x80;
    assert_eq!(
        A::try_from_bytes(&dirty).unwrap_err(),
        Error::NonZeroPadding { byte: 1 }
    );
    assert!(bytemuck::checked::try_from_bytes::<A>(&dirty).is_err());
    assert!(bytemuck::checked::try_cast_slice::<u8, A>(&[dirty, bytes].concat()).is_err());
    assert_eq!(
        bytemuck::checked::try_cast_slice::<u8, A>(&[bytes, bytes].concat()).unwrap(),
        [good, good]
    );
}

/// Every padding bit of several storages is rejected, and every value bit is
/// accepted.
#[test]
fn narray_every_padding_bit() {
    fn each<T: bitpack::Lanes<N> + PartialEq + core::fmt::Debug, const N: usize>() {
        let size = core::mem::size_of::<NArray<T, N>>();
        let value_bits = N * T::BITS as usize;
        for bit in 0..8 * size {
            let mut bytes = vec![0u8; size];
            bytes[bit / 8] |= 1 << (bit % 8);
            let r = NArray::<T, N>::try_from_bytes(&bytes);
            if bit < value_bits {
                assert!(r.is_ok(), "value bit {bit}");
            } else {
                assert_eq!(
                    r.unwrap_err(),
                    Error::NonZeroPadding {
                        byte: value_bits / 8
                    }
                );
            }
        }
    }
    if cfg!(target_endian = "little") {
        each::<bool, 1>();
        each::<bool, 13>();
        each::<bool, 17>();
        each::<u6, 5>();
        each::<u7, 9>();
        each::<u100, 1>();
        each::<u65, 2>();
    }
}

#[test]
fn narray_reinterpret_errors() {
    let a = NArray::<u6, 3>::new([1, 2, 3].map(u6::new)); // 18 bits
    assert_eq!(
        a.reinterpret::<u4, 4>().unwrap_err(),
        Error::Reinterpret {
            count: 3,
            from_bits: 6,
            to_bits: 4
        }
    );
    assert_eq!(
        a.reinterpret::<u4, 4>().unwrap_err().to_string(),
        "cannot reinterpret 3 6-bit values as 4-bit values (18 bits is not a multiple of 4)"
    );
    assert_eq!(
        a.reinterpret::<u9, 1>().unwrap_err(),
        Error::Length {
            of: LengthOf::ReinterpretLanes,
            expected: 2,
            actual: 1
        }
    );
    assert_eq!(
        a.reinterpret::<u9, 3>().unwrap_err(),
        Error::Length {
            of: LengthOf::ReinterpretLanes,
            expected: 2,
            actual: 3
        }
    );
    assert_eq!(
        a.reinterpret::<u9, 2>()
            .unwrap()
            .reinterpret::<u6, 3>()
            .unwrap(),
        a
    );
}

#[test]
fn narrow_index() {
    let mut a = NarrowArray::from_slice(&[u7::new(1), u7::new(2), u7::new(3)]);
    let before = a.clone();
    for i in [3, 4, 1000, usize::MAX] {
        let e = a.set(i, u7::new(127)).unwrap_err();
        assert_eq!(e, Error::Index { index: i, len: 3 });
        assert_eq!(
            e.to_string(),
            format!("index {i} is out of bounds for length 3")
        );
        assert_eq!(a.as_words(), before.as_words());
        assert_eq!(a.get(i), None);
    }
    let mut empty = NarrowArray::<bool>::new();
    assert_eq!(
        empty.set(0, true).unwrap_err(),
        Error::Index { index: 0, len: 0 }
    );
    assert_eq!(empty.pop(), None);
    assert!(empty.is_empty() && empty.as_words().is_empty());
}

#[test]
fn narrow_unpack_and_pack_lengths() {
    let mut a = NarrowArray::from_slice(&[u12::new(0xabc), u12::new(0x123)]);
    let before = a.clone();
    for len in [0, 1, 3, 10] {
        let mut dst = vec![u12::new(0x7ff); len];
        let e = a.unpack_into(&mut dst).unwrap_err();
        assert_eq!(
            e,
            Error::Length {
                of: LengthOf::UnpackOutput,
                expected: 2,
                actual: len
            }
        );
        assert!(dst.iter().all(|&v| v == u12::new(0x7ff)), "dst untouched");
        let src = vec![u12::new(0xfff); len];
        let e = a.pack_from(&src).unwrap_err();
        assert_eq!(
            e,
            Error::Length {
                of: LengthOf::PackSource,
                expected: 2,
                actual: len
            }
        );
        assert_eq!(
            e.to_string(),
            format!("pack_from got {len} values for an array of 2")
        );
        assert_eq!(
            a.unpack_into(&mut vec![u12::new(0); len])
                .unwrap_err()
                .to_string(),
            format!("the unpack output holds {len} values, needs 2")
        );
        assert_eq!(a.as_words(), before.as_words());
    }
    let mut m = NarrowArray::<u8>::zeroed(6);
    m.reshape(&[2, 3]).unwrap();
    assert!(m.pack_from(&[1; 5]).is_err());
    assert_eq!(m.shape(), [2, 3]);
    m.pack_from(&[1; 6]).unwrap();
    assert_eq!(m.shape(), [2, 3], "pack_from keeps the shape");
}

#[test]
fn narrow_from_bytes_too_few() {
    let bytes = [0xffu8; 8];
    for len in 0usize..=20 {
        // 5-bit values: ceil(5 * len / 8) bytes needed.
        let needed = (5 * len).div_ceil(8);
        for have in 0..needed {
            let e = NarrowArray::<u5>::from_bytes(&bytes[..have.min(8)], len).unwrap_err();
            assert_eq!(
                e,
                Error::TooFewBytes {
                    what: "NarrowArray::from_bytes",
                    values: len,
                    bits: 5,
                    needed,
                    actual: have.min(8)
                }
            );
            assert_eq!(
                e.to_string(),
                format!(
                    "NarrowArray::from_bytes: {len} values of 5 bits need {needed} bytes, got {}",
                    have.min(8)
                )
            );
        }
    }
    let e = NarrowArray::<u16>::from_bytes(&[0; 4], usize::MAX).unwrap_err();
    assert_eq!(
        e,
        Error::TooFewBytes {
            what: "NarrowArray::from_bytes",
            values: usize::MAX,
            bits: 16,
            needed: usize::MAX,
            actual: 4
        }
    );
    let e = NarrowArray::<bool>::from_bytes(&[0; 4], usize::MAX).unwrap_err();
    assert_eq!(
        e,
        Error::TooFewBytes {
            what: "NarrowArray::from_bytes",
            values: usize::MAX,
            bits: 1,
            needed: usize::MAX.div_ceil(8),
            actual: 4
        }
    );
}

proptest! {
    /// Any set padding bit, in the last byte or past it, is rejected with the
    /// byte that holds it; clean padding is accepted.
    #[test]
    fn narrow_from_bytes_padding(
        len in 0usize..40,
        raws in proptest::collection::vec(any::<u128>(), 40),
        extra in 0usize..10,
        flip in any::<prop::sample::Index>(),
    ) {
        let values: Vec<u3> = raws[..len].iter().map(|&r| value(r)).collect();
        let mut bytes = model::bytes(&model::pack(&values.iter().map(|&v| raw(v)).collect::<Vec<_>>(), 3));
        bytes.resize(bytes.len() + extra, 0);
        let ok = NarrowArray::<u3>::from_bytes(&bytes, len).unwrap();
        prop_assert_eq!(ok.to_vec(), values);
        let bits = 3 * len;
        let padding_bits: Vec<usize> = (bits..8 * bytes.len()).collect();
        if !padding_bits.is_empty() {
            let k = padding_bits[flip.index(padding_bits.len())];
            bytes[k / 8] |= 1 << (k % 8);
            let e = NarrowArray::<u3>::from_bytes(&bytes, len).unwrap_err();
            prop_assert_eq!(e, Error::NonZeroPadding { byte: k / 8 });
        }
    }
}

#[test]
fn narrow_reinterpret_gives_the_array_back() {
    let a = NarrowArray::from_slice(&[u5::new(1), u5::new(2), u5::new(3)]); // 15 bits
    for (count, to) in [(3, 2), (3, 4), (3, 8), (3, 16), (3, 10)] {
        let e = match to {
            2 => a
                .clone()
                .reinterpret::<u2>()
                .map(|_| ())
                .unwrap_err()
                .into_array(),
            4 => a
                .clone()
                .reinterpret::<u4>()
                .map(|_| ())
                .unwrap_err()
                .into_array(),
            8 => a
                .clone()
                .reinterpret::<u8>()
                .map(|_| ())
                .unwrap_err()
                .into_array(),
            16 => a
                .clone()
                .reinterpret::<u16>()
                .map(|_| ())
                .unwrap_err()
                .into_array(),
            _ => a
                .clone()
                .reinterpret::<u10>()
                .map(|_| ())
                .unwrap_err()
                .into_array(),
        };
        assert_eq!(e, a, "{count} -> {to}");
        assert_eq!(e.as_words(), a.as_words());
    }
    let err = a.clone().reinterpret::<u2>().unwrap_err();
    assert_eq!(
        format!("{err}"),
        "NarrowArray<u5>: cannot reinterpret 3 5-bit values as 2-bit values \
         (15 bits is not a multiple of 2)"
    );
    assert!(format!("{err:?}").contains("Reinterpret"));
    let as_error: Error = err.into();
    assert_eq!(
        as_error,
        Error::Reinterpret {
            count: 3,
            from_bits: 5,
            to_bits: 2
        }
    );
    // `?` converts to bitpack::Error.
    fn go(a: NarrowArray<u5>) -> bitpack::Result<NarrowArray<u3>> {
        Ok(a.reinterpret::<u3>()?)
    }
    assert_eq!(go(a.clone()).unwrap().len(), 5);
    assert!(go(NarrowArray::from_slice(&[u5::new(0)])).is_err());
}

#[cfg(target_endian = "little")]
#[test]
fn narrow_typed_view_errors() {
    let mut a = NarrowArray::<u8>::from_slice(&[1, 2, 3, 4]);
    let before = a.clone();
    assert!(
        matches!(a.as_slice_of::<Nib>().unwrap_err(), Error::Invalid(m) if m.contains("fill its bytes"))
    );
    assert!(
        matches!(a.as_slice_of::<u128>().unwrap_err(), Error::Invalid(m) if m.contains("at most 8"))
    );
    assert!(matches!(
        a.as_slice_of_mut::<u128>().unwrap_err(),
        Error::Invalid(_)
    ));
    assert_eq!(
        a.as_slice_of::<u64>().unwrap_err(),
        Error::Reinterpret {
            count: 4,
            from_bits: 8,
            to_bits: 64
        }
    );
    assert_eq!(
        a.as_slice_of_mut::<Nib>().map(|_| ()).unwrap_err(),
        Error::Invalid("a typed view needs an element type whose value bits fill its bytes")
    );
    assert_eq!(a, before);
    // A Nib array reinterprets (it is the reinterpret that copies nothing).
    let nibs = a.clone().reinterpret::<Nib>().unwrap();
    assert_eq!(
        nibs.to_vec(),
        [
            Nib(1),
            Nib(0),
            Nib(2),
            Nib(0),
            Nib(3),
            Nib(0),
            Nib(4),
            Nib(0)
        ]
    );
}

#[test]
fn narrow_reshape_errors() {
    let mut a = NarrowArray::<bool>::zeroed(12);
    a.reshape(&[3, 4]).unwrap();
    let e = a.reshape(&[5, 2]).unwrap_err();
    assert_eq!(
        e,
        Error::Shape {
            elements: Some(10),
            len: 12
        }
    );
    assert_eq!(e.to_string(), "shape holds 10 values but the array has 12");
    let e = a.reshape(&[usize::MAX, 3]).unwrap_err();
    assert_eq!(
        e,
        Error::Shape {
            elements: None,
            len: 12
        }
    );
    let e = a.reshape(&[1; MAX_DIMS + 1]).unwrap_err();
    assert_eq!(e, Error::TooManyDims { ndim: MAX_DIMS + 1 });
    assert_eq!(
        a.reshape(&[]).unwrap_err(),
        Error::Shape {
            elements: Some(1),
            len: 12
        }
    );
    assert_eq!(a.shape(), [3, 4]);
    let mut deep = [1usize; MAX_DIMS];
    deep[0] = 12;
    a.reshape(&deep).unwrap();
    assert_eq!(a.ndim(), MAX_DIMS);
}

#[test]
fn length_changes_flatten_the_shape() {
    let mut a = NarrowArray::from_slice(&[1u8, 2, 3, 4]);
    a.reshape(&[2, 2]).unwrap();
    a.truncate(10); // no-op: keeps the shape
    assert_eq!(a.shape(), [2, 2]);
    a.push(5);
    assert_eq!(a.shape(), [5]);
    a.reshape(&[5, 1]).unwrap();
    a.pop();
    assert_eq!(a.shape(), [4]);
    a.reshape(&[1, 4]).unwrap();
    a.extend([9u8]);
    assert_eq!(a.shape(), [5]);
    a.reshape(&[5, 1]).unwrap();
    a.extend(core::iter::empty::<u8>());
    assert_eq!(a.shape(), [5]);
    a.reshape(&[1, 5]).unwrap();
    a.clear();
    assert_eq!(a.shape(), [0]);
}
