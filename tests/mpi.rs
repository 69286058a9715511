//! Distributed arrays under `mpirun -n P` (scripts/test runs P = 1, 2, 3 and 4): halo contents
//! after an exchange against the global index they should mirror, for every face, edge and corner,
//! fixed and periodic; gather/scatter round trips; global reductions; and distributed Jacobi
//! sweeps (one exchange per sweep, and deep halos: several sweeps per exchange) against the
//! single-process sweeps, bit for bit; with feature `fft`, distributed spectral solves. A plain
//! binary (no test harness), so every process runs the same checks in the same order; a failed
//! check aborts the whole job instead of leaving the other processes waiting.

use cnda::dist::{sweep_dist, DistArray, DistDoubleBuffer};
use cnda::prelude::*;
use cnda::stencil::{self, fill_halo, interior, pad_axes, DoubleBuffer, DynStencil, LinearStencil, PadMode, Window2};
use mpi::traits::Communicator;

#[path = "common/mpi_steps.rs"]
mod steps;
use steps::{check_expr_dist, check_steps_dist, check_steps_dist_with};

#[path = "common/mpi_diffusion.rs"]
mod diffusion;
#[path = "common/mpi_failures.rs"]
mod failures;
#[path = "common/mpi_grids.rs"]
mod grids;
#[path = "common/mpi_solve.rs"]
mod solve;
#[path = "common/mpi_sparse.rs"]
mod sparse;
#[cfg(feature = "fft")]
#[path = "common/mpi_spectral.rs"]
mod spectral;
#[path = "common/system_stencils.rs"]
mod system_stencils;
#[path = "common/mpi_systems.rs"]
mod systems;
use failures::{check_launch_failures_agree, check_lost_staging_agreed, check_taps_limit_agreed, same_everywhere};

/// Set while a check expects a panic, so that the panic hook does not abort the job.
static EXPECTING_PANIC: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `f`'s panic message, with the job-aborting hook held off.
fn expect_panic(f: impl FnOnce()) -> String {
    EXPECTING_PANIC.store(true, std::sync::atomic::Ordering::SeqCst);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).expect_err("a panic");
    EXPECTING_PANIC.store(false, std::sync::atomic::Ordering::SeqCst);
    err.downcast_ref::<String>().cloned().unwrap_or_else(|| err.downcast_ref::<&str>().unwrap().to_string())
}

/// The value a point at global index `g` holds: distinct for every index of the test grids.
fn value<const N: usize>(g: [usize; N]) -> f64 {
    g.iter().fold(1.0, |acc, &i| acc * 100.0 + i as f64)
}

/// What the halo point at (unwrapped) global index `g` must hold after an exchange: the value of
/// its periodic image, or the sentinel where a fixed edge is crossed.
fn expected<const N: usize>(g: [isize; N], global: [usize; N], periodic: [bool; N], sentinel: f64) -> f64 {
    let mut at = [0usize; N];
    for k in 0..N {
        let n = global[k] as isize;
        if (0..n).contains(&g[k]) {
            at[k] = g[k] as usize;
        } else if periodic[k] {
            at[k] = g[k].rem_euclid(n) as usize;
        } else {
            return sentinel;
        }
    }
    value(at)
}

/// Fills the owned points, exchanges, and checks every local point (owned and halo).
fn check_halos<const N: usize>(comm: &impl Communicator, global: [usize; N], halo: [usize; N], periodic: [bool; N]) {
    check_halos_of(DistArray::<f64, N>::new(comm, global, halo, periodic));
}

/// [`check_halos`] on an array of any decomposition.
fn check_halos_of<const N: usize>(mut u: DistArray<f64, N>) {
    let sentinel = -1.0;
    let (global, halo, periodic) = (u.decomposition().global_shape(), u.halo(), u.decomposition().periodic());
    u.local_mut().fill(sentinel);
    u.fill_owned_with(value);
    u.exchange_halos();
    let shape = u.local().shape();
    let mut checked = 0;
    for_each_index(shape, |i| {
        let want = expected(u.global_index(i), global, periodic, sentinel);
        assert_eq!(
            u.local()[i],
            want,
            "rank {} local {i:?} global {:?} ({global:?}, halo {halo:?}, periodic {periodic:?})",
            u.rank(),
            u.global_index(i)
        );
        checked += 1;
    });
    assert_eq!(checked, shape.iter().product::<usize>());
}

