//! Server-sent events: a spec-exact push decoder and an encoder.
//!
//! Implements the `text/event-stream` format of the WHATWG HTML standard, §9.2 "Server-sent events"
//! (<https://html.spec.whatwg.org/multipage/server-sent-events.html>): §9.2.6 for parsing, §9.2.5 for
//! the format an encoder writes. The decoder is sans-IO: feed it bytes as they arrive from any transport
//! and it calls a sink with [`SseItem`]s; the JavaScript layer wraps it for `fetch` streams.
//!
//! ```
//! use agentwire::sse::{encode_event, SseDecoder, SseItem};
//! let mut wire = String::new();
//! encode_event(&mut wire, Some("update"), "line one\nline two", Some("7")).unwrap();
//! assert_eq!(wire, "event: update\nid: 7\ndata: line one\ndata: line two\n\n");
//!
//! let mut decoder = SseDecoder::new();
//! let mut got = Vec::new();
//! decoder.feed(wire.as_bytes(), &mut |item| {
//!     if let SseItem::Event(e) = item {
//!         got.push((e.event.to_owned(), e.data.to_owned(), e.id.to_owned()));
//!     }
//! });
//! assert_eq!(got, [("update".into(), "line one\nline two".into(), "7".into())]);
//! ```

mod decoder;
mod encode;
mod resume;

pub(crate) use decoder::utf8_decode;
pub use decoder::{
    OwnedSseEvent, SseDecoder, SseEvent, SseEventBytes, SseItem, SseItemBytes, SseOptions,
};
pub use encode::{encode_comment, encode_event, encode_retry};
pub use resume::{Admission, EventCursor, ResumeError};

use crate::error::ErrorCode;

/// Errors of the SSE decoder and encoder. Decoding errors are recoverable: the decoder reports them and
/// carries on with the next event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    /// An event grew past [`SseOptions::max_event_size`]; it was skipped up to its blank line.
    #[error("an event exceeded the limit of {limit} bytes; it was skipped")]
    EventTooLarge {
        /// The limit, in bytes ([`SseOptions::max_event_size`]).
        limit: usize,
    },
    /// The stream ended inside an event (no blank line after its last field). WHATWG says to discard
    /// it; it is reported here with what it held.
    #[error("the stream ended inside an event that was never terminated by a blank line")]
    IncompleteEvent {
        /// The event type buffer (`""` if no `event` field came).
        event: String,
        /// The data buffer, lines joined with LF (U+FFFD for invalid UTF-8).
        data: String,
        /// The event had already exceeded the size limit, so `data` is empty.
        truncated: bool,
    },
    /// The encoder was asked to write a field value that the format cannot carry (a line break in
    /// `event`, `id` or a comment; U+0000 in `id`).
    #[error("SSE field `{field}` cannot contain {what}")]
    Unencodable {
        /// The field: `event`, `id` or `comment`.
        field: &'static str,
        /// What it contained: `a line break` or `U+0000 NULL`.
        what: &'static str,
    },
}

impl ErrorCode for SseError {
    fn code(&self) -> &'static str {
        match self {
            SseError::EventTooLarge { .. } => "event-too-large",
            SseError::IncompleteEvent { .. } => "incomplete-event",
            SseError::Unencodable { .. } => "unencodable-field",
        }
    }

    #[cfg_attr(agentwire_size, optimize(size))]
    fn details(&self) -> serde_json::Value {
        use crate::error::Details;
        match self {
            SseError::EventTooLarge { limit } => Details::new().field("limit", limit).into(),
            SseError::IncompleteEvent {
                event,
                data,
                truncated,
            } => Details::new()
                .field("event", event)
                .field("data", data)
                .field("truncated", truncated)
                .into(),
            SseError::Unencodable { field, what } => Details::new()
                .field("field", field)
                .field("what", what)
                .into(),
        }
    }
}
