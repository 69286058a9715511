//! The Python docstrings, from the type stubs (`cnda.pyi`, the one place they are written): the
//! module's (`module.txt`), each function's (`def.stencil.txt`), class's (`class.Stencil.txt`)
//! and method's (`def.Stencil.steps.txt`), dedented as `inspect.cleandoc` does, written to
//! `$OUT_DIR/doc/` (the first of overloads). The kind in the name keeps `stencil` and `Stencil`
//! apart on filesystems that ignore case. Rust items take theirs with
//! `#[doc = include_str!(concat!(env!("OUT_DIR"), "/doc/def.stencil.txt"))]`, so
//! `help(cnda.stencil)` shows what the stubs say.

use std::collections::HashSet;
use std::path::Path;
use std::{env, fs};

fn main() {
    let stubs = "cnda.pyi";
    println!("cargo:rerun-if-changed={stubs}");
    println!("cargo:rerun-if-changed=build.rs");
    let text = fs::read_to_string(stubs).expect("python/cnda.pyi is readable");
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("doc");
    fs::create_dir_all(&out).expect("OUT_DIR is writable");
    let mut written = HashSet::new();
    for (name, doc) in docstrings(&text) {
        if written.insert(name.clone()) {
            fs::write(out.join(format!("{name}.txt")), doc).expect("OUT_DIR is writable");
        }
    }
}

/// Every docstring of the stubs with the name it documents ("module" for the file's own).
fn docstrings(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    if let Some((doc, _)) = lines.first().and_then(|_| docstring(&lines, 0)) {
        found.push(("module".to_string(), doc));
    }
    let mut class: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let body = line.trim_start();
        let top = body.len() == line.len();
        let name = if let Some(rest) = body.strip_prefix("class ") {
            let name = identifier(rest);
            class = Some(name.clone());
            Some(format!("class.{name}"))
        } else if let Some(rest) = body.strip_prefix("def ") {
            let name = identifier(rest);
            match top {
                true => {
                    class = None;
                    Some(format!("def.{name}"))
                }
                false => class.as_ref().map(|c| format!("def.{c}.{name}")),
            }
        } else {
            if top && !body.is_empty() && !body.starts_with('@') && !body.starts_with('#') {
                class = None;
            }
            None
        };
        let Some(name) = name else {
            i += 1;
            continue;
        };
        let Some(end) = header_end(&lines, i) else {
            i += 1;
            continue;
        };
        match docstring(&lines, end + 1) {
            Some((doc, after)) => {
                found.push((name, doc));
                i = after;
            }
            None => i = end + 1,
        }
    }
    found
}

/// The name at the start of `rest` (a `def`'s or `class`'s).
fn identifier(rest: &str) -> String {
    rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// The line ending the header that starts at line `i` (brackets closed, a final `:`), or `None`
/// for a one-line definition (`def f(self) -> int: ...`).
fn header_end(lines: &[&str], i: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (j, line) in lines.iter().enumerate().skip(i) {
        for c in line.chars() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                _ => {}
            }
        }
        let line = line.trim_end();
        if depth == 0 && line.ends_with("...") {
            return None;
        }
        if depth == 0 && line.ends_with(':') {
            return Some(j);
        }
    }
    None
}

/// The docstring opening on line `i`, cleaned, and the line after it.
fn docstring(lines: &[&str], i: usize) -> Option<(String, usize)> {
    let first = lines.get(i)?.trim_start().strip_prefix("\"\"\"")?;
    if let Some(end) = first.find("\"\"\"") {
        return Some((first[..end].trim().to_string(), i + 1));
    }
    let mut body = vec![first];
    for (k, line) in lines.iter().enumerate().skip(i + 1) {
        if let Some(end) = line.find("\"\"\"") {
            body.push(&line[..end]);
            return Some((clean(&body), k + 1));
        }
        body.push(line);
    }
    None
}

/// `inspect.cleandoc`: the first line stripped, the rest less their common indentation, and
/// blank lines at either end dropped.
fn clean(lines: &[&str]) -> String {
    let margin =
        lines[1..].iter().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    let mut out: Vec<String> = vec![lines[0].trim().to_string()];
    out.extend(lines[1..].iter().map(|l| l.get(margin..).unwrap_or("").trim_end().to_string()));
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}
