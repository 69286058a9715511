//! Elementwise math on float arrays (`abs`, `sqrt`, `exp`, `ln`, `sin`, `cos`, `powi`, `powf`,
//! `clamp`, ...) and closeness tests (`allclose`, `abs_diff_eq`). Each function is a `map` or a
//! lockstep walk over the lane engine; arrays forward to their views.

use crate::array::Array;
use crate::backend::{Cpu, HostAccessible};
use crate::check::BoundsCheck;
use crate::element::Float;
use crate::layout::{Layout, RowMajor};
use crate::rank::{BroadcastInto, Rank};
use crate::view::ops_shared::or_panic;
use crate::view::{ArrayView, AsView};

/// One elementwise float function per line: name, doc, the scalar function.
macro_rules! unary_math {
    ($($name:ident: $doc:literal, $f:expr;)*) => {
        impl<T: Float, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'_, T, N, L, C> {
            $(
                #[doc = concat!("A new row-major array of ", $doc, " of every element.")]
                pub fn $name(&self) -> Array<T, N, Cpu, RowMajor, C> {
                    self.map($f)
                }
            )*
        }

        impl<T: Float, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
            $(
                #[doc = concat!("A new row-major array of ", $doc, " of every element.")]
                ///
                /// ```
                /// use cnda::prelude::*;
                /// let a = Array::from_shape_vec([2], vec![0.25f64, 4.0]).unwrap();
                #[doc = concat!("let b = a.", stringify!($name), "();")]
                #[doc = concat!("assert_eq!(b[[1]], 4.0f64.", stringify!($name), "());")]
                /// ```
                pub fn $name(&self) -> Array<T, N, Cpu, RowMajor, C> {
                    self.view().$name()
                }
            )*
        }
    };
}

unary_math! {
    abs: "the absolute value", T::abs;
    sqrt: "the square root", T::sqrt;
    exp: "the exponential", T::exp;
    ln: "the natural logarithm", T::ln;
    log10: "the base-10 logarithm", T::log10;
    sin: "the sine", T::sin;
    cos: "the cosine", T::cos;
    tan: "the tangent", T::tan;
    tanh: "the hyperbolic tangent", T::tanh;
    floor: "the floor", T::floor;
    ceil: "the ceiling", T::ceil;
    round: "the nearest integer (half away from zero)", T::round;
}

impl<T: Float, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'_, T, N, L, C> {
    /// A new row-major array of every element raised to the integer power `n`.
    pub fn powi(&self, n: i32) -> Array<T, N, Cpu, RowMajor, C> {
        self.map(|x| x.powi(n))
    }

    /// A new row-major array of every element raised to the power `p`.
    pub fn powf(&self, p: T) -> Array<T, N, Cpu, RowMajor, C> {
        self.map(|x| x.powf(p))
    }

    /// A new row-major array of every element clamped to `lo..=hi` (NaN stays NaN).
    ///
    /// # Panics
    ///
    /// When `lo > hi` or either bound is NaN, as `f64::clamp` does.
    #[track_caller]
    pub fn clamp(&self, lo: T, hi: T) -> Array<T, N, Cpu, RowMajor, C> {
        assert!(lo <= hi, "clamp: the lower bound {lo} is above the upper bound {hi} (or one is NaN)");
        self.map(|x| x.clamp(lo, hi))
    }

    /// Whether every element is within `atol + rtol * |other|` of `other`'s element at the same
    /// index (`other` broadcast to this shape), NumPy's `allclose`; NaNs are never close.
    ///
    /// # Panics
    ///
    /// When `other` does not broadcast to this shape.
    #[track_caller]
    pub fn allclose<const M: usize, S: AsView<T, M>>(&self, other: &S, rtol: T, atol: T) -> bool
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        let other = or_panic(other.as_view().try_broadcast_to(self.shape()));
        self.iter().zip(other.iter()).all(|(&a, &b)| (a - b).abs() <= atol + rtol * b.abs())
    }

    /// Whether both have the same shape and every pair of elements differs by at most `eps`
    /// (the `approx` crate's `abs_diff_eq`); a shape mismatch is `false`.
    pub fn abs_diff_eq<S: AsView<T, N>>(&self, other: &S, eps: T) -> bool {
        let other = other.as_view();
        other.shape() == self.shape() && self.iter().zip(other.iter()).all(|(&a, &b)| (a - b).abs() <= eps)
    }
}

impl<T: Float, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// Every element raised to the integer power `n`; see [`ArrayView::powi`].
    pub fn powi(&self, n: i32) -> Array<T, N, Cpu, RowMajor, C> {
        self.view().powi(n)
    }

    /// Every element raised to the power `p`; see [`ArrayView::powf`].
    pub fn powf(&self, p: T) -> Array<T, N, Cpu, RowMajor, C> {
        self.view().powf(p)
    }

    /// Every element clamped to `lo..=hi`; see [`ArrayView::clamp`].
    #[track_caller]
    pub fn clamp(&self, lo: T, hi: T) -> Array<T, N, Cpu, RowMajor, C> {
        self.view().clamp(lo, hi)
    }

    /// NumPy's `allclose`; see [`ArrayView::allclose`].
    ///
    /// ```
    /// use cnda::prelude::*;
    /// let a = Array::from_shape_vec([2], vec![1.0, 2.0]).unwrap();
    /// assert!(a.allclose(&(&a + 1e-9), 1e-5, 1e-8));
    /// assert!(!a.allclose(&(&a + 1e-3), 1e-5, 1e-8));
    /// ```
    #[track_caller]
    pub fn allclose<const M: usize, S: AsView<T, M>>(&self, other: &S, rtol: T, atol: T) -> bool
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        self.view().allclose(other, rtol, atol)
    }

    /// Same shape and every pair within `eps`; see [`ArrayView::abs_diff_eq`].
    pub fn abs_diff_eq<S: AsView<T, N>>(&self, other: &S, eps: T) -> bool {
        self.view().abs_diff_eq(other, eps)
    }
}
