//! ACP stream events: one JSON object per SSE `data`, told apart by its `type` field.

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::model::{text_plain, ErrorInfo, Message, MessagePart, PartMetadata, Run, TEXT_PLAIN};
use super::AcpError;
use crate::body::ContentEncoding;
use crate::wire::{CowStr, JsonMap};

/// One event of an ACP stream, and of the `events` list of `GET /runs/{run_id}/events`.
///
/// Source: acp-sdk 1.0.3 `acp_sdk/models/models.py`, the `Event` union: `RunCreatedEvent`,
/// `RunInProgressEvent`, `MessageCreatedEvent`, `MessagePartEvent` (and `ArtifactEvent`, the same
/// with a named part), `MessageCompletedEvent`, `RunAwaitingEvent`, `GenericEvent`,
/// `RunCancelledEvent`, `RunFailedEvent`, `RunCompletedEvent` and `ErrorEvent`. The JSON is
/// `{"type": "<type>", "<payload field>": …}`; fields an event does not define are kept in its
/// `extra`, and an event whose `type` this version does not know is kept whole as
/// [`AcpEvent::Unknown`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum AcpEvent {
    /// `run.created`: the run exists (status `created`).
    #[serde(rename = "run.created")]
    RunCreated {
        /// The run.
        run: Run,
        /// Other fields, kept as sent.
        #[serde(flatten)]
        extra: JsonMap,
    },
    /// `run.in-progress`: the agent runs (again, after a resume).
    #[serde(rename = "run.in-progress")]
    RunInProgress {
        /// The run.
        run: Run,
        /// Other fields, kept as sent.
        #[serde(flatten)]
        extra: JsonMap,
    },
    /// `run.awaiting`: the agent waits for the client (`run.await_request`); the server ends the
    /// stream here until the client resumes with `POST /runs/{run_id}`.
    #[serde(rename = "run.awaiting")]
    RunAwaiting {
        /// The run.
        run: Run,
        /// Other fields, kept as sent.
        #[serde(flatten)]
        extra: JsonMap,
    },
    /// `run.completed`: the run finished; `run.output` is the whole output.
    #[serde(rename = "run.completed")]
    RunCompleted {
        /// The run.
        run: Run,
        /// Other fields, kept as sent.
        #[serde(flatten)]
        extra: JsonMap,
    },
    /// `run.failed`: the run failed; `run.error` says why, `run.output` has what was produced.
    #[serde(rename = "run.failed")]
    RunFailed {
        /// The run.
        run: Run,
        /// Other fields, kept as sent.
        #[serde(flatten)]
        extra: JsonMap,
    },
    /// `run.cancelled`: the run was cancelled.
    #[serde(rename = "run.cancelled")]
    RunCancelled {
        /// The run.
        run: Run,
        /// Other fields, kept as sent.
        #[serde(flatten)]
        extra: JsonMap,
    },
    /// `message.created`: a message starts (usually with no parts; a message the agent yields whole
    /// comes with its parts, which `message.part` events then repeat).
    #[serde(rename = "message.created")]
    MessageCreated {
        /// The message.
        message: Message,
        /// Other fields, kept as sent.
        #[serde(flatten)]
        extra: JsonMap,
    },
    /// `message.part`: a part appended to the current message.
    #[serde(rename = "message.part")]
    MessagePart {
        /// The part.
        part: MessagePart,
        /// Other fields, kept as sent.
        #[serde(flatten)]
        extra: JsonMap,
    },
    /// `message.completed`: the current message is complete; `message` has all its parts.
    #[serde(rename = "message.completed")]
    MessageCompleted {
        /// The message.
        message: Message,
        /// Other fields, kept as sent.
        #[serde(flatten)]
        extra: JsonMap,
    },
    /// `generic`: anything else the agent yields (the SDK's `AnyModel`: a JSON object).
    #[serde(rename = "generic")]
    Generic {
        /// The payload.
        generic: serde_json::Value,
        /// Other fields, kept as sent.
        #[serde(flatten)]
        extra: JsonMap,
    },
    /// `error`: the stream failed (the SDK's client raises `ACPError`).
    #[serde(rename = "error")]
    Error {
        /// The error.
        error: ErrorInfo,
        /// Other fields, kept as sent.
        #[serde(flatten)]
        extra: JsonMap,
    },
    /// An event of another `type` (or none), kept as sent.
    #[serde(untagged)]
    Unknown(serde_json::Value),
}

