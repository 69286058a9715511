"""The 2D 5-point Jacobi on a float64 NumPy array: cnda.stencil (in place, all cores, the
interpreter lock released) against NumPy's slicing expression; and the call overhead on a tiny
array. Prints medians in ns per point. `python python/bench_stencil.py [N]`."""

import sys

import numpy as np

import cnda
from benchutil import median_seconds


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    u = np.random.default_rng(1).random((n, n))
    out = np.zeros_like(u)
    points = (n - 2) ** 2

    def numpy_sweep():
        out[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])

    t_numpy = median_seconds(numpy_sweep, 10)
    t_cnda = median_seconds(lambda: cnda.stencil(u, out), 10)
    tiny_u, tiny_out = np.zeros((4, 4)), np.zeros((4, 4))
    t_call = median_seconds(lambda: cnda.stencil(tiny_u, tiny_out), 2000)
    print(f"{n} x {n} float64, 2D 5-point Jacobi:")
    print(f"  numpy slicing      {t_numpy * 1e9 / points:.2f} ns/point")
    print(f"  cnda.stencil       {t_cnda * 1e9 / points:.2f} ns/point ({t_numpy / t_cnda:.1f}x numpy)")
    print(f"  call on 4 x 4      {t_call * 1e6:.2f} us")


if __name__ == "__main__":
    main()
