//! The Agent API protocol's wire model, field for field.
//!
//! Source: the protocol's schema module (`agentscope_runtime.engine.schemas.agent_schemas`,
//! agentscope-runtime 1.1.6): `Role`, `MessageType`, `ContentType`, `RunStatus`, `Content` and its
//! subclasses, `Message`, `AgentRequest`, `AgentResponse`, `Tool`, `FunctionTool`, `FunctionCall`,
//! `FunctionCallOutput`, `Error`. Names on the wire are the protocol's (`snake_case`); unknown fields
//! are kept in `extra` and unknown enum values in `Other`, so a value survives a round trip.

use serde::{Deserialize, Serialize};

use crate::json::Fields;
#[cfg(test)]
use crate::wire::null_as_empty;
use crate::wire::JsonMap;
use crate::wire_enum;

wire_enum! {
    /// Who wrote a message (`role`).
    Role {
        /// `assistant`
        Assistant = "assistant",
        /// `user`
        User = "user",
        /// `system`
        System = "system",
        /// `tool`
        Tool = "tool",
    }
}

wire_enum! {
    /// What a message is (`Message.type`).
    MessageType {
        /// `message`: an ordinary message with contents.
        Message = "message",
        /// `function_call`: the agent calls a function; `data` content `{call_id, name, arguments}`.
        FunctionCall = "function_call",
        /// `function_call_output`: a function's result; `data` content `{call_id, output}`.
        FunctionCallOutput = "function_call_output",
        /// `plugin_call`
        PluginCall = "plugin_call",
        /// `plugin_call_output`
        PluginCallOutput = "plugin_call_output",
        /// `component_call`
        ComponentCall = "component_call",
        /// `component_call_output`
        ComponentCallOutput = "component_call_output",
        /// `mcp_list_tools`
        McpListTools = "mcp_list_tools",
        /// `mcp_approval_request`
        McpApprovalRequest = "mcp_approval_request",
        /// `mcp_call`
        McpCall = "mcp_call",
        /// `mcp_approval_response`
        McpApprovalResponse = "mcp_approval_response",
        /// `mcp_call_output` (sent by servers, not in the protocol's list)
        McpCallOutput = "mcp_call_output",
        /// `reasoning`: the model's reasoning, shown apart from the answer.
        Reasoning = "reasoning",
        /// `heartbeat`
        Heartbeat = "heartbeat",
        /// `error`: carries `code` and `message`.
        Error = "error",
    }
}

impl MessageType {
    /// Whether messages of this type carry a call (`function_call`, `plugin_call`, `component_call`,
    /// `mcp_call`, `mcp_approval_request`).
    pub fn is_call(&self) -> bool {
        matches!(
            self,
            Self::FunctionCall
                | Self::PluginCall
                | Self::ComponentCall
                | Self::McpCall
                | Self::McpApprovalRequest
        )
    }

    /// Whether messages of this type carry a call's output (`*_call_output`,
    /// `mcp_approval_response`, `mcp_list_tools`).
    pub fn is_call_output(&self) -> bool {
        matches!(
            self,
            Self::FunctionCallOutput
                | Self::PluginCallOutput
                | Self::ComponentCallOutput
                | Self::McpCallOutput
                | Self::McpApprovalResponse
                | Self::McpListTools
        )
    }
}

#[allow(clippy::derivable_impls)] // the enum is declared by `wire_enum!`
impl Default for MessageType {
    fn default() -> Self {
        Self::Message
    }
}

wire_enum! {
    /// The kind of a content item (the protocol's `ContentType`, wire field `type`). Not a MIME type:
    /// see `agentwire::body` for the MIME view.
    ContentKind {
        /// `text`: `text`.
        Text = "text",
        /// `image`: `image_url` (a URL or a `data:` URL).
        Image = "image",
        /// `data`: `data`, a JSON object.
        Data = "data",
        /// `audio`: `data` (base64 or URL) and `format`.
        Audio = "audio",
        /// `file`: `file_url`, `file_id`, `filename`, `file_data`.
        File = "file",
        /// `refusal`: `refusal`.
        Refusal = "refusal",
        /// `video`: `video_url` (sent by servers, not in the protocol's list).
        Video = "video",
    }
}

