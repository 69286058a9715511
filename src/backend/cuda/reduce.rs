//! The reduction kernels for `Cuda`: two-pass block-tree folds, folds along the last axis, and
//! arg-reductions carrying indices; the solvers' vector kernels through them.

use cudarc::driver::PushKernelArg;

use super::device::{device_error, CudaDevice};
use super::dispatch::{kernel_desc, launch, launch_error, suffix, Scalar, REDUCE};
use super::kernels::FAMILIES;
use super::{Cuda, CudaBuffer};
use crate::element::{Numeric, Pod};
use crate::error::{Error, Result};
use crate::kernel::tokens::{check_device_name, ArgOp, ReduceOp, DEVICE_ARG, DEVICE_FOLD};
use crate::kernel::Desc;
use crate::kernel::ReduceKernels;

/// What a fold's idle threads start from: the token's `fold_start`.
fn fold_start<T: Numeric, Op: ReduceOp<T>>(op: Op) -> Result<T> {
    op.fold_start().ok_or(Error::NoKernel {
        op: Op::NAME,
        backend: "CUDA",
        reason: "a reduction with no value to fold from",
    })
}

/// Reads `len` elements of device memory at `addr` into a host vector (synchronizing).
fn read_back<T: Pod>(dev: &CudaDevice, addr: u64, len: usize) -> Result<Vec<T>> {
    let mut host = vec![T::zeroed(); len];
    dev.bind()?;
    // SAFETY: `addr` holds `len` elements of `T` written by work on this stream, which the copy
    // is ordered after; the host slice is exactly that long.
    unsafe { cudarc::driver::result::memcpy_dtoh_async(&mut host, addr, dev.stream().cu_stream()) }
        .map_err(|e| device_error(format!("copying a result to the host: {e:?}")))?;
    dev.synchronize()?;
    Ok(host)
}

// SAFETY: the two-pass folds read only the descriptors' indices and return the folded value;
// `reduce_last_axis` writes each output element once.
unsafe impl ReduceKernels for Cuda {
    unsafe fn reduce<T: Numeric, Op: ReduceOp<T>, const N: usize>(
        dev: &CudaDevice,
        op: Op,
        a: Desc<Cuda, T, N>,
    ) -> Result<T> {
        let t = suffix::<T>(Op::NAME)?;
        let name = check_device_name(Op::NAME, DEVICE_FOLD, "CUDA")?;
        let identity = fold_start::<T, Op>(op)?;
        let n = a.len();
        let blocks = dev.grid(n).grid_dim.0 as usize;
        let partial = CudaBuffer::<T>::allocate(*dev, Op::NAME, blocks + 1, false)?;
        let (pp, result) = (partial.handle(0).addr, partial.handle(blocks as isize).addr);
        let name = format!("cnda_{name}_{t}");
        let (pa, da) = kernel_desc(&a)?;
        let (count, identity) = (n as i64, Scalar(identity));
        launch!(dev, REDUCE, t, name, n, [&pa, &da, &count, &identity, &pp]);
        // The partials (one per block) folded by one block.
        let partials = Desc::<Cuda, T, 1> { handle: partial.handle(0), shape: [blocks], strides: [1] };
        let (_, dp) = kernel_desc(&partials)?;
        let count = blocks as i64;
        let function = dev.function(&FAMILIES[REDUCE], t, &name)?;
        let mut builder = dev.stream().launch_builder(&function);
        builder.arg(&pp).arg(&dp).arg(&count).arg(&identity).arg(&result);
        let one = cudarc::driver::LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: the same kernel over the `blocks` partials just written, into the last element.
        unsafe { builder.launch(one) }.map_err(launch_error(&name))?;
        Ok(read_back::<T>(dev, result, 1)?[0])
    }

    unsafe fn reduce_last_axis<T: Numeric, Op: ReduceOp<T>, const N: usize, const M: usize>(
        dev: &CudaDevice,
        op: Op,
        out: Desc<Cuda, T, M>,
        a: Desc<Cuda, T, N>,
    ) -> Result<()> {
        let t = suffix::<T>(Op::NAME)?;
        let name = check_device_name(Op::NAME, DEVICE_FOLD, "CUDA")?;
        let identity = fold_start::<T, Op>(op)?;
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        // `a`'s first M axes walk like `out`; the last is folded by each thread.
        let outer = Desc::<Cuda, T, M> {
            handle: a.handle,
            shape: core::array::from_fn(|k| a.shape[k]),
            strides: core::array::from_fn(|k| a.strides[k]),
        };
        let (len, stride) = (a.shape[N - 1] as i64, a.strides[N - 1] as i64);
        let ((po, o), (pa, da)) = (kernel_desc(&out)?, kernel_desc(&outer)?);
        let (count, identity) = (n as i64, Scalar(identity));
        launch!(
            dev,
            REDUCE,
            t,
            format!("cnda_{name}_axis_{t}"),
            n,
            [&po, &o, &pa, &da, &len, &stride, &identity, &count]
        );
        Ok(())
    }

    unsafe fn arg_reduce<T: Numeric, Op: ArgOp<T>, const N: usize>(
        dev: &CudaDevice,
        _: Op,
        a: Desc<Cuda, T, N>,
    ) -> Result<usize> {
        let t = suffix::<T>(Op::NAME)?;
        let name = check_device_name(Op::NAME, DEVICE_ARG, "CUDA")?;
        let n = a.len();
        let blocks = dev.grid(n).grid_dim.0 as usize;
        let values = CudaBuffer::<T>::allocate(*dev, Op::NAME, blocks + 1, false)?;
        let indices = CudaBuffer::<i64>::allocate(*dev, Op::NAME, blocks + 1, false)?;
        let (pv, pi) = (values.handle(0).addr, indices.handle(0).addr);
        let (rv, ri) = (values.handle(blocks as isize).addr, indices.handle(blocks as isize).addr);
        let name = format!("cnda_{name}_{t}");
        let (pa, da) = kernel_desc(&a)?;
        let (count, no_index) = (n as i64, 0u64);
        launch!(dev, REDUCE, t, name, n, [&pa, &da, &count, &no_index, &pv, &pi]);
        let partials = Desc::<Cuda, T, 1> { handle: values.handle(0), shape: [blocks], strides: [1] };
        let (_, dp) = kernel_desc(&partials)?;
        let count = blocks as i64;
        let function = dev.function(&FAMILIES[REDUCE], t, &name)?;
        let mut builder = dev.stream().launch_builder(&function);
        builder.arg(&pv).arg(&dp).arg(&count).arg(&pi).arg(&rv).arg(&ri);
        let one = cudarc::driver::LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: the same kernel over the per-block candidates and their flat indices.
        unsafe { builder.launch(one) }.map_err(launch_error(&name))?;
        let at = read_back::<i64>(dev, ri, 1)?[0];
        usize::try_from(at).map_err(|_| device_error(format!("{name} found no element in {n}")))
    }
}

// SAFETY: the provided methods, through this backend's elementwise and reduction kernels (fused
// one-pass kernels are a later step).
unsafe impl crate::kernel::VectorKernels for Cuda {}
