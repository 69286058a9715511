"""python/examples/heat2d.py converges to what the same sweeps in NumPy give, bit for bit."""

import importlib.util
import pathlib

import numpy as np

EXAMPLE = pathlib.Path(__file__).parent.parent / "examples" / "heat2d.py"


def load_example():
    spec = importlib.util.spec_from_file_location("heat2d_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_heat2d_example_equals_numpy_sweeps():
    heat2d = load_example()
    u, sweeps, change = heat2d.solve(32, 1e-3)
    assert change <= 1e-3 and sweeps % heat2d.CHECK_EVERY == 0
    ref = np.zeros((32, 32))
    ref[0] = 100.0
    nxt = ref.copy()
    for _ in range(sweeps):
        nxt[1:-1, 1:-1] = 0.25 * ref[:-2, 1:-1] + 0.25 * ref[2:, 1:-1] + 0.25 * ref[1:-1, :-2] + 0.25 * ref[1:-1, 2:]
        ref, nxt = nxt, ref
    assert np.array_equal(u, ref)
    assert 20.0 < u[16, 16] < 25.0


def test_gray_scott_example_equals_numpy_steps(tmp_path):
    spec = importlib.util.spec_from_file_location("gray_scott_example", EXAMPLE.parent / "gray_scott.py")
    gs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gs)
    u, v = gs.run(24, 30)
    ref_u, ref_v = gs.initial(24)
    p = gs.PARAMS
    for _ in range(30):
        for a in (ref_u, ref_v):  # the periodic halo, refilled from the opposite interior edges
            a[0], a[-1] = a[-2].copy(), a[1].copy()
            a[:, 0], a[:, -1] = a[:, -2].copy(), a[:, 1].copy()
        c = lambda a, i, j: a[1 + i : a.shape[0] - 1 + i, 1 + j : a.shape[1] - 1 + j]  # noqa: E731
        lap = lambda a: -4.0 * c(a, 0, 0) + (((c(a, 1, 0) + c(a, -1, 0)) + c(a, 0, 1)) + c(a, 0, -1))  # noqa: E731
        uc, vc = c(ref_u, 0, 0), c(ref_v, 0, 0)
        uvv = uc * vc * vc
        nu = uc + p["du"] * lap(ref_u) - uvv + p["f"] * (1.0 - uc)
        nv = vc + p["dv"] * lap(ref_v) + uvv - (p["f"] + p["k"]) * vc
        ref_u[1:-1, 1:-1], ref_v[1:-1, 1:-1] = nu, nv
    assert np.array_equal(u[1:-1, 1:-1], ref_u[1:-1, 1:-1])
    assert np.array_equal(v[1:-1, 1:-1], ref_v[1:-1, 1:-1])
    gs.png(tmp_path / "gs.png", v[1:-1, 1:-1])
    assert (tmp_path / "gs.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_wave2d_example_equals_numpy_steps(tmp_path):
    """python/examples/wave2d.py: the shot's wavefield and record against the same loop in NumPy
    (the 4th-order Laplacian, mirrored walls made by np.pad's "symmetric", the source added after
    each sweep, the receivers sampled after it)."""
    spec = importlib.util.spec_from_file_location("wave2d_example", EXAMPLE.parent / "wave2d.py")
    wave = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wave)
    n, steps = 41, 80
    u, record = wave.run(n, steps)
    m, dt, source, series, receivers = wave.setup(n, steps)
    c = dt * dt / wave.SPACING**2
    weights = (-1.0 / 12.0, 4.0 / 3.0, -5.0 / 2.0, 4.0 / 3.0, -1.0 / 12.0)
    a, b = np.zeros((n, n)), np.zeros((n, n))
    want = np.zeros((steps, len(receivers)))
    for t in range(steps):
        p = np.pad(a, 2, mode="symmetric")
        lap = sum(w * (p[k : k + n, 2 : 2 + n] + p[2 : 2 + n, k : k + n]) for k, w in enumerate(weights))
        a, b = 2.0 * a - b + c * m * lap, a
        a[int(source[0]), int(source[1])] += series[t, 0]
        want[t] = [a[int(i), int(j)] for i, j in receivers]
    scale = np.abs(a).max()
    assert scale > 0
    np.testing.assert_allclose(u, a, atol=1e-9 * scale)
    np.testing.assert_allclose(record, want, atol=1e-9 * scale)
    assert np.abs(record).max() > 1e-3 * scale, "the wave reached the receivers"
    wave.png(tmp_path / "wave.png", 0.5 + 0.5 * u / scale)
    assert (tmp_path / "wave.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
