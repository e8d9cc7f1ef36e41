//! `reinterpret` and the typed views of a [`NarrowArray`].

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use core::fmt;
use core::marker::PhantomData;

use super::NarrowArray;
use crate::{BitElement, Error, Result};

/// The error of [`NarrowArray::reinterpret`]: why the bits could not be seen
/// as the new type, and the array, returned unchanged. Its message names the
/// element as the crate does (`NarrowArray<u4>: ...`). It converts into a
/// [`bitpack::Error`](crate::Error) (dropping the array), so `?` works in
/// functions that return [`bitpack::Result`](crate::Result).
///
/// # Examples
///
/// ```
/// use bitpack::NarrowArray;
/// use bitpack::arbitrary_int::u4;
///
/// let a = NarrowArray::from_slice(&[1u8, 2, 3]);
/// let err = a.reinterpret::<u16>().unwrap_err();
/// assert!(err.to_string().starts_with("NarrowArray<u8>: cannot reinterpret 3 8-bit values as 16-bit values"));
/// let nibbles: NarrowArray<u4> = (1..=3).map(u4::new).collect();
/// let e = nibbles.reinterpret::<u8>().unwrap_err();
/// assert_eq!(e.to_string(), "NarrowArray<u4>: cannot reinterpret 3 4-bit values as 8-bit values \
///     (12 bits is not a multiple of 8)");
/// let a = err.into_array(); // nothing was lost
/// assert_eq!(a.to_vec(), [1, 2, 3]);
/// ```
pub struct ReinterpretError<T: BitElement> {
    error: Error,
    array: NarrowArray<T>,
}

impl<T: BitElement> ReinterpretError<T> {
    /// What went wrong.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::{Error, NarrowArray};
    ///
    /// let err = NarrowArray::from_slice(&[1u8]).reinterpret::<u16>().unwrap_err();
    /// assert_eq!(err.error(), &Error::Reinterpret { count: 1, from_bits: 8, to_bits: 16 });
    /// ```
    pub fn error(&self) -> &Error {
        &self.error
    }

    /// The array that was to be reinterpreted, unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = bitpack::NarrowArray::from_slice(&[true; 3]);
    /// let back = a.clone().reinterpret::<u8>().unwrap_err().into_array();
    /// assert_eq!(back, a);
    /// ```
    pub fn into_array(self) -> NarrowArray<T> {
        self.array
    }
}

impl<T: BitElement> fmt::Debug for ReinterpretError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReinterpretError")
            .field("element", &element_name::<T>())
            .field("error", &self.error)
            .field("shape", &self.array.shape())
            .finish_non_exhaustive()
    }
}

/// `NarrowArray<u4>: ` and the error's message: the element by the name
/// the crate uses for it (`u4`, `E2M1`, `f16`), not its full type path.
impl<T: BitElement> fmt::Display for ReinterpretError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NarrowArray<{}>: {}", element_name::<T>(), self.error)
    }
}

/// The name of `T` as the crate's docs write it: every path cut to its last
/// segment (`E2M1`, `f16`, `NArray<u4, 2>`), and `arbitrary_int`'s
/// `UInt<u8, 4>` and `Int<i8, 3>` written as their aliases `u4` and `i3`.
pub(crate) fn element_name<T: ?Sized>() -> String {
    short_type_name(core::any::type_name::<T>())
}

fn short_type_name(full: &str) -> String {
    // Paths cut to their last segment.
    let mut short = String::with_capacity(full.len());
    let mut ident = String::new();
    for c in full.chars().chain(core::iter::once(' ')) {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            ident.push(c);
        } else {
            short.push_str(ident.rsplit("::").next().unwrap_or(""));
            ident.clear();
            if c != ' ' || !short.is_empty() {
                short.push(c);
            }
        }
    }
    short.truncate(short.trim_end().len());
    // `UInt<uN, W>` and `Int<iN, W>` as `uW` and `iW`.
    let mut out = String::with_capacity(short.len());
    let mut rest = short.as_str();
    while let Some(at) = rest.find("Int<") {
        let (head, tail) = rest.split_at(at);
        let unsigned = head.ends_with('U');
        let head = head.strip_suffix('U').unwrap_or(head);
        let starts_word = !head.ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let alias = tail[4..].split_once('>').and_then(|(args, after)| {
            let (carrier, width) = args.split_once(", ")?;
            let kind = if unsigned { 'u' } else { 'i' };
            let ok = carrier.starts_with(kind) && width.parse::<u32>().is_ok();
            ok.then(|| (format!("{kind}{width}"), after))
        });
        match alias.filter(|_| starts_word) {
            Some((name, after)) => {
                out.push_str(head);
                out.push_str(&name);
                rest = after;
            }
            None => {
                let keep = at + 4;
                out.push_str(&rest[..keep]);
                rest = &rest[keep..];
            }
        }
    }
    out.push_str(rest);
    out
}

impl<T: BitElement> core::error::Error for ReinterpretError<T> {}

/// Keeps the [`Error`] and drops the array, so `?` works in functions that
/// return [`bitpack::Result`](crate::Result).
///
/// ```
/// fn words(a: bitpack::NarrowArray<u8>) -> bitpack::Result<Vec<u16>> {
///     Ok(a.reinterpret::<u16>()?.to_vec()) // a ReinterpretError becomes an Error
/// }
/// assert_eq!(words(bitpack::NarrowArray::from_slice(&[1, 2])).unwrap(), [0x0201]);
/// assert!(matches!(
///     words(bitpack::NarrowArray::from_slice(&[1])),
///     Err(bitpack::Error::Reinterpret { count: 1, from_bits: 8, to_bits: 16 })
/// ));
/// ```
impl<T: BitElement> From<ReinterpretError<T>> for Error {
    fn from(err: ReinterpretError<T>) -> Error {
        err.error
    }
}

