"""`cnda.StencilState` (`Stencil.state`): a text stencil's fields held in cnda's arrays between
calls. Many calls of `steps` equal one call of `Stencil.steps` of their sum bit for bit (which
test_text_stencil.py checks against NumPy), with and without `whole`, for a system of two
fields and for two time levels; sources, receivers and parameters given per call; the arrays
given are left alone and levels read out are copies; refusals."""

import numpy as np
import pytest

import cnda
from test_text_stencil import GRAY_SCOTT, field, gray_scott_reference

WAVE = "#[levels(2)] |u, u_prev; c| 2.0 * u[0, 0] - u_prev[0, 0] + c * laplace(u, 2)"
PARAMS = dict(du=0.16, dv=0.08, f=0.035, k=0.06)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("whole", [False, True])
def test_calls_of_a_state_equal_one_call_of_steps(dtype, whole):
    s = cnda.Stencil(GRAY_SCOTT)
    u, v = field((33, 40), dtype, 1), field((33, 40), dtype, 2)
    given_u, given_v = u.copy(), v.copy()
    boundary = "periodic" if whole else [("neumann", 0.25), "periodic"]
    st = s.state(u, v, boundary=boundary, whole=whole, **PARAMS)
    for k in (3, 1, 5):
        st.steps(k)
    assert st.steps_taken == 9
    want_u, want_v = u.copy(), v.copy()
    s.steps(want_u, want_v, steps=9, boundary=boundary, whole=whole, **PARAMS)
    np.testing.assert_array_equal(st["u"], want_u)
    np.testing.assert_array_equal(st["v"], want_v)
    assert st["u"].dtype == dtype and st["u"].shape == (33, 40)
    np.testing.assert_array_equal(u, given_u)  # the arrays given are not stepped
    np.testing.assert_array_equal(v, given_v)


def test_a_state_matches_numpy_and_its_levels_are_copies():
    """Against the NumPy loop itself (fixed sides: the halo keeps its values)."""
    s = cnda.Stencil(GRAY_SCOTT)
    u, v = field((21, 30), np.float64, 4), field((21, 30), np.float64, 5)
    p = tuple(PARAMS.values())
    st = s.state(u, v, **PARAMS)
    st.steps(4)
    st.steps(3)
    want_u, want_v = u.copy(), v.copy()
    for _ in range(7):
        want_u, want_v = gray_scott_reference(want_u, want_v, p)
    got = st["u"]
    np.testing.assert_array_equal(got, want_u)
    np.testing.assert_array_equal(st["v"], want_v)
    got[...] = -1.0
    np.testing.assert_array_equal(st["u"], want_u)  # a level read out is a copy


@pytest.mark.parametrize("whole", [False, True])
def test_two_levels_with_sources_receivers_and_a_parameter_for_one_call(whole):
    s = cnda.Stencil(WAVE)
    n, m, steps = 24, 31, 14
    series = np.sin(np.arange(2 * steps) * 0.4)[:, None]
    source, receivers = (11.0, 14.0), np.array([[11.0, 20.0], [6.5, 9.25]])
    boundary = "periodic" if whole else "fixed"
    u, prev = np.zeros((n, m)), np.zeros((n, m))
    st = s.state(u, prev, boundary=boundary, whole=whole, c=0.2)
    first = st.steps(steps, sources=("u", source, series), receivers=("u", receivers))
    second = st.steps(steps, sources=("u", source, series[steps:]), receivers=[("u", receivers)], c=0.1)
    third = st.steps(3, receivers=("u", receivers))
    assert first.shape == (steps, 2) and isinstance(second, list) and third.shape == (3, 2)
    # The same three calls of Stencil.steps on arrays stepped in place.
    a, b = np.zeros((n, m)), np.zeros((n, m))
    want1 = s.steps(a, b, steps=steps, boundary=boundary, whole=whole, c=0.2,
                    sources=("u", source, series), receivers=("u", receivers))
    want2 = s.steps(a, b, steps=steps, boundary=boundary, whole=whole, c=0.1,
                    sources=("u", source, series[steps:]), receivers=("u", receivers))
    want3 = s.steps(a, b, steps=3, boundary=boundary, whole=whole, c=0.2, receivers=("u", receivers))
    np.testing.assert_array_equal(first, want1)
    np.testing.assert_array_equal(second[0], want2)
    np.testing.assert_array_equal(third, want3)  # c=0.1 held for one call only
    np.testing.assert_array_equal(st["u"], a)
    np.testing.assert_array_equal(st["u_prev"], b)
    assert np.abs(want2).max() > 0.01, "the wave reached the receivers"
    assert st.fields == ["u", "u_prev"] and st.shape == (n, m) and st.steps_taken == 2 * steps + 3
    assert repr(st) == f"StencilState(fields=['u', 'u_prev'], shape=({n}, {m}), dtype=float64, steps_taken=31)"


def test_one_dimensional_periodic_state_matches_numpy():
    s = cnda.Stencil("|u; a| u[0] + a * (u[-1] - 2.0 * u[0] + u[1])")
    u = np.sin(np.linspace(0.0, 6.0, 50)).astype(np.float32)
    st = s.state(u, boundary="periodic", whole=True, a=0.25)
    st.steps(6)
    want = u.copy()
    a = np.float32(0.25)
    for _ in range(6):
        want = want + a * (np.roll(want, 1) - np.float32(2.0) * want + np.roll(want, -1))
    np.testing.assert_array_equal(st["u"], want)


def test_refusals():
    s = cnda.Stencil("#[levels(2)] |u, u_prev, m; c| 2.0 * u[0] - u_prev[0] + c * m[0] * (u[-1] - 2.0 * u[0] + u[1])")
    u, m = np.zeros(16), np.ones(16)
    with pytest.raises(TypeError, match="missing parameters c"):
        s.state(u, u.copy(), m)
    with pytest.raises(TypeError, match="2 arrays given to a stencil of 3 fields"):
        s.state(u, u.copy(), c=0.1)
    with pytest.raises(ValueError, match="'fixed' side"):
        s.state(u, u.copy(), m, whole=True, c=0.1)
    st = s.state(u, u.copy(), m, boundary="periodic", c=0.1)
    with pytest.raises(KeyError, match="'m' is a coefficient field"):
        st["m"]
    with pytest.raises(KeyError, match=r"no field 'w'; the evolved fields' levels are \(u, u_prev\)"):
        st["w"]
    with pytest.raises(TypeError, match="unknown parameter 'd'"):
        st.steps(2, d=0.5)
    with pytest.raises(TypeError, match=r"boundary is fixed when the state is made"):
        st.steps(2, boundary="neumann")
    with pytest.raises(ValueError, match=r"StencilState.steps: z is not an evolved field"):
        st.steps(2, receivers=("z", [3.0]))
    with pytest.raises(TypeError, match="2 arrays given"):  # the count is checked first
        s.state(u, u.copy())
    assert repr(s.state(u, u.copy(), m, c=0.1)).endswith("shape=(16,), dtype=float64, steps_taken=0)")
    with pytest.raises(ValueError):
        st.steps(-1)
