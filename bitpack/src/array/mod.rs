//! [`NArray`]: `N` values packed into one storage value (the value layout).
//!
//! See the type's documentation for the layout; this module also holds its
//! iterator, [`IntoIter`].

use crate::error::LengthOf;
use core::marker::PhantomData;

use crate::unsigned::mask_u128;
use crate::{BitElement, Error, Lanes, Result, SmallStorage, Storage, Unsigned};

mod iter;
mod ops;
mod storage_rule;
mod traits;

pub use iter::IntoIter;
#[cfg(feature = "alloc")]
pub(crate) use iter::{IndexIter, Indexable, index_iter_impls};

/// `N` values of `T` packed LSB-first into one storage value `S`: the value
/// (register) layout.
///
/// Lane `i` occupies bits `[i * T::BITS, (i + 1) * T::BITS)` of the storage;
/// the bits above the last lane are padding and are always zero.
///
/// # Storage
///
/// `S` is chosen by the storage rule: `N * T::BITS` bits rounded up to whole
/// bytes `B`; if `B` is 1, 2, 4, 8 or 16 the storage is that unsigned integer,
/// otherwise an array of the widest unsigned integer that divides `B` (see
/// [`Storage`]). So `size_of::<NArray<T, N>>()` is always `ceil(N * T::BITS /
/// 8)`, and the default `S = <T as Lanes<N>>::Storage` names it for every
/// element type that implements [`Lanes`] (all built-ins, and every type with
/// `#[derive(BitElement)]`, for `N` in `1..=64`).
///
/// ```
/// use bitpack::NArray;
/// use core::mem::size_of;
///
/// assert_eq!(size_of::<NArray<bool, 8>>(), 1); // u8
/// assert_eq!(size_of::<NArray<bool, 9>>(), 2); // u16
/// assert_eq!(size_of::<NArray<bool, 17>>(), 3); // [u8; 3]
/// assert_eq!(size_of::<NArray<arbitrary_int::u6, 4>>(), 3); // [u8; 3]
/// assert_eq!(size_of::<NArray<u16, 3>>(), 6); // [u16; 3]
/// assert_eq!(size_of::<NArray<u8, 12>>(), 12); // [u32; 3]
/// assert_eq!(size_of::<NArray<u128, 2>>(), 32); // [u128; 2]
///
/// let _: NArray<u8, 12, [u32; 3]> = NArray::<u8, 12>::new([0; 12]);
/// ```
///
/// Stable Rust cannot compute `S` from a generic `T` and `N`, so an element
/// type without a [`Lanes`] impl (an `NArray` itself, or a generic type) names
/// the storage. A storage that breaks the rule does not compile (see
/// [`NArray::LAYOUT_OK`]), nor does an array of zero lanes:
///
/// ```compile_fail,E0277
/// // An NArray element has no default storage: name it.
/// fn nested(_: bitpack::NArray<bitpack::NArray<bool, 4>, 2>) {}
/// ```
///
/// ```compile_fail,E0277
/// // There is no storage of zero lanes.
/// fn empty(_: bitpack::NArray<bool, 0>) {}
/// ```
///
/// ```compile_fail,E0277
/// // Four bytes are a u32, never a [u8; 4].
/// fn four(_: bitpack::NArray<bool, 32, [u8; 4]>) {}
/// ```
///
/// ```
/// use bitpack::NArray;
///
/// // Two lanes of 4 bools: 8 bits in a u8.
/// type Nested = NArray<NArray<bool, 4>, 2, u8>;
/// let inner = NArray::<bool, 4>::new([true, false, false, true]);
/// let outer = Nested::new([inner, NArray::new([false; 4])]);
/// assert_eq!(outer.raw_bits(), 0b0000_1001);
/// assert_eq!(outer.get(0), Some(inner));
/// ```
///
/// # Register order
///
/// Where the storage fits a register, lane 0 sits in the low bits, which is
/// the order of PTX's packed conversions: `cvt.rn.satfinite.e4m3x2.f32 d, a,
/// b` puts `b` in the low byte of `d` and `a` in the high byte, and
/// `cvt.rn.satfinite.e2m1x2.f32 d, a, b` puts `b` in the low nibble. So lane
/// 0 of the `NArray` is operand `b`:
///
/// ```
/// use arbitrary_int::u4;
/// use bitpack::NArray;
///
/// // e4m3 codes: 2.0 is 0x40, 1.0 is 0x38.
/// let (a, b) = (0x40u8, 0x38u8);
/// let d: u16 = NArray::<u8, 2>::new([b, a]).raw_bits(); // cvt ... d, a, b
/// assert_eq!(d, 0x4038);
///
/// // e2m1 codes: 3.0 is 0x5, -0.5 is 0x9.
/// let (a, b) = (u4::new(0x5), u4::new(0x9));
/// let d: u8 = NArray::<u4, 2>::new([b, a]).raw_bits();
/// assert_eq!(d, 0x59); // d[7:4] = a, d[3:0] = b
/// ```
///
/// # Values in, values out
///
/// Constructors take values ([`new`](Self::new), `From<[T; N]>`,
/// [`try_from_slice`](Self::try_from_slice)). The storage enters only through
/// [`from_raw_bits`](Self::from_raw_bits) (or [`from_storage`](Self::from_storage)
/// for storages wider than 16 bytes), which clear the padding, so two arrays
/// with the same values are equal and hash equal whatever the word held.
/// [`map`](Self::map) keeps the result packed; elementwise arithmetic goes
/// through the compute layout `[T; N]` ([`to_array`](Self::to_array)).
///
/// ```
/// use bitpack::NArray;
///
/// let v = NArray::<bool, 8>::new([true, false, true, false, true, false, true, false]);
/// assert_eq!(v.raw_bits(), 0x55);
/// let not: NArray<bool, 8> = v.map(|b| !b);
/// assert_eq!(not.raw_bits(), 0xaa);
///
/// let sum: [u8; 4] = {
///     let (x, y) = (NArray::<u8, 4>::new([1, 2, 3, 4]).to_array(), [10, 20, 30, 40]);
///     core::array::from_fn(|i| x[i] + y[i])
/// };
/// assert_eq!(NArray::<u8, 4>::from(sum).raw_bits(), 0x2c_21_16_0b);
/// ```
///
/// # Bytes
///
/// An `NArray` is [`bytemuck::NoUninit`] and [`bytemuck::Zeroable`], and
/// [`DeviceCopy`](crate::DeviceCopy), but not [`bytemuck::AnyBitPattern`]:
/// nonzero padding is not a valid `NArray`. [`try_from_bytes`](Self::try_from_bytes)
/// (and `bytemuck::checked`, through [`bytemuck::CheckedBitPattern`]) checks
/// the padding.
///
/// On little-endian targets (x86_64, aarch64, nvptx64) the bytes of an
/// `NArray` are the dense LSB-first byte stream of its lanes, and for element
/// types that fill their bytes they are exactly the bytes of the `[T; N]`. On
/// big-endian targets the values and `raw_bits` are the same, but the bytes
/// of each storage word are in the target's order.
///
/// ```
/// use bitpack::NArray;
///
/// let values = [1.5f32, -2.0, 0.25];
/// let packed = NArray::<f32, 3>::new(values);
/// # #[cfg(target_endian = "little")]
/// assert_eq!(packed.as_bytes(), bytemuck::bytes_of(&values));
/// ```
#[repr(transparent)]
pub struct NArray<T: BitElement, const N: usize, S: Storage = <T as Lanes<N>>::Storage> {
    storage: S,
    _values: PhantomData<T>,
}

