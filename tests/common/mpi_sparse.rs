//! Distributed CSR matrices (`DistOperator::csr` with the whole matrix on every process,
//! `DistOperator::csr_rows` with each process's own rows) against the one-process matrix: each
//! process's product equals the whole grid's `spmv` at its points (bit for bit on host blocks:
//! the same entries added in the same order), the halo is as wide as the matrix reaches, CG's
//! solution is the one-process solve's (`compare`), and a matrix that reaches farther than a
//! block, or has the wrong shape, is refused alike on every process. On host blocks
//! (tests/mpi.rs) and device blocks (tests/mpi_device.rs).

use cnda::dist::DistArray;
use cnda::element::Float;
use cnda::error::Error;
use cnda::kernel::{Allocator, SparseKernels};
use cnda::prelude::*;
use cnda::solve::{Cg, DistOperator, LinearOperator, StencilOperator};
use cnda::sparse::{BlockOperator, CsrMatrix};
use cnda::stencil::{Boundaries, Boundary, DynStencil};
use mpi::traits::Communicator;

use super::solve::{compare, filled, rhs, Real, SolveBackend};

/// What the distributed matrices need of the element type and the blocks' backend.
pub trait SparseReal: Real + Float {}
impl<T: Real + Float> SparseReal for T {}
pub trait SparseBackend: SolveBackend + SparseKernels {}
impl<B: SolveBackend + SparseKernels> SparseBackend for B {}

/// `x`'s values at global point `g`: distinct, of both signs.
fn operand<const N: usize>(g: [usize; N]) -> f64 {
    rhs(g) - 0.5 + g.iter().fold(0.0, |s, &i| 0.37 * s + i as f64 * 0.01)
}

/// The operator's product of `operand` on this process's block against the whole matrix's
/// product at the block's points: equal bits where `exact` (host blocks), else within `1e-5`
/// relative to the product's magnitude (at least 1: `f32` on a device, whose kernel rounds
/// another way). Also checks the halo: `reach` where the decomposition
/// exchanges, none elsewhere.
#[allow(clippy::too_many_arguments)]
fn check_product<T: SparseReal, const N: usize, B: SparseBackend>(
    alloc: &impl Allocator<B>,
    comm: &impl Communicator,
    what: &str,
    whole: &CsrMatrix<T>,
    dist: &DistOperator<T, N, BlockOperator<T, N, B>, B>,
    like: &DistArray<T, N, B>,
    reach: [usize; N],
    exact: bool,
) {
    let d = like.decomposition();
    let (global, halo) = (d.global_shape(), dist.halo());
    let want: [usize; N] = core::array::from_fn(|k| if d.exchanges_along(k) { reach[k] } else { 0 });
    assert_eq!(halo, want, "{what}: the operator's halo");
    let x = filled::<T, N, B>(alloc, comm, (global, halo, d.periodic()), operand);
    let mut xp = x.local().view().try_to_owned().expect("a copy of the block");
    let mut yp = Array::<T, N, B>::zeros_in(alloc, xp.shape());
    dist.try_apply(&mut xp, &mut yp).expect("the distributed product");
    let yp = yp.to_host();
    // The whole grid's product, on the host.
    let n: usize = global.iter().product();
    let mut xs = Vec::with_capacity(n);
    for_each_index(global, |g| xs.push(T::from_f64(operand(g))));
    let mut y = Array::<T, 1>::zeros([n]);
    whole.spmv(&Array::from_shape_vec([n], xs).unwrap(), &mut y);
    let start = d.block(x.rank()).map(|r| r.start);
    for_each_index(d.block_shape(x.rank()), |l| {
        let g: [usize; N] = core::array::from_fn(|k| start[k] + l[k]);
        let flat = (0..N).fold(0, |i, k| i * global[k] + g[k]);
        let (got, want) = (yp[core::array::from_fn(|k| l[k] + halo[k])], y[[flat]]);
        let (got, want): (f64, f64) = (got.into(), want.into());
        let close =
            if exact { got.to_bits() == want.to_bits() } else { (got - want).abs() <= 1e-5 * (1.0 + want.abs()) };
        assert!(close, "{what}: point {g:?}: {got} distributed, {want} on one process");
    });
}

/// `f` on every index of `shape`, row-major.
fn for_each_index<const N: usize>(shape: [usize; N], mut f: impl FnMut([usize; N])) {
    let n: usize = shape.iter().product();
    for mut i in 0..n {
        let mut g = [0; N];
        for k in (0..N).rev() {
            g[k] = i % shape[k];
            i /= shape[k];
        }
        f(g);
    }
}

