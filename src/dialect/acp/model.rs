//! The ACP wire model, field for field.
//!
//! Source: acp-sdk 1.0.3, `acp_sdk/models/models.py` (`Message`, `MessagePart`, `CitationMetadata`,
//! `TrajectoryMetadata`, `RunStatus`, `RunMode`, `MessageAwaitRequest`, `MessageAwaitResume`, `Run`,
//! `AgentManifest`), `acp_sdk/models/errors.py` (`Error`, `ErrorCode`) and
//! `acp_sdk/models/schemas.py` (`RunCreateRequest`, `RunResumeRequest`, `AgentsListResponse`,
//! `RunEventsListResponse`). Names on the wire are the SDK's (`snake_case`). Fields are written in
//! the SDK's order and `null`s are written as the SDK writes them (pydantic's `model_dump_json`), so
//! a value read from a server is written back as the server wrote it; unknown fields are kept in
//! `extra` and unknown enum values in `Other`. Timestamps are kept as the ISO 8601 strings sent
//! (`"2026-11-21T04:34:04.396147Z"`), never reparsed.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::body::ContentEncoding;
#[cfg(test)]
use crate::wire::null_as_empty;
use crate::wire::JsonMap;
use crate::wire_enum;
use agentwire_core::json::Fields;

/// Who wrote a message: `"user"`, `"agent"` or `"agent/<name>"` (the SDK's `Message.role`, pattern
/// `^(user|agent(\/[a-zA-Z0-9_\-]+)?)$`, default `"user"`). Kept as sent, even when it does not
/// match the pattern (see [`is_valid`](Role::is_valid)).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
#[serde(transparent)]
pub struct Role(pub String);

impl Role {
    /// `"user"`.
    pub fn user() -> Self {
        Self("user".to_owned())
    }

    /// `"agent"`, or `"agent/<name>"` when a name is given (the SDK's server writes
    /// `agent/<agent_name>` on every message an agent yields).
    pub fn agent(name: Option<&str>) -> Self {
        match name {
            Some(n) => Self(format!("agent/{n}")),
            None => Self("agent".to_owned()),
        }
    }

    /// The role as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the role is `user`.
    pub fn is_user(&self) -> bool {
        self.0 == "user"
    }

    /// Whether the role is `agent` or `agent/<name>`.
    pub fn is_agent(&self) -> bool {
        self.0 == "agent" || self.0.starts_with("agent/")
    }

    /// The `<name>` of `agent/<name>`.
    pub fn agent_name(&self) -> Option<&str> {
        self.0.strip_prefix("agent/")
    }

    /// Whether the role matches the SDK's pattern `^(user|agent(\/[a-zA-Z0-9_\-]+)?)$`.
    pub fn is_valid(&self) -> bool {
        match self.agent_name() {
            Some(name) => {
                !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            }
            None => self.0 == "user" || self.0 == "agent",
        }
    }
}

