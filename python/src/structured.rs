//! Structured (array-of-structs) elements for NumPy users: every Rust element declared with
//! `cnda::structured!` can be exposed (`expose::<S>`) as an `ElementType` object, whose
//! `from_numpy` validates a structured NumPy dtype strictly against the element's field metadata
//! (`cnda::structured::check_layout`: names, order, types, sizes, offsets, byte order, item size)
//! and shares the memory; `StructuredND.to_numpy()` gives a structured NumPy array over the same
//! memory, `field(name)` a strided view of one field, `to_soa()` / `from_soa()` convert to and
//! from one array per field.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cnda::interop::npy;
use cnda::structured::{ByteOrder, FieldInfo, Structured};
use cnda::DType;
use numpy::{PyArray1, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::array::Export;
use crate::errors::to_pyerr;
use crate::store::{Keep, Memory, Store};

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/class.ElementType.txt"))] // python/cnda.pyi's docstring
#[pyclass(frozen, module = "cnda")]
pub struct ElementType {
    name: &'static str,
    fields: &'static [FieldInfo],
    itemsize: usize,
    /// The strictest alignment a field needs (its size, for cnda's scalar fields).
    align: usize,
    /// `check_layout::<S>`, for a layout read from a NumPy dtype.
    check: fn(&[FieldInfo<String>], usize) -> cnda::Result<()>,
    /// Writes elements (row-major bytes of a shape) as a `.npy` stream of `S`.
    write_npy: fn(&mut dyn std::io::Write, &[usize], &[u8]) -> cnda::Result<()>,
    /// Reads the data after a `.npy` header as row-major bytes of `S`, validated.
    read_npy: fn(&npy::Header, &mut dyn std::io::Read) -> cnda::Result<cnda::Array<u8, 1>>,
}

/// Adds the element type `S` to module `m` under its Rust name.
pub fn expose<S: Structured>(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let element = ElementType {
        name: S::NAME,
        fields: S::FIELDS,
        itemsize: core::mem::size_of::<S>(),
        align: S::FIELDS.iter().map(|f| f.size).max().unwrap_or(1),
        check: |got, itemsize| cnda::structured::check_layout::<S>(got, itemsize),
        write_npy: |w, shape, bytes| {
            // Owned buffers are 64-byte aligned and borrowed ones were checked to `align`.
            let elements: &[S] = bytemuck::try_cast_slice(bytes).map_err(|e| cnda::Error::Layout {
                op: "save",
                reason: e.to_string(),
                fix: "copy the array first",
            })?;
            npy::write_slice(w, shape, elements)
        },
        read_npy: |header, mut r| {
            let typed = npy::read_data::<S>(header, &mut r)?;
            let bytes: &[u8] = bytemuck::cast_slice(typed.as_slice());
            let mut out = cnda::Array::<u8, 1>::try_zeros([bytes.len()])?;
            out.as_mut_slice().copy_from_slice(bytes);
            Ok(out)
        },
    };
    m.add(S::NAME, Py::new(m.py(), element)?)
}

/// NumPy's type string of a cnda scalar type.
fn numpy_format(dtype: DType, order: ByteOrder) -> String {
    let order = match order {
        ByteOrder::Little => '<',
        ByteOrder::Big => '>',
    };
    let kind = match dtype {
        DType::F16 | DType::F32 | DType::F64 => 'f',
        DType::C64 | DType::C128 => 'c',
        DType::U8 | DType::U16 | DType::U32 | DType::U64 | DType::Usize => 'u',
        DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::Isize => 'i',
        DType::BF16 => 'V', // NumPy has no bfloat16: raw bytes
        _ => 'V',           // a type added to cnda later: raw bytes until it is mapped here
    };
    format!("{order}{kind}{}", dtype.size())
}

/// The cnda description of one scalar field of a NumPy structured dtype, or `Error::Structure`.
fn read_field(
    element: &ElementType,
    name: String,
    sub: &Bound<'_, PyAny>,
    offset: usize,
) -> PyResult<FieldInfo<String>> {
    let structure = |reason: String| to_pyerr(cnda::Error::Structure { name: element.name, reason });
    if !sub.getattr("subdtype")?.is_none() || !sub.getattr("names")?.is_none() {
        return Err(structure(format!(
            "field `{name}` is a sub-array or nested struct ({}); fields must be scalars",
            sub.str()?
        )));
    }
    let kind: String = sub.getattr("kind")?.extract()?;
    let size: usize = sub.getattr("itemsize")?.extract()?;
    let dtype = match (kind.as_str(), size) {
        ("f", 2) => DType::F16,
        ("f", 4) => DType::F32,
        ("f", 8) => DType::F64,
        ("i", 1) => DType::I8,
        ("i", 2) => DType::I16,
        ("i", 4) => DType::I32,
        ("i", 8) => DType::I64,
        ("u", 1) => DType::U8,
        ("u", 2) => DType::U16,
        ("u", 4) => DType::U32,
        ("u", 8) => DType::U64,
        ("c", 8) => DType::C64,
        ("c", 16) => DType::C128,
        _ => return Err(structure(format!("field `{name}` has NumPy type {}, which no cnda field has", sub.str()?))),
    };
    let order: String = sub.getattr("byteorder")?.extract()?;
    let byte_order = match order.as_str() {
        "<" => ByteOrder::Little,
        ">" => ByteOrder::Big,
        _ => ByteOrder::NATIVE, // '=' native, '|' not applicable (one byte)
    };
    Ok(FieldInfo { name, offset, dtype, size, byte_order })
}

#[pymethods]
impl ElementType {
    /// The Rust name of the element.
    #[getter]
    fn name(&self) -> &'static str {
        self.name
    }

    /// The size of one element in bytes.
    #[getter]
    fn itemsize(&self) -> usize {
        self.itemsize
    }

    /// The field names, in declaration order.
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.fields.iter().map(|f| f.name))
    }

    /// The NumPy structured dtype with exactly this element's layout.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let spec = PyDict::new(py);
        spec.set_item("names", PyList::new(py, self.fields.iter().map(|f| f.name))?)?;
        spec.set_item("formats", PyList::new(py, self.fields.iter().map(|f| numpy_format(f.dtype, f.byte_order)))?)?;
        spec.set_item("offsets", PyList::new(py, self.fields.iter().map(|f| f.offset))?)?;
        spec.set_item("itemsize", self.itemsize)?;
        py.import("numpy")?.call_method1("dtype", (spec,))
    }

    fn __repr__(&self) -> String {
        let fields: Vec<String> =
            self.fields.iter().map(|f| format!("{}: {} @ {}", f.name, f.dtype, f.offset)).collect();
        format!("cnda.{} ({} bytes: {})", self.name, self.itemsize, fields.join(", "))
    }

    /// A zero-filled `StructuredND` of `shape`.
    fn zeros(slf: Bound<'_, Self>, shape: Vec<usize>) -> PyResult<StructuredND> {
        let element = slf.get();
        // The one size rule, with the element's own size (cannot overflow after the check).
        let bytes = cnda::shape::checked_len("zeros", &shape, element.itemsize).map_err(to_pyerr)? * element.itemsize;
        let buffer = cnda::Array::<u8, 1>::try_zeros([bytes]).map_err(to_pyerr)?;
        Ok(StructuredND::new(Store::owning(buffer, vec![bytes]), shape, slf.unbind()))
    }

    /// Checks that NumPy dtype `dtype` has exactly this element's layout.
    ///
    /// Raises `TypeError` naming the first difference (field count, a name, a type, an offset,
    /// a byte order, the item size).
    fn check(&self, dtype: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = dtype.py();
        let dtype = py.import("numpy")?.call_method1("dtype", (dtype,))?;
        let names = dtype.getattr("names")?;
        if names.is_none() {
            return Err(to_pyerr(cnda::Error::Structure {
                name: self.name,
                reason: format!("got the plain dtype {}, not a structured one", dtype.str()?),
            }));
        }
        let fields = dtype.getattr("fields")?;
        let mut got = Vec::new();
        for name in names.try_iter()? {
            let name: String = name?.extract()?;
            let entry = fields.get_item(&name)?;
            let offset: usize = entry.get_item(1)?.extract()?;
            got.push(read_field(self, name, &entry.get_item(0)?, offset)?);
        }
        let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
        (self.check)(&got, itemsize).map_err(to_pyerr)
    }

    /// A `StructuredND` over NumPy array `x`, whose structured dtype must match this element
    /// exactly. `copy=False` (the default) shares `x`'s memory (C-contiguous, aligned; writable
    /// unless `readonly=True`); `copy=True` copies any strides, under a read lease of `x`'s memory.
    #[pyo3(signature = (x, copy = false, readonly = false))]
    pub fn from_numpy(
        slf: Bound<'_, Self>,
        x: &Bound<'_, PyAny>,
        copy: bool,
        readonly: bool,
    ) -> PyResult<StructuredND> {
        let element = slf.get();
        let Ok(array) = x.cast::<PyUntypedArray>() else {
            return Err(PyTypeError::new_err(format!(
                "{}.from_numpy expects a numpy.ndarray, got {}",
                element.name,
                x.get_type().name()?
            )));
        };
        element.check(&array.dtype().into_any())?;
        let shape = array.shape().to_vec();
        if copy {
            let out = ElementType::zeros(slf.clone(), shape)?;
            let out = Bound::new(x.py(), out)?;
            let view = StructuredND::to_numpy(out.clone())?;
            // NumPy's assignment copies `x` through its C struct (no subclass code), letting go
            // of the interpreter lock on large arrays: under a read lease of `x`'s bytes.
            crate::overlap::reading("from_numpy(copy=True)", "x", x, || {
                view.set_item(pyo3::types::PyEllipsis::get(x.py()), x)
            })?;
            drop(view);
            let store = out.borrow_mut().take_store()?;
            let shape = out.borrow().shape.clone();
            return Ok(StructuredND::new(store, shape, slf.unbind()));
        }
        let layout = |reason: String, fix: &'static str| {
            to_pyerr(cnda::Error::Layout { op: "from_numpy(copy=False)", reason, fix })
        };
        if !array.is_c_contiguous() {
            return Err(layout(
                format!(
                    "requires a C-contiguous array of {}; the input has strides {:?} bytes",
                    element.name,
                    array.strides()
                ),
                "use copy=True or np.ascontiguousarray()",
            ));
        }
        // The address and the flag from NumPy's C struct: `x.__array_interface__` or `x.flags`
        // through Python would run a subclass's code, which may move `x` after the checks above.
        let ptr = crate::borrow::data_address(array) as *mut u8;
        if !(ptr as usize).is_multiple_of(element.align) {
            return Err(layout(
                format!("requires {}-byte aligned memory; the input is misaligned", element.align),
                "use copy=True",
            ));
        }
        let writable = crate::borrow::is_writeable(array);
        if !writable && !readonly {
            return Err(layout(
                "requires a writable array; the input is read-only".into(),
                "pass readonly=True for a read-only view, or copy=True",
            ));
        }
        let bytes = array.len() * element.itemsize;
        let memory = Memory::Borrowed {
            keep: Keep::Python(x.clone().unbind()),
            ptr,
            len: bytes,
            writable: writable && !readonly,
        };
        Ok(StructuredND::new(Store { memory, shape: vec![bytes] }, shape, slf.unbind()))
    }

    /// A `StructuredND` of the fields given as a mapping from field name to an array (every
    /// field, each anything `np.asarray` takes, of the field's NumPy type and one shape): struct
    /// of arrays to array of structs. Each column is copied under a read lease of its memory.
    fn from_soa(slf: Bound<'_, Self>, arrays: &Bound<'_, PyDict>) -> PyResult<StructuredND> {
        let element = slf.get();
        let py = slf.py();
        let names: Vec<&str> = element.fields.iter().map(|f| f.name).collect();
        let structure = |reason: String| to_pyerr(cnda::Error::Structure { name: element.name, reason });
        if arrays.len() != names.len() || names.iter().any(|n| !arrays.contains(n).unwrap_or(false)) {
            let given: Vec<String> = arrays.keys().iter().map(|k| k.to_string()).collect();
            return Err(structure(format!("from_soa needs exactly the fields {names:?}, got {given:?}")));
        }
        // Each column as a plain ndarray (`np.asarray`: a cnda array's memory, any array-like's
        // conversion): the last Python code of theirs that runs.
        let numpy = py.import("numpy")?;
        let columns = element
            .fields
            .iter()
            .map(|field| numpy.call_method1("asarray", (arrays.get_item(field.name)?.expect("checked above"),)))
            .collect::<PyResult<Vec<_>>>()?;
        let shape: Vec<usize> = columns[0].getattr("shape")?.extract()?;
        for (field, column) in element.fields.iter().zip(&columns) {
            let got: Vec<usize> = column.getattr("shape")?.extract()?;
            let want = numpy.call_method1("dtype", (numpy_format(field.dtype, field.byte_order),))?;
            if got != shape || !column.getattr("dtype")?.eq(&want)? {
                return Err(structure(format!(
                    "from_soa: field `{}` must be an array of {} with shape {shape:?}, got {} with shape {got:?}",
                    field.name,
                    want.str()?,
                    column.getattr("dtype")?.str()?
                )));
            }
        }
        let out = Bound::new(py, ElementType::zeros(slf.clone(), shape.clone())?)?;
        let view = StructuredND::to_numpy(out.clone())?;
        for (field, column) in element.fields.iter().zip(&columns) {
            // NumPy copies the column (letting go of the interpreter lock on large ones): under a
            // read lease of its bytes.
            crate::overlap::reading("from_soa", field.name, column, || view.set_item(field.name, column))?;
        }
        drop(view);
        let store = out.borrow_mut().take_store()?;
        Ok(StructuredND::new(store, shape, slf.unbind()))
    }
}

