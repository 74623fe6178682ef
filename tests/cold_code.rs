//! The cold code of agentwire-core is compiled in agentwire at opt-level "z" because each of its
//! functions is `#[inline]` (see "Cold code in this crate" in src/core.rs). A function added
//! without it would silently be compiled at 3 again: this test finds one. It also checks that the
//! functions built for size with `#[optimize(size)]` are marked under the cfg the module's build
//! sets.

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

/// The cold functions of the streaming path built for size are marked
/// `#[cfg_attr(agentwire_size, optimize(size))]`, and its hottest functions, for the size build,
/// `#[cfg_attr(agentwire_size_build, optimize(speed))]` (see "Cold code" in src/core.rs): the marks
/// act only when scripts/cargo-wasm.sh sets those cfgs, and agentwire-core turns the attribute's
/// feature on under the first. Were the names to drift apart, the marks would silently do nothing.
#[test]
fn the_size_marks_use_the_cfg_the_module_build_sets() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let script = read("scripts/cargo-wasm.sh");
    assert!(script.contains("--cfg agentwire_size "));
    assert!(script.contains("size_build=\"--cfg agentwire_size_build\""));
    assert!(
        read("src/core.rs").contains("#![cfg_attr(agentwire_size, feature(optimize_attribute))]")
    );
    let mut files = vec![root.join("src")];
    let (mut marks, mut speed_marks, mut other) = (0, 0, Vec::new());
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else if p.extension().is_some_and(|e| e == "rs") {
            for (i, line) in std::fs::read_to_string(&p).unwrap().lines().enumerate() {
                let line = line.trim();
                if line == "#[cfg_attr(agentwire_size, optimize(size))]" {
                    marks += 1;
                } else if line == "#[cfg_attr(agentwire_size_build, optimize(speed))]" {
                    speed_marks += 1;
                } else if line.starts_with("#[") && line.contains("optimize(") {
                    other.push(format!("{}:{}: {line}", p.display(), i + 1));
                }
            }
        }
    }
    assert!(marks >= 10, "{marks} size marks found");
    assert!(speed_marks >= 10, "{speed_marks} speed marks found");
    assert!(
        other.is_empty(),
        "optimize attributes not under the cfg:\n{}",
        other.join("\n")
    );
}
