"""cnda.solve, and cnda's CSR matrices as SciPy's: solutions against SciPy's sparse direct solver
on the same operator (the stencil's matrix checked entry by entry against one SciPy builds),
every method and preconditioner, spmv against SciPy's product, Matrix Market files both ways,
and the refusals."""

import numpy as np
import pytest

import cnda

scipy = pytest.importorskip("scipy")
import scipy.io  # noqa: E402
import scipy.sparse as sp  # noqa: E402
import scipy.sparse.linalg  # noqa: E402


def laplacian_2d(n, m, h):
    """The 5-point Laplacian with zero walls on an n x m grid (x.ravel() order), by Kronecker sums."""
    def second(k):
        return sp.diags([np.ones(k - 1), -2.0 * np.ones(k), np.ones(k - 1)], [-1, 0, 1]) / h**2

    return (sp.kron(second(n), sp.identity(m)) + sp.kron(sp.identity(n), second(m))).tocsr()


def rhs(shape, dtype=np.float64):
    return (np.arange(np.prod(shape)).reshape(shape) * 7 % 11 - 4.5).astype(dtype)


def test_the_stencil_matrix_is_scipys_laplacian():
    a = cnda.stencil_matrix((9, 7), laplacian=True, h=0.5)
    assert isinstance(a, sp.csr_matrix) and a.indices.dtype == np.int32 and a.dtype == np.float64
    assert abs(a - laplacian_2d(9, 7, 0.5)).max() == 0.0
    periodic = cnda.stencil_matrix((6,), taps={-1: 1.0, 0: -2.0, 1: 1.0}, boundary="periodic", dtype=np.float32)
    assert periodic.dtype == np.float32
    assert periodic.toarray()[0, 5] == 1.0 and periodic.toarray()[5, 0] == 1.0


@pytest.mark.parametrize(
    "method, preconditioner",
    [("cg", None), ("cg", "jacobi"), ("cg", "multigrid"), ("minres", None), ("bicgstab", None), ("gmres", "jacobi"),
     ("multigrid", None)],
)
def test_every_method_solves_poisson_as_scipys_direct_solver(method, preconditioner):
    shape, h = (15, 31), 1.0 / 16
    b = rhs(shape)
    x, info = cnda.solve(b, laplacian=True, h=h, method=method, preconditioner=preconditioner, rtol=1e-11)
    exact = scipy.sparse.linalg.spsolve(laplacian_2d(*shape, h).tocsc(), b.ravel()).reshape(shape)
    assert np.abs(x - exact).max() <= 1e-8 * np.abs(exact).max(), info
    assert info["method"] == method and info["iterations"] == len(info["residual_history"]) - 1
    assert info["residual_history"][-1] <= info["threshold"] and info["work"] >= info["iterations"]


def test_a_scipy_matrix_is_an_operator_and_float32_works():
    shape, h = (12, 10), 0.1
    a = laplacian_2d(*shape, h)
    b = rhs(shape, np.float32)
    x, info = cnda.solve(b, matrix=a, method="cg", preconditioner="jacobi", rtol=1e-5)
    assert x.dtype == np.float32 and x.shape == shape
    exact = scipy.sparse.linalg.spsolve(a.tocsc(), b.ravel().astype(np.float64)).reshape(shape)
    assert np.abs(x - exact).max() <= 1e-4 * np.abs(exact).max()
    # A COO matrix converts, and the guess is used: from the solution, nothing to do.
    x2, info2 = cnda.solve(b, matrix=a.tocoo(), x0=x, rtol=1e-4)
    assert info2["iterations"] == 0 and np.array_equal(x2, x)


def test_minres_solves_an_indefinite_helmholtz_problem():
    shape, h, k2 = (20, 17), 0.05, 300.0
    a = (-laplacian_2d(*shape, h) - k2 * sp.identity(shape[0] * shape[1])).tocsr()
    b = rhs(shape)
    x, _ = cnda.solve(b, matrix=a, method="minres", rtol=1e-10)
    exact = scipy.sparse.linalg.spsolve(a.tocsc(), b.ravel()).reshape(shape)
    assert np.abs(x - exact).max() <= 1e-7 * np.abs(exact).max()


