//! Trait implementations of [`NArray`]: comparison, formatting, conversion,
//! and the element and byte-cast traits.

use core::fmt;
use core::hash::{Hash, Hasher};

use super::NArray;
use crate::{BitElement, DeviceCopy, Error, SmallStorage, Storage};

impl<T: BitElement, const N: usize, S: Storage> Clone for NArray<T, N, S> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: BitElement, const N: usize, S: Storage> Copy for NArray<T, N, S> {}

/// Shows the values, like `[T; N]`.
///
/// ```
/// let a = bitpack::NArray::<bool, 3>::new([true, false, true]);
/// assert_eq!(format!("{a:?}"), "[true, false, true]");
/// ```
impl<T: BitElement + fmt::Debug, const N: usize, S: Storage> fmt::Debug for NArray<T, N, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Every lane `T::default()`.
///
/// ```
/// let a = bitpack::NArray::<u8, 4>::default();
/// assert_eq!(a.raw_bits(), 0);
/// ```
impl<T: BitElement + Default, const N: usize, S: Storage> Default for NArray<T, N, S> {
    #[inline]
    fn default() -> Self {
        Self::new([T::default(); N])
    }
}

/// Compares values, lane by lane (so `f32` lanes follow IEEE comparison).
///
/// ```
/// use bitpack::NArray;
///
/// assert_eq!(NArray::<bool, 4>::from_raw_bits(0xf5), NArray::new([true, false, true, false]));
/// assert_ne!(NArray::<f32, 1>::new([f32::NAN]), NArray::new([f32::NAN]));
/// ```
impl<T: BitElement + PartialEq, const N: usize, S: Storage> PartialEq for NArray<T, N, S> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        (0..N).all(|i| self.lane(i) == other.lane(i))
    }
}

impl<T: BitElement + Eq, const N: usize, S: Storage> Eq for NArray<T, N, S> {}

/// Hashes the values, lane by lane, consistently with `Eq`.
impl<T: BitElement + Hash, const N: usize, S: Storage> Hash for NArray<T, N, S> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for i in 0..N {
            self.lane(i).hash(state);
        }
    }
}

/// Packs the values; the same as [`NArray::new`].
///
/// ```
/// let a: bitpack::NArray<u8, 2> = [1u8, 2].into();
/// assert_eq!(a.raw_bits(), 0x0201);
/// ```
impl<T: BitElement, const N: usize, S: Storage> From<[T; N]> for NArray<T, N, S> {
    #[inline]
    fn from(values: [T; N]) -> Self {
        Self::new(values)
    }
}

/// Unpacks the values; the same as [`NArray::to_array`].
///
/// ```
/// let a = bitpack::NArray::<bool, 2>::from_raw_bits(0b10);
/// assert_eq!(<[bool; 2]>::from(a), [false, true]);
/// ```
impl<T: BitElement, const N: usize, S: Storage> From<NArray<T, N, S>> for [T; N] {
    #[inline]
    fn from(array: NArray<T, N, S>) -> Self {
        array.to_array()
    }
}

/// Packs a slice of exactly `N` values; the same as
/// [`NArray::try_from_slice`].
///
/// ```
/// use bitpack::NArray;
///
/// let a = NArray::<u8, 2>::try_from(&[1u8, 2][..])?;
/// assert_eq!(a.to_array(), [1, 2]);
/// assert!(NArray::<u8, 2>::try_from(&[1u8][..]).is_err());
/// # Ok::<(), bitpack::Error>(())
/// ```
impl<T: BitElement, const N: usize, S: Storage> TryFrom<&[T]> for NArray<T, N, S> {
    type Error = Error;

    #[inline]
    fn try_from(values: &[T]) -> Result<Self, Error> {
        Self::try_from_slice(values)
    }
}

/// An `NArray` whose storage fits 16 bytes is itself an element of `N *
/// T::BITS` bits, so vectors of vectors pack.
///
/// ```
/// use bitpack::{BitElement, NArray};
///
/// type Nibble = NArray<bool, 4>;
/// assert_eq!(<Nibble as BitElement>::BITS, 4);
/// let outer = NArray::<Nibble, 2, u8>::new([Nibble::from_raw_bits(0x3), Nibble::from_raw_bits(0xa)]);
/// assert_eq!(outer.raw_bits(), 0xa3);
/// ```
impl<T: BitElement, const N: usize, S: SmallStorage> BitElement for NArray<T, N, S> {
    const BITS: u32 = {
        let () = Self::LAYOUT_OK;
        Self::VALUE_BITS as u32
    };
    type Raw = S::Raw;