/// `exchange_faces` fills the face halos as `exchange_halos` does and leaves edges and corners.
fn check_faces<const N: usize>(comm: &impl Communicator, global: [usize; N], halo: [usize; N], periodic: [bool; N]) {
    let sentinel = -1.0;
    let mut u = DistArray::<f64, N>::new(comm, global, halo, periodic);
    u.local_mut().fill(sentinel);
    u.fill_owned_with(value);
    u.exchange_faces();
    let owned = u.owned_range();
    for_each_index(u.local().shape(), |i| {
        let g = u.global_index(i);
        let outside = (0..N).filter(|&k| !(owned[k].start as isize..owned[k].end as isize).contains(&g[k])).count();
        let want = if outside <= 1 { expected(g, global, periodic, sentinel) } else { sentinel };
        assert_eq!(u.local()[i], want, "faces: rank {} local {i:?} global {g:?}", u.rank());
    });
}

fn for_each_index<const N: usize>(shape: [usize; N], mut f: impl FnMut([usize; N])) {
    let total: usize = shape.iter().product();
    for flat in 0..total {
        let mut rest = flat;
        let mut i = [0; N];
        for k in (0..N).rev() {
            i[k] = rest % shape[k];
            rest /= shape[k];
        }
        f(i);
    }
}

/// Gather, scatter and the reductions against the whole grid built on every process.
fn check_collectives(comm: &impl Communicator) {
    let global = [11, 9];
    let whole = Array::from_fn(global, value);
    let mut u = DistArray::<f64, 2>::new(comm, global, [1, 2], [false, true]);
    u.fill_owned_with(value);
    match u.gather(0) {
        Some(g) => assert_eq!(g, whole, "gather"),
        None => assert_ne!(u.rank(), 0),
    }
    assert_eq!(u.sum(), whole.sum(), "sum");
    assert_eq!(u.min(), value([0, 0]), "min");
    assert_eq!(u.max(), value([10, 8]), "max");
    // The 2-norm of a difference: partial sums per process, so equal only up to rounding.
    let mut w = u.clone();
    w.fill_owned_with(|[i, j]| value([i, j]) + ((i + 2 * j) % 3) as f64);
    let norm = w.diff_norm2(&u);
    let want = Array::from_fn(global, |[i, j]| (((i + 2 * j) % 3) as f64).powi(2)).sum().sqrt();
    assert!((norm - want).abs() <= 1e-12 * want, "diff_norm2 {norm} against {want}");
    // Scatter another grid from the last rank, then gather it back to rank 0.
    let root = comm.size() as usize - 1;
    let other = Array::from_fn(global, |[i, j]| (i * 9 + j) as f64 * 0.5);
    u.scatter(root, (u.rank() == root).then_some(&other));
    let start = u.owned_range().map(|r| r.start);
    assert_eq!(u.owned()[[0, 0]], other[[start[0], start[1]]], "scatter");
    if let Some(g) = u.gather(0) {
        assert_eq!(g, other, "scatter then gather");
    }
}