def test_a_conductivity_is_an_operator_with_its_own_multigrid():
    # 1D first, against the matrix written out from the definition: -(k u')' with each face's k
    # the harmonic mean of its two points', k of the point itself towards a zero wall.
    n, h = 31, 1.0 / 32
    k = np.where(np.arange(n) < 16, 1.0, 1000.0)
    faces = np.concatenate([[k[0]], 2 * k[:-1] * k[1:] / (k[:-1] + k[1:]), [k[-1]]])
    dense = (np.diag(faces[:-1] + faces[1:]) - np.diag(faces[1:-1], 1) - np.diag(faces[1:-1], -1)) / h**2
    b = np.sin(np.arange(n))
    x, _ = cnda.solve(b, conductivity=k, h=h, method="multigrid", rtol=1e-12)
    assert np.abs(x - np.linalg.solve(dense, b)).max() <= 1e-9 * np.abs(x).max()
    # 2D with a shift, multigrid-preconditioned CG against plain CG.
    k2 = np.fromfunction(lambda i, j: 1.0 + 99.0 * ((i // 8 + j // 8) % 2), (31, 31))
    b2 = rhs((31, 31))
    x2, info = cnda.solve(b2, conductivity=k2, h=h, shift=3.0, preconditioner="multigrid", rtol=1e-10)
    y2, plain = cnda.solve(b2, conductivity=k2, h=h, shift=3.0, rtol=1e-12, max_iters=50_000)
    assert np.abs(x2 - y2).max() <= 1e-7 * np.abs(y2).max()
    assert info["iterations"] * 5 < plain["iterations"], (info["iterations"], plain["iterations"])
    # Its coarse levels rediscretized from k restricted: the same solution, CG's iterations near
    # the Galerkin hierarchy's on this checkerboard of jumps.
    x3, redis = cnda.solve(b2, conductivity=k2, h=h, shift=3.0, preconditioner="multigrid", coarse="rediscretized", rtol=1e-10)
    assert np.abs(x3 - y2).max() <= 1e-7 * np.abs(y2).max()
    assert redis["iterations"] <= 2 * info["iterations"], (redis["iterations"], info["iterations"])
    with pytest.raises(ValueError, match="rediscretized"):
        cnda.solve(b2, conductivity=k2, preconditioner="multigrid", coarse="injected")
    with pytest.raises(ValueError, match="conductivity"):
        cnda.solve(b2, laplacian=True, preconditioner="multigrid", coarse="rediscretized")


def test_spmv_is_scipys_product():
    rng = np.random.default_rng(7)
    a = sp.random(200, 150, density=0.05, format="csr", random_state=rng)
    a.sum_duplicates()
    x = rng.standard_normal(150)
    assert np.allclose(cnda.spmv(a, x), a @ x, rtol=1e-14, atol=1e-14)
    assert cnda.spmv(a, x.astype(np.float32)).dtype == np.float32
    with pytest.raises(TypeError, match="tocsr"):
        cnda.spmv(np.eye(3), np.ones(3))


def test_matrix_market_files_go_both_ways_with_scipy(tmp_path):
    a = cnda.stencil_matrix((5, 4, 3), taps={(0, 0, 0): 6.25, (1, 0, 0): -1.0 / 3.0, (0, 0, -1): 1e-300},
                            boundary=["periodic", "neumann", 0.0])
    mine = tmp_path / "cnda.mtx"
    cnda.write_matrix_market(mine, a)
    assert abs(scipy.io.mmread(mine).tocsr() - a).max() == 0.0
    theirs = tmp_path / "scipy.mtx"
    scipy.io.mmwrite(theirs, sp.tril(a + a.T), symmetry="symmetric")
    assert abs(cnda.read_matrix_market(theirs) - (a + a.T)).max() <= 1e-15
    with pytest.raises(OSError, match="line 3"):
        bad = tmp_path / "bad.mtx"
        bad.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n")
        cnda.read_matrix_market(bad)


def test_multigrid_takes_neumann_sides_and_a_singular_problem():
    # Pure-Neumann Poisson (2^5 + 1 points per axis): singular, a right-hand side of zero sum,
    # the solution up to a constant; checked through NumPy's "symmetric" padding, which is
    # cnda's Neumann side.
    n = 33
    b = rhs((n, n))
    b -= b.mean()
    x, info = cnda.solve(b, laplacian=True, boundary="neumann", preconditioner="multigrid", rtol=1e-10)
    p = np.pad(x, 1, mode="symmetric")
    applied = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4.0 * x
    assert np.linalg.norm(applied - b) <= 1e-8 * np.linalg.norm(b), info
    assert info["iterations"] <= 10, info
    with pytest.raises(ValueError, match="2\\^k \\+ 1 between Neumann sides"):
        cnda.solve(rhs((32, 32)), laplacian=True, boundary="neumann", method="multigrid")


def test_refusals_say_what_to_do():
    b = rhs((7, 7))
    with pytest.raises(RuntimeError, match="no convergence"):
        cnda.solve(b, laplacian=True, max_iters=2)
    with pytest.raises(ValueError, match="affine"):
        cnda.solve(b, laplacian=True, boundary=1.0)
    with pytest.raises(ValueError, match="not one of"):
        cnda.solve(b, laplacian=True, method="lu")
    with pytest.raises(ValueError, match="needs the operator as a stencil"):
        cnda.solve(b, matrix=laplacian_2d(7, 7, 1.0), preconditioner="multigrid")
    with pytest.raises(ValueError, match="one way"):
        cnda.solve(b, matrix=laplacian_2d(7, 7, 1.0), laplacian=True)
    with pytest.raises(ValueError, match="one way"):
        cnda.solve(b, conductivity=np.ones((7, 7)), laplacian=True)
    with pytest.raises(ValueError, match="conductivity"):
        cnda.solve(b, conductivity=-np.ones((7, 7)))
    with pytest.raises(TypeError, match="float32 or float64"):
        cnda.solve(b.astype(np.int64), laplacian=True)
    with pytest.raises(ValueError, match="2\\^k - 1"):
        cnda.solve(rhs((8, 8)), laplacian=True, method="multigrid")
