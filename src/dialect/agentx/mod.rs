//! The AgentX message format: wire model, stream decoder and assembler, builders, body view.
//!
//! Source: AgentX (dustland), "Communication and Message Architecture"
//! (`docs/arch/04-communication.md` in the `dustland/roboco` repository, commit `505564d`,
//! 2025-06-17; the same text is `docs/content/docs/design/communication.mdx`, commit `8239d1d`),
//! and "Tool Call and Execution" (`docs/03-tool-call.md`, commit `d31b2b9`) for the
//! self-correction loop. (That document words the validation error "Validation Error: Missing
//! required argument 'path' for tool 'write_file'"; the message flows use "Validation failed for
//! tool 'write_file': Missing required argument 'path'.", which is what the tests use. To
//! agentwire, the message is data either way.) The document is a design document, not a
//! wire specification: it gives the schema (pydantic models), three example flows and the
//! streaming rule; what it leaves open is decided below and marked as agentwire's choice.
//!
//! # The format
//!
//! A [`Message`] is `{id, role, parts}`: `id` is `msg_` and 32 hex digits, `role` is `user` or
//! `assistant`, and `parts` is a list of [`Part`]s tagged by `type`: `text {text}`,
//! `tool_call {tool_call_id, tool_name, args}` (`tool_call_id` is `tc_` and 32 hex digits, `args` an
//! object), `tool_result {tool_call_id, result}` (any JSON) and `tool_error {tool_call_id,
//! error_type, message}` (`error_type` is `VALIDATION` or `EXECUTION`). Unknown part types and
//! unknown fields are kept, never rejected.
//!
//! # Streaming
//!
//! "The client should not assume a single request will yield a single response. Instead, it should
//! be prepared to receive multiple, distinct `Message` objects over the same streaming connection"
//! (§4.1). The client sends `POST /chat` ([`ChatRequest`]); the answer is a sequence of message
//! *packets*. "The `id` field links these text chunks back to the same logical message" (§4.2):
//! packets with the same `id` are one logical message, their parts appended in order, and a text
//! packet following text concatenates onto it (`"Hello"` + `" there!"`, §3.1).
//!
//! agentwire's choices where the document is silent:
//! - **Framing.** The document does not say how packets are framed on the connection. agentwire uses
//!   server-sent events (`text/event-stream`), one packet's JSON per event `data`, no `event` name
//!   (every event's data is read as a packet, whatever its name). SSE is what the rest of this crate
//!   speaks, it delimits packets unambiguously (JSON text has no raw line breaks, so one `data:` line
//!   carries a packet), and browsers and proxies handle it. An end-of-stream sentinel `[DONE]` is
//!   ignored.
//! - **Packets without `id`.** The §3.1 example streams `{"role": "assistant", "parts": [...]}`
//!   packets with no `id` that plainly form one message ("Hello there!"). A packet without `id`
//!   therefore continues the message the previous packet went to when the roles are the same, and
//!   starts a new message (without id) otherwise.
//! - **Which text concatenates.** Only a text part that comes *first* in a packet joins the
//!   message's last part (when that is text); parts within one packet are kept as sent.
//! - **The end.** The document has no end-of-response marker: a response ends when the connection
//!   closes. [`AgentxStream::finish`] treats a close on an event boundary as complete and a close
//!   inside an SSE event as a break ([`AgentxError::StreamIncomplete`]; a packet that was whole is
//!   still applied); [`AgentxStream::finish_interrupted`] is for breaks the transport saw. A close
//!   exactly between two packets cannot be told from the end.
//! - **Ids.** Ids that are not `msg_`/`tc_` and 32 lowercase hex digits (the document's own
//!   examples use `msg_abc` and `tc_123`) are accepted and reported as [`AgentxError::InvalidId`]
//!   warnings: a message id when the message first appears, a tool call id on its `tool_call`
//!   part (not on the results and errors that refer to it).
//! - **The request.** The document shows "`POST /chat` (User Message)" without a body schema;
//!   agentwire sends the conversation so far as `{"messages": [Message…]}` ([`ChatRequest`]).
//!
//! # Body view
//!
//! [`Message::body`] maps a message onto the common [`Body`](crate::body::Body) model:
//!
//! | AgentX part | `type` (kind) | `name` | `contentType` | `content` | `metadata` |
//! |---|---|---|---|---|---|
//! | `text` | `text` | none (main content) | `text/plain` | the text | none |
//! | `tool_call` | `tool_call` | `/tool_calls/<tool_call_id>` | `application/json` | `args` as JSON text | `toolCallId`, `toolName` |
//! | `tool_result` | `tool_result` | `/tool_results/<tool_call_id>` | `application/json` | `result` as JSON text | `toolCallId` |
//! | `tool_error` | `tool_error` | `/tool_errors/<tool_call_id>` | `text/plain` | `message` | `toolCallId`, `errorType` |
//! | any other | its `type` (`data` if none) | `/parts/<index>` | `application/json` | the whole part as JSON text | `type` |
//!
//! In a name, `%` and `/` of an id are written `%25` and `%2F`, an empty id is written `_`, and a
//! name already used in the message gets `~2`, `~3`… appended, so names are paths of two segments
//! and unique in their message. Every part is `plain` encoded and `complete`, except in
//! [`Assembler::body`], where the last part of the message being streamed is `streaming` (or
//! `incomplete` once a stream broke).
//!
//! # Example
//!
//! ```
//! use agentwire::dialect::agentx::{
//!     AgentxStream, ChatRequest, Message, MessageBuilder, Part, Role, StreamStatus, StreamUpdate,
//! };
//! use agentwire::body::PartKind;
//! use serde_json::json;
//!
//! // The client asks…
//! let request = ChatRequest::new(vec![Message::user_text("Write hello.txt, please.")]);
//! assert!(request.to_json().starts_with(r#"{"messages":[{"id":"msg_"#));
//!
//! // …a server answers with packets of one logical message, as SSE.
//! let mut reply = MessageBuilder::new(Role::Assistant);
//! let args = json!({"path": "/hello.txt", "content": "Hello, world!"});
//! let call = Part::tool_call("write_file", args.as_object().cloned().unwrap_or_default());
//! let call_id = call.tool_call_id().unwrap_or_default().to_owned();
//! let mut sse = reply.packet(vec![call]).to_sse();
//! sse += &reply.tool_result(&call_id, json!({"status": "success"})).to_sse();
//! sse += &reply.text("I have").to_sse();
//! sse += &reply.text(" written the file.").to_sse();
//!
//! // The client decodes and assembles, with live updates for the UI.
//! let mut stream = AgentxStream::new(Default::default());
//! let mut typed = String::new();
//! for chunk in sse.as_bytes().chunks(7) {
//!     stream.feed(chunk);
//!     for update in stream.drain_updates() {
//!         if let StreamUpdate::TextDelta { delta, .. } = update {
//!             typed.push_str(&delta);
//!         }
//!     }
//! }
//! stream.finish();
//! assert_eq!(stream.status(), StreamStatus::Complete);
//! assert_eq!(typed, " written the file."); // the first text arrived as a whole new part
//! let message = &stream.messages()[0];
//! assert_eq!(message, reply.message());
//! assert_eq!(message.text(), "I have written the file.");
//!
//! let body = message.body();
//! assert_eq!(body.parts[0].kind, PartKind::ToolCall);
//! assert_eq!(body.parts[0].name.as_deref(), Some(format!("/tool_calls/{call_id}").as_str()));
//! assert_eq!(body.parts[2].content.as_deref(), Some("I have written the file."));
//! ```