wire_enum! {
    /// Lifecycle status of a response, message or content (the protocol's `RunStatus`).
    RunStatus {
        /// `created`
        Created = "created",
        /// `in_progress`
        InProgress = "in_progress",
        /// `completed`
        Completed = "completed",
        /// `canceled`
        Canceled = "canceled",
        /// `failed`
        Failed = "failed",
        /// `rejected`
        Rejected = "rejected",
        /// `unknown`
        Unknown = "unknown",
        /// `queued`
        Queued = "queued",
        /// `incomplete`: also what agentwire marks a response or message that a stream left
        /// unfinished.
        Incomplete = "incomplete",
    }
}

impl RunStatus {
    /// Whether nothing more is expected after this status (`completed`, `canceled`, `failed`,
    /// `rejected`, `incomplete`).
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Canceled | Self::Failed | Self::Rejected | Self::Incomplete
        )
    }
}

#[allow(clippy::derivable_impls)] // the enum is declared by `wire_enum!`
impl Default for RunStatus {
    fn default() -> Self {
        Self::Created
    }
}

/// An error as the protocol reports it (`Error {code, message}`). Some servers send a bare string
/// instead: it reads as the message, with code `"error"`.
///
/// A request's (and a request message's) `error` is read from a string, or from an object whose
/// `code` and `message` are strings or absent (`""`); anything else is an error ("an error must be
/// a string or an object …"). In the events a stream reads, an `error` of another shape is kept, not
/// refused: `{code: "error", message: <its JSON text>}`, so that nothing received is lost.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ErrorInfo {
    /// A machine-readable code, e.g. `"ValueError"`.
    pub code: String,
    /// A human-readable message.
    pub message: String,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

impl ErrorInfo {
    /// Reads the wire's shapes (see [`ErrorInfo`]) from a JSON value; `None` for another shape.
    ///
    /// By hand rather than as serde's untagged enum, which buffers the value and compiles a reader
    /// per source (text, tree, buffer): 3.0 KB of the gzipped wasm.
    #[cfg_attr(agentwire_size, optimize(size))]
    pub fn from_json_value(value: &serde_json::Value) -> Option<Self> {
        use serde_json::Value;
        match value {
            Value::String(message) => Some(ErrorInfo {
                code: "error".to_owned(),
                message: message.clone(),
                extra: JsonMap::new(),
            }),
            Value::Object(map) => {
                let mut info = ErrorInfo::default();
                for (key, v) in map {
                    let field = match key.as_str() {
                        "code" => &mut info.code,
                        "message" => &mut info.message,
                        _ => {
                            info.extra.insert(key.clone(), v.clone());
                            continue;
                        }
                    };
                    *field = v.as_str()?.to_owned();
                }
                Some(info)
            }
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for ErrorInfo {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        Self::from_json_value(&value).ok_or_else(|| {
            serde::de::Error::custom(
                "an error must be a string or an object whose `code` and `message` are strings",
            )
        })
    }
}

/// A content item of a message (the protocol's `Content` and its subclasses, flattened: the fields
/// present depend on [`kind`](Content::kind)).
///
/// As an event (`object: "content"`) it is addressed by `msg_id` and `index`; `delta: true` means
/// "append to the content at `index`", otherwise "replace it".
#[derive(Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Content {
    /// `object`: always `"content"` in this protocol.
    #[serde(default = "object_content")]
    pub object: String,
    /// `type`: which payload fields apply.
    #[serde(rename = "type")]
    pub kind: ContentKind,
    /// Position in the message's `content` list (0-based). `null` from some servers: see the assembler.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// `true`: this event's payload is a delta to append.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<bool>,
    /// The message this content belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg_id: Option<String>,
    /// Lifecycle status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<RunStatus>,
    /// Position of the event in the stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence_number: Option<u64>,
    /// Error, when `status` is `failed`. Boxed, as a message's rarely set fields are (see
    /// [`Message::usage`]): inline an `ErrorInfo` is 72 bytes in wasm32, a box 4, and an
    /// assembler keeps every content. With it boxed a `Content` is 288 bytes in wasm32, not 352.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Box<ErrorInfo>>,
    /// `text` content: the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// `image` content: the image's URL (or `data:` URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_url: Option<String>,
    /// `data` content: a JSON object; `audio` content: the audio (base64 or URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
    pub data: Option<serde_json::Value>,
    /// `audio` content: the audio format, e.g. `"mp3"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// `file` content: the file's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_url: Option<String>,
    /// `file` content: a server-side file id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_id: Option<String>,
    /// `file` content: the file's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// `file` content: the file's bytes, base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_data: Option<String>,
    /// `refusal` content: the refusal text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
    /// `video` content: the video's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video_url: Option<String>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

crate::deserialize_by_fields!(Content, "struct Content");

impl Content {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    #[inline]
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            object: f.or_else("object", object_content)?,
            kind: f.required("type")?,
            index: f.optional("index")?,
            delta: f.optional("delta")?,
            msg_id: f.optional("msg_id")?,
            status: f.optional("status")?,
            sequence_number: f.optional("sequence_number")?,
            error: f.optional("error")?,
            text: f.optional("text")?,
            image_url: f.optional("image_url")?,
            data: f.optional("data")?,
            format: f.optional("format")?,
            file_url: f.optional("file_url")?,
            file_id: f.optional("file_id")?,
            filename: f.optional("filename")?,
            file_data: f.optional("file_data")?,
            refusal: f.optional("refusal")?,
            video_url: f.optional("video_url")?,
            extra: f.rest(),
        })
    }
}

