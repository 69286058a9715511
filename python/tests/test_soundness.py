"""Regression tests for the soundness audits (issues "Soundness II" and "Soundness III"): each of
these raced, crashed or computed the wrong thing before its fix."""

import resource
import threading

import numpy as np
import pytest

import cnda
from races import can_restride, reads_racing_a_sweep, restriding

rng = np.random.default_rng(2026)


def jacobi(u):
    """NumPy's 5-point Jacobi mean of the interior, taps summed in cnda's order (bit-exact)."""
    return 0.25 * u[:-2, 1:-1] + 0.25 * u[2:, 1:-1] + 0.25 * u[1:-1, :-2] + 0.25 * u[1:-1, 2:]


# ---- item 1: aliasing through NumPy views and threads ------------------------------------------


def test_two_views_of_one_array_are_refused_as_stencil_input_and_output():
    # Before: each to_numpy() had its own base object, so the borrow tracker let both through and
    # the parallel bands raced (different results run to run).
    c = cnda.ContiguousND((32, 32))
    with pytest.raises(ValueError, match="out and u overlap in memory"):
        cnda.stencil(c.to_numpy(), c.to_numpy())


def test_every_route_to_one_memory_block_is_seen_as_one():
    x = rng.random((16, 16))
    c = cnda.from_numpy(x)  # a cnda array over x's memory
    with pytest.raises(ValueError, match="overlap"):
        cnda.stencil(x, c.to_numpy())  # NumPy array and a view of its import
    owned = cnda.ContiguousND((16, 16))
    with pytest.raises(ValueError, match="overlap"):
        cnda.stencil(np.from_dlpack(owned), owned.to_numpy())  # a DLPack export and a view
    imported = cnda.from_dlpack(x)
    with pytest.raises(ValueError, match="overlap"):
        cnda.stencil(imported.to_numpy(), x)


def test_in_place_ops_through_overlapping_views_compute_as_numpy():
    # Before: `iadd(a[1:], b[:-1])` over two views of one array gave a running sum.
    c = cnda.from_numpy(np.ones(8), copy=True)
    a, b = c.to_numpy(), c.to_numpy()
    cnda.iadd(a[1:], b[:-1])
    want = np.ones(8)
    np.add(want[1:], want[:-1], out=want[1:])
    assert np.array_equal(a, want)  # [1, 2, 2, ...]
    x = np.arange(6.0)
    cnda.iadd(x, x)
    assert np.array_equal(x, 2 * np.arange(6.0))
    y = np.arange(10.0)
    cnda.imultiply(y[::2], y[::-2])  # interleaved and reversed: NumPy's copy semantics
    want = np.arange(10.0)
    want[::2] = want[::2] * want[::-2].copy()
    assert np.array_equal(y, want)


def test_structured_field_views_are_operands_like_any_other():
    s = cnda.Particle.zeros((8,))
    fields = s.to_numpy()
    names = fields.dtype.names
    first, second = s.field(names[0]), s.field(names[1])
    second[...] = np.arange(8, dtype=second.dtype)
    cnda.iadd(first, second)  # interleaved fields of one record array
    assert np.array_equal(first, np.arange(8, dtype=first.dtype))


def test_writes_from_another_thread_never_race_with_a_running_kernel():
    # A kernel runs with the interpreter lock released; ContiguousND.fill from another thread
    # must not write under it. Each round either refuses the fill (RuntimeError) or runs it
    # wholly before or after the sweep; never a mixture.
    n = 2048
    refused = 0
    for _ in range(6):
        c = cnda.from_numpy(rng.random((n, n)), copy=True)
        before = c.to_numpy().copy()
        out = np.zeros((n, n))
        started = threading.Event()

        def sweep():
            started.set()
            cnda.stencil(c.to_numpy(), out)

        worker = threading.Thread(target=sweep)
        worker.start()
        started.wait()
        while worker.is_alive():
            try:
                c.fill(0.0)
            except RuntimeError as e:
                assert "running in another thread" in str(e)
                refused += 1
        worker.join()
        interior = out[1:-1, 1:-1]
        assert np.array_equal(interior, jacobi(before)) or not interior.any()
    assert refused > 0, "no fill ever met a running sweep"


