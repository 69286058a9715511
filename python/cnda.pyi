"""cnda for NumPy users: arrays, stencils (any stencil written as text), linear solvers and FFTs,
on NumPy arrays and CUDA memory. (This file holds the module's type stubs; their docstrings are
the module's own: help() shows them.)

Memory in use. Kernels run with the interpreter lock released, so cnda keeps a registry of the
memory (by address range, whatever Python object reaches it) that running calls read and write.
stencil refuses an output that overlaps an input (ValueError naming both; out= and the in-place
arithmetic read such an input whole first, as NumPy). Every call refuses memory that a call
running in another thread writes, or reads while this call would write it (RuntimeError naming
that call: join its thread first, or work on a copy). Copies of memory cnda did not allocate
(from_numpy(x, copy=True), from_dlpack(x, copy=True), to_cuda, from_soa, an operand converted to
another dtype, np.asarray(arr, dtype=...)) hold the memory they read as a kernel does, for the
whole copy. Memory spans are taken after the last call that can run an argument's Python code
(an ndarray subclass's properties), so an argument cannot move in between. NumPy's own code in
another thread (a ufunc, x[...] = 1) does not consult the registry: order it yourself.
"""

import os
from typing import Any, List, Literal, Mapping, Protocol, Sequence, Tuple, TypedDict, TypeVar, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str
"""The module's version (the Rust crate's)."""

_Index = Union[int, Tuple[int, ...]]
_DType = Union[str, np.dtype, type]

