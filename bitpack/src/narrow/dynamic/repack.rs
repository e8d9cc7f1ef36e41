//! The width and layout changes of a [`DynNarrowArray`]: [`widen`],
//! [`narrow_to`], [`min_width`] and [`to_layout`], each a walk of
//! [`Raw::repack`](crate::narrow::raw::Raw::repack) or a chunked scan of the
//! values.
//!
//! [`widen`]: DynNarrowArray::widen
//! [`narrow_to`]: DynNarrowArray::narrow_to
//! [`min_width`]: DynNarrowArray::min_width
//! [`to_layout`]: DynNarrowArray::to_layout

use alloc::vec;
use core::marker::PhantomData;

use super::{DynNarrowArray, bits_needed, check_width};
use crate::kernels::stream;
use crate::narrow::Packing;
use crate::narrow::raw::Words;
use crate::shape::packing::same_as_dense;
use crate::{Error, Result};

/// Values per stack chunk when scanning (1 KiB of `u64`s).
const CHUNK: usize = 128;

impl<L: Packing> DynNarrowArray<L> {
    /// Unpacks the values a chunk at a time through a stack buffer and
    /// returns the first `Some` that `f` gives for a chunk.
    fn scan<R>(&self, mut f: impl FnMut(&[u64]) -> Option<R>) -> Option<R> {
        let mut buf = [0u64; CHUNK];
        let mut i = 0;
        while i < self.len {
            let n = (self.len - i).min(CHUNK);
            stream::unpack(L::WORD_ALIGNED, self.width, &self.words, i, &mut buf[..n]);
            if let Some(r) = f(&buf[..n]) {
                return Some(r);
            }
            i += n;
        }
        None
    }

    /// The narrowest width that holds every value (1 when empty).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::DynNarrowArray::from_slice(16, &[3, 9])?;
    /// assert_eq!(a.min_width(), 4);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn min_width(&self) -> u32 {
        let mut or = 0u64;
        self.scan(|chunk| {
            or |= chunk.iter().fold(0, |a, &v| a | v);
            None::<()>
        });
        bits_needed(or)
    }

    /// Repacks in place to at least `new_width` bits: a no-op when the width
    /// already is that wide, otherwise every value moves to the new width,
    /// from the last to the first, through a 1 KiB stack buffer (O(n), no
    /// unpacked copy).
    ///
    /// # Errors
    ///
    /// [`Error::Width`] when `new_width` is not in `1..=64`, and
    /// [`Error::Alloc`] when the new word count overflows `usize` or its
    /// allocation fails; the array is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut a = bitpack::DynNarrowArray::from_slice(3, &[7, 1, 4])?;
    /// a.widen(12)?;
    /// assert_eq!(a.width(), 12);
    /// assert_eq!(a.to_vec(), [7, 1, 4]);
    /// a.widen(5)?; // already wider
    /// assert_eq!(a.width(), 12);
    /// assert!(a.widen(65).is_err());
    /// assert_eq!(a.width(), 12);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn widen(&mut self, new_width: u32) -> Result<()> {
        check_width(new_width)?;
        if new_width <= self.width {
            return Ok(());
        }
        let (from, to) = (self.raw(), self.raw().with_bits(new_width));
        // The stream's end only moves up, so the bits past it stay zero.
        to.try_resize(&mut self.words, self.len)?;
        from.repack(to, Words::InPlace(&mut self.words), self.len);
        self.width = new_width;
        Ok(())
    }

    /// Repacks in place to `new_width` bits, narrower or wider, after
    /// checking that every value fits.
    ///
    /// # Errors
    ///
    /// [`Error::Width`] when `new_width` is not in `1..=64`,
    /// [`Error::ValueTooWide`] naming the first value that needs more bits;
    /// the array is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{DynNarrowArray, Error};
    ///
    /// let mut a = DynNarrowArray::from_slice(32, &[5, 9, 2])?;
    /// a.narrow_to(a.min_width())?;
    /// assert_eq!(a.width(), 4);
    /// assert_eq!(a.to_vec(), [5, 9, 2]);
    /// assert_eq!(a.narrow_to(3).unwrap_err(), Error::ValueTooWide { value: 9, bits: 3 });
    /// # Ok::<(), Error>(())
    /// ```
    pub fn narrow_to(&mut self, new_width: u32) -> Result<()> {
        check_width(new_width)?;
        if new_width >= self.width {
            return self.widen(new_width);
        }
        let too_wide = |c: &[u64]| c.iter().find(|&&v| bits_needed(v) > new_width).copied();
        if let Some(v) = self.scan(too_wide) {
            return Err(Error::ValueTooWide {
                value: v.into(),
                bits: new_width,
            });
        }
        let (from, to) = (self.raw(), self.raw().with_bits(new_width));
        from.repack(to, Words::InPlace(&mut self.words), self.len);
        to.cut(&mut self.words, self.len);
        self.width = new_width;
        Ok(())
    }

    /// The same values, width and shape in layout `L2`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{DynNarrowArray, WordAligned};
    ///
    /// let a = DynNarrowArray::from_slice(7, &[100; 10])?;
    /// let b = a.to_layout::<WordAligned>();
    /// assert_eq!(b.as_words().len(), 2); // 9 values per word
    /// assert_eq!(b.to_vec(), a.to_vec());
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn to_layout<L2: Packing>(&self) -> DynNarrowArray<L2> {
        let mut out = DynNarrowArray::<L2> {
            words: self.words.clone(),
            len: self.len,
            width: self.width,
            dims: self.dims.clone(),
            _layout: PhantomData,
        };
        if L::WORD_ALIGNED != L2::WORD_ALIGNED && !same_as_dense(self.width) {
            let to = out.raw();
            out.words = vec![0; to.words_for(self.len)];
            let words = Words::Copy(&self.words, &mut out.words);
            self.raw().repack(to, words, self.len);
        }
        out
    }
}
