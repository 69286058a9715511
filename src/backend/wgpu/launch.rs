//! The op families' kernel traits for `Wgpu`: each call picks the entry point of `kernels/*.wgsl`
//! named after the op token, assembles the shader for the element type, packs the descriptors
//! into the parameter block and dispatches on the device's queue. A copy between two views of one
//! buffer is staged through a temporary (WebGPU does not bind one buffer for reading and writing
//! at once).

use core::any::TypeId;
use std::sync::{Arc, Mutex};

use super::device::{device_error, WgpuDevice};
use super::shaders::{family, Family};
use super::{Wgpu, WgpuBuffer};
use crate::element::{Numeric, Pod};
use crate::error::{Error, Result};
use crate::ops::desc::Desc;
use crate::ops::elementwise::ElementwiseKernels;
use crate::ops::fill_copy::CopyKernels;
use crate::ops::matmul::{GemmElement, MatmulKernels, Par};
use crate::ops::reduce::{self, ReduceKernels};
use crate::ops::tokens::{ArgOp, BinaryOp, DeviceUnary, ReduceOp, UnaryOp};
use crate::stencil::StencilKernels;

/// The most axes a shader descriptor holds, and the most stencil taps (`kernels/*.wgsl`).
const MAX_RANK: usize = 8;
const MAX_TAPS: usize = 32;

