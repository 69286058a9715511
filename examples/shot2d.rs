//! A 2D acoustic shot, as a seismic code runs one: the damped wave equation
//! `u_tt + d u_t = v^2 lap(u)` over a layered velocity model (1.5 km/s water over a dipping
//! 2.5 km/s layer over 3.5 km/s rock), 8th order in space (`laplace(u, 8)`), second order in time,
//! a Ricker wavelet injected at a source that need not lie on the grid (`stencil::Points`:
//! bilinear weights), a line of receivers recording every step (one per column of a row near
//! the surface) and six more down a well between grid columns, and an absorbing layer (`d`
//! growing quadratically over 40 cells at the sides and the bottom) so the waves leave instead
//! of reflecting. One `stencil!` runs on the CPU (fused steps on every core), a CUDA GPU or a
//! WebGPU adapter; the source and the receivers are a `PointIo`, injected and sampled inside
//! the time steps.
//!
//! The update: `u(n+1) = (2u - (1 - e) u(n-1) + c lap(u)) / (1 + e)`, with `c = (v dt / h)^2` and
//! `e = d dt / 2` per cell: a stencil of two time levels (`#[levels(2)]`), stepping a `State`
//! that rotates them without copies.
//!
//! ```text
//! cargo run --release --example shot2d                      # 300 x 400 cells, 1000 steps, the CPU
//! cargo run --release --example shot2d -- 150 200 500 shot.png record.png --check
//! cargo run --release --features cuda --example shot2d -- 150 200 500 --cuda --check
//! cargo run --release --features wgpu --example shot2d -- 150 200 500 --wgpu --check
//! ```
//!
//! `shot2d [NZ] [NX] [STEPS] [WAVEFIELD.png] [RECORD.png] [--cuda | --wgpu] [--check]`: `f32`
//! throughout. `--check` also runs on the CPU and compares: CUDA bit for bit (no fused
//! multiply-adds on either side), WebGPU within 1e-4 of the record's largest amplitude; on the CPU
//! alone it compares the fused threaded steps with one thread's, bit for bit. Exit code 2 when the device cannot open.

use std::process::ExitCode;
use std::time::Instant;

use cnda::kernel::ExprStencilKernels;
use cnda::prelude::*;
use cnda::stencil::{Boundary, PointIo, Points, State, StencilApply};

#[path = "common/device.rs"]
mod device;
#[path = "common/picture.rs"]
mod picture;

stencil! {
    /// One damped leapfrog step with the 17-point 8th-order Laplacian: the field now and one
    /// step before, then the coefficient fields.
    #[levels(2)]
    pub struct Shot = |u, um, c, e| (2.0 * u[0, 0] - (1.0 - e[0, 0]) * um[0, 0] + c[0, 0] * laplace(u, 8)) / (1.0 + e[0, 0]);
}

/// Grid spacing (m), time step (s), the wavelet's peak frequency (Hz), the absorbing layer's
/// widest width (cells; a quarter of a small grid) and strength (1/s).
const H: f64 = 10.0;
const DT: f64 = 1.0e-3;
const F0: f64 = 10.0;
const LAYER: usize = 40;
const DAMPING: f64 = 120.0;
/// The halo: the stencil's radius.
const R: usize = 4;

/// The model on the host: `c` and `e` per cell (halo included), the source position (m, from the
/// first interior cell), the receivers' row.
struct Model {
    c: Array<f32, 2>,
    e: Array<f32, 2>,
    source: (f64, f64),
    receivers: usize,
}

fn velocity(z: f64, x: f64) -> f64 {
    let interface = 900.0 + 0.25 * x; // dipping down to the right
    if z < 400.0 {
        1500.0
    } else if z < interface {
        2500.0
    } else {
        3500.0
    }
}

fn model(nz: usize, nx: usize) -> Model {
    let shape = [nz + 2 * R, nx + 2 * R];
    let at = |i: usize| (i as f64 - R as f64) * H;
    let c = Array::from_fn(shape, |[i, j]| ((velocity(at(i), at(j)) * DT / H).powi(2)) as f32);
    // Distance into the absorbing layer (sides and bottom; the top is a free surface).
    let layer = LAYER.min(nz / 4).min(nx / 4).max(1);
    let depth = |i: usize, j: usize| {
        let (i, j) = (i.saturating_sub(R), j.saturating_sub(R));
        let side = layer.saturating_sub(j.min(nx.saturating_sub(j + 1)));
        side.max(layer.saturating_sub(nz.saturating_sub(i + 1)))
    };
    let e = Array::from_fn(shape, |[i, j]| (DAMPING * (depth(i, j) as f64 / layer as f64).powi(2) * DT / 2.0) as f32);
    // Off the grid on purpose: a third of a cell right and half a cell down from a node.
    let source = (6.5 * H, (nx as f64 / 2.0 + 0.3) * H);
    Model { c, e, source, receivers: R + 3 }
}

