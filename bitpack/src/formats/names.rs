//! Names of the shipped formats in the libraries and standards that use
//! them, and the lookup from a name to a [`FloatFormat`].

use super::spec::FloatFormat;

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
    /// `torch.` prefix (`"torch.float8_e5m2"`, also `"half"`), or a DLPack
    /// type-code name (`"kDLFloat8_e4m3fn"`, `"kDLBfloat"`). Names are
    /// case-sensitive, as in those libraries. `None` for any other name,
    /// including integer dtypes and `torch.float4_e2m1fn_x2` (a pair of
    /// values, not one).
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
    /// assert_eq!(FloatFormat::by_name("int4"), None);
    /// ```
    pub fn by_name(name: &str) -> Option<FloatFormat> {
        let bare = name.strip_prefix("torch.").unwrap_or(name);
        let torch = bare.len() != name.len();
        if bare == "half" {
            return Some(FloatFormat::F16);
        }
        TABLE.iter().find_map(|(format, n)| {
            let hit = if torch {
                n.pytorch == Some(bare)
            } else {
                n.ml_dtypes == bare || n.pytorch == Some(bare) || n.dlpack == Some(bare)
            };
            hit.then_some(*format)
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
