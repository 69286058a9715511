"""Arithmetic, reductions and matrix products of CudaArrays, computed on the device and compared
with NumPy on the same data: elementwise results bit for bit (one rounding per element on both
sides), sums and means within a stated tolerance (the device adds in another order), every refusal
by its exception type and message. Runs on a GPU or on the CPU-hosted CUDA device (tools/cuda-sim,
as scripts/test runs test_cuda.py); arrays stay small, since that device interprets PTX."""

import operator

import numpy as np
import pytest

import cnda

pytestmark = pytest.mark.skipif(cnda.cuda_device_count() == 0, reason="no CUDA device")

DTYPES = [np.float32, np.float64, np.int32, np.int64]
FLOATS = [np.float32, np.float64]
OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
IN_PLACE = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv}
# Relative tolerance of device sums and means against NumPy's pairwise sums, per dtype.
SUM_RTOL = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}


def data(shape, dtype, seed, nonzero=False):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(-50, 50, size=shape)
        if nonzero:
            x[x == 0] = 7
    else:
        x = rng.standard_normal(shape) * 10
    return np.asarray(x, dtype=dtype)


def check(got, want):
    """`got` (a CudaArray) is `want` (a NumPy array): shape, dtype and every element."""
    assert isinstance(got, cnda.CudaArray)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.to_numpy(), want)


def is_int(dtype):
    return np.issubdtype(dtype, np.integer)


def ident(value):
    """A test id: dtypes by name, tuples by their parts."""
    if isinstance(value, tuple) and value and isinstance(value[0], type):
        return "-".join(ident(v) for v in value)
    return np.dtype(value).name if isinstance(value, type) else str(value)


# Broadcasting pairs: equal shapes, trailing alignment both ways, size-1 axes on both sides, 0-d
# operands, four dimensions, empty arrays.
PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((4,), (3, 4)),
    ((2, 1, 3), (4, 1)),
    ((), (3,)),
    ((5,), ()),
    ((), ()),
    ((2, 3, 1, 4), (3, 5, 1)),
    ((0, 3), (1, 3)),
    ((1,), (0,)),
]


def computed(ops):
    """(dtype, op) pairs the device computes: true division of integers is refused
    (test_integer_true_division_is_refused)."""
    return [(dtype, sym) for dtype in DTYPES for sym in ops if not (sym == "/" and is_int(dtype))]


@pytest.mark.parametrize("dtype, sym", computed(OPS), ids=ident)
@pytest.mark.parametrize("shapes", PAIRS, ids=str)
def test_two_arrays_broadcast_as_numpy(dtype, sym, shapes):
    x, y = data(shapes[0], dtype, 1), data(shapes[1], dtype, 2, nonzero=True)
    check(OPS[sym](cnda.to_cuda(x), cnda.to_cuda(y)), OPS[sym](x, y))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("sym", OPS)
@pytest.mark.parametrize("scalar", [2, -3, True, 0.1, 2.5, -1e30, 10**30], ids=repr)
def test_python_scalars_with_float_arrays_as_numpy(dtype, sym, scalar):
    # Python scalars are weak (NEP 50): float32 + 0.1 computes in float32, with 0.1 rounded to it.
    x = data((3, 5), dtype, 3)
    d = cnda.to_cuda(x)
    with np.errstate(all="ignore"):
        check(OPS[sym](d, scalar), OPS[sym](x, scalar))
        check(OPS[sym](scalar, d), OPS[sym](scalar, x))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("sym", ["+", "-", "*"])
@pytest.mark.parametrize("scalar", [2, -3, True, 2**31 - 1], ids=repr)
def test_python_ints_with_integer_arrays_as_numpy(dtype, sym, scalar):
    x = data((4, 3), dtype, 4)
    d = cnda.to_cuda(x)
    check(OPS[sym](d, scalar), OPS[sym](x, scalar))  # int32 wraps around, as NumPy's arrays do
    check(OPS[sym](scalar, d), OPS[sym](scalar, x))


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_division_by_zero_gives_infinities_and_nan_as_numpy(dtype):
    x = np.array([1.0, -2.0, 0.0, np.inf], dtype)
    y = np.array([0.0, 0.0, 0.0, np.inf], dtype)
    d, e = cnda.to_cuda(x), cnda.to_cuda(y)
    with np.errstate(all="ignore"):
        check(d / e, x / y)
        check(d / 0.0, x / dtype(0.0))
        check(1.0 / d, dtype(1.0) / x)


