//! The cost of a halo exchange and what overlapping it with the sweep gains, under
//! `mpirun -n 2` (or more): a plain binary, since every process must time the same calls in the
//! same order. Prints medians from rank 0. Last, distributed linear solves: benches/solve.rs's 3D
//! Poisson problem by multigrid-preconditioned CG over the processes, and (feature `fft`) the
//! same problem and a 2D one solved directly by `fft::solve_box_dist`, against rank 0 alone.
//!
//! `cargo bench --features mpi,fft --bench mpi_halo --no-run`, then
//! `mpirun -n 2 target/release/deps/mpi_halo-<hash>` (`--quick`: small grids and few runs, what
//! scripts/test runs to keep the bench working; `--solve`: the solves alone).

use std::time::Instant;

use cnda::dist::{Decomposition, DistArray, DistDoubleBuffer, DistState, StencilApplyDist};
use cnda::prelude::*;
use cnda::solve::{Cg, DistOperator, Multigrid, MultigridOptions, Smoother};
use cnda::stencil::{Boundary, LinearStencil};
use mpi::point_to_point::send_receive_into;
use mpi::traits::{Communicator, CommunicatorCollectives, Destination, Source};

stencil! {
    /// Gray-Scott: two species, one pass for both (radius 1).
    struct GrayScott = |u, v; du: T, dv: T, feed: T, kill: T| {
        let uvv = u[0, 0] * v[0, 0] * v[0, 0];
        (
            u[0, 0] + du * laplace(u, 2) - uvv + feed * (1.0 - u[0, 0]),
            v[0, 0] + dv * laplace(v, 2) + uvv - (feed + kill) * v[0, 0],
        )
    };
}

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
    let quick = std::env::args().any(|a| a == "--quick");
    if std::env::args().any(|a| a == "--solve") {
        poisson_3d(&world, quick); // the solves alone
        #[cfg(feature = "fft")]
        spectral(&world, quick);
        return;
    }
    let (sizes, runs_small, runs_big): (&[usize], usize, usize) =
        if quick { (&[64, 256], 20, 5) } else { (&[64, 256, 1024, 4096, 16384], 400, 50) };
    if root {
        println!("{} processes; one halo of width 1 per face of a 2D grid", world.size());
        println!("| global grid | bytes per face message | exchange (median) | bandwidth per message |");
        println!("|---|---:|---:|---:|");
    }
    for &n in sizes {
        let mut u = DistArray::<f64, 2>::new(&world, [n, n], [1, 1], [false, false]);
        let face = u.decomposition().block_shape(0)[1] * 8;
        let runs = if n >= 4096 { runs_big } else { runs_small };
        let t = median_us(&world, runs, || u.exchange_halos());
        if root {
            println!("| {n} x {n} | {face} | {t:.1} us | {:.2} GB/s |", face as f64 / t / 1e3);
        }
    }
    // Overlap: a sweep with the exchange hidden behind the interior, against exchanging first and
    // sweeping after, against the sweep alone (no exchange at all).
    let jacobi = LinearStencil::jacobi_5pt();
    let overlap_sizes: &[usize] = if quick { &[256] } else { &[1024, 4096] };
    let sweeps = if quick { 3 } else { 30 };
    for &n in overlap_sizes {
        let mut initial = DistArray::<f64, 2>::new(&world, [n, n], [1, 1], [false, false]);
        initial.fill_owned_with(|[i, j]| ((i * 7 + j * 3) % 11) as f64);
        let mut field = DistDoubleBuffer::new(initial);
        let overlapped = median_us(&world, sweeps, || {
            let (u, v) = field.both_mut();
            jacobi.apply_dist(u, v);
        });
        let sequential = median_us(&world, sweeps, || {
            let (u, v) = field.both_mut();
            u.exchange_halos();
            let mut out = v.local_mut();
            jacobi.apply(u.local().view(), out.view_mut());
        });
        let compute = median_us(&world, sweeps, || {
            let (u, v) = field.both_mut();
            let mut out = v.local_mut();
            jacobi.apply(u.local().view(), out.view_mut());
        });
        let exchange = median_us(&world, sweeps, || field.current_mut().exchange_halos());
        if root {
            println!(
                "{n} x {n}: sweep alone {compute:.0} us, exchange alone {exchange:.1} us, exchange then sweep \
                 {sequential:.0} us, overlapped (apply_dist) {overlapped:.0} us ({:.3}x the exchange-then-sweep)",
                overlapped / sequential
            );
        }
    }
    // Deep halos: 8 sweeps with one exchange per sweep (`apply_dist`, halo 1) against
    // `apply_steps_dist` with halos of 2 and 4 (one exchange per 2 or 4 sweeps, the widened
    // regions recomputed).
    if root {
        println!("| grid | 8 x apply_dist (halo 1) | apply_steps_dist, halo 2 | apply_steps_dist, halo 4 |");
        println!("|---|---:|---:|---:|");
    }
    let deep_sizes: &[usize] = if quick { &[128] } else { &[256, 1024, 4096] };
    for &n in deep_sizes {
        let field_with = |halo: usize| {
            let mut initial = DistArray::<f64, 2>::new(&world, [n, n], [halo, halo], [false, false]);
            initial.fill_owned_with(|[i, j]| ((i * 7 + j * 3) % 11) as f64);
            DistDoubleBuffer::new(initial)
        };
        let mut one = field_with(1);
        let per_sweep = median_us(&world, sweeps, || {
            for _ in 0..8 {
                let (u, v) = one.both_mut();
                jacobi.apply_dist(u, v);
                one.swap();
            }
        });
        let mut deep: Vec<f64> = Vec::new();
        for halo in [2, 4] {
            let mut field = field_with(halo);
            deep.push(median_us(&world, sweeps, || jacobi.apply_steps_dist(&mut field, 8)));
        }
        if root {
            println!("| {n} x {n} | {per_sweep:.0} us | {:.0} us | {:.0} us |", deep[0], deep[1]);
        }
    }
    // Systems with deep halos: Gray-Scott's two fields stepped 32 times (`apply_steps_dist` on a
    // `DistState`: both fields' halos in one message per neighbour, the block stepped by the
    // fused stepper between exchanges) with halos of 1 (an exchange per step), 4 and 16; against
    // one process stepping a block of the same size with no exchange at all (`State`).
    if root {
        println!("| grid | halo 1 (exchange per step) | halo 4 | halo 16 | one block, no MPI | halo 16 / halo 1 |");
        println!("|---|---:|---:|---:|---:|---:|");
    }
    let gs_params = (0.16f64, 0.08, 0.037, 0.06);
    let gs_steps = if quick { 4 } else { 32 };
    let gs_sizes: &[usize] = if quick { &[64] } else { &[512, 2048] };
    for &n in gs_sizes {
        let start = |g: [usize; 2], species: usize| {
            let spot = (g[0] * 7 + g[1] * 13) % 97 < 3;
            if species == 0 {
                if spot {
                    0.5
                } else {
                    1.0
                }
            } else if spot {
                0.25
            } else {
                0.0
            }
        };
        let state_with = |halo: usize| {
            DistState::from_fields([0, 1].map(|species| {
                let mut f = DistArray::<f64, 2>::new(&world, [n, n], [halo, halo], [true, true]);
                f.fill_owned_with(|g| start(g, species));
                f
            }))
        };
        let mut times = Vec::new();
        for halo in [1, 4, 16] {
            let mut state = state_with(halo);
            times.push(median_us(&world, sweeps, || {
                GrayScott.apply_steps_dist(&mut state, gs_steps, (), gs_params, [cnda::stencil::Boundary::Periodic; 2])
            }));
        }
        let block = state_with(1).field(0).decomposition().block_shape(0);
        let mut one = cnda::stencil::State::from_fields(
            [0, 1].map(|species| Array::from_fn([block[0] + 2, block[1] + 2], |[i, j]| start([i, j], species))),
        );
        let alone = median_us(&world, sweeps, || {
            GrayScott.apply_steps_with(&mut one, gs_steps, (), gs_params, [cnda::stencil::Boundary::Fixed; 2])
        });
        if root {
            println!(
                "| {n} x {n} | {:.0} us | {:.0} us | {:.0} us | {alone:.0} us | {:.3} |",
                times[0],
                times[1],
                times[2],
                times[2] / times[0]
            );
        }
    }
    // Strided faces: the processes split axis 1, so a face is a column. `exchange_halos` (which
    // packs strided regions itself; it handed MPI subarray datatypes before, 1.2-1.8x slower here)
    // against packing each column by hand into a contiguous buffer, sending it, and unpacking.
    // The hand-packed exchange is checked against `exchange_halos` first.
    if root {
        println!("| global grid | column bytes | exchange_halos | packed by hand | by hand / exchange_halos |");
        println!("|---|---:|---:|---:|---:|");
    }
    let size = world.size() as usize;
    let column_sizes: &[usize] = if quick { &[256] } else { &[256, 1024, 4096, 8192] };
    for &n in column_sizes {
        let d = Decomposition::with_dims([n, n], [1, size], [false, false]);
        let mut u = DistArray::<f64, 2>::try_with_decomposition(&world, d, [1, 1]).expect("a column split");
        u.fill_owned_with(|[i, j]| (i * 3 + j) as f64);
        let runs = if n >= 4096 { runs_big } else { runs_small };
        let derived = median_us(&world, runs, || u.exchange_halos());
        let rank = u.rank();
        let (left, right) = (d.neighbour(rank, 1, -1), d.neighbour(rank, 1, 1));
        let width = d.block_shape(rank)[1];
        let (mut send, mut receive) = (vec![0.0f64; n], vec![0.0f64; n]);
        let mut packed_exchange = |u: &mut DistArray<f64, 2>| {
            // Rightwards (the last owned column to the right's low halo), then leftwards.
            for (to, from, column, halo) in [(right, left, width, 0), (left, right, 1, width + 1)] {
                if to.is_some() {
                    let local = u.local();
                    let src = local.slice(s![1..n + 1, column]);
                    send.iter_mut().zip(src.iter()).for_each(|(s, &x)| *s = x);
                }
                match (to, from) {
                    (Some(to), Some(from)) => {
                        let (to, from) = (world.process_at_rank(to as i32), world.process_at_rank(from as i32));
                        send_receive_into(&send[..], &to, &mut receive[..], &from);
                    }
                    (Some(to), None) => world.process_at_rank(to as i32).send(&send[..]),
                    (None, Some(from)) => {
                        world.process_at_rank(from as i32).receive_into(&mut receive[..]);
                    }
                    (None, None) => {}
                }
                if from.is_some() {
                    let mut local = u.local_mut();
                    let mut dst = local.slice_mut(s![1..n + 1, halo]);
                    dst.iter_mut().zip(&receive).for_each(|(d, &x)| *d = x);
                }
            }
        };
        let want = u.local().clone();
        for (neighbour, halo) in [(left, 0), (right, width + 1)] {
            if neighbour.is_some() {
                u.local_mut().slice_mut(s![.., halo]).fill(f64::NAN);
            }
        }
        packed_exchange(&mut u);
        let got = u.local().clone();
        let inner = |a: &Array<f64, 2>| a.slice(s![1..n + 1, ..]).to_owned();
        let (got, want) = (inner(&got), inner(&want));
        assert_eq!(got, want, "the packed exchange differs from exchange_halos");
        let packed = median_us(&world, runs, || packed_exchange(&mut u));
        if root {
            println!("| {n} x {n} | {} | {derived:.1} us | {packed:.1} us | {:.2} |", n * 8, packed / derived);
        }
    }
    poisson_3d(&world, quick);
    #[cfg(feature = "fft")]
    spectral(&world, quick);
}