impl<T: BitElement> NarrowArray<T> {
    /// The length and shape of the array seen as values of `U`, or why it
    /// cannot be.
    fn reinterpreted_shape<U: BitElement>(&self) -> Result<(usize, Option<Box<[usize]>>)> {
        crate::shape::reinterpreted::<T, U>(self.shape(), &self.dims, self.len)
    }

    /// The same bits seen as values of `U`, in the same buffer (no copy): the
    /// innermost dimension is rescaled so that every row keeps its bits.
    ///
    /// # Errors
    ///
    /// An [`Error::Reinterpret`] (naming the row length, which is `len` for a
    /// 1-d array, and both widths) when a row's bits are not a whole number
    /// of `U` values, even if the whole array's bits would be; an
    /// [`Error::Invalid`] for a 0-d array and a `U` of another width. The
    /// error gives the array back unchanged
    /// ([`ReinterpretError::into_array`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    ///
    /// let a = NarrowArray::from_slice(&[0x21u8, 0x43]);
    /// let b = a.reinterpret::<u16>()?;
    /// assert_eq!(b.to_vec(), [0x4321]);
    /// let bits = b.reinterpret::<bool>()?;
    /// assert_eq!(bits.len(), 16);
    ///
    /// // Two rows of three bytes: 48 bits in all, but 24 per row.
    /// let mut m = NarrowArray::from_slice(&[1u8, 2, 3, 4, 5, 6]);
    /// m.reshape(&[2, 3])?;
    /// let err = m.reinterpret::<u16>().unwrap_err();
    /// assert!(err.to_string().starts_with("NarrowArray<u8>: cannot reinterpret 3 8-bit values"));
    /// let m = err.into_array().reinterpret::<arbitrary_int::u12>()?;
    /// assert_eq!(m.shape(), [2, 2]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[allow(
        clippy::result_large_err,
        reason = "the error hands the array back by value, like `FromUtf8Error`; it is the cold path"
    )]
    pub fn reinterpret<U: BitElement>(
        self,
    ) -> core::result::Result<NarrowArray<U>, ReinterpretError<T>> {
        match self.reinterpreted_shape::<U>() {
            Ok((len, dims)) => Ok(NarrowArray {
                words: self.words,
                len,
                dims,
                _values: PhantomData,
            }),
            Err(error) => Err(ReinterpretError { error, array: self }),
        }
    }

    /// The byte length of the view as `U`, checking what a typed view needs.
    #[cfg(target_endian = "little")]
    fn view_len<U: BitElement>(&self) -> Result<usize> {
        if U::BITS as usize != 8 * core::mem::size_of::<U>() {
            return Err(Error::Invalid(
                "a typed view needs an element type whose value bits fill its bytes",
            ));
        }
        if core::mem::align_of::<U>() > 8 {
            return Err(Error::Invalid(
                "a typed view needs an element alignment of at most 8 bytes (use reinterpret)",
            ));
        }
        let (len, _) = self.reinterpreted_shape::<U>()?;
        Ok(len * core::mem::size_of::<U>())
    }

    /// The same bits as a slice of `U`, borrowed with no copy, for element
    /// types that fill their bytes (`u8`, `u16`, `f32`, ...). The length
    /// follows [`reinterpret`](Self::reinterpret) (flat, in row-major order).
    ///
    /// Only on little-endian targets, where the bytes of a `U` are its bits
    /// LSB-first.
    ///
    /// # Errors
    ///
    /// As [`reinterpret`](Self::reinterpret), and [`Error::Invalid`] when `U`
    /// does not fill its bytes or is aligned to more than 8 bytes (`u128`,
    /// `i128`: use `reinterpret`).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    ///
    /// let a = NarrowArray::from_slice(&[true, false, false, false, true, true, true, true]);
    /// assert_eq!(a.as_slice_of::<u8>()?, [0xf1]);
    ///
    /// let h = NarrowArray::from_slice(&[0x3c00u16, 0x4000]);
    /// assert_eq!(h.as_slice_of::<u32>()?, [0x4000_3c00]);
    /// assert!(h.as_slice_of::<u64>().is_err()); // 32 bits are not a u64
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[cfg(target_endian = "little")]
    pub fn as_slice_of<U>(&self) -> Result<&[U]>
    where
        U: BitElement + bytemuck::AnyBitPattern,
    {
        let n = self.view_len::<U>()?;
        let bytes = &super::bulk::word_bytes(&self.words)[..n];
        bytemuck::try_cast_slice(bytes)
            .map_err(|_| Error::Invalid("the word buffer cannot be viewed as this type"))
    }

    /// The same bits as a mutable slice of `U`, with no copy (see
    /// [`as_slice_of`](Self::as_slice_of)). The view covers whole values and
    /// no padding, so any write through it leaves a valid array.
    ///
    /// # Errors
    ///
    /// As [`as_slice_of`](Self::as_slice_of).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    ///
    /// let mut a = NarrowArray::<bool>::zeroed(16);
    /// a.as_slice_of_mut::<u16>()?[0] = 0x8001;
    /// assert_eq!(a.get(0), Some(true));
    /// assert_eq!(a.get(15), Some(true));
    /// assert_eq!(a.iter().filter(|&b| b).count(), 2);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    #[cfg(target_endian = "little")]
    pub fn as_slice_of_mut<U>(&mut self) -> Result<&mut [U]>
    where
        U: BitElement + bytemuck::Pod,
    {
        let n = self.view_len::<U>()?;
        let bytes = &mut super::bulk::word_bytes_mut(&mut self.words)[..n];
        bytemuck::try_cast_slice_mut(bytes)
            .map_err(|_| Error::Invalid("the word buffer cannot be viewed as this type"))
    }
}
