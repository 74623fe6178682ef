//! Message bodies: named parts, queried like a filesystem, checked against body schemas.
//!
//! This is the part of `agentwire::body` compiled at opt-level 3 (the live body view of streams
//! uses it); the payload validator (`validate_payload`) is compiled with the rest of agentwire, for
//! size. Use it through `agentwire::body`, which re-exports everything here and documents it.

pub mod builtin;
mod from_json;
mod names;
mod part;
#[doc(hidden)]
pub mod payload_scan;
mod query;
mod schema;
mod validate;

pub use names::{is_valid_name, validate_name, NameIssue, MAX_NAME_LEN};
pub use part::{Body, ContentEncoding, Part, PartKind, PartStatus};
pub use schema::{BodySchema, SchemaPart, SchemaWatch, ValidationReport, Violation, ViolationCode};
pub use validate::{is_valid_content_type, validate_body};
// For the payload validator, which is in the agentwire crate (src/body/agentwire.rs).
#[doc(hidden)]
pub use validate::check_parts;
// For the wasm binding, which is in the agentwire crate: parts serialized at this crate's level.
#[doc(hidden)]
pub use part::parts_json;

use crate::error::ErrorCode;
use crate::json::Quoted;
use crate::pattern::PatternError;

/// Errors of the body module: part names, schemas and reading a part's content. Every variant keeps
/// the input it is about.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BodyError {
    /// A part name breaks the [naming rules](validate_name).
    #[error("invalid part name {}: it {}", Quoted(name), reason.describe())]
    InvalidPartName {
        /// The name as given.
        name: String,
        /// Which rule it breaks.
        reason: NameIssue,
        /// Byte offset (0-based) of the offending character or segment, when there is one.
        position: Option<usize>,
    },
    /// Two parts of one message have the same name.
    #[error("part name {name} is used by parts {first} and {index}")]
    DuplicatePartName {
        /// The name.
        name: String,
        /// Index of the first part with it (0-based).
        first: usize,
        /// Index of the later part (0-based).
        index: usize,
    },
    /// A body schema of the wrong shape, or with a pattern that does not compile.
    #[error("invalid body schema at {}: {reason}", Quoted(pointer))]
    InvalidSchema {
        /// JSON Pointer (RFC 6901) to the offending value in the schema, e.g. `/parts/2/name`.
        pointer: String,
        /// What is wrong.
        reason: String,
        /// The offending JSON value (for a pattern that does not compile, the pattern). Boxed: a
        /// `Value` is 72 bytes (natively) with serde_json's `preserve_order`, which would make
        /// every `Result<_, BodyError>` that large.
        value: Box<serde_json::Value>,
        /// The pattern error, when a pattern did not compile.
        #[source]
        pattern: Option<Box<PatternError>>,
    },
    /// The part's content is not UTF-8 text.
    #[error(
        "part {} is not UTF-8 text (invalid byte at offset {position})",
        label(name)
    )]
    NotText {
        /// The part's name (`None` for an unnamed part).
        name: Option<String>,
        /// Byte offset (0-based) in the decoded content of the first byte that is not UTF-8.
        position: usize,
    },
    /// The part's content is not JSON.
    #[error(
        "part {} is not valid JSON (line {line}, column {column}): {reason}",
        label(name)
    )]
    InvalidJson {
        /// The part's name (`None` for an unnamed part).
        name: Option<String>,
        /// serde_json's description.
        reason: String,
        /// 1-based line in the content.
        line: usize,
        /// 1-based column in the content, in bytes (serde_json's count).
        column: usize,
    },
    /// The part's `base64` content does not decode.
    #[error("part {} has invalid base64 content: {reason}", label(name))]
    InvalidBase64 {
        /// The part's name (`None` for an unnamed part).
        name: Option<String>,
        /// The decoder's description.
        reason: String,
        /// Byte offset (0-based) in `content` of the offending character, when known.
        position: Option<usize>,
    },
    /// The part has no inline `content` (it may have a `contentUrl`).
    #[error("part {} has no inline content", label(name))]
    NoInlineContent {
        /// The part's name (`None` for an unnamed part).
        name: Option<String>,
        /// Whether it has a `contentUrl` instead.
        has_url: bool,
    },
    /// The part has no `contentUrl`.
    #[error("part {} has no content URL", label(name))]
    NoContentUrl {
        /// The part's name (`None` for an unnamed part).
        name: Option<String>,
    },
    /// The part's `contentEncoding` is neither `plain` nor `base64`.
    #[error(
        "part {} has unknown content encoding {}",
        label(name),
        Quoted(encoding)
    )]
    UnknownContentEncoding {
        /// The part's name (`None` for an unnamed part).
        name: Option<String>,
        /// The encoding as given.
        encoding: String,
    },
    /// No part of the body has this name ([`Body::part`]).
    #[error("no part is named {}", Quoted(name))]
    PartNotFound {
        /// The name asked for.
        name: String,
    },
    /// JSON text that is not a body ([`Body::from_json`]): not JSON, or not
    /// `{"parts": [<part>…]}`.
    #[error("not a message body (line {line}, column {column}): {reason}")]
    InvalidBody {
        /// serde_json's description, e.g. ``missing field `parts` `` or `expected value`.
        reason: String,
        /// Whether the text is not JSON at all (`true`) or JSON of the wrong shape (`false`).
        syntax: bool,
        /// 1-based line in the text.
        line: usize,
        /// 1-based column in the text, in bytes (serde_json's count).
        column: usize,
    },
    /// A payload could not be read from where it is (a browser `Blob` or `File` whose reading
    /// failed): nothing was validated.
    #[error("the payload could not be read: {reason}")]
    PayloadUnreadable {
        /// What the reader said.
        reason: String,
    },
}

