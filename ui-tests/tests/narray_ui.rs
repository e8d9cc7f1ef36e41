//! Compile-fail and compile-pass cases of `NArray`'s storage rule, in
//! `tests/ui/{fail,pass}/narray/`. Regenerate the snapshots with
//! `TRYBUILD=overwrite cargo test -p bitpack-ui-tests --test narray_ui`.

#[test]
fn narray_ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/narray/*.rs");
    t.pass("tests/ui/pass/narray/*.rs");
}
