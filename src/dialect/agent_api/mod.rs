//! The Agent API protocol: wire model, stream events, assembler and builders.
//!
//! Source: the Agent API protocol specification and its reference implementation, agentscope-runtime
//! (`engine/schemas/agent_schemas.py`, `engine/helpers/agent_api_builder.py`, 1.1.6). A client POSTs
//! an [`AgentRequest`] to `/process`; the server answers with `text/event-stream` whose every `data`
//! is one JSON event: [`AgentResponse`] (`object: "response"`), [`Message`] (`object: "message"`) or
//! [`Content`] (`object: "content"`, whole or as a delta of a message's content at `index`).
//!
//! ```
//! use agentwire::dialect::agent_api::{AgentStream, ResponseBuilder, Role, RunStatus};
//!
//! // A server side: the builders emit the protocol's events as SSE.
//! let mut builder = ResponseBuilder::new(Some("sess-1".into()));
//! let sse = builder.streaming_sse(&["Hel", "lo"], Role::Assistant);
//!
//! // A client side: bytes in, live updates and the assembled response out.
//! let mut stream = AgentStream::new(Default::default());
//! stream.feed(sse.as_bytes());
//! stream.finish();
//! let response = stream.response();
//! assert_eq!(response.status, RunStatus::Completed);
//! assert_eq!(response.output[0].text(), "Hello");
//! ```

mod assemble;
mod body;
mod build;
mod event;
mod model;
mod request;
mod shape;
mod split;

pub use assemble::{AgentStream, Assembler, AssemblerOptions, Severity, StreamUpdate};
pub use build::{ContentBuilder, MessageBuilder, ResponseBuilder};
pub use event::{AgentEvent, ErrorEvent};
pub use model::{
    AgentRequest, AgentResponse, Content, ContentKind, ErrorInfo, FunctionCall, FunctionCallOutput,
    FunctionTool, Message, MessageType, Role, RunStatus, Stop, Tool,
};
pub use request::RequestBuilder;
#[doc(hidden)]
pub use shape::layout_and_scan;
pub use split::SplitUpdates;

use crate::error::ErrorCode;
use crate::limits::LimitError;
use crate::sse::{ResumeError, SseError};

