//! The committed conformance vectors: every file `SHA256SUMS` lists is present
//! in the folder the tests read, and a missing file fails with a message that
//! names the folder and the variable that overrides it.

use bitpack_tests::{CONFORMANCE_DIR_VAR, conformance_dir, missing_file_message};

#[test]
fn every_listed_file_is_present() {
    let dir = conformance_dir();
    let sums = std::fs::read_to_string(dir.join("SHA256SUMS"))
        .unwrap_or_else(|e| panic!("{}", missing_file_message(&dir.join("SHA256SUMS"), &e)));
    let names: Vec<&str> = sums
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    assert!(
        names.len() >= 49,
        "SHA256SUMS lists only {} files",
        names.len()
    );
    for name in names {
        let path = dir.join(name);
        let len = std::fs::metadata(&path)
            .unwrap_or_else(|e| panic!("{}", missing_file_message(&path, &e)))
            .len();
        assert!(len > 0, "{} is empty", path.display());
    }
}

#[test]
fn the_default_folder_is_the_committed_copy() {
    if std::env::var_os(CONFORMANCE_DIR_VAR).is_some() {
        eprintln!("{CONFORMANCE_DIR_VAR} is set: the override is in use, nothing to check");
        return;
    }
    let dir = conformance_dir();
    assert!(
        dir.ends_with("tests/conformance"),
        "the tests read {}, not the committed tests/conformance/",
        dir.display()
    );
}

#[test]
fn a_missing_file_names_the_folder_and_the_variable() {
    let path = conformance_dir().join("no_such_format.decode.tsv");
    let err = std::fs::read_to_string(&path).unwrap_err();
    let msg = missing_file_message(&path, &err);
    assert!(msg.contains("no_such_format.decode.tsv"), "{msg}");
    assert!(
        msg.contains(&conformance_dir().display().to_string()),
        "{msg}"
    );
    assert!(msg.contains(CONFORMANCE_DIR_VAR), "{msg}");
    assert!(msg.contains("tests/conformance"), "{msg}");
}
