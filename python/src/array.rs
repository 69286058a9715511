//! `ContiguousND`: the Python array class, `to_numpy` / `from_numpy`, and the export guard that
//! keeps an array alive (and unresizable) while NumPy views of it exist.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use numpy::ndarray::{ArrayViewD, IxDyn};
use numpy::{Element, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyTuple};

use cnda::Complex;

use crate::errors::to_pyerr;
use crate::store::{element_count, python_index, Keep, Memory, Store};
use crate::variants::{by_element, element_variants};

/// The elements of an array, by type.
pub enum Data {
    F32(Store<f32>),
    F64(Store<f64>),
    I32(Store<i32>),
    I64(Store<i64>),
    C64(Store<Complex<f32>>),
    C128(Store<Complex<f64>>),
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/class.ContiguousND.txt"))] // python/cnda.pyi's docstring
#[pyclass(name = "ContiguousND", module = "cnda")]
pub struct ContiguousND {
    data: Data,
    /// NumPy views of this array alive now (each holds an `Export`).
    exports: Arc<AtomicUsize>,
}

/// The NumPy name of a supported dtype, or `TypeError`.
fn dtype_name(py: Python<'_>, dtype: &Bound<'_, PyAny>) -> PyResult<String> {
    let name: String = py.import("numpy")?.call_method1("dtype", (dtype,))?.getattr("name")?.extract()?;
    match name.as_str() {
        "float32" | "float64" | "int32" | "int64" | "complex64" | "complex128" => Ok(name),
        other => Err(PyTypeError::new_err(format!(
            "ContiguousND holds float32, float64, int32, int64, complex64 or complex128 elements, not {other}; convert with astype()"
        ))),
    }
}

#[pymethods]
impl ContiguousND {
    /// A zero-filled array of `shape` and `dtype` (a NumPy dtype or its name).
    #[new]
    #[pyo3(signature = (shape, dtype = None))]
    fn new(py: Python<'_>, shape: Vec<usize>, dtype: Option<Bound<'_, PyAny>>) -> PyResult<Self> {
        let name = match dtype {
            Some(d) => dtype_name(py, &d)?,
            None => "float64".to_string(),
        };
        let data = match name.as_str() {
            "float32" => Data::F32(Store::zeros(shape)?),
            "float64" => Data::F64(Store::zeros(shape)?),
            "int32" => Data::I32(Store::zeros(shape)?),
            "complex64" => Data::C64(Store::zeros(shape)?),
            "complex128" => Data::C128(Store::zeros(shape)?),
            _ => Data::I64(Store::zeros(shape)?),
        };
        Ok(ContiguousND { data, exports: Arc::new(AtomicUsize::new(0)) })
    }

    /// The length of each axis.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.dims())
    }

