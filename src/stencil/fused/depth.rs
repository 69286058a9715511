//! How many sweeps one fused pass takes. A pass of `k` sweeps keeps about `(k + 1) R`
//! hyperplanes of every field it reads in flight (the wavefront's window, `mod.rs`); the pass pays
//! off while that window stays in a core's level-2 cache, and past it each deeper sweep adds
//! traffic instead of saving it (measured in `benches/fused_depth.rs`, 64 steps: a 3D radius-4
//! `f32` stencil on 200^3 ran fastest one sweep per pass, 1.16x faster than all 64 in one pass on
//! one thread, 1.57x on two; a 2D radius-1 `f64` stencil on 4096^2 fastest at 8-16, 1.34x and
//! 1.09x faster than 64). So `apply_steps` cuts its sweeps into passes whose window fits half the
//! level-2 cache, each pass the fused wavefront, together bit for bit the same sweeps.
//! `CNDA_FUSED_DEPTH=k` sets the depth instead (to measure, or for a machine whose caches Linux
//! misreports).

use std::sync::OnceLock;

use crate::error::{Error, Result};

/// The sweeps per pass, at most `steps` and at least 1, for `fields` fields (the two the sweeps
/// alternate between, and those every sweep reads) of `hyperplane` bytes per hyperplane of axis
/// 0, at radius `radius` along it.
///
/// # Errors
///
/// `Error::Decomposition` when `CNDA_FUSED_DEPTH` is set but is not a positive number.
pub(super) fn pass_depth(
    op: &'static str,
    hyperplane: usize,
    fields: usize,
    radius: usize,
    steps: usize,
) -> Result<usize> {
    let depth = match setting(op)? {
        Some(depth) => depth,
        // Half the cache: the rest holds what streams through (the hyperplanes being written
        // back, the next ones arriving).
        None => fitting(crate::caches::level_2() / 2, hyperplane, fields, radius),
    };
    Ok(depth.clamp(1, steps.max(1)))
}

/// The interior points one call should at least compute: below, a call's fixed cost (measured
/// about 0.3 us on the CPU: the operands' regions, the kernel's set-up) is a sizeable part of
/// it (a 2D radius-4 wave on 300 x 400 ran 1.7x slower a hyperplane at a time).
const POINTS_PER_CALL: usize = 4096;

/// The most hyperplanes of a block: more would only widen the pass's window.
const MOST_ROWS: usize = 64;

/// The hyperplanes of axis 0 the wavefront computes per call for hyperplanes of `points`
/// interior points each (the plan caps it at the interior's hyperplanes): enough for `POINTS_PER_CALL` (`CNDA_FUSED_BLOCK` sets it).
///
/// # Errors
///
/// `Error::Decomposition` for a `CNDA_FUSED_BLOCK` that is not a positive integer.
pub(super) fn block_rows(op: &'static str, points: usize) -> Result<usize> {
    static SETTING: OnceLock<Option<String>> = OnceLock::new();
    let text = SETTING.get_or_init(|| std::env::var("CNDA_FUSED_BLOCK").ok());
    Ok(match parse_named(op, "CNDA_FUSED_BLOCK", text.as_deref())? {
        Some(rows) => rows,
        None => POINTS_PER_CALL.div_ceil(points.max(1)).clamp(1, MOST_ROWS),
    })
}

/// The deepest pass whose window, `(depth + 1) * radius` hyperplanes of each field, fits `cache`
/// bytes; at least 1.
fn fitting(cache: usize, hyperplane: usize, fields: usize, radius: usize) -> usize {
    let per_sweep = hyperplane.saturating_mul(fields).saturating_mul(radius.max(1)).max(1);
    (cache / per_sweep).saturating_sub(1).max(1)
}

/// `CNDA_FUSED_DEPTH`, read once.
fn setting(op: &'static str) -> Result<Option<usize>> {
    static SETTING: OnceLock<Option<String>> = OnceLock::new();
    let text = SETTING.get_or_init(|| std::env::var("CNDA_FUSED_DEPTH").ok());
    parse(op, text.as_deref())
}

fn parse(op: &'static str, text: Option<&str>) -> Result<Option<usize>> {
    parse_named(op, "CNDA_FUSED_DEPTH", text)
}

/// The positive integer an environment variable `name` of the fused stepper holds, if set.
fn parse_named(op: &'static str, name: &str, text: Option<&str>) -> Result<Option<usize>> {
    let Some(text) = text else { return Ok(None) };
    match text.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        _ => Err(Error::Decomposition {
            op,
            reason: format!(
                "{name} is {text:?}, not a positive number (CNDA_FUSED_DEPTH: sweeps per fused pass; \
                 CNDA_FUSED_BLOCK: hyperplanes per call)"
            ),
            fix: "set it to a positive integer (1 runs one at a time), or unset it to fit the caches",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_fits_the_cache() {
        // 2D f64 rows of 4096, radius 1, two fields, 2 MiB: 31 sweeps (32 windows of 64 KiB).
        assert_eq!(fitting(2 << 20, 4096 * 8, 2, 1), 31);
        // 3D f32 planes of 200^2, radius 4: one window is 1.28 MB, so one sweep per pass.
        assert_eq!(fitting(2 << 20, 200 * 200 * 4, 2, 4), 1);
        // Coefficient fields count; a zero radius counts as one; nothing divides by zero.
        assert_eq!(fitting(2 << 20, 4096 * 8, 4, 1), 15);
        assert_eq!(fitting(1 << 20, 1024, 2, 0), 511);
        assert_eq!(fitting(0, 0, 0, 0), 1);
        assert_eq!(fitting(usize::MAX, usize::MAX, usize::MAX, usize::MAX), 1);
    }

    #[test]
    fn the_setting_is_a_positive_number_or_an_error() {
        assert_eq!(parse("op", None).unwrap(), None);
        assert_eq!(parse("op", Some(" 8\n")).unwrap(), Some(8));
        for bad in ["0", "-1", "eight", ""] {
            let e = parse("op", Some(bad)).unwrap_err().to_string();
            assert!(e.contains("CNDA_FUSED_DEPTH") && e.contains("unset it"), "{e}");
            let e = parse_named("op", "CNDA_FUSED_BLOCK", Some(bad)).unwrap_err().to_string();
            assert!(e.contains("CNDA_FUSED_BLOCK is") && e.contains("hyperplanes per call"), "{e}");
        }
    }
}
