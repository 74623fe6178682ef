//! Reading packets: one pass over the JSON, in whatever order the sender wrote the fields, with the
//! strings the assembler only reads (`id`, `role`, a part's `type` and `text`) borrowed from the input.
//! `Deserialize` for [`Message`] and [`Part`] goes through the same code, so the model and the
//! assembler can never disagree about what a packet says.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::model::{Message, Part, TextPart, ToolCallPart, ToolErrorPart, ToolResultPart};
use super::AgentxError;
use crate::wire::{CowStr, JsonMap};

/// A JSON value whose string form is borrowed when the input allows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Loose<'a> {
    Str(Cow<'a, str>),
    Value(Value),
}

impl Loose<'_> {
    fn into_value(self) -> Value {
        match self {
            Loose::Str(s) => Value::String(s.into_owned()),
            Loose::Value(v) => v,
        }
    }
}

impl<'de> Deserialize<'de> for Loose<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Loose<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Loose::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Loose::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Loose::Str(Cow::Owned(v)))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(Loose::Value(Value::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Loose::Value(Value::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Loose::Value(Value::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Loose::Value(
                    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
                ))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Loose::Value(Value::Null))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Loose::Value(Value::Null))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                Loose::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Value::deserialize(SeqAccessDeserializer::new(seq)).map(Loose::Value)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Value::deserialize(MapAccessDeserializer::new(map)).map(Loose::Value)
            }
        }
        d.deserialize_any(V)
    }
}

/// Every field a part may carry. A field is `Some` when it was present (even as `null`).
#[derive(Debug, Default)]
pub(crate) struct RawPart<'a> {
    kind: Option<Loose<'a>>,
    text: Option<Loose<'a>>,
    tool_call_id: Option<Value>,
    tool_name: Option<Value>,
    args: Option<Value>,
    result: Option<Value>,
    error_type: Option<Value>,
    message: Option<Value>,
    extra: JsonMap,
}

