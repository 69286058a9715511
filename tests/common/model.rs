//! A second backend, written as a downstream crate would write one: its own buffer, data handle
//! with a device id, allocator and naive kernels for every kernel trait (an index odometer, no
//! lanes). Ops on its arrays and views go through the same generic algorithms as the CPU's, so
//! the tests that use it (`second_backend.rs`, the conformance suite) check those algorithms
//! (broadcasting, output allocation from the input's allocator, axis merging, the same-device
//! check) against naive references, independently of the CPU's kernels.

#![allow(dead_code)]

use std::cell::RefCell;

use cnda::kernel::expr::{CheckedExpr, ExprData, Scalar, Stencil, StencilParams, TapReader, Values};
use cnda::kernel::tokens::{ArgOp, BinaryOp, ReduceOp, UnaryOp};
use cnda::kernel::CopyKernels;
use cnda::kernel::Desc;
use cnda::kernel::Download;
use cnda::kernel::ElementwiseKernels;
use cnda::kernel::ReduceKernels;
use cnda::kernel::{ExprStencilKernels, StencilKernels};
use cnda::kernel::{GemmElement, MatmulKernels, Par};
use cnda::prelude::*;

/// The model backend: host memory tagged with a device id.
#[derive(Clone, Copy, Debug, Default)]
pub struct Model;

/// A model device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dev(pub u32);

pub struct ModelBuffer<T> {
    data: Vec<T>,
    dev: u32,
}

/// The data handle: a pointer and the device it is on.
pub struct ModelPtr<T> {
    pub ptr: *mut T,
    pub dev: u32,
}

impl<T> Clone for ModelPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ModelPtr<T> {}

/// The allocator of device `.0`.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelAlloc(pub u32);

// SAFETY: buffers hold exactly `len` zeroed elements and own their memory.
unsafe impl Allocator<Model> for ModelAlloc {
    fn device(&self) -> Dev {
        Dev(self.0)
    }

    fn try_alloc_zeroed<T: Pod>(&self, _: &'static str, len: usize) -> Result<ModelBuffer<T>, Error> {
        Ok(ModelBuffer { data: vec![T::zeroed(); len], dev: self.0 })
    }

    unsafe fn try_alloc_for_overwrite<T: Pod>(&self, op: &'static str, len: usize) -> Result<ModelBuffer<T>, Error> {
        self.try_alloc_zeroed(op, len)
    }
}

impl Backend for Model {
    const NAME: &'static str = "Model";
    type Device = Dev;
    type Buffer<T: Pod> = ModelBuffer<T>;
    type Handle<T: Pod> = ModelPtr<T>;
    type Alloc = ModelAlloc;

    fn handle<T: Pod>(buf: &ModelBuffer<T>, offset: isize) -> ModelPtr<T> {
        ModelPtr { ptr: buf.data.as_ptr().cast_mut().wrapping_offset(offset), dev: buf.dev }
    }

    fn handle_mut<T: Pod>(buf: &mut ModelBuffer<T>, offset: isize) -> ModelPtr<T> {
        ModelPtr { ptr: buf.data.as_mut_ptr().wrapping_offset(offset), dev: buf.dev }
    }

    fn moved<T: Pod>(h: ModelPtr<T>, offset: isize) -> ModelPtr<T> {
        ModelPtr { ptr: h.ptr.wrapping_offset(offset), dev: h.dev }
    }

    fn part_handle<T: Pod, F: Pod>(h: ModelPtr<T>) -> ModelPtr<F> {
        ModelPtr { ptr: h.ptr.cast(), dev: h.dev }
    }

    fn handle_device<T: Pod>(h: ModelPtr<T>) -> Dev {
        Dev(h.dev)
    }

    fn allocator_of<T: Pod>(buf: &ModelBuffer<T>) -> ModelAlloc {
        ModelAlloc(buf.dev)
    }

    fn allocator_of_handle<T: Pod>(h: ModelPtr<T>) -> ModelAlloc {
        ModelAlloc(h.dev)
    }
}

// SAFETY: `try_download_into` copies every element of the contiguous operand, in order, from
// the host memory its handle points into.
unsafe impl Download for Model {
    unsafe fn try_download_into<T: Pod, const N: usize>(desc: Desc<Model, T, N>, dst: *mut T) -> cnda::Result<()> {
        // SAFETY: `desc` is `desc.len()` live, contiguous elements from its handle and `dst` as
        // many writable ones that overlap nothing live (the caller's contract).
        unsafe { core::ptr::copy_nonoverlapping(desc.handle.ptr.cast_const(), dst, desc.len()) };
        Ok(())
    }
}

