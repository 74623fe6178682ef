//! ACP messages as bodies: message parts are the body model's parts one to one.
//!
//! See [`MessagePart::to_body_part`] for the mapping.

use super::model::{Message, MessagePart, PartMetadata, Role, Run};
use crate::body::{Body, ContentEncoding, Part, PartKind, PartStatus};
use crate::wire::JsonMap;

/// The `metadata` key the body view adds to trajectory parts with a `tool_name`.
const TOOL_NAME: &str = "toolName";

impl MessagePart {
    /// The part as a body [`Part`] with `status`:
    ///
    /// | ACP `MessagePart` | body [`Part`] |
    /// |---|---|
    /// | `name` | `name`, kept as sent (even when it is not a valid part name, such as `hello.bin`: validation reports it) |
    /// | `content_type` | `contentType` (`null` ↔ `""`) |
    /// | `content`, `content_encoding`, `content_url` | `content`, `contentEncoding` (`null` ↔ `plain`), `contentUrl` |
    /// | `metadata` | `metadata`: the ACP object verbatim (`kind`, `start_index`…, `tool_name`…); a trajectory with a `tool_name` also gets `toolName` |
    /// | — | `type`: `tool_result` for a trajectory with `tool_name` and `tool_output`, `tool_call` for one with `tool_name` only, `reasoning` for one without `tool_name`; otherwise from the content type (`text/*` → `text`, `image/*` → `image`, `audio/*` → `audio`, JSON → `data`, others → `file`) |
    /// | — | `status`: the given one ([`Message::body`] gives `complete` once the message is completed, `completed_at` set, else `streaming`; [`Run::bodies`] marks the parts of a run that ended unfinished `incomplete`) |
    ///
    /// A part's unknown fields (`extra`) stay on the `MessagePart`; the body view does not carry them.
    pub fn to_body_part(&self, status: PartStatus) -> Part {
        let content_type = self.content_type.clone().unwrap_or_default();
        let kind = match self.metadata.as_deref() {
            Some(PartMetadata::Trajectory(t)) => match (&t.tool_name, &t.tool_output) {
                (Some(_), Some(_)) => PartKind::ToolResult,
                (Some(_), None) => PartKind::ToolCall,
                (None, _) => PartKind::Reasoning,
            },
            _ => kind_of(&content_type),
        };
        let metadata = self.metadata.as_deref().map(|m| {
            let mut map = m.to_map();
            if let PartMetadata::Trajectory(t) = m {
                if let Some(tool) = &t.tool_name {
                    map.insert(TOOL_NAME.to_owned(), tool.clone().into());
                }
            }
            map
        });
        Part {
            kind,
            name: self.name.clone(),
            content_type,
            content: self.content.clone(),
            content_encoding: self
                .content_encoding
                .clone()
                .unwrap_or(ContentEncoding::Plain),
            content_url: self.content_url.clone(),
            metadata,
            status,
        }
    }

    /// A message part from a body [`Part`]: the inverse of [`to_body_part`](Self::to_body_part)
    /// (the part's `type` and `status` have no ACP field; `""` content type becomes `null`;
    /// metadata that is not ACP's becomes [`PartMetadata::Other`]).
    pub fn from_body_part(part: &Part) -> Self {
        let metadata = part.metadata.as_ref().map(|m| {
            let mut map: JsonMap = m.clone();
            let is_trajectory = map.get("kind").and_then(|k| k.as_str()) == Some("trajectory");
            if is_trajectory
                && map.get(TOOL_NAME).is_some()
                && map.get(TOOL_NAME) == map.get("tool_name")
            {
                map.shift_remove(TOOL_NAME);
            }
            PartMetadata::from_map(map)
        });
        MessagePart {
            name: part.name.clone(),
            content_type: (!part.content_type.is_empty()).then(|| part.content_type.clone()),
            content: part.content.clone(),
            content_encoding: Some(part.content_encoding.clone()),
            content_url: part.content_url.clone(),
            metadata: metadata.map(Box::new),
            extra: JsonMap::new(),
        }
    }
}

fn kind_of(content_type: &str) -> PartKind {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let (top, sub) = essence.split_once('/').unwrap_or((essence.as_str(), ""));
    match top {
        "text" => PartKind::Text,
        "image" => PartKind::Image,
        "audio" => PartKind::Audio,
        "application" if sub == "json" || sub.ends_with("+json") => PartKind::Data,
        _ => PartKind::File,
    }
}

impl Message {
    /// The message's parts as a [`Body`], one part for one part. Parts are `complete` once the
    /// message has a `completed_at`, else `streaming`.
    ///
    /// ```
    /// use agentwire::dialect::acp::{Message, MessagePart, Role};
    /// use agentwire::pattern::Pattern;
    /// let message = Message::new(Role::agent(Some("researcher")), vec![
    ///     MessagePart::text("Two sources agree."),
    ///     MessagePart::inline("text/x-uri", "https://example.org/a").named("/sources/1"),
    /// ]);
    /// let body = message.body();
    /// assert_eq!(body.list(&Pattern::new("/sources/*")?).len(), 1);
    /// assert_eq!(Message::from_body(message.role.clone(), &body).parts, message.parts);
    /// # Ok::<(), agentwire::pattern::PatternError>(())
    /// ```
    pub fn body(&self) -> Body {
        let status = if self.completed_at.is_some() {
            PartStatus::Complete
        } else {
            PartStatus::Streaming
        };
        self.body_with_status(status)
    }

    /// The message's parts as a [`Body`] whose parts all have `status`.
    pub fn body_with_status(&self, status: PartStatus) -> Body {
        Body::new(
            self.parts
                .iter()
                .map(|p| p.to_body_part(status.clone()))
                .collect(),
        )
    }

    /// A message of `role` whose parts are `body`'s (no timestamps).
    pub fn from_body(role: Role, body: &Body) -> Self {
        Message::new(role, parts_from_body(body))
    }
}

/// A body's parts as ACP message parts (see [`MessagePart::from_body_part`]).
pub fn parts_from_body(body: &Body) -> Vec<MessagePart> {
    body.parts.iter().map(MessagePart::from_body_part).collect()
}

impl Run {
    /// The body of every output message. A message without `completed_at` is `streaming` while the
    /// run goes on, and `incomplete` once the run is over (`completed`, `failed`, `cancelled`,
    /// `incomplete`).
    pub fn bodies(&self) -> Vec<Body> {
        let over = self.status.is_terminal();
        self.output
            .iter()
            .map(|m| {
                let status = match (&m.completed_at, over) {
                    (Some(_), _) => PartStatus::Complete,
                    (None, true) => PartStatus::Incomplete,
                    (None, false) => PartStatus::Streaming,
                };
                m.body_with_status(status)
            })
            .collect()
    }
}
