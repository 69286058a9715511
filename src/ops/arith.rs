//! `+ - * / %` with NumPy broadcasting across ranks, scalar operands on either side, compound
//! assignment and unary `-`.
//!
//! A scalar may stand on either side: `&a * 2.0` and `2.0 * &a` (and `1.0 - a.view()`) for every
//! scalar element type; those left-scalar impls are hidden from the API pages, which they
//! would otherwise bury.
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

use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign};

use crate::array::Array;
use crate::backend::{Backend, Cpu, HostAccessible};
use crate::check::{BoundsCheck, DefaultCheck};
use crate::element::Numeric;
use crate::error::Result;
use crate::layout::{Layout, RowMajor};
use crate::ops::lanes;
use crate::ops::map::collect;
use crate::rank::{BroadcastInto, MaxRank, Rank};
use crate::view::ops_shared::or_panic;
use crate::view::{ArrayView, ArrayViewMut, AsView};

/// The right operand of an elementwise operator whose left operand is a rank-`N` array of `T` on
/// backend `B`: arrays and views of any rank (broadcast together NumPy-style) and scalars.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the right operand of an elementwise op on a rank-{N} array of `{T}` on `{B}`",
    label = "needs an array, view or scalar of `{T}` on the same backend",
    note = "both operands must hold the same element type (convert one with `map`) and live on the same backend (move one explicitly)"
)]
pub trait Operand<T: Numeric, const N: usize, B: Backend>: Sized {
    /// The result: a row-major CPU array of the broadcast shape.
    type Output;

    /// `f(lhs, self)` elementwise, with `lhs` an owned array.
    #[doc(hidden)]
    fn combine_with_array<L: Layout, C: BoundsCheck>(
        self,
        lhs: &Array<T, N, B, L, C>,
        f: impl FnMut(T, T) -> T,
    ) -> Result<Self::Output>;

    /// `f(lhs, self)` elementwise, with `lhs` a view.
    #[doc(hidden)]
    fn combine_with_view<L: Layout, C: BoundsCheck>(
        self,
        lhs: ArrayView<'_, T, N, L, C>,
        f: impl FnMut(T, T) -> T,
    ) -> Result<Self::Output>;
}

/// The right operand of a compound assignment (`+=` ...) into a rank-`N` array of `T`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be combined into a rank-{N} array of `{T}`",
    label = "needs an array, view or scalar of `{T}` whose rank is at most {N}",
    note = "the right operand is broadcast into the left one, so it may have fewer axes but not more"
)]
pub trait AssignOperand<T: Numeric, const N: usize>: Sized {
    /// `f(&mut dst[i], self[i])` for every index of `dst`.
    #[doc(hidden)]
    fn update_into<L: Layout, C: BoundsCheck>(
        self,
        dst: ArrayViewMut<'_, T, N, L, C>,
        f: impl FnMut(&mut T, T),
    ) -> Result<()>;
}

/// `f(a, b)` over the broadcast shape of two views, into a fresh row-major array.
fn combine<T: Numeric, const N: usize, const M: usize, const K: usize, L1, C1, L2, C2>(
    a: ArrayView<'_, T, N, L1, C1>,
    b: ArrayView<'_, T, M, L2, C2>,
    f: impl FnMut(T, T) -> T,
) -> Result<Array<T, K>>
where
    L1: Layout,
    C1: BoundsCheck,
    L2: Layout,
    C2: BoundsCheck,
{
    let shape = crate::geometry::broadcast_shapes::<N, M, K>(a.shape(), b.shape())?;
    let (sa, sb) = (a.src_broadcast(shape)?, b.src_broadcast(shape)?);
    // SAFETY: both sources are broadcast geometries of live views covering `shape`; the
    // destination is fresh and written once per index.
    unsafe { collect::<T, K, DefaultCheck>("elementwise op", shape, |dst| lanes::binary_map(shape, sa, sb, dst, f)) }
}