impl<T: BitElement, const N: usize, S: Storage> NArray<T, N, S> {
    /// The number of lanes, `N`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(bitpack::NArray::<bool, 12>::LEN, 12);
    /// ```
    pub const LEN: usize = N;

    /// The number of value bits, `N * T::BITS`.
    const VALUE_BITS: usize = N * T::BITS as usize;

    /// All lanes zero (and padding zero). Every constructor goes through here,
    /// which evaluates the layout check.
    #[inline(always)]
    pub(crate) fn zero() -> Self {
        let () = Self::LAYOUT_OK;
        Self {
            storage: bytemuck::Zeroable::zeroed(),
            _values: PhantomData,
        }
    }

    /// The raw bits of lane `i`, which must be in bounds.
    #[inline(always)]
    pub(crate) fn lane_raw(&self, i: usize) -> u128 {
        // Every read and write checks the rule too, so that an array built
        // without a constructor (`bytemuck::zeroed_box`, a cast) and a
        // storage outside the rule fails to compile instead of reading out of
        // its storage.
        let () = Self::LAYOUT_OK;
        debug_assert!(i < N);
        self.storage.get_bits(i * T::BITS as usize, T::BITS)
    }

    /// The value of lane `i`, which must be in bounds.
    #[inline(always)]
    pub(crate) fn lane(&self, i: usize) -> T {
        T::from_raw_bits(T::Raw::from_u128_truncate(self.lane_raw(i)))
    }