impl AcpEvent {
    /// Parses one SSE `data` payload.
    ///
    /// # Errors
    /// [`AcpError::InvalidJson`] if `data` is not JSON; [`AcpError::InvalidEvent`] if it is JSON of
    /// the wrong shape (not an object, a known `type` without its payload, `"parts": 3`). Both keep
    /// the data.
    pub fn parse(data: &str) -> Result<Self, AcpError> {
        RawEvent::parse(data)?
            .into_event()
            .map_err(|reason| AcpError::InvalidEvent {
                reason,
                data: data.to_owned(),
            })
    }

    /// The `type` value (`""` for an unknown event without one).
    pub fn event_type(&self) -> &str {
        match self {
            AcpEvent::RunCreated { .. } => "run.created",
            AcpEvent::RunInProgress { .. } => "run.in-progress",
            AcpEvent::RunAwaiting { .. } => "run.awaiting",
            AcpEvent::RunCompleted { .. } => "run.completed",
            AcpEvent::RunFailed { .. } => "run.failed",
            AcpEvent::RunCancelled { .. } => "run.cancelled",
            AcpEvent::MessageCreated { .. } => "message.created",
            AcpEvent::MessagePart { .. } => "message.part",
            AcpEvent::MessageCompleted { .. } => "message.completed",
            AcpEvent::Generic { .. } => "generic",
            AcpEvent::Error { .. } => "error",
            AcpEvent::Unknown(v) => v.get("type").and_then(|t| t.as_str()).unwrap_or(""),
        }
    }

    /// The run, for `run.*` events.
    pub fn run(&self) -> Option<&Run> {
        match self {
            AcpEvent::RunCreated { run, .. }
            | AcpEvent::RunInProgress { run, .. }
            | AcpEvent::RunAwaiting { run, .. }
            | AcpEvent::RunCompleted { run, .. }
            | AcpEvent::RunFailed { run, .. }
            | AcpEvent::RunCancelled { run, .. } => Some(run),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for AcpEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        RawEvent::deserialize(d)?
            .into_event()
            .map_err(serde::de::Error::custom)
    }
}

/// A `message.part` payload parsed without copying: strings borrow from the event's data when they
/// have no escapes. `content_type` and `content_encoding` tell "absent" (the SDK's default) from
/// `null`.
#[derive(Debug, Default)]
pub(crate) struct RawPart<'a> {
    pub name: Option<CowStr<'a>>,
    pub content_type: Option<Option<CowStr<'a>>>,
    pub content: Option<CowStr<'a>>,
    pub content_encoding: Option<Option<ContentEncoding>>,
    pub content_url: Option<String>,
    pub metadata: Option<PartMetadata>,
    pub extra: JsonMap,
    /// The halves of a surrogate pair at the edges of `content`, as written
    /// ([`agentwire_core::json::cut_halves`]; set by the assembler, which has the event's data).
    pub cut_pair: (Option<u16>, Option<u16>),
}

impl<'a> RawPart<'a> {
    /// The text of a part that may be joined to a previous text part (see
    /// [`MessagePart::is_joinable_text`]), or `None`.
    pub(crate) fn joinable_text(&self) -> Option<&str> {
        let type_ok = match &self.content_type {
            None => true,
            Some(Some(t)) => t.0 == TEXT_PLAIN,
            Some(None) => false,
        };
        let encoding_ok = matches!(
            self.content_encoding,
            None | Some(Some(ContentEncoding::Plain))
        );
        if type_ok
            && encoding_ok
            && self.name.is_none()
            && self.content_url.is_none()
            && self.metadata.is_none()
            && self.extra.is_empty()
        {
            self.content.as_ref().map(|c| &*c.0)
        } else {
            None
        }
    }

    pub(crate) fn into_part(self) -> MessagePart {
        MessagePart {
            name: self.name.map(|n| n.0.into_owned()),
            content_type: match self.content_type {
                None => text_plain(),
                Some(t) => t.map(|t| t.0.into_owned()),
            },
            content: self.content.map(|c| c.0.into_owned()),
            content_encoding: self
                .content_encoding
                .unwrap_or(Some(ContentEncoding::Plain)),
            content_url: self.content_url,
            metadata: self.metadata.map(Box::new),
            extra: self.extra,
        }
    }

    pub(crate) fn from_part(part: MessagePart) -> RawPart<'static> {
        RawPart {
            name: part.name.map(|n| CowStr(n.into())),
            content_type: Some(part.content_type.map(|t| CowStr(t.into()))),
            content: part.content.map(|c| CowStr(c.into())),
            content_encoding: Some(part.content_encoding),
            content_url: part.content_url,
            metadata: part.metadata.map(|m| *m),
            extra: part.extra,
            cut_pair: (None, None),
        }
    }
}

