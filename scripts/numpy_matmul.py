#!/usr/bin/env python3
"""NumPy/OpenBLAS matmul GFLOP/s for the figures compared in docs/BENCHMARKS.md.

Run with the OpenBLAS overrides unset, as they slow a current NumPy on this machine:
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python3 scripts/numpy_matmul.py
"""
import time

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits


def median_seconds(f, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def main():
    print("BLAS:", [(i["internal_api"], i.get("version"), i.get("architecture")) for i in threadpool_info()])
    for n in (1024, 2048):
        a = np.random.default_rng(0).random((n, n))
        b = np.random.default_rng(1).random((n, n))
        for threads in (1, 2):
            with threadpool_limits(limits=threads):
                a @ b  # warm up
                s = median_seconds(lambda: a @ b, 10 if n == 1024 else 5)
            print(f"matmul_f64_{n} t{threads}: median {s * 1e3:.2f} ms, {2 * n**3 / s / 1e9:.1f} GFLOP/s")


if __name__ == "__main__":
    main()