// SAFETY: the buffer is a `Vec` that no other buffer shares; its heap block does not move when
// the buffer moves; handles are its pointer moved by their offset.
unsafe impl HostAccessible for Model {
    fn host_ptr<T: Pod>(buf: &ModelBuffer<T>) -> *const T {
        buf.data.as_ptr()
    }

    fn host_ptr_mut<T: Pod>(buf: &mut ModelBuffer<T>) -> *mut T {
        buf.data.as_mut_ptr()
    }

    fn handle_ptr<T: Pod>(h: ModelPtr<T>) -> *mut T {
        h.ptr
    }
}

thread_local! {
    /// The shapes the kernels were handed, in call order.
    pub static LAUNCHES: RefCell<Vec<Vec<usize>>> = const { RefCell::new(Vec::new()) };
}

pub fn launches() -> Vec<Vec<usize>> {
    LAUNCHES.with(|l| l.take())
}

/// Every index of `shape` in row-major order.
pub fn indices<const N: usize>(shape: [usize; N]) -> Vec<[usize; N]> {
    let total: usize = shape.iter().product();
    (0..total)
        .map(|mut flat| {
            let mut index = [0; N];
            for axis in (0..N).rev() {
                index[axis] = flat % shape[axis];
                flat /= shape[axis];
            }
            index
        })
        .collect()
}

/// The pointer to `index` of an operand.
pub fn at<T: Pod, const N: usize>(d: &Desc<Model, T, N>, index: [usize; N]) -> *mut T {
    let offset: isize = (0..N).map(|k| index[k] as isize * d.strides[k]).sum();
    d.handle.ptr.wrapping_offset(offset)
}

// SAFETY: each kernel writes every index of its output exactly once with the token's value.
unsafe impl ElementwiseKernels for Model {
    unsafe fn binary<T: Pod, Op: BinaryOp<T>, const N: usize>(
        _: &Dev,
        op: Op,
        out: Desc<Model, T, N>,
        a: Desc<Model, T, N>,
        b: Desc<Model, T, N>,
    ) -> Result<(), Error> {
        LAUNCHES.with(|l| l.borrow_mut().push(out.shape.to_vec()));
        for i in indices(out.shape) {
            // SAFETY: the trait's contract: every index is in bounds for every operand.
            unsafe { at(&out, i).write(op.apply(*at(&a, i), *at(&b, i))) };
        }
        Ok(())
    }

    unsafe fn unary<T: Pod, Op: UnaryOp<T>, const N: usize>(
        _: &Dev,
        op: Op,
        out: Desc<Model, Op::Output, N>,
        a: Desc<Model, T, N>,
    ) -> Result<(), Error> {
        LAUNCHES.with(|l| l.borrow_mut().push(out.shape.to_vec()));
        for i in indices(out.shape) {
            // SAFETY: as above.
            unsafe { at(&out, i).write(op.apply(*at(&a, i))) };
        }
        Ok(())
    }

    unsafe fn update<T: Pod, Op: BinaryOp<T>, const N: usize>(
        _: &Dev,
        op: Op,
        dst: Desc<Model, T, N>,
        src: Desc<Model, T, N>,
    ) -> Result<(), Error> {
        for i in indices(dst.shape) {
            // SAFETY: as above; `dst` does not overlap `src`.
            unsafe { *at(&dst, i) = op.apply(*at(&dst, i), *at(&src, i)) };
        }
        Ok(())
    }

    unsafe fn update_unary<T: Pod, Op: UnaryOp<T, Output = T>, const N: usize>(
        _: &Dev,
        op: Op,
        dst: Desc<Model, T, N>,
    ) -> Result<(), Error> {
        for i in indices(dst.shape) {
            // SAFETY: as above.
            unsafe { *at(&dst, i) = op.apply(*at(&dst, i)) };
        }
        Ok(())
    }
}

// SAFETY: reads only in-bounds indices and writes every output index once.
unsafe impl ReduceKernels for Model {
    unsafe fn reduce<T: cnda::Arithmetic, Op: ReduceOp<T>, const N: usize>(
        _: &Dev,
        op: Op,
        a: Desc<Model, T, N>,
    ) -> Result<T, Error> {
        // SAFETY: the trait's contract.
        let xs = indices(a.shape).into_iter().map(|i| unsafe { *at(&a, i) });
        Ok(xs.reduce(|acc, x| op.combine(acc, x)).expect("not empty"))
    }