/// Why a part of a known `type` does not have that type's shape.
fn shape_error(kind: &str, p: &RawPart<'_>) -> Option<&'static str> {
    let is_str = |v: &Option<Value>| matches!(v, Some(Value::String(_)));
    match kind {
        "text" => match &p.text {
            Some(Loose::Str(_)) => None,
            Some(Loose::Value(_)) => Some("`text` must be a string"),
            None => Some("a text part needs `text`"),
        },
        "tool_call" => {
            if !is_str(&p.tool_call_id) {
                Some("a tool_call part needs a string `tool_call_id`")
            } else if !is_str(&p.tool_name) {
                Some("a tool_call part needs a string `tool_name`")
            } else if !matches!(p.args, Some(Value::Object(_))) {
                Some("a tool_call part needs `args`, an object")
            } else {
                None
            }
        }
        "tool_result" => {
            if !is_str(&p.tool_call_id) {
                Some("a tool_result part needs a string `tool_call_id`")
            } else if p.result.is_none() {
                Some("a tool_result part needs `result`")
            } else {
                None
            }
        }
        "tool_error" => {
            if !is_str(&p.tool_call_id) {
                Some("a tool_error part needs a string `tool_call_id`")
            } else if !is_str(&p.error_type) {
                Some("a tool_error part needs a string `error_type`")
            } else if !is_str(&p.message) {
                Some("a tool_error part needs a string `message`")
            } else {
                None
            }
        }
        _ => None,
    }
}

fn string(v: Option<Value>) -> String {
    match v {
        Some(Value::String(s)) => s,
        _ => String::new(),
    }
}

impl<'a> RawPart<'a> {
    /// The text of a well-formed text part, borrowed.
    pub(crate) fn as_text(&self) -> Option<&str> {
        match (&self.kind, &self.text) {
            (Some(Loose::Str(k)), Some(Loose::Str(t))) if k == "text" => Some(t),
            _ => None,
        }
    }

    /// The text of a well-formed text part when it had escapes (owned), to be looked at for the
    /// halves of a cut surrogate pair (`json::cut_halves`).
    pub(crate) fn owned_text(&self) -> Option<&str> {
        match (&self.kind, &self.text) {
            (Some(Loose::Str(k)), Some(Loose::Str(Cow::Owned(t)))) if k == "text" => Some(t),
            _ => None,
        }
    }

    /// The text of a text part, to change it (`None` for any other part).
    pub(crate) fn text_mut(&mut self) -> Option<&mut Cow<'a, str>> {
        match &mut self.text {
            Some(Loose::Str(t)) => Some(t),
            _ => None,
        }
    }

    /// Whether the part has fields besides `type` and `text`.
    pub(crate) fn has_other_fields(&self) -> bool {
        self.tool_call_id.is_some()
            || self.tool_name.is_some()
            || self.args.is_some()
            || self.result.is_some()
            || self.error_type.is_some()
            || self.message.is_some()
            || !self.extra.is_empty()
    }

    /// Every field but `type` and `text`, as a JSON object (the unknown fields of a text part).
    pub(crate) fn into_text_extra(mut self) -> JsonMap {
        let mut extra = std::mem::take(&mut self.extra);
        self.leftovers(&mut extra);
        extra
    }

    /// Moves the fields still set (other than `type` and `text`) into `extra`.
    fn leftovers(&mut self, extra: &mut JsonMap) {
        let fields = [
            ("tool_call_id", self.tool_call_id.take()),
            ("tool_name", self.tool_name.take()),
            ("args", self.args.take()),
            ("result", self.result.take()),
            ("error_type", self.error_type.take()),
            ("message", self.message.take()),
        ];
        for (key, value) in fields {
            if let Some(value) = value {
                extra.insert(key.to_owned(), value);
            }
        }
    }

    /// The part as a JSON object, every field as sent.
    fn into_object(mut self) -> JsonMap {
        let mut map = std::mem::take(&mut self.extra);
        if let Some(k) = self.kind.take() {
            map.insert("type".to_owned(), k.into_value());
        }
        if let Some(t) = self.text.take() {
            map.insert("text".to_owned(), t.into_value());
        }
        self.leftovers(&mut map);
        map
    }

    /// The typed part, and why it had to be kept as [`Part::Other`] when its `type` is known but
    /// its shape is not that type's (`None` for well-formed and unknown parts).
    pub(crate) fn into_part(mut self) -> (Part, Option<&'static str>) {
        let kind = match self.kind.take() {
            Some(Loose::Str(k)) => k,
            other => {
                let reason = if other.is_some() {
                    "`type` must be a string"
                } else {
                    "a part needs `type`"
                };
                self.kind = other;
                return (Part::Other(self.into_object()), Some(reason));
            }
        };
        if let Some(reason) = shape_error(&kind, &self) {
            self.kind = Some(Loose::Str(kind));
            return (Part::Other(self.into_object()), Some(reason));
        }
        let part = match &*kind {
            "text" => {
                let text = match self.text.take() {
                    Some(Loose::Str(s)) => s.into_owned(),
                    _ => String::new(),
                };
                Part::Text(TextPart {
                    text,
                    extra: self.into_text_extra(),
                })
            }
            "tool_call" => {
                let tool_call_id = string(self.tool_call_id.take());
                let tool_name = string(self.tool_name.take());
                let args = match self.args.take() {
                    Some(Value::Object(m)) => m,
                    _ => JsonMap::new(),
                };
                Part::ToolCall(ToolCallPart {
                    tool_call_id,
                    tool_name,
                    args,
                    extra: self.into_extra_with_text(),
                })
            }
            "tool_result" => {
                let tool_call_id = string(self.tool_call_id.take());
                let result = self.result.take().unwrap_or_default();
                Part::ToolResult(ToolResultPart {
                    tool_call_id,
                    result,
                    extra: self.into_extra_with_text(),
                })
            }
            "tool_error" => {
                let tool_call_id = string(self.tool_call_id.take());
                let error_type = string(self.error_type.take());
                let message = string(self.message.take());
                Part::ToolError(ToolErrorPart {
                    tool_call_id,
                    error_type: error_type.as_str().into(),
                    message,
                    extra: self.into_extra_with_text(),
                })
            }
            _ => {
                self.kind = Some(Loose::Str(kind));
                Part::Other(self.into_object())
            }
        };
        (part, None)
    }

    /// Every field but `type` (a `text` field included), for the unknown fields of non-text parts.
    fn into_extra_with_text(mut self) -> JsonMap {
        let mut extra = std::mem::take(&mut self.extra);
        if let Some(t) = self.text.take() {
            extra.insert("text".to_owned(), t.into_value());
        }
        self.leftovers(&mut extra);
        extra
    }
}

