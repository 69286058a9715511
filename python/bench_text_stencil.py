"""Gray-Scott from a Python expression (`cnda.Stencil`, the model read from text and compiled for
this CPU at first use) against NumPy's best version and, where Numba is installed (a benchmark
environment only: it is no dependency of cnda), a Numba `njit` loop, in the same run: an N x N
grid in float64 and float32, 8 steps a call (cnda's `steps=8`, fused passes over memory on all
cores: `Stencil.steps` on the NumPy arrays, which copies them in and out per call, and
`StencilState.steps`, which keeps them in cnda's arrays between calls; NumPy and Numba step 8
times between two pairs of arrays). Fixed sides in all three (the
edge ring is the halo and keeps its values).

NumPy's versions: the expression as a NumPy user writes it (slices, temporaries), and the same
with every operation writing into preallocated buffers (`out=`, no temporaries); the faster of
the two in each round is "NumPy's best". Numba's: one pass per step over both fields (`prange`
over rows on all cores), the parameters typed as the arrays so float32 stays float32.

Every variant is checked against cnda's result first. The variants are timed in three rounds (in
each, the median of REPEATS calls of each variant); prints the medians in ns per point update
(one point of both fields), and each ratio as the median of the rounds' ratios.

`python python/bench_text_stencil.py [N] [REPEATS]` (defaults 4096 and 5)."""

import sys

import numpy as np

import cnda
from benchutil import numba, report, timed_rounds

STEPS = 8
PARAMS = dict(du=0.16, dv=0.08, f=0.035, k=0.065)

GRAY_SCOTT = cnda.Stencil("""|u, v; du, dv, f, k| {
    let uvv = u[0, 0] * v[0, 0] * v[0, 0];
    (
        u[0, 0] + du * laplace(u, 2) - uvv + f * (1.0 - u[0, 0]),
        v[0, 0] + dv * laplace(v, 2) + uvv - (f + k) * v[0, 0],
    )
}""")


def numpy_naive(u, v, steps, du, dv, f, k):
    """The expression as a NumPy user writes it: new arrays for every intermediate."""
    for _ in range(steps):
        uc, vc = u[1:-1, 1:-1], v[1:-1, 1:-1]
        lu = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * uc
        lv = v[:-2, 1:-1] + v[2:, 1:-1] + v[1:-1, :-2] + v[1:-1, 2:] - 4 * vc
        uvv = uc * vc * vc
        un, vn = u.copy(), v.copy()
        un[1:-1, 1:-1] = uc + du * lu - uvv + f * (1 - uc)
        vn[1:-1, 1:-1] = vc + dv * lv + uvv - (f + k) * vc
        u, v = un, vn
    return u, v


def laplacian(a, out, scratch):
    np.add(a[:-2, 1:-1], a[2:, 1:-1], out=out)
    np.add(out, a[1:-1, :-2], out=out)
    np.add(out, a[1:-1, 2:], out=out)
    np.multiply(a[1:-1, 1:-1], 4, out=scratch)
    np.subtract(out, scratch, out=out)


def numpy_buffers(pairs, buffers, steps, du, dv, f, k):
    """The same with every operation writing into preallocated buffers (`out=`)."""
    (u, v), (un, vn) = pairs
    lu, lv, uvv, t = buffers
    for _ in range(steps):
        uc, vc = u[1:-1, 1:-1], v[1:-1, 1:-1]
        laplacian(u, lu, t)
        laplacian(v, lv, t)
        np.multiply(uc, vc, out=uvv)
        np.multiply(uvv, vc, out=uvv)
        np.multiply(lu, du, out=lu)
        np.add(lu, uc, out=lu)
        np.subtract(lu, uvv, out=lu)
        np.subtract(1, uc, out=t)
        np.multiply(t, f, out=t)
        np.add(lu, t, out=un[1:-1, 1:-1])
        np.multiply(lv, dv, out=lv)
        np.add(lv, vc, out=lv)
        np.add(lv, uvv, out=lv)
        np.multiply(vc, f + k, out=t)
        np.subtract(lv, t, out=vn[1:-1, 1:-1])
        (u, v), (un, vn) = (un, vn), (u, v)
    return u, v


