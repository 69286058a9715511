"""DLPack both ways with NumPy (the CPU producer and consumer available everywhere): zero-copy by
pointer equality, lifetimes by the live-buffer counter, read-only flags, copies, and refusals."""

import gc

import numpy as np
import pytest

import cnda

DTYPES = [np.float32, np.float64, np.int32, np.int64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_takes_cnda_memory_without_a_copy(dtype):
    gc.collect()
    live = cnda._live_buffers()
    a = cnda.ContiguousND((3, 5), dtype)
    a[2, 4] = 7
    assert a.__dlpack_device__() == (1, 0)
    x = np.from_dlpack(a)
    assert x.ctypes.data == a.data_ptr and x.shape == (3, 5) and x.dtype == dtype
    assert x[2, 4] == 7
    x[0, 0] = 3
    assert a[0, 0] == 3
    with pytest.raises(BufferError):
        a.resize((1,))  # the capsule's guard counts as an export
    del a
    gc.collect()
    assert cnda._live_buffers() == live + 1 and x[2, 4] == 7  # the consumer keeps it alive
    del x
    gc.collect()
    assert cnda._live_buffers() == live


def test_copy_true_exports_a_copy():
    a = cnda.ContiguousND((4,))
    x = np.from_dlpack(a, copy=True)
    assert x.ctypes.data != a.data_ptr
    x[0] = 1.0
    assert a[0] == 0.0


@pytest.mark.parametrize("dtype", DTYPES)
def test_cnda_takes_numpy_memory_without_a_copy(dtype):
    x = np.arange(24, dtype=dtype).reshape(2, 3, 4)
    a = cnda.from_dlpack(x)
    assert a.data_ptr == x.ctypes.data and a.shape == (2, 3, 4) and not a.readonly
    a[1, 2, 3] = 99
    assert x[1, 2, 3] == 99
    del x
    gc.collect()
    assert a[1, 2, 3] == 99 and a[0, 0, 1] == 1  # the imported tensor keeps NumPy's memory


def test_from_dlpack_copies_any_strides_and_refuses_them_without_copy():
    x = np.arange(30, dtype=np.float64).reshape(5, 6)
    for view in (x[::-1, ::2], x.T, x[1:, 3:]):
        with pytest.raises(ValueError, match="C-contiguous.*copy=True"):
            cnda.from_dlpack(view)
        a = cnda.from_dlpack(view, copy=True)
        assert np.array_equal(a.to_numpy(), view) and a.data_ptr != x.ctypes.data


def test_read_only_memory_stays_read_only_both_ways():
    x = np.arange(4.0)
    x.flags.writeable = False
    a = cnda.from_dlpack(x)
    assert a.readonly and a.data_ptr == x.ctypes.data
    with pytest.raises(RuntimeError, match="read-only"):
        a[0] = 1.0
    y = np.from_dlpack(a)  # exported with DLPack's read-only flag
    assert y.ctypes.data == x.ctypes.data and not y.flags.writeable


def test_round_trip_and_zero_dimensional_and_empty_tensors():
    a = cnda.ContiguousND((2, 2), np.int32)
    b = cnda.from_dlpack(a)  # cnda to cnda
    assert b.data_ptr == a.data_ptr
    z = cnda.from_dlpack(np.array(5.0))
    assert z.shape == () and z.at(()) == 5.0
    e = cnda.from_dlpack(np.zeros((0, 3)))
    assert e.shape == (0, 3) and e.size == 0


def test_unsupported_types_are_type_errors():
    with pytest.raises(TypeError, match="from_dlpack: elements of type .* are not supported"):
        cnda.from_dlpack(np.zeros(3, np.float16))
    with pytest.raises(TypeError, match="not supported"):
        cnda.from_dlpack(np.zeros(3, np.uint8))
