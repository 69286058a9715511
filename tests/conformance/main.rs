//! The conformance suite: every op family on random shapes, on plain, transposed, stepped and
//! flipped views (and broadcast operands), for several element types, written once against the
//! [`harness::Harness`] trait and checked against naive host references. `Cpu` is the first
//! harness, the model backend of `tests/common/model.rs` (naive kernels under the same generic
//! algorithms) the second; a device backend adds one impl (upload, download, and its ops) and a
//! line in `conformance!` (cubecl's `runtime_tests` and numr's backend-parity idea).

mod cases;
mod harness;
mod model_harness;
mod reference;

#[path = "../common/model.rs"]
mod model;

/// The cases, once per backend.
macro_rules! conformance {
    ($($backend:ident: $Harness:ty;)*) => {$(
        mod $backend {
            use super::cases;

            #[test]
            fn elementwise_binary_with_broadcasting() {
                cases::binary::<$Harness>();
            }

            #[test]
            fn scalar_and_unary_ops() {
                cases::scalar_and_unary::<$Harness>();
            }

            #[test]
            fn compound_assignment() {
                cases::compound_assignment::<$Harness>();
            }

            #[test]
            fn fill_copy_and_contiguous() {
                cases::fill_copy_contiguous::<$Harness>();
            }

            #[test]
            fn reductions() {
                cases::reductions::<$Harness>();
            }

            #[test]
            fn matmul_with_transposed_operands() {
                cases::matmul::<$Harness>();
            }

            #[test]
            fn constant_coefficient_stencils() {
                cases::stencils::<$Harness>();
            }
        }
    )*};
}

conformance! {
    cpu: crate::harness::CpuHarness;
    model_backend: crate::model_harness::ModelHarness;
}
