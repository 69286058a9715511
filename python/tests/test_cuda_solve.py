"""`cnda.solve` in CUDA memory (b a CudaArray, or a DLPack producer on a CUDA device such as CuPy
or PyTorch, imported without a copy): the solve runs on the device and returns a CudaArray that
agrees with the same solve on the host to the tolerance (device reductions add in another
order); every operator form (stencil, conductivity from either memory, SciPy matrix), the methods
CG, BiCGSTAB, GMRES and multigrid with each preconditioner, a guess from either memory, and the
refusals. Runs on a GPU or on the CPU-hosted
CUDA device (scripts/test); skips without one."""

import numpy as np
import pytest

import cnda

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


def rhs(shape, dtype=np.float64):
    return (np.arange(np.prod(shape)).reshape(shape) * 7 % 11 - 4.5).astype(dtype)


def close(device, host, rtol):
    assert isinstance(device, cnda.CudaArray)
    got = device.to_numpy()
    assert got.shape == host.shape and got.dtype == host.dtype
    assert np.abs(got - host).max() <= 100 * rtol * np.abs(host).max(), np.abs(got - host).max()


@pytest.mark.parametrize(
    "method, preconditioner",
    [("cg", None), ("cg", "jacobi"), ("cg", "multigrid"), ("bicgstab", None), ("gmres", "jacobi"), ("multigrid", None)],
)
@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-10), (np.float32, 1e-5)])
def test_a_stencil_solves_on_the_device_as_on_the_host(method, preconditioner, dtype, rtol):
    shape, h = (15, 31), 1.0 / 16
    b = rhs(shape, dtype)
    kwargs = dict(laplacian=True, h=h, method=method, preconditioner=preconditioner, rtol=rtol)
    x, info = cnda.solve(cnda.to_cuda(b), **kwargs)
    y, host = cnda.solve(b, **kwargs)
    close(x, y, rtol)
    # The same iterations but for the dot products' rounding (device reductions add in another
    # order), which BiCGSTAB's erratic convergence amplifies most.
    assert info["method"] == method, (info, host)
    assert abs(info["iterations"] - host["iterations"]) <= 1 + 0.15 * host["iterations"], (info, host)
    assert info["residual_history"][-1] <= info["threshold"]


def test_3d_periodic_and_a_dlpack_producer():
    shape = (8, 8, 8)
    b = rhs(shape)
    b -= b.mean()  # periodic: the operator is singular, b must sum to zero
    kwargs = dict(laplacian=True, boundary="periodic", preconditioner="multigrid", rtol=1e-10)
    x, _ = cnda.solve(Producer(cnda.to_cuda(b)), **kwargs)
    y, _ = cnda.solve(b, **kwargs)
    close(x, y - y.mean() + x.to_numpy().mean(), 1e-10)


def test_a_conductivity_from_either_memory_and_a_guess():
    n, h = 31, 1.0 / 32
    k = np.fromfunction(lambda i, j: 1.0 + 99.0 * ((i // 8 + j // 8) % 2), (n, n))
    b = rhs((n, n))
    kwargs = dict(h=h, shift=3.0, preconditioner="multigrid", rtol=1e-10)
    y, host = cnda.solve(b, conductivity=k, **kwargs)
    for conductivity in (k, cnda.to_cuda(k)):
        x, info = cnda.solve(cnda.to_cuda(b), conductivity=conductivity, **kwargs)
        close(x, y, 1e-10)
        assert info["iterations"] <= host["iterations"] + 1
    # From the solution as the guess (either memory), no iteration is needed.
    for guess in (y, cnda.to_cuda(y)):
        _, info = cnda.solve(cnda.to_cuda(b), conductivity=k, x0=guess, **kwargs)
        assert info["iterations"] <= 1, info


def test_a_scipy_matrix_acts_on_the_device():
    sp = pytest.importorskip("scipy.sparse")
    n = 20
    second = sp.diags([np.ones(n - 1), -2.0 * np.ones(n), np.ones(n - 1)], [-1, 0, 1])
    a = (-(sp.kron(second, sp.identity(n)) + sp.kron(sp.identity(n), second))).tocsr()
    b = rhs((n, n))
    x, _ = cnda.solve(cnda.to_cuda(b), matrix=a, preconditioner="jacobi", rtol=1e-10)
    y, _ = cnda.solve(b, matrix=a, preconditioner="jacobi", rtol=1e-10)
    close(x, y, 1e-10)


def test_refusals_on_the_device_say_what_to_do():
    b = cnda.to_cuda(rhs((7, 7)))
    with pytest.raises(TypeError, match="float32 or float64"):
        cnda.solve(cnda.to_cuda(np.ones((7, 7), np.int32)), laplacian=True)
    with pytest.raises(TypeError, match="b's element type"):
        cnda.solve(b, conductivity=cnda.to_cuda(np.ones((7, 7), np.float32)))
    with pytest.raises(ValueError, match="shape"):
        cnda.solve(b, laplacian=True, x0=cnda.to_cuda(np.zeros((7, 8))))
    with pytest.raises(ValueError, match="dimensions"):
        cnda.solve(b, laplacian=True, x0=cnda.to_cuda(np.zeros(49)))
    with pytest.raises(RuntimeError, match="no convergence"):
        cnda.solve(b, laplacian=True, max_iters=2)
    with pytest.raises(ValueError, match="dimensions"):
        cnda.solve(cnda.to_cuda(np.ones((2, 2, 2, 2))), laplacian=True)
