//! CUDA arrays for Python (feature `cuda`, on by default; the CUDA libraries are loaded at run
//! time, so the module imports on machines without them): `cnda.CudaArray`, made from host data
//! by `cnda.to_cuda(x)`, shared without a copy with any DLPack producer or consumer on a CUDA
//! device (CuPy, PyTorch, JAX): `cnda.from_dlpack(tensor)` and `torch.from_dlpack(arr)`.
//! Arithmetic (`+ - * /` and their in-place forms, `@`) and reductions (`sum`, `min`, `max`,
//! `mean`) run on the device: the methods here call `cuda_ops.rs` and `cuda_reduce.rs`.
//!
//! Streams: all of cnda's work on a device is ordered on its one stream
//! (`CudaDevice::raw_stream`). An export makes the consumer's stream wait for it through an event
//! (the host waits when the consumer names no stream; nothing happens for `stream=-1`); an import
//! passes it to the producer, which orders its pending writes before it, as the DLPack protocol
//! asks (through the C exchange API, cnda's stream waits for the producer's). An imported array keeps the producer's tensor
//! alive and lets it go only after cnda's queued work on it has finished.

use cnda::backend::cuda::{Cuda, CudaDevice};
use cnda::layout::RowMajor;
use cnda::{Array, ArrayView, Pod};
use dlpark::ffi::{DLDataType, DLDevice, DLManagedTensor, DLManagedTensorVersioned};
use dlpark::metadata::Dynamic;
use dlpark::python::consumer::stream;
use dlpark::python::{
    CudaStreamRequest, DlpackExporter, DlpackStream, ExportRequest, ImportRequest, ImportedDlpack, StreamArg,
};
use dlpark::{DlpackFlags, Managed, ManagedTensorBase};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::array::{ContiguousND, Data, Stored};
use crate::cuda_ops::{self, Binary, Operand};
use crate::cuda_reduce::{self, Reduction};
use crate::dlpack::Sharing;
use crate::errors::to_pyerr;
use crate::store::{element_count, Store};
use crate::variants::by_element;

/// A device array of one element type: a flat cnda `Cuda` array viewed as row-major `shape`.
pub struct DeviceStore<T: Pod> {
    pub(crate) array: Array<T, 1, Cuda>,
    pub(crate) shape: Vec<usize>,
}

/// The elements of a `CudaArray`, by type.
pub enum CudaData {
    F32(DeviceStore<f32>),
    F64(DeviceStore<f64>),
    I32(DeviceStore<i32>),
    I64(DeviceStore<i64>),
    C64(DeviceStore<cnda::Complex<f32>>),
    C128(DeviceStore<cnda::Complex<f64>>),
}

/// The element types a `CudaArray` holds: those of `ContiguousND` (float32, float64, int32,
/// int64, complex64, complex128).
pub trait OnDevice: Stored {
    /// The array data of a device store of this type.
    fn device_data(store: DeviceStore<Self>) -> CudaData;

    /// The store of `data`, when it holds this type.
    fn store(data: &CudaData) -> Option<&DeviceStore<Self>>;

    /// The store of `data`, mutably, when it holds this type.
    fn store_mut(data: &mut CudaData) -> Option<&mut DeviceStore<Self>>;
}

macro_rules! on_device {
    ($($T:ty => $variant:ident),*) => {$(
        impl OnDevice for $T {
            fn device_data(store: DeviceStore<Self>) -> CudaData {
                CudaData::$variant(store)
            }

            fn store(data: &CudaData) -> Option<&DeviceStore<Self>> {
                match data {
                    CudaData::$variant(s) => Some(s),
                    _ => None,
                }
            }

            fn store_mut(data: &mut CudaData) -> Option<&mut DeviceStore<Self>> {
                match data {
                    CudaData::$variant(s) => Some(s),
                    _ => None,
                }
            }
        }
    )*};
}