impl Default for Role {
    fn default() -> Self {
        Self::user()
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Citation metadata of a part (the SDK's `CitationMetadata`, `kind: "citation"`): an inline
/// citation of a source. `start_index` and `end_index` count characters (Unicode code points, as
/// Python counts them) of the current message across all its `text/*` parts; when both are absent
/// or equal the citation renders as an icon at the part's position.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
pub struct CitationMetadata {
    /// Start of the cited text range, in characters of the message's text (0-based).
    #[serde(default)]
    pub start_index: Option<i64>,
    /// End of the cited text range (exclusive), in characters.
    #[serde(default)]
    pub end_index: Option<i64>,
    /// URL of the source document.
    #[serde(default)]
    pub url: Option<String>,
    /// Title of the source document.
    #[serde(default)]
    pub title: Option<String>,
    /// A description of the source, or a snippet of it.
    #[serde(default)]
    pub description: Option<String>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

/// Trajectory metadata of a part (the SDK's `TrajectoryMetadata`, `kind: "trajectory"`): a step of
/// the agent's reasoning (`message`) or a tool execution (`tool_name`, `tool_input`,
/// `tool_output`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
pub struct TrajectoryMetadata {
    /// A reasoning step or thought.
    #[serde(default)]
    pub message: Option<String>,
    /// The tool that was executed.
    #[serde(default)]
    pub tool_name: Option<String>,
    /// The tool's input (the SDK's `AnyModel`: a JSON object).
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
    pub tool_input: Option<serde_json::Value>,
    /// The tool's output (a JSON object).
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
    pub tool_output: Option<serde_json::Value>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

/// A part's `metadata`: a union tagged by `kind` (the SDK's `CitationMetadata | TrajectoryMetadata`,
/// `Field(discriminator="kind")`). Metadata of another `kind`, or of a known kind but the wrong
/// shape, is kept whole as [`PartMetadata::Other`].
///
/// Read as a JSON object, then by [`PartMetadata::from_map`] (any object is metadata; anything else
/// is an error); written with `kind` first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind")]
pub enum PartMetadata {
    /// `kind: "citation"`.
    #[serde(rename = "citation")]
    Citation(CitationMetadata),
    /// `kind: "trajectory"`.
    #[serde(rename = "trajectory")]
    Trajectory(TrajectoryMetadata),
    /// Any other metadata object, kept as sent (its `kind`, if any, included).
    #[serde(untagged)]
    Other(JsonMap),
}

impl PartMetadata {
    /// The `kind` value (`""` when an unknown object has none or a non-string one).
    pub fn kind(&self) -> &str {
        match self {
            PartMetadata::Citation(_) => "citation",
            PartMetadata::Trajectory(_) => "trajectory",
            PartMetadata::Other(m) => m.get("kind").and_then(|k| k.as_str()).unwrap_or(""),
        }
    }

    /// The metadata as a JSON object, `kind` included.
    pub fn to_map(&self) -> JsonMap {
        match agentwire_core::json::to_tree(self) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => JsonMap::new(),
        }
    }

    /// Reads a JSON object as metadata: a known `kind` of the right shape becomes its variant (the
    /// other fields in its `extra`), anything else [`PartMetadata::Other`], whole. The right shape
    /// is the SDK's: the indexes integers, the other named fields strings (`tool_input` and
    /// `tool_output` any JSON), each of them `null` or absent for none.
    ///
    /// Read by hand rather than by serde's internally tagged enum, which buffers each object and
    /// compiles a reader per metadata type and per source (text, tree): 3.9 KB of the gzipped wasm.
    pub fn from_map(map: JsonMap) -> Self {
        let known = match map.get("kind").and_then(Value::as_str) {
            Some("citation") => CitationMetadata::read(&map).map(PartMetadata::Citation),
            Some("trajectory") => TrajectoryMetadata::read(&map).map(PartMetadata::Trajectory),
            _ => None,
        };
        known.unwrap_or(PartMetadata::Other(map))
    }
}

impl<'de> Deserialize<'de> for PartMetadata {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        JsonMap::deserialize(deserializer).map(PartMetadata::from_map)
    }
}

/// A field that is `null` as `Some(None)`, an integer that fits `i64` as `Some(Some(n))`, anything
/// else as `None` (the shape is wrong).
fn opt_int(v: &Value) -> Option<Option<i64>> {
    match v {
        Value::Null => Some(None),
        v => v.as_i64().map(Some),
    }
}

/// A field that is `null` as `Some(None)`, a string as `Some(Some(s))`, anything else as `None`.
fn opt_string(v: &Value) -> Option<Option<String>> {
    match v {
        Value::Null => Some(None),
        Value::String(s) => Some(Some(s.clone())),
        _ => None,
    }
}

/// A field that is `null` as `None`, any other value as itself.
fn opt_value(v: &Value) -> Option<Value> {
    (!v.is_null()).then(|| v.clone())
}

impl CitationMetadata {
    /// The fields of a `kind: "citation"` object; `None` when one has the wrong type.
    fn read(map: &JsonMap) -> Option<Self> {
        let mut c = Self::default();
        for (key, v) in map {
            match key.as_str() {
                "kind" => {}
                "start_index" => c.start_index = opt_int(v)?,
                "end_index" => c.end_index = opt_int(v)?,
                "url" => c.url = opt_string(v)?,
                "title" => c.title = opt_string(v)?,
                "description" => c.description = opt_string(v)?,
                _ => {
                    c.extra.insert(key.clone(), v.clone());
                }
            }
        }
        Some(c)
    }
}

impl TrajectoryMetadata {
    /// The fields of a `kind: "trajectory"` object; `None` when one has the wrong type.
    fn read(map: &JsonMap) -> Option<Self> {
        let mut t = Self::default();
        for (key, v) in map {
            match key.as_str() {
                "kind" => {}
                "message" => t.message = opt_string(v)?,
                "tool_name" => t.tool_name = opt_string(v)?,
                "tool_input" => t.tool_input = opt_value(v),
                "tool_output" => t.tool_output = opt_value(v),
                _ => {
                    t.extra.insert(key.clone(), v.clone());
                }
            }
        }
        Some(t)
    }
}

pub(crate) fn text_plain() -> Option<String> {
    Some(TEXT_PLAIN.to_owned())
}

pub(crate) const TEXT_PLAIN: &str = "text/plain";

pub(crate) fn plain() -> Option<ContentEncoding> {
    Some(ContentEncoding::Plain)
}

/// One part of a message (the SDK's `MessagePart`; an `Artifact` is a part with a `name`).
///
/// A part carries inline `content` (text, or base64 when `content_encoding` is `base64`) or a
/// `content_url`, not both. Absent fields take the SDK's defaults (`content_type` `"text/plain"`,
/// `content_encoding` `"plain"`); an explicit `null` is kept as `null` (no default).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
pub struct MessagePart {
    /// The part's name: an artifact's name, by convention a path such as `/sources/1`. Servers send
    /// names that are not paths (`hello.bin`): they are kept as sent.
    #[serde(default)]
    pub name: Option<String>,
    /// MIME content type (default `"text/plain"`).
    #[serde(default = "text_plain")]
    pub content_type: Option<String>,
    /// Inline content.
    #[serde(default)]
    pub content: Option<String>,
    /// How `content` is encoded: `plain` or `base64` (default `plain`).
    #[serde(default = "plain")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "ContentEncoding | null"))]
    pub content_encoding: Option<ContentEncoding>,
    /// Where the content is, instead of inline (kept as sent; the SDK normalizes it as a URL).
    #[serde(default)]
    pub content_url: Option<String>,
    /// Citation or trajectory metadata. Boxed: most parts have none, an assembler keeps every
    /// part of a run, and inline a `PartMetadata` is 168 bytes in wasm32, a box 4 (a `MessagePart`
    /// is 112 bytes, not 280).
    #[serde(default)]
    #[cfg_attr(
        target_arch = "wasm32",
        tsify(
            type = "({ kind: \"citation\" } & AcpCitationMetadata) | ({ kind: \"trajectory\" } & AcpTrajectoryMetadata) | Record<string, JsonValue> | null"
        )
    )]
    pub metadata: Option<Box<PartMetadata>>,
    /// Fields this version does not know, kept as sent (the SDK allows extra fields on parts).
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

agentwire_core::deserialize_by_fields!(MessagePart, "struct MessagePart");

impl MessagePart {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            name: f.optional("name")?,
            content_type: f.or_else("content_type", text_plain)?,
            content: f.optional("content")?,
            content_encoding: f.or_else("content_encoding", plain)?,
            content_url: f.optional("content_url")?,
            metadata: f.optional("metadata")?,
            extra: f.rest(),
        })
    }
}

