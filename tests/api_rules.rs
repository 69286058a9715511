//! The one rule for fallible functions, checked over the source (src/lib.rs states it): every
//! public function that returns `Result` is either a `try_` name (whose plain twin panics at the
//! caller's line) or belongs to one of the few kinds whose failure is an ordinary answer the
//! caller cannot rule out beforehand, as std's `File::open`:
//!
//! - lookups by a run-time index or name (`at`, `at_mut`, `field_by_name`), like `get`;
//! - constructors from external data (`from_*`: a `Vec`, a slice, raw memory, another library's
//!   view or a device's memory);
//! - files and streams (`read*`, `write*`, `load`, `save`);
//! - devices: opening one, waiting for one, ordering against another library's stream (the
//!   functions of `backend/*/device.rs`);
//! - text checked or compiled at run time (`check_*`, `validate`, `compile*`, `source`,
//!   `checked_len`).
//!
//! A new public function returning `Result` under a plain name fails this test: give it a `try_`
//! name and a panicking twin, or extend the rule here and in src/lib.rs with a reason.

use std::path::Path;

/// Whether `name`, defined in `file`, may return `Result` under a plain name.
fn allowed(file: &str, name: &str) -> bool {
    let lookup = matches!(name, "at" | "at_mut" | "field_by_name");
    let external = name.starts_with("from_");
    let io = name.starts_with("read") || name.starts_with("write") || matches!(name, "load" | "save");
    let device = file.ends_with("/device.rs") && file.contains("src/backend/");
    let text = name == "check"
        || name.starts_with("check_")
        || name.starts_with("compile")
        || name.ends_with("_source")
        || name.ends_with("_shader")
        || matches!(name, "validate" | "source" | "checked_len");
    lookup || external || io || device || text
}

/// The public functions of `source` (outside its `#[cfg(test)]` module) with their return types.
fn public_functions(source: &str) -> Vec<(String, String)> {
    let source = source.split("#[cfg(test)]").next().unwrap_or(source);
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = source[at..].find("pub ") {
        let start = at + found;
        at = start + 4;
        let rest = &source[at..];
        let rest = rest.strip_prefix("const ").unwrap_or(rest);
        let rest = rest.strip_prefix("unsafe ").unwrap_or(rest);
        let Some(rest) = rest.strip_prefix("fn ") else { continue };
        // In a macro, the metavariable's own name counts (`pub fn $try_op(..) -> Result<..>`).
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
        let name = name.trim_start_matches('$').to_string();
        // The signature runs to the first `{` or `;` outside brackets (`[usize; N]` has one).
        let sig_start = source.len() - rest.len();
        let mut depth = 0i32;
        let mut end = sig_start;
        while end < bytes.len() {
            match bytes[end] {
                b'(' | b'[' | b'<' => depth += 1,
                b'>' if bytes[end - 1] != b'-' => depth -= 1,
                b')' | b']' => depth -= 1,
                b'{' | b';' if depth <= 0 => break,
                _ => {}
            }
            end += 1;
        }
        let signature = &source[sig_start..end];
        let returns = signature.rsplit_once("->").map(|(_, r)| r.split(" where").next().unwrap_or(r).trim());
        out.push((name, returns.unwrap_or("").to_string()));
    }
    out
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn plain_names_return_result_only_where_the_rule_allows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let mut outside = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        for (name, returns) in public_functions(&text) {
            let result = [
                "Result<",
                "Result ",
                "crate::Result",
                "crate::error::Result",
                "core::result::Result",
                "std::result::Result",
            ]
            .iter()
            .any(|r| returns.starts_with(r) || returns.starts_with(&r.replace("crate::", "")))
                || returns == "Result";
            if !result {
                continue;
            }
            checked += 1;
            if !name.starts_with("try_") && !allowed(&shown, &name) {
                outside.push(format!("{shown}: `{name}` returns {returns}"));
            }
        }
    }
    assert!(checked > 100, "the scan found only {checked} functions returning Result: is it still reading src/?");
    assert!(
        outside.is_empty(),
        "public functions returning Result under a plain name, outside the rule of src/lib.rs:\n  {}\n\
         rename to `try_...` with a panicking plain twin, or extend the rule (with its reason) there and here",
        outside.join("\n  ")
    );
}

#[test]
fn the_scanner_reads_signatures_with_array_types() {
    let found = public_functions(
        "pub fn from_shape_vec(shape: [usize; N], data: Vec<T>) -> Result<Self> {}\n\
         pub(crate) fn hidden() -> Result<()> {}\n\
         pub unsafe fn reshape<const M: usize>(self, s: [usize; M]) -> View<'a, T, M> where L: Layout { }\n\
         pub fn $try_op<R: Operand<T, N, B>>(&self, rhs: R) -> Result<R::Output> {",
    );
    assert_eq!(found[0], ("from_shape_vec".to_string(), "Result<Self>".to_string()));
    assert_eq!(found[1], ("reshape".to_string(), "View<'a, T, M>".to_string()));
    assert_eq!(found[2], ("try_op".to_string(), "Result<R::Output>".to_string()));
    assert_eq!(found.len(), 3);
}
