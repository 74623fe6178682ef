//! Agent API stream events: one JSON object per SSE `data`, told apart by its `object` field.

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::model::{
    AgentResponse, Content, ContentKind, ErrorInfo, Message, MessageType, Role, RunStatus,
};
use super::AgentApiError;
use crate::wire::{CowStr, JsonMap};

/// One event of an Agent API stream.
///
/// The protocol sends `AgentResponse` (`object: "response"`), `Message` (`object: "message"`) and
/// `Content` (`object: "content"`) objects as SSE `data`. agentscope-runtime also answers a malformed
/// request with `{"error": "…"}` and no `object`: that is [`AgentEvent::Error`]. An event with an
/// `object` this version does not know is kept whole as [`AgentEvent::Unknown`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum AgentEvent {
    /// `object: "response"`: the response envelope (status changes; the last one carries `output`).
    Response(AgentResponse),
    /// `object: "message"`: a message appears or changes status.
    Message(Message),
    /// `object: "content"`: a content item, whole or as a delta.
    Content(Content),
    /// An event without `object` that carries `error`.
    Error(ErrorEvent),
    /// An event with an unknown `object` (or none and no `error`), kept as sent.
    Unknown(serde_json::Value),
}

/// An error event without `object`, e.g. agentscope-runtime's `{"error": "Invalid request"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorEvent {
    /// The `error` value as sent: a string or an `{code, message}` object.
    pub error: serde_json::Value,
    /// The other fields, kept as sent.
    #[serde(flatten)]
    pub extra: JsonMap,
}

impl ErrorEvent {
    /// The error as `{code, message}`: a string becomes the message (code `"error"`).
    pub fn info(&self) -> ErrorInfo {
        error_info(&self.error)
    }
}

/// Reads any `error` value as `{code, message}`: a string becomes the message with code `"error"`;
/// a value of another shape becomes its JSON text.
pub(crate) fn error_info(v: &serde_json::Value) -> ErrorInfo {
    ErrorInfo::deserialize(v).unwrap_or_else(|_| ErrorInfo {
        code: "error".to_owned(),
        message: v.to_string(),
        extra: JsonMap::new(),
    })
}

impl AgentEvent {
    /// Parses one SSE `data` payload.
    ///
    /// # Errors
    /// [`AgentApiError::InvalidJson`] if `data` is not JSON, [`AgentApiError::InvalidEvent`] if it is
    /// JSON of the wrong shape (e.g. `"index": "one"`); both keep the data.
    pub fn parse(data: &str) -> Result<Self, AgentApiError> {
        Ok(RawEvent::parse(data)?.into_event())
    }
}

/// Every field any Agent API event may carry, parsed in one pass in whatever order the server wrote
/// them; strings the assembler only reads (`object`, `type`, `msg_id`, `text`) borrow from the input.
#[derive(Debug, Default)]
pub(crate) struct RawEvent<'a> {
    pub object: Option<CowStr<'a>>,
    pub sequence_number: Option<u64>,
    pub status: Option<RunStatus>,
    pub error: Option<serde_json::Value>,
    pub id: Option<String>,
    pub kind: Option<CowStr<'a>>,
    pub role: Option<Role>,
    pub content: Option<Vec<Content>>,
    pub code: Option<String>,
    pub message: Option<String>,
    pub usage: Option<JsonMap>,
    pub metadata: Option<JsonMap>,
    pub created_at: Option<i64>,
    pub completed_at: Option<i64>,
    pub output: Option<Vec<Message>>,
    pub session_id: Option<String>,
    pub index: Option<u32>,
    pub delta: Option<bool>,
    pub msg_id: Option<CowStr<'a>>,
    pub text: Option<CowStr<'a>>,
    pub image_url: Option<String>,
    pub data: Option<serde_json::Value>,
    pub format: Option<String>,
    pub file_url: Option<String>,
    pub file_id: Option<String>,
    pub filename: Option<String>,
    pub file_data: Option<String>,
    pub refusal: Option<String>,
    pub video_url: Option<String>,
    pub extra: JsonMap,
}

