//! The macros that define a shipped format's type: `minifloat!` (the
//! inherent API, conversions, comparisons and formatting of one format, all
//! from its `FloatFormat` constant), `formats!` (the type itself from one
//! entry of the table in `types.rs`), and their pieces. The table of the
//! shipped formats is `types.rs`; the names the expansions use resolve
//! there.

/// `from_f16`/`from_bf16` and their `_satfinite` twins of a shipped
/// format: `Type, FloatFormat constant;` then per method `name: half type,
/// FloatFormat encoder, Mode, the example's input => output, a note;`.
macro_rules! from_half {
    ($t:ident, $fmt:ident; $($name:ident: $h:ident, $encode:ident, $mode:ident,
        $in:ident => $out:ident, $note:literal;)*) => {$(
        from_half!(@ $t, $fmt, $name, $h, $encode, $mode, $in, $out,
            #[doc = from_half!(@doc $t, $h, $mode, $note)]);
    )*};
    (@doc $t:ident, $h:ident, Nearest, $note:literal) => {
        concat!("Rounds a `half::", stringify!($h), "` with the rules of [`from_f32`](",
            stringify!($t), "::from_f32), once", $note, ".")
    };
    (@doc $t:ident, $h:ident, SatFinite, $note:literal) => {
        concat!("Rounds a `half::", stringify!($h), "` with the saturating rule, once", $note, ".")
    };
    (@ $t:ident, $fmt:ident, $name:ident, $h:ident, $encode:ident, $mode:ident, $in:ident,
        $out:ident, #[$doc:meta]) => {
        #[$doc]
        ///
        /// # Examples
        ///
        /// ```
        #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
        ///
        #[doc = concat!("assert_eq!(", stringify!($t), "::", stringify!($name), "(half::",
            stringify!($h), "::", stringify!($in), "), ", stringify!($t), "::", stringify!($out),
            ");")]
        /// ```
        #[cfg(feature = "half")]
        #[inline]
        pub const fn $name(x: half::$h) -> $t {
            $t(FloatFormat::$fmt.$encode(x, Mode::$mode) as u8)
        }
    };
}

