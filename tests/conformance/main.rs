//! The conformance suite: every op family (sparse products too) on random shapes, on plain, transposed, stepped and
//! flipped views (and broadcast operands), for several element types, written once against the
//! [`harness::Harness`] trait and checked against naive host references. `Cpu` is the first
//! harness, the model backend of `tests/common/model.rs` (naive kernels under the same generic
//! algorithms) the second; a device backend adds one impl (upload, download, and its ops) and a
//! line in `conformance!` (cubecl's `runtime_tests` and numr's backend-parity idea): the model
//! backend and CUDA share `device_harness.rs`, each adding only its transfers. Cases of a backend
//! without a device here print SKIP.

mod cases;
#[cfg(feature = "cuda")]
mod cuda_harness;
mod device_harness;
mod harness;
mod model_harness;
mod reference;
mod runtime_cases;
mod steppers;
mod system_cases;
#[cfg(feature = "wgpu")]
mod wgpu_harness;

#[path = "../common/model.rs"]
mod model;

/// The cases, once per backend.
macro_rules! conformance {
    ($($backend:ident: $Harness:ty;)*) => {$(
        mod $backend {
            use super::cases;

            #[test]
            fn elementwise_binary_with_broadcasting() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                cases::binary::<$Harness>();
            }

            #[test]
            fn scalar_and_unary_ops() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                cases::scalar_and_unary::<$Harness>();
            }

            #[test]
            fn compound_assignment() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                cases::compound_assignment::<$Harness>();
            }

            #[test]
            fn fill_copy_and_contiguous() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                cases::fill_copy_contiguous::<$Harness>();
            }

            #[test]
            fn reductions() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                cases::reductions::<$Harness>();
            }

            #[test]
            fn matmul_with_transposed_operands() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                cases::matmul::<$Harness>();
            }

            #[test]
            fn sparse_matrix_vector_products() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                cases::sparse_products::<$Harness>();
            }

            #[test]
            fn constant_coefficient_stencils() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                cases::stencils::<$Harness>();
            }

            #[test]
            fn stencil_macro_stencils() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                cases::expression_stencils::<$Harness>();
            }

            #[test]
            fn stencil_macro_systems() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                crate::system_cases::system_stencils::<$Harness>();
            }

            #[test]
            fn stencil_macro_system_time_steps() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                crate::system_cases::system_time_steps::<$Harness>();
            }

            #[test]
            fn stencil_macro_mixed_precision_steps() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                crate::system_cases::mixed_time_steps::<$Harness>();
            }

            #[test]
            fn subnormals_flushed_or_kept() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                cases::subnormals::<$Harness>();
            }

            #[test]
            fn time_steps_with_boundaries() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                cases::time_steps::<$Harness>();
            }

            #[test]
            fn runtime_stencils() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                crate::runtime_cases::runtime_stencils::<$Harness>();
            }

            #[test]
            fn runtime_stencil_time_steps() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                crate::runtime_cases::runtime_time_steps::<$Harness>();
            }

            #[test]
            fn signed_zeros_and_empty_sums() {
                if !<$Harness as crate::harness::Harness>::available() {
                    eprintln!("SKIP: no {} device", <$Harness as crate::harness::Harness>::NAME);
                    return;
                }
                crate::runtime_cases::signed_zeros_and_empty_sums::<$Harness>();
            }
        }
    )*};
}

conformance! {
    cpu: crate::harness::CpuHarness;
    model_backend: crate::model_harness::ModelHarness;
}

#[cfg(feature = "cuda")]
conformance! {
    cuda: crate::cuda_harness::CudaHarness;
}

#[cfg(feature = "wgpu")]
conformance! {
    wgpu: crate::wgpu_harness::WgpuHarness;
}