class ContiguousND:
    """A contiguous, row-major N-dimensional array of float32, float64, int32, int64, complex64 or
    complex128, in a cnda buffer or borrowing a NumPy array's memory. Indexing is always
    bounds-checked."""

    def __init__(self, shape: Tuple[int, ...], dtype: _DType | None = ...) -> None: ...
    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def strides(self) -> Tuple[int, ...]:
        """Distances between neighbours along each axis, in elements."""
    @property
    def strides_bytes(self) -> Tuple[int, ...]: ...
    @property
    def readonly(self) -> bool:
        """Whether this is a read-only view of NumPy memory (writes raise RuntimeError)."""
    @property
    def ndim(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def itemsize(self) -> int: ...
    @property
    def dtype(self) -> np.dtype: ...
    @property
    def data_ptr(self) -> int:
        """The address of the first element (to check zero-copy sharing)."""
    def __len__(self) -> int: ...
    def __getitem__(self, index: _Index) -> Union[int, float, complex]: ...
    def __setitem__(self, index: _Index, value: Union[int, float, complex]) -> None: ...
    def at(self, index: _Index) -> Union[int, float, complex]: ...
    def fill(self, value: Union[int, float, complex]) -> None: ...
    def copy(self) -> ContiguousND: ...
    def resize(self, shape: Tuple[int, ...]) -> None:
        """Raises BufferError while a NumPy view of the array exists."""
    def __array__(self, dtype: Any = ..., copy: bool | None = ...) -> npt.NDArray[Any]:
        """NumPy's array protocol: np.asarray(arr) and ufuncs see the same memory."""
    def __dlpack__(
        self,
        *,
        stream: Any = ...,
        max_version: Tuple[int, int] | None = ...,
        dl_device: Tuple[int, int] | None = ...,
        copy: bool | None = ...,
    ) -> Any:
        """A DLPack capsule of the memory (zero-copy; copy=True exports a copy)."""
    def __dlpack_device__(self) -> Tuple[int, int]: ...
    def to_numpy(self, copy: bool = ...) -> npt.NDArray[Any]:
        """A view of the same memory (copy=False) whose base keeps the array alive, or a copy."""

class ElementType:
    """A structured element declared in Rust (cnda.Cell2D, cnda.Particle)."""

    @property
    def name(self) -> str: ...
    @property
    def itemsize(self) -> int: ...
    @property
    def fields(self) -> Tuple[str, ...]: ...
    @property
    def dtype(self) -> np.dtype:
        """The NumPy structured dtype with exactly this layout."""
    def zeros(self, shape: Tuple[int, ...]) -> StructuredND: ...
    def check(self, dtype: Any) -> None:
        """Raises TypeError naming the first difference between dtype and this element."""
    def from_numpy(self, x: npt.NDArray[Any], copy: bool = ..., readonly: bool = ...) -> StructuredND:
        """Shares x's memory (C-contiguous, aligned; writable unless readonly=True) or copies it
        (copy=True, any strides; a RuntimeError while a cnda kernel in another thread writes it)."""
    def from_soa(self, arrays: dict[str, npt.ArrayLike]) -> StructuredND:
        """Struct of arrays to array of structs: every field, each column anything np.asarray takes
        of the field's dtype, all of one shape (copied; a RuntimeError while a cnda kernel in
        another thread writes a column)."""

class StructuredND:
    """An array of structured elements in a cnda buffer or borrowing NumPy memory."""

    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def ndim(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def element(self) -> ElementType: ...
    @property
    def dtype(self) -> np.dtype: ...
    @property
    def data_ptr(self) -> int: ...
    @property
    def readonly(self) -> bool: ...
    def __len__(self) -> int: ...
    def to_numpy(self) -> npt.NDArray[Any]:
        """A structured NumPy array over the same memory."""
    def field(self, name: str) -> npt.NDArray[Any]:
        """A strided NumPy view of one field."""
    def to_soa(self) -> dict[str, npt.NDArray[Any]]:
        """One contiguous NumPy copy per field (a RuntimeError while a cnda kernel in another
        thread writes the array; such a kernel is refused while the copy runs)."""
    def copy(self) -> StructuredND: ...
    def __array__(self, dtype: Any = ..., copy: bool | None = ...) -> npt.NDArray[Any]:
        """NumPy's array protocol: np.asarray(s) is the structured view to_numpy() gives."""

Cell2D: ElementType
Particle: ElementType

class Export:
    """The base object of a NumPy view of a ContiguousND."""

def ContiguousND_f32(shape: Tuple[int, ...]) -> ContiguousND: ...
def ContiguousND_f64(shape: Tuple[int, ...]) -> ContiguousND: ...
def ContiguousND_i32(shape: Tuple[int, ...]) -> ContiguousND: ...
def ContiguousND_i64(shape: Tuple[int, ...]) -> ContiguousND: ...
def from_numpy(
    x: npt.NDArray[Any], copy: bool = ..., readonly: bool = ..., element: ElementType | None = ...
) -> Any:
    """Shares x's memory (C-contiguous, aligned, native byte order; writable unless readonly=True)
    or copies it (copy=True, any strides and byte order). A structured x needs element= and gives
    a StructuredND. A copy while a cnda kernel in another thread writes x's memory is a
    RuntimeError naming it (and that kernel is refused while the copy runs)."""
def from_dlpack(x: Any, copy: bool = ...) -> Union[ContiguousND, CudaArray]:
    """Shares the memory of any DLPack producer (C-contiguous): a ContiguousND for host memory, a
    CudaArray for a CUDA device's (CuPy, PyTorch); or copies it on its device (copy=True; on the
    host, any strides: a RuntimeError while a cnda kernel in another thread writes that memory)."""

class CudaArray:
    """A contiguous, row-major N-dimensional array in a CUDA device's memory, of float32, float64,
    int32, int64, complex64 or complex128. DLPack shares it with CuPy, PyTorch or JAX without a
    copy; cnda.fft transforms it on its device."""

    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def ndim(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def dtype(self) -> np.dtype: ...
    @property
    def device(self) -> int:
        """The CUDA device's ordinal."""
    @property
    def data_ptr(self) -> int:
        """The device address of the first element."""
    def __len__(self) -> int: ...
    def to_host(self) -> ContiguousND:
        """A host copy; waits for the device."""
    def to_numpy(self) -> npt.NDArray[Any]:
        """A NumPy copy; waits for the device."""
    def copy(self) -> CudaArray:
        """A copy on the same device."""
    def fill(self, value: Union[int, float, complex]) -> None: ...
    def synchronize(self) -> None:
        """Waits for cnda's queued work on the device."""
    def __dlpack__(
        self,
        *,
        stream: Any = ...,
        max_version: Tuple[int, int] | None = ...,
        dl_device: Tuple[int, int] | None = ...,
        copy: bool | None = ...,
    ) -> Any: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...
    @property
    def __cuda_array_interface__(self) -> dict:
        """The CUDA Array Interface, version 3 (Numba, older CuPy)."""

    # Arithmetic on the device. The other operand: a CudaArray of the same dtype and device (NumPy
    # broadcasting), a Python int/float/complex/bool the dtype holds (weak, as NEP 50: float32 + 0.1
    # stays float32, complex64 * 1j complex64), or a NumPy scalar whose promotion keeps the dtype.
    # Where NumPy's result would have another dtype (two dtypes, a float with an integer array, a
    # complex with a real one, integer true division) it is a
    # TypeError saying how to convert; shapes that do not broadcast are a ValueError; host arrays
    # are a TypeError (move them with to_cuda). Array-array ops take 0 to 4 dimensions.
    __array_ufunc__: None
    def __add__(self, other: Union[CudaArray, int, float, complex, np.generic]) -> CudaArray: ...
    def __radd__(self, other: Union[int, float, complex, np.generic]) -> CudaArray: ...
    def __sub__(self, other: Union[CudaArray, int, float, complex, np.generic]) -> CudaArray: ...
    def __rsub__(self, other: Union[int, float, complex, np.generic]) -> CudaArray: ...
    def __mul__(self, other: Union[CudaArray, int, float, complex, np.generic]) -> CudaArray: ...
    def __rmul__(self, other: Union[int, float, complex, np.generic]) -> CudaArray: ...
    def __truediv__(self, other: Union[CudaArray, int, float, complex, np.generic]) -> CudaArray:
        """Float and complex arrays only (NumPy divides integers into float64: TypeError). Complex
        quotients are num-complex's (conj(b) a / |b|^2), a few ulps from NumPy's (Smith's
        method), and overflow where |b|^2 does (|b| past ~1e19 in complex64, ~1e154 in
        complex128), where NumPy's stay finite."""
    def __rtruediv__(self, other: Union[int, float, complex, np.generic]) -> CudaArray: ...
    def __iadd__(self, other: Union[CudaArray, int, float, complex, np.generic]) -> CudaArray:
        """In the array's own memory; other broadcasts into its shape."""
    def __isub__(self, other: Union[CudaArray, int, float, complex, np.generic]) -> CudaArray: ...
    def __imul__(self, other: Union[CudaArray, int, float, complex, np.generic]) -> CudaArray: ...
    def __itruediv__(self, other: Union[CudaArray, int, float, complex, np.generic]) -> CudaArray: ...
    def __matmul__(self, other: CudaArray) -> CudaArray:
        """2D float32/float64/complex64/complex128 (cuBLAS); shape errors are a ValueError."""
    def __rmatmul__(self, other: CudaArray) -> CudaArray: ...
    def matmul(self, other: CudaArray) -> CudaArray:
        """self @ other for 2D float or complex CudaArrays (cuBLAS)."""
    def sum(self, axis: int | tuple[int, ...] | None = ...) -> Union[np.generic, CudaArray]:
        """Sum of all elements (a NumPy scalar of the dtype, as cnda.sum), or along an axis or a tuple
        of axes (a CudaArray; 2 to 4 dimensions); int32 is a TypeError (NumPy sums it in int64)."""
    def min(self, axis: int | tuple[int, ...] | None = ...) -> Union[np.generic, CudaArray]:
        """Smallest element (NaN if any), as sum for axis; empty is a ValueError, as NumPy; complex
        arrays are a TypeError (complex numbers have no order)."""
    def max(self, axis: int | tuple[int, ...] | None = ...) -> Union[np.generic, CudaArray]:
        """Largest element (NaN if any), as sum for axis; as min otherwise."""
    def mean(self, axis: int | tuple[int, ...] | None = ...) -> Union[np.generic, CudaArray]:
        """Mean of a float or complex array (complex: each part divided by the count), as sum for
        axis (empty: NaN and a RuntimeWarning); integer arrays are a TypeError (NumPy's mean of them
        is float64)."""

def to_cuda(x: Any, device: int = ...) -> CudaArray:
    """A CudaArray with the elements of x (a ContiguousND or a NumPy array) on CUDA device `device`
    (read in place, or copied on the host first for other layouts; either is a RuntimeError while
    a cnda kernel in another thread writes x's memory)."""
def cuda_device_count() -> int:
    """The number of CUDA devices (0 without a driver or GPU)."""
def save(path: Any, arr: Union[ContiguousND, StructuredND]) -> None:
    """Writes a .npy file (cnda's writer) that np.load reads."""
def load(path: Any, element: ElementType | None = ...) -> Union[ContiguousND, StructuredND]:
    """Reads a .npy file strictly; structured files need element=."""
_Float = TypeVar("_Float", np.float32, np.float64)
_Offset = Union[int, Tuple[int, ...]]  # a tap's offset: one int per axis of u (a bare int in 1D)
_Preset = Literal["jacobi", "laplacian", "5-point", "9-point", "7-point", "27-point"]
# A preset name, a dict {offset: weight}, a centred weight array, or (with coeffs) a list of offsets.
_Taps = Union[_Preset, Mapping[_Offset, float], npt.NDArray[Any], Sequence[_Offset]]
# One side's boundary: "fixed", "periodic", "neumann" or a number (the value the halo holds); NumPy's
# np.pad names "wrap" (periodic), "symmetric" (neumann) and "constant" (0.0) for the same.
_BoundaryKind = Union[Literal["fixed", "periodic", "neumann", "wrap", "symmetric", "constant"], float]
# One kind for every side, or one entry per axis: a kind, or a (low, high) pair.
_Boundary = Union[_BoundaryKind, Sequence[Union[_BoundaryKind, Tuple[_BoundaryKind, _BoundaryKind]]]]
# Stencil.steps' points: one row of coordinates per point, or one point's coordinates.
_Points = Union[npt.ArrayLike, Sequence[float]]
_Field = Union[str, int]
_Sources = Union[Tuple[_Field, _Points, npt.ArrayLike], Sequence[Tuple[_Field, _Points, npt.ArrayLike]]]
_Receivers = Union[Tuple[_Field, _Points], Sequence[Tuple[_Field, _Points]]]

class _CudaDLPack(Protocol):
    """A DLPack producer in CUDA memory (a CuPy array, a PyTorch CUDA tensor)."""

    def __dlpack__(self, *, stream: Any = ...) -> Any: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...

@overload
def stencil(
    u: npt.NDArray[_Float],
    out: npt.NDArray[_Float] | None = ...,
    taps: _Taps | None = ...,
    coeffs: npt.NDArray[_Float] | Sequence[npt.NDArray[_Float]] | None = ...,
    steps: int = ...,
    boundary: _Boundary | None = ...,
    *,
    laplacian: bool = ...,
    h: float = ...,
) -> npt.NDArray[_Float]:
    """`steps` sweeps of a stencil over u; returns out (a new array of u's shape and dtype when
    out is None). All cores, the interpreter lock released; v(x) = sum_k w_k * u(x + offset_k).

    u: float32 or float64, 1D to 3D, any strides (C or Fortran order, transposed, stepped,
        flipped). A CUDA array (CudaArray, or a CuPy/PyTorch CUDA tensor through DLPack, no copy)
        runs on its device: see the second form.
    out: u's shape and dtype, writable, any strides, sharing no memory with u or coeffs. It
        receives the swept interior and the halo (the points within the stencil's radius of an
        edge) as the boundary says: u's values on fixed sides. So stencil(u, steps=2) equals
        stencil(stencil(u)).
    taps: None: the Jacobi mean of the face neighbours (with laplacian=True: the Laplacian of
        spacing h). A preset: "jacobi", "laplacian", "5-point" or "9-point" (2D), "7-point" or
        "27-point" (3D); the Laplacians use spacing h. A dict {offset: weight}, an offset being a
        tuple with one int per axis (an int in 1D), summed in the dict's order. A centred weight
        array (odd extents, u's rank): its nonzero weights in row-major order. With coeffs: a
        list of offsets. At most 64 taps, radius at most 8 along each axis, and u at least
        2 * radius + 1 points along each axis.
    coeffs: variable coefficients, v(x) = sum_k coeffs[k][x] * u(x + offset_k): an array of shape
        (len(taps), *u.shape) or a list of len(taps) arrays of u's shape, in u's dtype.
    steps: the number of sweeps (at least 1), fused into passes over memory (temporal blocking).
    boundary: None or "fixed" (the halo keeps u's values), "periodic" (on both sides of an axis),
        "neumann" (mirrored about the face: zero gradient) or a number (the halo holds that value);
        one for every side, or a sequence with one entry per axis, each a kind or a (low, high)
        pair. NumPy's np.pad names for the same: "wrap" (periodic), "symmetric" (neumann),
        "constant" (0.0); its "reflect" and "edge" fill other halos and are refused, saying which
        kind to use. Halos are refilled before every sweep and after the last.
    laplacian, h: the Laplacian of spacing h when taps is None; h also scales the Laplacian presets.

    One sweep with fixed boundaries reads u and writes out in place, whatever their strides; more
    steps or other boundaries alternate between out and a row-major scratch field of u's shape
    (with fixed sides and constant taps in host memory the first sweep reads u itself and both
    get only u's halo; otherwise u is copied into the one holding sweep 0), which the calling thread keeps for its next call of the same shape and dtype (its
    memory is let go when a call needs another, or when the thread ends). Misuse is a ValueError or TypeError saying what, why and how to fix (overlapping
    operands, dtypes or shapes that differ, unknown presets, too many taps, a radius too large for
    u, coeffs not matching taps, steps < 1, an unknown boundary kind, periodic on one side only).
    While it runs, u, out and coeffs are in use (see the module's notes on memory in use): another
    thread's cnda call that writes them, or reads out, is a RuntimeError; this call is refused the
    same way when a running call writes what it uses. The memory swept is the memory checked: an
    argument's Python code (an ndarray subclass's properties) runs before the check, never after.
    """
@overload
def stencil(
    u: Union[CudaArray, _CudaDLPack],
    out: Union[CudaArray, _CudaDLPack, None] = ...,
    taps: _Taps | None = ...,
    coeffs: Union[Sequence[Union[CudaArray, _CudaDLPack]], _CudaDLPack, None] = ...,
    steps: int = ...,
    boundary: _Boundary | None = ...,
    *,
    laplacian: bool = ...,
    h: float = ...,
) -> CudaArray:
    """The same stencil in CUDA memory, on u's device: u, out and coeffs CudaArrays or CuPy/PyTorch
    CUDA tensors (through DLPack, no copy, so out may be the producer's own tensor), float32 or
    float64. coeffs: a list of device arrays, or a stacked CuPy/PyTorch array. Returns out as a
    CudaArray (sharing out's memory), or a new CudaArray when out is None."""

class Stencil:
    """A stencil in Rust's `stencil!` language, read from a string at run time (cnda's
    `TextStencil`: the macro's own parser, checks and messages), e.g.

        gs = cnda.Stencil('''|u, v; du, dv, f, k| {
            let uvv = u[0, 0] * v[0, 0] * v[0, 0];
            (u[0, 0] + du * laplace(u, 2) - uvv + f * (1.0 - u[0, 0]),
             v[0, 0] + dv * laplace(v, 2) + uvv - (f + k) * v[0, 0])
        }''')
        u2, v2 = gs(u, v, du=0.16, dv=0.08, f=0.035, k=0.06)        # one sweep
        gs.steps(u, v, steps=100, boundary="periodic", du=0.16, dv=0.08, f=0.035, k=0.06)

    Fields read at integer offsets (one per axis, 1 to 3 axes), parameters, several values (a
    final tuple: one per evolved field), earlier time levels (`#[levels(2)] |u, u_prev, m; c|`),
    `let`, `select`, `sqrt exp ln sin cos tanh abs floor min max powi flush`, finite differences
    (`laplace(u, 4)`, `diff(u, axis, n, order)`). The values equal Rust's `stencil!` of the same
    text bit for bit (each operation rounded in the arrays' dtype, in the text's order; a
    subnormal value stored as zero unless `#[subnormals(keep)]`). Compiled for this CPU at first
    use. Raises ValueError for text `stencil!` refuses, with its message, the line and a caret."""

    def __init__(self, text: str) -> None: ...
    @property
    def fields(self) -> List[str]: ...
    @property
    def params(self) -> List[str]: ...
    @property
    def outputs(self) -> int:
        """The values computed at each point (the fields a step evolves)."""
    @property
    def levels(self) -> int:
        """The time levels read of each evolved field (`#[levels(L)]`, 1 without)."""
    @property
    def ndim(self) -> int: ...
    @property
    def radius(self) -> List[int]: ...
    @property
    def source(self) -> str: ...
    def __call__(
        self,
        *fields: npt.NDArray[_Float],
        out: npt.NDArray[_Float] | Sequence[npt.NDArray[_Float]] | None = ...,
        **params: float,
    ) -> Union[npt.NDArray[_Float], Tuple[npt.NDArray[_Float], ...]]:
        """One sweep: value m at every interior point (at least the radius from every edge) into
        out[m]; the other points keep out's values (without out: copies of the evolved fields,
        returned). fields: one float32 or float64 array per field, one shape, any strides; out
        shares no memory with them. params: every parameter by name. All cores and the
        interpreter lock released on large grids."""
    def steps(
        self,
        *arrays: npt.NDArray[_Float],
        steps: int = ...,
        boundary: _Boundary | None = ...,
        whole: bool = ...,
        sources: _Sources | None = ...,
        receivers: _Receivers | None = ...,
        **params: float,
    ) -> npt.NDArray[_Float] | List[npt.NDArray[_Float]] | None:
        """`steps` sweeps of the evolved fields, in place: arrays are each evolved field's levels
        (newest first, field by field; as many as the stencil's values times its levels), then
        its coefficient fields (read only). The halo (the points within the radius of an edge)
        is refilled as `boundary` says before each sweep, as cnda.stencil's: "fixed" (kept),
        "periodic", "neumann" (mirrored), a number, per axis, or per axis as a (low, high) pair
        (NumPy's "wrap", "symmetric" and "constant" too).

        whole: False (the default): the arrays include their halo, the edge ring of the radius's
        width, which is not stepped. True: every point of the arrays is stepped, and the halo is
        made around them (each coefficient field's too) as the boundary says, so "periodic" wraps
        around exactly as np.roll does; "fixed" is refused (it keeps a halo the arrays lack).
        Coefficient fields read at an offset get a halo too: wrapped on periodic sides, mirrored
        on the others.

        sources: ("u", points, series), or a list of such tuples. After the sweep that writes
        evolved field u (named as the stencil names its newest level, or numbered from 0 among
        the evolved fields), series[t, p] is added at points[p] at every step t of this call:
        points has one row of coordinates per point, in index units of the arrays as given
        (fractional coordinates spread over the neighbouring nodes with multilinear weights); a
        single point may be given as its coordinates alone. series has at least `steps` rows
        and one column per point (for one point, at least `steps` numbers). Every node must lie
        in the interior (with whole=True: anywhere in the arrays).
        receivers: ("u", points), or a list of such tuples: u sampled at the points (as
        sources spread) after every step. Returns the records, each of shape (steps, points):
        one array for one tuple given alone, a list for a list; None without receivers.

        Fused passes over memory on all cores, the interpreter lock released; the evolved arrays
        are copied in and out once per call (Stencil.state keeps them between calls instead)."""
    def state(
        self,
        *arrays: npt.NDArray[_Float],
        boundary: _Boundary | None = ...,
        whole: bool = ...,
        **params: float,
    ) -> StencilState:
        """The arrays (as Stencil.steps takes them: each evolved field's levels, newest first,
        then the coefficient fields) copied once into cnda's own arrays, to be stepped by many
        calls without a copy in or out: a time loop that reads its fields every hundred steps
        copies them then only.

            st = gs.state(u, v, boundary="periodic", whole=True, du=0.16, dv=0.08, f=0.035, k=0.065)
            for frame in range(100):
                st.steps(50)
                show(st["u"])          # a copy of u's newest level

        boundary and whole as for Stencil.steps, fixed for the state's life; params: every
        parameter by name, all of them here (each may be replaced for one call of
        StencilState.steps). The arrays given are not changed."""

class StencilState:
    """A text stencil's fields held in cnda's own arrays between calls (from Stencil.state):
    steps(k) advances them k fused steps, state["u"] is a copy of a level as a NumPy array, made
    when asked for (writing into it changes nothing held). fields: the evolved levels' names, as
    the stencil names them (state["u_prev"] reads an older level); shape: the arrays'; steps_taken:
    the steps since the state was made. Coefficient fields are not read out (they are the arrays
    given, which steps do not change). One call at a time: while steps runs (the interpreter lock
    released), another thread's call on the same state raises RuntimeError ("Already borrowed")."""

    @property
    def fields(self) -> List[str]: ...
    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def steps_taken(self) -> int: ...
    def __getitem__(self, name: str) -> npt.NDArray[Any]:
        """A copy of the evolved level `name` (as the stencil names it) as a NumPy array of the
        state's dtype and shape; KeyError for a coefficient field or an unknown name."""
    def steps(
        self,
        steps: int = ...,
        sources: _Sources | None = ...,
        receivers: _Receivers | None = ...,
        **params: float,
    ) -> npt.NDArray[Any] | List[npt.NDArray[Any]] | None:
        """`steps` fused steps of the held fields, as Stencil.steps takes them (sources,
        receivers, the records returned), with the state's boundary and parameters; params
        given here replace the state's for this call only (boundary and whole cannot be).
        Nothing is copied in or out; the interpreter lock is released on large grids. A call
        that fails leaves the fields as they were."""

class SolveInfo(TypedDict):
    """What cnda.solve did."""

    method: str
    iterations: int
    residual_history: List[float]
    threshold: float
    work: float

def solve(
    b: npt.NDArray[_Float] | CudaArray | Any,
    taps: _Taps | None = ...,
    boundary: _Boundary | None = ...,
    *,
    laplacian: bool = ...,
    h: float = ...,
    matrix: Any = ...,
    conductivity: npt.NDArray[_Float] | CudaArray | Any | None = ...,
    shift: float = ...,
    coarse: str = ...,
    method: str = ...,
    preconditioner: str | None = ...,
    rtol: float = ...,
    atol: float = ...,
    max_iters: int = ...,
    restart: int = ...,
    x0: npt.NDArray[_Float] | CudaArray | Any | None = ...,
) -> Tuple[npt.NDArray[_Float] | CudaArray, SolveInfo]:
    """Solves A x = b; returns x (a new array of b's shape and dtype) and a SolveInfo. The
    interpreter lock is released while it runs.

    b: float32 or float64, 1D to 3D, any strides. In CUDA memory (a CudaArray, or a CuPy array or
    PyTorch CUDA tensor, imported without a copy) the solve runs on that device, every vector,
    operator and multigrid level there, and x is a new CudaArray; x0 and conductivity may then be
    in either memory, a matrix is uploaded once.
    The operator A, one of:
      a constant-coefficient stencil on b's grid: taps and laplacian, h as cnda.stencil takes them
        (no coeffs), boundary as cnda.stencil takes it but 0 (zero walls) by default; a nonzero
        boundary value is refused (move it to the right-hand side: A is linear);
      conductivity: k of b's shape (and dtype), A = -div(k grad) + shift (finite volumes on a grid of
        spacing h, each face's k the harmonic mean of its two points'), boundary as for a stencil;
        its multigrid hierarchy follows k: coarse="galerkin" (the default: Galerkin products, 3^N
        taps per coarse point, robust across jumps in k) or "rediscretized" (k restricted by full
        weighting and discretized again on each coarse grid, 2N + 1 taps: cheaper cycles where k
        varies smoothly; refused without a conductivity);
      matrix: a SciPy sparse matrix or array (converted to CSR, copied) acting on b.ravel(); square,
        with b.size rows.
    method: "cg" (symmetric definite, the default), "minres" (symmetric indefinite), "bicgstab",
        "gmres" (nonsymmetric; restart vectors), or "multigrid" (geometric V(2,2) cycles: a stencil
        or a conductivity on 2^k - 1 points per axis between zero walls, 2^k + 1 between "neumann"
        sides, 2^k with one of each or periodic; with no zero wall a Laplacian is singular: give
        b of zero sum, x is then defined up to a constant).
    preconditioner: None, "jacobi" (the diagonal), or "multigrid" (one V-cycle; a stencil or a
        conductivity).
    rtol, atol: stop when ||b - A x|| <= max(rtol ||b||, atol). max_iters: then RuntimeError
        (not converged, with the residual reached and what to try). x0: the initial guess.
    """

def stencil_matrix(
    shape: Sequence[int],
    taps: _Taps | None = ...,
    boundary: _Boundary | None = ...,
    *,
    laplacian: bool = ...,
    h: float = ...,
    dtype: Any = ...,
) -> Any:
    """The matrix of a constant-coefficient stencil with its boundaries on a grid of shape (1 to 3
    axes; taps and boundary as cnda.solve takes them, zero walls by default), its unknowns
    numbered as x.ravel() numbers them, as a scipy.sparse.csr_matrix of dtype (float64 by
    default; int32 indices). Needs SciPy."""

def read_matrix_market(path: Union[str, "os.PathLike[str]"], dtype: Any = ...) -> Any:
    """The matrix in a Matrix Market file (coordinate; real, integer or pattern; general, symmetric
    or skew-symmetric) as a scipy.sparse.csr_matrix of dtype (float64 by default). OSError names
    the line and what is wrong in a malformed file."""

def write_matrix_market(path: Union[str, "os.PathLike[str]"], matrix: Any) -> None:
    """Writes a SciPy sparse matrix as a Matrix Market coordinate real general file, every value
    in the shortest decimal that reads back exactly."""

def spmv(matrix: Any, x: npt.NDArray[_Float]) -> npt.NDArray[_Float]:
    """matrix @ x by cnda's CSR kernel: matrix a SciPy sparse matrix (converted to x's dtype), x a
    1D float32 or float64 array; returns a new array."""

_Array = npt.NDArray[Any]
_Operand = Union[_Array, "ContiguousND", int, float, np.generic, Any]

def add(a: _Operand, b: _Operand, out: _Array | None = ...) -> _Array:
    """a + b with NumPy broadcasting over any strides and NumPy's type promotion (scalars, lists and
    mixed float32/64, int32/64, complex64/128 operands; other promoted types are a TypeError); a
    new array, or written into out (its shape and dtype must be the result's)."""
def subtract(a: _Operand, b: _Operand, out: _Array | None = ...) -> _Array: ...
def multiply(a: _Operand, b: _Operand, out: _Array | None = ...) -> _Array: ...
def divide(a: _Operand, b: _Operand, out: _Array | None = ...) -> _Array:
    """a / b; integers divide into float64, as NumPy's true division."""
def iadd(a: _Array, b: _Operand) -> None:
    """a += b in place (b broadcast into a's shape; a may be any writable view; a b overlapping a
    is read as NumPy reads it, as if copied first)."""
def isubtract(a: _Array, b: _Operand) -> None: ...
def imultiply(a: _Array, b: _Operand) -> None: ...
def idivide(a: _Array, b: _Operand) -> None: ...
def sum(a: _Array, axis: int | tuple[int, ...] | None = ...) -> Union[np.generic, _Array]:
    """Sum of all elements (a NumPy scalar), or along an axis or a tuple of axes; int32 promoted to
    int64 as NumPy does."""
def matmul(a: _Array, b: _Array) -> _Array:
    """a @ b for 2D float32/float64/complex64/complex128 arrays; transposed operands are read in
    place."""
def pad(
    a: _Array,
    width: Union[int, Sequence[int], Sequence[Sequence[int]]],
    mode: Union[str, Sequence[str], None] = ...,
    constant_values: Union[int, float, None] = ...,
) -> _Array:
    """np.pad(a, width, mode) for mode "constant", "edge", "reflect", "symmetric" or "wrap" (or one per axis);
    width in NumPy's forms, equal before and after each axis."""
def _live_buffers() -> int: ...

_Norm = Literal["backward", "ortho", "forward"]
_Axes = Sequence[int]
_FftInput = Union[npt.ArrayLike, CudaArray, _CudaDLPack]
_FftOutput = Union[npt.NDArray[Any], CudaArray]

class _FftModule:
    """cnda.fft (import cnda.fft): numpy.fft's and scipy.fft's transforms by cnda on the CPU, with
    their names and arguments, for NumPy arrays and array-likes of float32, float64, complex64 and
    complex128 (integers as float64), 1 to 4 dimensions, any strides, any length (large primes
    too). n and s crop or zero-pad the input, as NumPy's do; float32 stays single precision (as in
    NumPy 2 and SciPy). Real results are cnda arrays shared with NumPy; complex ones new NumPy
    arrays. The interpreter lock is released on large arrays. The Fourier transforms take complex
    or real input (promoted), rfft/rfftn and the cosine/sine ones real input; irfft's n and
    irfftn's s[-1] are the output's length (default 2 (m - 1)). Bad arguments are ValueError
    (norm, type, n < 1, repeated axes), IndexError (an axis out of range) or TypeError (a dtype).
    In CUDA memory (a CudaArray, or a CuPy array or PyTorch tensor through DLPack, no copy) every
    transform runs on the device (cuFFT; the cosine and sine transforms of every type built from
    it) and returns a new CudaArray of NumPy's dtype; integer CUDA arrays are a TypeError
    (convert them first)."""

    @staticmethod
    def fft(a: _FftInput, n: int | None = ..., axis: int = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def ifft(a: _FftInput, n: int | None = ..., axis: int = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def fft2(a: _FftInput, s: _Axes | None = ..., axes: _Axes | None = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def ifft2(a: _FftInput, s: _Axes | None = ..., axes: _Axes | None = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def fftn(a: _FftInput, s: _Axes | None = ..., axes: _Axes | None = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def ifftn(a: _FftInput, s: _Axes | None = ..., axes: _Axes | None = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def rfft(a: _FftInput, n: int | None = ..., axis: int = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def irfft(a: _FftInput, n: int | None = ..., axis: int = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def rfft2(a: _FftInput, s: _Axes | None = ..., axes: _Axes | None = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def irfft2(a: _FftInput, s: _Axes | None = ..., axes: _Axes | None = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def rfftn(a: _FftInput, s: _Axes | None = ..., axes: _Axes | None = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def irfftn(a: _FftInput, s: _Axes | None = ..., axes: _Axes | None = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def dct(x: _FftInput, type: int = ..., n: int | None = ..., axis: int = ..., norm: _Norm | None = ...) -> _FftOutput:
        """scipy.fft.dct: types 1 to 4, SciPy's definitions; norm="ortho" orthogonalized as SciPy's default."""
    @staticmethod
    def idct(x: _FftInput, type: int = ..., n: int | None = ..., axis: int = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def dst(x: _FftInput, type: int = ..., n: int | None = ..., axis: int = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def idst(x: _FftInput, type: int = ..., n: int | None = ..., axis: int = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def dctn(x: _FftInput, type: int = ..., s: _Axes | None = ..., axes: _Axes | None = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def idctn(x: _FftInput, type: int = ..., s: _Axes | None = ..., axes: _Axes | None = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def dstn(x: _FftInput, type: int = ..., s: _Axes | None = ..., axes: _Axes | None = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def idstn(x: _FftInput, type: int = ..., s: _Axes | None = ..., axes: _Axes | None = ..., norm: _Norm | None = ...) -> _FftOutput: ...
    @staticmethod
    def fftfreq(n: int, d: float = ...) -> npt.NDArray[np.float64]: ...
    @staticmethod
    def rfftfreq(n: int, d: float = ...) -> npt.NDArray[np.float64]: ...
    @staticmethod
    def solve_box(
        f: npt.NDArray[_Float] | CudaArray,
        spacing: float | Sequence[float] | None = ...,
        shift: float = ...,
        boundary: _Boundary | None = ...,
        laplacian: Literal["second_order", "spectral"] = ...,
    ) -> npt.NDArray[_Float] | CudaArray:
        """u with shift u - Laplacian(u) = f, solved directly by transforms: each axis periodic
        ("periodic" on both sides: FFT), between walls (a number, the value one spacing past each
        end; zero walls by default: DST-I) or between mirrors ("neumann": DCT-II). The operator of
        cnda.solve's stencil with laplacian=True and these boundaries, solved to rounding;
        laplacian="spectral" inverts the exact derivative instead (zero walls only). Poisson
        without a wall drops f's mean and returns the u of mean zero. f may be a CudaArray (or a
        CuPy or PyTorch CUDA tensor): the solve runs on the device (cuFFT) and returns a
        CudaArray."""

fft: _FftModule
