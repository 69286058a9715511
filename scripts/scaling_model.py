#!/usr/bin/env python3
"""Weak- and strong-scaling model of distributed Jacobi sweeps (cnda's `LinearStencil::apply_dist`
and `apply_steps_dist` over `DistArray`), 2D 5-point and 3D 7-point, up to 1,024 processes, and a
what-if for GPU blocks whose halos are staged through pinned host memory. Prints the tables of
docs/SCALING.md and draws docs/scaling_model.png (needs matplotlib: `pip install matplotlib`;
`--no-plot` prints the tables only).

Per process and sweep (LogP-style):
  compute  t_c = points * c   (c: measured ns per point of one sweep on one core)
  messages each costs o of CPU time (never hidden), alpha of latency and bytes / beta of transfer;
           they go out one after another
  sweep    T = t_c + sum(o + alpha + bytes / beta)                       (exchange, then sweep)
           T = max(t_c - t_s, t_hidden) + t_s + sum(o) + sum_big(bytes / beta)   (`apply_dist`)
           where t_s is the strips' share of t_c and t_hidden = sum(alpha) + sum_small(bytes / beta):
           without an MPI progress thread only eager messages (<= EAGER bytes) move while the
           interior is swept; a larger (rendezvous) message moves its bytes inside the final wait
  deep     (`apply_steps_dist`: halos k R wide, one full exchange per k sweeps, then the k sweeps
           on regions widened by (k - s) R towards each neighbour, s = 1..k; not overlapped)
           T = [sum(o + alpha + bytes_k / beta) + c / f(k) * sum_{j<k} prod(block + 2 j R)] / k
           with bytes_k the k-wide halos (faces k, edges k^2, corners k^3 times the width-1 ones)
           and f(k) = 1 as built (k separate sweeps); "if fused" uses the measured fused-sweep
           speedup f (what-if: the distributed path does not fuse)
  residual every 100 sweeps: an allreduce, 2 alpha log2 P, spread over the 100 sweeps.
  agreement (GPU blocks only) an allreduce, 2 alpha log2 P, after every exchange: the processes
           agree on its outcome and its sweeps' (a device may fail on one process alone).
Messages: `exchange_halos` and `apply_steps_dist` send to all 3^N - 1 neighbours (faces, edges,
corners); `apply_dist` sends to the 2N faces only when the stencil has no diagonal tap (5-, 7-point).
Efficiency: weak (fixed block per process) t_c / T(P); strong (fixed grid) T(1) / (P T(P)), with
the plain one-process sweep as the reference in both (so a fused what-if can exceed 1).
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
RADIUS = 1  # the 5- and 7-point Jacobi stencils
CHECK_EVERY = 100
K_MAX = 32  # deepest halo searched (also at most the block: a halo may not exceed it)
# Fused sweeps on one core against one plain sweep (BENCHMARKS.md): 2D apply_steps k = 8, 57.14 ms
# against 8 x 14.58 ms (runtime SIMD dispatch table, one sitting); 3D k = 4, 53.14 against 75.11 ms.
FUSED = {2: (8, 8 * 14.58 / 57.14), 3: (4, 75.11 / 53.14)}
# GPU what-if (assumptions, see docs/SCALING.md): H100 device bandwidth, pinned host copies,
# latency per copy, bytes a sweep moves per point (f64 read and written), a faster network.
GPU_BW = 2.9e12
PINNED_BW = 55e9
COPY_LATENCY = 10e-6
GPU_BYTES_PER_POINT = 16
FAST_BETA = 50e9  # NDR400-class link per GPU

P_COLS = (16, 64, 256, 1024)
PROCS = [2**k for k in range(11)]
WEAK = {
    "2D, 4096^2 per process": ((4096, 4096), C_2D),
    "2D, 256^2 per process": ((256, 256), C_2D),
    "3D, 256^3 per process": ((256, 256, 256), C_3D),
    "3D, 64^3 per process": ((64, 64, 64), C_3D),
}
STRONG = {
    "2D, 16384^2": ((16384, 16384), C_2D),
    "2D, 4096^2": ((4096, 4096), C_2D),
    "3D, 1024^3": ((1024, 1024, 1024), C_3D),
    "3D, 256^3": ((256, 256, 256), C_3D),
}
STRATEGIES = {
    "then": "all neighbours, then sweep",
    "overlap": "all neighbours, overlapped",
    "faces": "faces, overlapped (`apply_dist`)",
    "deep": "deep halo, best k (`apply_steps_dist`)",
    "fused": "deep halo, best k, if fused (what-if)",
}


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


def messages(block, dims, width, faces_only):
    """Bytes of each message the busiest (interior) process sends, halos `width` wide."""
    n = len(block)
    sends = []
    for offset in range(3**n):
        o = [(offset // 3**k) % 3 - 1 for k in range(n)]
        if all(x == 0 for x in o):
            continue
        if any(x != 0 and dims[k] == 1 for k, x in enumerate(o)):
            continue  # no neighbour that way
        if faces_only and sum(x != 0 for x in o) > 1:
            continue
        sends.append(math.prod(width if x != 0 else block[k] for k, x in enumerate(o)) * WORD)
    return sends


def layout(global_shape, p):
    dims = dims_create(p, len(global_shape))
    return dims, [math.ceil(g / d) for g, d in zip(global_shape, dims)]


def residual(p):
    return 2 * ALPHA * math.log2(p) / CHECK_EVERY if p > 1 else 0.0


def fused_speedup(n, k):
    """Fused k sweeps against k plain ones: f(k) = 1 / (a + (1 - a) / k) (a share of the cost that
    fusion leaves, the rest moved once per k sweeps), through the measured point, held beyond it."""
    km, fm = FUSED[n]
    a = (1 / fm - 1 / km) / (1 - 1 / km)
    k = min(k, km)
    return 1 / (a + (1 - a) / k)


def sweep_time(global_shape, p, c, overlap, faces_only):
    """Seconds per sweep for the busiest (interior) process, halos 1 wide, one exchange per sweep."""
    dims, block = layout(global_shape, p)
    n = len(block)
    points = math.prod(block)
    t_c = points * c
    sends = messages(block, dims, RADIUS, faces_only)
    strips = sum(2 * points // block[k] for k in range(n) if dims[k] > 1)
    t_s = min(strips, points) * c
    cpu = len(sends) * OVERHEAD
    if not overlap:
        return t_c + cpu + sum(ALPHA + b / BETA for b in sends) + residual(p)
    hidden = sum(ALPHA + (b / BETA if b <= EAGER else 0.0) for b in sends)
    waited = sum(b / BETA for b in sends if b > EAGER)
    return max(t_c - t_s, hidden) + t_s + cpu + waited + residual(p)


def widened_points(block, dims, k):
    """Points the k sweeps of a batch update: the block widened by (k - s) R, s = 1..k."""
    return sum(math.prod(b + 2 * j * RADIUS * (d > 1) for b, d in zip(block, dims)) for j in range(k))


def deep_time(global_shape, p, c, k, fused):
    """Seconds per sweep with halos k R wide (`apply_steps_dist`), or None if a halo exceeds a block."""
    dims, block = layout(global_shape, p)
    if any(d > 1 and k * RADIUS > b for b, d in zip(block, dims)):
        return None
    sends = messages(block, dims, k * RADIUS, False)
    exchange = sum(OVERHEAD + ALPHA + b / BETA for b in sends)
    f = fused_speedup(len(block), k) if fused else 1.0
    return (exchange + widened_points(block, dims, k) * c / f) / k + residual(p)


def best_deep(global_shape, p, c, fused):
    """(seconds per sweep, k) of the fastest halo depth."""
    times = [(deep_time(global_shape, p, c, k, fused), k) for k in range(1, K_MAX + 1)]
    return min((t, k) for t, k in times if t is not None)


def global_shape_of(kind, shape, p):
    if kind == "weak":
        return [s * d for s, d in zip(shape, dims_create(p, len(shape)))]
    return list(shape)


def efficiency(kind, shape, c, p, strategy):
    """(efficiency, k or None): against one process sweeping plainly (its block, or the grid)."""
    g = global_shape_of(kind, shape, p)
    k = None
    if strategy in ("deep", "fused"):
        t, k = best_deep(g, p, c, strategy == "fused")
    else:
        t = sweep_time(g, p, c, strategy != "then", strategy == "faces")
    work = math.prod(shape) * c
    return (work / t if kind == "weak" else work / (p * t)), k


def cell(e, k):
    return f"{e:.2f}" if k is None else f"{e:.2f} (k={k})"


def scaling_table(kind, cases, strategies):
    print(f"| {kind} scaling | exchange | " + " | ".join(f"P={p}" for p in P_COLS) + " |")
    print("|---|---|" + "---:|" * len(P_COLS))
    for name, (shape, c) in cases.items():
        for s in strategies:
            row = [cell(*efficiency(kind, shape, c, p, s)) for p in P_COLS]
            print(f"| {name} | {STRATEGIES[s]} | " + " | ".join(row) + " |")


def us(t):
    return f"{t * 1e6:.0f} us" if t < 1e-3 else f"{t * 1e3:.2f} ms"


def budget_table(p=1024):
    """Where a weak-scaling sweep's time goes at P processes."""
    print(f"| block per process, P={p} | compute per sweep | messages per sweep, all neighbours, then sweep "
          "| exposed by `apply_dist` | deep halo (best k): exchange per sweep, points recomputed |")
    print("|---|---:|---:|---:|---:|")
    for name, (shape, c) in WEAK.items():
        g = global_shape_of("weak", shape, p)
        dims, block = layout(g, p)
        t_c = math.prod(block) * c
        then = sweep_time(g, p, c, False, False) - t_c - residual(p)
        faces = sweep_time(g, p, c, True, True) - t_c - residual(p)
        _, k = best_deep(g, p, c, False)
        sends = messages(block, dims, k * RADIUS, False)
        exchange = sum(OVERHEAD + ALPHA + b / BETA for b in sends) / k
        extra = widened_points(block, dims, k) / (k * math.prod(block)) - 1
        print(f"| {name.split(' per')[0]} | {us(t_c)} | {us(then)} | {us(faces)} "
              f"| k={k}: {us(exchange)}, +{100 * extra:.2f}% |")


