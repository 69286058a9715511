//! The vectors of a Krylov method on any backend: arrays of the operator's shape padded by its
//! halo (so a stencil operator fills boundaries and sweeps in place, without copies), with dot
//! products and updates over their interiors only. Every operation goes through the backend's
//! kernels (`VectorKernels` for dot products and updates); the descriptors are taken afresh from the arrays (whose
//! shapes and devices are checked) at each call, so an operator that swaps an array for another
//! cannot make them address memory it does not own.

use std::sync::Arc;

use super::operator::LinearOperator;
use super::processes::{agreed, Processes};
use crate::array::Array;
use crate::element::{Float, Pod};
use crate::error::{Error, Result};
use crate::kernel::tokens::{Div, Mul, ScalarLeft, ScalarRight, Second};
use crate::kernel::{
    Allocator, Backend, CopyKernels, Desc, ElementwiseKernels, ReduceKernels, VectorKernels, WriteFromHost,
};
use crate::layout::Strided;
use crate::ops::elementwise::{update, update_unary};
use crate::ops::output::same_device;
use crate::stencil::Slab;
use crate::view::{Shared, Unique, View};

/// The backends the solvers run on: elementwise, reduction, copy and vector kernels, and copies
/// from the host (multigrid's coarse operators are computed there). Every backend of cnda has
/// them (`Cpu`, `Cuda`, `Wgpu`).
pub trait SolverBackend: ElementwiseKernels + ReduceKernels + CopyKernels + VectorKernels + WriteFromHost {}

impl<B: ElementwiseKernels + ReduceKernels + CopyKernels + VectorKernels + WriteFromHost> SolverBackend for B {}

/// The element types the solvers take: `f32` and `f64` (the recurrences' scalars are kept in
/// `f64`).
pub trait SolverScalar: Float + Into<f64> {}

impl<T: Float + Into<f64>> SolverScalar for T {}

/// A Krylov method's vector space: the operator's shape, its halo, the allocator the vectors come
/// from, a scratch vector for products, and the processes that share the unknowns (`None` on
/// one process). On several processes a dot product is summed over all of them, and a local
/// operation's error is deferred to the next one ([`Processes`]), so every process returns it.
pub(super) struct Space<T: Pod, const N: usize, B: Backend> {
    method: &'static str,
    /// The device every vector of the space lives on.
    dev: B::Device,
    shape: [usize; N],
    halo: [usize; N],
    padded: [usize; N],
    alloc: B::Alloc,
    scratch: Array<T, N, B>,
    processes: Option<Arc<dyn Processes>>,
}

