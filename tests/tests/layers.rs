//! The layers of `bitpack/src` hold: every path from a file to another
//! top-level module (a folder such as `kernels/`, or a root file such as
//! `error.rs`) leads to a module of the same layer or of a layer above it,
//! in the layer list of `ARCHITECTURE.md`, and modules of one layer do not
//! use each other in a circle. The list is read from the document itself,
//! so the document cannot drift from the code.
//!
//! A path is any `crate::`, `$crate::` or `super::` path in code (comments
//! and strings are blanked first), including each name of a `crate::{..}`
//! group; a name the crate root re-exports (`crate::Error`) leads to the
//! module it comes from, and a `#[macro_export]` macro to the module that
//! defines it. `lib.rs` itself (the facade that re-exports every layer) is
//! not a layer, and the unit-test files (`tests.rs`) are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "../../bitpack-derive/src/source_text.rs"]
mod source_text;

use source_text::{Graph, code_only, cycle, module_of, rust_files};

/// The top-level modules of each layer, top (used by all) first.
type Layers = Vec<BTreeSet<String>>;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace root")
        .to_path_buf()
}

/// The layer list: the rows of the first table of `ARCHITECTURE.md`, in
/// order, each naming its modules as backticked `bitpack/src/...` paths
/// (`bitpack/src/kernels/`, `bitpack/src/{error,storage}.rs`). Rows without
/// such a path (the derive crate's) are not layers of this crate.
fn layers_of(doc: &str) -> Layers {
    let table = doc
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'));
    let mut layers = Vec::new();
    for row in table {
        let Some(place) = row.split('|').nth(2) else {
            continue;
        };
        let mut modules = BTreeSet::new();
        for (i, span) in place.split('`').enumerate() {
            let Some(path) = span.strip_prefix("bitpack/src/").filter(|_| i % 2 == 1) else {
                continue;
            };
            modules.extend(expand(path));
        }
        if !modules.is_empty() {
            layers.push(modules);
        }
    }
    layers
}

/// The top-level modules a path of the layer list names: `kernels/` and
/// `cuda.rs` name one, `{error,storage}.rs` names each of the group.
fn expand(path: &str) -> Vec<String> {
    let path = path.trim_end_matches('/');
    let path = path.strip_suffix(".rs").unwrap_or(path);
    if let Some(group) = path.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
        return group.split(',').map(|m| m.trim().to_string()).collect();
    }
    assert!(
        !path.contains(['/', '{', '}']),
        "a layer names top-level modules only, not `bitpack/src/{path}`"
    );
    vec![path.to_string()]
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The text of the `{ .. }` group that starts `s`, braces balanced.
fn group(s: &str) -> &str {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &s[1..i];
                }
            }
            _ => {}
        }
    }
    panic!("an unclosed group: {}", &s[..s.len().min(80)])
}

/// The first name of each item of a group (`A, b::{C, D}, E as F` gives
/// `A`, `b`, `E`).
fn group_heads(g: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut at_item = true;
    for (i, c) in g.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => at_item = true,
            c if at_item && depth == 0 && (c.is_alphanumeric() || c == '_') => {
                heads.push(ident(&g[i..]).to_string());
                at_item = false;
            }
            _ => {}
        }
    }
    heads
}

/// Where the names of the crate root lead: the root's `use` items (a
/// module of this crate wins over an outside crate for a name in both
/// namespaces, as `BitElement` the trait and the derive) and the
/// `#[macro_export]` macros of every file.
fn root_names(
    lib: &str,
    files: &BTreeMap<String, String>,
    modules: &BTreeSet<String>,
) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for (at, _) in lib.match_indices("use ") {
        let rest = &lib[at + 4..];
        let from = ident(rest);
        if !modules.contains(from) {
            continue;
        }
        let tail = &rest[from.len()..];
        let Some(tail) = tail.strip_prefix("::") else {
            continue;
        };
        let item = &tail[..tail.find(';').expect("a use item ends")];
        let exported: Vec<String> = if item.starts_with('{') {
            group(item)
                .split(',')
                .filter_map(|n| n.split_whitespace().last().map(str::to_string))
                .collect()
        } else {
            vec![item.rsplit([':', ' ']).next().expect("a name").to_string()]
        };
        for name in exported {
            names.insert(name, from.to_string());
        }
    }
    for (file, code) in files {
        for (at, _) in code.match_indices("#[macro_export]") {
            let rest = &code[at..];
            let m = rest.find("macro_rules!").expect("a macro follows") + "macro_rules!".len();
            let name = ident(rest[m..].trim_start()).to_string();
            names.insert(name, top(file));
        }
    }
    names
}

