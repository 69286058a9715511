//! The vectors of a Krylov method on any backend: arrays of the operator's shape padded by its
//! halo (so a stencil operator fills boundaries and sweeps in place, without copies), with dot
//! products and updates over their interiors only. Every operation goes through the backend's
//! elementwise and reduction kernels; the descriptors are taken afresh from the arrays (whose
//! shapes are checked) at each call, so an operator that swaps an array for another cannot make
//! them address memory it does not own.

use crate::array::Array;
use crate::element::{Float, Pod};
use crate::error::{Error, Result};
use crate::kernel::tokens::{Add, Mul, ScalarRight, Second, Sum};
use crate::kernel::{merged2, merged3, Backend, CopyKernels, Desc, ElementwiseKernels, ReduceKernels};
use crate::ops::elementwise::{update, update_unary};
use crate::ops::output::same_device;
use crate::ops::reduce::reduce;

/// The backends the solvers run on: elementwise, reduction and copy kernels. Every backend of
/// cnda has them (`Cpu`, `Cuda`, `Wgpu`).
pub trait SolverBackend: ElementwiseKernels + ReduceKernels + CopyKernels {}

impl<B: ElementwiseKernels + ReduceKernels + CopyKernels> SolverBackend for B {}

/// The element types the solvers take: `f32` and `f64` (the recurrences' scalars are kept in
/// `f64`).
pub trait SolverScalar: Float + Into<f64> {}

impl<T: Float + Into<f64>> SolverScalar for T {}

/// A Krylov method's vector space: the operator's shape, its halo, the allocator the vectors come
/// from, and a scratch vector for products.
pub(super) struct Space<T: Pod, const N: usize, B: Backend> {
    method: &'static str,
    shape: [usize; N],
    halo: [usize; N],
    padded: [usize; N],
    alloc: B::Alloc,
    scratch: Array<T, N, B>,
}

impl<T: SolverScalar, const N: usize, B: SolverBackend> Space<T, N, B> {
    /// The space of an operator of `shape` and `halo`, on `b`'s device, after checking that `b`
    /// and `x` have the operator's shape and share `b`'s device.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch`; `Error::DeviceMismatch`; `Error::Overflow` when the padded shape
    /// does not fit; `Error::Alloc`.
    pub(super) fn new(
        method: &'static str,
        shape: [usize; N],
        halo: [usize; N],
        b: &Array<T, N, B>,
        x: &Array<T, N, B>,
    ) -> Result<Self> {
        for got in [b.shape(), x.shape()] {
            if got != shape {
                return Err(Error::ShapeMismatch { op: method, expected: shape.to_vec(), got: got.to_vec() });
            }
        }
        let dev = B::handle_device(b.desc().handle);
        same_device::<B>(method, &dev, &[B::handle_device(x.desc().handle)])?;
        let mut padded = [0; N];
        for k in 0..N {
            padded[k] = halo[k]
                .checked_mul(2)
                .and_then(|h| h.checked_add(shape[k]))
                .ok_or_else(|| Error::Overflow { op: method, shape: shape.to_vec(), elem_size: size_of::<T>() })?;
        }
        let alloc = b.allocator();
        let scratch = Array::try_zeros_in(&alloc, padded)?;
        Ok(Space { method, shape, halo, padded, alloc, scratch })
    }

    /// A zero vector (halo included).
    ///
    /// # Errors
    ///
    /// `Error::Alloc`.
    pub(super) fn vector(&self) -> Result<Array<T, N, B>> {
        Array::try_zeros_in(&self.alloc, self.padded)
    }

    /// The halo width of every axis.
    pub(super) fn halo(&self) -> [usize; N] {
        self.halo
    }

    /// The interior of `d`, after checking that `d` still has the padded shape.
    fn inner(&self, d: Desc<B, T, N>) -> Result<Desc<B, T, N>> {
        if d.shape != self.padded {
            return Err(Error::ShapeMismatch {
                op: self.method,
                expected: self.padded.to_vec(),
                got: d.shape.to_vec(),
            });
        }
        Ok((0..N).fold(d, |d, k| d.narrowed(k, self.halo[k], self.shape[k])))
    }

