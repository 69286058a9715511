//! `+ - * / %` with NumPy broadcasting across ranks, scalar operands on either side, compound
//! assignment and unary `-`.
//!
//! A scalar may stand on either side: `&a * 2.0` and `2.0 * &a` (and `1.0 - a.view()`) for every
//! scalar element type, complex ones included (which have no `%`); those left-scalar impls are
//! hidden from the API pages, which they would otherwise bury.
//!
//! `%` is Rust's remainder, whose sign follows the dividend: C's `fmod`, NumPy's `np.fmod`, not
//! NumPy's `%` (Python's modulo, whose sign follows the divisor): `-7.0 % 3.0 == -1.0` here and
//! `2.0` in NumPy. Integer `%` by zero panics, as in Rust.
//!
//! Operators dispatch through traits whose `Self` is the *right* operand ([`Operand`],
//! [`AssignOperand`]): `impl<R: Operand<T, N, B>> Add<R> for &Array<T, N, B, ..>`. When the
//! operands do not fit (another backend, another element type, a rank that cannot broadcast into
//! the target), the failing bound is on our trait, so rustc prints its message instead of a list
//! of `Add` impls. The result rank is `max(N, M)`, computed by `MaxRank`.
//!
//! Every operator, on arrays and views of any backend, runs the elementwise family
//! (`ops/elementwise.rs`) with an op token (`tokens::Add` ...); the result comes from the left
//! operand's allocator (an array's own, so a pooled array gives a pooled result).

use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign};

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::{Arithmetic, Numeric};
use crate::error::or_panic;
use crate::error::Result;
use crate::kernel::tokens::{self, BinaryOp, ScalarLeft, ScalarRight};
use crate::kernel::Desc;
use crate::kernel::ElementwiseKernels;
use crate::kernel::{Backend, Cpu};
use crate::layout::{Layout, RowMajor};
use crate::ops::elementwise;
use crate::ops::operand::AsOperand;
use crate::rank::{BroadcastInto, MaxRank, Rank};
use crate::view::{Access, Shared, Unique, View};

/// The right operand of an elementwise operator whose left operand is a rank-`N` array of `T` on
/// backend `B`: arrays and views of any rank (broadcast together NumPy-style) and scalars.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the right operand of an elementwise op on a rank-{N} array of `{T}` on `{B}`",
    label = "needs an array, view or scalar of `{T}` on the same backend",
    note = "both operands must hold the same element type (convert one with `map`) and live on the same backend (move one explicitly)"
)]
pub trait Operand<T: Arithmetic, const N: usize, B: Backend>: Sized {
    /// The result: a row-major array of the broadcast shape on `B`.
    type Output;

    /// `op(lhs, self)` elementwise, the output from `alloc`.
    ///
    /// # Safety
    ///
    /// `lhs` describes a live operand: every element its shape and strides reach is initialized
    /// memory on its device that stays valid for the call (what `desc()` of an array or view
    /// gives). The kernels read through it unchecked, so a made-up descriptor would reach any
    /// address.
    #[doc(hidden)]
    unsafe fn combine<Op: BinaryOp<T>>(self, alloc: &B::Alloc, op: Op, lhs: Desc<B, T, N>) -> Result<Self::Output>;
}

/// The right operand of a compound assignment (`+=` ...) into a rank-`N` array of `T` on `B`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be combined into a rank-{N} array of `{T}`",
    label = "needs an array, view or scalar of `{T}` whose rank is at most {N}",
    note = "the right operand is broadcast into the left one, so it may have fewer axes but not more"
)]
pub trait AssignOperand<T: Arithmetic, const N: usize, B: Backend = Cpu>: Sized {
    /// `dst[i] = op(dst[i], self[i])` for every index of `dst`.
    ///
    /// # Safety
    ///
    /// `dst` addresses distinct, initialized elements that the caller borrows uniquely for the
    /// call (so `self`, a shared borrow or a scalar, cannot overlap them).
    #[doc(hidden)]
    unsafe fn update_into<Op: BinaryOp<T>>(self, op: Op, dst: Desc<B, T, N>) -> Result<()>;
}

#[diagnostic::do_not_recommend]
impl<
        T: Arithmetic,
        const N: usize,
        const M: usize,
        const K: usize,
        B: ElementwiseKernels,
        L2: Layout,
        C2: BoundsCheck,
    > Operand<T, N, B> for &Array<T, M, B, L2, C2>