/// `steps` Jacobi sweeps with fixed boundary values, distributed (the block's interior swept while
/// the halos travel, the strip next to them after, the global edge kept) against the same sweeps
/// on one process: equal bit for bit.
fn check_jacobi(comm: &impl Communicator, global: [usize; 2], steps: usize) {
    let jacobi = LinearStencil::jacobi_5pt();
    let initial = Array::from_fn(global, |[i, j]| if i == 0 { 1.0 } else { ((i * 7 + j * 3) % 5) as f64 * 0.1 });
    let mut reference = DoubleBuffer::new(initial.clone());
    for _ in 0..steps {
        let (a, b) = reference.split();
        jacobi.apply(a, b);
        reference.swap();
    }
    let mut u = DistArray::<f64, 2>::new(comm, global, [1, 1], [false, false]);
    u.fill_owned_with(|g| initial[g]);
    let on_edge = |g: [isize; 2]| (0..2).any(|k| g[k] <= 0 || g[k] >= global[k] as isize - 1);
    let block = u.decomposition().block_shape(u.rank());
    // Owned points next to a halo: swept after the exchange; the rest while it is in flight.
    let strip = |i: [usize; 2]| (0..2).any(|k| i[k] == 1 || i[k] == block[k]);
    for _ in 0..steps {
        let mut next = u.local().clone();
        u.exchange_halos_with(|owned| {
            let inner = next.view_mut().narrow(0, 1, block[0]).narrow(1, 1, block[1]);
            jacobi.apply(owned, inner);
        });
        let mut after = u.local().clone();
        jacobi.apply(u.local().view(), after.view_mut());
        for_each_index(next.shape(), |i| {
            if on_edge(u.global_index(i)) {
                next[i] = u.local()[i]; // the global boundary keeps its values
            } else if strip(i) {
                next[i] = after[i];
            }
        });
        u.local_mut().assign(&next);
    }
    if let Some(g) = u.gather(0) {
        assert_eq!(&g, reference.current(), "distributed Jacobi differs from one process");
    }
}

/// `steps` sweeps of `stencil` with `apply_dist` over a `DistDoubleBuffer` against one process
/// sweeping the whole grid (padded with periodic images on the periodic axes, refreshed before
/// every sweep): equal bit for bit; and the residual of the last sweep against one process's.
fn check_apply_dist<const N: usize, const R: usize, const K: usize>(
    comm: &impl Communicator,
    stencil: &LinearStencil<f64, N, R, K>,
    global: [usize; N],
    periodic: [bool; N],
    steps: usize,
) {
    let f = |g: [usize; N]| g.iter().enumerate().map(|(k, &i)| ((i * (7 + k) + k) % 11) as f64 * 0.1).sum::<f64>();
    let widths = periodic.map(|p| if p { R } else { 0 });
    let modes = periodic.map(|p| if p { PadMode::Periodic } else { PadMode::Constant(0.0) });
    let mut reference = DoubleBuffer::new(pad_axes(Array::from_fn(global, f).view(), widths, modes));
    for _ in 0..steps {
        fill_halo(reference.current_mut().view_mut(), widths, [PadMode::Periodic; N]);
        let (a, b) = reference.split();
        stencil.apply(a, b);
        reference.swap();
    }
    let strip =
        |a: &Array<f64, N>| (0..N).fold(a.view().into_strided(), |v, k| v.narrow(k, widths[k], global[k])).to_owned();
    let mut initial = DistArray::<f64, N>::new(comm, global, [R; N], periodic);
    initial.fill_owned_with(f);
    let mut field = DistDoubleBuffer::new(initial); // both fields hold the boundary values
    let mut last = f64::NAN;
    for step in 0..steps {
        let (u, v) = field.both_mut();
        stencil.apply_dist(u, v);
        if step + 1 == steps {
            last = v.max_abs_diff(u);
        }
        field.swap();
    }
    if let Some(g) = field.current().gather(0) {
        assert_eq!(g, strip(reference.current()), "apply_dist {global:?} {periodic:?} radius {R}");
        if steps > 0 {
            let (now, before) =
                (strip(reference.current()), strip(&interior(reference.split().1.into_view(), 0).to_owned()));
            let want = Zip::from(now.view()).and(before.view()).fold(0.0f64, |m, &a, &b| m.max((a - b).abs()));
            assert_eq!(last, want, "max_abs_diff");
        }
    }
}

