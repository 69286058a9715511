//! Compile-fail cases: misuse the type system rejects, with the diagnostic text pinned in
//! `ui-tests/*.stderr`. Regenerate the snapshots with `TRYBUILD=overwrite cargo test --test ui`.

#[test]
fn misuse_fails_to_compile_with_a_clear_message() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui-tests/*.rs");
}

/// The CUDA backend's misuse: mixing it with the CPU, indexing device memory, host-only methods
/// on device views.
#[cfg(feature = "cuda")]
#[test]
fn cuda_misuse_fails_to_compile_with_a_clear_message() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui-tests/cuda/*.rs");
}