def test_a_scalar_op_takes_any_rank():
    x = data((2, 1, 2, 1, 3), np.float64, 5)  # five dimensions: scalar ops run on the flat elements
    check(cnda.to_cuda(x) * 3.0, x * 3.0)
    check(1.0 - cnda.to_cuda(x), 1.0 - x)


@pytest.mark.parametrize(
    "scalar, dtype",
    [(np.float32(2.5), np.float64), (np.int32(3), np.float64), (np.int32(-4), np.int64), (np.bool_(True), np.int32)],
    ids=repr,
)
def test_numpy_scalars_that_keep_the_dtype_are_taken(scalar, dtype):
    x = data((2, 3), dtype, 6)
    d = cnda.to_cuda(x)
    check(d * scalar, x * scalar)
    check(scalar - d, scalar - x)


@pytest.mark.parametrize(
    "scalar, dtype, promoted",
    [(np.float64(2.5), np.float32, "float64"), (np.int64(3), np.int32, "int64"), (np.float32(1), np.int64, "float64")],
    ids=repr,
)
def test_numpy_scalars_that_promote_are_a_type_error(scalar, dtype, promoted):
    d = cnda.to_cuda(data((2, 3), dtype, 6))
    name = np.dtype(dtype).name
    message = f"multiply: a NumPy {scalar.dtype} scalar with a {name} CudaArray promotes to {promoted} in NumPy"
    with pytest.raises(TypeError, match=message):
        d * scalar
    with pytest.raises(TypeError, match=message):
        scalar * d


def test_two_dtypes_are_a_type_error_naming_both():
    a, b = cnda.to_cuda(np.ones(3, np.float32)), cnda.to_cuda(np.ones(3, np.float64))
    with pytest.raises(TypeError, match=r"add: the operands are float32 and float64 CudaArrays.*astype\(np.float32\)"):
        a + b
    with pytest.raises(TypeError, match="subtract: the operands are float64 and float32 CudaArrays"):
        b - a
    with pytest.raises(TypeError, match="multiply: the operands are float32 and float64 CudaArrays"):
        a *= b


def test_shapes_that_do_not_broadcast_are_a_value_error_naming_the_axis():
    a, b = cnda.to_cuda(np.ones((3, 4))), cnda.to_cuda(np.ones(3))
    message = r"add: shapes \(3, 4\) and \(3,\) do not broadcast together: axis -1 has length 4 in one and 3"
    with pytest.raises(ValueError, match=message + r".*reshape or slice an operand"):
        a + b
    with pytest.raises(ValueError, match=r"divide: shapes \(2, 3, 4\) and \(5, 1\) .* axis -2 has length 3"):
        cnda.to_cuda(np.ones((2, 3, 4))) / cnda.to_cuda(np.ones((5, 1)))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_true_division_is_refused(dtype):
    # NumPy (and cnda.divide on the host) divide integers into float64, a type the device does not
    # convert to.
    d = cnda.to_cuda(np.arange(1, 4, dtype=dtype))
    name = np.dtype(dtype).name
    message = f"divide: true division of {name} gives float64 in NumPy.*astype\\(np.float64\\)"
    for divide in [lambda: d / d, lambda: d / 2, lambda: 2 / d, lambda: operator.itruediv(d, 2)]:
        with pytest.raises(TypeError, match=message):
            divide()
    assert cnda.divide(np.arange(1, 4, dtype=dtype), 2).dtype == np.float64  # the host's result


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_floats_with_integer_arrays_are_a_type_error(dtype):
    d = cnda.to_cuda(np.arange(3, dtype=dtype))
    name = np.dtype(dtype).name
    with pytest.raises(TypeError, match=f"add: {name} cannot hold the Python float 0.5 .*astype"):
        d + 0.5
    with pytest.raises(TypeError, match=f"subtract: {name} cannot hold the Python float 2.0 .*pass the int 2 instead"):
        2.0 - d
    with pytest.raises(TypeError, match=f"multiply: {name} cannot hold the Python float 0.25"):
        d *= 0.25