def gpu_time(strategy, beta, k=1):
    """Seconds per sweep of a 256^3 GPU block at P = 1,024 (weak), halos staged through the host."""
    p = 1024
    g = global_shape_of("weak", (256, 256, 256), p)
    dims, block = layout(g, p)
    per_point = GPU_BYTES_PER_POINT / GPU_BW
    faces_only = strategy in ("then", "overlap", "direct")
    width = k * RADIUS
    sends = messages(block, dims, width, faces_only)
    network = sum(OVERHEAD + ALPHA + b / beta for b in sends)
    staging = 0.0 if strategy == "direct" else 2 * (COPY_LATENCY + sum(sends) / PINNED_BW)
    exchange = network + staging
    # Device blocks: the processes agree on each exchange's (and its sweeps') outcome, one
    # allreduce of two integers after it (a device may fail on one process alone), not hidden.
    agree = 2 * ALPHA * math.log2(p)
    t_c = math.prod(block) * per_point
    if strategy == "then":
        return t_c + exchange + agree + residual(p), exchange
    if strategy in ("overlap", "direct"):
        strips = sum(2 * math.prod(block) // block[a] for a in range(3) if dims[a] > 1)
        t_s = strips * per_point
        return max(t_c - t_s, exchange) + t_s + agree + residual(p), exchange
    return (exchange + agree + widened_points(block, dims, k) * per_point) / k + residual(p), exchange / k


GPU_ROWS = {
    "then": "faces, staged, then sweep",
    "overlap": "faces, staged, overlapped",
    "deep": "deep halo, best k, staged, then sweeps",
    "direct": "faces, overlapped, no staging (GPUDirect what-if)",
}


def gpu_table():
    t_c = 256**3 * GPU_BYTES_PER_POINT / GPU_BW
    print(f"| 256^3 per GPU, P=1024 (sweep {us(t_c)}) | exchange per sweep, {BETA / 1e9:.1f} GB/s "
          f"| efficiency | exchange per sweep, {FAST_BETA / 1e9:.0f} GB/s | efficiency |")
    print("|---|---:|---:|---:|---:|")
    for s, label in GPU_ROWS.items():
        cells = []
        for beta in (BETA, FAST_BETA):
            if s == "deep":
                (t, x), k = min((gpu_time(s, beta, k), k) for k in range(1, K_MAX + 1))
                cells += [f"k={k}: {us(x)}", f"{t_c / t:.2f}"]
            else:
                t, x = gpu_time(s, beta)
                cells += [us(x), f"{t_c / t:.2f}"]
        print(f"| {label} | " + " | ".join(cells) + " |")


def main():
    scaling_table("weak", WEAK, ["then", "overlap", "faces", "deep", "fused"])
    print()
    budget_table()
    print()
    scaling_table("strong", STRONG, ["then", "overlap", "faces", "deep"])
    print()
    gpu_table()
    if "--no-plot" in sys.argv:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), sharey=True)
    for ax, (kind, cases) in zip(axes, (("weak", WEAK), ("strong", STRONG))):
        for name, (shape, c) in cases.items():
            line, = ax.plot(PROCS, [efficiency(kind, shape, c, p, "then")[0] for p in PROCS], "--", lw=1)
            ax.plot(PROCS, [efficiency(kind, shape, c, p, "deep")[0] for p in PROCS], ":", lw=1.5,
                    color=line.get_color())
            ax.plot(PROCS, [efficiency(kind, shape, c, p, "faces")[0] for p in PROCS], "-", lw=2,
                    color=line.get_color(), label=name)
        ax.set_xscale("log", base=2)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("processes")
        ax.set_title(f"{kind} scaling", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower left")
    axes[0].set_ylabel("predicted parallel efficiency")
    fig.suptitle(f"Distributed Jacobi, model: alpha = {ALPHA * 1e6:.1f} us, o = {OVERHEAD * 1e6:.1f} us, "
                 f"beta = {BETA / 1e9:.1f} GB/s, {C_2D * 1e9:.2f} / {C_3D * 1e9:.2f} ns per point (2D / 3D)\n"
                 "solid: apply_dist (faces, overlapped); dotted: apply_steps_dist (deep halo, best k, "
                 "not fused); dashed: all neighbours, then sweep", fontsize=9)
    fig.tight_layout()
    fig.savefig("docs/scaling_model.png", dpi=110)


if __name__ == "__main__":
    main()
