//! The narrow integers (`arbitrary_int`'s `i1`, `i2`, `i4`, `u1`, `u2`,
//! `u4`) against the reference vectors `<int format>.values.tsv`: every
//! in-range row is exact both ways, every out-of-range row wraps as the
//! reference does through `wrapping_from_i128`, and is an `OutOfRange` error
//! naming the numbers through the checked `try_from_i128`. The packed layout
//! of every code is checked against a bit-by-bit model.

use arbitrary_int::{i1, i2, i4, u1, u2, u4};
use bitpack::{Error, NarrowArray, NarrowInt};
use bitpack_tests::{hex, model, raw, read_tsv};
use proptest::prelude::*;

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

fn check<T: NarrowInt + core::fmt::Debug>(file: &str, bits: u32, signed: bool) {
    assert_eq!((T::BITS, T::SIGNED), (bits, signed), "{file}");
    let (header, rows) = read_tsv(file);
    let (i, c, v, k, n) = (
        column(&header, "input"),
        column(&header, "code"),
        column(&header, "value"),
        column(&header, "kind"),
        column(&header, "note"),
    );
    let mut in_range = Vec::new();
    for r in &rows {
        let input: i128 = r[i].parse().unwrap();
        let code = hex(&r[c]);
        let value: i128 = r[v].parse().unwrap();
        let what = format!("{file}: input {input}");
        // The reference's cast: wrap to the low bits.
        let wrapped = T::wrapping_from_i128(input);
        assert_eq!(raw(wrapped), code, "{what}: code");
        assert_eq!(wrapped.to_i128(), value, "{what}: value");
        assert_eq!(
            T::from_raw_bits(wrapped.raw_bits()).to_i128(),
            value,
            "{what}"
        );
        let checked = T::try_from_i128(input);
        match r[k].as_str() {
            "in_range" => {
                assert_eq!(r[n], "-", "{what}");
                assert_eq!(value, input, "{what}");
                let x = checked.unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(raw(x), code, "{what}");
                in_range.push((input, code));
            }
            "below_min" | "above_max" => {
                assert_eq!(r[n], "wrap", "{what}");
                let err = checked.unwrap_err();
                assert_eq!(
                    err,
                    Error::OutOfRange {
                        value: input,
                        bits,
                        signed
                    },
                    "{what}"
                );
                let msg = err.to_string();
                let range = format!("{}..={}", T::MIN_I128, T::MAX_I128);
                assert!(msg.contains(&input.to_string()), "{msg}");
                assert!(msg.contains(&range), "{msg}");
                assert!(msg.contains(&format!("{bits}-bit")), "{msg}");
                assert_eq!(r[k] == "below_min", input < T::MIN_I128, "{what}");
            }
            other => panic!("{what}: unknown kind {other}"),
        }
    }
    // The in-range rows are the complete decode table: each code once.
    let mut codes: Vec<u128> = in_range.iter().map(|&(_, c)| c).collect();
    codes.sort();
    assert_eq!(codes, (0..1u128 << bits).collect::<Vec<_>>(), "{file}");
    assert_eq!(in_range.first().unwrap().0, T::MIN_I128, "{file}");
    assert_eq!(in_range.last().unwrap().0, T::MAX_I128, "{file}");
    // Every byte reads as the value of its low bits (as the reference).
    for byte in 0..=255u128 {
        let x: T = bitpack_tests::value(byte);
        let low = byte & ((1 << bits) - 1);
        let want = in_range.iter().find(|&&(_, c)| c == low).unwrap().0;
        assert_eq!(x.to_i128(), want, "{file}: byte {byte:#x}");
    }
    // Packed: the values in a NarrowArray are the model's stream.
    let values: Vec<T> = in_range
        .iter()
        .chain(in_range.iter().rev())
        .map(|&(v, _)| T::try_from_i128(v).unwrap())
        .collect();
    let packed: NarrowArray<T> = values.iter().copied().collect();
    let raws: Vec<u128> = values.iter().map(|&x| raw(x)).collect();
    assert_eq!(
        packed.as_bytes(),
        model::bytes(&model::pack(&raws, bits)),
        "{file}: packed bytes"
    );
    for (j, &x) in values.iter().enumerate() {
        assert_eq!(
            packed.get(j).unwrap().to_i128(),
            x.to_i128(),
            "{file}: get({j})"
        );
    }
}