impl Default for MessagePart {
    fn default() -> Self {
        Self {
            name: None,
            content_type: text_plain(),
            content: None,
            content_encoding: plain(),
            content_url: None,
            metadata: None,
            extra: JsonMap::new(),
        }
    }
}

impl MessagePart {
    /// A `text/plain` part.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: Some(text.into()),
            ..Self::default()
        }
    }

    /// A part of `content_type` with inline `content`.
    pub fn inline(content_type: &str, content: impl Into<String>) -> Self {
        Self {
            content_type: Some(content_type.to_owned()),
            content: Some(content.into()),
            ..Self::default()
        }
    }

    /// A part of `content_type` whose content is at `url`.
    pub fn url(content_type: &str, url: impl Into<String>) -> Self {
        Self {
            content_type: Some(content_type.to_owned()),
            content_url: Some(url.into()),
            ..Self::default()
        }
    }

    /// The same part with a name.
    pub fn named(self, name: impl Into<String>) -> Self {
        Self {
            name: Some(name.into()),
            ..self
        }
    }

    /// Whether this part may be joined with an adjacent one: unnamed, `text/plain`, `plain`
    /// encoding, inline content, no `content_url`, no metadata and no unknown fields. This is the
    /// SDK's `Message.compress()` `can_be_joined` rule, plus "no metadata, no unknown fields" (the
    /// SDK's `join` drops metadata, and would fail on `content: null`).
    pub fn is_joinable_text(&self) -> bool {
        self.name.is_none()
            && self.content_type.as_deref() == Some(TEXT_PLAIN)
            && self.content_encoding == Some(ContentEncoding::Plain)
            && self.content_url.is_none()
            && self.content.is_some()
            && self.metadata.is_none()
            && self.extra.is_empty()
    }
}

/// A message (the SDK's `Message`): a role and an ordered list of parts.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
pub struct Message {
    /// Who wrote it (default `"user"`).
    #[serde(default)]
    pub role: Role,
    /// The parts, in order (`null` on the wire reads as empty).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub parts: Vec<MessagePart>,
    /// When the message was created (ISO 8601, as sent).
    #[serde(default)]
    pub created_at: Option<String>,
    /// When it was completed (ISO 8601, as sent); `null` while an agent still streams it.
    #[serde(default)]
    pub completed_at: Option<String>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

agentwire_core::deserialize_by_fields!(Message, "struct Message");

impl Message {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            role: f.or_default("role")?,
            parts: f.optional("parts")?.unwrap_or_default(),
            created_at: f.optional("created_at")?,
            completed_at: f.optional("completed_at")?,
            extra: f.rest(),
        })
    }
}

impl Message {
    /// A message of `role` with `parts` (no timestamps: a server fills them in).
    pub fn new(role: Role, parts: Vec<MessagePart>) -> Self {
        Self {
            role,
            parts,
            ..Self::default()
        }
    }

    /// A user message of one `text/plain` part.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::new(Role::user(), vec![MessagePart::text(text)])
    }

    /// The `content` of every `text/plain` part, joined (the SDK's `Message.__str__`).
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter(|p| p.content_type.as_deref() == Some(TEXT_PLAIN))
            .filter_map(|p| p.content.as_deref())
            .collect()
    }

    /// The same message with adjacent joinable text parts joined into one (see
    /// [`MessagePart::is_joinable_text`]). This is the SDK's `Message.compress()`, except that it
    /// keeps the role (the SDK's resets it to `"user"`), never joins parts with metadata or unknown
    /// fields, and keeps the first part's `extra`.
    pub fn compressed(mut self) -> Self {
        self.parts = compress_parts(std::mem::take(&mut self.parts));
        self
    }
}