/// `to_bf16`/`to_f16` of a shipped format: `Type, name, half type,
/// FloatFormat constant, the example's assertion, the docs`.
macro_rules! to_half {
    ($t:ident, $name:ident, $h:ident, $fmt:ident, $example:expr, $(#[$doc:meta])*) => {
        $(#[$doc])*
        ///
        /// # Examples
        ///
        /// ```
        #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
        ///
        #[doc = $example]
        /// ```
        #[cfg(feature = "half")]
        #[inline]
        pub const fn $name(self) -> half::$h {
            half::$h::from_bits(FloatFormat::$fmt.encode_f32(self.to_f32(), Mode::Nearest) as u16)
        }
    };
}

/// The methods and trait impls every shipped format shares; each delegates
/// to [`FloatFormat`].
macro_rules! minifloat {
    (
        $t:ident = $fmt:ident, $bits:literal,
        max = $max:literal, min_positive = $minp:literal, epsilon = $eps:literal,
        $(#[$from_doc:meta])*
    ) => {
        impl $t {
            /// Largest finite value:
            #[doc = concat!("`", $max, "`.")]
            pub const MAX: $t = $t(FloatFormat::$fmt.max_code() as u8);
            /// Smallest positive normal value:
            #[doc = concat!("`", $minp, "`.")]
            pub const MIN_POSITIVE: $t = $t(FloatFormat::$fmt.encode_f64(
                pow2(FloatFormat::$fmt.min_exponent()),
                Mode::Nearest,
            ) as u8);
            /// The difference between `1.0` and the next larger value:
            #[doc = concat!("`", $eps, "`.")]
            pub const EPSILON: $t = $t(FloatFormat::$fmt.encode_f64(
                pow2(-(FloatFormat::$fmt.mantissa_bits as i32)),
                Mode::Nearest,
            ) as u8);
            /// `1.0`.
            pub const ONE: $t = $t(FloatFormat::$fmt.encode_f64(1.0, Mode::Nearest) as u8);

            /// The value with these bits; bits above
            #[doc = concat!("the ", stringify!($bits), " value bits")]
            /// are ignored (as in [`from_raw_bits`](crate::BitElement::from_raw_bits)).
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
            ///
            #[doc = concat!("let one = ", stringify!($t), "::ONE;")]
            #[doc = concat!("assert_eq!(", stringify!($t), "::from_bits(one.to_bits()).to_f32(), 1.0);")]
            /// ```
            #[inline(always)]
            pub const fn from_bits(bits: u8) -> $t {
                $t(bits & ((1u16 << $bits) - 1) as u8)
            }

            /// The value bits (as [`raw_bits`](crate::BitElement::raw_bits)).
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
            ///
            #[doc = concat!("assert_eq!(", stringify!($t), "::from_bits(0xff).to_bits(), ",
                "(0xffu16 >> (8 - ", stringify!($bits), ")) as u8);")]
            /// ```
            #[inline(always)]
            pub const fn to_bits(self) -> u8 {
                self.0
            }

            /// The exact value as an `f32` (NaN codes give a quiet NaN with
            /// the code's sign).
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
            ///
            #[doc = concat!("assert_eq!(", stringify!($t), "::MAX.to_f32(), ", $max, ");")]
            /// ```
            #[inline]
            pub const fn to_f32(self) -> f32 {
                FloatFormat::$fmt.decode_f32(self.0 as u32)
            }

            /// The exact value as an `f64`.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
            ///
            #[doc = concat!("assert_eq!(", stringify!($t), "::MIN_POSITIVE.to_f64(), ", $minp, ");")]
            /// ```
            #[inline]
            pub const fn to_f64(self) -> f64 {
                FloatFormat::$fmt.decode_f64(self.0 as u32)
            }

            $(#[$from_doc])*
            #[inline]
            pub const fn from_f32(x: f32) -> $t {
                $t(FloatFormat::$fmt.encode_f32(x, Mode::Nearest) as u8)
            }

            /// Rounds an `f32` to nearest with the PTX `cvt.rn.satfinite`
            /// rule ([`Mode::SatFinite`]): magnitudes above
            #[doc = concat!("`", $max, "`")]
            /// (infinities included) clamp to it, and NaN stays NaN where the
            /// format has one and becomes the positive maximum where it does
            /// not.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
            ///
            #[doc = concat!("assert_eq!(", stringify!($t), "::from_f32_satfinite(f32::INFINITY), ",
                stringify!($t), "::MAX);")]
            /// ```
            #[inline]
            pub const fn from_f32_satfinite(x: f32) -> $t {
                $t(FloatFormat::$fmt.encode_f32(x, Mode::SatFinite) as u8)
            }

            /// Rounds an `f64` with the same rules as
            #[doc = concat!("[`from_f32`](", stringify!($t), "::from_f32),")]
            /// once (no intermediate rounding to `f32`).
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
            ///
            #[doc = concat!("assert_eq!(", stringify!($t), "::from_f64(1.0), ", stringify!($t), "::ONE);")]
            /// ```
            #[inline]
            pub const fn from_f64(x: f64) -> $t {
                $t(FloatFormat::$fmt.encode_f64(x, Mode::Nearest) as u8)
            }

            /// Rounds an `f64` with the saturating rule of
            #[doc = concat!("[`from_f32_satfinite`](", stringify!($t), "::from_f32_satfinite),")]
            /// once.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
            ///
            #[doc = concat!("assert_eq!(", stringify!($t), "::from_f64_satfinite(1e300), ", stringify!($t), "::MAX);")]
            /// ```
            #[inline]
            pub const fn from_f64_satfinite(x: f64) -> $t {
                $t(FloatFormat::$fmt.encode_f64(x, Mode::SatFinite) as u8)
            }

            from_half! { $t, $fmt;
                from_f16: f16, encode_f16, Nearest, ONE => ONE, "";
                from_f16_satfinite: f16, encode_f16, SatFinite, INFINITY => MAX,
                    " (the PTX `cvt.rn.satfinite` from `f16x2`)";
                from_bf16: bf16, encode_bf16, Nearest, ONE => ONE, "";
                from_bf16_satfinite: bf16, encode_bf16, SatFinite, MAX => MAX, "";
            }

            to_half!($t, to_bf16, bf16, BF16,
                concat!("assert_eq!(", stringify!($t), "::MAX.to_bf16().to_f32(), ", $max, ");"),
                /// The value as a `half::bf16`, exactly (`bf16` holds every value
                /// of every shipped format).
            );

            to_half!($t, to_f16, f16, F16,
                concat!("assert_eq!(", stringify!($t), "::ONE.to_f16(), half::f16::ONE);"),
                /// The value as a `half::f16`, rounded to nearest (exact for every
                /// shipped format but [`E8M0`], whose range exceeds `f16`'s).
            );

            /// Whether the value is a NaN.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
            ///
            #[doc = concat!("assert!(!", stringify!($t), "::ONE.is_nan());")]
            /// ```
            #[inline]
            pub const fn is_nan(self) -> bool {
                FloatFormat::$fmt.is_nan_code(self.0 as u32)
            }

            /// Whether the value is an infinity.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
            ///
            #[doc = concat!("assert!(!", stringify!($t), "::MAX.is_infinite());")]
            /// ```
            #[inline]
            pub const fn is_infinite(self) -> bool {
                FloatFormat::$fmt.is_infinite_code(self.0 as u32)
            }

            /// Whether the value is neither infinite nor NaN.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
            ///
            #[doc = concat!("assert!(", stringify!($t), "::MAX.is_finite());")]
            /// ```
            #[inline]
            pub const fn is_finite(self) -> bool {
                !self.is_nan() && !self.is_infinite()
            }

            /// Whether the sign bit is set (negative values, `-0`, and NaNs
            /// with the sign bit); always `false` for an unsigned format.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
            ///
            #[doc = concat!("assert!(!", stringify!($t), "::ONE.is_sign_negative());")]
            /// ```
            #[inline]
            pub const fn is_sign_negative(self) -> bool {
                let f = FloatFormat::$fmt;
                f.signed && (self.0 >> (f.exponent_bits + f.mantissa_bits)) & 1 == 1
            }

            /// Whether the sign bit is clear.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
            ///
            #[doc = concat!("assert!(", stringify!($t), "::ONE.is_sign_positive());")]
            /// ```
            #[inline]
            pub const fn is_sign_positive(self) -> bool {
                !self.is_sign_negative()
            }

            /// A total order on codes, as `f32::total_cmp` orders floats:
            /// negative NaN, negative infinity, negative values, `-0`, `+0`,
            /// positive values, infinity, positive NaN.
            ///
            /// # Examples
            ///
            /// ```
            /// use core::cmp::Ordering;
            #[doc = concat!("use bitpack::formats::", stringify!($t), ";")]
            ///
            #[doc = concat!("assert_eq!(", stringify!($t), "::ONE.total_cmp(&", stringify!($t),
                "::MAX), Ordering::Less);")]
            /// ```
            #[inline]
            pub const fn total_cmp(&self, other: &$t) -> Ordering {
                const fn key(x: $t) -> i32 {
                    let f = FloatFormat::$fmt;
                    let mag = (x.0 as i32) & ((1 << (f.exponent_bits + f.mantissa_bits)) - 1);
                    if x.is_sign_negative() { -mag - 1 } else { mag }
                }
                let (a, b) = (key(*self), key(*other));
                if a < b {
                    Ordering::Less
                } else if a > b {
                    Ordering::Greater
                } else {
                    Ordering::Equal
                }
            }
        }

        impl MiniFloat for $t {
            const FORMAT: FloatFormat = FloatFormat::$fmt;
        }

        /// Compares values: NaN is unequal to everything, `+0 == -0`.
        impl PartialEq for $t {
            #[inline]
            fn eq(&self, other: &$t) -> bool {
                self.to_f32() == other.to_f32()
            }
        }

        /// Orders values as `f32` does (NaN is unordered).
        impl PartialOrd for $t {
            #[inline]
            fn partial_cmp(&self, other: &$t) -> Option<Ordering> {
                self.to_f32().partial_cmp(&other.to_f32())
            }
        }

        /// Shows the value, as `f32`'s `Debug` does.
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.to_f32(), f)
            }
        }

        /// Shows the value, as `f32`'s `Display` does.
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }

        /// Exact.
        impl From<$t> for f32 {
            #[inline]
            fn from(x: $t) -> f32 {
                x.to_f32()
            }
        }

        /// Exact.
        impl From<$t> for f64 {
            #[inline]
            fn from(x: $t) -> f64 {
                x.to_f64()
            }
        }

        /// Exact.
        #[cfg(feature = "half")]
        impl From<$t> for half::bf16 {
            #[inline]
            fn from(x: $t) -> half::bf16 {
                x.to_bf16()
            }
        }
    };
}

