//! The scripted Agent API agent (no LLM): it answers any prompt with reasoning, a streamed
//! function call and its output, streamed text, a data table, an image and cited sources, paced like
//! a model emitting tokens. Every event is built with agentwire's own response builders.

use std::time::Duration;

use agentwire::dialect::agent_api::{
    AgentEvent, AgentRequest, Content, ContentKind, MessageType, ResponseBuilder, Role,
};
use base64::Engine;
use serde_json::json;

/// Where the events go; `false` from `send` means nobody will read them.
pub trait Sink {
    /// Sends one event: its sequence number and its SSE encoding.
    fn send(&mut self, seq: u64, sse: String) -> impl std::future::Future<Output = bool> + Send;
}

/// How the agent paces its events, and what it says.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    /// Pause between tokens.
    pub token: Duration,
    /// Put hostile URLs where a UI might render them (`javascript:` image and source), to test
    /// that a UI renders only safe URLs.
    pub hostile: bool,
}

/// The last user text of a request.
pub fn prompt_of(request: &AgentRequest) -> String {
    request
        .input
        .iter()
        .rev()
        .find(|m| m.role == Some(Role::User))
        .map(|m| m.text())
        .unwrap_or_default()
}

/// How much of the prompt the answer quotes, in characters: each word becomes an event kept in
/// the response's log, so a 2 MB prompt of one-letter words would cost hundreds of megabytes.
pub const MAX_ECHO_CHARS: usize = 1_000;

/// `prompt` as the answer quotes it: its first [`MAX_ECHO_CHARS`] characters, then `…`.
fn echoed(prompt: &str) -> String {
    match prompt.char_indices().nth(MAX_ECHO_CHARS) {
        Some((cut, _)) => format!("{}…", &prompt[..cut]),
        None => prompt.to_owned(),
    }
}

/// Splits text into word-sized tokens (each with its leading space), as models stream them.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in text.chars() {
        if ch == ' ' && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(ch);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// SSE-encodes an event with its `sequence_number` as the SSE `id` (for resuming).
pub fn encode(event: &AgentEvent) -> (u64, String) {
    let seq = match event {
        AgentEvent::Response(r) => r.sequence_number,
        AgentEvent::Message(m) => m.sequence_number,
        AgentEvent::Content(c) => c.sequence_number,
        _ => None,
    };
    let json = serde_json::to_string(event).unwrap_or_else(|_| "null".into());
    let mut out = String::new();
    let id = seq.map(|s| s.to_string());
    // JSON has no raw line breaks and sequence numbers are digits: this cannot fail.
    let _ = agentwire::sse::encode_event(&mut out, None, &json, id.as_deref());
    (seq.unwrap_or(0), out)
}

const SUN_SVG: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96"><rect width="96" height="96" rx="12" fill="#e8f1ff"/><circle cx="48" cy="48" r="20" fill="#f5b301"/><g stroke="#f5b301" stroke-width="5" stroke-linecap="round"><path d="M48 12v10M48 74v10M12 48h10M74 48h10M22 22l7 7M67 67l7 7M22 74l7-7M67 29l7-7"/></g></svg>"##;

/// The demo image: an SVG sun as a `data:` URL (no network needed).
pub fn sun_data_url() -> String {
    format!(
        "data:image/svg+xml;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(SUN_SVG)
    )
}

