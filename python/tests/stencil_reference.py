"""A NumPy reference for `cnda.stencil`, written from the definitions: halos refilled axis by
axis as each boundary kind says, then every interior point summed in tap order from the first
product, each product and sum rounded in the array's dtype (as cnda's kernels, which never fuse a
multiply and an add), so results compare bit for bit."""

import numpy as np


def preset(name, ndim, h=1.0, dtype=np.float64):
    """The taps of a preset as cnda builds them: [(offset, weight)], weights rounded as the Rust
    expressions round them (in `dtype`)."""
    t = dtype
    h = t(h)
    one = t(1)
    faces = [tuple(s if a == axis else 0 for a in range(ndim)) for axis in range(ndim) for s in (-1, 1)]
    if name == "jacobi":
        w = {1: t(0.5), 2: t(0.25), 3: one / t(6.0)}[ndim]
        return [(f, w) for f in faces]
    if name == "laplacian" and ndim == 1:
        a = one / (h * h)
        return [((-1,), a), ((1,), a), ((0,), t(-2.0) * a)]
    if (name, ndim) in (("laplacian", 2), ("5-point", 2), ("laplacian", 3), ("7-point", 3)):
        a = one / (h * h)
        return [(f, a) for f in faces] + [((0,) * ndim, t(-2.0 * ndim) * a)]
    if (name, ndim) == ("9-point", 2):
        s = one / (t(6.0) * h * h)
        corners = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
        return [(f, t(4.0) * s) for f in faces] + [(c, s) for c in corners] + [((0, 0), t(-20.0) * s)]
    if (name, ndim) == ("27-point", 3):
        s = one / (t(30.0) * h * h)
        weight = {0: -128.0, 1: 14.0, 2: 3.0, 3: 1.0}
        return [((i, j, k), t(weight[abs(i) + abs(j) + abs(k)]) * s)
                for i in (-1, 0, 1) for j in (-1, 0, 1) for k in (-1, 0, 1)]
    raise ValueError(name)


def radius(offsets, ndim):
    return [max(abs(o[a]) for o in offsets) for a in range(ndim)]


def sides(boundary, ndim):
    """[(low, high)] per axis from cnda.stencil's `boundary` argument."""
    if boundary is None:
        boundary = "fixed"
    if isinstance(boundary, (str, int, float)):
        return [(boundary, boundary)] * ndim
    out = []
    for entry in boundary:
        out.append((entry, entry) if isinstance(entry, (str, int, float)) else tuple(entry))
    return out


def refill(a, r, bounds):
    """The halos of `a` (width r[k] on axis k) refilled axis by axis."""
    a = a.copy()
    for k, (low, high) in enumerate(bounds):
        w, n = r[k], a.shape[k]
        if w == 0:
            continue
        idx = lambda s: tuple(s if j == k else slice(None) for j in range(a.ndim))  # noqa: E731
        lo_halo, hi_halo = idx(slice(0, w)), idx(slice(n - w, n))
        copy = a.copy()
        for side, halo in (("low", lo_halo), ("high", hi_halo)):
            kind = low if side == "low" else high
            if kind == "fixed":
                continue
            if kind == "periodic":
                src = idx(slice(n - 2 * w, n - w)) if side == "low" else idx(slice(w, 2 * w))
                a[halo] = copy[src]
            elif kind == "neumann":
                src = idx(slice(2 * w - 1, w - 1, -1)) if side == "low" else idx(slice(n - w - 1, n - 2 * w - 1 if n - 2 * w - 1 >= 0 else None, -1))
                a[halo] = copy[src]
            else:
                a[halo] = a.dtype.type(kind)
    return a


def sweep(u, taps, coeffs=None):
    """One interior sweep of `taps` ([(offset, weight)], or offsets with `coeffs`) over `u`; the
    halo keeps `u`'s values."""
    ndim = u.ndim
    offsets = [o for o, _ in taps] if coeffs is None else list(taps)
    r = radius(offsets, ndim)
    out = u.copy()
    inner = tuple(slice(r[a], u.shape[a] - r[a]) for a in range(ndim))
    acc = None
    for k, o in enumerate(offsets):
        shifted = u[tuple(slice(r[a] + o[a], u.shape[a] - r[a] + o[a]) for a in range(ndim))]
        factor = coeffs[k][inner] if coeffs is not None else u.dtype.type(taps[k][1])
        term = factor * shifted
        acc = term if acc is None else acc + term
    out[inner] = acc
    return out


def steps(u, taps, n, boundary=None, coeffs=None):
    """`n` sweeps with the halos refilled before each and after the last, as cnda.stencil."""
    offsets = [o for o, _ in taps] if coeffs is None else list(taps)
    r = radius(offsets, u.ndim)
    bounds = sides(boundary, u.ndim)
    for _ in range(n):
        u = sweep(refill(u, r, bounds), taps, coeffs)
    return refill(u, r, bounds)
