//! The AgentX wire model, field for field.
//!
//! Source: AgentX (dustland), "Communication and Message Architecture", §2 "The `Message` and `Part`
//! Schema" (`docs/arch/04-communication.md` of the `dustland/roboco` repository, 2025-06-17; the
//! same text is `docs/content/docs/design/communication.mdx`). The document defines the schema as
//! pydantic models; names on the wire are its names (`tool_call_id`, `tool_name`, `error_type`).
//! Unknown fields are kept in `extra`, unknown part types whole as [`Part::Other`], unknown roles and
//! error types as `Other`, so every value survives a round trip.

#[cfg(test)]
use serde::Deserialize;
use serde::Serialize;

use agentwire_core::json::Fields;

use crate::platform::random_hex;
use crate::wire::JsonMap;
use crate::wire_enum;

wire_enum! {
    /// Who wrote a message (`role`). The document allows `"user" | "assistant"`; any other value is
    /// kept as [`Role::Other`].
    Role as "AgentxRole" {
        /// `user`
        User = "user",
        /// `assistant`
        Assistant = "assistant",
    }
}

wire_enum! {
    /// Why a tool call failed (`ToolErrorPart.error_type`): the document's `"VALIDATION" |
    /// "EXECUTION"` (upper case on the wire), any other value kept as [`ToolErrorType::Other`].
    ToolErrorType as "AgentxToolErrorType" {
        /// `VALIDATION`: the call did not match the tool's schema and was not run (the
        /// self-correction loop, `docs/03-tool-call.md` step 4).
        Validation = "VALIDATION",
        /// `EXECUTION`: the tool ran and failed.
        Execution = "EXECUTION",
    }
}

/// A message (`Message {id, role, parts}`): one entry of a conversation, or one packet of a
/// streamed response (packets with the same `id` are one logical message, which the assembler
/// joins).
///
/// Wire shape: `{"id": "msg_<32 hex>", "role": "user" | "assistant", "parts": [Part…]}` plus any
/// unknown fields (kept in [`extra`](Self::extra)). `role` and `parts` are required when reading; `id`
/// may be absent (the document's example flows leave it out) or `null` (read as absent, written as
/// absent).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Agentx")
)]
pub struct Message {
    /// `msg_` and 32 lowercase hex digits (the document's default is `f"msg_{uuid.uuid4().hex}"`);
    /// see [`is_message_id`]. `None` when the sender left it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Who wrote it.
    pub role: Role,
    /// The parts, in order.
    pub parts: Vec<Part>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

/// One part of a [`Message`], told apart by its `type`.
///
/// | `type` | fields |
/// |---|---|
/// | `text` | `text` (string) |
/// | `tool_call` | `tool_call_id` (string), `tool_name` (string), `args` (object) |
/// | `tool_result` | `tool_call_id` (string), `result` (any JSON, `null` included) |
/// | `tool_error` | `tool_call_id` (string), `error_type` (string), `message` (string) |
/// | anything else | anything: the part is kept whole |
///
/// A part whose `type` is one of the four but whose fields do not have these shapes (say a `text`
/// part without `text`, or `args` that is a string) is not rejected either: it is kept whole, as
/// a part of an unknown type is, and the assembler reports it (`invalid-part`). Reading never
/// fails on a part that is a JSON object. (The tool loop still answers a `tool_call` part whose
/// only fault is its `args` with a `VALIDATION` error.)
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(
        type = "({ type: \"text\" } & AgentxTextPart) | ({ type: \"tool_call\" } & AgentxToolCallPart) | ({ type: \"tool_result\" } & AgentxToolResultPart) | ({ type: \"tool_error\" } & AgentxToolErrorPart) | ({ type: string } & Record<string, JsonValue>)",
        type_prefix = "Agentx"
    )
)]
#[serde(tag = "type")]
pub enum Part {
    /// `type: "text"`: text shown to the user.
    #[serde(rename = "text")]
    Text(TextPart),
    /// `type: "tool_call"`: the agent asks for a tool to be run.
    #[serde(rename = "tool_call")]
    ToolCall(ToolCallPart),
    /// `type: "tool_result"`: a tool's successful result.
    #[serde(rename = "tool_result")]
    ToolResult(ToolResultPart),
    /// `type: "tool_error"`: a tool call that failed validation or execution.
    #[serde(rename = "tool_error")]
    ToolError(ToolErrorPart),
    /// A part of another type (the AgentX implementation also has `image`, `audio`, `artifact`,
    /// `memory`, `guardrail`…), or of a known type with the wrong shape: every field as sent,
    /// `type` included.
    #[serde(untagged)]
    Other(JsonMap),
}