where
    Rank<N>: MaxRank<Rank<M>, Output = Rank<K>>,
{
    type Output = Array<T, K, B>;

    unsafe fn combine<Op: BinaryOp<T>>(self, alloc: &B::Alloc, op: Op, lhs: Desc<B, T, N>) -> Result<Array<T, K, B>> {
        // SAFETY: `lhs` is live (the caller's contract), `self` a live operand borrowed for the call.
        unsafe { elementwise::binary(alloc, op, lhs, self.operand_desc()) }
    }
}

#[diagnostic::do_not_recommend]
impl<T: Arithmetic, const N: usize, const M: usize, B: ElementwiseKernels, L2: Layout, C2: BoundsCheck>
    AssignOperand<T, N, B> for &Array<T, M, B, L2, C2>
where
    Rank<M>: BroadcastInto<Rank<N>>,
{
    unsafe fn update_into<Op: BinaryOp<T>>(self, op: Op, dst: Desc<B, T, N>) -> Result<()> {
        // SAFETY: the caller's contract; `self` is a live operand.
        unsafe { elementwise::update(op, dst, self.operand_desc()) }
    }
}

macro_rules! view_operands {
    ($([$($A:tt)*] $rhs:ty),*) => {$(
        #[diagnostic::do_not_recommend]
        impl<'r, T: Arithmetic, const N: usize, const M: usize, const K: usize, $($A)* B: ElementwiseKernels, L2: Layout, C2: BoundsCheck>
            Operand<T, N, B> for $rhs
        where
            Rank<N>: MaxRank<Rank<M>, Output = Rank<K>>,
        {
            type Output = Array<T, K, B>;

            unsafe fn combine<Op: BinaryOp<T>>(self, alloc: &B::Alloc, op: Op, lhs: Desc<B, T, N>) -> Result<Array<T, K, B>> {
                // SAFETY: `lhs` is live (the caller's contract), `self` a live operand borrowed for the call.
                unsafe { elementwise::binary(alloc, op, lhs, self.operand_desc()) }
            }
        }

        #[diagnostic::do_not_recommend]
        impl<'r, T: Arithmetic, const N: usize, const M: usize, $($A)* B: ElementwiseKernels, L2: Layout, C2: BoundsCheck>
            AssignOperand<T, N, B> for $rhs
        where
            Rank<M>: BroadcastInto<Rank<N>>,
        {
            unsafe fn update_into<Op: BinaryOp<T>>(self, op: Op, dst: Desc<B, T, N>) -> Result<()> {
                // SAFETY: the caller's contract; `self` is a live operand.
                unsafe { elementwise::update(op, dst, self.operand_desc()) }
            }
        }
    )*};
}

view_operands!([] View<'r, T, M, Shared, B, L2, C2>, [A: Access,] &'r View<'r, T, M, A, B, L2, C2>);

#[diagnostic::do_not_recommend]
impl<T: Arithmetic, const N: usize, B: ElementwiseKernels> Operand<T, N, B> for T {
    type Output = Array<T, N, B>;

    unsafe fn combine<Op: BinaryOp<T>>(self, alloc: &B::Alloc, op: Op, lhs: Desc<B, T, N>) -> Result<Array<T, N, B>> {
        // SAFETY: `lhs` is live (the caller's contract).
        unsafe { elementwise::unary(alloc, ScalarRight(op, self), lhs) }
    }
}

#[diagnostic::do_not_recommend]
impl<T: Arithmetic, const N: usize, B: ElementwiseKernels> AssignOperand<T, N, B> for T {
    unsafe fn update_into<Op: BinaryOp<T>>(self, op: Op, dst: Desc<B, T, N>) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe { elementwise::update_unary(ScalarRight(op, self), dst) }
    }
}

