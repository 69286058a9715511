//! Failures that only some processes meet, agreed on by all (issue 36, item 5): a module of
//! tests/mpi.rs (host blocks) and tests/mpi_device.rs (every backend). Each check makes some
//! processes fail where others have nothing to do, then asserts that every process returns an
//! error and that the processes still talk in step afterwards. Before the fix, the processes
//! with nothing to do went on into the next exchange and waited there for ever (`timeout` in
//! scripts/test turns that into a failure), or returned `Ok` where the others failed.

#![allow(dead_code)]

use cnda::dist::{DistArray, DistBackend, DistDoubleBuffer, StencilApplyDist};
use cnda::kernel::{Allocator, ReduceKernels, StencilKernels};
use cnda::prelude::*;
use cnda::stencil::{Arity, Binary, LinearStencil, Node, Scalar, Stencil, Tap, TapReader};
use mpi::traits::{Communicator, Root};

/// Whether `text` is the same on every process (rank 0's, broadcast, against each one's own).
pub fn same_everywhere(comm: &impl Communicator, text: &str) -> bool {
    let root = comm.process_at_rank(0);
    let mut bytes = text.as_bytes().to_vec();
    let mut len = bytes.len() as u64;
    root.broadcast_into(&mut len);
    bytes.resize(len as usize, 0);
    root.broadcast_into(&mut bytes[..]);
    bytes == text.as_bytes()
}

/// The radius of the wide stencils below: 65 taps along one axis, one more than the kernels'
/// tables hold (`MAX_TAPS`, 64, on every backend for run-time taps, and on the devices for
/// `LinearStencil`s).
const WIDE: usize = 32;

/// A 1D grid split so that some processes update points and the last one none: blocks of
/// `WIDE` points (the first one more), the halo as wide, so the last block lies within the
/// boundary layer of the fixed global edge. One process gets 65 points: one to update.
fn wide_grid(comm: &impl Communicator) -> [usize; 1] {
    let n = comm.size() as usize;
    [(WIDE * n + 1).max(2 * WIDE + 1)]
}

/// 65 taps: the sum of `u` at offsets -32 to 32.
const WIDE_TAPS: [Tap<1>; 2 * WIDE + 1] = {
    let mut taps = [Tap { field: 0, offset: [0] }; 2 * WIDE + 1];
    let mut k = 0;
    while k < taps.len() {
        taps[k].offset[0] = k as isize - WIDE as isize;
        k += 1;
    }
    taps
};

/// The sum of the 65 taps, left to right: `Tap(0)`, then `Tap(k)` and the sum so far plus it.
const WIDE_NODES: [Node; 4 * WIDE + 1] = {
    let mut nodes = [Node::Tap(0); 4 * WIDE + 1];
    let mut k = 1;
    while k < 2 * WIDE + 1 {
        nodes[2 * k - 1] = Node::Tap(k);
        nodes[2 * k] = Node::Binary(Binary::Add, 2 * k - 2, 2 * k - 1);
        k += 1;
    }
    nodes
};

/// A hand-written stencil of 65 taps: more than the CPU's expression kernel takes, which it
/// finds at the launch (nothing knows an expression kernel's limits before).
#[derive(Clone, Copy, Debug)]
struct Wide;

impl<T: Scalar> Stencil<T, 1> for Wide {
    const FIELDS: &'static [&'static str] = &["u"];
    const PARAMS: &'static [&'static str] = &[];
    const TAPS: &'static [Tap<1>] = &WIDE_TAPS;
    const NODES: &'static [Node] = &WIDE_NODES;
    const VALUES: &'static [usize] = &[WIDE_NODES.len() - 1];
    const SOURCE: &'static str = "|u| u[-32] + ... + u[32]";
    type Compute = T;
    type Params = ();
    type Arity = Arity<1>;
    type Values = T;

    fn point<R: TapReader<T>>(taps: &R, _: &()) -> T {
        (1..WIDE_TAPS.len()).fold(taps.tap(0), |acc, k| acc + taps.tap(k))
    }
}

/// A `stencil!`-like stencil whose kernel refuses it at the launch, on host blocks: the
/// processes that sweep fail, the last one sweeps nothing; every process returns the error.
/// Before: the last process returned `Ok`.
pub fn check_launch_failures_agree(comm: &impl Communicator) {
    let global = wide_grid(comm);
    let mut u = DistArray::<f64, 1>::new(comm, global, [WIDE], [false]);
    let mut v = u.clone();
    let err = Wide.try_apply_dist(&mut u, &mut v, ()).expect_err("65 taps, where the CPU's expression kernel takes 64");
    let msg = err.to_string();
    assert!(msg.contains("64"), "rank {}: {msg}", comm.rank());
    // The processes that swept fail with the kernel's own error, the others name one of them.
    assert!(matches!(err, Error::Limit { .. } | Error::Mpi { .. }), "{err:?}");
    assert_eq!(u.sum(), 0.0, "the processes still talk in step");
}

