//! Message bodies: named parts, queried like a filesystem, checked against body schemas.
//!
//! A [`Body`] is an ordered list of [`Part`]s. Parts without a name are the main content shown to
//! the user; named parts (`/sources/1`, `/src/main.rs`) are attachments, citations or state,
//! addressed like files ([`names`](validate_name)) and selected with glob
//! [`Pattern`](crate::pattern::Pattern)s. A [`BodySchema`] says which parts a message may or must
//! have; [`validate_body`] checks the part model itself, and [`validate_payload`] checks a message
//! received as JSON bytes, limits first.
//!
//! Source: the message-body proposal (named parts, a filesystem-like query API, body schemas
//! `{"parts": [{"name", "contentType", "required"}]}`), RFC 2045 and RFC 6838 for MIME types,
//! RFC 4648 for base64.
//!
//! ```
//! use agentwire::body::{Body, BodySchema, Part, PartKind};
//! use agentwire::pattern::Pattern;
//! use serde_json::json;
//!
//! // A researcher agent answers with a write-up and its sources.
//! let body = Body::new(vec![
//!     Part::inline(PartKind::Text, "text/markdown", "# Findings\n…"),
//!     Part::inline(PartKind::Text, "text/x-uri", "https://example.org/a").named("/sources/1"),
//!     Part::inline(PartKind::Text, "text/x-uri", "https://example.org/b").named("/sources/2"),
//! ]);
//!
//! // Query it like a filesystem.
//! let sources = body.list(&Pattern::new("/sources/*")?);
//! assert_eq!(sources.len(), 2);
//! assert_eq!(body.get("/sources/2").unwrap().read_text()?, "https://example.org/b");
//! assert_eq!(body.main()[0].content_type, "text/markdown");
//!
//! // Check it against the agent's body schema.
//! let schema = BodySchema::from_json(&json!({"parts": [
//!     {"contentType": "text/{plain,markdown}", "required": true},
//!     {"name": "/sources/*", "contentType": "text/x-uri"},
//! ]}))?;
//! assert!(schema.validate(&body).is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
// This is the agentwire crate's `body` module (src/lib.rs loads this file): everything of
// agentwire-core's `body` (src/body/mod.rs, compiled at opt-level 3 because the live body view of
// streams uses it), and the payload validator, which runs once per upload and so is compiled here
// with the rest of agentwire, for size.

pub use agentwire_core::body::*;

mod payload;

pub use payload::{
    check_payload_size, check_text_size, validate_payload, PayloadError, PayloadLimits,
    PayloadReport,
};
