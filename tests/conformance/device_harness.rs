//! The conformance harness of any device backend: the cases run through the generic algorithms
//! on device arrays and on device views built by the one view algebra, with the backend's own
//! kernels; a backend supplies only [`Device`] (its transfers, and whether a device is present).
//! The model backend (`tests/common/model.rs`, naive kernels) and CUDA use it.

use core::marker::PhantomData;

use cnda::kernel::CopyKernels;
use cnda::kernel::ElementwiseKernels;
use cnda::kernel::MatmulKernels;
use cnda::kernel::ReduceKernels;
use cnda::kernel::{ExprStencilKernels, StencilKernels};
use cnda::prelude::*;
use cnda::stencil::{Boundary, DoubleBuffer, DynStencil, LinearStencil, Scalar, VariableStencil};
use cnda::view::{Shared, Unique};
use cnda::GemmElement;

use super::harness::{BinOp, Harness, Mixed, Reduction, System, UnOp, View};

/// A device backend as the conformance suite needs it.
pub trait Device: 'static {
    /// The backend's name, for failure messages.
    const NAME: &'static str;
    /// The backend.
    type B: ElementwiseKernels
        + CopyKernels
        + ReduceKernels
        + MatmulKernels
        + StencilKernels
        + ExprStencilKernels
        + cnda::kernel::SparseKernels;
    /// Whether a device is present (the cases print SKIP otherwise).
    fn available() -> bool {
        true
    }
    /// Whether the backend computes in f64.
    fn supports_f64() -> bool {
        true
    }
    /// Whether the backend has f64 transcendental functions.
    fn supports_f64_transcendentals() -> bool {
        Self::supports_f64()
    }
    /// Whether the backend's arithmetic keeps subnormals.
    fn keeps_subnormals() -> bool {
        true
    }
    /// Whether the backend rounds every operation as the CPU does.
    fn rounds_each_operation() -> bool {
        true
    }
    /// Whether the backend computes with f16 fields (WebGPU only where the adapter has f16).
    fn supports_f16() -> bool {
        true
    }
    /// `a` on the device.
    fn upload<T: Float, const N: usize>(a: &Array<T, N>) -> Array<T, N, Self::B>;
    /// A CSR matrix on the device.
    fn upload_csr<T: Float>(m: &cnda::sparse::CsrMatrix<T>) -> cnda::sparse::CsrMatrix<T, Self::B>;
    /// A device array's elements on the host.
    fn download<T: Float, const N: usize, L: Layout, C: BoundsCheck>(a: &Array<T, N, Self::B, L, C>) -> Array<T, N>;
}

/// The harness of device backend `D`.
pub struct DeviceHarness<D>(PhantomData<D>);

/// The view `v` of a device matrix: the same four views as on the host, as device views.
fn device_view<T: Pod, B: Backend>(a: &Array<T, 2, B>, v: View) -> cnda::View<'_, T, 2, Shared, B> {
    match v {
        View::Plain => a.view().into_strided(),
        View::Transposed => a.t().into_strided(),
        View::Stepped => a.slice(s![.., ..;2]).into_strided(),
        View::Flipped => a.flip(0),
    }
}

/// The mutable form of [`device_view`].
fn device_view_mut<T: Pod, B: Backend>(a: &mut Array<T, 2, B>, v: View) -> cnda::View<'_, T, 2, Unique, B> {
    match v {
        View::Plain => a.view_mut().into_strided(),
        View::Transposed => a.view_mut().t().into_strided(),
        View::Stepped => a.slice_mut(s![.., ..;2]).into_strided(),
        View::Flipped => a.view_mut().flip(0),
    }
}

impl<D: Device> Harness for DeviceHarness<D> {
    const NAME: &'static str = D::NAME;
    type Matrix<T: Float> = Array<T, 2, D::B>;
    type Vector<T: Float> = Array<T, 1, D::B>;

    fn available() -> bool {
        D::available()
    }

    fn supports_f64() -> bool {
        D::supports_f64()
    }

    fn supports_f64_transcendentals() -> bool {
        D::supports_f64_transcendentals()
    }

    fn keeps_subnormals() -> bool {
        D::keeps_subnormals()
    }

    fn rounds_each_operation() -> bool {
        D::rounds_each_operation()
    }

    fn mixed_steps(fields: [&Array<half::f16, 2>; 2], a: f32, steps: usize) -> Option<[Array<half::f16, 2>; 2]> {
        let b = [[Boundary::Neumann, Boundary::Value(half::f16::from_f32(0.5))], [Boundary::Periodic; 2]];
        D::supports_f16()
            .then(|| crate::steppers::mixed_steps(fields.map(|f| D::upload(f)), a, steps, b).map(|f| D::download(&f)))
    }