def test_ints_out_of_bounds_are_a_type_error():
    with pytest.raises(TypeError, match="add: int32 cannot hold the Python int 1099511627776 .out of bounds for int32"):
        cnda.to_cuda(np.arange(3, dtype=np.int32)) + 2**40
    with pytest.raises(TypeError, match=f"add: int64 cannot hold the Python int {2**70}"):
        2**70 + cnda.to_cuda(np.arange(3))
    with pytest.raises(TypeError, match="multiply: float32 cannot hold the Python int 1000.*: it is too large"):
        cnda.to_cuda(np.ones(3, np.float32)) * 10**400


def test_host_arrays_are_refused_saying_how_to_move_them():
    x = np.ones((2, 3))
    d = cnda.to_cuda(x)
    message = r"a CudaArray and a numpy.ndarray \(in host memory\) cannot be combined.*cnda.to_cuda\(x\)"
    with pytest.raises(TypeError, match="add: " + message):
        d + x
    with pytest.raises(TypeError, match="add: " + message):
        x + d  # NumPy defers to the CudaArray (__array_ufunc__ = None)
    with pytest.raises(TypeError, match="subtract: a CudaArray and a cnda.ContiguousND"):
        cnda.from_numpy(x) - d
    with pytest.raises(TypeError, match="matmul: " + message):
        x @ d
    with pytest.raises(TypeError, match="does not support ufuncs"):
        np.add(x, d)


@pytest.mark.parametrize("other", ["a", [1.0, 2.0], None], ids=repr)
def test_other_operands_are_not_implemented(other):
    d = cnda.to_cuda(np.ones(2))
    with pytest.raises(TypeError, match="unsupported operand type"):
        d + other
    with pytest.raises(TypeError, match="unsupported operand type"):
        other - d
    with pytest.raises(TypeError, match="unsupported operand type"):
        d -= other


def test_ranks_past_four_are_a_value_error_saying_so():
    d = cnda.to_cuda(np.ones((1, 2, 1, 2, 2)))
    with pytest.raises(ValueError, match=r"add: arrays of 5 dimensions are not supported here \(1 to 4 are\)"):
        d + d


@pytest.mark.skipif(cnda.cuda_device_count() < 2, reason="one CUDA device")
def test_two_devices_are_a_value_error():
    a, b = cnda.to_cuda(np.ones(3), device=0), cnda.to_cuda(np.ones(3), device=1)
    with pytest.raises(ValueError, match="add: the operands are on CUDA devices 0 and 1"):
        a + b


# In place: the right operand broadcasts into the left one's shape.
IN_PLACE_PAIRS = [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 4), (3, 1)), ((2, 3, 4), ()), ((), ()), ((0, 2), (2,))]