on_device!(f32 => F32, f64 => F64, i32 => I32, i64 => I64, cnda::Complex<f32> => C64, cnda::Complex<f64> => C128);

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/class.CudaArray.txt"))] // python/cnda.pyi's docstring
#[pyclass(name = "CudaArray", module = "cnda")]
pub struct CudaArray {
    pub(crate) data: CudaData,
}

/// Device `ordinal`, or `RuntimeError` saying why it cannot be opened.
fn open(ordinal: usize) -> PyResult<CudaDevice> {
    CudaDevice::new(ordinal).map_err(to_pyerr)
}

#[pymethods]
impl CudaArray {
    /// The length of each axis.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.dims())
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.dims().len()
    }

    #[getter]
    fn size(&self) -> usize {
        self.dims().iter().product()
    }

    /// The NumPy dtype of the elements.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("numpy")?.call_method1("dtype", (self.dtype_name(),))
    }

    /// The ordinal of the CUDA device the elements are on.
    #[getter]
    fn device(&self) -> usize {
        by_element!(CudaData, &self.data, s, _T => s.array.device().ordinal())
    }

    /// The device address of the first element (as `cupy.ndarray.data.ptr` and
    /// `torch.Tensor.data_ptr()` give theirs).
    #[getter]
    fn data_ptr(&self) -> u64 {
        by_element!(CudaData, &self.data, s, _T => s.array.device_ptr())
    }

    /// The CUDA Array Interface (version 3), for consumers that read it instead of DLPack (Numba,
    /// older CuPy): the memory is ready on the stream it names (cnda's), which the consumer
    /// waits for; the consumer keeps this array alive while it uses the memory.
    #[getter]
    fn __cuda_array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let interface = PyDict::new(py);
        interface.set_item("shape", PyTuple::new(py, self.dims())?)?;
        interface.set_item("typestr", self.dtype(py)?.getattr("str")?)?;
        let (addr, device) = by_element!(CudaData, &self.data, s, _T => (s.array.device_ptr(), s.array.device()));
        // The protocol wants a null pointer for an empty array.
        let addr = if self.dims().contains(&0) { 0 } else { addr };
        interface.set_item("data", (addr, false))?;
        interface.set_item("strides", py.None())?;
        interface.set_item("stream", device.raw_stream() as usize)?;
        interface.set_item("version", 3)?;
        Ok(interface)
    }

    fn __len__(&self) -> PyResult<usize> {
        self.dims().first().copied().ok_or_else(|| PyTypeError::new_err("len() of a 0-dimensional CudaArray"))
    }

    fn __repr__(&self) -> String {
        format!("CudaArray(shape={:?}, dtype={}, device={})", self.dims(), self.dtype_name(), self.device())
    }

    /// The elements, copied to a new host `ContiguousND`; waits for the device's queued work
    /// (with the interpreter lock released).
    fn to_host(&self, py: Python<'_>) -> PyResult<ContiguousND> {
        let data = by_element!(CudaData, &self.data, s, T => {
            let host = py.detach(|| s.array.try_to_host()).map_err(to_pyerr)?;
            T::data(Store::owning(host, s.shape.clone()))
        });
        Ok(ContiguousND::from_data(data))
    }

    /// The elements, copied to a new NumPy array.
    fn to_numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Bound::new(py, self.to_host(py)?)?.call_method0("to_numpy")
    }

    /// A copy on the same device.
    pub fn copy(&self) -> PyResult<CudaArray> {
        let data = by_element!(CudaData, &self.data, s, T => {
            let array = s.array.try_to_owned().map_err(to_pyerr)?;
            T::device_data(DeviceStore { array, shape: s.shape.clone() })
        });
        Ok(CudaArray { data })
    }

    /// Sets every element to `value` (on the device).
    fn fill(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        by_element!(CudaData, &mut self.data, s, T => {
            let value: T = value.extract()?;
            s.array.try_fill(value).map_err(to_pyerr)
        })
    }

    /// Waits until cnda's queued work on the array's device has finished.
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        let device = by_element!(CudaData, &self.data, s, _T => s.array.device());
        py.detach(|| device.synchronize()).map_err(to_pyerr)
    }

    /// A DLPack capsule of the device memory (the Python array API's `__dlpack__`), for
    /// `cupy.from_dlpack(arr)`, `torch.from_dlpack(arr)` ...: zero-copy, the array kept alive
    /// until the consumer lets go; cnda's queued work is waited for unless `stream=-1`.
    /// `copy=True` exports a fresh device copy.
    #[pyo3(signature = (*, stream = None, max_version = None, dl_device = None, copy = None))]
    fn __dlpack__<'py>(
        slf: Bound<'py, Self>,
        stream: Option<Bound<'py, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(u32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let args = crate::dlpack::DlpackArgs { stream, max_version, dl_device, copy };
        crate::dlpack::export(slf, args, CudaArray::copy, |owner| {
            let this = owner.borrow();
            let (addr, device, dtype) = by_element!(CudaData, &this.data, s, T => {
                (s.array.device_ptr(), s.array.device(), crate::dlpack::dl_dtype::<T>())
            });
            let shape = this.dims().iter().map(|&n| n as i64).collect();
            Exporter { owner: owner.clone().into_any().unbind(), addr, device, shape, dtype }
        })
    }

    /// The device of the memory, as DLPack names it: `(2, ordinal)`, a CUDA device.
    fn __dlpack_device__(&self) -> (i32, i32) {
        (dlpark::ffi::DLDeviceType::CUDA.0 as i32, self.device() as i32)
    }

    /// `None`: NumPy defers its operators to the CudaArray's (`ndarray + CudaArray` reaches
    /// `__radd__`, which says how to move the host array to the device).
    #[classattr]
    fn __array_ufunc__(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    /// `self + other` on the device: another CudaArray of the same dtype and device (NumPy
    /// broadcasting), or a Python or NumPy scalar the dtype holds.
    fn __add__(&self, other: Operand<'_>) -> PyResult<CudaArray> {
        cuda_ops::binary(self, &other, Binary::Add, false)
    }

    fn __radd__(&self, other: Operand<'_>) -> PyResult<CudaArray> {
        cuda_ops::binary(self, &other, Binary::Add, true)
    }

    fn __sub__(&self, other: Operand<'_>) -> PyResult<CudaArray> {
        cuda_ops::binary(self, &other, Binary::Sub, false)
    }

    fn __rsub__(&self, other: Operand<'_>) -> PyResult<CudaArray> {
        cuda_ops::binary(self, &other, Binary::Sub, true)
    }

    fn __mul__(&self, other: Operand<'_>) -> PyResult<CudaArray> {
        cuda_ops::binary(self, &other, Binary::Mul, false)
    }

    fn __rmul__(&self, other: Operand<'_>) -> PyResult<CudaArray> {
        cuda_ops::binary(self, &other, Binary::Mul, true)
    }

    /// True division of float arrays (of integers it is a `TypeError`: NumPy's result is float64).
    fn __truediv__(&self, other: Operand<'_>) -> PyResult<CudaArray> {
        cuda_ops::binary(self, &other, Binary::Div, false)
    }

    fn __rtruediv__(&self, other: Operand<'_>) -> PyResult<CudaArray> {
        cuda_ops::binary(self, &other, Binary::Div, true)
    }

    /// `self += other` in the array's own memory (`other` broadcast into its shape).
    fn __iadd__(slf: &Bound<'_, Self>, other: Operand<'_>) -> PyResult<()> {
        cuda_ops::in_place(slf, &other, Binary::Add)
    }

    fn __isub__(slf: &Bound<'_, Self>, other: Operand<'_>) -> PyResult<()> {
        cuda_ops::in_place(slf, &other, Binary::Sub)
    }

    fn __imul__(slf: &Bound<'_, Self>, other: Operand<'_>) -> PyResult<()> {
        cuda_ops::in_place(slf, &other, Binary::Mul)
    }

    fn __itruediv__(slf: &Bound<'_, Self>, other: Operand<'_>) -> PyResult<()> {
        cuda_ops::in_place(slf, &other, Binary::Div)
    }

    /// `self @ other` for 2D float32 or float64 CudaArrays (cuBLAS).
    fn __matmul__(&self, other: Operand<'_>) -> PyResult<CudaArray> {
        cuda_ops::matmul(self, &other, false)
    }

    fn __rmatmul__(&self, other: Operand<'_>) -> PyResult<CudaArray> {
        cuda_ops::matmul(self, &other, true)
    }

    /// The matrix product `self @ other` of 2D float32 or float64 CudaArrays (cuBLAS).
    fn matmul(&self, other: Operand<'_>) -> PyResult<CudaArray> {
        cuda_ops::matmul(self, &other, false)
    }

    /// The sum of all elements (a NumPy scalar of the dtype) or along `axis` (an int or a tuple
    /// of ints: a CudaArray); int32 is a `TypeError` (NumPy sums it in int64).
    #[pyo3(signature = (axis = None))]
    fn sum<'py>(&self, py: Python<'py>, axis: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        cuda_reduce::reduce(py, self, axis.as_ref(), Reduction::Sum)
    }

    /// The smallest element (NaN if any is), as `sum` for `axis`; `ValueError` when empty.
    #[pyo3(signature = (axis = None))]
    fn min<'py>(&self, py: Python<'py>, axis: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        cuda_reduce::reduce(py, self, axis.as_ref(), Reduction::Min)
    }

    /// The largest element (NaN if any is), as `sum` for `axis`; `ValueError` when empty.
    #[pyo3(signature = (axis = None))]
    fn max<'py>(&self, py: Python<'py>, axis: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        cuda_reduce::reduce(py, self, axis.as_ref(), Reduction::Max)
    }

    /// The mean of float arrays, as `sum` for `axis` (NaN with a `RuntimeWarning` when empty);
    /// integer arrays are a `TypeError` (NumPy's mean of them is float64).
    #[pyo3(signature = (axis = None))]
    fn mean<'py>(&self, py: Python<'py>, axis: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        cuda_reduce::reduce(py, self, axis.as_ref(), Reduction::Mean)
    }
}