impl<T: SolverScalar, const N: usize, B: SolverBackend> Space<T, N, B> {
    /// The space of an operator of `shape` and `halo`, on `b`'s device, after checking that the
    /// unknowns `b` and `x` have the operator's shape and share `b`'s device; `processes` share
    /// the unknowns (`None`: this process alone).
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch`; `Error::DeviceMismatch`; `Error::Overflow` when the padded shape
    /// does not fit; `Error::Alloc`.
    pub(super) fn new(
        method: &'static str,
        shape: [usize; N],
        halo: [usize; N],
        b: &View<'_, T, N, Shared, B, Strided>,
        x: &View<'_, T, N, Shared, B, Strided>,
        processes: Option<Arc<dyn Processes>>,
    ) -> Result<Self> {
        for got in [b.shape(), x.shape()] {
            if got != shape {
                return Err(Error::ShapeMismatch { op: method, expected: shape.to_vec(), got: got.to_vec() });
            }
        }
        let dev = B::handle_device(b.desc().handle);
        same_device::<B>(method, &dev, &[B::handle_device(x.desc().handle)])?;
        let padded = padded_shape::<T, N>(method, shape, halo)?;
        let alloc = b.allocator();
        let scratch = Array::try_zeros_in(&alloc, padded)?;
        Ok(Space { method, dev, shape, halo, padded, alloc, scratch, processes })
    }

    /// The space of a level of `shape` padded by `halo`, with vectors from `alloc` (multigrid's
    /// levels, which no caller's array describes).
    ///
    /// # Errors
    ///
    /// `Error::Overflow`; `Error::Alloc`.
    pub(super) fn for_shape(
        method: &'static str,
        shape: [usize; N],
        halo: [usize; N],
        alloc: B::Alloc,
    ) -> Result<Self> {
        let padded = padded_shape::<T, N>(method, shape, halo)?;
        let scratch = Array::try_zeros_in(&alloc, padded)?;
        let dev = alloc.device();
        Ok(Space { method, dev, shape, halo, padded, alloc, scratch, processes: None })
    }

    /// The shape of the unknowns.
    pub(super) fn shape(&self) -> [usize; N] {
        self.shape
    }

    /// The method's name, for errors.
    pub(super) fn method(&self) -> &'static str {
        self.method
    }

    /// `y *= m` over the interiors (a mask of zeros and ones selects points).
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn multiply(&self, y: &mut Array<T, N, B>, m: &Array<T, N, B>) -> Result<()> {
        self.combine(Mul, y, m)
    }

    /// A zero vector (halo included).
    ///
    /// # Errors
    ///
    /// `Error::Alloc`.
    pub(super) fn vector(&self) -> Result<Array<T, N, B>> {
        self.agreed(Array::try_zeros_in(&self.alloc, self.padded))
    }

    /// `local` on one process; on several, `local` where every process succeeded, else the
    /// same error on every process (a collective: for the few steps that cannot defer an error,
    /// such as an allocation, whose result the next steps need).
    fn agreed<R>(&self, local: Result<R>) -> Result<R> {
        match &self.processes {
            None => local,
            Some(processes) => agreed(&**processes, self.method, local),
        }
    }

    /// `local` on one process; on several, its error deferred to the next dot product, so that
    /// every process meets it there ([`Processes`]).
    fn local(&self, local: Result<()>) -> Result<()> {
        match &self.processes {
            None => local,
            Some(processes) => {
                processes.defer(local);
                Ok(())
            }
        }
    }

    /// Whether the unknowns are shared by several processes (whose collectives must stay in
    /// step).
    pub(super) fn processes(&self) -> Option<&Arc<dyn Processes>> {
        self.processes.as_ref()
    }

    /// The halo width of every axis.
    pub(super) fn halo(&self) -> [usize; N] {
        self.halo
    }

    /// The interior of `d`, after checking that `d` still has the padded shape and lives on the
    /// space's device (an operator may have swapped an array for another).
    pub(super) fn interior(&self, d: Desc<B, T, N>) -> Result<Desc<B, T, N>> {
        same_device::<B>(self.method, &self.dev, &[B::handle_device(d.handle)])?;
        if d.shape != self.padded {
            return Err(Error::ShapeMismatch {
                op: self.method,
                expected: self.padded.to_vec(),
                got: d.shape.to_vec(),
            });
        }
        Ok((0..N).fold(d, |d, k| d.narrowed(k, self.halo[k], self.shape[k])))
    }

    /// `x · y` over the interiors (the backend's `dot`: one pass on the CPU and CUDA).
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when an operand lost the padded shape; `Error::Device`.
    pub(super) fn dot(&mut self, x: &Array<T, N, B>, y: &Array<T, N, B>) -> Result<f64> {
        let local = self.local_dot(x, y);
        match &self.processes {
            None => local,
            Some(processes) => processes.sum(self.method, local),
        }
    }

    /// `x += a p`, then `p = r + b p` over the interiors (the backend's `axpy_xpby`: one pass on
    /// the CPU and CUDA).
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn axpy_xpby(
        &mut self,
        x: &mut Array<T, N, B>,
        a: f64,
        p: &mut Array<T, N, B>,
        b: f64,
        r: &Array<T, N, B>,
    ) -> Result<()> {
        let scratch = self.scratch.desc_mut();
        let updated = (|| {
            let (px, pp, pr) = (self.interior(x.desc_mut())?, self.interior(p.desc_mut())?, self.interior(r.desc())?);
            let s = self.interior(scratch)?;
            // SAFETY: interiors of live arrays of the checked padded shape on the space's device;
            // `x` and `p` are borrowed uniquely (distinct arrays, apart from `r`), the scratch by
            // `&mut self`.
            unsafe { B::axpy_xpby(&B::handle_device(s.handle), T::from_f64(a), pp, px, T::from_f64(b), pr, s) }
        })();
        // A distributed solve's processes stay in step: the error waits for the next norm.
        self.local(updated)
    }

    /// `y = A x` and `x · y` over the interiors: fused where the operator sweeps slabs that stay
    /// in cache ([`LinearOperator::try_apply_in_slabs`]), each slab's product summed right after
    /// it is written; else the product, then [`Space::dot`].
    ///
    /// # Errors
    ///
    /// The operator's; as for [`Space::dot`].
    pub(super) fn apply_dot<A: LinearOperator<T, N, B> + ?Sized>(
        &mut self,
        a: &A,
        x: &mut Array<T, N, B>,
        y: &mut Array<T, N, B>,
    ) -> Result<f64> {
        let mut sum = 0.0;
        let mut each = |slab: Slab<'_, B, T, N>| -> Result<()> {
            let [input, output, scratch] = slab.descs();
            // SAFETY: a slab's points address live memory of one shape, the scratch writable and
            // distinct from both inputs, while it lives (`Slab::descs`).
            let part = unsafe { B::dot(&B::handle_device(scratch.handle), input, output, scratch) }?;
            sum += part.into();
            Ok(())
        };
        // Every error reaches the processes' sum, so that all of them return it alike.
        let local = match a.try_apply_in_slabs(x, y, &mut self.scratch, &mut each) {
            Ok(true) => Ok(sum),
            Ok(false) => a.try_apply(x, y).and_then(|()| self.local_dot(x, y)),
            Err(e) => Err(e),
        };
        match &self.processes {
            None => local,
            Some(processes) => processes.sum(self.method, local),
        }
    }

    /// `x · y` over this process's interiors.
    fn local_dot(&mut self, x: &Array<T, N, B>, y: &Array<T, N, B>) -> Result<f64> {
        let scratch = self.scratch.desc_mut();
        let (x, y, s) = (self.interior(x.desc())?, self.interior(y.desc())?, self.interior(scratch)?);
        // SAFETY: `x` and `y` are interiors of live arrays of the checked padded shape on the
        // space's device; `s` is the interior of the scratch vector, which `&mut self` borrows
        // uniquely and no operand overlaps (the solver's vectors are distinct arrays).
        let sum = unsafe { B::dot(&B::handle_device(s.handle), x, y, s) }?;
        Ok(sum.into())
    }

    /// `‖x‖₂` over the interior.
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn norm(&mut self, x: &Array<T, N, B>) -> Result<f64> {
        Ok(self.dot(x, x)?.sqrt())
    }

    /// `y = a x + b y` over the interiors (the backend's `axpby`: one pass on the CPU and CUDA).
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    fn axpby(&mut self, a: f64, x: &Array<T, N, B>, b: f64, y: &mut Array<T, N, B>) -> Result<()> {
        let scratch = self.scratch.desc_mut();
        let updated = (|| {
            let (x, y, s) = (self.interior(x.desc())?, self.interior(y.desc_mut())?, self.interior(scratch)?);
            let dev = B::handle_device(y.handle);
            // SAFETY: `y` is uniquely borrowed, so distinct from the shared `x` and from the
            // scratch vector `&mut self` holds; all three are live interiors of the checked shape.
            unsafe { B::axpby(&dev, T::from_f64(a), x, T::from_f64(b), y, s) }
        })();
        self.local(updated)
    }

    /// `y = a x + b y` and then `‖y‖₂` over the interiors, in one pass where the backend fuses
    /// them (`axpby_sumsq`: the CPU and CUDA), the squares summed over the processes.
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    fn axpby_norm(&mut self, a: f64, x: &Array<T, N, B>, b: f64, y: &mut Array<T, N, B>) -> Result<f64> {
        let scratch = self.scratch.desc_mut();
        let local = (|| {
            let (x, y, s) = (self.interior(x.desc())?, self.interior(y.desc_mut())?, self.interior(scratch)?);
            let dev = B::handle_device(y.handle);
            // SAFETY: as in `axpby`.
            let sum = unsafe { B::axpby_sumsq(&dev, T::from_f64(a), x, T::from_f64(b), y, s) }?;
            Ok(sum.into())
        })();
        let sum = match &self.processes {
            None => local,
            Some(processes) => processes.sum(self.method, local),
        }?;
        Ok(sum.sqrt())
    }

    /// `y += a x`, then `‖y‖₂` (see [`Space::axpby_norm`]).
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn axpy_norm(&mut self, y: &mut Array<T, N, B>, a: f64, x: &Array<T, N, B>) -> Result<f64> {
        self.axpby_norm(a, x, 1.0, y)
    }

    /// `y = x + b y`, then `‖y‖₂` (see [`Space::axpby_norm`]).
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn xpby_norm(&mut self, y: &mut Array<T, N, B>, x: &Array<T, N, B>, b: f64) -> Result<f64> {
        self.axpby_norm(1.0, x, b, y)
    }

    /// `y += a x` over the interiors.
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn axpy(&mut self, y: &mut Array<T, N, B>, a: f64, x: &Array<T, N, B>) -> Result<()> {
        self.axpby(a, x, 1.0, y)
    }

    /// `y = x + b y` over the interiors.
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn xpby(&mut self, y: &mut Array<T, N, B>, x: &Array<T, N, B>, b: f64) -> Result<()> {
        self.axpby(1.0, x, b, y)
    }

    /// `y *= a` over the interior.
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn scale(&self, y: &mut Array<T, N, B>, a: f64) -> Result<()> {
        let y = self.interior(y.desc_mut());
        // SAFETY: `y` is uniquely borrowed, live, of the checked shape.
        self.local(y.and_then(|y| unsafe { update_unary(ScalarRight(Mul, T::from_f64(a)), y) }))
    }

    /// `y = 1 / y` over the interior.
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn reciprocal(&self, y: &mut Array<T, N, B>) -> Result<()> {
        let y = self.interior(y.desc_mut());
        // SAFETY: `y` is uniquely borrowed, live, of the checked shape.
        self.local(y.and_then(|y| unsafe { update_unary(ScalarLeft(T::ONE, Div), y) }))
    }

    /// `y = x` over the interiors.
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn copy(&self, y: &mut Array<T, N, B>, x: &Array<T, N, B>) -> Result<()> {
        self.combine(Second, y, x)
    }

    /// `y = op(y, x)` over the interiors.
    fn combine<Op: crate::kernel::tokens::BinaryOp<T>>(
        &self,
        op: Op,
        y: &mut Array<T, N, B>,
        x: &Array<T, N, B>,
    ) -> Result<()> {
        let (y, x) = (self.interior(y.desc_mut()), self.interior(x.desc()));
        // SAFETY: `y` is uniquely borrowed, so distinct from the shared `x`; both live, of the
        // checked shape.
        self.local(y.and_then(|y| unsafe { update(op, y, x?) }))
    }

    /// The interior of `v` set to `user` (the unknowns, of the operator's shape).
    ///
    /// # Errors
    ///
    /// `Error::DeviceMismatch`; as for [`Space::dot`].
    pub(super) fn load(&self, v: &mut Array<T, N, B>, user: &View<'_, T, N, Shared, B, Strided>) -> Result<()> {
        let v = self.interior(v.desc_mut());
        // SAFETY: `v` is uniquely borrowed; `user` is a live view, distinct from `v`; `update`
        // checks that it has (or broadcasts to) the interior's shape.
        self.local(v.and_then(|v| unsafe { update(Second, v, user.desc()) }))
    }

    /// `user` (the unknowns) set to the interior of `v`.
    ///
    /// # Errors
    ///
    /// As for [`Space::load`].
    pub(super) fn store(&self, user: &mut View<'_, T, N, Unique, B, Strided>, v: &Array<T, N, B>) -> Result<()> {
        let stored = (|| {
            let v = self.interior(v.desc())?;
            if user.shape() != self.shape {
                return Err(Error::ShapeMismatch {
                    op: self.method,
                    expected: self.shape.to_vec(),
                    got: user.shape().to_vec(),
                });
            }
            // SAFETY: `user` is uniquely borrowed, of the interior's shape; `v` is distinct and
            // live.
            unsafe { update(Second, user.desc_mut(), v) }
        })();
        self.local(stored)
    }
}

/// `shape + 2 halo` on every axis.
///
/// # Errors
///
/// `Error::Overflow` when an axis does not fit a `usize`.
pub(super) fn padded_shape<T, const N: usize>(
    method: &'static str,
    shape: [usize; N],
    halo: [usize; N],
) -> Result<[usize; N]> {
    let mut padded = [0; N];
    for k in 0..N {
        padded[k] = halo[k].checked_mul(2).and_then(|h| h.checked_add(shape[k])).ok_or_else(|| Error::Overflow {
            op: method,
            shape: shape.to_vec(),
            elem_size: size_of::<T>(),
        })?;
    }
    Ok(padded)
}
