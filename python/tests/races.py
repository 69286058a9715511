"""Helpers for the tests of cnda's memory registry (not a test module): an ndarray subclass that
moves itself mid-call."""

import warnings

import numpy as np


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
