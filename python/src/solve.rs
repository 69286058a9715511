//! `cnda.solve`: `A x = b` on NumPy arrays of float32 or float64, 1D to 3D, the operator a
//! constant-coefficient stencil with its boundaries (taps and boundaries as `cnda.stencil` takes
//! them, zero walls by default), the diffusion operator `−∇·(k∇u) + shift u` of a conductivity
//! per point, or a SciPy sparse matrix acting on the flattened array; by CG,
//! MINRES, BiCGSTAB, GMRES or geometric multigrid, preconditioned by Jacobi or one multigrid
//! cycle; the interpreter lock released while it runs. Returns the solution and a dict of what
//! the solve did. A `b` in CUDA memory (a `CudaArray`, CuPy or PyTorch) is solved on that
//! device (`cuda_solve.rs`), written once with the host's solve (`solve_on`).

use cnda::kernel::{Backend, Download, SparseKernels, StencilKernels, Upload};
use cnda::solve::{
    Bicgstab, Cg, CoarseOperators, Gmres, Identity, Jacobi, LinearOperator, Minres, Multigrid, MultigridOptions,
    Preconditioner, SolveOptions, SolveReport, SolverBackend, SolverScalar, VariableOperator,
};
use cnda::sparse::CsrMatrix;
use cnda::{Array, Cpu};
use numpy::{Element, PyArrayDyn, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::borrow::{read, view, view_mut, write};
use crate::errors::to_pyerr;
use crate::sparse::csr_from_scipy;
use crate::stencil_args;

/// `cnda.solve`'s arguments after `b`.
pub(crate) struct Args<'a, 'py> {
    taps: Option<&'a Bound<'py, PyAny>>,
    boundary: Option<&'a Bound<'py, PyAny>>,
    laplacian: bool,
    h: f64,
    matrix: Option<&'a Bound<'py, PyAny>>,
    conductivity: Option<&'a Bound<'py, PyAny>>,
    shift: f64,
    coarse: CoarseOperators,
    method: &'a str,
    preconditioner: Option<&'a str>,
    options: SolveOptions,
    pub(crate) x0: Option<&'a Bound<'py, PyAny>>,
}

#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.solve.txt"))] // python/cnda.pyi's docstring
#[pyfunction]
#[pyo3(signature = (
    b, taps = None, boundary = None, *, laplacian = false, h = 1.0, matrix = None, conductivity = None,
    shift = 0.0, coarse = "galerkin", method = "cg", preconditioner = None, rtol = 1e-8, atol = 0.0, max_iters = 10_000,
    restart = 30, x0 = None
))]
#[allow(clippy::too_many_arguments)]
pub fn solve<'py>(
    py: Python<'py>,
    b: &Bound<'py, PyAny>,
    taps: Option<&Bound<'py, PyAny>>,
    boundary: Option<&Bound<'py, PyAny>>,
    laplacian: bool,
    h: f64,
    matrix: Option<&Bound<'py, PyAny>>,
    conductivity: Option<&Bound<'py, PyAny>>,
    shift: f64,
    coarse: &str,
    method: &str,
    preconditioner: Option<&str>,
    rtol: f64,
    atol: f64,
    max_iters: usize,
    restart: usize,
    x0: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let options = SolveOptions::default().rtol(rtol).atol(atol).max_iters(max_iters).restart(restart);
    let coarse = match coarse {
        "galerkin" => CoarseOperators::Galerkin,
        "rediscretized" => CoarseOperators::Rediscretized,
        other => {
            return Err(PyValueError::new_err(format!(
                "solve: coarse={other:?}; give \"galerkin\" (the default) or \"rediscretized\" (a conductivity's \
                 coarse levels discretized again from k restricted)"
            )))
        }
    };
    let args =
        Args { taps, boundary, laplacian, h, matrix, conductivity, shift, coarse, method, preconditioner, options, x0 };
    let stencil = taps.is_some() || laplacian;
    if [stencil, matrix.is_some(), conductivity.is_some()].iter().filter(|&&given| given).count() > 1
        || (matrix.is_some() && boundary.is_some())
    {
        return Err(PyValueError::new_err(
            "solve: give the operator one way: a stencil (taps or laplacian, with boundary), a conductivity \
             (with boundary, h and shift), or a matrix; not two",
        ));
    }
    #[cfg(feature = "cuda")]
    if let Some(solved) = crate::cuda_solve::solve(py, b, &args)? {
        return Ok(solved);
    }
    if b.cast::<PyArrayDyn<f64>>().is_ok() {
        by_rank::<f64>(py, b, &args)
    } else if b.cast::<PyArrayDyn<f32>>().is_ok() {
        by_rank::<f32>(py, b, &args)
    } else {
        let got = b.getattr("dtype").map(|d| d.to_string()).unwrap_or_else(|_| b.get_type().to_string());
        Err(PyTypeError::new_err(format!(
            "solve: b must be a numpy.ndarray of float32 or float64, got {got}; convert with np.asarray(b, dtype=np.float64)"
        )))
    }
}

