#!/usr/bin/env python3
"""Weak- and strong-scaling model of distributed Jacobi sweeps (cnda's `LinearStencil::apply_dist`
over `DistArray`), 2D 5-point and 3D 7-point, up to 1,024 processes. Prints the tables of
docs/SCALING.md and draws docs/scaling_model.png (needs matplotlib: `pip install matplotlib`).

Per process and sweep (LogP-style):
  compute  t_c = points * c   (c: measured ns per point of one sweep on one core)
  messages each costs o of CPU time (never hidden), alpha of latency and bytes / beta of transfer;
           they go out one after another
  sweep    T = t_c + sum(o + alpha + bytes / beta)                       (exchange, then sweep)
           T = max(t_c - t_s, t_hidden) + t_s + sum(o) + sum_big(bytes / beta)   (`apply_dist`)
           where t_s is the strips' share of t_c and t_hidden = sum(alpha) + sum_small(bytes / beta):
           without an MPI progress thread only eager messages (<= EAGER bytes) move while the
           interior is swept; a larger (rendezvous) message moves its bytes inside the final wait
  residual every 100 sweeps: an allreduce, 2 alpha log2 P, spread over the 100 sweeps.
Messages: `exchange_halos` sends to all 3^N - 1 neighbours (faces, edges, corners);
`apply_dist` sends to the 2N faces only when the stencil has no diagonal tap (5- and 7-point).
"""

import math
import sys

C_2D = 0.87e-9  # s per point: stencil2d_4096 cnda_linear_stencil, 14.58 ms / 4094^2 (BENCHMARKS.md)
C_3D = 1.15e-9  # s per point: fused_jacobi3d_256_k4 cnda_linear_k_sweeps, 75.11 ms / 4 / 254^3
ALPHA = 1.5e-6  # s: MPI latency of an InfiniBand HDR network (stated, not measured here)
BETA = 12.5e9  # bytes/s: HDR100 link bandwidth (stated)
OVERHEAD = 0.5e-6  # s: CPU time to post and complete one message (stated)
EAGER = 12 * 1024  # bytes: largest message sent eagerly (Open MPI's usual order of magnitude)
WORD = 8  # bytes per point (f64)
CHECK_EVERY = 100


def dims_create(p, n):
    """As cnda::dist::dims_create (MPI_Dims_create): largest prime factors onto the smallest dim."""
    factors, q, d = [], p, 2
    while d * d <= q:
        while q % d == 0:
            factors.append(d)
            q //= d
        d += 1
    if q > 1:
        factors.append(q)
    dims = [1] * n
    for f in sorted(factors, reverse=True):
        k = dims.index(min(dims))
        dims[k] *= f
    return sorted(dims, reverse=True)


def sweep_time(global_shape, p, c, overlap, faces_only):
    """Seconds per sweep for the busiest (interior) process."""
    n = len(global_shape)
    dims = dims_create(p, n)
    block = [math.ceil(g / d) for g, d in zip(global_shape, dims)]
    points = math.prod(block)
    t_c = points * c
    sends = []  # bytes of each message
    for offset in range(3**n):
        o = [(offset // 3**k) % 3 - 1 for k in range(n)]
        if all(x == 0 for x in o):
            continue
        if any(x != 0 and dims[k] == 1 for k, x in enumerate(o)):
            continue  # no neighbour that way
        if faces_only and sum(x != 0 for x in o) > 1:
            continue
        sends.append(math.prod(1 if x != 0 else block[k] for k, x in enumerate(o)) * WORD)
    strips = sum(2 * points // block[k] for k in range(n) if dims[k] > 1)
    t_s = min(strips, points) * c
    residual = 2 * ALPHA * math.log2(p) / CHECK_EVERY if p > 1 else 0.0
    cpu = len(sends) * OVERHEAD
    if not overlap:
        return t_c + cpu + sum(ALPHA + b / BETA for b in sends) + residual, t_c
    hidden = sum(ALPHA + (b / BETA if b <= EAGER else 0.0) for b in sends)
    waited = sum(b / BETA for b in sends if b > EAGER)
    return max(t_c - t_s, hidden) + t_s + cpu + waited + residual, t_c


PROCS = [2**k for k in range(11)]
CASES = {
    "weak 2D, 4096^2 per process": ("weak", (4096, 4096), C_2D),
    "weak 3D, 256^3 per process": ("weak", (256, 256, 256), C_3D),
    "strong 2D, 16384^2": ("strong", (16384, 16384), C_2D),
    "strong 2D, 4096^2": ("strong", (4096, 4096), C_2D),
    "strong 3D, 1024^3": ("strong", (1024, 1024, 1024), C_3D),
    "strong 3D, 256^3": ("strong", (256, 256, 256), C_3D),
}


def efficiency(kind, shape, c, p, overlap, faces_only):
    if kind == "weak":
        n = len(shape)
        dims = dims_create(p, n)
        global_shape = [s * d for s, d in zip(shape, dims)]
        t, _ = sweep_time(global_shape, p, c, overlap, faces_only)
        return math.prod(shape) * c / t
    t, _ = sweep_time(shape, p, c, overlap, faces_only)
    return math.prod(shape) * c / (p * t)


def main():
    print("| case | exchange | " + " | ".join(f"P={p}" for p in (16, 64, 256, 1024)) + " |")
    print("|---|---|" + "---:|" * 4)
    for name, (kind, shape, c) in CASES.items():
        for label, overlap, faces in [("all neighbours, then sweep", False, False),
                                      ("all neighbours, overlapped", True, False),
                                      ("faces, overlapped (`apply_dist`)", True, True)]:
            row = [efficiency(kind, shape, c, p, overlap, faces) for p in (16, 64, 256, 1024)]
            print(f"| {name} | {label} | " + " | ".join(f"{e:.2f}" for e in row) + " |")
    if "--no-plot" in sys.argv:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, kind in zip(axes, ("weak", "strong")):
        for name, (k, shape, c) in CASES.items():
            if k != kind:
                continue
            line, = ax.plot(PROCS, [efficiency(k, shape, c, p, False, False) for p in PROCS], "--", lw=1)
            ax.plot(PROCS, [efficiency(k, shape, c, p, True, True) for p in PROCS], "-", lw=2,
                    color=line.get_color(), label=name.split(", ", 1)[1])
        ax.set_xscale("log", base=2)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("processes")
        ax.set_title(f"{kind} scaling (solid: apply_dist, faces overlapped; dashed: all neighbours, then sweep)",
                     fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower left")
    axes[0].set_ylabel("predicted parallel efficiency")
    fig.suptitle(f"Distributed Jacobi, model: alpha = {ALPHA * 1e6:.1f} us, o = {OVERHEAD * 1e6:.1f} us, "
                 f"beta = {BETA / 1e9:.1f} GB/s, {C_2D * 1e9:.2f} / {C_3D * 1e9:.2f} ns per point (2D / 3D)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig("docs/scaling_model.png", dpi=110)


if __name__ == "__main__":
    main()
