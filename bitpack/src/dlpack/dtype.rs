//! The mapping of element types to DLPack data types: [`DlpackElement`]
//! and its table [`DTYPES`].

use super::ffi::{DLDataType, code};
use crate::BitElement;

/// An element type with a DLPack data type.
///
/// The trait is safe to implement (a user's own `#[derive(BitElement)]`
/// format can name its DLPack code), and nothing it says is trusted with
/// memory: every byte count of an import or export is computed from
/// `T::BITS` and checked against the tensor's validated `dtype.bits`.
///
/// - [`DTYPE`](Self::DTYPE) must have `lanes` 1 and `bits == T::BITS`: an
///   impl that says otherwise is a compile error where the type is first
///   exported or imported.
/// - [`accepts`](Self::accepts) may widen what an import takes (as `bool`
///   takes `kDLBool`), but a tensor whose `dtype.bits` is not `T::BITS` is
///   [`Error::DlpackDtype`](crate::Error::DlpackDtype) whatever it answers.
///
/// So a wrong impl can at worst read values of the right width under the
/// wrong name, never bytes outside the tensor. A 128-bit type that claims
/// the `u8` data type does not compile once it is imported or exported:
///
/// ```compile_fail
/// use bitpack::dlpack::{DLDataType, DlpackElement, DlpackTensor, code};
/// use bitpack::{BitElement, NarrowArray};
///
/// #[derive(Clone, Copy, BitElement)]
/// #[repr(transparent)]
/// struct Wide(u128);
///
/// impl DlpackElement for Wide {
///     const DTYPE: DLDataType = DLDataType::scalar(code::UINT, 8); // a lie: 128 bits
/// }
///
/// let t = DlpackTensor::from_narrow_array(NarrowArray::from_slice(&[7u8]));
/// let _ = t.as_narrow_ref::<Wide>(); // error: DTYPE must have bits == BITS
/// ```
///
/// # Examples
///
/// ```
/// use bitpack::dlpack::{DlpackElement, code};
///
/// assert_eq!(<u16 as DlpackElement>::DTYPE.code, code::UINT);
/// assert_eq!(<arbitrary_int::u5 as DlpackElement>::DTYPE.bits, 5);
/// assert_eq!(<bitpack::E4M3 as DlpackElement>::DTYPE.code, code::FLOAT8_E4M3FN);
/// ```
pub trait DlpackElement: BitElement {
    /// The data type this element exports as.
    const DTYPE: DLDataType;

    /// Whether a packed tensor of `dtype` holds values of this type (the
    /// export type, and for `bool` also `kDLBool` with 1 bit).
    fn accepts(dtype: DLDataType) -> bool {
        dtype == Self::DTYPE
    }
}

macro_rules! dtypes {
    ($($(#[$m:meta])* $t:ty => $code:ident, $bits:literal, $name:literal;)*) => {
        $(
            $(#[$m])*
            impl DlpackElement for $t {
                const DTYPE: DLDataType = DLDataType::scalar(code::$code, $bits);
            }
        )*

        /// The element types with a DLPack data type, by name (narrow
        /// `arbitrary_int` integers, `kDLUInt` with their width, are left
        /// out): the table of the module docs, as data.
        ///
        /// # Examples
        ///
        /// ```
        /// use bitpack::dlpack::DTYPES;
        /// let (name, dtype) = DTYPES.iter().find(|(n, _)| *n == "E2M1").unwrap();
        /// assert_eq!((*name, dtype.code, dtype.bits), ("E2M1", 17, 4));
        /// ```
        pub const DTYPES: &[(&str, DLDataType)] = &[
            $($(#[$m])* ($name, DLDataType::scalar(code::$code, $bits)),)*
        ];
    };
}

dtypes! {
    // The built-in types, by kind.
    u8 => UINT, 8, "u8"; u16 => UINT, 16, "u16"; u32 => UINT, 32, "u32"; u64 => UINT, 64, "u64";
        u128 => UINT, 128, "u128";
    i8 => INT, 8, "i8"; i16 => INT, 16, "i16"; i32 => INT, 32, "i32"; i64 => INT, 64, "i64";
        i128 => INT, 128, "i128";
    f32 => FLOAT, 32, "f32"; f64 => FLOAT, 64, "f64";
    #[cfg(feature = "half")]
    half::f16 => FLOAT, 16, "f16";
    #[cfg(feature = "half")]
    half::bf16 => BFLOAT, 16, "bf16";
    crate::E2M1 => FLOAT4_E2M1FN, 4, "E2M1";
    crate::E2M3 => FLOAT6_E2M3FN, 6, "E2M3";
    crate::E3M2 => FLOAT6_E3M2FN, 6, "E3M2";
    crate::E4M3 => FLOAT8_E4M3FN, 8, "E4M3";
    crate::E5M2 => FLOAT8_E5M2, 8, "E5M2";
    crate::E8M0 => FLOAT8_E8M0FNU, 8, "E8M0";
    crate::formats::E4M3Ieee => FLOAT8_E4M3, 8, "E4M3Ieee";
    crate::formats::E3M4 => FLOAT8_E3M4, 8, "E3M4";
    crate::formats::E4M3Fnuz => FLOAT8_E4M3FNUZ, 8, "E4M3Fnuz";
    crate::formats::E5M2Fnuz => FLOAT8_E5M2FNUZ, 8, "E5M2Fnuz";
    crate::formats::E4M3B11Fnuz => FLOAT8_E4M3B11FNUZ, 8, "E4M3B11Fnuz";
}

impl DlpackElement for bool {
    const DTYPE: DLDataType = DLDataType::scalar(code::UINT, 1);

    fn accepts(dtype: DLDataType) -> bool {
        dtype == Self::DTYPE || dtype == DLDataType::scalar(code::BOOL, 1)
    }
}

#[cfg(feature = "arbitrary-int")]
mod narrow_ints {
    use super::{DLDataType, DlpackElement, code};
    use arbitrary_int::{Int, UInt};

    // `u1`..`u127`: kDLUInt with their width; the two's-complement
    // `i1`..`i127`: kDLInt with their width.
    macro_rules! narrow_dtypes {
        ($($u:ty, $i:ty: $($bits:literal)*;)*) => {$($(
            impl DlpackElement for UInt<$u, $bits> {
                const DTYPE: DLDataType = DLDataType::scalar(code::UINT, $bits);
            }
            impl DlpackElement for Int<$i, $bits> {
                const DTYPE: DLDataType = DLDataType::scalar(code::INT, $bits);
            }
        )*)*};
    }

    crate::element::narrow_int_widths!(narrow_dtypes);
}

/// `T::DTYPE`, checked at compile time to have one lane of `T::BITS` bits
/// (the only place the crate reads `DTYPE`).
#[inline]
pub(crate) fn dtype_of<T: DlpackElement>() -> DLDataType {
    const {
        assert!(
            T::DTYPE.lanes == 1 && T::DTYPE.bits as u32 == T::BITS,
            "DlpackElement::DTYPE must have lanes 1 and bits == BitElement::BITS"
        );
    }
    T::DTYPE
}

/// Whether a packed tensor of `dtype` holds `T` values: `T` accepts it, and
/// its one lane has exactly `T::BITS` bits, whatever `accepts` says.
#[inline]
pub(crate) fn holds<T: DlpackElement>(dtype: DLDataType) -> bool {
    let _ = dtype_of::<T>();
    dtype.lanes == 1 && u32::from(dtype.bits) == T::BITS && T::accepts(dtype)
}
