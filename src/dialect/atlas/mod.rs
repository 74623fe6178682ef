//! The Atlas structured inter-agent message format: [`StructuredMessage`], its factories, tool
//! calls and results, exact JSON round trips and the common [`Body`](crate::body::Body) view.
//!
//! Source: the Atlas framework's "Agent Messaging System" documentation
//! (`docs/components/agents/messaging.md`, published at
//! <https://atlas.inherent.design/v0/components/agents/messaging.html>) and its reference
//! implementation `atlas/agents/messaging/message.py` with its tests
//! `atlas/tests/test_structured_message.py`, in the GitHub repository inherent-design/atlas
//! (commit `681a474d55e68c361ef03ed9987594190643dd43`). Where the issue that specified this module
//! and the reference differ, this module follows the issue; the differences are listed below.
//!
//! ```
//! use agentwire::dialect::atlas::{MessageType, StructuredMessage, ToolStatus};
//! use serde_json::json;
//!
//! // The user asks the weather agent (the documentation's first example).
//! let mut query = StructuredMessage::new("What's the weather in New York?");
//! query.set_message_type(MessageType::Query);
//! query.metadata.insert("priority".into(), json!("high"));
//! query.task_id = "weather-task-123".into();
//! query.source_agent = Some("user".into());
//! query.target_agent = Some("weather_agent".into());
//!
//! // The weather agent calls a tool and answers with its result.
//! let args = json!({"location": "New York", "unit": "fahrenheit"});
//! let mut call = StructuredMessage::new("Checking the forecast");
//! let call_id = call.add_tool_call("get_weather", args.as_object().cloned().unwrap_or_default());
//!
//! let mut response =
//!     StructuredMessage::create_response("The weather in New York is sunny and 72°F.", &query);
//! response.add_tool_result(
//!     "get_weather",
//!     json!({"temp": 72, "conditions": "sunny"}),
//!     call_id.as_str(),
//!     ToolStatus::Success,
//!     None,
//! );
//! assert_eq!(response.source_agent.as_deref(), Some("weather_agent"));
//! assert_eq!(response.target_agent.as_deref(), Some("user"));
//! assert_eq!(response.message_type(), Some(MessageType::Response));
//! assert_eq!(response.in_reply_to(), Some("weather-task-123"));
//!
//! // On the wire: the reference's `to_dict` shape, read back exactly (float timestamp included).
//! let wire = response.to_json();
//! assert_eq!(StructuredMessage::from_json(&wire)?, response);
//!
//! // As a body: the text, a `tool_result` part, and `/metadata`.
//! let body = response.to_body();
//! assert_eq!(body.parts[0].content.as_deref(), Some("The weather in New York is sunny and 72°F."));
//! assert_eq!(body.parts[1].name.as_deref(), Some(format!("/tool_results/{call_id}").as_str()));
//! assert_eq!(StructuredMessage::from_body(&body)?, response);
//! # Ok::<(), agentwire::dialect::atlas::AtlasError>(())
//! ```
//!
//! # The format
//!
//! A message is a JSON object (the reference's `to_dict`):
//!
//! | field | JSON type | meaning |
//! |---|---|---|
//! | `content` | string | the main text content (required) |
//! | `metadata` | object | `type` (the message type), `in_reply_to` (the `task_id` answered), anything else |
//! | `task_id` | string | identifies related messages; a UUID v4 when generated |
//! | `timestamp` | number | creation time, Unix seconds with a fraction (Python's `time.time()`) |
//! | `tool_calls` | array of `{id, name, arguments}` | tool calls requested |
//! | `tool_results` | array of `{name, result, call_id, status, error}` | results of tool executions |
//! | `source_agent` | string or `null` | the sender |
//! | `target_agent` | string or `null` | the receiver |
//!
//! Message types are strings in `metadata.type`, written lowercase as the reference's
//! `MessageType` constants are: `"query"`, `"task"`, `"response"`, `"result"`, `"error"`,
//! `"status"`, `"tool_request"`, `"tool_response"` ([`MessageType`]). They are read ignoring ASCII
//! case, and `metadata` itself is kept exactly as sent (`"QUERY"` stays `"QUERY"`). A tool
//! result's `status` is `"success"` or `"error"` ([`ToolStatus`]).
//!
//! Reading ([`StructuredMessage::from_json`], [`from_value`](StructuredMessage::from_value), their
//! `_with` forms and [`ReadOptions`]) checks every field's type; a key whose value is `null` counts
//! as missing. Fields the format does not define, at the top level and in tool calls and results,
//! are kept in `extra` and written back.
//!
//! # Exact floats
//!
//! serde_json, as this crate builds it (without `float_roundtrip`), reads some floats one ULP
//! off: about one `time.time()` timestamp in sixty. [`StructuredMessage::from_json`] (and
//! [`from_body`](StructuredMessage::from_body) for JSON part content) reads JSON with agentwire's
//! own reader, which reads every float literal as the nearest `f64` (as `JSON.parse` and the
//! standard library's parser do), so timestamps and floats in `metadata`, arguments and results
//! come back bit for bit.
//!
//! # The body view
//!
//! [`StructuredMessage::to_body`] and [`StructuredMessage::from_body`]; `from_body(&m.to_body())`
//! is `m` (for a finite timestamp). Parts, in this order:
//!
//! | part | `type` | `name` | `contentType` | `content` | `metadata` |
//! |---|---|---|---|---|---|
//! | the content | `text` | none | `text/plain` | `content` | none |
//! | each tool call | `tool_call` | `/tool_calls/<id>` | `application/json` | `arguments` as JSON | `toolCallId`, `toolName`, `extra`* |
//! | each tool result | `tool_result` (`tool_error` when `status` is `error`) | `/tool_results/<call_id>` | `application/json` | `result` as JSON | `toolCallId`, `toolName`, `status`, `error`*, `extra`* |
//! | metadata and envelope | `data` | `/metadata` | `application/json` | `metadata` as JSON | `task_id`, `timestamp`, `source_agent`*, `target_agent`*, `extra`* |
//!
//! (* only when present or non-empty.) Names follow the body's rules (ASCII letters, digits, `.`,
//! `-`, `_`; no `.` or `..` segment; at most 1024 bytes): in an id, every byte other than
//! `A-Z a-z 0-9 - _` is written `.XX` (two uppercase hex digits: `x/y` is `x.2Fy`), and an empty or
//! repeated id gets `._<index>` appended (its position in `tool_calls` or `tool_results`), so
//! names are unique. A UUID, the ids Atlas generates, is its own name: a result's part is its
//! call's with `/tool_results` for `/tool_calls`. Reading uses the part metadata, not the names.
//!
//! # Errors
//!
//! [`AtlasError`], with stable codes and the field's path in `details.path` (`metadata.type`,
//! `tool_calls[1].arguments`, `parts[2].metadata.toolName`; `""` is the message itself):
//! `invalid-json`, `missing-field`, `wrong-type`, `unknown-message-type`, `unknown-tool-status`,
//! `invalid-tool-arguments`, `invalid-part-content`.
//!
//! # Differences from the reference
//!
//! - Unknown top-level fields are kept (`extra`); the reference's `from_dict` drops them.
//! - Wrong types are errors; the reference takes any value. A tool call needs a string `name` and
//!   an object `arguments`, a tool result a string `name` and `call_id`.
//! - Lenient reading (the default) fills in a missing `metadata`, `task_id` or `timestamp`; strict
//!   reading requires them, as the reference's `from_dict` does (`KeyError`). An empty `task_id`
//!   is kept (the reference's constructor replaces it, as any false value, with a new UUID).
//! - Message types are read ignoring case; [`StructuredMessage::message_type`] is `None` where
//!   the reference's `message_type` says `"unknown"`.
//! - [`StructuredMessage::create_task`] always sets the type `task`; in the reference a `type` key
//!   in `task_data` replaces it.
//! - A non-finite timestamp is written as `null` (the reference writes `NaN`, which is not JSON).
//! - [`StructuredMessage::add_tool_call_checked`] and [`StructuredMessage::check_tool_calls`]
//!   check arguments with an [`ArgumentCheck`] (the documentation's advice "validate tool
//!   arguments before execution"); the reference has no such check.