impl CudaArray {
    pub(crate) fn dims(&self) -> &[usize] {
        by_element!(CudaData, &self.data, s, _T => &s.shape)
    }

    pub(crate) fn dtype_name(&self) -> &'static str {
        match self.data {
            CudaData::F32(_) => "float32",
            CudaData::F64(_) => "float64",
            CudaData::I32(_) => "int32",
            CudaData::I64(_) => "int64",
            CudaData::C64(_) => "complex64",
            CudaData::C128(_) => "complex128",
        }
    }
}

/// One `__dlpack__` call's view of a `CudaArray`.
struct Exporter {
    owner: Py<PyAny>,
    addr: u64,
    device: CudaDevice,
    shape: Vec<i64>,
    dtype: DLDataType,
}

impl Exporter {
    fn dl_device(&self) -> DLDevice {
        DLDevice::cuda(self.device.ordinal() as i32)
    }

    fn tensor<M: ManagedTensorBase>(&self, py: Python<'_>) -> PyResult<Managed<M>> {
        let prepared = Dynamic::compact(self.shape.as_slice())
            .prepare_as::<M>()
            .map_err(|e| PyValueError::new_err(format!("__dlpack__: {e}")))?;
        // The capsule's context keeps the array, and so its device memory, alive until the
        // consumer's deleter drops it.
        let mut tensor = prepared.initialize(Box::new(self.owner.clone_ref(py)));
        tensor.set_data(self.addr as *mut core::ffi::c_void).set_device(self.dl_device()).set_dtype(self.dtype);
        // SAFETY: the address is the first element of the array's compact row-major elements of
        // `shape` on this device, kept allocated by the owner in the context until the tensor is
        // dropped.
        Ok(unsafe { tensor.finish() })
    }
}

