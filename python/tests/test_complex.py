"""Complex arrays (complex64, complex128) against NumPy: ContiguousND holds them (zero-copy from
and to NumPy, indexing, fill, copy), the operations compute them (arithmetic with broadcasting
and NumPy's promotion, exact but for division, where NumPy scales and cnda divides as
num-complex does; sums within the rounding of another order; matmul), and they travel through
.npy files and DLPack (on CUDA devices: test_cuda_complex.py)."""

import numpy as np
import pytest

import cnda

rng = np.random.default_rng(5)
CDTYPES = [np.complex64, np.complex128]


def sample(shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def tol(dtype):
    return 1e-6 if dtype == np.complex64 else 1e-14


@pytest.mark.parametrize("dtype", CDTYPES)
def test_contiguous_arrays_hold_complex_elements(dtype):
    a = cnda.ContiguousND((2, 3), dtype)
    assert a.dtype == np.dtype(dtype) and a.itemsize == np.dtype(dtype).itemsize
    a[1, 2] = 1.5 - 2j
    assert a[1, 2] == 1.5 - 2j and a[0, 0] == 0
    a.fill(3j)
    assert a[0, 1] == 3j
    b = a.copy()
    b[0, 0] = 1
    assert a[0, 0] == 3j and b[0, 0] == 1
    x = sample((4, 5), dtype)
    c = cnda.from_numpy(x)
    assert c.data_ptr == x.ctypes.data  # borrowed, not copied
    assert c[3, 4] == x[3, 4]
    y = c.to_numpy()
    assert y.dtype == x.dtype and np.array_equal(y, x)
    assert np.shares_memory(y, x)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_arithmetic_matches_numpy(dtype):
    a = sample((6, 5), dtype)
    b = sample((5,), dtype)[::-1]  # flipped, broadcast over rows
    assert np.array_equal(cnda.add(a, b), a + b)
    assert np.array_equal(cnda.subtract(a.T, 2 - 1j), a.T - (2 - 1j))
    np.testing.assert_allclose(cnda.multiply(a, b), a * b, rtol=tol(dtype))
    # NumPy divides with Smith's scaling, cnda (num-complex) by the squared magnitude.
    np.testing.assert_allclose(cnda.divide(a, b), a / b, rtol=10 * tol(dtype))
    out = np.empty_like(a)
    assert cnda.multiply(a, b, out=out) is out
    np.testing.assert_allclose(out, a * b, rtol=tol(dtype))
    c = a.copy()
    cnda.iadd(c, b)
    assert np.array_equal(c, a + b)
    # NumPy's promotion: a float64 operand makes complex128.
    r = cnda.add(a, np.ones(5))
    assert r.dtype == np.result_type(a, np.ones(5)) and np.allclose(r, a + 1)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_sums_and_matmul_match_numpy(dtype):
    a = sample((7, 9), dtype)
    total = cnda.sum(a)
    assert np.asarray(total).dtype == np.dtype(dtype)
    np.testing.assert_allclose(total, a.sum(), rtol=10 * tol(dtype))
    np.testing.assert_allclose(cnda.sum(a, axis=1), a.sum(axis=1), rtol=10 * tol(dtype))
    np.testing.assert_allclose(cnda.sum(a.T, axis=(0, 1)), a.sum(), rtol=10 * tol(dtype))
    b = sample((9, 4), dtype)
    np.testing.assert_allclose(cnda.matmul(a, b), a @ b, rtol=10 * tol(dtype))
    np.testing.assert_allclose(cnda.matmul(a[:, ::2], b[::2].T.copy().T), a[:, ::2] @ b[::2], rtol=10 * tol(dtype))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_npy_files_and_dlpack_carry_complex_arrays(dtype, tmp_path):
    x = sample((3, 4), dtype)
    path = tmp_path / "z.npy"
    np.save(path, x)
    back = cnda.load(path)
    assert back.dtype == x.dtype and np.array_equal(back.to_numpy(), x)
    cnda.save(tmp_path / "w.npy", back)
    assert np.array_equal(np.load(tmp_path / "w.npy"), x)
    d = cnda.from_dlpack(x)
    assert d.dtype == x.dtype and d.data_ptr == x.ctypes.data
    assert np.array_equal(np.from_dlpack(d), x)


def test_promotion_matches_numpy_beside_the_same_type_fast_path():
    """Two arrays of one type skip NumPy's promotion; everything else still takes it."""
    x = sample((5,), np.complex128)
    f = np.arange(5.0)
    swapped = f.astype(">f8")
    assert cnda.add(swapped, swapped).dtype == np.add(swapped, swapped).dtype
    assert np.array_equal(cnda.add(swapped, swapped), swapped + swapped)
    assert cnda.add(f.astype(np.float32), 2j).dtype == np.result_type(np.float32, 2j)  # NEP 50: complex64
    assert cnda.divide(np.arange(1, 6), np.arange(1, 6)).dtype == np.float64
    with pytest.raises(TypeError):
        cnda.add(x, x, out=np.empty(5))  # a complex result into a float array
    with pytest.raises(TypeError, match="same_kind"):
        cnda.iadd(f.copy(), x)  # complex into float in place: NumPy's same_kind refuses it


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_copies_of_misaligned_arrays_are_read_through_numpy(dtype):
    x = sample((6,), np.complex128)
    x = x if dtype == np.complex128 else x.real.copy()
    raw = np.zeros(x.nbytes + 1, np.uint8)
    misaligned = np.frombuffer(raw.data, dtype=dtype, count=6, offset=1)
    misaligned[...] = x
    assert not misaligned.flags.aligned
    with pytest.raises(ValueError, match="misaligned"):
        cnda.from_numpy(misaligned)
    copied = cnda.from_numpy(misaligned, copy=True)
    assert np.array_equal(copied.to_numpy(), x)


def test_stencils_refuse_complex_weights():
    u = np.zeros((8, 8))
    with pytest.raises(TypeError, match="stencils take real weights"):
        cnda.stencil(u, taps=np.ones((3, 3), np.complex128))
