//! Compile-fail cases: misuse the type system rejects, with the diagnostic text pinned in
//! `ui-tests/*.stderr`. Regenerate the snapshots with `TRYBUILD=overwrite cargo test --test ui`.

#[test]
fn misuse_fails_to_compile_with_a_clear_message() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui-tests/*.rs");
}