/// Errors and warnings of the Agent API dialect. Every one keeps the input it is about.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentApiError {
    /// An event's `data` is not JSON.
    #[error("event data is not valid JSON (line {line}, column {column}): {reason}")]
    InvalidJson {
        /// serde_json's description.
        reason: String,
        /// 1-based line in `data`.
        line: usize,
        /// 1-based column in `data`, in bytes.
        column: usize,
        /// The event's data as received.
        data: String,
    },
    /// An event's `data` is JSON of the wrong shape (e.g. `"index": "one"`).
    #[error("event has the wrong shape: {reason}")]
    InvalidEvent {
        /// serde_json's description.
        reason: String,
        /// The event's data as received.
        data: String,
    },
    /// The SSE layer reported a problem.
    #[error(transparent)]
    Sse(#[from] SseError),
    /// The server reported an error: a `failed` response or message, or an `{"error": …}` event.
    #[error("the agent reported an error: {}: {}", error.code, error.message)]
    Server {
        /// The error as reported.
        error: ErrorInfo,
    },
    /// The stream ended before the response reached a terminal status; what arrived is kept and
    /// marked `incomplete`.
    #[error("the stream ended before the response finished (last status: {last_status})")]
    StreamIncomplete {
        /// The response status when the stream ended.
        last_status: RunStatus,
    },
    /// An event with an `object` this version does not know (kept in the update).
    #[error("unknown event object `{object}`")]
    UnknownEvent {
        /// The `object` value (`""` when absent).
        object: String,
        /// The event as received.
        event: serde_json::Value,
    },
    /// A content's payload in a completed message (or the final response) differs from what its
    /// deltas assembled; the server's version was taken.
    #[error("content {index} of message {msg_id} differs from its streamed deltas")]
    ContentMismatch {
        /// The message.
        msg_id: String,
        /// The content index.
        index: u32,
        /// What the deltas had assembled.
        assembled: Box<Content>,
    },
    /// A message streamed in this response is missing from the response's final `output`; it is
    /// kept.
    #[error("message {msg_id} was streamed but is missing from the response's final output")]
    MessageMissingFromOutput {
        /// The message.
        msg_id: String,
    },
    /// A delta of one content kind arrived for a content of another kind; it was applied as a
    /// replacement.
    #[error("a {got} delta arrived for {kind} content {index} of message {msg_id}")]
    DeltaKindMismatch {
        /// The message.
        msg_id: String,
        /// The content index.
        index: u32,
        /// The existing content's kind.
        kind: ContentKind,
        /// The delta's kind.
        got: ContentKind,
    },
    /// A content event without `msg_id`: there is no message to put it in. Kept in the update.
    #[error("content event without msg_id")]
    ContentWithoutMessage {
        /// The content as received.
        content: Box<Content>,
    },
    /// A request or generation parameter outside its allowed range.
    #[error("parameter `{name}` is {}, outside {range}", number_text(*value))]
    ParameterOutOfRange {
        /// The parameter's wire name, e.g. `temperature`.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The allowed range, e.g. `0 to 2`.
        range: &'static str,
    },
    /// A limit of [`AssemblerOptions::limits`] was hit (`message-too-large`, `too-many-parts`,
    /// `part-too-large`, `too-deep`, `stream-too-large`).
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// A resumed stream lost or repeated events, or its new connection served another response
    /// (`resume-gap`, `duplicate-event`, `resume-mismatch`).
    #[error(transparent)]
    Resume(#[from] ResumeError),
    /// An event came where the protocol does not allow it: anything after the response reached a
    /// terminal status (`what`: `event-after-end`), content for a message that had completed
    /// (`content-after-message-end`). Applied in lenient mode; refused in strict mode.
    #[error("event out of order: {what}")]
    OutOfOrder {
        /// What was out of order: `event-after-end`, `content-after-message-end`, or
        /// `message-released` (an event for a message the assembler released).
        what: &'static str,
        /// The message concerned, if any.
        msg_id: Option<String>,
        /// The content index concerned, if any.
        index: Option<u32>,
    },
    /// A `response` event named another response than the stream's (its `id` changed mid-stream:
    /// a proxy or a resume that reached another response). Applied in lenient mode (the response
    /// takes the new id); refused in strict mode.
    #[error("the response's id changed from {id} to {got}")]
    ResponseIdChanged {
        /// The stream's response id so far.
        id: String,
        /// The id the event gave.
        got: String,
    },
    /// A content arrived with an `index` beyond the next free one of its message (contents
    /// `0..expected` exist or are missing). Applied in lenient mode; refused in strict mode.
    #[error("content index {index} of message {msg_id} skips ahead (expected at most {expected})")]
    IndexGap {
        /// The message.
        msg_id: String,
        /// The content's index.
        index: u32,
        /// The next index the message could take.
        expected: u32,
    },
    /// A builder method was used on content of the wrong kind (e.g. `add_text_delta` on `data`).
    #[error("`{method}` needs {expected} content, this builder makes {kind}")]
    WrongContentKind {
        /// The method called.
        method: &'static str,
        /// The kind it needs.
        expected: ContentKind,
        /// The builder's kind.
        kind: ContentKind,
    },
}

impl AgentApiError {
    #[cfg_attr(agentwire_size, optimize(size))]
    pub(crate) fn from_json(e: serde_json::Error, data: &str) -> Self {
        match crate::json::not_json(&e) {
            false => AgentApiError::InvalidEvent {
                reason: e.to_string(),
                data: data.to_owned(),
            },
            true => AgentApiError::InvalidJson {
                reason: e.to_string(),
                line: e.line(),
                column: e.column(),
                data: data.to_owned(),
            },
        }
    }
}

impl ErrorCode for AgentApiError {
    fn code(&self) -> &'static str {
        match self {
            AgentApiError::InvalidJson { .. } => "invalid-json",
            AgentApiError::InvalidEvent { .. } => "invalid-event",
            AgentApiError::Sse(e) => e.code(),
            AgentApiError::Server { .. } => "server-error",
            AgentApiError::StreamIncomplete { .. } => "stream-incomplete",
            AgentApiError::UnknownEvent { .. } => "unknown-event",
            AgentApiError::ContentMismatch { .. } => "content-mismatch",
            AgentApiError::MessageMissingFromOutput { .. } => "message-missing-from-output",
            AgentApiError::DeltaKindMismatch { .. } => "delta-kind-mismatch",
            AgentApiError::ContentWithoutMessage { .. } => "content-without-message",
            AgentApiError::ParameterOutOfRange { .. } => "parameter-out-of-range",
            AgentApiError::WrongContentKind { .. } => "wrong-content-kind",
            AgentApiError::Limit(e) => e.code(),
            AgentApiError::Resume(e) => e.code(),
            AgentApiError::OutOfOrder { .. } => "out-of-order",
            AgentApiError::ResponseIdChanged { .. } => "response-id-changed",
            AgentApiError::IndexGap { .. } => "index-gap",
        }
    }

    #[cfg_attr(agentwire_size, optimize(size))]
    fn details(&self) -> serde_json::Value {
        use crate::error::Details;
        match self {
            AgentApiError::InvalidJson {
                line, column, data, ..
            } => Details::new()
                .field("line", line)
                .field("column", column)
                .field("data", data)
                .into(),
            AgentApiError::InvalidEvent { data, .. } => Details::new().field("data", data).into(),
            AgentApiError::Sse(e) => e.details(),
            AgentApiError::Server { error } => crate::json::to_tree(error).unwrap_or_default(),
            AgentApiError::StreamIncomplete { last_status } => {
                Details::new().field("lastStatus", last_status).into()
            }
            AgentApiError::UnknownEvent { object, event } => Details::new()
                .field("object", object)
                .field("event", event)
                .into(),
            AgentApiError::ContentMismatch {
                msg_id,
                index,
                assembled,
            } => Details::new()
                .field("msgId", msg_id)
                .field("index", index)
                .field("assembled", assembled)
                .into(),
            AgentApiError::MessageMissingFromOutput { msg_id } => {
                Details::new().field("msgId", msg_id).into()
            }
            AgentApiError::DeltaKindMismatch {
                msg_id,
                index,
                kind,
                got,
            } => Details::new()
                .field("msgId", msg_id)
                .field("index", index)
                .field("kind", kind)
                .field("got", got)
                .into(),
            AgentApiError::ContentWithoutMessage { content } => {
                Details::new().field("content", content).into()
            }
            AgentApiError::ParameterOutOfRange { name, value, range } => Details::new()
                .field("name", name)
                .field("value", value)
                .field("range", range)
                .into(),
            AgentApiError::WrongContentKind {
                method,
                expected,
                kind,
            } => Details::new()
                .field("method", method)
                .field("expected", expected)
                .field("kind", kind)
                .into(),
            AgentApiError::Limit(e) => e.details(),
            AgentApiError::Resume(e) => e.details(),
            AgentApiError::ResponseIdChanged { id, got } => {
                Details::new().field("id", id).field("got", got).into()
            }
            AgentApiError::OutOfOrder {
                what,
                msg_id,
                index,
            } => Details::new()
                .field("what", what)
                .field("msgId", msg_id)
                .field("index", index)
                .into(),
            AgentApiError::IndexGap {
                msg_id,
                index,
                expected,
            } => Details::new()
                .field("msgId", msg_id)
                .field("index", index)
                .field("expected", expected)
                .into(),
        }
    }
}

/// A number in an error message, written as JavaScript's `String(value)` writes it for the usual
/// values: the shortest digits that read back the same (as serde_json writes floats),
/// without a trailing `.0` (`3`, `2.5`, `-0.1`), and `NaN`, `Infinity`, `-Infinity`. (Not with
/// `{}` of an `f64`: core's float formatting, about 13 KB of the wasm module, would be linked for
/// this one message.)
#[inline]
pub(crate) fn number_text(value: f64) -> String {
    match serde_json::Number::from_f64(value) {
        Some(n) => {
            let text = n.to_string();
            match text.strip_suffix(".0") {
                Some(whole) => whole.to_owned(),
                None => text,
            }
        }
        None if value.is_nan() => "NaN".to_owned(),
        None if value > 0.0 => "Infinity".to_owned(),
        None => "-Infinity".to_owned(),
    }
}