/// A `LinearStencil` of 65 taps over blocks on `dev`: past the device kernels' tap limit, which
/// the processes now check before any work, so every process returns the same `Error::Limit`
/// (on the CPU, whose `linear` takes any tap count, the sweeps run). Before: the processes that
/// swept failed at the launch and the last one, with nothing to sweep, waited in the next
/// exchange for ever.
pub fn check_taps_limit_agreed<B: DistBackend + StencilKernels + ReduceKernels>(
    dev: &impl Allocator<B>,
    comm: &impl Communicator,
) {
    let taps: [([isize; 1], f32); 2 * WIDE + 1] = core::array::from_fn(|k| ([k as isize - WIDE as isize], 1.0 / 65.0));
    let wide = LinearStencil::<f32, 1, WIDE, { 2 * WIDE + 1 }>::new(taps);
    let past_limit = 2 * WIDE + 1 > B::MAX_LINEAR_TAPS;
    let global = wide_grid(comm);
    let field = DistArray::<f32, 1, B>::new_in(dev, comm, global, [WIDE], [false]);
    let mut field = DistDoubleBuffer::new(field);
    let expect = |outcome: Result<(), Error>, what: &str| match outcome {
        Ok(()) => assert!(!past_limit, "rank {}: {what}: 65 taps on {} passed", comm.rank(), B::NAME),
        Err(e) => {
            assert!(past_limit, "rank {}: {what}: {e}", comm.rank());
            assert!(matches!(e, Error::Limit { got: 65, max: 64, .. }), "{what}: {e:?}");
            assert!(same_everywhere(comm, &e.to_string()), "{what}: {e}");
        }
    };
    let (u, v) = field.both_mut();
    expect(wide.try_apply_dist(u, v), "apply_dist");
    expect(wide.try_apply_steps_dist(&mut field, 3), "apply_steps_dist");
    let fixed = [cnda::stencil::Boundary::Fixed];
    expect(wide.try_apply_steps_dist_with(&mut field, 2, fixed), "apply_steps_dist_with");
    assert_eq!(field.current().sum(), 0.0, "the processes still talk in step");
}

/// A device block whose staging memory a failed exchange leaked, on process 0 only: its later
/// exchanges still send and receive every message (from scratch memory), and fail; the
/// processes agree, so every process returns an error from the exchange and from the sweeps
/// that exchange, and none waits for process 0. (Host blocks have no staging: all succeed.)
/// Before: process 0 returned an error without sending, and its neighbours waited for ever.
pub fn check_lost_staging_agreed<B: DistBackend + StencilKernels + ReduceKernels>(
    dev: &impl Allocator<B>,
    comm: &impl Communicator,
) {
    let on_device = B::NAME != "Cpu";
    let rank = comm.rank();
    let mut u = DistArray::<f32, 2, B>::new_in(dev, comm, [11, 9], [1, 1], [true, false]);
    u.fill_owned_with(|[i, j]| (i * 9 + j) as f32);
    let mut v = u.clone();
    if rank == 0 {
        u.leak_staging_as_a_failed_exchange_would();
    }
    let expect = |outcome: Result<(), Error>, what: &str| match outcome {
        Ok(()) => assert!(!on_device, "rank {rank}: {what} passed after process 0 lost its staging"),
        Err(e) => {
            assert!(on_device, "rank {rank}: {what}: {e}");
            let msg = e.to_string();
            let named = if rank == 0 { "staging memory was leaked" } else { "process 0 of" };
            assert!(msg.contains(named), "rank {rank}: {what}: {msg}");
        }
    };
    expect(u.try_exchange_halos(), "exchange_halos");
    expect(u.try_exchange_faces(), "exchange_faces");
    expect(u.try_exchange_halos_with(|_| ()), "exchange_halos_with");
    let jacobi = LinearStencil::jacobi_5pt();
    expect(jacobi.try_apply_dist(&mut u, &mut v), "apply_dist");
    let mut field = DistDoubleBuffer::new(v);
    if rank == 0 {
        field.current_mut().leak_staging_as_a_failed_exchange_would();
    }
    expect(jacobi.try_apply_steps_dist(&mut field, 4), "apply_steps_dist");
    // The processes still talk in step, and the other arrays exchange as before.
    let total = (0..99).sum::<usize>() as f32;
    assert_eq!(u.sum(), total);
    let mut w = DistArray::<f32, 2, B>::new_in(dev, comm, [11, 9], [1, 1], [true, false]);
    w.exchange_halos();
}
