//! The solvers' vector kernels for `Cuda` (`kernels/cuda/vector.cu`): `dot` in one pass over both
//! operands plus the reduce family's fold of the per-block partials, `axpby` in one pass,
//! `axpby_sumsq` (the update and its squares' partials) in one, where the generic forms take two
//! to five launches with a scratch vector between them. Each picks
//! the kernel form by its operands' layout ([`Walk`]).

use cudarc::driver::PushKernelArg;

use super::device::CudaDevice;
use super::dispatch::{all_contiguous, kernel_desc, kernel_rows, launch, launch_error, suffix, Scalar, BLOCK, VECTOR};
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
    /// launched over `rows * BLOCK` grid-stride items, so `CudaDevice::grid` gives a block a row.
    /// Taken with rows enough to give every multiprocessor one (a few long rows would leave
    /// most of the device idle).
    Rows { rows: usize, m: usize },
    /// Any strides: offsets from each flat index.
    Strided,
}

impl Walk {
    /// The grid-stride items a launch over `n` elements in this form covers (what sizes its grid
    /// and a fold's partials alike).
    fn items(&self, n: usize) -> usize {
        match *self {
            Walk::Rows { rows, .. } => rows.saturating_mul(BLOCK as usize),
            Walk::Contiguous | Walk::Strided => n,
        }
    }
}

fn walk<T: Pod, const N: usize>(dev: &CudaDevice, x: &Desc<Cuda, T, N>, y: &Desc<Cuda, T, N>) -> Walk {
    if all_contiguous(&[x, y]) {
        return Walk::Contiguous;
    }
    match N.checked_sub(1) {
        Some(last) if x.strides[last] == 1 && y.strides[last] == 1 && x.shape[last] >= MIN_ROW => {
            let (rows, m) = (x.len() / x.shape[last], x.shape[last]);
            if rows >= dev.multiprocessors() {
                Walk::Rows { rows, m }
            } else {
                Walk::Strided
            }
        }
        _ => Walk::Strided,
    }
}

// SAFETY: `dot` reads `x` and `y` within their descriptors and writes only its own partials;
// `axpby` writes each element of `y` once, reading `x`, which the caller keeps apart from `y`;
// `axpby_sumsq` as `axpby`, writing its own partials too.
// Both queue their kernels on the device's stream, so every later use of `y` (or the partials'
// read-back, which synchronizes) is ordered after the writes. The `_rows` forms read row `r`'s
// elements `j < m` from the outer descriptor's offset of `r`: the last axis, of `m` elements at
// unit stride (`walk` checked), so within the operands' own descriptors.
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
        let (zero, walk) = (Scalar(T::ZERO), walk(dev, &x, &y));
        let items = walk.items(n);
        let partials = Partials::<T>::allocate(dev, "dot", items)?;
        let (count, pp) = (n as i64, partials.first());
        match walk {
            Walk::Contiguous => {
                let (px, py) = (x.handle.addr, y.handle.addr);
                launch!(dev, VECTOR, t, format!("cnda_dot_{t}_contig"), items, [&px, &py, &count, &zero, &pp]);
            }
            Walk::Rows { rows, m } => {
                let ((px, dx), (py, dy)) = (kernel_rows(&x)?, kernel_rows(&y)?);
                let (rows, m) = (rows as i64, m as i64);
                launch!(
                    dev,
                    VECTOR,
                    t,
                    format!("cnda_dot_{t}_rows"),
                    items,
                    [&px, &dx, &py, &dy, &rows, &m, &zero, &pp]
                );
            }
            Walk::Strided => {
                let ((px, dx), (py, dy)) = (kernel_desc(&x)?, kernel_desc(&y)?);
                launch!(dev, VECTOR, t, format!("cnda_dot_{t}"), items, [&px, &dx, &py, &dy, &count, &zero, &pp]);
            }
        }
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
        let walk = walk(dev, &x, &y);
        let items = walk.items(n);
        match walk {
            Walk::Contiguous => {
                let (px, py) = (x.handle.addr, y.handle.addr);
                launch!(dev, VECTOR, t, format!("cnda_axpby_{t}_contig"), items, [&a, &px, &b, &py, &count]);
            }
            Walk::Rows { rows, m } => {
                let ((px, dx), (py, dy)) = (kernel_rows(&x)?, kernel_rows(&y)?);
                let (rows, m) = (rows as i64, m as i64);
                launch!(dev, VECTOR, t, format!("cnda_axpby_{t}_rows"), items, [&a, &px, &dx, &b, &py, &dy, &rows, &m]);
            }
            Walk::Strided => {
                let ((px, dx), (py, dy)) = (kernel_desc(&x)?, kernel_desc(&y)?);
                launch!(dev, VECTOR, t, format!("cnda_axpby_{t}"), items, [&a, &px, &dx, &b, &py, &dy, &count]);
            }
        }
        Ok(())
    }

    unsafe fn axpby_sumsq<T: Float, const N: usize>(
        dev: &CudaDevice,
        a: T,
        x: Desc<Cuda, T, N>,
        b: T,
        y: Desc<Cuda, T, N>,
        _scratch: Desc<Cuda, T, N>,
    ) -> Result<T> {
        if x.is_empty() {
            return Ok(T::ZERO);
        }
        let t = suffix::<T>("axpby_sumsq")?;
        let (y, x) = merged2(y, x);
        let n = x.len();
        let (a, b, count, zero) = (Scalar(a), Scalar(b), n as i64, Scalar(T::ZERO));
        let walk = walk(dev, &x, &y);
        let items = walk.items(n);
        let partials = Partials::<T>::allocate(dev, "axpby_sumsq", items)?;
        let pp = partials.first();
        match walk {
            Walk::Contiguous => {
                let (px, py) = (x.handle.addr, y.handle.addr);
                let name = format!("cnda_axpby_sumsq_{t}_contig");
                launch!(dev, VECTOR, t, name, items, [&a, &px, &b, &py, &count, &zero, &pp]);
            }
            Walk::Rows { rows, m } => {
                let ((px, dx), (py, dy)) = (kernel_rows(&x)?, kernel_rows(&y)?);
                let (rows, m) = (rows as i64, m as i64);
                let name = format!("cnda_axpby_sumsq_{t}_rows");
                launch!(dev, VECTOR, t, name, items, [&a, &px, &dx, &b, &py, &dy, &rows, &m, &zero, &pp]);
            }
            Walk::Strided => {
                let ((px, dx), (py, dy)) = (kernel_desc(&x)?, kernel_desc(&y)?);
                let name = format!("cnda_axpby_sumsq_{t}");
                launch!(dev, VECTOR, t, name, items, [&a, &px, &dx, &b, &py, &dy, &count, &zero, &pp]);
            }
        }
        partials.fold(dev, t, &format!("cnda_sum_{t}"), zero)
    }
}
