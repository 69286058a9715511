"""heat2d from Python: the plate of cnda's heat2d example (hot top edge at 100, the other edges
at 0) relaxed by Jacobi sweeps that cnda runs on NumPy arrays in place (`cnda.stencil`, all
cores, the interpreter lock released), with the convergence check in NumPy. By symmetry the exact
steady state is 25 at the centre.

`python python/examples/heat2d.py [N] [TOLERANCE]` (defaults 256 and 1e-4).
"""

import sys
import time

import numpy as np

import cnda

CHECK_EVERY = 100


def solve(n, tolerance):
    u = np.zeros((n, n))
    u[0] = 100.0
    v = u.copy()  # both fields hold the boundary values
    sweeps = 0
    while True:
        for _ in range(CHECK_EVERY):
            cnda.stencil(u, v)
            u, v = v, u
        sweeps += CHECK_EVERY
        change = np.abs(u - v).max()  # the last sweep's largest change
        if change <= tolerance or sweeps >= 1_000_000:
            return u, sweeps, change


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    tolerance = float(sys.argv[2]) if len(sys.argv) > 2 else 1e-4
    start = time.perf_counter()
    u, sweeps, change = solve(n, tolerance)
    seconds = time.perf_counter() - start
    print(f"heat2d.py: {n} x {n} plate, {sweeps} sweeps to a change of {change:.1e}, {seconds:.2f} s "
          f"({seconds * 1e9 / (sweeps * (n - 2) ** 2):.2f} ns per point update)")
    print(f"centre temperature {u[n // 2, n // 2]:.4f} (exact steady state 25)")
    return u


if __name__ == "__main__":
    main()