    fn upload<T: Float>(a: &Array<T, 2>) -> Self::Matrix<T> {
        D::upload(a)
    }

    fn upload_vector<T: Float>(a: &Array<T, 1>) -> Self::Vector<T> {
        D::upload(a)
    }

    fn download<T: Float>(a: &Self::Matrix<T>) -> Array<T, 2> {
        D::download(a)
    }

    fn binary<T: Float>(op: BinOp, a: &Self::Matrix<T>, va: View, b: &Self::Matrix<T>, vb: View) -> Array<T, 2> {
        let (x, y) = (device_view(a, va), device_view(b, vb));
        D::download(&match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::Div => x / y,
        })
    }

    fn binary_row<T: Float>(op: BinOp, a: &Self::Matrix<T>, va: View, row: &Self::Vector<T>) -> Array<T, 2> {
        let x = device_view(a, va);
        D::download(&match op {
            BinOp::Add => x + row,
            BinOp::Sub => x - row,
            BinOp::Mul => x * row,
            BinOp::Div => x / row,
        })
    }

    fn scalar<T: Float>(a: &Self::Matrix<T>, va: View, s: T) -> (Array<T, 2>, Array<T, 2>) {
        let x = device_view(a, va);
        // `s - x` for a generic float is `-(x - s)`, exactly (rounding is symmetric).
        (D::download(&(x * s)), D::download(&-&(x - s)))
    }

    fn unary<T: Float>(op: UnOp, a: &Self::Matrix<T>, va: View) -> Array<T, 2> {
        let x = device_view(a, va);
        match op {
            UnOp::Abs => D::download(&x.abs()),
            UnOp::Sqrt => D::download(&x.sqrt()),
            UnOp::Exp => D::download(&x.exp()),
            UnOp::Neg => D::download(&-x),
        }
    }

    fn add_assign<T: Float>(a: &mut Self::Matrix<T>, va: View, b: &Self::Matrix<T>, vb: View) -> Array<T, 2> {
        let y = device_view(b, vb).to_owned();
        let mut target = device_view_mut(a, va);
        target += &y;
        D::download(a)
    }

    fn fill<T: Float>(a: &mut Self::Matrix<T>, va: View, x: T) -> Array<T, 2> {
        device_view_mut(a, va).fill(x);
        D::download(a)
    }

    fn contiguous<T: Float>(a: &Self::Matrix<T>, va: View) -> Array<T, 2> {
        let copy = device_view(a, va).to_owned();
        assert!(copy.view().is_contiguous());
        D::download(&copy)
    }

    fn reduce<T: Float>(r: Reduction, a: &Self::Matrix<T>, va: View) -> Option<T> {
        let x = device_view(a, va);
        match r {
            Reduction::Sum => Some(x.sum()),
            Reduction::Mean => x.mean(),
            Reduction::Min => x.min(),
            Reduction::Max => x.max(),
        }
    }

    fn arg_extrema<T: Float>(a: &Self::Matrix<T>, va: View) -> (Option<[usize; 2]>, Option<[usize; 2]>) {
        let x = device_view(a, va);
        (x.argmin(), x.argmax())
    }

    fn sum_axis<T: Float>(a: &Self::Matrix<T>, va: View, axis: usize) -> Array<T, 1> {
        D::download(&device_view(a, va).sum_axis::<1>(axis))
    }

    fn matmul<T: Float + GemmElement>(a: &Self::Matrix<T>, va: View, b: &Self::Matrix<T>, vb: View) -> Array<T, 2> {
        D::download(&device_view(a, va).matmul(&device_view(b, vb)))
    }

    fn spmv<T: Float>(m: &cnda::sparse::CsrMatrix<T>, x: &Array<T, 1>) -> Array<T, 1> {
        let (m, x) = (D::upload_csr(m), D::upload(x));
        let mut y = D::upload(&Array::<T, 1>::full([m.shape()[0]], T::from_f64(f64::NAN)));
        m.spmv(&x, &mut y);
        D::download(&y)
    }

    fn stencil<T: Float, const K: usize>(
        s: &LinearStencil<T, 2, 1, K>,
        input: &Self::Matrix<T>,
        va: View,
        output: &Self::Matrix<T>,
    ) -> Array<T, 2> {
        let mut out = output.to_owned();
        s.apply(device_view(input, va), out.view_mut());
        D::download(&out)
    }

    fn time_steps<T: Scalar>(
        u: &Array<T, 2>,
        k: &Array<T, 2>,
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> (Array<T, 2>, Array<T, 2>) {
        let mut f = DoubleBuffer::from_pair(D::upload(u), D::upload(u));
        let dk = D::upload(k);
        Mixed.apply_steps_with(&mut f, steps, &dk, (a,), b);
        let current = D::download(f.current());
        f.swap();
        (current, D::download(&f.into_current()))
    }

    fn decay_steps<T: Scalar>(u: &Array<T, 2>, a: T, steps: usize, keep: bool) -> Array<T, 2> {
        let mut f = DoubleBuffer::from_pair(D::upload(u), D::upload(u));
        crate::steppers::decay(&mut f, a, steps, keep);
        D::download(f.current())
    }

    fn dyn_stencil<T: Float>(
        s: &DynStencil<T, 2>,
        input: &Self::Matrix<T>,
        va: View,
        output: &Self::Matrix<T>,
    ) -> Array<T, 2> {
        let mut out = output.to_owned();
        s.apply(device_view(input, va), out.view_mut());
        D::download(&out)
    }

    fn variable_stencil<T: Float>(
        s: &VariableStencil<2>,
        input: &Self::Matrix<T>,
        va: View,
        c: &[Self::Matrix<T>],
        output: &Self::Matrix<T>,
    ) -> Array<T, 2> {
        let mut out = output.to_owned();
        s.apply(device_view(input, va), &c.iter().collect::<Vec<_>>(), out.view_mut());
        D::download(&out)
    }

    fn runtime_time_steps<T: Float>(
        d: &DynStencil<T, 2>,
        v: &VariableStencil<2>,
        c: &[Array<T, 2>],
        u: &Array<T, 2>,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> [(Array<T, 2>, Array<T, 2>); 2] {
        let mut f = DoubleBuffer::from_pair(D::upload(u), D::upload(u));
        let mut g = DoubleBuffer::from_pair(D::upload(u), D::upload(u));
        let dc: Vec<Array<T, 2, D::B>> = c.iter().map(D::upload).collect();
        d.apply_steps_with(&mut f, steps, b);
        v.apply_steps_with(&mut g, steps, &dc.iter().collect::<Vec<_>>(), b);
        [f, g].map(|mut f| {
            let current = D::download(f.current());
            f.swap();
            (current, D::download(&f.into_current()))
        })
    }

    fn expression_stencil<T: Scalar>(
        u: &Self::Matrix<T>,
        vu: View,
        k: &Self::Matrix<T>,
        a: T,
        output: &Self::Matrix<T>,
    ) -> Array<T, 2> {
        let mut out = output.to_owned();
        Mixed.apply((device_view(u, vu), k), &mut out, (a,));
        D::download(&out)
    }

    fn system_stencil<T: Scalar>(
        f: [&Self::Matrix<T>; 5],
        vu: View,
        a: T,
        outputs: [&Self::Matrix<T>; 3],
        vo: View,
    ) -> [Array<T, 2>; 3] {
        let [mut o0, mut o1, mut o2] = outputs.map(|o| o.to_owned());
        let fields = (device_view(f[0], vu), f[1], f[2], f[3], f[4]);
        System.apply(fields, (&mut o0, device_view_mut(&mut o1, vo), &mut o2), (a,));
        [D::download(&o0), D::download(&device_view(&o1, vo).to_owned()), D::download(&o2)]
    }

    fn system_steps<T: Scalar>(
        fields: [&Array<T, 2>; 5],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> [Array<T, 2>; 3] {
        crate::steppers::system_steps(fields.map(|f| D::upload(f)), a, steps, b).map(|f| D::download(&f))
    }

    fn leapfrog_steps<T: Scalar>(
        levels: [&Array<T, 2>; 3],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> [Array<T, 2>; 2] {
        crate::steppers::leapfrog_steps(levels.map(|f| D::upload(f)), a, steps, b).map(|f| D::download(&f))
    }

    fn staged_steps<T: Scalar>(
        fields: [&Array<T, 2>; 4],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> [Array<T, 2>; 3] {
        crate::steppers::staged_steps(fields.map(|f| D::upload(f)), a, steps, b).map(|f| D::download(&f))
    }

    fn point_steps<T: Scalar>(
        levels: [&Array<T, 2>; 3],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> ([Array<T, 2>; 2], Array<T, 2>) {
        let (levels, record) = crate::system_cases::point_steps(levels.map(|f| D::upload(f)), a, steps, b);
        (levels.map(|f| D::download(&f)), record)
    }

    fn staged_point_steps<T: Scalar>(
        fields: [&Array<T, 2>; 4],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> ([Array<T, 2>; 3], Array<T, 2>) {
        let (fields, record) = crate::system_cases::staged_point_steps(fields.map(|f| D::upload(f)), a, steps, b);
        (fields.map(|f| D::download(&f)), record)
    }
}