/// Row-major index of point `g` of `shape`.
fn flat<const N: usize>(g: [usize; N], shape: [usize; N]) -> usize {
    (0..N).fold(0, |i, k| i * shape[k] + g[k])
}

/// CG on the whole matrix `whole` distributed by `dist`, against one process's CG on it.
fn compare_csr<T: SparseReal, const N: usize, B: SparseBackend>(
    alloc: &impl Allocator<B>,
    comm: &impl Communicator,
    what: &str,
    whole: &CsrMatrix<T>,
    dist: &DistOperator<T, N, BlockOperator<T, N, B>, B>,
    b: &DistArray<T, N, B>,
    rtol: f64,
) {
    let d = b.decomposition();
    let mut x = filled::<T, N, B>(alloc, comm, (d.global_shape(), b.halo(), d.periodic()), |_| 0.0);
    let cg = Cg::new().rtol(rtol);
    let one = whole.on_grid(d.global_shape());
    compare(comm, what, &one, dist, b, &mut x, |a, b, x| cg.solve(a, b, x), |a, b, x| cg.solve_dist(a, b, x), rtol);
}

/// Products of distributed CSR matrices against one process's (bit for bit where `exact`), CG
/// solves with them (with `every_solve`, one per matrix; else only the last, on device blocks
/// whose solver path the stencil operators test), and their errors; `rtol` suits `T`.
pub fn check_sparse<T: SparseReal, B: SparseBackend>(
    alloc: &impl Allocator<B>,
    comm: &impl Communicator,
    rtol: f64,
    exact: bool,
    every_solve: bool,
) -> usize {
    use Boundary::{Neumann, Periodic, Value};
    let z = T::from_f64(0.0);
    let mut checks = 0;
    // The 5-point Laplacian with a mirrored side, and a shifted 9-point one on a channel
    // periodic along axis 0 (its matrix couples across the seam: the exchange's corners), each
    // the whole matrix on every process.
    let star = |c: f64, taps: &[([isize; 2], f64)]| {
        DynStencil::<T, 2>::new(
            [([0, 0], T::from_f64(c))]
                .into_iter()
                .chain(taps.iter().map(|&(o, w)| (o, T::from_f64(w))))
                .collect::<Vec<_>>(),
        )
    };
    let axes = [([-1, 0], -1.0), ([1, 0], -1.0), ([0, -1], -1.0), ([0, 1], -1.0)];
    let diagonals = [([-1, -1], -0.25), ([1, 1], -0.25), ([-1, 1], -0.25), ([1, -1], -0.25)];
    let nine: Vec<_> = axes.iter().chain(&diagonals).copied().collect();
    let cases = [
        (
            "CSR, 5 points",
            ([37, 29], [1, 1], [false, false]),
            star(4.0, &axes),
            [[Value(z), Neumann], [Value(z), Value(z)]],
        ),
        (
            "CSR, 9 points, periodic",
            ([24, 19], [1, 1], [true, false]),
            star(6.0, &nine),
            [[Periodic, Periodic], [Value(z), Value(z)]],
        ),
    ];
    for (what, grid, stencil, sides) in cases {
        let whole = CsrMatrix::from_stencil(&StencilOperator::new(stencil, grid.0, Boundaries::from(sides)));
        let b = filled::<T, 2, B>(alloc, comm, grid, rhs);
        let dist = DistOperator::csr(&whole, &b);
        check_product(alloc, comm, what, &whole, &dist, &b, [1, 1], exact);
        if every_solve {
            compare_csr(alloc, comm, what, &whole, &dist, &b, rtol);
            checks += 1;
        }
        checks += 1;
    }
    // The fourth-order Laplacian reaches two points: a halo of 2.
    {
        let grid = ([33, 30], [2, 2], [false, false]);
        let wide: Vec<_> = [([-1, 0], -4.0 / 3.0), ([1, 0], -4.0 / 3.0), ([0, -1], -4.0 / 3.0), ([0, 1], -4.0 / 3.0)]
            .into_iter()
            .chain([([-2, 0], 1.0 / 12.0), ([2, 0], 1.0 / 12.0), ([0, -2], 1.0 / 12.0), ([0, 2], 1.0 / 12.0)])
            .collect();
        let whole = CsrMatrix::from_stencil(&StencilOperator::new(star(5.0, &wide), grid.0, [Value(z); 2]));
        let b = filled::<T, 2, B>(alloc, comm, grid, rhs);
        let dist = DistOperator::csr(&whole, &b);
        check_product(alloc, comm, "CSR, reach 2", &whole, &dist, &b, [2, 2], exact);
        if every_solve {
            compare_csr(alloc, comm, "CSR, reach 2", &whole, &dist, &b, rtol);
            checks += 1;
        }
        checks += 1;
    }
    checks + check_rows::<T, B>(alloc, comm, rtol, exact) + check_refused::<T, B>(alloc, comm, exact)
}

