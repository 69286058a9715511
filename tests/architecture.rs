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
