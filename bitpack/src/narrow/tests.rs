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