macro_rules! array_operands {
    ($($rhs:ty),*) => {$(
        #[diagnostic::do_not_recommend]
        impl<'r, T: Numeric, const N: usize, const M: usize, const K: usize, L2: Layout, C2: BoundsCheck> Operand<T, N, Cpu>
            for $rhs
        where
            Rank<N>: MaxRank<Rank<M>, Output = Rank<K>>,
        {
            type Output = Array<T, K>;

            fn combine_with_array<L: Layout, C: BoundsCheck>(self, lhs: &Array<T, N, Cpu, L, C>, f: impl FnMut(T, T) -> T) -> Result<Array<T, K>> {
                combine(lhs.view(), self.as_view(), f)
            }

            fn combine_with_view<L: Layout, C: BoundsCheck>(self, lhs: ArrayView<'_, T, N, L, C>, f: impl FnMut(T, T) -> T) -> Result<Array<T, K>> {
                combine(lhs, self.as_view(), f)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<'r, T: Numeric, const N: usize, const M: usize, L2: Layout, C2: BoundsCheck> AssignOperand<T, N> for $rhs
        where
            Rank<M>: BroadcastInto<Rank<N>>,
        {
            fn update_into<L: Layout, C: BoundsCheck>(self, mut dst: ArrayViewMut<'_, T, N, L, C>, f: impl FnMut(&mut T, T)) -> Result<()> {
                dst.try_zip_mut_with(&self.as_view(), f)
            }
        }
    )*};
}

array_operands!(
    &'r Array<T, M, Cpu, L2, C2>,
    ArrayView<'r, T, M, L2, C2>,
    &'r ArrayView<'r, T, M, L2, C2>,
    &'r ArrayViewMut<'r, T, M, L2, C2>
);

#[diagnostic::do_not_recommend]
impl<T: Numeric, const N: usize> Operand<T, N, Cpu> for T {
    type Output = Array<T, N>;

    fn combine_with_array<L: Layout, C: BoundsCheck>(
        self,
        lhs: &Array<T, N, Cpu, L, C>,
        f: impl FnMut(T, T) -> T,
    ) -> Result<Array<T, N>> {
        self.combine_with_view(lhs.view(), f)
    }

    fn combine_with_view<L: Layout, C: BoundsCheck>(
        self,
        lhs: ArrayView<'_, T, N, L, C>,
        mut f: impl FnMut(T, T) -> T,
    ) -> Result<Array<T, N>> {
        let src = lhs.src();
        // SAFETY: one source covering the shape; a fresh destination written once per index.
        unsafe { collect("elementwise op", lhs.shape(), |dst| lanes::unary_map(lhs.shape(), src, dst, |x| f(x, self))) }
    }
}

#[diagnostic::do_not_recommend]
impl<T: Numeric, const N: usize> AssignOperand<T, N> for T {
    fn update_into<L: Layout, C: BoundsCheck>(
        self,
        mut dst: ArrayViewMut<'_, T, N, L, C>,
        mut f: impl FnMut(&mut T, T),
    ) -> Result<()> {
        dst.map_inplace(|x| f(x, self));
        Ok(())
    }
}

macro_rules! binary_operators {
    ($($Op:ident $op:ident $try_op:ident $OpAssign:ident $op_assign:ident [$($bound:tt)*] $sym:tt;)*) => {$(
        impl<'a, T: Numeric $($bound)*, const N: usize, B: Backend, L: Layout, C: BoundsCheck, R: Operand<T, N, B>> $Op<R>
            for &'a Array<T, N, B, L, C>
        {
            type Output = R::Output;
            #[track_caller]
            fn $op(self, rhs: R) -> R::Output {
                or_panic(rhs.combine_with_array(self, |x, y| x $sym y))
            }
        }

        impl<'a, T: Numeric $($bound)*, const N: usize, L: Layout, C: BoundsCheck, R: Operand<T, N, Cpu>> $Op<R>
            for ArrayView<'a, T, N, L, C>
        {
            type Output = R::Output;
            #[track_caller]
            fn $op(self, rhs: R) -> R::Output {
                or_panic(rhs.combine_with_view(self, |x, y| x $sym y))
            }
        }

        impl<'a, 'v, T: Numeric $($bound)*, const N: usize, L: Layout, C: BoundsCheck, R: Operand<T, N, Cpu>> $Op<R>
            for &'a ArrayView<'v, T, N, L, C>
        {
            type Output = R::Output;
            #[track_caller]
            fn $op(self, rhs: R) -> R::Output {
                or_panic(rhs.combine_with_view(*self, |x, y| x $sym y))
            }
        }

        impl<'a, 'v, T: Numeric $($bound)*, const N: usize, L: Layout, C: BoundsCheck, R: Operand<T, N, Cpu>> $Op<R>
            for &'a ArrayViewMut<'v, T, N, L, C>
        {
            type Output = R::Output;
            #[track_caller]
            fn $op(self, rhs: R) -> R::Output {
                or_panic(rhs.combine_with_view(self.view(), |x, y| x $sym y))
            }
        }

        impl<T: Numeric $($bound)*, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck, R: AssignOperand<T, N>> $OpAssign<R>
            for Array<T, N, B, L, C>
        {
            #[track_caller]
            fn $op_assign(&mut self, rhs: R) {
                or_panic(rhs.update_into(self.view_mut(), |x, y| *x = *x $sym y))
            }
        }

        impl<T: Numeric $($bound)*, const N: usize, L: Layout, C: BoundsCheck, R: AssignOperand<T, N>> $OpAssign<R>
            for ArrayViewMut<'_, T, N, L, C>
        {
            #[track_caller]
            fn $op_assign(&mut self, rhs: R) {
                or_panic(rhs.update_into(self.view_mut(), |x, y| *x = *x $sym y))
            }
        }

        impl<T: Numeric $($bound)*, const N: usize, B: Backend, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
            #[doc = concat!("`self ", stringify!($sym), " rhs` with broadcasting, returning the error instead of panicking.")]
            ///
            /// # Errors
            ///
            /// `Error::Broadcast` when the shapes do not broadcast together; `Error::Alloc`.
            pub fn $try_op<R: Operand<T, N, B>>(&self, rhs: R) -> Result<R::Output> {
                rhs.combine_with_array(self, |x, y| x $sym y)
            }
        }

        impl<T: Numeric $($bound)*, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'_, T, N, L, C> {
            #[doc = concat!("`self ", stringify!($sym), " rhs` with broadcasting, returning the error instead of panicking.")]
            ///
            /// # Errors
            ///
            /// `Error::Broadcast` when the shapes do not broadcast together; `Error::Alloc`.
            pub fn $try_op<R: Operand<T, N, Cpu>>(&self, rhs: R) -> Result<R::Output> {
                rhs.combine_with_view(*self, |x, y| x $sym y)
            }
        }
    )*};
}

