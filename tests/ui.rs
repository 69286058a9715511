//! Compile-fail cases: misuse the type system rejects, with the diagnostic text pinned in
//! `ui-tests/*.stderr`. Regenerate the snapshots with `TRYBUILD=overwrite cargo test --test ui`.

#[test]
#[cfg_attr(
    not(feature = "rayon"),
    ignore = "run in the default build: the cases name no feature, and each run compiles them all again"
)]
fn misuse_fails_to_compile_with_a_clear_message() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui-tests/*.rs");
}

/// The device backends' misuse: mixing them with the CPU or with each other, indexing device
/// memory, host-only methods on device views.
#[cfg(any(feature = "cuda", feature = "wgpu"))]
#[test]
fn device_backend_misuse_fails_to_compile_with_a_clear_message() {
    let cases = trybuild::TestCases::new();
    #[cfg(feature = "cuda")]
    cases.compile_fail("ui-tests/cuda/*.rs");
    #[cfg(feature = "wgpu")]
    cases.compile_fail("ui-tests/wgpu/*.rs");
    #[cfg(all(feature = "cuda", feature = "wgpu"))]
    cases.compile_fail("ui-tests/cuda_wgpu/*.rs");
}
