//! [`MiniFloat`], the trait of a float element type described by a
//! [`FloatFormat`], and the tables built from a format at compile time.

use super::format::FloatFormat;
use super::round::Mode;

/// The rounding constructors of [`MiniFloat`]: `fn name(input type) =
/// FloatFormat method, Mode;`.
macro_rules! rounding_constructors {
    ($($(#[$doc:meta])* fn $name:ident($x:ty) = $encode:ident, $mode:ident;)*) => {$(
        $(#[$doc])*
        #[inline]
        fn $name(x: $x) -> Self {
            const { assert_format::<Self>() };
            Self::from_raw_bits(Self::FORMAT.$encode(x, Mode::$mode) as u8)
        }
    )*};
}

/// A float element type described by a [`FloatFormat`]: implement it (one
/// constant) on a `#[derive(BitElement)]` newtype and the conversions come
/// from the crate's rounding routine.
///
/// The formats the crate ships implement it too, and the bulk conversions
/// (`encode_slice`, `decode_packed`, and with the `alloc` feature `encode`
/// and `decode` on packed arrays) work
/// on any `MiniFloat`. The shipped types also have inherent `const fn` versions of
/// these methods; the trait's are the same functions.
///
/// # Contract
///
/// `FORMAT` must [validate](FloatFormat::validate) and have exactly
/// [`BITS`](crate::BitElement::BITS) bits (at most 8); a type that breaks this
/// fails to compile when a method is used:
///
/// ```compile_fail,E0080
/// use bitpack::BitElement;
/// use bitpack::formats::{FloatFormat, MiniFloat};
///
/// #[derive(Clone, Copy, BitElement)]
/// #[repr(transparent)]
/// #[bitwidth(4)]
/// struct Wrong(u8);
///
/// impl MiniFloat for Wrong {
///     const FORMAT: FloatFormat = FloatFormat::E4M3; // 8 bits, not 4
/// }
///
/// let _ = Wrong::from_f32(1.0);
/// ```
///
/// # Examples
///
/// A user-defined format is in the module docs (*Your own format*). The trait
/// works generically:
///
/// ```
/// use bitpack::formats::{E2M1, E4M3, MiniFloat};
///
/// fn round_trip<F: MiniFloat>(x: f32) -> f32 {
///     F::from_f32(x).to_f32()
/// }
///
/// assert_eq!(round_trip::<E2M1>(2.6), 3.0);
/// assert_eq!(round_trip::<E4M3>(2.6), 2.5);
/// ```
pub trait MiniFloat: crate::BitElement<Raw = u8> {
    /// The format's description.
    const FORMAT: FloatFormat;

    /// The exact value as an `f32`.
    #[inline]
    fn to_f32(self) -> f32 {
        const { assert_format::<Self>() };
        Self::FORMAT.decode_f32(self.raw_bits() as u32)
    }

    /// The exact value as an `f64`.
    #[inline]
    fn to_f64(self) -> f64 {
        const { assert_format::<Self>() };
        Self::FORMAT.decode_f64(self.raw_bits() as u32)
    }

    rounding_constructors! {
        /// Rounds an `f32` to nearest ([`Mode::Nearest`]).
        fn from_f32(f32) = encode_f32, Nearest;
        /// Rounds an `f32` with the saturating rule ([`Mode::SatFinite`]).
        fn from_f32_satfinite(f32) = encode_f32, SatFinite;
        /// Rounds an `f64` to nearest, once.
        fn from_f64(f64) = encode_f64, Nearest;
        /// Rounds an `f64` with the saturating rule, once.
        fn from_f64_satfinite(f64) = encode_f64, SatFinite;
    }

    /// Whether the value is a NaN.
    #[inline]
    fn is_nan(self) -> bool {
        Self::FORMAT.is_nan_code(self.raw_bits() as u32)
    }

    /// Whether the value is neither infinite nor NaN.
    #[inline]
    fn is_finite(self) -> bool {
        let code = self.raw_bits() as u32;
        !Self::FORMAT.is_nan_code(code) && !Self::FORMAT.is_infinite_code(code)
    }
}

/// Fails compilation (when used in a `const` block) if `F::FORMAT` is
/// invalid or does not have `F::BITS` bits.
pub(crate) const fn assert_format<F: MiniFloat>() {
    if let Err(msg) = F::FORMAT.validate() {
        panic!("{}", msg);
    }
    assert!(
        F::FORMAT.bits() == F::BITS,
        "MiniFloat::FORMAT must have exactly BITS bits"
    );
}

/// Tables built at compile time per format.
pub(crate) struct Tables<F>(core::marker::PhantomData<F>);

impl<F: MiniFloat> Tables<F> {
    /// `decode_f32` of every code `0..256`.
    pub(crate) const DECODE_F32: [f32; 256] = {
        assert_format::<F>();
        F::FORMAT.decode_table_f32()
    };
    /// The `half::f16` bits of every code `0..256`: the value rounded once
    /// to nearest (exact for every shipped format but E8M0); NaN codes give
    /// `0x7e00` with the code's sign.
    #[cfg(feature = "half")]
    pub(crate) const DECODE_F16: [u16; 256] = {
        assert_format::<F>();
        let f = F::FORMAT;
        let mut t = [0u16; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = if f.is_nan_code(i as u32) {
                let negative =
                    f.signed && (i as u32 >> (f.exponent_bits + f.mantissa_bits)) & 1 == 1;
                ((negative as u16) << 15) | 0x7e00
            } else {
                FloatFormat::F16.encode_f64(f.decode_f64(i as u32), Mode::Nearest) as u16
            };
            i += 1;
        }
        t
    };
}
