//! The conformance suite: every op family on random shapes, on plain, transposed, stepped and
//! flipped views (and broadcast operands), for several element types, written once against the
//! [`harness::Harness`] trait and checked against naive host references. `Cpu` is the first
//! harness; a device backend adds one impl (upload, download, and its ops) and runs the same
//! cases (cubecl's `runtime_tests` and numr's backend-parity idea).

mod cases;
mod harness;
mod reference;

use harness::CpuHarness;

#[test]
fn elementwise_binary_with_broadcasting() {
    cases::binary::<CpuHarness>();
}

#[test]
fn scalar_and_unary_ops() {
    cases::scalar_and_unary::<CpuHarness>();
}

#[test]
fn compound_assignment() {
    cases::compound_assignment::<CpuHarness>();
}

#[test]
fn fill_copy_and_contiguous() {
    cases::fill_copy_contiguous::<CpuHarness>();
}

#[test]
fn reductions() {
    cases::reductions::<CpuHarness>();
}

#[test]
fn matmul_with_transposed_operands() {
    cases::matmul::<CpuHarness>();
}

#[test]
fn constant_coefficient_stencils() {
    cases::stencils::<CpuHarness>();
}
