//! The Agent Communication Protocol (ACP): wire model, stream events, assembler, client helpers and
//! the body view.
//!
//! Source: acp-sdk 1.0.3 (`acp_sdk/models/models.py`, `acp_sdk/models/schemas.py`,
//! `acp_sdk/models/errors.py`, `acp_sdk/client/client.py`, `acp_sdk/server/app.py`,
//! `acp_sdk/server/executor.py`). A client POSTs a [`RunCreateRequest`] to `/runs`; with
//! `mode: "stream"` the server answers with `text/event-stream` whose every `data` is one JSON
//! [`AcpEvent`]: `run.created`, `run.in-progress`, then `message.created`, `message.part`…,
//! `message.completed` for each message the agent produces, `generic` events, and a final
//! `run.completed`, `run.failed` or `run.cancelled`. An agent that needs the user's answer ends the
//! stream with `run.awaiting`; the client resumes with a [`RunResumeRequest`] to `/runs/{run_id}`,
//! and the server's new stream continues the same run (and the same message).
//!
//! ```
//! use agentwire::dialect::acp::{AcpStream, RunStatus};
//!
//! let sse = concat!(
//!     "data: {\"type\":\"run.created\",\"run\":{\"run_id\":\"r1\",\"agent_name\":\"echo\",\"status\":\"created\",\"output\":[]}}\n\n",
//!     "data: {\"type\":\"message.created\",\"message\":{\"role\":\"agent/echo\",\"parts\":[]}}\n\n",
//!     "data: {\"type\":\"message.part\",\"part\":{\"content\":\"Hel\"}}\n\n",
//!     "data: {\"type\":\"message.part\",\"part\":{\"content\":\"lo\"}}\n\n",
//!     "data: {\"type\":\"message.part\",\"part\":{\"name\":\"/sources/1\",\"content_type\":\"text/x-uri\",\"content\":\"https://example.com\"}}\n\n",
//!     "data: {\"type\":\"message.completed\",\"message\":{\"role\":\"agent/echo\",\"parts\":[{\"content\":\"Hel\"},{\"content\":\"lo\"},{\"name\":\"/sources/1\",\"content_type\":\"text/x-uri\",\"content\":\"https://example.com\"}]}}\n\n",
//!     "data: {\"type\":\"run.completed\",\"run\":{\"run_id\":\"r1\",\"agent_name\":\"echo\",\"status\":\"completed\"}}\n\n",
//! );
//! let mut stream = AcpStream::new(Default::default());
//! stream.feed(sse.as_bytes());
//! stream.finish();
//! let run = stream.run();
//! assert_eq!(run.status, RunStatus::Completed);
//! // Streamed text chunks are joined into one part, as ACP clients show them.
//! let message = &run.output[0];
//! assert_eq!(message.parts.len(), 2);
//! assert_eq!(message.text(), "Hello");
//! // The body view addresses named parts like files.
//! let body = message.body();
//! assert_eq!(body.parts[1].name.as_deref(), Some("/sources/1"));
//! ```

mod assemble;
mod body;
mod client;
mod event;
mod model;
mod session;

pub use assemble::{AcpOptions, AcpStream, Assembler, Severity, Update};
pub use body::parts_from_body;
pub use client::{
    decode_agents, decode_error, decode_events, decode_run, AcpClient, HttpRequest, Method,
};
pub use event::{AcpEvent, RunEventsList};
pub use model::{
    AgentManifest, AwaitRequest, AwaitResume, AwaitType, CitationMetadata, ErrorInfo, InputError,
    Message, MessagePart, PartMetadata, Role, Run, RunCreateRequest, RunMode, RunResumeRequest,
    RunStatus, ServerErrorCode, TrajectoryMetadata,
};
pub use session::{AcpSession, Inbound, SessionOptions, SessionUpdate};

use crate::error::ErrorCode;
use crate::limits::LimitError;
use crate::sse::{ResumeError, SseError};

