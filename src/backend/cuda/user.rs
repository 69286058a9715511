//! User stencils on CUDA: a point update written as a CUDA C expression of the centre and its
//! neighbours (CuPy's `ElementwiseKernel` idea, for non-linear updates the constant-coefficient
//! `LinearStencil` cannot express), compiled once by NVRTC for the device and applied to the
//! interior of device arrays like `LinearStencil::apply`.

use core::marker::PhantomData;

use cudarc::driver::{CudaFunction, PushKernelArg};

use super::device::{device_error, CudaDevice};
use super::kernels::compile_source;
use super::Cuda;
use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Float;
use crate::error::{Error, Result};
use crate::layout::Layout;

/// A 2D stencil of radius `R` whose update is a CUDA C expression in which `u(di, dj)` reads the
/// neighbour `di` rows and `dj` columns away (`|di|, |dj| <= R`) and `T` names the element type.
///
/// ```no_run
/// use cnda::prelude::*;
/// use cnda::backend::cuda::CudaStencil2;
///
/// let dev = CudaDevice::new(0)?;
/// // A non-linear diffusion step: the conductivity depends on the centre value.
/// let step = CudaStencil2::<f64, 1>::new(
///     &dev,
///     "u(0, 0) + 0.1 * (1.0 + u(0, 0) * u(0, 0)) * (u(-1, 0) + u(1, 0) + u(0, -1) + u(0, 1) - 4.0 * u(0, 0))",
/// )?;
/// let u = Array::<f64, 2>::zeros([256, 256]).to_device(&dev);
/// let mut v = Array::<f64, 2, Cuda>::zeros_in(&dev, [256, 256]);
/// step.apply(&u, &mut v)?;
/// # Ok::<(), cnda::Error>(())
/// ```
pub struct CudaStencil2<T, const R: usize> {
    device: CudaDevice,
    function: CudaFunction,
    element: PhantomData<T>,
}

/// The kernel-name suffix and C type of a float element.
fn c_type<T: Float>() -> Result<&'static str> {
    match T::DTYPE {
        crate::element::DType::F32 => Ok("f32"),
        crate::element::DType::F64 => Ok("f64"),
        other => Err(Error::UnsupportedDType {
            op: "CudaStencil2",
            got: other.to_string(),
            fix: "user stencils on CUDA take f32 or f64",
        }),
    }
}

impl<T: Float, const R: usize> CudaStencil2<T, R> {
    /// The CUDA source of the kernel for update `expression` (compiled after
    /// `kernels/cuda/common.cuh`): what [`CudaStencil2::new`] compiles, and what a test can compile
    /// without a device.
    ///
    /// # Errors
    ///
    /// `Error::UnsupportedDType` for an element type other than f32 or f64; `Error::Device` for
    /// an expression [`check_expression`] refuses.
    pub fn source(expression: &str) -> Result<String> {
        let t = c_type::<T>()?;
        check_expression(expression, R)?;
        Ok(format!(
            r#"typedef {t} T;
extern "C" __global__ void cnda_user_stencil(T *out, Desc o, const T *in, Desc di_, i64 n) {{
    CNDA_FOR_EACH(p, n) {{
        i64 oo, oi;
        cnda_offset2(o, di_, p, oo, oi);
#define u(di, dj) in[oi + (i64)(di) * di_.strides[0] + (i64)(dj) * di_.strides[1]]
        out[oo] = (T)({expression});
#undef u
    }}
}}
"#
        ))
    }

    /// The stencil with update `expression`, compiled by NVRTC for `dev`.
    ///
    /// # Errors
    ///
    /// `Error::Device` with NVRTC's log when the expression does not compile, or when the module
    /// does not load; `Error::UnsupportedDType` for an element type other than f32 or f64.
    pub fn new(dev: &CudaDevice, expression: &str) -> Result<Self> {
        let source = Self::source(expression)?;
        check_expression(expression, R)?;
        let image = compile_source("user_stencil", &source, dev.compute_capability(), dev.kernel_output())?;
        let function = dev.load_user("cnda_user_stencil", image)?;
        Ok(CudaStencil2 { device: *dev, function, element: PhantomData })
    }

    /// `output = update(input)` on every interior point (at least `R` from every edge); the other
    /// points of `output` are left alone. Queued on the device's stream.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the shapes differ; `Error::DeviceMismatch` when an array is on
    /// another device; `Error::Device` when the launch fails.
    pub fn apply<L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
        &self,
        input: &Array<T, 2, Cuda, L1, C1>,
        output: &mut Array<T, 2, Cuda, L2, C2>,
    ) -> Result<()> {
        let (shape, got) = (input.shape(), output.shape());
        if shape != got {
            return Err(Error::ShapeMismatch {
                op: "CudaStencil2::apply",
                expected: shape.to_vec(),
                got: got.to_vec(),
            });
        }
        let (i, o) = (input.desc(), output.desc_mut());
        if let Some(other) = [i.handle.device, o.handle.device].into_iter().find(|d| *d != self.device) {
            return Err(Error::DeviceMismatch {
                op: "CudaStencil2::apply",
                backend: "Cuda",
                expected: format!("{:?}", self.device),
                got: format!("{other:?}"),
            });
        }
        if shape.iter().any(|&n| n <= 2 * R) {
            return Ok(()); // no interior point
        }
        let interior =
            |d: crate::kernel::Desc<Cuda, T, 2>| d.narrowed(0, R, shape[0] - 2 * R).narrowed(1, R, shape[1] - 2 * R);
        let (i, o) = (interior(i), interior(o));
        let n = (shape[0] - 2 * R) * (shape[1] - 2 * R);
        let desc = |d: &crate::kernel::Desc<Cuda, T, 2>| super::dispatch::kernel_desc(d);
        let ((pi, di), (po, dd)) = (desc(&i)?, desc(&o)?);
        let count = n as i64;
        let mut builder = self.device.stream().launch_builder(&self.function);
        builder.arg(&po).arg(&dd).arg(&pi).arg(&di).arg(&count);
        // SAFETY: the arguments match `cnda_user_stencil`'s parameters; every interior point's
        // neighbours within R lie inside `input` (R from each edge), and `output`'s interior is
        // written once per point; `input` and `output` are distinct arrays (a shared and a
        // unique borrow), so they do not overlap.
        unsafe { builder.launch(self.device.grid(n)) }
            .map_err(|e| device_error(format!("launching a user stencil: {e:?}")))?;
        Ok(())
    }
}

/// The device math functions a CUDA expression may call: pure functions of their arguments.
const FUNCTIONS: &[&str] = &[
    "abs", "fabs", "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sin", "cos", "tan",
    "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "floor", "ceil", "round", "trunc", "fmin", "fmax", "min",
    "max", "hypot", "erf", "erfc", "copysign", "fma",
];

/// Checks that `expression` is pure arithmetic on the neighbours within radius `r` (see
/// [`neighbour_reads`](crate::stencil::expression::neighbour_reads)), with CUDA's pure math
/// functions.
///
/// # Errors
///
/// `Error::Device` naming the first thing refused and where.
pub fn check_expression(expression: &str, r: usize) -> Result<()> {
    crate::stencil::expression::neighbour_reads(expression, r, FUNCTIONS, "cuda").map(|_| ())
}