/// Written out rather than derived: a derived `clone` is `#[inline]`, so it was compiled again in
/// every crate that clones a `Content` (agentwire, at opt-level "z", beside this crate's copy at
/// 3: 1.4 KB of the wasm module). This one is compiled here only. The destructuring names every
/// field, so a field added to `Content` and not cloned here does not compile.
impl Clone for Content {
    fn clone(&self) -> Self {
        let Content {
            object,
            kind,
            index,
            delta,
            msg_id,
            status,
            sequence_number,
            error,
            text,
            image_url,
            data,
            format,
            file_url,
            file_id,
            filename,
            file_data,
            refusal,
            video_url,
            extra,
        } = self;
        Content {
            object: object.clone(),
            kind: kind.clone(),
            index: *index,
            delta: *delta,
            msg_id: msg_id.clone(),
            status: status.clone(),
            sequence_number: *sequence_number,
            error: error.clone(),
            text: text.clone(),
            image_url: image_url.clone(),
            data: data.clone(),
            format: format.clone(),
            file_url: file_url.clone(),
            file_id: file_id.clone(),
            filename: filename.clone(),
            file_data: file_data.clone(),
            refusal: refusal.clone(),
            video_url: video_url.clone(),
            extra: extra.clone(),
        }
    }
}

impl Content {
    /// A `text` content.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            kind: ContentKind::Text,
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// An `image` content.
    pub fn image(image_url: impl Into<String>) -> Self {
        Self {
            kind: ContentKind::Image,
            image_url: Some(image_url.into()),
            ..Self::default()
        }
    }

    /// A `data` content holding a JSON value (the protocol says an object).
    pub fn data(data: serde_json::Value) -> Self {
        Self {
            kind: ContentKind::Data,
            data: Some(data),
            ..Self::default()
        }
    }

    /// A `file` content referring to a URL, with an optional file name.
    pub fn file(file_url: impl Into<String>, filename: Option<String>) -> Self {
        Self {
            kind: ContentKind::File,
            file_url: Some(file_url.into()),
            filename,
            ..Self::default()
        }
    }

    /// The content's `data` read as a [`FunctionCall`] (`data` contents of call messages), as
    /// serde reads the struct: an object whose members `call_id`, `name` and `arguments` are
    /// strings where present (missing ones empty, other members ignored), or an array of at most
    /// three strings in that order; `None` for anything else.
    // Read by hand (see `string_fields`); cold, so `#[inline]` (compiled at "z" in its caller).
    #[inline]
    pub fn function_call(&self) -> Option<FunctionCall> {
        let [call_id, name, arguments] = string_fields(
            self.data.as_ref()?,
            [("call_id", false), ("name", false), ("arguments", false)],
        )?;
        Some(FunctionCall {
            call_id: call_id.unwrap_or_default(),
            name: name.unwrap_or_default(),
            arguments: arguments.unwrap_or_default(),
        })
    }

    /// The content's `data` read as a [`FunctionCallOutput`], as serde reads the struct: an
    /// object whose members `call_id` and `output` are strings where present and `name` a string
    /// or `null` (other members ignored), or an array of at most three such values in that
    /// order; `None` for anything else.
    #[inline]
    pub fn function_call_output(&self) -> Option<FunctionCallOutput> {
        let [call_id, name, output] = string_fields(
            self.data.as_ref()?,
            [("call_id", false), ("name", true), ("output", false)],
        )?;
        Some(FunctionCallOutput {
            call_id: call_id.unwrap_or_default(),
            name,
            output: output.unwrap_or_default(),
        })
    }
}

