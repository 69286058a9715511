"""cnda's stencils called on NumPy arrays in place, against NumPy expressions summing the taps in
the same order (so the results are equal bit for bit)."""

import numpy as np
import pytest

import cnda


def test_jacobi_2d_equals_numpy_bit_for_bit():
    rng = np.random.default_rng(7)
    u = rng.random((37, 53))
    out = np.full_like(u, -1.0)
    cnda.stencil(u, out)
    want = 0.25 * u[:-2, 1:-1] + 0.25 * u[2:, 1:-1] + 0.25 * u[1:-1, :-2] + 0.25 * u[1:-1, 2:]
    assert np.array_equal(out[1:-1, 1:-1], want)
    assert (out[0] == -1.0).all() and (out[:, -1] == -1.0).all()  # the boundary is left alone


def test_laplacian_3d_equals_numpy_bit_for_bit():
    rng = np.random.default_rng(8)
    u = rng.random((9, 11, 13))
    out = np.zeros_like(u)
    h = 0.5
    cnda.stencil(u, out, laplacian=True, h=h)
    a = 1.0 / (h * h)
    c = u[1:-1, 1:-1, 1:-1]
    want = (
        a * u[:-2, 1:-1, 1:-1] + a * u[2:, 1:-1, 1:-1] + a * u[1:-1, :-2, 1:-1]
        + a * u[1:-1, 2:, 1:-1] + a * u[1:-1, 1:-1, :-2] + a * u[1:-1, 1:-1, 2:] + (-6.0 * a) * c
    )
    assert np.array_equal(out[1:-1, 1:-1, 1:-1], want)


def test_stencil_refuses_what_it_cannot_do_in_place():
    u = np.zeros((8, 8))
    with pytest.raises(ValueError, match="out and u overlap in memory"):
        cnda.stencil(u, u)  # the output would overlap the input
    with pytest.raises(ValueError, match="out and u overlap in memory"):
        cnda.stencil(u[:, ::2], u[:, 1::2])  # interleaved: one span, as np.may_share_memory
    with pytest.raises(TypeError, match="float64"):
        cnda.stencil(u.astype(np.float32), np.zeros((8, 8), np.float32))
    with pytest.raises(ValueError, match="expected|shape"):
        cnda.stencil(u, np.zeros((8, 9)))
    with pytest.raises(ValueError, match="2D or 3D"):
        cnda.stencil(np.zeros(8), np.zeros(8))