    /// The distance between neighbours along each axis, in elements (as CNDA documents them).
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        by_element!(Data, &self.data, s, _T => PyTuple::new(py, s.view()?.strides()))
    }

    /// The strides in bytes, as NumPy gives them.
    #[getter]
    fn strides_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let size = self.itemsize();
        by_element!(Data, &self.data, s, _T => PyTuple::new(py, s.view()?.strides().iter().map(|&s| s * size as isize)))
    }

    /// Whether this is a read-only view (of a read-only NumPy array, `from_numpy(x, readonly=True)`).
    #[getter]
    fn readonly(&self) -> bool {
        !by_element!(Data, &self.data, s, _T => s.writable())
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.dims().len()
    }

    #[getter]
    fn size(&self) -> usize {
        self.dims().iter().product()
    }

    #[getter]
    fn itemsize(&self) -> usize {
        by_element!(Data, &self.data, _s, T => core::mem::size_of::<T>())
    }

    /// The NumPy dtype of the elements.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        by_element!(Data, &self.data, _s, T => numpy::dtype::<T>(py).into_any())
    }

    /// The address of the first element (to check zero-copy sharing).
    #[getter]
    fn data_ptr(&self) -> usize {
        by_element!(Data, &self.data, s, _T => s.ptr() as usize)
    }

    fn __len__(&self) -> PyResult<usize> {
        self.dims().first().copied().ok_or_else(|| PyTypeError::new_err("len() of a 0-dimensional array"))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let dtype = self.dtype(py).str()?.to_string();
        let owner = by_element!(Data, &self.data, s, _T => matches!(s.memory, Memory::Owned(_)));
        let source = if owner { "cnda buffer" } else { "borrowed from NumPy" };
        Ok(format!("ContiguousND(shape={:?}, dtype={dtype}, {source})", self.dims()))
    }

    /// The element at `index` (a tuple, or an int for 1-D arrays); bounds-checked.
    fn __getitem__<'py>(&self, py: Python<'py>, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let index = indices(index)?;
        by_element!(Data, &self.data, s, _T => {
            let index = python_index(&index, &s.shape)?;
            // No Python code between the check and the read (another thread could start a kernel).
            crate::overlap::check_read("__getitem__", self.span())?;
            let value = *s.view()?.at(&index).map_err(to_pyerr)?;
            Ok(value.into_pyobject(py)?.into_any())
        })
    }

    fn __setitem__(&mut self, index: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let index = indices(index)?;
        let span = self.span();
        by_element!(Data, &mut self.data, s, T => {
            // The value first: its conversion may run Python code (`__float__`), which may let
            // another thread start a kernel. Nothing but Rust between the check and the write.
            let value = value.extract::<T>()?;
            let index = python_index(&index, &s.shape)?;
            crate::overlap::check_write("__setitem__", span)?;
            *s.view_mut("__setitem__")?.at_mut(&index).map_err(to_pyerr)? = value;
            Ok(())
        })
    }

    /// The element at `index` (a tuple), as CNDA's `at`.
    fn at<'py>(&self, py: Python<'py>, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.__getitem__(py, index)
    }

    /// Sets every element to `value`.
    fn fill(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let span = self.span();
        by_element!(Data, &mut self.data, s, T => {
            // As in `__setitem__`: convert first, then check and write with no Python code between.
            let v = value.extract::<T>()?;
            crate::overlap::check_write("fill", span)?;
            s.as_mut_slice("fill")?.fill(v);
            Ok(())
        })
    }

    /// A copy in a new cnda buffer.
    pub fn copy(&self) -> PyResult<Self> {
        crate::overlap::check_read("copy", self.span())?;
        let data = by_element!(Data, &self.data, s, T => {
            let array = cnda::Array::<T, 1>::from_shape_vec([s.as_slice().len()], s.as_slice().to_vec())
                .map_err(to_pyerr)?;
            T::data(Store::owning(array, s.shape.clone()))
        });
        Ok(ContiguousND { data, exports: Arc::new(AtomicUsize::new(0)) })
    }

    /// Gives the array a new shape, reallocating its cnda buffer (zero-filled, the leading
    /// elements kept). Refused with `BufferError` while a NumPy view of it exists, as
    /// `bytearray` refuses, and with `RuntimeError` for memory borrowed from NumPy.
    fn resize(&mut self, shape: Vec<usize>) -> PyResult<()> {
        let views = self.exports.load(Ordering::SeqCst);
        if views > 0 {
            // Python's own convention (bytearray, array.array): a resize refused while views exist
            // is a BufferError, the one exception to the RuntimeError of ownership errors.
            return Err(PyBufferError::new_err(
                cnda::Error::Ownership {
                    op: "resize",
                    reason: format!("{views} NumPy view(s) of this array exist and would dangle"),
                    fix: "delete them (or take copies with to_numpy(copy=True)) first",
                }
                .to_string(),
            ));
        }
        crate::overlap::check_write("resize", self.span())?;
        by_element!(Data, &mut self.data, s, T => {
            let len = element_count::<T>("resize", &shape)?;
            if !matches!(s.memory, Memory::Owned(_)) {
                return Err(to_pyerr(cnda::Error::Ownership {
                    op: "resize",
                    reason: "the memory is borrowed from a NumPy array, which owns it".into(),
                    fix: "copy it first: from_numpy(x, copy=True)",
                }));
            }
            let mut fresh = Store::<T>::zeros(shape)?;
            let keep = len.min(s.as_slice().len());
            fresh.as_mut_slice("resize")?[..keep].copy_from_slice(&s.as_slice()[..keep]);
            *s = fresh;
            Ok(())
        })
    }

    /// A DLPack capsule of this array's memory (the Python array API's `__dlpack__`), for
    /// `np.from_dlpack(arr)`, `torch.from_dlpack(arr)` ...: zero-copy, and the owner stays alive
    /// and unresizable until the consumer lets go; `copy=True` exports a fresh copy.
    #[pyo3(signature = (*, stream = None, max_version = None, dl_device = None, copy = None))]
    fn __dlpack__<'py>(
        slf: Bound<'py, Self>,
        stream: Option<Bound<'py, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(u32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let args = crate::dlpack::DlpackArgs { stream, max_version, dl_device, copy };
        crate::dlpack::export(slf, args, ContiguousND::copy, crate::dlpack::exporter_of)
    }

    /// NumPy's array protocol: `np.asarray(arr)`, `np.array(arr)` and every ufunc see this array
    /// through `to_numpy()`: the same memory, kept alive (and unresizable) while NumPy holds it.
    /// A `dtype` other than the array's gives a converted copy, refused under `copy=False`.
    #[pyo3(signature = (dtype = None, copy = None))]
    fn __array__<'py>(
        slf: Bound<'py, Self>,
        dtype: Option<Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let view = ContiguousND::to_numpy(slf, copy == Some(true))?;
        converted(view, dtype, copy)
    }

    /// The device of the memory, as DLPack names it: `(1, 0)`, the CPU.
    fn __dlpack_device__(&self) -> (i32, i32) {
        crate::dlpack::device()
    }

    /// A NumPy array of the elements: with `copy=False` (the default) a writable view of this
    /// array's memory, same address, whose `base` keeps this array alive; with `copy=True` an
    /// independent NumPy-owned copy.
    #[pyo3(signature = (copy = false))]
    fn to_numpy<'py>(slf: Bound<'py, Self>, copy: bool) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let this = slf.borrow();
        by_element!(Data, &this.data, s, T => {
            // SAFETY: the store's pointer addresses `len` elements, contiguous row-major of its
            // shape, alive while `this` is.
            let view = unsafe { ArrayViewD::<T>::from_shape_ptr(IxDyn(&s.shape), s.ptr()) };
            if copy {
                crate::overlap::check_read("to_numpy(copy=True)", this.span())?;
                return Ok(PyArrayDyn::<T>::from_array(py, &view).into_any());
            }
            let guard = Export::new(py, &slf)?.into_bound(py);
            // SAFETY: the view's memory stays valid while the guard (the NumPy array's base) holds
            // the owner: the owner refuses to resize while the guard's count is non-zero.
            let numpy_view = unsafe { PyArrayDyn::<T>::borrow_from_array(&view, guard.into_any()) }.into_any();
            if !s.writable() {
                numpy_view.getattr("flags")?.setattr("writeable", false)?;
            }
            Ok(numpy_view)
        })
    }
}