    unsafe fn reduce_last_axis<T: cnda::Arithmetic, Op: ReduceOp<T>, const N: usize, const M: usize>(
        _: &Dev,
        op: Op,
        out: Desc<Model, T, M>,
        a: Desc<Model, T, N>,
    ) -> Result<(), Error> {
        LAUNCHES.with(|l| l.borrow_mut().push(a.shape.to_vec()));
        for o in indices(out.shape) {
            let mut acc = op.identity();
            for k in 0..a.shape[N - 1] {
                let i: [usize; N] = core::array::from_fn(|d| if d < M { o[d] } else { k });
                // SAFETY: the trait's contract.
                let x = unsafe { *at(&a, i) };
                acc = Some(acc.map_or(x, |acc| op.combine(acc, x)));
            }
            // SAFETY: as above.
            unsafe { at(&out, o).write(acc.expect("an identity or a non-empty axis")) };
        }
        Ok(())
    }

    unsafe fn arg_reduce<T: Numeric, Op: ArgOp<T>, const N: usize>(
        _: &Dev,
        op: Op,
        a: Desc<Model, T, N>,
    ) -> Result<usize, Error> {
        let mut best: Option<(usize, T)> = None;
        for (pos, i) in indices(a.shape).into_iter().enumerate() {
            // SAFETY: the trait's contract.
            let x = unsafe { *at(&a, i) };
            if x.is_nan() {
                return Ok(pos);
            }
            if best.is_none_or(|(_, b)| op.better(x, b)) {
                best = Some((pos, x));
            }
        }
        Ok(best.expect("not empty").0)
    }
}

// SAFETY: writes every destination index once.
// SAFETY: the provided methods, through the kernels above.
unsafe impl cnda::kernel::VectorKernels for Model {}

// SAFETY: writes each row's sum once, reading only the operands' elements.
unsafe impl cnda::kernel::SparseKernels for Model {
    unsafe fn spmv<T: Float>(
        _: &Dev,
        offsets: Desc<Model, i32, 1>,
        columns: Desc<Model, i32, 1>,
        values: Desc<Model, T, 1>,
        x: Desc<Model, T, 1>,
        y: Desc<Model, T, 1>,
    ) -> Result<(), Error> {
        for row in 0..y.shape[0] {
            // SAFETY: the trait's contract: dense operands, offsets and columns in range.
            unsafe {
                let (start, end) = (*at(&offsets, [row]), *at(&offsets, [row + 1]));
                let mut sum = T::ZERO;
                for j in start as usize..end as usize {
                    sum = sum + *at(&values, [j]) * *at(&x, [*at(&columns, [j]) as usize]);
                }
                at(&y, [row]).write(sum);
            }
        }
        Ok(())
    }
}

// SAFETY: copies `data` into the buffer's `Vec`, of its length.
unsafe impl cnda::kernel::WriteFromHost for Model {
    unsafe fn try_write_from_host<T: Pod>(buf: &mut ModelBuffer<T>, data: &[T]) -> Result<(), Error> {
        buf.data.copy_from_slice(data);
        Ok(())
    }
}

impl cnda::kernel::Upload for ModelAlloc {
    type Target = Model;
}

unsafe impl CopyKernels for Model {
    unsafe fn copy<T: Pod, const N: usize>(
        _: &Dev,
        dst: Desc<Model, T, N>,
        src: Desc<Model, T, N>,
    ) -> Result<(), Error> {
        LAUNCHES.with(|l| l.borrow_mut().push(dst.shape.to_vec()));
        for i in indices(dst.shape) {
            // SAFETY: the trait's contract.
            unsafe { at(&dst, i).write(*at(&src, i)) };
        }
        Ok(())
    }

    unsafe fn fill<T: Pod, const N: usize>(_: &Dev, dst: Desc<Model, T, N>, value: T) -> Result<(), Error> {
        for i in indices(dst.shape) {
            // SAFETY: the trait's contract.
            unsafe { at(&dst, i).write(value) };
        }
        Ok(())
    }
}

// SAFETY: writes every output element once.
unsafe impl MatmulKernels for Model {
    unsafe fn gemm<T: GemmElement>(
        _: &Dev,
        out: Desc<Model, T, 2>,
        a: Desc<Model, T, 2>,
        b: Desc<Model, T, 2>,
        _: Par,
    ) -> Result<(), Error> {
        for [i, j] in indices(out.shape) {
            let mut acc = T::ZERO;
            for p in 0..a.shape[1] {
                // SAFETY: the trait's contract.
                acc = acc + unsafe { *at(&a, [i, p]) * *at(&b, [p, j]) };
            }
            // SAFETY: as above.
            unsafe { at(&out, [i, j]).write(acc) };
        }
        Ok(())
    }
}

