//! The plane-marching kernel of 3D `stencil!` stencils on CUDA. The point kernel (`codegen.rs`)
//! loads every tap of every point from global memory: 25 loads a point for Devito's SO-8
//! acoustic step, each with its own 64-bit address, which bound it near 24 GPts/s on an H200
//! (docs/BENCHMARKS.md). Here a block of `32 x R` threads covers a tile of the last two axes and
//! walks a run of planes along the first axis. Per field the taps split three ways:
//!
//! - *column* taps (offset `[dz, 0, 0]`) come from registers: each thread keeps its column of the
//!   field from `z + lo` to `z + hi` and loads one new value per plane;
//! - *plane* taps (offset `[0, dy, dx]`) come from shared memory: per plane the block loads its
//!   tile widened by the taps' reach (coalesced rows), once, for all its threads;
//! - any other tap (`[dz, dy, dx]` with both parts nonzero) is a load from global memory, as in
//!   the point kernel.
//!
//! Same expression, same operation order, no fused multiply-adds: bit-identical to the point
//! kernel. Taken for rank 3 where some field is read at more than one point of its column or
//! plane and the tiles fit the shared memory; `CNDA_CUDA_PLANES` tunes it or turns it off. The
//! acoustic step ran 3.6-4.3x faster than with the point kernel: 80 GPts/s at 200^3 and 97-98 at
//! 400^3-512^3 on an H100, 83 and 100-105 on an H200 (docs/BENCHMARKS.md).

use std::sync::OnceLock;

use cudarc::driver::LaunchConfig;

use super::codegen::{prelude, signature, statements, stored};
use super::device::device_error;
use crate::error::Result;
use crate::kernel::expr::{CheckedExpr, Scalar, Tap};

/// The threads of a block along the last axis (one warp: one coalesced row).
const WIDTH: usize = 32;

/// The rows of a block along the middle axis, and the planes each block walks, unless
/// `CNDA_CUDA_PLANES` says otherwise: the fastest of the settings measured for the SO-8 acoustic
/// step at 200^3, 400^3 and 512^3 on an H100 and an H200 (docs/BENCHMARKS.md; 8 rows by 12 and
/// 16 planes within 3% of each other, 4 or 16 rows 1-20% slower, 2 rows 35% slower). Short runs
/// of planes: each block first loads its columns' lower reach (8 values for radius 4), but many
/// blocks hide the memory's latency better than long runs.
const ROWS: usize = 8;
const PLANES: usize = 12;

/// The shared memory a block may take without opting in.
const SHARED_BYTES: usize = 48 * 1024;

/// The most registers a field's column may take (radius 16 along the first axis); a longer
/// column takes the point kernel.
const MOST_REGISTERS: usize = 33;

/// The points from `lo` to `hi` (`None` when the count overflows).
fn span(lo: isize, hi: isize) -> Option<usize> {
    usize::try_from(hi.checked_sub(lo)?).ok()?.checked_add(1)
}

/// How the kernel reaches one field: the span of its column taps (`dz` from `lo` to `hi`), and
/// that of its plane taps along the middle and last axes (`[[dy_min, dy_max], [dx_min, dx_max]]`,
/// the offsets themselves: a tile holds no row or column that no tap reads).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Reach {
    column: Option<[isize; 2]>,
    plane: Option<[[isize; 2]; 2]>,
}

impl Reach {
    /// Whether the kernel saves loads on this field: more than one point of its column or of
    /// its plane.
    fn reuses(&self) -> bool {
        let wide = |[lo, hi]: [isize; 2]| hi > lo;
        self.column.is_some_and(wide) || self.plane.is_some_and(|[y, x]| wide(y) || wide(x))
    }

    /// The registers of the field's column (`None` past any sensible count).
    fn column_len(&self) -> Option<usize> {
        self.column.map_or(Some(0), |[lo, hi]| span(lo, hi).filter(|&n| n <= MOST_REGISTERS))
    }

    /// The rows and columns of the field's shared tile for blocks of `rows` x `WIDTH` (`Some([0,
    /// 0])` without plane taps, `None` past any sensible size).
    fn tile(&self, rows: usize) -> Option<[usize; 2]> {
        let Some([[y0, y1], [x0, x1]]) = self.plane else { return Some([0, 0]) };
        let grow = |n: usize, lo: isize, hi: isize| n.checked_add(span(lo, hi)? - 1);
        Some([grow(rows, y0, y1)?, grow(WIDTH, x0, x1)?])
    }
}

