//! Agent API stream events: one JSON object per SSE `data`, told apart by its `object` field.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::model::{
    AgentResponse, Content, ContentKind, ErrorInfo, Message, MessageType, Role, RunStatus,
};
use super::shape::{Slot, Spans};
use super::AgentApiError;
use crate::json::scan::{starts_with_words, Elements, Key, Members, Scanned};
use crate::wire::{CowStr, JsonMap};

/// One event of an Agent API stream.
///
/// The protocol sends `AgentResponse` (`object: "response"`), `Message` (`object: "message"`) and
/// `Content` (`object: "content"`) objects as SSE `data`. agentscope-runtime also answers a malformed
/// request with `{"error": "…"}` and no `object`: that is [`AgentEvent::Error`]. An event with an
/// `object` this version does not know is kept whole as [`AgentEvent::Unknown`].
///
/// A message's `content` and a response's `output` are read element by element as content and
/// message events are: an element without `type` is `text` (a content) or `message`, its
/// `object` defaults to `"content"` or `"message"` (another string is kept), its unknown members
/// go to `extra`, and a known member that is `null` is left out.
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
    ErrorInfo::from_json_value(v).unwrap_or_else(|| ErrorInfo {
        code: "error".to_owned(),
        message: crate::json::json_text(v),
        extra: JsonMap::new(),
    })
}

impl AgentEvent {
    /// Parses one SSE `data` payload.
    ///
    /// # Errors
    /// [`AgentApiError::InvalidJson`] if `data` is not JSON, [`AgentApiError::InvalidEvent`] if it is
    /// JSON of the wrong shape (e.g. `"index": "one"`); both keep the data.
    #[inline] // Cold: compiled by its callers (see `Assembler::new`).
    pub fn parse(data: &str) -> Result<Self, AgentApiError> {
        Ok(RawEvent::parse(data)?.into_event())
    }
}

/// Every field any Agent API event may carry (those a text delta does not have in [`Rest`]), parsed
/// in one pass in whatever order the server wrote them; strings the assembler only reads
/// (`object`, `type`, `msg_id`, `text`) borrow from the input.
#[derive(Debug, Default)]
pub(crate) struct RawEvent<'a> {
    pub object: Option<CowStr<'a>>,
    pub sequence_number: Option<u64>,
    pub status: Option<RunStatus>,
    pub kind: Option<CowStr<'a>>,
    pub index: Option<u32>,
    pub delta: Option<bool>,
    pub msg_id: Option<CowStr<'a>>,
    pub text: Option<CowStr<'a>>,
    /// When `text` begins with a U+FFFD that was an escaped low surrogate (`"\udc00…`), and when
    /// it ends with one that was an escaped high surrogate (`…\ud83d"`), their code units: the
    /// halves of a pair a server cut between two deltas (set by the assembler, which joins them;
    /// see `Assembler::join_halves`).
    pub cut_pair: (Option<u16>, Option<u16>),
    /// The other members, `None` when the event has none: a text delta (nearly every event) has
    /// only the members above, and dropping its event then checks one field, not twenty-two.
    pub rest: Option<Rest>,
}

/// The members of a [`RawEvent`] a text delta does not have.
#[derive(Debug, Default)]
pub(crate) struct Rest {
    pub error: Option<serde_json::Value>,
    pub id: Option<String>,
    pub role: Option<Role>,
    /// A message's `content`: each element is read as a content event is (the same fields, then
    /// [`RawEvent::into_content`]), by both readers, so an element's `type` defaults to `text` and
    /// its `object` to `"content"`, as an event's do. (Not through `Content`'s derived reader: its
    /// text reader was compiled for this array alone, and is slower than the event scanner.)
    pub content: Option<Vec<Content>>,
    pub code: Option<String>,
    pub message: Option<String>,
    pub usage: Option<JsonMap>,
    pub metadata: Option<JsonMap>,
    pub created_at: Option<i64>,
    pub completed_at: Option<i64>,
    /// A response's `output`: each element is read as a message event is (see `content`).
    pub output: Option<Vec<Message>>,
    pub session_id: Option<String>,
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

impl Rest {
    /// No member is set: what the scan makes of members of `Rest` that are all `null`.
    pub(crate) fn is_empty(&self) -> bool {
        let Rest {
            error,
            id,
            role,
            content,
            code,
            message,
            usage,
            metadata,
            created_at,
            completed_at,
            output,
            session_id,
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
        error.is_none()
            && id.is_none()
            && role.is_none()
            && content.is_none()
            && code.is_none()
            && message.is_none()
            && usage.is_none()
            && metadata.is_none()
            && created_at.is_none()
            && completed_at.is_none()
            && output.is_none()
            && session_id.is_none()
            && image_url.is_none()
            && data.is_none()
            && format.is_none()
            && file_url.is_none()
            && file_id.is_none()
            && filename.is_none()
            && file_data.is_none()
            && refusal.is_none()
            && video_url.is_none()
            && extra.is_empty()
    }
}

impl<'a> RawEvent<'a> {
    /// Parses one event's data ([`from_text`](crate::json::from_text); see
    /// [`RawEvent::scan_into`] for the fast path).
    #[inline] // Cold: see `Assembler::new`.
    pub(crate) fn parse(data: &'a str) -> Result<Self, AgentApiError> {
        crate::json::parse_value(data)
            .and_then(|tree| Ok(RawEvent::deserialize(crate::json::Tree(tree))?))
            .map_err(|e| AgentApiError::from_json(e, data))
    }

