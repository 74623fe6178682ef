//! Glob patterns: the documented syntax, content types, errors, pathological patterns that must stay
//! fast, and properties over generated names.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::{Duration, Instant};

use agentwire::pattern::{Pattern, MAX_PATTERN_LEN};
use agentwire::ErrorCode;
use proptest::prelude::*;

fn matches(pattern: &str, input: &str) -> bool {
    Pattern::new(pattern).unwrap().is_match(input)
}

#[test]
fn syntax_table() {
    // (pattern, matching, not matching)
    let table: &[(&str, &[&str], &[&str])] = &[
        (
            "/sources/*",
            &["/sources/1", "/sources/abc"],
            &["/sources/1/2", "/sources", "/other/1"],
        ),
        (
            "/src/*.rs",
            &["/src/main.rs", "/src/.rs"],
            &["/src/a/b.rs", "/src/main.py"],
        ),
        ("/?", &["/a", "/1"], &["/", "/ab"]),
        (
            "/a/**/b",
            &["/a/b", "/a/x/b", "/a/x/y/b"],
            &["/a/xb", "/a", "/b"],
        ),
        ("/a/**", &["/a/x", "/a/x/y/z"], &["/a", "/ab", "/b/x"]),
        ("/a{,/**}", &["/a", "/a/x", "/a/x/y"], &["/ab", "/b"]),
        ("**/b", &["/b", "/x/b", "/x/y/b", "b"], &["/xb", "/b/x"]),
        ("/**", &["/a", "/a/b/c"], &[]),
        (
            "/{sources,refs}/*",
            &["/sources/1", "/refs/2"],
            &["/notes/1"],
        ),
        (
            "/f{,.{md,txt}}",
            &["/f", "/f.md", "/f.txt"],
            &["/f.rs", "/f."],
        ),
        ("/[a-c][!0-9]", &["/ax", "/c-"], &["/dx", "/a1", "/a/"]),
        ("/\\*", &["/*"], &["/a"]),
        ("/a,b", &["/a,b"], &["/a"]),
    ];
    for (pattern, yes, no) in table {
        let p = Pattern::new(pattern).unwrap();
        assert_eq!(p.as_str(), *pattern);
        for y in *yes {
            assert!(p.is_match(y), "{pattern} should match {y}");
        }
        for n in *no {
            assert!(!p.is_match(n), "{pattern} should not match {n}");
        }
    }
}

#[test]
fn content_type_patterns() {
    let p = Pattern::content_type("text/{plain,markdown}").unwrap();
    assert!(p.is_content_type());
    for y in [
        "text/plain",
        "TEXT/Markdown",
        "text/plain; charset=utf-8",
        "text/plain;format=flowed",
    ] {
        assert!(p.is_match(y), "{y}");
    }
    for n in ["text/html", "text/plainx", "text", "application/json"] {
        assert!(!p.is_match(n), "{n}");
    }
    let any = Pattern::content_type("*/*").unwrap();
    assert!(any.is_match("application/vnd.api+json"));
    assert!(!any.is_match("text"));
    let img = Pattern::content_type("image/*").unwrap();
    assert!(img.is_match("image/svg+xml"));
    assert!(!img.is_match("video/mp4"));
    // Name patterns are case-sensitive and keep parameters.
    assert!(!matches("/A", "/a"));
    assert!(!matches("text/plain", "text/plain; charset=utf-8"));
}

#[test]
fn errors_are_precise() {
    let cases = [
        ("", "empty-pattern"),
        ("/a/{b", "unclosed-brace"),
        ("/a}", "unmatched-brace"),
        ("/[a", "unclosed-class"),
        ("/[b-a]", "invalid-range"),
        ("/a\\", "trailing-escape"),
        ("/a**", "invalid-recursive-wildcard"),
        ("/**b", "invalid-recursive-wildcard"),
        ("{/a/**,/b}/c", "invalid-recursive-wildcard"),
    ];
    for (pattern, code) in cases {
        let e = Pattern::new(pattern).unwrap_err();
        assert_eq!(e.code(), code, "{pattern}");
        assert_eq!(e.pattern(), pattern);
        assert!(e.to_string().contains(pattern), "{e}");
    }
    let e = Pattern::new("/a/{b,c").unwrap_err();
    assert_eq!(
        e.details(),
        serde_json::json!({"pattern": "/a/{b,c", "position": 3})
    );
    let long = "a".repeat(MAX_PATTERN_LEN + 10);
    let e = Pattern::content_type(&long).unwrap_err();
    assert_eq!(e.code(), "pattern-too-long");
    assert_eq!(e.pattern().len(), MAX_PATTERN_LEN);
}