/// How messages name a part: its name, or `(unnamed)`.
fn label(name: &Option<String>) -> &str {
    name.as_deref().unwrap_or("(unnamed)")
}

impl ErrorCode for BodyError {
    fn code(&self) -> &'static str {
        match self {
            BodyError::InvalidPartName { .. } => "invalid-part-name",
            BodyError::DuplicatePartName { .. } => "duplicate-part-name",
            BodyError::InvalidSchema { .. } => "invalid-schema",
            BodyError::NotText { .. } => "not-text",
            BodyError::InvalidJson { .. } => "invalid-json",
            BodyError::InvalidBase64 { .. } => "invalid-base64",
            BodyError::NoInlineContent { .. } => "no-inline-content",
            BodyError::NoContentUrl { .. } => "no-content-url",
            BodyError::UnknownContentEncoding { .. } => "unknown-content-encoding",
            BodyError::PartNotFound { .. } => "part-not-found",
            BodyError::InvalidBody { .. } => "invalid-body",
            BodyError::PayloadUnreadable { .. } => "payload-unreadable",
        }
    }

    /// A JSON object with the variant's fields in camelCase; `invalid-part-name` adds the offending
    /// `character` when there is one, and `invalid-schema` has the offending `value` and the
    /// pattern error as `{"code", "details"}` under `pattern` (`null` for a shape error).
    #[cfg_attr(agentwire_size, optimize(size))]
    fn details(&self) -> serde_json::Value {
        use crate::error::Details;
        match self {
            BodyError::InvalidPartName {
                name,
                reason,
                position,
            } => {
                let d = Details::new()
                    .field("name", name)
                    .field("reason", reason.as_str())
                    .field("position", position);
                let ch = position
                    .and_then(|p| name.get(p..))
                    .and_then(|s| s.chars().next());
                match (ch, reason) {
                    (Some(c), NameIssue::ControlCharacter | NameIssue::InvalidCharacter) => {
                        d.field("character", &c.to_string()).into()
                    }
                    _ => d.into(),
                }
            }
            BodyError::DuplicatePartName { name, first, index } => Details::new()
                .field("name", name)
                .field("first", first)
                .field("index", index)
                .into(),
            BodyError::InvalidSchema {
                pointer,
                reason,
                value,
                pattern,
            } => Details::new()
                .field("pointer", pointer)
                .field("reason", reason)
                .field("value", value)
                .field(
                    "pattern",
                    &pattern.as_ref().map(|p| {
                        Details::new()
                            .field("code", p.code())
                            .field("details", &p.details())
                    }),
                )
                .into(),
            BodyError::NotText { name, position } => Details::new()
                .field("name", name)
                .field("position", position)
                .into(),
            BodyError::InvalidJson {
                name,
                reason,
                line,
                column,
            } => Details::new()
                .field("name", name)
                .field("reason", reason)
                .field("line", line)
                .field("column", column)
                .into(),
            BodyError::InvalidBase64 {
                name,
                reason,
                position,
            } => Details::new()
                .field("name", name)
                .field("reason", reason)
                .field("position", position)
                .into(),
            BodyError::NoInlineContent { name, has_url } => Details::new()
                .field("name", name)
                .field("hasUrl", has_url)
                .into(),
            BodyError::NoContentUrl { name } => Details::new().field("name", name).into(),
            BodyError::UnknownContentEncoding { name, encoding } => Details::new()
                .field("name", name)
                .field("encoding", encoding)
                .into(),
            BodyError::PartNotFound { name } => Details::new().field("name", name).into(),
            BodyError::InvalidBody {
                reason,
                syntax,
                line,
                column,
            } => Details::new()
                .field("reason", reason)
                .field("syntax", syntax)
                .field("line", line)
                .field("column", column)
                .into(),
            BodyError::PayloadUnreadable { reason } => {
                Details::new().field("reason", reason).into()
            }
        }
    }
}
