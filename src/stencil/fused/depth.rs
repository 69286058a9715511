//! How many sweeps one fused pass takes. A pass of `k` sweeps keeps about `(k + 1) R`
//! hyperplanes of every field it reads in flight (the wavefront's window, `mod.rs`). Where that
//! window should fit depends on the machine: on an Intel Xeon (4 MiB of L2 for two cores) passes
//! whose window fit half the level-2 cache ran fastest, and deeper ones only added traffic (a 3D
//! radius-4 `f32` stencil on 200^3 fastest one sweep per pass, 1.16x faster than all 64 in one
//! pass on one thread); on an AMD EPYC (1 MiB of L2 per core, 32 MiB of L3) windows that fit the
//! level-3 cache ran 1.12-1.43x faster than the level-2 rule's (`benches/fused_depth.rs`,
//! docs/BENCHMARKS.md). So the level-2 rule gives the first depth, the last-level cache the
//! deepest worth trying (the same depth when both give one), and `tune.rs` measures the depths
//! between on the passes themselves.
//! `CNDA_FUSED_DEPTH=k` sets the depth instead (to measure, or to take timing out of a run),
//! and `CNDA_FUSED_TUNE=off` keeps the first depth (`show` writes each finished search's
//! timings and choice to standard error).

use std::sync::OnceLock;

use crate::error::{Error, Result};

/// The sweeps per pass for `fields` fields (the ones the sweeps alternate between, and those
/// every sweep reads) of `hyperplane` bytes per hyperplane of axis 0, at radius `radius` along it:
/// the depth to start with and the deepest worth trying (both at least 1; equal when
/// `CNDA_FUSED_DEPTH` sets the depth or `CNDA_FUSED_TUNE=off`).
///
/// # Errors
///
/// `Error::Decomposition` when `CNDA_FUSED_DEPTH` is set but is not a positive number.
pub(super) fn pass_depths(op: &'static str, hyperplane: usize, fields: usize, radius: usize) -> Result<(usize, usize)> {
    if let Some(depth) = setting(op)? {
        return Ok((depth, depth));
    }
    // Half the cache: the rest holds what streams through (the hyperplanes being written back,
    // the next ones arriving).
    let first = fitting(crate::caches::level_2() / 2, hyperplane, fields, radius);
    if tuning(op)? == Tuning::Off {
        return Ok((first, first));
    }
    // The whole last-level cache: the window counts every field's `(k + 1) R` hyperplanes, more
    // than a pass keeps hot at once (two threads sharing one wavefront on the AMD EPYC ran the
    // 3D acoustic wave 1.04x faster at 8 sweeps a pass, a window of 25 MB, than at 4).
    let most = fitting(crate::caches::last_level(), hyperplane, fields, radius);
    Ok((first, most.max(first)))
}

/// Whether the depths are measured, as `CNDA_FUSED_TUNE` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tuning {
    /// `off`, `0`, `no` or `false`: the level-2 rule's depth.
    Off,
    /// Unset, or `on`, `1`, `yes` or `true`: measured.
    On,
    /// `show`: measured, and each finished search's timings and choice written to standard
    /// error.
    Show,
}

/// [`Tuning`] as `CNDA_FUSED_TUNE` sets it (read once).
///
/// # Errors
///
/// `Error::Decomposition` for any other value (a typo must not silently keep the default).
pub(super) fn tuning(op: &'static str) -> Result<Tuning> {
    static SETTING: OnceLock<Option<String>> = OnceLock::new();
    let text = SETTING.get_or_init(|| std::env::var("CNDA_FUSED_TUNE").ok());
    parse_tuning(op, text.as_deref())
}

fn parse_tuning(op: &'static str, text: Option<&str>) -> Result<Tuning> {
    let Some(text) = text else { return Ok(Tuning::On) };
    match text.trim().to_ascii_lowercase().as_str() {
        "on" | "1" | "yes" | "true" => Ok(Tuning::On),
        "off" | "0" | "no" | "false" => Ok(Tuning::Off),
        "show" => Ok(Tuning::Show),
        _ => Err(Error::Decomposition {
            op,
            reason: format!(
                "CNDA_FUSED_TUNE is {text:?}, not on, off or show (whether the fused steps time their \
                 passes to choose how many sweeps each takes)"
            ),
            fix: "set it to on, off or show, or unset it to measure the depth",
        }),
    }
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
    fn the_tuning_setting_is_on_off_show_or_an_error() {
        assert_eq!(parse_tuning("op", None).unwrap(), Tuning::On);
        assert_eq!(parse_tuning("op", Some(" OFF\n")).unwrap(), Tuning::Off);
        assert_eq!(parse_tuning("op", Some("0")).unwrap(), Tuning::Off);
        assert_eq!(parse_tuning("op", Some("yes")).unwrap(), Tuning::On);
        assert_eq!(parse_tuning("op", Some("show")).unwrap(), Tuning::Show);
        for bad in ["of", "", "2", "verbose"] {
            let e = parse_tuning("op", Some(bad)).unwrap_err().to_string();
            assert!(e.contains("CNDA_FUSED_TUNE is") && e.contains("on, off or show"), "{e}");
        }
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
