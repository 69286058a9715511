"""CuPy's figures for the cases of `benches/devices.rs`, on the same shapes and in the same units,
for the CUDA issue's comparisons (run on the GPU machine, where CuPy is installed, right after
the Rust bench):

    python3 benches/cupy_devices.py [N] [REPEATS] [M]

N x N grids (and a cube of about as many points) in float32 and float64: a device-to-device copy
(the baseline), add (same shape, and with a broadcast row), `ascontiguousarray` of the transpose,
`sum`, the 2D Jacobi sweep as NumPy-style slicing (`0.25*(u[:-2,1:-1]+u[2:,1:-1]+u[1:-1,:-2]+
u[1:-1,2:])`, which makes temporaries), the 3D 7-point one likewise, a scalar multiply; then
`matmul` of M x M matrices and the host-device transfers of the float32 grid (pageable NumPy
memory and pinned memory). Then the linear solvers' cases of `benches/devices/solve.rs`
(`SOLVE2`, `SOLVE3` set the sizes as there): CG iterations on the 2D Poisson problem by
`cupyx.scipy.sparse.linalg.cg` on the 5-point matrix in CSR (cuSPARSE's products), and the
product of the 7-point 3D Laplacian in CSR with a vector. Last the transforms of
`benches/devices/fft.rs` (`xp.fft.fftn` and `rfftn`: cuFFT through CuPy's plan cache; `--fft`:
those alone; `FFT2`, `FFT3` set the sizes as there). Without CuPy (`--numpy`, or when it is missing) the same cases run on
NumPy, to check the script itself.
"""

import inspect
import os
import statistics
import sys
import time

try:
    import cupy as xp

    GPU = "--numpy" not in sys.argv
except ImportError:
    GPU = False
if not GPU:
    import numpy as xp
import numpy as np


def sync():
    if GPU:
        xp.cuda.Stream.null.synchronize()


def median(repeats, f):
    """Median seconds of `repeats` runs of `f` after a warm-up, each synchronized."""
    f()
    sync()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bandwidth(dtype, n, repeats):
    size = np.dtype(dtype).itemsize
    i, j = np.indices((n, n))
    a = xp.asarray(((i * 31 + j * 17) % 101 * 0.01).astype(dtype))
    v = a.copy()
    row = xp.arange(n, dtype=dtype)
    m = round((n * n) ** (1 / 3))
    x, y, z = np.indices((m, m, m))
    cube = xp.asarray(((x + 3 * y + 7 * z) % 13).astype(dtype))
    quarter, sixth = dtype(0.25), dtype(1 / 6)

    def jacobi():
        v[1:-1, 1:-1] = quarter * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])

    cube_out = cube.copy()

    def jacobi_3d():
        c = cube
        cube_out[1:-1, 1:-1, 1:-1] = sixth * (
            c[:-2, 1:-1, 1:-1] + c[2:, 1:-1, 1:-1] + c[1:-1, :-2, 1:-1]
            + c[1:-1, 2:, 1:-1] + c[1:-1, 1:-1, :-2] + c[1:-1, 1:-1, 2:]
        )

    bytes_ = n * n * size
    copy = median(repeats, lambda: a.copy())
    cases = [
        ("copy into an existing array", 2 * bytes_, median(repeats, lambda: xp.copyto(v, a))),
        ("add, same shape (contiguous)", 3 * bytes_, median(repeats, lambda: a + v)),
        ("add, broadcast row", 2 * bytes_, median(repeats, lambda: a + row)),
        ("contiguous() of the transpose", 2 * bytes_, median(repeats, lambda: xp.ascontiguousarray(a.T))),
        ("sum", bytes_, median(repeats, lambda: float(a.sum()))),
        ("2D 5-point Jacobi sweep", 2 * bytes_, median(repeats, jacobi)),
        ("3D 7-point Jacobi sweep", 2 * m**3 * size, median(repeats, jacobi_3d)),
        ("scalar multiply", 2 * bytes_, median(repeats, lambda: a * dtype(0.5))),
    ]
    where = "CuPy " + xp.__version__ if GPU else "NumPy " + np.__version__ + " (script check)"
    print(f"{where}: {n} x {n} {np.dtype(dtype).name} (cube {m}^3), median of {repeats}")
    rate = 2 * bytes_ / copy
    print(f"  {'copy (device to device)':<32} {copy * 1e3:>9.3f} ms  {rate / 1e9:>8.1f} GB/s  (baseline)")
    for what, moved, t in cases:
        r = moved / t
        print(f"  {what:<32} {t * 1e3:>9.3f} ms  {r / 1e9:>8.1f} GB/s  {r / rate:>5.2f} of copy")


