"""heat2d from Python: the plate of cnda's heat2d example (hot top edge at 100, the other edges
at 0) relaxed by Jacobi sweeps that cnda runs on NumPy arrays (`cnda.stencil`: `steps` sweeps
fused into passes over memory, all cores, the interpreter lock released), with the convergence
check in NumPy. By symmetry the exact steady state is 25 at the centre.

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
    v = np.empty_like(u)  # every call writes all of out: the swept interior and u's fixed edges
    sweeps = 0
    while True:
        # CHECK_EVERY - 1 fused sweeps into v, then one more back into u: u - v is the last
        # sweep's change, and no array is allocated in the loop.
        cnda.stencil(u, v, steps=CHECK_EVERY - 1)
        cnda.stencil(v, u)
        sweeps += CHECK_EVERY
        change = np.abs(u - v).max()
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