impl<'de> Deserialize<'de> for RawPart<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawPart<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an AgentX part (a JSON object)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut p = RawPart::default();
                while let Some(key) = map.next_key::<CowStr<'de>>()? {
                    match &*key.0 {
                        "type" => p.kind = Some(map.next_value()?),
                        "text" => p.text = Some(map.next_value()?),
                        "tool_call_id" => p.tool_call_id = Some(map.next_value()?),
                        "tool_name" => p.tool_name = Some(map.next_value()?),
                        "args" => p.args = Some(map.next_value()?),
                        "result" => p.result = Some(map.next_value()?),
                        "error_type" => p.error_type = Some(map.next_value()?),
                        "message" => p.message = Some(map.next_value()?),
                        _ => {
                            let v: Value = map.next_value()?;
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

/// A packet's parts; the first is kept inline so the common one-part packet allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct RawParts<'a> {
    pub first: Option<RawPart<'a>>,
    pub rest: Vec<RawPart<'a>>,
}

impl RawParts<'_> {
    /// How many parts there are.
    pub(crate) fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }
}

impl<'a> IntoIterator for RawParts<'a> {
    type Item = RawPart<'a>;
    type IntoIter =
        std::iter::Chain<std::option::IntoIter<RawPart<'a>>, std::vec::IntoIter<RawPart<'a>>>;
    fn into_iter(self) -> Self::IntoIter {
        self.first.into_iter().chain(self.rest)
    }
}

impl<'de> Deserialize<'de> for RawParts<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawParts<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`parts`, an array of part objects")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut parts = RawParts {
                    first: seq.next_element()?,
                    rest: Vec::new(),
                };
                while let Some(p) = seq.next_element()? {
                    parts.rest.push(p);
                }
                Ok(parts)
            }
        }
        d.deserialize_seq(V)
    }
}

/// A packet (a [`Message`]) as read, borrowing what it can.
#[derive(Debug)]
pub(crate) struct RawPacket<'a> {
    pub id: Option<CowStr<'a>>,
    pub role: CowStr<'a>,
    pub parts: RawParts<'a>,
    pub extra: JsonMap,
}

impl<'a> RawPacket<'a> {
    /// Parses one packet (an SSE event's `data`).
    pub(crate) fn parse(data: &'a str) -> Result<Self, AgentxError> {
        agentwire_core::json::from_text(data).map_err(|e| AgentxError::from_json(&e, data))
    }

    /// The packet as an owned [`Message`]; parts of a known type with the wrong shape become
    /// [`Part::Other`].
    pub(crate) fn into_message(self) -> Message {
        Message {
            id: self.id.map(|i| i.0.into_owned()),
            role: (&*self.role.0).into(),
            parts: self.parts.into_iter().map(|p| p.into_part().0).collect(),
            extra: self.extra,
        }
    }
}

impl<'de> Deserialize<'de> for RawPacket<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawPacket<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an AgentX message object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut id = None;
                let mut role = None;
                let mut parts = None;
                let mut extra = JsonMap::new();
                while let Some(key) = map.next_key::<CowStr<'de>>()? {
                    match &*key.0 {
                        "id" => id = map.next_value::<Option<CowStr<'de>>>()?,
                        "role" => role = Some(map.next_value::<CowStr<'de>>()?),
                        "parts" => parts = Some(map.next_value::<RawParts<'de>>()?),
                        _ => {
                            let v: Value = map.next_value()?;
                            extra.insert(key.0.into_owned(), v);
                        }
                    }
                }
                Ok(RawPacket {
                    id,
                    role: role.ok_or_else(|| de::Error::missing_field("role"))?,
                    parts: parts.ok_or_else(|| de::Error::missing_field("parts"))?,
                    extra,
                })
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for Part {
    /// Reads any JSON object as a part: see [`Part`] for the shapes; everything else is
    /// [`Part::Other`]. Fails only on input that is not an object.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(RawPart::deserialize(d)?.into_part().0)
    }
}

impl<'de> Deserialize<'de> for Message {
    /// Reads a message: `role` (a string) and `parts` (an array of objects) are required, `id` is a
    /// string or `null`; other fields go to `extra`.
    ///
    /// Through its JSON text and the packet reader of streams (`RawPacket::parse`), whatever
    /// the deserializer: messages are read from trees (arguments from JavaScript), and the packet
    /// reader compiled for a tree was 5 KB of the wasm module. The messages are serde's, without
    /// the position in that text (which the caller never saw).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = agentwire_core::json::json_text(&Value::deserialize(d)?);
        agentwire_core::json::from_text::<RawPacket<'_>>(&text)
            .map(RawPacket::into_message)
            .map_err(|e| de::Error::custom(agentwire_core::json::message_of(&e)))
    }
}

