//! What the time stepper's system tests share (`stencil_systems.rs`, `stencil_stages.rs`,
//! `step_points.rs`): running a step sequentially or on a pool, and a deterministic field.

use cnda::prelude::*;

/// Runs `step(false)` (sequential), or `step(true)` (its `par_` form) on `threads` of a pool.
pub fn on_threads(threads: usize, step: impl FnOnce(bool) + Send) {
    #[cfg(feature = "rayon")]
    if threads > 1 {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        return super::pool_install::install(&pool, || step(true));
    }
    let _ = threads;
    step(false)
}

/// A field of `shape` with values from -0.7 to 0.675 in steps of 1/16, varying with `seed`.
pub fn field(shape: [usize; 2], seed: u64) -> Array<f64, 2> {
    Array::from_fn(shape, move |[i, j]| ((i as u64 * 31 + j as u64 * 17 + seed) % 23) as f64 * 0.0625 - 0.7)
}
