"""complex64 and complex128 CudaArrays against NumPy: to_cuda and back, DLPack and the CUDA
Array Interface, fill and copy; arithmetic with broadcasting, Python int, float and complex
scalars (weak: the array keeps its dtype) and NumPy scalars that keep it, on either side and in
place; sums and means, whole and along axes; matmul (cuBLAS cgemm/zgemm); the refusals (min and
max, a complex scalar beside a real array, NumPy scalars that promote). Runs on a GPU or on the
CPU-hosted CUDA device (scripts/test); skips without one."""

import operator

import numpy as np
import pytest

import cnda

pytestmark = pytest.mark.skipif(cnda.cuda_device_count() == 0, reason="no CUDA device")

COMPLEX = [np.complex64, np.complex128]
OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
# NumPy divides by Smith's method, cnda as num-complex (conj(b) a / |b|^2): a few ulps apart.
RTOL = {np.dtype(np.complex64): 3e-6, np.dtype(np.complex128): 1e-14}


def sample(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return np.asarray(rng.standard_normal(shape) + 1j * rng.standard_normal(shape), dtype=dtype)


def near(got, want):
    """`got` (a CudaArray) is `want` (NumPy's) in shape and dtype, and in value within rounding."""
    assert isinstance(got, cnda.CudaArray)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want.shape, want.dtype)
    tol = RTOL[np.dtype(want.dtype)]
    np.testing.assert_allclose(got.to_numpy(), want, rtol=tol, atol=tol * max(1.0, float(np.abs(want).max(initial=0))))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_arrays_travel_to_the_device_and_back(dtype):
    x = sample((3, 4), dtype, 0)
    d = cnda.to_cuda(x)
    assert d.dtype == dtype and d.shape == (3, 4)
    np.testing.assert_array_equal(d.to_numpy(), x)
    np.testing.assert_array_equal(cnda.to_cuda(x[:, ::-2]).to_numpy(), x[:, ::-2])
    shared = cnda.from_dlpack(d)
    assert shared.data_ptr == d.data_ptr and shared.dtype == dtype
    assert d.__cuda_array_interface__["typestr"] == np.dtype(dtype).str
    c = d.copy()
    c.fill(1.5 - 2j)
    np.testing.assert_array_equal(c.to_numpy(), np.full((3, 4), 1.5 - 2j, dtype))
    np.testing.assert_array_equal(d.to_numpy(), x)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("sym", list(OPS))
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 1, 3), (4, 1)), ((5,), ()), ((0, 3), (1, 3))])
def test_two_arrays_broadcast_as_numpy(dtype, sym, shapes):
    a, b = sample(shapes[0], dtype, 1), sample(shapes[1], dtype, 2)
    op = OPS[sym]
    near(op(cnda.to_cuda(a), cnda.to_cuda(b)), op(a, b))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("sym", list(OPS))
@pytest.mark.parametrize("scalar", [3, -0.5, 1.5 - 2j, True, np.complex64(0.25 + 1j), np.float32(2)])
def test_scalars_keep_the_dtype_on_either_side(dtype, sym, scalar):
    a = sample((4, 5), dtype, 3)
    d = cnda.to_cuda(a)
    op = OPS[sym]
    near(op(d, scalar), op(a, scalar))
    near(op(scalar, d), op(scalar, a))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_in_place_forms_write_the_array_itself(dtype):
    a, b = sample((3, 4), dtype, 4), sample((4,), dtype, 5)
    d = cnda.to_cuda(a)
    alias = cnda.from_dlpack(d)
    d += cnda.to_cuda(b)
    d *= 2j
    d /= cnda.to_cuda(a)
    d -= 1
    want = (a + b) * 2j / a - 1
    near(alias, want.astype(dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
def test_sums_and_means_match_numpy(dtype, axis):
    a = sample((3, 4, 5), dtype, 6)
    d = cnda.to_cuda(a)
    for name in ["sum", "mean"]:
        got, want = getattr(d, name)(axis=axis), getattr(a, name)(axis=axis)
        if axis is None:
            assert type(got) is np.dtype(dtype).type
            tol = RTOL[np.dtype(dtype)] * 10
            assert abs(got - want) <= tol * max(1.0, abs(want))
        else:
            near(got, want.astype(dtype))


def test_means_divide_each_part_and_empty_means_are_nan():
    big = np.full((2, 50), 2.0**1010 * (1 - 1j), np.complex128)
    near(cnda.to_cuda(big).mean(axis=1), big.mean(axis=1))
    with pytest.warns(RuntimeWarning, match="Mean of empty"):
        empty = cnda.to_cuda(np.zeros((0,), np.complex64)).mean()
    assert np.isnan(empty.real) and np.isnan(empty.imag) and type(empty) is np.complex64


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("mkn", [(3, 4, 5), (1, 7, 1), (6, 0, 2)])
def test_matmul_matches_numpy(dtype, mkn):
    m, k, n = mkn
    a, b = sample((m, k), dtype, 7), sample((k, n), dtype, 8)
    near(cnda.to_cuda(a) @ cnda.to_cuda(b), a @ b)


def test_refusals_say_why_and_what_to_do():
    d = cnda.to_cuda(sample((3, 4), np.complex64, 9))
    for name in ["min", "max"]:
        with pytest.raises(TypeError, match="complex numbers have no order"):
            getattr(d, name)()
        with pytest.raises(TypeError, match="complex numbers have no order"):
            getattr(d, name)(axis=0)
    real = cnda.to_cuda(np.ones(3))
    with pytest.raises(TypeError, match="cannot hold the Python complex"):
        real + 1j
    with pytest.raises(TypeError, match="promotes to complex128"):
        real * np.complex64(1j)
    with pytest.raises(TypeError, match="promotes to complex128"):
        d * np.float64(2)
    with pytest.raises(TypeError, match="complex64 and float64"):
        d + real
    with pytest.raises(TypeError, match="float32 or float64"):
        cnda.stencil(d, taps="laplacian")