    /// The fast path: reads the event into `self`, a [`RawEvent::default`], in one pass over its
    /// top-level members (scalars in place, nested values with serde_json), at most `max_depth`
    /// levels deep. The caller's event is filled in place rather than returned, because it is a
    /// large struct: moving it cost more than reading a small event.
    ///
    /// `false` when the event is not plain valid JSON of the expected types (`self` then holds
    /// some of the fields and must be discarded): [`RawEvent::parse`] reads it and reports exactly
    /// what is wrong. Whenever it answers, it answers as `parse` does (a property test checks this
    /// on the fixtures and on generated events).
    ///
    /// `data` is the event's data as it came (SSE's [`SseEventBytes`](crate::sse::SseEventBytes)):
    /// the scan checks its UTF-8 as it reads it, and declines data that is not UTF-8, which
    /// `parse` then reads decoded with replacement characters.
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    pub(crate) fn scan_into(&mut self, data: &'a [u8], max_depth: usize) -> bool {
        self.scan_spans(data, max_depth, &mut Spans::default())
    }

    /// [`RawEvent::scan_into`], noting in `spans` where the values of a text delta's varying
    /// members are (see [`Spans`]): what a text-delta layout is learned from.
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    pub(crate) fn scan_spans(
        &mut self,
        data: &'a [u8],
        max_depth: usize,
        spans: &mut Spans,
    ) -> bool {
        // At most the levels the full parser reads (127, serde_json's), whatever `max_depth` is:
        // a member nested deeper is declined, and the full parser refuses it.
        let max_depth = max_depth.min(crate::json::MAX_DEPTH);
        self.scan_members(data, 0, false, max_depth, spans)
            .is_some()
    }

    /// An element of a `content` or `output` array, the object at `text[start]`, read as an event
    /// is (see [`Rest::content`]), `max_depth` counting it as level 1: the index just past it, or
    /// `None` (use the full parser).
    fn scan_element(&mut self, text: &'a [u8], start: usize, max_depth: usize) -> Option<usize> {
        self.scan_members(text, start, true, max_depth, &mut Spans::default())
    }

