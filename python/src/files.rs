//! `cnda.save` / `cnda.load`: `.npy` files through cnda's own reader and writer (feature `npy`),
//! with its strict validation, for plain and structured arrays.

use std::fs::File;
use std::io::{BufReader, BufWriter, Seek};
use std::path::PathBuf;

use cnda::interop::npy::{self, NpyLayout};
use cnda::DType;
use pyo3::prelude::*;

use crate::array::{ContiguousND, Data, Stored};
use crate::errors::to_pyerr;
use crate::store::Store;
use crate::structured::{ElementType, StructuredND};

fn io(op: &'static str, e: std::io::Error) -> PyErr {
    to_pyerr(cnda::Error::Io { op, reason: e.to_string() })
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.save.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
pub fn save(py: Python<'_>, path: PathBuf, arr: &Bound<'_, PyAny>) -> PyResult<()> {
    let file = BufWriter::new(File::create(&path).map_err(|e| io("save", e))?);
    if let Ok(a) = arr.cast::<ContiguousND>() {
        return a.borrow().write_npy(file);
    }
    if let Ok(a) = arr.cast::<StructuredND>() {
        return a.borrow().write_npy(py, file);
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "save takes a cnda.ContiguousND or cnda.StructuredND, got {}; use cnda.from_numpy(x) first",
        arr.get_type().name()?
    )))
}

/// The data after `header`, `available` bytes of file left: a file shorter than its header says
/// is an `OSError` naming both sizes, before anything is allocated.
fn plain<T: Stored>(header: &npy::Header, r: &mut impl std::io::Read, available: u64) -> PyResult<Data> {
    let data = npy::read_data_sized::<T>(header, r, available).map_err(to_pyerr)?;
    Ok(T::data(Store::owning(data, header.shape.clone())))
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.load.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
#[pyo3(signature = (path, element = None))]
pub fn load<'py>(
    py: Python<'py>,
    path: PathBuf,
    element: Option<Bound<'py, ElementType>>,
) -> PyResult<Bound<'py, PyAny>> {
    let file = File::open(&path).map_err(|e| io("load", e))?;
    let length = file.metadata().map_err(|e| io("load", e))?.len();
    let mut file = BufReader::new(file);
    let header = npy::read_header(&mut file).map_err(to_pyerr)?;
    let available = length.saturating_sub(file.stream_position().map_err(|e| io("load", e))?);
    if let Some(element) = element {
        return Ok(Bound::new(py, ElementType::read_npy(element, &header, &mut file)?)?.into_any());
    }
    let data = match &header.layout {
        NpyLayout::Scalar { dtype: DType::F32, .. } => plain::<f32>(&header, &mut file, available)?,
        NpyLayout::Scalar { dtype: DType::F64, .. } => plain::<f64>(&header, &mut file, available)?,
        NpyLayout::Scalar { dtype: DType::I32, .. } => plain::<i32>(&header, &mut file, available)?,
        NpyLayout::Scalar { dtype: DType::I64, .. } => plain::<i64>(&header, &mut file, available)?,
        NpyLayout::Scalar { dtype: DType::C64, .. } => plain::<cnda::Complex<f32>>(&header, &mut file, available)?,
        NpyLayout::Scalar { dtype: DType::C128, .. } => plain::<cnda::Complex<f64>>(&header, &mut file, available)?,
        NpyLayout::Scalar { dtype, .. } => {
            return Err(to_pyerr(cnda::Error::UnsupportedDType {
                op: "load",
                got: dtype.to_string(),
                fix: "ContiguousND holds float32, float64, int32, int64, complex64 or complex128; load it with np.load and convert",
            }))
        }
        NpyLayout::Structured { fields, .. } => {
            return Err(to_pyerr(cnda::Error::UnsupportedDType {
                op: "load",
                got: format!("records of {} fields", fields.len()),
                fix: "pass element= with the matching element type (cnda.Cell2D, cnda.Particle, ...)",
            }))
        }
    };
    Ok(Bound::new(py, ContiguousND::from_data(data))?.into_any())
}
