"""`cnda.stencil` in CUDA memory (a CudaArray, or a DLPack producer on a CUDA device such as CuPy
or PyTorch, imported without a copy) against the same call on the host, bit for bit: every tap
form, steps with boundaries, coefficient fields, `out` given or new, and the refusals. Runs on a
GPU or on the CPU-hosted CUDA device (scripts/test); skips without one (CuPy and PyTorch cases
skip where they are not installed)."""

import numpy as np
import pytest

import cnda
from stencil_reference import steps as reference_steps

HAS_GPU = cnda.cuda_device_count() > 0
pytestmark = pytest.mark.skipif(not HAS_GPU, reason="no CUDA device")
DTYPES = [np.float32, np.float64]


class Producer:
    """A DLPack producer on CUDA device 0 (as CuPy and PyTorch tensors are): it lends a
    CudaArray's memory, so what cnda writes into it is seen through the array."""

    def __init__(self, array):
        self.array = array

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)


def field(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_taps_steps_and_boundaries_on_the_device_equal_the_host(ndim, dtype):
    shape = {1: (40,), 2: (13, 17), 3: (7, 8, 9)}[ndim]
    u = field(shape, dtype, ndim)
    taps = {tuple(int(s) * (a == k) for a in range(ndim)): w for k in range(ndim) for s, w in ((-1, 0.25), (1, 0.125))}
    taps[(0,) * ndim] = 0.5
    for kwargs in [dict(), dict(taps="laplacian", h=0.5), dict(taps=taps, steps=4, boundary="periodic"),
                   dict(taps=taps, steps=3, boundary="neumann"), dict(taps=taps, steps=2, boundary=0.75)]:
        got = cnda.stencil(cnda.to_cuda(u), **kwargs)
        assert isinstance(got, cnda.CudaArray) and got.dtype == dtype
        assert np.array_equal(got.to_numpy(), cnda.stencil(u, **kwargs)), kwargs


@pytest.mark.parametrize("dtype", DTYPES)
def test_coefficient_fields_on_the_device(dtype):
    u = field((12, 14), dtype, 3)
    offsets = [(-1, 0), (1, 0), (0, -1), (0, 1), (0, 0)]
    c = field((5, 12, 14), dtype, 4)
    fields = [cnda.to_cuda(f) for f in c]
    got = cnda.stencil(cnda.to_cuda(u), taps=offsets, coeffs=fields, steps=3, boundary="periodic")
    assert np.array_equal(got.to_numpy(), reference_steps(u, offsets, 3, "periodic", coeffs=c))


def test_out_is_written_in_place_and_producers_lend_their_memory():
    u = field((10, 11), np.float64, 5)
    du, dout = cnda.to_cuda(u), cnda.to_cuda(np.zeros_like(u))
    assert cnda.stencil(du, dout, steps=2) is dout
    want = cnda.stencil(u, steps=2)
    assert np.array_equal(dout.to_numpy(), want)
    target = cnda.to_cuda(np.zeros_like(u))
    cnda.stencil(Producer(du), Producer(target), steps=2)
    assert np.array_equal(target.to_numpy(), want)  # written where the producer's memory is


def test_cupy_and_pytorch_tensors_are_used_without_a_copy():
    cp = pytest.importorskip("cupy")
    u = cp.asarray(field((64, 64), np.float64, 6))
    out = cp.zeros_like(u)
    cnda.stencil(u, out, steps=4, boundary="periodic")
    assert np.array_equal(cp.asnumpy(out), cnda.stencil(cp.asnumpy(u), steps=4, boundary="periodic"))


def test_pytorch_cuda_tensors():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    u = torch.rand(48, 50, dtype=torch.float32, device="cuda")
    out = torch.zeros_like(u)
    cnda.stencil(u, out, taps="5-point")
    assert np.array_equal(out.cpu().numpy(), cnda.stencil(u.cpu().numpy(), taps="5-point"))


def test_device_refusals_say_what_why_and_how_to_fix():
    du = cnda.to_cuda(np.zeros((8, 8)))
    cases = [
        (TypeError, "u is in CUDA memory and out is a", lambda: cnda.stencil(du, np.zeros((8, 8)))),
        (ValueError, "out and u overlap", lambda: cnda.stencil(du, du)),
        (TypeError, "stencils run in float32 or float64", lambda: cnda.stencil(cnda.to_cuda(np.zeros((8, 8), np.int32)))),
        (TypeError, "not of u's element type", lambda: cnda.stencil(du, cnda.to_cuda(np.zeros((8, 8), np.float32)))),
        (ValueError, "shape", lambda: cnda.stencil(du, cnda.to_cuda(np.zeros((8, 9))))),
        (TypeError, "coeffs must be a list of CUDA arrays", lambda: cnda.stencil(du, taps=[(0, 1)], coeffs=[np.zeros((8, 8))])),
        (ValueError, "2 coefficient fields for 1 taps", lambda: cnda.stencil(du, taps=[(0, 1)], coeffs=[du, du])),
        (ValueError, "fewer than the 3", lambda: cnda.stencil(cnda.to_cuda(np.zeros((2, 8))))),
    ]
    for kind, message, call in cases:
        with pytest.raises(kind, match=message):
            call()