/// The string fields `fields` (each a name and whether `null` is allowed, read as absent) of a
/// struct whose fields all have defaults, read from `value` as serde's derived reader reads them
/// from a `serde_json::Value`: from an object, the members of those names (the others ignored);
/// from an array of at most `N` elements, the fields in order. `None` where serde fails: a field
/// of another type, a longer array, any other value.
///
/// One function for [`Content::function_call`] and [`Content::function_call_output`]: the derived
/// readers, each compiled for an owned `Value`, were about 3 KB of wasm each.
#[inline]
fn string_fields<const N: usize>(
    value: &serde_json::Value,
    fields: [(&str, bool); N],
) -> Option<[Option<String>; N]> {
    use serde_json::Value;
    fn read(v: &Value, nullable: bool) -> Option<Option<String>> {
        match v {
            Value::String(s) => Some(Some(s.clone())),
            Value::Null if nullable => Some(None),
            _ => None,
        }
    }
    let mut out = std::array::from_fn(|_| None);
    match value {
        Value::Object(map) => {
            for (slot, (name, nullable)) in out.iter_mut().zip(fields) {
                if let Some(v) = map.get(name) {
                    *slot = read(v, nullable)?;
                }
            }
        }
        Value::Array(items) if items.len() <= N => {
            for (slot, (v, (_, nullable))) in out.iter_mut().zip(items.iter().zip(fields)) {
                *slot = read(v, nullable)?;
            }
        }
        _ => return None,
    }
    Some(out)
}

/// A message (`object: "message"`): one turn's item of a given [`MessageType`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Message {
    /// `object`: always `"message"` in this protocol.
    #[serde(default = "object_message")]
    pub object: String,
    /// `msg_…`; servers assign it, request messages may leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `type` (default `message`).
    #[serde(rename = "type", default)]
    pub kind: MessageType,
    /// Lifecycle status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<RunStatus>,
    /// Who wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// The contents, in `index` order (`null` on the wire reads as empty).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub content: Vec<Content>,
    /// `error` messages: the error code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// `error` messages: the error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Token usage, as the server reports it. Boxed, as `metadata` and `error`: they are rarely
    /// set, and an assembler keeps every message of a response (by default). Inline, a map is 48
    /// bytes in wasm32 (an `IndexMap`, for members in their order) and an `ErrorInfo` 72; a box
    /// is 4. With them boxed a `Message` is 176 bytes in wasm32 instead of 328.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub usage: Option<Box<JsonMap>>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub metadata: Option<Box<JsonMap>>,
    /// Position of the event in the stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence_number: Option<u64>,
    /// Error, when `status` is `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Box<ErrorInfo>>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

crate::deserialize_by_fields!(Message, "struct Message");

impl Message {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    #[inline]
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            object: f.or_else("object", object_message)?,
            id: f.optional("id")?,
            kind: f.or_default("type")?,
            status: f.optional("status")?,
            role: f.optional("role")?,
            content: f.optional("content")?.unwrap_or_default(),
            code: f.optional("code")?,
            message: f.optional("message")?,
            usage: f.optional("usage")?,
            metadata: f.optional("metadata")?,
            sequence_number: f.optional("sequence_number")?,
            error: f.optional("error")?,
            extra: f.rest(),
        })
    }
}

impl Message {
    /// A `message` of `role` with the given contents.
    pub fn new(role: Role, content: Vec<Content>) -> Self {
        Self {
            role: Some(role),
            content,
            ..Self::default()
        }
    }

    /// All `text` contents joined, in order.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|c| c.text.as_deref())
            .collect()
    }
}

/// A response (`object: "response"`): the envelope of one agent run's output.
#[derive(Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct AgentResponse {
    /// `object`: always `"response"` in this protocol.
    #[serde(default = "object_response")]
    pub object: String,
    /// `response_…`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Lifecycle status.
    #[serde(default)]
    pub status: RunStatus,
    /// When the response was created, Unix time in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<i64>,
    /// When it completed, Unix time in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<i64>,
    /// Why it failed, when `status` is `failed`. Boxed, as in [`Message`] (see
    /// [`Message::usage`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Box<ErrorInfo>>,
    /// The messages produced (`null` on the wire reads as empty).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub output: Vec<Message>,
    /// Token usage, as the server reports it. Boxed, as in [`Message::usage`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub usage: Option<Box<JsonMap>>,
    /// The session this response belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Position of the event in the stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence_number: Option<u64>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

