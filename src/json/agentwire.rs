//! Incremental JSON: parse tool arguments as they stream, one delta at a time.
//!
//! Models stream a tool call's `arguments` (JSON text, [RFC 8259]) as many small deltas. A UI wants
//! to show the arguments while they arrive (`{"path": "/hel"}` while the path is still being
//! written). The JavaScript SDKs in common use re-parse the whole prefix on every delta (the `ai`
//! package's `parsePartialJson`: repair the text, then `JSON.parse` it), which is quadratic: 4,000
//! one-character deltas take seconds. [`PartialJson`] reads every byte exactly once and keeps its
//! value up to date **in place** (appending to the open string, inserting completed members), so a
//! push of `k` bytes costs `O(k)` amortized, plus a walk from the root to the open value per token.
//! In a release build, 4,033 one-character deltas (a 4,000-character `content` argument) take about
//! 0.3 ms, and a 368 kB document in 16-byte deltas about 9 ms (2.4 times one `serde_json::from_str`
//! of the whole text).
//!
//! ```
//! use agentwire::json::{PartialChange, PartialJson, PathSegment};
//! use serde_json::json;
//!
//! let mut args = PartialJson::new(Default::default());
//! args.push(r#"{"path": "/hel"#)?;
//! assert_eq!(args.value(), Some(&json!({"path": "/hel"})));
//!
//! args.push(r#"lo.txt", "overwrite": tr"#)?;
//! // `tr` is held back until the literal is complete.
//! assert_eq!(args.value(), Some(&json!({"path": "/hello.txt"})));
//! // What changed in that push, for a consumer that mirrors the value (the JavaScript side).
//! assert_eq!(
//!     args.changes(),
//!     &[PartialChange::Append {
//!         path: vec![PathSegment::Key("path".into())],
//!         value: "lo.txt".into(),
//!     }]
//! );
//!
//! args.push("ue}")?;
//! assert!(args.is_complete());
//! let value = args.finish()?;
//! assert_eq!(value, json!({"path": "/hello.txt", "overwrite": true}));
//! # Ok::<(), agentwire::json::PartialJsonError>(())
//! ```
//!
//! # What a partial value shows
//!
//! After each [`push`](PartialJson::push), [`value`](PartialJson::value) is the best-effort value
//! of the text so far. The rules, with the `ai` package's `parsePartialJson` (`fixJson`, then
//! `JSON.parse`) for comparison:
//!
//! | input so far | agentwire | `ai` `parsePartialJson` |
//! |---|---|---|
//! | nothing, or only whitespace | `None` | `undefined` |
//! | `{"path": "/hel` (open string) | `{"path": "/hel"}`: what has arrived, decoded | same |
//! | `{"a": "x\u00` (escape split across deltas) | `{"a": "x"}`: the incomplete escape is held until complete | same (recent versions; older ones failed the whole parse) |
//! | `{"a": "\ud83d` (first half of a surrogate pair) | `{"a": ""}`: held until the low half arrives | a lone surrogate in the JS string until the low half arrives |
//! | `{"a": "\ud83dx` or `{"a": "\udc00` (a surrogate that is not half of a pair) | `{"a": "\u{FFFD}x"}`, `{"a": "\u{FFFD}"}`: U+FFFD for each (RFC 8259 §8.2 leaves it open) | the lone surrogate in the JS string (U+FFFD once encoded as UTF-8) |
//! | `{"pa` or `{"path"` or `{"path": ` (pending key) | `{}`: a key appears only with its value | same |
//! | `[1, 2` (open number) | `[1, 2]`: a number appears once its text is a complete JSON number | same |
//! | `[1.`, `[1e`, `[1.5e+` | `[1]`, `[1]`, `[1.5]`: the incomplete tail is held back (the number shows its longest complete prefix) | same |
//! | `[-` , `{"a": -` | `[]`, `{}`: a number appears with its first digit | `undefined` (the repaired `[-]` fails to parse), `{}` |
//! | `[tr` , `{"a": nul` (partial literal) | `[]`, `{}`: literals appear only when complete | `[true]`, `{"a": null}`: completed by guessing |
//! | `{"a": {"b": [1` (open containers) | `{"a": {"b": [1]}}`: open arrays and objects appear with their members so far | same |
//! | invalid JSON (`{"a" 1`) | an error at the offending byte; the last good value stays readable | `undefined` (`failed-parse`) |
//!
//! Consequences a consumer can rely on (*prefix consistency*): every value shown is contained in
//! the next one. Strings only grow, members and elements are only added or grow, and a number may
//! change only while it is still the last, open token (`1` → `12` → `12.5`). The one exception is
//! a duplicate object key: as in `serde_json`, the later member replaces the earlier.
//!
//! What is shown depends only on the text so far, never on how it was split into pushes. An open
//! number shows its longest prefix of at most [`MAX_PARTIAL_NUMBER_LEN`] bytes that is a complete
//! number; longer numbers show their full value only when complete, so that a number streamed one
//! digit at a time cannot make parsing quadratic.
//!
//! Text arrives as `&str` pieces ([`push`](PartialJson::push)), or as raw UTF-8 bytes that may
//! split a character between pieces ([`push_bytes`](PartialJson::push_bytes)).
//!
//! # The change feed
//!
//! [`changes`](PartialJson::changes) lists what the last push changed, as [`PartialChange`]s: `set`
//! (a value appeared at a path, or an open number changed) and `append` (text added to the open
//! string, only the new piece). Applying them in order to a copy
//! ([`PartialChange::apply`]) reproduces [`value`](PartialJson::value) exactly, so the JavaScript
//! layer can forward only the changes instead of re-sending the value after every delta.
//!
//! # Completion and errors
//!
//! [`finish`](PartialJson::finish) returns the final value, equal to what `serde_json::from_str`
//! returns for the whole text (`serde_json::from_slice` for bytes) but for lone surrogates, which
//! serde_json refuses and which read as U+FFFD here as in every reader of agentwire (see
//! `agentwire_core::json::parse_value`); it fails where `serde_json` fails (invalid JSON, trailing
//! characters, a number out of range, invalid UTF-8), plus the two limits of
//! [`PartialJsonLimits`] (nesting depth, total size). Nesting deeper than 127 is refused by
//! `serde_json` whatever our limit says. Once a push fails, the parser keeps that error: later
//! pushes and `finish` return it again, while `value` still shows the last good partial value.
//!
//! [RFC 8259]: https://www.rfc-editor.org/rfc/rfc8259

