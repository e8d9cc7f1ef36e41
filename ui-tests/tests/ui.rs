//! The derives' compile-fail and compile-pass cases, run with trybuild.
//!
//! `tests/ui/fail/<category>/*.rs` must fail to compile with exactly the
//! committed `.stderr`; `tests/ui/pass/**/*.rs` must compile and run. With
//! the `cuda` feature, `ui_cuda` checks `tests/ui/cuda_fail/*.rs` too:
//! kernel arguments that `cudarc` refuses (`.ci/run` runs it alone with
//! `cargo test -p bitpack-ui-tests --features cuda -- --exact --skip ui`,
//! the other cases being those of the default build).
//! Regenerate snapshots with `TRYBUILD=overwrite cargo test -p
//! bitpack-ui-tests`, then read every changed one.

/// The compiler the `.stderr` snapshots were written with. rustc's wording
/// and layout of diagnostics change between releases, so another compiler
/// runs only the pass cases.
const PINNED: &str = "rustc 1.95.";

fn rustc_version() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/**/*.rs");
    let version = rustc_version();
    if version.starts_with(PINNED) {
        t.compile_fail("tests/ui/fail/**/*.rs");
    } else {
        eprintln!(
            "skipping the compile-fail snapshots: they are pinned to {PINNED}x, this is {}",
            version.trim()
        );
    }
}

#[cfg(feature = "cuda")]
#[test]
fn ui_cuda() {
    let version = rustc_version();
    if version.starts_with(PINNED) {
        trybuild::TestCases::new().compile_fail("tests/ui/cuda_fail/*.rs");
    } else {
        eprintln!(
            "skipping the cuda compile-fail snapshots: they are pinned to {PINNED}x, this is {}",
            version.trim()
        );
    }
}