impl ElementType {
    /// A `StructuredND` of the data after `.npy` header `header`, validated against this element.
    pub fn read_npy(slf: Bound<'_, Self>, header: &npy::Header, r: &mut dyn std::io::Read) -> PyResult<StructuredND> {
        let bytes = (slf.get().read_npy)(header, r).map_err(to_pyerr)?;
        let len = bytes.len();
        Ok(StructuredND::new(Store::owning(bytes, vec![len]), header.shape.clone(), slf.unbind()))
    }
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/class.StructuredND.txt"))] // python/cnda.pyi's docstring
#[pyclass(module = "cnda")]
pub struct StructuredND {
    /// The elements' bytes, row-major.
    bytes: Option<Store<u8>>,
    shape: Vec<usize>,
    element: Py<ElementType>,
    /// NumPy views of this array alive now.
    exports: Arc<AtomicUsize>,
}

impl StructuredND {
    /// Writes the elements as a `.npy` stream.
    pub fn write_npy(&self, py: Python<'_>, mut w: impl std::io::Write) -> PyResult<()> {
        crate::overlap::check_read("save", self.span())?;
        (self.element.bind(py).get().write_npy)(&mut w, &self.shape, self.store().as_slice()).map_err(to_pyerr)
    }

    /// The bytes the elements occupy.
    fn span(&self) -> crate::overlap::Span {
        let store = self.store();
        crate::overlap::Span::contiguous(store.ptr() as usize, store.as_slice().len(), 1)
    }