def time_steps(dtype, n, repeats, k=8):
    """The heat step of the devices bench's `stencil!` case (`u + a*c*(laplacian)`), k sweeps
    with swaps, as a CuPy user writes it with slicing."""
    size = np.dtype(dtype).itemsize
    i, j = np.indices((n, n))
    u = xp.asarray(((i * 31 + j * 17) % 101 * 0.01).astype(dtype))
    v = u.copy()
    c = xp.asarray((0.5 + (i + j) % 3 * 0.1).astype(dtype))
    a, four = dtype(0.2), dtype(4.0)
    pair = [u, v]

    def sweeps():
        for _ in range(k):
            s, d = pair
            d[1:-1, 1:-1] = s[1:-1, 1:-1] + a * c[1:-1, 1:-1] * (
                s[:-2, 1:-1] + s[2:, 1:-1] + s[1:-1, :-2] + s[1:-1, 2:] - four * s[1:-1, 1:-1]
            )
            pair.reverse()

    t = median(repeats, sweeps)
    moved = 3.0 * n * n * k * size
    print(
        f"  {'heat step, slicing, one by one':<32} {t * 1e3:>9.3f} ms  {moved / t / 1e9:>8.1f} GB/s"
        f"  ({k} steps, {n}^2 {np.dtype(dtype).name}, {t / (n * n * k) * 1e9:.2f} ns/point)"
    )


def products(dtype, m, repeats):
    i, j = np.indices((m, m))
    a = xp.asarray(((i * 7 + j * 3) % 11 * 0.1).astype(dtype))
    b = xp.asarray(((i * 5 + j) % 13 * 0.1).astype(dtype))
    flops = 2.0 * m**3
    for what, f in [("matmul", lambda: a @ b), ("matmul, transposed left", lambda: a.T @ b)]:
        t = median(repeats, f)
        print(f"  {what:<32} {t * 1e3:>9.3f} ms  {flops / t / 1e12:>8.2f} TFLOP/s  ({m}^2 {np.dtype(dtype).name})")


def transfers(n, repeats):
    host = (np.indices((n, n)).sum(axis=0) % 101 * 0.01).astype(np.float32)
    bytes_ = host.nbytes
    cases = [("to_device, pageable (cp.asarray)", lambda: xp.asarray(host))]
    if GPU:
        d = xp.asarray(host)
        cases.append(("to_host, pageable (.get())", lambda: d.get()))
        pinned = xp.cuda.alloc_pinned_memory(bytes_)
        staged = np.frombuffer(pinned, np.float32, host.size).reshape(n, n)
        staged[...] = host
        cases.append(("to_device, pinned", lambda: d.set(staged)))
        cases.append(("to_host, pinned", lambda: d.get(out=staged)))
    for what, f in cases:
        t = median(repeats, f)
        print(f"  {what:<32} {t * 1e3:>9.3f} ms  {bytes_ / t / 1e9:>8.1f} GB/s")


def sparse_modules():
    if GPU:
        import cupyx.scipy.sparse as sparse
        import cupyx.scipy.sparse.linalg as linalg
    else:
        import scipy.sparse as sparse
        import scipy.sparse.linalg as linalg
    return sparse, linalg


def laplacian_csr(shape, h, dtype):
    """The (2 d + 1)-point Laplacian on `shape` with zero walls, in CSR, built on the device."""
    sparse, _ = sparse_modules()
    size = int(np.prod(shape))
    idx = xp.arange(size, dtype=xp.int32).reshape(shape)
    rows, cols = [idx.ravel()], [idx.ravel()]
    vals = [xp.full(size, -2.0 * len(shape) / h**2, dtype)]
    for axis in range(len(shape)):
        for here, there in ((slice(0, -1), slice(1, None)), (slice(1, None), slice(0, -1))):
            a, b = [slice(None)] * len(shape), [slice(None)] * len(shape)
            a[axis], b[axis] = here, there
            rows.append(idx[tuple(a)].ravel())
            cols.append(idx[tuple(b)].ravel())
            vals.append(xp.full(rows[-1].size, 1.0 / h**2, dtype))
    coo = sparse.coo_matrix((xp.concatenate(vals), (xp.concatenate(rows), xp.concatenate(cols))), shape=(size, size))
    return coo.tocsr()


