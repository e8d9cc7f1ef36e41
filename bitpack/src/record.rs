//! Packed records: structs of narrow fields as one element
//! (`#[derive(BitElement)] #[bitpack(record)]`), their field descriptors
//! ([`Field`]), their packed form ([`Packed`]) and the checked constructor
//! ([`Record::try_from_raw_bits`]).
//!
//! A record's fields sit LSB-first in declaration order, as the values of a
//! packed array do: field 0 in the lowest bits, field `k` at the sum of the
//! widths before it (or at its `#[bitpack(at = n)]`). The derive's
//! documentation, on [`BitElement`](macro@crate::BitElement), has the rules,
//! the attributes and the comparison with the bitfield crates.

use core::fmt;
use core::marker::PhantomData;

use crate::unsigned::mask_u128;
use crate::{BitElement, Error, Result, Unsigned};

/// Where one field of the record `R` sits, and its type `F`: the derive
/// gives every field that is not reserved an associated constant of this
/// type, named after the field in upper case (`Token::LEN`; a tuple field
/// `k` is `F0`, `F1`, ...).
///
/// Its offset and width are `const fn`s, as are the reads and writes of the
/// field's code in a record's bits (`u128`), so it serves in `const` items
/// and in generic code. Typed access (a field value of type `F`) is
/// [`Packed::get`], [`Packed::set`], [`Packed::with`], and a whole column of
/// an array, `NarrowArray::field`.
///
/// # Examples
///
/// ```
/// use bitpack::arbitrary_int::{u3, u4};
/// use bitpack::{BitElement, Field};
///
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[bitpack(record)]
/// struct Fp8Parts {
///     man: u3,
///     exp: u4,
///     sign: bool,
/// }
///
/// const EXP: Field<Fp8Parts, u4> = Fp8Parts::EXP;
/// const _: () = assert!(EXP.offset() == 3 && EXP.width() == 4);
/// const CODE: u128 = EXP.code(0b1_0110_101);
/// assert_eq!(CODE, 0b0110);
/// assert_eq!(EXP.with_code(0, 0xF), 0b0_1111_000);
///
/// // Generic code over any field of any record:
/// fn top<R: BitElement, F: BitElement>(f: Field<R, F>) -> u32 {
///     f.end()
/// }
/// assert_eq!(top(Fp8Parts::SIGN), 8);
/// ```
pub struct Field<R, F> {
    offset: u32,
    _types: PhantomData<fn() -> (R, F)>,
}

impl<R, F> Clone for Field<R, F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R, F> Copy for Field<R, F> {}

impl<R, F> PartialEq for Field<R, F> {
    fn eq(&self, other: &Self) -> bool {
        self.offset == other.offset
    }
}

impl<R, F> Eq for Field<R, F> {}

impl<R, F: BitElement> fmt::Debug for Field<R, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Field(bits {}..{})", self.offset, self.end())
    }
}

impl<R, F: BitElement> Field<R, F> {
    /// The field at bit `offset` of a record. Called by the derive; a field
    /// built by hand at another offset reads and writes other bits of the
    /// record (wrong values, never undefined behaviour).
    #[doc(hidden)]
    pub const fn __new(offset: u32) -> Self {
        Field {
            offset,
            _types: PhantomData,
        }
    }

    /// The record bit where the field starts.
    pub const fn offset(self) -> u32 {
        self.offset
    }

    /// The field's width: `F::BITS`.
    pub const fn width(self) -> u32 {
        F::BITS
    }

    /// The record bit just past the field: `offset() + width()`.
    pub const fn end(self) -> u32 {
        self.offset + F::BITS
    }

    /// The field's bits, in place in the record's bits.
    pub const fn mask(self) -> u128 {
        if self.offset >= 128 {
            0
        } else {
            mask_u128(F::BITS) << self.offset
        }
    }

    /// The field's code (its `raw_bits`, zero-extended) in the record bits
    /// `bits`.
    pub const fn code(self, bits: u128) -> u128 {
        if self.offset >= 128 {
            0
        } else {
            (bits >> self.offset) & mask_u128(F::BITS)
        }
    }

