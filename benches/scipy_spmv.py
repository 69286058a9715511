"""SciPy's answer to benches/sparse.rs: `A @ x` for the CSR matrix of the 7-point Laplacian with
zero walls on n^3 unknowns (the same matrix, built by Kronecker sums; f64, int32 indices), the
median of 20 products after a warm-up, in the same sitting as `cargo bench --bench sparse`.

    python benches/scipy_spmv.py --n 128

Needs NumPy and SciPy (scripts/test's virtual environment has NumPy; `pip install scipy`).
"""

import argparse
import statistics
import time

import numpy as np
import scipy
import scipy.sparse as sp


def laplacian(n):
    """The 7-point operator (unit spacing) on n^3 unknowns, x fastest, zero walls."""
    one = sp.diags([np.ones(n - 1), -2.0 * np.ones(n), np.ones(n - 1)], [-1, 0, 1], format="csr")
    eye = sp.identity(n, format="csr")
    a = sp.kron(sp.kron(one, eye), eye) + sp.kron(sp.kron(eye, one), eye) + sp.kron(sp.kron(eye, eye), one)
    return sp.csr_matrix(a)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=128)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    a = laplacian(args.n)
    a.sort_indices()
    rows = args.n**3
    x = (np.arange(rows) * 7 % 13).astype(np.float64) - 6.0
    y = a @ x
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        y = a @ x
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(
        f"scipy {scipy.__version__} spmv n={args.n}: {a.nnz} entries ({a.indices.dtype}), "
        f"median {median * 1e3:.2f} ms, {a.nnz / median / 1e9:.3f} G entries/s, checksum {y[rows // 2]:.1f}"
    )


if __name__ == "__main__":
    main()
