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
    /// Whether the family has shaders for complex element types.
    pub complex: bool,
}

const fn family_of(name: &'static str, source: &'static str, integers: bool, complex: bool) -> Family {
    Family { name, source, integers, complex }
}

/// Every shader family.
pub const FAMILIES: [Family; 7] = [
    family_of("elementwise", include_str!("../../../kernels/wgpu/elementwise.wgsl"), true, true),
    family_of("copy", include_str!("../../../kernels/wgpu/copy.wgsl"), true, false),
    family_of("reduce", include_str!("../../../kernels/wgpu/reduce.wgsl"), true, true),
    family_of("matmul", include_str!("../../../kernels/wgpu/matmul.wgsl"), true, true),
    family_of("stencil", include_str!("../../../kernels/wgpu/stencil.wgsl"), false, false),
    family_of("sparse", include_str!("../../../kernels/wgpu/sparse.wgsl"), false, false),
    family_of("fft", include_str!("../../../kernels/wgpu/fft.wgsl"), false, false),
];

/// The element types shaders are assembled for: WGSL's 32-bit float and signed integer, `f64`
/// and `f16` for adapters with those features (`WgpuDevice::supports`), and the complex types
/// `c64` and `c128` (`vec2<f32>`, `vec2<f64>`: real part first, as `Complex<f32/f64>`).
pub const ELEMENTS: [&str; 6] = ["f32", "i32", "f64", "f16", "c64", "c128"];

/// What an element type has, for the sections of a shader file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Integer,
    /// A float type; `transcendental` where Vulkan has its exp, log, sin ... (f32 and f16, not
    /// f64: GLSL.std.450 defines them for 16- and 32-bit floats only).
    Float {
        transcendental: bool,
    },
    /// A complex type: two floats, with arithmetic of its own and no order; `transcendental`
    /// as for its part type.
    Complex {
        transcendental: bool,
    },
}

impl Kind {
    fn of(elem: &str) -> Kind {
        match elem {
            "i32" => Kind::Integer,
            "f64" => Kind::Float { transcendental: false },
            "c64" => Kind::Complex { transcendental: true },
            "c128" => Kind::Complex { transcendental: false },
            _ => Kind::Float { transcendental: true },
        }
    }
}

/// The WGSL type of element type `elem`, and of its parts (`PART`: the type itself for a real
/// one).
fn wgsl_types(elem: &str) -> (&'static str, &'static str) {
    match elem {
        "c64" => ("vec2<f32>", "f32"),
        "c128" => ("vec2<f64>", "f64"),
        "i32" => ("i32", "i32"),
        "f64" => ("f64", "f64"),
        "f16" => ("f16", "f16"),
        _ => ("f32", "f32"),
    }
}

/// The family named `name`.
pub(crate) fn family(name: &str) -> &'static Family {
    FAMILIES.iter().find(|f| f.name == name).expect("a family of FAMILIES")
}

/// `text` with its `//@each` / `//@float` / `//@transcendental` / `//@real` / `//@complex` /
/// `//@complex-transcendental` sections expanded for an element type of `kind` (in an `//@each`
/// list, names after a `|` are for real floats only, names after a second `|` need
/// transcendental functions, and a name marked `!` is for real types only). Sections do not
/// nest.
fn expand(text: &str, kind: Kind) -> String {
    let complex = matches!(kind, Kind::Complex { .. });
    let float = matches!(kind, Kind::Float { .. });
    let transcendental = kind == Kind::Float { transcendental: true };
    let complex_transcendental = kind == Kind::Complex { transcendental: true };
    let mut out = String::with_capacity(text.len() * 4);
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let section = if let Some(names) = line.strip_prefix("//@each ") {
            Some((names, true))
        } else if line.trim_end() == "//@float" {
            Some(("", float))
        } else if line.trim_end() == "//@transcendental" {
            Some(("", transcendental))
        } else if line.trim_end() == "//@real" {
            Some(("", !complex))
        } else if line.trim_end() == "//@complex" {
            Some(("", complex))
        } else if line.trim_end() == "//@complex-transcendental" {
            Some(("", complex_transcendental))
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
                let name = match name.strip_prefix('!') {
                    Some(_) if complex => continue,
                    Some(real_only) => real_only,
                    None => name,
                };
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
    let lacking = match kind {
        Kind::Integer => !family.integers,
        Kind::Complex { .. } => !family.complex,
        Kind::Float { .. } => false,
    };
    if !ELEMENTS.contains(&elem) || lacking {
        return Err(Error::UnsupportedDType {
            op: "wgpu shader",
            got: elem.into(),
            fix: "WebGPU shaders here take f32, f64, f16 (where the adapter has them), i32 (not for stencils), and complex elements for elementwise ops, sums and matmul; convert first",
        });
    }
    // f16 must be enabled before any declaration; f64 needs no directive in wgpu's WGSL.
    let enable = if elem == "f16" { "enable f16;\n" } else { "" };
    let unit = format!("{enable}{COMMON}\n{}", expand(family.source, kind));
    let (ty, part) = wgsl_types(elem);
    Ok(unit.replace("ELEM", ty).replace("PART", part))
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
        let text = "//@each a !b | q\nNAME\n//@end\n//@real\nr\n//@end\n//@complex\nc\n//@end\n//@complex-transcendental\nt\n//@end\n";
        assert_eq!(expand(text, Kind::of("c64")), "a\nc\nt\n");
        assert_eq!(expand(text, Kind::of("c128")), "a\nc\n");
        assert_eq!(expand(text, f32), "a\nb\nq\nr\n");
        assert_eq!(expand(text, Kind::of("i32")), "a\nb\nr\n");
    }
}