impl DlpackExporter for Exporter {
    fn device(&self) -> DLDevice {
        self.dl_device()
    }

    fn flags(&self) -> DlpackFlags {
        DlpackFlags::empty()
    }

    fn prepare_export(&self, py: Python<'_>, request: &ExportRequest<'_>) -> PyResult<()> {
        let consumer = match request.cuda_stream()? {
            // The consumer orders itself.
            CudaStreamRequest::NoSync => return Ok(()),
            // No stream named: the host waits for cnda's work, which orders it before any
            // stream the consumer uses next.
            CudaStreamRequest::Omitted => {
                let device = self.device;
                return py.detach(|| device.synchronize()).map_err(to_pyerr);
            }
            CudaStreamRequest::LegacyDefault => 1,
            CudaStreamRequest::PerThreadDefault => 2,
            CudaStreamRequest::Pointer(stream) => stream,
        };
        // SAFETY: the consumer names a live stream of this device, or a default-stream handle,
        // as the DLPack protocol requires of it.
        unsafe { self.device.make_stream_wait(consumer as *mut core::ffi::c_void) }.map_err(to_pyerr)
    }

    fn export_legacy(&self, py: Python<'_>) -> PyResult<Managed<DLManagedTensor>> {
        self.tensor(py)
    }

    fn export_versioned(&self, py: Python<'_>) -> PyResult<Managed<DLManagedTensorVersioned>> {
        self.tensor(py)
    }
}

