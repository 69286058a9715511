//! DLPack both ways through the `dlpark` crate: `ContiguousND.__dlpack__` /
//! `__dlpack_device__` hand cnda memory to NumPy, PyTorch, CuPy ... without a copy (the capsule's
//! context holds an export guard, so the owner stays alive and unresizable), and
//! `cnda.from_dlpack(obj)` shares any CPU producer's memory (kept alive by the imported tensor's
//! deleter), or copies it with `copy=True`.

use dlpark::ffi::{DLDataType, DLDataTypeCode, DLDevice, DLDeviceType, DLManagedTensor, DLManagedTensorVersioned};
use dlpark::metadata::Dynamic;
use dlpark::python::{export_dlpack, DlpackExporter, ExportRequest, ImportRequest, ImportedDlpack};
use dlpark::{DlpackFlags, Managed, ManagedTensorBase};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::{PyClass, PyClassInitializer};

use crate::array::{ContiguousND, Export, Stored};
use crate::errors::to_pyerr;
use crate::overlap::{lease, Operand, Span};
use crate::store::{Keep, Memory, Store};

/// One `__dlpack__` call's view of a `ContiguousND`: its memory and shape, and the guard each
/// capsule keeps.
pub struct Exporter<'py> {
    owner: Bound<'py, ContiguousND>,
    ptr: *mut core::ffi::c_void,
    shape: Vec<i64>,
    dtype: DLDataType,
    writable: bool,
}

impl Exporter<'_> {
    fn tensor<M: ManagedTensorBase>(&self, py: Python<'_>) -> PyResult<Managed<M>> {
        let guard = Export::new(py, &self.owner)?;
        let prepared = Dynamic::compact(self.shape.as_slice())
            .prepare_as::<M>()
            .map_err(|e| PyValueError::new_err(format!("__dlpack__: {e}")))?;
        // The capsule's context: the guard keeps the owner alive and counts as one export, so
        // the owner refuses to resize until the consumer's deleter drops it.
        let mut tensor = prepared.initialize(Box::new(guard));
        tensor.set_data(self.ptr).set_device(DLDevice::CPU).set_dtype(self.dtype);
        if !self.writable {
            tensor.set_flags(DlpackFlags::READ_ONLY).map_err(|e| PyValueError::new_err(e.to_string()))?;
        }
        // SAFETY: the data pointer addresses the compact row-major elements of `shape` in the
        // owner's memory, which the guard in the context keeps alive and unresized until the
        // tensor is dropped; the read-only flag is set for read-only memory.
        Ok(unsafe { tensor.finish() })
    }
}

impl DlpackExporter for Exporter<'_> {
    fn device(&self) -> DLDevice {
        DLDevice::CPU
    }

    fn flags(&self) -> DlpackFlags {
        if self.writable {
            DlpackFlags::empty()
        } else {
            DlpackFlags::READ_ONLY
        }
    }

    fn prepare_export(&self, _py: Python<'_>, _request: &ExportRequest<'_>) -> PyResult<()> {
        Ok(()) // CPU memory: nothing to synchronize
    }

    fn export_legacy(&self, py: Python<'_>) -> PyResult<Managed<DLManagedTensor>> {
        self.tensor(py)
    }

    fn export_versioned(&self, py: Python<'_>) -> PyResult<Managed<DLManagedTensorVersioned>> {
        self.tensor(py)
    }
}

/// The DLPack type of a stored element type.
pub(crate) fn dl_dtype<T: Stored>() -> DLDataType {
    let code = match <T as cnda::Element>::DTYPE {
        cnda::DType::F16 | cnda::DType::F32 | cnda::DType::F64 => DLDataTypeCode::FLOAT,
        cnda::DType::BF16 => DLDataTypeCode::BFLOAT,
        cnda::DType::C64 | cnda::DType::C128 => DLDataTypeCode::COMPLEX,
        cnda::DType::U8 | cnda::DType::U16 | cnda::DType::U32 | cnda::DType::U64 | cnda::DType::Usize => {
            DLDataTypeCode::UINT
        }
        cnda::DType::I8 | cnda::DType::I16 | cnda::DType::I32 | cnda::DType::I64 | cnda::DType::Isize => {
            DLDataTypeCode::INT
        }
        other => unreachable!("a stored element type without a DLPack code: {other}"),
    };
    DLDataType::scalar(code, (core::mem::size_of::<T>() * 8) as u8)
}

/// The arguments of a `__dlpack__` call, as the Python array API names them.
pub struct DlpackArgs<'py> {
    pub stream: Option<Bound<'py, PyAny>>,
    pub max_version: Option<(u32, u32)>,
    pub dl_device: Option<(u32, i32)>,
    pub copy: Option<bool>,
}