crate::deserialize_by_fields!(AgentResponse, "struct AgentResponse");

/// Written out rather than derived: a derived `clone` is `#[inline]`, so it was compiled at opt-level
/// 3 with the assembler that calls it (once per stream, for the `done` update), 3,996 bytes raw;
/// this one is built for size (see "Cold code" in src/core.rs).
impl Clone for AgentResponse {
    #[cfg_attr(agentwire_size, optimize(size))]
    fn clone(&self) -> Self {
        let AgentResponse {
            object,
            id,
            status,
            created_at,
            completed_at,
            error,
            output,
            usage,
            session_id,
            sequence_number,
            extra,
        } = self;
        AgentResponse {
            object: object.clone(),
            id: id.clone(),
            status: status.clone(),
            created_at: *created_at,
            completed_at: *completed_at,
            error: error.clone(),
            output: output.clone(),
            usage: usage.clone(),
            session_id: session_id.clone(),
            sequence_number: *sequence_number,
            extra: extra.clone(),
        }
    }
}

impl AgentResponse {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    #[inline]
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            object: f.or_else("object", object_response)?,
            id: f.optional("id")?,
            status: f.or_default("status")?,
            created_at: f.optional("created_at")?,
            completed_at: f.optional("completed_at")?,
            error: f.optional("error")?,
            output: f.optional("output")?.unwrap_or_default(),
            usage: f.optional("usage")?,
            session_id: f.optional("session_id")?,
            sequence_number: f.optional("sequence_number")?,
            extra: f.rest(),
        })
    }
}

/// `stop`: one stop sequence or several.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(test, derive(Deserialize))]
#[serde(untagged)]
pub enum Stop {
    /// One stop sequence.
    One(String),
    /// Several stop sequences.
    Many(Vec<String>),
}

impl Stop {
    /// Reads `stop` as serde's derive reads the untagged enum: a string, or an array of strings.
    ///
    /// # Errors
    /// serde's message for anything else, `data did not match any variant of untagged enum
    /// Stop`.
    ///
    /// By hand: the derived reader buffers the value (serde's `Content`) and tries each variant
    /// on the buffer, code compiled for this type alone. Cold: `#[inline]`, compiled in its caller.
    #[inline]
    pub fn from_value(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        use serde::de::Error as _;
        use serde_json::Value;
        let stop = match value {
            Value::String(s) => Some(Stop::One(s)),
            Value::Array(items) => items
                .into_iter()
                .map(|item| match item {
                    Value::String(s) => Some(s),
                    _ => None,
                })
                .collect::<Option<_>>()
                .map(Stop::Many),
            _ => None,
        };
        stop.ok_or_else(|| {
            serde_json::Error::custom("data did not match any variant of untagged enum Stop")
        })
    }
}

#[cfg(not(test))]
impl<'de> Deserialize<'de> for Stop {
    #[inline]
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        Stop::from_value(serde_json::Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// A function the agent may call (`FunctionTool`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct FunctionTool {
    /// The function's name.
    pub name: String,
    /// What it does and when to call it (the model reads this).
    #[serde(default)]
    pub description: String,
    /// Its arguments as a JSON Schema object (`{"type": "object", "properties": …, "required": …}`).
    /// Required, and an object, when a request is read (agentscope-runtime's `FunctionTool`
    /// requires it: its `FunctionParameters` or a dict).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub parameters: serde_json::Value,
}

crate::deserialize_by_fields!(FunctionTool, "struct FunctionTool");

impl FunctionTool {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    #[inline]
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            name: f.required("name")?,
            description: f.or_default("description")?,
            // Required, and an object, as agentscope-runtime's model has it (its
            // `FunctionParameters` or a dict): a tool read without one was written back with
            // `"parameters": null`, which the server refuses.
            parameters: match f.optional::<serde_json::Value>("parameters")? {
                Some(p) if p.is_object() => p,
                Some(_) => return Err(serde::de::Error::custom(
                    "`parameters` is not an object: a tool's parameters are a JSON Schema object",
                )),
                None => return Err(serde::de::Error::custom(
                    "`parameters` is missing or null: a tool's parameters are a JSON Schema object",
                )),
            },
        })
    }
}