/// Checkpoint and restart: 20 Jacobi steps on every process of `world`, saved at step 10 and
/// resumed on one process fewer (a sub-communicator; the same one alone), equal one process's
/// uninterrupted 20 steps bit for bit. The file (and the gathered field, as reals and as complex
/// numbers, for the h5py test in
/// python/tests/test_hdf5_checkpoint.py) go to `$CNDA_CHECKPOINT_DIR` (default: the temporary
/// directory). Bad files are typed errors on every process alike.
#[cfg(feature = "hdf5")]
fn check_checkpoint(world: &mpi::topology::SimpleCommunicator) {
    use cnda::dist::Checkpoint;
    use mpi::topology::Color;
    use mpi::traits::CommunicatorCollectives;
    let (global, steps) = ([29, 23], 20);
    let f = |[i, j]: [usize; 2]| if i == 0 { 1.0 } else { ((i * 5 + j * 3) % 7) as f64 * 0.125 };
    let jacobi = LinearStencil::jacobi_5pt();
    let mut reference = DoubleBuffer::new(Array::from_fn(global, f));
    jacobi.apply_steps(&mut reference, steps);
    let dir = std::env::var_os("CNDA_CHECKPOINT_DIR").map_or_else(std::env::temp_dir, Into::into);
    let size = world.size();
    let path = dir.join(format!("cnda-checkpoint-{size}.h5"));
    let mut initial = DistArray::<f64, 2>::new(world, global, [1, 1], [false, false]);
    initial.fill_owned_with(f);
    let mut field = DistDoubleBuffer::new(initial);
    for _ in 0..steps / 2 {
        let (u, v) = field.both_mut();
        jacobi.apply_dist(u, v);
        field.swap();
    }
    field.current().save(&path, Checkpoint { step: 10, time: 0.5 });
    if let Some(g) = field.current().gather(0) {
        // The plain (one-process) form too: a round trip, and its refusals.
        use cnda::interop::hdf5;
        let gathered = dir.join(format!("cnda-checkpoint-{size}-gathered.h5"));
        hdf5::save(&gathered, "field", &g);
        assert_eq!(hdf5::load::<f64, 2>(&gathered, "field"), g);
        let e = hdf5::try_load::<f64, 2>(&gathered, "nope").unwrap_err();
        assert!(e.to_string().contains("has no dataset `nope`"), "{e}");
        assert!(matches!(hdf5::try_load::<i32, 2>(&gathered, "field"), Err(cnda::Error::UnsupportedDType { .. })));
        assert!(matches!(hdf5::try_load::<f64, 1>(&gathered, "field"), Err(cnda::Error::RankMismatch { .. })));
        // Complex elements as h5py stores them (a compound of `r` and `i`; h5py reads it too).
        let complex = dir.join(format!("cnda-checkpoint-{size}-complex.h5"));
        let z = g.map(|x| cnda::Complex::new(x, -2.0 * x));
        hdf5::save(&complex, "z", &z);
        assert_eq!(hdf5::load::<cnda::Complex<f64>, 2>(&complex, "z"), z);
        assert!(matches!(hdf5::try_load::<f64, 2>(&complex, "z"), Err(cnda::Error::UnsupportedDType { .. })));
    }
    // Resume on one process fewer.
    let resumers = (size - 1).max(1);
    let color = if world.rank() < resumers { Color::with_value(0) } else { Color::undefined() };
    if let Some(sub) = world.split_by_color(color) {
        let (loaded, at) = DistArray::<f64, 2>::load(&sub, &path, [1, 1]);
        assert_eq!(at, Checkpoint { step: 10, time: 0.5 });
        let mut field = DistDoubleBuffer::new(loaded);
        for _ in 0..steps / 2 {
            let (u, v) = field.both_mut();
            jacobi.apply_dist(u, v);
            field.swap();
        }
        if let Some(g) = field.current().gather(0) {
            assert_eq!(&g, reference.current(), "saved on {size}, resumed on {resumers}");
        }
        let e = DistArray::<f64, 2>::try_load(&sub, dir.join("no-such-checkpoint.h5"), [1, 1])
            .err()
            .expect("a missing file");
        assert!(matches!(e, cnda::Error::Io { .. }) && same_everywhere(&sub, &e.to_string()), "{e}");
        let e = DistArray::<f32, 2>::try_load(&sub, &path, [1, 1]).err().expect("another element type");
        assert!(matches!(e, cnda::Error::UnsupportedDType { .. }), "{e}");
        let e = DistArray::<f64, 3>::try_load(&sub, &path, [1, 1, 1]).err().expect("another rank");
        assert!(matches!(e, cnda::Error::RankMismatch { expected: 3, got: 2, .. }), "{e}");
    }
    world.barrier();
}