/// benches/solve.rs's 3D Poisson problem (7 points, zero walls, its right-hand side) solved to a
/// relative residual of 1e-8 by CG with one multigrid V(2,2) cycle per iteration, every level
/// split over the processes; the hierarchy built once, outside the timing.
fn poisson_3d(world: &impl Communicator, quick: bool) {
    let root = world.rank() == 0;
    if root {
        println!("\n3D Poisson to 1e-8, MG-CG over {} processes (hierarchy built once)", world.size());
        println!("| n^3 | smoother | iterations | solve (median) | unknowns per second |");
        println!("|---|---|---:|---:|---:|");
    }
    let (sizes, runs): (&[usize], usize) = if quick { (&[31], 1) } else { (&[127, 255], 3) };
    for &n in sizes {
        let h = 1.0 / (n + 1) as f64;
        let mut b = DistArray::<f64, 3>::new(world, [n; 3], [1; 3], [false; 3]);
        b.fill_owned_with(|[i, j, k]| ((i * 7 + j * 3 + k * 5) % 11) as f64 - 5.0);
        let a = DistOperator::stencil(LinearStencil::laplacian_7pt(h), [Boundary::Value(0.0); 3], &b);
        for smoother in [Smoother::DampedJacobi, Smoother::RedBlack] {
            let options = MultigridOptions { smoother, ..Default::default() };
            let cg = Cg::new().rtol(1e-8).preconditioner(Multigrid::for_dist(&a, options));
            let mut x = DistArray::<f64, 3>::new(world, [n; 3], [1; 3], [false; 3]);
            let mut iterations = 0;
            let t = median_us(world, runs, || {
                x.owned_mut().fill(0.0);
                iterations = cg.solve_dist(&a, &b, &mut x).iterations;
            });
            if root {
                let unknowns = (n * n * n) as f64;
                println!("| {n}^3 | {smoother:?} | {iterations} | {:.1} ms | {:.1} M |", t / 1e3, unknowns / t);
            }
        }
    }
}

