//! JSON text: agentwire's reader of trees (`json::parse_value`) reads what serde_json reads (the
//! same tree, or both refuse; lone surrogates, which serde_json refuses, read as U+FFFD: the text
//! is given to serde_json through `replace_lone_surrogates`), its errors are classed as not JSON,
//! and for text that is not JSON `json::syntax_error` gives serde_json's validator's error (the
//! same message, line and column).
#![no_main]

use agentwire_core::json::{not_json, parse_value, replace_lone_surrogates, syntax_error};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ours = syntax_error(text).map(|e| e.to_string());
    let theirs = serde_json::from_str::<serde::de::IgnoredAny>(text)
        .err()
        .map(|e| e.to_string());
    assert_eq!(ours, theirs, "the syntax error of {text:?}");
    let tree = parse_value(text);
    let expected = serde_json::from_str::<serde_json::Value>(&replace_lone_surrogates(text));
    assert_eq!(tree.as_ref().ok(), expected.as_ref().ok(), "the tree of {text:?}");
    if let Err(e) = &tree {
        assert!(not_json(e), "{e} is not classed as not JSON");
    }
});
