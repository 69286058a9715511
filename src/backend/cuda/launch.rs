//! The op families' kernel traits for `Cuda`: each call picks the kernel of `kernels/*.cu` named
//! after the op token and the element type, turns the descriptors into the kernels' `Desc`, and
//! launches on the device's stream (asynchronously; a result read on the host synchronizes).

use core::any::TypeId;

use cudarc::driver::{DeviceRepr, PushKernelArg};

use super::device::{device_error, CudaDevice};
use super::kernels::FAMILIES;
use super::{Cuda, CudaBuffer};
use crate::element::{Numeric, Pod};
use crate::error::{Error, Result};
use crate::ops::desc::Desc;
use crate::ops::elementwise::ElementwiseKernels;
use crate::ops::fill_copy::CopyKernels;
use crate::ops::reduce::{self, ReduceKernels};
use crate::ops::tokens::{ArgOp, BinaryOp, DeviceUnary, ReduceOp, UnaryOp};
use crate::stencil::StencilKernels;

/// The most axes a kernel descriptor holds (`CNDA_MAX_RANK` in `kernels/common.cuh`).
const MAX_RANK: usize = 8;
/// The most taps of a device stencil (`CNDA_MAX_TAPS` in `kernels/stencil.cu`).
const MAX_TAPS: usize = 32;

const ELEMENTWISE: usize = 0;
const COPY: usize = 1;
const REDUCE: usize = 2;
const STENCIL: usize = 3;

/// The kernels' `Desc`: `#[repr(C)]` as in `kernels/common.cuh` (8 + 64 + 64 + 4 bytes, padded
/// to 144).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(super) struct KernelDesc {
    offset: i64,
    shape: [i64; MAX_RANK],
    strides: [i64; MAX_RANK],
    rank: i32,
    padding: i32,
}

// SAFETY: a plain `#[repr(C)]` struct of integers with the layout of the kernels' `Desc`.
unsafe impl DeviceRepr for KernelDesc {}

// The sizes the C structs have (`Desc`: 8 + 64 + 64 + 4 bytes padded to 8; `Taps<T>`: 32 deltas,
// 32 weights and a count, padded to 8), checked at compile time.
const _: () = assert!(core::mem::size_of::<KernelDesc>() == 144);
const _: () = assert!(core::mem::size_of::<KernelTaps<f64>>() == 520);
const _: () = assert!(core::mem::size_of::<KernelTaps<f32>>() == 392);
const _: () = assert!(core::mem::size_of::<KernelTaps<half::f16>>() == 328);

/// The kernels' `Taps<T>` (`kernels/stencil.cu`).
#[repr(C)]
#[derive(Clone, Copy)]
struct KernelTaps<T> {
    delta: [i64; MAX_TAPS],
    weight: [T; MAX_TAPS],
    count: i32,
}

// SAFETY: `#[repr(C)]` with the layout of `Taps<T>` for the f32, f64, f16 and bf16 it is built
// for (the 16-bit types are one `unsigned short` in the kernels, as in `half`).
unsafe impl<T: Pod> DeviceRepr for KernelTaps<T> {}

/// The address and kernel descriptor of an operand (its address is element `[0; N]`'s, so the
/// descriptor's offset is 0).
pub(super) fn kernel_desc<T: Pod, const N: usize>(d: &Desc<Cuda, T, N>) -> Result<(u64, KernelDesc)> {
    if N > MAX_RANK {
        return Err(Error::Limit {
            op: "a CUDA kernel",
            backend: "CUDA",
            what: "the rank of an operand",
            got: N as u64,
            max: MAX_RANK as u64,
            fix: "reshape to fewer axes (merge the contiguous ones)",
        });
    }
    let mut k = KernelDesc { offset: 0, shape: [1; MAX_RANK], strides: [0; MAX_RANK], rank: N as i32, padding: 0 };
    for axis in 0..N {
        k.shape[axis] = d.shape[axis] as i64;
        k.strides[axis] = d.strides[axis] as i64;
    }
    Ok((d.handle.addr, k))
}

/// The kernel-name suffix of element type `T`, or `Error::UnsupportedDType`.
fn suffix<T: Pod>(op: &'static str) -> Result<&'static str> {
    let id = TypeId::of::<T>();
    let names = [
        (TypeId::of::<f32>(), "f32"),
        (TypeId::of::<f64>(), "f64"),
        (TypeId::of::<i32>(), "i32"),
        (TypeId::of::<i64>(), "i64"),
        (TypeId::of::<half::f16>(), "f16"),
        (TypeId::of::<half::bf16>(), "bf16"),
    ];
    names.iter().find(|(t, _)| *t == id).map(|&(_, s)| s).ok_or_else(|| Error::UnsupportedDType {
        op,
        got: core::any::type_name::<T>().into(),
        fix: "CUDA kernels exist for f32, f64, i32, i64, and (without float math or matmul) f16 and bf16; convert on the host first",
    })
}

fn launch_error(name: &str) -> impl Fn(cudarc::driver::DriverError) -> Error + '_ {
    move |e| device_error(format!("launching {name}: {e:?}"))
}

