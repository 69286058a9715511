//! The WGSL shader sources (`kernels/*.wgsl`, one file per op family) and their assembly for one
//! element type: `kernels/common.wgsl` first, `ELEM` replaced by the type, and the files'
//! `//@each` / `//@float` sections expanded (WGSL has no macros or templates). Every assembled
//! shader is validated by naga in the tests, so a broken shader fails `cargo test` even where no
//! adapter exists.

use crate::error::{Error, Result};

/// The parameter-block header every shader starts with.
pub const COMMON: &str = include_str!("../../../kernels/common.wgsl");

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
pub const FAMILIES: [Family; 5] = [
    Family { name: "elementwise", source: include_str!("../../../kernels/elementwise.wgsl"), integers: true },
    Family { name: "copy", source: include_str!("../../../kernels/copy.wgsl"), integers: true },
    Family { name: "reduce", source: include_str!("../../../kernels/reduce.wgsl"), integers: true },
    Family { name: "matmul", source: include_str!("../../../kernels/matmul.wgsl"), integers: true },
    Family { name: "stencil", source: include_str!("../../../kernels/stencil.wgsl"), integers: false },
];

/// The element types shaders are assembled for (WGSL's 32-bit float and signed integer).
pub const ELEMENTS: [&str; 2] = ["f32", "i32"];

/// The family named `name`.
pub(crate) fn family(name: &str) -> &'static Family {
    FAMILIES.iter().find(|f| f.name == name).expect("a family of FAMILIES")
}

/// `text` with its `//@each` / `//@each-float` / `//@float` sections expanded for a floating-point
/// (`float`) or integer element type (in an `//@each` list, names after a `|` are float-only).
fn expand(text: &str, float: bool) -> String {
    let mut out = String::with_capacity(text.len() * 4);
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let section = if let Some(names) = line.strip_prefix("//@each-float ") {
            Some((names, float))
        } else if let Some(names) = line.strip_prefix("//@each ") {
            Some((names, true))
        } else if line.trim_end() == "//@float" {
            Some(("", float))
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
            // Names after a `|` are for floating-point element types only.
            let (all, floats) = names.split_once('|').unwrap_or((names, ""));
            let chosen = all.split_whitespace().chain(floats.split_whitespace().filter(|_| float));
            for name in chosen {
                out.push_str(&body.replace("NAME", name));
            }
        }
    }
    out
}

/// The complete shader of `family` for element type `elem` (`"f32"` or `"i32"`).
///
/// # Errors
///
/// `Error::UnsupportedDType` for another element type, or an integer type for a float-only family.
pub fn source(family: &Family, elem: &str) -> Result<String> {
    let float = elem == "f32";
    if !ELEMENTS.contains(&elem) || (!float && !family.integers) {
        return Err(Error::UnsupportedDType {
            op: "wgpu shader",
            got: elem.into(),
            fix: "WebGPU shaders here take f32 (and i32 for the non-stencil families); convert first",
        });
    }
    let unit = format!("{COMMON}\n{}", expand(family.source, float));
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
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
        .validate(&module)
        .map_err(|e| Error::Device {
            backend: "wgpu",
            message: format!("{name}: WGSL does not validate: {}", e.emit_to_string(source)),
        })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_expand_per_name_and_per_kind() {
        let text = "a\n//@each x y | q\nfn f_NAME() {}\n//@end\n//@each-float p\nfn g_NAME() {}\n//@end\n//@float\nfloat only\n//@end\nz\n";
        assert_eq!(expand(text, true), "a\nfn f_x() {}\nfn f_y() {}\nfn f_q() {}\nfn g_p() {}\nfloat only\nz\n");
        assert_eq!(expand(text, false), "a\nfn f_x() {}\nfn f_y() {}\nz\n");
    }
}