/// A tool offered to the agent (`Tool {type: "function", function}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Tool {
    /// `"function"`.
    #[serde(rename = "type", default = "function_literal")]
    pub kind: String,
    /// The function.
    pub function: FunctionTool,
}

crate::deserialize_by_fields!(Tool, "struct Tool");

impl Tool {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    #[inline]
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            kind: f.or_else("type", function_literal)?,
            function: f.required("function")?,
        })
    }
}

fn function_literal() -> String {
    "function".to_owned()
}

impl From<FunctionTool> for Tool {
    fn from(function: FunctionTool) -> Self {
        Self {
            kind: function_literal(),
            function,
        }
    }
}

/// A function call, as carried in the `data` of a `function_call` message's content.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct FunctionCall {
    /// Pairs the call with its output.
    #[serde(default)]
    pub call_id: String,
    /// The function's name.
    #[serde(default)]
    pub name: String,
    /// The arguments as JSON text. The model may produce invalid JSON: validate before use.
    #[serde(default)]
    pub arguments: String,
}

/// A function's output, as carried in the `data` of a `function_call_output` message's content.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct FunctionCallOutput {
    /// The call this answers.
    #[serde(default)]
    pub call_id: String,
    /// The function's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The output (text; often JSON text).
    #[serde(default)]
    pub output: String,
}

crate::deserialize_by_fields!(FunctionCallOutput, "struct FunctionCallOutput");

impl FunctionCallOutput {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    #[inline]
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            call_id: f.or_default("call_id")?,
            name: f.optional("name")?,
            output: f.or_default("output")?,
        })
    }
}

/// A request to an agent (`AgentRequest`, POSTed to `/process`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct AgentRequest {
    /// The conversation so far.
    pub input: Vec<Message>,
    /// Ask for an SSE stream (default `true`).
    #[serde(default = "yes")]
    pub stream: bool,
    /// Model id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Nucleus sampling mass, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Sampling temperature, 0 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Frequency penalty, -2 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<f64>,
    /// Presence penalty, -2 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<f64>,
    /// Maximum tokens to generate, at least 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Stop sequence(s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Stop>,
    /// Number of choices, 1 to 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    /// Sampling seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Tools the agent may call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// Session to continue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The user the conversation is for (`AgentRequest.user_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    /// The request's unique id (`BaseRequest.id`). agentscope-runtime's runner gives the response
    /// this id (`AgentResponse(id=request.id)`), so a client can choose it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

crate::deserialize_by_fields!(AgentRequest, "struct AgentRequest");

impl AgentRequest {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    #[inline]
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            input: f.required("input")?,
            stream: f.or_else("stream", yes)?,
            model: f.optional("model")?,
            top_p: f.optional("top_p")?,
            temperature: f.optional("temperature")?,
            frequency_penalty: f.optional("frequency_penalty")?,
            presence_penalty: f.optional("presence_penalty")?,
            max_tokens: f.optional("max_tokens")?,
            stop: f.optional("stop")?,
            n: f.optional("n")?,
            seed: f.optional("seed")?,
            tools: f.optional("tools")?,
            session_id: f.optional("session_id")?,
            user_id: f.optional("user_id")?,
            id: f.optional("id")?,
            extra: f.rest(),
        })
    }
}

fn yes() -> bool {
    true
}

fn object_content() -> String {
    "content".to_owned()
}

fn object_message() -> String {
    "message".to_owned()
}

fn object_response() -> String {
    "response".to_owned()
}

#[allow(clippy::derivable_impls)] // the enum is declared by `wire_enum!`
impl Default for Content {
    fn default() -> Self {
        Self {
            object: object_content(),
            kind: ContentKind::Text,
            index: None,
            delta: None,
            msg_id: None,
            status: None,
            sequence_number: None,
            error: None,
            text: None,
            image_url: None,
            data: None,
            format: None,
            file_url: None,
            file_id: None,
            filename: None,
            file_data: None,
            refusal: None,
            video_url: None,
            extra: JsonMap::new(),
        }
    }
}

#[allow(clippy::derivable_impls)] // the enum is declared by `wire_enum!`
impl Default for Message {
    fn default() -> Self {
        Self {
            object: object_message(),
            id: None,
            kind: MessageType::Message,
            status: None,
            role: None,
            content: Vec::new(),
            code: None,
            message: None,
            usage: None,
            metadata: None,
            sequence_number: None,
            error: None,
            extra: JsonMap::new(),
        }
    }
}