/// The shader element type of `T` on `dev`, or `Error::UnsupportedDType`.
fn elem<T: Pod>(dev: &WgpuDevice, op: &'static str) -> Result<&'static str> {
    let id = TypeId::of::<T>();
    let (name, feature) = if id == TypeId::of::<f32>() {
        ("f32", None)
    } else if id == TypeId::of::<i32>() {
        ("i32", None)
    } else if id == TypeId::of::<f64>() {
        ("f64", Some(wgpu::Features::SHADER_F64))
    } else if id == TypeId::of::<half::f16>() {
        ("f16", Some(wgpu::Features::SHADER_F16))
    } else {
        return Err(Error::UnsupportedDType {
            op,
            got: core::any::type_name::<T>().into(),
            fix: "WebGPU kernels take f32, i32, and f64 and f16 where the adapter has them; convert on the host first",
        });
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
fn transcendental(name: &str) -> bool {
    matches!(name, "exp" | "ln" | "log10" | "sin" | "cos" | "tan" | "tanh" | "powf")
}

/// The refusal of a transcendental op in f64.
fn no_f64(op: &'static str) -> Error {
    Error::UnsupportedDType {
        op,
        got: "f64".into(),
        fix: "Vulkan shaders have no f64 exp, ln, log10, sin, cos, tan, tanh or powf; compute it in f32, or on the host or CUDA",
    }
}

fn to_i32(what: &str, v: impl TryInto<i32>) -> Result<i32> {
    v.try_into()
        .map_err(|_| device_error(format!("{what} exceeds the 32-bit indices of WebGPU shaders; split the array")))
}

/// The descriptor's 18 words: element offset, rank, shape[8], strides[8].
fn words<T: Pod, const N: usize>(d: &Desc<Wgpu, T, N>) -> Result<[i32; 18]> {
    if N > MAX_RANK {
        return Err(device_error(format!(
            "an operand of {N} axes reached a shader, which take at most {MAX_RANK}; reshape to fewer axes"
        )));
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
fn words_2d<T: Pod, const N: usize>(d: &Desc<Wgpu, T, N>) -> Result<Option<[i32; 18]>> {
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
fn groups_2d(w: &[i32; 18]) -> Option<(u32, u32)> {
    let (rows, cols) = (w[2] as usize, w[3] as usize);
    let x = cols.div_ceil(256).max(1);
    (x <= 65_535 && (1..=65_535).contains(&rows)).then_some((x as u32, rows as u32))
}

/// Dispatches the 2D entry point `entry` over the rank-2 forms of `descs` (the first being the
/// output, whose shape they share), when every operand has one and the shape fits a 2D dispatch;
/// `Ok(false)` otherwise.
#[allow(clippy::too_many_arguments)]
fn try_2d<T: Pod, const N: usize, const D: usize>(
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
    fn with<T: Pod>(mut self, values: &[T]) -> Self {
        self.elems = bytemuck::cast_slice(values).to_vec();
        self
    }
}

/// The parameter block: item count, descriptors, integer scalars.
fn params<const D: usize>(n: usize, descs: [[i32; 18]; D], scalars: &[i32]) -> Result<Params> {
    let mut p = Vec::with_capacity(1 + 18 * D + scalars.len());
    p.push(to_i32("an item count", n)?);
    for d in descs {
        p.extend_from_slice(&d);
    }
    p.extend_from_slice(scalars);
    Ok(Params { words: p, elems: Vec::new() })
}

/// The parameter block of `n` items over operands of one element type and rank.
pub(super) fn params_of<T: Pod, const N: usize, const D: usize>(
    n: usize,
    descs: [&Desc<Wgpu, T, N>; D],
) -> Result<Params> {
    let mut words_of = [[0i32; 18]; D];
    for (w, d) in words_of.iter_mut().zip(descs) {
        *w = words(d)?;
    }
    params(n, words_of, &[])
}

/// The buffer an operand lives in (for modules beside this one).
///
/// # Safety
///
/// As [`buffer`].
pub(super) unsafe fn buffer_of<'a, T: Pod, const N: usize>(d: &Desc<Wgpu, T, N>) -> &'a wgpu::Buffer {
    // SAFETY: the caller's contract.
    unsafe { buffer(d) }
}

/// The buffer an operand lives in.
///
/// # Safety
///
/// The operand is live (the kernel traits' contract), so its buffer is.
unsafe fn buffer<'a, T: Pod, const N: usize>(d: &Desc<Wgpu, T, N>) -> &'a wgpu::Buffer {
    // SAFETY: the caller's contract: the handle came from a live `WgpuBuffer`, whose boxed
    // `wgpu::Buffer` stays put while it lives.
    unsafe { &*d.handle.buffer }
}

fn same_buffer<T: Pod, U: Pod, const N: usize, const M: usize>(a: &Desc<Wgpu, T, N>, b: &Desc<Wgpu, U, M>) -> bool {
    core::ptr::eq(a.handle.buffer, b.handle.buffer)
}

/// Dispatches `entry` of `fam` for element type `t` over `n` items (256 per workgroup).
fn run(
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

/// A row-major copy of `src` in a new buffer, for an operand that shares a buffer with the
/// destination.
///
/// # Safety
///
/// `src` is live.
unsafe fn staged<T: Pod, const N: usize>(
    dev: &WgpuDevice,
    src: Desc<Wgpu, T, N>,
) -> Result<(WgpuBuffer<T>, Desc<Wgpu, T, N>)> {
    let temp = WgpuBuffer::<T>::allocate(*dev, "staging", src.len())?;
    let desc = Desc { handle: temp.handle(0), shape: src.shape, strides: crate::shape::row_major_strides(&src.shape) };
    // SAFETY: `temp` is a fresh buffer of exactly this shape; `src` is live (the caller's
    // contract) and in another buffer.
    unsafe { <Wgpu as CopyKernels>::copy(dev, desc, src) }?;
    Ok((temp, desc))
}

// SAFETY: every shader writes each index of its output once with the op's value, reading and
// writing only the indices of its descriptors, queued in order on the device's queue.
unsafe impl ElementwiseKernels for Wgpu {
    unsafe fn binary<T: Pod, Op: BinaryOp<T>, const N: usize>(
        dev: &WgpuDevice,
        _: Op,
        out: Desc<Wgpu, T, N>,
        a: Desc<Wgpu, T, N>,
        b: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        let t = elem::<T>(dev, Op::NAME)?;
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        let p = params(n, [words(&out)?, words(&a)?, words(&b)?], &[])?;
        // SAFETY: the operands are live (the trait's contract).
        let (bo, ba, bb) = unsafe { (buffer(&out), buffer(&a), buffer(&b)) };
        let bindings = [(0, bo), (1, ba), (2, bb)];
        if [out.is_contiguous(), a.is_contiguous(), b.is_contiguous()] == [true; 3] {
            return run(dev, family("elementwise"), t, &format!("binary_{}_contig", Op::NAME), n, &bindings, &p);
        }
        if try_2d(
            dev,
            family("elementwise"),
            t,
            &format!("binary_{}_2d", Op::NAME),
            [&out, &a, &b],
            (&[], &[]),
            &bindings,
        )? {
            return Ok(());
        }
        run(dev, family("elementwise"), t, &format!("binary_{}", Op::NAME), n, &bindings, &p)
    }

    unsafe fn unary<T: Pod, Op: UnaryOp<T>, const N: usize>(
        dev: &WgpuDevice,
        op: Op,
        out: Desc<Wgpu, Op::Output, N>,
        a: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        if TypeId::of::<Op::Output>() != TypeId::of::<T>() {
            return Err(device_error(format!("{}: WebGPU kernels keep the element type", Op::NAME)));
        }
        let form = op
            .device_form()
            .ok_or_else(|| device_error(format!("the op {} has no WebGPU kernel (a host-only token)", Op::NAME)))?;
        let t = elem::<T>(dev, Op::NAME)?;
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        // The entry point, its integer and element scalars, and whether it has a `_contig` form.
        let (entry, scalars, elems, has_dense) = match form {
            DeviceUnary::Named(name) => (format!("unary_{name}"), vec![], vec![], true),
            DeviceUnary::ScalarRight(name, s) => (format!("scalar_right_{name}"), vec![], vec![s], true),
            DeviceUnary::ScalarLeft(name, s) => (format!("scalar_left_{name}"), vec![], vec![s], true),
            DeviceUnary::Powi(p) => ("unary_powi".to_string(), vec![p], vec![], false),
            DeviceUnary::Powf(p) => ("unary_powf".to_string(), vec![], vec![p], false),
            DeviceUnary::Clamp(lo, hi) => ("unary_clamp".to_string(), vec![], vec![lo, hi], false),
        };
        if t == "f64" && entry.strip_prefix("unary_").is_some_and(transcendental) {
            return Err(no_f64(Op::NAME));
        }
        let entry = if has_dense && out.is_contiguous() && a.is_contiguous() { entry + "_contig" } else { entry };
        let out_words = words(&out)?;
        let p = params(n, [out_words, words(&a)?], &scalars)?.with(&elems);
        // SAFETY: the operands are live; `out` is a different buffer (a fresh output) or the
        // caller staged it.
        let (bo, ba) = unsafe { (buffer(&out), buffer(&a)) };
        run(dev, family("elementwise"), t, &entry, n, &[(0, bo), (1, ba)], &p)
    }

    unsafe fn update<T: Pod, Op: BinaryOp<T>, const N: usize>(
        dev: &WgpuDevice,
        _: Op,
        dst: Desc<Wgpu, T, N>,
        src: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        let t = elem::<T>(dev, Op::NAME)?;
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        // SAFETY: `src` is live (the trait's contract).
        let staging = if same_buffer(&dst, &src) { Some(unsafe { staged(dev, src) }?) } else { None };
        let src = staging.as_ref().map_or(src, |(_, d)| *d);
        let p = params(n, [words(&dst)?, words(&src)?], &[])?;
        // SAFETY: as above; `dst` and `src` are now in different buffers.
        let (bd, bs) = unsafe { (buffer(&dst), buffer(&src)) };
        run(dev, family("elementwise"), t, &format!("update_{}", Op::NAME), n, &[(0, bd), (1, bs)], &p)
    }

    unsafe fn update_unary<T: Pod, Op: UnaryOp<T, Output = T>, const N: usize>(
        dev: &WgpuDevice,
        op: Op,
        dst: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        let t = elem::<T>(dev, Op::NAME)?;
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        let form = op
            .device_form()
            .ok_or_else(|| device_error(format!("the op {} has no WebGPU kernel (a host-only token)", Op::NAME)))?;
        let (entry, scalar) = match form {
            DeviceUnary::Named(name) if t == "f64" && transcendental(name) => return Err(no_f64(Op::NAME)),
            DeviceUnary::Named(name) => (format!("update_unary_{name}"), None),
            DeviceUnary::ScalarRight(name, s) => (format!("update_scalar_right_{name}"), Some(s)),
            DeviceUnary::ScalarLeft(name, s) => (format!("update_scalar_left_{name}"), Some(s)),
            _ => {
                // The parametrized ops have no in-place form: from a staged copy.
                // SAFETY: `dst` is live; the copy is another buffer.
                let (_temp, src) = unsafe { staged(dev, dst) }?;
                // SAFETY: as above.
                return unsafe { Self::unary(dev, op, dst, src) };
            }
        };
        let p = params(n, [words(&dst)?], &[])?.with(scalar.as_slice());
        // SAFETY: `dst` is live (the trait's contract).
        let bd = unsafe { buffer(&dst) };
        run(dev, family("elementwise"), t, &entry, n, &[(0, bd)], &p)
    }
}

// SAFETY: writes every destination index once with the source's (or the fill) value.
unsafe impl CopyKernels for Wgpu {
    unsafe fn copy<T: Pod, const N: usize>(
        dev: &WgpuDevice,
        dst: Desc<Wgpu, T, N>,
        src: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        let t = elem::<T>(dev, "copy")?;
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        // SAFETY: `src` is live (the trait's contract).
        let staging = if same_buffer(&dst, &src) { Some(unsafe { staged(dev, src) }?) } else { None };
        let src = staging.as_ref().map_or(src, |(_, d)| *d);
        // SAFETY: as above; different buffers now.
        let (bd, bs) = unsafe { (buffer(&dst), buffer(&src)) };
        let size = core::mem::size_of::<T>() as u64;
        let (from, to) = (src.handle.offset as u64 * size, dst.handle.offset as u64 * size);
        if dst.is_contiguous() && src.is_contiguous() && [from, to, n as u64 * size].iter().all(|b| b % 4 == 0) {
            // One dense block to another: the queue's own buffer copy (which needs 4-byte
            // aligned offsets and size: f16 blocks at odd offsets take the kernel below).
            return dev.checked("copy", || {
                let mut encoder = dev.device().create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
                encoder.copy_buffer_to_buffer(bs, from, bd, to, n as u64 * size);
                dev.queue().submit([encoder.finish()]);
            });
        }
        if try_2d(dev, family("copy"), t, "copy_2d", [&dst, &src], (&[], &[]), &[(0, bd), (1, bs)])? {
            return Ok(());
        }
        let p = params(n, [words(&dst)?, words(&src)?], &[])?;
        run(dev, family("copy"), t, "copy", n, &[(0, bd), (1, bs)], &p)
    }

    unsafe fn fill<T: Pod, const N: usize>(dev: &WgpuDevice, dst: Desc<Wgpu, T, N>, value: T) -> Result<()> {
        let t = elem::<T>(dev, "fill")?;
        let n = dst.len();
        if n == 0 {
            return Ok(());
        }
        let p = params(n, [words(&dst)?], &[])?.with(&[value]);
        // SAFETY: `dst` is live (the trait's contract).
        let bd = unsafe { buffer(&dst) };
        run(dev, family("copy"), t, "fill", n, &[(0, bd)], &p)
    }
}

/// Reads `count` elements from element `offset` of `buffer` back to the host (waits).
pub(crate) fn read_back<T: Pod>(
    dev: &WgpuDevice,
    buffer: &wgpu::Buffer,
    offset: usize,
    count: usize,
) -> Result<Vec<T>> {
    let size = core::mem::size_of::<T>();
    let (start, bytes) = ((offset * size) as u64, (count * size) as u64);
    // WebGPU copies 4-byte aligned ranges: from the word holding the first byte (an f16 at an odd
    // offset), to the end of the word holding the last (inside the buffer, whose size is whole
    // words).
    let skip = start % 4;
    let start = start - skip;
    let padded = (skip + bytes).max(4).next_multiple_of(4);
    let (staging, submission) = dev.checked("to_host", || {
        let staging = dev.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("cnda read-back"),
            size: padded,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = dev.device().create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        encoder.copy_buffer_to_buffer(buffer, start, &staging, 0, padded);
        let submission = dev.queue().submit([encoder.finish()]);
        (staging, submission)
    })?;
    let mapped: Arc<Mutex<Option<core::result::Result<(), wgpu::BufferAsyncError>>>> = Arc::new(Mutex::new(None));
    let slot = mapped.clone();
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, move |r| *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(r));
    // Another thread's poll may be the one that runs the callback: poll until it has run.
    let mut outcome = None;
    for _ in 0..10_000 {
        dev.device()
            .poll(wgpu::PollType::Wait { submission_index: Some(submission.clone()), timeout: None })
            .map_err(|e| device_error(format!("to_host: {e}")))?;
        outcome = mapped.lock().unwrap_or_else(|e| e.into_inner()).take();
        if outcome.is_some() {
            break;
        }
        std::thread::yield_now();
    }
    match outcome {
        Some(Ok(())) => {}
        other => return Err(device_error(format!("to_host: mapping the read-back buffer failed: {other:?}"))),
    }
    let view = staging.slice(..).get_mapped_range().map_err(|e| device_error(format!("to_host: {e}")))?;
    let mut out = vec![T::zeroed(); count];
    bytemuck::cast_slice_mut::<T, u8>(&mut out).copy_from_slice(&view[skip as usize..(skip + bytes) as usize]);
    drop(view);
    staging.unmap();
    Ok(out)
}

/// The identity idle threads of a fold start from.
fn fold_identity<T: Numeric>(name: &str) -> Result<T> {
    reduce::fold_identity(name)
        .ok_or_else(|| device_error(format!("the reduction {name} has no WebGPU kernel; run it on the host")))
}

/// Workgroups of a grid-stride reduction pass over `n` items.
fn reduction_groups(n: usize) -> usize {
    n.div_ceil(256).clamp(1, 65_535)
}

// SAFETY: the folds read only the descriptors' indices; `reduce_last_axis` writes each output
// element once.
unsafe impl ReduceKernels for Wgpu {
    unsafe fn reduce<T: Numeric, Op: ReduceOp<T>, const N: usize>(
        dev: &WgpuDevice,
        _: Op,
        a: Desc<Wgpu, T, N>,
    ) -> Result<T> {
        let t = elem::<T>(dev, Op::NAME)?;
        let identity = [fold_identity::<T>(Op::NAME)?];
        let entry = format!("fold_{}_contig", Op::NAME);
        let pipeline = dev.pipeline(family("reduce"), t, &entry)?;
        // Pass 1 over `a` (strided or dense), then dense passes over the partials until one is
        // left.
        let mut n = a.len();
        let mut groups = reduction_groups(n);
        let mut partial = WgpuBuffer::<T>::allocate(*dev, Op::NAME, groups)?;
        let first = if a.is_contiguous() { entry.clone() } else { format!("fold_{}", Op::NAME) };
        let first_pipeline = dev.pipeline(family("reduce"), t, &first)?;
        let p = params(n, [words(&a)?], &[])?.with(&identity);
        // SAFETY: `a` is live (the trait's contract).
        let ba = unsafe { buffer(&a) };
        dev.dispatch(&first, &first_pipeline, &[(0, partial.raw()), (1, ba)], &p, (groups as u32, 1))?;
        while groups > 1 {
            n = groups;
            groups = reduction_groups(n);
            let next = WgpuBuffer::<T>::allocate(*dev, Op::NAME, groups)?;
            let d = Desc::<Wgpu, T, 1> { handle: partial.handle(0), shape: [n], strides: [1] };
            let p = params(n, [words(&d)?], &[])?.with(&identity);
            dev.dispatch(&entry, &pipeline, &[(0, next.raw()), (1, partial.raw())], &p, (groups as u32, 1))?;
            partial = next;
        }
        Ok(read_back::<T>(dev, partial.raw(), 0, 1)?[0])
    }

    unsafe fn reduce_last_axis<T: Numeric, Op: ReduceOp<T>, const N: usize, const M: usize>(
        dev: &WgpuDevice,
        _: Op,
        out: Desc<Wgpu, T, M>,
        a: Desc<Wgpu, T, N>,
    ) -> Result<()> {
        let t = elem::<T>(dev, Op::NAME)?;
        let identity = [fold_identity::<T>(Op::NAME)?];
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        let outer = Desc::<Wgpu, T, M> {
            handle: a.handle,
            shape: core::array::from_fn(|k| a.shape[k]),
            strides: core::array::from_fn(|k| a.strides[k]),
        };
        let (len, stride) = (to_i32("an axis length", a.shape[N - 1])?, to_i32("a stride", a.strides[N - 1])?);
        let p = params(n, [words(&out)?, words(&outer)?], &[len, stride])?.with(&identity);
        // SAFETY: the operands are live (the trait's contract); `out` is a fresh buffer.
        let (bo, ba) = unsafe { (buffer(&out), buffer(&a)) };
        run(dev, family("reduce"), t, &format!("fold_axis_{}", Op::NAME), n, &[(0, bo), (1, ba)], &p)
    }

    unsafe fn arg_reduce<T: Numeric, Op: ArgOp<T>, const N: usize>(
        dev: &WgpuDevice,
        _: Op,
        a: Desc<Wgpu, T, N>,
    ) -> Result<usize> {
        let t = elem::<T>(dev, Op::NAME)?;
        let argmax = i32::from(Op::NAME == "argmax");
        let pipeline = dev.pipeline(family("reduce"), t, Op::NAME)?;
        let mut n = a.len();
        let mut groups = reduction_groups(n);
        let mut values = WgpuBuffer::<T>::allocate(*dev, Op::NAME, groups)?;
        let mut indices = WgpuBuffer::<i32>::allocate(*dev, Op::NAME, groups)?;
        let unused = WgpuBuffer::<i32>::allocate(*dev, Op::NAME, 1)?;
        let p = params(n, [words(&a)?], &[argmax, 0])?;
        // SAFETY: `a` is live (the trait's contract).
        let ba = unsafe { buffer(&a) };
        dev.dispatch(
            Op::NAME,
            &pipeline,
            &[(0, values.raw()), (1, ba), (2, indices.raw()), (4, unused.raw())],
            &p,
            (groups as u32, 1),
        )?;
        while groups > 1 {
            n = groups;
            groups = reduction_groups(n);
            let (next_values, next_indices) = (
                WgpuBuffer::<T>::allocate(*dev, Op::NAME, groups)?,
                WgpuBuffer::<i32>::allocate(*dev, Op::NAME, groups)?,
            );
            let d = Desc::<Wgpu, T, 1> { handle: values.handle(0), shape: [n], strides: [1] };
            let p = params(n, [words(&d)?], &[argmax, 1])?;
            let bindings = [(0, next_values.raw()), (1, values.raw()), (2, next_indices.raw()), (4, indices.raw())];
            dev.dispatch(Op::NAME, &pipeline, &bindings, &p, (groups as u32, 1))?;
            (values, indices) = (next_values, next_indices);
        }
        let at = read_back::<i32>(dev, indices.raw(), 0, 1)?[0];
        usize::try_from(at).map_err(|_| device_error(format!("{} found no element", Op::NAME)))
    }
}

// SAFETY: writes every element of the dense output once with the product.
unsafe impl MatmulKernels for Wgpu {
    unsafe fn gemm<T: GemmElement>(
        dev: &WgpuDevice,
        out: Desc<Wgpu, T, 2>,
        a: Desc<Wgpu, T, 2>,
        b: Desc<Wgpu, T, 2>,
        _: Par,
    ) -> Result<()> {
        let t = elem::<T>(dev, "matmul")?;
        let [m, n] = out.shape;
        let k = a.shape[1];
        if m == 0 || n == 0 {
            return Ok(());
        }
        let (gx, gy) = (n.div_ceil(16), m.div_ceil(16));
        if gx > 65_535 || gy > 65_535 {
            return Err(device_error(format!("a {m} x {n} product exceeds one dispatch; split it")));
        }
        let p =
            params(0, [words(&out)?, words(&a)?, words(&b)?], &[to_i32("m", m)?, to_i32("n", n)?, to_i32("k", k)?])?;
        let pipeline = dev.pipeline(family("matmul"), t, "matmul")?;
        // SAFETY: the operands are live (the trait's contract); `out` is a fresh buffer.
        let (bo, ba, bb) = unsafe { (buffer(&out), buffer(&a), buffer(&b)) };
        dev.dispatch("matmul", &pipeline, &[(0, bo), (1, ba), (2, bb)], &p, (gx as u32, gy as u32))
    }
}

// SAFETY: writes every output point once with the taps summed in order.
unsafe impl StencilKernels for Wgpu {
    unsafe fn linear<T: Numeric, const N: usize, const K: usize>(
        dev: &WgpuDevice,
        out: Desc<Wgpu, T, N>,
        input: Desc<Wgpu, T, N>,
        taps: &[([isize; N], T); K],
    ) -> Result<()> {
        let t = elem::<T>(dev, "stencil")?;
        if K > MAX_TAPS {
            return Err(device_error(format!("a stencil of {K} taps; WebGPU stencils take at most {MAX_TAPS}")));
        }
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        let mut scalars = vec![0i32; 1 + MAX_TAPS];
        scalars[0] = K as i32;
        let mut weights = vec![T::ZERO; K];
        for (k, (offset, weight)) in taps.iter().enumerate() {
            let delta: isize = (0..N).map(|axis| offset[axis] * input.strides[axis]).sum();
            scalars[1 + k] = to_i32("a tap offset", delta)?;
            weights[k] = *weight;
        }
        if same_buffer(&out, &input) {
            // The taps reach past the input region, so no staged copy of it would do.
            return Err(device_error(
                "a stencil's input and output are views of one buffer; WebGPU cannot bind it for reading and writing at once: apply it between two arrays".into(),
            ));
        }
        // SAFETY: the operands are live and in different buffers.
        let (bo, bi) = unsafe { (buffer(&out), buffer(&input)) };
        if try_2d(dev, family("stencil"), t, "stencil_2d", [&out, &input], (&scalars, &weights), &[(0, bo), (1, bi)])? {
            return Ok(());
        }
        let p = params(n, [words(&out)?, words(&input)?], &scalars)?.with(&weights);
        run(dev, family("stencil"), t, "stencil", n, &[(0, bo), (1, bi)], &p)
    }
}
