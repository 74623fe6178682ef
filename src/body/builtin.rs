//! Built-in body schemas: the message-body proposal's four example agents, ready to use (by apps,
//! and by the demo's upload page, which offers them by [`NAMES`]).
//!
//! | name | function | a valid message |
//! |---|---|---|
//! | `chat` | [`chat`] | one or more unnamed `text/plain` parts, and nothing else |
//! | `multi-modal-chat` | [`multi_modal_chat`] | unnamed `text/plain` (at least one) and `image/*` parts |
//! | `software-writing` | [`software_writing`] | optional unnamed `text/plain` or `text/markdown` prose, and at least one file named anywhere (`/**`) whose content type is source code or text |
//! | `researcher` | [`researcher`] | an unnamed write-up (`text/markdown` or `text/plain`, required) and sources `/sources/*` of type `text/x-uri` |
//!
//! ```
//! use agentwire::body::{builtin, Body, Part, PartKind};
//!
//! let researcher = builtin::by_name("researcher").unwrap();
//! let body = Body::new(vec![
//!     Part::inline(PartKind::Text, "text/markdown", "# Findings"),
//!     Part::inline(PartKind::Text, "text/x-uri", "https://example.org/a").named("/sources/1"),
//! ]);
//! assert!(researcher.validate(&body).is_ok());
//! assert_eq!(builtin::NAMES, ["chat", "multi-modal-chat", "software-writing", "researcher"]);
//! ```

// Every function here is `#[inline]`, so that it is compiled in agentwire at opt-level "z" (cold
// code: see "Cold code in this crate" in src/core.rs).

use super::BodySchema;

/// The names of the built-in schemas, in the order of the module's table.
pub const NAMES: [&str; 4] = ["chat", "multi-modal-chat", "software-writing", "researcher"];

macro_rules! source_code_types {
    () => {
        "{text/*,application/{javascript,typescript,json,xml,toml,yaml,x-yaml,x-sh,sql}}"
    };
}

/// The content types [`software_writing`] accepts for files: any `text/*` (`text/x-python`,
/// `text/x-rust`, `text/html`, `text/markdown`, …) and the source-code and data types registered
/// under `application/`.
pub const SOURCE_CODE_TYPES: &str = source_code_types!();

/// Reads a schema's JSON text (as an app's would be; `json!` literals compiled to about 4 KB of the
/// wasm module).
#[inline]
fn build(json: &str) -> BodySchema {
    // The built-in schemas are constants checked by the tests; a failure would give an empty
    // schema (which accepts no part) rather than a panic.
    crate::json::parse_value(json)
        .ok()
        .and_then(|value| BodySchema::from_json(&value).ok())
        .unwrap_or_default()
}

/// A chat agent: `{"parts": [{"contentType": "text/plain", "required": true}]}`.
#[inline]
pub fn chat() -> BodySchema {
    build(r#"{"parts": [{"contentType": "text/plain", "required": true}]}"#)
}

/// A multi-modal chat agent: text (required) and images.
///
/// ```json
/// {"parts": [{"contentType": "text/plain", "required": true}, {"contentType": "image/*"}]}
/// ```
#[inline]
pub fn multi_modal_chat() -> BodySchema {
    build(
        r#"{"parts": [
            {"contentType": "text/plain", "required": true},
            {"contentType": "image/*"}
        ]}"#,
    )
}

/// A software-writing agent: prose, and files anywhere with source-code content types (at least
/// one file).
///
/// ```json
/// {"parts": [
///   {"contentType": "text/{plain,markdown}"},
///   {"name": "/**", "contentType": "{text/*,application/{javascript,typescript,json,xml,toml,yaml,x-yaml,x-sh,sql}}", "required": true}
/// ]}
/// ```
#[inline]
pub fn software_writing() -> BodySchema {
    build(concat!(
        r#"{"parts": [
            {"contentType": "text/{plain,markdown}"},
            {"name": "/**", "contentType": ""#,
        source_code_types!(),
        r#"", "required": true}
        ]}"#
    ))
}

/// A researcher: a write-up (required) and its sources as URIs.
///
/// ```json
/// {"parts": [
///   {"contentType": "text/{markdown,plain}", "required": true},
///   {"name": "/sources/*", "contentType": "text/x-uri", "required": false}
/// ]}
/// ```
#[inline]
pub fn researcher() -> BodySchema {
    build(
        r#"{"parts": [
            {"contentType": "text/{markdown,plain}", "required": true},
            {"name": "/sources/*", "contentType": "text/x-uri", "required": false}
        ]}"#,
    )
}

/// The built-in schema called `name` (one of [`NAMES`]), or `None`.
#[inline]
pub fn by_name(name: &str) -> Option<BodySchema> {
    match name {
        "chat" => Some(chat()),
        "multi-modal-chat" => Some(multi_modal_chat()),
        "software-writing" => Some(software_writing()),
        "researcher" => Some(researcher()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{Body, Part, PartKind};

    fn codes(schema: &BodySchema, parts: Vec<Part>) -> Vec<String> {
        schema
            .validate(&Body::new(parts))
            .violations
            .iter()
            .map(|v| v.code.to_string())
            .collect()
    }

    #[test]
    fn every_builtin_compiles_and_is_found_by_name() {
        for name in NAMES {
            let s = by_name(name).unwrap();
            assert!(!s.parts().is_empty(), "{name}");
        }
        assert!(by_name("Chat").is_none());
    }

    #[test]
    fn the_builtins_accept_and_reject() {
        let text = |ct: &str| Part::inline(PartKind::Text, ct, "x");
        let file = |n: &str, ct: &str| Part::inline(PartKind::File, ct, "x").named(n);
        assert!(codes(&chat(), vec![text("text/plain")]).is_empty());
        assert_eq!(codes(&chat(), vec![]), ["missing-required-part"]);
        assert!(codes(
            &multi_modal_chat(),
            vec![text("text/plain"), text("image/png")]
        )
        .is_empty());
        assert!(codes(
            &software_writing(),
            vec![
                text("text/markdown"),
                file("/src/main.rs", "text/x-rust"),
                file("/web/app.ts", "application/typescript"),
            ]
        )
        .is_empty());
        assert_eq!(
            codes(
                &software_writing(),
                vec![file("/app.bin", "application/octet-stream")]
            ),
            ["content-type-mismatch", "missing-required-part"]
        );
        assert!(codes(
            &researcher(),
            vec![text("text/markdown"), file("/sources/1", "text/x-uri")]
        )
        .is_empty());
        assert_eq!(
            codes(
                &researcher(),
                vec![text("text/markdown"), file("/sources/1", "text/html")]
            ),
            ["content-type-mismatch"]
        );
    }
}