// This is the agentwire crate's `json` module (src/lib.rs loads this file). The incremental parser
// runs for streamed tool arguments, not on the Agent API's streaming path, so it is compiled here
// with the rest of agentwire, for size; what the streaming path needs of JSON (the scanner and
// writer, src/json/mod.rs) is in agentwire-core, at opt-level 3, and not public.

mod change;
mod partial;

pub use change::{changes_json, PartialChange, PathSegment};
pub use partial::{PartialJson, PartialJsonLimits, MAX_PARTIAL_NUMBER_LEN};

use crate::error::ErrorCode;
use agentwire_core::json::QuotedChar;

/// Why incremental JSON parsing failed. Offsets are 0-based and count UTF-8 bytes from the start of
/// the whole text (all pushes together).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PartialJsonError {
    /// The text is not JSON ([RFC 8259] grammar): `found` is not what can come at `offset`.
    ///
    /// [RFC 8259]: https://www.rfc-editor.org/rfc/rfc8259#section-2
    #[error("invalid JSON at byte {offset}: expected {expected}, found {}", QuotedChar(*found))]
    Syntax {
        /// Byte offset of the offending character.
        offset: usize,
        /// What the grammar allows there, e.g. `',' or '}'`.
        expected: &'static str,
        /// The offending character.
        found: char,
    },
    /// The text ended (at [`finish`](PartialJson::finish)) before the value was complete.
    #[error("JSON text ended at byte {offset} while expecting {expected}")]
    UnexpectedEnd {
        /// Byte length of the whole text.
        offset: usize,
        /// What the grammar needed next, e.g. `'"' closing the string`.
        expected: &'static str,
    },
    /// Arrays and objects nested deeper than [`PartialJsonLimits::max_depth`].
    #[error("JSON nested deeper than {limit} levels at byte {offset}")]
    TooDeep {
        /// Byte offset of the `[` or `{` that went too deep.
        offset: usize,
        /// The limit, in levels of nesting.
        limit: usize,
    },
    /// More text than [`PartialJsonLimits::max_bytes`]. The push that would have gone past the
    /// limit was not consumed.
    #[error("JSON text longer than {limit} bytes (a push would make it {size} bytes)")]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
        /// The length the text would have had, in bytes.
        size: usize,
    },
    /// Something other than whitespace after the complete value.
    #[error("trailing characters after the JSON value at byte {offset}: found {}", QuotedChar(*found))]
    TrailingCharacters {
        /// Byte offset of the first trailing character.
        offset: usize,
        /// That character.
        found: char,
    },
    /// A number too large for a 64-bit float (`1e400`); `serde_json` refuses it too.
    #[error("number {text} at byte {offset} is out of range")]
    NumberOutOfRange {
        /// Byte offset where the number starts.
        offset: usize,
        /// The number's text (its first 100 bytes and `…` when longer).
        text: String,
    },
    /// Bytes pushed with [`push_bytes`](PartialJson::push_bytes) that are not UTF-8, or a text
    /// that ends inside a character.
    #[error("invalid UTF-8 at byte {offset}")]
    InvalidUtf8 {
        /// Byte offset of the first byte of the invalid sequence.
        offset: usize,
    },
}

impl ErrorCode for PartialJsonError {
    fn code(&self) -> &'static str {
        match self {
            PartialJsonError::Syntax { .. } => "json-syntax",
            PartialJsonError::UnexpectedEnd { .. } => "json-unexpected-end",
            PartialJsonError::TooDeep { .. } => "json-too-deep",
            PartialJsonError::TooLarge { .. } => "json-too-large",
            PartialJsonError::TrailingCharacters { .. } => "json-trailing-characters",
            PartialJsonError::NumberOutOfRange { .. } => "json-number-out-of-range",
            PartialJsonError::InvalidUtf8 { .. } => "json-invalid-utf8",
        }
    }

    fn details(&self) -> serde_json::Value {
        use crate::error::Details;
        match self {
            PartialJsonError::Syntax {
                offset,
                expected,
                found,
            } => Details::new()
                .field("offset", offset)
                .field("expected", expected)
                .field("found", &found.to_string())
                .into(),
            PartialJsonError::UnexpectedEnd { offset, expected } => Details::new()
                .field("offset", offset)
                .field("expected", expected)
                .into(),
            PartialJsonError::TooDeep { offset, limit } => Details::new()
                .field("offset", offset)
                .field("limit", limit)
                .into(),
            PartialJsonError::TooLarge { limit, size } => Details::new()
                .field("limit", limit)
                .field("size", size)
                .into(),
            PartialJsonError::TrailingCharacters { offset, found } => Details::new()
                .field("offset", offset)
                .field("found", &found.to_string())
                .into(),
            PartialJsonError::NumberOutOfRange { offset, text } => Details::new()
                .field("offset", offset)
                .field("text", text)
                .into(),
            PartialJsonError::InvalidUtf8 { offset } => {
                Details::new().field("offset", offset).into()
            }
        }
    }
}