impl<'de> Deserialize<'de> for RawPart<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawPart<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an ACP message part object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut p = RawPart::default();
                while let Some(key) = map.next_key::<CowStr<'de>>()? {
                    match &*key.0 {
                        "name" => p.name = map.next_value()?,
                        "content_type" => p.content_type = Some(map.next_value()?),
                        "content" => p.content = map.next_value()?,
                        "content_encoding" => p.content_encoding = Some(map.next_value()?),
                        "content_url" => p.content_url = map.next_value()?,
                        "metadata" => p.metadata = map.next_value()?,
                        _ => {
                            let v: serde_json::Value = map.next_value()?;
                            p.extra.insert(key.0.into_owned(), v);
                        }
                    }
                }
                Ok(p)
            }
        }
        d.deserialize_map(V)
    }
}

/// Every field any ACP event may carry, parsed in one pass in whatever order the server wrote them.
/// `type` and a part's strings borrow from the input.
#[derive(Debug, Default)]
pub(crate) struct RawEvent<'a> {
    pub kind: Option<CowStr<'a>>,
    pub run: Option<Run>,
    pub message: Option<Message>,
    pub part: Option<RawPart<'a>>,
    pub generic: Option<serde_json::Value>,
    pub error: Option<serde_json::Value>,
    pub extra: JsonMap,
}

impl<'a> RawEvent<'a> {
    pub(crate) fn parse(data: &'a str) -> Result<Self, AcpError> {
        agentwire_core::json::from_text(data).map_err(|e| AcpError::from_json(e, data))
    }

    /// The `type` field (`""` when absent).
    pub(crate) fn kind(&self) -> &str {
        self.kind.as_ref().map_or("", |k| &k.0)
    }

    /// Converts into a public, owned event. Payload fields another `type` would use are moved into
    /// `extra`, so nothing is lost.
    ///
    /// # Errors
    /// A known `type` without its payload field: a description of what is missing.
    pub(crate) fn into_event(mut self) -> Result<AcpEvent, String> {
        let kind = self.kind().to_owned();
        let missing = |field: &str| format!("`{kind}` event without `{field}`");
        let event = match kind.as_str() {
            "run.created" | "run.in-progress" | "run.awaiting" | "run.completed" | "run.failed"
            | "run.cancelled" => {
                let run = self.run.take().ok_or_else(|| missing("run"))?;
                let extra = self.leftovers();
                match kind.as_str() {
                    "run.created" => AcpEvent::RunCreated { run, extra },
                    "run.in-progress" => AcpEvent::RunInProgress { run, extra },
                    "run.awaiting" => AcpEvent::RunAwaiting { run, extra },
                    "run.completed" => AcpEvent::RunCompleted { run, extra },
                    "run.failed" => AcpEvent::RunFailed { run, extra },
                    _ => AcpEvent::RunCancelled { run, extra },
                }
            }
            "message.created" | "message.completed" => {
                let message = self.message.take().ok_or_else(|| missing("message"))?;
                let extra = self.leftovers();
                if kind == "message.created" {
                    AcpEvent::MessageCreated { message, extra }
                } else {
                    AcpEvent::MessageCompleted { message, extra }
                }
            }
            "message.part" => {
                let part = self.part.take().ok_or_else(|| missing("part"))?.into_part();
                AcpEvent::MessagePart {
                    part,
                    extra: self.leftovers(),
                }
            }
            "generic" => {
                let generic = self.generic.take().ok_or_else(|| missing("generic"))?;
                AcpEvent::Generic {
                    generic,
                    extra: self.leftovers(),
                }
            }
            "error" => {
                let error = self.error.take().ok_or_else(|| missing("error"))?;
                let error = error_info(error);
                AcpEvent::Error {
                    error,
                    extra: self.leftovers(),
                }
            }
            _ => {
                let mut map = self.leftovers();
                if let Some(k) = self.kind.take() {
                    map.insert("type".to_owned(), k.0.into_owned().into());
                }
                AcpEvent::Unknown(serde_json::Value::Object(map))
            }
        };
        Ok(event)
    }