#[allow(clippy::derivable_impls)] // the enum is declared by `wire_enum!`
impl Default for AgentResponse {
    fn default() -> Self {
        Self {
            object: object_response(),
            id: None,
            status: RunStatus::Created,
            created_at: None,
            completed_at: None,
            error: None,
            output: Vec::new(),
            usage: None,
            session_id: None,
            sequence_number: None,
            extra: JsonMap::new(),
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// `Stop`'s hand-written reader against serde's derived one (these tests derive it).
    #[test]
    fn stop_reads_as_the_derived_reader_reads_it() {
        use serde_json::json;
        for v in [
            json!("x"),
            json!([]),
            json!(["a", "b"]),
            json!(["a", 1]),
            json!(null),
            json!(1),
            json!({"k": "v"}),
            json!([["a"]]),
        ] {
            let ours = Stop::from_value(v.clone()).map_err(|e| e.to_string());
            let theirs = crate::json::from_tree::<Stop>(v.clone()).map_err(|e| e.to_string());
            assert_eq!(ours, theirs, "{v}");
        }
    }

    /// The hand-written readers (`read_fields`) against serde's derived ones (this module's tests
    /// derive `Deserialize`): a full object of each type, and every change of it by one member.
    #[test]
    fn hand_readers_read_as_the_derived_ones() {
        use crate::json::same_reading;
        use serde_json::json;
        let error = json!({"code": "E", "message": "m", "x_error": 1});
        let content = json!({"object": "content", "type": "data", "index": 1, "delta": false,
            "msg_id": "msg_1", "status": "completed", "sequence_number": 7, "error": error,
            "text": "t", "image_url": "u", "data": {"a": [1]}, "format": "f", "file_url": "fu",
            "file_id": "fi", "filename": "n", "file_data": "fd", "refusal": "r",
            "video_url": "v", "x_content": null});
        let message = json!({"object": "message", "id": "msg_1", "type": "function_call",
            "status": "in_progress", "role": "assistant", "content": [content.clone()],
            "code": "c", "message": "m", "usage": {"input_tokens": 3}, "metadata": {"k": "v"},
            "sequence_number": 2, "error": "boom", "x_message": [true]});
        let response = json!({"object": "response", "id": "r", "status": "completed",
            "created_at": 1, "completed_at": -2, "error": null, "output": [message.clone()],
            "usage": {}, "session_id": "s", "sequence_number": 9, "x_response": "x"});
        let function = json!({"name": "search", "description": "d",
            "parameters": {"type": "object"}});
        let tool = json!({"type": "function", "function": function.clone()});
        let output = json!({"call_id": "c1", "name": "search", "output": "[]"});
        let request = json!({"input": [message.clone()], "stream": false, "model": "m",
            "top_p": 0.5, "temperature": 1, "frequency_penalty": -1.5, "presence_penalty": 0,
            "max_tokens": 10, "stop": ["x"], "n": 1, "seed": -3, "tools": [tool.clone()],
            "session_id": "s", "user_id": "u", "id": "r", "x_request": {}});
        let cases = [
            same_reading(
                &content,
                &[
                    "object",
                    "type",
                    "index",
                    "delta",
                    "msg_id",
                    "status",
                    "sequence_number",
                    "error",
                    "text",
                    "image_url",
                    "data",
                    "format",
                    "file_url",
                    "file_id",
                    "filename",
                    "file_data",
                    "refusal",
                    "video_url",
                ],
                "struct Content",
                Content::read_fields,
            ),
            same_reading(
                &message,
                &[
                    "object",
                    "id",
                    "type",
                    "status",
                    "role",
                    "content",
                    "code",
                    "message",
                    "usage",
                    "metadata",
                    "sequence_number",
                    "error",
                ],
                "struct Message",
                Message::read_fields,
            ),
            same_reading(
                &response,
                &[
                    "object",
                    "id",
                    "status",
                    "created_at",
                    "completed_at",
                    "error",
                    "output",
                    "usage",
                    "session_id",
                    "sequence_number",
                ],
                "struct AgentResponse",
                AgentResponse::read_fields,
            ),
            // `parameters` is read more strictly than a derived reader would (required, an
            // object, with messages that name it): tests/agent_api.rs
            // `a_tool_is_read_only_with_its_parameters_object`.
            same_reading(
                &function,
                &["name", "description"],
                "struct FunctionTool",
                FunctionTool::read_fields,
            ),
            same_reading(
                &tool,
                &["type", "function"],
                "struct Tool",
                Tool::read_fields,
            ),
            same_reading(
                &output,
                &["call_id", "name", "output"],
                "struct FunctionCallOutput",
                FunctionCallOutput::read_fields,
            ),
            same_reading(
                &request,
                &[
                    "input",
                    "stream",
                    "model",
                    "top_p",
                    "temperature",
                    "frequency_penalty",
                    "presence_penalty",
                    "max_tokens",
                    "stop",
                    "n",
                    "seed",
                    "tools",
                    "session_id",
                    "user_id",
                    "id",
                ],
                "struct AgentRequest",
                AgentRequest::read_fields,
            ),
        ];
        for case in cases {
            // The full object and at least its unknown member's changes read.
            assert!(case.unwrap() > 10);
        }
    }

    /// `ErrorInfo` as serde derived it before it was read by hand (`#[serde(from = "ErrorWire")]`
    /// over this untagged enum): the reference.
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum ErrorWire {
        Text(String),
        Object {
            #[serde(default)]
            code: String,
            #[serde(default)]
            message: String,
            #[serde(flatten)]
            extra: JsonMap,
        },
    }

    impl From<ErrorWire> for ErrorInfo {
        fn from(w: ErrorWire) -> Self {
            match w {
                ErrorWire::Text(message) => ErrorInfo {
                    code: "error".to_owned(),
                    message,
                    extra: JsonMap::new(),
                },
                ErrorWire::Object {
                    code,
                    message,
                    extra,
                } => ErrorInfo {
                    code,
                    message,
                    extra,
                },
            }
        }
    }

    fn field_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            "[a-z]{0,4}".prop_map(Value::from),
            Just(Value::Null),
            (-2i64..2).prop_map(Value::from),
            Just(Value::from(1.5)),
            any::<bool>().prop_map(Value::from),
            Just(serde_json::json!(["a"])),
            Just(serde_json::json!({"k": 1})),
        ]
    }

