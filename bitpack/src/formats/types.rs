//! The shipped formats: `E2M1`, `E2M3`, `E3M2`, `E4M3`, `E5M2`, `E8M0`,
//! `E4M3Ieee`, `E3M4`, `E4M3Fnuz`, `E5M2Fnuz`, `E4M3B11Fnuz`.

use crate::float::{FloatFormat, MiniFloat, Mode};
use crate::{BitElement, DeviceCopy};
use core::cmp::Ordering;
use core::fmt;

use super::define::{formats, from_half, into_f16, minifloat, pow2, to_half};

formats! {
    /// OCP MX FP4 (`float4_e2m1fn`): 1 sign, 2 exponent and 1 mantissa bit, bias
    /// 1; values `±{0, 0.5, 1, 1.5, 2, 3, 4, 6}`; no infinity, no NaN.
    ///
    /// A value is 4 bits, held in the low nibble of a byte; packed containers
    /// put element 0 in the low nibble (the `torch.float4_e2m1fn_x2` and CUDA
    /// `__nv_fp4x2_e2m1` order).
    ///
    /// Names: ml_dtypes `float4_e2m1fn`, DLPack `kDLFloat4_e2m1fn`, CUDA
    /// `__nv_fp4_e2m1`; PyTorch has only the pair `float4_e2m1fn_x2`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E2M1;
    ///
    /// let x = E2M1::from_f32(2.7);
    /// assert_eq!(x.to_f32(), 3.0);
    /// assert_eq!(x.to_bits(), 0x5);
    /// assert_eq!(E2M1::from_f32(-100.0), E2M1::MIN); // saturates
    /// assert_eq!(format!("{x}"), "3");
    /// ```
    E2M1: 4 bits, NoUninit, E2M1, max = "6.0", min_positive = "1.0", epsilon = "0.5",
    /// Rounds an `f32` to nearest, ties to even. Finite values beyond
    /// `±6` (from the tie at `±7` on) and infinities saturate to `±6`, as
    /// in the reference library (ml_dtypes).
    ///
    /// NaN becomes a **zero of the opposite sign** (`+NaN` gives `-0`,
    /// `-NaN` gives `+0`): the format has no NaN, and this matches the
    /// reference library bit for bit (its `nan_to_zero` rows).
    /// [`from_f32_satfinite`](E2M1::from_f32_satfinite) gives `+6` instead,
    /// as the GPU does.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E2M1;
    ///
    /// assert_eq!(E2M1::from_f32(2.5).to_f32(), 2.0); // tie to even
    /// assert_eq!(E2M1::from_f32(7.0).to_f32(), 6.0); // saturates
    /// assert_eq!(E2M1::from_f32(f32::NAN).to_bits(), 0x8); // -0
    /// ```
    ;
    /// OCP MX FP6 (`float6_e2m3fn`): 1 sign, 2 exponent and 3 mantissa bits,
    /// bias 1; largest `7.5`, smallest `0.125`; no infinity, no NaN.
    ///
    /// Names: ml_dtypes `float6_e2m3fn`, DLPack `kDLFloat6_e2m3fn`, CUDA
    /// `__nv_fp6_e2m3`; no PyTorch dtype.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E2M3;
    ///
    /// assert_eq!(E2M3::from_f32(3.3).to_f32(), 3.25);
    /// assert_eq!(E2M3::MAX.to_f32(), 7.5);
    /// ```
    E2M3: 6 bits, NoUninit, E2M3, max = "7.5", min_positive = "1.0", epsilon = "0.125",
    /// Rounds an `f32` to nearest, ties to even. Finite values beyond
    /// `±7.5` and infinities saturate to `±7.5`, as in the reference library
    /// (ml_dtypes).
    ///
    /// NaN becomes a **zero of the opposite sign**, matching the reference
    /// library bit for bit (its `nan_to_zero` rows);
    /// [`from_f32_satfinite`](E2M3::from_f32_satfinite) gives `+7.5`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E2M3;
    ///
    /// assert_eq!(E2M3::from_f32(1.0625).to_f32(), 1.0); // tie to even
    /// assert_eq!(E2M3::from_f32(-9.0).to_f32(), -7.5); // saturates
    /// assert_eq!(E2M3::from_f32(-f32::NAN).to_bits(), 0x00); // +0
    /// ```
    ;
    /// OCP MX FP6 (`float6_e3m2fn`): 1 sign, 3 exponent and 2 mantissa bits,
    /// bias 3; largest `28`, smallest `0.0625`; no infinity, no NaN.
    ///
    /// Names: ml_dtypes `float6_e3m2fn`, DLPack `kDLFloat6_e3m2fn`, CUDA
    /// `__nv_fp6_e3m2`; no PyTorch dtype.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E3M2;
    ///
    /// assert_eq!(E3M2::from_f32(13.0).to_f32(), 12.0);
    /// assert_eq!(E3M2::MAX.to_f32(), 28.0);
    /// ```
    E3M2: 6 bits, NoUninit, E3M2, max = "28.0", min_positive = "0.25", epsilon = "0.25",
    /// Rounds an `f32` to nearest, ties to even. Finite values beyond
    /// `±28` and infinities saturate to `±28`, as in the reference library
    /// (ml_dtypes).
    ///
    /// NaN becomes a **zero of the opposite sign**, matching the reference
    /// library bit for bit (its `nan_to_zero` rows);
    /// [`from_f32_satfinite`](E3M2::from_f32_satfinite) gives `+28`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E3M2;
    ///
    /// assert_eq!(E3M2::from_f32(0.09375).to_f32(), 0.125); // tie to even
    /// assert_eq!(E3M2::from_f32(f32::INFINITY).to_f32(), 28.0);
    /// ```
    ;
    /// OCP FP8 `E4M3` (`float8_e4m3fn`): 1 sign, 4 exponent and 3 mantissa bits,
    /// bias 7; largest `448`; no infinity; NaN only at `0x7f` and `0xff`.
    ///
    /// Names: ml_dtypes and PyTorch `float8_e4m3fn`, DLPack
    /// `kDLFloat8_e4m3fn`, CUDA `__nv_fp8_e4m3`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E4M3;
    ///
    /// assert_eq!(E4M3::from_f32(100.0).to_f32(), 96.0);
    /// assert!(E4M3::from_f32(1000.0).is_nan()); // the reference's overflow rule
    /// assert_eq!(E4M3::from_f32_satfinite(1000.0), E4M3::MAX); // the GPU's
    /// ```
    E4M3: 8 bits, Pod, E4M3, max = "448.0", min_positive = "0.015625", epsilon = "0.125",
    /// Rounds an `f32` to nearest, ties to even, with the reference
    /// library's (ml_dtypes) overflow rule: `448 < |x| <= 464` gives `±448`
    /// (464 is the tie, and 448's code is even), `|x| > 464` and infinities
    /// give NaN with the input's sign. NaN stays NaN.
    /// [`from_f32_satfinite`](E4M3::from_f32_satfinite) clamps to `±448`
    /// instead, as the GPU does.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E4M3;
    ///
    /// assert_eq!(E4M3::from_f32(464.0).to_f32(), 448.0);
    /// assert_eq!(E4M3::from_f32(-465.0).to_bits(), 0xff); // -NaN
    /// ```
    ;
    /// OCP FP8 `E5M2` (`float8_e5m2`): 1 sign, 5 exponent and 2 mantissa bits,
    /// bias 15, IEEE infinities and NaNs; largest finite `57344`. It is the top
    /// byte of an IEEE `f16`.
    ///
    /// Names: ml_dtypes and PyTorch `float8_e5m2`, DLPack `kDLFloat8_e5m2`,
    /// CUDA `__nv_fp8_e5m2`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E5M2;
    ///
    /// assert_eq!(E5M2::from_f32(1000.0).to_f32(), 1024.0);
    /// assert_eq!(E5M2::from_f32(1e6), E5M2::INFINITY);
    /// ```
    E5M2: 8 bits, Pod, E5M2, max = "57344.0", min_positive = "0.00006103515625", epsilon = "0.25",
    /// Rounds an `f32` to nearest, ties to even. As in IEEE arithmetic (and
    /// the reference library), `|x| >= 61440` (the tie above `57344`) gives
    /// infinity of the input's sign; NaN stays NaN.
    /// [`from_f32_satfinite`](E5M2::from_f32_satfinite) clamps to `±57344`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E5M2;
    ///
    /// assert_eq!(E5M2::from_f32(61439.0).to_f32(), 57344.0);
    /// assert_eq!(E5M2::from_f32(-61440.0), E5M2::NEG_INFINITY);
    /// ```
    ;
    /// OCP MX scale `E8M0` (`float8_e8m0fnu`): an unsigned power of two. Code `c`
    /// is `2^(c - 127)` for `c` in `0..=254` (`2^-127` to `2^127`); `0xff` is
    /// NaN. There is no sign and no zero.
    ///
    /// Names: ml_dtypes and PyTorch `float8_e8m0fnu`, DLPack
    /// `kDLFloat8_e8m0fnu`, CUDA `__nv_fp8_e8m0`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E8M0;
    ///
    /// assert_eq!(E8M0::from_f32(0.25).to_bits(), 125);
    /// assert_eq!(E8M0::from_f32(3.0).to_f32(), 4.0); // the tie rounds away
    /// assert!(E8M0::from_f32(0.0).is_nan()); // no zero
    /// ```
    E8M0: 8 bits, Pod, E8M0, max = "1.7014118346046923e38", min_positive = "5.877471754111438e-39", epsilon = "1.0",
    /// Rounds an `f32` to the nearest power of two, **ties away from zero**
    /// (`1.5 * 2^k` gives `2^(k+1)`), as the reference library (ml_dtypes)
    /// does on its `tie_away` rows: with no mantissa, "even" would only mean
    /// an even exponent.
    ///
    /// Like the reference: `x >= 1.5 * 2^127` and `+inf` give NaN (`0xff`);
    /// NaN gives NaN; zero, `-0` and every negative input give NaN (the
    /// format has no zero and no sign; rows `e8m0_nonpositive_to_nan`);
    /// positive values below `2^-127` give `0x00` = `2^-127`, the nearest
    /// value (rows `e8m0_underflow_to_min`).
    ///
    /// **Departure from the reference:** `f32` subnormals in `(2^-127,
    /// 2^-126)` round to nearest like every other input: below the midpoint
    /// `1.5 * 2^-127` they give `0x00`, from it on `0x01`. The reference
    /// gives `0x01` for all of them (rows `e8m0_f32sub_round_up`), which is
    /// not the nearest value.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E8M0;
    ///
    /// assert_eq!(E8M0::from_f32(6.0).to_f32(), 8.0); // tie away
    /// assert!(E8M0::from_f32(-1.0).is_nan());
    /// let just_above_min = f32::from_bits(0x0040_0001); // 2^-127 (1 + 2^-22)
    /// assert_eq!(E8M0::from_f32(just_above_min).to_bits(), 0x00);
    /// ```
    ;
    /// IEEE-style FP8 `E4M3` (ml_dtypes `float8_e4m3`, DLPack
    /// `kDLFloat8_e4m3`; no PyTorch dtype): 1 sign, 4 exponent and 3 mantissa
    /// bits, bias 7, IEEE 754 rules: infinities `0x78`/`0xf8`, NaNs
    /// `0x79..=0x7f` and `0xf9..=0xff`, `-0` at `0x80`; largest finite `240`,
    /// smallest positive `2^-9`.
    ///
    /// This is **not** the OCP/NVIDIA [`E4M3`] (`e4m3fn`, largest 448, no
    /// infinity); it spends its top binade on infinities and NaNs as `f16` does.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E4M3Ieee;
    ///
    /// assert_eq!(E4M3Ieee::MAX.to_f32(), 240.0);
    /// assert_eq!(E4M3Ieee::from_f32(248.0), E4M3Ieee::INFINITY); // the tie overflows
    /// assert_eq!(E4M3Ieee::from_f32_satfinite(1e6), E4M3Ieee::MAX);
    /// ```
    E4M3Ieee: 8 bits, Pod, E4M3_IEEE, max = "240.0", min_positive = "0.015625", epsilon = "0.125",
    /// Rounds an `f32` to nearest, ties to even, with IEEE 754 rules (as the
    /// reference library, ml_dtypes, whose rows for this format carry no
    /// note): `|x| >= 248` (the tie above `240`) gives infinity of the
    /// input's sign, NaN stays NaN (sign kept), `-0` stays `-0`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E4M3Ieee;
    ///
    /// assert_eq!(E4M3Ieee::from_f32(247.0).to_f32(), 240.0);
    /// assert_eq!(E4M3Ieee::from_f32(-300.0), E4M3Ieee::NEG_INFINITY);
    /// ```
    ;
    /// IEEE-style FP8 `E3M4` (ml_dtypes `float8_e3m4`, DLPack `kDLFloat8_e3m4`;
    /// no PyTorch dtype): 1 sign, 3 exponent and 4 mantissa bits, bias 3, IEEE
    /// 754 rules: infinities `0x70`/`0xf0`, NaNs `0x71..=0x7f` and
    /// `0xf1..=0xff`; largest finite `15.5`, smallest positive `2^-6`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E3M4;
    ///
    /// assert_eq!(E3M4::from_f32(3.1).to_f32(), 3.125);
    /// assert_eq!(E3M4::from_f32(15.75), E3M4::INFINITY);
    /// ```
    E3M4: 8 bits, Pod, E3M4, max = "15.5", min_positive = "0.25", epsilon = "0.0625",
    /// Rounds an `f32` to nearest, ties to even, with IEEE 754 rules (as
    /// ml_dtypes): `|x| >= 15.75` gives infinity of the input's sign, NaN
    /// stays NaN, `-0` stays `-0`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E3M4;
    ///
    /// assert_eq!(E3M4::from_f32(15.7).to_f32(), 15.5);
    /// assert_eq!(E3M4::from_f32(-16.0), E3M4::NEG_INFINITY);
    /// ```
    ;
    /// FP8 `E4M3FNUZ` (ml_dtypes and PyTorch `float8_e4m3fnuz`, DLPack
    /// `kDLFloat8_e4m3fnuz`, AMD's MI300 FP8, HIP `__hip_fp8_e4m3_fnuz`): 1
    /// sign, 4 exponent and 3 mantissa bits, **bias 8**; no infinity and no
    /// negative zero: `0x80` is the single NaN and every other code is finite.
    /// Largest `240` (`0x7f`), smallest normal `2^-7`, smallest positive
    /// `2^-10`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E4M3Fnuz;
    ///
    /// assert_eq!(E4M3Fnuz::MAX.to_f32(), 240.0);
    /// assert_eq!(E4M3Fnuz::from_f32(-0.0).to_bits(), 0x00); // no -0
    /// assert!(E4M3Fnuz::from_bits(0x80).is_nan());
    /// ```
    E4M3Fnuz: 8 bits, Pod, E4M3_FNUZ, max = "240.0", min_positive = "0.0078125", epsilon = "0.125",
    /// Rounds an `f32` to nearest, ties to even, with the reference
    /// library's (ml_dtypes) rules for a format with one NaN and no `-0`:
    ///
    /// - `|x| >= 248` (the tie above `240`: `0x7f` is odd, so the tie goes
    ///   up) and `±inf` give the NaN `0x80` (rows `fnuz_overflow_to_nan`,
    ///   `fnuz_inf_to_nan`); `240 < |x| < 248` gives `±240`.
    /// - Every NaN gives `0x80`, whatever its sign (rows `fnuz_nan`).
    /// - `-0.0`, and every negative value that rounds to zero, give `+0`
    ///   (rows `fnuz_neg_zero`); the sign survives on every nonzero result.
    ///
    /// bitpack follows the reference on all four tags: the first is the
    /// format's (there is no infinity to overflow to, and NaN is what a
    /// non-saturating cast can report), the others are forced by the codes.
    /// [`from_f32_satfinite`](E4M3Fnuz::from_f32_satfinite) gives `±240`
    /// for overflow and `±inf` instead, the signed rule of the other FP8
    /// formats.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E4M3Fnuz;
    ///
    /// assert_eq!(E4M3Fnuz::from_f32(247.0).to_f32(), 240.0);
    /// assert!(E4M3Fnuz::from_f32(-248.0).is_nan());
    /// assert_eq!(E4M3Fnuz::from_f32(-2f32.powi(-10)).to_bits(), 0x81);
    /// assert_eq!(E4M3Fnuz::from_f32(-1e-9).to_bits(), 0x00);
    /// ```
    ;
    /// FP8 `E5M2FNUZ` (ml_dtypes and PyTorch `float8_e5m2fnuz`, DLPack
    /// `kDLFloat8_e5m2fnuz`, AMD's MI300 FP8, HIP `__hip_fp8_e5m2_fnuz`): 1
    /// sign, 5 exponent and 2 mantissa bits, **bias 16**; no infinity, no
    /// negative zero, `0x80` the single NaN. Largest `57344` (`0x7f`), smallest
    /// normal `2^-15`, smallest positive `2^-17`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E5M2Fnuz;
    ///
    /// assert_eq!(E5M2Fnuz::MAX.to_f32(), 57344.0);
    /// assert!(E5M2Fnuz::from_f32(f32::INFINITY).is_nan()); // no infinity
    /// ```
    E5M2Fnuz: 8 bits, Pod, E5M2_FNUZ, max = "57344.0", min_positive = "0.000030517578125", epsilon = "0.25",
    /// Rounds an `f32` to nearest, ties to even, with the reference
    /// library's FNUZ rules (see [`E4M3Fnuz::from_f32`]): `|x| >= 61440`
    /// and `±inf` give the NaN `0x80`, every NaN gives `0x80`, `-0` and
    /// negative values that round to zero give `+0`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E5M2Fnuz;
    ///
    /// assert_eq!(E5M2Fnuz::from_f32(61439.0).to_f32(), 57344.0);
    /// assert!(E5M2Fnuz::from_f32(61440.0).is_nan());
    /// ```
    ;
    /// FP8 `E4M3B11FNUZ` (ml_dtypes `float8_e4m3b11fnuz`, DLPack
    /// `kDLFloat8_e4m3b11fnuz`, XLA `F8E4M3B11FNUZ`; no PyTorch dtype): 1 sign,
    /// 4 exponent and 3 mantissa bits, **bias 11**; no infinity, no negative
    /// zero, `0x80` the single NaN. Largest `30` (`0x7f`), smallest normal
    /// `2^-10`, smallest positive `2^-13`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E4M3B11Fnuz;
    ///
    /// assert_eq!(E4M3B11Fnuz::MAX.to_f32(), 30.0);
    /// assert_eq!(E4M3B11Fnuz::from_f32(0.1).to_f32(), 0.1015625);
    /// ```
    E4M3B11Fnuz: 8 bits, Pod, E4M3B11_FNUZ, max = "30.0", min_positive = "0.0009765625", epsilon = "0.125",
    /// Rounds an `f32` to nearest, ties to even, with the reference
    /// library's FNUZ rules (see [`E4M3Fnuz::from_f32`]): `|x| >= 31` and
    /// `±inf` give the NaN `0x80`, every NaN gives `0x80`, `-0` and negative
    /// values that round to zero give `+0`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E4M3B11Fnuz;
    ///
    /// assert_eq!(E4M3B11Fnuz::from_f32(30.9).to_f32(), 30.0);
    /// assert!(E4M3B11Fnuz::from_f32(31.0).is_nan());
    /// ```
    ;
}