/// The Ricker wavelet at time `t`, delayed by `1.5 / F0`.
fn ricker(t: f64) -> f64 {
    let a = (std::f64::consts::PI * F0 * (t - 1.5 / F0)).powi(2);
    (1.0 - 2.0 * a) * (-a).exp()
}

/// What a shot gives back, on the host: the final wavefield, the surface record (`steps x nx`) and
/// the well's record (`steps x 6`).
type Shot2d = (Array<f32, 2>, Array<f32, 2>, Array<f32, 2>);

/// The wave's state on backend `B` and the coefficient fields `c`, `e`.
type Fields<'a, B> = (&'a Array<f32, 2, B>, &'a Array<f32, 2, B>);

/// `steps` steps on backend `B`, by `step` (the fused steps on the CPU, one call per step on a
/// device), the source and receivers as a `PointIo`.
fn shoot<B: ExprStencilKernels>(
    m: &Model,
    steps: usize,
    upload: impl Fn(&Array<f32, 2>) -> Result<Array<f32, 2, B>, Error>,
    download: impl Fn(&Array<f32, 2, B>) -> Result<Array<f32, 2>, Error>,
    step: impl FnOnce(&mut State<f32, 2, 1, 2, B>, Fields<'_, B>, PointIo<'_, f32, 2, 1>) -> Result<(), Error>,
) -> Result<Shot2d, Error> {
    let shape = m.c.shape();
    let (nz, nx) = (shape[0] - 2 * R, shape[1] - 2 * R);
    let (c, e) = (upload(&m.c)?, upload(&m.e)?);
    let zeros = Array::<f32, 2>::zeros(shape);
    let mut state = State::try_from_levels([[upload(&zeros)?, upload(&zeros)?]])?;
    // The surface line: one receiver per column of row `m.receivers`. The well: six receivers
    // between columns, at fractional depths (grid units, halo counted).
    let line = Points::try_new((R..R + nx).map(|j| [m.receivers as f64, j as f64]))?;
    let well = Points::try_new(
        (0..6).map(|k| [R as f64 + (0.2 + 0.1 * k as f64) * nz as f64 + 0.3, (R + nx / 4) as f64 + 0.5]),
    )?;
    let (mut record, mut traces) = (Array::zeros([steps, nx]), Array::zeros([steps, well.len()]));
    // The source in grid units (the halo counts), spread over the nodes around it with bilinear
    // weights; scaled so the injected amplitude does not depend on the grid: `dt^2 v^2 / h^2`
    // at the source is `c` there.
    let source = Points::try_new([[m.source.0 / H + R as f64, m.source.1 / H + R as f64]])?;
    let scale = f64::from(m.c[source.nodes(0)[0].0]);
    let wavelet = Array::from_fn([steps, 1], |[t, _]| (ricker(t as f64 * DT) * scale) as f32);
    let io = PointIo::new([Boundary::Fixed; 2])
        .inject(&source, 0, wavelet.view())
        .record(&line, 0, record.view_mut())
        .record(&well, 0, traces.view_mut());
    step(&mut state, (&c, &e), io)?;
    Ok((download(state.field(0))?, record, traces))
}

fn on_cpu(m: &Model, steps: usize, parallel: bool) -> Result<Shot2d, Error> {
    shoot::<Cpu>(m, steps, Array::try_clone, Array::try_clone, |state, coefficients, io| {
        if parallel {
            #[cfg(feature = "rayon")]
            return Shot.try_par_apply_steps_with(state, steps, coefficients, (), io);
        }
        Shot.try_apply_steps_with(state, steps, coefficients, (), io)
    })
}

/// The shot of model `m` for `steps` steps on a device: the arrays uploaded, one call per step.
#[cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(dead_code))] // run with a device feature only
struct OnGpu<'m> {
    m: &'m Model,
    steps: usize,
}