/// Where a tap's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// Register `j` of its field's column (`dz = lo + j`).
    Column(usize),
    /// Its field's shared tile of the current plane.
    Plane,
    /// A load from global memory.
    Global,
}

fn source_of(tap: &Tap<3>) -> Source {
    match tap.offset {
        [_, 0, 0] => Source::Column(0),
        [0, _, _] => Source::Plane,
        _ => Source::Global,
    }
}

/// Each field's reach.
fn reaches(expr: &CheckedExpr<3>) -> Vec<Reach> {
    let mut reach = vec![Reach::default(); expr.fields()];
    let widen = |span: Option<[isize; 2]>, d: isize| span.map_or([d, d], |[lo, hi]| [lo.min(d), hi.max(d)]);
    for tap in expr.taps() {
        let r = &mut reach[tap.field];
        let [dz, dy, dx] = tap.offset;
        match source_of(tap) {
            Source::Column(_) => r.column = Some(widen(r.column, dz)),
            Source::Plane => r.plane = Some([widen(r.plane.map(|p| p[0]), dy), widen(r.plane.map(|p| p[1]), dx)]),
            Source::Global => {}
        }
    }
    reach
}

/// The kernel's tuning: rows per block (`R`, the block is `32 x R` threads) and planes per
/// block (`Z`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Setting {
    Off,
    Blocks { rows: usize, planes: Option<usize> },
}

/// `CNDA_CUDA_PLANES`, read once: unset for the default, `off` for the point kernel, `R` or
/// `R,Z` for blocks of `R` rows walking `Z` planes each (to measure).
fn setting() -> Result<Setting> {
    static TEXT: OnceLock<Option<String>> = OnceLock::new();
    parse(TEXT.get_or_init(|| std::env::var("CNDA_CUDA_PLANES").ok()).as_deref())
}

fn parse(text: Option<&str>) -> Result<Setting> {
    let Some(text) = text.map(str::trim) else { return Ok(Setting::Blocks { rows: ROWS, planes: None }) };
    if text == "off" {
        return Ok(Setting::Off);
    }
    let number = |t: &str| t.trim().parse::<usize>().ok().filter(|&n| n > 0);
    let (rows, planes) = match text.split_once(',') {
        Some((r, z)) => (number(r), number(z).map(Some)),
        None => (number(text), Some(None)),
    };
    match (rows, planes) {
        (Some(rows), Some(planes)) if rows * WIDTH <= 1024 => Ok(Setting::Blocks { rows, planes }),
        _ => Err(device_error(format!(
            "CNDA_CUDA_PLANES is {text:?}; set it to `off` (one thread per point), to `R` (blocks of 32 x R \
             threads, R from 1 to 32) or `R,Z` (each block walking Z planes), or unset it for the default"
        ))),
    }
}

/// How one launch of the plane-marching kernel runs: `rows` per block, `planes` per block
/// (the kernel's last argument), and the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    pub(super) rows: usize,
    pub(super) planes: i64,
    pub(super) config: (u32, u32, u32),
}

impl Plan {
    /// The launch configuration.
    pub(super) fn launch(&self) -> LaunchConfig {
        LaunchConfig { grid_dim: self.config, block_dim: (WIDTH as u32, self.rows as u32, 1), shared_mem_bytes: 0 }
    }
}

/// The plan for `expr` over an output of `shape` in elements of `size` bytes, or `None` when the point kernel serves as well (not rank 3, no reuse, tiles past
/// the shared memory, a grid past the launch limits, or `CNDA_CUDA_PLANES=off`).
///
/// # Errors
///
/// `Error::Device` for a malformed `CNDA_CUDA_PLANES`.
pub(super) fn plan<const N: usize>(expr: &CheckedExpr<N>, shape: &[usize; N], size: usize) -> Result<Option<Plan>> {
    let Setting::Blocks { rows, planes } = setting()? else { return Ok(None) };
    let (Some(expr), Ok(&[nz, ny, nx])) = (as_rank3(expr), <&[usize; 3]>::try_from(shape.as_slice())) else {
        return Ok(None);
    };
    Ok(plan_for(&reaches(expr), [nz, ny, nx], size, rows, planes))
}