/// The 3D Poisson problem of [`poisson_3d`] (zero walls) and a 2D one (mirrors along one axis,
/// periodic along the other) solved directly by `solve_box_dist` over the processes, against
/// rank 0 solving the gathered grid alone with `solve_box` (the one-process baseline, in the
/// same run).
#[cfg(feature = "fft")]
fn spectral(world: &impl Communicator, quick: bool) {
    use cnda::fft::{solve_box, solve_box_dist, Laplacian};
    use cnda::stencil::Boundaries;
    let root = world.rank() == 0;
    if root {
        println!(
            "\nDirect solves, fft::solve_box_dist over {} processes against solve_box on rank 0 alone",
            world.size()
        );
        println!("| grid | sides | distributed (median) | one process (median) | one / distributed |");
        println!("|---|---|---:|---:|---:|");
    }
    let runs = if quick { 1 } else { 5 };
    fn case<const N: usize>(
        world: &impl Communicator,
        runs: usize,
        n: usize,
        sides: impl Into<Boundaries<f64, N>> + Copy,
        name: &str,
    ) {
        let h = 1.0 / (n + 1) as f64;
        let mut f = DistArray::<f64, N>::new(world, [n; N], [1; N], [false; N]);
        f.fill_owned_with(|g| (g.iter().enumerate().map(|(k, &i)| i * (2 * k + 3)).sum::<usize>() % 11) as f64 - 5.0);
        let spacing = [h; N];
        let dist = median_us(world, runs, || {
            std::hint::black_box(solve_box_dist(&f, spacing, 0.0, sides, Laplacian::SecondOrder));
        });
        let whole = f.gather(0);
        let one = median_us(world, runs, || {
            if let Some(f) = &whole {
                std::hint::black_box(solve_box(f, spacing, 0.0, sides, Laplacian::SecondOrder));
            }
        });
        if world.rank() == 0 {
            let shape = vec![n.to_string(); N].join(" x ");
            println!("| {shape} | {name} | {:.1} ms | {:.1} ms | {:.2} |", dist / 1e3, one / 1e3, one / dist);
        }
    }
    for &n in if quick { &[31][..] } else { &[127, 255][..] } {
        case::<3>(world, runs, n, [Boundary::Value(0.0); 3], "walls");
    }
    for &n in if quick { &[64][..] } else { &[1024, 2048][..] } {
        case::<2>(world, runs, n, [Boundary::Neumann, Boundary::Periodic], "mirrors, periodic");
    }
}
