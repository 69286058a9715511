//! Complex arrays: the conjugate, magnitude, angle and squared magnitude on any backend with
//! elementwise kernels, and zero-copy views of the real and imaginary parts on every backend.
//!
//! Arithmetic (`+ - * /` with broadcasting and scalars on either side), `sum`, `product`,
//! `mean` and `matmul` are the generic ones: a `Complex<f32>` or `Complex<f64>` is an
//! [`Arithmetic`](crate::Arithmetic) element. What needs an order (`min`, `max`, `argmin`,
//! `%`, `clamp`) does not exist for complex arrays, at compile time.
//!
//! ```
//! use cnda::prelude::*;
//! use cnda::Complex;
//!
//! let z = Array::from_fn([2, 2], |[i, j]| Complex::new(i as f64, j as f64 + 1.0));
//! let w = &z * Complex::new(0.0, 1.0); // multiplied by i
//! assert_eq!(w[[1, 0]], Complex::new(-1.0, 1.0));
//! assert_eq!(z.conj()[[0, 1]], Complex::new(0.0, -2.0));
//! assert_eq!(z.abs()[[1, 0]], 2f64.sqrt());
//! assert_eq!(z.re().to_owned().as_slice(), &[0.0, 0.0, 1.0, 1.0]); // a view, no copy
//! let mut z = z;
//! z.im_mut().fill(0.0);
//! assert_eq!(z.sum(), Complex::new(2.0, 0.0));
//! ```

use num_complex::Complex;

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::ComplexPart;
use crate::error::{or_panic, Result};
use crate::kernel::tokens;
use crate::kernel::{Backend, ElementwiseKernels};
use crate::layout::{Layout, RowMajor, Strided};
use crate::ops::elementwise;
use crate::view::{Access, Shared, Unique, View};

/// Elementwise functions of complex elements on views and arrays of any backend with elementwise
/// kernels, each allocating its result from its `allocator()`: one line each (name, doc, token,
/// result type).
macro_rules! complex_math {
    ($([$($generics:tt)*] $Self:ty;)*) => {$(
        impl<$($generics)*> $Self {
            complex_math!(@unary
                conj try_conj: "the complex conjugate", tokens::Conj, Complex<F>;
                abs try_abs: "the magnitude (`hypot(re, im)`, NumPy's `abs`)", tokens::Abs, F;
                arg try_arg: "the angle (`atan2(im, re)` in `(-π, π]`, NumPy's `angle`)", tokens::Arg, F;
                norm_sqr try_norm_sqr: "the squared magnitude (`re² + im²`)", tokens::NormSqr, F;
            );
        }
    )*};
    (@unary $($name:ident $try_name:ident: $doc:literal, $token:expr, $Out:ty;)*) => {$(
        #[doc = concat!("A new row-major array of ", $doc, " of every element.")]
        ///
        /// # Panics
        ///
        #[doc = concat!("As [`", stringify!($try_name), "`](Self::", stringify!($try_name), ") fails.")]
        #[track_caller]
        pub fn $name(&self) -> Array<$Out, N, B, RowMajor, C> {
            or_panic(self.$try_name())
        }

        #[doc = concat!("[`", stringify!($name), "`](Self::", stringify!($name), "), returning the error instead of panicking.")]
        ///
        /// # Errors
        ///
        /// `Error::Alloc` when the result cannot be allocated; on a device, `Error::Device` when
        /// the kernel fails and `Error::UnsupportedDType` where the device lacks the type or the
        /// function (WebGPU without f64, or `arg` of a `Complex<f64>`: Vulkan has no f64
        /// `atan2`).
        pub fn $try_name(&self) -> Result<Array<$Out, N, B, RowMajor, C>> {
            // SAFETY: `self` is live, borrowed for the call.
            unsafe { elementwise::unary(&self.allocator(), $token, self.desc()) }
        }
    )*};
}

complex_math! {
    [F: ComplexPart, const N: usize, A: Access, B: ElementwiseKernels, L: Layout, C: BoundsCheck] View<'_, Complex<F>, N, A, B, L, C>;
    [F: ComplexPart, const N: usize, B: ElementwiseKernels, L: Layout, C: BoundsCheck] Array<Complex<F>, N, B, L, C>;
}

/// The real and the imaginary parts of complex elements: two strided views of `F`s.
type Parts<'a, F, const N: usize, A, B, C> = (View<'a, F, N, A, B, Strided, C>, View<'a, F, N, A, B, Strided, C>);

impl<'a, F: ComplexPart, const N: usize, A: Access, B: Backend, L: Layout, C: BoundsCheck>
    View<'a, Complex<F>, N, A, B, L, C>
{
    /// A zero-copy view of the real parts (strides doubled, in units of `F`), on the view's
    /// backend: on a device, a view of device memory that the device's ops read and write.
    pub fn re(self) -> View<'a, F, N, A, B, Strided, C> {
        // SAFETY: `Complex<F>` is `#[repr(C)]` `{ re: F, im: F }`: each element holds a whole,
        // aligned `F` at its start, so the parts view addresses valid `F`s of the same memory,
        // borrowed as `self` was (for `Unique`, `self` is consumed; distinct elements have
        // distinct parts, and any `F` written leaves a valid complex number).
        unsafe { View::from_raw(self.raw.complex_part(false)) }
    }

    /// A zero-copy view of the imaginary parts (strides doubled, offset by one `F`).
    pub fn im(self) -> View<'a, F, N, A, B, Strided, C> {
        // SAFETY: as for `re`, with the `F` one `F` into each element.
        unsafe { View::from_raw(self.raw.complex_part(true)) }
    }

    /// Views of the real and the imaginary parts at once (for a mutable view: both writable,
    /// disjoint bytes of every element).
    pub fn parts(self) -> Parts<'a, F, N, A, B, C> {
        let raw = self.raw;
        // SAFETY: as for `re` and `im`; the two views address disjoint bytes, and for `Unique`
        // `self` is consumed, so nothing else reaches these elements for `'a`.
        unsafe { (View::from_raw(raw.complex_part(false)), View::from_raw(raw.complex_part(true))) }
    }
}

impl<F: ComplexPart, const N: usize, B: Backend, L: Layout, C: BoundsCheck> Array<Complex<F>, N, B, L, C> {
    /// A zero-copy view of the real parts; see [`View::re`].
    pub fn re(&self) -> View<'_, F, N, Shared, B, Strided, C> {
        self.view().re()
    }

    /// A zero-copy view of the imaginary parts; see [`View::im`].
    pub fn im(&self) -> View<'_, F, N, Shared, B, Strided, C> {
        self.view().im()
    }

    /// A zero-copy mutable view of the real parts.
    pub fn re_mut(&mut self) -> View<'_, F, N, Unique, B, Strided, C> {
        self.view_mut().re()
    }

    /// A zero-copy mutable view of the imaginary parts.
    pub fn im_mut(&mut self) -> View<'_, F, N, Unique, B, Strided, C> {
        self.view_mut().im()
    }

    /// Mutable views of the real and the imaginary parts at once; see [`View::parts`].
    pub fn parts_mut(&mut self) -> Parts<'_, F, N, Unique, B, C> {
        self.view_mut().parts()
    }
}
