"""Timing helper shared by the benchmark scripts."""

import time


def median_seconds(f, runs):
    """The median wall time of `runs` calls of `f`."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return sorted(times)[len(times) // 2]