impl ContiguousND {
    /// An array of `data`, not exported yet.
    pub fn from_data(data: Data) -> Self {
        ContiguousND { data, exports: Arc::new(AtomicUsize::new(0)) }
    }

    /// The elements, by type.
    pub fn data(&self) -> &Data {
        &self.data
    }

    /// The bytes the elements occupy.
    pub(crate) fn span(&self) -> crate::overlap::Span {
        by_element!(Data, &self.data, s, T => {
            crate::overlap::Span::contiguous(s.ptr() as usize, s.as_slice().len(), core::mem::size_of::<T>())
        })
    }

    /// The shape.
    pub fn dims(&self) -> &[usize] {
        by_element!(Data, &self.data, s, _T => &s.shape)
    }

    /// Writes the elements as a `.npy` stream.
    pub fn write_npy(&self, w: impl std::io::Write) -> PyResult<()> {
        crate::overlap::check_read("save", self.span())?;
        self.write_npy_unchecked(w).map_err(to_pyerr)
    }

    /// `write_npy` after the in-use check.
    fn write_npy_unchecked(&self, w: impl std::io::Write) -> cnda::Result<()> {
        by_element!(Data, &self.data, s, _T => cnda::interop::npy::write_slice(w, &s.shape, s.as_slice()))
    }

    /// The first element's address, DLPack type and writability.
    pub fn raw_parts(&self) -> (*mut core::ffi::c_void, dlpark::ffi::DLDataType, bool) {
        by_element!(Data, &self.data, s, _T => crate::dlpack::raw_parts_of(s))
    }
}

/// `view` in element type `dtype` for NumPy's `__array__` protocol: itself when the type is the
/// same (or none is asked), else a converted copy, which `copy=False` refuses.
pub(crate) fn converted<'py>(
    view: Bound<'py, PyAny>,
    dtype: Option<Bound<'py, PyAny>>,
    copy: Option<bool>,
) -> PyResult<Bound<'py, PyAny>> {
    let Some(dtype) = dtype else { return Ok(view) };
    let want = view.py().import("numpy")?.call_method1("dtype", (dtype,))?;
    if view.getattr("dtype")?.eq(&want)? {
        return Ok(view);
    }
    if copy == Some(false) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "__array__: the array holds {} and {want} was asked for with copy=False; a conversion copies, so pass \
             copy=None (the default) or True",
            view.getattr("dtype")?
        )));
    }
    // NumPy converts with the interpreter lock let go on large arrays: under a read lease.
    crate::overlap::reading("__array__", "this array", &view, || view.call_method1("astype", (&want,)))
}

