//! agentwire reads JSON text only with its own reader (`json::parse_value`, `json::from_text`,
//! `json::parse_number`), which reads every float as the nearest `f64`. The build does not turn on
//! serde_json's `float_roundtrip` (its exact float reading was the larger part of its text
//! reader), so a serde_json text reader added to the sources would read floats "best effort"
//! (now and then one ULP off) and compile serde_json's number reading back in: this test finds
//! one. Nor is serde_json's validator (`IgnoredAny`) used: `json::syntax_error` gives its errors
//! without compiling its reader (about 1.8 KB of the gzipped wasm module).

use std::path::Path;

/// What reads JSON text (or a float) with serde_json or the standard library.
const TEXT_READERS: &[&str] = &[
    "serde_json::from_str",
    "serde_json::from_slice",
    "serde_json::from_reader",
    "Deserializer::from_str",
    "Deserializer::from_slice",
    "Deserializer::from_reader",
    "parse::<Value>",
    "parse::<serde_json::Value>",
    "parse::<Number>",
    "parse::<serde_json::Number>",
    "parse::<f64>",
    "parse::<f32>",
    "f64::from_str",
    "IgnoredAny",
];

/// The lines of `text` before its test module (a `#[cfg(test)]` or `#[cfg(all(test, …))]` line
/// followed by `mod` or `pub(crate) mod`).
fn outside_tests(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|w| {
            let attr = w[0].trim();
            (attr == "#[cfg(test)]" || attr.starts_with("#[cfg(all(test,"))
                && (w[1].trim_start().starts_with("mod ")
                    || w[1].trim_start().starts_with("pub(crate) mod "))
        })
        .unwrap_or(lines.len());
    lines.into_iter().take(end).enumerate()
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn json_text_is_read_only_by_agentwires_reader() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    assert!(files.len() > 40, "{} files", files.len());
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in outside_tests(&text) {
            let code = line.split("//").next().unwrap_or("");
            if let Some(reader) = TEXT_READERS.iter().find(|r| code.contains(*r)) {
                let name = file.strip_prefix(root).unwrap().display();
                found.push(format!("{name}:{}: {reader}", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "serde_json or std reading JSON text or floats:\n{}",
        found.join("\n")
    );
}

/// The test above sees a reader where one is.
#[test]
fn a_text_reader_is_seen() {
    let text = "fn f(t: &str) -> Value {\n    serde_json::from_str(t).unwrap()\n}\n#[cfg(test)]\nmod tests {\n    serde_json::from_str(\"1\")\n}\n";
    let hits: Vec<usize> = outside_tests(text)
        .filter(|(_, l)| TEXT_READERS.iter().any(|r| l.contains(r)))
        .map(|(n, _)| n + 1)
        .collect();
    assert_eq!(hits, [2]);
}
