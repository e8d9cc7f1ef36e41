//! The dense-only API of [`NarrowArray`]: its chunk constants and its byte
//! stream in and out (`from_bytes`, `as_bytes`, `into_bytes`), which exist
//! for the default layout, [`Dense`](crate::Dense), only. The checks and
//! copies of bytes are those of `bytes.rs`.

use alloc::vec::Vec;

use super::{NarrowArray, bulk, bytes};
#[cfg(doc)]
use crate::Error;
use crate::{BitElement, Result};

/// `gcd(a, 8)` for `a >= 1`.
const fn gcd8(a: u32) -> u32 {
    let (mut x, mut y) = (a, 8);
    while y != 0 {
        let t = x % y;
        x = y;
        y = t;
    }
    x
}

impl<T: BitElement> NarrowArray<T> {
    /// Values per chunk: the fewest values that fill whole bytes, `8 /
    /// gcd(T::BITS, 8)` (8 for `bool`, 2 for 4- and 12-bit values, 4 for
    /// 6-bit values, 1 for types that fill their bytes).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    ///
    /// assert_eq!(NarrowArray::<bool>::CHUNK_LEN, 8);
    /// assert_eq!(NarrowArray::<arbitrary_int::u6>::CHUNK_LEN, 4);
    /// assert_eq!(NarrowArray::<arbitrary_int::u12>::CHUNK_LEN, 2);
    /// assert_eq!(NarrowArray::<u16>::CHUNK_LEN, 1);
    /// ```
    pub const CHUNK_LEN: usize = (8 / gcd8(T::BITS)) as usize;

    /// Bytes per chunk: `lcm(T::BITS, 8) / 8`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    ///
    /// assert_eq!(NarrowArray::<bool>::CHUNK_BYTES, 1);
    /// assert_eq!(NarrowArray::<arbitrary_int::u6>::CHUNK_BYTES, 3);
    /// assert_eq!(NarrowArray::<arbitrary_int::u12>::CHUNK_BYTES, 3);
    /// assert_eq!(NarrowArray::<u16>::CHUNK_BYTES, 2);
    /// ```
    pub const CHUNK_BYTES: usize = (T::BITS / gcd8(T::BITS)) as usize;

    /// Packs plain bytes: the dense stream of `len` values (the reverse of
    /// [`as_bytes`](Self::as_bytes)).
    ///
    /// `bytes` must hold at least `ceil(len * T::BITS / 8)` bytes. Bits past
    /// the last value are padding and must be zero, including any bytes past
    /// that length (so a zero-padded buffer, such as Arrow's 64-byte padded
    /// bitmaps, is accepted as is).
    ///
    /// # Errors
    ///
    /// [`Error::TooFewBytes`] when `bytes` is too short (with `needed`
    /// saturated at `usize::MAX` when `len * T::BITS` overflows), and
    /// [`Error::NonZeroPadding`] (naming the first byte with a set padding
    /// bit) when a padding bit is set.
    ///
    /// # Examples
    ///
    /// ```
    /// use arbitrary_int::u4;
    /// use bitpack::{Error, NarrowArray};
    ///
    /// let a = NarrowArray::<u4>::from_bytes(&[0x21, 0x03], 3)?;
    /// assert_eq!(a.to_vec(), [u4::new(1), u4::new(2), u4::new(3)]);
    ///
    /// let e = NarrowArray::<u4>::from_bytes(&[0x21], 3).unwrap_err();
    /// assert_eq!(
    ///     e,
    ///     Error::TooFewBytes { what: "NarrowArray::from_bytes", values: 3, bits: 4, needed: 2, actual: 1 },
    /// );
    /// assert_eq!(e.to_string(), "NarrowArray::from_bytes: 3 values of 4 bits need 2 bytes, got 1");
    /// assert_eq!(
    ///     NarrowArray::<u4>::from_bytes(&[0x21, 0x43], 3).unwrap_err(),
    ///     Error::NonZeroPadding { byte: 1 },
    /// );
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8], len: usize) -> Result<Self> {
        let words = bytes::words_from_stream("NarrowArray::from_bytes", bytes, len, T::BITS)?;
        Ok(Self::from_parts(words, len, None))
    }

    /// The dense byte stream: exactly `ceil(len * T::BITS / 8)` bytes, padding
    /// bits zero. No copy.
    ///
    /// # Examples
    ///
    /// ```
    /// use arbitrary_int::u6;
    /// use bitpack::NarrowArray;
    ///
    /// // Four 6-bit values fill three bytes.
    /// let a: NarrowArray<u6> = [1, 2, 3, 4].into_iter().map(u6::new).collect();
    /// assert_eq!(a.as_bytes(), [0x81, 0x30, 0x10]);
    /// ```
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &bulk::word_bytes(&self.words)[..Self::RAW.stream_bytes(self.len)]
    }

    /// The dense byte stream, mutably (the caller keeps padding bits zero).
    /// The words hold the stream in memory order on every target (each is
    /// stored little-endian), so their bytes are the stream's.
    #[inline]
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        let n = Self::RAW.stream_bytes(self.len);
        &mut bytemuck::cast_slice_mut::<u64, u8>(&mut self.words)[..n]
    }

    /// The dense byte stream, copied into a `Vec<u8>` (the same bytes as
    /// [`as_bytes`](Self::as_bytes)).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[true, true, false, true]);
    /// assert_eq!(a.into_bytes(), [0b1011]);
    /// ```
    pub fn into_bytes(self) -> Vec<u8> {
        self.as_bytes().to_vec()
    }

    /// A dense array of `len` values from the first bytes of a packed
    /// stream, with any bits past the last value cleared (a foreign
    /// producer need not zero them), or [`Error::Alloc`]. `bytes` holds at
    /// least the stream's `ceil(len * BITS / 8)` bytes.
    #[cfg(feature = "dlpack")]
    pub(crate) fn try_from_stream_masked(bytes: &[u8], len: usize) -> Result<Self> {
        let mut a = Self::try_zeroed_in(len)?;
        let bits = len * T::BITS as usize;
        crate::kernels::bits::bytes_to_words(&bytes[..bits.div_ceil(8)], &mut a.words);
        crate::kernels::bits::clear_from(&mut a.words, bits);
        Ok(a)
    }
}
