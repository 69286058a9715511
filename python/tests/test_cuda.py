"""CUDA arrays and DLPack on the GPU: zero-copy exchange with CuPy and PyTorch by pointer
equality, lifetimes across the boundary, device copies, and refusals. Without a GPU only the
refusals run: opening a device must fail with a RuntimeError saying why, before any producer is
asked for its memory. On the CPU-hosted CUDA device (tools/cuda-sim: scripts/test runs this file
again with it, CNDA_CUDA_PTX=1 and CNDA_REQUIRE_CUDA=1) everything but CuPy and PyTorch runs."""

import gc
import os

import numpy as np
import pytest

import cnda

DTYPES = [np.float32, np.float64, np.int32, np.int64]
HAS_GPU = cnda.cuda_device_count() > 0
gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA device")


def test_the_device_count_is_a_count():
    assert isinstance(cnda.cuda_device_count(), int) and cnda.cuda_device_count() >= 0


def test_a_required_device_is_there():
    # Under CNDA_REQUIRE_CUDA=1 a missing device is a failure, not a silent skip of the GPU tests.
    if os.environ.get("CNDA_REQUIRE_CUDA") == "1":
        assert HAS_GPU, "CNDA_REQUIRE_CUDA=1 but no CUDA device: is libcuda (or tools/cuda-sim) and NVRTC on LD_LIBRARY_PATH?"


@pytest.mark.skipif(HAS_GPU, reason="a CUDA device is present")
def test_without_a_device_uploads_fail_saying_why():
    with pytest.raises(RuntimeError, match="no CUDA driver|there is no CUDA device"):
        cnda.to_cuda(np.zeros(3))


class FakeCudaProducer:
    """A producer that says its tensor is on CUDA device 0 and must not be asked for it when that
    device cannot be opened."""

    asked = False

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, **kwargs):
        FakeCudaProducer.asked = True
        raise AssertionError("the producer was asked for memory no device can hold")


@pytest.mark.skipif(HAS_GPU, reason="a CUDA device is present")
def test_without_a_device_cuda_producers_are_refused_before_export():
    with pytest.raises(RuntimeError, match="no CUDA driver|there is no CUDA device"):
        cnda.from_dlpack(FakeCudaProducer())
    assert not FakeCudaProducer.asked


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trips_through_the_device(dtype):
    x = (np.arange(60) - 20).reshape(3, 4, 5).astype(dtype)
    d = cnda.to_cuda(x)
    assert d.shape == (3, 4, 5) and d.dtype == dtype and d.ndim == 3 and d.size == 60 and len(d) == 3
    assert d.device == 0 and d.__dlpack_device__() == (2, 0)
    assert repr(d) == f"CudaArray(shape=[3, 4, 5], dtype={np.dtype(dtype).name}, device=0)"
    np.testing.assert_array_equal(d.to_numpy(), x)
    np.testing.assert_array_equal(d.to_host().to_numpy(), x)
    np.testing.assert_array_equal(cnda.to_cuda(x[:, ::-1, 1:]).to_numpy(), x[:, ::-1, 1:])  # copied on the host
    c = d.copy()
    assert c.data_ptr != d.data_ptr
    c.fill(7)
    np.testing.assert_array_equal(c.to_numpy(), np.full_like(x, 7))
    np.testing.assert_array_equal(d.to_numpy(), x)
    h = cnda.from_numpy(x.copy())
    np.testing.assert_array_equal(cnda.to_cuda(h).to_numpy(), x)


@gpu
@pytest.mark.parametrize("layout", ["strided (copied on the host first)", "contiguous (read in place)"])
def test_uploads_of_memory_a_running_kernel_writes_are_refused(layout):
    # Before (Soundness III): to_cuda's host copy of a layout the device cannot take in place read
    # the memory while a stencil in another thread wrote it. Now it holds a read lease on it.
    from races import reads_racing_a_sweep

    source = (lambda out: out[:, ::2]) if layout.startswith("strided") else (lambda out: out)
    assert reads_racing_a_sweep(source, lambda x: cnda.to_cuda(x).to_numpy().tobytes()) > 0


