//! A [`StructuredMessage`] as a [`Body`] and back (mapping in the module documentation).

use crate::set::Set;

use base64::Engine as _;
use serde_json::Value;

use super::message::{ReadOptions, StructuredMessage, ToolCall, ToolResult, ToolStatus};
use super::read::{check_type, join, optional_number, optional_object, optional_string, string};
use super::AtlasError;
use crate::body::{Body, ContentEncoding, Part, PartKind, MAX_NAME_LEN};
use crate::platform::{now_unix_seconds, uuid_v4};
use crate::wire::JsonMap;

/// The name of the part holding the message's `metadata` (content) and envelope (part metadata).
pub(crate) const METADATA_PART: &str = "/metadata";
const JSON: &str = "application/json";

impl StructuredMessage {
    /// The message as a body: its content as the main text part, each tool call and result as a
    /// part, and `metadata` with the envelope in the `/metadata` part (see the module
    /// documentation's table). [`from_body`](Self::from_body) reads it back unchanged.
    pub fn to_body(&self) -> Body {
        let mut parts = Vec::with_capacity(2 + self.tool_calls.len() + self.tool_results.len());
        parts.push(Part::inline(
            PartKind::Text,
            "text/plain",
            self.content.clone(),
        ));

        let call_names = names("/tool_calls", self.tool_calls.iter().map(|c| c.id.as_str()));
        for (call, name) in self.tool_calls.iter().zip(call_names) {
            let mut meta = JsonMap::new();
            meta.insert("toolCallId".to_owned(), Value::String(call.id.clone()));
            meta.insert("toolName".to_owned(), Value::String(call.name.clone()));
            put_extra(&mut meta, &call.extra);
            parts.push(json_part(
                PartKind::ToolCall,
                name,
                &Value::Object(call.arguments.clone()),
                meta,
            ));
        }

        let result_names = names(
            "/tool_results",
            self.tool_results.iter().map(|r| r.call_id.as_str()),
        );
        for (result, name) in self.tool_results.iter().zip(result_names) {
            let kind = match result.status {
                ToolStatus::Error => PartKind::ToolError,
                _ => PartKind::ToolResult,
            };
            let mut meta = JsonMap::new();
            meta.insert(
                "toolCallId".to_owned(),
                Value::String(result.call_id.clone()),
            );
            meta.insert("toolName".to_owned(), Value::String(result.name.clone()));
            meta.insert(
                "status".to_owned(),
                Value::String(result.status.as_str().to_owned()),
            );
            if let Some(error) = &result.error {
                meta.insert("error".to_owned(), Value::String(error.clone()));
            }
            put_extra(&mut meta, &result.extra);
            parts.push(json_part(kind, name, &result.result, meta));
        }

        let mut meta = JsonMap::new();
        meta.insert("task_id".to_owned(), Value::String(self.task_id.clone()));
        meta.insert("timestamp".to_owned(), Value::from(self.timestamp));
        if let Some(agent) = &self.source_agent {
            meta.insert("source_agent".to_owned(), Value::String(agent.clone()));
        }
        if let Some(agent) = &self.target_agent {
            meta.insert("target_agent".to_owned(), Value::String(agent.clone()));
        }
        put_extra(&mut meta, &self.extra);
        parts.push(json_part(
            PartKind::Data,
            METADATA_PART.to_owned(),
            &Value::Object(self.metadata.clone()),
            meta,
        ));

        Body::new(parts)
    }