/// Errors and warnings of the ACP dialect. Every one keeps the input it is about.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AcpError {
    /// A JSON text (an event's `data`, a response body) is not JSON.
    #[error("not valid JSON (line {line}, column {column}): {reason}")]
    InvalidJson {
        /// serde_json's description.
        reason: String,
        /// 1-based line in `data`.
        line: usize,
        /// 1-based column in `data`, in bytes.
        column: usize,
        /// The text as received.
        data: String,
    },
    /// JSON of the wrong shape: not an object, a known event `type` without its payload field
    /// (`run`, `message`, `part`, `generic`, `error`), a field of the wrong type.
    #[error("wrong shape: {reason}")]
    InvalidEvent {
        /// What is wrong.
        reason: String,
        /// The text as received.
        data: String,
    },
    /// The SSE layer reported a problem.
    #[error(transparent)]
    Sse(#[from] SseError),
    /// The server reported an error: a `run.failed` run's `error`, or an `error` event.
    #[error("the agent reported an error: {}: {}", error.code, error.message)]
    Server {
        /// The error as reported (boxed, as in `Http`: with its maps it would make every
        /// `Result<_, AcpError>` about 200 bytes).
        error: Box<ErrorInfo>,
    },
    /// The server answered a request with an HTTP error status; its body is ACP's `Error`.
    #[error("HTTP {status}: {}: {}", error.code, error.message)]
    Http {
        /// The HTTP status code (403, 404, 422, 500…).
        status: u16,
        /// The error from the body (when the body is not an `Error`, its text is the message).
        error: Box<ErrorInfo>,
    },
    /// The stream ended before the run reached a terminal status (or `awaiting`); what arrived is
    /// kept and the run is marked `incomplete`.
    #[error("the stream ended before the run finished (last status: {last_status})")]
    StreamIncomplete {
        /// The run's status when the stream ended.
        last_status: RunStatus,
    },
    /// An event with a `type` this version does not know (kept in the update).
    #[error("unknown event type `{event_type}`")]
    UnknownEvent {
        /// The `type` value (`""` when absent).
        event_type: String,
        /// The event as received.
        event: serde_json::Value,
    },
    /// A message the server sent whole (`message.completed`, or a run's `output`) differs from what
    /// the stream assembled; the server's version was taken.
    #[error("message {index} differs from what its stream assembled")]
    MessageMismatch {
        /// The message's position in the run's `output` (0-based).
        index: usize,
        /// What the stream had assembled.
        assembled: Box<Message>,
    },
    /// A `run.*` event named another run than the stream's (its `run_id` changed mid-stream).
    /// Applied in lenient mode (the run takes the new id); refused in strict mode.
    #[error("the run's id changed from {run_id} to {got}")]
    RunIdChanged {
        /// The stream's run id so far.
        run_id: String,
        /// The id the event gave.
        got: String,
    },
    /// An `async` run's poll of `GET /runs/{run_id}/events` listed fewer events than an earlier
    /// poll had (a restarted server, another instance behind a load balancer): the events applied
    /// are kept, and only events past those are applied. Reported once per shrink; a warning in
    /// lenient mode (polling goes on), an error that ends the run in strict mode.
    #[error("the run's event list shrank from {seen} to {got} events between two polls")]
    EventListShrank {
        /// How many events the earlier polls listed (and were applied).
        seen: usize,
        /// How many this poll listed.
        got: usize,
    },
    /// A message assembled from the stream is missing from the run's final `output`; it is kept.
    #[error("message {index} was streamed but is missing from the run's final output")]
    MessageMissingFromOutput {
        /// The message's position in the assembled `output` (0-based).
        index: usize,
    },
    /// A `message.part` arrived with no message open; a message was started for it (role
    /// `agent/<agent_name>`, as the SDK's server writes).
    #[error("a message part arrived outside any message")]
    PartWithoutMessage {
        /// The part.
        part: Box<MessagePart>,
    },
    /// A message part's content type is not accepted by an agent's manifest.
    #[error("part {part_index} has content type `{content_type}`, which agent `{agent}` does not accept (accepted: {})", accepted.join(", "))]
    ContentTypeNotAccepted {
        /// The agent's name.
        agent: String,
        /// The part's position in the message (0-based).
        part_index: usize,
        /// The part's content type (`application/octet-stream` when it is `null`).
        content_type: String,
        /// The manifest's patterns.
        accepted: Vec<String>,
    },
    /// A manifest's content-type pattern is not a valid pattern.
    #[error("agent `{agent}` lists an invalid content-type pattern `{pattern}`: {reason}")]
    InvalidContentTypePattern {
        /// The agent's name.
        agent: String,
        /// The pattern as listed.
        pattern: String,
        /// Why it is invalid.
        reason: String,
    },
    /// A limit of [`AcpOptions::limits`] was hit (`message-too-large`, `too-many-parts`,
    /// `part-too-large`, `too-deep`, `stream-too-large`).
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// A resumed stream lost or repeated events (`resume-gap`, `duplicate-event`).
    #[error(transparent)]
    Resume(#[from] ResumeError),
    /// An event came where the protocol does not allow it (`what`): `event-after-end` (anything
    /// after `run.completed`, `run.failed`, `run.cancelled` or `error`), `message-created-while-open`
    /// (a `message.created` before the open message completed), `completed-without-message` (a
    /// `message.completed` with no message open). Applied in lenient mode; refused in strict mode.
    #[error("event out of order: {what}")]
    OutOfOrder {
        /// What was out of order.
        what: &'static str,
        /// The event's `type`.
        event_type: String,
    },
    /// A request could not be written as JSON (a non-finite number in a `serde_json::Value` cannot
    /// occur, so this is a map with non-string keys or similar).
    #[error("the request could not be serialized: {reason}")]
    Unserializable {
        /// serde_json's description.
        reason: String,
    },
}

impl AcpError {
    pub(crate) fn from_json(e: serde_json::Error, data: &str) -> Self {
        match agentwire_core::json::not_json(&e) {
            false => AcpError::InvalidEvent {
                reason: e.to_string(),
                data: data.to_owned(),
            },
            true => AcpError::InvalidJson {
                reason: e.to_string(),
                line: e.line(),
                column: e.column(),
                data: data.to_owned(),
            },
        }
    }
}

impl ErrorCode for AcpError {
    fn code(&self) -> &'static str {
        match self {
            AcpError::InvalidJson { .. } => "invalid-json",
            AcpError::InvalidEvent { .. } => "invalid-event",
            AcpError::Sse(e) => e.code(),
            AcpError::Server { .. } => "server-error",
            AcpError::Http { .. } => "http-error",
            AcpError::StreamIncomplete { .. } => "stream-incomplete",
            AcpError::UnknownEvent { .. } => "unknown-event",
            AcpError::MessageMismatch { .. } => "message-mismatch",
            AcpError::MessageMissingFromOutput { .. } => "message-missing-from-output",
            AcpError::RunIdChanged { .. } => "run-id-changed",
            AcpError::EventListShrank { .. } => "event-list-shrank",
            AcpError::PartWithoutMessage { .. } => "part-without-message",
            AcpError::ContentTypeNotAccepted { .. } => "content-type-not-accepted",
            AcpError::InvalidContentTypePattern { .. } => "invalid-content-type-pattern",
            AcpError::Unserializable { .. } => "unserializable",
            AcpError::Limit(e) => e.code(),
            AcpError::Resume(e) => e.code(),
            AcpError::OutOfOrder { .. } => "out-of-order",
        }
    }

    fn details(&self) -> serde_json::Value {
        use crate::error::Details;
        match self {
            AcpError::InvalidJson {
                line, column, data, ..
            } => Details::new()
                .field("line", line)
                .field("column", column)
                .field("data", data)
                .into(),
            AcpError::InvalidEvent { reason, data } => Details::new()
                .field("reason", reason)
                .field("data", data)
                .into(),
            AcpError::Sse(e) => e.details(),
            AcpError::Server { error } => Details::new().field("error", error).into(),
            AcpError::Http { status, error } => Details::new()
                .field("status", status)
                .field("error", error)
                .into(),
            AcpError::StreamIncomplete { last_status } => {
                Details::new().field("lastStatus", last_status).into()
            }
            AcpError::UnknownEvent { event_type, event } => Details::new()
                .field("eventType", event_type)
                .field("event", event)
                .into(),
            AcpError::MessageMismatch { index, assembled } => Details::new()
                .field("index", index)
                .field("assembled", assembled)
                .into(),
            AcpError::MessageMissingFromOutput { index } => {
                Details::new().field("index", index).into()
            }
            AcpError::EventListShrank { seen, got } => {
                Details::new().field("seen", seen).field("got", got).into()
            }
            AcpError::RunIdChanged { run_id, got } => Details::new()
                .field("runId", run_id)
                .field("got", got)
                .into(),
            AcpError::PartWithoutMessage { part } => Details::new().field("part", part).into(),
            AcpError::ContentTypeNotAccepted {
                agent,
                part_index,
                content_type,
                accepted,
            } => Details::new()
                .field("agent", agent)
                .field("partIndex", part_index)
                .field("contentType", content_type)
                .field("accepted", accepted)
                .into(),
            AcpError::InvalidContentTypePattern {
                agent,
                pattern,
                reason,
            } => Details::new()
                .field("agent", agent)
                .field("pattern", pattern)
                .field("reason", reason)
                .into(),
            AcpError::Unserializable { reason } => Details::new().field("reason", reason).into(),
            AcpError::Limit(e) => e.details(),
            AcpError::Resume(e) => e.details(),
            AcpError::OutOfOrder { what, event_type } => Details::new()
                .field("what", what)
                .field("eventType", event_type)
                .into(),
        }
    }
}
