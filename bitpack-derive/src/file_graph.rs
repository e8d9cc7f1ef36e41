//! The file dependency graph of this crate, read from its sources: every
//! `crate::`, `super::` and `self::` path, and every path through a module
//! that a file declares, names the file of the module it leads to. The test
//! checks that the graph written at the top of `lib.rs` is this graph and
//! that it has no cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::source_text::{Graph, code_only, cycle, module_of, rust_files};

/// The file holding the module at the longest prefix of `path` that is a
/// file of the crate.
fn file_of(modules: &BTreeMap<Vec<String>, String>, path: &[String]) -> String {
    (0..=path.len())
        .rev()
        .find_map(|n| modules.get(&path[..n]))
        .expect("the crate root is a file")
        .clone()
}

/// The identifier segments of a path from byte `at` on (`a::b::c`), up to
/// the first token that is not `ident ::`-joined.
fn segments(code: &str, at: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = &code[at..];
    loop {
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if len == 0 {
            return out;
        }
        out.push(rest[..len].to_string());
        rest = &rest[len..];
        match rest.strip_prefix("::") {
            Some(tail) => rest = tail,
            None => return out,
        }
    }
}

/// The files that `file` uses.
fn uses(file: &str, src: &str, modules: &BTreeMap<Vec<String>, String>) -> BTreeSet<String> {
    let code = code_only(src);
    let own = module_of(file);
    let parent = own[..own.len().saturating_sub(1)].to_vec();
    // Child modules declared here (`mod x;`): a path through one from this
    // file's top level leads to its file.
    let children: BTreeSet<String> = code
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("pub ").unwrap_or(line);
            line.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_string)
        })
        .collect();
    let mut out = BTreeSet::new();
    // Inline modules (`mod tests { .. }`) start and end at column 0, as
    // rustfmt writes them; inside one, `super` is this file's module.
    let mut inline = false;
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let text = line.trim_end();
        if (text.starts_with("mod ") || text.starts_with("pub mod ")) && text.ends_with('{') {
            inline = true;
        } else if text == "}" {
            inline = false;
        }
        let bytes = line.as_bytes();
        for (i, _) in line.char_indices() {
            let before = i.checked_sub(1).map(|b| bytes[b]);
            if matches!(before, Some(b) if b.is_ascii_alphanumeric() || b == b'_' || b == b':' || b == b'$')
            {
                continue;
            }
            let path = segments(&code, start + i);
            let Some(first) = path.first() else { continue };
            // A path, not a lone keyword (`crate = ".."` in an attribute).
            if !code[start + i + first.len()..].starts_with("::") {
                continue;
            }
            let target = match first.as_str() {
                "crate" => path[1..].to_vec(),
                "super" if inline => [own.clone(), path[1..].to_vec()].concat(),
                "super" => [parent.clone(), path[1..].to_vec()].concat(),
                "self" if inline => continue,
                "self" => [own.clone(), path[1..].to_vec()].concat(),
                name if !inline && path.len() > 1 && children.contains(name) => {
                    [own.clone(), path.clone()].concat()
                }
                _ => continue,
            };
            // A `{` right after `crate::` would hide which modules the group
            // names; the check reads one module per path.
            if path.len() == 1 && code[start + i..].starts_with(&format!("{first}::{{")) {
                panic!("{file}: write `use {first}::module::...` for each module, not a group");
            }
            let used = file_of(modules, &target);
            if used != file {
                out.insert(used);
            }
        }
    }
    out
}

/// The graph the sources define.
fn from_sources() -> Graph {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &root, &mut files);
    let modules: BTreeMap<Vec<String>, String> =
        files.iter().map(|f| (module_of(f), f.clone())).collect();
    files
        .iter()
        .map(|file| {
            let src = std::fs::read_to_string(root.join(file)).expect("a source file");
            (file.clone(), uses(file, &src, &modules))
        })
        .collect()
}

/// The graph written in the comment at the top of `lib.rs`: lines
/// `//   file.rs -> a.rs b.rs` (or `-> (none)`).
fn from_comment() -> Graph {
    let lib = include_str!("lib.rs");
    lib.lines()
        .filter_map(|line| line.strip_prefix("//   "))
        .filter_map(|line| line.split_once(" -> "))
        .map(|(file, used)| {
            let used = used
                .split_whitespace()
                .filter(|u| *u != "(none)")
                .map(str::to_string)
                .collect();
            (file.trim().to_string(), used)
        })
        .collect()
}

#[test]
fn matches_the_sources_and_has_no_cycle() {
    let sources = from_sources();
    assert_eq!(
        from_comment(),
        sources,
        "the file graph at the top of lib.rs differs from the sources"
    );
    assert_eq!(cycle(&sources), None);
    // The graph is not empty by accident.
    assert!(sources["expand/bit_element.rs"].contains("ctxt.rs"));
}

#[test]
fn reads_paths_of_every_kind() {
    let modules: BTreeMap<Vec<String>, String> =
        ["lib.rs", "a.rs", "b.rs", "m/mod.rs", "m/x.rs", "m/y.rs"]
            .iter()
            .map(|f| (module_of(f), f.to_string()))
            .collect();
    let src = "
mod a;
mod m;
// crate::b::Gone in a comment
#[bitpack(crate = \"::b\")]
fn f() { let _ = \"crate::b::InAString\"; m::x::g(); a::h(); }
";
    assert_eq!(
        uses("lib.rs", src, &modules),
        ["a.rs", "m/x.rs"].map(String::from).into()
    );
    let src = "
use super::y::{Y, Z};
use crate::a::A;
fn f<'a>(c: char) -> bool { c == '\"' }
#[cfg(test)]
mod tests {
    use super::*;
    fn g() { crate::b::B::new(); }
}
";
    assert_eq!(
        uses("m/x.rs", src, &modules),
        ["a.rs", "b.rs", "m/y.rs"].map(String::from).into()
    );
    // From inside an inline module, `super` is the file itself.
    let src = "
#[cfg(test)]
mod tests {
    fn g() { super::x::f(); }
}
";
    assert_eq!(
        uses("m/mod.rs", src, &modules),
        ["m/x.rs"].map(String::from).into()
    );
}

#[test]
fn finds_cycles() {
    let graph = |edges: &[(&str, &[&str])]| -> Graph {
        edges
            .iter()
            .map(|(f, used)| (f.to_string(), used.iter().map(|u| u.to_string()).collect()))
            .collect()
    };
    assert_eq!(
        cycle(&graph(&[("a", &["b"]), ("b", &["c"]), ("c", &[])])),
        None
    );
    assert_eq!(
        cycle(&graph(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"])])),
        Some(["a", "b", "c", "a"].map(String::from).to_vec())
    );
    assert_eq!(
        cycle(&graph(&[("a", &["b", "c"]), ("b", &[]), ("c", &["c"])])),
        Some(["c", "c"].map(String::from).to_vec())
    );
}
