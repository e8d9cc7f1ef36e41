//! The float formats against the reference vectors in
//! `tests/conformance/` (the committed reference vectors): every code decodes to the reference value, and
//! every input row encodes to the reference code in both modes, except where
//! bitpack documents a different rule (checked here on exactly those rows).

use bitpack::formats::{
    E2M1, E2M3, E3M2, E3M4, E4M3, E4M3B11Fnuz, E4M3Fnuz, E4M3Ieee, E5M2, E5M2Fnuz, E8M0,
    FloatFormat, MiniFloat, Mode, bf16_from_f32_satfinite, f16_from_f32_satfinite,
};
use bitpack_tests::{hex, read_tsv};
use half::{bf16, f16};

/// One encode row.
struct Row {
    input: f32,
    output: u32,
    out_is_nan: bool,
    kind: String,
    note: String,
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

fn encode_rows(file: &str) -> Vec<Row> {
    let (header, rows) = read_tsv(file);
    let (i, o, n, k, t) = (
        column(&header, "input_f32"),
        column(&header, "output"),
        column(&header, "out_is_nan"),
        column(&header, "kind"),
        column(&header, "note"),
    );
    rows.iter()
        .map(|r| Row {
            input: f32::from_bits(hex(&r[i]) as u32),
            output: hex(&r[o]) as u32,
            out_is_nan: r[n] == "1",
            kind: r[k].clone(),
            note: r[t].clone(),
        })
        .collect()
}

/// `(code, f32 value bits, is_nan)` for every row of a decode table.
fn decode_rows(file: &str) -> Vec<(u32, u32, bool)> {
    let (header, rows) = read_tsv(file);
    let (b, f, n) = (
        column(&header, "bits"),
        column(&header, "f32_bits"),
        column(&header, "is_nan"),
    );
    rows.iter()
        .map(|r| (hex(&r[b]) as u32, hex(&r[f]) as u32, r[n] == "1"))
        .collect()
}

/// Compares a produced code with the expected one: NaN-ness only where the
/// expected code is a NaN.
fn assert_code(
    what: &str,
    row: &Row,
    got: u32,
    want: u32,
    want_nan: bool,
    is_nan: impl Fn(u32) -> bool,
) {
    if want_nan {
        assert!(
            is_nan(got),
            "{what}: input {:#010x} ({:e}, {}): got {got:#x}, want NaN",
            row.input.to_bits(),
            row.input,
            row.kind
        );
    } else {
        assert_eq!(
            got,
            want,
            "{what}: input {:#010x} ({:e}, {} {}): got {got:#x}, want {want:#x}",
            row.input.to_bits(),
            row.input,
            row.kind,
            row.note
        );
    }
}

/// The E8M0 rule bitpack uses on the `e8m0_f32sub_round_up` rows (inputs in
/// `(2^-127, 2^-126)`): round to nearest, the tie `1.5 * 2^-127` away.
fn e8m0_f32sub_clean(x: f32) -> u32 {
    let lo = 2f64.powi(-127);
    assert!(
        (x as f64) > lo && (x as f64) < 2.0 * lo,
        "{x:e} is not an f32sub row"
    );
    if (x as f64) < 1.5 * lo { 0x00 } else { 0x01 }
}

/// Checks one format against its three files.
fn check<F: MiniFloat>(prefix: &str, inherent: Inherent<F>) {
    let fmt = F::FORMAT;
    let is_nan = |c: u32| fmt.is_nan_code(c);

    // Decode: every code, through the trait, the inherent method and the
    // format description.
    let decode = decode_rows(&format!("{prefix}.decode.tsv"));
    assert_eq!(decode.len(), 1 << F::BITS, "{prefix}: decode table size");
    for &(code, want, nan) in &decode {
        let x = F::from_raw_bits(code as u8);
        for got in [x.to_f32(), (inherent.to_f32)(x), fmt.decode_f32(code)] {
            if nan {
                assert!(got.is_nan(), "{prefix}: {code:#x} should decode to NaN");
            } else {
                assert_eq!(
                    got.to_bits(),
                    want,
                    "{prefix}: {code:#x} decodes to {got:e}"
                );
            }
        }
        assert_eq!(x.is_nan(), nan, "{prefix}: is_nan({code:#x})");
        assert_eq!((inherent.is_nan)(x), nan, "{prefix}: is_nan({code:#x})");
        if !nan {
            assert_eq!(x.to_f64(), x.to_f32() as f64, "{prefix}: to_f64({code:#x})");
        }
    }

    for (file, mode) in [
        ("encode_rn", Mode::Nearest),
        ("encode_satfinite", Mode::SatFinite),
    ] {
        let rows = encode_rows(&format!("{prefix}.{file}.tsv"));
        let mut departures = 0;
        for row in &rows {
            let x = row.input;
            let (want, want_nan) = if row.note == "e8m0_f32sub_round_up" {
                departures += 1;
                (e8m0_f32sub_clean(x), false)
            } else {
                (row.output, row.out_is_nan)
            };
            let what = format!("{prefix}.{file}");
            let (trait_f32, inh_f32, trait_f64) = match mode {
                Mode::Nearest => (
                    F::from_f32(x),
                    (inherent.from_f32)(x),
                    F::from_f64(x as f64),
                ),
                Mode::SatFinite => (
                    F::from_f32_satfinite(x),
                    (inherent.from_f32_satfinite)(x),
                    F::from_f64_satfinite(x as f64),
                ),
            };
            for got in [trait_f32, inh_f32, trait_f64] {
                assert_code(&what, row, got.raw_bits() as u32, want, want_nan, is_nan);
            }
            assert_code(&what, row, fmt.encode_f32(x, mode), want, want_nan, is_nan);
            // The same value given as f16 or bf16, where it is one exactly.
            let h = f16::from_f32(x);
            if h.to_f32().to_bits() == x.to_bits() || (x.is_nan() && h.is_nan()) {
                let got = match mode {
                    Mode::Nearest => (inherent.from_f16)(h),
                    Mode::SatFinite => (inherent.from_f16_satfinite)(h),
                };
                assert_code(&what, row, got.raw_bits() as u32, want, want_nan, is_nan);
            }
            let b = bf16::from_f32(x);
            if b.to_f32().to_bits() == x.to_bits() || (x.is_nan() && b.is_nan()) {
                let got = match mode {
                    Mode::Nearest => (inherent.from_bf16)(b),
                    Mode::SatFinite => (inherent.from_bf16_satfinite)(b),
                };
                assert_code(&what, row, got.raw_bits() as u32, want, want_nan, is_nan);
            }
        }
        if prefix == "float8_e8m0fnu" {
            // The departure is exercised, and only there.
            assert!(departures > 0, "{prefix}.{file}: no f32sub rows");
        }
    }
}

/// The inherent methods of a shipped type (the same rules as the trait's,
/// checked separately because they are what users call).
struct Inherent<F> {
    to_f32: fn(F) -> f32,
    is_nan: fn(F) -> bool,
    from_f32: fn(f32) -> F,
    from_f32_satfinite: fn(f32) -> F,
    from_f16: fn(f16) -> F,
    from_f16_satfinite: fn(f16) -> F,
    from_bf16: fn(bf16) -> F,
    from_bf16_satfinite: fn(bf16) -> F,
}

macro_rules! inherent {
    ($t:ident) => {
        Inherent::<$t> {
            to_f32: $t::to_f32,
            is_nan: $t::is_nan,
            from_f32: $t::from_f32,
            from_f32_satfinite: $t::from_f32_satfinite,
            from_f16: $t::from_f16,
            from_f16_satfinite: $t::from_f16_satfinite,
            from_bf16: $t::from_bf16,
            from_bf16_satfinite: $t::from_bf16_satfinite,
        }
    };
}

#[test]
fn e2m1() {
    check::<E2M1>("float4_e2m1fn", inherent!(E2M1));
}

#[test]
fn e2m3() {
    check::<E2M3>("float6_e2m3fn", inherent!(E2M3));
}

#[test]
fn e3m2() {
    check::<E3M2>("float6_e3m2fn", inherent!(E3M2));
}

#[test]
fn e4m3() {
    check::<E4M3>("float8_e4m3fn", inherent!(E4M3));
}

#[test]
fn e5m2() {
    check::<E5M2>("float8_e5m2", inherent!(E5M2));
}

#[test]
fn e8m0() {
    check::<E8M0>("float8_e8m0fnu", inherent!(E8M0));
}

#[test]
fn e4m3_ieee() {
    check::<E4M3Ieee>("float8_e4m3", inherent!(E4M3Ieee));
}

#[test]
fn e3m4() {
    check::<E3M4>("float8_e3m4", inherent!(E3M4));
}

#[test]
fn e4m3_fnuz() {
    check::<E4M3Fnuz>("float8_e4m3fnuz", inherent!(E4M3Fnuz));
}

#[test]
fn e5m2_fnuz() {
    check::<E5M2Fnuz>("float8_e5m2fnuz", inherent!(E5M2Fnuz));
}

#[test]
fn e4m3b11_fnuz() {
    check::<E4M3B11Fnuz>("float8_e4m3b11fnuz", inherent!(E4M3B11Fnuz));
}

/// The FNUZ policy rows, one tag at a time, with bitpack's rule for each
/// (the reference's, in round-to-nearest): NaN and infinity inputs and
/// finite overflow give the single NaN `0x80`; `-0` and negative values
/// that round to zero give `+0`. The satfinite table (same tags on the same
/// rows) gives `+-max` for overflow and infinity, and keeps `0x80` for NaN.
#[test]
fn fnuz_note_rules() {
    fn rules<F: MiniFloat>(prefix: &str) {
        let fmt = F::FORMAT;
        let max = fmt.decode_f64(fmt.max_code());
        // The overflow threshold: max plus half the top binade's step.
        let tie = max + 2f64.powi(fmt.max_exponent() - fmt.mantissa_bits as i32) / 2.0;
        for (file, mode) in [
            ("encode_rn", Mode::Nearest),
            ("encode_satfinite", Mode::SatFinite),
        ] {
            let rows = encode_rows(&format!("{prefix}.{file}.tsv"));
            let mut counts = [0usize; 4];
            for r in &rows {
                let x = r.input;
                let got = fmt.encode_f32(x, mode);
                let sat = matches!(mode, Mode::SatFinite);
                let sign = if x.is_sign_negative() { 0x80 } else { 0 };
                match r.note.as_str() {
                    "fnuz_nan" => {
                        counts[0] += 1;
                        assert!(x.is_nan(), "{prefix}.{file}: {x:e}");
                        assert_eq!(got, 0x80, "{prefix}.{file}: NaN {:#x}", x.to_bits());
                    }
                    "fnuz_inf_to_nan" => {
                        counts[1] += 1;
                        assert!(x.is_infinite(), "{prefix}.{file}: {x:e}");
                        let want = if sat { sign | fmt.max_code() } else { 0x80 };
                        assert_eq!(got, want, "{prefix}.{file}: {x:e}");
                    }
                    "fnuz_overflow_to_nan" => {
                        counts[2] += 1;
                        assert!(x.is_finite() && (x.abs() as f64) >= tie, "{x:e}");
                        let want = if sat { sign | fmt.max_code() } else { 0x80 };
                        assert_eq!(got, want, "{prefix}.{file}: {x:e}");
                    }
                    "fnuz_neg_zero" => {
                        counts[3] += 1;
                        let half_min = fmt.decode_f64(1) / 2.0;
                        assert!(
                            x.is_sign_negative() && (x.abs() as f64) <= half_min,
                            "{x:e}"
                        );
                        assert_eq!(got, 0x00, "{prefix}.{file}: {x:e}");
                    }
                    "-" => assert!(
                        !x.is_nan() && !x.is_infinite() && (x.abs() as f64) < tie,
                        "{prefix}.{file}: untagged special row {x:e}"
                    ),
                    other => panic!("{prefix}.{file}: unexpected tag {other}"),
                }
                assert_eq!(got, r.output, "{prefix}.{file}: {x:e} ({})", r.note);
            }
            // Every policy appears (four NaN inputs; both infinities in RN;
            // overflow probes; -0 and tiny negatives).
            assert_eq!(counts[0], 4, "{prefix}.{file}: fnuz_nan rows");
            assert!(counts[3] >= 3, "{prefix}.{file}: fnuz_neg_zero rows");
            assert_eq!(counts[1], 2, "{prefix}.{file}: fnuz_inf_to_nan rows");
            assert!(counts[2] >= 8, "{prefix}.{file}: fnuz_overflow_to_nan rows");
        }
    }
    rules::<E4M3Fnuz>("float8_e4m3fnuz");
    rules::<E5M2Fnuz>("float8_e5m2fnuz");
    rules::<E4M3B11Fnuz>("float8_e4m3b11fnuz");
}

/// Every note tag the reference uses is one bitpack decided on: the tags and
/// the formats they occur in are exactly these.
#[test]
fn note_tags_are_the_known_ones() {
    let expected: &[(&str, &[&str])] = &[
        ("float4_e2m1fn", &["nan_to_zero"]),
        ("float6_e2m3fn", &["nan_to_zero"]),
        ("float6_e3m2fn", &["nan_to_zero"]),
        ("float8_e4m3fn", &[]),
        ("float8_e5m2", &[]),
        (
            "float8_e8m0fnu",
            &[
                "e8m0_f32sub_round_up",
                "e8m0_nonpositive_to_nan",
                "e8m0_underflow_to_min",
                "tie_away",
            ],
        ),
        ("bfloat16", &[]),
        ("float16", &[]),
        ("float8_e4m3", &[]),
        ("float8_e3m4", &[]),
    ];
    // The same rows carry the tags in both files (they mark where the RN
    // result departs from IEEE-style rules); `fnuz_note_rules` checks what
    // each file's output is.
    const FNUZ: &[&str] = &[
        "fnuz_inf_to_nan",
        "fnuz_nan",
        "fnuz_neg_zero",
        "fnuz_overflow_to_nan",
    ];
    for prefix in ["float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz"] {
        for file in ["encode_rn", "encode_satfinite"] {
            let mut seen: Vec<String> = encode_rows(&format!("{prefix}.{file}.tsv"))
                .into_iter()
                .map(|r| r.note)
                .filter(|n| n != "-")
                .collect();
            seen.sort();
            seen.dedup();
            assert_eq!(seen, FNUZ, "{prefix}.{file}");
        }
    }
    for (prefix, tags) in expected {
        for file in ["encode_rn", "encode_satfinite"] {
            let mut seen: Vec<String> = encode_rows(&format!("{prefix}.{file}.tsv"))
                .into_iter()
                .map(|r| r.note)
                .filter(|n| n != "-")
                .collect();
            seen.sort();
            seen.dedup();
            assert_eq!(seen, *tags, "{prefix}.{file}");
        }
    }
}

/// The `nan_to_zero` rows: bitpack matches the reference (a zero of the
/// opposite sign) in round-to-nearest, and gives +max in satfinite.
#[test]
fn nan_to_zero_rule() {
    fn nan_rows<F: MiniFloat>(prefix: &str) {
        for file in ["encode_rn", "encode_satfinite"] {
            let rows = encode_rows(&format!("{prefix}.{file}.tsv"));
            let nan_rows: Vec<&Row> = rows.iter().filter(|r| r.note == "nan_to_zero").collect();
            assert_eq!(nan_rows.len(), 4, "{prefix}.{file}");
            for r in nan_rows {
                assert!(r.input.is_nan());
                let rn = F::from_f32(r.input);
                assert_eq!(rn.to_f32(), 0.0);
                assert_eq!(
                    rn.to_f32().is_sign_negative(),
                    !r.input.is_sign_negative(),
                    "{prefix}: NaN {:#x}",
                    r.input.to_bits()
                );
                let sat = F::from_f32_satfinite(r.input);
                assert_eq!(sat.raw_bits() as u32, F::FORMAT.max_code());
            }
        }
    }
    nan_rows::<E2M1>("float4_e2m1fn");
    nan_rows::<E2M3>("float6_e2m3fn");
    nan_rows::<E3M2>("float6_e3m2fn");
}

/// The E8M0 note tags, one by one, with bitpack's rule for each.
#[test]
fn e8m0_note_rules() {
    let rows = encode_rows("float8_e8m0fnu.encode_rn.tsv");
    let tagged = |tag: &'static str| rows.iter().filter(move |r| r.note == tag);
    // tie_away: reference rule (the input is an exact midpoint; the result
    // is the larger neighbour).
    let mut n = 0;
    for r in tagged("tie_away") {
        n += 1;
        let got = E8M0::from_f32(r.input);
        let x = r.input as f64;
        let k = x.log2().floor() as i32;
        assert_eq!(x, 1.5 * 2f64.powi(k), "{:e} is not a tie", x);
        if k + 1 > 127 {
            assert!(got.is_nan(), "{x:e}");
        } else {
            assert_eq!(got.to_f64(), 2f64.powi(k + 1), "{x:e}");
        }
    }
    assert!(n > 100);
    // nonpositive: NaN, as the reference.
    for r in tagged("e8m0_nonpositive_to_nan") {
        assert!(r.input <= 0.0 || r.input.is_sign_negative());
        assert!(E8M0::from_f32(r.input).is_nan(), "{:e}", r.input);
    }
    // underflow: the smallest value, as the reference.
    for r in tagged("e8m0_underflow_to_min") {
        assert!(r.input > 0.0 && (r.input as f64) < 2f64.powi(-127));
        assert_eq!(E8M0::from_f32(r.input).to_bits(), 0x00);
    }
    // f32 subnormals above 2^-127: round to nearest, departing from the
    // reference below the midpoint.
    let mut departed = 0;
    for r in tagged("e8m0_f32sub_round_up") {
        let got = E8M0::from_f32(r.input).to_bits() as u32;
        assert_eq!(got, e8m0_f32sub_clean(r.input), "{:e}", r.input);
        departed += (got != r.output) as usize;
    }
    assert!(departed >= 5, "the departure should show on most rows");
}

/// `half`'s conversions, which the crate relies on, and the satfinite
/// helpers, against the `bfloat16`/`float16` vectors; the same vectors
/// check `FloatFormat::F16`/`BF16` through the crate's rounding routine.
#[test]
fn half_formats() {
    for (prefix, fmt) in [
        ("bfloat16", FloatFormat::BF16),
        ("float16", FloatFormat::F16),
    ] {
        let is_nan = |c: u32| fmt.is_nan_code(c);
        for (code, want, nan) in decode_rows(&format!("{prefix}.decode.tsv")) {
            let via_half = match prefix {
                "bfloat16" => bf16::from_bits(code as u16).to_f32(),
                _ => f16::from_bits(code as u16).to_f32(),
            };
            for got in [via_half, fmt.decode_f32(code)] {
                if nan {
                    assert!(got.is_nan(), "{prefix}: {code:#06x}");
                } else {
                    assert_eq!(got.to_bits(), want, "{prefix}: {code:#06x}");
                }
            }
        }
        for (file, mode) in [
            ("encode_rn", Mode::Nearest),
            ("encode_satfinite", Mode::SatFinite),
        ] {
            let what = format!("{prefix}.{file}");
            for row in encode_rows(&format!("{prefix}.{file}.tsv")) {
                let x = row.input;
                let via_half = match (prefix, mode) {
                    ("bfloat16", Mode::Nearest) => bf16::from_f32(x).to_bits(),
                    ("bfloat16", Mode::SatFinite) => bf16_from_f32_satfinite(x).to_bits(),
                    (_, Mode::Nearest) => f16::from_f32(x).to_bits(),
                    (_, Mode::SatFinite) => f16_from_f32_satfinite(x).to_bits(),
                };
                assert_code(
                    &what,
                    &row,
                    via_half as u32,
                    row.output,
                    row.out_is_nan,
                    is_nan,
                );
                assert_code(
                    &what,
                    &row,
                    fmt.encode_f32(x, mode),
                    row.output,
                    row.out_is_nan,
                    is_nan,
                );
                assert_code(
                    &what,
                    &row,
                    fmt.encode_f64(x as f64, mode),
                    row.output,
                    row.out_is_nan,
                    is_nan,
                );
            }
        }
    }
}

/// The overflow summary probes, both modes, through the shipped types.
#[test]
fn overflow_summary() {
    overflow_probes("overflow_summary.tsv", 88);
}

/// The same probes for float8_e4m3, float8_e3m4 and the FNUZ formats.
#[test]
fn overflow_summary_more() {
    overflow_probes("overflow_summary_more.tsv", 55);
}

/// Every row of an overflow summary, both columns, through the format found
/// by its ml_dtypes name.
fn overflow_probes(file: &str, expected_rows: usize) {
    let (header, rows) = read_tsv(file);
    let (f, i, rn, sat) = (
        column(&header, "format"),
        column(&header, "input"),
        column(&header, "rn_output"),
        column(&header, "satfinite_output"),
    );
    let mut checked = 0;
    for r in &rows {
        let x: f32 = match r[i].as_str() {
            "+nan" => f32::NAN,
            "-nan" => -f32::NAN,
            s => s.parse::<f64>().unwrap() as f32,
        };
        let fmt = FloatFormat::by_name(&r[f]).unwrap_or_else(|| panic!("unknown format {}", r[f]));
        for (col, mode) in [(rn, Mode::Nearest), (sat, Mode::SatFinite)] {
            let want = hex(&r[col]) as u32;
            let got = fmt.encode_f32(x, mode);
            if fmt.is_nan_code(want) {
                assert!(fmt.is_nan_code(got), "{r:?}");
            } else {
                assert_eq!(got, want, "{r:?} {mode:?}");
            }
        }
        checked += 1;
    }
    assert_eq!(checked, rows.len());
    assert_eq!(checked, expected_rows, "{file}");
}

/// Every float prefix of the conformance set is a name `by_name` knows, and
/// the format it gives decodes that prefix's table; the names go both ways.
#[test]
fn names_and_lookup() {
    let prefixes = [
        "float4_e2m1fn",
        "float6_e2m3fn",
        "float6_e3m2fn",
        "float8_e4m3fn",
        "float8_e5m2",
        "float8_e8m0fnu",
        "float8_e4m3",
        "float8_e3m4",
        "float8_e4m3fnuz",
        "float8_e5m2fnuz",
        "float8_e4m3b11fnuz",
        "bfloat16",
        "float16",
    ];
    assert_eq!(FloatFormat::shipped().len(), prefixes.len());
    for prefix in prefixes {
        let fmt = FloatFormat::by_name(prefix).unwrap_or_else(|| panic!("{prefix}"));
        assert_eq!(fmt.name(), Some(prefix));
        for (code, want, nan) in decode_rows(&format!("{prefix}.decode.tsv")) {
            let got = fmt.decode_f32(code);
            assert_eq!(got.is_nan(), nan, "{prefix} {code:#x}");
            if !nan {
                assert_eq!(got.to_bits(), want, "{prefix} {code:#x}");
            }
        }
    }
    for (fmt, names) in FloatFormat::shipped() {
        assert_eq!(FloatFormat::by_name(names.ml_dtypes), Some(*fmt));
        assert_eq!(fmt.names(), Some(*names));
        if let Some(t) = names.pytorch {
            assert_eq!(FloatFormat::by_name(t), Some(*fmt), "{t}");
            assert_eq!(
                FloatFormat::by_name(&format!("torch.{t}")),
                Some(*fmt),
                "{t}"
            );
        }
        if let Some(d) = names.dlpack {
            assert_eq!(FloatFormat::by_name(d), Some(*fmt), "{d}");
            assert!(d.starts_with("kDL"), "{d}");
        }
        assert!(!names.standard.is_empty());
    }
    // The shipped types' formats carry their names.
    assert_eq!(E2M1::FORMAT.name(), Some("float4_e2m1fn"));
    assert_eq!(E4M3::FORMAT.name(), Some("float8_e4m3fn"));
    assert_eq!(E4M3Ieee::FORMAT.name(), Some("float8_e4m3"));
    assert_eq!(E3M4::FORMAT.name(), Some("float8_e3m4"));
    assert_eq!(E4M3Fnuz::FORMAT.name(), Some("float8_e4m3fnuz"));
    assert_eq!(E5M2Fnuz::FORMAT.name(), Some("float8_e5m2fnuz"));
    assert_eq!(E4M3B11Fnuz::FORMAT.name(), Some("float8_e4m3b11fnuz"));
    assert_eq!(E8M0::FORMAT.name(), Some("float8_e8m0fnu"));
    assert_eq!(FloatFormat::by_name("half"), Some(FloatFormat::F16));
    assert_eq!(FloatFormat::by_name("torch.half"), Some(FloatFormat::F16));
    // PyTorch has no dtype for these: its prefix does not find them.
    assert_eq!(FloatFormat::by_name("torch.float8_e4m3"), None);
    assert_eq!(FloatFormat::by_name("torch.float4_e2m1fn_x2"), None);
    // Case is ignored (the crate's type names are upper case).
    assert_eq!(
        FloatFormat::by_name("FLOAT8_E4M3FN"),
        Some(FloatFormat::E4M3)
    );
    for bad in ["", "int4", "uint2", "float8", "kDLFloat", "float8_e4m3fn "] {
        assert_eq!(FloatFormat::by_name(bad), None, "{bad:?}");
    }
    // A description the crate does not ship has no name.
    assert_eq!(FloatFormat::ieee(2, 5).name(), None);
    assert_eq!(
        FloatFormat {
            ties: bitpack::formats::Ties::Away,
            ..FloatFormat::E4M3
        }
        .names(),
        None
    );
}
