"""SciPy's (pocketfft) transforms of the grids `benches/fft.rs` times, for comparison in the same
sitting: `scipy.fft.fftn` of complex128 and complex64 2D (1024, 729, 1050) and 3D (128, 81, 105)
grids over every axis, `scipy.fft.rfftn` and `scipy.fft.dctn` (type II) of the 2D float64 grids,
and a Poisson solve between mirrors (Neumann) of a 1024^2 grid written with SciPy as a user would
(`dctn`, a division by the second-order Laplacian's eigenvalues, `idctn`), with `workers` 1 and 2.
Prints one line per case: the median of 11 timed calls (after 2 untimed) in milliseconds and
in grid points per second.

    /work/target/python-venv/bin/python benches/scipy_fft.py
"""

import statistics
import time

import numpy as np
import scipy
import scipy.fft


def median_ms(f, repeats=11):
    for _ in range(2):
        f()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def main():
    print(f"scipy {scipy.__version__}, numpy {np.__version__}")
    rng = np.random.default_rng(0)
    cases = []
    for n in (1024, 729, 1050):
        x = rng.random((n, n)) - 0.5 + 1j * (rng.random((n, n)) - 0.5)
        cases += [
            (f"c128_{n}x{n}", scipy.fft.fftn, x),
            (f"c64_{n}x{n}", scipy.fft.fftn, x.astype(np.complex64)),
            (f"rfftn_f64_{n}x{n}", scipy.fft.rfftn, x.real.copy()),
            (f"dctn_f64_{n}x{n}", lambda a, workers: scipy.fft.dctn(a, type=2, workers=workers), x.real.copy()),
        ]
    n = 1024
    h = 1.0 / n
    k = np.arange(n)
    eigen = (2.0 * np.sin(np.pi * k / (2 * n)) / h) ** 2
    divisor = eigen[:, None] + eigen[None, :]
    divisor[0, 0] = np.inf  # the free constant: dropped

    def neumann_poisson(f, workers):
        return scipy.fft.idctn(scipy.fft.dctn(f, type=2, workers=workers) / divisor, type=2, workers=workers)

    cases.append((f"solve_box_neumann_{n}x{n}", neumann_poisson, rng.random((n, n)) - 0.5))
    for n in (128, 81, 105):
        x = rng.random((n, n, n)) - 0.5 + 1j * (rng.random((n, n, n)) - 0.5)
        cases += [(f"c128_{n}^3", scipy.fft.fftn, x), (f"c64_{n}^3", scipy.fft.fftn, x.astype(np.complex64))]
    for name, f, x in cases:
        for workers in (1, 2):
            ms = median_ms(lambda: f(x, workers=workers))
            print(f"{name:20s} workers={workers}  {ms:9.3f} ms  {x.size / ms / 1e3:8.1f} Melem/s")


if __name__ == "__main__":
    main()