fn top(file: &str) -> String {
    module_of(file)
        .first()
        .cloned()
        .unwrap_or_else(|| "lib".to_string())
}

/// The top-level modules a file's paths lead to, with the first path to
/// each (for the failure message).
fn uses(
    file: &str,
    code: &str,
    modules: &BTreeSet<String>,
    roots: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let own = module_of(file);
    let mut out = BTreeMap::new();
    let mut inline: Option<String> = None;
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let text = line.trim_end();
        if !text.starts_with(' ') && text.ends_with('{') && text.contains("mod ") {
            let name = text.rsplit("mod ").next().expect("a module name");
            inline = Some(ident(name).to_string());
        } else if text == "}" {
            inline = None;
        }
        for (i, _) in line.char_indices() {
            let at = start + i;
            let before = code[..at].chars().next_back();
            if before.is_some_and(|b| b.is_alphanumeric() || b == '_' || b == ':') {
                continue;
            }
            let rest = &code[at..];
            let (path, after): (Vec<String>, &str) = if let Some(r) = rest.strip_prefix("crate::") {
                (Vec::new(), r)
            } else if rest.starts_with("super::") {
                let mut here = own.clone();
                if let Some(m) = &inline {
                    here.push(m.clone());
                }
                let mut r = rest;
                while let Some(t) = r.strip_prefix("super::") {
                    here.pop();
                    r = t;
                }
                (here, r)
            } else {
                continue;
            };
            let heads = if after.starts_with('{') {
                group_heads(group(after))
            } else {
                vec![ident(after).to_string()]
            };
            for head in heads {
                let target = if let Some(first) = path.first() {
                    first.clone()
                } else if head == "self" || head.is_empty() {
                    continue;
                } else if modules.contains(&head) {
                    head.clone()
                } else if let Some(m) = roots.get(&head) {
                    m.clone()
                } else {
                    // A name the root defines itself (a macro, a function
                    // of `lib.rs`): the facade, not a layer.
                    "lib".to_string()
                };
                if target != top(file) && target != "lib" {
                    let line_no = code[..at].matches('\n').count() + 1;
                    out.entry(target).or_insert_with(|| {
                        format!(
                            "{file}:{line_no}: {}",
                            rest.lines().next().unwrap_or("").trim()
                        )
                    });
                }
            }
        }
    }
    out
}

/// Every edge between top-level modules: `from -> to -> where`.
type Edges = BTreeMap<String, BTreeMap<String, String>>;

fn edges() -> (Edges, BTreeSet<String>) {
    let root = repo().join("bitpack/src");
    let mut names = Vec::new();
    rust_files(&root, &root, &mut names);
    let files: BTreeMap<String, String> = names
        .iter()
        .map(|f| {
            let src = std::fs::read_to_string(root.join(f)).expect("a source file");
            (f.clone(), code_only(&src).replace("$crate::", "crate::"))
        })
        .collect();
    let modules: BTreeSet<String> = names
        .iter()
        .map(|f| top(f))
        .filter(|m| m != "lib")
        .collect();
    let roots = root_names(&files["lib.rs"], &files, &modules);
    let mut edges = Edges::new();
    for (file, code) in &files {
        // `lib.rs` is the facade; the unit-test files (`kernels/tests.rs`,
        // `kernels/tests/`) are not part of the library and may test a
        // layer with what the layers below it build (the shipped formats).
        if file == "lib.rs" || file.ends_with("/tests.rs") || file.contains("/tests/") {
            continue;
        }
        for (to, at) in uses(file, code, &modules, &roots) {
            edges.entry(top(file)).or_default().entry(to).or_insert(at);
        }
    }
    (edges, modules)
}