    /// The loop of [`RawEvent::scan_into`] (`inner` false) and [`RawEvent::scan_element`]
    /// (`inner` true; see [`Members::starting`]); the index just past an element. The members of
    /// text deltas (nearly every event) are read here, in the scanning loop; the others in
    /// [`RawEvent::member`].
    // Not inlined: two callers, and the largest function of the streaming path (compiled once).
    #[inline(never)]
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    fn scan_members(
        &mut self,
        data: &'a [u8],
        start: usize,
        inner: bool,
        max_depth: usize,
        spans: &mut Spans,
    ) -> Option<usize> {
        use DeltaKey as K;
        let mut members = Members::starting(data, start, inner, max_depth)?;
        while let Some(key) = members.key(DeltaKey::recognize)? {
            let (key, name) = match key {
                Key::Known(k) => (k, ""),
                // A key `recognize` knows is always `Known`; checked so that it cannot matter.
                Key::Other(name) => match DeltaKey::recognize(name.as_bytes()) {
                    Some((k, n)) if n == name.len() => (k, name),
                    _ => (K::Other, name),
                },
            };
            // The values a text delta nearly always has are compared as they are expected
            // (`Members::literal`) before anything is scanned.
            match key {
                K::Object if members.literal(br#""content""#) => {
                    self.object = Some(CowStr(Cow::Borrowed("content")));
                    continue;
                }
                K::Type if members.literal(br#""text""#) => {
                    self.kind = Some(CowStr(Cow::Borrowed("text")));
                    continue;
                }
                K::Status if members.literal(br#""in_progress""#) => {
                    self.status = Some(RunStatus::InProgress);
                    continue;
                }
                K::Delta if members.literal(b"true") => {
                    self.delta = Some(true);
                    continue;
                }
                // A message's `content`, a response's `output`: read in place, each element as
                // an event is (never a text delta's key).
                K::Other
                    if members.peek() == Some(b'[') && matches!(name, "content" | "output") =>
                {
                    let end = self.items(name == "content", data, members.position(), max_depth)?;
                    members.resume(end);
                    continue;
                }
                _ => {}
            }
            // One call site for the value's scan (inlined: the module's code for it once).
            let at = members.position();
            let (v, end) = members.value_to()?;
            match key {
                K::Other => self.member(name, v)?,
                K::Object => self.object = cow_str(v)?,
                K::SequenceNumber => {
                    self.sequence_number = match v {
                        Scanned::UInt(n) => {
                            spans.set(Slot::SequenceNumber, at, end);
                            Some(n)
                        }
                        Scanned::Null => {
                            spans.clear(Slot::SequenceNumber);
                            None
                        }
                        _ => return None,
                    }
                }
                K::Status => self.status = wire(v)?,
                K::Type => self.kind = cow_str(v)?,
                K::Index => {
                    self.index = match v {
                        Scanned::UInt(n) => {
                            spans.set(Slot::Index, at, end);
                            Some(u32::try_from(n).ok()?)
                        }
                        Scanned::Null => {
                            spans.clear(Slot::Index);
                            None
                        }
                        _ => return None,
                    }
                }
                K::Delta => {
                    self.delta = match v {
                        Scanned::Bool(b) => Some(b),
                        Scanned::Null => None,
                        _ => return None,
                    }
                }
                K::MsgId => {
                    spans.note(Slot::MsgId, &v, at, end);
                    self.msg_id = cow_str(v)?;
                }
                K::Text => {
                    spans.note(Slot::Text, &v, at, end);
                    self.text = cow_str(v)?;
                }
            }
        }
        Some(members.end())
    }