@pytest.mark.parametrize("dtype, sym", computed(IN_PLACE), ids=ident)
@pytest.mark.parametrize("shapes", IN_PLACE_PAIRS, ids=str)
def test_in_place_ops_write_the_array_itself(dtype, sym, shapes):
    x, y = data(shapes[0], dtype, 7), data(shapes[1], dtype, 8, nonzero=True)
    d = cnda.to_cuda(x)
    alias = cnda.from_dlpack(d)  # shares d's memory: sees the update
    same, ptr = d, d.data_ptr
    d = IN_PLACE[sym](d, cnda.to_cuda(y))
    want = IN_PLACE[sym](x.copy(), y)
    assert d is same and d.data_ptr == ptr
    check(d, want)
    np.testing.assert_array_equal(alias.to_numpy(), want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_in_place_with_scalars(dtype):
    x = data((3, 4), dtype, 9)
    d = cnda.to_cuda(x)
    want = x.copy()
    d += 3
    d -= True
    d *= np.int32(-2) if is_int(dtype) else 1.5
    want += 3
    want -= True
    want *= np.int32(-2) if is_int(dtype) else 1.5
    if not is_int(dtype):
        d /= 0.1
        want /= np.asarray(0.1, dtype=dtype)  # the Python float, weak: rounded to the dtype first
    check(d, want)


def test_in_place_with_itself_or_an_alias_reads_the_operand_whole_first():
    x = data((3, 4), np.float64, 10)
    d = cnda.to_cuda(x)
    d += d
    check(d, 2 * x)
    alias = cnda.from_dlpack(d)
    assert alias.data_ptr == d.data_ptr
    d *= alias
    check(d, (2 * x) * (2 * x))
    d -= d
    check(d, np.zeros_like(x))


def test_in_place_refuses_a_larger_broadcast_shape():
    d = cnda.to_cuda(np.ones(3))
    message = r"add: b of shape \(2, 3\) does not fit a of shape \(3,\) in place: they broadcast to \(2, 3\).*a = a \+ b"
    with pytest.raises(ValueError, match=message):
        d += cnda.to_cuda(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"subtract: shapes \(3,\) and \(4,\) do not broadcast"):
        d -= cnda.to_cuda(np.ones(4))
    check(d, np.ones(3))  # untouched


def reduction_cases():
    for shape in [(7,), (3, 5), (2, 3, 4), (2, 1, 3, 2), ()]:
        rank = len(shape)
        axes = [None, ()]
        if rank:
            axes += [0, -1, tuple(range(rank))]
        if rank >= 3:
            axes += [(0, 2), (-1, 0), [1]]
        for axis in axes:
            yield shape, axis


def reduced():
    """(dtype, op) pairs the device reduces: where NumPy's result has another dtype (an int32 sum,
    an integer mean) the reduction is refused (test_reductions_that_change_the_dtype_are_refused)."""
    pairs = [(dtype, op) for dtype in DTYPES for op in ["sum", "min", "max", "mean"]]
    return [(d, op) for d, op in pairs if not ((op == "mean" and is_int(d)) or (op == "sum" and d == np.int32))]


@pytest.mark.parametrize("dtype, op", reduced(), ids=ident)
@pytest.mark.parametrize("shape, axis", list(reduction_cases()), ids=str)
def test_reductions_match_numpy(dtype, op, shape, axis):
    x = data(shape, dtype, 11)
    got = getattr(cnda.to_cuda(x), op)(axis=axis)
    want = getattr(np, op)(x, axis=tuple(axis) if isinstance(axis, list) else axis)
    if isinstance(want, np.ndarray):
        assert isinstance(got, cnda.CudaArray) and got.shape == want.shape and got.dtype == want.dtype
        got = got.to_numpy()
    else:
        assert type(got) is type(want)  # a NumPy scalar of the dtype, as cnda.sum returns
    if op in ("sum", "mean") and not is_int(dtype):
        rtol = SUM_RTOL[np.dtype(dtype)]
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * np.abs(x).sum())
    else:
        np.testing.assert_array_equal(got, want)


def test_a_full_reduction_takes_any_rank_and_matches_cnda_sum():
    x = data((2, 1, 2, 1, 3), np.float64, 12)
    d = cnda.to_cuda(x)
    host = cnda.sum(x.reshape(2, 2, 1, 3))  # the host function takes up to four dimensions
    assert type(d.sum()) is type(host) is np.float64
    np.testing.assert_allclose(d.sum(), host, rtol=1e-12)
    assert d.max() == x.max() and d.min() == x.min()
    with pytest.raises(ValueError, match="sum: arrays of 5 dimensions are not supported here"):
        d.sum(axis=0)


def test_min_and_max_propagate_nan_as_numpy():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], np.float32)
    d = cnda.to_cuda(x)
    assert np.isnan(d.max()) and np.isnan(d.min())
    np.testing.assert_array_equal(d.max(axis=1).to_numpy(), np.max(x, axis=1))
    np.testing.assert_array_equal(d.min(axis=0).to_numpy(), np.min(x, axis=0))


