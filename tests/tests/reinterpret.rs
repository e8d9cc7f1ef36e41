//! `reinterpret` between every pair of widths in 1..=16, N-d reinterprets
//! (the innermost dimension is rescaled; a row's bits must divide), and the
//! zero-copy typed views.

use arbitrary_int::*;
use bitpack::{BitElement, Error, NarrowArray};
use bitpack_tests::{assert_words_padded, low_bits, model, raw, value};
use proptest::prelude::*;

/// `n` values of `A` (from `raws`) reinterpreted as `B`: every bit kept and
/// the length rescaled, or an error that names the numbers and gives the
/// array back unchanged.
fn check_pair<A, B>(raws: &[u128])
where
    A: BitElement + PartialEq + core::fmt::Debug,
    B: BitElement + PartialEq + core::fmt::Debug,
{
    let n = raws.len();
    let values: Vec<A> = raws.iter().map(|&r| value::<A>(r)).collect();
    let stream = model::pack(&values.iter().map(|&v| raw(v)).collect::<Vec<_>>(), A::BITS);
    let a = NarrowArray::from_slice(&values);
    let bits = n * A::BITS as usize;
    if bits.is_multiple_of(B::BITS as usize) {
        let b = a.clone().reinterpret::<B>().unwrap();
        let m = bits / B::BITS as usize;
        assert_eq!(b.len(), m);
        assert_eq!(b.shape(), [m]);
        assert_eq!(b.as_bytes(), a.as_bytes());
        assert_eq!(b.as_words(), a.as_words());
        assert_words_padded(&b);
        let expected = model::unpack(&stream, B::BITS);
        assert_eq!(b.iter().map(raw).collect::<Vec<_>>(), expected);
        assert_eq!(
            b.to_vec().into_iter().map(raw).collect::<Vec<_>>(),
            expected
        );
        // And back.
        let back = b.reinterpret::<A>().unwrap();
        assert_eq!(back, a);
    } else {
        let err = a.clone().reinterpret::<B>().unwrap_err();
        assert_eq!(
            err.error(),
            &Error::Reinterpret {
                count: n,
                from_bits: A::BITS,
                to_bits: B::BITS
            }
        );
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!(
                "NarrowArray<u{}>: cannot reinterpret {n} {}-bit values as {}-bit values",
                A::BITS,
                A::BITS,
                B::BITS
            )),
            "{msg}"
        );
        let back = err.into_array();
        assert_eq!(back, a);
        assert_eq!(back.as_bytes(), a.as_bytes());
    }
}

/// The widths 1..=16 by name, for the pair macro.
mod types {
    pub use arbitrary_int::{u1, u2, u3, u4, u5, u6, u7, u9, u10, u11, u12, u13, u14, u15};
    pub use core::primitive::{u8, u16};
}

macro_rules! all_pairs {
    ($($a:ident)*) => { all_pairs!(@rows [$($a)*] $($a)*); };
    (@rows $all:tt $($a:ident)*) => {$(
        mod $a {
            use super::super::check_pair;
            use proptest::prelude::*;

            proptest! {
                #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
                #[test]
                fn to_every_width_1_to_16(raws in proptest::collection::vec(any::<u128>(), 0..=80)) {
                    all_pairs!(@row $a $all raws);
                }
            }

            #[test]
            fn to_every_width_1_to_16_lengths_0_to_48() {
                let all: Vec<u128> = (0..48u128)
                    .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835))
                    .collect();
                for n in 0..=48 {
                    let raws = &all[..n];
                    all_pairs!(@row $a $all raws);
                }
            }
        }
    )*};
    (@row $a:ident [$($b:ident)*] $raws:ident) => {
        $( check_pair::<super::super::types::$a, super::super::types::$b>(&$raws); )*
    };
}

/// `from::uA::*` reinterprets A-bit arrays as every width 1..=16.
mod from {
    all_pairs!(u1 u2 u3 u4 u5 u6 u7 u8 u9 u10 u11 u12 u13 u14 u15 u16);
}

#[test]
fn bool_and_u1_share_the_stream() {
    let flags = [true, false, false, true, true];
    let a = NarrowArray::from_slice(&flags);
    let b = a.clone().reinterpret::<u1>().unwrap();
    assert_eq!(b.iter().map(|v| v.value() == 1).collect::<Vec<_>>(), flags);
    assert_eq!(b.reinterpret::<bool>().unwrap(), a);
}

