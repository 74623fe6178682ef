//! The Atlas message model: [`StructuredMessage`], its tool calls and results, message types, the
//! factories and the JSON conversions.
//!
//! Source: `atlas/agents/messaging/message.py` (`MessageType`, `ToolCall`, `ToolResult`,
//! `StructuredMessage`) of inherent-design/atlas, commit `681a474`.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::{read, AtlasError};
use crate::error::ErrorCode;
use crate::platform::{now_unix_seconds, uuid_v4};
use crate::wire::{CowStr, JsonMap};
use crate::wire_enum;

/// What a message is: the string in its `metadata.type` (the reference's `MessageType` constants).
///
/// | variant | wire string | meaning (from the Atlas documentation) |
/// |---|---|---|
/// | `Query` | `"query"` | initial user query or question |
/// | `Task` | `"task"` | task assignment from one agent to another |
/// | `Response` | `"response"` | response to a query or task |
/// | `Result` | `"result"` | final or intermediate task result |
/// | `Error` | `"error"` | error notification |
/// | `Status` | `"status"` | status update or progress report |
/// | `ToolRequest` | `"tool_request"` | request to use a tool |
/// | `ToolResponse` | `"tool_response"` | response containing tool execution results |
///
/// agentwire writes the lowercase strings, as the reference does. Reading is ASCII
/// case-insensitive (`"QUERY"`, `"Tool_Request"` are `Query`, `ToolRequest`); any other string is
/// `Other`, kept as sent.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MessageType {
    /// `"query"`: an initial user query or question.
    Query,
    /// `"task"`: a task assignment from one agent to another.
    Task,
    /// `"response"`: a response to a query or task.
    Response,
    /// `"result"`: a final or intermediate task result.
    Result,
    /// `"error"`: an error notification.
    Error,
    /// `"status"`: a status update or progress report.
    Status,
    /// `"tool_request"`: a request to use a tool.
    ToolRequest,
    /// `"tool_response"`: a response containing tool execution results.
    ToolResponse,
    /// A type this version does not know, kept as sent.
    Other(String),
}

impl MessageType {
    /// The TypeScript declaration of this type: its known literals, open to others.
    pub const TS_TYPE: &'static str = "export type AtlasMessageType = \"query\" | \"task\" | \"response\" | \"result\" | \"error\" | \"status\" | \"tool_request\" | \"tool_response\" | (string & {});";

    /// The wire string (lowercase for the known types; `Other` as sent).
    pub fn as_str(&self) -> &str {
        match self {
            Self::Query => "query",
            Self::Task => "task",
            Self::Response => "response",
            Self::Result => "result",
            Self::Error => "error",
            Self::Status => "status",
            Self::ToolRequest => "tool_request",
            Self::ToolResponse => "tool_response",
            Self::Other(s) => s,
        }
    }

    /// Whether this is one of the eight types of the format (not `Other`).
    pub fn is_known(&self) -> bool {
        !matches!(self, Self::Other(_))
    }
}

impl From<&str> for MessageType {
    /// Reads a wire string, ignoring ASCII case; unknown strings become `Other` (as sent).
    fn from(s: &str) -> Self {
        match s.to_ascii_lowercase().as_str() {
            "query" => Self::Query,
            "task" => Self::Task,
            "response" => Self::Response,
            "result" => Self::Result,
            "error" => Self::Error,
            "status" => Self::Status,
            "tool_request" => Self::ToolRequest,
            "tool_response" => Self::ToolResponse,
            _ => Self::Other(s.to_owned()),
        }
    }
}

impl std::fmt::Display for MessageType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for MessageType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for MessageType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = CowStr::deserialize(d)?;
        Ok(Self::from(&*s.0))
    }
}

wire_enum! {
    /// How a tool execution went (a tool result's `status`). Reading is exact (case-sensitive), as
    /// in the reference.
    ToolStatus as "AtlasToolStatus" {
        /// `"success"`: `result` holds the tool's output.
        Success = "success",
        /// `"error"`: the tool failed; `error` says why (`result` is usually `null`).
        Error = "error",
    }
}

impl Default for ToolStatus {
    /// `success`, the reference's default.
    fn default() -> Self {
        Self::Success
    }
}

/// The keys of a tool call object; others are kept in [`ToolCall::extra`].
pub(crate) const TOOL_CALL_FIELDS: [&str; 3] = ["id", "name", "arguments"];
/// The keys of a tool result object; others are kept in [`ToolResult::extra`].
pub(crate) const TOOL_RESULT_FIELDS: [&str; 5] = ["name", "result", "call_id", "status", "error"];
/// The keys of a message object; others are kept in [`StructuredMessage::extra`].
pub(crate) const MESSAGE_FIELDS: [&str; 8] = [
    "content",
    "metadata",
    "task_id",
    "timestamp",
    "tool_calls",
    "tool_results",
    "source_agent",
    "target_agent",
];

