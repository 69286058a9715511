"""Helpers for the tests of cnda's memory registry against real kernels in other threads (not a
test module): a stencil sweeping `out` with the interpreter lock released while this thread
reads `out` through some cnda route, and an ndarray subclass that moves itself mid-call."""

import threading
import warnings

import numpy as np

import cnda

rng = np.random.default_rng(3636)

# Long enough (16 fused sweeps of 1024^2 points) that the reading thread gets many tries while
# the kernel runs, even on a loaded machine.
SIDE, STEPS = 1024, 16


def reads_racing_a_sweep(source, read, dtype=np.float64, rounds=10):
    """How many `read(source(out))` calls cnda refused while `cnda.stencil` wrote `out` in
    another thread (repeated for up to `rounds` sweeps until one was refused).

    `source` makes what is read from `out` (a view, another dtype's view, a dict of columns, an
    import), `read` returns bytes. Asserts that every read cnda accepted saw `out` whole, before
    the sweep or after it: a read accepted while the kernel wrote would see a mixture (the kernel
    alternates between `out` and a scratch field, so `out` holds intermediate sweeps meanwhile).
    """
    refused = 0
    for _ in range(rounds):
        u = rng.random((SIDE, SIDE)).astype(dtype)
        out = np.zeros((SIDE, SIDE), dtype=dtype)
        before = read(source(out.copy()))
        after = read(source(cnda.stencil(u, steps=STEPS)))
        src = source(out)
        started, errors = threading.Event(), []

        def sweep():
            started.set()
            while True:
                try:
                    cnda.stencil(u, out, steps=STEPS)
                    return
                except RuntimeError as e:
                    # A read of `out` holds its lease (NumPy copies let go of the lock): the
                    # kernel is refused rather than racing it; run it once the read is done.
                    if "running in another thread" not in str(e):
                        errors.append(e)
                        return
                except Exception as e:  # reported below, in the test's thread
                    errors.append(e)
                    return

        worker = threading.Thread(target=sweep)
        worker.start()
        started.wait()
        accepted_mixtures = 0
        while worker.is_alive():
            try:
                got = read(src)
            except RuntimeError as e:
                assert "running in another thread" in str(e), e
                refused += 1
                continue
            if got != before and got != after:
                accepted_mixtures += 1
        worker.join()
        assert not errors, errors
        assert accepted_mixtures == 0, f"{accepted_mixtures} reads saw out while the kernel wrote it"
        if refused:
            break
    return refused


def can_restride():
    """Whether this NumPy still lets Python code set an array's strides (deprecated in 2.4)."""
    x = np.zeros(4)[2:]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            x.strides = (-8,)
    except (AttributeError, TypeError, ValueError):
        return False
    return True


def restriding(x):
    """`x` as an ndarray subclass, and a function arming it: once armed with byte strides, the next
    time Python code reads any attribute of the array (`x.flags`, `x.dtype` ...) the array takes
    those strides (NumPy allows it while they stay inside the base's memory), so that it covers
    other memory than before. A call that takes an argument's memory span, then reads one of its
    attributes, then uses the array, would use memory it never accounted for."""
    pending = []

    class Restriding(np.ndarray):
        def __getattribute__(self, name):
            if pending:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)  # NumPy 2.4 deprecates it
                    np.ndarray.strides.__set__(self, pending.pop())
            return np.ndarray.__getattribute__(self, name)

    return x.view(Restriding), pending.append