    /// `bits` with the field's code replaced by the low `width()` bits of
    /// `code`.
    pub const fn with_code(self, bits: u128, code: u128) -> u128 {
        if self.offset >= 128 {
            bits
        } else {
            (bits & !self.mask()) | ((code & mask_u128(F::BITS)) << self.offset)
        }
    }
}

impl<R: BitElement, F: BitElement> Field<R, F> {
    /// The field's value in the record bits `raw` (bits of `raw` above
    /// `R::BITS` are ignored, as everywhere).
    #[inline]
    pub fn get(self, raw: R::Raw) -> F {
        F::from_raw_bits(F::Raw::from_u128_truncate(self.code(raw.to_u128())))
    }

    /// `raw` with the field set to `value`.
    #[inline]
    pub fn with(self, raw: R::Raw, value: F) -> R::Raw {
        R::Raw::from_u128_truncate(self.with_code(raw.to_u128(), value.raw_bits().to_u128()))
    }
}

/// What a record says of one of its fields, for checks and for printing:
/// [`Record::FIELDS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FieldInfo {
    /// The field's name (`"len"`, or `"0"` for a tuple field).
    pub name: &'static str,
    /// The record bit where it starts.
    pub offset: u32,
    /// Its width.
    pub bits: u32,
    /// For a reserved field, the bits it must hold: `Some(false)` all
    /// zeros (`#[bitpack(reserved)]`), `Some(true)` all ones
    /// (`#[bitpack(reserved = ones)]`).
    pub reserved: Option<bool>,
}

/// A struct of narrow fields packed as one element:
/// `#[derive(BitElement)] #[bitpack(record)]` implements it, beside
/// [`BitElement`].
///
/// [`BitElement::from_raw_bits`] is total, as for every element: it reads
/// each field with the field's own `from_raw_bits`, reserved fields
/// included, and ignores the bits of gaps left by `#[bitpack(at = n)]`.
/// [`try_from_raw_bits`](Record::try_from_raw_bits) is the checked way in:
/// it also requires each reserved field to hold its fixed bits and every gap
/// bit to be zero (and the same of nested records), and names the field and
/// the code when one does not.
///
/// # Examples
///
/// ```
/// use bitpack::arbitrary_int::{u2, u6};
/// use bitpack::{BitElement, Record};
///
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[bitpack(record)]
/// struct Header {
///     version: u2,
///     #[bitpack(reserved)]
///     _pad: u6,
///     length: u8,
/// }
///
/// assert_eq!(Header::BITS, 16);
/// assert_eq!(Header::FIELDS[1].name, "_pad");
/// let ok = Header::try_from_raw_bits(0x2A_01)?;
/// assert_eq!(ok.length, 0x2A);
/// let err = Header::try_from_raw_bits(0x2A_05).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "record `Header`: reserved field `_pad` (bits 2..8) holds 0b1 (1), must be all zeros"
/// );
/// # Ok::<(), bitpack::Error>(())
/// ```
pub trait Record: BitElement {
    /// The record's name, for messages.
    const NAME: &'static str;
    /// Every field, in declaration order (which is bit order).
    const FIELDS: &'static [FieldInfo];

    /// The record whose bits are the low `BITS` bits of `raw`, if its
    /// reserved fields hold their fixed bits, its gaps are zero, and the
    /// same holds of every field that is itself a record.
    ///
    /// # Errors
    ///
    /// [`Error::RecordField`] naming the record, the field (or the gap),
    /// its bits and the code found.
    fn try_from_raw_bits(raw: Self::Raw) -> Result<Self>;
}