binary_operators! {
    Add add try_add AddAssign add_assign [] +;
    Sub sub try_sub SubAssign sub_assign [] -;
    Mul mul try_mul MulAssign mul_assign [] *;
    Div div try_div DivAssign div_assign [] /;
    Rem rem try_rem RemAssign rem_assign [+ Rem<Output = T>] %;
}

macro_rules! scalar_left {
    ($($t:ty),*) => {$(
        scalar_left!(@op $t, Add add +, Sub sub -, Mul mul *, Div div /, Rem rem %);
    )*};
    (@op $t:ty, $($Op:ident $op:ident $sym:tt),*) => {$(
        // Hidden from rustdoc: 140 impls (14 scalar types, 5 operators, arrays and views) would
        // bury `Array`'s methods; the module documentation states the capability once.
        #[doc(hidden)]
        impl<const N: usize, L: Layout, C: BoundsCheck> $Op<&Array<$t, N, Cpu, L, C>> for $t {
            type Output = Array<$t, N, Cpu, RowMajor, C>;
            fn $op(self, rhs: &Array<$t, N, Cpu, L, C>) -> Self::Output {
                rhs.map(|x| self $sym x)
            }
        }
        #[doc(hidden)]
        impl<const N: usize, L: Layout, C: BoundsCheck> $Op<ArrayView<'_, $t, N, L, C>> for $t {
            type Output = Array<$t, N, Cpu, RowMajor, C>;
            fn $op(self, rhs: ArrayView<'_, $t, N, L, C>) -> Self::Output {
                rhs.map(|x| self $sym x)
            }
        }
    )*};
}

scalar_left!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, half::f16, half::bf16);

impl<T: Numeric + Neg<Output = T>, const N: usize, L: Layout, C: BoundsCheck> Neg for &Array<T, N, Cpu, L, C> {
    type Output = Array<T, N, Cpu, RowMajor, C>;
    fn neg(self) -> Self::Output {
        self.map(|x| -x)
    }
}

impl<T: Numeric + Neg<Output = T>, const N: usize, L: Layout, C: BoundsCheck> Neg for ArrayView<'_, T, N, L, C> {
    type Output = Array<T, N, Cpu, RowMajor, C>;
    fn neg(self) -> Self::Output {
        self.map(|x| -x)
    }
}
