//! Elementwise math on float arrays (`abs`, `sqrt`, `exp`, `ln`, `sin`, `cos`, `powi`, `powf`,
//! `clamp`, ...) through the elementwise op family (one op token each), and closeness tests
//! (`allclose`, `abs_diff_eq`) on the host.

use crate::array::Array;
use crate::array::AsView;
use crate::check::BoundsCheck;
use crate::element::{Float, Magnitude, Pod};
use crate::error::{or_panic, Result};
use crate::kernel::tokens;
use crate::kernel::ElementwiseKernels;
use crate::kernel::HostAccessible;
use crate::layout::{Layout, RowMajor};
use crate::ops::elementwise;
use crate::rank::{BroadcastInto, Rank};
use crate::view::{Access, ArrayView, View};

/// Elementwise float math on views and arrays of any backend with elementwise kernels, each
/// allocating its result from its `allocator()` (an array's own, so a pooled array gives a pooled
/// result): one function per line (name, doc, op token), then the parameterized ones.
macro_rules! float_math {
    ($([$($generics:tt)*] $Self:ty;)*) => {$(
        impl<$($generics)*> $Self {
            float_math!(@unary
                abs try_abs: "the absolute value", tokens::Abs;
                sqrt try_sqrt: "the square root", tokens::Sqrt;
                exp try_exp: "the exponential", tokens::Exp;
                ln try_ln: "the natural logarithm", tokens::Ln;
                log10 try_log10: "the base-10 logarithm", tokens::Log10;
                sin try_sin: "the sine", tokens::Sin;
                cos try_cos: "the cosine", tokens::Cos;
                tan try_tan: "the tangent", tokens::Tan;
                tanh try_tanh: "the hyperbolic tangent", tokens::Tanh;
                floor try_floor: "the floor", tokens::Floor;
                ceil try_ceil: "the ceiling", tokens::Ceil;
                round try_round: "the nearest integer (half away from zero)", tokens::Round;
            );

            /// A new row-major array of every element raised to the integer power `n`.
            #[track_caller]
            pub fn powi(&self, n: i32) -> Array<T, N, B, RowMajor, C> {
                or_panic(self.try_powi(n))
            }

            /// [`powi`](Self::powi), returning the error instead of panicking.
            ///
            /// # Errors
            ///
            /// As for [`try_exp`](Self::try_exp).
            pub fn try_powi(&self, n: i32) -> Result<Array<T, N, B, RowMajor, C>> {
                // SAFETY: `self` is a live array, borrowed for the call.
                unsafe { elementwise::unary(&self.allocator(), tokens::Powi(n), self.desc()) }
            }

            /// A new row-major array of every element raised to the power `p`.
            #[track_caller]
            pub fn powf(&self, p: T) -> Array<T, N, B, RowMajor, C> {
                or_panic(self.try_powf(p))
            }

            /// [`powf`](Self::powf), returning the error instead of panicking.
            ///
            /// # Errors
            ///
            /// As for [`try_exp`](Self::try_exp).
            pub fn try_powf(&self, p: T) -> Result<Array<T, N, B, RowMajor, C>> {
                // SAFETY: `self` is a live array, borrowed for the call.
                unsafe { elementwise::unary(&self.allocator(), tokens::Powf(p), self.desc()) }
            }

            /// A new row-major array of every element clamped to `lo..=hi` (NaN stays NaN).
            ///
            /// # Panics
            ///
            /// When `lo > hi` or either bound is NaN, as `f64::clamp` does.
            #[track_caller]
            pub fn clamp(&self, lo: T, hi: T) -> Array<T, N, B, RowMajor, C> {
                // SAFETY: `self` is a live array, borrowed for the call.
                or_panic(unsafe { elementwise::unary(&self.allocator(), clamp_token(lo, hi), self.desc()) })
            }
        }
    )*};
    (@unary $($name:ident $try_name:ident: $doc:literal, $token:expr;)*) => {$(
        #[doc = concat!("A new row-major array of ", $doc, " of every element.")]
        ///
        /// ```
        /// use cnda::prelude::*;
        /// let a = Array::from_shape_vec([2], vec![0.25f64, 4.0]).unwrap();
        #[doc = concat!("let b = a.", stringify!($name), "();")]
        #[doc = concat!("assert_eq!(b[[1]], 4.0f64.", stringify!($name), "());")]
        /// ```
        ///
        /// # Panics
        ///
        #[doc = concat!("As [`", stringify!($try_name), "`](Self::", stringify!($try_name), ") fails.")]
        #[track_caller]
        pub fn $name(&self) -> Array<T, N, B, RowMajor, C> {
            or_panic(self.$try_name())
        }

        #[doc = concat!("[`", stringify!($name), "`](Self::", stringify!($name), "), returning the error instead of panicking.")]
        ///
        /// # Errors
        ///
        /// `Error::Alloc` when the result cannot be allocated; on a device, `Error::Device` when
        /// the kernel fails and `Error::UnsupportedDType` when the device has no such function
        /// for the element type (Vulkan has no f64 transcendentals).
        pub fn $try_name(&self) -> Result<Array<T, N, B, RowMajor, C>> {
            // SAFETY: `self` is a live array, borrowed for the call.
            unsafe { elementwise::unary(&self.allocator(), $token, self.desc()) }
        }
    )*};
}

