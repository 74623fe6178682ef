//! The cold code of agentwire-core is compiled in agentwire at opt-level "z" because each of its
//! functions is `#[inline]` (see "Cold code in this crate" in src/core.rs). A function added
//! without it would silently be compiled at 3 again: this test finds one.

use std::path::Path;

/// The files whose every function (outside their tests) is `#[inline]`.
const ALL_INLINE: &[&str] = &[
    "src/body/builtin.rs",
    "src/body/from_json.rs",
    "src/body/names.rs",
    "src/body/schema.rs",
    "src/body/validate.rs",
    "src/dialect/agent_api/body.rs",
    "src/dialect/agent_api/build.rs",
    "src/dialect/agent_api/request.rs",
];

/// `body/query.rs`: every function but `list` (which `MessageBody.list` runs over every part).
const QUERY_COLD: &[&str] = &[
    "glob",
    "get",
    "main",
    "names",
    "inline_content",
    "read_bytes",
    "read_text",
    "read_json",
    "read_url",
];

/// `pattern.rs`: the functions that compile a pattern, by name (matching stays at 3).
const PATTERN_COMPILE: &[&str] = &[
    "new",
    "content_type",
    "compile",
    "source",
    "peek",
    "offset",
    "parse",
    "globstar",
    "class",
    "ends_open",
    "literal_of",
    "push",
    "set",
    "seq",
    "seg_plus",
    "seg_slash_star",
    "slash_seg_star",
    "node",
];

/// The name of the function a line declares (`fn name`, `pub fn name<…>(`, …), if it declares one.
fn declared_fn(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let t = t
        .strip_prefix("pub(crate) ")
        .or_else(|| t.strip_prefix("pub "))
        .unwrap_or(t);
    let t = t.strip_prefix("const ").unwrap_or(t);
    let rest = t.strip_prefix("fn ")?;
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    Some(&rest[..end])
}

/// The functions of `text` (before its `#[cfg(test)]` module) not preceded by `#[inline]` among
/// their attributes and doc comments, with their line numbers.
fn not_inline(text: &str, only: Option<&[&str]>) -> Vec<(usize, String)> {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    let lines: Vec<&str> = code.lines().collect();
    let mut missing = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = declared_fn(line) else {
            continue;
        };
        if only.is_some_and(|names| !names.contains(&name)) {
            continue;
        }
        let inline = lines[..i]
            .iter()
            .rev()
            .map(|l| l.trim())
            .take_while(|l| l.starts_with("#[") || l.starts_with("///"))
            .any(|l| l.starts_with("#[inline"));
        if !inline {
            missing.push((i + 1, name.to_owned()));
        }
    }
    missing
}

#[test]
fn cold_code_of_agentwire_core_is_inline() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut missing = Vec::new();
    for file in ALL_INLINE {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        for (line, name) in not_inline(&text, None) {
            missing.push(format!("{file}:{line} fn {name}"));
        }
    }
    for (file, names) in [
        ("src/body/query.rs", QUERY_COLD),
        ("src/pattern.rs", PATTERN_COMPILE),
    ] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        for (line, name) in not_inline(&text, Some(names)) {
            missing.push(format!("{file}:{line} fn {name}"));
        }
    }
    assert!(
        missing.is_empty(),
        "not #[inline], so compiled at opt-level 3 (see src/core.rs):\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_check_sees_a_function_without_inline() {
    let text =
        "/// Docs.\n#[inline]\npub fn a() {}\n\n/// Docs.\nfn b() {}\n#[cfg(test)]\nfn c() {}";
    assert_eq!(not_inline(text, None), vec![(6, "b".to_owned())]);
    assert_eq!(not_inline(text, Some(&["a"])), vec![]);
}