    /// `x · y` over the interiors, accumulated by the backend's sum (pairwise on the CPU).
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when an operand lost the padded shape; `Error::Device`.
    pub(super) fn dot(&mut self, x: &Array<T, N, B>, y: &Array<T, N, B>) -> Result<f64> {
        let (x, y) = (self.inner(x.desc())?, self.inner(y.desc())?);
        let scratch = self.scratch.desc_mut();
        let out = self.inner(scratch)?;
        let [out, x, y] = merged3(out, x, y);
        // SAFETY: `out` is the interior of the scratch vector, which `&mut self` borrows uniquely
        // and no operand overlaps (the solver's vectors are distinct arrays); `x` and `y` are
        // interiors of live arrays of the checked padded shape, on the space's device.
        unsafe { B::binary(&B::handle_device(out.handle), Mul, out, x, y) }?;
        // SAFETY: the scratch interior just written; nothing writes it during the call.
        let sum = unsafe { reduce(Sum, self.inner(self.scratch.desc())?) }?;
        Ok(sum.map_or(0.0, Into::into))
    }

    /// `‖x‖₂` over the interior.
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn norm(&mut self, x: &Array<T, N, B>) -> Result<f64> {
        let scratch = self.scratch.desc_mut();
        let (d, s) = (self.inner(x.desc())?, self.inner(scratch)?);
        let (s, d) = merged2(s, d);
        // SAFETY: as in `dot`, with one operand.
        unsafe { B::binary(&B::handle_device(s.handle), Mul, s, d, d) }?;
        // SAFETY: as in `dot`.
        let sum = unsafe { reduce(Sum, self.inner(self.scratch.desc())?) }?;
        Ok(sum.map_or(0.0, Into::into).sqrt())
    }

    /// `y += a x` over the interiors.
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn axpy(&mut self, y: &mut Array<T, N, B>, a: f64, x: &Array<T, N, B>) -> Result<()> {
        let x = self.inner(x.desc())?;
        let scratch = self.scratch.desc_mut();
        let s = self.inner(scratch)?;
        let (s, x) = merged2(s, x);
        // SAFETY: as in `dot`: the scratch interior, written from a distinct live operand.
        unsafe { B::unary(&B::handle_device(s.handle), ScalarRight(Mul, T::from_f64(a)), s, x) }?;
        let (y, s) = (self.inner(y.desc_mut())?, self.inner(self.scratch.desc())?);
        // SAFETY: `y` is uniquely borrowed and distinct from the scratch vector.
        unsafe { update(Add, y, s) }
    }

    /// `y = x + b y` over the interiors.
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn xpby(&self, y: &mut Array<T, N, B>, x: &Array<T, N, B>, b: f64) -> Result<()> {
        self.scale(y, b)?;
        self.combine(Add, y, x)
    }

    /// `y *= a` over the interior.
    ///
    /// # Errors
    ///
    /// As for [`Space::dot`].
    pub(super) fn scale(&self, y: &mut Array<T, N, B>, a: f64) -> Result<()> {
        let y = self.inner(y.desc_mut())?;
        // SAFETY: `y` is uniquely borrowed, live, of the checked shape.
        unsafe { update_unary(ScalarRight(Mul, T::from_f64(a)), y) }
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
        let (y, x) = (self.inner(y.desc_mut())?, self.inner(x.desc())?);
        // SAFETY: `y` is uniquely borrowed, so distinct from the shared `x`; both live, of the
        // checked shape.
        unsafe { update(op, y, x) }
    }

    /// The interior of `v` set to `user` (an array of the operator's shape).
    ///
    /// # Errors
    ///
    /// `Error::DeviceMismatch`; as for [`Space::dot`].
    pub(super) fn load(&self, v: &mut Array<T, N, B>, user: &Array<T, N, B>) -> Result<()> {
        let v = self.inner(v.desc_mut())?;
        // SAFETY: `v` is uniquely borrowed; `user` is a live array of the interior's shape
        // (checked in `new`, and a shared borrow cannot change it), distinct from `v`.
        unsafe { update(Second, v, user.desc()) }
    }

    /// `user` set to the interior of `v`.
    ///
    /// # Errors
    ///
    /// As for [`Space::load`].
    pub(super) fn store(&self, user: &mut Array<T, N, B>, v: &Array<T, N, B>) -> Result<()> {
        let v = self.inner(v.desc())?;
        if user.shape() != self.shape {
            return Err(Error::ShapeMismatch {
                op: self.method,
                expected: self.shape.to_vec(),
                got: user.shape().to_vec(),
            });
        }
        // SAFETY: `user` is uniquely borrowed, of the interior's shape; `v` is distinct and live.
        unsafe { update(Second, user.desc_mut(), v) }
    }
}
