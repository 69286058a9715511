//! The elementwise kernels for `Cuda`: binary, unary and scalar ops and their in-place forms,
//! entry points of `kernels/cuda/elementwise.cu` named after the op tokens.

use core::any::TypeId;

use cudarc::driver::PushKernelArg;

use super::device::CudaDevice;
use super::dispatch::{all_contiguous, kernel_desc, launch, launch_error, suffix, Scalar, ELEMENTWISE};
use super::kernels::FAMILIES;
use super::Cuda;
use crate::element::Pod;
use crate::element::{dtype_of, DType};
use crate::error::{Error, Result};
use crate::kernel::tokens::{check_complex_real, DEVICE_COMPLEX_UNARY};
use crate::kernel::tokens::{check_device_name, BinaryOp, DeviceUnary, UnaryOp, DEVICE_BINARY, DEVICE_UNARY};
use crate::kernel::Desc;
use crate::kernel::ElementwiseKernels;

// SAFETY: every kernel writes each index of its output exactly once with the op's value, reading
// and writing only the indices of its descriptors, on the device's stream.
unsafe impl ElementwiseKernels for Cuda {
    unsafe fn binary<T: Pod, Op: BinaryOp<T>, const N: usize>(
        dev: &CudaDevice,
        _: Op,
        out: Desc<Cuda, T, N>,
        a: Desc<Cuda, T, N>,
        b: Desc<Cuda, T, N>,
    ) -> Result<()> {
        let t = suffix::<T>(Op::NAME)?;
        let name = check_device_name(Op::NAME, DEVICE_BINARY, "CUDA")?;
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        let count = n as i64;
        if all_contiguous(&[&out, &a, &b]) {
            let (po, pa, pb) = (out.handle.addr, a.handle.addr, b.handle.addr);
            launch!(dev, ELEMENTWISE, t, format!("cnda_binary_{name}_{t}_contig"), n, [&po, &pa, &pb, &count]);
            return Ok(());
        }
        let ((po, o), (pa, da), (pb, db)) = (kernel_desc(&out)?, kernel_desc(&a)?, kernel_desc(&b)?);
        launch!(dev, ELEMENTWISE, t, format!("cnda_binary_{name}_{t}"), n, [&po, &o, &pa, &da, &pb, &db, &count]);
        Ok(())
    }

    unsafe fn unary<T: Pod, Op: UnaryOp<T>, const N: usize>(
        dev: &CudaDevice,
        op: Op,
        out: Desc<Cuda, Op::Output, N>,
        a: Desc<Cuda, T, N>,
    ) -> Result<()> {
        let form = op.device_form().ok_or(Error::NoKernel {
            op: Op::NAME,
            backend: "CUDA",
            reason: "a host-only op token",
        })?;
        let t = suffix::<T>(Op::NAME)?;
        let n = out.len();
        if TypeId::of::<Op::Output>() != TypeId::of::<T>() {
            // SAFETY: the caller's contract, passed on.
            return unsafe { complex_real(dev, form, out, a, t) };
        }
        if n == 0 {
            return Ok(());
        }
        let count = n as i64;
        let out = Desc::<Cuda, T, N> {
            handle: super::CudaPtr::new(out.handle.addr, out.handle.device),
            shape: out.shape,
            strides: out.strides,
        };
        let ((po, o), (pa, da)) = (kernel_desc(&out)?, kernel_desc(&a)?);
        match form {
            DeviceUnary::Named(name) => {
                let known =
                    if dtype_of::<T>().is_some_and(DType::is_complex) { DEVICE_COMPLEX_UNARY } else { DEVICE_UNARY };
                let name = check_device_name(name, known, "CUDA")?;
                launch!(dev, ELEMENTWISE, t, format!("cnda_unary_{name}_{t}"), n, [&po, &o, &pa, &da, &count]);
            }
            DeviceUnary::ScalarRight(name, s) => {
                let (name, s) = (check_device_name(name, DEVICE_BINARY, "CUDA")?, Scalar(s));
                launch!(
                    dev,
                    ELEMENTWISE,
                    t,
                    format!("cnda_scalar_right_{name}_{t}"),
                    n,
                    [&po, &o, &pa, &da, &s, &count]
                );
            }
            DeviceUnary::ScalarLeft(name, s) => {
                let (name, s) = (check_device_name(name, DEVICE_BINARY, "CUDA")?, Scalar(s));
                launch!(
                    dev,
                    ELEMENTWISE,
                    t,
                    format!("cnda_scalar_left_{name}_{t}"),
                    n,
                    [&po, &o, &pa, &da, &s, &count]
                );
            }
            DeviceUnary::Powi(p) => {
                launch!(dev, ELEMENTWISE, t, format!("cnda_unary_powi_{t}"), n, [&po, &o, &pa, &da, &p, &count]);
            }
            DeviceUnary::Powf(p) => {
                let p = Scalar(p);
                launch!(dev, ELEMENTWISE, t, format!("cnda_unary_powf_{t}"), n, [&po, &o, &pa, &da, &p, &count]);
            }
            DeviceUnary::Clamp(lo, hi) => {
                let (lo, hi) = (Scalar(lo), Scalar(hi));
                launch!(dev, ELEMENTWISE, t, format!("cnda_unary_clamp_{t}"), n, [&po, &o, &pa, &da, &lo, &hi, &count]);
            }
        }
        Ok(())
    }