#[test]
fn wide_widths_reinterpret() {
    // 3 values of 40 bits are 120 bits: one u120, two u60, eight u15.
    let values = [0x12_3456_789a_u64, 0xff_0000_ffff, 0x00_8000_0001].map(u40::new);
    let a = NarrowArray::from_slice(&values);
    let one = a.clone().reinterpret::<u120>().unwrap();
    let expected = values.iter().enumerate().fold(0u128, |acc, (i, v)| {
        acc | (u128::from(v.value()) << (40 * i))
    });
    assert_eq!(one.to_vec(), [u120::new(expected)]);
    let halves = a.clone().reinterpret::<u60>().unwrap();
    assert_eq!(halves.len(), 2);
    assert_eq!(halves.get(1).map(raw), Some(expected >> 60));
    assert_eq!(a.clone().reinterpret::<u15>().unwrap().len(), 8);
    let err = a.reinterpret::<u128>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "NarrowArray<u40>: cannot reinterpret 3 40-bit values as 128-bit values \
         (120 bits is not a multiple of 128)"
    );
}

/// The reference rule for an N-d reinterpret of `shape` from `a` to `b`
/// bits: the new shape, or the row length that fails.
fn nd_rule(shape: &[usize], a: u32, b: u32) -> Result<Vec<usize>, usize> {
    let inner = *shape.last().unwrap();
    let row_bits = inner * a as usize;
    if !row_bits.is_multiple_of(b as usize) {
        return Err(inner);
    }
    let mut out = shape.to_vec();
    *out.last_mut().unwrap() = row_bits / b as usize;
    Ok(out)
}

fn check_nd<A, B>(shape: &[usize], raws: &[u128])
where
    A: BitElement + PartialEq + core::fmt::Debug,
    B: BitElement + PartialEq + core::fmt::Debug,
{
    let len: usize = shape.iter().product();
    let values: Vec<A> = raws[..len].iter().map(|&r| value::<A>(r)).collect();
    let mut a = NarrowArray::from_slice(&values);
    a.reshape(shape).unwrap();
    let stream = model::pack(&values.iter().map(|&v| raw(v)).collect::<Vec<_>>(), A::BITS);
    match nd_rule(shape, A::BITS, B::BITS) {
        Ok(new_shape) => {
            let b = a.clone().reinterpret::<B>().unwrap();
            assert_eq!(b.shape(), new_shape);
            assert_eq!(b.len(), new_shape.iter().product::<usize>());
            assert_eq!(b.as_bytes(), a.as_bytes());
            assert_eq!(
                b.iter().map(raw).collect::<Vec<_>>(),
                model::unpack(&stream, B::BITS)
            );
            assert_eq!(b.reinterpret::<A>().unwrap(), a);
        }
        Err(count) => {
            let err = a.clone().reinterpret::<B>().unwrap_err();
            assert_eq!(
                err.error(),
                &Error::Reinterpret {
                    count,
                    from_bits: A::BITS,
                    to_bits: B::BITS
                }
            );
            assert_eq!(err.into_array(), a);
        }
    }
}

proptest! {
    #[test]
    fn nd_reinterpret_rescales_the_innermost_dimension(
        shape in proptest::collection::vec(0usize..6, 1..=4),
        raws in proptest::collection::vec(any::<u128>(), 1296),
    ) {
        check_nd::<u8, u16>(&shape, &raws);
        check_nd::<u4, u8>(&shape, &raws);
        check_nd::<u6, u4>(&shape, &raws);
        check_nd::<bool, u3>(&shape, &raws);
        check_nd::<u12, u8>(&shape, &raws);
        check_nd::<u16, bool>(&shape, &raws);
    }
}

#[test]
fn nd_row_must_divide_even_when_the_total_does() {
    // 2 rows of 3 bytes: 48 bits in all (3 u16), but 24 bits per row.
    let mut a = NarrowArray::from_slice(&[1u8, 2, 3, 4, 5, 6]);
    a.reshape(&[2, 3]).unwrap();
    let err = a.clone().reinterpret::<u16>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "NarrowArray<u8>: cannot reinterpret 3 8-bit values as 16-bit values \
         (24 bits is not a multiple of 16)"
    );
    let a = err.into_array();
    assert_eq!(a.shape(), [2, 3]);
    // Flattened, the same bits reinterpret.
    let mut flat = a.clone();
    flat.reshape(&[6]).unwrap();
    assert_eq!(
        flat.reinterpret::<u16>().unwrap().to_vec(),
        [0x0201, 0x0403, 0x0605]
    );
    // 3 rows of 4 bools, as rows of one 4-bit value.
    let mut m = NarrowArray::from_slice(&[
        true, false, false, false, false, true, false, false, true, true, true, true,
    ]);
    m.reshape(&[3, 4]).unwrap();
    let n = m.reinterpret::<u4>().unwrap();
    assert_eq!(n.shape(), [3, 1]);
    assert_eq!(n.to_vec(), [u4::new(1), u4::new(2), u4::new(15)]);
}