/// The element types a `ContiguousND` holds: float32, float64, int32, int64, complex64,
/// complex128.
pub trait Stored: Element + cnda::Element + cnda::interop::npy::NpyElement {
    /// The array data of a store of this type.
    fn data(store: Store<Self>) -> Data;
}

element_variants!(Stored::data(Store) -> Data);

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/class.Export.txt"))] // python/cnda.pyi's docstring
#[pyclass(module = "cnda")]
pub struct Export {
    _owner: Py<PyAny>,
    count: Arc<AtomicUsize>,
}

impl Export {
    /// A new guard of `owner`, counted as one export until dropped.
    pub fn new(py: Python<'_>, owner: &Bound<'_, ContiguousND>) -> PyResult<Py<Export>> {
        let count = owner.borrow().exports.clone();
        Export::of(py, owner.as_any(), &count)
    }

    /// A new guard of any owner whose exports `count` counts.
    pub fn of(py: Python<'_>, owner: &Bound<'_, PyAny>, count: &Arc<AtomicUsize>) -> PyResult<Py<Export>> {
        count.fetch_add(1, Ordering::SeqCst);
        Py::new(py, Export { _owner: owner.clone().unbind(), count: count.clone() })
    }
}

impl Drop for Export {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::SeqCst);
    }
}

/// An index as a tuple of ints (or one int).
fn indices(index: &Bound<'_, PyAny>) -> PyResult<Vec<isize>> {
    if let Ok(i) = index.extract::<isize>() {
        return Ok(vec![i]);
    }
    index.extract::<Vec<isize>>().map_err(|_| {
        PyTypeError::new_err("ContiguousND indices are ints or tuples of ints (slicing: use to_numpy() for views)")
    })
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.from_numpy.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
#[pyo3(signature = (x, copy = false, readonly = false, element = None))]
pub fn from_numpy<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    copy: bool,
    readonly: bool,
    element: Option<Bound<'py, crate::structured::ElementType>>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Some(element) = element {
        return Ok(Bound::new(py, crate::structured::ElementType::from_numpy(element, x, copy, readonly)?)?.into_any());
    }
    Ok(Bound::new(py, plain_from_numpy(py, x, copy, readonly)?)?.into_any())
}

/// `from_numpy` of a plain (not structured) array.
pub(crate) fn plain_from_numpy(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    copy: bool,
    readonly: bool,
) -> PyResult<ContiguousND> {
    let Ok(array) = x.cast::<PyUntypedArray>() else {
        return Err(to_pyerr(cnda::Error::UnsupportedDType {
            op: "from_numpy",
            got: format!("{} (not a numpy.ndarray)", x.get_type().name()?),
            fix: "wrap it with numpy.asarray()",
        }));
    };
    let dtype = array.dtype();
    if dtype.has_fields() {
        return Err(to_pyerr(cnda::Error::UnsupportedDType {
            op: "from_numpy",
            got: format!("the structured dtype {}", dtype.str()?),
            fix: "pass element= with the matching element type (cnda.Cell2D, cnda.Particle, ...) for a StructuredND",
        }));
    }
    if dtype.is_native_byteorder() == Some(false) {
        if !copy {
            return Err(layout_error(
                format!("the input's dtype {} is byte-swapped, not native byte order", dtype.str()?),
                "use copy=True (which converts), or x.astype(x.dtype.newbyteorder('='))",
            ));
        }
        // `copy=True` takes any layout, byte order included: convert (NumPy's C code, not a
        // subclass's `astype`), reading `x` under a lease, then copy that.
        let native_order = dtype.call_method1("newbyteorder", ("=",))?;
        let np = py.import("numpy")?;
        let native = crate::overlap::reading("from_numpy(copy=True)", "x", x, || {
            np.call_method("array", (x,), Some(&[("dtype", native_order)].into_py_dict(py)?))
        })?;
        return plain_from_numpy(py, &native, true, readonly);
    }
    let data = if dtype.is_equiv_to(&numpy::dtype::<f32>(py)) {
        Data::F32(borrow_or_copy::<f32>(x, copy, readonly)?)
    } else if dtype.is_equiv_to(&numpy::dtype::<f64>(py)) {
        Data::F64(borrow_or_copy::<f64>(x, copy, readonly)?)
    } else if dtype.is_equiv_to(&numpy::dtype::<i32>(py)) {
        Data::I32(borrow_or_copy::<i32>(x, copy, readonly)?)
    } else if dtype.is_equiv_to(&numpy::dtype::<i64>(py)) {
        Data::I64(borrow_or_copy::<i64>(x, copy, readonly)?)
    } else if dtype.is_equiv_to(&numpy::dtype::<Complex<f32>>(py)) {
        Data::C64(borrow_or_copy::<Complex<f32>>(x, copy, readonly)?)
    } else if dtype.is_equiv_to(&numpy::dtype::<Complex<f64>>(py)) {
        Data::C128(borrow_or_copy::<Complex<f64>>(x, copy, readonly)?)
    } else {
        return Err(to_pyerr(cnda::Error::UnsupportedDType {
            op: "from_numpy",
            got: dtype.str()?.to_string(),
            fix: "ContiguousND holds float32, float64, int32, int64, complex64 or complex128; convert with astype()",
        }));
    };
    Ok(ContiguousND { data, exports: Arc::new(AtomicUsize::new(0)) })
}