/// A call of a tool, as an element of a message's `tool_calls`:
/// `{"id": "…", "name": "get_weather", "arguments": {"location": "London"}}`.
///
/// Reading: `id` is generated (a UUID v4) when missing or `null`, as the reference's constructor
/// does; `name` (a string) and `arguments` (an object) are required.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Atlas")
)]
pub struct ToolCall {
    /// The call's id (the reference generates a UUID v4); a [`ToolResult::call_id`] refers to it.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments: a JSON object of the tool's parameters.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub arguments: JsonMap,
    /// Fields this version does not know, kept as sent. Keys naming a field above are not written.
    #[serde(flatten, serialize_with = "write_tool_call_extra")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

/// The result of a tool execution, as an element of a message's `tool_results`:
/// `{"name": "get_weather", "result": {"temp": 22}, "call_id": "…", "status": "success", "error": null}`.
///
/// Reading: `name` and `call_id` (strings) are required; a missing `result` reads as `null`, a
/// missing or `null` `status` as `success` (the reference's default), a missing `error` as no
/// error. Writing: `error` is always written, `null` when there is none, as the reference's
/// `add_tool_result` does.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Atlas")
)]
pub struct ToolResult {
    /// The tool's name.
    pub name: String,
    /// What the tool returned: any JSON value (`null` when it failed).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
    pub result: Value,
    /// The id of the [`ToolCall`] this answers.
    pub call_id: String,
    /// `success` or `error`.
    pub status: ToolStatus,
    /// Why the tool failed, when `status` is `error`.
    pub error: Option<String>,
    /// Fields this version does not know, kept as sent. Keys naming a field above are not written.
    #[serde(flatten, serialize_with = "write_tool_result_extra")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

/// A structured inter-agent message of the Atlas format.
///
/// Its JSON (what the reference's `to_dict` gives; keys in this order):
///
/// ```json
/// {
///   "content": "What's the weather in New York?",
///   "metadata": {"type": "query", "priority": "high"},
///   "task_id": "weather-task-123",
///   "timestamp": 1712150400.123456,
///   "tool_calls": [],
///   "tool_results": [],
///   "source_agent": "user",
///   "target_agent": "weather_agent"
/// }
/// ```
///
/// `source_agent` and `target_agent` are written as `null` when not set, as the reference does.
/// Fields the format does not define are kept in [`extra`](Self::extra) and written back after the
/// known ones, so a message read from JSON and written again keeps them.
///
/// # Round trips
///
/// A message written as JSON and read back is unchanged, floats included, as long as its
/// `timestamp` is finite (JSON has no NaN or infinity: a non-finite timestamp is written as
/// `null`), `metadata.type`, when present, is a string or `null`, and no `extra` key names a
/// known field. In the other direction, JSON → message → JSON keeps every key and value except
/// what reading fills in (a generated `id`, `"status": "success"`, `"error": null`, `null`
/// agents), what it reads as its type (an integer `timestamp`, a float: `1` is written `1.0`;
/// `null` `tool_calls` and `tool_results`, empty lists: written `[]`) and the order of keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Atlas")
)]
pub struct StructuredMessage {
    /// The main text content.
    pub content: String,
    /// Free-form information about the message: `type` (a [`MessageType`] string), `in_reply_to`
    /// (the `task_id` answered) and whatever else the agents put there, kept as sent.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub metadata: JsonMap,
    /// Identifies the task the message belongs to (a UUID v4 when generated).
    pub task_id: String,
    /// When the message was created: Unix time in seconds, with a fractional part (Python's
    /// `time.time()`).
    pub timestamp: f64,
    /// The tool calls requested in this message, in order.
    pub tool_calls: Vec<ToolCall>,
    /// The results of tool executions, in order.
    pub tool_results: Vec<ToolResult>,
    /// The agent that sent the message.
    pub source_agent: Option<String>,
    /// The agent that should receive the message.
    pub target_agent: Option<String>,
    /// Top-level fields the format does not define, kept as sent. Keys naming a field above are
    /// not written.
    #[serde(flatten, serialize_with = "write_message_extra")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

/// How strictly a message is read: by `StructuredMessage.fromJSON` in JavaScript, by
/// [`from_value_with`](StructuredMessage::from_value_with) and
/// [`from_json_with`](StructuredMessage::from_json_with) in Rust.
///
/// Both modes reject wrong types (`wrong-type`) and a missing `content` (`missing-field`), and
/// both keep unknown fields.
///
/// | | lenient (default) | strict |
/// |---|---|---|
/// | unknown `metadata.type` | kept as sent | `unknown-message-type` |
/// | unknown tool result `status` | kept as sent | `unknown-tool-status` |
/// | missing `metadata`, `task_id`, `timestamp` | `{}`, a new UUID v4, now | `missing-field` (as the reference's `from_dict`) |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Atlas")
)]
pub struct ReadOptions {
    /// Reject unknown message types and tool statuses, and require `metadata`, `task_id` and
    /// `timestamp` (default `false`).
    #[serde(default)]
    pub strict: bool,
}