def sizes(var, default):
    return [int(s) for s in os.environ.get(var, default).split()]


def solvers(dtype, repeats):
    """CG iterations (2D Poisson, CSR) and CSR products (3D 7-point), as devices/solve.rs."""
    _, linalg = sparse_modules()
    t = np.dtype(dtype).name
    tolerance = "rtol" if "rtol" in inspect.signature(linalg.cg).parameters else "tol"
    iterations = 50
    for n in sizes("SOLVE2", "4096"):
        a = laplacian_csr((n, n), 1.0 / (n + 1), dtype)
        i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        b = xp.asarray(((i * 7 + j * 3) % 11 - 5.0).astype(dtype).ravel())
        x0 = xp.zeros(n * n, dtype)
        s = median(min(repeats, 7), lambda: linalg.cg(a, b, x0=x0, maxiter=iterations, atol=0.0, **{tolerance: 0.0}))
        s /= iterations
        print(f"  {'CG iteration, 2D Poisson (CSR)':<32} {s * 1e3:>9.3f} ms  {n * n / s / 1e9:>8.1f} GPts/s  ({n}^2 {t})")
    for n in sizes("SOLVE3", "127 255"):
        a = laplacian_csr((n, n, n), 1.0 / (n + 1), dtype)
        rows = n**3
        x = xp.asarray(((np.arange(rows) * 37) % 101 / 50.0 - 1.0).astype(dtype))
        s = median(repeats, lambda: a @ x)
        size = np.dtype(dtype).itemsize
        moved = a.nnz * (size + 4) + (rows + 1) * 4 + 2 * rows * size
        print(
            f"  {'CSR product (7-point)':<32} {s * 1e3:>9.3f} ms  {moved / s / 1e9:>8.1f} GB/s"
            f"  ({n}^3 rows, {a.nnz} nonzeros, {t})"
        )


def transforms(repeats):
    """`fftn` over every axis of the 2D and 3D grids of `benches/devices/fft.rs`, forward."""
    where = "CuPy" if GPU else "NumPy"
    print(f"{where}: fftn over every axis, forward (median of {repeats})")
    planes, cubes = sizes("FFT2", "4096 2187 2100"), sizes("FFT3", "256 243 210")
    cases = [((n, n), np.complex64) for n in planes] + [((n, n, n), np.complex64) for n in cubes]
    n, m = planes[0], cubes[0]
    cases += [((n, n), np.complex128), ((m, m, m), np.complex128), ((n, n), np.float32), ((m, m, m), np.float32)]
    for shape, dtype in cases:
        size = int(np.prod(shape))
        k = np.arange(size)
        re = ((k * 7919 + 13) % 1009) / 1009.0 - 0.5
        if np.dtype(dtype).kind == "c":
            im = (((k + size) * 7919 + 13) % 1009) / 1009.0 - 0.5
            x = xp.asarray((re + 1j * im).astype(dtype).reshape(shape))
            op, name = xp.fft.fftn, f"fftn c{8 * np.dtype(dtype).itemsize}"
        else:
            x = xp.asarray(re.astype(dtype).reshape(shape))
            op, name = xp.fft.rfftn, "rfftn f32"
        s = median(repeats, lambda: op(x))
        what = f"{name} {'x'.join(map(str, shape))}"
        print(f"  {what:<32} {s * 1e3:>9.3f} ms  {size / s / 1e9:>8.2f} GPts/s")


def main():
    args = [int(a) for a in sys.argv[1:] if a.isdigit()]
    n = args[0] if args else 4096
    repeats = args[1] if len(args) > 1 else 11
    m = args[2] if len(args) > 2 else 1024
    if "--fft" in sys.argv:
        return transforms(repeats)
    for dtype in (np.float32, np.float64):
        bandwidth(dtype, n, repeats)
    for dtype in (np.float32, np.float64):
        time_steps(dtype, n, repeats)
    for dtype in (np.float32, np.float64):
        products(dtype, m, repeats)
    transfers(n, repeats)
    for dtype in (np.float32, np.float64):
        solvers(dtype, repeats)
    transforms(repeats)


if __name__ == "__main__":
    main()
