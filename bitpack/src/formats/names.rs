//! Names of the shipped formats in the libraries and standards that use
//! them, and the lookup from a name to a [`FloatFormat`].

use crate::float::FloatFormat;
use crate::{Error, Result};

/// What a shipped format is called elsewhere.
///
/// # Examples
///
/// ```
/// use bitpack::formats::FloatFormat;
///
/// let names = FloatFormat::E4M3_FNUZ.names().unwrap();
/// assert_eq!(names.ml_dtypes, "float8_e4m3fnuz");
/// assert_eq!(names.pytorch, Some("float8_e4m3fnuz"));
/// assert_eq!(names.dlpack, Some("kDLFloat8_e4m3fnuz"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FormatNames {
    /// The `ml_dtypes` (and JAX, `numpy` for `float16`) dtype name.
    pub ml_dtypes: &'static str,
    /// The `torch` dtype attribute (`torch.float8_e4m3fn`), where PyTorch has
    /// one for the single element. PyTorch's only FP4 dtype is
    /// `float4_e2m1fn_x2`, two [`E2M1`](crate::formats::E2M1) values per
    /// byte, low nibble first, which is not a name of the element.
    pub pytorch: Option<&'static str>,
    /// The DLPack `DLDataTypeCode` constant (`kDLFloat8_e4m3fn`), where
    /// DLPack has one of its own; `float16` is `kDLFloat` with 16 bits.
    pub dlpack: Option<&'static str>,
    /// The name in the standard or hardware documentation that defines it
    /// (OCP, NVIDIA, AMD, IEEE).
    pub standard: &'static str,
}

/// Every shipped format with its names, in the order of the DLPack codes.
const TABLE: [(FloatFormat, FormatNames); 13] = [
    (
        FloatFormat::E3M4,
        names(
            "float8_e3m4",
            None,
            Some("kDLFloat8_e3m4"),
            "IEEE-style FP8 E3M4",
        ),
    ),
    (
        FloatFormat::E4M3_IEEE,
        names(
            "float8_e4m3",
            None,
            Some("kDLFloat8_e4m3"),
            "IEEE-style FP8 E4M3",
        ),
    ),
    (
        FloatFormat::E4M3B11_FNUZ,
        names(
            "float8_e4m3b11fnuz",
            None,
            Some("kDLFloat8_e4m3b11fnuz"),
            "FP8 E4M3B11FNUZ (XLA F8E4M3B11FNUZ)",
        ),
    ),
    (
        FloatFormat::E4M3,
        names(
            "float8_e4m3fn",
            Some("float8_e4m3fn"),
            Some("kDLFloat8_e4m3fn"),
            "OCP FP8 E4M3 (CUDA __nv_fp8_e4m3)",
        ),
    ),
    (
        FloatFormat::E4M3_FNUZ,
        names(
            "float8_e4m3fnuz",
            Some("float8_e4m3fnuz"),
            Some("kDLFloat8_e4m3fnuz"),
            "AMD FP8 E4M3FNUZ (HIP __hip_fp8_e4m3_fnuz)",
        ),
    ),
    (
        FloatFormat::E5M2,
        names(
            "float8_e5m2",
            Some("float8_e5m2"),
            Some("kDLFloat8_e5m2"),
            "OCP FP8 E5M2 (CUDA __nv_fp8_e5m2)",
        ),
    ),
    (
        FloatFormat::E5M2_FNUZ,
        names(
            "float8_e5m2fnuz",
            Some("float8_e5m2fnuz"),
            Some("kDLFloat8_e5m2fnuz"),
            "AMD FP8 E5M2FNUZ (HIP __hip_fp8_e5m2_fnuz)",
        ),
    ),
    (
        FloatFormat::E8M0,
        names(
            "float8_e8m0fnu",
            Some("float8_e8m0fnu"),
            Some("kDLFloat8_e8m0fnu"),
            "OCP MX scale E8M0 (CUDA __nv_fp8_e8m0)",
        ),
    ),
    (
        FloatFormat::E2M3,
        names(
            "float6_e2m3fn",
            None,
            Some("kDLFloat6_e2m3fn"),
            "OCP MX FP6 E2M3 (CUDA __nv_fp6_e2m3)",
        ),
    ),
    (
        FloatFormat::E3M2,
        names(
            "float6_e3m2fn",
            None,
            Some("kDLFloat6_e3m2fn"),
            "OCP MX FP6 E3M2 (CUDA __nv_fp6_e3m2)",
        ),
    ),
    (
        FloatFormat::E2M1,
        names(
            "float4_e2m1fn",
            None,
            Some("kDLFloat4_e2m1fn"),
            "OCP MX FP4 E2M1 (CUDA __nv_fp4_e2m1)",
        ),
    ),
    (
        FloatFormat::BF16,
        names("bfloat16", Some("bfloat16"), Some("kDLBfloat"), "bfloat16"),
    ),
    (
        FloatFormat::F16,
        names("float16", Some("float16"), None, "IEEE 754 binary16"),
    ),
];