mod body;
mod message;
mod read;

pub use message::{
    ArgumentCheck, MessageType, ReadOptions, StructuredMessage, ToolCall, ToolResult, ToolStatus,
};

use serde_json::Value;

use crate::error::ErrorCode;

/// Errors of the Atlas format. Each keeps the offending input and the path of the field it is
/// about (see the module documentation for paths).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AtlasError {
    /// The text is not JSON.
    #[error("not valid JSON (line {line}, column {column}): {reason}")]
    InvalidJson {
        /// serde_json's description.
        reason: String,
        /// 1-based line.
        line: usize,
        /// 1-based column, in bytes.
        column: usize,
        /// The text as given, its first 64 KiB (cut at a character boundary).
        input: String,
    },
    /// A required field is missing (or `null`).
    #[error("{} is missing", shown(.path))]
    MissingField {
        /// The field's path, e.g. `content`, `tool_calls[0].name`.
        path: String,
    },
    /// A field has the wrong JSON type.
    #[error("{} must be a JSON {expected}, found {}", shown(.path), kind_of(.found))]
    WrongType {
        /// The field's path, e.g. `metadata`, `tool_calls[1].arguments`.
        path: String,
        /// The JSON type expected: `object`, `array`, `string` or `number`.
        expected: &'static str,
        /// The value found.
        found: Value,
    },
    /// Strict reading: `metadata.type` is not one of the format's message types.
    #[error("unknown message type `{value}` at `{path}`")]
    UnknownMessageType {
        /// The field's path (`metadata.type`).
        path: String,
        /// The type as sent.
        value: String,
    },
    /// Strict reading: a tool result's `status` is neither `success` nor `error`.
    #[error("unknown tool status `{value}` at `{path}`")]
    UnknownToolStatus {
        /// The field's path, e.g. `tool_results[0].status`.
        path: String,
        /// The status as sent.
        value: String,
    },
    /// An [`ArgumentCheck`] rejected a tool call's arguments.
    #[error("arguments of tool `{tool}` at `{path}` rejected: {reason}")]
    InvalidToolArguments {
        /// The arguments' path: `arguments` when adding a call, `tool_calls[i].arguments` when
        /// checking a message's calls.
        path: String,
        /// The tool's name.
        tool: String,
        /// The arguments rejected.
        arguments: Box<Value>,
        /// The checker's message.
        reason: String,
        /// The checker's error code, e.g. `invalid-arguments`.
        cause_code: &'static str,
        /// The checker's error details.
        cause_details: Box<Value>,
    },
    /// A body part's content cannot be read: not JSON, bad base64, not UTF-8, or an unknown
    /// content encoding.
    #[error("cannot read the content at `{path}`: {reason}")]
    InvalidPartContent {
        /// The content's path, e.g. `parts[1].content`.
        path: String,
        /// What is wrong.
        reason: String,
        /// The content as given.
        content: String,
    },
}

