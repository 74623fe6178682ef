//! An AgentX message as a [`Body`] (the table is in the module docs of [`super`]).

use crate::set::Set;

use serde_json::Value;

use super::model::{Message, Part};
use crate::body::{Body, Part as BodyPart, PartKind, PartStatus};
use crate::wire::{json_map, JsonMap};

const JSON: &str = "application/json";
const TEXT: &str = "text/plain";

impl Message {
    /// The message as a [`Body`]: text parts are the unnamed `text/plain` main content, tool calls,
    /// results and errors are named parts (`/tool_calls/<id>`, `/tool_results/<id>`,
    /// `/tool_errors/<id>`), other parts are `/parts/<index>` with their JSON. Every part is
    /// `complete`. See the table in the [module docs](super#body-view).
    pub fn body(&self) -> Body {
        body_with_status(self, None)
    }
}

/// The body, with the last part's status set to `last` when given (a message still streaming, or
/// one a broken stream left unfinished).
pub(crate) fn body_with_status(message: &Message, last: Option<PartStatus>) -> Body {
    let mut names = Names::default();
    let mut parts: Vec<BodyPart> = message
        .parts
        .iter()
        .enumerate()
        .map(|(i, p)| body_part(p, i, &mut names))
        .collect();
    if let (Some(status), Some(part)) = (last, parts.last_mut()) {
        part.status = status;
    }
    Body::new(parts)
}

fn meta(entries: &[(&str, &str)]) -> Option<JsonMap> {
    Some(json_map(entries.iter().map(|(k, v)| {
        ((*k).to_owned(), Value::String((*v).to_owned()))
    })))
}

fn json_text<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".to_owned())
}

fn body_part(part: &Part, index: usize, names: &mut Names) -> BodyPart {
    match part {
        Part::Text(t) => BodyPart::inline(PartKind::Text, TEXT, t.text.clone()),
        Part::ToolCall(c) => BodyPart {
            metadata: meta(&[("toolCallId", &c.tool_call_id), ("toolName", &c.tool_name)]),
            ..BodyPart::inline(PartKind::ToolCall, JSON, json_text(&c.args))
                .named(names.unique("tool_calls", &c.tool_call_id))
        },
        Part::ToolResult(r) => BodyPart {
            metadata: meta(&[("toolCallId", &r.tool_call_id)]),
            ..BodyPart::inline(PartKind::ToolResult, JSON, json_text(&r.result))
                .named(names.unique("tool_results", &r.tool_call_id))
        },
        Part::ToolError(e) => BodyPart {
            metadata: meta(&[
                ("toolCallId", &e.tool_call_id),
                ("errorType", e.error_type.as_str()),
            ]),
            ..BodyPart::inline(PartKind::ToolError, TEXT, e.message.clone())
                .named(names.unique("tool_errors", &e.tool_call_id))
        },
        Part::Other(map) => {
            let kind = part.type_name();
            let part_kind = if kind.is_empty() {
                PartKind::Data
            } else {
                PartKind::from(kind)
            };
            BodyPart {
                metadata: meta(&[("type", kind)]),
                ..BodyPart::inline(part_kind, JSON, json_text(map))
                    .named(names.unique("parts", &index.to_string()))
            }
        }
    }
}

/// The names given so far in one message.
#[derive(Default)]
struct Names {
    used: Set<String>,
}

impl Names {
    /// `/<folder>/<segment>`, made unique with `~2`, `~3`… if needed.
    fn unique(&mut self, folder: &str, id: &str) -> String {
        let mut name = String::with_capacity(folder.len() + id.len() + 2);
        name.push('/');
        name.push_str(folder);
        name.push('/');
        if id.is_empty() {
            name.push('_');
        }
        for c in id.chars() {
            match c {
                '%' => name.push_str("%25"),
                '/' => name.push_str("%2F"),
                c => name.push(c),
            }
        }
        if self.used.contains(&name) {
            let base = name;
            let mut n: u64 = 2;
            name = loop {
                let candidate = format!("{base}~{n}");
                if !self.used.contains(&candidate) {
                    break candidate;
                }
                n = n.saturating_add(1);
            };
        }
        self.used.insert(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_escape_slashes_and_stay_unique() {
        let mut n = Names::default();
        assert_eq!(n.unique("tool_calls", "tc_1"), "/tool_calls/tc_1");
        assert_eq!(n.unique("tool_calls", "tc_1"), "/tool_calls/tc_1~2");
        assert_eq!(n.unique("tool_calls", "tc_1"), "/tool_calls/tc_1~3");
        assert_eq!(n.unique("tool_calls", "a/b%c"), "/tool_calls/a%2Fb%25c");
        assert_eq!(n.unique("tool_calls", ""), "/tool_calls/_");
        assert_eq!(n.unique("tool_results", "tc_1"), "/tool_results/tc_1");
    }
}