/// `owner.__dlpack__(...)` for any cnda array class: a capsule over the owner's memory, or with
/// `copy=True` over a fresh copy's (made by `copy_of`), described by the exporter `exporter_of`
/// makes (which keeps its owner alive in the capsule).
pub fn export<'py, A, E>(
    owner: Bound<'py, A>,
    args: DlpackArgs<'py>,
    copy_of: impl FnOnce(&A) -> PyResult<A>,
    exporter_of: impl FnOnce(&Bound<'py, A>) -> E,
) -> PyResult<Py<PyAny>>
where
    A: PyClass + Into<PyClassInitializer<A>>,
    E: DlpackExporter,
{
    let py = owner.py();
    let owner = if args.copy == Some(true) { Bound::new(py, copy_of(&owner.borrow())?)? } else { owner };
    // A copy was made here, so what is exported is a zero-copy export of it.
    let request =
        ExportRequest::parse(args.stream.as_ref(), args.max_version, args.dl_device, args.copy.filter(|&c| !c))?;
    export_dlpack(&exporter_of(&owner), py, request)
}

/// The exporter of a `ContiguousND`.
pub fn exporter_of<'py>(owner: &Bound<'py, ContiguousND>) -> Exporter<'py> {
    let this = owner.borrow();
    let (ptr, dtype, writable) = this.raw_parts();
    let shape = this.dims().iter().map(|&n| n as i64).collect();
    Exporter { owner: owner.clone(), ptr, shape, dtype, writable }
}

/// The pointer, DLPack type and writability of a stored array, for export.
pub fn raw_parts_of<T: Stored>(store: &Store<T>) -> (*mut core::ffi::c_void, DLDataType, bool) {
    (store.ptr().cast(), dl_dtype::<T>(), store.writable())
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.from_dlpack.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
#[pyo3(signature = (x, copy = false))]
pub fn from_dlpack(py: Python<'_>, x: &Bound<'_, PyAny>, copy: bool) -> PyResult<Py<PyAny>> {
    import(py, x, if copy { Sharing::Copied } else { Sharing::Writable })
}

/// How an import treats the producer's memory.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Sharing {
    /// Shared; a read-only export of CUDA memory is refused (a `CudaArray` is writable).
    Writable,
    /// Copied on the producer's device.
    Copied,
    /// Shared, or copied where the producer exports read-only: for callers that only read.
    Read,
}

/// [`from_dlpack`] with `sharing`.
pub fn import(py: Python<'_>, x: &Bound<'_, PyAny>, sharing: Sharing) -> PyResult<Py<PyAny>> {
    let copy = sharing == Sharing::Copied;
    let request = ImportRequest::new(x.as_borrowed())?;
    #[cfg(feature = "cuda")]
    if let Ok(device) = request.device() {
        if device.device_type == DLDeviceType::CUDA {
            return Ok(Bound::new(py, crate::cuda::import(request, device, sharing)?)?.into_any().unbind());
        }
    }
    let imported = request.import(None, None)?;
    let device = imported.validate().map_err(|e| PyValueError::new_err(format!("from_dlpack: {e}")))?.device();
    #[cfg(feature = "cuda")]
    if device.device_type == DLDeviceType::CUDA {
        // A capsule, or a producer without `__dlpack_device__`: already exported on its terms.
        let dev = cnda::backend::cuda::CudaDevice::new(device.device_id.max(0) as usize).map_err(to_pyerr)?;
        return Ok(Bound::new(py, crate::cuda::wrap(imported, dev, sharing)?)?.into_any().unbind());
    }
    Ok(Bound::new(py, host_array(imported, device, copy)?)?.into_any().unbind())
}

