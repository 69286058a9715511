//! The elementwise kernels for `Wgpu`: binary, unary and scalar ops and their in-place forms,
//! entry points of `kernels/wgpu/elementwise.wgsl` named after the op tokens.

use core::any::TypeId;

use super::copy::staged;
use super::device::WgpuDevice;
use super::dispatch::{buffer, elem, no_f64, params, run, same_buffer, transcendental, try_2d, words};
use super::shaders::family;
use super::Wgpu;
use crate::element::Pod;
use crate::element::{dtype_of, DType};
use crate::error::{Error, Result};
use crate::kernel::tokens::{check_complex_real, DEVICE_COMPLEX_UNARY};
use crate::kernel::tokens::{check_device_name, BinaryOp, DeviceUnary, UnaryOp, DEVICE_BINARY, DEVICE_UNARY};
use crate::kernel::Desc;
use crate::kernel::ElementwiseKernels;

// SAFETY: every shader writes each index of its output once with the op's value, reading and
// writing only the indices of its descriptors, queued in order on the device's queue.
unsafe impl ElementwiseKernels for Wgpu {
    unsafe fn binary<T: Pod, Op: BinaryOp<T>, const N: usize>(
        dev: &WgpuDevice,
        _: Op,
        out: Desc<Wgpu, T, N>,
        a: Desc<Wgpu, T, N>,
        b: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        let t = elem::<T>(dev, Op::NAME)?;
        let name = check_device_name(Op::NAME, DEVICE_BINARY, "WebGPU")?;
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        // WebGPU cannot bind one buffer for reading and writing in one dispatch: an input in the
        // output's buffer (another part of one array) is read from a staged copy.
        // SAFETY: the operands are live (the trait's contract).
        let staged_a = if same_buffer(&out, &a) { Some(unsafe { staged(dev, a) }?) } else { None };
        // SAFETY: as above.
        let staged_b = if same_buffer(&out, &b) { Some(unsafe { staged(dev, b) }?) } else { None };
        let a = staged_a.as_ref().map_or(a, |(_, d)| *d);
        let b = staged_b.as_ref().map_or(b, |(_, d)| *d);
        let p = params(n, [words(&out)?, words(&a)?, words(&b)?], &[])?;
        // SAFETY: the operands are live (the trait's contract, or the staged copies kept above).
        let (bo, ba, bb) = unsafe { (buffer(&out), buffer(&a), buffer(&b)) };
        let bindings = [(0, bo), (1, ba), (2, bb)];
        if [out.is_contiguous(), a.is_contiguous(), b.is_contiguous()] == [true; 3] {
            return run(dev, family("elementwise"), t, &format!("binary_{name}_contig"), n, &bindings, &p);
        }
        if try_2d(dev, family("elementwise"), t, &format!("binary_{name}_2d"), [&out, &a, &b], (&[], &[]), &bindings)? {
            return Ok(());
        }
        run(dev, family("elementwise"), t, &format!("binary_{name}"), n, &bindings, &p)
    }

    unsafe fn unary<T: Pod, Op: UnaryOp<T>, const N: usize>(
        dev: &WgpuDevice,
        op: Op,
        out: Desc<Wgpu, Op::Output, N>,
        a: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        let form = op.device_form().ok_or(Error::NoKernel {
            op: Op::NAME,
            backend: "WebGPU",
            reason: "a host-only op token",
        })?;
        let t = elem::<T>(dev, Op::NAME)?;
        if TypeId::of::<Op::Output>() != TypeId::of::<T>() {
            // SAFETY: the caller's contract, passed on.
            return unsafe { complex_real(dev, form, out, a, t) };
        }
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        // The entry point, its integer and element scalars, and whether it has a `_contig` form.
        let (entry, scalars, elems, has_dense) = match form {
            DeviceUnary::Named(name) => (format!("unary_{}", unary_name::<T>(name)?), vec![], vec![], true),
            DeviceUnary::ScalarRight(name, s) => {
                (format!("scalar_right_{}", check_device_name(name, DEVICE_BINARY, "WebGPU")?), vec![], vec![s], true)
            }
            DeviceUnary::ScalarLeft(name, s) => {
                (format!("scalar_left_{}", check_device_name(name, DEVICE_BINARY, "WebGPU")?), vec![], vec![s], true)
            }
            DeviceUnary::Powi(p) => ("unary_powi".to_string(), vec![p], vec![], false),
            DeviceUnary::Powf(p) => ("unary_powf".to_string(), vec![], vec![p], false),
            DeviceUnary::Clamp(lo, hi) => ("unary_clamp".to_string(), vec![], vec![lo, hi], false),
        };
        if t == "f64" && entry.strip_prefix("unary_").is_some_and(transcendental) {
            return Err(no_f64(Op::NAME));
        }
        let entry = if has_dense && out.is_contiguous() && a.is_contiguous() { entry + "_contig" } else { entry };
        let out_words = words(&out)?;
        let p = params(n, [out_words, words(&a)?], &scalars)?.with(&elems);
        // SAFETY: the operands are live; `out` is a different buffer (a fresh output) or the
        // caller staged it.
        let (bo, ba) = unsafe { (buffer(&out), buffer(&a)) };
        run(dev, family("elementwise"), t, &entry, n, &[(0, bo), (1, ba)], &p)
    }