impl ReadOptions {
    /// Lenient reading (the default): unknown values kept, missing envelope fields filled in.
    pub const LENIENT: Self = Self { strict: false };
    /// Strict reading: unknown values and missing envelope fields are errors.
    pub const STRICT: Self = Self { strict: true };
}

/// Checks a tool call's arguments before it is added to a message (e.g. against the tool's JSON
/// Schema in a registry).
///
/// ```
/// use agentwire::dialect::atlas::ArgumentCheck;
/// use agentwire::ErrorCode;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("unknown tool {0}")]
/// struct UnknownTool(String);
///
/// impl ErrorCode for UnknownTool {
///     fn code(&self) -> &'static str {
///         "unknown-tool"
///     }
/// }
///
/// /// Knows one tool, which takes anything.
/// struct OnlyWeather;
///
/// impl ArgumentCheck for OnlyWeather {
///     type Error = UnknownTool;
///     fn check(&self, tool_name: &str, _args: &serde_json::Value) -> Result<(), UnknownTool> {
///         if tool_name == "get_weather" { Ok(()) } else { Err(UnknownTool(tool_name.into())) }
///     }
/// }
/// ```
pub trait ArgumentCheck {
    /// Why arguments were rejected; its [`code`](ErrorCode::code) and
    /// [`details`](ErrorCode::details) are kept in [`AtlasError::InvalidToolArguments`].
    type Error: ErrorCode;

    /// `Ok` when `args` (a JSON object) are valid arguments of the tool `tool_name`.
    ///
    /// # Errors
    ///
    /// Why they are not (including: no such tool).
    fn check(&self, tool_name: &str, args: &Value) -> Result<(), Self::Error>;
}