    /// Writes lane `i`, which must be in bounds.
    #[inline(always)]
    pub(crate) fn put(&mut self, i: usize, value: T) {
        let () = Self::LAYOUT_OK;
        debug_assert!(i < N);
        self.storage
            .set_bits(i * T::BITS as usize, T::BITS, value.raw_bits().to_u128());
    }

    /// The padding of `storage`: its bit offset and width (0 when none).
    #[inline(always)]
    fn padding() -> (usize, u32) {
        let total = 8 * S::BYTES;
        (Self::VALUE_BITS, (total - Self::VALUE_BITS) as u32)
    }

    /// Packs `N` values, lane 0 in the lowest bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let a = NArray::<u8, 3>::new([0x01, 0x02, 0x03]);
    /// assert_eq!(a.raw_bits(), 0x03_02_01);
    /// assert_eq!(a.storage(), [0x01, 0x02, 0x03]);
    /// ```
    #[inline]
    pub fn new(values: [T; N]) -> Self {
        let mut out = Self::zero();
        for (i, v) in values.into_iter().enumerate() {
            out.put(i, v);
        }
        out
    }

    /// Packs the values of a slice of exactly `N` values.
    ///
    /// # Errors
    ///
    /// [`Error::Length`] (naming `N` and the slice's length) when the slice
    /// does not hold `N` values.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let a = NArray::<bool, 3>::try_from_slice(&[true, true, false]).unwrap();
    /// assert_eq!(a.raw_bits(), 0b011);
    ///
    /// let err = NArray::<bool, 3>::try_from_slice(&[true]).unwrap_err();
    /// assert_eq!(err.to_string(), "an NArray of 3 lanes takes 3 values, got 1");
    /// ```
    pub fn try_from_slice(values: &[T]) -> Result<Self> {
        if values.len() != N {
            return Err(Error::Length {
                of: LengthOf::Lanes,
                expected: N,
                actual: values.len(),
            });
        }
        let mut out = Self::zero();
        for (i, v) in values.iter().enumerate() {
            out.put(i, *v);
        }
        Ok(out)
    }

    /// The array whose lanes are the value bits of `storage`; the padding
    /// bits of `storage` are cleared.
    ///
    /// This is [`from_raw_bits`](Self::from_raw_bits) for every storage,
    /// including those wider than 16 bytes that have no raw integer.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// // 17 bools in [u8; 3]: the top 7 bits are padding.
    /// let a = NArray::<bool, 17>::from_storage([0xff, 0xff, 0xff]);
    /// assert_eq!(a.storage(), [0xff, 0xff, 0x01]);
    /// assert_eq!(a, NArray::new([true; 17]));
    /// ```
    #[inline]
    pub fn from_storage(storage: S) -> Self {
        let mut out = Self::zero();
        out.storage = storage;
        let (offset, width) = Self::padding();
        if width > 0 {
            out.storage.set_bits(offset, width, 0);
        }
        out
    }

    /// The storage value (its padding bits are zero).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let a = NArray::<u16, 3>::new([1, 2, 3]);
    /// assert_eq!(a.storage(), [1u16, 2, 3]);
    /// ```
    #[inline(always)]
    pub fn storage(&self) -> S {
        let () = Self::LAYOUT_OK;
        self.storage
    }