/// The crate's type name of each format of [`TABLE`], in its order.
const TYPE_NAMES: [&str; 13] = [
    "E3M4",
    "E4M3Ieee",
    "E4M3B11Fnuz",
    "E4M3",
    "E4M3Fnuz",
    "E5M2",
    "E5M2Fnuz",
    "E8M0",
    "E2M3",
    "E3M2",
    "E2M1",
    "bf16",
    "f16",
];

/// Block formats (values plus scales), which are not element formats, and
/// what to use for each.
const BLOCK_FORMATS: [(&str, &str); 6] = [
    (
        "mxfp4",
        "MXFP4 is a block format: formats::MxArray<E2M1> (32-value blocks of E2M1 values, \
         float4_e2m1fn, with E8M0 scales)",
    ),
    (
        "mxfp6_e2m3",
        "MXFP6 E2M3 is a block format: formats::MxArray<E2M3> (E2M3 values, float6_e2m3fn)",
    ),
    (
        "mxfp6_e3m2",
        "MXFP6 E3M2 is a block format: formats::MxArray<E3M2> (E3M2 values, float6_e3m2fn)",
    ),
    (
        "mxfp8_e4m3",
        "MXFP8 E4M3 is a block format: formats::MxArray<E4M3> (E4M3 values, float8_e4m3fn)",
    ),
    (
        "mxfp8_e5m2",
        "MXFP8 E5M2 is a block format: formats::MxArray<E5M2> (E5M2 values, float8_e5m2)",
    ),
    (
        "nvfp4",
        "NVFP4 is a block format: formats::Nvfp4Array (16-value blocks of E2M1 values, \
         float4_e2m1fn, with E4M3 scales and an f32 tensor scale)",
    ),
];

/// `name` without `prefix`, compared ignoring ASCII case.
fn strip_prefix_ignore_case<'a>(name: &'a str, prefix: &str) -> Option<&'a str> {
    let head = name.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &name[prefix.len()..])
}

/// The names [`Error::UnknownFormat`] lists, from the table (the error's
/// module, above the formats, writes the same list out as `KNOWN_FORMATS`).
#[cfg(test)]
fn known_formats() -> alloc::string::String {
    use core::fmt::Write;
    let mut out = alloc::string::String::new();
    for (i, ((_, n), type_name)) in TABLE.iter().zip(TYPE_NAMES).enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        write!(out, "{sep}{} ({type_name}", n.ml_dtypes).unwrap();
        if let Some(p) = n.pytorch.filter(|&p| p != n.ml_dtypes) {
            write!(out, ", torch.{p}").unwrap();
        }
        if let Some(d) = n.dlpack {
            write!(out, ", {d}").unwrap();
        }
        out.push(')');
    }
    out
}

#[cfg(test)]
#[test]
fn the_error_lists_the_names_of_the_table() {
    assert_eq!(crate::error::KNOWN_FORMATS, known_formats());
}

const fn names(
    ml_dtypes: &'static str,
    pytorch: Option<&'static str>,
    dlpack: Option<&'static str>,
    standard: &'static str,
) -> FormatNames {
    FormatNames {
        ml_dtypes,
        pytorch,
        dlpack,
        standard,
    }
}

