//! What a backend must provide to run the conformance cases: moving host arrays in and out, the
//! four views the cases take, and each op family. Results come back as host arrays.

use cnda::prelude::*;
use cnda::stencil::{stencil, Boundary, DoubleBuffer, DynStencil, LinearStencil, Scalar, VariableStencil};
use cnda::GemmElement;

use crate::steppers::{decay, leapfrog_steps, staged_steps, system_steps};

/// The views every case takes of its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The array itself.
    Plain,
    /// `t()`: reversed axes (a `ColMajor` view of a row-major array).
    Transposed,
    /// `s![.., ..;2]`: every other column.
    Stepped,
    /// `flip(0)`: rows in reverse order (a negative stride).
    Flipped,
}

pub const VIEWS: [View; 4] = [View::Plain, View::Transposed, View::Stepped, View::Flipped];

/// The view `v` of a host matrix, as a `Strided` view: what a backend must reproduce.
pub fn host_view<T: Pod>(a: &Array<T, 2>, v: View) -> ArrayView<'_, T, 2> {
    match v {
        View::Plain => a.view().into(),
        View::Transposed => a.t().into(),
        View::Stepped => a.slice(s![.., ..;2]).into_strided(),
        View::Flipped => a.flip(0),
    }
}

/// Binary elementwise operations.
#[derive(Clone, Copy, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

/// Unary elementwise operations.
#[derive(Clone, Copy, Debug)]
pub enum UnOp {
    Abs,
    Sqrt,
    Exp,
    Neg,
}

/// Reductions to a scalar or an index.
#[derive(Clone, Copy, Debug)]
pub enum Reduction {
    Sum,
    Mean,
    Min,
    Max,
}

/// One backend, as the conformance cases see it.
pub trait Harness {
    /// The backend's name, for failure messages.
    const NAME: &'static str;
    /// A matrix living on the backend.
    type Matrix<T: Float>;
    /// A vector living on the backend.
    type Vector<T: Float>;

    /// Whether the backend can run here (a device backend without a device cannot).
    fn available() -> bool {
        true
    }

    /// Whether the backend computes in f64 (WebGPU only where the adapter has `SHADER_F64`); the
    /// f32 cases run either way.
    fn supports_f64() -> bool {
        true
    }

    /// Whether the backend has f64 transcendental functions (exp ...): Vulkan's shaders do not.
    fn supports_f64_transcendentals() -> bool {
        Self::supports_f64()
    }

    /// Whether the backend's arithmetic keeps subnormals (IEEE 754); WGSL leaves it to the
    /// adapter, and lavapipe flushes.
    fn keeps_subnormals() -> bool {
        true
    }

    /// Whether the backend rounds every operation as the CPU does (CUDA compiles without fused
    /// multiply-adds); WGSL leaves contraction to the driver, and NVIDIA's Vulkan driver fuses.
    fn rounds_each_operation() -> bool {
        true
    }

    /// [`mixed_steps`](crate::steppers::mixed_steps) on this backend (f16 fields computed in
    /// f32; Neumann and `Value` sides on axis 0, periodic on axis 1), or `None` without f16.
    fn mixed_steps(fields: [&Array<half::f16, 2>; 2], a: f32, steps: usize) -> Option<[Array<half::f16, 2>; 2]>;

    fn upload<T: Float>(a: &Array<T, 2>) -> Self::Matrix<T>;
    fn upload_vector<T: Float>(a: &Array<T, 1>) -> Self::Vector<T>;
    fn download<T: Float>(a: &Self::Matrix<T>) -> Array<T, 2>;

