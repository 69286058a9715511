"""`cnda.fft` in CUDA memory (a CudaArray, or a DLPack producer on a CUDA device such as CuPy or
PyTorch): the transforms against NumPy's and SciPy's over random shapes, axes, norms, dtypes,
crops and pads (real arrays promoted on the device), round trips, a CudaArray back of NumPy's
dtype; solve_box with periodic, walled and mirrored axes solved on the device through cuFFT,
against the host's solve; the refusals. Runs on a GPU or on the CPU-hosted CUDA device
(scripts/test); skips without one."""

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


# The transforms of NumPy's numpy.fft and SciPy's scipy.fft on CUDA arrays: the same calls as on
# NumPy arrays (n and s crop or pad on the device, real arrays promoted there), a CudaArray back.

NORMS = [None, "ortho", "forward"]


def sample(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def close(got, want, dtype):
    assert isinstance(got, cnda.CudaArray)
    host = got.to_numpy()
    assert host.shape == want.shape, (host.shape, want.shape)
    single = np.dtype(dtype) in (np.float32, np.complex64)
    assert host.dtype.char in ("F", "f") if single else host.dtype.char in ("D", "d")
    scale = max(1.0, float(np.max(np.abs(want))) if np.size(want) else 1.0)
    np.testing.assert_allclose(host, want, rtol=0, atol=(2e-4 if single else 1e-11) * scale)


@pytest.mark.parametrize("seed", range(12))
def test_transforms_of_cuda_arrays_match_numpy(seed):
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 4))
    shape = tuple(int(rng.choice([1, 2, 5, 8, 12, 97])) for _ in range(rank))
    dtype = [np.float32, np.float64, np.complex64, np.complex128][seed % 4]
    a = sample(rng, shape, dtype)
    d = cnda.to_cuda(a)
    norm = NORMS[seed % 3]
    axis = int(rng.integers(-rank, rank))
    n = None if seed % 2 else int(rng.choice([1, 7, 16]))
    wide = a.astype(np.complex128)
    close(cnda.fft.fft(d, n=n, axis=axis, norm=norm), np.fft.fft(wide, n=n, axis=axis, norm=norm), dtype)
    close(cnda.fft.ifft(d, n=n, axis=axis, norm=norm), np.fft.ifft(wide, n=n, axis=axis, norm=norm), dtype)
    axes = [int(k) for k in rng.permutation(rank)[: int(rng.integers(1, rank + 1))]]
    s = None if seed % 3 else [int(rng.choice([2, 3, 9])) for _ in axes]
    close(cnda.fft.fftn(d, s=s, axes=axes, norm=norm), np.fft.fftn(wide, s=s, axes=axes, norm=norm), dtype)
    close(cnda.fft.ifftn(d, s=s, axes=axes, norm=norm), np.fft.ifftn(wide, s=s, axes=axes, norm=norm), dtype)
    if np.dtype(dtype).kind == "f":
        close(cnda.fft.rfft(d, n=n, axis=axis, norm=norm), np.fft.rfft(a.astype(np.float64), n=n, axis=axis, norm=norm), dtype)
        spectrum = cnda.fft.rfftn(d, s=s, axes=axes, norm=norm)
        close(spectrum, np.fft.rfftn(a.astype(np.float64), s=s, axes=axes, norm=norm), dtype)
        back = cnda.fft.irfftn(spectrum, s=s, axes=axes, norm=norm)
        close(back, np.fft.irfftn(np.fft.rfftn(a.astype(np.float64), s=s, axes=axes, norm=norm), s=s, axes=axes, norm=norm), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_two_dimensional_forms_and_the_cosine_and_sine_transforms_on_the_device(dtype):
    scipy_fft = pytest.importorskip("scipy.fft")
    rng = np.random.default_rng(7)
    a = sample(rng, (12, 10), dtype)
    d = cnda.to_cuda(a)
    wide = a.astype(np.float64)
    close(cnda.fft.fft2(d), np.fft.fft2(wide), dtype)
    close(cnda.fft.irfft2(cnda.fft.rfft2(d), s=a.shape), wide, dtype)
    close(cnda.fft.irfft(cnda.fft.rfft(d, axis=0), n=12, axis=0), wide, dtype)
    for ty in (1, 2, 3, 4):
        close(cnda.fft.dctn(d, type=ty, norm="ortho"), scipy_fft.dctn(wide, type=ty, norm="ortho"), dtype)
        close(cnda.fft.dct(d, type=ty, axis=0), scipy_fft.dct(wide, type=ty, axis=0), dtype)
        close(cnda.fft.idctn(d, type=ty), scipy_fft.idctn(wide, type=ty), dtype)
        close(cnda.fft.dstn(d, type=ty, s=(7, 10)), scipy_fft.dstn(wide, type=ty, s=(7, 10)), dtype)
        close(cnda.fft.idst(d, type=ty, axis=1, norm="forward"), scipy_fft.idst(wide, type=ty, axis=1, norm="forward"), dtype)


def test_dlpack_producers_are_transformed_on_the_device_and_refusals():
    rng = np.random.default_rng(3)
    z = sample(rng, (6, 8), np.complex128)
    got = cnda.fft.fft(Producer(cnda.to_cuda(z)), axis=0)
    close(got, np.fft.fft(z, axis=0), np.complex128)
    with pytest.raises(TypeError, match="takes a real array"):
        cnda.fft.rfft(cnda.to_cuda(z))
    with pytest.raises(TypeError, match="int64.*astype"):
        cnda.fft.fft(cnda.to_cuda(np.arange(8)))
    with pytest.raises(ValueError, match="axis"):
        cnda.fft.fft(cnda.to_cuda(z), axis=2)
    with pytest.raises(ValueError, match="type"):
        cnda.fft.dct(cnda.to_cuda(z.real), type=5)