impl FloatFormat {
    /// Every format the crate ships (the FP4/FP6/FP8 element types, E8M0,
    /// `bfloat16` and `float16`), each with its [names](FormatNames).
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::shipped().len(), 13);
    /// for (format, names) in FloatFormat::shipped() {
    ///     assert_eq!(FloatFormat::by_name(names.ml_dtypes), Some(*format));
    /// }
    /// ```
    pub const fn shipped() -> &'static [(FloatFormat, FormatNames)] {
        &TABLE
    }

    /// The format a dtype name stands for: an `ml_dtypes` name
    /// (`"float8_e4m3fnuz"`), a PyTorch dtype name with or without the
    /// `torch.` prefix (`"torch.float8_e5m2"`, also `"half"`), a DLPack
    /// type-code name (`"kDLFloat8_e4m3fn"`, `"kDLBfloat"`), or the crate's
    /// own type name (`"E2M1"`, `"E4M3Fnuz"`, `"f16"`, `"bf16"`). Case is
    /// ignored (`"e2m1"`, `"FLOAT8_E5M2"`); no two names differ only in
    /// case. `None` for any other name, including integer dtypes,
    /// `torch.float4_e2m1fn_x2` (a pair of values, not one) and block
    /// formats such as `"mxfp4"` and `"nvfp4"`: those are values plus
    /// scales, and handing back their element format alone would drop the
    /// scales without a word. [`try_by_name`](Self::try_by_name) says, for
    /// them, which array and element format to use.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::by_name("float8_e4m3fnuz"), Some(FloatFormat::E4M3_FNUZ));
    /// assert_eq!(FloatFormat::by_name("torch.float8_e4m3fn"), Some(FloatFormat::E4M3));
    /// assert_eq!(FloatFormat::by_name("kDLFloat4_e2m1fn"), Some(FloatFormat::E2M1));
    /// assert_eq!(FloatFormat::by_name("float8_e4m3"), Some(FloatFormat::E4M3_IEEE));
    /// assert_eq!(FloatFormat::by_name("E2M1"), Some(FloatFormat::E2M1));
    /// assert_eq!(FloatFormat::by_name("e2m1"), Some(FloatFormat::E2M1));
    /// assert_eq!(FloatFormat::by_name("int4"), None);
    /// assert_eq!(FloatFormat::by_name("mxfp4"), None); // a block format
    /// ```
    pub fn by_name(name: &str) -> Option<FloatFormat> {
        let (bare, torch) = match strip_prefix_ignore_case(name, "torch.") {
            Some(bare) => (bare, true),
            None => (name, false),
        };
        if bare.eq_ignore_ascii_case("half") {
            return Some(FloatFormat::F16);
        }
        let is = |n: Option<&str>| n.is_some_and(|n| n.eq_ignore_ascii_case(bare));
        TABLE
            .iter()
            .zip(TYPE_NAMES)
            .find_map(|((format, n), type_name)| {
                let hit = if torch {
                    is(n.pytorch)
                } else {
                    is(Some(n.ml_dtypes)) || is(n.pytorch) || is(n.dlpack) || is(Some(type_name))
                };
                hit.then_some(*format)
            })
    }

    /// [`by_name`](Self::by_name), with an [`Error::UnknownFormat`] for a
    /// name it does not know: for a block format (`"mxfp4"`, `"mxfp8_e4m3"`,
    /// `"nvfp4"`, ...) the message names the array and the element format to
    /// use, for any other name it lists the names that are known.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::Error;
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::try_by_name("E5M2")?, FloatFormat::E5M2);
    /// let e = FloatFormat::try_by_name("nvfp4").unwrap_err();
    /// assert!(matches!(e, Error::UnknownFormat { block: Some(_) }));
    /// assert!(e.to_string().contains("Nvfp4Array"));
    /// let e = FloatFormat::try_by_name("fp4").unwrap_err();
    /// assert!(e.to_string().contains("float4_e2m1fn"));
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn try_by_name(name: &str) -> Result<FloatFormat> {
        Self::by_name(name).ok_or_else(|| Error::UnknownFormat {
            block: BLOCK_FORMATS
                .iter()
                .find(|(block, _)| block.eq_ignore_ascii_case(name))
                .map(|&(_, hint)| hint),
        })
    }

    /// The `ml_dtypes` name of a shipped format (the reverse of
    /// [`by_name`](Self::by_name)), `None` for any other description.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::{E5M2Fnuz, FloatFormat, MiniFloat};
    ///
    /// assert_eq!(E5M2Fnuz::FORMAT.name(), Some("float8_e5m2fnuz"));
    /// assert_eq!(FloatFormat::ieee(2, 5).name(), None);
    /// ```
    pub fn name(&self) -> Option<&'static str> {
        self.names().map(|n| n.ml_dtypes)
    }

    /// All the [names](FormatNames) of a shipped format, `None` for any
    /// other description.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::formats::FloatFormat;
    ///
    /// assert_eq!(FloatFormat::E8M0.names().unwrap().pytorch, Some("float8_e8m0fnu"));
    /// assert_eq!(FloatFormat::E2M1.names().unwrap().pytorch, None);
    /// ```
    pub fn names(&self) -> Option<FormatNames> {
        TABLE
            .iter()
            .find_map(|(format, n)| (format == self).then_some(*n))
    }
}