@gpu
def test_cnda_imports_its_own_export_without_a_copy():
    d = cnda.to_cuda(np.arange(10, dtype=np.float32))
    e = cnda.from_dlpack(d)
    assert isinstance(e, cnda.CudaArray) and e.data_ptr == d.data_ptr
    e.fill(2)
    np.testing.assert_array_equal(d.to_numpy(), np.full(10, 2, np.float32))
    del d
    gc.collect()
    np.testing.assert_array_equal(e.to_numpy(), np.full(10, 2, np.float32))  # the capsule keeps it
    f = cnda.from_dlpack(e, copy=True)
    assert f.data_ptr != e.data_ptr
    np.testing.assert_array_equal(f.to_numpy(), e.to_numpy())


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_and_cnda_share_device_memory(dtype):
    cp = pytest.importorskip("cupy")
    x = (np.arange(12) * 3).reshape(3, 4).astype(dtype)
    d = cnda.to_cuda(x)
    c = cp.from_dlpack(d)
    assert c.data.ptr == d.data_ptr and c.shape == (3, 4) and c.dtype == dtype
    np.testing.assert_array_equal(cp.asnumpy(c), x)
    c[1, 2] = 99  # written by CuPy, seen by cnda
    cp.cuda.Device(0).synchronize()
    assert d.to_numpy()[1, 2] == 99
    del d
    gc.collect()
    assert int(c[1, 2]) == 99  # CuPy keeps cnda's memory alive

    y = cp.arange(20, dtype=dtype).reshape(4, 5)
    e = cnda.from_dlpack(y)
    assert isinstance(e, cnda.CudaArray) and e.data_ptr == y.data.ptr
    e.fill(5)  # written by cnda, seen by CuPy after the export's synchronization
    z = cp.from_dlpack(e)
    assert z.data.ptr == y.data.ptr and bool((y == 5).all())
    del y, z
    gc.collect()
    np.testing.assert_array_equal(e.to_numpy(), np.full((4, 5), 5, dtype))  # cnda keeps CuPy's alive
    with pytest.raises(ValueError, match="C-contiguous"):
        cnda.from_dlpack(cp.ones((4, 6), dtype=dtype).T)


@gpu
def test_pytorch_and_cnda_share_device_memory():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    d = cnda.to_cuda(np.linspace(0, 1, 24, dtype=np.float32).reshape(2, 3, 4))
    t = torch.from_dlpack(d)
    assert t.data_ptr() == d.data_ptr and t.is_cuda and tuple(t.shape) == (2, 3, 4)
    t.mul_(2)
    torch.cuda.synchronize()
    np.testing.assert_allclose(d.to_numpy(), np.linspace(0, 2, 24, dtype=np.float32).reshape(2, 3, 4))

    u = torch.arange(30, dtype=torch.float64, device="cuda").reshape(5, 6)
    e = cnda.from_dlpack(u)
    assert isinstance(e, cnda.CudaArray) and e.data_ptr == u.data_ptr() and e.dtype == np.float64
    del u
    gc.collect()
    torch.cuda.empty_cache()
    np.testing.assert_array_equal(e.to_numpy(), np.arange(30, dtype=np.float64).reshape(5, 6))
    c = cnda.from_dlpack(torch.ones(3, 3, device="cuda"), copy=True)
    np.testing.assert_array_equal(c.to_numpy(), np.ones((3, 3), np.float32))
    with pytest.raises(ValueError, match="C-contiguous"):
        cnda.from_dlpack(torch.ones(4, 6, device="cuda").t())
    with pytest.raises(TypeError, match="float32, float64, int32 or int64"):
        cnda.from_dlpack(torch.ones(3, device="cuda", dtype=torch.float16))


@gpu
def test_the_cuda_array_interface_describes_the_same_memory():
    d = cnda.to_cuda(np.arange(12, dtype=np.float64).reshape(3, 4))
    cai = d.__cuda_array_interface__
    assert cai["shape"] == (3, 4) and cai["typestr"] == "<f8" and cai["version"] == 3
    assert cai["data"] == (d.data_ptr, False) and cai["strides"] is None and cai["stream"] > 2
    assert cnda.to_cuda(np.zeros((0, 4))).__cuda_array_interface__["data"][0] == 0
    cp = pytest.importorskip("cupy")
    c = cp.asarray(d)  # through the interface, without a copy
    assert c.data.ptr == d.data_ptr
    np.testing.assert_array_equal(cp.asnumpy(c), np.arange(12.0).reshape(3, 4))
