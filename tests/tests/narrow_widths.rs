//! `NarrowArray` against the bit-by-bit stream model, for every width 1..=64
//! and a sample up to 128: pack, unpack, get/set at every index, push/pop,
//! truncate/extend, from_bytes/as_bytes, at lengths 0..=300 and 100,000.

use arbitrary_int::*;
use bitpack::{BitElement, NarrowArray};
use bitpack_tests::{assert_words_padded, low_bits, model, raw, value};
use proptest::prelude::*;

/// Every operation on `raws` (random `u128`s, cut to the width) against the
/// model; `fresh` supplies the values written by `set`, `cut` where to
/// truncate.
fn check<T: BitElement + PartialEq + core::fmt::Debug>(raws: &[u128], fresh: &[u128], cut: usize) {
    let bits = T::BITS;
    let n = raws.len();
    let values: Vec<T> = raws.iter().map(|&r| value::<T>(r)).collect();
    let expected_raws: Vec<u128> = raws.iter().map(|&r| low_bits(r, bits)).collect();
    let mut stream = model::pack(&expected_raws, bits);

    // Pack: the bytes are the model's stream, padding zero.
    let a = NarrowArray::from_slice(&values);
    assert_eq!(a.len(), n);
    assert_eq!(a.is_empty(), n == 0);
    assert_eq!(a.shape(), [n]);
    assert_eq!(a.as_bytes(), model::bytes(&stream));
    assert_words_padded(&a);

    // Unpack, three ways.
    assert_eq!(a.to_vec(), values);
    let mut out = vec![value::<T>(0); n];
    a.unpack_into(&mut out).unwrap();
    assert_eq!(out, values);
    assert_eq!(a.iter().collect::<Vec<_>>(), values);
    assert_eq!(
        a.iter().rev().collect::<Vec<_>>(),
        values.iter().rev().copied().collect::<Vec<_>>()
    );
    assert_eq!(a.iter().len(), n);

    // Get at every index.
    for i in 0..n {
        assert_eq!(
            a.get(i).map(raw),
            Some(model::get(&stream, i, bits)),
            "get({i})"
        );
    }
    assert_eq!(a.get(n), None);

    // Set at every index: only that value changes.
    let mut b = a.clone();
    for i in 0..n {
        let v = value::<T>(fresh[i % fresh.len()]);
        b.set(i, v).unwrap();
        model::set(&mut stream, i, bits, raw(v));
        assert_eq!(b.get(i).map(raw), Some(raw(v)));
        if i > 0 {
            assert_eq!(
                b.get(i - 1).map(raw),
                Some(model::get(&stream, i - 1, bits))
            );
        }
        if i + 1 < n {
            assert_eq!(
                b.get(i + 1).map(raw),
                Some(model::get(&stream, i + 1, bits))
            );
        }
    }
    assert_eq!(b.as_bytes(), model::bytes(&stream));
    assert_words_padded(&b);

    // Pack into an existing array.
    let mut z = NarrowArray::<T>::zeroed(n);
    assert!(z.as_bytes().iter().all(|&x| x == 0));
    z.pack_from(&values).unwrap();
    assert_eq!(z.as_bytes(), a.as_bytes());
    b.pack_from(&values).unwrap();
    assert_eq!(b.as_bytes(), a.as_bytes());
    assert_words_padded(&b);

    // Bytes in and out.
    let c = NarrowArray::<T>::from_bytes(a.as_bytes(), n).unwrap();
    assert_eq!(c.to_vec(), values);
    assert_eq!(c.as_words(), a.as_words());
    assert_eq!(c.clone().into_bytes(), a.as_bytes());

    // Push every value, then pop them all.
    let mut p = NarrowArray::<T>::new();
    for (i, &v) in values.iter().enumerate() {
        p.push(v);
        assert_eq!(p.len(), i + 1);
        assert_eq!(p.get(i), Some(v));
    }
    assert_eq!(p.as_bytes(), a.as_bytes());
    assert_words_padded(&p);
    for i in (0..n).rev() {
        assert_eq!(p.pop(), Some(values[i]));
        assert_eq!(p.len(), i);
        assert_words_padded(&p);
        if i == n / 2 {
            let half = model::bytes(&model::pack(&expected_raws[..i], bits));
            assert_eq!(p.as_bytes(), half);
        }
    }
    assert_eq!(p.pop(), None);
    assert!(p.as_bytes().is_empty());

    // Truncate, then extend back, by slice and by iterator.
    let cut = cut.min(n);
    let mut t = a.clone();
    t.truncate(cut);
    assert_eq!(t.len(), cut);
    assert_eq!(
        t.as_bytes(),
        model::bytes(&model::pack(&expected_raws[..cut], bits))
    );
    assert_words_padded(&t);
    let mut t2 = t.clone();
    t.extend_from_slice(&values[cut..]);
    assert_eq!(t.as_bytes(), a.as_bytes());
    t2.extend(values[cut..].iter().copied());
    assert_eq!(t2, a);
    let collected: NarrowArray<T> = values.iter().copied().collect();
    assert_eq!(collected.as_bytes(), a.as_bytes());
    let mut cleared = a.clone();
    cleared.clear();
    assert!(cleared.is_empty() && cleared.as_words().is_empty());
}

