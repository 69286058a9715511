//! docs/ARCHITECTURE.md's module map against the tree, both ways: every source file under the
//! mapped folders has a row, and every file a row names exists. A row's first cell lists files in
//! backticks; a path with a folder sets the folder for the bare names after it
//! (`` `src/ops/elementwise.rs`, `fill_copy.rs` ``), and a path ending in `/` only sets it.

use std::collections::BTreeSet;
use std::path::Path;

/// The folders whose source files the map covers, and the extensions that count as source.
const MAPPED: &[&str] = &["src", "python/src", "kernels", "tests", "benches", "examples"];
const SOURCE: &[&str] = &["rs", "cu", "cuh", "wgsl", "py"];

fn is_source(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(_, ext)| SOURCE.contains(&ext))
}

/// The files named in the first cells of the "## Module map" table.
fn mapped_files(doc: &str) -> BTreeSet<String> {
    let start = doc.find("## Module map").expect("docs/ARCHITECTURE.md has a '## Module map' section");
    let section = &doc[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |end| end + 3)];
    let mut files = BTreeSet::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let first_cell = line.split('|').nth(1).unwrap_or("");
        let mut folder = String::new();
        for (k, token) in first_cell.split('`').enumerate() {
            if k % 2 == 0 {
                continue; // outside backticks
            }
            if let Some(slash) = token.rfind('/') {
                folder = token[..=slash].to_string();
                if !token.ends_with('/') {
                    files.insert(token.to_string());
                }
            } else if is_source(token) {
                files.insert(format!("{folder}{token}"));
            }
        }
    }
    files
}

fn tree_files(root: &Path, dir: &str, out: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else { return };
    for entry in entries {
        let entry = entry.unwrap();
        let name = format!("{dir}/{}", entry.file_name().to_string_lossy());
        if entry.file_type().unwrap().is_dir() {
            tree_files(root, &name, out);
        } else if is_source(&name) {
            out.insert(name);
        }
    }
}

#[test]
fn the_module_map_lists_every_source_file_and_nothing_else() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let mapped: BTreeSet<String> =
        mapped_files(&doc).into_iter().filter(|f| MAPPED.iter().any(|m| f.starts_with(&format!("{m}/")))).collect();
    let mut tree = BTreeSet::new();
    for dir in MAPPED {
        tree_files(root, dir, &mut tree);
    }
    let unmapped: Vec<_> = tree.difference(&mapped).collect();
    let missing: Vec<_> = mapped.difference(&tree).collect();
    assert!(
        unmapped.is_empty() && missing.is_empty(),
        "docs/ARCHITECTURE.md's module map and the tree differ.\n  files without a row: {unmapped:?}\n  rows naming no file: {missing:?}\n\
         add a row (first cell: the file in backticks; a bare name takes the folder of the path before it) or remove the stale one"
    );
}

#[test]
fn bare_names_take_the_folder_of_the_path_before_them() {
    let doc = "## Module map\n\n| file | concept |\n|---|---|\n\
               | `src/ops/elementwise.rs`, `fill_copy.rs` | families |\n\
               | `kernels/` | folder only |\n| `src/lib.rs` | root |\n\n## Next\n| `src/not_in_map.rs` | x |\n";
    let files: Vec<_> = mapped_files(doc).into_iter().collect();
    assert_eq!(files, ["src/lib.rs", "src/ops/elementwise.rs", "src/ops/fill_copy.rs"]);
}

/// The module-level node of a source file under `src/`: its top folder (`ops`, `kernel`), each
/// backend's folder (`backend/cpu`), or a top-level file's stem (`shape`).
fn node_of(rel: &str) -> String {
    let parts: Vec<&str> = rel.split('/').collect();
    match parts.as_slice() {
        ["backend", sub, _, ..] => format!("backend/{sub}"),
        [file] => file.trim_end_matches(".rs").to_string(),
        [folder, ..] => folder.to_string(),
        [] => unreachable!(),
    }
}

/// Every `crate::` path of a file's non-test code, as the node it names (comments and the
/// `#[cfg(test)] mod tests` block at the end of a file are not imports of the library).
fn imports_of(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
    let mut out = BTreeSet::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (k, _) in line.match_indices("crate::") {
            let rest = &line[k + "crate::".len()..];
            let segment =
                |s: &str| s.split(|c: char| !c.is_alphanumeric() && c != '_').next().unwrap_or("").to_string();
            let first = segment(rest);
            let name = if first == "backend" {
                let sub = rest.strip_prefix("backend::").map(segment).unwrap_or_default();
                if modules.contains(&format!("backend/{sub}")) {
                    format!("backend/{sub}")
                } else {
                    first
                }
            } else {
                first
            };
            if modules.contains(&name) {
                out.insert(name);
            }
        }
    }
    out
}