/// Checks the reserved fields and the gaps of a record's bits.
#[doc(hidden)]
pub fn check_fixed(name: &'static str, bits: u32, fields: &[FieldInfo], raw: u128) -> Result<()> {
    let raw = raw & mask_u128(bits);
    let mut covered = 0u128;
    for f in fields {
        let m = if f.offset >= 128 {
            0
        } else {
            mask_u128(f.bits) << f.offset
        };
        covered |= m;
        if let Some(ones) = f.reserved {
            let code = (raw & m) >> f.offset.min(127);
            let want = if ones { mask_u128(f.bits) } else { 0 };
            if code != want {
                return Err(Error::RecordField {
                    record: name,
                    field: f.name,
                    offset: f.offset,
                    bits: f.bits,
                    code,
                    rule: if ones { "all ones" } else { "all zeros" },
                });
            }
        }
    }
    let stray = raw & !covered;
    if stray != 0 {
        // The gap holding the lowest stray bit: from there up to the next
        // field (or the end).
        let low = stray.trailing_zeros();
        let end = fields
            .iter()
            .map(|f| f.offset)
            .filter(|&o| o > low)
            .min()
            .unwrap_or(bits);
        let start = fields
            .iter()
            .map(|f| f.offset + f.bits)
            .filter(|&e| e <= low)
            .max()
            .unwrap_or(0);
        return Err(Error::RecordField {
            record: name,
            field: "(gap)",
            offset: start,
            bits: end - start,
            code: (raw >> start) & mask_u128(end - start),
            rule: "all zeros",
        });
    }
    Ok(())
}

/// The derive's nested check: a field that is a [`Record`] is checked with
/// its own `try_from_raw_bits`, any other element accepts every code. The
/// generated code calls `(&Probe::<F>::NEW).check_nested(code)` with both
/// traits imported as `_`, so method resolution picks the first.
#[doc(hidden)]
#[derive(Debug)]
pub struct Probe<T>(PhantomData<fn() -> T>);

impl<T> Probe<T> {
    #[doc(hidden)]
    pub const NEW: Self = Probe(PhantomData);
}

#[doc(hidden)]
pub trait NestedRecord {
    fn check_nested(&self, code: u128) -> Result<()>;
}

impl<T: Record> NestedRecord for Probe<T> {
    #[inline]
    fn check_nested(&self, code: u128) -> Result<()> {
        T::try_from_raw_bits(T::Raw::from_u128_truncate(code)).map(|_| ())
    }
}

#[doc(hidden)]
pub trait NestedElement {
    #[inline]
    fn check_nested(&self, _code: u128) -> Result<()> {
        Ok(())
    }
}

impl<T> NestedElement for &Probe<T> {}

/// A value of `R` in its packed form: its `BITS` bits in `R::Raw`, the bits
/// a packed array holds for it. Fields are read and written in place through
/// the record's [`Field`] constants, without unpacking the other fields.
///
/// `Debug` shows the unpacked value (so a record that derives `Debug` shows
/// field names and values), `Binary`, `LowerHex` and `UpperHex` show the
/// bits (`{:b}` pads to `BITS` digits). `Packed<R>` is `DeviceCopy`: it is
/// `repr(transparent)` over an unsigned integer.
///
/// # Examples
///
/// ```
/// use bitpack::arbitrary_int::{u3, u4};
/// use bitpack::{BitElement, Packed};
///
/// #[derive(Clone, Copy, Debug, Default, PartialEq, BitElement)]
/// #[bitpack(record)]
/// struct Fp8Parts {
///     man: u3,
///     exp: u4,
///     sign: bool,
/// }
///
/// let mut p = Packed::new(Fp8Parts { man: u3::new(5), exp: u4::new(7), sign: true });
/// assert_eq!(p.raw(), 0b1_0111_101);
/// assert_eq!(p.get(Fp8Parts::EXP), u4::new(7));
/// p.set(Fp8Parts::MAN, u3::new(2));
/// let q = p.with(Fp8Parts::SIGN, false);
/// assert_eq!(q.unpack(), Fp8Parts { man: u3::new(2), exp: u4::new(7), sign: false });
/// assert_eq!(format!("{q:b}"), "00111010");
/// assert_eq!(
///     format!("{q:?}"),
///     "Packed(0x3a: Fp8Parts { man: 2, exp: 7, sign: false })"
/// );
/// ```
#[repr(transparent)]
pub struct Packed<R: BitElement>(R::Raw);