/// 100,000 values: pack, unpack and bytes against the model.
fn check_large<T: BitElement + PartialEq + core::fmt::Debug>() {
    const N: usize = 100_000;
    let mut x = 0x9e37_79b9_7f4a_7c15_u64 ^ u64::from(T::BITS);
    let raws: Vec<u128> = (0..N)
        .map(|_| {
            // xorshift64*
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let lo = x.wrapping_mul(0x2545_f491_4f6c_dd1d);
            low_bits(
                u128::from(lo) | (u128::from(lo.rotate_left(17)) << 64),
                T::BITS,
            )
        })
        .collect();
    let values: Vec<T> = raws.iter().map(|&r| value::<T>(r)).collect();
    let stream = model::pack(&raws, T::BITS);
    let a = NarrowArray::from_slice(&values);
    assert_eq!(a.as_bytes(), model::bytes(&stream));
    assert_words_padded(&a);
    assert_eq!(a.to_vec(), values);
    for i in (0..N).step_by(997) {
        assert_eq!(a.get(i), Some(values[i]));
    }
    let b = NarrowArray::<T>::from_bytes(a.as_bytes(), N).unwrap();
    assert_eq!(b.as_words(), a.as_words());
    let c: NarrowArray<T> = values.iter().copied().collect();
    assert_eq!(c.as_words(), a.as_words());
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 24,
        ..ProptestConfig::default()
    }
}

macro_rules! widths {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        mod $name {
            use super::*;

            proptest! {
                #![proptest_config(config())]
                #[test]
                fn matches_bit_model(
                    raws in proptest::collection::vec(any::<u128>(), 0..=300),
                    fresh in proptest::collection::vec(any::<u128>(), 1..8),
                    cut in 0usize..=300,
                ) {
                    check::<$t>(&raws, &fresh, cut);
                }
            }

            #[test]
            fn lengths_0_to_70_exhaustively() {
                let raws: Vec<u128> = (0..70u128).map(|i| i.wrapping_mul(0x0123_4567_89ab_cdef_fedc_ba98_7654_3211)).collect();
                for n in 0..=70 {
                    check::<$t>(&raws[..n], &[u128::MAX, 0, 0x5555_5555_5555_5555_5555_5555_5555_5555], n / 2);
                }
            }

            #[test]
            fn large_100k() {
                check_large::<$t>();
            }
        }
    )*};
}

widths! {
    w_bool: bool,
    w01: u1, w02: u2, w03: u3, w04: u4, w05: u5, w06: u6, w07: u7, w08: u8,
    w09: u9, w10: u10, w11: u11, w12: u12, w13: u13, w14: u14, w15: u15, w16: u16,
    w17: u17, w18: u18, w19: u19, w20: u20, w21: u21, w22: u22, w23: u23, w24: u24,
    w25: u25, w26: u26, w27: u27, w28: u28, w29: u29, w30: u30, w31: u31, w32: u32,
    w33: u33, w34: u34, w35: u35, w36: u36, w37: u37, w38: u38, w39: u39, w40: u40,
    w41: u41, w42: u42, w43: u43, w44: u44, w45: u45, w46: u46, w47: u47, w48: u48,
    w49: u49, w50: u50, w51: u51, w52: u52, w53: u53, w54: u54, w55: u55, w56: u56,
    w57: u57, w58: u58, w59: u59, w60: u60, w61: u61, w62: u62, w63: u63, w64: u64,
    w65: u65, w100: u100, w127: u127, w128: u128,
    w_i8: i8, w_i64: i64,
}