impl AtlasError {
    pub(crate) fn wrong_type(path: &str, expected: &'static str, found: &Value) -> Self {
        AtlasError::WrongType {
            path: path.to_owned(),
            expected,
            found: found.clone(),
        }
    }

    pub(crate) fn invalid_arguments<E: ErrorCode>(
        path: String,
        tool: &str,
        arguments: Value,
        cause: &E,
    ) -> Self {
        AtlasError::InvalidToolArguments {
            path,
            tool: tool.to_owned(),
            arguments: Box::new(arguments),
            reason: cause.to_string(),
            cause_code: cause.code(),
            cause_details: Box::new(cause.details()),
        }
    }
}

/// A path for a message: the message itself when empty.
fn shown(path: &str) -> String {
    if path.is_empty() {
        "the message".to_owned()
    } else {
        format!("`{path}`")
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl ErrorCode for AtlasError {
    fn code(&self) -> &'static str {
        match self {
            AtlasError::InvalidJson { .. } => "invalid-json",
            AtlasError::MissingField { .. } => "missing-field",
            AtlasError::WrongType { .. } => "wrong-type",
            AtlasError::UnknownMessageType { .. } => "unknown-message-type",
            AtlasError::UnknownToolStatus { .. } => "unknown-tool-status",
            AtlasError::InvalidToolArguments { .. } => "invalid-tool-arguments",
            AtlasError::InvalidPartContent { .. } => "invalid-part-content",
        }
    }

    /// `{"path": …}` plus, per error: `line`, `column`, `input` (`invalid-json`, without `path`);
    /// `expected`, `found` (`wrong-type`); `value` (`unknown-message-type`,
    /// `unknown-tool-status`); `tool`, `arguments`, `reason`, `cause: {code, details}`
    /// (`invalid-tool-arguments`); `reason`, `content` (`invalid-part-content`).
    fn details(&self) -> Value {
        use crate::error::Details;
        match self {
            AtlasError::InvalidJson {
                line,
                column,
                input,
                ..
            } => Details::new()
                .field("line", line)
                .field("column", column)
                .field("input", input)
                .into(),
            AtlasError::MissingField { path } => Details::new().field("path", path).into(),
            AtlasError::WrongType {
                path,
                expected,
                found,
            } => Details::new()
                .field("path", path)
                .field("expected", expected)
                .field("found", found)
                .into(),
            AtlasError::UnknownMessageType { path, value }
            | AtlasError::UnknownToolStatus { path, value } => Details::new()
                .field("path", path)
                .field("value", value)
                .into(),
            AtlasError::InvalidToolArguments {
                path,
                tool,
                arguments,
                reason,
                cause_code,
                cause_details,
            } => Details::new()
                .field("path", path)
                .field("tool", tool)
                .field("arguments", arguments)
                .field("reason", reason)
                .field(
                    "cause",
                    &Details::new()
                        .field("code", cause_code)
                        .field("details", cause_details),
                )
                .into(),
            AtlasError::InvalidPartContent {
                path,
                reason,
                content,
            } => Details::new()
                .field("path", path)
                .field("reason", reason)
                .field("content", content)
                .into(),
        }
    }
}
