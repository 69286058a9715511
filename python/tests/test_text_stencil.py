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