    /// Moves every payload field still set into `extra`, and returns it.
    pub(crate) fn leftovers(&mut self) -> JsonMap {
        fn put<T: Serialize>(extra: &mut JsonMap, key: &str, v: Option<T>) {
            if let Some(v) = v {
                if let Ok(v) = agentwire_core::json::to_tree(&v) {
                    extra.insert(key.to_owned(), v);
                }
            }
        }
        let mut extra = std::mem::take(&mut self.extra);
        put(&mut extra, "run", self.run.take());
        put(&mut extra, "message", self.message.take());
        put(&mut extra, "part", self.part.take().map(RawPart::into_part));
        put(&mut extra, "generic", self.generic.take());
        put(&mut extra, "error", self.error.take());
        extra
    }
}

/// Reads an `error` value as [`ErrorInfo`]; a value of another shape (a bare string) becomes the
/// message with code `server_error`.
pub(crate) fn error_info(v: serde_json::Value) -> ErrorInfo {
    // (A copy, read as every other tree is: `ErrorInfo::deserialize(&v)` compiled serde_json's
    // reader of a borrowed tree for this alone.)
    match agentwire_core::json::from_tree::<ErrorInfo>(v.clone()) {
        Ok(e) => e,
        Err(_) => ErrorInfo {
            message: match v {
                serde_json::Value::String(s) => s,
                other => agentwire_core::json::json_text(&other),
            },
            ..ErrorInfo::default()
        },
    }
}

impl<'de> Deserialize<'de> for RawEvent<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawEvent<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an ACP event object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut r = RawEvent::default();
                while let Some(key) = map.next_key::<CowStr<'de>>()? {
                    match &*key.0 {
                        "type" => r.kind = map.next_value()?,
                        "run" => r.run = from_tree(map.next_value()?)?,
                        "message" => r.message = from_tree(map.next_value()?)?,
                        "part" => r.part = map.next_value()?,
                        "generic" => r.generic = map.next_value()?,
                        "error" => r.error = map.next_value()?,
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

/// A run's or a message's object, read from the event's text as a [`serde_json::Value`] and then
/// as a `T`. Those events are a few per run; reading them from a tree, as the client's bodies and
/// the arguments from JavaScript are read, compiles no text reader for their types (serde_json's
/// reader of each type's text was about 11 KB of the wasm module). A wrong shape is reported
/// with serde's message at the end of the object.
fn from_tree<T: serde::de::DeserializeOwned, E: serde::de::Error>(
    value: Option<serde_json::Value>,
) -> Result<Option<T>, E> {
    value
        .map(agentwire_core::json::from_tree)
        .transpose()
        .map_err(E::custom)
}

/// The body of `GET /runs/{run_id}/events` (the SDK's `RunEventsListResponse`): `{"events": […]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
pub struct RunEventsList {
    /// The run's events, in order.
    pub events: Vec<AcpEvent>,
    /// Fields this version does not know, kept as sent.
    #[serde(flatten)]
    pub extra: JsonMap,
}

/// Read as serde's derive reads it (`events` required and not repeated, the other members into
/// `extra`), without the derive's buffering of the members for `extra` (serde's `Content`, whose
/// readers were compiled for this body alone). The unit tests derive it, as the reference for
/// `read_events_list`.
#[cfg(not(test))]
impl<'de> Deserialize<'de> for RunEventsList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RunEventsList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("struct RunEventsList")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                read_events_list(map)
            }
        }
        d.deserialize_map(V)
    }
}