/// `-div(k grad u) + u/2` on a 3D grid with zero sides, `k` varying by a factor of 50, each
/// process assembling its own rows from triplets (`csr_rows`), against the whole matrix.
fn check_rows<T: SparseReal, B: SparseBackend>(
    alloc: &impl Allocator<B>,
    comm: &impl Communicator,
    rtol: f64,
    exact: bool,
) -> usize {
    let grid = ([13, 11, 9], [1, 1, 1], [false, false, false]);
    let global = grid.0;
    let k = |g: [isize; 3]| 1.0 + 49.0 * ((g[0] * 3 + g[1] * 5 + g[2] * 7).rem_euclid(11) as f64 / 10.0);
    // Row `g`'s entries: the diagonal first, then each neighbour inside the grid.
    let row = |g: [usize; 3]| {
        let gi = g.map(|i| i as isize);
        let mut diagonal = 0.5;
        let mut entries = Vec::new();
        for a in 0..3 {
            for s in [-1, 1] {
                let mut q = gi;
                q[a] += s;
                let face = 0.5 * (k(gi) + k(q));
                diagonal += face;
                if (0..3).all(|b| (0..global[b] as isize).contains(&q[b])) {
                    entries.push((flat(q.map(|i| i as usize), global), -face));
                }
            }
        }
        [(flat(g, global), diagonal)].into_iter().chain(entries).map(|(c, v)| (c, T::from_f64(v))).collect::<Vec<_>>()
    };
    let n: usize = global.iter().product();
    let mut triplets = Vec::new();
    for_each_index(global, |g| triplets.extend(row(g).into_iter().map(|(c, v)| (flat(g, global), c, v))));
    let whole = CsrMatrix::from_triplets([n, n], &triplets);
    let b = filled::<T, 3, B>(alloc, comm, grid, rhs);
    let d = b.decomposition();
    let (block, start) = (d.block_shape(b.rank()), d.block(b.rank()).map(|r| r.start));
    let mut mine = Vec::new();
    let mut i = 0;
    for_each_index(block, |l| {
        mine.extend(row(core::array::from_fn(|a| start[a] + l[a])).into_iter().map(|(c, v)| (i, c, v)));
        i += 1;
    });
    let rows = CsrMatrix::from_triplets([i, n], &mine);
    let dist = DistOperator::csr_rows(&rows, &b);
    check_product(alloc, comm, "CSR rows, 3D", &whole, &dist, &b, [1, 1, 1], exact);
    compare_csr(alloc, comm, "CSR rows, 3D", &whole, &dist, &b, rtol);
    2
}

/// A matrix that couples the grid's first point with its last reaches farther than a block
/// wherever an axis is split (one process takes it); a matrix of another shape is refused.
fn check_refused<T: SparseReal, B: SparseBackend>(
    alloc: &impl Allocator<B>,
    comm: &impl Communicator,
    exact: bool,
) -> usize {
    let grid = ([16, 16], [1, 1], [false, false]);
    let n = 256;
    let mut triplets: Vec<_> = (0..n).map(|i| (i, i, T::from_f64(2.0))).collect();
    triplets.extend([(0, n - 1, T::from_f64(-1.0)), (n - 1, 0, T::from_f64(-1.0))]);
    let whole = CsrMatrix::from_triplets([n, n], &triplets);
    let b = filled::<T, 2, B>(alloc, comm, grid, rhs);
    match DistOperator::try_csr(&whole, &b) {
        Ok(dist) => {
            assert_eq!(comm.size(), 1, "a coupling across the whole grid accepted on {} processes", comm.size());
            check_product(alloc, comm, "CSR, one process", &whole, &dist, &b, [0, 0], exact);
        }
        Err(e) => {
            assert!(comm.size() > 1, "one process refused a coupling within its block: {e}");
            assert!(matches!(e, Error::Decomposition { .. }), "{e}");
            let text = e.to_string();
            assert!(text.contains("couples points 15 apart along axis") && text.contains("fewer processes"), "{text}");
        }
    }
    let wrong = CsrMatrix::from_triplets([n, n + 1], &triplets);
    let e = DistOperator::try_csr(&wrong, &b).expect_err("a matrix with a column too many");
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
    // Each process's own block in the message: where blocks differ, `Error::Mpi` naming the first.
    let e = DistOperator::try_csr_rows(&wrong, &b).expect_err("rows with a column too many");
    assert!(matches!(e, Error::ShapeMismatch { .. } | Error::Mpi { .. }), "{e}");
    assert!(e.to_string().contains(&format!("got [{n}, {}]", n + 1)), "{e}");
    3
}