into_f16!(
    E2M1,
    E2M3,
    E3M2,
    E4M3,
    E5M2,
    E4M3Ieee,
    E3M4,
    E4M3Fnuz,
    E5M2Fnuz,
    E4M3B11Fnuz
);

/// `ZERO` (`+0.0`), `MIN` and `MIN_POSITIVE_SUBNORMAL` of the formats with
/// a signed zero: `Type: MIN's code "its value", the subnormal's code "its
/// value";`.
macro_rules! signed_zero_consts {
    ($($t:ident: $min:literal $minv:literal, $sub:literal $subv:literal;)*) => {$(
        impl $t {
            /// `+0.0`.
            pub const ZERO: $t = $t(0);
            #[doc = concat!("Smallest finite value, `", $minv, "`.")]
            pub const MIN: $t = $t($min);
            #[doc = concat!("Smallest positive subnormal value, `", $subv, "`.")]
            pub const MIN_POSITIVE_SUBNORMAL: $t = $t($sub);
        }
    )*};
}

signed_zero_consts! {
    E2M1: 0xf "-6.0", 0x1 "0.5";
    E2M3: 0x3f "-7.5", 0x01 "0.125";
    E3M2: 0x3f "-28.0", 0x01 "0.0625";
    E4M3: 0xfe "-448.0", 0x01 "2^-9";
    E5M2: 0xfb "-57344.0", 0x01 "2^-16";
    E4M3Ieee: 0xf7 "-240.0", 0x01 "2^-9";
    E3M4: 0xef "-15.5", 0x01 "2^-6";
}

