//! The reduction kernels for `Wgpu`: grid-stride folds in passes until one value is left,
//! folds along the last axis, and arg-reductions carrying indices.

use super::device::{device_error, WgpuDevice};
use super::dispatch::{buffer, elem, params, run, to_i32, words};
use super::shaders::family;
use super::transfer::read_back;
use super::{Wgpu, WgpuBuffer};
use crate::element::{Arithmetic, Numeric};
use crate::error::{Error, Result};
use crate::kernel::tokens::{check_device_name, ArgOp, ReduceOp, DEVICE_ARG, DEVICE_FOLD};
use crate::kernel::Desc;
use crate::kernel::ReduceKernels;

/// What a fold's idle threads start from: the token's `fold_start`.
fn fold_start<T: Arithmetic, Op: ReduceOp<T>>(op: Op) -> Result<T> {
    op.fold_start().ok_or(Error::NoKernel {
        op: Op::NAME,
        backend: "WebGPU",
        reason: "a reduction with no value to fold from",
    })
}

/// Workgroups of a grid-stride reduction pass over `n` items.
fn reduction_groups(n: usize) -> usize {
    n.div_ceil(256).clamp(1, 65_535)
}

// SAFETY: the folds read only the descriptors' indices; `reduce_last_axis` writes each output
// element once.
unsafe impl ReduceKernels for Wgpu {
    unsafe fn reduce<T: Arithmetic, Op: ReduceOp<T>, const N: usize>(
        dev: &WgpuDevice,
        op: Op,
        a: Desc<Wgpu, T, N>,
    ) -> Result<T> {
        let t = elem::<T>(dev, Op::NAME)?;
        let name = check_device_name(Op::NAME, DEVICE_FOLD, "WebGPU")?;
        let identity = [fold_start::<T, Op>(op)?];
        let entry = format!("fold_{name}_contig");
        let pipeline = dev.pipeline(family("reduce"), t, &entry)?;
        // Pass 1 over `a` (strided or dense), then dense passes over the partials until one is
        // left.
        let mut n = a.len();
        let mut groups = reduction_groups(n);
        let mut partial = WgpuBuffer::<T>::allocate(*dev, Op::NAME, groups)?;
        let first = if a.is_contiguous() { entry.clone() } else { format!("fold_{name}") };
        let first_pipeline = dev.pipeline(family("reduce"), t, &first)?;
        let p = params(n, [words(&a)?], &[])?.with(&identity);
        // SAFETY: `a` is live (the trait's contract).
        let ba = unsafe { buffer(&a) };
        dev.dispatch(&first, &first_pipeline, &[(0, partial.raw()), (1, ba)], &p, (groups as u32, 1))?;
        while groups > 1 {
            n = groups;
            groups = reduction_groups(n);
            let next = WgpuBuffer::<T>::allocate(*dev, Op::NAME, groups)?;
            let d = Desc::<Wgpu, T, 1> { handle: partial.handle(0), shape: [n], strides: [1] };
            let p = params(n, [words(&d)?], &[])?.with(&identity);
            dev.dispatch(&entry, &pipeline, &[(0, next.raw()), (1, partial.raw())], &p, (groups as u32, 1))?;
            partial = next;
        }
        Ok(read_back::<T>(dev, partial.raw(), 0, 1)?[0])
    }

    unsafe fn reduce_last_axis<T: Arithmetic, Op: ReduceOp<T>, const N: usize, const M: usize>(
        dev: &WgpuDevice,
        op: Op,
        out: Desc<Wgpu, T, M>,
        a: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        let t = elem::<T>(dev, Op::NAME)?;
        let name = check_device_name(Op::NAME, DEVICE_FOLD, "WebGPU")?;
        let identity = [fold_start::<T, Op>(op)?];
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        let outer = Desc::<Wgpu, T, M> {
            handle: a.handle,
            shape: core::array::from_fn(|k| a.shape[k]),
            strides: core::array::from_fn(|k| a.strides[k]),
        };
        let (len, stride) = (to_i32("an axis length", a.shape[N - 1])?, to_i32("a stride", a.strides[N - 1])?);
        let p = params(n, [words(&out)?, words(&outer)?], &[len, stride])?.with(&identity);
        // SAFETY: the operands are live (the trait's contract); `out` is a fresh buffer.
        let (bo, ba) = unsafe { (buffer(&out), buffer(&a)) };
        run(dev, family("reduce"), t, &format!("fold_axis_{name}"), n, &[(0, bo), (1, ba)], &p)
    }

    unsafe fn arg_reduce<T: Numeric, Op: ArgOp<T>, const N: usize>(
        dev: &WgpuDevice,
        _: Op,
        a: Desc<Wgpu, T, N>,
    ) -> Result<usize> {
        let t = elem::<T>(dev, Op::NAME)?;
        let name = check_device_name(Op::NAME, DEVICE_ARG, "WebGPU")?;
        let argmax = i32::from(Op::SEEKS_MAX);
        let pipeline = dev.pipeline(family("reduce"), t, name)?;
        let mut n = a.len();
        let mut groups = reduction_groups(n);
        let mut values = WgpuBuffer::<T>::allocate(*dev, Op::NAME, groups)?;
        let mut indices = WgpuBuffer::<i32>::allocate(*dev, Op::NAME, groups)?;
        let unused = WgpuBuffer::<i32>::allocate(*dev, Op::NAME, 1)?;
        let p = params(n, [words(&a)?], &[argmax, 0])?;
        // SAFETY: `a` is live (the trait's contract).
        let ba = unsafe { buffer(&a) };
        dev.dispatch(
            Op::NAME,
            &pipeline,
            &[(0, values.raw()), (1, ba), (2, indices.raw()), (4, unused.raw())],
            &p,
            (groups as u32, 1),
        )?;
        while groups > 1 {
            n = groups;
            groups = reduction_groups(n);
            let (next_values, next_indices) = (
                WgpuBuffer::<T>::allocate(*dev, Op::NAME, groups)?,
                WgpuBuffer::<i32>::allocate(*dev, Op::NAME, groups)?,
            );
            let d = Desc::<Wgpu, T, 1> { handle: values.handle(0), shape: [n], strides: [1] };
            let p = params(n, [words(&d)?], &[argmax, 1])?;
            let bindings = [(0, next_values.raw()), (1, values.raw()), (2, next_indices.raw()), (4, indices.raw())];
            dev.dispatch(Op::NAME, &pipeline, &bindings, &p, (groups as u32, 1))?;
            (values, indices) = (next_values, next_indices);
        }
        let at = read_back::<i32>(dev, indices.raw(), 0, 1)?[0];
        usize::try_from(at).map_err(|_| device_error(format!("{} found no element", Op::NAME)))
    }
}

// SAFETY: the provided methods, through this backend's elementwise and reduction kernels (fused
// one-pass kernels are a later step).
unsafe impl crate::kernel::VectorKernels for Wgpu {}
