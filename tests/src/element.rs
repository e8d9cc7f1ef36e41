//! A checker for the `BitElement` contract, shared by the element and derive
//! tests: every element type is held to the same rules against a reference
//! model of its bits that the test supplies.

use bitpack::{BitElement, Unsigned};
use core::fmt::Debug;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// The mask of the low `bits` bits.
pub fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// The width of the narrowest of `u8`..`u128` that holds `bytes` bytes.
pub fn narrowest_raw_bits(bytes: usize) -> u32 {
    match bytes {
        0..=1 => 8,
        2 => 16,
        3..=4 => 32,
        5..=8 => 64,
        9..=16 => 128,
        _ => panic!("{bytes} bytes fit in no raw integer"),
    }
}

/// How a test describes an element type's bits, independently of its
/// `BitElement` impl.
#[derive(Debug)]
pub struct Model<T> {
    /// The expected `BITS`.
    pub bits: u32,
    /// The value bits of a value, zero-extended.
    pub to_bits: fn(T) -> u128,
    /// The value whose bits are the given ones (always below `1 << bits`).
    pub from_bits: fn(u128) -> T,
}

/// Checks `T` against `model`:
///
/// - `BITS` and `bitpack::bitwidth` are `model.bits`, and `Raw` is the
///   narrowest integer holding `size_of::<T>()` bytes;
/// - `raw_bits` gives the model's bits, with every bit above `BITS` clear;
/// - `from_raw_bits` gives the model's value for the low `BITS` bits and
///   ignores the bits above them;
/// - `from_raw_bits(raw_bits(x))` has the bits of `x`.
///
/// Patterns: all of them when `BITS <= 16` (each also with random bits above
/// `BITS`), every `Raw` pattern when `Raw` is at most 16 bits, the edge
/// patterns, and random ones (proptest) for every type.
pub fn check<T: BitElement + Debug>(model: Model<T>) {
    let Model {
        bits,
        to_bits,
        from_bits,
    } = model;
    assert_eq!(T::BITS, bits, "BITS");
    assert_eq!(bitpack::bitwidth::<T>(), bits, "bitwidth()");
    let raw_width = <T::Raw as Unsigned>::BITS;
    assert_eq!(
        raw_width,
        narrowest_raw_bits(core::mem::size_of::<T>()),
        "Raw must be the narrowest integer holding the value's {} bytes",
        core::mem::size_of::<T>()
    );
    assert!(bits <= raw_width);
    let value_mask = mask(bits);
    let raw_mask = mask(raw_width);

    let one = |r: u128| {
        let r = r & raw_mask;
        let low = r & value_mask;
        // from_raw_bits ignores the bits above BITS.
        let v = T::from_raw_bits(<T::Raw as Unsigned>::from_u128_truncate(r));
        assert_eq!(
            to_bits(v),
            low,
            "from_raw_bits({r:#x}) must keep exactly the low {bits} bits"
        );
        assert_eq!(
            v.raw_bits().to_u128(),
            low,
            "raw_bits(from_raw_bits({r:#x}))"
        );
        // raw_bits of a value built by the model (which must agree with itself).
        let x = from_bits(low);
        assert_eq!(
            to_bits(x),
            low,
            "the model's from_bits and to_bits disagree on {low:#x}"
        );
        let raw = x.raw_bits().to_u128();
        assert_eq!(
            raw & !value_mask,
            0,
            "raw_bits({x:?}) = {raw:#x} has bits above {bits}"
        );
        assert_eq!(raw, to_bits(x), "raw_bits({x:?})");
        assert_eq!(
            to_bits(T::from_raw_bits(x.raw_bits())),
            to_bits(x),
            "round trip of {x:?}"
        );
    };

    if bits <= 16 {
        let mut high = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C834u128;
        for r in 0..=value_mask {
            one(r);
            high = high.rotate_left(7) ^ (r.wrapping_mul(0x2545_F491_4F6C_DD1D));
            one(r | (high & !value_mask));
        }
    }
    if raw_width <= 16 {
        for r in 0..=raw_mask {
            one(r);
        }
    }
    for r in [
        0,
        1,
        value_mask,
        value_mask >> 1,
        1 << (bits - 1),
        raw_mask,
        !value_mask,
    ] {
        one(r);
    }
    TestRunner::new(Config {
        cases: 512,
        ..Config::default()
    })
    .run(&any::<u128>(), |r| {
        one(r);
        Ok(())
    })
    .unwrap();
}