/// `NAN`, `INFINITY` and `NEG_INFINITY` of the formats with infinities:
/// `Type: NaN code (a note), +inf code, -inf code;`.
macro_rules! infinity_consts {
    ($($t:ident: $nan:literal $($note:literal)?, $inf:literal, $neg:literal;)*) => {$(
        impl $t {
            #[doc = concat!("The canonical quiet NaN, `", stringify!($nan), "`", $(" ", $note,)? ".")]
            pub const NAN: $t = $t($nan);
            #[doc = concat!("`+inf` (`", stringify!($inf), "`).")]
            pub const INFINITY: $t = $t($inf);
            #[doc = concat!("`-inf` (`", stringify!($neg), "`).")]
            pub const NEG_INFINITY: $t = $t($neg);
        }
    )*};
}

infinity_consts! {
    E4M3Ieee: 0x7c, 0x78, 0xf8;
    E3M4: 0x78, 0x70, 0xf0;
    E5M2: 0x7e "(`0x7d..=0x7f` and `0xfd..=0xff` are all NaN)", 0x7c, 0xfc;
}

impl E4M3 {
    /// NaN (`0x7f`; `0xff` is the other NaN).
    pub const NAN: E4M3 = E4M3(0x7f);
}

macro_rules! fnuz_consts {
    ($($t:ident: $min:literal, $sub:literal;)*) => {$(
        impl $t {
            /// `0.0` (the only zero).
            pub const ZERO: $t = $t(0);
            /// Smallest finite value (code `0xff`):
            #[doc = concat!("`", $min, "`.")]
            pub const MIN: $t = $t(0xff);
            /// Smallest positive subnormal value (code `0x01`):
            #[doc = concat!("`", $sub, "`.")]
            pub const MIN_POSITIVE_SUBNORMAL: $t = $t(0x01);
            /// The only NaN, `0x80`.
            pub const NAN: $t = $t(0x80);
        }
    )*};
}

