//! Distributed arrays with device blocks under `mpirun -n P` (scripts/test runs P = 1 and 3 on
//! WebGPU's lavapipe and the CPU-hosted CUDA device): every check runs the same calls on a host
//! `DistArray` and on one whose blocks live on the device, and compares them bit for bit: halos
//! after an exchange (all neighbours, faces only), sweeps with the exchange hidden behind the
//! interior, deep halos, boundary conditions at the global edges, reductions, gather/scatter, staggered arrays, distributed CG solves, plain and multigrid-preconditioned, and distributed CSR matrices (against one host process), and checkpoints (feature
//! `hdf5`). A plain binary (no harness), so every process runs the same checks in the same
//! order; a failed check aborts the job instead of leaving the other processes waiting.

use cnda::dist::{DistArray, DistBackend, DistDoubleBuffer, StencilApplyDist};
use cnda::kernel::{Allocator, ElementwiseKernels, ExprStencilKernels, ReduceKernels, StencilKernels};
use cnda::prelude::*;
use cnda::stencil::{Boundary, DynStencil, LinearStencil};
use mpi::traits::Communicator;

#[path = "common/mpi_diffusion.rs"]
mod diffusion;
#[path = "common/mpi_failures.rs"]
mod failures;
#[path = "common/mpi_solve.rs"]
mod solve;
#[path = "common/mpi_sparse.rs"]
mod sparse;

/// What the checks need of a device backend.
trait Device:
    DistBackend + StencilKernels + ExprStencilKernels + ElementwiseKernels + ReduceKernels + sparse::SparseBackend
{
}
impl<
        B: DistBackend + StencilKernels + ExprStencilKernels + ElementwiseKernels + ReduceKernels + sparse::SparseBackend,
    > Device for B
{
}

/// A value distinct for every global index of the test grids, exact in `f32`.
fn value<const N: usize>(g: [usize; N]) -> f32 {
    g.iter().fold(1.0, |acc, &i| acc * 64.0 + i as f32)
}

/// A host and a device array of one split, filled alike: owned points from `value`, halos from
/// `sentinel` (so fixed edges keep it).
fn pair<B: Device, const N: usize>(
    dev: &impl Allocator<B>,
    comm: &impl Communicator,
    global: [usize; N],
    halo: [usize; N],
    periodic: [bool; N],
    sentinel: f32,
) -> (DistArray<f32, N>, DistArray<f32, N, B>) {
    let mut host = DistArray::<f32, N>::new(comm, global, halo, periodic);
    let mut on_dev = DistArray::<f32, N, B>::new_in(dev, comm, global, halo, periodic);
    host.local_mut().fill(sentinel);
    on_dev.local_mut().fill(sentinel);
    host.fill_owned_with(value);
    on_dev.fill_owned_with(value);
    (host, on_dev)
}

/// Both local blocks, halos included, equal bit for bit.
#[track_caller]
fn same_blocks<B: Device, const N: usize>(host: &DistArray<f32, N>, on_dev: &DistArray<f32, N, B>, what: &str) {
    let down = on_dev.local().to_host();
    let same = host.local().iter().zip(down.iter()).all(|(a, b)| a.to_bits() == b.to_bits());
    assert!(same, "rank {}: {what}: the device block differs from the host block", host.rank());
}

/// Halos after an exchange of every neighbour, and of the faces only.
fn check_halos<B: Device, const N: usize>(
    dev: &impl Allocator<B>,
    comm: &impl Communicator,
    global: [usize; N],
    halo: [usize; N],
    periodic: [bool; N],
) {
    let (mut host, mut on_dev) = pair(dev, comm, global, halo, periodic, -1.0);
    host.exchange_halos();
    on_dev.exchange_halos();
    same_blocks(&host, &on_dev, &format!("exchange_halos {global:?} halo {halo:?} periodic {periodic:?}"));
    let (mut host, mut on_dev) = pair(dev, comm, global, halo, periodic, -1.0);
    host.exchange_faces();
    on_dev.exchange_faces();
    same_blocks(&host, &on_dev, &format!("exchange_faces {global:?}"));
    // Twice more on the same arrays: the staging made at the first exchange is reused.
    on_dev.fill_owned_with(|g| value(g) + 0.5);
    host.fill_owned_with(|g| value(g) + 0.5);
    host.exchange_halos();
    on_dev.exchange_halos();
    same_blocks(&host, &on_dev, "a second exchange");
}