/// Joins adjacent joinable text parts (see [`Message::compressed`]).
pub(crate) fn compress_parts(parts: Vec<MessagePart>) -> Vec<MessagePart> {
    let mut out: Vec<MessagePart> = Vec::with_capacity(parts.len());
    for part in parts {
        if let Some(last) = out.last_mut() {
            if last.is_joinable_text() && part.is_joinable_text() {
                if let (Some(a), Some(b)) = (&mut last.content, &part.content) {
                    a.push_str(b);
                    continue;
                }
            }
        }
        out.push(part);
    }
    out
}

wire_enum! {
    /// A run's status (the SDK's `RunStatus`).
    #[derive(Default)]
    RunStatus as "AcpRunStatus" {
        /// `created`
        #[default]
        Created = "created",
        /// `in-progress`
        InProgress = "in-progress",
        /// `awaiting`: the agent waits for the client (see [`Run::await_request`]).
        Awaiting = "awaiting",
        /// `cancelling`: a cancel was requested.
        Cancelling = "cancelling",
        /// `cancelled`
        Cancelled = "cancelled",
        /// `completed`
        Completed = "completed",
        /// `failed`: see [`Run::error`].
        Failed = "failed",
        /// `incomplete`: not an ACP status. agentwire marks a run so when its stream ended
        /// without a terminal status (see [`AcpError::StreamIncomplete`](super::AcpError::StreamIncomplete)).
        Incomplete = "incomplete",
    }
}

impl RunStatus {
    /// Whether nothing more will happen to the run: `completed`, `failed`, `cancelled` (the SDK's
    /// `is_terminal`), and agentwire's `incomplete`.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Failed | Self::Cancelled | Self::Incomplete
        )
    }
}

wire_enum! {
    /// How a run is requested (the SDK's `RunMode`).
    #[derive(Default)]
    RunMode as "AcpRunMode" {
        /// `sync`: the response is the run once it stops (terminal or awaiting).
        #[default]
        Sync = "sync",
        /// `async`: the response is the run just created (HTTP 202); poll `GET /runs/{run_id}`.
        Async = "async",
        /// `stream`: the response is a `text/event-stream` of [`AcpEvent`](super::AcpEvent)s.
        Stream = "stream",
    }
}

wire_enum! {
    /// What an await request or resume is (`type`; the SDK knows only `message`).
    #[derive(Default)]
    AwaitType as "AcpAwaitType" {
        /// `message`: a message is asked for / given.
        #[default]
        Message = "message",
    }
}

/// What the agent waits for while the run is `awaiting` (the SDK's `MessageAwaitRequest`, the only
/// member of its `AwaitRequest` union): `{"type": "message", "message": …}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
pub struct AwaitRequest {
    /// `type` (`"message"`).
    #[serde(rename = "type", default)]
    pub kind: AwaitType,
    /// The message shown to the user (e.g. "Approve? (yes/no)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

agentwire_core::deserialize_by_fields!(AwaitRequest, "struct AwaitRequest");

impl AwaitRequest {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            kind: f.or_default("type")?,
            message: f.optional("message")?,
            extra: f.rest(),
        })
    }
}

/// The client's answer to an [`AwaitRequest`] (the SDK's `MessageAwaitResume`):
/// `{"type": "message", "message": …}`. The server refuses (HTTP 403) a resume whose `type` is not
/// the request's.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
pub struct AwaitResume {
    /// `type` (`"message"`).
    #[serde(rename = "type", default)]
    pub kind: AwaitType,
    /// The answer. A timestamp it does not have is left out when it is sent, not written `null`,
    /// so that the server fills it in.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "write_outgoing_answer"
    )]
    pub message: Option<Message>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

agentwire_core::deserialize_by_fields!(AwaitResume, "struct AwaitResume");

impl AwaitResume {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            kind: f.or_default("type")?,
            message: f.optional("message")?,
            extra: f.rest(),
        })
    }
}

impl AwaitResume {
    /// A `message` resume.
    pub fn message(message: Message) -> Self {
        Self {
            kind: AwaitType::Message,
            message: Some(message),
            extra: JsonMap::new(),
        }
    }
}

wire_enum! {
    /// An error's code (the SDK's `ErrorCode`; the SDK also allows any string).
    #[derive(Default)]
    ServerErrorCode as "AcpServerErrorCode" {
        /// `server_error`: the agent raised, or the server failed (HTTP 500).
        #[default]
        ServerError = "server_error",
        /// `invalid_input`: the request was malformed (HTTP 400, 422).
        InvalidInput = "invalid_input",
        /// `not_found`: no such agent, run or session (HTTP 404).
        NotFound = "not_found",
    }
}

/// An error as ACP reports it (the SDK's `Error`): in a failed run's `error`, in an `error` event,
/// and as the body of every non-2xx HTTP response.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
pub struct ErrorInfo {
    /// The code, e.g. `server_error`.
    #[serde(default)]
    pub code: ServerErrorCode,
    /// A human-readable message, e.g. `"boom from agent"`.
    #[serde(default)]
    pub message: String,
    /// Structured data (the SDK's `AnyModel`: a JSON object), if any.
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
    pub data: Option<serde_json::Value>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

agentwire_core::deserialize_by_fields!(ErrorInfo, "struct ErrorInfo");

impl ErrorInfo {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            code: f.or_default("code")?,
            message: f.or_default("message")?,
            data: f.optional("data")?,
            extra: f.rest(),
        })
    }
}

