"""`cnda.stencil` on NumPy arrays against the NumPy reference (stencil_reference.py), bit for bit:
every tap form (presets, dicts, weight arrays, offsets with coefficient fields), float32 and
float64, 1D to 3D, any strides, `steps` with every boundary kind, `out` given or not, the
interpreter lock released; and every refusal with its message."""

import threading
import time

import numpy as np
import pytest

import cnda
from stencil_reference import preset, steps as reference_steps

DTYPES = [np.float32, np.float64]
SHAPES = {1: (41,), 2: (19, 23), 3: (9, 11, 13)}


def field(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def random_taps(ndim, count, reach, dtype, seed):
    rng = np.random.default_rng(seed)
    count = min(count, (2 * reach + 1) ** ndim)
    taps = {}
    while len(taps) < count:
        taps[tuple(int(x) for x in rng.integers(-reach, reach + 1, ndim))] = float(rng.integers(-8, 9)) / 8
    return taps


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,ndim", [("jacobi", 1), ("jacobi", 2), ("jacobi", 3), ("laplacian", 1),
                                       ("laplacian", 2), ("laplacian", 3), ("5-point", 2), ("9-point", 2),
                                       ("7-point", 3), ("27-point", 3)])
def test_presets_equal_the_reference(name, ndim, dtype):
    u = field(SHAPES[ndim], dtype, 1)
    got = cnda.stencil(u, taps=name, h=0.5)
    want = reference_steps(u, preset(name, ndim, 0.5, dtype), 1)
    assert got.dtype == dtype and np.array_equal(got, want)


