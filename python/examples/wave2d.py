"""A 2D acoustic wave from Python: one shot over two layers, a Ricker wavelet injected near the
top and a line of receivers recording it, the scheme written once as text in Rust's `stencil!`
language (`cnda.Stencil`: the 4th-order Laplacian, two time levels), the sources and receivers
fused with the steps. The whole grid is stepped (`whole=True`) between mirrored walls. Saves the
last wavefield and the shot record (receivers across, time down) as PNGs (`pngfile.py`).

`python python/examples/wave2d.py [N] [STEPS] [WAVE.png] [RECORD.png]` (defaults 301, 1600,
wave2d.png, wave2d_record.png).
"""

import pathlib
import sys
import time

import numpy as np

import cnda

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from pngfile import png  # noqa: E402  (beside this file)

WAVE = cnda.Stencil("#[levels(2)] |u, u_prev, m; c| 2.0 * u[0, 0] - u_prev[0, 0] + c * m[0, 0] * laplace(u, 4)")

SPACING = 10.0  # metres between grid points
PEAK = 12.0  # the wavelet's peak frequency, Hz


def model(n):
    """Squared velocity (m/s)^2: 1500 above half the depth, 2500 below."""
    v = np.full((n, n), 1500.0)
    v[n // 2 :] = 2500.0
    return v * v


def ricker(steps, dt):
    """The Ricker wavelet of peak frequency PEAK, sampled every dt, delayed by one period."""
    t = np.arange(steps) * dt - 1.0 / PEAK
    a = (np.pi * PEAK * t) ** 2
    return (1.0 - 2.0 * a) * np.exp(-a)


def setup(n, steps):
    """The shot: squared velocities, time step, the scaled source series, source and receivers."""
    m = model(n)
    dt = 0.4 * SPACING / np.sqrt(m.max())
    source = (5.0, float(n // 2))
    series = (ricker(steps, dt) * dt * dt * m[5, n // 2])[:, None]
    receivers = np.array([[3.0, float(x)] for x in range(4, n - 4, 2)])
    return m, dt, source, series, receivers


def run(n, steps):
    """The wavefield after `steps` steps and the record (steps x receivers)."""
    m, dt, source, series, receivers = setup(n, steps)
    u, u_prev = np.zeros((n, n)), np.zeros((n, n))
    record = WAVE.steps(u, u_prev, m, steps=steps, boundary="neumann", whole=True, c=dt * dt / SPACING**2,
                        sources=("u", source, series), receivers=("u", receivers))
    return u, record


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 301
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1600
    wave_path = sys.argv[3] if len(sys.argv) > 3 else "wave2d.png"
    record_path = sys.argv[4] if len(sys.argv) > 4 else "wave2d_record.png"
    start = time.perf_counter()
    u, record = run(n, steps)
    seconds = time.perf_counter() - start
    print(f"{n}x{n}, {steps} steps, {record.shape[1]} receivers in {seconds:.2f} s "
          f"({n * n * steps / seconds / 1e9:.2f} Gpoint-steps/s)")
    # Grey is zero; the record's amplitudes clipped at a tenth of its peak to show the reflection.
    png(wave_path, 0.5 + 0.5 * u / max(np.abs(u).max(), 1e-30))
    png(record_path, 0.5 + 5.0 * record / max(np.abs(record).max(), 1e-30))
    print(f"wrote {wave_path} and {record_path}")
