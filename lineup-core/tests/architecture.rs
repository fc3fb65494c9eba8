//! The map stays true: `docs/architecture.md`'s tables say, for each folder and top-level file of
//! `lineup-core/src` (a *unit*), which other units it may use; this test reads every `crate::`
//! path in the non-test code of each unit and fails when
//!
//! * a unit uses another that its row does not allow (a row may allow a whole unit, `explore`, or
//!   a part of one, `explore::abandonment`);
//! * two units use each other (an import circle of two), whatever the rows say;
//! * a unit has no row, or a row names no unit.
//!
//! Paths through the crate root's re-exports (`crate::future`, re-exported from
//! `primitives::future` in `lib.rs`) count as uses of the unit they come from. Test modules
//! (`#[cfg(test)] mod tests { .. }` and `#[cfg(test)] mod tests;` files) may use anything: they
//! are not part of the engine's layering.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One use of the crate from a unit: the path after `crate::` (root re-exports resolved) and the
/// file that has it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Use {
    path: String,
    file: String,
}

/// The units of the crate and the paths each uses.
type Uses = BTreeMap<String, BTreeSet<Use>>;

/// The rows of the map: unit -> what it may use.
type Rows = BTreeMap<String, Vec<String>>;

/// The unit a source file belongs to: its top folder, or its own name at the top level.
fn unit_of(relative: &Path) -> String {
    let first = relative
        .components()
        .next()
        .expect("a path")
        .as_os_str()
        .to_string_lossy();
    first.strip_suffix(".rs").unwrap_or(&first).to_string()
}

/// The unit a `crate::` path names: its first segment.
fn first_segment(path: &str) -> &str {
    path.split("::").next().unwrap_or("")
}

/// `#[cfg(test)]`, `#[cfg(all(test, ..))]`: what follows is compiled for the crate's unit tests only.
fn is_test_only(line: &str) -> bool {
    let line = line.trim();
    line.starts_with("#[cfg(")
        && (line.contains("(test") || line.contains(" test"))
        && !line.contains("not(test)")
        && !line.contains("any(")
}

/// The code of a file with comments removed and `#[cfg(test)]` modules left out; the names of
/// `#[cfg(test)] mod NAME;` files it declares go to `test_files`.
fn engine_code(source: &str, test_files: &mut BTreeSet<String>) -> String {
    let mut code = String::new();
    let mut lines = source.lines().map(|l| l.split("//").next().unwrap_or("")).peekable();
    while let Some(line) = lines.next() {
        if !is_test_only(line) {
            code.push_str(line);
            code.push('\n');
            continue;
        }
        let Some(mut item) = lines.next() else { break };
        while item.trim().starts_with("#[") {
            // Further attributes of the same item.
            let Some(next) = lines.next() else { break };
            item = next;
        }
        let item = item.trim();
        if let Some(name) = item.strip_prefix("mod ").and_then(|m| m.strip_suffix(';')) {
            test_files.insert(name.trim().to_string());
            continue;
        }
        if !item.starts_with("mod ") {
            // A test-only item other than a module: skip it alone if it is one line, else its block.
            if !item.contains('{') {
                continue;
            }
        }
        let mut depth = item.matches('{').count() as i64 - item.matches('}').count() as i64;
        while depth > 0 {
            let Some(inner) = lines.next() else { break };
            depth += inner.matches('{').count() as i64 - inner.matches('}').count() as i64;
        }
    }
    code
}

/// Every `crate::` path in `code`: `crate::a::b::C` gives `a::b::C`, `crate::{a::b, c}` gives
/// `a::b` and `c`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `lineup_crate::`, not ours
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let item = item.split(" as ").next().unwrap_or("").trim();
                if !item.is_empty() {
                    paths.push(path_prefix(item));
                }
            }
        } else {
            paths.push(path_prefix(rest));
        }
    }
    paths
}

/// The leading `a::b::c` of `text` (identifiers joined by `::`).
fn path_prefix(text: &str) -> String {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(text.len());
    text[..end].trim_end_matches(':').to_string()
}

