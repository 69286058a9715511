//! The solvers' vector kernels for `Cuda` (`kernels/cuda/vector.cu`): `dot` in one pass over both
//! operands plus the reduce family's fold of the per-block partials, `axpby` in one pass,
//! `axpby_sumsq` (the update and its squares' partials) in one, `axpy_xpby` (CG's iterate and
//! direction) in one, where the generic forms take two to five launches with a scratch vector
//! between them. Each picks
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
use crate::kernel::{merged2, merged3};
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

fn walk<T: Pod, const N: usize>(dev: &CudaDevice, ds: &[&Desc<Cuda, T, N>]) -> Walk {
    if all_contiguous(ds) {
        return Walk::Contiguous;
    }
    let first = ds[0];
    match N.checked_sub(1) {
        Some(last) if ds.iter().all(|d| d.strides[last] == 1) && first.shape[last] >= MIN_ROW => {
            let (rows, m) = (first.len() / first.shape[last], first.shape[last]);
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
// `axpy_xpby` writes each element of `x` and `p` once, reading `r`, which the caller keeps apart
// from both (and `x` from `p`).
// Each queues its kernels on the device's stream, so every later use of `y` (or the partials'
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
        let (zero, walk) = (Scalar(T::ZERO), walk(dev, &[&x, &y]));
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
        let walk = walk(dev, &[&x, &y]);
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
        let walk = walk(dev, &[&x, &y]);
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

    unsafe fn axpy_xpby<T: Float, const N: usize>(
        dev: &CudaDevice,
        a: T,
        p: Desc<Cuda, T, N>,
        x: Desc<Cuda, T, N>,
        b: T,
        r: Desc<Cuda, T, N>,
        _scratch: Desc<Cuda, T, N>,
    ) -> Result<()> {
        if p.is_empty() {
            return Ok(());
        }
        let t = suffix::<T>("axpy_xpby")?;
        let [p, x, r] = merged3(p, x, r);
        let n = p.len();
        let (a, b, count) = (Scalar(a), Scalar(b), n as i64);
        let walk = walk(dev, &[&p, &x, &r]);
        let items = walk.items(n);
        match walk {
            Walk::Contiguous => {
                let (pp, px, pr) = (p.handle.addr, x.handle.addr, r.handle.addr);
                launch!(dev, VECTOR, t, format!("cnda_axpy_xpby_{t}_contig"), items, [&a, &pp, &px, &b, &pr, &count]);
            }
            Walk::Rows { rows, m } => {
                let ((pp, dp), (px, dx), (pr, dr)) = (kernel_rows(&p)?, kernel_rows(&x)?, kernel_rows(&r)?);
                let (rows, m) = (rows as i64, m as i64);
                let name = format!("cnda_axpy_xpby_{t}_rows");
                launch!(dev, VECTOR, t, name, items, [&a, &pp, &dp, &px, &dx, &b, &pr, &dr, &rows, &m]);
            }
            Walk::Strided => {
                let ((pp, dp), (px, dx), (pr, dr)) = (kernel_desc(&p)?, kernel_desc(&x)?, kernel_desc(&r)?);
                let name = format!("cnda_axpy_xpby_{t}");
                launch!(dev, VECTOR, t, name, items, [&a, &pp, &dp, &px, &dx, &b, &pr, &dr, &count]);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::array::Array;
    use crate::backend::cuda::{Cuda, CudaDevice};
    use crate::kernel::{Desc, VectorKernels};

    type Form = fn(Desc<Cuda, f64, 2>) -> Desc<Cuda, f64, 2>;

    /// `axpy_xpby` in one launch gives the bits of its two `axpby` launches, contiguous, by dense
    /// rows (interiors of padded arrays) and strided (every other column).
    #[test]
    fn axpy_xpby_is_two_axpbys_bit_for_bit_in_every_form() {
        let dev = match CudaDevice::new(0) {
            Ok(dev) => dev,
            Err(e) => {
                assert!(std::env::var_os("CNDA_REQUIRE_CUDA").is_none(), "CNDA_REQUIRE_CUDA is set but: {e}");
                return eprintln!("SKIP: {e}");
            }
        };
        let (rows, cols) = (300, 70);
        let field = |seed: usize| {
            Array::from_fn([rows + 2, cols + 2], |[i, j]| ((i * 31 + j * 17 + seed) % 97) as f64 * 0.173 - 8.1)
        };
        let (a, b) = (0.37, -1.3);
        // The interior's descriptor in each form: the whole array, the padded interior, every
        // other interior column.
        let forms: [Form; 3] = [
            |d| d,
            |d| d.narrowed(0, 1, 300).narrowed(1, 1, 70),
            |mut d| {
                d = d.narrowed(0, 1, 300).narrowed(1, 1, 70);
                (d.shape[1], d.strides[1]) = (35, 2);
                d
            },
        ];
        for (k, form) in forms.iter().enumerate() {
            let run = |fused: bool| {
                let (mut p, mut x, r) = (field(1).to_device(&dev), field(2).to_device(&dev), field(3).to_device(&dev));
                let mut scratch = Array::<f64, 2>::zeros([rows + 2, cols + 2]).to_device(&dev);
                let (dp, dx, dr, ds) =
                    (form(p.desc_mut()), form(x.desc_mut()), form(r.desc()), form(scratch.desc_mut()));
                // SAFETY: four distinct live device arrays of one shape, each descriptor within
                // its own.
                unsafe {
                    if fused {
                        Cuda::axpy_xpby(&dev, a, dp, dx, b, dr, ds).unwrap();
                    } else {
                        Cuda::axpby(&dev, a, dp, 1.0, dx, ds).unwrap();
                        Cuda::axpby(&dev, 1.0, dr, b, dp, ds).unwrap();
                    }
                }
                (p.to_host(), x.to_host())
            };
            let (fused, apart) = (run(true), run(false));
            let bits = |v: &Array<f64, 2>| v.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&fused.0), bits(&apart.0), "form {k}: p");
            assert_eq!(bits(&fused.1), bits(&apart.1), "form {k}: x");
            assert_ne!(bits(&fused.1), bits(&field(2)), "form {k}: x unchanged");
        }
    }
}
