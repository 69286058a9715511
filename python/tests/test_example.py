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
