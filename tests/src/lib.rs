//! Shared helpers for the integration tests: bit-by-bit reference models and
//! readers for the conformance vectors in `../shared/conformance/`.

use std::path::PathBuf;

pub mod element;

/// The directory holding the reference conformance vectors
/// (`../shared/conformance` beside the checkout). Overridable with
/// `BITPACK_CONFORMANCE_DIR`.
pub fn conformance_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("BITPACK_CONFORMANCE_DIR") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance")
}

/// Reads a tab-separated conformance file: the header's column names and the
/// rows, each a vector of fields. Panics with the path when the file is
/// missing, so a test can never pass by reading nothing.
pub fn read_tsv(name: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let path = conformance_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read conformance file {}: {e}", path.display()));
    let mut lines = text.lines().filter(|l| !l.is_empty());
    let header: Vec<String> = lines
        .next()
        .unwrap_or_else(|| panic!("{} is empty", path.display()))
        .split('\t')
        .map(str::to_owned)
        .collect();
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split('\t').map(str::to_owned).collect::<Vec<_>>())
        .collect();
    assert!(!rows.is_empty(), "{} has no rows", path.display());
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(
            row.len(),
            header.len(),
            "{} row {i}: wrong column count",
            path.display()
        );
    }
    (header, rows)
}

/// Parses `0x`-prefixed hexadecimal.
pub fn hex(s: &str) -> u128 {
    let digits = s.strip_prefix("0x").unwrap_or(s);
    u128::from_str_radix(digits, 16).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}