    /// Reads a message from a body: the mapping of [`to_body`](Self::to_body), read leniently.
    ///
    /// Unnamed `text` parts, joined in order, are the content (none: `""`); `tool_call` parts are
    /// the tool calls and `tool_result`/`tool_error` parts the tool results, in order, whatever
    /// their names; the part named `/metadata` gives `metadata` and the envelope (without it:
    /// `{}`, a new `task_id`, the current time, no agents). Other parts are ignored. A tool
    /// part's missing `toolCallId` is generated for a call, required for a result; a result's
    /// missing `status` is `error` for a `tool_error` part, else `success`. Empty JSON content
    /// reads as `{}` (arguments, metadata) or `null` (a result).
    ///
    /// # Errors
    ///
    /// With the part's path (`parts[2].metadata.toolName`): `missing-field` (a part without inline
    /// content, a result without `toolCallId`, a tool part without `toolName`), `wrong-type` (a
    /// metadata field of the wrong type, arguments or `/metadata` content that are not an object,
    /// a `metadata.type` that is not a string), `invalid-part-content` (content that is not JSON,
    /// bad base64, not UTF-8, or an unknown content encoding).
    pub fn from_body(body: &Body) -> Result<Self, AtlasError> {
        let mut message = Self {
            content: String::new(),
            metadata: JsonMap::new(),
            task_id: String::new(),
            timestamp: 0.0,
            tool_calls: Vec::new(),
            tool_results: Vec::new(),
            source_agent: None,
            target_agent: None,
            extra: JsonMap::new(),
        };
        let mut envelope = None;
        for (i, part) in body.parts.iter().enumerate() {
            let path = format!("parts[{i}]");
            match (&part.kind, part.name.as_deref()) {
                (_, Some(METADATA_PART)) => envelope = Some((path, part)),
                (PartKind::Text, None) => message.content.push_str(&text(part, &path)?),
                (PartKind::ToolCall, _) => message.tool_calls.push(tool_call(part, &path)?),
                (PartKind::ToolResult | PartKind::ToolError, _) => {
                    message.tool_results.push(tool_result(part, &path)?)
                }
                _ => {}
            }
        }

        let (meta, meta_path) = match envelope {
            Some((path, part)) => {
                message.metadata = object_content(part, &path)?;
                check_type(
                    &message.metadata,
                    &join(&path, "content"),
                    &ReadOptions::LENIENT,
                )?;
                (part_metadata(part), join(&path, "metadata"))
            }
            None => (JsonMap::new(), String::new()),
        };
        message.task_id = optional_string(&meta, &meta_path, "task_id")?.unwrap_or_else(uuid_v4);
        message.timestamp =
            optional_number(&meta, &meta_path, "timestamp")?.unwrap_or_else(now_unix_seconds);
        message.source_agent = optional_string(&meta, &meta_path, "source_agent")?;
        message.target_agent = optional_string(&meta, &meta_path, "target_agent")?;
        message.extra = optional_object(&meta, &meta_path, "extra")?.unwrap_or_default();
        Ok(message)
    }
}

/// Part names for `ids` under `prefix`: `prefix/<segment>`, each unique and valid under the body's
/// [name rules](crate::body::validate_name) (ASCII letters, digits, `.`, `-`, `_`; no `.` or `..`
/// segment; at most [`MAX_NAME_LEN`] bytes).
///
/// The segment is the id with every byte other than `A-Z a-z 0-9 - _` written `.XX` (two uppercase
/// hex digits of the UTF-8 byte: `x/y` is `x.2Fy`, `.` is `.2E`). An empty or repeated id gets
/// `._<index>` appended (its position in the list); an id too long for the limit is replaced by
/// `._<index>` alone. An encoded id never contains `._`, so no two names are the same.
fn names<'a>(prefix: &str, ids: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut used = Set::new();
    ids.enumerate()
        .map(|(i, id)| {
            let segment = segment(id);
            let mut name = format!("{prefix}/{segment}");
            if segment.is_empty() || name.len() > MAX_NAME_LEN || used.contains(&name) {
                name = if name.len() + 24 > MAX_NAME_LEN {
                    format!("{prefix}/._{i}")
                } else {
                    format!("{prefix}/{segment}._{i}")
                };
            }
            used.insert(name.clone());
            name
        })
        .collect()
}