/// The import graph of `src`: node -> (imported node -> the files importing it).
fn import_graph() -> std::collections::BTreeMap<String, std::collections::BTreeMap<String, BTreeSet<String>>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = BTreeSet::new();
    tree_files(root, "src", &mut files);
    let rels: Vec<String> =
        files.iter().filter(|f| f.ends_with(".rs")).map(|f| f["src/".len()..].to_string()).collect();
    let modules: BTreeSet<String> = rels.iter().map(|r| node_of(r)).collect();
    let mut graph = std::collections::BTreeMap::new();
    for rel in &rels {
        let node = node_of(rel);
        let text = std::fs::read_to_string(root.join("src").join(rel)).unwrap();
        for target in imports_of(&text, &modules) {
            if target != node && node != "lib" {
                let edges: &mut std::collections::BTreeMap<String, BTreeSet<String>> =
                    graph.entry(node.clone()).or_default();
                edges.entry(target).or_default().insert(format!("src/{rel}"));
            }
        }
    }
    graph
}

#[test]
fn the_folders_of_src_import_each_other_without_a_circle() {
    let graph = import_graph();
    // Depth-first search for a back edge; the path to it is the circle.
    fn visit(
        node: &str,
        graph: &std::collections::BTreeMap<String, std::collections::BTreeMap<String, BTreeSet<String>>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut circle = path[at..].to_vec();
            circle.push(node.to_string());
            return Some(circle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).map(|e| e.keys().cloned().collect::<Vec<_>>()).unwrap_or_default() {
            if let Some(circle) = visit(&next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(circle) = visit(node, &graph, &mut Vec::new(), &mut done) {
            let files: Vec<String> =
                circle.windows(2).map(|w| format!("{} -> {}: {:?}", w[0], w[1], graph[&w[0]][&w[1]])).collect();
            panic!(
                "the modules of src import each other in a circle: {}\n  {}\nmove the code so imports run one way (docs/ARCHITECTURE.md, \"Layers\")",
                circle.join(" -> "),
                files.join("\n  ")
            );
        }
    }
}

/// The foundation: modules every layer may import, which import only each other.
const FOUNDATION: &[&str] =
    &["element", "error", "shape", "rank", "check", "layout", "geometry", "iter", "slice", "caches"];

/// The containers: arrays and views over any backend, which name no device backend (the CPU's
/// allocator type is the one backend item they may name, as the default of their constructors).
const CONTAINERS: &[&str] = &["raw", "view", "array", "structured", "fmt", "index"];

#[test]
fn the_kernel_contract_sits_between_backends_and_generic_algorithms() {
    let graph = import_graph();
    let is_backend = |n: &str| n == "backend" || n.starts_with("backend/");
    let mut wrong = Vec::new();
    for (node, edges) in &graph {
        for (target, files) in edges {
            let allowed = if FOUNDATION.contains(&node.as_str()) || node == "kernel" {
                FOUNDATION.contains(&target.as_str())
            } else if node == "pool" {
                FOUNDATION.contains(&target.as_str()) || target == "kernel"
            } else if CONTAINERS.contains(&node.as_str()) {
                !is_backend(target) || target == "backend/cpu"
            } else if is_backend(node) {
                FOUNDATION.contains(&target.as_str()) || target == "kernel" || target == "pool" || is_backend(target)
            } else if node == "ops" || node == "stencil" || node == "solve" || node == "sparse" {
                !is_backend(target)
            } else {
                true
            };
            if !allowed {
                wrong.extend(files.iter().map(|file| format!("{file} ({node}) imports {target}")));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers (the foundation and kernel import only the foundation; pool \
         also kernel; backends the foundation, kernel and pool; containers no device backend; \
         ops, stencil, solve and sparse never a backend):\n  {}",
        wrong.join("\n  ")
    );
}

#[test]
fn imports_are_read_from_code_not_comments_or_tests() {
    let modules: BTreeSet<String> = ["backend/cpu", "backend", "ops", "kernel"].iter().map(|s| s.to_string()).collect();
    let text = "use crate::backend::cpu::lanes;\nuse crate::kernel::{Desc, Cpu};\n// crate::ops::x\n\
                fn f() { crate::backend::Cpu; }\n#[cfg(test)]\nmod tests {\n    use crate::ops::x;\n}\n";
    let got: Vec<String> = imports_of(text, &modules).into_iter().collect();
    assert_eq!(got, ["backend", "backend/cpu", "kernel"]);
    assert_eq!(node_of("backend/cuda/device.rs"), "backend/cuda");
    assert_eq!(node_of("backend/mod.rs"), "backend");
    assert_eq!(node_of("shape.rs"), "shape");
    assert_eq!(node_of("stencil/fused/mod.rs"), "stencil");
}