macro_rules! binary_operators {
    ($($Op:ident $op:ident $try_op:ident $OpAssign:ident $op_assign:ident $try_op_assign:ident [$($bound:tt)*] $sym:tt;)*) => {$(
        impl<'a, T: Arithmetic $($bound)*, const N: usize, B: Backend, L: Layout, C: BoundsCheck, R: Operand<T, N, B>> $Op<R>
            for &'a Array<T, N, B, L, C>
        {
            type Output = R::Output;
            #[track_caller]
            fn $op(self, rhs: R) -> R::Output {
                or_panic(self.$try_op(rhs))
            }
        }

        impl<'a, T: Arithmetic $($bound)*, const N: usize, B: Backend, L: Layout, C: BoundsCheck, R: Operand<T, N, B>> $Op<R>
            for View<'a, T, N, Shared, B, L, C>
        {
            type Output = R::Output;
            #[track_caller]
            fn $op(self, rhs: R) -> R::Output {
                or_panic(self.$try_op(rhs))
            }
        }

        impl<'a, 'v, T: Arithmetic $($bound)*, const N: usize, A: Access, B: Backend, L: Layout, C: BoundsCheck, R: Operand<T, N, B>> $Op<R>
            for &'a View<'v, T, N, A, B, L, C>
        {
            type Output = R::Output;
            #[track_caller]
            fn $op(self, rhs: R) -> R::Output {
                or_panic(self.$try_op(rhs))
            }
        }

        impl<T: Arithmetic $($bound)*, const N: usize, B: Backend, L: Layout, C: BoundsCheck, R: AssignOperand<T, N, B>> $OpAssign<R>
            for Array<T, N, B, L, C>
        {
            #[track_caller]
            fn $op_assign(&mut self, rhs: R) {
                // SAFETY: an owned array's indices address distinct initialized elements, borrowed
                // uniquely through `&mut self`.
                or_panic(unsafe { rhs.update_into(tokens::$Op, self.desc_mut()) })
            }
        }

        impl<T: Arithmetic $($bound)*, const N: usize, B: Backend, L: Layout, C: BoundsCheck, R: AssignOperand<T, N, B>> $OpAssign<R>
            for View<'_, T, N, Unique, B, L, C>
        {
            #[track_caller]
            fn $op_assign(&mut self, rhs: R) {
                // SAFETY: a mutable view's indices address distinct elements it borrows uniquely,
                // reborrowed through `&mut self`.
                or_panic(unsafe { rhs.update_into(tokens::$Op, self.desc_mut()) })
            }
        }

        impl<T: Arithmetic $($bound)*, const N: usize, B: Backend, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
            #[doc = concat!("`self ", stringify!($sym), "= rhs` (`rhs` broadcast to this shape), returning the error instead of panicking.")]
            ///
            /// # Errors
            ///
            /// `Error::Broadcast` when `rhs` does not broadcast to this shape;
            /// `Error::DeviceMismatch`; `Error::Device` from a kernel.
            pub fn $try_op_assign<R: AssignOperand<T, N, B>>(&mut self, rhs: R) -> Result<()> {
                // SAFETY: as for the operator: an owned array's indices address distinct
                // initialized elements, borrowed uniquely through `&mut self`.
                unsafe { rhs.update_into(tokens::$Op, self.desc_mut()) }
            }

            #[doc = concat!("`self ", stringify!($sym), " rhs` with broadcasting, returning the error instead of panicking.")]
            ///
            /// The result comes from this array's allocator (a pooled array gives a pooled result).
            ///
            /// # Errors
            ///
            /// `Error::BroadcastOperands` when the shapes do not broadcast together; `Error::Alloc`.
            pub fn $try_op<R: Operand<T, N, B>>(&self, rhs: R) -> Result<R::Output> {
                // SAFETY: `self.desc()` describes this live array, borrowed for the call.
                unsafe { rhs.combine(&self.allocator(), tokens::$Op, self.desc()) }
            }
        }

        impl<T: Arithmetic $($bound)*, const N: usize, B: Backend, L: Layout, C: BoundsCheck> View<'_, T, N, Unique, B, L, C> {
            #[doc = concat!("`self ", stringify!($sym), "= rhs` (`rhs` broadcast to this shape), returning the error instead of panicking.")]
            ///
            /// # Errors
            ///
            /// `Error::Broadcast` when `rhs` does not broadcast to this shape;
            /// `Error::DeviceMismatch`; `Error::Device` from a kernel.
            pub fn $try_op_assign<R: AssignOperand<T, N, B>>(&mut self, rhs: R) -> Result<()> {
                // SAFETY: as for the operator: a mutable view's indices address distinct elements
                // it borrows uniquely, reborrowed through `&mut self`.
                unsafe { rhs.update_into(tokens::$Op, self.desc_mut()) }
            }
        }

        impl<T: Arithmetic $($bound)*, const N: usize, A: Access, B: Backend, L: Layout, C: BoundsCheck> View<'_, T, N, A, B, L, C> {
            #[doc = concat!("`self ", stringify!($sym), " rhs` with broadcasting, returning the error instead of panicking.")]
            ///
            /// The result comes from the system allocator on the CPU (a view does not know its
            /// owner's pool), from the view's device elsewhere.
            ///
            /// # Errors
            ///
            /// `Error::BroadcastOperands` when the shapes do not broadcast together; `Error::Alloc`.
            pub fn $try_op<R: Operand<T, N, B>>(&self, rhs: R) -> Result<R::Output> {
                let lhs = self.desc();
                // SAFETY: `lhs` describes this live view, borrowed for the call.
                unsafe { rhs.combine(&B::allocator_of_handle(lhs.handle), tokens::$Op, lhs) }
            }
        }
    )*};
}

