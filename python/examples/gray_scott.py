"""Gray-Scott reaction-diffusion from Python: the model written once as text in Rust's
`stencil!` language (`cnda.Stencil`, compiled for this CPU at first use), stepped on NumPy arrays
with periodic sides (fused passes over memory, all cores, the interpreter lock released), and the
pattern saved as a PNG (`pngfile.py`: zlib only, no imaging library needed).

`python python/examples/gray_scott.py [N] [STEPS] [OUT.png]` (defaults 256, 4000, gray_scott.png).
"""

import pathlib
import sys
import time

import numpy as np

import cnda

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from pngfile import png  # noqa: E402  (beside this file)

GRAY_SCOTT = cnda.Stencil("""|u, v; du, dv, f, k| {
    let uvv = u[0, 0] * v[0, 0] * v[0, 0];
    (
        u[0, 0] + du * laplace(u, 2) - uvv + f * (1.0 - u[0, 0]),
        v[0, 0] + dv * laplace(v, 2) + uvv - (f + k) * v[0, 0],
    )
}""")

PARAMS = dict(du=0.16, dv=0.08, f=0.035, k=0.065)


def initial(n):
    """Both species with a one-cell halo around n x n: rest (u = 1, v = 0) with a seeded square."""
    u, v = np.ones((n + 2, n + 2)), np.zeros((n + 2, n + 2))
    square = slice(n // 2 - n // 10, n // 2 + n // 10)
    u[square, square], v[square, square] = 0.5, 0.25
    v += 0.01 * np.random.default_rng(0).random(v.shape)
    return u, v


def run(n, steps):
    u, v = initial(n)
    GRAY_SCOTT.steps(u, v, steps=steps, boundary="periodic", **PARAMS)
    return u, v


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
    path = sys.argv[3] if len(sys.argv) > 3 else "gray_scott.png"
    start = time.perf_counter()
    u, v = run(n, steps)
    seconds = time.perf_counter() - start
    print(f"{n}x{n}, {steps} steps in {seconds:.2f} s ({n * n * steps / seconds / 1e9:.2f} Gpoint-steps/s); v in [{v.min():.3f}, {v.max():.3f}]")
    png(path, v[1:-1, 1:-1] / max(v.max(), 1e-12))
    print(f"wrote {path}")