    /// `view(a) op view(b)`.
    fn binary<T: Float>(op: BinOp, a: &Self::Matrix<T>, va: View, b: &Self::Matrix<T>, vb: View) -> Array<T, 2>;
    /// `view(a) op row`, the row broadcast over the rows.
    fn binary_row<T: Float>(op: BinOp, a: &Self::Matrix<T>, va: View, row: &Self::Vector<T>) -> Array<T, 2>;
    /// `view(a) * s`, then `s - view(a)`, concatenated as two results.
    fn scalar<T: Float>(a: &Self::Matrix<T>, va: View, s: T) -> (Array<T, 2>, Array<T, 2>);
    /// `op(view(a))`.
    fn unary<T: Float>(op: UnOp, a: &Self::Matrix<T>, va: View) -> Array<T, 2>;
    /// `view_mut(a) += view(b)`, returning the whole of `a` afterwards.
    fn add_assign<T: Float>(a: &mut Self::Matrix<T>, va: View, b: &Self::Matrix<T>, vb: View) -> Array<T, 2>;
    /// `view_mut(a).fill(x)`, returning the whole of `a` afterwards.
    fn fill<T: Float>(a: &mut Self::Matrix<T>, va: View, x: T) -> Array<T, 2>;
    /// `view(a).contiguous()`.
    fn contiguous<T: Float>(a: &Self::Matrix<T>, va: View) -> Array<T, 2>;
    /// A reduction of `view(a)`; `None` for an empty view where the reduction has no value.
    fn reduce<T: Float>(r: Reduction, a: &Self::Matrix<T>, va: View) -> Option<T>;
    /// `argmin` and `argmax` of `view(a)`.
    fn arg_extrema<T: Float>(a: &Self::Matrix<T>, va: View) -> (Option<[usize; 2]>, Option<[usize; 2]>);
    /// `sum_axis(axis)` of `view(a)`.
    fn sum_axis<T: Float>(a: &Self::Matrix<T>, va: View, axis: usize) -> Array<T, 1>;
    /// `view(a) x view(b)`.
    fn matmul<T: Float + GemmElement>(a: &Self::Matrix<T>, va: View, b: &Self::Matrix<T>, vb: View) -> Array<T, 2>;
    /// `m x`: the CSR matrix (built on the host) and `x` moved to the backend, the product back.
    fn spmv<T: Float>(m: &cnda::sparse::CsrMatrix<T>, x: &Array<T, 1>) -> Array<T, 1>;
    /// `stencil` applied to `view(input)` into a copy of `output`, returned.
    fn stencil<T: Float, const K: usize>(
        s: &LinearStencil<T, 2, 1, K>,
        input: &Self::Matrix<T>,
        va: View,
        output: &Self::Matrix<T>,
    ) -> Array<T, 2>;
    /// The run-time stencil `s` applied to `view(input)` into a copy of `output`.
    fn dyn_stencil<T: Float>(
        s: &DynStencil<T, 2>,
        input: &Self::Matrix<T>,
        va: View,
        output: &Self::Matrix<T>,
    ) -> Array<T, 2>;
    /// The variable-coefficient stencil `s` with coefficient fields `c` (plain) applied to
    /// `view(input)` into a copy of `output`.
    fn variable_stencil<T: Float>(
        s: &VariableStencil<2>,
        input: &Self::Matrix<T>,
        va: View,
        c: &[Self::Matrix<T>],
        output: &Self::Matrix<T>,
    ) -> Array<T, 2>;
    /// `steps` time steps from `u` (both fields) with boundaries `b`, of `d` and of `v` with
    /// coefficient fields `c`: each one's two fields afterwards, current first.
    #[allow(clippy::type_complexity)]
    fn runtime_time_steps<T: Float>(
        d: &DynStencil<T, 2>,
        v: &VariableStencil<2>,
        c: &[Array<T, 2>],
        u: &Array<T, 2>,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> [(Array<T, 2>, Array<T, 2>); 2];
    /// `steps` time steps of [`Mixed`] over a field starting from `u` (both fields), coefficient
    /// field `k`, parameter `a`, boundaries `b`: both fields afterwards, current first.
    fn time_steps<T: Scalar>(
        u: &Array<T, 2>,
        k: &Array<T, 2>,
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> (Array<T, 2>, Array<T, 2>);
    /// `steps` time steps of [`Decay`] (or [`DecayKept`] when `keep`) from `u` with factor `a`
    /// and zero walls: the current field afterwards.
    fn decay_steps<T: Scalar>(u: &Array<T, 2>, a: T, steps: usize, keep: bool) -> Array<T, 2>;
    /// [`Mixed`] applied to `view(u)` and `k` (plain) with parameter `a` into a copy of `output`.
    fn expression_stencil<T: Scalar>(
        u: &Self::Matrix<T>,
        vu: View,
        k: &Self::Matrix<T>,
        a: T,
        output: &Self::Matrix<T>,
    ) -> Array<T, 2>;
    /// [`System`] applied to `view(fields[0])` and the other (plain) fields with parameter `a`,
    /// in one pass, into copies of `outputs`, the second written through its view `vo`: each
    /// output afterwards (the second as its view).
    fn system_stencil<T: Scalar>(
        fields: [&Self::Matrix<T>; 5],
        vu: View,
        a: T,
        outputs: [&Self::Matrix<T>; 3],
        vo: View,
    ) -> [Array<T, 2>; 3];
    /// [`system_steps`](crate::steppers::system_steps) on this backend, from and to host arrays.
    fn system_steps<T: Scalar>(
        fields: [&Array<T, 2>; 5],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> [Array<T, 2>; 3];
    /// [`leapfrog_steps`](crate::steppers::leapfrog_steps) on this backend, from and to host arrays.
    fn leapfrog_steps<T: Scalar>(
        levels: [&Array<T, 2>; 3],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> [Array<T, 2>; 2];
    /// [`staged_steps`](crate::steppers::staged_steps) on this backend, from and to host arrays.
    fn staged_steps<T: Scalar>(
        fields: [&Array<T, 2>; 4],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> [Array<T, 2>; 3];
    /// [`point_steps`](crate::system_cases::point_steps) on this backend, from and to host arrays.
    fn point_steps<T: Scalar>(
        levels: [&Array<T, 2>; 3],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> ([Array<T, 2>; 2], Array<T, 2>);
    /// [`staged_point_steps`](crate::system_cases::staged_point_steps) on this backend.
    fn staged_point_steps<T: Scalar>(
        fields: [&Array<T, 2>; 4],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> ([Array<T, 2>; 3], Array<T, 2>);
}

stencil! {
    /// The conformance suite's `stencil!` case: two fields, radius 1, a parameter, `let`
    /// bindings, a comparison with `select`, `sqrt`, `abs` and `powi` (operations every backend
    /// computes exactly).
    pub struct Mixed = |u, k; a: T| {
        let lap = u[-1, 0] + u[1, 0] - 2.0 * u[0, 0];
        let pick = select(u[1, 1] > k[0, 0], sqrt(abs(u[-1, -1])), powi(k[-1, 1], 2) - 0.5 * u[0, -1]);
        u[0, 0] + a * k[0, 1] * lap + pick
    };
}

stencil! {
    /// The conformance suite's system: three outputs from five fields (more than the four a
    /// stencil once had), sharing `let` bindings, one output a selection between a new value and
    /// a bound one.
    pub struct System = |u, v, w, k, m; a: T| {
        let uv = u[0, 0] * v[0, 0];
        let lap = u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0];
        (u[0, 0] + a * k[0, 0] * lap - uv, v[0, 1] + uv * m[0, 0], select(w[1, 1] > a, w[0, 0] - uv, lap))
    };
}

stencil! {
    /// A leapfrog scheme: one field at two time levels, a coefficient field.
    #[levels(2)]
    pub struct Leapfrog = |u, um, k; a: T| 2.0 * u[0, 0] - um[0, 0] + a * k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]);
}

/// The CPU backend: arrays are host arrays, ops are cnda's.
pub struct CpuHarness;

impl Harness for CpuHarness {
    const NAME: &'static str = "Cpu";
    type Matrix<T: Float> = Array<T, 2>;
    type Vector<T: Float> = Array<T, 1>;

    fn upload<T: Float>(a: &Array<T, 2>) -> Array<T, 2> {
        a.clone()
    }

    fn upload_vector<T: Float>(a: &Array<T, 1>) -> Array<T, 1> {
        a.clone()
    }

    fn download<T: Float>(a: &Array<T, 2>) -> Array<T, 2> {
        a.clone()
    }

    fn binary<T: Float>(op: BinOp, a: &Array<T, 2>, va: View, b: &Array<T, 2>, vb: View) -> Array<T, 2> {
        let (x, y) = (host_view(a, va), host_view(b, vb));
        match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::Div => x / y,
        }
    }

    fn binary_row<T: Float>(op: BinOp, a: &Array<T, 2>, va: View, row: &Array<T, 1>) -> Array<T, 2> {
        let x = host_view(a, va);
        match op {
            BinOp::Add => x + row,
            BinOp::Sub => x - row,
            BinOp::Mul => x * row,
            BinOp::Div => x / row,
        }
    }

    fn scalar<T: Float>(a: &Array<T, 2>, va: View, s: T) -> (Array<T, 2>, Array<T, 2>) {
        let x = host_view(a, va);
        (x * s, x.map(|v| s - v))
    }

    fn unary<T: Float>(op: UnOp, a: &Array<T, 2>, va: View) -> Array<T, 2> {
        let x = host_view(a, va);
        match op {
            UnOp::Abs => x.abs(),
            UnOp::Sqrt => x.sqrt(),
            UnOp::Exp => x.exp(),
            UnOp::Neg => -x,
        }
    }

    fn add_assign<T: Float>(a: &mut Array<T, 2>, va: View, b: &Array<T, 2>, vb: View) -> Array<T, 2> {
        let y = host_view(b, vb).to_owned();
        let mut target = view_mut(a, va);
        target += &y;
        a.clone()
    }

    fn fill<T: Float>(a: &mut Array<T, 2>, va: View, x: T) -> Array<T, 2> {
        view_mut(a, va).fill(x);
        a.clone()
    }

    fn contiguous<T: Float>(a: &Array<T, 2>, va: View) -> Array<T, 2> {
        host_view(a, va).contiguous().into_owned().with_check()
    }

    fn reduce<T: Float>(r: Reduction, a: &Array<T, 2>, va: View) -> Option<T> {
        let x = host_view(a, va);
        match r {
            Reduction::Sum => Some(x.sum()),
            Reduction::Mean => x.mean(),
            Reduction::Min => x.min(),
            Reduction::Max => x.max(),
        }
    }

    fn arg_extrema<T: Float>(a: &Array<T, 2>, va: View) -> (Option<[usize; 2]>, Option<[usize; 2]>) {
        let x = host_view(a, va);
        (x.argmin(), x.argmax())
    }

    fn sum_axis<T: Float>(a: &Array<T, 2>, va: View, axis: usize) -> Array<T, 1> {
        host_view(a, va).sum_axis(axis).with_check()
    }

    fn matmul<T: Float + GemmElement>(a: &Array<T, 2>, va: View, b: &Array<T, 2>, vb: View) -> Array<T, 2> {
        host_view(a, va).matmul(&host_view(b, vb))
    }

    fn spmv<T: Float>(m: &cnda::sparse::CsrMatrix<T>, x: &Array<T, 1>) -> Array<T, 1> {
        let mut y = Array::zeros([m.shape()[0]]);
        m.spmv(x, &mut y);
        y
    }

    fn stencil<T: Float, const K: usize>(
        s: &LinearStencil<T, 2, 1, K>,
        input: &Array<T, 2>,
        va: View,
        output: &Array<T, 2>,
    ) -> Array<T, 2> {
        let mut out = output.clone();
        s.apply(host_view(input, va), out.view_mut());
        out
    }

    fn time_steps<T: Scalar>(
        u: &Array<T, 2>,
        k: &Array<T, 2>,
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> (Array<T, 2>, Array<T, 2>) {
        let mut f = DoubleBuffer::new(u.clone());
        Mixed.apply_steps_with(&mut f, steps, k, (a,), b);
        let current = f.current().clone();
        f.swap();
        (current, f.into_current())
    }

    fn decay_steps<T: Scalar>(u: &Array<T, 2>, a: T, steps: usize, keep: bool) -> Array<T, 2> {
        let mut f = DoubleBuffer::new(u.clone());
        decay(&mut f, a, steps, keep);
        f.into_current()
    }

    fn dyn_stencil<T: Float>(s: &DynStencil<T, 2>, input: &Array<T, 2>, va: View, output: &Array<T, 2>) -> Array<T, 2> {
        let mut out = output.clone();
        s.apply(host_view(input, va), out.view_mut());
        out
    }

    fn variable_stencil<T: Float>(
        s: &VariableStencil<2>,
        input: &Array<T, 2>,
        va: View,
        c: &[Array<T, 2>],
        output: &Array<T, 2>,
    ) -> Array<T, 2> {
        let mut out = output.clone();
        s.apply(host_view(input, va), &c.iter().collect::<Vec<_>>(), out.view_mut());
        out
    }

    fn runtime_time_steps<T: Float>(
        d: &DynStencil<T, 2>,
        v: &VariableStencil<2>,
        c: &[Array<T, 2>],
        u: &Array<T, 2>,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> [(Array<T, 2>, Array<T, 2>); 2] {
        let (mut f, mut g) = (DoubleBuffer::new(u.clone()), DoubleBuffer::new(u.clone()));
        d.apply_steps_with(&mut f, steps, b);
        v.apply_steps_with(&mut g, steps, &c.iter().collect::<Vec<_>>(), b);
        [f, g].map(|mut f| {
            let current = f.current().clone();
            f.swap();
            (current, f.into_current())
        })
    }

    fn expression_stencil<T: Scalar>(
        u: &Array<T, 2>,
        vu: View,
        k: &Array<T, 2>,
        a: T,
        output: &Array<T, 2>,
    ) -> Array<T, 2> {
        let mut out = output.clone();
        Mixed.apply((host_view(u, vu), k), &mut out, (a,));
        out
    }

    fn system_stencil<T: Scalar>(
        f: [&Array<T, 2>; 5],
        vu: View,
        a: T,
        outputs: [&Array<T, 2>; 3],
        vo: View,
    ) -> [Array<T, 2>; 3] {
        let [mut o0, mut o1, mut o2] = outputs.map(Array::clone);
        let fields = (host_view(f[0], vu), f[1], f[2], f[3], f[4]);
        System.apply(fields, (&mut o0, view_mut(&mut o1, vo), &mut o2), (a,));
        [o0, host_view(&o1, vo).to_owned(), o2]
    }

    fn system_steps<T: Scalar>(
        fields: [&Array<T, 2>; 5],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> [Array<T, 2>; 3] {
        system_steps(fields.map(Array::clone), a, steps, b)
    }

    fn mixed_steps(fields: [&Array<half::f16, 2>; 2], a: f32, steps: usize) -> Option<[Array<half::f16, 2>; 2]> {
        let b = [[Boundary::Neumann, Boundary::Value(half::f16::from_f32(0.5))], [Boundary::Periodic; 2]];
        Some(crate::steppers::mixed_steps(fields.map(Array::clone), a, steps, b))
    }

    fn leapfrog_steps<T: Scalar>(
        levels: [&Array<T, 2>; 3],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> [Array<T, 2>; 2] {
        leapfrog_steps(levels.map(Array::clone), a, steps, b)
    }

    fn staged_steps<T: Scalar>(
        fields: [&Array<T, 2>; 4],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> [Array<T, 2>; 3] {
        staged_steps(fields.map(Array::clone), a, steps, b)
    }

    fn point_steps<T: Scalar>(
        levels: [&Array<T, 2>; 3],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> ([Array<T, 2>; 2], Array<T, 2>) {
        crate::system_cases::point_steps(levels.map(Array::clone), a, steps, b)
    }

    fn staged_point_steps<T: Scalar>(
        fields: [&Array<T, 2>; 4],
        a: T,
        steps: usize,
        b: [[Boundary<T>; 2]; 2],
    ) -> ([Array<T, 2>; 3], Array<T, 2>) {
        crate::system_cases::staged_point_steps(fields.map(Array::clone), a, steps, b)
    }
}

/// The mutable form of [`host_view`].
fn view_mut<T: Pod>(a: &mut Array<T, 2>, v: View) -> ArrayViewMut<'_, T, 2> {
    match v {
        View::Plain => a.view_mut().into(),
        View::Transposed => a.view_mut().t().into(),
        View::Stepped => a.slice_mut(s![.., ..;2]).into_strided(),
        View::Flipped => a.view_mut().flip(0),
    }
}