    fn new(bytes: Store<u8>, shape: Vec<usize>, element: Py<ElementType>) -> Self {
        StructuredND { bytes: Some(bytes), shape, element, exports: Arc::new(AtomicUsize::new(0)) }
    }

    fn store(&self) -> &Store<u8> {
        self.bytes.as_ref().expect("only from_soa/from_numpy take the store, from arrays never handed out")
    }

    /// Moves the store out of a fresh array no view references any more.
    fn take_store(&mut self) -> PyResult<Store<u8>> {
        if self.exports.load(Ordering::SeqCst) > 0 {
            return Err(PyBufferError::new_err("internal: a view of a fresh array is still alive"));
        }
        Ok(self.bytes.take().expect("taken once"))
    }
}

#[pymethods]
impl StructuredND {
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.shape)
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.shape.len()
    }

    #[getter]
    fn size(&self) -> usize {
        self.shape.iter().product()
    }

    /// The element type.
    #[getter]
    fn element(&self, py: Python<'_>) -> Py<ElementType> {
        self.element.clone_ref(py)
    }

    /// The NumPy structured dtype of the elements.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.element.bind(py).get().dtype(py)
    }

    /// The address of the first element.
    #[getter]
    fn data_ptr(&self) -> usize {
        self.store().ptr() as usize
    }

    /// Whether this is a read-only view.
    #[getter]
    fn readonly(&self) -> bool {
        !self.store().writable()
    }

    fn __len__(&self) -> PyResult<usize> {
        self.shape.first().copied().ok_or_else(|| PyTypeError::new_err("len() of a 0-dimensional array"))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("StructuredND(shape={:?}, element=cnda.{})", self.shape, self.element.bind(py).get().name)
    }

    /// A structured NumPy array over this array's memory (same address; its base keeps this
    /// array alive), read-only for a read-only array. Index it as NumPy does: `v[i]` is a record,
    /// `v["x"]` a field.
    fn to_numpy(slf: Bound<'_, Self>) -> PyResult<Bound<'_, PyAny>> {
        let py = slf.py();
        let this = slf.borrow();
        let store = this.store();
        let guard = Export::of(py, slf.as_any(), &this.exports)?.into_bound(py);
        let len = store.as_slice().len();
        // SAFETY: the store's pointer addresses `len` initialized bytes, kept alive by the owner
        // that the guard (the NumPy array's base) holds; a StructuredND never reallocates.
        let bytes = unsafe {
            PyArray1::<u8>::borrow_from_array(
                &numpy::ndarray::ArrayView1::from_shape_ptr(len, store.ptr()),
                guard.into_any(),
            )
        };
        if !store.writable() {
            // On the byte array itself, so no view derived from it can be made writable again.
            bytes.getattr("flags")?.setattr("writeable", false)?;
        }
        let dtype = this.element.bind(py).get().dtype(py)?;
        bytes.call_method1("view", (dtype,))?.call_method1("reshape", (PyTuple::new(py, &this.shape)?,))
    }

    /// NumPy's array protocol (`np.asarray(s)`): the structured view `to_numpy()` gives; another
    /// `dtype` a converted copy (refused under `copy=False`).
    #[pyo3(signature = (dtype = None, copy = None))]
    fn __array__<'py>(
        slf: Bound<'py, Self>,
        dtype: Option<Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let view = StructuredND::to_numpy(slf)?;
        let view = match copy {
            // A NumPy copy (the lock let go on large arrays): under a read lease, as `to_soa`.
            Some(true) => crate::overlap::reading("__array__", "this array", &view, || view.call_method0("copy"))?,
            _ => view,
        };
        crate::array::converted(view, dtype, copy)
    }

    /// A NumPy view of field `name` of every element (strided, same memory, writable unless the
    /// array is read-only).
    fn field<'py>(slf: Bound<'py, Self>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let element = slf.borrow().element.clone_ref(slf.py());
        let element = element.bind(slf.py()).get();
        if !element.fields.iter().any(|f| f.name == name) {
            return Err(to_pyerr(cnda::Error::Structure {
                name: element.name,
                reason: format!(
                    "there is no field `{name}`; the fields are {:?}",
                    element.fields.iter().map(|f| f.name).collect::<Vec<_>>()
                ),
            }));
        }
        StructuredND::to_numpy(slf)?.get_item(name)
    }

    /// One contiguous NumPy array per field (copies), in a dict by field name: array of structs
    /// to struct of arrays.
    fn to_soa<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let view = StructuredND::to_numpy(slf.clone())?;
        let out = PyDict::new(py);
        let element = slf.borrow().element.clone_ref(py);
        let numpy = py.import("numpy")?;
        // NumPy copies the fields, letting go of the interpreter lock on large arrays: under a
        // read lease of the elements, so that no kernel starts writing them meanwhile.
        crate::overlap::reading("to_soa", "this array", &view, || {
            for field in element.bind(py).get().fields {
                out.set_item(field.name, numpy.call_method1("ascontiguousarray", (view.get_item(field.name)?,))?)?;
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// A copy in a new cnda buffer.
    fn copy(slf: Bound<'_, Self>) -> PyResult<StructuredND> {
        let py = slf.py();
        crate::overlap::check_read("copy", slf.borrow().span())?;
        let element = slf.borrow().element.clone_ref(py);
        let source = StructuredND::to_numpy(slf)?;
        ElementType::from_numpy(element.into_bound(py), &source, true, false)
    }
}