impl<'a> RawEvent<'a> {
    pub(crate) fn parse(data: &'a str) -> Result<Self, AgentApiError> {
        let mut de = serde_json::Deserializer::from_str(data);
        let raw = RawEvent::deserialize(&mut de)
            .and_then(|raw| de.end().map(|()| raw))
            .map_err(|e| AgentApiError::from_json(e, data))?;
        Ok(raw)
    }

    /// The `object` field (`""` when absent).
    pub(crate) fn object(&self) -> &str {
        self.object.as_ref().map_or("", |o| &o.0)
    }

    /// Converts into a public, owned event. Fields that do not belong to the event's `object` are
    /// moved into its `extra`, so nothing is lost.
    pub(crate) fn into_event(self) -> AgentEvent {
        match self.object() {
            "content" => AgentEvent::Content(self.into_content()),
            "message" => AgentEvent::Message(self.into_message()),
            "response" => AgentEvent::Response(self.into_response()),
            "" if self.error.is_some() => {
                let mut raw = self;
                let error = raw.error.take().unwrap_or_default();
                let mut extra = std::mem::take(&mut raw.extra);
                raw.leftovers(&mut extra);
                AgentEvent::Error(ErrorEvent { error, extra })
            }
            _ => {
                let mut raw = self;
                let mut map = std::mem::take(&mut raw.extra);
                if let Some(o) = raw.object.take() {
                    map.insert("object".into(), o.0.into_owned().into());
                }
                if let Some(e) = raw.error.take() {
                    map.insert("error".into(), e);
                }
                raw.leftovers(&mut map);
                AgentEvent::Unknown(serde_json::Value::Object(map))
            }
        }
    }

    pub(crate) fn into_content(mut self) -> Content {
        let mut extra = std::mem::take(&mut self.extra);
        let content = Content {
            object: "content".to_owned(),
            kind: self
                .kind
                .take()
                .map_or(ContentKind::Text, |k| (&*k.0).into()),
            index: self.index.take(),
            delta: self.delta.take(),
            msg_id: self.msg_id.take().map(|m| m.0.into_owned()),
            status: self.status.take(),
            sequence_number: self.sequence_number.take(),
            error: self.error.take().map(|e| error_info(&e)),
            text: self.text.take().map(|t| t.0.into_owned()),
            image_url: self.image_url.take(),
            data: self.data.take(),
            format: self.format.take(),
            file_url: self.file_url.take(),
            file_id: self.file_id.take(),
            filename: self.filename.take(),
            file_data: self.file_data.take(),
            refusal: self.refusal.take(),
            video_url: self.video_url.take(),
            extra: JsonMap::new(),
        };
        self.leftovers(&mut extra);
        Content { extra, ..content }
    }

    pub(crate) fn into_message(mut self) -> Message {
        let mut extra = std::mem::take(&mut self.extra);
        let message = Message {
            object: "message".to_owned(),
            id: self.id.take(),
            kind: self
                .kind
                .take()
                .map_or(MessageType::Message, |k| (&*k.0).into()),
            status: self.status.take(),
            role: self.role.take(),
            content: self.content.take().unwrap_or_default(),
            code: self.code.take(),
            message: self.message.take(),
            usage: self.usage.take(),
            metadata: self.metadata.take(),
            sequence_number: self.sequence_number.take(),
            error: self.error.take().map(|e| error_info(&e)),
            extra: JsonMap::new(),
        };
        self.leftovers(&mut extra);
        Message { extra, ..message }
    }

    pub(crate) fn into_response(mut self) -> AgentResponse {
        let mut extra = std::mem::take(&mut self.extra);
        let response = AgentResponse {
            object: "response".to_owned(),
            id: self.id.take(),
            status: self.status.take().unwrap_or_default(),
            created_at: self.created_at.take(),
            completed_at: self.completed_at.take(),
            error: self.error.take().map(|e| error_info(&e)),
            output: self.output.take().unwrap_or_default(),
            usage: self.usage.take(),
            session_id: self.session_id.take(),
            sequence_number: self.sequence_number.take(),
            extra: JsonMap::new(),
        };
        self.leftovers(&mut extra);
        AgentResponse { extra, ..response }
    }