fnuz_consts! {
    E4M3Fnuz: "-240.0", "2^-10";
    E5M2Fnuz: "-57344.0", "2^-17";
    E4M3B11Fnuz: "-30.0", "2^-13";
}

impl E8M0 {
    /// NaN, `0xff`.
    pub const NAN: E8M0 = E8M0(0xff);
    /// Smallest value, `2^-127` (code `0x00`; the same as
    /// [`MIN_POSITIVE`](E8M0::MIN_POSITIVE)).
    pub const MIN: E8M0 = E8M0(0x00);

    /// `2^exp`, or `None` when `exp` is outside `-127..=127`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E8M0;
    ///
    /// assert_eq!(E8M0::from_exponent(-3).unwrap().to_f32(), 0.125);
    /// assert_eq!(E8M0::from_exponent(128), None);
    /// ```
    pub const fn from_exponent(exp: i32) -> Option<E8M0> {
        if exp < -127 || exp > 127 {
            None
        } else {
            Some(E8M0((exp + 127) as u8))
        }
    }

    /// The exponent `k` of the value `2^k`, or `None` for NaN.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::E8M0;
    ///
    /// assert_eq!(E8M0::ONE.exponent(), Some(0));
    /// assert_eq!(E8M0::NAN.exponent(), None);
    /// ```
    pub const fn exponent(self) -> Option<i32> {
        if self.0 == 0xff {
            None
        } else {
            Some(self.0 as i32 - 127)
        }
    }
}