    unsafe fn update<T: Pod, Op: BinaryOp<T>, const N: usize>(
        dev: &WgpuDevice,
        _: Op,
        dst: Desc<Wgpu, T, N>,
        src: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        let t = elem::<T>(dev, Op::NAME)?;
        let name = check_device_name(Op::NAME, DEVICE_BINARY, "WebGPU")?;
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        // SAFETY: `src` is live (the trait's contract).
        let staging = if same_buffer(&dst, &src) { Some(unsafe { staged(dev, src) }?) } else { None };
        let src = staging.as_ref().map_or(src, |(_, d)| *d);
        let p = params(n, [words(&dst)?, words(&src)?], &[])?;
        // SAFETY: as above; `dst` and `src` are now in different buffers.
        let (bd, bs) = unsafe { (buffer(&dst), buffer(&src)) };
        run(dev, family("elementwise"), t, &format!("update_{name}"), n, &[(0, bd), (1, bs)], &p)
    }

    unsafe fn update_unary<T: Pod, Op: UnaryOp<T, Output = T>, const N: usize>(
        dev: &WgpuDevice,
        op: Op,
        dst: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        let t = elem::<T>(dev, Op::NAME)?;
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        let form = op.device_form().ok_or(Error::NoKernel {
            op: Op::NAME,
            backend: "WebGPU",
            reason: "a host-only op token",
        })?;
        let (entry, scalar) = match form {
            DeviceUnary::Named(name) if t == "f64" && transcendental(name) => return Err(no_f64(Op::NAME)),
            DeviceUnary::Named(name) => (format!("update_unary_{}", unary_name::<T>(name)?), None),
            DeviceUnary::ScalarRight(name, s) => {
                (format!("update_scalar_right_{}", check_device_name(name, DEVICE_BINARY, "WebGPU")?), Some(s))
            }
            DeviceUnary::ScalarLeft(name, s) => {
                (format!("update_scalar_left_{}", check_device_name(name, DEVICE_BINARY, "WebGPU")?), Some(s))
            }
            _ => {
                // The parametrized ops have no in-place form: from a staged copy.
                // SAFETY: `dst` is live; the copy is another buffer.
                let (_temp, src) = unsafe { staged(dev, dst) }?;
                // SAFETY: as above.
                return unsafe { Self::unary(dev, op, dst, src) };
            }
        };
        let p = params(n, [words(&dst)?], &[])?.with(scalar.as_slice());
        // SAFETY: `dst` is live (the trait's contract).
        let bd = unsafe { buffer(&dst) };
        run(dev, family("elementwise"), t, &entry, n, &[(0, bd)], &p)
    }
}

/// `name` when it is a device function of element type `T` (cnda's real or complex ones).
fn unary_name<T: Pod>(name: &'static str) -> Result<&'static str> {
    let known = if dtype_of::<T>().is_some_and(DType::is_complex) { DEVICE_COMPLEX_UNARY } else { DEVICE_UNARY };
    check_device_name(name, known, "WebGPU")
}

/// `out[i] = f(a[i])` for a function of a complex element with a real result (`abs`, `arg`,
/// `abs2`), written through the shader's `parts` binding (an array of the part type): the one
/// form whose output type differs from its input's. Anything else whose types differ is refused.
///
/// # Safety
///
/// As for [`ElementwiseKernels::unary`].
unsafe fn complex_real<T: Pod, R: Pod, const N: usize>(
    dev: &WgpuDevice,
    form: DeviceUnary<T>,
    out: Desc<Wgpu, R, N>,
    a: Desc<Wgpu, T, N>,
    t: &'static str,
) -> Result<()> {
    let name = check_complex_real::<T, R>(form, "WebGPU")?;
    if t == "c128" && transcendental(name) {
        return Err(no_f64(name));
    }
    let n = out.len();
    if n == 0 {
        return Ok(());
    }
    let p = params(n, [words(&out)?, words(&a)?], &[])?;
    // SAFETY: the operands are live; `out` is a fresh output, another buffer than `a`'s.
    let (bo, ba) = unsafe { (buffer(&out), buffer(&a)) };
    run(dev, family("elementwise"), t, &format!("complex_{name}"), n, &[(6, bo), (1, ba)], &p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_of_another_type_are_refused() {
        let Ok(dev) = WgpuDevice::new() else { return };
        crate::backend::complex_refusals::results_of_another_type_are_refused::<Wgpu>(&dev);
    }
}