/// A run of an agent (the SDK's `Run`; also the body of `RunCreateResponse`, `RunResumeResponse`,
/// `RunReadResponse` and `RunCancelResponse`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
pub struct Run {
    /// The run's id (a UUID, as sent).
    #[serde(default)]
    pub run_id: String,
    /// The agent that runs.
    #[serde(default)]
    pub agent_name: String,
    /// The session the run belongs to (a UUID, as sent).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Lifecycle status (default `created`).
    #[serde(default)]
    pub status: RunStatus,
    /// What the agent waits for while `awaiting` (the SDK leaves it set after the resume).
    #[serde(default)]
    pub await_request: Option<AwaitRequest>,
    /// The messages the agent produced (`null` on the wire reads as empty).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub output: Vec<Message>,
    /// Why the run failed, when `status` is `failed`.
    #[serde(default)]
    pub error: Option<ErrorInfo>,
    /// When the run was created (ISO 8601, as sent).
    #[serde(default)]
    pub created_at: Option<String>,
    /// When it finished (ISO 8601, as sent).
    #[serde(default)]
    pub finished_at: Option<String>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

agentwire_core::deserialize_by_fields!(Run, "struct Run");

impl Run {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            run_id: f.or_default("run_id")?,
            agent_name: f.or_default("agent_name")?,
            session_id: f.optional("session_id")?,
            status: f.or_default("status")?,
            await_request: f.optional("await_request")?,
            output: f.optional("output")?.unwrap_or_default(),
            error: f.optional("error")?,
            created_at: f.optional("created_at")?,
            finished_at: f.optional("finished_at")?,
            extra: f.rest(),
        })
    }
}

impl Run {
    /// The run without its output (what [`Update::Run`](super::Update::Run) carries).
    pub fn envelope(&self) -> Run {
        Run {
            run_id: self.run_id.clone(),
            agent_name: self.agent_name.clone(),
            session_id: self.session_id.clone(),
            status: self.status.clone(),
            await_request: self.await_request.clone(),
            output: Vec::new(),
            error: self.error.clone(),
            created_at: self.created_at.clone(),
            finished_at: self.finished_at.clone(),
            extra: self.extra.clone(),
        }
    }

    /// The same run with every output message [`compressed`](Message::compressed).
    pub fn compressed(mut self) -> Self {
        self.output = std::mem::take(&mut self.output)
            .into_iter()
            .map(Message::compressed)
            .collect();
        self
    }

    /// The await request, while the run is `awaiting`.
    pub fn awaiting(&self) -> Option<&AwaitRequest> {
        if self.status == RunStatus::Awaiting {
            self.await_request.as_ref()
        } else {
            None
        }
    }
}

/// An agent's manifest (the SDK's `AgentManifest`), as listed by `GET /agents` and read by
/// `GET /agents/{name}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
pub struct AgentManifest {
    /// The agent's name (what `RunCreateRequest.agent_name` names).
    pub name: String,
    /// What the agent does.
    #[serde(default)]
    pub description: Option<String>,
    /// The SDK's `Metadata` (`documentation`, `license`, `framework`, `capabilities`, `tags`,
    /// `author`, `links`…, all optional, extra keys allowed), kept as sent.
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub metadata: JsonMap,
    /// Content types the agent accepts, as patterns (`"*/*"`, `"image/*"`, `"text/plain"`);
    /// default `["*/*"]`.
    #[serde(default = "any_content_type")]
    pub input_content_types: Vec<String>,
    /// Content types the agent produces, as patterns; default `["*/*"]`.
    #[serde(default = "any_content_type")]
    pub output_content_types: Vec<String>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

agentwire_core::deserialize_by_fields!(AgentManifest, "struct AgentManifest");

impl AgentManifest {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            name: f.required("name")?,
            description: f.optional("description")?,
            metadata: f.or_default("metadata")?,
            input_content_types: f.or_else("input_content_types", any_content_type)?,
            output_content_types: f.or_else("output_content_types", any_content_type)?,
            extra: f.rest(),
        })
    }
}

fn any_content_type() -> Vec<String> {
    vec!["*/*".to_owned()]
}