/// The members of a [`RunEventsList`], as serde's derive reads them.
fn read_events_list<'de, A: MapAccess<'de>>(mut map: A) -> Result<RunEventsList, A::Error> {
    use serde::de::Error as _;
    let (mut events, mut extra) = (None, JsonMap::new());
    while let Some(key) = map.next_key::<String>()? {
        if key != "events" {
            extra.insert(key, map.next_value()?);
        } else if events.is_some() {
            return Err(A::Error::duplicate_field("events"));
        } else {
            events = Some(map.next_value()?);
        }
    }
    let events = events.ok_or_else(|| A::Error::missing_field("events"))?;
    Ok(RunEventsList { events, extra })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    /// `RunEventsList`'s hand-written reader against serde's derived one (these tests derive
    /// it), from text.
    #[test]
    fn an_events_list_reads_as_the_derived_reader_reads_it() {
        fn hand(json: &str) -> Result<RunEventsList, String> {
            use serde::de::{Deserializer as _, MapAccess};
            // The `cfg(not(test))` impl's visitor, through the same steps.
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = RunEventsList;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("struct RunEventsList")
                }
                fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                    read_events_list(map)
                }
            }
            let mut de = serde_json::Deserializer::from_str(json);
            (&mut de).deserialize_map(V).map_err(|e| e.to_string())
        }
        let run = r#"{"run_id":"r","agent_name":"a","status":"created","output":[]}"#;
        for json in [
            format!(r#"{{"events":[{{"type":"run.created","run":{run}}}],"next":null}}"#),
            r#"{"events":[]}"#.to_owned(),
            r#"{"events":[],"events":[]}"#.to_owned(),
            r#"{"next":1}"#.to_owned(),
            r#"{"events":[{"type":"run.created"}]}"#.to_owned(),
            r#"{"events":{}}"#.to_owned(),
            r#"[]"#.to_owned(),
        ] {
            let theirs = serde_json::from_str::<RunEventsList>(&json).map_err(|e| e.to_string());
            assert_eq!(hand(&json), theirs, "{json}");
        }
    }

    #[test]
    fn a_run_or_message_is_read_through_a_tree_and_a_wrong_shape_is_named() {
        let run = r#"{"type":"run.created","run":{"run_id":"r1","agent_name":"echo","status":"created","output":[]}}"#;
        let raw = RawEvent::parse(run).unwrap();
        let r = raw.run.unwrap();
        assert_eq!((r.run_id.as_str(), r.agent_name.as_str()), ("r1", "echo"));
        let message = r#"{"type":"message.completed","message":{"role":"agent/echo","parts":[{"content":"hi"}]}}"#;
        let m = RawEvent::parse(message).unwrap().message.unwrap();
        assert_eq!(m.parts[0].content.as_deref(), Some("hi"));
        assert!(RawEvent::parse(r#"{"type":"run.created","run":null}"#)
            .unwrap()
            .run
            .is_none());

        for (data, what) in [
            (
                r#"{"type":"message.created","message":{"role":5,"parts":[]}}"#,
                "integer `5`",
            ),
            (
                r#"{"type":"run.created","run":{"run_id":3}}"#,
                "integer `3`",
            ),
            (r#"{"type":"run.created","run":[]}"#, "sequence"),
        ] {
            match RawEvent::parse(data) {
                Err(AcpError::InvalidEvent { reason, data: kept }) => {
                    assert!(reason.contains(what), "{reason}");
                    assert_eq!(kept, data);
                }
                other => panic!("{data}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_text_chunk_is_parsed_without_copying_its_text() {
        let data = r#"{"type":"message.part","part":{"name":null,"content_type":"text/plain","content":"Hel","content_encoding":"plain","content_url":null,"metadata":null}}"#;
        let raw = RawEvent::parse(data).unwrap();
        assert_eq!(raw.kind(), "message.part");
        let part = raw.part.as_ref().unwrap();
        assert!(matches!(
            part.content.as_ref().unwrap().0,
            Cow::Borrowed("Hel")
        ));
        assert_eq!(part.joinable_text(), Some("Hel"));
        // Escapes force a copy, and still read right.
        let raw = RawEvent::parse(r#"{"type":"message.part","part":{"content":"a\"b"}}"#).unwrap();
        assert_eq!(raw.part.unwrap().joinable_text(), Some("a\"b"));
    }

    #[test]
    fn absent_and_null_are_told_apart() {
        let absent = RawEvent::parse(r#"{"type":"message.part","part":{"content":"x"}}"#).unwrap();
        let p = absent.part.unwrap();
        assert_eq!(p.joinable_text(), Some("x"));
        let p = p.into_part();
        assert_eq!(p.content_type.as_deref(), Some("text/plain"));
        assert_eq!(p.content_encoding, Some(ContentEncoding::Plain));
        let null = RawEvent::parse(
            r#"{"type":"message.part","part":{"content":"x","content_type":null,"content_encoding":null}}"#,
        )
        .unwrap();
        let p = null.part.unwrap();
        assert_eq!(p.joinable_text(), None);
        let p = p.into_part();
        assert_eq!(p.content_type, None);
        assert_eq!(p.content_encoding, None);
        assert_eq!(RawPart::from_part(p.clone()).into_part(), p);
    }

    #[test]
    fn payloads_of_another_type_are_kept_in_extra() {
        let e = AcpEvent::parse(
            r#"{"type":"generic","generic":{"a":1},"part":{"content":"x"},"error":"e"}"#,
        )
        .unwrap();
        let AcpEvent::Generic { generic, extra } = e else {
            panic!()
        };
        assert_eq!(generic["a"], 1);
        assert_eq!(extra["part"]["content"], "x");
        assert_eq!(extra["error"], "e");
        // A bare string error reads as the message.
        let e = AcpEvent::parse(r#"{"type":"error","error":"boom"}"#).unwrap();
        assert!(matches!(e, AcpEvent::Error { error, .. } if error.message == "boom"));
    }
}
