//! The storage-rule assertion of [`NArray`] (`LAYOUT_OK`): kept in its own
//! file so that the compile-fail snapshots that point at it stay stable.

use super::NArray;
use crate::{BitElement, Storage};

/// Whether `bytes` is the storage size of `n` values of `bits` bits:
/// `n >= 1` and `bytes == ceil(n * bits / 8)`.
const fn storage_ok(n: usize, bits: u32, bytes: usize) -> bool {
    if n == 0 || bits == 0 || bits > 128 {
        return false;
    }
    match n.checked_mul(bits as usize) {
        Some(total) => total.div_ceil(8) == bytes,
        None => false,
    }
}

impl<T: BitElement, const N: usize, S: Storage> NArray<T, N, S> {
    /// The storage-rule check, evaluated at compile time.
    ///
    /// Every constructor of an `NArray` (and its [`BitElement::BITS`]) uses
    /// this constant, so naming a storage `S` that breaks the rule fails to
    /// build: `S` must take exactly `ceil(N * T::BITS / 8)` bytes, and `N`
    /// must be at least 1. Since [`Storage`] is implemented only for the types
    /// the rule picks (one per byte count), the right size means the right
    /// type. A type outside the rule (`[u8; 4]`) already fails the `Storage`
    /// bound.
    ///
    /// Like every post-monomorphization check, it fires when the array is
    /// built (`cargo build`, `cargo test`), not under `cargo check`; a free
    /// constant forces it under `cargo check` too:
    /// `const _: () = NArray::<bool, 9, u16>::LAYOUT_OK;`.
    ///
    /// # Examples
    ///
    /// The right storage builds:
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// const _: () = NArray::<bool, 9, u16>::LAYOUT_OK;
    /// let a = NArray::<bool, 9, u16>::new([true; 9]);
    /// assert_eq!(a.raw_bits(), 0x1ff);
    /// ```
    ///
    /// Eight bools take one byte, so a `u16` storage is rejected:
    ///
    /// ```compile_fail,E0080
    /// use bitpack::NArray;
    ///
    /// let a = NArray::<bool, 8, u16>::new([true; 8]);
    /// # let _ = a;
    /// ```
    ///
    /// So is an empty array:
    ///
    /// ```compile_fail,E0080
    /// const _: () = bitpack::NArray::<bool, 0, u8>::LAYOUT_OK;
    /// ```
    pub const LAYOUT_OK: () = assert!(
        storage_ok(N, T::BITS, S::BYTES),
        "NArray<T, N, S>: S breaks the storage rule: it must take ceil(N * T::BITS / 8) bytes, \
         with N >= 1 (leave S out to get the rule's storage)"
    );
}
