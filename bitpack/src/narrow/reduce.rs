//! [`NarrowArray::sum`] and its tests (the element type of sums,
//! [`UnsignedElement`], is an element property, beside `BitElement`). The sum kernels themselves, for both layouts, whole arrays and
//! views, are in the crate's `reduce` module.

use super::NarrowArray;
use crate::UnsignedElement;
use crate::reduce;
use crate::shape::Packing;

impl<T: UnsignedElement, L: Packing> NarrowArray<T, L> {
    /// The exact sum of the values, without unpacking them: population count
    /// for 1 bit, in-word digit folding (dense) or whole-word folding
    /// (word-aligned) for 2..=7 and other widths that do not divide 64, byte
    /// and lane reductions for 8, 16, 32 bits, word extraction above 32 (see
    /// `BENCHMARKS.md` for the speeds).
    ///
    /// The sum is a `u128` because `n` values of `b` bits can exceed a `u64`;
    /// it accumulates in `u64` while `n * (2^b - 1)` fits one (always, for
    /// `b <= 32` and fewer than `2^32` values), and in `u128` across such
    /// pieces.
    ///
    /// # Examples
    ///
    /// ```
    /// use arbitrary_int::u5;
    /// use bitpack::{NarrowArray, WordAligned};
    ///
    /// let values: Vec<u5> = (0..1000u32).map(|i| u5::new((i % 32) as u8)).collect();
    /// let dense = NarrowArray::from_slice(&values);
    /// let aligned = NarrowArray::<u5, WordAligned>::from_slice_in(&values);
    /// let expected: u128 = (0..1000u128).map(|i| i % 32).sum();
    /// assert_eq!(dense.sum(), expected);
    /// assert_eq!(aligned.sum(), expected);
    /// assert_eq!(NarrowArray::from_slice(&[u64::MAX; 3]).sum(), 3 * u64::MAX as u128);
    /// ```
    pub fn sum(&self) -> u128 {
        const { reduce::assert_summable::<T>() };
        super::bulk::split_sum(L::WORD_ALIGNED, T::BITS, self.as_words(), self.len())
    }
}

#[cfg(all(test, feature = "arbitrary-int"))]
mod tests {
    use alloc::vec::Vec;

    use crate::{NarrowArray, Unsigned, UnsignedElement};

    /// The array's sum against a plain sum of its values, for lengths around
    /// block boundaries and all-ones data.
    fn check<T: UnsignedElement + core::fmt::Debug>(seed: u64) {
        let mut x = seed | 1;
        for n in [0usize, 1, 7, 63, 64, 65, 127, 128, 129, 1000, 4097] {
            let vals: Vec<T> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    T::from_raw_bits(T::Raw::from_u128_truncate(x as u128))
                })
                .collect();
            let a = NarrowArray::from_slice(&vals);
            let expect: u128 = vals.iter().map(|v| v.raw_bits().to_u128()).sum();
            assert_eq!(a.sum(), expect, "{} bits, {n} values", T::BITS);
            let ones = NarrowArray::from_slice(&alloc::vec![T::from_raw_bits(T::Raw::MAX); n]);
            let max = u128::MAX >> (128 - T::BITS);
            assert_eq!(ones.sum(), n as u128 * max, "{} bits, {n} ones", T::BITS);
        }
    }

    #[test]
    fn sum_matches_a_plain_sum() {
        use arbitrary_int::*;
        check::<bool>(1);
        check::<u2>(2);
        check::<u3>(3);
        check::<u4>(4);
        check::<u5>(5);
        check::<u6>(6);
        check::<u7>(7);
        check::<u8>(8);
        check::<u12>(12);
        check::<u16>(16);
        check::<u24>(24);
        check::<u32>(32);
        check::<u33>(33);
        check::<u63>(63);
        check::<u64>(64);
    }

    #[test]
    fn sum_of_2_pow_20_maximal_values_is_exact() {
        use arbitrary_int::*;
        let n = 1 << 20;
        assert_eq!(
            NarrowArray::from_slice(&alloc::vec![u5::new(31); n]).sum(),
            n as u128 * 31
        );
        assert_eq!(
            NarrowArray::from_slice(&alloc::vec![u64::MAX; n]).sum(),
            n as u128 * u64::MAX as u128
        );
        assert_eq!(
            NarrowArray::from_slice(&alloc::vec![true; n]).sum(),
            n as u128
        );
    }
}
