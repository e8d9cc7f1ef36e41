//! Narrow integers as elements: `arbitrary_int`'s two's-complement
//! `i1`..`i127` and unsigned `u1`..`u127`, with checked and wrapping
//! conversions from wide integers.
//!
//! `i4` is ml_dtypes' `int4` (and `u4` its `uint4`; likewise `int1`,
//! `int2`, `uint1`, `uint2`): a value of `BITS` bits, two's complement for
//! the signed types. DLPack has no code of its own for them: they are
//! `kDLInt`/`kDLUInt` with `bits` 1..7, and PyTorch calls the 1..7-bit ones
//! `torch.int1`..`torch.int7` and `torch.uint1`..`torch.uint7`.
//!
//! Out-of-range integers: ml_dtypes **wraps** (keeps the low `BITS` bits of
//! the two's-complement input: `int4(8)` is `-8`, `uint4(-1)` is 15);
//! [`NarrowInt::wrapping_from_i128`] does the same, and
//! [`NarrowInt::try_from_i128`] returns [`Error::OutOfRange`] instead.

use crate::{BitElement, Error, Result};

/// A narrow integer element: its range, and conversions from and to
/// `i128` (which holds every value of every width up to 127 bits).
///
/// # Examples
///
/// ```
/// use arbitrary_int::{i4, u2};
/// use bitpack::NarrowInt;
///
/// assert_eq!(i4::try_from_i128(-8)?.to_i128(), -8);
/// assert!(i4::try_from_i128(8).is_err());
/// assert_eq!(i4::wrapping_from_i128(8).to_i128(), -8); // as ml_dtypes
/// assert_eq!(u2::wrapping_from_i128(-1).to_i128(), 3);
/// # Ok::<(), bitpack::Error>(())
/// ```
pub trait NarrowInt: BitElement {
    /// Whether the values are two's complement.
    const SIGNED: bool;
    /// The smallest value: `-2^(BITS - 1)`, or 0.
    const MIN_I128: i128 = if Self::SIGNED {
        -(1i128 << (Self::BITS - 1))
    } else {
        0
    };
    /// The largest value: `2^(BITS - 1) - 1`, or `2^BITS - 1`.
    const MAX_I128: i128 = if Self::SIGNED {
        (1i128 << (Self::BITS - 1)) - 1
    } else {
        ((1u128 << Self::BITS) - 1) as i128
    };

    /// The value as an `i128`, exactly.
    fn to_i128(self) -> i128 {
        let raw = crate::Unsigned::to_u128(self.raw_bits());
        let unused = 128 - Self::BITS;
        if Self::SIGNED {
            ((raw << unused) as i128) >> unused
        } else {
            raw as i128
        }
    }

    /// The low `BITS` bits of `x`'s two's complement: ml_dtypes' cast.
    fn wrapping_from_i128(x: i128) -> Self {
        Self::from_raw_bits(crate::Unsigned::from_u128_truncate(x as u128))
    }

    /// `x`, if it is in `MIN_I128..=MAX_I128`.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfRange`] naming `x`, the width and the range.
    fn try_from_i128(x: i128) -> Result<Self> {
        if x < Self::MIN_I128 || x > Self::MAX_I128 {
            return Err(Error::OutOfRange {
                value: x,
                bits: Self::BITS,
                signed: Self::SIGNED,
            });
        }
        Ok(Self::wrapping_from_i128(x))
    }
}

macro_rules! native {
    ($($t:ty: $signed:literal),*) => {$(
        impl NarrowInt for $t {
            const SIGNED: bool = $signed;
        }
    )*};
}

native!(u8: false, u16: false, u32: false, u64: false, i8: true, i16: true, i32: true, i64: true);

#[cfg(feature = "arbitrary-int")]
mod impls {
    use super::NarrowInt;
    use arbitrary_int::{Int, UInt};

    impl<T, const B: usize> NarrowInt for UInt<T, B>
    where
        T: arbitrary_int::traits::UnsignedInteger + arbitrary_int::traits::BuiltinInteger,
        UInt<T, B>: crate::BitElement,
    {
        const SIGNED: bool = false;
    }

    impl<T, const B: usize> NarrowInt for Int<T, B>
    where
        T: arbitrary_int::traits::SignedInteger + arbitrary_int::traits::BuiltinInteger,
        Int<T, B>: crate::BitElement,
    {
        const SIGNED: bool = true;
    }
}
