"""cnda.stencil against NumPy's slicing expression and, where Numba is installed (a benchmark
environment only: it is no dependency of cnda), a Numba `njit` loop, in the same run, on the 2D
5-point Jacobi in float64 and float32: one sweep (cnda writing a preallocated `out`), 8 sweeps
(cnda's `steps=8`: fused on the CPU; NumPy and Numba sweep 8 times between two arrays), and the
call overhead on a 4 x 4 array. Every variant is checked against NumPy first. The variants are
timed in three rounds (in each, the median of REPEATS calls of each variant); prints the medians
in ns per point update, and each ratio as the median of the rounds' ratios.

`python python/bench_stencil.py [N] [REPEATS]` (defaults 4096 and 9)."""

import sys

import numpy as np

import cnda
from benchutil import median_seconds, numba, report, timed_rounds

STEPS = 8


def numpy_sweep(u, out):
    """NumPy's idiom (timed)."""
    out[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])


def numpy_exact(u, out):
    """The sums in cnda's order (checked bit for bit, not timed)."""
    q = u.dtype.type(0.25)
    out[1:-1, 1:-1] = q * u[:-2, 1:-1] + q * u[2:, 1:-1] + q * u[1:-1, :-2] + q * u[1:-1, 2:]


def numpy_steps(u, v, steps):
    for _ in range(steps):
        numpy_sweep(u, v)
        u, v = v, u
    return u


if numba is not None:

    @numba.njit(parallel=True, fastmath=False, cache=False)
    def njit_sweep(u, out):
        n, m = u.shape
        q = u.dtype.type(0.25)
        for i in numba.prange(1, n - 1):
            for j in range(1, m - 1):
                out[i, j] = q * u[i - 1, j] + q * u[i + 1, j] + q * u[i, j - 1] + q * u[i, j + 1]

    @numba.njit(parallel=True, fastmath=False, cache=False)
    def njit_steps(u, v, steps):
        n, m = u.shape
        q = u.dtype.type(0.25)
        for _ in range(steps):
            for i in numba.prange(1, n - 1):
                for j in range(1, m - 1):
                    v[i, j] = q * u[i - 1, j] + q * u[i + 1, j] + q * u[i, j - 1] + q * u[i, j + 1]
            u, v = v, u
        return u


def run(n, dtype, repeats):
    rng = np.random.default_rng(1)
    u = rng.random((n, n)).astype(dtype)
    out = u.copy()
    points = (n - 2) ** 2

    # Checks first: cnda against NumPy (the same sums in the same order), both forms.
    want = u.copy()
    numpy_exact(u, want)
    assert np.array_equal(cnda.stencil(u, out), want)
    want8 = numpy_steps(u.copy(), u.copy(), STEPS)
    assert np.allclose(cnda.stencil(u, steps=STEPS), want8, rtol=16 * np.finfo(dtype).eps)

    a, b = u.copy(), u.copy()
    variants = {
        "numpy 1 sweep": (lambda: numpy_sweep(u, out), points),
        "cnda 1 sweep": (lambda: cnda.stencil(u, out), points),
        "numpy 8 sweeps": (lambda: numpy_steps(a, b, STEPS), points * STEPS),
        "cnda steps=8": (lambda: cnda.stencil(u, out, steps=STEPS), points * STEPS),
    }
    if numba is not None:
        njit_sweep(u, out)
        assert np.array_equal(out, want)
        njit_steps(a.copy(), b.copy(), 1)  # compile before timing
        variants["numba njit 1 sweep"] = (lambda: njit_sweep(u, out), points)
        variants["numba njit 8 sweeps"] = (lambda: njit_steps(a, b, STEPS), points * STEPS)
    times = timed_rounds(variants, repeats)
    report(f"{n} x {n} {np.dtype(dtype).name}, 2D 5-point Jacobi, {repeats} calls a round", times, [
        ("cnda 1 sweep  ", "cnda 1 sweep", [("numpy 1 sweep", "numpy"), ("numba njit 1 sweep", "numba njit")]),
        ("cnda steps=8  ", "cnda steps=8", [("numpy 8 sweeps", "numpy's 8 sweeps"),
                                            ("numba njit 8 sweeps", "numba njit's 8 sweeps")]),
    ])

def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    print(f"numba {numba.__version__ if numba else 'not installed'}; numpy {np.__version__}")
    for dtype in (np.float64, np.float32):
        run(n, dtype, repeats)
    tiny_u, tiny_out = np.zeros((4, 4)), np.zeros((4, 4))
    t_call = median_seconds(lambda: cnda.stencil(tiny_u, tiny_out), 2001)
    print(f"call on 4 x 4 float64: {t_call * 1e6:.2f} us")


if __name__ == "__main__":
    main()