/// The crate root's re-exports: a name at the root -> the path it comes from
/// (`future` -> `primitives::future`).
fn root_reexports(lib_rs: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for line in lib_rs.lines().map(str::trim) {
        let Some(used) = line.strip_prefix("pub use ").and_then(|l| l.strip_suffix(';')) else {
            continue;
        };
        let (base, items) = match used.split_once("::{") {
            Some((base, items)) => (
                format!("{base}::"),
                items.trim_end_matches('}').split(',').collect::<Vec<_>>(),
            ),
            None => (String::new(), vec![used]),
        };
        for item in items {
            let (path, name) = match item.split_once(" as ") {
                Some((path, name)) => (path.trim(), name.trim()),
                None => (item.trim(), item.trim().rsplit("::").next().unwrap_or("")),
            };
            if !name.is_empty() {
                names.insert(name.to_string(), format!("{base}{path}"));
            }
        }
    }
    names
}

/// The uses of every unit of the crate whose sources are in `src` (a list of
/// `(path relative to src, contents)`).
fn uses_of(files: &[(PathBuf, String)]) -> Uses {
    let lib_rs = files
        .iter()
        .find(|(p, _)| p == Path::new("lib.rs"))
        .map_or("", |(_, s)| s.as_str());
    let reexports = root_reexports(lib_rs);
    let mut test_files = BTreeSet::new();
    let mut code_of = Vec::new();
    for (path, source) in files {
        code_of.push((path, engine_code(source, &mut test_files)));
    }
    let mut uses = Uses::new();
    for (path, code) in code_of {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let is_test_file = test_files.contains(&stem)
            || path
                .components()
                .any(|c| test_files.contains(&*c.as_os_str().to_string_lossy()));
        let unit = unit_of(path);
        if unit == "lib" {
            // Declarations and re-exports only: read above, for the re-exports.
            uses.entry(unit).or_default();
            continue;
        }
        if is_test_file {
            continue;
        }
        let entry = uses.entry(unit.clone()).or_default();
        for used in crate_paths(&code) {
            let first = first_segment(&used).to_string();
            let resolved = match reexports.get(&first) {
                Some(origin) if !files.iter().any(|(p, _)| unit_of(p) == first) => {
                    format!("{origin}{}", &used[first.len()..])
                }
                _ => used,
            };
            if first_segment(&resolved) != unit {
                entry.insert(Use {
                    path: resolved,
                    file: path.display().to_string(),
                });
            }
        }
    }
    uses
}