float_math! {
    [T: Float, const N: usize, A: Access, B: ElementwiseKernels, L: Layout, C: BoundsCheck] View<'_, T, N, A, B, L, C>;
    [T: Float, const N: usize, B: ElementwiseKernels, L: Layout, C: BoundsCheck] Array<T, N, B, L, C>;
}

/// NumPy's `isclose` of two elements: equal (infinities of one sign), or both finite and within
/// `atol + rtol |b|`; never with a NaN.
fn close<T: Magnitude>(a: T, b: T, rtol: T::Real, atol: T::Real) -> bool {
    let infinite = <T::Real as crate::element::Numeric>::LARGEST;
    let magnitude = b.magnitude();
    a == b || (a.magnitude() < infinite && magnitude < infinite && a.distance(b) <= atol + rtol * magnitude)
}

/// The bounds of `clamp`, checked as `f64::clamp` checks them.
#[track_caller]
fn clamp_token<T: Float>(lo: T, hi: T) -> tokens::Clamp<T> {
    assert!(lo <= hi, "clamp: the lower bound {lo} is above the upper bound {hi} (or one is NaN)");
    tokens::Clamp { lo, hi }
}

impl<T: Pod + Magnitude, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'_, T, N, L, C> {
    /// Whether every element is within `atol + rtol * |other|` of `other`'s element at the same
    /// index (`other` broadcast to this shape), NumPy's `allclose`: NaNs are never close,
    /// infinities only to themselves. For complex elements the distances are magnitudes
    /// (`|a - b|`, `|b|`), as NumPy's.
    ///
    /// # Panics
    ///
    /// When `other` does not broadcast to this shape.
    #[track_caller]
    pub fn allclose<const M: usize, S: AsView<T, M>>(&self, other: &S, rtol: T::Real, atol: T::Real) -> bool
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        let other = or_panic(other.as_view().try_broadcast_to(self.shape()));
        self.iter().zip(other.iter()).all(|(&a, &b)| close(a, b, rtol, atol))
    }

    /// Whether both have the same shape and every pair of elements differs by at most `eps`
    /// (the `approx` crate's `abs_diff_eq`; complex elements by the magnitude of the
    /// difference); a shape mismatch is `false`.
    pub fn abs_diff_eq<S: AsView<T, N>>(&self, other: &S, eps: T::Real) -> bool {
        let other = other.as_view();
        other.shape() == self.shape() && self.iter().zip(other.iter()).all(|(&a, &b)| a.distance(b) <= eps)
    }
}

impl<T: Pod + Magnitude, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<T, N, B, L, C> {
    /// NumPy's `allclose`; see [`ArrayView::allclose`].
    ///
    /// ```
    /// use cnda::prelude::*;
    /// use cnda::Complex;
    /// let a = Array::from_shape_vec([2], vec![1.0, 2.0]).unwrap();
    /// assert!(a.allclose(&(&a + 1e-9), 1e-5, 1e-8));
    /// assert!(!a.allclose(&(&a + 1e-3), 1e-5, 1e-8));
    /// let z = a.map(|x| Complex::new(0.0, x));
    /// assert!(z.allclose(&(&z * Complex::new(1.0, 1e-9)), 1e-8, 0.0));
    /// ```
    #[track_caller]
    pub fn allclose<const M: usize, S: AsView<T, M>>(&self, other: &S, rtol: T::Real, atol: T::Real) -> bool
    where
        Rank<M>: BroadcastInto<Rank<N>>,
    {
        self.host_view().allclose(other, rtol, atol)
    }

    /// Same shape and every pair within `eps`; see [`ArrayView::abs_diff_eq`].
    pub fn abs_diff_eq<S: AsView<T, N>>(&self, other: &S, eps: T::Real) -> bool {
        self.host_view().abs_diff_eq(other, eps)
    }
}
