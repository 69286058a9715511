"""cnda's ops on NumPy arrays against NumPy's own, same arrays, same process: elementwise add with
broadcasting, in-place add, sum (whole and along an axis), add over a transposed operand, matmul,
pad; the same ops on complex128 arrays; and the call overhead on tiny arrays. Prints medians.
`python python/bench_ops.py`."""

import numpy as np

import cnda
from benchutil import median_seconds


def row(name, t_numpy, t_cnda, unit=1e3, suffix="ms"):
    print(f"  {name:<38} numpy {t_numpy * unit:8.3f} {suffix}   cnda {t_cnda * unit:8.3f} {suffix}"
          f"   ({t_numpy / t_cnda:.2f}x numpy)")


def main():
    rng = np.random.default_rng(1)
    n = 4096
    a = rng.random((n, n))
    b = rng.random(n)
    c = a.copy()
    print(f"float64, {n} x {n} (128 MiB per array), medians:")
    row("add, broadcast row (a + b)", median_seconds(lambda: np.add(a, b), 10), median_seconds(lambda: cnda.add(a, b), 10))
    row("add, transposed operand (a.T + a)", median_seconds(lambda: np.add(a.T, a), 5),
        median_seconds(lambda: cnda.add(a.T, a), 5))
    row("in-place add (c += b)", median_seconds(lambda: np.add(c, b, out=c), 10),
        median_seconds(lambda: cnda.iadd(c, b), 10))
    row("sum", median_seconds(lambda: a.sum(), 10), median_seconds(lambda: cnda.sum(a), 10))
    row("sum along axis 0", median_seconds(lambda: a.sum(axis=0), 10), median_seconds(lambda: cnda.sum(a, axis=0), 10))
    row("pad 1, edge", median_seconds(lambda: np.pad(a, 1, mode="edge"), 5),
        median_seconds(lambda: cnda.pad(a, 1, "edge"), 5))
    m = 1024
    x, y = rng.random((m, m)), rng.random((m, m))
    row(f"matmul {m}^2", median_seconds(lambda: x @ y, 5), median_seconds(lambda: cnda.matmul(x, y), 5))
    row(f"matmul {m}^2, transposed left", median_seconds(lambda: x.T @ y, 5), median_seconds(lambda: cnda.matmul(x.T, y), 5))
    n = 2048
    z = (rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n)))
    w = (rng.standard_normal(n) + 1j * rng.standard_normal(n))
    u = z.copy()
    print(f"complex128, {n} x {n} (64 MiB per array), medians:")
    row("add, broadcast row (z + w)", median_seconds(lambda: np.add(z, w), 10), median_seconds(lambda: cnda.add(z, w), 10))
    row("multiply, broadcast row (z * w)", median_seconds(lambda: np.multiply(z, w), 10),
        median_seconds(lambda: cnda.multiply(z, w), 10))
    row("divide, broadcast row (z / w)", median_seconds(lambda: np.divide(z, w), 10),
        median_seconds(lambda: cnda.divide(z, w), 10))
    row("in-place multiply (u *= w)", median_seconds(lambda: np.multiply(u, w, out=u), 10),
        median_seconds(lambda: cnda.imultiply(u, w), 10))
    row("sum", median_seconds(lambda: z.sum(), 10), median_seconds(lambda: cnda.sum(z), 10))
    m = 512
    zx, zy = z[:m, :m].copy(), z[m:2 * m, :m].copy()
    row(f"matmul {m}^2", median_seconds(lambda: zx @ zy, 5), median_seconds(lambda: cnda.matmul(zx, zy), 5))
    tiny_a, tiny_b = np.zeros((4, 4)), np.zeros(4)
    print("calls on tiny arrays:")
    row("add 4 x 4 + 4", median_seconds(lambda: np.add(tiny_a, tiny_b), 5000),
        median_seconds(lambda: cnda.add(tiny_a, tiny_b), 5000), 1e6, "us")
    row("sum 4 x 4", median_seconds(lambda: tiny_a.sum(), 5000), median_seconds(lambda: cnda.sum(tiny_a), 5000), 1e6, "us")


if __name__ == "__main__":
    main()