/// The rows of the tables in the architecture document: a first cell `` `name/` `` or
/// `` `name.rs` ``, and a last cell listing what it may use in backticks (`nothing` for none).
fn rows_of(doc: &str) -> Rows {
    let mut rows = Rows::new();
    for line in doc.lines().map(str::trim) {
        if !line.starts_with("| `") {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let name = cells[0].trim_matches('`');
        let unit = name.strip_suffix('/').or_else(|| name.strip_suffix(".rs"));
        let Some(unit) = unit else { continue };
        let allowed = cells
            .last()
            .expect("a last cell")
            .split('`')
            .skip(1)
            .step_by(2)
            .map(|s| s.trim_end_matches('/').trim_end_matches(".rs").to_string())
            .collect();
        rows.insert(unit.to_string(), allowed);
    }
    rows
}

/// What is wrong with `uses` against `rows`, one line each; empty when the map is true.
fn problems(uses: &Uses, rows: &Rows) -> Vec<String> {
    let mut found = Vec::new();
    for unit in uses.keys().filter(|u| !rows.contains_key(*u)) {
        found.push(format!("`{unit}` has no row in docs/architecture.md"));
    }
    for unit in rows.keys().filter(|u| !uses.contains_key(*u)) {
        found.push(format!("the row `{unit}` names no folder or file of lineup-core/src"));
    }
    for (unit, used) in uses {
        let Some(allowed) = rows.get(unit) else { continue };
        for u in used {
            let ok = allowed
                .iter()
                .any(|a| u.path == *a || u.path.starts_with(&format!("{a}::")));
            if !ok {
                found.push(format!(
                    "`{unit}` uses `crate::{}` in {}, which its row does not allow (it allows: {})",
                    u.path,
                    u.file,
                    allowed.join(", ")
                ));
            }
        }
    }
    let units_used = |unit: &str| -> BTreeMap<String, String> {
        uses.get(unit)
            .into_iter()
            .flatten()
            .map(|u| (first_segment(&u.path).to_string(), u.file.clone()))
            .collect()
    };
    for a in uses.keys() {
        for (b, file) in units_used(a) {
            if a < &b {
                if let Some(back) = units_used(&b).get(a.as_str()) {
                    found.push(format!(
                        "`{a}` and `{b}` use each other ({file} and {back}): an import circle"
                    ));
                }
            }
        }
    }
    found
}

fn sources(src: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
                files.push((path.strip_prefix(src).expect("under src").to_path_buf(), text));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn the_architecture_document_matches_the_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc_path = root.join("../docs/architecture.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap_or_else(|e| panic!("read {}: {e}", doc_path.display()));
    let rows = rows_of(&doc);
    assert!(rows.len() >= 8, "docs/architecture.md has too few rows: {rows:?}");
    let uses = uses_of(&sources(&root.join("src")));
    let found = problems(&uses, &rows);
    let mut message = String::new();
    for p in &found {
        let _ = writeln!(message, "  - {p}");
    }
    assert!(
        found.is_empty(),
        "docs/architecture.md does not match lineup-core/src:\n{message}"
    );
}

// The checker itself: it must see what it is there to see.

fn file(path: &str, text: &str) -> (PathBuf, String) {
    (PathBuf::from(path), text.to_string())
}

const DOC: &str = "\
| folder | owns | may use |
|---|---|---|
| `model/` | models | `error`, `primitives::future` |
| `explore/` | the backend | `model` |
| `primitives/` | primitives | `explore::abandonment` |
| `error.rs` | errors | nothing |
| `lib.rs` | re-exports | nothing |
";

fn tree(extra: &str) -> Vec<(PathBuf, String)> {
    vec![
        file("lib.rs", "mod model;\npub use primitives::future;\npub use model::M;"),
        file("error.rs", "pub enum E {}"),
        file("model/mod.rs", "use crate::{error::E, future::block_on};\n"),
        file(
            "explore/mod.rs",
            &format!("use crate::model::M;\n/// crate::primitives in a comment\n{extra}"),
        ),
        file(
            "explore/abandonment.rs",
            "#[cfg(test)]\nmod tests {\n    use crate::primitives::x;\n}\n",
        ),
        file(
            "primitives/mod.rs",
            "pub fn f() { crate::explore::abandonment::reset(); }",
        ),
    ]
}

#[test]
fn a_true_map_passes() {
    assert_eq!(problems(&uses_of(&tree("")), &rows_of(DOC)), Vec::<String>::new());
}

#[test]
fn a_use_the_row_does_not_allow_fails() {
    let found = problems(&uses_of(&tree("fn g() { crate::error::f() }")), &rows_of(DOC));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`explore` uses `crate::error::f`"), "{found:?}");
}

#[test]
fn a_part_allowed_is_not_the_whole() {
    let mut files = tree("");
    files.push(file("primitives/sync.rs", "use crate::explore::scheduler::State;"));
    let found = problems(&uses_of(&files), &rows_of(DOC));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("`primitives` uses `crate::explore::scheduler::State`"),
        "{found:?}"
    );
}

#[test]
fn a_back_edge_fails_even_when_the_rows_allow_it() {
    let doc = DOC.replace(
        "| `model/` | models | `error`,",
        "| `model/` | models | `explore`, `error`,",
    );
    let mut files = tree("");
    files.push(file("model/uses_explore.rs", "use crate::explore::Thing;"));
    let found = problems(&uses_of(&files), &rows_of(&doc));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`explore` and `model` use each other"), "{found:?}");
}

#[test]
fn a_unit_without_a_row_and_a_row_without_a_unit_fail() {
    let mut files = tree("");
    files.push(file("survey.rs", "use crate::model::M;"));
    let doc = format!("{DOC}| `gone/` | nothing here | nothing |\n");
    let found = problems(&uses_of(&files), &rows_of(&doc));
    assert!(found.iter().any(|p| p.contains("`survey` has no row")), "{found:?}");
    assert!(
        found.iter().any(|p| p.contains("the row `gone` names no folder")),
        "{found:?}"
    );
}

#[test]
fn test_modules_are_left_out() {
    let mut files = tree("");
    files.push(file("model/tests.rs", "use crate::explore::anything;"));
    files[2].1.push_str("#[cfg(test)]\nmod tests;\n#[cfg(all(test, not(loom)))]\n#[allow(dead_code)]\nmod more {\n    use crate::explore::x;\n}\n");
    assert_eq!(problems(&uses_of(&files), &rows_of(DOC)), Vec::<String>::new());
}
