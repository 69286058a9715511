"""`cnda.Stencil`: stencils in `stencil!`'s language read from a string, on NumPy arrays, against
NumPy references written in the stencil's operation order (so float64 and float32 results
compare bit for bit): one sweep of one and of several values, `out`, strided fields, time steps
of a system and of two levels with every boundary kind, and every refusal with its message."""

import numpy as np
import pytest

import cnda
from stencil_reference import refill

DTYPES = [np.float32, np.float64]

GRAY_SCOTT = """|u, v; du, dv, f, k| {
    let uvv = u[0, 0] * v[0, 0] * v[0, 0];
    (
        u[0, 0] + du * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]) - uvv + f * (1.0 - u[0, 0]),
        v[0, 0] + dv * (v[-1, 0] + v[1, 0] + v[0, -1] + v[0, 1] - 4.0 * v[0, 0]) + uvv - (f + k) * v[0, 0],
    )
}"""


def field(shape, dtype, seed=0):
    return np.random.default_rng(seed).uniform(0.0, 1.0, shape).astype(dtype)


def at(a, di, dj):
    """`a` at offset (di, dj) from every interior point of a radius-1 stencil."""
    n, m = a.shape
    return a[1 + di : n - 1 + di, 1 + dj : m - 1 + dj]


def gray_scott_reference(u, v, p):
    """One Gray-Scott sweep in the stencil's order (left to right, each operation rounded in the
    arrays' dtype), the halo keeping the fields' values; then flushed as cnda stores (a
    subnormal becomes a zero)."""
    t = u.dtype.type
    du, dv, f, k = (t(x) for x in p)
    uc, vc = at(u, 0, 0), at(v, 0, 0)
    uvv = uc * vc * vc
    lap = lambda a: at(a, -1, 0) + at(a, 1, 0) + at(a, 0, -1) + at(a, 0, 1) - t(4.0) * at(a, 0, 0)  # noqa: E731
    nu, nv = u.copy(), v.copy()
    nu[1:-1, 1:-1] = uc + du * lap(u) - uvv + f * (t(1.0) - uc)
    nv[1:-1, 1:-1] = vc + dv * lap(v) + uvv - (f + k) * vc
    tiny = np.finfo(u.dtype).tiny
    for a in (nu, nv):
        a[np.abs(a) < tiny] = t(0.0) * np.sign(a[np.abs(a) < tiny])
    return nu, nv


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_system_of_two_values_matches_numpy_bit_for_bit(dtype):
    s = cnda.Stencil(GRAY_SCOTT)
    assert (s.fields, s.params, s.outputs, s.levels, s.ndim, s.radius) == (
        ["u", "v"], ["du", "dv", "f", "k"], 2, 1, 2, [1, 1])
    u, v = field((37, 53), dtype, 1), field((37, 53), dtype, 2)
    p = (0.16, 0.08, 0.035, 0.06)
    got_u, got_v = s(u, v, du=p[0], dv=p[1], f=p[2], k=p[3])
    want_u, want_v = gray_scott_reference(u, v, p)
    np.testing.assert_array_equal(got_u, want_u)
    np.testing.assert_array_equal(got_v, want_v)
    # Into given outputs, from transposed (strided) fields.
    ut, vt = np.ascontiguousarray(u.T).T, np.ascontiguousarray(v.T).T
    out = (np.full_like(u, -1.0), np.full_like(v, -2.0))
    returned = s(ut, vt, out=out, du=p[0], dv=p[1], f=p[2], k=p[3])
    assert returned[0] is out[0] and returned[1] is out[1]
    np.testing.assert_array_equal(out[0][1:-1, 1:-1], want_u[1:-1, 1:-1])
    assert out[0][0, 0] == -1.0, "the points the sweep leaves alone keep out's values"


def test_one_value_returns_an_array_and_large_grids_run_threaded():
    s = cnda.Stencil("|u; c| u[0, 0] + c * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0])")
    u = field((300, 400), np.float64, 3)
    got = s(u, c=0.1)
    assert isinstance(got, np.ndarray) and got.shape == u.shape
    lap = at(u, -1, 0) + at(u, 1, 0) + at(u, 0, -1) + at(u, 0, 1) - 4.0 * at(u, 0, 0)
    want = u.copy()
    want[1:-1, 1:-1] = at(u, 0, 0) + 0.1 * lap
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("boundary", ["periodic", "neumann", "fixed", 0.25, [("periodic", "periodic"), ("neumann", 0.5)]])
def test_steps_of_a_system_match_numpy_with_every_boundary(boundary):
    s = cnda.Stencil(GRAY_SCOTT)
    u, v = field((21, 30), np.float64, 4), field((21, 30), np.float64, 5)
    p = (0.16, 0.08, 0.035, 0.06)
    bounds = boundary if isinstance(boundary, list) else [(boundary, boundary)] * 2
    want_u, want_v = u.copy(), v.copy()
    for _ in range(9):
        want_u, want_v = refill(want_u, [1, 1], bounds), refill(want_v, [1, 1], bounds)
        want_u, want_v = gray_scott_reference(want_u, want_v, p)
    got_u, got_v = u.copy(), v.copy()
    s.steps(got_u, got_v, steps=9, boundary=boundary, du=p[0], dv=p[1], f=p[2], k=p[3])
    inner = (slice(1, -1), slice(1, -1))
    np.testing.assert_array_equal(got_u[inner], want_u[inner])
    np.testing.assert_array_equal(got_v[inner], want_v[inner])


