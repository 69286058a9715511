//! The conformance harness of the model backend (`tests/common/model.rs`): the same cases run
//! through the generic algorithms with naive kernels, on device views built by the one view
//! algebra. A device backend's harness looks like this one, with transfers instead of host
//! copies.

use cnda::prelude::*;
use cnda::stencil::LinearStencil;
use cnda::view::{Shared, Unique};
use cnda::GemmElement;

use super::harness::{BinOp, Harness, Reduction, UnOp, View};
use crate::model::{Model, ModelAlloc};

/// Operands on model device 0.
const DEVICE: ModelAlloc = ModelAlloc(0);

/// The model backend as the conformance cases see it.
pub struct ModelHarness;

/// The view `v` of a model matrix: the same four views as on the host, as device views.
fn device_view<T: Pod>(a: &Array<T, 2, Model>, v: View) -> cnda::View<'_, T, 2, Shared, Model> {
    match v {
        View::Plain => a.view().into_strided(),
        View::Transposed => a.t().into_strided(),
        View::Stepped => a.slice(s![.., ..;2]).into_strided(),
        View::Flipped => a.flip(0),
    }
}

/// The mutable form of [`device_view`].
fn device_view_mut<T: Pod>(a: &mut Array<T, 2, Model>, v: View) -> cnda::View<'_, T, 2, Unique, Model> {
    match v {
        View::Plain => a.view_mut().into_strided(),
        View::Transposed => a.view_mut().t().into_strided(),
        View::Stepped => a.slice_mut(s![.., ..;2]).into_strided(),
        View::Flipped => a.view_mut().flip(0),
    }
}

/// A model array's elements, copied to the host.
fn host<T: Float, const N: usize, L: Layout, C: BoundsCheck>(a: &Array<T, N, Model, L, C>) -> Array<T, N> {
    Array::from_fn(a.shape(), |i| a[i])
}

impl Harness for ModelHarness {
    const NAME: &'static str = "Model";
    type Matrix<T: Float> = Array<T, 2, Model>;
    type Vector<T: Float> = Array<T, 1, Model>;

    fn upload<T: Float>(a: &Array<T, 2>) -> Array<T, 2, Model> {
        Array::try_from_fn_in(&DEVICE, a.shape(), |i| a[i]).unwrap()
    }

    fn upload_vector<T: Float>(a: &Array<T, 1>) -> Array<T, 1, Model> {
        Array::try_from_fn_in(&DEVICE, a.shape(), |i| a[i]).unwrap()
    }

    fn download<T: Float>(a: &Array<T, 2, Model>) -> Array<T, 2> {
        host(a)
    }

    fn binary<T: Float>(op: BinOp, a: &Self::Matrix<T>, va: View, b: &Self::Matrix<T>, vb: View) -> Array<T, 2> {
        let (x, y) = (device_view(a, va), device_view(b, vb));
        host(&match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::Div => x / y,
        })
    }

    fn binary_row<T: Float>(op: BinOp, a: &Self::Matrix<T>, va: View, row: &Self::Vector<T>) -> Array<T, 2> {
        let x = device_view(a, va);
        host(&match op {
            BinOp::Add => x + row,
            BinOp::Sub => x - row,
            BinOp::Mul => x * row,
            BinOp::Div => x / row,
        })
    }

    fn scalar<T: Float>(a: &Self::Matrix<T>, va: View, s: T) -> (Array<T, 2>, Array<T, 2>) {
        let x = device_view(a, va);
        // `s - x` for a generic float is `-(x - s)`, exactly (rounding is symmetric).
        (host(&(x * s)), host(&-&(x - s)))
    }

    fn unary<T: Float>(op: UnOp, a: &Self::Matrix<T>, va: View) -> Array<T, 2> {
        let x = device_view(a, va);
        match op {
            UnOp::Abs => host(&x.abs()),
            UnOp::Sqrt => host(&x.sqrt()),
            UnOp::Exp => host(&x.exp()),
            UnOp::Neg => host(&-x),
        }
    }

    fn add_assign<T: Float>(a: &mut Self::Matrix<T>, va: View, b: &Self::Matrix<T>, vb: View) -> Array<T, 2> {
        let y = device_view(b, vb).to_owned();
        let mut target = device_view_mut(a, va);
        target += &y;
        host(a)
    }

    fn fill<T: Float>(a: &mut Self::Matrix<T>, va: View, x: T) -> Array<T, 2> {
        device_view_mut(a, va).fill(x);
        host(a)
    }

    fn contiguous<T: Float>(a: &Self::Matrix<T>, va: View) -> Array<T, 2> {
        let copy = device_view(a, va).to_owned();
        assert!(copy.is_contiguous());
        host(&copy)
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
        host(&device_view(a, va).sum_axis::<1>(axis))
    }

    fn matmul<T: Float + GemmElement>(a: &Self::Matrix<T>, va: View, b: &Self::Matrix<T>, vb: View) -> Array<T, 2> {
        host(&device_view(a, va).matmul(&device_view(b, vb)))
    }

    fn stencil<T: Float, const K: usize>(
        s: &LinearStencil<T, 2, 1, K>,
        input: &Self::Matrix<T>,
        va: View,
        output: &Self::Matrix<T>,
    ) -> Array<T, 2> {
        let mut out = output.to_owned();
        s.apply(device_view(input, va), out.view_mut());
        host(&out)
    }
}