/// `steps` distributed sweeps of `stencil` (exchange hidden behind the interior).
fn check_apply_dist<B: Device, const N: usize, const R: usize, const K: usize>(
    dev: &impl Allocator<B>,
    comm: &impl Communicator,
    stencil: &LinearStencil<f32, N, R, K>,
    global: [usize; N],
    periodic: [bool; N],
    steps: usize,
) {
    let (host, on_dev) = pair(dev, comm, global, [R; N], periodic, 2.0);
    let (mut host, mut on_dev) = (DistDoubleBuffer::new(host), DistDoubleBuffer::new(on_dev));
    for _ in 0..steps {
        let (u, v) = host.both_mut();
        stencil.apply_dist(u, v);
        host.swap();
        let (u, v) = on_dev.both_mut();
        stencil.apply_dist(u, v);
        on_dev.swap();
    }
    same_blocks(host.current(), on_dev.current(), &format!("apply_dist {global:?} periodic {periodic:?}"));
}

/// Deep halos: several sweeps per exchange, for compile-time and run-time stencils.
fn check_steps_dist<B: Device>(dev: &impl Allocator<B>, comm: &impl Communicator) {
    let (global, periodic) = ([23, 19], [false, true]);
    let jacobi = LinearStencil::<f32, 2, 1, 4>::jacobi_5pt();
    let (host, on_dev) = pair(dev, comm, global, [3, 3], periodic, 1.0);
    let (mut host, mut on_dev) = (DistDoubleBuffer::new(host), DistDoubleBuffer::new(on_dev));
    jacobi.apply_steps_dist(&mut host, 7);
    jacobi.apply_steps_dist(&mut on_dev, 7);
    same_blocks(host.current(), on_dev.current(), "LinearStencil::apply_steps_dist, halo 3");
    let nine = DynStencil::from(LinearStencil::<f32, 2, 1, 9>::laplacian_9pt(0.5));
    let (host, on_dev) = pair(dev, comm, global, [2, 2], [true, false], 1.0);
    let (mut host, mut on_dev) = (DistDoubleBuffer::new(host), DistDoubleBuffer::new(on_dev));
    nine.apply_steps_dist(&mut host, 5);
    nine.apply_steps_dist(&mut on_dev, 5);
    same_blocks(host.current(), on_dev.current(), "DynStencil::apply_steps_dist, 9 points, halo 2");
    // Boundary conditions at the global edges, refilled on the device before each sweep.
    let sides = [[Boundary::Value(3.5), Boundary::Neumann], [Boundary::Neumann, Boundary::Fixed]];
    let (host, on_dev) = pair(dev, comm, [19, 14], [1, 1], [false, false], 1.0);
    let (mut host, mut on_dev) = (DistDoubleBuffer::new(host), DistDoubleBuffer::new(on_dev));
    jacobi.apply_steps_dist_with(&mut host, 5, sides);
    jacobi.apply_steps_dist_with(&mut on_dev, 5, sides);
    same_blocks(host.current(), on_dev.current(), "LinearStencil::apply_steps_dist_with");
}