binary_operators! {
    Add add try_add AddAssign add_assign try_add_assign [] +;
    Sub sub try_sub SubAssign sub_assign try_sub_assign [] -;
    Mul mul try_mul MulAssign mul_assign try_mul_assign [] *;
    Div div try_div DivAssign div_assign try_div_assign [] /;
    Rem rem try_rem RemAssign rem_assign try_rem_assign [+ Numeric + Rem<Output = T>] %;
}

macro_rules! scalar_left {
    ($($t:ty),*) => {$(
        scalar_left!(@op $t, Add add, Sub sub, Mul mul, Div div, Rem rem);
    )*};
    (@op $t:ty, $($Op:ident $op:ident),*) => {$(
        // Hidden from rustdoc: 156 impls (16 scalar types, 4 or 5 operators, arrays and views) would
        // bury `Array`'s methods; the module documentation states the capability once.
        #[doc(hidden)]
        impl<const N: usize, B: ElementwiseKernels, L: Layout, C: BoundsCheck> $Op<&Array<$t, N, B, L, C>> for $t {
            type Output = Array<$t, N, B, RowMajor, C>;
            #[track_caller]
            fn $op(self, rhs: &Array<$t, N, B, L, C>) -> Self::Output {
                // SAFETY: `rhs` is a live array, borrowed for the call.
                or_panic(unsafe { elementwise::unary(&rhs.allocator(), ScalarLeft(self, tokens::$Op), rhs.desc()) })
            }
        }
        #[doc(hidden)]
        impl<const N: usize, B: ElementwiseKernels, L: Layout, C: BoundsCheck> $Op<View<'_, $t, N, Shared, B, L, C>> for $t {
            type Output = Array<$t, N, B, RowMajor, C>;
            #[track_caller]
            fn $op(self, rhs: View<'_, $t, N, Shared, B, L, C>) -> Self::Output {
                let a = rhs.desc();
                // SAFETY: `a` describes a live view, borrowed for the call.
                or_panic(unsafe { elementwise::unary(&B::allocator_of_handle(a.handle), ScalarLeft(self, tokens::$Op), a) })
            }
        }
    )*};
}

scalar_left!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, half::f16, half::bf16);
scalar_left!(@op num_complex::Complex<f32>, Add add, Sub sub, Mul mul, Div div);
scalar_left!(@op num_complex::Complex<f64>, Add add, Sub sub, Mul mul, Div div);

impl<T: Arithmetic + Neg<Output = T>, const N: usize, B: ElementwiseKernels, L: Layout, C: BoundsCheck> Neg
    for &Array<T, N, B, L, C>
{
    type Output = Array<T, N, B, RowMajor, C>;
    #[track_caller]
    fn neg(self) -> Self::Output {
        // SAFETY: `self` is a live array, borrowed for the call.
        or_panic(unsafe { elementwise::unary(&self.allocator(), tokens::Neg, self.desc()) })
    }
}

impl<T: Arithmetic + Neg<Output = T>, const N: usize, B: ElementwiseKernels, L: Layout, C: BoundsCheck> Neg
    for View<'_, T, N, Shared, B, L, C>
{
    type Output = Array<T, N, B, RowMajor, C>;
    #[track_caller]
    fn neg(self) -> Self::Output {
        let a = self.desc();
        // SAFETY: `a` describes a live view, borrowed for the call.
        or_panic(unsafe { elementwise::unary(&B::allocator_of_handle(a.handle), tokens::Neg, a) })
    }
}