/// The shipped formats' types: each entry is the type's docs; `Name: bits,
/// the bytemuck trait beside `Zeroable`, the `FloatFormat` constant, max,
/// min_positive, epsilon` (as [`minifloat!`]); then the docs of its
/// `from_f32` and a `;`.
macro_rules! formats {
    ($(
        $(#[$doc:meta])*
        $t:ident: $bits:tt bits, $pod:ident, $fmt:ident,
        max = $max:literal, min_positive = $minp:literal, epsilon = $eps:literal,
        $(#[$from_doc:meta])*
        ;
    )*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, BitElement, DeviceCopy, bytemuck::Zeroable, bytemuck::$pod)]
        #[bitpack(crate = "crate")]
        #[repr(transparent)]
        #[bitwidth($bits)]
        pub struct $t(u8);

        minifloat!(
            $t = $fmt, $bits, max = $max, min_positive = $minp, epsilon = $eps,
            $(#[$from_doc])*
        );
    )*};
}

/// `From<T> for half::f16` for the formats whose values all fit `f16`.
macro_rules! into_f16 {
    ($($t:ident),*) => {$(
        /// Exact.
        #[cfg(feature = "half")]
        impl From<$t> for half::f16 {
            #[inline]
            fn from(x: $t) -> half::f16 {
                x.to_f16()
            }
        }
    )*};
}

/// `2^k` as an `f64`, for `-1022 <= k <= 1023`.
pub(super) const fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

pub(super) use {formats, from_half, into_f16, minifloat, to_half};