impl Message {
    /// Parses one message (or one streamed packet) from JSON text.
    ///
    /// # Errors
    /// [`AgentxError::InvalidJson`] if `json` is not JSON; [`AgentxError::InvalidPacket`] if it is
    /// JSON of the wrong shape (not an object, no `role`, no `parts`, a part that is not an object,
    /// a non-string `id`). Both keep the input. Unknown part types and fields are never errors.
    pub fn parse(json: &str) -> Result<Self, AgentxError> {
        RawPacket::parse(json).map(RawPacket::into_message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn borrowed(c: &Option<CowStr<'_>>) -> bool {
        matches!(c, Some(CowStr(Cow::Borrowed(_))))
    }

    #[test]
    fn a_text_packet_without_escapes_is_read_without_copying() {
        let data = r#"{"parts":[{"text":"Hel","type":"text"}],"role":"assistant","id":"msg_1"}"#;
        let raw = RawPacket::parse(data).unwrap();
        assert!(borrowed(&raw.id));
        assert!(matches!(raw.role, CowStr(Cow::Borrowed("assistant"))));
        let part = raw.parts.first.as_ref().unwrap();
        assert!(matches!(part.text, Some(Loose::Str(Cow::Borrowed("Hel")))));
        assert!(matches!(part.kind, Some(Loose::Str(Cow::Borrowed("text")))));
        assert_eq!(part.as_text(), Some("Hel"));
        assert!(!part.has_other_fields());
        assert!(raw.parts.rest.is_empty());
    }

    #[test]
    fn escaped_strings_are_owned_and_decoded() {
        let raw =
            RawPacket::parse(r#"{"role":"assistant","parts":[{"type":"text","text":"a\nb"}]}"#)
                .unwrap();
        let part = raw.parts.first.as_ref().unwrap();
        assert!(matches!(&part.text, Some(Loose::Str(Cow::Owned(s))) if s == "a\nb"));
    }

    #[test]
    fn loose_values_keep_every_json_type() {
        for json in [
            r#"null"#,
            "true",
            "-3",
            "18446744073709551615",
            "1.5",
            r#"[1,"a"]"#,
            r#"{"k":{}}"#,
        ] {
            let v: Loose<'_> = serde_json::from_str(json).unwrap();
            assert_eq!(
                v.into_value(),
                serde_json::from_str::<Value>(json).unwrap(),
                "{json}"
            );
        }
    }

    #[test]
    fn fields_of_other_types_become_unknown_fields_of_a_known_part() {
        let raw: RawPart<'_> = serde_json::from_str(
            r#"{"type":"tool_call","tool_call_id":"tc","tool_name":"f","args":{},"text":"t","message":1}"#,
        )
        .unwrap();
        let (part, reason) = raw.into_part();
        assert_eq!(reason, None);
        let Part::ToolCall(call) = part else {
            panic!("{part:?}")
        };
        assert_eq!(call.extra["text"], "t");
        assert_eq!(call.extra["message"], 1);
    }

    /// A message read from a tree (as from JavaScript) is the message `Message::parse` reads from
    /// the same text, and a wrong shape has the same message (neither has a position).
    #[test]
    fn a_message_from_a_tree_is_read_as_its_text_is() {
        for json in [
            r#"{"role":"user","parts":[{"type":"text","text":"hi"}],"id":"m1","x":[1]}"#,
            r#"{"role":"assistant","parts":[{"type":"tool_call","tool_call_id":"c","tool_name":"f","args":{"a":1.5}},{"type":"hologram"}]}"#,
            r#"{"role":"user","parts":[{"type":"text"}],"id":null}"#,
            r#"{"role":"user"}"#,
            r#"{"parts":[]}"#,
            r#"{"role":"user","parts":[1]}"#,
            r#"{"role":"user","parts":[],"id":5}"#,
            r#"[1]"#,
            r#""text""#,
        ] {
            let tree: Value = serde_json::from_str(json).unwrap();
            let ours = serde_json::from_value::<Message>(tree).map_err(|e| e.to_string());
            let text = Message::parse(json).map_err(|e| match e {
                AgentxError::InvalidPacket { reason, .. } => reason,
                other => panic!("{other:?}"),
            });
            assert_eq!(ours, text, "{json}");
        }
    }
}
