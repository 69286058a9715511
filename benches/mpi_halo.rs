//! The cost of a halo exchange and what overlapping it with the sweep gains, under
//! `mpirun -n 2` (or more): a plain binary, since every process must time the same calls in the
//! same order. Prints medians from rank 0.
//!
//! `cargo bench --features mpi --bench mpi_halo --no-run`, then
//! `mpirun -n 2 target/release/deps/mpi_halo-<hash>`.

use std::time::Instant;

use cnda::dist::{DistArray, DistDoubleBuffer};
use cnda::stencil::LinearStencil;
use mpi::traits::{Communicator, CommunicatorCollectives};

/// The median of `runs` timings of `f` in microseconds, every process starting together.
fn median_us(world: &impl Communicator, runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            world.barrier();
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

fn main() {
    let universe = mpi::initialize().expect("MPI initializes once");
    let world = universe.world();
    let root = world.rank() == 0;
    if root {
        println!("{} processes; one halo of width 1 per face of a 2D grid", world.size());
        println!("| global grid | bytes per face message | exchange (median) | bandwidth per message |");
        println!("|---|---:|---:|---:|");
    }
    for n in [64usize, 256, 1024, 4096, 16384] {
        let mut u = DistArray::<f64, 2>::new(&world, [n, n], [1, 1], [false, false]);
        let face = u.decomposition().block_shape(0)[1] * 8;
        let runs = if n >= 4096 { 50 } else { 400 };
        let t = median_us(&world, runs, || u.exchange_halos());
        if root {
            println!("| {n} x {n} | {face} | {t:.1} us | {:.2} GB/s |", face as f64 / t / 1e3);
        }
    }
    // Overlap: a sweep with the exchange hidden behind the interior, against exchanging first and
    // sweeping after, against the sweep alone (no exchange at all).
    let jacobi = LinearStencil::jacobi_5pt();
    for n in [1024usize, 4096] {
        let mut initial = DistArray::<f64, 2>::new(&world, [n, n], [1, 1], [false, false]);
        initial.fill_owned_with(|[i, j]| ((i * 7 + j * 3) % 11) as f64);
        let mut field = DistDoubleBuffer::new(initial);
        let overlapped = median_us(&world, 30, || {
            let (u, v) = field.both_mut();
            jacobi.apply_dist(u, v);
        });
        let sequential = median_us(&world, 30, || {
            let (u, v) = field.both_mut();
            u.exchange_halos();
            let mut out = v.local_mut();
            jacobi.apply(u.local().view(), out.view_mut());
        });
        let compute = median_us(&world, 30, || {
            let (u, v) = field.both_mut();
            let mut out = v.local_mut();
            jacobi.apply(u.local().view(), out.view_mut());
        });
        let exchange = median_us(&world, 30, || field.current_mut().exchange_halos());
        if root {
            println!(
                "{n} x {n}: sweep alone {compute:.0} us, exchange alone {exchange:.1} us, exchange then sweep \
                 {sequential:.0} us, overlapped (apply_dist) {overlapped:.0} us ({:.3}x the exchange-then-sweep)",
                overlapped / sequential
            );
        }
    }
}
