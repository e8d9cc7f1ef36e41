//! Compile-fail and compile-pass tests; see `tests/ui.rs`.