/// A `stencil!` stencil (radius 2 along axis 0, a diagonal tap) swept over device blocks.
fn check_expr_dist<B: Device>(dev: &impl Allocator<B>, comm: &impl Communicator) {
    let s = stencil!(|u; a: T| u[0, 0] + a * (u[-2, 0] + u[2, 0] + u[0, -1] + u[0, 1] + 0.5 * u[1, 1] - 4.5 * u[0, 0]));
    let (host, on_dev) = pair(dev, comm, [19, 13], [2, 1], [false, true], 1.0);
    let (mut host, mut on_dev) = (DistDoubleBuffer::new(host), DistDoubleBuffer::new(on_dev));
    for _ in 0..3 {
        let (u, v) = host.both_mut();
        s.apply_dist(u, v, (0.0625,));
        host.swap();
        let (u, v) = on_dev.both_mut();
        s.apply_dist(u, v, (0.0625,));
        on_dev.swap();
    }
    same_blocks(host.current(), on_dev.current(), "StencilApplyDist::apply_dist");
}

cnda::stencil! {
    /// Two reacting species over a feed field (radius 1, a diagonal tap), in `f32`.
    struct Reaction = |u, v, k; a: T| {
        let uv = u[0, 0] * v[0, 0];
        (
            u[0, 0] + a * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]) - uv * k[0, 0],
            v[0, 0] + a * (v[-1, 1] + v[1, -1] - 2.0 * v[0, 0]) + uv,
        )
    };
}

/// A system of two fields and a coefficient field stepped with deep halos (one exchange of both
/// fields per 2 steps: halos of 3, radius 1, and receivers reach one point past a block),
/// boundary conditions at the global edges, a source and receivers, on host and device blocks:
/// the owned points and the records equal bit for bit.
fn check_system_steps_dist<B: Device>(dev: &impl Allocator<B>, comm: &impl Communicator) {
    use cnda::dist::DistState;
    use cnda::stencil::Boundary::{Neumann, Periodic, Value};
    let small = |g: [usize; 2]| value(g) * 1e-6;
    let grid = ([21, 17], [3, 3], [false, true]);
    let sides = [[Value(0.5), Neumann], [Periodic, Periodic]];
    let make = |salt: f32| {
        let (mut host, mut on_dev) = pair(dev, comm, grid.0, grid.1, grid.2, 0.0);
        host.fill_owned_with(|g| small(g) * salt);
        on_dev.fill_owned_with(|g| small(g) * salt);
        (host, on_dev)
    };
    let ((u, ud), (v, vd), (mut k, mut kd)) = (make(1.0), make(2.0), make(0.5));
    let (mut host, mut on_dev) = (DistState::from_fields([u, v]), DistState::from_fields([ud, vd]));
    // A source into `u` and receivers of `v` across the blocks.
    let source = cnda::stencil::Points::new([[10.5, 6.25]]);
    let receivers = cnda::stencil::Points::new((2..15).map(|j| [9.5, j as f64 + 0.5]));
    let wavelet = Array::from_fn([7, 1], |[t, _]| 1e-3 * t as f32);
    let (mut record, mut record_dev) = (Array::<f32, 2>::zeros([7, 13]), Array::<f32, 2>::zeros([7, 13]));
    let io = cnda::stencil::PointIo::new(sides).inject(&source, 0, wavelet.view());
    Reaction.apply_steps_dist(&mut host, 7, &mut k, (0.125,), io.record(&receivers, 1, record.view_mut()));
    let io = cnda::stencil::PointIo::new(sides).inject(&source, 0, wavelet.view());
    Reaction.apply_steps_dist(&mut on_dev, 7, &mut kd, (0.125,), io.record(&receivers, 1, record_dev.view_mut()));
    let same = record.iter().zip(record_dev.iter()).all(|(x, y)| x.to_bits() == y.to_bits());
    assert!(same && record.iter().any(|&x| x != 0.0), "rank {}: the device's record differs", host.field(0).rank());
    for f in 0..2 {
        let (a, b) = (host.field(f).owned().to_owned(), on_dev.field(f).owned().to_host());
        let same = a.iter().zip(b.iter()).all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(
            same,
            "rank {}: DistState field {f}: the device blocks differ from the host blocks",
            host.field(f).rank()
        );
    }
}