/// A `ContiguousND` over (or copied from) an imported tensor in host memory.
fn host_array(imported: ImportedDlpack, device: DLDevice, copy: bool) -> PyResult<ContiguousND> {
    let tensor = imported.validate().map_err(|e| PyValueError::new_err(format!("from_dlpack: {e}")))?;
    if device.device_type != DLDeviceType::CPU {
        return Err(to_pyerr(cnda::Error::Device {
            backend: "cpu",
            message: format!(
                "from_dlpack: the tensor lives on device type {} (id {}), and cnda's arrays live in host memory or on CUDA devices; copy it to the host first (tensor.cpu(), cupy.asnumpy)",
                device.device_type.0, device.device_id
            ),
        }));
    }
    let shape: Vec<usize> = tensor.shape().iter().map(|&n| n as usize).collect();
    let strides = tensor.strides_or_compact().map_err(|e| PyValueError::new_err(format!("from_dlpack: {e}")))?;
    let strides: Vec<isize> = strides.iter().map(|&s| s as isize).collect();
    let compact = tensor.is_compact().map_err(|e| PyValueError::new_err(format!("from_dlpack: {e}")))?;
    let writable = !imported.flags().contains(DlpackFlags::READ_ONLY);
    let dtype = tensor.dtype();
    // SAFETY: a validated CPU tensor's adjusted pointer addresses its elements for as long as the
    // imported tensor lives.
    let base = unsafe { tensor.offset_bytes_ptr() }.map_err(|e| PyValueError::new_err(format!("from_dlpack: {e}")))?;
    let parts = Parts { base: base.cast_mut(), shape, strides, compact, writable };
    let data = match (dtype.code, dtype.bits, dtype.lanes) {
        (DLDataTypeCode::FLOAT, 32, 1) => parts.into_store::<f32>(imported, copy)?,
        (DLDataTypeCode::FLOAT, 64, 1) => parts.into_store::<f64>(imported, copy)?,
        (DLDataTypeCode::INT, 32, 1) => parts.into_store::<i32>(imported, copy)?,
        (DLDataTypeCode::INT, 64, 1) => parts.into_store::<i64>(imported, copy)?,
        (DLDataTypeCode::COMPLEX, 64, 1) => parts.into_store::<cnda::Complex<f32>>(imported, copy)?,
        (DLDataTypeCode::COMPLEX, 128, 1) => parts.into_store::<cnda::Complex<f64>>(imported, copy)?,
        (code, bits, lanes) => return Err(to_pyerr(cnda::Error::UnsupportedDType {
            op: "from_dlpack",
            got: format!("DLPack code {} with {bits} bits x {lanes} lanes", code.0),
            fix: "ContiguousND holds float32, float64, int32, int64, complex64 or complex128; convert the tensor first",
        })),
    };
    Ok(ContiguousND::from_data(data))
}

/// What an imported tensor describes.
struct Parts {
    base: *mut u8,
    shape: Vec<usize>,
    strides: Vec<isize>,
    compact: bool,
    writable: bool,
}

impl Parts {
    fn into_store<T: Stored>(self, imported: ImportedDlpack, copy: bool) -> PyResult<crate::array::Data> {
        let len = crate::store::element_count::<T>("from_dlpack", &self.shape)?;
        let ptr = self.base.cast::<T>();
        if copy {
            let mut buffer = cnda::Array::<T, 1>::try_zeros([len]).map_err(to_pyerr)?;
            // The bytes copied, read under a lease: a kernel in another thread may be writing
            // them (a NumPy producer's memory, or a cnda array's).
            let size = core::mem::size_of::<T>();
            let byte_strides: Vec<isize> = self.strides.iter().map(|&s| s.saturating_mul(size as isize)).collect();
            let span = Span::new(ptr as usize, &self.shape, &byte_strides, size);
            let _in_use = lease("from_dlpack(copy=True)", &[Operand::read("x", span)])?;
            if len > 0 {
                // SAFETY: the tensor's shape and strides from `ptr` reach its elements (the
                // producer's DLPack contract), alive while `imported` is (to the end of this
                // function).
                let view = unsafe { cnda::view::DynView::from_raw_strided(ptr, &self.shape, &self.strides) }
                    .map_err(to_pyerr)?;
                view.try_copy_to_slice(buffer.as_mut_slice()).map_err(to_pyerr)?;
            }
            return Ok(T::data(Store::owning(buffer, self.shape)));
        }
        if !self.compact {
            return Err(to_pyerr(cnda::Error::Layout {
                op: "from_dlpack(copy=False)",
                reason: format!(
                    "requires a C-contiguous (row-major) tensor; this one has strides {:?} elements for shape {:?}",
                    self.strides, self.shape
                ),
                fix: "use copy=True, or make the tensor contiguous first",
            }));
        }
        if len > 0 && !ptr.is_aligned() {
            return Err(to_pyerr(cnda::Error::Layout {
                op: "from_dlpack(copy=False)",
                reason: "the tensor's data is misaligned".into(),
                fix: "use copy=True",
            }));
        }
        let ptr = if len == 0 { core::ptr::NonNull::<T>::dangling().as_ptr() } else { ptr };
        let memory =
            Memory::Borrowed { keep: Keep::Dlpack(imported.into_deleter()), ptr, len, writable: self.writable };
        Ok(T::data(Store { memory, shape: self.shape }))
    }
}

/// `ContiguousND.__dlpack_device__()`: the CPU.
pub fn device() -> (i32, i32) {
    (DLDeviceType::CPU.0 as i32, 0)
}
