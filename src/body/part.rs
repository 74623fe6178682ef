//! The part model every protocol maps onto.

use serde::{Deserialize, Serialize};

use crate::wire::JsonMap;
use crate::wire_enum;

wire_enum! {
    /// What a part is, whatever protocol it came from.
    PartKind {
        /// Text shown to the user.
        Text = "text",
        /// The model's reasoning, shown apart from the answer.
        Reasoning = "reasoning",
        /// A call of a tool (arguments as JSON in `content`; `metadata.toolCallId`, `metadata.toolName`).
        ToolCall = "tool_call",
        /// A tool's result (`metadata.toolCallId`).
        ToolResult = "tool_result",
        /// A tool's failure (`metadata.toolCallId`, `metadata.errorType`).
        ToolError = "tool_error",
        /// An image.
        Image = "image",
        /// Audio.
        Audio = "audio",
        /// A file.
        File = "file",
        /// Structured data (JSON).
        Data = "data",
        /// The model refused; the refusal text.
        Refusal = "refusal",
    }
}

wire_enum! {
    /// How inline `content` is encoded (default `plain`).
    #[derive(Default)]
    ContentEncoding {
        /// The content is the text itself.
        #[default]
        Plain = "plain",
        /// The content is base64 (RFC 4648 §4, with padding) of the bytes.
        Base64 = "base64",
    }
}

wire_enum! {
    /// Where a part is in its life while a message streams.
    #[derive(Default)]
    PartStatus {
        /// Still receiving content.
        Streaming = "streaming",
        /// Complete (the default).
        #[default]
        Complete = "complete",
        /// The stream ended before the part completed; its content is what arrived.
        Incomplete = "incomplete",
    }
}

/// One part of a message body.
///
/// Parts without a `name` are the main content shown to the user; named parts are attachments,
/// metadata or state addressed like files (`/sources/1`). A complete part has exactly one of
/// `content` (inline, `contentEncoding` `plain` or `base64`) and `contentUrl`.
///
/// JSON (and JavaScript) field names are camelCase; the protocols' snake_case names
/// (`content_type`, `content_url`, `content_encoding`) are accepted when reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// What the part is (`text` when absent).
    #[serde(rename = "type", default = "default_kind")]
    pub kind: PartKind,
    /// A POSIX absolute path (`/sources/1`), unique in its message; absent for main content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The MIME content type, e.g. `text/plain`, `image/png` (default `text/plain`).
    #[serde(default = "default_content_type", alias = "content_type")]
    pub content_type: String,
    /// Inline content: text, or base64 when `content_encoding` is `base64`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Encoding of `content`.
    #[serde(default, alias = "content_encoding")]
    pub content_encoding: ContentEncoding,
    /// Where the content is, instead of inline.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        alias = "content_url"
    )]
    pub content_url: Option<String>,
    /// Free-form metadata (citations, tool call ids, the protocol's own fields).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, JsonValue>"))]
    pub metadata: Option<JsonMap>,
    /// Streaming state (default `complete`).
    #[serde(default)]
    pub status: PartStatus,
}

fn default_kind() -> PartKind {
    PartKind::Text
}

fn default_content_type() -> String {
    "text/plain".to_owned()
}

impl Part {
    /// An unnamed, complete, plain part of `kind` with inline `content`.
    pub fn inline(kind: PartKind, content_type: &str, content: impl Into<String>) -> Self {
        Self {
            kind,
            name: None,
            content_type: content_type.to_owned(),
            content: Some(content.into()),
            content_encoding: ContentEncoding::Plain,
            content_url: None,
            metadata: None,
            status: PartStatus::Complete,
        }
    }

    /// An unnamed, complete part of `kind` whose content is at `url`.
    pub fn url(kind: PartKind, content_type: &str, url: impl Into<String>) -> Self {
        Self {
            content: None,
            content_url: Some(url.into()),
            ..Self::inline(kind, content_type, String::new())
        }
    }

    /// The same part with a name.
    pub fn named(self, name: impl Into<String>) -> Self {
        Self {
            name: Some(name.into()),
            ..self
        }
    }
}

/// A message body: an ordered list of parts. Protocol messages offer it as a view
/// (`body()` on each dialect's message), kept up to date while they stream.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Body {
    /// The parts, in message order.
    pub parts: Vec<Part>,
}

impl Body {
    /// A body of `parts`.
    pub fn new(parts: Vec<Part>) -> Self {
        Self { parts }
    }
}

/// `parts` as the text of a JSON array (what `serde_json::to_string` writes).
///
/// For the wasm binding, which hands lists of parts (`MessageBody.list`, `parts`, `main`) to
/// JavaScript as JSON text. A generic serializer is compiled in the crate that instantiates it:
/// instantiated in the binding (the agentwire crate, opt-level "z"), handing 6,666 parts to
/// JavaScript took twice as long (`MessageBody.list` over 10,000 parts in Node: 23.2 ms, 15.6 ms
/// from here). This function is not generic, so its serializer is compiled here, at 3.
///
/// # Errors
/// serde_json's error; none for parts (the keys of their metadata are strings).
#[doc(hidden)]
pub fn parts_json(parts: &[&Part]) -> serde_json::Result<String> {
    serde_json::to_string(parts)
}