/// `expr` as the rank-3 expression it is when `N` is 3.
fn as_rank3<const N: usize>(expr: &CheckedExpr<N>) -> Option<&CheckedExpr<3>> {
    (expr as &dyn core::any::Any).downcast_ref::<CheckedExpr<3>>()
}

fn plan_for(
    reach: &[Reach],
    [nz, ny, nx]: [usize; 3],
    size: usize,
    rows: usize,
    planes: Option<usize>,
) -> Option<Plan> {
    let bytes = |r: &Reach| r.tile(rows).and_then(|[h, w]| h.checked_mul(w)?.checked_mul(size));
    let shared = reach.iter().try_fold(0usize, |sum, r| sum.checked_add(bytes(r)?))?;
    let columns = reach.iter().try_fold(0usize, |sum, r| sum.checked_add(r.column_len()?))?;
    if !reach.iter().any(Reach::reuses) || shared > SHARED_BYTES || columns > 2 * MOST_REGISTERS {
        return None;
    }
    if nz == 0 || ny == 0 || nx == 0 {
        return None;
    }
    let (gx, gy) = (nx.div_ceil(WIDTH), ny.div_ceil(rows));
    let planes = planes.unwrap_or(PLANES).max(nz.div_ceil(65_535)).min(nz);
    let gz = nz.div_ceil(planes);
    let gx = u32::try_from(gx).ok().filter(|&g| g <= i32::MAX as u32)?;
    let gy = u32::try_from(gy).ok().filter(|&g| g <= 65_535)?;
    Some(Plan { rows, planes: planes as i64, config: (gx, gy, gz as u32) })
}