    #[inline(always)]
    fn raw_bits(self) -> S::Raw {
        NArray::raw_bits(self)
    }

    #[inline(always)]
    fn from_raw_bits(raw: S::Raw) -> Self {
        NArray::from_raw_bits(raw)
    }
}

// SAFETY:
// - `NArray` is `#[repr(transparent)]` over its storage `S` (its only other
//   field is a `PhantomData`, which is zero-sized with alignment 1), so it has
//   the layout of `S`: "the layout and ABI of the whole struct is guaranteed
//   to be the same as that one field" (the Reference, Type layout: the
//   transparent representation);
// - `S` is an unsigned integer or an array of one (`Storage` is sealed and
//   implemented only for those), so it holds no pointer and its bytes are its
//   value;
// - the value bits plus zero padding are a valid array on the device as on
//   the host: copying the bytes copies the value.
unsafe impl<T: BitElement, const N: usize, S: Storage> DeviceCopy for NArray<T, N, S> {}

// SAFETY:
// - `NArray` has the layout of `S` (`#[repr(transparent)]`, see above), and
//   `S: Pod` is `Zeroable`, so the all-zero bytes are a valid `S`;
// - all-zero storage is a valid `NArray`: its padding is zero, and each lane
//   is `T::from_raw_bits(0)`, which the `BitElement` contract makes a valid
//   value ("every pattern of `BITS` bits must be a valid value").
//
// `zeroed` is the constructor's, so it checks the storage rule like every
// other way to build an array (`NArray::<u8, 4, u16>::zeroed()` does not
// compile); arrays made by zeroing memory directly are checked at their
// first read or write.
unsafe impl<T: BitElement, const N: usize, S: Storage> bytemuck::Zeroable for NArray<T, N, S> {
    #[inline(always)]
    fn zeroed() -> Self {
        Self::zero()
    }
}

// SAFETY:
// - `NArray` has the layout of `S` (`#[repr(transparent)]`), and `S: Pod` "has
//   no padding bytes" and holds no uninitialized bytes (bytemuck's `Pod`
//   contract), so no byte of an `NArray` is uninitialized;
// - `NArray` is `Copy + 'static` (`T: 'static`, `S: 'static`) as `NoUninit`
//   requires, and has no interior mutability.
unsafe impl<T: BitElement, const N: usize, S: Storage> bytemuck::NoUninit for NArray<T, N, S> {}

/// Casts from bytes check that the padding is zero (`NArray` is not
/// `AnyBitPattern`: nonzero padding is not a valid `NArray`).
///
/// ```
/// use bitpack::NArray;
///
/// let bytes = [0x0fu8, 0xff];
/// let ok: &NArray<bool, 4> = bytemuck::checked::try_from_bytes(&bytes[..1]).unwrap();
/// assert_eq!(ok.raw_bits(), 0xf);
/// assert!(bytemuck::checked::try_from_bytes::<NArray<bool, 4>>(&bytes[1..]).is_err());
/// ```
// SAFETY:
// - `Bits = S` has the layout of `NArray` (`#[repr(transparent)]` over `S`),
//   as `CheckedBitPattern` requires ("`Self` must have the same layout as the
//   specified `Bits`");
// - `is_valid_bit_pattern` accepts exactly the storages whose padding bits
//   are zero, which are the valid arrays: every pattern of the value bits is
//   a valid lane by the `BitElement` contract.
unsafe impl<T: BitElement, const N: usize, S: Storage> bytemuck::CheckedBitPattern
    for NArray<T, N, S>
{
    type Bits = S;

    #[inline]
    fn is_valid_bit_pattern(bits: &S) -> bool {
        let () = Self::LAYOUT_OK;
        let (offset, width) = Self::padding();
        width == 0 || bits.get_bits(offset, width) == 0
    }
}
