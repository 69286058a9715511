//! The `cnda` Python module: contiguous N-dimensional arrays in cnda's cache-line aligned buffers,
//! shared with NumPy without copies in both directions, with CNDA's safety contract at the
//! boundary (bounds-checked indexing, strict validation, typed exceptions, owners kept alive).

#![warn(clippy::undocumented_unsafe_blocks)]

mod array;
mod axes;
mod borrow;
#[cfg(feature = "cuda")]
mod cuda;
#[cfg(feature = "cuda")]
mod cuda_elements;
#[cfg(feature = "cuda")]
mod cuda_ops;
#[cfg(feature = "cuda")]
mod cuda_reduce;
#[cfg(feature = "cuda")]
mod cuda_solve;
#[cfg(feature = "cuda")]
mod cuda_stencil;
mod dlpack;
pub mod elements;
mod errors;
mod fft;
mod files;
mod kernels;
mod operands;
mod ops;
mod overlap;
mod pad;
mod solve;
mod sparse;
mod stencil_args;
mod stencil_state;
mod store;
mod structured;
mod sweeps;
mod text;
mod text_points;
mod text_state;
mod variants;

use pyo3::prelude::*;

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/module.txt"))] // python/cnda.pyi's docstring
#[pymodule]
fn cnda(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<array::ContiguousND>()?;
    m.add_class::<text::Stencil>()?;
    m.add_class::<stencil_state::StencilState>()?;
    m.add_class::<array::Export>()?;
    m.add_class::<structured::ElementType>()?;
    m.add_class::<structured::StructuredND>()?;
    structured::expose::<elements::Cell2D>(m)?;
    structured::expose::<elements::Particle>(m)?;
    m.add_function(wrap_pyfunction!(array::from_numpy, m)?)?;
    m.add_function(wrap_pyfunction!(dlpack::from_dlpack, m)?)?;
    #[cfg(feature = "cuda")]
    {
        m.add_class::<cuda::CudaArray>()?;
        m.add_function(wrap_pyfunction!(cuda::cuda_device_count, m)?)?;
        m.add_function(wrap_pyfunction!(cuda::to_cuda, m)?)?;
    }
    m.add_function(wrap_pyfunction!(files::save, m)?)?;
    m.add_function(wrap_pyfunction!(files::load, m)?)?;
    m.add_function(wrap_pyfunction!(store::live_buffers, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::stencil, m)?)?;
    m.add_function(wrap_pyfunction!(ops::add, m)?)?;
    m.add_function(wrap_pyfunction!(ops::subtract, m)?)?;
    m.add_function(wrap_pyfunction!(ops::multiply, m)?)?;
    m.add_function(wrap_pyfunction!(ops::divide, m)?)?;
    m.add_function(wrap_pyfunction!(ops::iadd, m)?)?;
    m.add_function(wrap_pyfunction!(ops::isubtract, m)?)?;
    m.add_function(wrap_pyfunction!(ops::imultiply, m)?)?;
    m.add_function(wrap_pyfunction!(ops::idivide, m)?)?;
    m.add_function(wrap_pyfunction!(ops::sum, m)?)?;
    m.add_function(wrap_pyfunction!(ops::matmul, m)?)?;
    m.add_function(wrap_pyfunction!(pad::pad, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve, m)?)?;
    m.add_function(wrap_pyfunction!(sparse::stencil_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(sparse::read_matrix_market, m)?)?;
    m.add_function(wrap_pyfunction!(sparse::write_matrix_market, m)?)?;
    m.add_function(wrap_pyfunction!(sparse::spmv, m)?)?;
    fft::register(m)?;
    // CNDA's per-type names: the same class with the element type fixed.
    let numpy_dtypes = [("f32", "float32"), ("f64", "float64"), ("i32", "int32"), ("i64", "int64")];
    let make = m.getattr("ContiguousND")?;
    let functools = m.py().import("functools")?;
    for (suffix, dtype) in numpy_dtypes {
        let kwargs = pyo3::types::PyDict::new(m.py());
        kwargs.set_item("dtype", dtype)?;
        let alias = functools.call_method("partial", (make.clone(),), Some(&kwargs))?;
        m.add(format!("ContiguousND_{suffix}").as_str(), alias)?;
    }
    Ok(())
}
