//! The WGSL shader sources (`kernels/wgpu/*.wgsl`, one file per op family) and their assembly for one
//! element type: `kernels/wgpu/common.wgsl` first, `ELEM` replaced by the type, and the files'
//! `//@each` / `//@float` sections expanded (WGSL has no macros or templates). Every assembled
//! shader is validated by naga in the tests, so a broken shader fails `cargo test` even where no
//! adapter exists.

use crate::error::{Error, Result};

/// The parameter-block header every shader starts with.
pub const COMMON: &str = include_str!("../../../kernels/wgpu/common.wgsl");

/// One op family's shader file.
#[derive(Clone, Copy, Debug)]
pub struct Family {
    /// The family's name (the file's stem).
    pub name: &'static str,
    source: &'static str,
    /// Whether the family has shaders for integer element types.
    pub integers: bool,
}

/// Every shader family.
pub const FAMILIES: [Family; 7] = [
    Family { name: "elementwise", source: include_str!("../../../kernels/wgpu/elementwise.wgsl"), integers: true },
    Family { name: "copy", source: include_str!("../../../kernels/wgpu/copy.wgsl"), integers: true },
    Family { name: "reduce", source: include_str!("../../../kernels/wgpu/reduce.wgsl"), integers: true },
    Family { name: "matmul", source: include_str!("../../../kernels/wgpu/matmul.wgsl"), integers: true },
    Family { name: "stencil", source: include_str!("../../../kernels/wgpu/stencil.wgsl"), integers: false },
    Family { name: "sparse", source: include_str!("../../../kernels/wgpu/sparse.wgsl"), integers: false },
    Family { name: "fft", source: include_str!("../../../kernels/wgpu/fft.wgsl"), integers: false },
];

/// The element types shaders are assembled for: WGSL's 32-bit float and signed integer, and
/// `f64` and `f16` for adapters with those features (`WgpuDevice::supports`).
pub const ELEMENTS: [&str; 4] = ["f32", "i32", "f64", "f16"];

/// What an element type has, for the sections of a shader file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Integer,
    /// A float type; `transcendental` where Vulkan has its exp, log, sin ... (f32 and f16, not
    /// f64: GLSL.std.450 defines them for 16- and 32-bit floats only).
    Float {
        transcendental: bool,
    },
}

impl Kind {
    fn of(elem: &str) -> Kind {
        match elem {
            "i32" => Kind::Integer,
            "f64" => Kind::Float { transcendental: false },
            _ => Kind::Float { transcendental: true },
        }
    }
}

/// The family named `name`.
pub(crate) fn family(name: &str) -> &'static Family {
    FAMILIES.iter().find(|f| f.name == name).expect("a family of FAMILIES")
}

/// `text` with its `//@each` / `//@float` / `//@transcendental` sections expanded for an element
/// type of `kind` (in an `//@each` list, names after a `|` are float-only, and names after a
/// second `|` need transcendental functions).
fn expand(text: &str, kind: Kind) -> String {
    let float = kind != Kind::Integer;
    let transcendental = kind == Kind::Float { transcendental: true };
    let mut out = String::with_capacity(text.len() * 4);
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let section = if let Some(names) = line.strip_prefix("//@each ") {
            Some((names, true))
        } else if line.trim_end() == "//@float" {
            Some(("", float))
        } else if line.trim_end() == "//@transcendental" {
            Some(("", transcendental))
        } else {
            None
        };
        let Some((names, keep)) = section else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim_end() != "//@end").collect();
        if !keep {
            continue;
        }
        let body = block.join("\n") + "\n";
        if names.trim().is_empty() {
            out.push_str(&body);
        } else {
            let mut groups = names.split('|');
            let all = groups.next().unwrap_or("").split_whitespace();
            let floats = groups.next().unwrap_or("").split_whitespace().filter(|_| float);
            let transcendentals = groups.next().unwrap_or("").split_whitespace().filter(|_| transcendental);
            for name in all.chain(floats).chain(transcendentals) {
                out.push_str(&body.replace("NAME", name));
            }
        }
    }
    out
}

/// The complete shader of `family` for element type `elem` (one of [`ELEMENTS`]).
///
/// # Errors
///
/// `Error::UnsupportedDType` for another element type, or an integer type for a float-only family.
pub fn source(family: &Family, elem: &str) -> Result<String> {
    let kind = Kind::of(elem);
    if !ELEMENTS.contains(&elem) || (kind == Kind::Integer && !family.integers) {
        return Err(Error::UnsupportedDType {
            op: "wgpu shader",
            got: elem.into(),
            fix: "WebGPU shaders here take f32, f64, f16 (where the adapter has them) and i32 (not for stencils); convert first",
        });
    }
    // f16 must be enabled before any declaration; f64 needs no directive in wgpu's WGSL.
    let enable = if elem == "f16" { "enable f16;\n" } else { "" };
    let unit = format!("{enable}{COMMON}\n{}", expand(family.source, kind));
    Ok(unit.replace("ELEM", elem))
}

/// Parses and validates WGSL `source` with naga, as wgpu does before creating a pipeline.
///
/// # Errors
///
/// `Error::Device` with naga's message.
pub fn validate(name: &str, source: &str) -> Result<()> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| Error::Device {
        backend: "wgpu",
        message: format!("{name}: WGSL does not parse: {}", e.emit_to_string(source)),
    })?;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities()).validate(&module).map_err(
        |e| Error::Device {
            backend: "wgpu",
            message: format!("{name}: WGSL does not validate: {}", e.emit_to_string(source)),
        },
    )?;
    Ok(())
}

/// What the validator allows: what cnda asks of an adapter at most (f64 and f16 are only used
/// where the adapter has them).
fn capabilities() -> naga::valid::Capabilities {
    naga::valid::Capabilities::FLOAT64 | naga::valid::Capabilities::SHADER_FLOAT16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_expand_per_name_and_per_kind() {
        let text = "a\n//@each x y | q | e\nfn f_NAME() {}\n//@end\n//@float\nfloat only\n//@end\n//@transcendental\nexp\n//@end\nz\n";
        let f32 = Kind::of("f32");
        assert_eq!(expand(text, f32), "a\nfn f_x() {}\nfn f_y() {}\nfn f_q() {}\nfn f_e() {}\nfloat only\nexp\nz\n");
        assert_eq!(expand(text, Kind::of("f64")), "a\nfn f_x() {}\nfn f_y() {}\nfn f_q() {}\nfloat only\nz\n");
        assert_eq!(expand(text, Kind::of("i32")), "a\nfn f_x() {}\nfn f_y() {}\nz\n");
        assert_eq!(expand(text, Kind::of("f16")), expand(text, f32));
    }
}