    unsafe fn update<T: Pod, Op: BinaryOp<T>, const N: usize>(
        dev: &CudaDevice,
        _: Op,
        dst: Desc<Cuda, T, N>,
        src: Desc<Cuda, T, N>,
    ) -> Result<()> {
        let t = suffix::<T>(Op::NAME)?;
        let name = check_device_name(Op::NAME, DEVICE_BINARY, "CUDA")?;
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        let count = n as i64;
        let ((pd, d), (ps, ds)) = (kernel_desc(&dst)?, kernel_desc(&src)?);
        launch!(dev, ELEMENTWISE, t, format!("cnda_update_{name}_{t}"), n, [&pd, &d, &ps, &ds, &count]);
        Ok(())
    }

    unsafe fn update_unary<T: Pod, Op: UnaryOp<T, Output = T>, const N: usize>(
        dev: &CudaDevice,
        op: Op,
        dst: Desc<Cuda, T, N>,
    ) -> Result<()> {
        // Each thread reads then writes its own element, so the out-of-place kernel with the
        // destination as its input updates in place.
        // SAFETY: the caller's contract for `dst`; input and output are the same indices.
        unsafe { Self::unary(dev, op, dst, dst) }
    }
}

/// `out[i] = f(a[i])` for a function of a complex element with a real result (`abs`, `arg`,
/// `norm_sqr`): the one form whose output type differs from its input's. Anything else whose
/// types differ is refused.
///
/// # Safety
///
/// As for [`ElementwiseKernels::unary`].
unsafe fn complex_real<T: Pod, R: Pod, const N: usize>(
    dev: &CudaDevice,
    form: DeviceUnary<T>,
    out: Desc<Cuda, R, N>,
    a: Desc<Cuda, T, N>,
    t: &'static str,
) -> Result<()> {
    let name = check_complex_real::<T, R>(form, "CUDA")?;
    let n = out.len();
    if n == 0 {
        return Ok(());
    }
    let count = n as i64;
    let ((po, o), (pa, da)) = (kernel_desc(&out)?, kernel_desc(&a)?);
    // The kernel writes `R`s (checked above to be `T`'s part type) and reads `T`s.
    launch!(dev, ELEMENTWISE, t, format!("cnda_complex_{name}_{t}"), n, [&po, &o, &pa, &da, &count]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_of_another_type_are_refused() {
        let Ok(dev) = CudaDevice::new(0) else { return };
        crate::backend::complex_refusals::results_of_another_type_are_refused::<Cuda>(&dev);
    }
}
