"""cnda.fft against NumPy's numpy.fft and SciPy's scipy.fft: a differential test over random
shapes, axes, norms, dtypes, strides, crops and pads and lengths with large prime factors; round
trips; Parseval; solve_box against the operator applied by NumPy; the refusals."""

import numpy as np
import pytest

import cnda
import cnda.fft

scipy_fft = pytest.importorskip("scipy.fft")

NORMS = [None, "backward", "ortho", "forward"]
# Lengths with large prime factors, powers of two, and mixed radices.
LENGTHS = [1, 2, 5, 8, 12, 97, 101 * 2, 3 * 5 * 7, 64]


def tolerance(dtype):
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-11


def close(got, want, dtype):
    scale = max(1.0, float(np.max(np.abs(want))) if np.size(want) else 1.0)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=0, atol=tolerance(dtype) * scale)


def sample(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def random_case(rng):
    rank = int(rng.integers(1, 5))
    shape = tuple(int(rng.choice(LENGTHS if rank == 1 else [1, 2, 3, 5, 8, 11, 13])) for _ in range(rank))
    return rank, shape


@pytest.mark.parametrize("seed", range(40))
def test_complex_transforms_match_numpy(seed):
    rng = np.random.default_rng(seed)
    rank, shape = random_case(rng)
    # Drawn independently, so that every dtype meets every norm across the seeds.
    dtype = [np.float32, np.float64, np.complex64, np.complex128][int(rng.integers(4))]
    a = sample(rng, shape, dtype)
    # A strided view half the time: every other point of a larger array.
    if rng.integers(2):
        big = sample(rng, tuple(2 * n for n in shape), dtype)
        a = big[tuple(slice(None, None, 2) for _ in shape)]
    norm = NORMS[int(rng.integers(4))]
    axis = int(rng.integers(-rank, rank))
    n = None if seed % 3 else int(rng.choice([1, 7, 16, 31]))
    for ours, theirs in [(cnda.fft.fft, np.fft.fft), (cnda.fft.ifft, np.fft.ifft)]:
        got = ours(a, n=n, axis=axis, norm=norm)
        close(got, theirs(a.astype(np.complex128), n=n, axis=axis, norm=norm), dtype)
        assert got.dtype == (np.complex64 if np.dtype(dtype) in (np.float32, np.complex64) else np.complex128)
    axes = list(rng.permutation(rank)[: int(rng.integers(1, rank + 1))])
    s = None if seed % 5 else [int(rng.choice([-1, 2, 3, 9])) for _ in axes]
    for ours, theirs in [(cnda.fft.fftn, np.fft.fftn), (cnda.fft.ifftn, np.fft.ifftn)]:
        close(ours(a, s=s, axes=axes, norm=norm), theirs(a.astype(np.complex128), s=s, axes=axes, norm=norm), dtype)


@pytest.mark.parametrize("seed", range(40))
def test_real_transforms_match_numpy(seed):
    rng = np.random.default_rng(100 + seed)
    rank, shape = random_case(rng)
    dtype = [np.float32, np.float64][int(rng.integers(2))]
    a = sample(rng, shape, dtype)
    if seed % 3 == 0:
        a = np.swapaxes(sample(rng, shape[::-1], dtype), 0, rank - 1) if rank > 1 else a[::-1]
    norm = NORMS[int(rng.integers(4))]
    axis = int(rng.integers(-rank, rank))
    n = None if seed % 4 else int(rng.choice([3, 8, 13]))
    half = cnda.fft.rfft(a, n=n, axis=axis, norm=norm)
    close(half, np.fft.rfft(a.astype(np.float64), n=n, axis=axis, norm=norm), dtype)
    m = n or a.shape[axis]
    back = cnda.fft.irfft(half, n=m, axis=axis, norm=norm)
    close(back, np.fft.irfft(np.fft.rfft(a.astype(np.float64), n=n, axis=axis, norm=norm), n=m, axis=axis, norm=norm), dtype)
    assert back.dtype == dtype
    if half.shape[axis] > 1:
        # irfft's default length, 2 (m - 1).
        close(cnda.fft.irfft(half, axis=axis, norm=norm), np.fft.irfft(half.astype(np.complex128), axis=axis, norm=norm), dtype)
    axes = list(rng.permutation(rank)[: int(rng.integers(1, rank + 1))])
    spectrum = cnda.fft.rfftn(a, axes=axes, norm=norm)
    close(spectrum, np.fft.rfftn(a.astype(np.float64), axes=axes, norm=norm), dtype)
    s = [a.shape[k] for k in axes]
    close(cnda.fft.irfftn(spectrum, s=s, axes=axes, norm=norm), a, dtype)
    # Lengths other than the input's: crops and zero pads, an odd last length, -1 for the input's.
    s = [int(rng.choice([-1, 1, 4, 7])) for _ in axes]
    real64 = a.astype(np.float64)
    close(cnda.fft.rfftn(a, s=s, axes=axes, norm=norm), np.fft.rfftn(real64, s=s, axes=axes, norm=norm), dtype)
    spectrum64 = np.fft.rfftn(real64, axes=axes)
    close(
        cnda.fft.irfftn(spectrum64.astype(half.dtype), s=s, axes=axes, norm=norm),
        np.fft.irfftn(spectrum64, s=s, axes=axes, norm=norm),
        dtype,
    )


def test_two_dimensional_forms_and_frequencies():
    rng = np.random.default_rng(7)
    a = sample(rng, (3, 10, 12), np.complex128)
    close(cnda.fft.fft2(a), np.fft.fft2(a), np.float64)
    close(cnda.fft.ifft2(a, s=(5, 6)), np.fft.ifft2(a, s=(5, 6)), np.float64)
    r = a.real.copy()
    close(cnda.fft.rfft2(r, norm="ortho"), np.fft.rfft2(r, norm="ortho"), np.float64)
    close(cnda.fft.irfft2(cnda.fft.rfft2(r), s=(10, 12)), r, np.float64)
    for n in [1, 8, 9]:
        np.testing.assert_array_equal(cnda.fft.fftfreq(n, 0.1), np.fft.fftfreq(n, 0.1))
        np.testing.assert_array_equal(cnda.fft.rfftfreq(n, 0.1), np.fft.rfftfreq(n, 0.1))
    # Lists and integers as NumPy takes them.
    close(cnda.fft.fft([1, 2, 3, 4]), np.fft.fft([1, 2, 3, 4]), np.float64)


@pytest.mark.parametrize("seed", range(32))
def test_cosine_and_sine_transforms_match_scipy(seed):
    rng = np.random.default_rng(200 + seed)
    rank, shape = random_case(rng)
    dtype = [np.float32, np.float64][int(rng.integers(2))]
    a = sample(rng, shape, dtype)
    if seed % 3 == 1:
        a = sample(rng, tuple(2 * k for k in shape), dtype)[tuple(slice(1, None, 2) for _ in shape)]
    kind = 1 + seed % 4
    norm = NORMS[int(rng.integers(4))]
    axis = int(rng.integers(-rank, rank))
    n = None if seed % 5 else int(rng.choice([2, 6, 17]))
    length = n or a.shape[axis]
    for ours, theirs in [
        (cnda.fft.dct, scipy_fft.dct),
        (cnda.fft.idct, scipy_fft.idct),
        (cnda.fft.dst, scipy_fft.dst),
        (cnda.fft.idst, scipy_fft.idst),
    ]:
        if kind == 1 and length == 1 and ours in (cnda.fft.dct, cnda.fft.idct):
            with pytest.raises(ValueError):
                ours(a, type=kind, n=n, axis=axis, norm=norm)
            continue
        got = ours(a, type=kind, n=n, axis=axis, norm=norm)
        close(got, theirs(a.astype(np.float64), type=kind, n=n, axis=axis, norm=norm), dtype)
        assert got.dtype == dtype
    axes = list(rng.permutation(rank)[: int(rng.integers(1, rank + 1))])
    if kind == 1 and any(a.shape[k] == 1 for k in axes):
        return
    for ours, theirs in [(cnda.fft.dctn, scipy_fft.dctn), (cnda.fft.dstn, scipy_fft.dstn)]:
        y = ours(a, type=kind, axes=axes, norm=norm)
        close(y, theirs(a.astype(np.float64), type=kind, axes=axes, norm=norm), dtype)
    close(cnda.fft.idctn(cnda.fft.dctn(a, type=kind, axes=axes, norm=norm), type=kind, axes=axes, norm=norm), a, dtype)
    close(cnda.fft.idstn(cnda.fft.dstn(a, type=kind, axes=axes, norm=norm), type=kind, axes=axes, norm=norm), a, dtype)
    # Crops and zero pads of the input (-1 keeps an axis's length).
    s = [int(rng.choice([-1, 2, 5, 9])) for _ in axes]
    for ours, theirs in [
        (cnda.fft.dctn, scipy_fft.dctn),
        (cnda.fft.idctn, scipy_fft.idctn),
        (cnda.fft.dstn, scipy_fft.dstn),
        (cnda.fft.idstn, scipy_fft.idstn),
    ]:
        close(ours(a, type=kind, s=s, axes=axes, norm=norm), theirs(a.astype(np.float64), type=kind, s=s, axes=axes, norm=norm), dtype)


def test_parseval_and_ortho_round_trips():
    rng = np.random.default_rng(3)
    a = sample(rng, (17, 2 * 101), np.complex128)
    y = cnda.fft.fftn(a, norm="ortho")
    assert abs(np.sum(np.abs(y) ** 2) - np.sum(np.abs(a) ** 2)) < 1e-10 * np.sum(np.abs(a) ** 2)
    close(cnda.fft.ifftn(y, norm="ortho"), a, np.float64)


def apply_box(u, h, shift, kinds):
    """shift u - Laplacian(u), second order, the points past the ends as kinds say ("periodic",
    "neumann" or a wall value), by NumPy."""
    out = shift * u
    for axis, kind in enumerate(kinds):
        if kind == "periodic":
            lo, hi = np.roll(u, 1, axis), np.roll(u, -1, axis)
        else:
            edge = "edge" if kind == "neumann" else "constant"
            width = [(1, 1) if k == axis else (0, 0) for k in range(u.ndim)]
            padded = np.pad(u, width, mode=edge, **({} if kind == "neumann" else {"constant_values": kind}))
            lo = np.take(padded, range(0, u.shape[axis]), axis)
            hi = np.take(padded, range(2, u.shape[axis] + 2), axis)
        out = out - (lo - 2 * u + hi) / h[axis] ** 2
    return out


@pytest.mark.parametrize("kinds,shift", [
    (("periodic", "neumann"), 1.0),
    ((0.5, "periodic"), 0.0),
    (("neumann", -2.0, "periodic"), 0.0),
])
def test_solve_box_inverts_the_operator(kinds, shift):
    rng = np.random.default_rng(11)
    shape = (12, 9, 7)[: len(kinds)]
    h = (0.1, 0.25, 0.5)[: len(kinds)]
    u = rng.standard_normal(shape)
    f = apply_box(u, h, shift, kinds)
    solved = cnda.fft.solve_box(f, spacing=h, shift=shift, boundary=list(kinds))
    np.testing.assert_allclose(solved, u, atol=1e-10 * np.max(np.abs(u)))


def test_refusals_say_what_and_how():
    a = np.ones((4, 6))
    with pytest.raises(ValueError, match="norm"):
        cnda.fft.fft(a, norm="unitary")
    with pytest.raises(TypeError, match="real"):
        cnda.fft.rfft(a + 1j)
    with pytest.raises(ValueError, match="type=5"):
        cnda.fft.dct(a, type=5)
    with pytest.raises(ValueError, match="n=0"):
        cnda.fft.fft(a, n=0)
    # NumPy's AxisError, both an IndexError and a ValueError.
    with pytest.raises(np.exceptions.AxisError, match="axis 2"):
        cnda.fft.fft(a, axis=2)
    with pytest.raises(ValueError, match="axis -3"):
        cnda.fft.rfftn(a, axes=[-3])
    with pytest.raises(ValueError, match=r"s\[0\]=-2"):
        cnda.fft.fftn(a, s=[-2, 3])
    with pytest.raises(ValueError, match="each once"):
        cnda.fft.fftn(a, axes=[1, -1])
    with pytest.raises(ValueError, match="one kind"):
        cnda.fft.solve_box(a, boundary=[("periodic", "neumann"), "neumann"])
    with pytest.raises(ValueError, match="laplacian"):
        cnda.fft.solve_box(a, laplacian="fourth_order")
    with pytest.raises(ValueError, match="dimensions"):
        cnda.fft.fft(np.ones((1, 1, 1, 1, 2)))