    /// One member of [`RawEvent::scan_into`] other than those of a text delta.
    #[inline(never)]
    fn member(&mut self, key: &'a str, v: Scanned<'a>) -> Option<()> {
        fn string(v: Scanned<'_>) -> Option<Option<String>> {
            match v {
                Scanned::Str(s) => Some(Some(s.into_owned())),
                Scanned::Null => Some(None),
                _ => None,
            }
        }
        fn object(v: Scanned<'_>) -> Option<Option<JsonMap>> {
            match v {
                Scanned::Null => Some(None),
                Scanned::Raw(raw) if raw.starts_with('{') => {
                    match crate::json::scan::tree_of(raw) {
                        Some(serde_json::Value::Object(map)) => Some(Some(map)),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        let r = self.rest();
        match key {
            "id" => r.id = string(v)?,
            "role" => r.role = wire(v)?,
            "error" => {
                r.error = match v {
                    Scanned::Null => None,
                    other => Some(other.into_value()?),
                }
            }
            // An array was read by `items`; `null` is none, anything else the full parser's.
            "content" if v == Scanned::Null => r.content = None,
            "output" if v == Scanned::Null => r.output = None,
            "content" | "output" => return None,
            "code" => r.code = string(v)?,
            "message" => r.message = string(v)?,
            "usage" => r.usage = object(v)?,
            "metadata" => r.metadata = object(v)?,
            "created_at" | "completed_at" => {
                let n = match v {
                    Scanned::UInt(n) => Some(i64::try_from(n).ok()?),
                    Scanned::Int(n) => Some(n),
                    Scanned::Null => None,
                    _ => return None,
                };
                if key == "created_at" {
                    r.created_at = n;
                } else {
                    r.completed_at = n;
                }
            }
            "session_id" => r.session_id = string(v)?,
            "image_url" => r.image_url = string(v)?,
            "data" => {
                r.data = match v {
                    Scanned::Null => None,
                    other => Some(other.into_value()?),
                }
            }
            "format" => r.format = string(v)?,
            "file_url" => r.file_url = string(v)?,
            "file_id" => r.file_id = string(v)?,
            "filename" => r.filename = string(v)?,
            "file_data" => r.file_data = string(v)?,
            "refusal" => r.refusal = string(v)?,
            "video_url" => r.video_url = string(v)?,
            other => {
                let value = v.into_value()?;
                r.extra.insert(other.to_owned(), value);
            }
        }
        Some(())
    }

    /// The fast path's `content` (`content` true) or `output` array at `data[start]` (its `[`):
    /// each element, an object, is read as an event is ([`RawEvent::scan_element`], two levels
    /// below the event) and made a content or a message, as the full parser does with the same
    /// elements. The index just past the array, or `None` (use the full parser).
    #[inline(never)]
    fn items(
        &mut self,
        content: bool,
        data: &'a [u8],
        start: usize,
        max_depth: usize,
    ) -> Option<usize> {
        fn read<'a, T>(
            elements: &mut Elements<'a>,
            data: &'a [u8],
            depth: usize,
            make: fn(RawEvent<'a>) -> T,
        ) -> Option<Vec<T>> {
            let mut items = Vec::new();
            while let Some(start) = elements.element()? {
                let mut item = RawEvent::default();
                elements.after(item.scan_element(data, start, depth)?);
                items.push(make(item));
            }
            Some(items)
        }
        // Two levels below the event (`max_depth` is at most the 127 levels the full parser reads,
        // see `scan_spans`, which also bounds this recursion: an element's own arrays are read by
        // `items` again).
        let depth = max_depth.checked_sub(2)?;
        let mut elements = Elements::at(data, start)?;
        if content {
            self.rest().content = Some(read(&mut elements, data, depth, RawEvent::into_content)?);
        } else {
            self.rest().output = Some(read(&mut elements, data, depth, RawEvent::into_message)?);
        }
        Some(elements.end())
    }

    /// The `object` field (`""` when absent).
    pub(crate) fn object(&self) -> &str {
        self.object.as_ref().map_or("", |o| &o.0)
    }

    /// The members beyond a text delta's, made empty on first use. (Not inlined: it is called
    /// once per member of those, by both readers, and is not on a text delta's path.)
    #[inline(never)]
    pub(crate) fn rest(&mut self) -> &mut Rest {
        self.rest.get_or_insert_with(Rest::default)
    }

    /// The `error` member, if any.
    pub(crate) fn error(&self) -> Option<&serde_json::Value> {
        self.rest.as_ref().and_then(|r| r.error.as_ref())
    }

    /// Converts into a public, owned event. Fields that do not belong to the event's `object` are
    /// moved into its `extra`, so nothing is lost.
    pub(crate) fn into_event(self) -> AgentEvent {
        match self.object() {
            "content" => AgentEvent::Content(self.into_content()),
            "message" => AgentEvent::Message(self.into_message()),
            "response" => AgentEvent::Response(self.into_response()),
            "" if self.error().is_some() => {
                let mut raw = self;
                let mut rest = raw.rest.take();
                let error = take(&mut rest, |r| r.error.take()).unwrap_or_default();
                let mut extra = take_extra(&mut rest);
                raw.leftovers(rest, &mut extra);
                AgentEvent::Error(ErrorEvent { error, extra })
            }
            _ => {
                let mut raw = self;
                let mut rest = raw.rest.take();
                let mut map = take_extra(&mut rest);
                if let Some(o) = raw.object.take() {
                    map.insert("object".into(), o.0.into_owned().into());
                }
                if let Some(e) = take(&mut rest, |r| r.error.take()) {
                    map.insert("error".into(), e);
                }
                raw.leftovers(rest, &mut map);
                AgentEvent::Unknown(serde_json::Value::Object(map))
            }
        }
    }

    pub(crate) fn into_content(mut self) -> Content {
        let mut rest = self.rest.take();
        let mut extra = take_extra(&mut rest);
        let content = Content {
            object: self
                .object
                .take()
                .map_or_else(|| "content".to_owned(), |o| o.0.into_owned()),
            kind: self
                .kind
                .take()
                .map_or(ContentKind::Text, |k| (&*k.0).into()),
            index: self.index.take(),
            delta: self.delta.take(),
            msg_id: self.msg_id.take().map(|m| m.0.into_owned()),
            status: self.status.take(),
            sequence_number: self.sequence_number.take(),
            error: take(&mut rest, |r| r.error.take()).map(|e| Box::new(error_info(&e))),
            text: self.text.take().map(|t| t.0.into_owned()),
            image_url: take(&mut rest, |r| r.image_url.take()),
            data: take(&mut rest, |r| r.data.take()),
            format: take(&mut rest, |r| r.format.take()),
            file_url: take(&mut rest, |r| r.file_url.take()),
            file_id: take(&mut rest, |r| r.file_id.take()),
            filename: take(&mut rest, |r| r.filename.take()),
            file_data: take(&mut rest, |r| r.file_data.take()),
            refusal: take(&mut rest, |r| r.refusal.take()),
            video_url: take(&mut rest, |r| r.video_url.take()),
            extra: JsonMap::new(),
        };
        self.leftovers(rest, &mut extra);
        Content { extra, ..content }
    }

    pub(crate) fn into_message(mut self) -> Message {
        let mut rest = self.rest.take();
        let mut extra = take_extra(&mut rest);
        let message = Message {
            object: self
                .object
                .take()
                .map_or_else(|| "message".to_owned(), |o| o.0.into_owned()),
            id: take(&mut rest, |r| r.id.take()),
            kind: self
                .kind
                .take()
                .map_or(MessageType::Message, |k| (&*k.0).into()),
            status: self.status.take(),
            role: take(&mut rest, |r| r.role.take()),
            content: take(&mut rest, |r| r.content.take()).unwrap_or_default(),
            code: take(&mut rest, |r| r.code.take()),
            message: take(&mut rest, |r| r.message.take()),
            usage: take(&mut rest, |r| r.usage.take()).map(Box::new),
            metadata: take(&mut rest, |r| r.metadata.take()).map(Box::new),
            sequence_number: self.sequence_number.take(),
            error: take(&mut rest, |r| r.error.take()).map(|e| Box::new(error_info(&e))),
            extra: JsonMap::new(),
        };
        self.leftovers(rest, &mut extra);
        Message { extra, ..message }
    }

    pub(crate) fn into_response(mut self) -> AgentResponse {
        let mut rest = self.rest.take();
        let mut extra = take_extra(&mut rest);
        let response = AgentResponse {
            object: "response".to_owned(),
            id: take(&mut rest, |r| r.id.take()),
            status: self.status.take().unwrap_or_default(),
            created_at: take(&mut rest, |r| r.created_at.take()),
            completed_at: take(&mut rest, |r| r.completed_at.take()),
            error: take(&mut rest, |r| r.error.take()).map(|e| Box::new(error_info(&e))),
            output: take(&mut rest, |r| r.output.take()).unwrap_or_default(),
            usage: take(&mut rest, |r| r.usage.take()).map(Box::new),
            session_id: take(&mut rest, |r| r.session_id.take()),
            sequence_number: self.sequence_number.take(),
            extra: JsonMap::new(),
        };
        self.leftovers(rest, &mut extra);
        AgentResponse { extra, ..response }
    }

    /// Moves every field still set (of `self` and of its `rest`, taken out) into `extra`: fields
    /// another `object` would have used.
    fn leftovers(&mut self, rest: Option<Rest>, extra: &mut JsonMap) {
        fn put<T: Serialize>(extra: &mut JsonMap, key: &str, v: Option<T>) {
            if let Some(v) = v {
                if let Ok(v) = crate::json::to_tree(&v) {
                    extra.insert(key.to_owned(), v);
                }
            }
        }
        put(extra, "sequence_number", self.sequence_number.take());
        put(extra, "status", self.status.take());
        put(extra, "type", self.kind.take().map(|k| k.0));
        put(extra, "index", self.index.take());
        put(extra, "delta", self.delta.take());
        put(extra, "msg_id", self.msg_id.take().map(|m| m.0));
        put(extra, "text", self.text.take().map(|t| t.0));
        if let Some(mut rest) = rest {
            put(extra, "error", rest.error.take());
            put(extra, "id", rest.id.take());
            put(extra, "role", rest.role.take());
            put(extra, "content", rest.content.take());
            put(extra, "code", rest.code.take());
            put(extra, "message", rest.message.take());
            put(extra, "usage", rest.usage.take());
            put(extra, "metadata", rest.metadata.take());
            put(extra, "created_at", rest.created_at.take());
            put(extra, "completed_at", rest.completed_at.take());
            put(extra, "output", rest.output.take());
            put(extra, "session_id", rest.session_id.take());
            put(extra, "image_url", rest.image_url.take());
            put(extra, "data", rest.data.take());
            put(extra, "format", rest.format.take());
            put(extra, "file_url", rest.file_url.take());
            put(extra, "file_id", rest.file_id.take());
            put(extra, "filename", rest.filename.take());
            put(extra, "file_data", rest.file_data.take());
            put(extra, "refusal", rest.refusal.take());
            put(extra, "video_url", rest.video_url.take());
        }
    }
}

/// Takes a member out of an event's `rest`, if it has one.
fn take<T>(rest: &mut Option<Rest>, member: impl FnOnce(&mut Rest) -> Option<T>) -> Option<T> {
    rest.as_mut().and_then(member)
}

/// Takes the unknown members out of an event's `rest` (empty if it has none).
fn take_extra(rest: &mut Option<Rest>) -> JsonMap {
    rest.as_mut()
        .map(|r| std::mem::take(&mut r.extra))
        .unwrap_or_default()
}

/// The keys of a text delta, the members nearly every event has, which [`RawEvent::scan_into`]
/// reads in its scanning loop.
#[derive(Debug, Clone, Copy, PartialEq)]
enum DeltaKey {
    Object,
    SequenceNumber,
    Status,
    Type,
    Index,
    Delta,
    MsgId,
    Text,
    /// Any other key (never answered by `recognize`): read by [`RawEvent::member`].
    Other,
}

impl DeltaKey {
    /// The key `rest` starts with, and its length (the recognizer of [`Members::key`]): chosen by
    /// its first bytes, then confirmed by a compare with a constant a word at a time, instead of a
    /// scan of the key for its closing quote.
    #[inline(always)]
    fn recognize(rest: &[u8]) -> Option<(Self, usize)> {
        #[inline(always)]
        fn is(rest: &[u8], name: &[u8], key: DeltaKey) -> Option<(DeltaKey, usize)> {
            starts_with_words(rest, name).then_some((key, name.len()))
        }
        match *rest.first()? {
            b'o' => is(rest, b"object", Self::Object),
            b's' if rest.get(1) == Some(&b'e') => {
                is(rest, b"sequence_number", Self::SequenceNumber)
            }
            b's' => is(rest, b"status", Self::Status),
            b't' if rest.get(1) == Some(&b'y') => is(rest, b"type", Self::Type),
            b't' => is(rest, b"text", Self::Text),
            b'i' => is(rest, b"index", Self::Index),
            b'd' => is(rest, b"delta", Self::Delta),
            b'm' => is(rest, b"msg_id", Self::MsgId),
            _ => None,
        }
    }
}

fn cow_str(v: Scanned<'_>) -> Option<Option<CowStr<'_>>> {
    match v {
        Scanned::Str(s) => Some(Some(CowStr(s))),
        Scanned::Null => Some(None),
        _ => None,
    }
}

/// A wire enum read from the borrowed string (no allocation for a known value).
fn wire<T: for<'s> From<&'s str>>(v: Scanned<'_>) -> Option<Option<T>> {
    match v {
        Scanned::Str(s) => Some(Some(T::from(&s))),
        Scanned::Null => Some(None),
        _ => None,
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
                        "error" => r.rest().error = map.next_value()?,
                        "id" => r.rest().id = map.next_value()?,
                        "type" => r.kind = map.next_value()?,
                        "role" => r.rest().role = map.next_value()?,
                        "content" => {
                            r.rest().content =
                                map.next_value::<Option<Vec<RawEvent<'de>>>>()?
                                    .map(|items| {
                                        items.into_iter().map(RawEvent::into_content).collect()
                                    });
                        }
                        "code" => r.rest().code = map.next_value()?,
                        "message" => r.rest().message = map.next_value()?,
                        "usage" => r.rest().usage = map.next_value()?,
                        "metadata" => r.rest().metadata = map.next_value()?,
                        "created_at" => r.rest().created_at = map.next_value()?,
                        "completed_at" => r.rest().completed_at = map.next_value()?,
                        "output" => {
                            r.rest().output =
                                map.next_value::<Option<Vec<RawEvent<'de>>>>()?
                                    .map(|items| {
                                        items.into_iter().map(RawEvent::into_message).collect()
                                    });
                        }
                        "session_id" => r.rest().session_id = map.next_value()?,
                        "index" => r.index = map.next_value()?,
                        "delta" => r.delta = map.next_value()?,
                        "msg_id" => r.msg_id = map.next_value()?,
                        "text" => r.text = map.next_value()?,
                        "image_url" => r.rest().image_url = map.next_value()?,
                        "data" => r.rest().data = map.next_value()?,
                        "format" => r.rest().format = map.next_value()?,
                        "file_url" => r.rest().file_url = map.next_value()?,
                        "file_id" => r.rest().file_id = map.next_value()?,
                        "filename" => r.rest().filename = map.next_value()?,
                        "file_data" => r.rest().file_data = map.next_value()?,
                        "refusal" => r.rest().refusal = map.next_value()?,
                        "video_url" => r.rest().video_url = map.next_value()?,
                        _ => {
                            let v: serde_json::Value = map.next_value()?;
                            r.rest().extra.insert(key.0.into_owned(), v);
                        }
                    }
                }
                Ok(r)
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The fast path and the serde path read an event the same way (or the fast path declines).
    fn agree(data: &str) -> Result<bool, TestCaseError> {
        let mut fast = RawEvent::default();
        let fast = fast
            .scan_into(data.as_bytes(), 64)
            .then(|| fast.into_event());
        let full = RawEvent::parse(data).map(RawEvent::into_event);
        match (fast, full) {
            (Some(f), Ok(p)) => {
                prop_assert_eq!(f, p, "{}", data);
                Ok(true)
            }
            (Some(f), Err(e)) => Err(TestCaseError::fail(format!(
                "fast path accepted what serde refuses ({e}): {f:?} from {data}"
            ))),
            (None, _) => Ok(false),
        }
    }

    #[test]
    fn the_fast_path_reads_every_fixture_event_as_serde_does() {
        let root = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/fixtures/agentscope-runtime"
        );
        let (mut fast, mut total) = (0, 0);
        for name in [
            "process-raw.sse",
            "process-text.sse",
            "process-agentscope.sse",
        ] {
            let bytes = std::fs::read(format!("{root}/{name}")).unwrap();
            let mut decoder = crate::sse::SseDecoder::new();
            let mut datas = Vec::new();
            decoder.feed(&bytes, &mut |i| {
                if let crate::sse::SseItem::Event(e) = i {
                    datas.push(e.data.to_owned());
                }
            });
            for d in datas {
                fast += usize::from(agree(&d).unwrap());
                total += 1;
            }
        }
        assert_eq!(fast, total, "every real server event takes the fast path");
        assert_eq!(total, 57);
    }

    #[test]
    fn a_message_s_content_and_a_response_s_output_are_read_as_their_events_are() {
        let data = r#"{"object": "response", "status": "completed", "output": [
            {"id": "m1", "status": "completed", "content": [
                {"text": "hi", "index": 0, "beam": 1, "role": null},
                {"object": "content", "type": "data", "data": {"k": 2}}]},
            {"object": "message", "type": "function_call", "content": null}]}"#;
        assert!(agree(data).unwrap(), "the fast path reads it");
        let AgentEvent::Response(response) = AgentEvent::parse(data).unwrap() else {
            panic!("not a response");
        };
        let [m1, m2] = &response.output[..] else {
            panic!("{:?}", response.output);
        };
        assert_eq!(
            (m1.object.as_str(), &m1.kind),
            ("message", &MessageType::Message)
        );
        assert_eq!(m1.id.as_deref(), Some("m1"));
        let [hi, data] = &m1.content[..] else {
            panic!("{:?}", m1.content);
        };
        // As a content event without `type`: text; unknown members kept, `null`s of known ones not.
        assert_eq!(
            (hi.object.as_str(), &hi.kind),
            ("content", &ContentKind::Text)
        );
        assert_eq!(hi.text.as_deref(), Some("hi"));
        assert_eq!(
            hi.extra,
            serde_json::json!({"beam": 1}).as_object().unwrap().clone()
        );
        assert_eq!(data.kind, ContentKind::Data);
        assert_eq!(data.data, Some(serde_json::json!({"k": 2})));
        assert_eq!(m2.kind, MessageType::FunctionCall);
        assert!(m2.content.is_empty());

        // A message event's content, and an element's own `object` kept.
        let data = r#"{"object":"message","content":[{"object":"part","type":"text","text":"x"}]}"#;
        assert!(agree(data).unwrap());
        let AgentEvent::Message(m) = AgentEvent::parse(data).unwrap() else {
            panic!("not a message");
        };
        assert_eq!(m.content[0].object, "part");

        // A key given twice: the last counts, as in the full parser.
        let data = r#"{"object":"message","content":[{"text":"x"}],"content":null}"#;
        assert!(agree(data).unwrap());
        let AgentEvent::Message(m) = AgentEvent::parse(data).unwrap() else {
            panic!("not a message");
        };
        assert!(m.content.is_empty());

        // Nested arrays read in place are bounded as the full parser is, whatever `max_depth`:
        // levels up to 127 (63 nested messages' contents) are read, deeper ones declined (and
        // refused by the full parser), so the recursion stays short.
        let nested = |n: usize| {
            format!(
                r#"{{"object":"message","content":{}null{}}}"#,
                r#"[{"content":"#.repeat(n),
                "}]".repeat(n)
            )
        };
        assert!(agree(&nested(31)).unwrap());
        assert!(RawEvent::default().scan_into(nested(63).as_bytes(), 100_000));
        assert!(AgentEvent::parse(&nested(63)).is_ok());
        assert!(!RawEvent::default().scan_into(nested(64).as_bytes(), 100_000));
        assert!(!RawEvent::default().scan_into(nested(5_000).as_bytes(), 100_000));
        assert!(AgentEvent::parse(&nested(5_000)).is_err());

        // Elements of the wrong shape: the fast path declines, the full parser names the problem.
        for data in [
            r#"{"object":"message","content":[{"index":"one"}]}"#,
            r#"{"object":"message","content":[1]}"#,
            r#"{"object":"response","output":{"id":"m"}}"#,
        ] {
            assert!(!agree(data).unwrap(), "{data}");
            let e = AgentEvent::parse(data).unwrap_err();
            assert!(
                matches!(e, AgentApiError::InvalidEvent { .. }),
                "{data}: {e:?}"
            );
        }
    }

    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "object",
                "sequence_number",
                "status",
                "type",
                "index",
                "delta",
                "msg_id",
                "text",
                "id",
                "role",
                "error",
                "content",
                "code",
                "message",
                "usage",
                "metadata",
                "created_at",
                "completed_at",
                "output",
                "session_id",
                "image_url",
                "data",
                "format",
                "file_url",
                "file_id",
                "filename",
                "file_data",
                "refusal",
                "video_url",
                // Keys that start like the ones read in the scanning loop, and their prefixes.
                "texts",
                "tex",
                "objects",
                "statu",
                "sequence_numbers",
                "types",
                "ty",
                "msg_ids",
                "indexes",
                "deltas",
                "s",
                "",
            ])
            .prop_map(str::to_owned),
            "[a-z]{1,6}",
        ]
    }

    fn value() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::{json, Value};
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u32>().prop_map(Value::from),
            (-1e6f64..1e6).prop_map(Value::from),
            prop::sample::select(vec![
                "content",
                "message",
                "response",
                "text",
                "completed",
                "x\ny",
                // The values the scanning loop compares as they are expected
                // (`Members::literal`), and strings that start like them.
                "in_progress",
                "in_progres",
                "in_progress_",
                "contents",
                "conten",
                "tex",
                "texts",
                "true",
            ])
            .prop_map(|s| Value::String(s.to_owned())),
            ".{0,8}".prop_map(Value::String),
            Just(json!({"code": "E", "message": "m"})),
            Just(json!([{"type": "text", "text": "hi", "index": 0}])),
            Just(json!([{"object": "message", "id": "m", "content": []}])),
            Just(json!({"a": [1, {"b": null}]})),
            Just(json!([1, 2])),
            // `content` and `output` arrays, whose elements are read as events are.
            Just(json!([
                {"object": "content", "type": "text", "text": "a\"b", "index": 0, "delta": false,
                 "status": "completed", "msg_id": "m", "beam": [1], "id": null},
                {"type": "data", "data": {"k": [1, 2.5]}},
                {"text": "no type", "object": "other"}
            ])),
            Just(
                json!([{"object": "message", "type": "function_call", "id": "m", "role": "assistant",
                         "status": "completed", "content": [{"type": "text", "text": "x"}]}])
            ),
            Just(json!([])),
            Just(json!([{"index": "one"}])),
            Just(json!([{"object": null}, 1])),
        ]
    }

    proptest! {
        #[test]
        fn wherever_the_fast_path_answers_it_agrees_with_serde(
            members in prop::collection::vec((key(), value()), 0..10),
            pretty in any::<bool>(),
        ) {
            let mut text = String::from("{");
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    text.push_str(if pretty { ", " } else { "," });
                }
                text.push_str(&serde_json::to_string(k).unwrap());
                text.push_str(if pretty { ": " } else { ":" });
                text.push_str(&v.to_string());
            }
            text.push('}');
            agree(&text)?;
        }
    }
}
