"""cnda as a NumPy user expects it (issue "Python for stencil users", item 5): NumPy sees cnda
arrays without a copy (np.asarray, ufuncs), the binary ops take scalars and mixed types with
NumPy's own promotion and write into out=, sum takes a tuple of axes, pad takes NumPy's widths
and a mode per axis. NumPy itself is the reference for every result and dtype."""

import numpy as np
import pytest

import cnda

rng = np.random.default_rng(5)


def test_numpy_sees_cnda_memory_without_a_copy():
    c = cnda.from_numpy(np.arange(12.0).reshape(3, 4), copy=True)
    a = np.asarray(c)
    assert a.shape == (3, 4) and a.dtype == np.float64
    assert a.__array_interface__["data"][0] == c.data_ptr  # same memory
    a[0, 0] = 42.0
    assert c[0, 0] == 42.0
    want = np.arange(12.0).reshape(3, 4)
    want[0, 0] = 42.0
    assert np.array_equal(np.add(c, 1), want + 1)  # a ufunc reads it
    assert np.sqrt(c).shape == (3, 4)  # a ufunc on a cnda array
    assert np.asarray(c, dtype=np.float32).dtype == np.float32  # a converted copy on request
    with pytest.raises(ValueError, match="copy"):
        np.asarray(c, dtype=np.float32, copy=False)
    assert np.array(c, copy=True).__array_interface__["data"][0] != c.data_ptr


def test_structured_arrays_convert_too():
    s = cnda.Particle.zeros((4,))
    a = np.asarray(s)
    assert a.dtype.names == s.dtype.names and a.shape == (4,)


SCALARS = [2, 2.5, -3, np.float32(1.5), np.float64(0.25), np.int32(7), np.int64(-2), True]
ARRAYS = {np.float32: 1.5, np.float64: -0.5, np.int32: 3, np.int64: -4}


@pytest.mark.parametrize("ours,numpys", [(cnda.add, np.add), (cnda.subtract, np.subtract), (cnda.multiply, np.multiply), (cnda.divide, np.divide)])
def test_scalars_and_mixed_types_promote_as_numpy(ours, numpys):
    for dtype, fill in ARRAYS.items():
        a = np.full((3, 2), fill, dtype)
        for s in SCALARS:
            for x, y in ((a, s), (s, a)):
                want = numpys(x, y)
                got = ours(x, y)
                assert got.dtype == want.dtype, (x, y)
                assert np.array_equal(got, want), (x, y)
        for other in ARRAYS:
            b = np.full((2,), 2, other)
            want = numpys(a, b)
            got = ours(a, b)
            assert got.dtype == want.dtype and np.array_equal(got, want), (dtype, other)
    assert ours(2.0, 4.0) == numpys(2.0, 4.0) and ours(2.0, 4.0).shape == ()  # two scalars
    assert np.array_equal(ours([1.0, 2.0], 3), numpys([1.0, 2.0], 3))  # a list


def test_out_takes_the_result_in_place_as_numpy_does():
    a, b = rng.random((4, 5)), rng.random(5)
    out = np.empty((4, 5))
    assert cnda.multiply(a, b, out=out) is out
    assert np.array_equal(out, a * b)
    f = np.asfortranarray(np.empty((4, 5)))
    cnda.subtract(a, b, out=f[:, :])
    assert np.array_equal(f, a - b)
    x = np.arange(10.0)
    want = np.arange(10.0)
    np.add(want[1:], want[:-1], out=want[1:])
    cnda.add(x[1:], x[:-1], out=x[1:])  # out overlaps an input: read whole first
    assert np.array_equal(x, want)
    with pytest.raises(TypeError, match="out is float32 but the result is float64"):
        cnda.add(a, b, out=np.empty((4, 5), np.float32))
    with pytest.raises(ValueError, match=r"out has shape \(5, 4\) but the result has shape \(4, 5\)"):
        cnda.add(a, b, out=np.empty((5, 4)))
    ro = np.empty((4, 5))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        cnda.add(a, b, out=ro)


def test_in_place_forms_follow_numpys_same_kind_rule():
    a = np.arange(6, dtype=np.float32)
    cnda.iadd(a, 2.0)
    assert a.dtype == np.float32 and np.array_equal(a, np.arange(6, dtype=np.float32) + 2)
    cnda.imultiply(a, np.arange(6, dtype=np.int32))
    assert np.array_equal(a, (np.arange(6, dtype=np.float32) + 2) * np.arange(6))
    i = np.arange(4, dtype=np.int64)
    with pytest.raises(TypeError, match="does not write float64 into int64"):
        cnda.iadd(i, 0.5)
    with np.testing.assert_raises(TypeError):
        np.add(i, 0.5, out=i)  # NumPy refuses it too
    with pytest.raises(TypeError, match="does not write float64 into int64"):
        cnda.idivide(i, 2)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64])
def test_sum_over_a_tuple_of_axes(dtype):
    a = (rng.random((3, 4, 5, 2)) * 100).astype(dtype)
    for axes in [(0,), (1, 3), (3, 1), (0, 2, 3), (-1, 0), (0, 1, 2, 3), ()]:
        want = np.sum(a, axis=axes)
        got = cnda.sum(a, axis=axes)
        assert np.asarray(got).dtype == np.asarray(want).dtype, axes
        assert np.allclose(got, want, rtol=1e-5), axes
    with pytest.raises(ValueError, match="names an axis twice"):
        cnda.sum(a, axis=(1, -3))
    with pytest.raises(IndexError, match="out of range"):
        cnda.sum(a, axis=(4,))


def test_pad_takes_numpys_widths_and_a_mode_per_axis():
    a = rng.random((4, 5))
    for width in [2, (2,), (2, 2), ((1, 1), (2, 2)), [[0, 0], [3, 3]]]:
        assert np.array_equal(cnda.pad(a, width, "edge"), np.pad(a, width, "edge")), width
    # One mode per axis: as padding axis by axis with NumPy.
    got = cnda.pad(a, ((1, 1), (2, 2)), mode=("wrap", "edge"))
    want = np.pad(np.pad(a, ((1, 1), (0, 0)), "wrap"), ((0, 0), (2, 2)), "edge")
    assert np.array_equal(got, want)
    with pytest.raises(ValueError, match="different before and after"):
        cnda.pad(a, (1, 2))
    with pytest.raises(ValueError, match="2 modes for an array of 3 dimensions|3 dimensions"):
        cnda.pad(np.zeros((2, 2, 2)), 1, mode=("wrap", "edge"))
    with pytest.raises(ValueError, match="negative width"):
        cnda.pad(a, -1)


def test_version_and_a_written_out_of_another_dtype_is_refused_without_advising_a_copy():
    assert isinstance(cnda.__version__, str) and cnda.__version__.count(".") == 2
    u = rng.random((6, 7))
    with pytest.raises(TypeError, match=r"out is written in place.*np.empty\(shape, dtype=np.float64\)") as e:
        cnda.stencil(u, np.zeros((6, 7), np.float32))
    assert "np.asarray" not in str(e.value)