    /// Objects of fewer than `most` members named from `keys`, each a [`field_value`].
    fn object_of(keys: &'static [&'static str], most: usize) -> impl Strategy<Value = Value> {
        proptest::collection::vec((proptest::sample::select(keys), field_value()), 0..most)
            .prop_map(|fields| {
                let mut map = JsonMap::new();
                for (k, v) in fields {
                    map.insert(k.to_owned(), v);
                }
                Value::Object(map)
            })
    }

    fn error_value() -> impl Strategy<Value = Value> {
        const KEYS: &[&str] = &["code", "message", "detail", "type"];
        prop_oneof![3 => object_of(KEYS, 4), 1 => field_value()]
    }

    /// A content's `data`: objects with the fields of calls and outputs (and others) of every
    /// type, arrays of up to four such values, and other values.
    fn call_data() -> impl Strategy<Value = Value> {
        const KEYS: &[&str] = &["call_id", "name", "arguments", "output", "type", "id"];
        let object = object_of(KEYS, 5);
        let array = proptest::collection::vec(
            prop_oneof![3 => "[a-z]{0,3}".prop_map(Value::from), 1 => field_value()],
            0..5,
        )
        .prop_map(Value::Array);
        prop_oneof![4 => object, 2 => array, 1 => field_value()]
    }

    proptest! {
        #[test]
        fn function_calls_read_as_serde_reads_them(data in proptest::option::of(call_data())) {
            let content = Content { data: data.clone(), ..Content::default() };
            prop_assert_eq!(
                content.function_call(),
                data.clone().and_then(|d| serde_json::from_value::<FunctionCall>(d).ok())
            );
            prop_assert_eq!(
                content.function_call_output(),
                data.and_then(|d| serde_json::from_value::<FunctionCallOutput>(d).ok())
            );
        }

        #[test]
        fn error_info_reads_what_the_untagged_enum_read(value in error_value()) {
            let text = value.to_string();
            let expected = serde_json::from_str::<ErrorWire>(&text).ok().map(ErrorInfo::from);
            prop_assert_eq!(serde_json::from_str::<ErrorInfo>(&text).ok(), expected.clone());
            prop_assert_eq!(ErrorInfo::deserialize(&value).ok(), expected.clone());
            prop_assert_eq!(ErrorInfo::from_json_value(&value), expected);
        }
    }
}
