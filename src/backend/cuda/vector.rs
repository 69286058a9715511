//! The solvers' vector kernels for `Cuda` (`kernels/cuda/vector.cu`): `dot` in one pass over both
//! operands plus the reduce family's fold of the per-block partials, `axpby` in one pass, where
//! the generic forms take two and three launches with a scratch vector between them. Each picks
//! the kernel form by its operands' layout ([`Walk`]).

use cudarc::driver::PushKernelArg;

use super::device::CudaDevice;
use super::dispatch::{all_contiguous, kernel_desc, kernel_rows, launch, launch_error, suffix, Scalar, VECTOR};
use super::kernels::FAMILIES;
use super::reduce::Partials;
use super::Cuda;
use crate::element::Float;
use crate::element::Pod;
use crate::error::Result;
use crate::kernel::merged2;
use crate::kernel::{Desc, VectorKernels};

/// The shortest rows worth a block each (shorter ones leave most of a block's threads idle, and
/// the per-element form does better).
const MIN_ROW: usize = 64;

/// How a kernel walks two operands of one (merged) shape.
enum Walk {
    /// One dense block each.
    Contiguous,
    /// Dense rows of `m` elements (the last axis), `rows` of them, one block per row at a time;
    /// launched over `rows * 256` grid-stride items, so `CudaDevice::grid` gives a block a row.
    Rows { rows: usize, m: usize },
    /// Any strides: offsets from each flat index.
    Strided,
}

fn walk<T: Pod, const N: usize>(x: &Desc<Cuda, T, N>, y: &Desc<Cuda, T, N>) -> Walk {
    if all_contiguous(&[x, y]) {
        return Walk::Contiguous;
    }
    match N.checked_sub(1) {
        Some(last) if x.strides[last] == 1 && y.strides[last] == 1 && x.shape[last] >= MIN_ROW => {
            Walk::Rows { rows: x.len() / x.shape[last], m: x.shape[last] }
        }
        _ => Walk::Strided,
    }
}

// SAFETY: `dot` reads `x` and `y` within their descriptors and writes only its own partials;
// `axpby` writes each element of `y` once, reading `x`, which the caller keeps apart from `y`.
unsafe impl VectorKernels for Cuda {
    unsafe fn dot<T: Float, const N: usize>(
        dev: &CudaDevice,
        x: Desc<Cuda, T, N>,
        y: Desc<Cuda, T, N>,
        _scratch: Desc<Cuda, T, N>,
    ) -> Result<T> {
        if x.is_empty() {
            return Ok(T::ZERO);
        }
        let t = suffix::<T>("dot")?;
        let (x, y) = merged2(x, y);
        let n = x.len();
        let zero = Scalar(T::ZERO);
        let partials = match walk(&x, &y) {
            Walk::Contiguous => {
                let partials = Partials::<T>::allocate(dev, "dot", n)?;
                let (px, py, count, pp) = (x.handle.addr, y.handle.addr, n as i64, partials.first());
                launch!(dev, VECTOR, t, format!("cnda_dot_{t}_contig"), n, [&px, &py, &count, &zero, &pp]);
                partials
            }
            Walk::Rows { rows, m } => {
                let items = rows.saturating_mul(256);
                let partials = Partials::<T>::allocate(dev, "dot", items)?;
                let ((px, dx), (py, dy)) = (kernel_rows(&x)?, kernel_rows(&y)?);
                let (rows, m, pp) = (rows as i64, m as i64, partials.first());
                launch!(
                    dev,
                    VECTOR,
                    t,
                    format!("cnda_dot_{t}_rows"),
                    items,
                    [&px, &dx, &py, &dy, &rows, &m, &zero, &pp]
                );
                partials
            }
            Walk::Strided => {
                let partials = Partials::<T>::allocate(dev, "dot", n)?;
                let ((px, dx), (py, dy)) = (kernel_desc(&x)?, kernel_desc(&y)?);
                let (count, pp) = (n as i64, partials.first());
                launch!(dev, VECTOR, t, format!("cnda_dot_{t}"), n, [&px, &dx, &py, &dy, &count, &zero, &pp]);
                partials
            }
        };
        partials.fold(dev, t, &format!("cnda_sum_{t}"), zero)
    }

    unsafe fn axpby<T: Float, const N: usize>(
        dev: &CudaDevice,
        a: T,
        x: Desc<Cuda, T, N>,
        b: T,
        y: Desc<Cuda, T, N>,
        _scratch: Desc<Cuda, T, N>,
    ) -> Result<()> {
        if x.is_empty() {
            return Ok(());
        }
        let t = suffix::<T>("axpby")?;
        let (y, x) = merged2(y, x);
        let n = x.len();
        let (a, b, count) = (Scalar(a), Scalar(b), n as i64);
        match walk(&x, &y) {
            Walk::Contiguous => {
                let (px, py) = (x.handle.addr, y.handle.addr);
                launch!(dev, VECTOR, t, format!("cnda_axpby_{t}_contig"), n, [&a, &px, &b, &py, &count]);
            }
            Walk::Rows { rows, m } => {
                let items = rows.saturating_mul(256);
                let ((px, dx), (py, dy)) = (kernel_rows(&x)?, kernel_rows(&y)?);
                let (rows, m) = (rows as i64, m as i64);
                launch!(dev, VECTOR, t, format!("cnda_axpby_{t}_rows"), items, [&a, &px, &dx, &b, &py, &dy, &rows, &m]);
            }
            Walk::Strided => {
                let ((px, dx), (py, dy)) = (kernel_desc(&x)?, kernel_desc(&y)?);
                launch!(dev, VECTOR, t, format!("cnda_axpby_{t}"), n, [&a, &px, &dx, &b, &py, &dy, &count]);
            }
        }
        Ok(())
    }
}