#[test]
fn int1() {
    check::<i1>("int1.values.tsv", 1, true);
}

#[test]
fn int2() {
    check::<i2>("int2.values.tsv", 2, true);
}

#[test]
fn int4() {
    check::<i4>("int4.values.tsv", 4, true);
}

#[test]
fn uint1() {
    check::<u1>("uint1.values.tsv", 1, false);
}

#[test]
fn uint2() {
    check::<u2>("uint2.values.tsv", 2, false);
}

#[test]
fn uint4() {
    check::<u4>("uint4.values.tsv", 4, false);
}

/// A model of the checked and wrapping conversions for any width.
fn model_check<T: NarrowInt>(x: i128) {
    let bits = T::BITS;
    let (min, max) = if T::SIGNED {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, ((1u128 << bits) - 1) as i128)
    };
    assert_eq!((T::MIN_I128, T::MAX_I128), (min, max));
    // Wrap: the value congruent to x modulo 2^bits within the range.
    let m = 1i128 << bits;
    let wrapped = (x - min).rem_euclid(m) + min;
    assert_eq!(
        T::wrapping_from_i128(x).to_i128(),
        wrapped,
        "{bits} bits, {x}"
    );
    match T::try_from_i128(x) {
        Ok(v) => {
            assert!((min..=max).contains(&x));
            assert_eq!(v.to_i128(), x);
        }
        Err(e) => {
            assert!(!(min..=max).contains(&x));
            assert_eq!(
                e,
                Error::OutOfRange {
                    value: x,
                    bits,
                    signed: T::SIGNED
                }
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn conversions_match_the_model(x in any::<i64>(), small in -300i128..300) {
        for v in [x as i128, small] {
            model_check::<i1>(v);
            model_check::<i2>(v);
            model_check::<arbitrary_int::i3>(v);
            model_check::<i4>(v);
            model_check::<arbitrary_int::i7>(v);
            model_check::<arbitrary_int::i13>(v);
            model_check::<arbitrary_int::i40>(v);
            model_check::<u1>(v);
            model_check::<u4>(v);
            model_check::<arbitrary_int::u13>(v);
            model_check::<i8>(v);
            model_check::<u16>(v);
            model_check::<i32>(v);
        }
    }
}

#[test]
fn wide_types_and_errors() {
    use arbitrary_int::{i100, i127, u127};
    assert_eq!(<i127 as NarrowInt>::MIN_I128, -(1i128 << 126));
    assert_eq!(<u127 as NarrowInt>::MAX_I128, i128::MAX);
    assert_eq!(
        i100::try_from_i128(-(1 << 99)).unwrap().to_i128(),
        -(1 << 99)
    );
    assert!(i100::try_from_i128(1 << 99).is_err());
    assert_eq!(
        i4::try_from_i128(8).unwrap_err().to_string(),
        "value 8 does not fit a 4-bit signed integer (-8..=7)"
    );
    assert_eq!(
        u2::try_from_i128(-1).unwrap_err().to_string(),
        "value -1 does not fit a 2-bit unsigned integer (0..=3)"
    );
    assert_eq!(
        u127::try_from_i128(-5).unwrap_err().to_string(),
        format!(
            "value -5 does not fit a 127-bit unsigned integer (0..={})",
            i128::MAX
        )
    );
    // Signed narrow values are elements: packed two's complement.
    let a: NarrowArray<i4> = [-8, -1, 0, 7].iter().map(|&v| i4::new(v)).collect();
    assert_eq!(a.as_bytes(), [0xf8, 0x70]);
    let n = bitpack::NArray::<i2, 4>::new([i2::new(-2), i2::new(-1), i2::new(0), i2::new(1)]);
    assert_eq!(n.raw_bits(), 0b01_00_11_10);
}
