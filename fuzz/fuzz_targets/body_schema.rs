//! Body schema validation: any schema JSON and any body JSON either fail to read with an error or
//! validate without a panic; the live watch agrees with whole-body validation on required parts.
#![no_main]

use agentwire::body::{validate_body, Body, BodySchema};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The schema JSON and the body JSON are separated by a NUL byte.
    let mut it = data.splitn(2, |&b| b == 0);
    let schema = it.next().unwrap_or_default();
    let body = it.next().unwrap_or_default();
    let Ok(schema) = serde_json::from_slice::<serde_json::Value>(schema) else {
        return;
    };
    let schema = match BodySchema::from_json(&schema) {
        Ok(s) => s,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    // A schema written out reads back the same.
    let again = BodySchema::from_json(&schema.to_json()).expect("a schema's own JSON reads back");
    assert_eq!(again.to_json(), schema.to_json());
    let Ok(body) = serde_json::from_slice::<Body>(body) else {
        return;
    };
    let report = schema.validate(&body);
    let _ = report.is_ok();
    let _ = validate_body(&body);
    let mut watch = schema.watch();
    for (i, part) in body.parts.iter().enumerate() {
        let _ = watch.part_started(i, part.name.as_deref(), &part.content_type);
    }
    // The live watch finds the same missing required parts as whole-body validation.
    let missing = |v: &[agentwire::body::Violation]| -> Vec<Option<usize>> {
        v.iter()
            .filter(|v| v.code.as_str() == "missing-required-part")
            .map(|v| v.schema_part)
            .collect()
    };
    assert_eq!(missing(&watch.finish()), missing(&report.violations));
    for part in &body.parts {
        let _ = part.read_bytes();
        let _ = part.read_text();
        let _ = part.read_json();
        let _ = part.read_url();
    }
});
