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


try:
    import numba
except ImportError:  # the ratios against Numba are skipped
    numba = None

ROUNDS = 3
SETTLE_SECONDS = 0.5


def timed_rounds(variants, repeats):
    """Times every variant (name: (f, updates)) in ROUNDS rounds: in each, the median of `repeats`
    calls in a row, per update. So a change in the machine's load (it is shared) falls on all of
    them alike. After each variant the machine settles for a moment: what one library leaves
    running slows the next one down (libgomp's threads spin after Numba's parallel loops;
    NumPy's fresh temporaries keep the kernel busy with their pages). Returns each variant's
    list of per-round times."""
    times = {what: [] for what in variants}
    for _ in range(ROUNDS):
        for what, (f, updates) in variants.items():
            times[what].append(median_seconds(f, repeats) / updates)
            time.sleep(SETTLE_SECONDS)
    return times


def median(xs):
    return sorted(xs)[len(xs) // 2]


def ratio(times, slow, fast):
    """The median over the rounds of slow's time over fast's."""
    return median([x / y for x, y in zip(times[slow], times[fast])])


def report(title, times, comparisons):
    """Prints each variant's median (ns per update) under `title`, then one line per
    (label, fast, [(slow, against), ...]): fast's ratio to each slow variant present."""
    print(f"{title}, {ROUNDS} rounds (ns per point update, medians):")
    for what, seconds in times.items():
        print(f"  {what:22s} {median(seconds) * 1e9:7.3f}")
    for label, fast, against in comparisons:
        ratios = [f"{ratio(times, slow, fast):.2f}x {name}" for slow, name in against if slow in times]
        print(f"  {label} = {', '.join(ratios)}")
