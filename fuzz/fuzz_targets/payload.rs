//! The payload validator: any bytes, with and without a schema, give a report and never panic;
//! every location it reports lies inside the input.
#![no_main]

use agentwire::body::{validate_payload, BodySchema, PayloadLimits};
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let (flags, input) = common::split_first(data);
    let schema = BodySchema::from_json(&serde_json::json!([
        {"contentType": "text/plain", "required": true},
        {"name": "/sources/*", "contentType": "text/{x-uri,uri-list}"},
        {"name": "/data/**", "contentType": "application/json"},
    ]))
    .expect("a valid schema");
    let limits = if flags & 1 == 0 {
        PayloadLimits::default()
    } else {
        PayloadLimits {
            max_bytes: 4096,
            max_parts: 4,
            max_part_bytes: 256,
            max_depth: 5,
        }
    };
    let report = validate_payload(input, (flags & 2 == 0).then_some(&schema), &limits);
    assert_eq!(report.ok, report.errors.is_empty());
    for e in &report.errors {
        if let Some(offset) = e.offset {
            assert!(offset <= input.len(), "offset {offset} inside the input");
        }
        let _ = e.to_string();
    }
});