/// `TextPart {type: "text", text}`. While a message streams, consecutive text packets concatenate
/// into one text part.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Agentx")
)]
pub struct TextPart {
    /// The text.
    pub text: String,
    /// Fields this version does not know (never `type`), kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

/// `ToolCallPart {type: "tool_call", tool_call_id, tool_name, args}`: a request to run `tool_name`
/// with `args`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Agentx")
)]
pub struct ToolCallPart {
    /// `tc_` and 32 lowercase hex digits (the document's default is `f"tc_{uuid.uuid4().hex}"`); see
    /// [`is_tool_call_id`]. Results and errors refer to the call by it.
    pub tool_call_id: String,
    /// The tool's name, e.g. `write_file`.
    pub tool_name: String,
    /// The arguments: a JSON object (`Dict[str, Any]`). Not validated here: the model may leave out
    /// required arguments (that is what [`ToolErrorType::Validation`] reports).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub args: JsonMap,
    /// Fields this version does not know (never `type`), kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

/// `ToolResultPart {type: "tool_result", tool_call_id, result}`: a tool's successful result.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Agentx")
)]
pub struct ToolResultPart {
    /// The call this answers.
    pub tool_call_id: String,
    /// The tool's structured output: any JSON value (`Any`), `null` included. Required on the wire.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
    pub result: serde_json::Value,
    /// Fields this version does not know (never `type`), kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

/// `ToolErrorPart {type: "tool_error", tool_call_id, error_type, message}`: a tool call that failed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Agentx")
)]
pub struct ToolErrorPart {
    /// The call that failed.
    pub tool_call_id: String,
    /// `VALIDATION` (not run) or `EXECUTION` (ran and failed).
    pub error_type: ToolErrorType,
    /// A human-readable message for the model, e.g. `Validation failed for tool 'write_file':
    /// Missing required argument 'path'.`
    pub message: String,
    /// Fields this version does not know (never `type`), kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

/// The body of `POST /chat`: the conversation so far.
///
/// The document shows the request only as "`POST /chat` (User Message)" (§4.1, §4.2) and gives no
/// body schema, so agentwire sends `{"messages": [Message…]}`: every message of the conversation,
/// oldest first, the new user message last. Unknown fields are kept in [`extra`](Self::extra), so a
/// server's own fields (a session id, say) can be added and survive a round trip.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Agentx")
)]
pub struct ChatRequest {
    /// The conversation, oldest first.
    pub messages: Vec<Message>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub extra: JsonMap,
}

agentwire_core::deserialize_by_fields!(ChatRequest, "struct ChatRequest");

impl ChatRequest {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            messages: f.required("messages")?,
            extra: f.rest(),
        })
    }
}

impl ChatRequest {
    /// The endpoint: `POST /chat`; the response is a stream of [`Message`] packets.
    pub const PATH: &'static str = "/chat";

    /// A request carrying `messages`.
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            messages,
            extra: JsonMap::new(),
        }
    }

    /// Adds a message to the conversation.
    pub fn push(&mut self, message: Message) -> &mut Self {
        self.messages.push(message);
        self
    }

    /// The request as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// `msg_` followed by 32 lowercase hex digits (the document's `f"msg_{uuid.uuid4().hex}"`).
pub fn is_message_id(id: &str) -> bool {
    id.strip_prefix("msg_").is_some_and(is_hex32)
}

/// `tc_` followed by 32 lowercase hex digits (the document's `f"tc_{uuid.uuid4().hex}"`).
pub fn is_tool_call_id(id: &str) -> bool {
    id.strip_prefix("tc_").is_some_and(is_hex32)
}