/// Reductions (exact ones bit for bit; sums to rounding), gather, scatter, the split exchange.
fn check_collectives<B: Device>(dev: &impl Allocator<B>, comm: &impl Communicator) {
    let global = [17, 12];
    let (host, on_dev) = pair(dev, comm, global, [1, 1], [false; 2], 0.0);
    let (mut host2, mut on_dev2) = pair(dev, comm, global, [1, 1], [false; 2], 0.0);
    host2.fill_owned_with(|g| value(g) * 0.75);
    on_dev2.fill_owned_with(|g| value(g) * 0.75);
    assert_eq!(host.min().to_bits(), on_dev.min().to_bits());
    assert_eq!(host.max().to_bits(), on_dev.max().to_bits());
    assert_eq!(host.max_abs_diff(&host2).to_bits(), on_dev.max_abs_diff(&on_dev2).to_bits());
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-5 * a.abs().max(b.abs());
    assert!(close(host.sum(), on_dev.sum()), "{} {}", host.sum(), on_dev.sum());
    assert!(close(host.diff_norm2(&host2), on_dev.diff_norm2(&on_dev2)));
    // A NaN anywhere is the maximum difference on every process.
    if comm.rank() == comm.size() - 1 {
        on_dev2.owned_mut().fill(f32::NAN);
    }
    assert!(on_dev.max_abs_diff(&on_dev2).is_nan());

    // Gather, scatter: a round trip through the device blocks, and the host's gather.
    let gathered = on_dev.gather(0);
    assert_eq!(gathered.is_some(), comm.rank() == 0);
    if let Some(g) = &gathered {
        assert_eq!(g, &Array::from_fn(global, value), "gather from device blocks");
    }
    let doubled = gathered.map(|g| g.map(|x| 2.0 * x));
    let mut back = DistArray::<f32, 2, B>::new_in(dev, comm, global, [1, 1], [false; 2]);
    back.scatter(0, doubled.as_ref());
    if let Some(g) = back.gather(0) {
        assert_eq!(g, Array::from_fn(global, |i| 2.0 * value(i)), "scatter onto device blocks");
    }

    // The split exchange: `during` runs a device reduction while the messages travel.
    let (mut host, mut on_dev) = pair(dev, comm, global, [1, 1], [true, false], -1.0);
    let inside_host = host.exchange_halos_with(|owned| owned.sum());
    let inside_dev = on_dev.exchange_halos_with(|owned| owned.sum());
    assert!(close(inside_host, inside_dev));
    same_blocks(&host, &on_dev, "exchange_halos_with");

    // Staggered faces on the device, split as the host's.
    let faces_host = DistArray::<f32, 2>::staggered(&host, 1, [1, 1]);
    let faces_dev = DistArray::<f32, 2, B>::staggered(&on_dev, 1, [1, 1]);
    assert_eq!(faces_host.owned_range(), faces_dev.owned_range());
    assert_eq!(faces_host.local().shape(), faces_dev.local().shape());
}

/// A device field saved and resumed (on the device and on the host): the same field.
#[cfg(feature = "hdf5")]
fn check_checkpoint<B: Device>(dev: &impl Allocator<B>, world: &mpi::topology::SimpleCommunicator, name: &str) {
    use cnda::dist::Checkpoint;
    let dir = std::env::var("CNDA_CHECKPOINT_DIR").unwrap_or_else(|_| std::env::temp_dir().display().to_string());
    let path = std::path::Path::new(&dir).join(format!("mpi_device_{name}_{}.h5", world.size()));
    let (_, on_dev) = pair(dev, world, [13, 11], [1, 1], [false, true], 0.0);
    on_dev.save(&path, Checkpoint { step: 3, time: 0.25 });
    let (loaded, at) = DistArray::<f32, 2, B>::load_in(dev, world, &path, [1, 1]);
    assert_eq!(at, Checkpoint { step: 3, time: 0.25 });
    let (on_host, _) = DistArray::<f32, 2>::load(world, &path, [2, 2]);
    if let (Some(a), Some(b)) = (loaded.gather(0), on_host.gather(0)) {
        assert_eq!(a, Array::from_fn([13, 11], value));
        assert_eq!(a, b);
    }
}

