"""Devito 3D acoustic benchmark, for comparison with cnda's stencil kernels.

Measures Devito (https://www.devitoproject.org) on its standard
constant-density acoustic update, with no sources, receivers or damping:

    m * u.dt2 - u.laplace = 0   ->   u_next = 2u - u_prev + dt^2/m * lap(u)

on an (n, n, n) float32 grid, time_order=2, space_order=8 (a 25-point
8th-order Laplacian), starting from a Gaussian pulse in the centre with
dt = 0.4 * h / vmax. For each thread count the script compiles and
autotunes the Operator in a warm-up apply, then times a second apply with
the tuned block sizes. Devito updates all n^3 points, reading zeros from
its halo beyond the grid edge.

Output, on stdout, one JSON line per thread count:
    {"tool": "devito", "version": ..., "shape": n, "steps": ...,
     "threads": ..., "seconds": ..., "gpts": ..., ...}
where "seconds" is the time of the Operator's main section ('section0' of the
PerformanceSummary) and "gpts" = n^3 * steps / seconds / 1e9; the line also
carries Devito's own section0 figure ("devito_gpointss") and the wall time of
the whole apply. A last line gives the exact 8th-order d2/dx2 weights Devito
derives: {"tool": "devito", "weights_dx2_so8": [...]}.

Run (Devito lives in its own venv, see /work/bench-venv):
    /work/bench-venv/bin/python benches/devito_acoustic.py \
        [--shape 200] [--steps N] [--threads 1 2]
"""

import argparse
import json
import os
import subprocess
import sys
import time

EXTENT = 1000.0  # metres per axis
VMAX = 1.5  # km/s; metres / (km/s) gives dt in ms, as in Devito's examples
CFL = 0.4  # below the 3D so8 leapfrog limit (~0.45)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", type=int, default=200,
                   help="grid points per axis")
    p.add_argument("--steps", type=int, default=50,
                   help="time steps per apply")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    # Internal: run one thread count in a process whose environment was set
    # before devito was imported (Devito reads its configuration at import).
    p.add_argument("--child", type=int, help=argparse.SUPPRESS)
    return p.parse_args()


def run_child(n, steps, threads):
    import numpy as np
    import devito
    from devito import Eq, Function, Grid, Operator, TimeFunction, solve

    grid = Grid(shape=(n, n, n), extent=(EXTENT,) * 3, dtype=np.float32)
    u = TimeFunction(name="u", grid=grid, time_order=2, space_order=8)
    m = Function(name="m", grid=grid, space_order=8)
    m.data[:] = 1.0 / VMAX**2  # slowness squared, constant

    h = grid.spacing[0]
    dt = np.float32(CFL * h / VMAX)

    # Gaussian pulse (sigma = 20 m) in the centre, in all three time buffers,
    # i.e. zero initial velocity; it then spreads and decays as in a shot.
    c = np.linspace(0.0, EXTENT, n, dtype=np.float32) - EXTENT / 2
    r2 = c[:, None, None]**2 + c[None, :, None]**2 + c[None, None, :]**2
    pulse = np.exp(-r2 / (2 * 20.0**2)).astype(np.float32)

    pde = m * u.dt2 - u.laplace
    stencil = Eq(u.forward, solve(pde, u.forward))
    op = Operator([stencil])

    # 'aggressive' autotuning exists in this Devito line; fall back otherwise.
    levels = devito.configuration._accepted.get("autotuning", [])
    tune = "aggressive" if "aggressive" in levels else True

    # Warm-up: JIT compilation + autotuning (+ one full run).
    u.data[:] = pulse
    op.apply(time_m=0, time_M=steps - 1, dt=dt, autotune=tune)
    tuned = op._state.get("autotuning", [{}])[-1].get("tuned", {})
    # Keep only the tuned block sizes; Devito re-derives everything else.
    blocks = {k: int(v) for k, v in tuned.items() if "blk" in k}

    # Timed run: same initial state, tuned blocking, no re-tuning.
    u.data[:] = pulse
    t0 = time.perf_counter()
    summary = op.apply(time_m=0, time_M=steps - 1, dt=dt, autotune=False,
                       **blocks)
    wall = time.perf_counter() - t0

    # Keys are PerfKey(name, rank) tuples; rank is None without MPI.
    cc = devito.configuration["compiler"]
    sec = next(v for k, v in summary.items() if k.name == "section0")
    points = n**3 * steps
    print(json.dumps({
        "tool": "devito", "version": devito.__version__, "shape": n,
        "steps": steps, "threads": threads,
        "seconds": sec.time, "gpts": points / sec.time / 1e9,
        "devito_gpointss": sec.gpointss, "wall_seconds": wall,
        "ops_per_point": sec.ops, "autotune": tune, "blocks": blocks,
        "dt": float(dt),
        "max_abs_u": float(np.abs(u.data).max()),
        # Devito compiles with -ffast-math etc.; record it for the comparison.
        "cc": f"{cc.cc} {cc.version} {' '.join(cc.cflags)}",
    }), flush=True)


def print_weights():
    from devito import Grid, TimeFunction
    from devito.finite_differences.tools import (generate_indices,
                                                 numeric_weights)
    from sympy import Add

    # Exact (sympy Rational) weights, the same call Devito makes before it
    # rounds them to 9 significant digits for the generated C code.
    grid = Grid(shape=(9, 9, 9))
    u = TimeFunction(name="u", grid=grid, time_order=2, space_order=8)
    x = grid.dimensions[0]
    indices, x0 = generate_indices(u, x, 8)
    weights = [w * x.spacing**2 for w in numeric_weights(u, 2, indices, x0)]
    # Devito's expanded u.dx2: one (Float weight) * h_x**-2 * u(x + k h) term
    # per offset; map each to its offset to list them in stencil order.
    used = {}
    for term in Add.make_args(u.dx2.evaluate):
        fn = next(a for a in term.args if isinstance(a, TimeFunction))
        used[fn.indices[1]] = next(a for a in term.args if a.is_Number)
    print(json.dumps({
        "tool": "devito",
        "weights_dx2_so8": [str(w) for w in weights],
        "weights_dx2_so8_in_code": [float(used[i]) for i in indices],
    }), flush=True)


def main():
    args = parse_args()
    if args.child is not None:
        run_child(args.shape, args.steps, args.child)
        return
    for threads in args.threads:
        env = dict(os.environ, OMP_NUM_THREADS=str(threads),
                   DEVITO_LANGUAGE="openmp",
                   # 'advanced' makes section0 carry op/point counts, so
                   # Devito's own GPts/s figure is filled in (not 0.0).
                   DEVITO_PROFILING="advanced")
        cmd = [sys.executable, __file__, "--shape", str(args.shape),
               "--steps", str(args.steps), "--child", str(threads)]
        # Devito logs to stderr, so stdout carries only the JSON line.
        subprocess.run(cmd, env=env, check=True)
    print_weights()


if __name__ == "__main__":
    main()
