"""cnda's operations on NumPy arrays against NumPy itself: elementwise arithmetic with broadcasting
over strided, flipped and broadcast operands (exact: one rounding per element on both sides), in
place forms, sums (within the rounding of a different summation order), matmul, and pad (exact)."""

import threading

import numpy as np
import pytest

import cnda

rng = np.random.default_rng(11)
DTYPES = [np.float32, np.float64, np.int32, np.int64]
BINARY = [(cnda.add, np.add), (cnda.subtract, np.subtract), (cnda.multiply, np.multiply)]


def sample(shape, dtype):
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-1000, 1000, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def operand_views(dtype):
    """Pairs of operands that broadcast, read in place through every kind of stride."""
    base = sample((6, 8, 5), dtype)
    yield base, sample((6, 8, 5), dtype)  # contiguous
    yield base[:, ::2, ::-1], sample((4, 5), dtype)  # stepped, flipped; rank 2 against rank 3
    yield base.transpose(2, 0, 1), sample((5, 1, 8), dtype)  # transposed; a length-1 axis
    yield base[1], sample((5,), dtype)  # a slice; rank 1
    yield np.broadcast_to(sample((1, 5), dtype), (8, 5)), base[0]  # stride 0
    yield sample((3, 1, 2, 4), dtype), sample((5, 1, 1), dtype)  # rank 4
    yield np.asfortranarray(sample((7, 3), dtype)), sample((7, 3), dtype)[::-1, :]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ours,numpys", BINARY)
def test_binary_ops_broadcast_like_numpy_over_any_strides(dtype, ours, numpys):
    for a, b in operand_views(dtype):
        got = ours(a, b)
        want = numpys(a, b)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want)
        assert got.flags.c_contiguous and got.ctypes.data % 64 == 0  # a cnda buffer
        assert isinstance(got.base, cnda.Export)


@pytest.mark.parametrize("dtype", DTYPES)
def test_divide_matches_numpy_integers_included(dtype):
    for a, b in operand_views(dtype):
        if np.issubdtype(dtype, np.integer):
            b = np.where(b == 0, 1, b).astype(dtype)
        got, want = cnda.divide(a, b), np.divide(a, b)
        assert got.dtype == want.dtype and np.array_equal(got, want)  # integers: float64, as NumPy


def test_large_operations_release_the_interpreter_lock_and_still_match():
    a, b = sample((512, 512), np.float64), sample((512,), np.float64)
    results = []
    worker = threading.Thread(target=lambda: results.append(cnda.add(a, b)))
    worker.start()
    worker.join()
    assert np.array_equal(results[0], a + b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_in_place_ops_write_through_views(dtype):
    a = sample((6, 7), dtype)
    want = a.copy()
    view = a[::2, ::-1]  # written in place through steps and a flip
    b = sample((7,), dtype)
    cnda.iadd(view, b)
    want[::2, ::-1] += b
    assert np.array_equal(a, want)
    cnda.isubtract(view, b)
    want[::2, ::-1] -= b
    cnda.imultiply(a, a[0].copy())
    want *= want[0].copy()
    assert np.array_equal(a, want)
    if np.issubdtype(dtype, np.floating):
        cnda.idivide(a, np.full((6, 1), 2, dtype))
        want /= 2
        assert np.array_equal(a, want)


def test_in_place_refusals():
    a = np.zeros((4, 4))
    with pytest.raises(ValueError, match="a is read-only"):
        cnda.iadd(np.broadcast_to(np.zeros(4), (4, 4)), np.ones(4))  # read-only (stride 0)
    with pytest.raises(ValueError, match="broadcast"):
        cnda.iadd(a, np.ones(5))
    with pytest.raises(ValueError, match="broadcast"):
        cnda.iadd(a[0], np.ones((4, 4)))  # b cannot broadcast into a's shape


def test_operand_errors_are_typed():
    with pytest.raises(TypeError, match="promote to float16, which cnda does not compute"):
        cnda.add(np.ones(3, np.float16), np.ones(3, np.float16))
    with pytest.raises(TypeError, match="promote to uint16"):
        cnda.add(np.ones(3, np.uint16), np.ones(3, np.uint16))
    with pytest.raises(ValueError, match="do not broadcast"):
        cnda.add(np.ones((2, 3)), np.ones((4,)))
    with pytest.raises(ValueError, match="5 dimensions"):
        cnda.add(np.ones((1,) * 5), np.ones(1))
    packed = np.zeros(4, dtype=[("a", np.int8), ("x", np.float64)])  # field stride 9 bytes
    with pytest.raises(ValueError, match="misaligned or has strides"):
        cnda.add(packed["x"], packed["x"])


@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_whole_and_along_each_axis(dtype):
    a = sample((9, 10, 11), dtype)
    views = [a, a[::-1, ::3], a.transpose(1, 2, 0), a[2]]
    for v in views:
        tol = {"rtol": 1e-4, "atol": 1e-3} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-9}
        if np.issubdtype(dtype, np.integer):
            assert cnda.sum(v) == v.sum()
        else:
            assert np.isclose(cnda.sum(v), v.sum(dtype=np.float64), **tol)
        for axis in range(-v.ndim, v.ndim):
            got, want = cnda.sum(v, axis=axis), v.sum(axis=axis)
            assert got.shape == want.shape and got.dtype == want.dtype
            if np.issubdtype(dtype, np.integer):
                assert np.array_equal(got, want)
            else:
                assert np.allclose(got, want, **tol)
    big = sample((400, 400), np.float64)  # parallel, lock released
    assert np.isclose(cnda.sum(big), big.sum(), rtol=1e-12)
    with pytest.raises(IndexError, match="axis 3 is out of range"):
        cnda.sum(a, axis=3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_with_transposed_and_strided_operands(dtype):
    a, b = sample((37, 23), dtype), sample((29, 37), dtype)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    for x, y in [(a.T, b.T), (a[::2].T, b[:, ::-2].T[::-1][:19]), (b, a)]:
        got = cnda.matmul(x, y)
        want = x.astype(np.float64) @ y.astype(np.float64)
        assert got.dtype == dtype and got.shape == want.shape
        assert np.allclose(got, want, rtol=tol, atol=tol * 10)
    with pytest.raises(ValueError):
        cnda.matmul(a, a)  # 37x23 @ 37x23
    with pytest.raises(TypeError, match="float32, float64, complex64 or complex128"):
        cnda.matmul(np.ones((2, 2), np.int64), np.ones((2, 2), np.int64))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad_matches_numpy(dtype, mode):
    a = sample((5, 6, 4), dtype)
    for v in [a, a[::-1, 1:, ::2], a[0]]:
        for width in [0, 1, 3]:
            got = cnda.pad(v, width, mode)
            want = np.pad(v, width, mode=mode)
            assert np.array_equal(got, want), (mode, width)
    assert np.array_equal(cnda.pad(a[0], 2, constant_values=7), np.pad(a[0], 2, constant_values=7))
    with pytest.raises(ValueError, match="mode"):
        cnda.pad(a, 1, "mean")