impl AgentManifest {
    /// A manifest of `name` accepting and producing any content type.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: None,
            metadata: JsonMap::new(),
            input_content_types: any_content_type(),
            output_content_types: any_content_type(),
            extra: JsonMap::new(),
        }
    }

    /// Checks that every part of `message` has a content type the agent accepts: one matching a
    /// pattern of `input_content_types` (patterns are globs, `image/*`, `*/*`, matched ASCII
    /// case-insensitively with the part's parameters ignored: see
    /// [`Pattern::content_type`](crate::pattern::Pattern::content_type)). A part whose
    /// `content_type` is `null` is checked as `application/octet-stream` (RFC 2046 §4.5.1, "unknown
    /// data").
    ///
    /// ```
    /// use agentwire::dialect::acp::{AgentManifest, Message, MessagePart, Role};
    /// use agentwire::ErrorCode;
    /// let mut vision = AgentManifest::new("vision");
    /// vision.input_content_types = vec!["text/plain".into(), "image/*".into()];
    /// let ok = Message::new(Role::user(), vec![
    ///     MessagePart::text("What is this?"),
    ///     MessagePart::url("image/png", "https://example.com/cat.png"),
    /// ]);
    /// assert!(vision.check_input(&ok).is_ok());
    /// let pdf = Message::new(Role::user(), vec![MessagePart::url("application/pdf", "https://example.com/a.pdf")]);
    /// assert_eq!(vision.check_input(&pdf).unwrap_err().code(), "content-type-not-accepted");
    /// ```
    ///
    /// # Errors
    /// [`AcpError::ContentTypeNotAccepted`](super::AcpError::ContentTypeNotAccepted) for the first
    /// part no pattern matches;
    /// [`AcpError::InvalidContentTypePattern`](super::AcpError::InvalidContentTypePattern) if a
    /// pattern of the manifest does not compile.
    pub fn check_input(&self, message: &Message) -> Result<(), super::AcpError> {
        check_content_types(&self.name, &self.input_content_types, message)
    }

    /// Checks `message` (an agent's output) against `output_content_types`, as
    /// [`check_input`](Self::check_input) does.
    ///
    /// # Errors
    /// As [`check_input`](Self::check_input).
    pub fn check_output(&self, message: &Message) -> Result<(), super::AcpError> {
        check_content_types(&self.name, &self.output_content_types, message)
    }
}