fn by_rank<'py, T: SolverScalar + Element>(
    py: Python<'py>,
    b: &Bound<'py, PyAny>,
    args: &Args<'_, 'py>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    match b.cast::<PyUntypedArray>()?.ndim() {
        1 => solve_rank::<T, 1>(py, b, args),
        2 => solve_rank::<T, 2>(py, b, args),
        3 => solve_rank::<T, 3>(py, b, args),
        n => Err(PyValueError::new_err(format!(
            "solve: b has {n} dimensions; give a 1D, 2D or 3D array (a matrix operator takes any shape flattened: \
             pass b.ravel())"
        ))),
    }
}

/// A host copy of a NumPy array of rank `N`.
pub(crate) fn host_copy<T: SolverScalar + Element, const N: usize>(
    x: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<Array<T, N>> {
    let read = read::<T>(x, "solve", name)?;
    let view = view::<T, N>(&read, "solve")?;
    Ok(view.to_owned())
}

fn solve_rank<'py, T: SolverScalar + Element, const N: usize>(
    py: Python<'py>,
    b: &Bound<'py, PyAny>,
    args: &Args<'_, 'py>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let b = host_copy::<T, N>(b, "b")?;
    let shape = b.shape();
    let mut x = match args.x0 {
        None => Array::zeros(shape),
        Some(x0) => host_copy::<T, N>(x0, "x0")?,
    };
    let report = solve_on(py, args, &Cpu, &b, &mut x, host_copy::<T, N>)?;
    let out = PyArrayDyn::<T>::zeros(py, shape.as_slice(), false).into_any();
    {
        let mut written = write::<T>(&out, "solve", "x")?;
        view_mut::<T, N>(&mut written, "solve")?.assign(&x);
    }
    Ok((out, info(py, &report)?))
}

/// Refuses an array of another shape than `b`'s.
pub(crate) fn check_shape<const N: usize>(op: &'static str, expected: [usize; N], got: [usize; N]) -> PyResult<()> {
    if got != expected {
        return Err(to_pyerr(cnda::Error::ShapeMismatch { op, expected: expected.to_vec(), got: got.to_vec() }));
    }
    Ok(())
}

