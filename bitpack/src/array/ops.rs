//! Operations that make new arrays: `map` and `reinterpret`.

use super::NArray;
use crate::error::LengthOf;
use crate::{BitElement, Error, Lanes, Result, Storage};

impl<T: BitElement, const N: usize, S: Storage> NArray<T, N, S> {
    /// Applies `f` to every value, lane 0 first, and packs the results: the
    /// result stays in the value layout, with the default storage of `U`.
    ///
    /// For element types without a default storage (an `NArray` itself), use
    /// [`map_with_storage`](Self::map_with_storage).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let v = NArray::<bool, 8>::new([true, false, true, false, true, false, true, false]);
    /// let inverted: NArray<bool, 8> = v.map(|b| !b);
    /// assert_eq!(inverted.raw_bits(), 0xaa);
    ///
    /// let widened = NArray::<u8, 2>::new([0xff, 0x01]).map(|x| u16::from(x) * 2);
    /// assert_eq!(widened.to_array(), [0x1fe, 0x2]);
    /// ```
    #[inline]
    pub fn map<U: Lanes<N>, F: FnMut(T) -> U>(self, f: F) -> NArray<U, N> {
        self.map_with_storage(f)
    }

    /// [`map`](Self::map) into an array whose storage `S2` is named by the
    /// caller (checked against the storage rule at compile time).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// type Pairs = NArray<NArray<bool, 2>, 4, u8>;
    /// let p = Pairs::from_raw_bits(0b11_10_01_00);
    /// let swapped: Pairs = p.map_with_storage(|pair| NArray::new([pair.to_array()[1], pair.to_array()[0]]));
    /// assert_eq!(swapped.raw_bits(), 0b11_01_10_00);
    /// ```
    #[inline]
    pub fn map_with_storage<U: BitElement, S2: Storage, F: FnMut(T) -> U>(
        self,
        mut f: F,
    ) -> NArray<U, N, S2> {
        let mut out = NArray::<U, N, S2>::zero();
        for i in 0..N {
            out.put(i, f(self.lane(i)));
        }
        out
    }

    /// The same bits seen as `M` values of `U`: lane boundaries move, no bit
    /// changes.
    ///
    /// # Errors
    ///
    /// [`Error::Reinterpret`] when `N * T::BITS` is not a multiple of
    /// `U::BITS` (the message names `N` and both widths), and
    /// [`Error::Length`] when it is but `M` is not `N * T::BITS / U::BITS`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NArray;
    ///
    /// let v = NArray::<u8, 2>::new([0x21, 0x43]);
    /// let w = v.reinterpret::<u16, 1>()?;
    /// assert_eq!(w.to_array(), [0x4321]);
    /// assert_eq!(v.reinterpret::<bool, 16>()?.get(0), Some(true));
    ///
    /// let three = NArray::<u8, 3>::new([0x01, 0x02, 0x03]);
    /// let err = three.reinterpret::<u16, 1>().unwrap_err();
    /// assert!(err.to_string().starts_with("cannot reinterpret 3 8-bit values as 16-bit values"));
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn reinterpret<U: Lanes<M>, const M: usize>(self) -> Result<NArray<U, M>> {
        let bits = Self::VALUE_BITS;
        let to_bits = U::BITS as usize;
        if !bits.is_multiple_of(to_bits) {
            return Err(Error::Reinterpret {
                count: N,
                from_bits: T::BITS,
                to_bits: U::BITS,
            });
        }
        if bits / to_bits != M {
            return Err(Error::Length {
                of: LengthOf::ReinterpretLanes,
                expected: bits / to_bits,
                actual: M,
            });
        }
        let mut out = NArray::<U, M>::zero();
        let mut offset = 0;
        while offset < bits {
            let width = (bits - offset).min(128) as u32;
            let chunk = self.storage.get_bits(offset, width);
            out.storage.set_bits(offset, width, chunk);
            offset += width as usize;
        }
        Ok(out)
    }
}