def test_setitem_and_resize_check_the_same_flag():
    n = 2048
    c = cnda.from_numpy(rng.random((n, n)), copy=True)
    out = np.zeros((n, n))
    errors = []
    done = threading.Event()

    def writer():
        while not done.is_set():
            try:
                c[0, 0] = 1.0
            except RuntimeError as e:
                errors.append(str(e))
                return

    t = threading.Thread(target=writer)
    t.start()
    for _ in range(20):
        cnda.stencil(c.to_numpy(), out)
        if errors:
            break
    done.set()
    t.join()
    assert all("running in another thread" in e for e in errors)


def test_concurrent_readers_share_and_a_writer_waits_its_turn():
    u = rng.random((512, 512))
    outs = [np.zeros_like(u) for _ in range(4)]
    threads = [threading.Thread(target=cnda.stencil, args=(u, o)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for o in outs:
        assert np.array_equal(o[1:-1, 1:-1], jacobi(u))


def test_a_read_only_output_is_named_as_such():
    u = np.zeros((8, 8))
    out = np.zeros((8, 8))
    out.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        cnda.stencil(u, out)


# ---- item 2: empty arrays with huge axes -------------------------------------------------------


def test_empty_shapes_whose_other_axes_overflow_are_value_errors():
    # Before: a segfault in to_numpy().
    with pytest.raises(ValueError, match="spans more bytes"):
        cnda.ContiguousND((0, 2**62))
    with pytest.raises(ValueError):
        np.empty((0, 2**62))  # NumPy's own rule, the same
    ok = cnda.ContiguousND((0, 2**40))
    assert ok.to_numpy().shape == (0, 2**40)


def npy_file(path, descr, shape, data=b""):
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + data)
    return path


def test_a_file_with_a_huge_empty_shape_is_refused(tmp_path):
    path = npy_file(tmp_path / "empty.npy", "<f8", (0, 2**62))
    assert path.stat().st_size == 128
    with pytest.raises(ValueError, match="spans more bytes"):
        cnda.load(path)


# ---- item 6: untrusted files -------------------------------------------------------------------


def test_a_lying_header_is_refused_before_allocating(tmp_path):
    # Before: 16 GiB zero-filled, then the error.
    path = npy_file(tmp_path / "lying.npy", "<f8", (2**31,), b"\0" * 8)
    assert path.stat().st_size == 136
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(OSError, match=r"17179869184 bytes of data, but the file holds only 8 bytes"):
        cnda.load(path)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak
    assert grown_kib < 64 * 1024


# ---- item 7: strides are honoured everywhere ---------------------------------------------------


def layouts(shape):
    """The same logical values under every memory order an argument may arrive in."""
    base = rng.random(shape)
    yield "C", base
    yield "F", np.asfortranarray(base)
    yield "transposed", np.ascontiguousarray(base.T).T
    yield "negative", np.ascontiguousarray(base[::-1, ::-1])[::-1, ::-1]
    big = np.zeros((2 * shape[0], 3 * shape[1]))
    big[::2, ::3] = base
    yield "stepped", big[::2, ::3]


def writable_like(kind, shape):
    if kind == "F":
        return np.asfortranarray(np.full(shape, -1.0))
    if kind == "transposed":
        return np.full(shape[::-1], -1.0).T
    if kind == "negative":
        return np.full(shape, -1.0)[::-1, ::-1]
    if kind == "stepped":
        return np.full((2 * shape[0], 3 * shape[1]), -1.0)[::2, ::3]
    return np.full(shape, -1.0)


@pytest.mark.parametrize("out_kind", ["C", "F", "transposed", "negative", "stepped"])
def test_stencil_honours_the_strides_of_input_and_output(out_kind):
    # Before: u.T and Fortran-ordered outputs were read and written in memory order.
    shape = (13, 17)
    for kind, u in layouts(shape):
        out = writable_like(out_kind, shape)
        cnda.stencil(u, out)
        assert np.array_equal(out[1:-1, 1:-1], jacobi(np.array(u))), (kind, out_kind)
        # The halo (the radius-1 frame) holds u's values: the fixed boundary carried over.
        assert np.array_equal(out[0], u[0]) and np.array_equal(out[:, -1], u[:, -1]), (kind, out_kind)


def test_every_function_reads_every_layout_as_numpy_does():
    shape = (6, 5)
    other = rng.random(shape)
    for kind, a in layouts(shape):
        plain = np.array(a)
        assert np.array_equal(cnda.add(a, other), plain + other), kind
        assert np.array_equal(cnda.multiply(other, a), other * plain), kind
        assert np.allclose(cnda.sum(a), plain.sum()), kind
        assert np.allclose(cnda.sum(a, axis=0), plain.sum(axis=0)), kind
        assert np.allclose(cnda.matmul(a, other.T), plain @ other.T), kind
        assert np.array_equal(cnda.pad(a, 2, mode="reflect"), np.pad(plain, 2, mode="reflect")), kind
        assert np.array_equal(cnda.from_numpy(a, copy=True).to_numpy(), plain), kind
        target = writable_like(kind, shape)
        target[...] = plain
        cnda.isubtract(target, other)
        assert np.array_equal(target, plain - other), kind


# ---- item 8: copy=True accepts byte-swapped input ----------------------------------------------


def test_copy_true_converts_byte_swapped_input():
    x = np.arange(12.0).reshape(3, 4).astype(">f8")
    c = cnda.from_numpy(x, copy=True)
    assert c.dtype == np.float64 and np.array_equal(c.to_numpy(), np.arange(12.0).reshape(3, 4))
    with pytest.raises(ValueError, match="use copy=True"):
        cnda.from_numpy(x)


# ---- Soundness III, item 3: the memory leased is the memory the kernel uses --------------------

needs_restride = pytest.mark.skipif(not can_restride(), reason="this NumPy no longer lets strides be set")


@needs_restride
@pytest.mark.parametrize("steps", [1, 3])
def test_an_output_that_moves_onto_its_input_mid_call_never_sweeps_it(steps):
    # Before: stencil took u's and out's spans, then read out.flags through Python (an ndarray
    # subclass's code), which moved out back over u's memory; it leased the old spans and swept
    # the new layout: the kernel wrote what it read. Now nothing between the spans and the views
    # runs Python code: either out never moves, or the move is seen and refused.
    n = 64
    c = cnda.from_numpy(rng.random(2 * n), copy=True)
    # Two NumPy views of one cnda array (two base objects, so NumPy's borrow tracking in the
    # numpy crate does not see them as one memory: only cnda's registry does).
    u = c.to_numpy()[:n]
    out, arm = restriding(c.to_numpy()[n:])
    arm((-8,))  # out would run from element n back to element 1: over u
    before = u.copy()
    try:
        cnda.stencil(u, out, steps=steps)
    except ValueError as e:
        assert "out and u overlap in memory" in str(e)
        return
    assert np.array_equal(u, before), "the kernel wrote its own input"
    assert np.array_equal(np.asarray(out), cnda.stencil(before, steps=steps))


def as_laid_out_now(x, base, values):
    """`values` (a copy of `base`) seen through `x`'s layout as it is now (moved or not)."""
    offset = (np.asarray(x).ctypes.data - base.ctypes.data) // base.itemsize
    return np.lib.stride_tricks.as_strided(values[offset:], shape=np.shape(x), strides=np.asarray(x).strides)


@needs_restride
@pytest.mark.parametrize("route", ["add out=", "iadd", "pad", "sum"])
def test_every_kernel_entry_uses_the_layout_it_leased(route):
    # The other kernel entries take their spans after the last call that can run Python code: an
    # argument that moves when its attributes are read moves before the spans are taken, and the
    # kernel computes NumPy's result for the layout it leased (or refuses an overlap it creates).
    n = 64
    base = np.arange(2.0 * n)
    values = base.copy()
    x, arm = restriding(base[n:])
    b = np.ones(n)

    class Width:
        def __index__(self):
            x.dtype  # an argument's Python code, run while pad reads its width, moves x
            return 1

    arm((-8,))  # x would run from base[n] back to base[1]
    if route == "add out=":
        try:
            cnda.add(base[:n], b, out=x)
        except ValueError as e:
            assert "overlap" in str(e)
            return
        assert np.array_equal(np.asarray(x), values[:n] + b)
    elif route == "iadd":
        cnda.iadd(x, b)
        assert np.array_equal(np.asarray(x), as_laid_out_now(x, base, values) + b)
    elif route == "pad":
        got = cnda.pad(x, Width(), mode="edge")
        assert np.array_equal(got, np.pad(as_laid_out_now(x, base, values), 1, mode="edge"))
    else:
        assert cnda.sum(x, axis=(0,)) == as_laid_out_now(x, base, values).sum()


def test_an_in_place_op_in_another_dtype_runs_no_subclass_code_under_its_lease():
    # `a += b` computed in the promoted dtype is copied back into `a` under a lease of a's memory:
    # through a plain ndarray over it, so an ndarray subclass's `__array_function__` (which could
    # re-stride `a` outside the lease) is never called for that copy.
    calls = []

    class Dispatching(np.ndarray):
        def __array_function__(self, func, types, args, kwargs):
            calls.append(func.__name__)
            return super().__array_function__(func, types, args, kwargs)

    a = np.arange(8, dtype=np.float32).view(Dispatching)
    b = np.full(8, 0.5)  # float64: computed in float64, cast back (same_kind)
    cnda.iadd(a, b)
    assert "copyto" not in calls
    assert np.array_equal(np.asarray(a), np.arange(8, dtype=np.float32) + np.float32(0.5))


# ---- Soundness III, item 4: copies of memory a running kernel writes ---------------------------

PARTICLE = cnda.Particle.dtype


def soa_columns(out):
    """One column per Particle field, each a view of one eighth of `out`."""
    rows = out.reshape(len(PARTICLE.names), -1)
    return {name: rows[k].view(PARTICLE.fields[name][0]) for k, name in enumerate(PARTICLE.names)}


def shared_particles(out):
    return cnda.Particle.from_numpy(out.view(PARTICLE))


def as_bytes(x):
    return np.asarray(x).tobytes()


# Each route: what is made of the kernel's `out`, how it is read (to bytes), and out's dtype.
COPIES = {
    "from_numpy(copy=True)": (lambda out: out, lambda x: as_bytes(cnda.from_numpy(x, copy=True).to_numpy())),
    "from_numpy(copy=True), strided": (
        lambda out: out[::2, ::-3],
        lambda x: as_bytes(cnda.from_numpy(x, copy=True).to_numpy()),
    ),
    "from_numpy(copy=True), byte-swapped": (
        lambda out: out.view(out.dtype.newbyteorder()),
        lambda x: as_bytes(cnda.from_numpy(x, copy=True).to_numpy()),
    ),
    "from_dlpack(copy=True)": (lambda out: out, lambda x: as_bytes(cnda.from_dlpack(x, copy=True).to_numpy())),
    "Particle.from_numpy(copy=True)": (
        lambda out: out.view(PARTICLE),
        lambda x: as_bytes(cnda.Particle.from_numpy(x, copy=True).to_numpy()),
    ),
    "Particle.from_soa": (soa_columns, lambda columns: as_bytes(cnda.Particle.from_soa(columns).to_numpy())),
    # Calls that copy on the way: a float32 operand converted for float64 arithmetic; sum over no
    # axis; NumPy's protocol converting a cnda array (to another dtype, or a structured copy); to_soa.
    "add, converting float32": (
        lambda out: out,
        lambda x: as_bytes(cnda.add(x, np.zeros(1))),
        np.float32,
    ),
    "sum(axis=())": (lambda out: out, lambda x: as_bytes(cnda.sum(x, axis=()))),
    "np.asarray(ContiguousND, dtype)": (
        cnda.from_numpy,
        lambda c: as_bytes(np.asarray(c, dtype=np.float32)),
    ),
    "np.array(StructuredND)": (shared_particles, lambda s: as_bytes(np.array(s))),
    "StructuredND.to_soa": (shared_particles, lambda s: b"".join(as_bytes(c) for c in s.to_soa().values())),
}


@pytest.mark.parametrize("route", list(COPIES))
def test_a_copy_of_memory_a_running_kernel_writes_is_refused(route):
    # Before: these copies read `out` while a sweep in another thread wrote it: all were accepted,
    # and gave whatever mixture of sweeps they met. Now each holds a read lease on what it copies,
    # so it is refused (RuntimeError naming the kernel) while the kernel runs.
    source, read, *dtype = COPIES[route]
    assert reads_racing_a_sweep(source, read, *dtype) > 0, "no copy ever met the running sweep"