/// cnda's stream on a device, handed to DLPack producers so that they order their pending writes
/// before it.
struct CndaStream(CudaDevice);

// SAFETY: the raw stream is the device's stream, live for the life of the process, and is passed
// by CUDA's Python DLPack convention (a pointer-sized integer).
unsafe impl DlpackStream for CndaStream {
    fn as_python_arg(&self, _py: Python<'_>, _device: DLDevice) -> PyResult<StreamArg> {
        Ok(stream::cuda(self.0.raw_stream()))
    }

    /// Through the DLPack C exchange API (PyTorch): cnda's stream waits for the producer's.
    unsafe fn wait_for_producer(&self, _device: DLDevice, producer: *mut core::ffi::c_void) -> PyResult<bool> {
        // SAFETY: dlpark passes the producer's live work stream on this device (its contract).
        unsafe { self.0.wait_for_stream(producer) }.map_err(to_pyerr)?;
        Ok(true)
    }
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.cuda_device_count.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
pub fn cuda_device_count() -> usize {
    CudaDevice::count()
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.to_cuda.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
#[pyo3(signature = (x, device = 0))]
pub fn to_cuda(py: Python<'_>, x: &Bound<'_, PyAny>, device: usize) -> PyResult<CudaArray> {
    let dev = open(device)?;
    let upload = |host: &ContiguousND| -> PyResult<CudaArray> {
        let data = by_element!(Data, host.data(), s, T => {
            crate::overlap::check_read("to_cuda", host.span())?;
            let view = ArrayView::<T, 1, RowMajor>::from_slice([s.as_slice().len()], s.as_slice()).map_err(to_pyerr)?;
            let array = view.try_to_backend(&dev).map_err(to_pyerr)?;
            T::device_data(DeviceStore { array, shape: s.shape.clone() })
        });
        Ok(CudaArray { data })
    };
    if let Ok(host) = x.cast::<ContiguousND>() {
        return upload(&host.borrow());
    }
    // NumPy memory is read in place when it can be; other layouts are copied on the host first.
    let host = crate::array::plain_from_numpy(py, x, false, true)
        .or_else(|_| crate::array::plain_from_numpy(py, x, true, false))?;
    upload(&host)
}

/// `from_dlpack` of a producer on CUDA device `device` (discovered by `request`): the producer is
/// asked to order its writes before cnda's stream.
pub fn import(request: ImportRequest<'_>, device: DLDevice, sharing: Sharing) -> PyResult<CudaArray> {
    let dev = open(device.device_id.max(0) as usize)?;
    let imported = request.import(Some(&CndaStream(dev)), None)?;
    wrap(imported, dev, sharing)
}

/// A `CudaArray` over an imported CUDA tensor (or a device copy of it, as `sharing` says).
pub fn wrap(imported: ImportedDlpack, dev: CudaDevice, sharing: Sharing) -> PyResult<CudaArray> {
    let read_only = imported.flags().contains(DlpackFlags::READ_ONLY);
    let copy = sharing == Sharing::Copied || (sharing == Sharing::Read && read_only);
    let fail = |e: dlpark::tensor::Error| PyValueError::new_err(format!("from_dlpack: {e}"));
    let tensor = imported.validate().map_err(fail)?;
    let shape: Vec<usize> = tensor.shape().iter().map(|&n| n as usize).collect();
    if !tensor.is_compact().map_err(fail)? {
        let strides = tensor.strides_or_compact().map_err(fail)?.to_vec();
        return Err(to_pyerr(cnda::Error::Layout {
            op: "from_dlpack",
            reason: format!(
                "CUDA tensors are shared or copied when C-contiguous (row-major); this one has strides {strides:?} elements for shape {shape:?}"
            ),
            fix: "make it contiguous on its device first (tensor.contiguous(), cupy.ascontiguousarray())",
        }));
    }
    if !copy && read_only {
        return Err(to_pyerr(cnda::Error::Ownership {
            op: "from_dlpack",
            reason: "the producer exported its tensor read-only, and a CudaArray is writable".into(),
            fix: "use copy=True",
        }));
    }
    let dtype = tensor.dtype();
    // SAFETY: only address arithmetic (the byte offset applied to the data pointer); nothing is
    // dereferenced on the host.
    let addr = unsafe { tensor.offset_bytes_ptr() }.map_err(fail)? as u64;
    let parts = Parts { addr, shape, dev, copy };
    match (dtype.code, dtype.bits, dtype.lanes) {
        (dlpark::ffi::DLDataTypeCode::FLOAT, 32, 1) => parts.into_array::<f32>(imported),
        (dlpark::ffi::DLDataTypeCode::FLOAT, 64, 1) => parts.into_array::<f64>(imported),
        (dlpark::ffi::DLDataTypeCode::INT, 32, 1) => parts.into_array::<i32>(imported),
        (dlpark::ffi::DLDataTypeCode::INT, 64, 1) => parts.into_array::<i64>(imported),
        (dlpark::ffi::DLDataTypeCode::COMPLEX, 64, 1) => parts.into_array::<cnda::Complex<f32>>(imported),
        (dlpark::ffi::DLDataTypeCode::COMPLEX, 128, 1) => parts.into_array::<cnda::Complex<f64>>(imported),
        (code, bits, lanes) => Err(to_pyerr(cnda::Error::UnsupportedDType {
            op: "from_dlpack",
            got: format!("DLPack code {} with {bits} bits x {lanes} lanes", code.0),
            fix: "CudaArray holds float32, float64, int32, int64, complex64 or complex128; convert the tensor first",
        })),
    }
}

/// What an imported CUDA tensor describes.
struct Parts {
    addr: u64,
    shape: Vec<usize>,
    dev: CudaDevice,
    copy: bool,
}

impl Parts {
    fn into_array<T: OnDevice>(self, imported: ImportedDlpack) -> PyResult<CudaArray> {
        let len = element_count::<T>("from_dlpack", &self.shape)?;
        // SAFETY: a validated, compact CUDA tensor of `len` elements of `T` at `addr` on this
        // device (its DLPack descriptor says so); the deleter kept by the array keeps it
        // allocated, and the producer ordered its writes before cnda's stream on import. Other
        // writers while cnda works on it are the user's to order, as between any two CUDA
        // libraries sharing memory.
        let shared = unsafe {
            Array::<T, 1, Cuda>::try_from_device_memory(&self.dev, self.addr, [len], imported.into_deleter())
        }
        .map_err(to_pyerr)?;
        let array = if self.copy { shared.try_to_owned().map_err(to_pyerr)? } else { shared };
        Ok(CudaArray { data: T::device_data(DeviceStore { array, shape: self.shape }) })
    }
}