#[test]
fn nd_edge_shapes() {
    // Empty rows and empty outer dimensions.
    let mut e = NarrowArray::<u8>::new();
    e.reshape(&[4, 0]).unwrap();
    let e = e.reinterpret::<u16>().unwrap();
    assert_eq!(e.shape(), [4, 0]);
    let mut e = NarrowArray::<u8>::new();
    e.reshape(&[0, 3]).unwrap();
    let err = e.reinterpret::<u16>().unwrap_err();
    assert_eq!(
        err.error(),
        &Error::Reinterpret {
            count: 3,
            from_bits: 8,
            to_bits: 16
        }
    );
    let mut e = err.into_array();
    e.reshape(&[0, 4]).unwrap();
    assert_eq!(e.reinterpret::<u16>().unwrap().shape(), [0, 2]);
    // A huge empty row: no overflow, an error naming the row.
    let mut h = NarrowArray::<u16>::new();
    h.reshape(&[0, usize::MAX]).unwrap();
    let h = h.reinterpret::<bool>().unwrap_err().into_array();
    assert_eq!(h.shape(), [0, usize::MAX]);
    // 0-d: only the same width.
    let mut s = NarrowArray::from_slice(&[0xabu8]);
    s.reshape(&[]).unwrap();
    let s = s.reinterpret::<i8>().unwrap();
    assert_eq!(s.shape(), [] as [usize; 0]);
    assert_eq!(s.get(0), Some(0xabu8 as i8));
    let err = s.reinterpret::<u4>().unwrap_err();
    assert!(matches!(err.error(), Error::Invalid(_)), "{err}");
    assert_eq!(err.into_array().shape(), [] as [usize; 0]);
}

#[cfg(target_endian = "little")]
#[test]
fn typed_views_are_the_same_memory() {
    let mut a = NarrowArray::from_slice(&[0x21u8, 0x43, 0x65, 0x87]);
    assert_eq!(a.as_slice_of::<u16>().unwrap(), [0x4321, 0x8765]);
    assert_eq!(a.as_slice_of::<u32>().unwrap(), [0x8765_4321]);
    assert_eq!(a.as_slice_of::<f32>().unwrap()[0].to_bits(), 0x8765_4321);
    let bytes_ptr = a.as_bytes().as_ptr();
    assert_eq!(
        a.as_slice_of::<u16>().unwrap().as_ptr().cast::<u8>(),
        bytes_ptr
    );
    a.as_slice_of_mut::<u16>().unwrap()[1] = 0xbeef;
    assert_eq!(a.to_vec(), [0x21, 0x43, 0xef, 0xbe]);

    // Sub-byte arrays whose bits fill whole bytes.
    let nibbles: NarrowArray<u4> = (0..6).map(|i| u4::new(i + 1)).collect();
    assert_eq!(nibbles.as_slice_of::<u8>().unwrap(), [0x21, 0x43, 0x65]);
    assert_eq!(nibbles.as_slice_of::<u8>().unwrap(), nibbles.as_bytes());
    let err = nibbles.as_slice_of::<u16>().unwrap_err();
    assert_eq!(
        err,
        Error::Reinterpret {
            count: 6,
            from_bits: 4,
            to_bits: 16
        }
    );

    // An Arrow-style bitmap as bytes, and written through a u64 view.
    let mut flags = NarrowArray::<bool>::zeroed(128);
    flags.as_slice_of_mut::<u64>().unwrap()[1] = 1 << 63;
    assert_eq!(flags.iter().position(|b| b), Some(127));
    assert_eq!(flags.as_slice_of::<u8>().unwrap()[15], 0x80);
    assert_eq!(flags.as_slice_of::<i64>().unwrap(), [0, i64::MIN]);

    // Empty arrays view as empty slices.
    let empty = NarrowArray::<u4>::new();
    assert!(empty.as_slice_of::<u32>().unwrap().is_empty());
}

#[cfg(target_endian = "little")]
proptest! {
    #[test]
    fn typed_views_match_the_model(raws in proptest::collection::vec(any::<u128>(), 0..=64)) {
        let values: Vec<u4> = raws.iter().map(|&r| value::<u4>(r)).collect();
        let mut a = NarrowArray::from_slice(&values);
        let stream = model::pack(&values.iter().map(|&v| raw(v)).collect::<Vec<_>>(), 4);
        if values.len().is_multiple_of(2) {
            let bytes: Vec<u128> = a.as_slice_of::<u8>().unwrap().iter().map(|&b| u128::from(b)).collect();
            prop_assert_eq!(bytes, model::unpack(&stream, 8));
        }
        match a.as_slice_of_mut::<u16>() {
            Ok(view) => {
                prop_assert_eq!(values.len() % 4, 0);
                for w in view.iter_mut() {
                    *w = w.rotate_left(4);
                }
                let expected: Vec<u4> = values
                    .chunks(4)
                    .flat_map(|c| [c[3], c[0], c[1], c[2]])
                    .collect();
                prop_assert_eq!(a.to_vec(), expected);
                assert_words_padded(&a);
            }
            Err(e) => {
                prop_assert_ne!(values.len() % 4, 0);
                prop_assert_eq!(e, Error::Reinterpret { count: values.len(), from_bits: 4, to_bits: 16 });
                prop_assert_eq!(a.to_vec(), values);
            }
        }
        let _ = low_bits(0, 1);
    }
}
