//! Unit tests of the bulk paths against a bit-by-bit model of the stream.

use alloc::vec;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::bulk;
use crate::BitElement;
use crate::kernels::bits;

/// The stream bit `k` of `words`, one bit at a time.
fn bit(words: &[u64], k: usize) -> bool {
    (crate::kernels::bits::load(words[k / 64]) >> (k % 64)) & 1 == 1
}

/// Sets stream bit `k` to `b`, one bit at a time.
fn set_bit(words: &mut [u64], k: usize, b: bool) {
    let w = crate::kernels::bits::load(words[k / 64]);
    let m = 1u64 << (k % 64);
    words[k / 64] = crate::kernels::bits::store(if b { w | m } else { w & !m });
}

/// Packs raw values bit by bit at element `first` of a copy of `words`.
fn model_pack(words: &[u64], raws: &[u128], bits: u32, first: usize) -> Vec<u64> {
    let mut out = words.to_vec();
    for (j, &r) in raws.iter().enumerate() {
        for b in 0..bits as usize {
            set_bit(&mut out, (first + j) * bits as usize + b, (r >> b) & 1 == 1);
        }
    }
    out
}

fn check_width<T: BitElement + PartialEq + core::fmt::Debug>(
    raws: &[u128],
    first: usize,
    noise: u64,
) {
    let bits = T::BITS as usize;
    let values: Vec<T> = raws
        .iter()
        .map(|&r| T::from_raw_bits(crate::Unsigned::from_u128_truncate(r)))
        .collect();
    let raws: Vec<u128> = values
        .iter()
        .map(|v| crate::Unsigned::to_u128(v.raw_bits()))
        .collect();
    let n_words = bulk::words_for_bits((first + values.len()) * bits) + 1;
    // Noise around the written range must survive.
    let words: Vec<u64> = (0..n_words as u64)
        .map(|i| noise.rotate_left(i as u32 * 7) ^ i)
        .collect();
    let mut packed = words.clone();
    bulk::pack(&values, &mut packed, first);
    assert_eq!(packed, model_pack(&words, &raws, T::BITS, first));

    let mut back = vec![T::from_raw_bits(crate::Unsigned::ZERO); values.len()];
    bulk::unpack(&packed, first, &mut back);
    assert_eq!(back, values);

    for (j, &r) in raws.iter().enumerate() {
        assert_eq!(bits::read(&packed, (first + j) * bits, T::BITS), r);
    }
    // `write` ignores the bits of the value above the width.
    let junk = if bits < 128 { u128::MAX << bits } else { 0 };
    let mut written = words.clone();
    for (j, &r) in raws.iter().enumerate() {
        bits::write(&mut written, (first + j) * bits, T::BITS, r | junk);
    }
    assert_eq!(written, packed);

    let cut = first * bits + 3;
    let mut cleared = packed.clone();
    bits::clear_from(&mut cleared, cut);
    for k in 0..64 * cleared.len() {
        assert_eq!(bit(&cleared, k), k < cut && bit(&packed, k), "bit {k}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn bulk_matches_bit_model(
        raws in proptest::collection::vec(any::<u128>(), 0..80),
        first in 0usize..70,
        noise in any::<u64>(),
    ) {
        check_width::<bool>(&raws, first, noise);
        check_width::<arbitrary_int::u3>(&raws, first, noise);
        check_width::<arbitrary_int::u7>(&raws, first, noise);
        check_width::<u8>(&raws, first, noise);
        check_width::<arbitrary_int::u13>(&raws, first, noise);
        check_width::<u32>(&raws, first, noise);
        check_width::<arbitrary_int::u63>(&raws, first, noise);
        check_width::<u64>(&raws, first, noise);
        check_width::<arbitrary_int::u65>(&raws, first, noise);
        check_width::<arbitrary_int::u127>(&raws, first, noise);
        check_width::<u128>(&raws, first, noise);
    }

    #[test]
    fn bytes_to_words_is_the_byte_stream(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        let mut words = vec![u64::MAX; bytes.len().div_ceil(8) + 1];
        bits::bytes_to_words(&bytes, &mut words);
        let image = bulk::word_bytes(&words);
        prop_assert_eq!(&image[..bytes.len()], &bytes[..]);
        prop_assert!(image[bytes.len()..].iter().all(|&b| b == 0));
    }
}

/// One step of a growth sequence.
#[derive(Clone, Debug)]
enum Step {
    Push(u64),
    Extend(Vec<u64>),
    Truncate(usize),
    Pop,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        any::<u64>().prop_map(Step::Push),
        proptest::collection::vec(any::<u64>(), 0..40).prop_map(Step::Extend),
        (0usize..80).prop_map(Step::Truncate),
        Just(Step::Pop),
    ]
}

/// Runs `steps` (values cut to `T::BITS` bits) on a `NarrowArray<T, L>` and
/// on a `DynNarrowArray<L>` of the same width, and checks that they hold the
/// same words and length after every step.
fn same_growth<T: BitElement, L: super::Packing>(steps: &[Step]) {
    let w = T::BITS;
    let cut = |v: u64| v & crate::kernels::bits::mask64(w);
    let typed_of = |v: u64| T::from_raw_bits(crate::Unsigned::from_u128_truncate(cut(v).into()));
    let raw_of = |t: T| crate::Unsigned::to_u128(t.raw_bits()) as u64;
    let mut typed = super::NarrowArray::<T, L>::new_in();
    let mut dynamic = super::DynNarrowArray::<L>::new_in(w).unwrap();
    for (k, s) in steps.iter().enumerate() {
        match s {
            Step::Push(v) => {
                typed.push(typed_of(*v));
                dynamic.push(cut(*v));
            }
            Step::Extend(vs) => {
                let values: Vec<T> = vs.iter().map(|&v| typed_of(v)).collect();
                typed.extend_from_slice(&values);
                let raws: Vec<u64> = vs.iter().map(|&v| cut(v)).collect();
                dynamic.extend_from_slice(&raws);
            }
            Step::Truncate(n) => {
                typed.truncate(*n);
                dynamic.truncate(*n);
            }
            Step::Pop => assert_eq!(typed.pop().map(raw_of), dynamic.pop(), "width {w} step {k}"),
        }
        assert_eq!(dynamic.width(), w, "width {w} step {k}: no widening");
        assert_eq!(typed.len(), dynamic.len(), "width {w} step {k}");
        assert_eq!(
            typed.as_words(),
            dynamic.as_words(),
            "width {w} step {k}: {s:?}"
        );
    }
}

/// `same_growth` for every listed type, in both layouts.
macro_rules! each_width {
    ($steps:expr; $($t:ty),* $(,)?) => {$(
        same_growth::<$t, super::Dense>($steps);
        same_growth::<$t, super::WordAligned>($steps);
    )*};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn typed_and_dyn_growth_give_the_same_words(
        steps in proptest::collection::vec(step(), 0..24),
    ) {
        use arbitrary_int::*;
        each_width!(&steps;
            u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, u11, u12, u13, u14, u15, u16,
            u17, u18, u19, u20, u21, u22, u23, u24, u25, u26, u27, u28, u29, u30, u31, u32,
            u33, u34, u35, u36, u37, u38, u39, u40, u41, u42, u43, u44, u45, u46, u47, u48,
            u49, u50, u51, u52, u53, u54, u55, u56, u57, u58, u59, u60, u61, u62, u63, u64,
        );
    }
}