mod assemble;
mod body;
mod build;
mod model;
mod packet;

pub use assemble::{
    AgentxStream, Assembler, AssemblerOptions, Severity, StreamStatus, StreamUpdate,
};
pub use build::MessageBuilder;
pub use model::{
    is_message_id, is_tool_call_id, new_message_id, new_tool_call_id, ChatRequest, Message, Part,
    Role, TextPart, ToolCallPart, ToolErrorPart, ToolErrorType, ToolResultPart,
};

use crate::error::ErrorCode;
use crate::limits::LimitError;
use crate::sse::{ResumeError, SseError};

/// Errors and warnings of the AgentX dialect. Every one keeps the input it is about.
///
/// Codes (stable): `invalid-json`, `invalid-packet`, `invalid-part`, `invalid-id`, `role-mismatch`,
/// `unknown-part-type`, `stream-incomplete`, the SSE layer's own (`event-too-large`,
/// `incomplete-event`, `unencodable-field`), the limits' (`message-too-large`, `too-many-parts`,
/// `part-too-large`, `too-deep`, `stream-too-large`) and a resumed stream's (`resume-gap`,
/// `duplicate-event`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentxError {
    /// A packet (an event's `data`) is not JSON. The packet is skipped.
    #[error("packet is not valid JSON (line {line}, column {column}): {reason}")]
    InvalidJson {
        /// serde_json's description.
        reason: String,
        /// 1-based line in `data`.
        line: usize,
        /// 1-based column in `data`, in bytes.
        column: usize,
        /// The packet as received.
        data: String,
    },
    /// A packet is JSON of the wrong shape: not an object, no string `role`, no `parts` array, a
    /// part that is not an object, an `id` that is neither a string nor `null`. The packet is
    /// skipped.
    #[error("packet has the wrong shape: {reason}")]
    InvalidPacket {
        /// serde_json's description.
        reason: String,
        /// The packet as received.
        data: String,
    },
    /// A part of a known `type` without that type's fields (e.g. a `text` part without `text`, a
    /// `tool_call` whose `args` is not an object). It is kept whole as [`Part::Other`]. (The tool
    /// loop answers such a `tool_call`, when its id and name are strings, with a `VALIDATION`
    /// error.)
    #[error("part {part_index} of message {message_index} is a malformed {kind} part: {reason}")]
    InvalidPart {
        /// 0-based position of the message in the stream.
        message_index: u32,
        /// 0-based position of the part in its message.
        part_index: u32,
        /// The part's `type` (`""` when absent or not a string).
        kind: String,
        /// What is wrong.
        reason: &'static str,
        /// The part as received.
        part: serde_json::Value,
    },
    /// An id that is not the document's shape (`msg_` or `tc_` and 32 lowercase hex digits). A
    /// warning: the id is used as it is.
    #[error("{field} `{value}` is not {expected}")]
    InvalidId {
        /// `id` (a message's) or `tool_call_id` (a tool call's).
        field: &'static str,
        /// The id as received.
        value: String,
        /// The expected shape: `msg_ + 32 lowercase hex` or `tc_ + 32 lowercase hex`.
        expected: &'static str,
    },
    /// A packet for an existing message has another `role`. Its parts are appended; the message
    /// keeps its first role.
    #[error("a packet of message {id} has role {got}, the message has role {role}")]
    RoleMismatch {
        /// The message's id.
        id: String,
        /// The message's role.
        role: Role,
        /// The packet's role.
        got: Role,
    },
    /// A part of a type the document does not define (kept as [`Part::Other`]). Reported only in
    /// strict mode: lenient mode keeps unknown parts silently, as the format asks.
    #[error("part {part_index} of message {message_index} has the unknown type `{kind}`")]
    UnknownPartType {
        /// 0-based position of the message in the stream.
        message_index: u32,
        /// 0-based position of the part in its message.
        part_index: u32,
        /// The part's `type`.
        kind: String,
    },
    /// A limit of [`AssemblerOptions::limits`] was hit.
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// A resumed stream lost or repeated events (`resume-gap`, `duplicate-event`).
    #[error(transparent)]
    Resume(#[from] ResumeError),
    /// The SSE layer reported a problem.
    #[error(transparent)]
    Sse(#[from] SseError),
    /// The stream broke: it ended inside an SSE event, or the transport reported a failure. What
    /// arrived is kept; the stream's status is `incomplete`.
    #[error("the stream broke before the response ended: {reason}")]
    StreamIncomplete {
        /// Why, e.g. `the stream ended inside an SSE event` or the transport's message.
        reason: String,
        /// Packets applied before the break.
        packets: u64,
    },
}

impl AgentxError {
    pub(crate) fn from_json(e: &serde_json::Error, data: &str) -> Self {
        match agentwire_core::json::not_json(e) {
            false => AgentxError::InvalidPacket {
                reason: e.to_string(),
                data: data.to_owned(),
            },
            true => AgentxError::InvalidJson {
                reason: e.to_string(),
                line: e.line(),
                column: e.column(),
                data: data.to_owned(),
            },
        }
    }
}

impl ErrorCode for AgentxError {
    fn code(&self) -> &'static str {
        match self {
            AgentxError::InvalidJson { .. } => "invalid-json",
            AgentxError::InvalidPacket { .. } => "invalid-packet",
            AgentxError::InvalidPart { .. } => "invalid-part",
            AgentxError::InvalidId { .. } => "invalid-id",
            AgentxError::RoleMismatch { .. } => "role-mismatch",
            AgentxError::Sse(e) => e.code(),
            AgentxError::StreamIncomplete { .. } => "stream-incomplete",
            AgentxError::UnknownPartType { .. } => "unknown-part-type",
            AgentxError::Limit(e) => e.code(),
            AgentxError::Resume(e) => e.code(),
        }
    }

    fn details(&self) -> serde_json::Value {
        use crate::error::Details;
        match self {
            AgentxError::InvalidJson {
                line, column, data, ..
            } => Details::new()
                .field("line", line)
                .field("column", column)
                .field("data", data)
                .into(),
            AgentxError::InvalidPacket { data, .. } => Details::new().field("data", data).into(),
            AgentxError::InvalidPart {
                message_index,
                part_index,
                kind,
                reason,
                part,
            } => Details::new()
                .field("messageIndex", message_index)
                .field("partIndex", part_index)
                .field("kind", kind)
                .field("reason", reason)
                .field("part", part)
                .into(),
            AgentxError::InvalidId {
                field,
                value,
                expected,
            } => Details::new()
                .field("field", field)
                .field("value", value)
                .field("expected", expected)
                .into(),
            AgentxError::RoleMismatch { id, role, got } => Details::new()
                .field("id", id)
                .field("role", role)
                .field("got", got)
                .into(),
            AgentxError::Sse(e) => e.details(),
            AgentxError::StreamIncomplete { reason, packets } => Details::new()
                .field("reason", reason)
                .field("packets", packets)
                .into(),
            AgentxError::UnknownPartType {
                message_index,
                part_index,
                kind,
            } => Details::new()
                .field("messageIndex", message_index)
                .field("partIndex", part_index)
                .field("kind", kind)
                .into(),
            AgentxError::Limit(e) => e.details(),
            AgentxError::Resume(e) => e.details(),
        }
    }
}