/// Rounds an `f32` to a `half::f16` with the PTX `cvt.rn.satfinite.f16x2.f32`
/// rule: to nearest, ties to even, magnitudes above `65504` (infinities
/// included) clamp to `±65504`, NaN stays NaN. (`half::f16::from_f32` is
/// the IEEE rule, which overflows to infinity.)
///
/// # Examples
///
/// ```
/// use bitpack::formats::f16_from_f32_satfinite;
///
/// assert_eq!(f16_from_f32_satfinite(1e6), half::f16::MAX);
/// assert_eq!(f16_from_f32_satfinite(-1.0), half::f16::NEG_ONE);
/// ```
#[cfg(feature = "half")]
pub const fn f16_from_f32_satfinite(x: f32) -> half::f16 {
    half::f16::from_bits(FloatFormat::F16.encode_f32(x, Mode::SatFinite) as u16)
}

/// Rounds an `f32` to a `half::bf16` with the PTX
/// `cvt.rn.satfinite.bf16x2.f32` rule: to nearest, ties to even, magnitudes
/// above `bf16::MAX` (infinities included) clamp to it with their sign, NaN
/// stays NaN.
///
/// # Examples
///
/// ```
/// use bitpack::formats::bf16_from_f32_satfinite;
///
/// assert_eq!(bf16_from_f32_satfinite(f32::INFINITY), half::bf16::MAX);
/// assert_eq!(bf16_from_f32_satfinite(f32::MIN), half::bf16::MIN);
/// ```
#[cfg(feature = "half")]
pub const fn bf16_from_f32_satfinite(x: f32) -> half::bf16 {
    half::bf16::from_bits(FloatFormat::BF16.encode_f32(x, Mode::SatFinite) as u16)
}
