//! The incremental JSON parser: any text in any deltas never panics, and at the end agrees with
//! serde_json on the whole text (the same value, or both fail; lone surrogates read as U+FFFD, so
//! serde_json is given the text through `replace_lone_surrogates`); the JSON of each push's
//! changes is serde_json's.
#![no_main]

use agentwire::json::{changes_json, PartialJson, PartialJsonLimits};
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let (seed, text) = common::split_first(data);
    let mut parser = PartialJson::new(PartialJsonLimits::default());
    let mut mirror: Option<serde_json::Value> = None;
    let mut failed = false;
    for chunk in common::chunks(seed, text) {
        if parser.push_bytes(chunk).is_err() {
            failed = true;
            break;
        }
        // The change feed reproduces the value.
        for change in parser.changes() {
            change.apply(&mut mirror);
        }
        assert_eq!(
            mirror.as_ref(),
            parser.value(),
            "changes reproduce the value"
        );
        // The binding's JSON of the changes is serde_json's.
        assert_eq!(
            changes_json(parser.changes()),
            serde_json::to_string(parser.changes()).unwrap_or_default(),
            "changes_json writes what serde_json writes"
        );
    }
    let expected = match std::str::from_utf8(text) {
        Ok(text) => serde_json::from_str::<serde_json::Value>(
            &agentwire_core::json::replace_lone_surrogates(text),
        ),
        Err(_) => serde_json::from_slice::<serde_json::Value>(text),
    };
    if failed {
        // serde_json fails too (or the input is beyond the limits, which serde_json has not).
        if let Ok(v) = &expected {
            let too_deep = parser.error().is_some_and(|e| {
                matches!(
                    e,
                    agentwire::json::PartialJsonError::TooDeep { .. }
                        | agentwire::json::PartialJsonError::TooLarge { .. }
                )
            });
            assert!(
                too_deep,
                "serde_json read {v:?} but the parser failed: {:?}",
                parser.error()
            );
        }
        return;
    }
    match (parser.finish(), expected) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(_), Err(_)) => {}
        (Err(agentwire::json::PartialJsonError::TooDeep { .. }), Ok(_)) => {}
        (a, b) => panic!("parser {a:?}, serde_json {b:?}"),
    }
});