impl device::OnDevice for OnGpu<'_> {
    type Out = Shot2d;

    fn on<D>(&self, dev: &D) -> Result<Shot2d, Error>
    where
        D: cnda::kernel::Upload + core::fmt::Debug,
        D::Target: ExprStencilKernels
            + cnda::kernel::CopyKernels
            + cnda::kernel::Download
            + cnda::solve::SolverBackend
            + cnda::kernel::StencilKernels,
    {
        println!("on {dev:?}");
        let steps = self.steps;
        shoot::<D::Target>(
            self.m,
            steps,
            |a| a.try_to_device(dev),
            Array::try_to_host,
            |state, coefficients, io| Shot.try_apply_steps_with(state, steps, coefficients, (), io),
        )
    }
}

/// A signed field as a PNG: blue (negative), white (0), red (positive), clipped at `scale`.
fn write_png(path: &str, a: &Array<f32, 2>, scale: f32) -> Result<(), Box<dyn std::error::Error>> {
    picture::write_png(path, a, |v| {
        let t = (v / scale).clamp(-1.0, 1.0);
        let fade = (255.0 * (1.0 - t.abs())).round() as u8;
        if t >= 0.0 {
            [255, fade, fade]
        } else {
            [fade, fade, 255]
        }
    })
}

fn largest(a: &Array<f32, 2>) -> f32 {
    a.iter().fold(0.0f32, |m, &v| m.max(v.abs()))
}

fn main() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (flags, positional): (Vec<String>, Vec<String>) = args.into_iter().partition(|a| a.starts_with("--"));
    let number = |k: usize, default: usize| {
        positional.get(k).map(|s| s.parse::<usize>()).transpose().map(|v| v.unwrap_or(default))
    };
    let (nz, nx, steps) = (number(0, 300)?, number(1, 400)?, number(2, 1000)?);
    let (field_png, record_png) = (positional.get(3).cloned(), positional.get(4).cloned());
    let check = flags.iter().any(|f| f == "--check");
    let devices: Vec<&String> = flags.iter().filter(|f| *f != "--check").collect();
    if nz < 16 || nx < 16 || devices.len() > 1 || devices.iter().any(|f| *f != "--cuda" && *f != "--wgpu") {
        eprintln!(
            "usage: shot2d [NZ >= 16] [NX >= 16] [STEPS] [WAVEFIELD.png] [RECORD.png] [--cuda | --wgpu] [--check]"
        );
        return Ok(ExitCode::from(2));
    }
    let m = model(nz, nx);
    let vmax = 3500.0_f64;
    println!("{nz} x {nx} cells of {H} m, {steps} steps of {} ms (CFL {:.2}), Ricker {F0} Hz", DT * 1e3, vmax * DT / H);
    let start = Instant::now();
    let (field, record, well) = match devices.first() {
        None => on_cpu(&m, steps, true)?,
        Some(flag) => match device::on_device(flag, "shot2d", "NZ NX STEPS", &OnGpu { m: &m, steps })? {
            Some(run) => run,
            None => return Ok(ExitCode::from(2)),
        },
    };
    let seconds = start.elapsed().as_secs_f64();
    let points = (nz * nx * steps) as f64;
    println!("{seconds:.3} s ({:.3} GPts/s, with the trips and kernel builds on a device)", points / seconds / 1e9);
    let peak = largest(&record);
    println!(
        "record: largest amplitude {peak:.4e}; well: {:.4e}; final wavefield: {:.4e}",
        largest(&well),
        largest(&field)
    );
    assert!(peak.is_finite() && peak > 0.0, "the receivers recorded the shot");
    if let Some(path) = field_png {
        write_png(&path, &field, largest(&field).max(f32::MIN_POSITIVE))?;
    }
    if let Some(path) = record_png {
        // Clipped at a tenth of the peak, so the weaker reflections show.
        write_png(&path, &record, (0.1 * peak).max(f32::MIN_POSITIVE))?;
    }
    if check {
        // On the CPU alone the run above was on every core; the reference is one thread's.
        let (ref_field, ref_record, ref_well) = on_cpu(&m, steps, !devices.is_empty())?;
        let (what, exact) = match devices.first().map(|f| f.as_str()) {
            None => ("fused steps on every core against one thread", true),
            Some("--cuda") => ("CUDA against the CPU", true),
            _ => ("WebGPU against the CPU", false),
        };
        let pairs = record.iter().zip(ref_record.iter()).chain(well.iter().zip(ref_well.iter()));
        let worst = pairs.fold(0.0f32, |w, (a, b)| w.max((a - b).abs()));
        println!("check ({what}): largest record difference {worst:.3e}");
        let same =
            if exact { record == ref_record && well == ref_well && field == ref_field } else { worst <= 1e-4 * peak };
        if !same {
            return Err(format!("{what}: the runs differ (largest record difference {worst:e})").into());
        }
    }
    Ok(ExitCode::SUCCESS)
}