    /// The value of lane `i`, or `None` when `i >= N`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let a = NArray::<bool, 3>::new([false, true, false]);
    /// assert_eq!(a.get(1), Some(true));
    /// assert_eq!(a.get(3), None);
    /// ```
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        (i < N).then(|| self.lane(i))
    }

    /// Sets lane `i` to `value`.
    ///
    /// # Errors
    ///
    /// [`Error::Index`] when `i >= N`; the array is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let mut a = NArray::<u8, 2>::new([1, 2]);
    /// a.set(1, 9)?;
    /// assert_eq!(a.to_array(), [1, 9]);
    /// assert_eq!(a.set(2, 0).unwrap_err().to_string(), "index 2 is out of bounds for length 2");
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn set(&mut self, i: usize, value: T) -> Result<()> {
        if i >= N {
            return Err(Error::Index { index: i, len: N });
        }
        self.put(i, value);
        Ok(())
    }

    /// A copy of the array with lane `i` set to `value`.
    ///
    /// # Errors
    ///
    /// [`Error::Index`] when `i >= N`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let a = NArray::<bool, 4>::new([false; 4]).with(0, true)?.with(3, true)?;
    /// assert_eq!(a.raw_bits(), 0b1001);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[inline]
    pub fn with(mut self, i: usize, value: T) -> Result<Self> {
        self.set(i, value)?;
        Ok(self)
    }

    /// The values, unpacked into the compute layout `[T; N]`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let a = NArray::<bool, 3>::from_raw_bits(0b110);
    /// assert_eq!(a.to_array(), [false, true, true]);
    /// ```
    #[inline]
    pub fn to_array(self) -> [T; N] {
        core::array::from_fn(|i| self.lane(i))
    }

    /// An iterator over the values, lane 0 first.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let a = NArray::<u8, 3>::new([3, 1, 2]);
    /// assert_eq!(a.iter().max(), Some(3));
    /// assert_eq!(a.iter().rev().collect::<Vec<_>>(), [2, 1, 3]);
    /// ```
    #[inline]
    pub fn iter(&self) -> IntoIter<T, N, S> {
        IntoIter::new(*self)
    }

    /// The array whose storage bytes are `bytes` (in memory order), checking
    /// the length and that the padding is zero.
    ///
    /// # Errors
    ///
    /// [`Error::ByteCount`] when `bytes` is not exactly `size_of::<Self>()`
    /// bytes long, and [`Error::NonZeroPadding`] when a bit past the last lane
    /// is set.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let a = NArray::<bool, 12>::try_from_bytes(&[0xff, 0x0f])?;
    /// assert_eq!(a, NArray::new([true; 12]));
    ///
    /// let err = NArray::<bool, 12>::try_from_bytes(&[0xff, 0x1f]).unwrap_err();
    /// assert_eq!(err, bitpack::Error::NonZeroPadding { byte: 1 });
    /// let err = NArray::<bool, 12>::try_from_bytes(&[0xff]).unwrap_err();
    /// assert_eq!(err.to_string(), "NArray::try_from_bytes: the array is 2 bytes, got 1");
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn try_from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut out = Self::zero();
        if bytes.len() != S::BYTES {
            return Err(Error::ByteCount {
                what: "NArray::try_from_bytes",
                expected: S::BYTES,
                actual: bytes.len(),
            });
        }
        bytemuck::bytes_of_mut(&mut out.storage).copy_from_slice(bytes);
        let (offset, width) = Self::padding();
        if width > 0 && out.storage.get_bits(offset, width) != 0 {
            return Err(Error::NonZeroPadding { byte: offset / 8 });
        }
        Ok(out)
    }

    /// The storage bytes in memory order (on little-endian targets, the
    /// dense LSB-first byte stream of the lanes).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let a = NArray::<bool, 12>::new([true; 12]);
    /// # #[cfg(target_endian = "little")]
    /// assert_eq!(a.as_bytes(), [0xff, 0x0f]);
    /// ```
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        let () = Self::LAYOUT_OK;
        bytemuck::bytes_of(&self.storage)
    }
}

impl<T: BitElement, const N: usize, S: SmallStorage> NArray<T, N, S> {
    /// The storage as the narrowest unsigned integer of its bytes, lane 0 in
    /// the low bits (the same as [`BitElement::raw_bits`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let v = NArray::<bool, 8>::new([true, false, true, false, true, false, true, false]);
    /// assert_eq!(v.raw_bits(), 0x55);
    ///
    /// // 4 lanes of 6 bits in a [u8; 3]: the raw integer is a u32.
    /// let w = NArray::<arbitrary_int::u6, 4>::from_raw_bits(0x00ab_cdef);
    /// assert_eq!(w.raw_bits(), 0x00ab_cdef);
    /// ```
    #[inline]
    pub fn raw_bits(self) -> S::Raw {
        let () = Self::LAYOUT_OK;
        self.storage.to_raw()
    }

    /// The array whose lanes are the low `N * T::BITS` bits of `raw`; higher
    /// bits are ignored, so padding is always zero (the same as
    /// [`BitElement::from_raw_bits`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let a = NArray::<bool, 8>::from_raw_bits(0x0f);
    /// assert_eq!(a, NArray::new([true, true, true, true, false, false, false, false]));
    ///
    /// // Bits above the 12 value bits are dropped: equal values, equal arrays.
    /// assert_eq!(NArray::<bool, 12>::from_raw_bits(0xf123), NArray::from_raw_bits(0x0123));
    /// ```
    #[inline]
    pub fn from_raw_bits(raw: S::Raw) -> Self {
        let mut out = Self::zero();
        let masked = raw.to_u128() & mask_u128(Self::VALUE_BITS as u32);
        out.storage = S::from_raw(S::Raw::from_u128_truncate(masked));
        out
    }
}
