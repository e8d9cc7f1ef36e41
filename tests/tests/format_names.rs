//! `FloatFormat::by_name` and `try_by_name` on the crate's own type names,
//! in any case, and on block-format names, which are not element formats:
//! `try_by_name` says what to use for them, and lists the known names for
//! any other name.

use bitpack::Error;
use bitpack::formats::{
    E2M1, E2M3, E3M2, E3M4, E4M3, E4M3B11Fnuz, E4M3Fnuz, E4M3Ieee, E5M2, E5M2Fnuz, E8M0,
    FloatFormat, MiniFloat,
};

/// Every shipped type by its Rust name, as written, upper and lower case.
#[test]
fn type_names_in_any_case() {
    let types = [
        ("E2M1", E2M1::FORMAT),
        ("E2M3", E2M3::FORMAT),
        ("E3M2", E3M2::FORMAT),
        ("E4M3", E4M3::FORMAT),
        ("E5M2", E5M2::FORMAT),
        ("E4M3Ieee", E4M3Ieee::FORMAT),
        ("E3M4", E3M4::FORMAT),
        ("E4M3Fnuz", E4M3Fnuz::FORMAT),
        ("E5M2Fnuz", E5M2Fnuz::FORMAT),
        ("E4M3B11Fnuz", E4M3B11Fnuz::FORMAT),
        ("E8M0", E8M0::FORMAT),
        ("f16", FloatFormat::F16),
        ("bf16", FloatFormat::BF16),
    ];
    assert_eq!(types.len(), FloatFormat::shipped().len());
    for (name, format) in types {
        for n in [name.to_string(), name.to_lowercase(), name.to_uppercase()] {
            assert_eq!(FloatFormat::by_name(&n), Some(format), "{n}");
            assert_eq!(FloatFormat::try_by_name(&n), Ok(format), "{n}");
        }
    }
    assert_eq!(FloatFormat::by_name("e2m1"), Some(FloatFormat::E2M1));
    // `E4M3` is the crate's (OCP `float8_e4m3fn`); `float8_e4m3` is IEEE-style.
    assert_eq!(FloatFormat::by_name("e4m3"), Some(FloatFormat::E4M3));
    assert_eq!(
        FloatFormat::by_name("float8_e4m3"),
        Some(FloatFormat::E4M3_IEEE)
    );
}

/// The other libraries' names are found in any case too, and no two names
/// of different formats differ only in case.
#[test]
fn library_names_in_any_case() {
    for (format, names) in FloatFormat::shipped() {
        for n in [Some(names.ml_dtypes), names.pytorch, names.dlpack]
            .into_iter()
            .flatten()
        {
            assert_eq!(
                FloatFormat::by_name(&n.to_uppercase()),
                Some(*format),
                "{n}"
            );
            assert_eq!(
                FloatFormat::by_name(&n.to_lowercase()),
                Some(*format),
                "{n}"
            );
        }
        if let Some(p) = names.pytorch {
            assert_eq!(FloatFormat::by_name(&format!("TORCH.{p}")), Some(*format));
        }
    }
    assert_eq!(FloatFormat::by_name("HALF"), Some(FloatFormat::F16));
    // Still exact apart from case: no trimming, no prefixes of names.
    for bad in ["", " e2m1", "e2m1 ", "e2", "float8", "torch.", "torch.E2M1"] {
        assert_eq!(FloatFormat::by_name(bad), None, "{bad:?}");
    }
}

/// Block formats are values plus scales: `by_name` does not hand back the
/// element format alone, and `try_by_name` names the array to use.
#[test]
fn block_formats_are_not_element_formats() {
    for (name, array, element) in [
        ("mxfp4", "MxArray<E2M1>", "float4_e2m1fn"),
        ("MXFP4", "MxArray<E2M1>", "float4_e2m1fn"),
        ("mxfp6_e2m3", "MxArray<E2M3>", "float6_e2m3fn"),
        ("mxfp6_e3m2", "MxArray<E3M2>", "float6_e3m2fn"),
        ("mxfp8_e4m3", "MxArray<E4M3>", "float8_e4m3fn"),
        ("mxfp8_e5m2", "MxArray<E5M2>", "float8_e5m2"),
        ("nvfp4", "Nvfp4Array", "float4_e2m1fn"),
        ("NVFP4", "Nvfp4Array", "float4_e2m1fn"),
    ] {
        assert_eq!(FloatFormat::by_name(name), None, "{name}");
        let e = FloatFormat::try_by_name(name).unwrap_err();
        assert!(
            matches!(e, Error::UnknownFormat { block: Some(_) }),
            "{e:?}"
        );
        let msg = e.to_string();
        assert!(msg.contains("is a block format"), "{msg}");
        assert!(msg.contains(array), "{msg}");
        assert!(msg.contains(element), "{msg}");
    }
}

/// Any other unknown name: the message lists every shipped format by its
/// ml_dtypes and type names.
#[test]
fn unknown_names_list_the_known_ones() {
    for bad in ["int4", "fp4", "float8", "", "mxfp"] {
        let e = FloatFormat::try_by_name(bad).unwrap_err();
        assert_eq!(e, Error::UnknownFormat { block: None }, "{bad:?}");
        let msg = e.to_string();
        assert!(msg.starts_with("unknown float format name"), "{msg}");
        for (_, names) in FloatFormat::shipped() {
            assert!(
                msg.contains(names.ml_dtypes),
                "{msg} lacks {}",
                names.ml_dtypes
            );
        }
        for t in [
            "(E2M1",
            "(E4M3Fnuz",
            "(bf16",
            "kDLFloat8_e4m3fn",
            "kDLBfloat",
        ] {
            assert!(msg.contains(t), "{msg} lacks {t}");
        }
    }
}