/// Whether every descriptor is one dense row-major block of the same shape.
fn all_contiguous<T: Pod, const N: usize>(ds: &[&Desc<Cuda, T, N>]) -> bool {
    ds.iter().all(|d| d.is_contiguous() && d.shape == ds[0].shape)
}

/// Launches `$name` of family `$family` (element type `$t`) over `$n` grid-stride items with the
/// given arguments.
macro_rules! launch {
    ($dev:expr, $family:expr, $t:expr, $name:expr, $n:expr, [$($arg:expr),* $(,)?]) => {{
        let dev: &CudaDevice = $dev;
        let name: &str = &$name;
        let function = dev.function(&FAMILIES[$family], $t, name)?;
        #[cfg(feature = "tracing")]
        tracing::trace!(target: "cnda::cuda", kernel = name, items = $n, device = dev.ordinal(), "launch");
        let mut builder = dev.stream().launch_builder(&function);
        $(builder.arg($arg);)*
        // SAFETY: the arguments match the kernel's parameters in order and type (the kernel is
        // chosen by the name built from the same element type), and every address the
        // descriptors reach is live device memory on this stream (the kernel traits' contracts).
        unsafe { builder.launch(dev.grid($n)) }.map_err(launch_error(name))?;
    }};
}

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
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        let count = n as i64;
        if all_contiguous(&[&out, &a, &b]) {
            let (po, pa, pb) = (out.handle.addr, a.handle.addr, b.handle.addr);
            launch!(dev, ELEMENTWISE, t, format!("cnda_binary_{}_{t}_contig", Op::NAME), n, [&po, &pa, &pb, &count]);
            return Ok(());
        }
        let ((po, o), (pa, da), (pb, db)) = (kernel_desc(&out)?, kernel_desc(&a)?, kernel_desc(&b)?);
        launch!(dev, ELEMENTWISE, t, format!("cnda_binary_{}_{t}", Op::NAME), n, [&po, &o, &pa, &da, &pb, &db, &count]);
        Ok(())
    }

    unsafe fn unary<T: Pod, Op: UnaryOp<T>, const N: usize>(
        dev: &CudaDevice,
        op: Op,
        out: Desc<Cuda, Op::Output, N>,
        a: Desc<Cuda, T, N>,
    ) -> Result<()> {
        if TypeId::of::<Op::Output>() != TypeId::of::<T>() {
            return Err(Error::NoKernel { op: Op::NAME, backend: "CUDA", reason: "its kernels keep the element type" });
        }
        let form = op.device_form().ok_or(Error::NoKernel {
            op: Op::NAME,
            backend: "CUDA",
            reason: "a host-only op token",
        })?;
        let t = suffix::<T>(Op::NAME)?;
        let n = out.len();
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
                launch!(dev, ELEMENTWISE, t, format!("cnda_unary_{name}_{t}"), n, [&po, &o, &pa, &da, &count]);
            }
            DeviceUnary::ScalarRight(name, s) => {
                let s = Scalar(s);
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
                let s = Scalar(s);
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
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        let count = n as i64;
        let ((pd, d), (ps, ds)) = (kernel_desc(&dst)?, kernel_desc(&src)?);
        launch!(dev, ELEMENTWISE, t, format!("cnda_update_{}_{t}", Op::NAME), n, [&pd, &d, &ps, &ds, &count]);
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

/// A scalar kernel argument of element type `T`.
#[repr(transparent)]
#[derive(Clone, Copy)]
struct Scalar<T>(T);

// SAFETY: one `T` of the f32/f64/i32/i64/f16/bf16 the kernels take by value (`suffix` chose the
// kernel by the same type; the 16-bit types are one `unsigned short` on both sides).
unsafe impl<T: Pod> DeviceRepr for Scalar<T> {}

// SAFETY: writes every destination index once with the source's (or the fill) value.
unsafe impl CopyKernels for Cuda {
    unsafe fn copy<T: Pod, const N: usize>(
        dev: &CudaDevice,
        dst: Desc<Cuda, T, N>,
        src: Desc<Cuda, T, N>,
    ) -> Result<()> {
        let t = suffix::<T>("copy")?;
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        let count = n as i64;
        if all_contiguous(&[&dst, &src]) {
            let (pd, ps) = (dst.handle.addr, src.handle.addr);
            launch!(dev, COPY, t, format!("cnda_copy_{t}_contig"), n, [&pd, &ps, &count]);
            return Ok(());
        }
        if N == 2
            && dst.is_contiguous()
            && src.strides[0].unsigned_abs() < src.strides[1].unsigned_abs()
            && src.strides[0] != 0
        {
            // A transposed matrix into a row-major one: through shared tiles, both sides coalesced.
            let (rows, cols) = (dst.shape[0] as i64, dst.shape[1] as i64);
            let (pd, ps) = (dst.handle.addr, src.handle.addr);
            let (ld, sr, sc) = (cols, src.strides[0] as i64, src.strides[1] as i64);
            let name = format!("cnda_transpose_{t}");
            let function = dev.function(&FAMILIES[COPY], t, &name)?;
            #[cfg(feature = "tracing")]
            tracing::trace!(target: "cnda::cuda", kernel = name, items = n, device = dev.ordinal(), "launch");
            let mut builder = dev.stream().launch_builder(&function);
            builder.arg(&pd).arg(&ld).arg(&ps).arg(&sr).arg(&sc).arg(&rows).arg(&cols);
            let config = cudarc::driver::LaunchConfig {
                grid_dim: ((cols as u32).div_ceil(32), (rows as u32).div_ceil(32), 1),
                block_dim: (32, 8, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: the arguments match `cnda_transpose_<t>`; the tiles stay inside rows x
            // cols, every element of which both descriptors address (the trait's contract).
            unsafe { builder.launch(config) }.map_err(launch_error(&name))?;
            return Ok(());
        }
        let ((pd, d), (ps, s)) = (kernel_desc(&dst)?, kernel_desc(&src)?);
        launch!(dev, COPY, t, format!("cnda_copy_{t}"), n, [&pd, &d, &ps, &s, &count]);
        Ok(())
    }

    unsafe fn fill<T: Pod, const N: usize>(dev: &CudaDevice, dst: Desc<Cuda, T, N>, value: T) -> Result<()> {
        let t = suffix::<T>("fill")?;
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        let count = n as i64;
        let (pd, d) = kernel_desc(&dst)?;
        let value = Scalar(value);
        launch!(dev, COPY, t, format!("cnda_fill_{t}"), n, [&pd, &d, &value, &count]);
        Ok(())
    }
}

/// The identity a fold's idle threads start from.
fn fold_identity<T: Numeric>(name: &str) -> Result<T> {
    reduce::fold_identity(name)
        .ok_or_else(|| device_error(format!("the reduction {name} has no CUDA kernel; run it on the host")))
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
        _: Op,
        a: Desc<Cuda, T, N>,
    ) -> Result<T> {
        let t = suffix::<T>(Op::NAME)?;
        let identity = fold_identity::<T>(Op::NAME)?;
        let n = a.len();
        let blocks = dev.grid(n).grid_dim.0 as usize;
        let partial = CudaBuffer::<T>::allocate(*dev, Op::NAME, blocks + 1, false)?;
        let (pp, result) = (partial.handle(0).addr, partial.handle(blocks as isize).addr);
        let name = format!("cnda_{}_{t}", Op::NAME);
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
        _: Op,
        out: Desc<Cuda, T, M>,
        a: Desc<Cuda, T, N>,
    ) -> Result<()> {
        let t = suffix::<T>(Op::NAME)?;
        let identity = fold_identity::<T>(Op::NAME)?;
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
            format!("cnda_{}_axis_{t}", Op::NAME),
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
        let n = a.len();
        let blocks = dev.grid(n).grid_dim.0 as usize;
        let values = CudaBuffer::<T>::allocate(*dev, Op::NAME, blocks + 1, false)?;
        let indices = CudaBuffer::<i64>::allocate(*dev, Op::NAME, blocks + 1, false)?;
        let (pv, pi) = (values.handle(0).addr, indices.handle(0).addr);
        let (rv, ri) = (values.handle(blocks as isize).addr, indices.handle(blocks as isize).addr);
        let name = format!("cnda_{}_{t}", Op::NAME);
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

// SAFETY: writes every output point once with the taps summed in order.
unsafe impl StencilKernels for Cuda {
    unsafe fn linear<T: Numeric, const N: usize, const K: usize>(
        dev: &CudaDevice,
        out: Desc<Cuda, T, N>,
        input: Desc<Cuda, T, N>,
        taps: &[([isize; N], T); K],
    ) -> Result<()> {
        let t = suffix::<T>("stencil")?;
        if K > MAX_TAPS {
            return Err(Error::Limit {
                op: "LinearStencil::apply",
                backend: "CUDA",
                what: "the number of stencil taps",
                got: K as u64,
                max: MAX_TAPS as u64,
                fix: "split the stencil into sums of smaller ones",
            });
        }
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        let mut kernel_taps = KernelTaps { delta: [0; MAX_TAPS], weight: [T::ZERO; MAX_TAPS], count: K as i32 };
        for (k, (offset, weight)) in taps.iter().enumerate() {
            kernel_taps.delta[k] = (0..N).map(|axis| offset[axis] as i64 * input.strides[axis] as i64).sum();
            kernel_taps.weight[k] = *weight;
        }
        let ((po, o), (pu, du)) = (kernel_desc(&out)?, kernel_desc(&input)?);
        let count = n as i64;
        launch!(dev, STENCIL, t, format!("cnda_stencil_{t}"), n, [&po, &o, &pu, &du, &kernel_taps, &count]);
        Ok(())
    }
}