/// Every check on one device backend; the number run.
fn run_on<B: Device>(dev: &impl Allocator<B>, world: &mpi::topology::SimpleCommunicator, name: &str) -> usize {
    check_halos(dev, world, [13, 10], [1, 2], [true, false]);
    check_halos(dev, world, [9, 7, 6], [1, 1, 1], [true, false, true]);
    check_halos(dev, world, [17], [2], [true]);
    check_apply_dist(dev, world, &LinearStencil::jacobi_5pt(), [22, 17], [false, false], 6);
    check_apply_dist(dev, world, &LinearStencil::laplacian_9pt(1.0), [15, 14], [true, false], 4);
    check_apply_dist(dev, world, &LinearStencil::jacobi_7pt(), [9, 8, 7], [false, true, true], 3);
    check_steps_dist(dev, world);
    check_expr_dist(dev, world);
    check_system_steps_dist(dev, world);
    check_collectives(dev, world);
    // Failures some processes meet and others not (issue 36, item 5).
    failures::check_taps_limit_agreed(dev, world);
    failures::check_lost_staging_agreed(dev, world);
    // Distributed CG with device blocks against one host process (issue 39).
    let solves = solve::check_solves::<f32, B>(dev, world, 1e-5, false)
        + solve::check_multigrid::<f32, B>(dev, world, 1e-5, false)
        + solve::check_expr_operator::<f32, B>(dev, world, 1e-5)
        + sparse::check_sparse::<f32, B>(dev, world, 1e-5, false, false)
        + diffusion::check_diffusion::<f32, B>(dev, world, 1e-5, false);
    #[cfg(feature = "hdf5")]
    check_checkpoint(dev, world, name);
    let _ = name;
    11 + solves + usize::from(cfg!(feature = "hdf5"))
}

fn main() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        // One process failing must not leave the others waiting in a collective.
        std::process::abort();
    }));
    let universe = mpi::initialize().expect("MPI initializes once");
    let world = universe.world();
    // Host blocks made through the allocator-taking constructors first (`&Cpu`), then each device.
    let checks = run_on(&Cpu, &world, "cpu") + on_wgpu(&world) + on_cuda(&world);
    if world.rank() == 0 {
        println!("tests/mpi_device.rs: {checks} checks passed on {} processes", world.size());
    }
}

/// The checks on WebGPU's adapter; none without the feature.
fn on_wgpu(world: &mpi::topology::SimpleCommunicator) -> usize {
    #[cfg(feature = "wgpu")]
    match cnda::backend::wgpu::WgpuDevice::new() {
        Ok(dev) => return run_on(&dev, world, "wgpu"),
        Err(e) => {
            assert!(std::env::var_os("CNDA_REQUIRE_WGPU").is_none(), "CNDA_REQUIRE_WGPU is set but: {e}");
            eprintln!("SKIP: no WebGPU adapter: {e}");
        }
    }
    let _ = world;
    0
}

/// The checks on CUDA device 0; none without the feature.
fn on_cuda(world: &mpi::topology::SimpleCommunicator) -> usize {
    #[cfg(feature = "cuda")]
    match cnda::backend::cuda::CudaDevice::new(0) {
        Ok(dev) => return run_on(&dev, world, "cuda"),
        Err(e) => {
            assert!(std::env::var_os("CNDA_REQUIRE_CUDA").is_none(), "CNDA_REQUIRE_CUDA is set but: {e}");
            eprintln!("SKIP: no CUDA device: {e}");
        }
    }
    let _ = world;
    0
}