fn segment(id: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            out.push(char::from(b));
        } else {
            out.push('.');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

fn put_extra(meta: &mut JsonMap, extra: &JsonMap) {
    if !extra.is_empty() {
        meta.insert("extra".to_owned(), Value::Object(extra.clone()));
    }
}

fn json_part(kind: PartKind, name: String, content: &Value, meta: JsonMap) -> Part {
    // A JSON value always serializes.
    let text = serde_json::to_string(content).unwrap_or_default();
    Part {
        metadata: Some(meta),
        ..Part::inline(kind, JSON, text).named(name)
    }
}

fn part_metadata(part: &Part) -> JsonMap {
    part.metadata.clone().unwrap_or_default()
}

/// A part's inline content as text.
fn text(part: &Part, path: &str) -> Result<String, AtlasError> {
    let content_path = join(path, "content");
    let Some(content) = &part.content else {
        return Err(AtlasError::MissingField { path: content_path });
    };
    let invalid = |reason: String| AtlasError::InvalidPartContent {
        path: content_path.clone(),
        reason,
        content: content.clone(),
    };
    match &part.content_encoding {
        ContentEncoding::Plain => Ok(content.clone()),
        ContentEncoding::Base64 => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(content)
                .map_err(|e| invalid(format!("invalid base64: {e}")))?;
            String::from_utf8(bytes).map_err(|e| invalid(format!("not UTF-8: {e}")))
        }
        other => Err(invalid(format!("unknown content encoding `{other}`"))),
    }
}

/// A part's content read as JSON (exact floats); empty content is `None`.
fn json_content(part: &Part, path: &str) -> Result<Option<Value>, AtlasError> {
    let text = text(part, path)?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    agentwire_core::json::parse_value(&text)
        .map(Some)
        .map_err(|e| AtlasError::InvalidPartContent {
            path: join(path, "content"),
            reason: format!("not JSON: {e}"),
            content: text,
        })
}

/// A part's content read as a JSON object; empty content is `{}`.
fn object_content(part: &Part, path: &str) -> Result<JsonMap, AtlasError> {
    match json_content(part, path)? {
        None => Ok(JsonMap::new()),
        Some(Value::Object(map)) => Ok(map),
        Some(other) => Err(AtlasError::wrong_type(
            &join(path, "content"),
            "object",
            &other,
        )),
    }
}

fn tool_call(part: &Part, path: &str) -> Result<ToolCall, AtlasError> {
    let arguments = object_content(part, path)?;
    let meta = part_metadata(part);
    let meta_path = join(path, "metadata");
    Ok(ToolCall {
        id: optional_string(&meta, &meta_path, "toolCallId")?.unwrap_or_else(uuid_v4),
        name: string(&meta, &meta_path, "toolName")?,
        arguments,
        extra: optional_object(&meta, &meta_path, "extra")?.unwrap_or_default(),
    })
}

fn tool_result(part: &Part, path: &str) -> Result<ToolResult, AtlasError> {
    let result = json_content(part, path)?.unwrap_or(Value::Null);
    let meta = part_metadata(part);
    let meta_path = join(path, "metadata");
    let status = match optional_string(&meta, &meta_path, "status")? {
        Some(status) => ToolStatus::from(status.as_str()),
        None if part.kind == PartKind::ToolError => ToolStatus::Error,
        None => ToolStatus::Success,
    };
    Ok(ToolResult {
        call_id: string(&meta, &meta_path, "toolCallId")?,
        name: string(&meta, &meta_path, "toolName")?,
        result,
        status,
        error: optional_string(&meta, &meta_path, "error")?,
        extra: optional_object(&meta, &meta_path, "extra")?.unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_valid_segments() {
        let long = "x".repeat(2000);
        let ids = [
            "a", "a", "", "x/y", "50%", "._1", ".", "..", "call_1", "é", &long,
        ];
        let got = names("/tool_calls", ids.iter().copied());
        assert_eq!(
            got,
            [
                "/tool_calls/a",
                "/tool_calls/a._1",
                "/tool_calls/._2",
                "/tool_calls/x.2Fy",
                "/tool_calls/50.25",
                "/tool_calls/.2E_1",
                "/tool_calls/.2E",
                "/tool_calls/.2E.2E",
                "/tool_calls/call_1",
                "/tool_calls/.C3.A9",
                "/tool_calls/._10",
            ]
        );
        for name in &got {
            assert!(crate::body::is_valid_name(name), "{name}");
        }
        let unique: std::collections::BTreeSet<_> = got.iter().collect();
        assert_eq!(unique.len(), got.len());
    }
}