def test_steps_of_two_levels_with_a_coefficient_field():
    s = cnda.Stencil("#[levels(2)] |u, u_prev, m; c| 2.0 * u[0] - u_prev[0] + c * m[0] * (u[-1] - 2.0 * u[0] + u[1])")
    n = 64
    u = np.exp(-((np.arange(n) - n / 2) ** 2) / 16.0)
    prev, m = u.copy(), np.where(np.arange(n) < n // 2, 1.0, 0.5)
    got, got_prev = u.copy(), prev.copy()
    s.steps(got, got_prev, m, steps=12, boundary="periodic", c=0.2)
    a, b = u.copy(), prev.copy()
    for _ in range(12):
        a = refill(a, [1], [("periodic", "periodic")])
        new = a.copy()
        new[1:-1] = 2.0 * a[1:-1] - b[1:-1] + 0.2 * m[1:-1] * (a[:-2] - 2.0 * a[1:-1] + a[2:])
        tiny = np.finfo(np.float64).tiny
        new[np.abs(new) < tiny] = 0.0 * np.sign(new[np.abs(new) < tiny])
        a, b = new, a
    np.testing.assert_array_equal(got[1:-1], a[1:-1])
    np.testing.assert_array_equal(got_prev[1:-1], b[1:-1])
    np.testing.assert_array_equal(m, np.where(np.arange(n) < n // 2, 1.0, 0.5)), "coefficient fields are read only"


@pytest.mark.parametrize("dtype", DTYPES)
def test_whole_arrays_step_every_point_and_wrap_as_np_roll(dtype):
    """whole=True: every point of unpadded arrays is stepped, periodic sides wrapping around as
    np.roll does; a coefficient field read at an offset wraps the same way."""
    s = cnda.Stencil(
        "|u, v, m; a, b| (u[0, 0] + a * m[0, 1] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]), "
        "v[0, 0] + b * (u[0, -1] - v[1, 0]))"
    )
    u, v, m = field((19, 26), dtype, 6), field((19, 26), dtype, 7), field((19, 26), dtype, 8)
    t = np.dtype(dtype).type
    a, b = t(0.2), t(0.3)
    roll = lambda x, di, dj: np.roll(x, (-di, -dj), axis=(0, 1))  # noqa: E731  x at offset (di, dj)
    want_u, want_v = u.copy(), v.copy()
    for _ in range(5):
        lap = roll(want_u, -1, 0) + roll(want_u, 1, 0) + roll(want_u, 0, -1) + roll(want_u, 0, 1) - t(4.0) * want_u
        want_u, want_v = want_u + a * roll(m, 0, 1) * lap, want_v + b * (roll(want_u, 0, -1) - roll(want_v, 1, 0))
    got_u, got_v, got_m = u.copy(), v.copy(), m.copy()
    s.steps(got_u, got_v, got_m, steps=5, boundary="wrap", whole=True, a=0.2, b=0.3)
    np.testing.assert_allclose(got_u, want_u, rtol=8 * np.finfo(dtype).eps, atol=8 * np.finfo(dtype).eps)
    np.testing.assert_allclose(got_v, want_v, rtol=8 * np.finfo(dtype).eps, atol=8 * np.finfo(dtype).eps)
    np.testing.assert_array_equal(got_m, m)
    # Mirrored sides: the whole array padded by np.pad's "symmetric" before each step.
    got = u.copy()
    cnda.Stencil("|u| 0.25 * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1])").steps(got, steps=3, boundary="neumann", whole=True)
    want = u.copy()
    for _ in range(3):
        p = np.pad(want, 1, mode="symmetric")
        want = t(0.25) * p[:-2, 1:-1] + t(0.25) * p[2:, 1:-1] + t(0.25) * p[1:-1, :-2] + t(0.25) * p[1:-1, 2:]
    np.testing.assert_allclose(got, want, rtol=8 * np.finfo(dtype).eps)
    with pytest.raises(ValueError, match=r"whole=True steps every point.*axis 1 has a 'fixed' side.*'periodic'"):
        s.steps(u, v, m, boundary=["periodic", ("fixed", 0.0)], whole=True, a=0.2, b=0.3)
    # A number on every side: the fields' halo holds it, the coefficient field's is mirrored.
    want_u, want_v = u.copy(), v.copy()
    pm = np.pad(m, 1, mode="symmetric")
    for _ in range(4):
        pu, pv = np.pad(want_u, 1, constant_values=0.25), np.pad(want_v, 1, constant_values=0.25)
        at_ = lambda p, di, dj: p[1 + di : p.shape[0] - 1 + di, 1 + dj : p.shape[1] - 1 + dj]  # noqa: E731
        lap = at_(pu, -1, 0) + at_(pu, 1, 0) + at_(pu, 0, -1) + at_(pu, 0, 1) - t(4.0) * want_u
        want_u, want_v = want_u + a * at_(pm, 0, 1) * lap, want_v + b * (at_(pu, 0, -1) - at_(pv, 1, 0))
    got_u, got_v = u.copy(), v.copy()
    s.steps(got_u, got_v, m, steps=4, boundary=0.25, whole=True, a=0.2, b=0.3)
    np.testing.assert_allclose(got_u, want_u, rtol=8 * np.finfo(dtype).eps, atol=8 * np.finfo(dtype).eps)
    np.testing.assert_allclose(got_v, want_v, rtol=8 * np.finfo(dtype).eps, atol=8 * np.finfo(dtype).eps)


def test_numpy_boundary_names_are_aliases_or_refused_with_the_mapping():
    s = cnda.Stencil("|u| 0.5 * (u[-1] + u[1])")
    u = np.linspace(0.0, 1.0, 17)
    for alias, kind in [("wrap", "periodic"), ("symmetric", "neumann"), ("constant", 0.0)]:
        a, b = u.copy(), u.copy()
        s.steps(a, steps=4, boundary=alias)
        s.steps(b, steps=4, boundary=kind)
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(cnda.stencil(u, steps=3, boundary=alias), cnda.stencil(u, steps=3, boundary=kind))
    with pytest.raises(ValueError, match=r"'reflect'.*'neumann' \(np.pad's 'symmetric'\)"):
        s.steps(u.copy(), boundary="reflect")
    with pytest.raises(ValueError, match=r"'edge'.*radius 1 'neumann'"):
        cnda.stencil(u, boundary="edge")


def bilinear(a, i, j):
    """`a` sampled at the fractional point (i, j), as cnda's receivers sample."""
    i0, j0 = int(np.floor(i)), int(np.floor(j))
    fi, fj = i - i0, j - j0
    return ((1 - fi) * (1 - fj) * a[i0, j0] + (1 - fi) * fj * a[i0, j0 + 1]
            + fi * (1 - fj) * a[i0 + 1, j0] + fi * fj * a[i0 + 1, j0 + 1])


@pytest.mark.parametrize("whole", [False, True])
def test_sources_and_receivers_inside_the_steps(whole):
    """A 2D wave of two levels: a source injected into u after each sweep, receivers sampling u
    after each step (at a node and between nodes), against the same loop in NumPy."""
    s = cnda.Stencil("#[levels(2)] |u, u_prev; c| 2.0 * u[0, 0] - u_prev[0, 0] + c * laplace(u, 2)")
    n, m, steps = 24, 31, 31  # not a multiple of the ring's 3 arrays: the levels come out rotated
    series = np.sin(np.arange(steps + 5) * 0.4)[:, None]
    source, receivers = (11.0, 14.0), np.array([[11.0, 20.0], [6.5, 9.25]])
    u, prev = np.zeros((n, m)), np.zeros((n, m))
    got = s.steps(u, prev, steps=steps, boundary="periodic" if whole else "fixed", whole=whole, c=0.2,
                  sources=("u", source, series), receivers=[(0, receivers)])
    assert isinstance(got, list) and len(got) == 1 and got[0].shape == (steps, 2)
    # The NumPy loop, on arrays padded by one for `whole` (the halo wraps around).
    h = 1 if whole else 0
    a, b = np.zeros((n + 2 * h, m + 2 * h)), np.zeros((n + 2 * h, m + 2 * h))
    want = np.zeros((steps, 2))
    for t in range(steps):
        if whole:
            a, b = (np.pad(x[1:-1, 1:-1], 1, mode="wrap") for x in (a, b))
        new = b.copy()
        new[1:-1, 1:-1] = 2.0 * a[1:-1, 1:-1] - b[1:-1, 1:-1] + 0.2 * (
            a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] - 4.0 * a[1:-1, 1:-1])
        new[int(source[0]) + h, int(source[1]) + h] += series[t, 0]
        want[t] = [bilinear(new, i + h, j + h) for i, j in receivers]
        a, b = new, a
    np.testing.assert_allclose(got[0], want, rtol=1e-12, atol=1e-12)
    inner = (slice(h, n + h), slice(h, m + h))
    np.testing.assert_allclose(u, a[inner], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(prev, b[inner], rtol=1e-12, atol=1e-12)
    assert np.abs(want).max() > 0.1, "the wave reached the receivers"
    # One receiver alone returns its record alone; the same steps again give the same samples.
    u2, prev2 = np.zeros((n, m)), np.zeros((n, m))
    alone = s.steps(u2, prev2, steps=steps, boundary="periodic" if whole else "fixed", whole=whole, c=0.2,
                    sources=[("u", [source], series)], receivers=("u", receivers))
    np.testing.assert_array_equal(alone, got[0])


def test_sources_and_receivers_refusals():
    s = cnda.Stencil("#[levels(2)] |u, u_prev; c| 2.0 * u[0, 0] - u_prev[0, 0] + c * laplace(u, 2)")
    u, prev = np.zeros((12, 12)), np.zeros((12, 12))
    with pytest.raises(ValueError, match=r"u_prev is not an evolved field; name one of \(u\)"):
        s.steps(u, prev, steps=3, c=0.1, receivers=("u_prev", [5.0, 5.0]))
    with pytest.raises(ValueError, match=r"a series of shape \(2, 1\) for 1 points and 3 steps"):
        s.steps(u, prev, steps=3, c=0.1, sources=("u", [5.0, 5.0], np.ones((2, 1))))
    with pytest.raises(ValueError, match=r"points of shape \(3,\); give one row of 2 coordinates"):
        s.steps(u, prev, steps=3, c=0.1, receivers=("u", [5.0, 5.0, 1.0]))
    with pytest.raises(ValueError, match=r"point 0 at \[0.0, 5.0\] needs node \[0, 5\], which is not in the interior"):
        s.steps(u, prev, steps=3, c=0.1, receivers=("u", [0.0, 5.0]))
    # With whole=True every node of the arrays as given is a place for a point, and no other.
    s.steps(u, prev, steps=3, boundary="periodic", whole=True, c=0.1, receivers=("u", [0.0, 11.0]))
    with pytest.raises(ValueError, match=r"point 0 at \[11.5, 3.0\] needs node \[12, 3\], outside arrays of shape \(12, 12\)"):
        s.steps(u, prev, steps=3, boundary="periodic", whole=True, c=0.1, receivers=("u", [11.5, 3.0]))
    # An evolved field of another dtype: no advice to convert (a copy would be stepped).
    with pytest.raises(TypeError, match=r"an evolved field is written in place, so pass an array of float64") as e:
        s.steps(u, prev.astype(np.float32), steps=3, c=0.1)
    assert "np.asarray" not in str(e.value)
    # A parameter named as a keyword could not be passed by name: refused when read.
    with pytest.raises(ValueError, match=r"parameter whole has the name of a keyword"):
        cnda.Stencil("|u; whole| u[0] * whole")


def test_refusals_say_what_and_where():
    with pytest.raises(ValueError, match=r"line 1, column \d+: .*cbrt[\s\S]*\^"):
        cnda.Stencil("|u; dt| u[0, 0] + dt * u[0, 0].cbrt()")
    with pytest.raises(ValueError, match="line 2"):
        cnda.Stencil("|u|\n u[0] + ")
    with pytest.raises(ValueError, match="1 to 3 axes"):
        cnda.Stencil("|u| u[0, 0, 0, 0]")
    s = cnda.Stencil("|u; a, b| a * u[-1] + b * u[1]")
    u = field((10,), np.float64)
    with pytest.raises(TypeError, match="missing parameters b"):
        s(u, a=1.0)
    with pytest.raises(TypeError, match=r"unknown parameter 'c'; the stencil's parameters are \(a, b\)"):
        s(u, a=1.0, b=2.0, c=3.0)
    with pytest.raises(TypeError, match="2 fields given to a stencil of 1"):
        s(u, u, a=1.0, b=2.0)
    with pytest.raises(TypeError, match="float32 or float64"):
        s(np.arange(10), a=1.0, b=2.0)
    with pytest.raises(ValueError, match="2 dimensions; the stencil reads its fields at 1 offsets"):
        s(np.zeros((3, 3)), a=1.0, b=2.0)
    with pytest.raises(ValueError, match="overlap|share"):
        s(u, out=u, a=1.0, b=2.0)
    with pytest.raises(TypeError, match="1 arrays given to a stencil of 2 fields"):
        cnda.Stencil("#[levels(2)] |u, up| u[0] - up[0]").steps(u, steps=1)
