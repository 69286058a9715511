//! What every WebGPU kernel launch shares: the element type's shader name, the descriptors' words
//! in the parameter block, the 2D dispatch of rank-2 shapes, and the dispatch itself. The op
//! families' kernel traits (`elementwise.rs`, `copy.rs`, `reduce.rs`, `matmul.rs`, `stencil.rs`)
//! pick the entry point of `kernels/wgpu/*.wgsl` named after the op token and launch it through here.

use super::device::{device_error, WgpuDevice};
use super::shaders::Family;
use super::Wgpu;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::kernel::Desc;

/// The most axes a shader descriptor holds, and the most stencil taps (`kernels/wgpu/*.wgsl`).
pub(super) const MAX_RANK: usize = 8;
pub(super) const MAX_TAPS: usize = 64;

/// The shader element type of `T` on `dev` (from its `DTYPE`), or `Error::UnsupportedDType`: the
/// WebGPU backend's one element-type map.
pub(super) fn elem<T: Pod>(dev: &WgpuDevice, op: &'static str) -> Result<&'static str> {
    use crate::element::DType;
    let (name, feature) = match crate::element::dtype_of::<T>() {
        Some(DType::F32) => ("f32", None),
        Some(DType::I32) => ("i32", None),
        Some(DType::F64) => ("f64", Some(wgpu::Features::SHADER_F64)),
        Some(DType::F16) => ("f16", Some(wgpu::Features::SHADER_F16)),
        Some(DType::C64) => ("c64", None),
        Some(DType::C128) => ("c128", Some(wgpu::Features::SHADER_F64)),
        _ => return Err(Error::UnsupportedDType {
            op,
            got: core::any::type_name::<T>().into(),
            fix: "WebGPU kernels take f32, i32, Complex<f32>, and f64, Complex<f64> and f16 where the adapter has them; convert on the host first",
        }),
    };
    match feature {
        Some(f) if !dev.has(f) => Err(Error::UnsupportedDType {
            op,
            got: name.into(),
            fix: "this WebGPU adapter lacks the shader feature for this type (SHADER_F64 or SHADER_F16, see `WgpuDevice::supports`); use f32 or another backend",
        }),
        _ => Ok(name),
    }
}

/// Unary ops Vulkan has no f64 form of (GLSL.std.450 defines them for 16- and 32-bit floats).
pub(super) fn transcendental(name: &str) -> bool {
    matches!(name, "exp" | "ln" | "log10" | "sin" | "cos" | "tan" | "tanh" | "powf" | "arg")
}

/// The refusal of a transcendental op in f64.
pub(super) fn no_f64(op: &'static str) -> Error {
    Error::UnsupportedDType {
        op,
        got: "f64".into(),
        fix: "Vulkan shaders have no f64 exp, ln, log10, sin, cos, tan, tanh, powf or atan2 (the angle of a Complex<f64>); compute it in f32, or on the host or CUDA",
    }
}

pub(super) fn to_i32(what: &str, v: impl TryInto<i32>) -> Result<i32> {
    v.try_into()
        .map_err(|_| device_error(format!("{what} exceeds the 32-bit indices of WebGPU shaders; split the array")))
}

/// The descriptor's 18 words: element offset, rank, shape[8], strides[8].
pub(super) fn words<T: Pod, const N: usize>(d: &Desc<Wgpu, T, N>) -> Result<[i32; 18]> {
    if N > MAX_RANK {
        return Err(Error::rank_limit("WebGPU", N, MAX_RANK));
    }
    let mut w = [0i32; 18];
    w[0] = to_i32("an element offset", d.handle.offset)?;
    w[1] = N as i32;
    for k in 0..N {
        w[2 + k] = to_i32("an axis length", d.shape[k])?;
        w[10 + k] = to_i32("a stride", d.strides[k])?;
    }
    Ok(w)
}

/// The rank-2 form of an operand whose axes before the last two all have length 1 (what axis
/// merging leaves of most strided operands): its descriptor words with rank 2.
pub(super) fn words_2d<T: Pod, const N: usize>(d: &Desc<Wgpu, T, N>) -> Result<Option<[i32; 18]>> {
    if N == 0 || d.shape[..N.saturating_sub(2)].iter().any(|&n| n != 1) {
        return Ok(None);
    }
    let (rows, sr) = if N >= 2 { (d.shape[N - 2], d.strides[N - 2]) } else { (1, 0) };
    let mut w = [0i32; 18];
    w[0] = to_i32("an element offset", d.handle.offset)?;
    w[1] = 2;
    w[2] = to_i32("an axis length", rows)?;
    w[3] = to_i32("an axis length", d.shape[N - 1])?;
    w[10] = to_i32("a stride", sr)?;
    w[11] = to_i32("a stride", d.strides[N - 1])?;
    Ok(Some(w))
}

/// The 2D dispatch of a rank-2 shape (rows, columns): (columns / 256, rows) workgroups, when both
/// fit a dispatch.
pub(super) fn groups_2d(w: &[i32; 18]) -> Option<(u32, u32)> {
    let (rows, cols) = (w[2] as usize, w[3] as usize);
    let x = cols.div_ceil(256).max(1);
    (x <= 65_535 && (1..=65_535).contains(&rows)).then_some((x as u32, rows as u32))
}

/// Dispatches the 2D entry point `entry` over the rank-2 forms of `descs` (the first being the
/// output, whose shape they share), when every operand has one and the shape fits a 2D dispatch;
/// `Ok(false)` otherwise.
#[allow(clippy::too_many_arguments)]
pub(super) fn try_2d<T: Pod, const N: usize, const D: usize>(
    dev: &WgpuDevice,
    fam: &'static Family,
    t: &'static str,
    entry: &str,
    descs: [&Desc<Wgpu, T, N>; D],
    (scalars, elems): (&[i32], &[T]),
    bindings: &[(u32, &wgpu::Buffer)],
) -> Result<bool> {
    let mut words_of = [[0i32; 18]; D];
    for (w, d) in words_of.iter_mut().zip(descs) {
        match words_2d(d)? {
            Some(two) => *w = two,
            None => return Ok(false),
        }
    }
    let Some(groups) = groups_2d(&words_of[0]) else { return Ok(false) };
    let p = params(descs[0].len(), words_of, scalars)?.with(elems);
    let pipeline = dev.pipeline(fam, t, entry)?;
    dev.dispatch(entry, &pipeline, bindings, &p, groups)?;
    Ok(true)
}

/// What a dispatch reads besides its operands: the parameter block (item count, descriptors,
/// integer scalars) and the element-typed scalars.
pub(crate) struct Params {
    pub(crate) words: Vec<i32>,
    pub(crate) elems: Vec<u8>,
}

impl Params {
    /// With element scalars `values`.
    pub(super) fn with<T: Pod>(mut self, values: &[T]) -> Self {
        self.elems = bytemuck::cast_slice(values).to_vec();
        self
    }
}

/// The parameter block: item count, descriptors, integer scalars.
pub(super) fn params(n: usize, descs: impl AsRef<[[i32; 18]]>, scalars: &[i32]) -> Result<Params> {
    let descs = descs.as_ref();
    let mut p = Vec::with_capacity(1 + 18 * descs.len() + scalars.len());
    p.push(to_i32("an item count", n)?);
    for d in descs {
        p.extend_from_slice(d);
    }
    p.extend_from_slice(scalars);
    Ok(Params { words: p, elems: Vec::new() })
}

/// The buffer an operand lives in.
///
/// # Safety
///
/// The operand is live (the kernel traits' contract), so its buffer is.
pub(super) unsafe fn buffer<'a, T: Pod, const N: usize>(d: &Desc<Wgpu, T, N>) -> &'a wgpu::Buffer {
    // SAFETY: the caller's contract: the handle came from a live `WgpuBuffer`, whose boxed
    // `wgpu::Buffer` stays put while it lives.
    unsafe { &*d.handle.buffer }
}

pub(super) fn same_buffer<T: Pod, U: Pod, const N: usize, const M: usize>(
    a: &Desc<Wgpu, T, N>,
    b: &Desc<Wgpu, U, M>,
) -> bool {
    core::ptr::eq(a.handle.buffer, b.handle.buffer)
}

/// Dispatches `entry` of `fam` for element type `t` over `n` items (256 per workgroup).
pub(super) fn run(
    dev: &WgpuDevice,
    fam: &'static Family,
    t: &'static str,
    entry: &str,
    n: usize,
    bindings: &[(u32, &wgpu::Buffer)],
    params: &Params,
) -> Result<()> {
    let pipeline = dev.pipeline(fam, t, entry)?;
    dev.dispatch(entry, &pipeline, bindings, params, WgpuDevice::groups(n)?)
}