/// The round trips of the struct's documentation hold for [`to_json`](Self::to_json) →
/// [`from_json`](Self::from_json), [`to_value`](Self::to_value) →
/// [`from_value`](Self::from_value) and [`to_body`](Self::to_body) →
/// [`from_body`](Self::from_body).
///
/// The serde implementations are the same: `Serialize` writes [`to_value`](Self::to_value)'s
/// JSON, `Deserialize` reads leniently like [`from_value`](Self::from_value). Read JSON text with
/// [`from_json`](Self::from_json), not `serde_json::from_str`: serde_json's default float parsing
/// can be one ULP off (see the module documentation).
impl StructuredMessage {
    /// A message with `content`, empty `metadata`, a new `task_id` (UUID v4), the current time,
    /// no tool calls or results and no agents (the reference's `StructuredMessage(content)`).
    pub fn new(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            metadata: JsonMap::new(),
            task_id: uuid_v4(),
            timestamp: now_unix_seconds(),
            tool_calls: Vec::new(),
            tool_results: Vec::new(),
            source_agent: None,
            target_agent: None,
            extra: JsonMap::new(),
        }
    }

    /// A response to `original` (the reference's `create_response`): `metadata` is
    /// `{"type": "response", "in_reply_to": original.task_id}`, the agents are `original`'s
    /// swapped (its target is the source), with a new `task_id` and the current time.
    pub fn create_response(content: impl Into<String>, original: &StructuredMessage) -> Self {
        let mut response = Self::new(content);
        response.set_message_type(MessageType::Response);
        response.reply_to(original);
        response
    }

    /// An error message (the reference's `create_error`): `metadata.type` is `"error"`; when
    /// `original` is given, `metadata.in_reply_to` is its `task_id` and the agents are its agents
    /// swapped, as in [`create_response`](Self::create_response). Without `original` (the
    /// reference allows it) there is no `in_reply_to` and no agents.
    pub fn create_error(
        error_message: impl Into<String>,
        original: Option<&StructuredMessage>,
    ) -> Self {
        let mut error = Self::new(error_message);
        error.set_message_type(MessageType::Error);
        if let Some(original) = original {
            error.reply_to(original);
        }
        error
    }

    /// A task assignment from `source_agent` to `target_agent` (the reference's `create_task`):
    /// `metadata` is `task_data`'s entries (where the reference puts them) with `type` `"task"`.
    ///
    /// Unlike the reference, where a `type` key in `task_data` replaces `"task"`, the type is
    /// always `"task"` (a `type` in `task_data` is dropped).
    pub fn create_task(
        content: impl Into<String>,
        source_agent: impl Into<String>,
        target_agent: impl Into<String>,
        task_data: Option<JsonMap>,
    ) -> Self {
        let mut task = Self::new(content);
        task.metadata = task_data.unwrap_or_default();
        task.set_message_type(MessageType::Task);
        task.source_agent = Some(source_agent.into());
        task.target_agent = Some(target_agent.into());
        task
    }

    fn reply_to(&mut self, original: &StructuredMessage) {
        self.metadata.insert(
            "in_reply_to".to_owned(),
            Value::String(original.task_id.clone()),
        );
        self.source_agent.clone_from(&original.target_agent);
        self.target_agent.clone_from(&original.source_agent);
    }

    /// Replaces the metadata, checked as reading checks it (lenient): a message whose metadata
    /// is set so can be written and read back.
    ///
    /// # Errors
    /// [`AtlasError::WrongType`] (path `metadata.type`) when `type` is there and not a string or
    /// `null`; the metadata is then unchanged.
    pub fn set_metadata(&mut self, metadata: JsonMap) -> Result<(), AtlasError> {
        read::check_type(&metadata, "metadata", &ReadOptions::default())?;
        self.metadata = metadata;
        Ok(())
    }

    /// The message's type: `metadata.type` read ignoring ASCII case; `None` when it is absent or
    /// not a string (the reference says `"unknown"`).
    pub fn message_type(&self) -> Option<MessageType> {
        self.metadata
            .get("type")
            .and_then(Value::as_str)
            .map(MessageType::from)
    }

    /// Sets `metadata.type` to `kind`'s wire string.
    pub fn set_message_type(&mut self, kind: MessageType) {
        self.metadata
            .insert("type".to_owned(), Value::String(kind.as_str().to_owned()));
    }

    /// `metadata.in_reply_to`: the `task_id` of the message this one answers, when it is a string.
    pub fn in_reply_to(&self) -> Option<&str> {
        self.metadata.get("in_reply_to").and_then(Value::as_str)
    }

    /// Whether the message has tool calls.
    pub fn has_tool_calls(&self) -> bool {
        !self.tool_calls.is_empty()
    }

    /// Whether the message has tool results.
    pub fn has_tool_results(&self) -> bool {
        !self.tool_results.is_empty()
    }

    /// Adds a call of the tool `name` with `arguments` (a JSON object) and returns the call's new
    /// id (a UUID v4), as the reference's `add_tool_call`. The arguments are not checked: see
    /// [`add_tool_call_checked`](Self::add_tool_call_checked).
    pub fn add_tool_call(&mut self, name: impl Into<String>, arguments: JsonMap) -> String {
        let id = uuid_v4();
        self.tool_calls.push(ToolCall {
            id: id.clone(),
            name: name.into(),
            arguments,
            extra: JsonMap::new(),
        });
        id
    }

    /// [`add_tool_call`](Self::add_tool_call) after `checker` accepted the arguments (e.g. a tool
    /// registry validating them against the tool's JSON Schema).
    ///
    /// # Errors
    ///
    /// [`AtlasError::InvalidToolArguments`] (`invalid-tool-arguments`, path `arguments`) with the
    /// checker's reason, code and details; the message is left unchanged.
    pub fn add_tool_call_checked(
        &mut self,
        name: impl Into<String>,
        arguments: JsonMap,
        checker: &impl ArgumentCheck,
    ) -> Result<String, AtlasError> {
        let name = name.into();
        let arguments = Value::Object(arguments);
        if let Err(e) = checker.check(&name, &arguments) {
            return Err(AtlasError::invalid_arguments(
                "arguments".to_owned(),
                &name,
                arguments,
                &e,
            ));
        }
        // `arguments` is the object built above.
        let arguments = match arguments {
            Value::Object(map) => map,
            _ => JsonMap::new(),
        };
        Ok(self.add_tool_call(name, arguments))
    }

    /// Checks the arguments of every tool call of the message with `checker`, in order (e.g. before
    /// executing the calls of a received message).
    ///
    /// # Errors
    ///
    /// [`AtlasError::InvalidToolArguments`] for the first call rejected (path
    /// `tool_calls[i].arguments`).
    pub fn check_tool_calls(&self, checker: &impl ArgumentCheck) -> Result<(), AtlasError> {
        for (i, call) in self.tool_calls.iter().enumerate() {
            let arguments = Value::Object(call.arguments.clone());
            if let Err(e) = checker.check(&call.name, &arguments) {
                return Err(AtlasError::invalid_arguments(
                    format!("tool_calls[{i}].arguments"),
                    &call.name,
                    arguments,
                    &e,
                ));
            }
        }
        Ok(())
    }

    /// Adds the result of the tool `name` for the call `call_id` (the reference's
    /// `add_tool_result`): `result` is what the tool returned (`Value::Null` when it failed),
    /// `status` `success` or `error`, `error` why it failed.
    pub fn add_tool_result(
        &mut self,
        name: impl Into<String>,
        result: Value,
        call_id: impl Into<String>,
        status: ToolStatus,
        error: Option<String>,
    ) {
        self.tool_results.push(ToolResult {
            name: name.into(),
            result,
            call_id: call_id.into(),
            status,
            error,
            extra: JsonMap::new(),
        });
    }

    /// The message as a JSON value (the reference's `to_dict`; shape in the type's documentation).
    pub fn to_value(&self) -> Value {
        // Serializing maps with string keys, strings, numbers and values cannot fail.
        agentwire_core::json::to_tree(self).unwrap_or(Value::Null)
    }

    /// The message as compact JSON text (the reference's `to_json`), keys in the order of the
    /// type's documentation, then unknown fields.
    pub fn to_json(&self) -> String {
        // As in `to_value`: cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads a message from a JSON value, leniently (the reference's `from_dict`; see
    /// [`ReadOptions`]).
    ///
    /// # Errors
    ///
    /// `wrong-type` or `missing-field` naming the field (e.g. `tool_calls[1].name`).
    pub fn from_value(value: &Value) -> Result<Self, AtlasError> {
        read::message(value, &ReadOptions::LENIENT)
    }

    /// Reads a message from a JSON value with `options`.
    ///
    /// # Errors
    ///
    /// `wrong-type` or `missing-field` naming the field; in strict mode also
    /// `unknown-message-type` (path `metadata.type`) and `unknown-tool-status` (path
    /// `tool_results[i].status`).
    pub fn from_value_with(value: &Value, options: &ReadOptions) -> Result<Self, AtlasError> {
        read::message(value, options)
    }

    /// Reads a message from JSON text, leniently (the reference's `from_json`). Floats are read
    /// exactly (correctly rounded), so a timestamp written by [`to_json`](Self::to_json) or by
    /// Python comes back bit for bit.
    ///
    /// # Errors
    ///
    /// `invalid-json` when `text` is not JSON, else as [`from_value`](Self::from_value).
    pub fn from_json(text: &str) -> Result<Self, AtlasError> {
        Self::from_json_with(text, &ReadOptions::LENIENT)
    }

    /// Reads a message from JSON text with `options`.
    ///
    /// # Errors
    ///
    /// `invalid-json` when `text` is not JSON, else as [`from_value_with`](Self::from_value_with).
    pub fn from_json_with(text: &str, options: &ReadOptions) -> Result<Self, AtlasError> {
        let value =
            agentwire_core::json::parse_value(text).map_err(|e| AtlasError::InvalidJson {
                reason: e.to_string(),
                line: e.line(),
                column: e.column(),
                input: crate::transport::kept_prefix(text).to_owned(),
            })?;
        read::message(&value, options)
    }
}

impl<'de> Deserialize<'de> for StructuredMessage {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        read::message(&value, &ReadOptions::LENIENT).map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for ToolCall {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        read::tool_call(&value, "").map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for ToolResult {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        read::tool_result(&value, "", &ReadOptions::LENIENT).map_err(serde::de::Error::custom)
    }
}

fn write_extra<S: Serializer>(extra: &JsonMap, known: &[&str], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(extra.iter().filter(|(k, _)| !known.contains(&k.as_str())))
}

fn write_tool_call_extra<S: Serializer>(extra: &JsonMap, s: S) -> Result<S::Ok, S::Error> {
    write_extra(extra, &TOOL_CALL_FIELDS, s)
}

fn write_tool_result_extra<S: Serializer>(extra: &JsonMap, s: S) -> Result<S::Ok, S::Error> {
    write_extra(extra, &TOOL_RESULT_FIELDS, s)
}

fn write_message_extra<S: Serializer>(extra: &JsonMap, s: S) -> Result<S::Ok, S::Error> {
    write_extra(extra, &MESSAGE_FIELDS, s)
}