/// Runs `f` and fails if it takes a second or more (exponential matching would take far longer).
fn fast<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    assert!(took < Duration::from_secs(1), "{what} took {took:?}");
    out
}

#[test]
fn pathological_patterns_stay_fast() {
    let name: String = (0..1000).map(|i| format!("/seg{i}")).collect();
    let p = Pattern::new("/**/**/**/**/x").unwrap();
    assert!(!fast("globstars on 1,000 segments", || p.is_match(&name)));
    let p = Pattern::new("/**/**/**/**/seg999").unwrap();
    assert!(fast("globstars that match", || p.is_match(&name)));

    let a = "a".repeat(20_000);
    let p = Pattern::new("*a*a*a*a*a*b").unwrap();
    assert!(!fast("stars on a's", || p.is_match(&a)));

    // The longest pattern allowed, all alternatives, on a long input.
    let alts = "{a,b,ab,}".repeat(MAX_PATTERN_LEN / 9);
    let p = Pattern::new(&alts).unwrap();
    let input = "ab".repeat(200);
    assert!(fast("4 KiB of alternatives", || p.is_match(&input)));
    assert!(!fast("4 KiB of alternatives, no match", || p
        .is_match(&format!("{input}c"))));

    let stars = "*a".repeat(MAX_PATTERN_LEN / 2);
    let p = Pattern::new(&stars).unwrap();
    assert!(!fast("2,048 stars", || p.is_match(&"a".repeat(1000))));
}

/// A name made of segments from a small alphabet.
fn name_strategy() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec("[a-z0-9._-]{1,6}", 1..6).prop_filter("no dot segments", |segs| {
        segs.iter().all(|s| s != "." && s != "..")
    })
}

proptest! {
    /// Replacing any one segment of a name with `*` gives a pattern that matches the name.
    #[test]
    fn star_for_a_segment_matches(segs in name_strategy(), k in 0usize..6) {
        let name = format!("/{}", segs.join("/"));
        let k = k % segs.len();
        let mut pat = segs.clone();
        pat[k] = "*".to_owned();
        let pattern = format!("/{}", pat.join("/"));
        prop_assert!(matches(&pattern, &name), "{} vs {}", pattern, name);
    }

    /// Replacing any run of middle segments with `**`, or a non-empty tail with `**`, matches too.
    #[test]
    fn globstar_for_segments_matches(segs in name_strategy(), a in 0usize..6, b in 0usize..6) {
        let name = format!("/{}", segs.join("/"));
        let (i, j) = (a % (segs.len() + 1), b % (segs.len() + 1));
        let (i, j) = (i.min(j), i.max(j));
        let mut pat: Vec<&str> = segs[..i].iter().map(String::as_str).collect();
        pat.push("**");
        pat.extend(segs[j..].iter().map(String::as_str));
        let pattern = format!("/{}", pat.join("/"));
        // A trailing `/**` needs at least one segment below.
        let expect = j < segs.len() || j > i;
        prop_assert_eq!(matches(&pattern, &name), expect, "{} vs {}", pattern, name);
    }

    /// Any string escaped character by character is a pattern matching exactly that string.
    #[test]
    fn escaped_text_matches_itself(s in "\\PC{1,20}", t in "\\PC{0,20}") {
        let pattern: String = s.chars().flat_map(|c| ['\\', c]).collect();
        let p = Pattern::new(&pattern).unwrap();
        prop_assert!(p.is_literal());
        prop_assert!(p.is_match(&s));
        prop_assert_eq!(p.is_match(&t), s == t);
    }

    /// No pattern text panics, whatever it is; compiled ones match without panicking.
    #[test]
    fn arbitrary_patterns_never_panic(pattern in "[/*?{},\\[\\]!a-c\\\\-]{0,24}", input in "[/a-c]{0,12}") {
        if let Ok(p) = Pattern::new(&pattern) {
            let _ = p.is_match(&input);
        }
        if let Ok(p) = Pattern::content_type(&pattern) {
            let _ = p.is_match(&input);
        }
    }
}