impl<R: BitElement> Packed<R> {
    /// Packs `value`.
    #[inline]
    pub fn new(value: R) -> Self {
        Packed(value.raw_bits())
    }

    /// The packed value whose bits are the low `R::BITS` bits of `raw`
    /// (higher bits are cleared).
    #[inline]
    pub fn from_raw(raw: R::Raw) -> Self {
        Packed(R::Raw::from_u128_truncate(
            raw.to_u128() & mask_u128(R::BITS),
        ))
    }

    /// The bits.
    #[inline]
    pub fn raw(self) -> R::Raw {
        self.0
    }

    /// The value (`R::from_raw_bits`).
    #[inline]
    pub fn unpack(self) -> R {
        R::from_raw_bits(self.0)
    }

    /// One field's value, read in place.
    #[inline]
    pub fn get<F: BitElement>(self, field: Field<R, F>) -> F {
        field.get(self.0)
    }

    /// Sets one field in place; the other bits are unchanged.
    #[inline]
    pub fn set<F: BitElement>(&mut self, field: Field<R, F>, value: F) {
        self.0 = field.with(self.0, value);
    }

    /// A copy with one field set.
    #[inline]
    #[must_use]
    pub fn with<F: BitElement>(self, field: Field<R, F>, value: F) -> Self {
        Packed(field.with(self.0, value))
    }
}

impl<R: Record> Packed<R> {
    /// The packed value of `raw`'s low `R::BITS` bits, checked as
    /// [`Record::try_from_raw_bits`] checks them.
    ///
    /// # Errors
    ///
    /// [`Error::RecordField`], as `try_from_raw_bits`.
    pub fn try_from_raw(raw: R::Raw) -> Result<Self> {
        R::try_from_raw_bits(raw)?;
        Ok(Self::from_raw(raw))
    }
}

impl<R: BitElement> Clone for Packed<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R: BitElement> Copy for Packed<R> {}

impl<R: BitElement> PartialEq for Packed<R> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<R: BitElement> Eq for Packed<R> {}

impl<R: BitElement> core::hash::Hash for Packed<R> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.0.to_u128().hash(state);
    }
}

impl<R: BitElement + Default> Default for Packed<R> {
    fn default() -> Self {
        Packed::new(R::default())
    }
}

impl<R: BitElement> From<R> for Packed<R> {
    fn from(value: R) -> Self {
        Packed::new(value)
    }
}

impl<R: BitElement + fmt::Debug> fmt::Debug for Packed<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Packed({:#x}: {:?})", self.0.to_u128(), self.unpack())
    }
}

impl<R: BitElement> fmt::Binary for Packed<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bits = self.0.to_u128();
        let width = R::BITS as usize;
        if f.alternate() {
            write!(f, "{bits:#0w$b}", w = width + 2)
        } else {
            write!(f, "{bits:0width$b}")
        }
    }
}

impl<R: BitElement> fmt::LowerHex for Packed<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.0.to_u128(), f)
    }
}

impl<R: BitElement> fmt::UpperHex for Packed<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::UpperHex::fmt(&self.0.to_u128(), f)
    }
}

impl<R: BitElement> BitElement for Packed<R> {
    const BITS: u32 = R::BITS;
    type Raw = R::Raw;

    #[inline(always)]
    fn raw_bits(self) -> R::Raw {
        self.0
    }

    #[inline(always)]
    fn from_raw_bits(raw: R::Raw) -> Self {
        Packed::from_raw(raw)
    }
}

// SAFETY:
// - No host pointers: the only field is `R::Raw`, one of `u8`..`u128`
//   (`Unsigned` is sealed to those).
// - Fixed layout: `repr(transparent)` over that integer ("Type layout: the
//   transparent representation").
// - Bytes are the value: `Packed<R>: Copy`.
unsafe impl<R: BitElement> crate::DeviceCopy for Packed<R> {}