/// A non-linear closure stencil reading a diagonal.
fn nonlinear(out: &mut f64, w: Window2<'_, f64, 1>) {
    *out = w[(0, 0)] + 0.1 * w[(-1, 0)] * w[(0, 1)] - 0.05 * w[(1, 1)];
}

/// `steps` sweeps of a closure stencil with `sweep_dist` against `stencil::sweep` over the whole
/// (periodically padded) grid on one process: equal bit for bit.
fn check_sweep_dist(comm: &impl Communicator, global: [usize; 2], periodic: [bool; 2], steps: usize) {
    let f = |[i, j]: [usize; 2]| ((i * 5 + j * 3) % 7) as f64 * 0.1;
    let widths = periodic.map(|p| if p { 1 } else { 0 });
    let modes = periodic.map(|p| if p { PadMode::Periodic } else { PadMode::Constant(0.0) });
    let mut reference = DoubleBuffer::new(pad_axes(Array::from_fn(global, f).view(), widths, modes));
    for _ in 0..steps {
        fill_halo(reference.current_mut().view_mut(), widths, [PadMode::Periodic; 2]);
        let (a, b) = reference.split();
        stencil::sweep(a, b, nonlinear);
        reference.swap();
    }
    let mut u = DistArray::<f64, 2>::new(comm, global, [1, 1], periodic);
    u.fill_owned_with(f);
    let mut v = u.clone();
    for _ in 0..steps {
        sweep_dist(&mut u, &mut v, nonlinear);
        core::mem::swap(&mut u, &mut v);
    }
    if let Some(g) = u.gather(0) {
        let want = (0..2).fold(reference.current().view().into_strided(), |v, k| v.narrow(k, widths[k], global[k]));
        assert_eq!(g, want.to_owned(), "sweep_dist {global:?} {periodic:?}");
    }
}