/// Streams the scripted answer to `request` into `sink`, building the response with `rb`. Returns
/// `false` if the sink refused an event (the client left and nobody may resume).
pub async fn run(
    request: &AgentRequest,
    rb: &mut ResponseBuilder,
    sink: &mut impl Sink,
    pace: Pace,
) -> bool {
    let prompt = prompt_of(request);
    macro_rules! emit {
        ($e:expr) => {
            let (seq, sse) = encode(&$e);
            if !sink.send(seq, sse).await {
                return false;
            }
        };
    }
    macro_rules! pause {
        () => {
            if !pace.token.is_zero() {
                tokio::time::sleep(pace.token).await;
            }
        };
    }
    emit!(rb.created());
    emit!(rb.in_progress());

    // 1. Reasoning.
    let mut mb = rb.create_message_builder(Role::Assistant, MessageType::Reasoning);
    emit!(mb.message());
    let mut cb = mb.create_content_builder(ContentKind::Text);
    for t in tokens("The user wants an answer; I will check the weather tool and cite my sources.")
    {
        emit!(cb.add_text_delta(&t).expect("text builder"));
        pause!();
    }
    emit!(cb.complete());
    emit!(mb.complete());

    // 2. A function call whose arguments stream as data deltas.
    let mut mb = rb.create_message_builder(Role::Assistant, MessageType::FunctionCall);
    emit!(mb.message());
    let mut cb = mb.create_content_builder(ContentKind::Data);
    emit!(cb
        .add_data_delta(
            json!({"call_id": "call_1", "name": "get_weather", "arguments": "{\"city\": "})
        )
        .expect("data builder"));
    pause!();
    emit!(cb
        .add_data_delta(json!({"arguments": "\"Paris\", \"unit\": \"celsius\"}"}))
        .expect("data builder"));
    pause!();
    emit!(cb.complete());
    emit!(mb.complete());

    // 3. Its output.
    let mut mb = rb.create_message_builder(Role::Tool, MessageType::FunctionCallOutput);
    emit!(mb.message());
    let mut cb = mb.create_content_builder(ContentKind::Data);
    emit!(cb
        .set_data(json!({"call_id": "call_1", "name": "get_weather", "output": "{\"temp_c\": 21, \"sky\": \"sunny\"}"}))
        .expect("data builder"));
    emit!(cb.complete());
    emit!(mb.complete());
    pause!();

    // 4. The answer: streamed text, a data table, an image, and named sources.
    let mut mb = rb.create_message_builder(Role::Assistant, MessageType::Message);
    emit!(mb.message());
    let mut cb = mb.create_content_builder(ContentKind::Text);
    let answer = if prompt.trim().is_empty() {
        "Hello! In Paris it is 21 °C and sunny today.".to_owned()
    } else {
        format!(
            "You asked: “{}”. In Paris it is 21 °C and sunny today.",
            echoed(prompt.trim())
        )
    };
    for t in tokens(&answer) {
        emit!(cb.add_text_delta(&t).expect("text builder"));
        pause!();
    }
    emit!(cb.complete());
    let mut cb = mb.create_content_builder(ContentKind::Data);
    emit!(cb
        .set_data(json!({
            "columns": ["day", "high °C", "low °C", "sky"],
            "rows": [["Mon", 21, 12, "sunny"], ["Tue", 23, 13, "cloudy"], ["Wed", 19, 11, "rain"]]
        }))
        .expect("data builder"));
    emit!(cb.complete());
    let mut cb = mb.create_content_builder(ContentKind::Image);
    let image = if pace.hostile {
        "javascript:alert('image')".to_owned()
    } else {
        sun_data_url()
    };
    emit!(cb.set_image_url(&image).expect("image builder"));
    emit!(cb.complete());
    let sources = if pace.hostile {
        [
            "javascript:alert(document.cookie)",
            "https://example.org/climate/europe",
        ]
    } else {
        [
            "https://example.com/weather/paris",
            "https://example.org/climate/europe",
        ]
    };
    for (i, url) in sources.iter().enumerate() {
        let mut cb = mb.create_content_builder(ContentKind::Text);
        let mut source = Content::text(*url);
        // agentwire's body extension: a named part with its MIME type.
        source
            .extra
            .insert("name".into(), json!(format!("/sources/{}", i + 1)));
        source
            .extra
            .insert("content_type".into(), json!("text/x-uri"));
        emit!(cb.set_content(source));
        emit!(cb.complete());
        pause!();
    }
    emit!(mb.complete());
    emit!(rb.completed());
    true
}
