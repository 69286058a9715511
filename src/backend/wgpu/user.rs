//! User stencils on WebGPU: a point update written as a WGSL expression of the centre and its
//! neighbours (for non-linear updates the constant-coefficient `LinearStencil` cannot express),
//! checked to be pure arithmetic within the radius, compiled once into a pipeline and applied to
//! the interior of device arrays like `LinearStencil::apply`.

use core::marker::PhantomData;

use super::device::{device_error, WgpuDevice};
use super::dispatch::{buffer_of, params_of};
use super::shaders::COMMON;
use super::Wgpu;
use crate::array::Array;
use crate::check::BoundsCheck;
use crate::error::{Error, Result};
use crate::kernel::Desc;
use crate::layout::Layout;
use crate::stencil::expression::neighbour_reads;

/// The WGSL built-in functions an expression may call: pure functions of their arguments.
const FUNCTIONS: &[&str] = &[
    "abs", "sqrt", "exp", "exp2", "log", "log2", "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh",
    "cosh", "tanh", "floor", "ceil", "round", "trunc", "min", "max", "clamp", "fma", "sign", "select",
];

/// A 2D f32 stencil of radius `R` whose update is a WGSL expression in which `u(di, dj)` reads the
/// neighbour `di` rows and `dj` columns away (`|di|, |dj| <= R`) and `T` names the element type.
///
/// ```no_run
/// use cnda::prelude::*;
/// use cnda::backend::wgpu::WgpuStencil2;
///
/// let dev = WgpuDevice::new()?;
/// let step = WgpuStencil2::<1>::new(&dev, "u(0, 0) + 0.1 * (1.0 + u(0, 0) * u(0, 0)) * (u(-1, 0) + u(1, 0) + u(0, -1) + u(0, 1) - 4.0 * u(0, 0))")?;
/// let u = Array::<f32, 2>::zeros([256, 256]).to_device(&dev);
/// let mut v = Array::<f32, 2, Wgpu>::zeros_in(&dev, [256, 256]);
/// step.apply(&u, &mut v)?;
/// # Ok::<(), cnda::Error>(())
/// ```
pub struct WgpuStencil2<const R: usize> {
    device: WgpuDevice,
    pipeline: wgpu::ComputePipeline,
    element: PhantomData<f32>,
}

impl<const R: usize> WgpuStencil2<R> {
    /// The WGSL source of the shader for update `expression`: what [`WgpuStencil2::new`]
    /// compiles, and what a test can validate without an adapter.
    ///
    /// # Errors
    ///
    /// `Error::Device` for an expression the checks refuse.
    pub fn source(expression: &str) -> Result<String> {
        let reads = neighbour_reads(expression, R, FUNCTIONS, "wgpu")?;
        let mut body = String::with_capacity(expression.len() * 2);
        let mut at = 0;
        for read in reads {
            body.push_str(&expression[at..read.span.0]);
            body.push_str(&format!("u_at(c, {}, {})", read.offset[0], read.offset[1]));
            at = read.span.1;
        }
        body.push_str(&expression[at..]);
        let shader = format!(
            r#"alias T = f32;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;

fn u_at(c: i32, di: i32, dj: i32) -> f32 {{
    let d = desc(1u);
    return a[c + di * params[d + 10u] + dj * params[d + 11u]];
}}

@compute @workgroup_size(256)
fn user_stencil(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {{
    let i = flat_index(gid, groups);
    if (i >= item_count()) {{ return; }}
    let c = offset_of(1u, i);
    out[offset_of(0u, i)] = T({body});
}}
"#
        );
        Ok(format!("{}\n{shader}", COMMON.replace("ELEM", "f32")))
    }

    /// The stencil with update `expression`, compiled for `dev`.
    ///
    /// # Errors
    ///
    /// `Error::Device` for an expression the checks refuse or WGSL rejects.
    pub fn new(dev: &WgpuDevice, expression: &str) -> Result<Self> {
        let source = Self::source(expression)?;
        let pipeline = dev.user_pipeline(&source, "user_stencil")?;
        Ok(WgpuStencil2 { device: *dev, pipeline, element: PhantomData })
    }

    /// `output = update(input)` on every interior point (at least `R` from every edge); the other
    /// points of `output` are left alone. Queued on the device.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when the shapes differ; `Error::DeviceMismatch` when an array is on
    /// another device; `Error::Device` when the dispatch fails.
    pub fn apply<L1: Layout, C1: BoundsCheck, L2: Layout, C2: BoundsCheck>(
        &self,
        input: &Array<f32, 2, Wgpu, L1, C1>,
        output: &mut Array<f32, 2, Wgpu, L2, C2>,
    ) -> Result<()> {
        let (shape, got) = (input.shape(), output.shape());
        if shape != got {
            return Err(Error::ShapeMismatch {
                op: "WgpuStencil2::apply",
                expected: shape.to_vec(),
                got: got.to_vec(),
            });
        }
        let (i, o) = (input.desc(), output.desc_mut());
        if let Some(other) = [i.handle.device, o.handle.device].into_iter().find(|d| *d != self.device) {
            return Err(Error::DeviceMismatch {
                op: "WgpuStencil2::apply",
                backend: "Wgpu",
                expected: format!("{:?}", self.device),
                got: format!("{other:?}"),
            });
        }
        if shape.iter().any(|&n| n <= 2 * R) {
            return Ok(()); // no interior point
        }
        let interior = |d: Desc<Wgpu, f32, 2>| d.narrowed(0, R, shape[0] - 2 * R).narrowed(1, R, shape[1] - 2 * R);
        let (i, o) = (interior(i), interior(o));
        let n = (shape[0] - 2 * R) * (shape[1] - 2 * R);
        let p = params_of(n, [&o, &i])?;
        // SAFETY: both arrays are borrowed for the call, so their buffers are live; they are two
        // arrays (a shared and a unique borrow), so two buffers.
        let (bo, bi) = unsafe { (buffer_of(&o), buffer_of(&i)) };
        if core::ptr::eq(bo, bi) {
            return Err(device_error("a user stencil's input and output share a buffer".into()));
        }
        self.device.dispatch("user stencil", &self.pipeline, &[(0, bo), (1, bi)], &p, WgpuDevice::groups(n)?)
    }
}