/// The operator the arguments name, on `alloc`'s backend (the host's conductivity fields and
/// matrices uploaded there), and the solve of `a x = b` from the guess in `x`: written once for
/// NumPy arrays and CUDA memory. `host(array, name)` reads an argument array on the host.
pub(crate) fn solve_on<T, const N: usize, D>(
    py: Python<'_>,
    args: &Args<'_, '_>,
    alloc: &D,
    b: &Array<T, N, D::Target>,
    x: &mut Array<T, N, D::Target>,
    host: impl Fn(&Bound<'_, PyAny>, &str) -> PyResult<Array<T, N>>,
) -> PyResult<SolveReport>
where
    T: SolverScalar + Element,
    D: Upload,
    D::Target: SolverBackend + StencilKernels + SparseKernels + Download,
    <D::Target as Backend>::Alloc: Upload<Target = D::Target>,
    Array<T, N, D::Target>: Send + Sync,
    Multigrid<T, N, D::Target>: Send + Sync,
    Jacobi<T, N, D::Target>: Send,
    CsrMatrix<T, D::Target>: Sync,
    VariableOperator<T, N, D::Target>: Sync,
{
    let shape = b.shape();
    check_shape("solve (x0)", shape, x.shape())?;
    let levels = MultigridOptions { coarse: args.coarse, ..MultigridOptions::default() };
    if args.coarse == CoarseOperators::Rediscretized && args.conductivity.is_none() {
        return Err(PyValueError::new_err(
            "solve: coarse=\"rediscretized\" rediscretizes a conductivity's multigrid levels; give conductivity=k, \
             or leave coarse as \"galerkin\" for a stencil (a matrix has no multigrid)",
        ));
    }
    match (args.matrix, args.conductivity) {
        (Some(matrix), _) => {
            let on_host = csr_from_scipy::<T>(matrix)?;
            let matrix = on_host.try_to_device(alloc).map_err(to_pyerr)?;
            let operator = matrix.try_on_grid(shape).map_err(to_pyerr)?;
            let diagonal = |_: &[usize; N]| matrix_diagonal(&on_host, shape)?.try_to_device(alloc);
            run(py, args, &operator, None, diagonal, b, x)
        }
        (None, Some(k)) => {
            let k = host(k, "conductivity")?;
            check_shape("solve (conductivity)", shape, k.shape())?;
            let sides = stencil_args::linear_boundaries::<T, N>(args.boundary)?;
            let operator =
                VariableOperator::try_diffusion_in(alloc, &k, [args.h; N], args.shift, sides).map_err(to_pyerr)?;
            let diagonal = |_: &[usize; N]| operator.try_diagonal();
            let hierarchy = || Multigrid::try_for_variable(&operator, levels);
            run(py, args, &operator, Some(&hierarchy), diagonal, b, x)
        }
        (None, None) => {
            let operator =
                stencil_args::linear_operator::<T, N>(args.taps, args.boundary, args.laplacian, args.h, shape)?;
            let centre =
                operator.stencil().taps().iter().filter(|(o, _)| *o == [0; N]).fold(T::ZERO, |sum, &(_, w)| sum + w);
            let diagonal = |shape: &[usize; N]| {
                let mut d = Array::try_zeros_in(alloc, *shape)?;
                d.try_fill(centre).map(|()| d)
            };
            let hierarchy = || Multigrid::try_new_in(alloc, &operator, levels);
            run(py, args, &operator, Some(&hierarchy), diagonal, b, x)
        }
    }
}

/// The diagonal of a square matrix, on the grid's shape (zeros where a row stores none).
fn matrix_diagonal<T: SolverScalar, const N: usize>(m: &CsrMatrix<T>, shape: [usize; N]) -> cnda::Result<Array<T, N>> {
    let (offsets, columns, values) = (m.offsets().as_slice(), m.columns().as_slice(), m.values().as_slice());
    let diagonal: Vec<T> = (0..m.shape()[0])
        .map(|row| {
            let entries = offsets[row] as usize..offsets[row + 1] as usize;
            entries.filter(|&j| columns[j] as usize == row).fold(T::ZERO, |sum, j| sum + values[j])
        })
        .collect();
    Array::from_shape_vec(shape, diagonal)
}

/// The method and preconditioner the arguments name, run on `a` (with `hierarchy`, its
/// multigrid hierarchy where it has one), the interpreter lock released.
fn run<T, const N: usize, B, A>(
    py: Python<'_>,
    args: &Args<'_, '_>,
    a: &A,
    hierarchy: Option<&dyn Fn() -> cnda::Result<Multigrid<T, N, B>>>,
    diagonal: impl Fn(&[usize; N]) -> cnda::Result<Array<T, N, B>>,
    b: &Array<T, N, B>,
    x: &mut Array<T, N, B>,
) -> PyResult<SolveReport>
where
    T: SolverScalar,
    B: SolverBackend + StencilKernels,
    A: LinearOperator<T, N, B> + Sync,
    Array<T, N, B>: Send + Sync,
    Multigrid<T, N, B>: Send + Sync,
    Jacobi<T, N, B>: Send,
{
    let shape = b.shape();
    let multigrid = || -> PyResult<Multigrid<T, N, B>> {
        let Some(hierarchy) = hierarchy else {
            return Err(PyValueError::new_err(
                "solve: multigrid needs the operator as a stencil (taps and boundary) or a conductivity, not a \
                 matrix; use preconditioner='jacobi' or none with a matrix",
            ));
        };
        hierarchy().map_err(to_pyerr)
    };
    let options = args.options;
    match (args.method, args.preconditioner) {
        ("multigrid", None) => {
            let mg = multigrid()?;
            py.detach(|| mg.try_solve(a, b, x, options)).map_err(to_pyerr)
        }
        ("multigrid", Some(_)) => Err(PyValueError::new_err(
            "solve: method='multigrid' takes no preconditioner; use method='cg', preconditioner='multigrid' for \
             multigrid-preconditioned CG",
        )),
        (method, None) => krylov(py, method, options, a, Identity, b, x),
        (method, Some("jacobi")) => {
            let jacobi = Jacobi::try_new(&diagonal(&shape).map_err(to_pyerr)?).map_err(to_pyerr)?;
            krylov(py, method, options, a, jacobi, b, x)
        }
        (method, Some("multigrid")) => krylov(py, method, options, a, multigrid()?, b, x),
        (_, Some(other)) => Err(PyValueError::new_err(format!(
            "solve: preconditioner {other:?} is not one of None, 'jacobi', 'multigrid'"
        ))),
    }
}

/// A Krylov method by name.
fn krylov<T, const N: usize, B, A, P>(
    py: Python<'_>,
    method: &str,
    options: SolveOptions,
    a: &A,
    m: P,
    b: &Array<T, N, B>,
    x: &mut Array<T, N, B>,
) -> PyResult<SolveReport>
where
    T: SolverScalar,
    B: SolverBackend,
    A: LinearOperator<T, N, B> + Sync,
    P: Preconditioner<T, N, B> + Send,
    Array<T, N, B>: Send + Sync,
{
    let result = match method {
        "cg" => py.detach(|| Cg::new().options(options).preconditioner(m).try_solve(a, b, x)),
        "minres" => py.detach(|| Minres::new().options(options).preconditioner(m).try_solve(a, b, x)),
        "bicgstab" => py.detach(|| Bicgstab::new().options(options).preconditioner(m).try_solve(a, b, x)),
        "gmres" => py.detach(|| Gmres::new().options(options).preconditioner(m).try_solve(a, b, x)),
        other => {
            return Err(PyValueError::new_err(format!(
                "solve: method {other:?} is not one of 'cg', 'minres', 'bicgstab', 'gmres', 'multigrid'"
            )))
        }
    };
    result.map_err(to_pyerr)
}

/// The report as a dict: method, iterations, residual_history, threshold, work.
pub(crate) fn info<'py>(py: Python<'py>, report: &SolveReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("method", report.method)?;
    d.set_item("iterations", report.iterations)?;
    d.set_item("residual_history", report.residual_history.clone())?;
    d.set_item("threshold", report.threshold)?;
    d.set_item("work", report.work)?;
    Ok(d)
}