if numba is not None:

    @numba.njit(parallel=True, fastmath=False, cache=False)
    def njit_steps(u, v, un, vn, steps, du, dv, f, k, one, four):
        n, m = u.shape
        for _ in range(steps):
            for i in numba.prange(1, n - 1):
                for j in range(1, m - 1):
                    uc, vc = u[i, j], v[i, j]
                    uvv = uc * vc * vc
                    lu = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - four * uc
                    lv = v[i - 1, j] + v[i + 1, j] + v[i, j - 1] + v[i, j + 1] - four * vc
                    un[i, j] = uc + du * lu - uvv + f * (one - uc)
                    vn[i, j] = vc + dv * lv + uvv - (f + k) * vc
            u, v, un, vn = un, vn, u, v
        return u, v


def initial(n, dtype):
    rng = np.random.default_rng(3)
    u = (1 - 0.5 * rng.random((n, n))).astype(dtype)
    v = (0.25 * rng.random((n, n))).astype(dtype)
    return u, v


def run(n, dtype, repeats):
    u0, v0 = initial(n, dtype)
    typed = {name: dtype(x) for name, x in PARAMS.items()}
    points = (n - 2) ** 2 * STEPS
    tolerance = dict(rtol=64 * np.finfo(dtype).eps, atol=64 * np.finfo(dtype).eps)

    # Checks first: every variant against cnda after 8 steps.
    u, v = u0.copy(), v0.copy()
    GRAY_SCOTT.steps(u, v, steps=STEPS, **PARAMS)
    for got in (numpy_naive(u0, v0, STEPS, **typed),):
        assert all(np.allclose(g, w, **tolerance) for g, w in zip(got, (u, v))), "NumPy's expression differs"
    pairs = ((u0.copy(), v0.copy()), (u0.copy(), v0.copy()))
    buffers = [np.empty((n - 2, n - 2), dtype) for _ in range(4)]
    got = numpy_buffers(pairs, buffers, STEPS, **typed)
    assert all(np.allclose(g, w, **tolerance) for g, w in zip(got, (u, v))), "NumPy's out= version differs"

    cu, cv = u0.copy(), v0.copy()
    nu, nv = u0.copy(), v0.copy()
    variants = {
        "numpy expression": (lambda: numpy_naive(u0, v0, STEPS, **typed), points),
        "numpy out=": (lambda: numpy_buffers(pairs, buffers, STEPS, **typed), points),
        "cnda steps=8": (lambda: GRAY_SCOTT.steps(cu, cv, steps=STEPS, **PARAMS), points),
    }
    state = GRAY_SCOTT.state(u0, v0, **PARAMS)
    state.steps(STEPS)
    assert np.array_equal(state["u"], u) and np.array_equal(state["v"], v), "the state differs"
    variants["cnda state"] = (lambda: state.steps(STEPS), points)
    if numba is not None:
        one, four = dtype(1), dtype(4)
        a, b, c, d = u0.copy(), v0.copy(), u0.copy(), v0.copy()
        got = njit_steps(a, b, c, d, STEPS, *typed.values(), one, four)
        assert all(np.allclose(g, w, **tolerance) for g, w in zip(got, (u, v))), "Numba's loop differs"
        variants["numba njit"] = (lambda: njit_steps(nu, nv, a, b, STEPS, *typed.values(), one, four), points)
    times = timed_rounds(variants, repeats)
    times["numpy best"] = [min(a, b) for a, b in zip(times["numpy expression"], times["numpy out="])]
    title = f"{n} x {n} {np.dtype(dtype).name}, Gray-Scott, {STEPS} steps a call, {repeats} calls a round"
    against = [("numpy best", "NumPy's best"), ("numba njit", "Numba's njit loop")]
    report(title, times, [("cnda steps=8", "cnda steps=8", against), ("cnda state.steps(8)", "cnda state", against)])


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    print(f"numba {numba.__version__ if numba else 'not installed'}; numpy {np.__version__}")
    for dtype in (np.float64, np.float32):
        run(n, dtype, repeats)


if __name__ == "__main__":
    main()