fn check_content_types(
    agent: &str,
    patterns: &[String],
    message: &Message,
) -> Result<(), super::AcpError> {
    use crate::pattern::Pattern;
    let compiled = patterns
        .iter()
        .map(|p| {
            Pattern::content_type(p).map_err(|e| super::AcpError::InvalidContentTypePattern {
                agent: agent.to_owned(),
                pattern: p.clone(),
                reason: e.to_string(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (part_index, part) in message.parts.iter().enumerate() {
        let content_type = part
            .content_type
            .as_deref()
            .unwrap_or("application/octet-stream");
        if !compiled.iter().any(|p| p.is_match(content_type)) {
            return Err(super::AcpError::ContentTypeNotAccepted {
                agent: agent.to_owned(),
                part_index,
                content_type: content_type.to_owned(),
                accepted: patterns.to_vec(),
            });
        }
    }
    Ok(())
}

/// A message as the client sends it: written as [`Message`] is, except that `created_at` and
/// `completed_at` are left out when the message has none, rather than written `null`. The server
/// then fills them in: the SDK's `Message` defaults both to the time it reads the message, while an
/// explicit `null` is kept (in the session's history, where `completed_at: null` reads as a message
/// still being written).
struct Outgoing<'a>(&'a Message);

impl Serialize for Outgoing<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let m = self.0;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("role", &m.role)?;
        map.serialize_entry("parts", &m.parts)?;
        if let Some(t) = &m.created_at {
            map.serialize_entry("created_at", t)?;
        }
        if let Some(t) = &m.completed_at {
            map.serialize_entry("completed_at", t)?;
        }
        for (k, v) in &m.extra {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Writes the client's messages as [`Outgoing`] ones (`serialize_with` of `input`).
fn write_outgoing<S: serde::Serializer>(messages: &[Message], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(messages.iter().map(Outgoing))
}

/// Writes the client's answer as an [`Outgoing`] message (`serialize_with` of `message`).
fn write_outgoing_answer<S: serde::Serializer>(
    message: &Option<Message>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match message {
        Some(m) => Outgoing(m).serialize(s),
        None => s.serialize_none(),
    }
}

/// `POST /runs`: start a run (the SDK's `RunCreateRequest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
pub struct RunCreateRequest {
    /// The agent to run.
    pub agent_name: String,
    /// A session to continue (a UUID); its history is given to the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// A whole session (`{id, history, state}`) to forward to another server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
    pub session: Option<serde_json::Value>,
    /// The input messages. A timestamp a message does not have is left out when it is sent, not
    /// written `null`, so that the server fills it in (the SDK's `Message` defaults both to the
    /// time it reads the message; an explicit `null` is kept).
    #[serde(serialize_with = "write_outgoing")]
    pub input: Vec<Message>,
    /// `stream`, `sync` (the SDK's default) or `async`.
    #[serde(default)]
    pub mode: RunMode,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

impl RunCreateRequest {
    /// A request to run `agent_name` on `input` in `mode`.
    pub fn new(agent_name: impl Into<String>, input: Vec<Message>, mode: RunMode) -> Self {
        Self {
            agent_name: agent_name.into(),
            session_id: None,
            session: None,
            input,
            mode,
            extra: JsonMap::new(),
        }
    }

    /// The same request in session `session_id`.
    pub fn in_session(self, session_id: impl Into<String>) -> Self {
        Self {
            session_id: Some(session_id.into()),
            ..self
        }
    }

    /// The checks of the input that need no manifest, as the protocol states them: each
    /// message's role matches `^(user|agent(\/[a-zA-Z0-9_\-]+)?)$` (the SDK's `Message.role`,
    /// [`Role::is_valid`]), and the session id, when there is one, is a UUID (the OpenAPI
    /// document's `SessionId`, `format: uuid`). A server refuses either with `422`; checking first
    /// keeps the request from being sent. The content types a manifest accepts are
    /// [`AgentManifest::check_input`]'s.
    ///
    /// # Errors
    /// The first [`InputError`]: a role (by message index), then the session id.
    pub fn check_input(&self) -> Result<(), InputError> {
        if let Some((index, m)) = self
            .input
            .iter()
            .enumerate()
            .find(|(_, m)| !m.role.is_valid())
        {
            return Err(InputError::Role {
                index,
                role: m.role.to_string(),
            });
        }
        match &self.session_id {
            Some(id) if !is_uuid(id) => Err(InputError::SessionId {
                session_id: id.clone(),
            }),
            _ => Ok(()),
        }
    }
}

/// A run's input that ACP does not allow ([`RunCreateRequest::check_input`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// A message's role is not `user`, `agent` or `agent/<name>`.
    #[error("`{role}` is not an ACP role: user, agent or agent/<name> (letters, digits, _ and -)")]
    Role {
        /// The message's position in `input` (0-based).
        index: usize,
        /// The role as given.
        role: String,
    },
    /// The session id is not a UUID.
    #[error("`{session_id}` is not a UUID (ACP session ids are)")]
    SessionId {
        /// The session id as given.
        session_id: String,
    },
}

/// Whether `s` is a UUID in its text form: 32 hex digits in groups of 8-4-4-4-12 (either case;
/// RFC 9562 section 4).
fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// `POST /runs/{run_id}`: resume an `awaiting` run (the SDK's `RunResumeRequest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
pub struct RunResumeRequest {
    /// The answer to the run's await request.
    pub await_resume: AwaitResume,
    /// `stream`, `sync` or `async` (required by the SDK).
    pub mode: RunMode,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

impl RunResumeRequest {
    /// A resume answering with `message`, in `mode`.
    pub fn message(message: Message, mode: RunMode) -> Self {
        Self {
            await_resume: AwaitResume::message(message),
            mode,
            extra: JsonMap::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The hand-written readers (`read_fields`) against serde's derived ones (this module's tests
    /// derive `Deserialize`): a full object of each type, and every change of it by one member.
    #[test]
    fn hand_readers_read_as_the_derived_ones() {
        use agentwire_core::json::same_reading;
        use serde_json::json;
        let part = json!({"name": "/a", "content_type": "text/markdown", "content": "hi",
            "content_encoding": "plain", "content_url": null,
            "metadata": {"kind": "citation", "url": "https://x"}, "x_part": 1});
        let message = json!({"role": "agent/echo", "parts": [part.clone(), {"content": "b"}],
            "created_at": "2026-11-21T04:34:04Z", "completed_at": null, "x_message": [1]});
        let error = json!({"code": "not_found", "message": "no run", "data": {"id": 1}, "x": 2});
        let request = json!({"type": "message", "message": message.clone(), "x_request": true});
        let run = json!({"run_id": "r1", "agent_name": "echo", "session_id": "s1",
            "status": "awaiting", "await_request": request.clone(), "output": [message.clone()],
            "error": error.clone(), "created_at": "t0", "finished_at": "t1", "x_run": {}});
        let manifest = json!({"name": "echo", "description": "d", "metadata": {"a": 1},
            "input_content_types": ["text/*"], "output_content_types": ["*/*"], "x_agent": 0});
        let cases = [
            same_reading(
                &part,
                &[
                    "name",
                    "content_type",
                    "content",
                    "content_encoding",
                    "content_url",
                    "metadata",
                ],
                "struct MessagePart",
                MessagePart::read_fields,
            ),
            same_reading(
                &message,
                &["role", "parts", "created_at", "completed_at"],
                "struct Message",
                Message::read_fields,
            ),
            same_reading(
                &error,
                &["code", "message", "data"],
                "struct ErrorInfo",
                ErrorInfo::read_fields,
            ),
            same_reading(
                &request,
                &["type", "message"],
                "struct AwaitRequest",
                AwaitRequest::read_fields,
            ),
            same_reading(
                &request,
                &["type", "message"],
                "struct AwaitResume",
                AwaitResume::read_fields,
            ),
            same_reading(
                &run,
                &[
                    "run_id",
                    "agent_name",
                    "session_id",
                    "status",
                    "await_request",
                    "output",
                    "error",
                    "created_at",
                    "finished_at",
                ],
                "struct Run",
                Run::read_fields,
            ),
            same_reading(
                &manifest,
                &[
                    "name",
                    "description",
                    "metadata",
                    "input_content_types",
                    "output_content_types",
                ],
                "struct AgentManifest",
                AgentManifest::read_fields,
            ),
        ];
        for case in cases {
            // The full object and at least its unknown member's changes read.
            assert!(case.unwrap() > 10);
        }
    }

    /// `PartMetadata` as serde derived it before `from_map` read it by hand: the reference.
    #[derive(Debug, Deserialize)]
    #[serde(tag = "kind")]
    enum DerivedMetadata {
        #[serde(rename = "citation")]
        Citation(CitationMetadata),
        #[serde(rename = "trajectory")]
        Trajectory(TrajectoryMetadata),
        #[serde(untagged)]
        Other(JsonMap),
    }

    impl From<DerivedMetadata> for PartMetadata {
        fn from(m: DerivedMetadata) -> Self {
            match m {
                DerivedMetadata::Citation(c) => PartMetadata::Citation(c),
                DerivedMetadata::Trajectory(t) => PartMetadata::Trajectory(t),
                DerivedMetadata::Other(m) => PartMetadata::Other(m),
            }
        }
    }

    fn metadata_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            (-3i64..3).prop_map(Value::from),
            Just(Value::from(u64::MAX)),
            Just(Value::from(2.0)),
            Just(Value::from(-1.5)),
            "[a-z]{0,3}".prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
            Just(serde_json::json!([1, "a"])),
            Just(serde_json::json!({"k": {"n": null}})),
        ]
    }

    fn metadata_object() -> impl Strategy<Value = Value> {
        let kind = prop_oneof![
            Just(Some(Value::from("citation"))),
            Just(Some(Value::from("trajectory"))),
            Just(Some(Value::from("hologram"))),
            Just(Some(Value::from(5))),
            Just(None),
        ];
        const KEYS: [&str; 10] = [
            "start_index",
            "end_index",
            "url",
            "title",
            "description",
            "message",
            "tool_name",
            "tool_input",
            "tool_output",
            "x_extra",
        ];
        let fields = proptest::collection::vec(
            (proptest::sample::select(&KEYS[..]), metadata_value()),
            0..5,
        );
        (kind, fields).prop_map(|(kind, fields)| {
            let mut map = JsonMap::new();
            for (k, v) in fields {
                map.insert(k.to_owned(), v);
            }
            if let Some(kind) = kind {
                map.insert("kind".to_owned(), kind);
            }
            Value::Object(map)
        })
    }

    proptest! {
        #[test]
        fn metadata_is_read_as_serdes_tagged_enum_read_it(object in metadata_object()) {
            let text = object.to_string();
            let expected: PartMetadata = serde_json::from_str::<DerivedMetadata>(&text).unwrap().into();
            let from_text: PartMetadata = serde_json::from_str(&text).unwrap();
            let from_tree = PartMetadata::deserialize(&object).unwrap();
            let Value::Object(map) = object else { unreachable!() };
            prop_assert_eq!(&from_text, &expected);
            prop_assert_eq!(&from_tree, &expected);
            prop_assert_eq!(PartMetadata::from_map(map), expected);
        }
    }

    #[test]
    fn metadata_that_is_not_an_object_is_an_error() {
        for text in [r#""citation""#, "[1]", "3", "true"] {
            assert!(
                serde_json::from_str::<PartMetadata>(text).is_err(),
                "{text}"
            );
            assert!(
                serde_json::from_str::<DerivedMetadata>(text).is_err(),
                "{text}"
            );
        }
    }

    #[test]
    fn compress_joins_only_plain_unnamed_text_without_metadata() {
        let cited = MessagePart {
            metadata: Some(Box::new(
                PartMetadata::Citation(CitationMetadata::default()),
            )),
            ..MessagePart::text("[1]")
        };
        let b64 = MessagePart {
            content_encoding: Some(ContentEncoding::Base64),
            ..MessagePart::text("aGk=")
        };
        let empty = MessagePart {
            content: None,
            ..MessagePart::text("")
        };
        let parts = vec![
            MessagePart::text("a"),
            MessagePart::text("b"),
            cited.clone(),
            MessagePart::text("c"),
            MessagePart::text("d").named("/n"),
            MessagePart::text("e"),
            b64.clone(),
            empty.clone(),
            MessagePart::text("f"),
            MessagePart::inline("text/markdown", "g"),
            MessagePart::text("h"),
            MessagePart::text(""),
        ];
        let message = Message::new(Role::agent(Some("x")), parts).compressed();
        assert_eq!(message.role, Role::agent(Some("x")));
        assert_eq!(
            message.parts,
            [
                MessagePart::text("ab"),
                cited,
                MessagePart::text("c"),
                MessagePart::text("d").named("/n"),
                MessagePart::text("e"),
                b64,
                empty,
                MessagePart::text("f"),
                MessagePart::inline("text/markdown", "g"),
                MessagePart::text("h"),
            ]
        );
    }

    #[test]
    fn run_status_terminality_follows_the_sdk() {
        for (s, terminal) in [
            ("created", false),
            ("in-progress", false),
            ("awaiting", false),
            ("cancelling", false),
            ("cancelled", true),
            ("completed", true),
            ("failed", true),
            ("incomplete", true),
            ("paused", false),
        ] {
            assert_eq!(RunStatus::from(s).is_terminal(), terminal, "{s}");
            assert_eq!(RunStatus::from(s).as_str(), s);
        }
    }
}
