//! The unsigned integers that carry bits: `u8`, `u16`, `u32`, `u64`, `u128`.

use core::fmt::{Binary, Debug, LowerHex};
use core::hash::Hash;
use core::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

mod sealed {
    pub trait Sealed {}
}

/// An unsigned integer that carries raw bits: `u8`, `u16`, `u32`, `u64` or
/// `u128`.
///
/// It is the type of [`BitElement::Raw`](crate::BitElement::Raw) and of the
/// words that packed storage is made of. The trait is sealed: these five are
/// the only carriers, because they are exactly LLVM's `i8`..`i128` and PTX's
/// `.b8`..`.b64` registers.
///
/// # Examples
///
/// ```
/// use bitpack::Unsigned;
///
/// assert_eq!(<u16 as Unsigned>::BITS, 16);
/// assert_eq!(u8::low_mask(3), 0b111);
/// assert_eq!(u32::from_u128_truncate(0x1_2345_6789), 0x2345_6789);
/// ```
pub trait Unsigned:
    sealed::Sealed
    + Copy
    + Eq
    + Ord
    + Hash
    + Default
    + Debug
    + Binary
    + LowerHex
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + bytemuck::Pod
{
    /// Width in bits.
    const BITS: u32;
    /// Width in bytes.
    const BYTES: usize;
    /// All bits clear.
    const ZERO: Self;
    /// All bits set.
    const MAX: Self;

    /// Zero-extends to `u128`.
    fn to_u128(self) -> u128;

    /// Truncates a `u128` to this width.
    fn from_u128_truncate(v: u128) -> Self;

    /// The value with the low `bits` bits set (`bits` may be 0 or the full width;
    /// larger values give all bits set).
    fn low_mask(bits: u32) -> Self;

    /// Number of set bits.
    fn count_ones(self) -> u32;
}

macro_rules! impl_unsigned {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Unsigned for $t {
            const BITS: u32 = <$t>::BITS;
            const BYTES: usize = core::mem::size_of::<$t>();
            const ZERO: Self = 0;
            const MAX: Self = <$t>::MAX;

            #[inline(always)]
            fn to_u128(self) -> u128 {
                self as u128
            }

            #[inline(always)]
            fn from_u128_truncate(v: u128) -> Self {
                v as $t
            }

            #[inline(always)]
            fn low_mask(bits: u32) -> Self {
                if bits >= <$t>::BITS { <$t>::MAX } else { ((1 as $t) << bits) - 1 }
            }

            #[inline(always)]
            fn count_ones(self) -> u32 {
                <$t>::count_ones(self)
            }
        }
    )*};
}

impl_unsigned!(u8, u16, u32, u64, u128);

/// The mask of the low `bits` bits of a `u128` (`bits` in `0..=128`).
#[inline(always)]
pub(crate) const fn mask_u128(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}