/// The CUDA source of `cnda_expression_planes` for `expr` over fields of `T`, computing in `C`,
/// with blocks of `rows` rows: the point kernel's parameters (`codegen::signature`) and then the
/// planes per block. Registers and tiles hold the fields' values as stored (`S`), widened where
/// a tap reads them.
pub(super) fn source<T: Scalar, C: Scalar, const N: usize>(expr: &CheckedExpr<N>, rows: usize) -> String {
    let expr = as_rank3(expr).expect("the plan takes rank 3 alone");
    let reach = reaches(expr);
    let mut s = prelude::<T, C>();
    // The block's size bounds the registers per thread (a launch of more would fail).
    let threads = WIDTH * rows;
    s.push_str(&signature(expr, "cnda_expression_planes").replacen(
        "__global__ void ",
        &format!("__global__ void __launch_bounds__({threads}) "),
        1,
    ));
    s.push_str(", i64 planes) {\n");
    for (f, r) in reach.iter().enumerate() {
        if let (Some(_), Some([h, w])) = (r.plane, r.tile(rows)) {
            s.push_str(&format!("    __shared__ S s{f}[{h}][{w}];\n"));
        }
    }
    s.push_str(&format!(
        "    const i64 nz = o0.shape[0], ny = o0.shape[1], nx = o0.shape[2];\n    \
         const i64 x0 = (i64)blockIdx.x * {WIDTH}, y0 = (i64)blockIdx.y * {rows};\n    \
         const i64 x = x0 + threadIdx.x, y = y0 + threadIdx.y;\n    \
         const bool active = x < nx && y < ny;\n    \
         const i64 z0 = (i64)blockIdx.z * planes;\n    \
         const i64 z1 = z0 + planes < nz ? z0 + planes : nz;\n"
    ));
    // Each operand's offset at (z0, y, x), and each tiled field's at (z0, 0, 0); all step one
    // plane per iteration.
    let mut offsets = vec![("at".to_string(), "o0".to_string())];
    offsets.extend((1..expr.outputs()).map(|m| (format!("c_o{m}"), format!("o{m}"))));
    offsets.extend((0..expr.fields()).filter(|&f| expr.reads_field(f)).map(|f| (format!("c_d{f}"), format!("d{f}"))));
    let planar: Vec<usize> = (0..reach.len()).filter(|&f| reach[f].plane.is_some()).collect();
    for (name, d) in &offsets {
        s.push_str(&format!(
            "    i64 {name} = {d}.offset + z0 * {d}.strides[0] + y * {d}.strides[1] + x * {d}.strides[2];\n"
        ));
    }
    for &f in &planar {
        s.push_str(&format!("    i64 p_d{f} = d{f}.offset + z0 * d{f}.strides[0];\n"));
    }
    // The columns: register j of field f holds the value at z + lo + j; all but the newest are
    // loaded before the first plane.
    for (f, r) in reach.iter().enumerate() {
        if let Some([lo, hi]) = r.column {
            for j in 0..=(hi - lo) {
                s.push_str(&format!("    S q{f}_{j} = S(0);\n"));
            }
            s.push_str("    if (active) {\n");
            for j in 0..(hi - lo) {
                s.push_str(&format!("        q{f}_{j} = f{f}[c_d{f} + ({}) * d{f}.strides[0]];\n", lo + j));
            }
            s.push_str("    }\n");
        }
    }
    s.push_str("    for (i64 z = z0; z < z1; ++z) {\n");
    for (f, r) in reach.iter().enumerate() {
        if let Some([lo, hi]) = r.column {
            s.push_str(&format!("        if (active) q{f}_{} = f{f}[c_d{f} + ({hi}) * d{f}.strides[0]];\n", hi - lo));
        }
    }
    if !planar.is_empty() {
        // The tiles: every cell some point of the block reads and that lies in the field (below
        // the output's end by at most the reach above: rows and columns past the output's edge
        // are not the field's). The first barrier waits for the last plane's reads.
        s.push_str(&format!(
            "        __syncthreads();\n        for (int idx = threadIdx.y * {WIDTH} + threadIdx.x; ; idx += {}) {{\n            bool more = false;\n",
            WIDTH * rows
        ));
        for &f in &planar {
            let [[ymin, ymax], [xmin, xmax]] = reach[f].plane.expect("planar");
            let [h, w] = reach[f].tile(rows).expect("planned");
            // Tile cell (ly, lx) is the point (y0 + ymin + ly, x0 + xmin + lx): read by a tap
            // of some point of the output when below its last row and column by the taps' reach.
            s.push_str(&format!(
                "            if (idx < {cells}) {{\n                more = true;\n                const int ly = idx / {w}, lx = idx % {w};\n                const i64 gy = y0 + ({ymin}) + ly, gx = x0 + ({xmin}) + lx;\n                if (gy < ny + ({ymax}) && gx < nx + ({xmax})) s{f}[ly][lx] = f{f}[p_d{f} + gy * d{f}.strides[1] + gx * d{f}.strides[2]];\n            }}\n",
                cells = h * w
            ));
        }
        s.push_str("            if (!more) break;\n        }\n        __syncthreads();\n");
    }
    s.push_str("        if (active) {\n");
    for (k, tap) in expr.taps().iter().enumerate() {
        let (f, [dz, dy, dx], r) = (tap.field, tap.offset, reach[tap.field]);
        let value = match source_of(tap) {
            Source::Column(_) => format!("q{f}_{}", dz - r.column.expect("a column tap")[0]),
            Source::Plane => {
                let [[ymin, _], [xmin, _]] = r.plane.expect("a plane tap");
                format!("s{f}[threadIdx.y + {}][threadIdx.x + {}]", dy - ymin, dx - xmin)
            }
            Source::Global => format!("f{f}[c_d{f} + delta{k}]"),
        };
        s.push_str(&format!("            const T t{k} = (T)({value});\n"));
    }
    let (body, values) = statements::<C, 3>(expr, "            ");
    s.push_str(&body);
    for (m, value) in values.iter().enumerate() {
        let at = if m == 0 { "at".to_string() } else { format!("c_o{m}") };
        s.push_str(&format!("            out{m}[{at}] = {};\n", stored::<T, C, 3>(expr, m, value)));
    }
    s.push_str("        }\n");
    // Each column moves one plane on; so do the offsets.
    for (f, r) in reach.iter().enumerate() {
        if let Some([lo, hi]) = r.column {
            for j in 0..(hi - lo) {
                s.push_str(&format!("        q{f}_{j} = q{f}_{};\n", j + 1));
            }
        }
    }
    for (name, d) in &offsets {
        s.push_str(&format!("        {name} += {d}.strides[0];\n"));
    }
    for &f in &planar {
        s.push_str(&format!("        p_d{f} += d{f}.strides[0];\n"));
    }
    s.push_str("    }\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::expr::{Binary, Node};

    fn tap(field: usize, offset: [isize; 3]) -> Tap<3> {
        Tap { field, offset }
    }

    #[test]
    fn taps_split_into_columns_planes_and_loads() {
        let taps = [
            tap(0, [0, 0, 0]),
            tap(0, [-4, 0, 0]),
            tap(0, [2, 0, 0]),
            tap(0, [0, -3, 0]),
            tap(0, [0, 0, 4]),
            tap(0, [0, 1, -1]),
            tap(1, [0, 0, 0]),
            tap(2, [1, 1, 0]),
        ];
        // Every tap, then their sum.
        let mut nodes: Vec<Node> = (0..taps.len()).map(Node::Tap).collect();
        let sum = |k: usize| if k == 1 { 0 } else { taps.len() + k - 2 };
        nodes.extend((1..taps.len()).map(|k| Node::Binary(Binary::Add, sum(k), k)));
        let expr = CheckedExpr::from_parts("test", 3, 0, taps.to_vec(), nodes).unwrap();
        let reach = reaches(&expr);
        assert_eq!(reach[0], Reach { column: Some([-4, 2]), plane: Some([[-3, 1], [-1, 4]]) });
        assert_eq!(reach[1], Reach { column: Some([0, 0]), plane: None });
        assert_eq!(reach[2], Reach::default());
        assert!(reach[0].reuses() && !reach[1].reuses() && !reach[2].reuses());
        assert_eq!(reach[0].tile(8), Some([12, 37]));
        // One side alone: the tile holds the taps' rows and no others; one point is no reuse.
        let one_side = Reach { column: None, plane: Some([[1, 2], [3, 3]]) };
        assert_eq!(one_side.tile(8), Some([9, 32]));
        assert!(one_side.reuses() && !Reach { column: Some([2, 2]), plane: Some([[1, 1], [-1, -1]]) }.reuses());
        assert_eq!(source_of(&taps[7]), Source::Global);
    }

    #[test]
    fn settings_parse_or_say_what_to_set() {
        assert_eq!(parse(None).unwrap(), Setting::Blocks { rows: ROWS, planes: None });
        assert_eq!(parse(Some("off")).unwrap(), Setting::Off);
        assert_eq!(parse(Some(" 16 ")).unwrap(), Setting::Blocks { rows: 16, planes: None });
        assert_eq!(parse(Some("4,32")).unwrap(), Setting::Blocks { rows: 4, planes: Some(32) });
        for bad in ["0", "33", "8,0", "eight", "8,", ",8", ""] {
            let e = parse(Some(bad)).unwrap_err().to_string();
            assert!(e.contains("CNDA_CUDA_PLANES") && e.contains("unset it"), "{bad}: {e}");
        }
    }

    /// The SO-8 acoustic step's field: a column of 9 and a plane tile of 16 x 40 at 8 rows.
    #[test]
    fn plans_take_runs_of_planes_within_the_limits() {
        let acoustic = [Reach { column: Some([-4, 4]), plane: Some([[-4, 4], [-4, 4]]) }, Reach::default()];
        // 200^3: 7 x 25 tiles, 17 runs of 12 planes.
        let p = plan_for(&acoustic, [200, 200, 200], 4, 8, None).unwrap();
        assert_eq!((p.planes, p.config), (12, (7, 25, 17)));
        assert_eq!(p.launch().block_dim, (32, 8, 1));
        // Planes as set, capped by the axis; the launch's z limit raises them.
        assert_eq!(plan_for(&acoustic, [200, 200, 200], 4, 16, Some(500)).unwrap().planes, 200);
        assert_eq!(plan_for(&acoustic, [200_000, 1, 1], 4, 8, Some(1)).unwrap().planes, 4);
        // No reuse, tiles past the shared memory, an empty axis, y past the launch limit: none.
        assert_eq!(plan_for(&[Reach::default()], [9, 9, 9], 4, 8, None), None);
        let wide = Reach { column: None, plane: Some([[-64, 64], [-64, 64]]) };
        assert_eq!(plan_for(&[wide], [9, 9, 9], 8, 8, None), None);
        // Offsets whose spans overflow, columns past the registers: the point kernel.
        let huge = Reach { column: None, plane: Some([[isize::MIN, isize::MAX], [0, 1]]) };
        assert_eq!(plan_for(&[huge], [9, 9, 9], 4, 8, None), None);
        let tall = Reach { column: Some([-20, 20]), plane: None };
        assert_eq!(plan_for(&[tall], [9, 9, 9], 4, 8, None), None);
        assert_eq!(plan_for(&acoustic, [0, 9, 9], 4, 8, None), None);
        assert_eq!(plan_for(&acoustic, [2, 8 * 65_536, 1], 4, 8, None), None);
    }
}