def test_the_default_is_the_jacobi_mean_and_laplacian_true_the_laplacian():
    u = field((17, 19), np.float64, 2)
    assert np.array_equal(cnda.stencil(u), reference_steps(u, preset("jacobi", 2), 1))
    assert np.array_equal(cnda.stencil(u, laplacian=True, h=2.0), reference_steps(u, preset("laplacian", 2, 2.0), 1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_dict_taps_in_their_order_equal_the_reference(ndim, dtype):
    for seed in range(4):
        taps = random_taps(ndim, 3 + 2 * seed, 4 if ndim == 1 else 2, dtype, seed)
        u = field(SHAPES[ndim], dtype, seed)
        out = np.full_like(u, np.nan)
        assert cnda.stencil(u, out, taps=taps) is out
        want = reference_steps(u, [(o, dtype(w)) for o, w in taps.items()], 1)
        assert np.array_equal(out, want)


def test_one_dimensional_taps_may_be_ints():
    u = field((30,), np.float64)
    assert np.array_equal(cnda.stencil(u, taps={-2: 1.0, 3: -0.5}), cnda.stencil(u, taps={(-2,): 1.0, (3,): -0.5}))


def test_a_centred_weight_array_is_its_nonzero_taps_in_row_major_order():
    w = np.array([[0.0, 1.0, 0.0, 0.0, 0.0], [2.0, -6.0, 2.0, 0.5, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0]])
    u = field((12, 14), np.float64, 3)
    taps = {(-1, -1): 1.0, (0, -2): 2.0, (0, -1): -6.0, (0, 0): 2.0, (0, 1): 0.5, (1, -1): 1.0}
    assert np.array_equal(cnda.stencil(u, taps=w), cnda.stencil(u, taps=taps))
    assert np.array_equal(cnda.stencil(u, taps=w), reference_steps(u, list(taps.items()), 1))


def views(u):
    """The same values under other strides: Fortran order, a transposed copy's transpose, a
    stepped view, a flipped one."""
    yield "fortran", np.asfortranarray(u)
    yield "transposed", u.T.copy().T
    big = np.full(tuple(2 * n for n in u.shape), np.nan, u.dtype)
    big[tuple(slice(None, None, 2) for _ in u.shape)] = u
    yield "stepped", big[tuple(slice(None, None, 2) for _ in u.shape)]
    yield "flipped", np.flip(np.flip(u, 0).copy(), 0)


@pytest.mark.parametrize("ndim", [2, 3])
def test_any_strides_give_the_same_bits(ndim):
    u = field(SHAPES[ndim], np.float64, 4)
    taps = random_taps(ndim, 6, 2, np.float64, 9)
    want = reference_steps(u, list(taps.items()), 1)
    for what, v in views(u):
        assert np.array_equal(cnda.stencil(v, taps=taps), want), what
        out = np.asfortranarray(np.zeros_like(u))
        cnda.stencil(v, out, taps=taps)
        assert np.array_equal(out, want), what + " into a Fortran-ordered out"


BOUNDARIES = ["fixed", "periodic", "neumann", 1.5, ["periodic", ("neumann", -2.0)], [("fixed", "neumann"), 0.25]]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("boundary", BOUNDARIES, ids=str)
def test_steps_with_boundaries_equal_the_reference_and_repeated_calls(boundary, dtype):
    u = field((21, 17), dtype, 5)
    taps = {(-2, 0): 0.125, (0, -1): 0.25, (0, 0): 0.25, (1, 1): 0.125, (2, 0): 0.125, (0, 1): 0.125}
    want = reference_steps(u, [(o, dtype(w)) for o, w in taps.items()], 7, boundary)
    got = cnda.stencil(u, taps=taps, steps=7, boundary=boundary)
    assert np.array_equal(got, want)
    one_at_a_time = u
    for _ in range(7):
        one_at_a_time = cnda.stencil(one_at_a_time, taps=taps, boundary=boundary)
    assert np.array_equal(one_at_a_time, want)


@pytest.mark.parametrize("ndim", [1, 3])
def test_steps_in_one_and_three_dimensions(ndim):
    u = field(SHAPES[ndim], np.float64, 6)
    taps = preset("laplacian", ndim, 1.0)
    scaled = {o: float(w) * 0.05 for o, w in taps}
    scaled[(0,) * ndim] += 1.0
    for boundary in ["periodic", "neumann", -1.0]:
        got = cnda.stencil(u, taps=scaled, steps=5, boundary=boundary)
        assert np.array_equal(got, reference_steps(u, list(scaled.items()), 5, boundary)), boundary


@pytest.mark.parametrize("dtype", DTYPES)
def test_coefficient_fields_stacked_or_listed(dtype):
    u = field((15, 18), dtype, 7)
    offsets = [(-1, 0), (1, 0), (0, -1), (0, 1), (0, 0)]
    c = field((5, 15, 18), dtype, 8)
    want = reference_steps(u, offsets, 1, coeffs=c)
    assert np.array_equal(cnda.stencil(u, taps=offsets, coeffs=c), want)
    assert np.array_equal(cnda.stencil(u, taps=offsets, coeffs=list(c)), want)
    got = cnda.stencil(u, taps=offsets, coeffs=0.2 * c, steps=4, boundary="periodic")
    assert np.array_equal(got, reference_steps(u, offsets, 4, "periodic", coeffs=0.2 * c))


def test_big_grids_run_threaded_with_the_same_bits():
    u = field((300, 260), np.float64, 10)
    taps = {(-1, 0): 0.25, (1, 0): 0.25, (0, -1): 0.25, (0, 1): 0.25}
    assert np.array_equal(cnda.stencil(u, taps=taps, steps=3), reference_steps(u, list(taps.items()), 3))


def test_the_interpreter_lock_is_released_while_the_steps_run():
    u = field((1024, 1024), np.float64, 11)
    # Long enough that the scheduler's own pauses of this thread (tens of milliseconds when the
    # stepper's threads fill both cores) stay well below half of it.
    started = time.perf_counter()
    cnda.stencil(u, steps=200)
    duration = time.perf_counter() - started
    worker = threading.Thread(target=lambda: cnda.stencil(u, steps=200))
    gaps, last = [], time.perf_counter()
    worker.start()
    while worker.is_alive():
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    worker.join()
    # Held, the lock would stall this loop for the whole call; released, it keeps running.
    assert max(gaps) < 0.5 * duration, (max(gaps), duration)


def test_refusals_say_what_why_and_how_to_fix():
    u = np.zeros((8, 8))
    cases = [
        (ValueError, "out and u overlap in memory", lambda: cnda.stencil(u, u)),
        (ValueError, "out and u overlap in memory", lambda: cnda.stencil(u[:, ::2], u[:, 1::2])),
        (ValueError, "out is read-only", lambda: cnda.stencil(u, np.broadcast_to(np.zeros(8), (8, 8)))),
        (TypeError, "float32", lambda: cnda.stencil(u, np.zeros((8, 8), np.float32))),
        (TypeError, "float32 or float64", lambda: cnda.stencil(u.astype(np.int32))),
        (ValueError, "shape", lambda: cnda.stencil(u, np.zeros((8, 9)))),
        (ValueError, "4 dimensions; give a 1D, 2D or 3D array", lambda: cnda.stencil(np.zeros((3, 3, 3, 3)))),
        (ValueError, "fewer than the 5 a stencil of radius 2 needs", lambda: cnda.stencil(np.zeros((4, 9)), taps={(2, 0): 1.0})),
        (ValueError, "past the largest radius 8", lambda: cnda.stencil(np.zeros((30, 30)), taps={(9, 0): 1.0})),
        (ValueError, "66 taps, more than the 64", lambda: cnda.stencil(np.zeros((30, 30)), taps={(i // 9 - 4, i % 9 - 4): 1.0 for i in range(65)} | {(5, 5): 1.0})),
        (ValueError, "no preset is named 'jacobbi'", lambda: cnda.stencil(u, taps="jacobbi")),
        (ValueError, "'9-point' is not defined for a 3D u", lambda: cnda.stencil(np.zeros((5, 5, 5)), taps="9-point")),
        (ValueError, "has 3 entries for a 2D u", lambda: cnda.stencil(u, taps={(0, 0, 1): 1.0})),
        (TypeError, "weight of tap", lambda: cnda.stencil(u, taps={(0, 1): "x"})),
        (ValueError, "even extent 4", lambda: cnda.stencil(u, taps=np.ones((3, 4)))),
        (ValueError, "every weight is zero", lambda: cnda.stencil(u, taps=np.zeros((3, 3)))),
        (TypeError, "give a dict", lambda: cnda.stencil(u, taps=3)),
        (ValueError, "either taps or laplacian=True", lambda: cnda.stencil(u, taps="jacobi", laplacian=True)),
        (TypeError, "with coeffs, give taps as a list of offsets", lambda: cnda.stencil(u, taps={(0, 1): 1.0}, coeffs=np.zeros((1, 8, 8)))),
        (ValueError, "2 coefficient fields for 1 taps", lambda: cnda.stencil(u, taps=[(0, 1)], coeffs=np.zeros((2, 8, 8)))),
        (ValueError, "coeffs has shape", lambda: cnda.stencil(u, taps=[(0, 1)], coeffs=np.zeros((1, 8, 7)))),
        (TypeError, "float64", lambda: cnda.stencil(u, taps=[(0, 1)], coeffs=np.zeros((1, 8, 8), np.float32))),
        (ValueError, "out and coeffs overlap", lambda: (lambda c: cnda.stencil(u, c[0], taps=[(0, 1)], coeffs=c))(np.zeros((1, 8, 8)))),
        (ValueError, "steps is 0", lambda: cnda.stencil(u, steps=0)),
        (ValueError, "boundary circular is not a boundary kind", lambda: cnda.stencil(u, boundary="circular")),
        (ValueError, "boundary has 3 entries for a 2D u", lambda: cnda.stencil(u, boundary=["fixed"] * 3)),
        (ValueError, "periodic on one side only", lambda: cnda.stencil(u, boundary=[("periodic", "fixed"), "fixed"])),
    ]
    for kind, message, call in cases:
        with pytest.raises(kind, match=message):
            call()


def test_repeated_calls_reuse_nothing_but_memory():
    # Calls with steps keep a scratch field per thread for the next call of the same shape:
    # interleaved shapes, dtypes and data still give the reference's bits.
    taps = {(-1, 0): 0.25, (1, 0): 0.25, (0, -1): 0.25, (0, 1): 0.25}
    for shape, dtype, seed in [((20, 21), np.float64, 1), ((20, 21), np.float64, 2), ((9, 30), np.float64, 3),
                               ((20, 21), np.float32, 4), ((20, 21), np.float64, 5)]:
        u = field(shape, dtype, seed)
        want = reference_steps(u, [(o, dtype(w)) for o, w in taps.items()], 6, "neumann")
        assert np.array_equal(cnda.stencil(u, taps=taps, steps=6, boundary="neumann"), want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("steps", [2, 3, 8])
def test_fixed_steps_read_u_itself_on_threads_and_overwrite_garbage(steps, dtype):
    # With fixed sides the first sweep reads `u` directly (no copy into `out` or the scratch
    # field): a grid large enough for threads, a strided `u`, and an `out` full of garbage.
    base = field((2 * 301, 257), dtype, 11)
    u = base[::2]
    want = reference_steps(np.ascontiguousarray(u), preset("jacobi", 2, 1.0, dtype), steps)
    out = np.full(u.shape, np.nan, dtype)
    assert cnda.stencil(u, out, steps=steps) is out
    assert np.array_equal(out, want)
    assert np.array_equal(cnda.stencil(u, taps={(-1, 0): 0.25, (1, 0): 0.25, (0, -1): 0.25, (0, 1): 0.25},
                                       steps=steps), want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_large_grids_on_threads_equal_the_reference(dtype):
    # Bands of several MiB per thread, lanes of a few thousand points.
    u = field((2 * 1111, 2061 if dtype == np.float64 else 4111), dtype, 12)
    for taps in [preset("jacobi", 2, 1.0, dtype), preset("9-point", 2, 0.5, dtype)]:
        out = np.full(u.shape, np.nan, dtype)
        cnda.stencil(u, out, taps={o: float(w) for o, w in taps})
        assert np.array_equal(out, reference_steps(u, taps, 1))
