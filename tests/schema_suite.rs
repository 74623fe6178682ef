//! The tools' JSON Schema subset against the official JSON Schema Test Suite
//! (<https://github.com/json-schema-org/JSON-Schema-Test-Suite>), drafts 2020-12, 2019-09, 7, 6
//! and 4 with their optional tests (not the `format` assertions: `format` is an annotation here).
//!
//! `scripts/setup.sh --suite` (which the test command runs) downloads the suite: the copy in the
//! `jsonschema` 4.25.1 source archive from PyPI, checked by its SHA-256, into
//! `target/json-schema-test-suite/`; `$AGENTWIRE_SCHEMA_SUITE` names another copy.
//!
//! Every schema of the suite is valid, so every one must compile. A schema that compiles
//! without a warning uses only keywords agentwire checks, so each of its tests must get the
//! suite's verdict. A schema with a warning (an unsupported keyword, a remote `$ref`) is counted
//! and left out: its verdicts would be agentwire's documented gaps, not bugs. The suite's
//! drafts 4, 6 and 7 schemas do not name their dialect; the test gives each the draft's
//! `$schema`, as a user of that draft writes it.
#![cfg(not(target_arch = "wasm32"))]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use agentwire::tool::CompiledSchema;
use serde_json::Value;

fn suite_dir() -> PathBuf {
    std::env::var_os("AGENTWIRE_SCHEMA_SUITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/target/json-schema-test-suite"
            ))
        })
}

/// The `.json` files of `dir`, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| {
        panic!(
            "reading {dir:?}: {e}. The JSON Schema Test Suite is missing: \
             run ./scripts/setup.sh --suite"
        )
    });
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// Optional test files (behaviour a draft allows but does not require) whose choice agentwire
/// does not make, with the reason; the README and `src/tool/mod.rs` say the same.
const NOT_FOLLOWED: &[(&str, &str, &str)] = &[
    (
        "draft7",
        "optional/content.json",
        "`contentMediaType` and `contentEncoding` are annotations, as in 2019-09 and later",
    ),
    (
        "draft4",
        "optional/zeroTerminatedFloats.json",
        "`1.0` is an integer, as in draft 6 and later (and in JavaScript)",
    ),
];

#[derive(Default)]
struct Tally {
    /// Tests run (their schema compiled without a warning).
    run: usize,
    /// Test cases (a schema and its tests) left out for a warning.
    left_out: usize,
    failures: String,
}

fn run_draft(draft: &str, schema_uri: Option<&str>) -> Tally {
    let dir = suite_dir().join(draft);
    let mut tally = Tally::default();
    for path in files(&dir).into_iter().chain(files(&dir.join("optional"))) {
        let file = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        if NOT_FOLLOWED
            .iter()
            .any(|&(d, f, _)| d == draft && f == file)
        {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a suite file");
        let cases: Value = serde_json::from_str(&text).expect("suite JSON");
        for case in cases.as_array().expect("an array of test cases") {
            let description = case["description"].as_str().unwrap_or("");
            let mut schema = case["schema"].clone();
            if let (Some(uri), Value::Object(map)) = (schema_uri, &mut schema) {
                map.entry("$schema").or_insert_with(|| uri.into());
            }
            let compiled = match CompiledSchema::compile(&schema) {
                Ok(c) => c,
                Err(e) => {
                    let _ = writeln!(tally.failures, "{file}: {description}: refused: {e}");
                    continue;
                }
            };
            if !compiled.warnings().is_empty() {
                tally.left_out += 1;
                continue;
            }
            for test in case["tests"].as_array().expect("tests") {
                tally.run += 1;
                let expected = test["valid"].as_bool().expect("valid");
                if compiled.is_valid(&test["data"]) != expected {
                    let _ = writeln!(
                        tally.failures,
                        "{file}: {description} / {}: expected valid = {expected} for {}",
                        test["description"], test["data"]
                    );
                }
            }
        }
    }
    tally
}

/// Runs one draft and requires every verdict, and at least `min_run` tests run (so that a
/// change that warned on everything could not pass).
fn check(draft: &str, schema_uri: Option<&str>, min_run: usize) {
    let tally = run_draft(draft, schema_uri);
    eprintln!(
        "{draft}: {} tests run, {} cases left out for a warning",
        tally.run, tally.left_out
    );
    assert!(tally.failures.is_empty(), "{draft}:\n{}", tally.failures);
    assert!(
        tally.run >= min_run,
        "{draft}: only {} tests ran (at least {min_run} expected)",
        tally.run
    );
}

#[test]
fn draft2020_12() {
    check("draft2020-12", None, 1340);
}

#[test]
fn draft2019_09() {
    check("draft2019-09", None, 1320);
}

#[test]
fn draft7() {
    check(
        "draft7",
        Some("http://json-schema.org/draft-07/schema#"),
        950,
    );
}

#[test]
fn draft6() {
    check(
        "draft6",
        Some("http://json-schema.org/draft-06/schema#"),
        870,
    );
}

#[test]
fn draft4() {
    check(
        "draft4",
        Some("http://json-schema.org/draft-04/schema#"),
        670,
    );
}
