"""`cnda.fft.solve_box` in CUDA memory (f a CudaArray, or a DLPack producer on a CUDA device such
as CuPy or PyTorch): periodic, walled and mirrored axes solved on the
device through cuFFT, a CudaArray back that agrees with the host's solve; the refusals. Runs on a
GPU or on the CPU-hosted CUDA device (scripts/test); skips without one."""

import numpy as np
import pytest

import cnda
import cnda.fft

HAS_GPU = cnda.cuda_device_count() > 0
pytestmark = pytest.mark.skipif(not HAS_GPU, reason="no CUDA device")


class Producer:
    """A DLPack producer on CUDA device 0, as CuPy and PyTorch tensors are."""

    def __init__(self, array):
        self.array = array

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)


@pytest.mark.parametrize("shape", [(16,), (12, 10), (6, 5, 8)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shift,laplacian", [(0.0, "second_order"), (2.5, "spectral")])
@pytest.mark.parametrize("kinds", ["periodic", "mixed"])
def test_solves_on_the_device_match_the_host(shape, dtype, shift, laplacian, kinds):
    rng = np.random.default_rng(len(shape))
    f = rng.standard_normal(shape).astype(dtype)
    h = [0.1, 0.25, 0.5][: len(shape)]
    walls = 0.0 if laplacian == "spectral" else 0.75
    boundary = "periodic" if kinds == "periodic" else [walls, "neumann", "periodic"][: len(shape)]
    want = cnda.fft.solve_box(f, spacing=h, shift=shift, boundary=boundary, laplacian=laplacian)
    got = cnda.fft.solve_box(cnda.to_cuda(f), spacing=h, shift=shift, boundary=boundary, laplacian=laplacian)
    assert isinstance(got, cnda.CudaArray)
    host = got.to_numpy()
    assert host.shape == want.shape and host.dtype == want.dtype
    tol = 1e-4 if dtype == np.float32 else 1e-11
    assert np.abs(host - want).max() <= tol * np.abs(want).max()


def test_a_dlpack_producer_is_solved_on_the_device_and_refusals():
    f = np.cos(np.linspace(0, 2 * np.pi, 32, endpoint=False))[:, None] * np.ones((1, 8))
    got = cnda.fft.solve_box(Producer(cnda.to_cuda(f)), spacing=1 / 32, shift=1.0, boundary="periodic")
    want = cnda.fft.solve_box(f, spacing=1 / 32, shift=1.0, boundary="periodic")
    assert np.abs(got.to_numpy() - want).max() <= 1e-12
    with pytest.raises(ValueError, match="one kind"):
        cnda.fft.solve_box(cnda.to_cuda(f), boundary=[("periodic", "neumann"), "periodic"])
    with pytest.raises(ValueError, match="singular"):
        cnda.fft.solve_box(cnda.to_cuda(f), shift=-4 * np.sin(np.pi / 32) ** 2, boundary="periodic")
