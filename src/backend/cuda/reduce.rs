//! The reduction kernels for `Cuda`: two-pass block-tree folds (dense operands without index
//! arithmetic), folds along the last axis, and arg-reductions carrying indices; `Partials`, the
//! second pass, which `vector.rs`'s `dot` shares.

use cudarc::driver::PushKernelArg;

use super::device::{device_error, CudaDevice};
use super::dispatch::{all_contiguous, kernel_desc, launch, launch_error, suffix, Scalar, BLOCK, REDUCE};
use super::kernels::FAMILIES;
use super::{Cuda, CudaBuffer};
use crate::element::{Arithmetic, Numeric, Pod};
use crate::error::{Error, Result};
use crate::kernel::tokens::{check_device_name, ArgOp, ReduceOp, DEVICE_ARG, DEVICE_FOLD};
use crate::kernel::Desc;
use crate::kernel::ReduceKernels;

/// What a fold's idle threads start from: the token's `fold_start`.
fn fold_start<T: Arithmetic, Op: ReduceOp<T>>(op: Op) -> Result<T> {
    op.fold_start().ok_or(Error::NoKernel {
        op: Op::NAME,
        backend: "CUDA",
        reason: "a reduction with no value to fold from",
    })
}

/// A two-pass fold's per-block partials (one per block of `dev.grid(n)`) and the result's slot
/// after them: the first pass writes the partials, [`Partials::fold`] folds them.
pub(super) struct Partials<T: Pod> {
    buffer: CudaBuffer<T>,
    blocks: usize,
}

impl<T: Arithmetic> Partials<T> {
    /// Room for the partials of a first pass over `n` items.
    pub(super) fn allocate(dev: &CudaDevice, op: &'static str, n: usize) -> Result<Self> {
        let blocks = dev.grid(n).grid_dim.0 as usize;
        Ok(Partials { buffer: CudaBuffer::<T>::allocate(*dev, op, blocks + 1, false)?, blocks })
    }

    /// The address the first pass writes its partials to.
    pub(super) fn first(&self) -> u64 {
        self.buffer.handle(0).addr
    }

    /// The partials folded by one block of `fold` (the reduce family's whole-array kernel of that
    /// name, seeded by `identity`) into the result, read back to the host.
    pub(super) fn fold(self, dev: &CudaDevice, t: &'static str, fold: &str, identity: Scalar<T>) -> Result<T> {
        let (pp, result) = (self.first(), self.buffer.handle(self.blocks as isize).addr);
        let count = self.blocks as i64;
        let name = format!("{fold}_contig");
        let function = dev.function(&FAMILIES[REDUCE], t, &name)?;
        let mut builder = dev.stream().launch_builder(&function);
        builder.arg(&pp).arg(&count).arg(&identity).arg(&result);
        let one = cudarc::driver::LaunchConfig { grid_dim: (1, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: the dense fold over the `blocks` partials the first pass wrote, into the last
        // element of the same buffer, which the partials do not reach.
        unsafe { builder.launch(one) }.map_err(launch_error(&name))?;
        Ok(read_back::<T>(dev, result, 1)?[0])
    }
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
    unsafe fn reduce<T: Arithmetic, Op: ReduceOp<T>, const N: usize>(
        dev: &CudaDevice,
        op: Op,
        a: Desc<Cuda, T, N>,
    ) -> Result<T> {
        let t = suffix::<T>(Op::NAME)?;
        let name = check_device_name(Op::NAME, DEVICE_FOLD, "CUDA")?;
        let identity = fold_start::<T, Op>(op)?;
        let n = a.len();
        let name = format!("cnda_{name}_{t}");
        let partials = Partials::<T>::allocate(dev, Op::NAME, n)?;
        let (count, identity) = (n as i64, Scalar(identity));
        let pp = partials.first();
        if all_contiguous(&[&a]) {
            let pa = a.handle.addr;
            launch!(dev, REDUCE, t, format!("{name}_contig"), n, [&pa, &count, &identity, &pp]);
        } else {
            let (pa, da) = kernel_desc(&a)?;
            launch!(dev, REDUCE, t, name, n, [&pa, &da, &count, &identity, &pp]);
        }
        partials.fold(dev, t, &name, identity)
    }

    unsafe fn reduce_last_axis<T: Arithmetic, Op: ReduceOp<T>, const N: usize, const M: usize>(
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
        let one = cudarc::driver::LaunchConfig { grid_dim: (1, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: the same kernel over the per-block candidates and their flat indices.
        unsafe { builder.launch(one) }.map_err(launch_error(&name))?;
        let at = read_back::<i64>(dev, ri, 1)?[0];
        usize::try_from(at).map_err(|_| device_error(format!("{name} found no element in {n}")))
    }
}
