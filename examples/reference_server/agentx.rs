//! The scripted AgentX agent (`POST /chat`): the self-correction flow of the format's
//! documentation ("Tool Call with Self-Correction"), with `write_file` run by the *client*.
//!
//! The request is agentwire's `ChatRequest` (`{"messages": [...]}`, the conversation so far); the
//! answer is a `text/event-stream` of message packets, one packet's JSON per SSE event, the packets
//! of one logical message sharing its `id` (built with agentwire's `MessageBuilder`). Stateless:
//! the script reads the last message.
//!
//! 1. A user's text: "Sure, I can write that file for you. I will now call the tool." (streamed as
//!    several text packets), then a `tool_call` of `write_file` **without `path`**
//!    (`{"content": "Hello, world!"}`). The answer ends with the call unanswered.
//! 2. A user message with a `tool_error` of type `VALIDATION` for it (what agentwire's client sends
//!    back): "My apologies, I missed a required parameter. I will correct it now." and a corrected
//!    call `{"path": "/hello.txt", "content": "Hello, world!"}`.
//! 3. A `tool_result`: "I have successfully written the file to `/hello.txt`." An `EXECUTION`
//!    error: "The tool failed: <message>".

use agentwire::dialect::agentx::{
    ChatRequest, Message, MessageBuilder, Part, Role, ToolCallPart, ToolErrorType,
};
use serde_json::json;

use super::agent::{tokens, Pace, Sink};

/// What the agent does this round.
enum Step {
    /// Text, then a `write_file` call with or without `path`.
    Call { text: &'static str, with_path: bool },
    /// Text, and the answer ends.
    Say(String),
}

fn step(request: &ChatRequest) -> Step {
    let last = request.messages.last();
    let answer = last.filter(|m| m.role == Role::User).and_then(|m| {
        m.parts.iter().find_map(|p| match p {
            Part::ToolResult(_) => Some(Ok(())),
            Part::ToolError(e) => Some(Err(e)),
            _ => None,
        })
    });
    match answer {
        None => Step::Call {
            text: "Sure, I can write that file for you. I will now call the tool.",
            with_path: false,
        },
        Some(Err(e)) if e.error_type == ToolErrorType::Validation => Step::Call {
            text: "My apologies, I missed a required parameter. I will correct it now.",
            with_path: true,
        },
        Some(Err(e)) => Step::Say(format!("The tool failed: {}", e.message)),
        Some(Ok(())) => {
            Step::Say("I have successfully written the file to `/hello.txt`.".to_owned())
        }
    }
}

/// Parses the body of `POST /chat`.
pub fn parse(body: &[u8]) -> Result<ChatRequest, String> {
    let text = std::str::from_utf8(body).map_err(|e| format!("invalid ChatRequest: {e}"))?;
    serde_json::from_str::<ChatRequest>(text).map_err(|e| format!("invalid ChatRequest: {e}"))
}

/// Streams this round's answer to `request` into `sink`. Returns `false` if the client left early.
pub async fn run(request: &ChatRequest, sink: &mut impl Sink, pace: Pace) -> bool {
    let mut reply = MessageBuilder::new(Role::Assistant);
    macro_rules! emit {
        ($packet:expr) => {
            if !sink.send(0, Message::to_sse(&$packet)).await {
                return false;
            }
            if !pace.token.is_zero() {
                tokio::time::sleep(pace.token).await;
            }
        };
    }
    let (text, call) = match step(request) {
        Step::Say(text) => (text, None),
        Step::Call { text, with_path } => {
            let args = if with_path {
                json!({"path": "/hello.txt", "content": "Hello, world!"})
            } else {
                json!({"content": "Hello, world!"})
            };
            let call =
                ToolCallPart::new("write_file", args.as_object().cloned().unwrap_or_default());
            (text.to_owned(), Some(call))
        }
    };
    // Text packets of a few words each: consecutive text packets concatenate into one part.
    let words = tokens(&text);
    for chunk in words.chunks(3) {
        emit!(reply.text(&chunk.concat()));
    }
    if let Some(call) = call {
        emit!(reply.tool_call(call));
    }
    true
}
