//! `NarrowArray<T, WordAligned>` against a bit-by-bit model of the
//! word-aligned layout (values never straddle a 64-bit word; a value wider
//! than 64 bits takes two words), and conversions between the layouts, for
//! the test widths and 13, 33, 63, 64, 65, 127 and 128 bits.

use core::fmt::Debug;

use bitpack::{BitElement, Dense, NarrowArray, Packing, WordAligned};
use bitpack_tests::{low_bits, raw, test_widths, value};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// The stored words of `raws` in the word-aligned layout, bit by bit.
fn aligned_words(raws: &[u128], width: u32) -> Vec<u64> {
    let (per, words_per) = if width <= 64 {
        ((64 / width) as usize, 1)
    } else {
        (1, 2)
    };
    let mut words = vec![0u64; raws.len().div_ceil(per) * words_per];
    for (i, &r) in raws.iter().enumerate() {
        let base = (i / per) * 64 * words_per + (i % per) * width as usize;
        for b in 0..width as usize {
            if (r >> b) & 1 == 1 {
                let k = base + b;
                words[k / 64] |= 1 << (k % 64);
            }
        }
    }
    words.iter().map(|w| w.to_le()).collect()
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// Every operation of `NarrowArray<T, WordAligned>` against the model. The
/// layout parameter `L` names which layout converts to and from it.
fn aligned_matches_model<T: BitElement + PartialEq + Debug, L: Packing>() {
    let bits = T::BITS;
    let strategy = (
        prop::collection::vec(any::<u128>(), 0..200),
        prop::collection::vec(any::<u128>(), 1..8),
        any::<usize>(),
    );
    runner(96)
        .run(&strategy, |(raws, fresh, cut)| {
            let raws: Vec<u128> = raws.iter().map(|&r| low_bits(r, bits)).collect();
            let vals: Vec<T> = raws.iter().map(|&r| value::<T>(r)).collect();
            let n = vals.len();
            let a = NarrowArray::<T, WordAligned>::from_slice_in(&vals);
            assert_eq!(a.len(), n);
            assert_eq!(a.as_words(), aligned_words(&raws, bits));
            assert_eq!(a.to_vec(), vals);
            assert_eq!(a.iter().collect::<Vec<_>>(), vals);
            assert_eq!(
                a.iter().rev().collect::<Vec<_>>(),
                vals.iter().rev().copied().collect::<Vec<_>>()
            );
            let mut out = vec![value::<T>(0); n];
            a.unpack_into(&mut out).unwrap();
            assert_eq!(out, vals);
            for (i, &v) in vals.iter().enumerate() {
                assert_eq!(a.get(i), Some(v));
            }
            assert_eq!(a.get(n), None);
            assert!(a.capacity() >= n);

            // Set every value: only that value changes, words exact.
            let mut b = a.clone();
            let mut model = raws.clone();
            for i in 0..n {
                let r = low_bits(fresh[i % fresh.len()], bits);
                b.set(i, value::<T>(r)).unwrap();
                model[i] = r;
            }
            assert_eq!(b.as_words(), aligned_words(&model, bits));
            assert!(b.set(n, value::<T>(0)).is_err());
            // pack_from, push/pop, truncate/extend, from_iter.
            let mut z = NarrowArray::<T, WordAligned>::zeroed_in(n);
            z.pack_from(&vals).unwrap();
            assert_eq!(z, a);
            assert_eq!(z.as_words(), a.as_words());
            let mut p = NarrowArray::<T, WordAligned>::with_capacity_in(3);
            for &v in &vals {
                p.push(v);
            }
            assert_eq!(p.as_words(), a.as_words());
            let cut = cut % (n + 1);
            for i in (cut..n).rev() {
                assert_eq!(p.pop(), Some(vals[i]));
            }
            assert_eq!(p.as_words(), aligned_words(&raws[..cut], bits));
            let mut t = a.clone();
            t.truncate(cut);
            assert_eq!(t.as_words(), aligned_words(&raws[..cut], bits));
            t.extend_from_slice(&vals[cut..]);
            assert_eq!(t.as_words(), a.as_words());
            t.truncate(cut);
            t.extend(vals[cut..].iter().copied());
            assert_eq!(t.as_words(), a.as_words());
            let c: NarrowArray<T, WordAligned> = vals.iter().copied().collect();
            assert_eq!(c.as_words(), a.as_words());

            // Conversions: the other layout holds the same values, shape kept.
            let mut shaped = a.clone();
            if n.is_multiple_of(2) {
                shaped.reshape(&[2, n / 2]).unwrap();
            }
            let d: NarrowArray<T, L> = shaped.to_layout();
            assert_eq!(d.to_vec(), vals);
            assert_eq!(d.shape(), shaped.shape());
            assert_eq!(d, shaped);
            let back: NarrowArray<T, WordAligned> = d.clone().into_layout();
            assert_eq!(back.as_words(), a.as_words());
            let dense = NarrowArray::<T, Dense>::from(a.clone());
            assert_eq!(dense, NarrowArray::from_slice(&vals));
            assert_eq!(
                NarrowArray::<T, WordAligned>::from(dense).as_words(),
                a.as_words()
            );
            assert_eq!(
                format!("{:?}", a),
                format!("{:?}", NarrowArray::from_slice(&vals))
            );
            assert_eq!(a.view().to_vec(), vals);
            assert_eq!(
                a.view()
                    .reversed(0)
                    .unwrap()
                    .iter()
                    .map(raw)
                    .collect::<Vec<_>>(),
                raws.iter().rev().copied().collect::<Vec<_>>()
            );
            Ok(())
        })
        .unwrap();
}

test_widths!(aligned_matches_model);
test_widths!(@ aligned_matches_model_wide;
    w13 => arbitrary_int::u13, w33 => arbitrary_int::u33, w63 => arbitrary_int::u63,
    w64 => u64, w65 => arbitrary_int::u65, w127 => arbitrary_int::u127, w128 => u128);

fn aligned_matches_model_wide<T: BitElement + PartialEq + Debug, L: Packing>() {
    aligned_matches_model::<T, L>();
}