/// The `ValueError` of a layout `from_numpy(copy=False)` cannot share.
fn layout_error(reason: String, fix: &'static str) -> PyErr {
    to_pyerr(cnda::Error::Layout { op: "from_numpy(copy=False)", reason, fix })
}

/// The store of a NumPy array of element type `T`: borrowed after strict checks, or copied.
fn borrow_or_copy<T: Element + cnda::Pod>(x: &Bound<'_, PyAny>, copy: bool, readonly: bool) -> PyResult<Store<T>> {
    let array = x.cast::<PyArrayDyn<T>>()?;
    let shape = array.shape().to_vec();
    let aligned = array.is_aligned() && (array.data() as usize).is_multiple_of(core::mem::align_of::<T>());
    if copy && !aligned {
        // Misaligned memory (`np.frombuffer(.., offset=1)`) cannot be read as `T`s: NumPy's C
        // code copies it into an aligned array first (under a read lease), which is then copied.
        let np = x.py().import("numpy")?;
        let fresh = crate::overlap::reading("from_numpy(copy=True)", "x", x, || np.call_method1("array", (x,)))?;
        return borrow_or_copy(&fresh, true, readonly);
    }
    if copy {
        // Under a read lease of the bytes copied, taken from the metadata the copy reads (no
        // Python code between): a kernel in another thread may be writing them.
        let span = crate::overlap::span_of::<T>(x);
        let _in_use = crate::overlap::lease("from_numpy(copy=True)", &[crate::overlap::Operand::read("x", span)])?;
        let owned = array.to_owned_array(); // any strides, in logical (row-major) order
        let flat: Vec<T> = owned.iter().copied().collect();
        let len = flat.len();
        let buffer = cnda::Array::<T, 1>::from_shape_vec([len], flat).map_err(to_pyerr)?;
        return Ok(Store::owning(buffer, shape));
    }
    if !array.is_c_contiguous() {
        let how = if array.is_fortran_contiguous() {
            "the input is Fortran-ordered (column-major)".to_string()
        } else {
            format!("the input has strides {:?} bytes for shape {shape:?}", array.strides())
        };
        return Err(layout_error(
            format!("requires a C-contiguous (row-major) array; {how}"),
            "use copy=True or np.ascontiguousarray()",
        ));
    }
    if !aligned {
        return Err(layout_error("requires aligned memory; the input is misaligned".into(), "use copy=True"));
    }
    // From NumPy's C struct: `x.flags` through Python would run a subclass's code, which may
    // move `x` after the checks above.
    let writable = crate::borrow::is_writeable(array.as_untyped());
    if !writable && !readonly {
        return Err(layout_error(
            "requires a writable array; the input is read-only".into(),
            "pass readonly=True for a read-only cnda view, or copy=True",
        ));
    }
    let writable = writable && !readonly;
    Ok(Store {
        memory: Memory::Borrowed {
            keep: Keep::Python(x.clone().unbind()),
            ptr: array.data(),
            len: array.len(),
            writable,
        },
        shape,
    })
}

/// A NumPy array over the buffer of `array` (a result cnda computed), without copying: the NumPy
/// array's base owns the buffer.
pub fn into_numpy<'py, T: Stored, const N: usize>(
    py: Python<'py>,
    array: cnda::Array<T, N>,
) -> PyResult<Bound<'py, PyAny>> {
    let shape = array.shape().to_vec();
    let len = array.len();
    let store = Store::owning(array.into_reshaped([len]), shape);
    let owner = Bound::new(py, ContiguousND { data: T::data(store), exports: Arc::new(AtomicUsize::new(0)) })?;
    ContiguousND::to_numpy(owner, false)
}