    /// Moves every field still set into `extra` (fields another `object` would have used).
    fn leftovers(&mut self, extra: &mut JsonMap) {
        fn put<T: Serialize>(extra: &mut JsonMap, key: &str, v: Option<T>) {
            if let Some(v) = v {
                if let Ok(v) = serde_json::to_value(v) {
                    extra.insert(key.to_owned(), v);
                }
            }
        }
        put(extra, "sequence_number", self.sequence_number.take());
        put(extra, "status", self.status.take());
        put(extra, "error", self.error.take());
        put(extra, "id", self.id.take());
        put(extra, "type", self.kind.take().map(|k| k.0));
        put(extra, "role", self.role.take());
        put(extra, "content", self.content.take());
        put(extra, "code", self.code.take());
        put(extra, "message", self.message.take());
        put(extra, "usage", self.usage.take());
        put(extra, "metadata", self.metadata.take());
        put(extra, "created_at", self.created_at.take());
        put(extra, "completed_at", self.completed_at.take());
        put(extra, "output", self.output.take());
        put(extra, "session_id", self.session_id.take());
        put(extra, "index", self.index.take());
        put(extra, "delta", self.delta.take());
        put(extra, "msg_id", self.msg_id.take().map(|m| m.0));
        put(extra, "text", self.text.take().map(|t| t.0));
        put(extra, "image_url", self.image_url.take());
        put(extra, "data", self.data.take());
        put(extra, "format", self.format.take());
        put(extra, "file_url", self.file_url.take());
        put(extra, "file_id", self.file_id.take());
        put(extra, "filename", self.filename.take());
        put(extra, "file_data", self.file_data.take());
        put(extra, "refusal", self.refusal.take());
        put(extra, "video_url", self.video_url.take());
    }
}

impl<'de> Deserialize<'de> for RawEvent<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawEvent<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an Agent API event object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut r = RawEvent::default();
                while let Some(key) = map.next_key::<CowStr<'de>>()? {
                    match &*key.0 {
                        "object" => r.object = map.next_value()?,
                        "sequence_number" => r.sequence_number = map.next_value()?,
                        "status" => r.status = map.next_value()?,
                        "error" => r.error = map.next_value()?,
                        "id" => r.id = map.next_value()?,
                        "type" => r.kind = map.next_value()?,
                        "role" => r.role = map.next_value()?,
                        "content" => r.content = map.next_value()?,
                        "code" => r.code = map.next_value()?,
                        "message" => r.message = map.next_value()?,
                        "usage" => r.usage = map.next_value()?,
                        "metadata" => r.metadata = map.next_value()?,
                        "created_at" => r.created_at = map.next_value()?,
                        "completed_at" => r.completed_at = map.next_value()?,
                        "output" => r.output = map.next_value()?,
                        "session_id" => r.session_id = map.next_value()?,
                        "index" => r.index = map.next_value()?,
                        "delta" => r.delta = map.next_value()?,
                        "msg_id" => r.msg_id = map.next_value()?,
                        "text" => r.text = map.next_value()?,
                        "image_url" => r.image_url = map.next_value()?,
                        "data" => r.data = map.next_value()?,
                        "format" => r.format = map.next_value()?,
                        "file_url" => r.file_url = map.next_value()?,
                        "file_id" => r.file_id = map.next_value()?,
                        "filename" => r.filename = map.next_value()?,
                        "file_data" => r.file_data = map.next_value()?,
                        "refusal" => r.refusal = map.next_value()?,
                        "video_url" => r.video_url = map.next_value()?,
                        _ => {
                            let v: serde_json::Value = map.next_value()?;
                            r.extra.insert(key.0.into_owned(), v);
                        }
                    }
                }
                Ok(r)
            }
        }
        d.deserialize_map(V)
    }
}
