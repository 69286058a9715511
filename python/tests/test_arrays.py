"""The cnda Python module against NumPy: construction, checked indexing, zero-copy both ways
(pointer equality), owner lifetimes (a live-buffer counter), strict validation and exceptions."""

import gc

import numpy as np
import pytest

import cnda

DTYPES = ["float32", "float64", "int32", "int64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_construction_and_metadata(dtype):
    a = cnda.ContiguousND((3, 4, 5), dtype)
    assert a.shape == (3, 4, 5)
    assert a.ndim == 3 and a.size == 60 and len(a) == 3
    assert a.dtype == np.dtype(dtype)
    assert a.strides == (20, 5, 1)
    assert a.strides_bytes == tuple(s * np.dtype(dtype).itemsize for s in (20, 5, 1))
    assert "ContiguousND(shape=[3, 4, 5]" in repr(a)
    alias = getattr(cnda, "ContiguousND_" + {"float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64"}[dtype])
    assert alias((2, 2)).dtype == np.dtype(dtype)


def test_indexing_is_bounds_checked_on_every_axis():
    a = cnda.ContiguousND((3, 4))
    a[1, 2] = 7.5
    assert a[1, 2] == 7.5 and a.at((1, 2)) == 7.5 and a[-2, -2] == 7.5
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4"):
        a[0, 4]
    with pytest.raises(IndexError, match="index -4 is out of bounds for axis 0 with size 3"):
        a[-4, 0] = 1.0
    with pytest.raises(IndexError, match="1 indices for an array of 2 dimensions"):
        a[0]
    with pytest.raises(TypeError):
        a[0:2, 1]


def test_fill_copy_and_unsupported_dtypes():
    a = cnda.ContiguousND((2, 3), np.int32)
    a.fill(9)
    b = a.copy()
    b[0, 0] = 1
    assert a[0, 0] == 9 and b[0, 0] == 1
    assert b.data_ptr != a.data_ptr
    with pytest.raises(TypeError, match="not uint16"):
        cnda.ContiguousND((2,), np.uint16)


@pytest.mark.parametrize("dtype", DTYPES)
def test_to_numpy_is_a_zero_copy_view_that_keeps_the_owner_alive(dtype):
    gc.collect()
    live = cnda._live_buffers()
    a = cnda.ContiguousND((4, 6), dtype)
    assert cnda._live_buffers() == live + 1
    v = a.to_numpy()
    assert v.__array_interface__["data"][0] == a.data_ptr
    assert v.ctypes.data % 64 == 0
    assert v.flags.writeable and v.flags.c_contiguous
    v[2, 3] = 5
    assert a[2, 3] == 5
    del a
    gc.collect()
    assert cnda._live_buffers() == live + 1  # the view's base holds the owner
    assert v[2, 3] == 5
    v[0, 0] = 1
    del v
    gc.collect()
    assert cnda._live_buffers() == live  # freed exactly once, when both are gone


def test_to_numpy_copy_owns_its_memory():
    a = cnda.ContiguousND((3,))
    c = a.to_numpy(copy=True)
    assert c.__array_interface__["data"][0] != a.data_ptr
    c[0] = 4.0
    assert a[0] == 0.0


def test_an_exported_owner_cannot_be_resized():
    a = cnda.ContiguousND((2, 3))
    a[1, 2] = 3.0
    v = a.to_numpy()
    with pytest.raises(BufferError, match="NumPy view"):
        a.resize((4, 4))
    del v
    gc.collect()
    a.resize((3, 3))
    assert a.shape == (3, 3) and a[1, 2] == 3.0  # leading elements kept


@pytest.mark.parametrize("dtype", DTYPES)
def test_from_numpy_shares_memory_and_keeps_the_input_alive(dtype):
    x = np.arange(12, dtype=dtype).reshape(3, 4)
    a = cnda.from_numpy(x)
    assert a.data_ptr == x.ctypes.data
    a[1, 1] = 42
    assert x[1, 1] == 42
    del x
    gc.collect()
    assert a[1, 1] == 42 and a[2, 3] == 11
    v = a.to_numpy()
    assert v.ctypes.data == a.data_ptr
    with pytest.raises(RuntimeError, match="borrowed from a NumPy array"):
        del v
        gc.collect()
        a.resize((2,))


def test_from_numpy_copy_accepts_any_strides():
    x = np.arange(24, dtype=np.float64).reshape(4, 6)
    for view in (x.T, x[::-1, ::2], x[1:, 2:], np.asfortranarray(x)):
        a = cnda.from_numpy(view, copy=True)
        assert a.shape == view.shape
        assert np.array_equal(a.to_numpy(), view)
        assert a.data_ptr != x.ctypes.data


def test_from_numpy_zero_copy_validates_strictly():
    x = np.arange(24, dtype=np.float64).reshape(4, 6)
    with pytest.raises(ValueError, match="C-contiguous .*Fortran-ordered.*copy=True or np.ascontiguousarray"):
        cnda.from_numpy(np.asfortranarray(x))
    with pytest.raises(ValueError, match="C-contiguous"):
        cnda.from_numpy(x[:, ::2])
    with pytest.raises(ValueError, match="C-contiguous"):
        cnda.from_numpy(x[::-1])
    raw = np.zeros(8 * 6 + 1, dtype=np.uint8)
    misaligned = raw[1:].view(np.float64)
    with pytest.raises(ValueError, match="misaligned"):
        cnda.from_numpy(misaligned)
    with pytest.raises(ValueError, match="byte-swapped"):
        cnda.from_numpy(x.astype(x.dtype.newbyteorder(">")))
    ro = x.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        cnda.from_numpy(ro)
    with pytest.raises(TypeError, match="float16"):
        cnda.from_numpy(x.astype(np.float16))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        cnda.from_numpy([1.0, 2.0])


def test_read_only_views_share_memory_and_refuse_writes():
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    x.flags.writeable = False
    a = cnda.from_numpy(x, readonly=True)
    assert a.readonly and a.data_ptr == x.ctypes.data and a[1, 2] == 5.0
    with pytest.raises(RuntimeError, match="read-only view of a NumPy array's memory.*arr.copy"):
        a[0, 0] = 1.0
    with pytest.raises(RuntimeError, match="read-only"):
        a.fill(0.0)
    v = a.to_numpy()
    assert v.ctypes.data == x.ctypes.data and not v.flags.writeable
    with pytest.raises(ValueError):
        v[0, 0] = 1.0
    c = a.copy()
    assert not c.readonly
    c[0, 0] = 9.0
    assert x[0, 0] == 0.0
    # A writable input can be shared read-only too; cnda then never writes it.
    w = np.zeros(3)
    r = cnda.from_numpy(w, readonly=True)
    with pytest.raises(RuntimeError):
        r[0] = 1.0


def test_every_error_comes_through_the_one_mapping():
    """Out of range -> IndexError, layout -> ValueError, dtype -> TypeError, ownership ->
    RuntimeError, each message saying what, why and how to fix."""
    a = cnda.ContiguousND((2, 2))
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 2"):
        a[2, 0]
    with pytest.raises(ValueError, match=r"^from_numpy\(copy=False\): requires a C-contiguous"):
        cnda.from_numpy(np.zeros((3, 3))[:, ::2])
    with pytest.raises(TypeError, match=r"^from_numpy: elements of type uint16 are not supported; "):
        cnda.from_numpy(np.zeros(2, np.uint16))
    with pytest.raises(RuntimeError, match=r"^resize: the memory is borrowed from a NumPy array"):
        cnda.from_numpy(np.zeros(2)).resize((3,))


def test_arrays_cross_threads():
    """Arrays made on one thread are used and freed on another (no thread affinity)."""
    import threading

    gc.collect()
    live = cnda._live_buffers()
    made = []
    t = threading.Thread(target=lambda: made.append((cnda.ContiguousND((4,)), cnda.add(np.ones(3), np.ones(3)))))
    t.start()
    t.join()
    a, b = made.pop()
    a[1] = 2.0
    assert a.to_numpy()[1] == 2.0 and b[2] == 2.0
    del a, b
    gc.collect()
    assert cnda._live_buffers() == live