#[test]
fn every_folder_uses_only_the_layers_above_it() {
    let doc = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let layers = layers_of(&doc);
    let (edges, modules) = edges();
    let layer_of: BTreeMap<&str, usize> = layers
        .iter()
        .enumerate()
        .flat_map(|(i, l)| l.iter().map(move |m| (m.as_str(), i)))
        .collect();
    let listed: BTreeSet<String> = layer_of.keys().map(|m| m.to_string()).collect();
    assert_eq!(
        listed, modules,
        "the layer list of ARCHITECTURE.md names other modules than bitpack/src has"
    );
    let mut wrong = Vec::new();
    for (from, tos) in &edges {
        for (to, at) in tos {
            if layer_of[to.as_str()] > layer_of[from.as_str()] {
                wrong.push(format!("{from} -> {to} (a lower layer), at {at}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "paths that run back up the layers:\n{}",
        wrong.join("\n")
    );
    // Within one layer, the modules' uses of each other have no circle.
    for layer in &layers {
        let within: Graph = layer
            .iter()
            .map(|m| {
                let used = edges.get(m).into_iter().flat_map(|t| t.keys());
                (
                    m.clone(),
                    used.filter(|u| layer.contains(*u)).cloned().collect(),
                )
            })
            .collect();
        if let Some(circle) = cycle(&within) {
            panic!("a circle within one layer: {}", circle.join(" -> "));
        }
    }
    // The graph is read, not empty by accident.
    assert!(edges["narrow"].contains_key("kernels"));
    assert!(edges["formats"].contains_key("narrow"));
}

#[test]
fn reads_groups_supers_and_root_names() {
    let modules: BTreeSet<String> = ["a", "b", "c", "m"].map(String::from).into();
    let roots: BTreeMap<String, String> = [("Thing", "b"), ("mac", "c")]
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .into();
    let code = code_only(
        "
use crate::{Thing, c::{X, Y}};
use super::helper; // super of m/x.rs is m itself
// crate::a::InAComment
fn f() { let _ = \"crate::a::InAString\"; crate::mac!(); }
#[cfg(test)]
mod tests {
    use super::super::super_outside::Z;
}
",
    );
    let found: BTreeSet<String> = uses("m/x.rs", &code, &modules, &roots)
        .into_keys()
        .collect();
    // `super::super::super_outside` from inline `tests` of `m/x.rs` is
    // `m::super_outside`: the own module.
    assert_eq!(found, ["b", "c"].map(String::from).into());
    let doc = "intro\n\n| layer | where | what |\n|---|---|---|\n| d | `derive/src/` | x |\n| one | `bitpack/src/{a,b}.rs` | x |\n| two | `bitpack/src/m/`, `bitpack/src/c.rs` | x |\n\nafter";
    assert_eq!(
        layers_of(doc),
        vec![
            ["a", "b"].map(String::from).into(),
            ["c", "m"].map(String::from).into()
        ]
    );
}

/// The files of `kernels/` that may name a SIMD target's module (`x86`,
/// `aarch64`): the targets themselves, the one chooser, the module list
/// that declares them, and the unit tests that run every variant.
fn may_name_a_target(file: &str) -> bool {
    file.starts_with("kernels/x86/")
        || file.starts_with("kernels/aarch64/")
        || file == "kernels/dispatch.rs"
        || file.starts_with("kernels/tests/")
}

/// The paths in `code` that name a SIMD target's module, with their lines.
fn target_paths(file: &str, code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        for target in ["x86", "aarch64"] {
            for (at, _) in line.match_indices(&format!("{target}::")) {
                let before = line[..at].chars().next_back();
                if before.is_none_or(|b| !(b.is_alphanumeric() || b == '_')) {
                    found.push(format!("{file}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn the_simd_targets_are_reached_only_through_dispatch() {
    let root = repo().join("bitpack/src");
    let mut names = Vec::new();
    rust_files(&root, &root, &mut names);
    let mut wrong = Vec::new();
    let mut allowed_hits = 0;
    for file in &names {
        let code = code_only(&std::fs::read_to_string(root.join(file)).expect("a source file"));
        let hits = target_paths(file, &code);
        if may_name_a_target(file) {
            allowed_hits += hits.len();
        } else {
            wrong.extend(hits);
        }
    }
    assert!(
        wrong.is_empty(),
        "x86/ and aarch64/ are reached only through kernels/dispatch.rs:\n{}",
        wrong.join("\n")
    );
    // The search finds the chooser's own paths: it reads the code.
    assert!(allowed_hits > 0);
}

#[test]
fn target_paths_are_found_by_word() {
    let code = "use super::x86::features;\nlet a = my_x86::f();\nsuper::aarch64::g();";
    let hits = target_paths("kernels/stream.rs", code);
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert!(hits[0].starts_with("kernels/stream.rs:1:"));
    assert!(hits[1].starts_with("kernels/stream.rs:3:"));
}