fn is_hex32(s: &str) -> bool {
    s.len() == 32 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A new message id: `msg_` and 32 random lowercase hex digits (16 random bytes).
pub fn new_message_id() -> String {
    format!("msg_{}", random_hex(16))
}

/// A new tool call id: `tc_` and 32 random lowercase hex digits (16 random bytes).
pub fn new_tool_call_id() -> String {
    format!("tc_{}", random_hex(16))
}

impl Message {
    /// A message of `role` with `parts` and a new id ([`new_message_id`]), as the document's
    /// `Message` model does by default.
    pub fn new(role: Role, parts: Vec<Part>) -> Self {
        Self {
            id: Some(new_message_id()),
            role,
            parts,
            extra: JsonMap::new(),
        }
    }

    /// A user message with one text part and a new id.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::new(Role::User, vec![Part::text(text)])
    }

    /// All text parts joined, in order.
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The tool calls, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCallPart> {
        self.parts.iter().filter_map(|p| match p {
            Part::ToolCall(c) => Some(c),
            _ => None,
        })
    }

    /// Appends a streamed packet of this message to it, by the stream's rule: the packet's parts are
    /// appended in order, except that a text part that comes first in the packet, when this
    /// message's last part is text, is concatenated onto it (`"Hello"` + `" there!"`); its unknown
    /// fields are merged in (the packet's win). The packet's unknown message fields are merged into
    /// [`extra`](Self::extra); its `id` and `role` are not looked at (see the assembler for how
    /// packets are matched to messages).
    pub fn append_packet(&mut self, packet: Message) {
        self.extra.extend(packet.extra);
        let mut parts = packet.parts.into_iter();
        if let Some(first) = parts.next() {
            match (self.parts.last_mut(), first) {
                (Some(Part::Text(last)), Part::Text(more)) => {
                    last.text.push_str(&more.text);
                    last.extra.extend(more.extra);
                }
                (_, first) => self.parts.push(first),
            }
        }
        self.parts.extend(parts);
    }

    /// The message as one SSE event: `data: <json>` and a blank line (JSON text has no raw line
    /// breaks, so one `data` line carries it).
    pub fn to_sse(&self) -> String {
        let mut out = String::new();
        self.write_sse(&mut out);
        out
    }

    /// Appends the message to `out` as one SSE event (see [`to_sse`](Self::to_sse)).
    pub fn write_sse(&self, out: &mut String) {
        out.push_str("data: ");
        out.push_str(&serde_json::to_string(self).unwrap_or_else(|_| "null".to_owned()));
        out.push_str("\n\n");
    }
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Part::Text(TextPart {
            text: text.into(),
            extra: JsonMap::new(),
        })
    }

    /// A tool call part with a new id ([`new_tool_call_id`]).
    pub fn tool_call(tool_name: impl Into<String>, args: JsonMap) -> Self {
        Part::ToolCall(ToolCallPart::new(tool_name, args))
    }

    /// A tool result part answering `tool_call_id`.
    pub fn tool_result(tool_call_id: impl Into<String>, result: serde_json::Value) -> Self {
        Part::ToolResult(ToolResultPart {
            tool_call_id: tool_call_id.into(),
            result,
            extra: JsonMap::new(),
        })
    }

    /// A tool error part for `tool_call_id`.
    pub fn tool_error(
        tool_call_id: impl Into<String>,
        error_type: ToolErrorType,
        message: impl Into<String>,
    ) -> Self {
        Part::ToolError(ToolErrorPart {
            tool_call_id: tool_call_id.into(),
            error_type,
            message: message.into(),
            extra: JsonMap::new(),
        })
    }

    /// The part's `type` as on the wire (`""` for an [`Other`](Part::Other) part without a string
    /// `type`).
    pub fn type_name(&self) -> &str {
        match self {
            Part::Text(_) => "text",
            Part::ToolCall(_) => "tool_call",
            Part::ToolResult(_) => "tool_result",
            Part::ToolError(_) => "tool_error",
            Part::Other(map) => map.get("type").and_then(|t| t.as_str()).unwrap_or(""),
        }
    }

    /// The `tool_call_id` of a tool call, result or error.
    pub fn tool_call_id(&self) -> Option<&str> {
        match self {
            Part::ToolCall(p) => Some(&p.tool_call_id),
            Part::ToolResult(p) => Some(&p.tool_call_id),
            Part::ToolError(p) => Some(&p.tool_call_id),
            Part::Text(_) | Part::Other(_) => None,
        }
    }
}

impl ToolCallPart {
    /// A call of `tool_name` with `args` and a new id ([`new_tool_call_id`]).
    pub fn new(tool_name: impl Into<String>, args: JsonMap) -> Self {
        Self {
            tool_call_id: new_tool_call_id(),
            tool_name: tool_name.into(),
            args,
            extra: JsonMap::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentwire_core::json::same_reading;
    use serde_json::json;

    /// The hand-written reader of a request against serde's derived one (this module's tests
    /// derive `Deserialize`): a full request, and every change of it by one member.
    #[test]
    fn hand_reader_reads_as_the_derived_one() {
        let request = json!({"messages": [{"role": "user", "parts": [{"type": "text",
            "text": "hi"}]}], "x_request": 1});
        let read = same_reading(
            &request,
            &["messages"],
            "struct ChatRequest",
            ChatRequest::read_fields,
        );
        assert!(read.unwrap() > 10);
    }
}
