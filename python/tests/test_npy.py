"""`.npy` files written by cnda's Rust writer (feature npy) and read by NumPy, and the other way
round, for every ContiguousND dtype and the structured elements, in C and Fortran order, with
the reader's strict refusals as typed exceptions."""

import numpy as np
import pytest

import cnda

DTYPES = [np.float32, np.float64, np.int32, np.int64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_cnda_writes_what_numpy_reads(tmp_path, dtype):
    x = (np.arange(60) * 3 - 7).astype(dtype).reshape(3, 4, 5)
    path = tmp_path / "a.npy"
    cnda.save(path, cnda.from_numpy(x))
    y = np.load(path)
    assert y.dtype == x.dtype and np.array_equal(y, x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_cnda_reads_what_numpy_writes(tmp_path, dtype, order):
    x = np.asarray((np.arange(42) - 11).astype(dtype).reshape(6, 7), order=order)
    path = tmp_path / "b.npy"
    np.save(path, x)
    a = cnda.load(path)
    assert isinstance(a, cnda.ContiguousND) and a.dtype == x.dtype and a.shape == x.shape
    assert np.array_equal(a.to_numpy(), x)  # Fortran order transposed into row-major


def test_structured_round_trips_both_ways(tmp_path):
    x = np.zeros((4, 3), cnda.Cell2D.dtype)
    x["rho"] = np.arange(12).reshape(4, 3)
    x["flag"] = 2
    path = tmp_path / "cells.npy"
    np.save(path, x)
    a = cnda.load(path, element=cnda.Cell2D)
    assert isinstance(a, cnda.StructuredND) and np.array_equal(a.to_numpy(), x)
    a.field("vx")[:] = 1.5
    cnda.save(path, a)
    y = np.load(path)
    assert y.dtype == cnda.Cell2D.dtype and np.array_equal(y["vx"], np.full((4, 3), 1.5, np.float32))
    assert np.array_equal(y["rho"], x["rho"])


def test_loading_refuses_what_does_not_match(tmp_path):
    path = tmp_path / "c.npy"
    np.save(path, np.zeros(3, np.float16))
    with pytest.raises(TypeError, match="not supported"):
        cnda.load(path)
    np.save(path, np.zeros(3, np.uint16))
    with pytest.raises(TypeError, match="uint16"):
        cnda.load(path)
    other = np.dtype([("rho", "<f8"), ("vx", "<f4"), ("vy", "<f4"), ("state", "<i4"), ("material", "<i4")])
    np.save(path, np.zeros(2, other))
    with pytest.raises(TypeError, match="field 3 must be `flag`, got `state`"):
        cnda.load(path, element=cnda.Cell2D)
    with pytest.raises(TypeError, match="element="):
        cnda.load(path)
    np.save(path, np.zeros(3).astype(">f8"))
    with pytest.raises(ValueError, match="Big-endian"):
        cnda.load(path)
    with open(path, "r+b") as f:  # cut the data short
        np.save(f, np.zeros(100))
        f.truncate(200)
    with pytest.raises(OSError, match="800 bytes of data, but the file holds only 72 bytes"):
        cnda.load(path)
    with pytest.raises(OSError):
        cnda.load(tmp_path / "missing.npy")
    with pytest.raises(TypeError, match="ContiguousND or cnda.StructuredND"):
        cnda.save(path, np.zeros(3))