/// Fallible collectives agree on the outcome (issue 22, item 5a): a precondition that fails on
/// some processes only makes every process return the same error, and none waits in a collective
/// the others never enter. Before: the processes whose block was thick enough went on into
/// `MPI_Comm_dup` and waited there for ever (a hang, caught by `timeout`), and `scatter` with a
/// wrong array asserted on the root only (the others waited).
fn check_failures_agree(comm: &impl Communicator) {
    let n = comm.size() as usize;
    // 2n - 1 points over n processes: blocks of 2, the last of 1, thinner than a halo of 2.
    let made = DistArray::<f64, 1>::try_new(comm, [2 * n - 1], [2], [false]);
    if n == 1 {
        assert!(made.is_ok(), "one process has no neighbour, so no halo to fill");
    } else {
        let err = made.err().expect("the last block is thinner than the halo, so every process fails");
        assert!(matches!(err, Error::Decomposition { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains(&format!("process {}'s block has 1 points along axis 0", n - 1)), "{msg}");
        assert!(same_everywhere(comm, &msg), "the same error on every process: {msg}");
    }
    let mut u = DistArray::<f64, 2>::new(comm, [7, 5], [1, 1], [false, true]);
    // scatter: a wrong global array on the root only.
    let wrong = Array::<f64, 2>::zeros([5, 7]);
    let err = u.try_scatter(0, (u.rank() == 0).then_some(&wrong)).expect_err("the root's array has the wrong shape");
    let msg = err.to_string();
    assert!(msg.contains("expected shape [7, 5], got [5, 7]"), "{msg}");
    assert!(same_everywhere(comm, &msg), "{msg}");
    let err = u.try_scatter(0, None).expect_err("the root passes no array");
    assert!(same_everywhere(comm, &err.to_string()), "{err}");
    let msg = expect_panic(|| u.scatter(0, None));
    assert!(msg.contains("passed no global array"), "the plain form panics with the message: {msg}");
    // gather and scatter to a root that is not a process.
    let err = u.try_gather(n).expect_err("no process has rank n");
    assert!(err.to_string().contains(&format!("the root {n} is not a process")), "{err}");
    assert!(u.try_scatter(n + 3, None).is_err());
    // Residuals of arrays split differently.
    let w = DistArray::<f64, 2>::new(comm, [7, 5], [1, 1], [true, true]);
    let err = u.try_max_abs_diff(&w).expect_err("split differently");
    assert!(err.to_string().contains("split differently") && same_everywhere(comm, &err.to_string()), "{err}");
    assert!(u.try_diff_norm2(&w).is_err());
    // A stencil whose radius exceeds the halo.
    let mut v = u.clone();
    let wide = LinearStencil::<f64, 2, 2, 1>::new([([2, 0], 1.0)]);
    let err = wide.try_apply_dist(&mut u, &mut v).expect_err("halo 1 < radius 2");
    assert!(same_everywhere(comm, &err.to_string()), "{err}");
    // After all that, the processes still talk in step.
    u.fill_owned_with(|[i, j]| (i * 5 + j) as f64);
    assert_eq!(u.sum(), (0..35).sum::<usize>() as f64);
    assert_eq!(u.try_max_abs_diff(&u.clone()), Ok(0.0));
}

/// A closure given to `exchange_halos_with` that finalizes MPI (drops the `Universe`) while the
/// messages are in flight (issue 22, item 5b): a clear panic, and no MPI call after it (the
/// block, which MPI might still write, is leaked). Before: `MPI_Waitall` ran after
/// `MPI_Finalize`. Must be the last check: MPI is finalized after it.
fn check_finalize_in_exchange_panics(comm: &impl Communicator, universe: mpi::environment::Universe) {
    let mut u = DistArray::<f64, 2>::new(comm, [12, 9], [1, 1], [true, true]);
    let msg = expect_panic(|| u.exchange_halos_with(move |_| drop(universe)));
    assert!(msg.contains("finalized MPI") && msg.contains("keep the `Universe` alive"), "{msg}");
    assert!(mpi::environment::is_finalized());
    let msg = expect_panic(|| u.exchange_halos());
    assert!(msg.contains("MPI is finalized"), "no MPI call after finalization: {msg}");
    drop(u); // frees nothing through MPI any more
}

fn main() {
    let universe = mpi::initialize().expect("MPI initializes once");
    let world = universe.world();
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if EXPECTING_PANIC.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        default_hook(info);
        // SAFETY: MPI is initialized; aborting the job is what a failed check must do.
        unsafe { mpi::ffi::MPI_Abort(mpi::ffi::RSMPI_COMM_WORLD, 1) };
    }));
    grids::check_dims_create();
    let mut checks = 1;
    for periodic in [[false, false], [true, false], [false, true], [true, true]] {
        check_halos(&world, [13, 10], [1, 1], periodic);
        check_halos(&world, [13, 10], [2, 1], periodic);
        checks += 2;
    }
    check_halos(&world, [9, 7, 6], [1, 1, 1], [true, false, true]);
    check_halos(&world, [9, 7, 6], [1, 2, 1], [false, true, false]);
    check_halos(&world, [17], [2], [true]);
    check_faces(&world, [13, 10], [1, 2], [true, false]);
    check_faces(&world, [9, 7, 6], [1, 1, 1], [true, true, false]);
    checks += 5;
    checks += grids::check_coarsened(&world);
    check_collectives(&world);
    check_jacobi(&world, [30, 22], 25);
    checks += 2;
    for periodic in [[false, false], [true, false], [true, true]] {
        check_apply_dist(&world, &LinearStencil::laplacian_9pt(0.5), [19, 14], periodic, 6);
        checks += 1;
    }
    let wide = LinearStencil::<f64, 2, 2, 5>::new([
        ([-2, 0], 0.1),
        ([0, 2], 0.2),
        ([1, -1], 0.3),
        ([0, 0], -0.4),
        ([2, 1], 0.05),
    ]);
    check_apply_dist(&world, &wide, [21, 16], [true, false], 5);
    check_apply_dist(&world, &LinearStencil::jacobi_7pt(), [10, 9, 8], [false, true, true], 4);
    check_apply_dist(&world, &LinearStencil::laplacian_9pt(1.0), [5, 4], [true, false], 3); // no inner box
    checks += 3;
    for periodic in [[false, false], [true, false], [false, true]] {
        check_expr_dist(&world, [19, 13], periodic, 4);
        checks += 1;
    }
    for periodic in [[false, false], [true, true], [false, true]] {
        check_sweep_dist(&world, [17, 12], periodic, 5);
        check_sweep_dist(&world, [5, 4], periodic, 3); // blocks of 2 or 3: no inner box
        checks += 2;
    }
    // Deep halos: 3 sweeps per exchange (halo 3, radius 1); an anisotropic run-time stencil
    // (radii 2 and 1, halos 4 and 3: 2 sweeps per exchange), on blocks as small as the halos allow.
    let jacobi = LinearStencil::jacobi_5pt();
    for periodic in [[false, false], [true, false], [true, true]] {
        let grid = ([23, 17], [3, 3], periodic);
        check_steps_dist(&world, [1, 1], |a, b| jacobi.apply(a, b), |f| jacobi.apply_steps_dist(f, 10), grid, 10);
        checks += 1;
    }
    let aniso = DynStencil::new([([-2, 0], 0.125), ([0, -1], 0.25), ([0, 0], 0.25), ([1, 1], 0.25), ([2, 0], 0.125)]);
    for periodic in [[false, false], [true, true], [false, true]] {
        let grid = ([21, 19], [4, 3], periodic);
        check_steps_dist(&world, [2, 1], |a, b| aniso.apply(a, b), |f| aniso.apply_steps_dist(f, 9), grid, 9);
        check_steps_dist(
            &world,
            [2, 1],
            |a, b| aniso.apply(a, b),
            |f| aniso.apply_steps_dist(f, 5),
            ([12, 9], [4, 3], periodic),
            5,
        );
        checks += 2;
    }
    // Boundary conditions at the global edges: a value, mirrors (Neumann), fixed; radius 1 and an
    // anisotropic radius 2; and a periodic axis beside them.
    {
        use cnda::stencil::Boundary::{Fixed, Neumann, Periodic, Value};
        let sides = [[Value(3.5), Neumann], [Neumann, Fixed]];
        for halo in [[1, 1], [3, 2]] {
            let grid = ([19, 14], halo, [false, false]); // one exchange per 1 and 2 sweeps
            let one = |f: &mut DoubleBuffer<f64, 2>| jacobi.apply_steps_with(f, 7, sides);
            check_steps_dist_with(&world, [1, 1], one, |f| jacobi.apply_steps_dist_with(f, 7, sides), grid);
        }
        let sides = [[Neumann, Value(-1.0)], [Periodic, Periodic]];
        let grid = ([21, 16], [4, 3], [false, true]);
        let one = |f: &mut DoubleBuffer<f64, 2>| aniso.apply_steps_with(f, 6, sides);
        check_steps_dist_with(&world, [2, 1], one, |f| aniso.apply_steps_dist_with(f, 6, sides), grid);
        // A periodic condition on an axis the decomposition does not wrap: the same error everywhere.
        let mut fixed = DistDoubleBuffer::new(DistArray::<f64, 2>::new(&world, [12, 9], [1, 1], [false, false]));
        let e = jacobi.try_apply_steps_dist_with(&mut fixed, 2, [Periodic, Neumann]).unwrap_err();
        assert!(
            e.to_string().contains("axis 0 is not periodic in the decomposition but its boundary is Periodic"),
            "{e}"
        );
        assert!(same_everywhere(&world, &e.to_string()), "{e}");
        checks += 4;
    }
    let mut narrow = DistDoubleBuffer::new(DistArray::<f64, 2>::new(&world, [12, 9], [1, 1], [true, true]));
    let e = aniso.try_apply_steps_dist(&mut narrow, 2).unwrap_err();
    assert!(e.to_string().contains("the halo of axis 0 is 1 wide, narrower than the stencil's radius 2"), "{e}");
    assert!(same_everywhere(&world, &e.to_string()), "{e}");
    checks += 1;
    #[cfg(feature = "hdf5")]
    {
        check_checkpoint(&world);
        checks += 1;
    }
    grids::check_staggered(&world, [13, 10], 0, [1, 1]);
    grids::check_staggered(&world, [13, 10], 1, [2, 1]);
    checks += 2;
    // Systems (several fields, two time levels, coefficient fields) with deep halos.
    {
        use cnda::stencil::Boundary::{Fixed, Neumann, Value};
        let sides = [[Value(0.5), Neumann], [Neumann, Fixed]];
        for (halo, periodic) in
            [([1, 1], [false, false]), ([3, 2], [false, false]), ([2, 3], [true, false]), ([3, 3], [true, true])]
        {
            systems::check_reaction_dist(&world, ([23, 17], halo, periodic), sides, 7);
            checks += 1;
        }
        for (halo, periodic) in [([2, 2], [false, false]), ([4, 6], [false, true]), ([6, 4], [true, true])] {
            systems::check_wave_dist(&world, ([21, 16], halo, periodic), 9);
            checks += 1;
        }
        systems::check_wave_dist(&world, ([12, 9], [4, 4], [false, false]), 5); // small blocks
        for (halo, periodic) in [([2, 2], [false, false]), ([4, 2], [true, false]), ([6, 4], [true, true])] {
            systems::check_yee_dist(&world, ([20, 17], halo, periodic), 8);
            checks += 1;
        }
        for (halo, periodic) in [([4, 4], [false, false]), ([5, 5], [false, true]), ([5, 7], [true, true])] {
            systems::check_wave_points_dist(&world, ([21, 16], halo, periodic), 11);
            checks += 1;
        }
        for (halo, periodic) in [([2, 2], [false, true]), ([3, 3], [true, true])] {
            systems::check_mixed_dist(&world, ([19, 14], halo, periodic), 6);
            checks += 1;
        }
        systems::check_systems_dist_errors(&world);
        checks += 2;
        #[cfg(feature = "hdf5")]
        {
            systems::check_state_checkpoint(&world);
            checks += 1;
        }
    }
    // Linear solves over the grid (issue 39): every Krylov method against one process.
    checks += solve::check_solves::<f64, Cpu>(&Cpu, &world, 1e-10, true);
    checks += solve::check_solves::<f32, Cpu>(&Cpu, &world, 1e-5, true);
    checks += solve::check_solve_errors(&world, |text| same_everywhere(&world, text));
    checks += solve::check_dist_operator_refused_by_one_process_solves(&world);
    checks += solve::check_multigrid::<f64, Cpu>(&Cpu, &world, 1e-10, true);
    checks += solve::check_multigrid::<f32, Cpu>(&Cpu, &world, 1e-5, true);
    checks += solve::check_expr_operator::<f64, Cpu>(&Cpu, &world, 1e-10);
    checks += sparse::check_sparse::<f64, Cpu>(&Cpu, &world, 1e-10, true, true);
    checks += sparse::check_sparse::<f32, Cpu>(&Cpu, &world, 1e-5, true, true);
    checks += diffusion::check_diffusion::<f64, Cpu>(&Cpu, &world, 1e-10, true);
    checks += diffusion::check_diffusion::<f32, Cpu>(&Cpu, &world, 1e-5, true);
    #[cfg(feature = "fft")]
    {
        checks += spectral::check_solve_box_dist(&world);
    }
    check_failures_agree(&world);
    // Failures some processes meet and others not (issue 36, item 5), on host blocks.
    check_launch_failures_agree(&world);
    check_taps_limit_agreed(&Cpu, &world);
    check_lost_staging_agreed(&Cpu, &world);
    checks += 4;
    let (rank, size) = (world.rank(), world.size());
    check_finalize_in_exchange_panics(&world, universe);
    checks += 1;
    if rank == 0 {
        println!("tests/mpi.rs: {checks} checks passed on {size} processes");
    }
}