def test_reductions_that_change_the_dtype_are_refused():
    i32, i64 = cnda.to_cuda(np.arange(6, dtype=np.int32)), cnda.to_cuda(np.arange(6).reshape(2, 3))
    with pytest.raises(TypeError, match=r"sum: NumPy sums int32 in int64 .*cnda.to_cuda\(x.astype\(np.int64\)\)"):
        i32.sum()
    with pytest.raises(TypeError, match="mean: NumPy's mean of int64 is float64"):
        i64.mean(axis=0)
    assert i32.max() == np.int32(5) and type(i32.min()) is np.int32


def test_empty_reductions_as_numpy():
    d = cnda.to_cuda(np.ones((0, 3), np.float32))
    assert d.sum() == np.float32(0) and type(d.sum()) is np.float32
    check(d.sum(axis=0), np.zeros(3, np.float32))
    check(d.max(axis=1), np.ones((0,), np.float32))
    for op, numpy in [("max", "maximum"), ("min", "minimum")]:
        with pytest.raises(ValueError, match=f"{op}: zero-size array to reduction operation {numpy} which has no identity"):
            getattr(d, op)()
        with pytest.raises(ValueError, match=f"{op}: zero-size array to reduction operation {numpy}"):
            getattr(d, op)(axis=0)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(d.mean())
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        m = d.mean(axis=0)
    assert m.shape == (3,) and np.isnan(m.to_numpy()).all()


def test_bad_axes_are_refused_as_cnda_sum():
    d = cnda.to_cuda(np.ones((2, 3)))
    with pytest.raises(IndexError, match=r"sum: axis 2 is out of range for an array of 2 dimensions; use -2..2"):
        d.sum(axis=2)
    with pytest.raises(IndexError, match=r"max: axis -3 is out of range"):
        d.max(axis=(0, -3))
    with pytest.raises(ValueError, match=r"min: axis \[0, -2\] names an axis twice"):
        d.min(axis=(0, -2))
    with pytest.raises(TypeError, match="mean: axis must be an int or a tuple of ints"):
        d.mean(axis="rows")
    # The host function says the same.
    with pytest.raises(IndexError, match=r"sum: axis 2 is out of range for an array of 2 dimensions"):
        cnda.sum(np.ones((2, 3)), axis=2)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mkn", [(3, 4, 5), (1, 7, 1), (6, 1, 2), (4, 0, 3), (0, 3, 2)], ids=str)
def test_matmul_matches_numpy(dtype, mkn):
    m, k, n = mkn
    x, y = data((m, k), dtype, 13), data((k, n), dtype, 14)
    a, b = cnda.to_cuda(x), cnda.to_cuda(y)
    want = x @ y
    rtol = SUM_RTOL[np.dtype(dtype)]
    for got in [a @ b, a.matmul(b)]:
        assert isinstance(got, cnda.CudaArray) and got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got.to_numpy(), want, rtol=rtol, atol=rtol * (np.abs(x) @ np.abs(y)).max(initial=0))


def test_matmul_refusals():
    a = cnda.to_cuda(np.ones((3, 4)))
    with pytest.raises(ValueError, match=r"matmul: a and b must be 2D, got 2 and 1 dimensions; reshape vectors"):
        a @ cnda.to_cuda(np.ones(4))
    with pytest.raises(ValueError, match=r"matmul: a of shape \(3, 4\) and b of shape \(5, 2\) do not multiply: a's 4 columns must equal b's 5 rows"):
        a.matmul(cnda.to_cuda(np.ones((5, 2))))
    with pytest.raises(TypeError, match="matmul: the operands are float64 and float32 CudaArrays"):
        a @ cnda.to_cuda(np.ones((4, 2), np.float32))
    with pytest.raises(TypeError, match="matmul: elements of type int64 are not supported; matmul takes float32, float64, complex64 or complex128"):
        cnda.to_cuda(np.ones((2, 2), np.int64)) @ cnda.to_cuda(np.ones((2, 2), np.int64))
    with pytest.raises(ValueError, match="matmul: a scalar operand has no dimensions"):
        a @ 2.0
    with pytest.raises(TypeError, match="expected a CudaArray, a Python int, float or complex or a NumPy scalar, got str"):
        a.matmul("b")