// SAFETY: writes every output point once.
unsafe impl StencilKernels for Model {
    unsafe fn taps<T: Numeric, const N: usize>(
        _: &Dev,
        out: Desc<Model, T, N>,
        input: Desc<Model, T, N>,
        taps: &[([isize; N], T)],
    ) -> Result<(), Error> {
        LAUNCHES.with(|l| l.borrow_mut().push(out.shape.to_vec()));
        for x in indices(out.shape) {
            // From the first product (the empty sum without taps), as every backend sums.
            let mut acc = None;
            for (offset, weight) in taps {
                let delta: isize = (0..N).map(|k| offset[k] * input.strides[k]).sum();
                // SAFETY: the trait's contract keeps every tap inside the input.
                let term = *weight * unsafe { *at(&input, x).offset(delta) };
                acc = Some(acc.map_or(term, |acc| acc + term));
            }
            let acc = acc.unwrap_or(T::ZERO);
            // SAFETY: as above.
            unsafe { at(&out, x).write(acc) };
        }
        Ok(())
    }
}

/// The taps of one point of the model's expression stencils: each read through the field's
/// descriptor at the point plus the tap's offset.
struct ModelTaps<'a, T: Scalar, const N: usize, S> {
    fields: &'a [Desc<Model, T, N>],
    point: [usize; N],
    stencil: core::marker::PhantomData<S>,
}

impl<T: Scalar, const N: usize, S: Stencil<T, N>> TapReader<T> for ModelTaps<'_, T, N, S> {
    fn tap(&self, k: usize) -> T {
        let tap = S::TAPS[k];
        let field = &self.fields[tap.field];
        let delta: isize = (0..N).map(|a| tap.offset[a] * field.strides[a]).sum();
        // SAFETY: the trait's contract keeps every tap inside its field.
        unsafe { *at(field, self.point).offset(delta) }
    }
}

// SAFETY: every index of each output is written once with that output's point value.
unsafe impl ExprStencilKernels for Model {
    unsafe fn expression<S: Stencil<T, N>, T: Scalar, const N: usize>(
        _: &Dev,
        outputs: &[Desc<Model, T, N>],
        fields: &[Desc<Model, T, N>],
        params: &S::Params,
    ) -> Result<(), Error> {
        LAUNCHES.with(|l| l.borrow_mut().push(outputs[0].shape.to_vec()));
        assert_eq!(fields.len(), S::FIELDS.len());
        assert_eq!(outputs.len(), S::VALUES.len());
        let _ = <S::Params as StencilParams<S::Compute>>::LEN;
        for x in indices(outputs[0].shape) {
            let taps = ModelTaps::<T, N, S> { fields, point: x, stencil: core::marker::PhantomData };
            let values = S::point(&taps, params);
            for (m, out) in outputs.iter().enumerate() {
                // SAFETY: as above.
                unsafe { at(out, x).write(values.get(m)) };
            }
        }
        Ok(())
    }

    unsafe fn expression_data<T: Scalar, const N: usize>(
        _: &Dev,
        data: &ExprData<N>,
        outputs: &[Desc<Model, T, N>],
        fields: &[Desc<Model, T, N>],
        params: &[T],
    ) -> Result<(), Error> {
        LAUNCHES.with(|l| l.borrow_mut().push(outputs[0].shape.to_vec()));
        let expr = data.expr();
        assert_eq!((fields.len(), outputs.len(), params.len()), (expr.fields(), expr.outputs(), expr.params()));
        for x in indices(outputs[0].shape) {
            let taps = DataTaps { expr, fields, point: x };
            for (m, value) in expr.eval(&taps, &ParamSlice(params)).into_iter().enumerate() {
                // SAFETY: as above.
                unsafe { at(&outputs[m], x).write(value) };
            }
        }
        Ok(())
    }
}

/// Parameters given as a slice, for the reference interpreter.
#[derive(Clone, Copy)]
struct ParamSlice<'a, T>(&'a [T]);

impl<T: Copy + Send + Sync> StencilParams<T> for ParamSlice<'_, T> {
    const LEN: usize = usize::MAX;
    fn get(&self, i: usize) -> T {
        self.0[i]
    }
}

/// The taps of an expression that is data, read at one point.
struct DataTaps<'a, T: Pod, const N: usize> {
    expr: &'a CheckedExpr<N>,
    fields: &'a [Desc<Model, T, N>],
    point: [usize; N],
}

impl<T: Pod, const N: usize> TapReader<T> for DataTaps<'_, T, N> {
    fn tap(&self, k: usize) -> T {
        let tap = self.expr.taps()[k];
        let field = &self.fields[tap.field];
        let delta: isize = (0..N).map(|a| tap.offset[a] * field.strides[a]).sum();
        // SAFETY: the trait's contract keeps every tap inside its field.
        unsafe { *at(field, self.point).offset(delta) }
    }
}

/// A model array on device `dev` with elements `f(index)`.
pub fn model<const N: usize>(dev: u32, shape: [usize; N], f: impl Fn([usize; N]) -> f64) -> Array<f64, N, Model> {
    Array::try_from_fn_in(&ModelAlloc(dev), shape, f).unwrap()
}
