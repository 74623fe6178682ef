//! The scripted Agent API agent with a client-side tool (`POST /process?agent=tools`): it calls
//! `get_time`, a tool the *client* implements (the demo page's JavaScript), and answers with its
//! output. Stateless: each request carries the conversation so far, and the script reads what the
//! client sent back.
//!
//! 1. A user message, and the request offers `get_time` in `tools`: a `function_call` message whose
//!    arguments (`{"timezone": "Europe/Paris", "format": "HH:mm", "reason": "…"}`) stream as
//!    several data deltas of a few characters; the response completes with the call unanswered.
//!    Without `get_time` in `tools`, the agent says it has no clock and ends.
//! 2. A `function_call_output` whose output is a tool error (`{"error_type": "VALIDATION",
//!    "message": …}`, the form agentwire's client sends): the agent repeats the error in its text
//!    and calls again with the same arguments, up to three times in a row; then it gives up.
//!    An `EXECUTION` error: it reports the failure and ends.
//! 3. A result: `It is <time> in <timezone>.` when the output is a JSON object with `time` (and
//!    `timezone`), else `get_time says: <output>`.

use agentwire::dialect::agent_api::{
    AgentRequest, ContentKind, MessageType, ResponseBuilder, Role,
};
use serde_json::{json, Value};

use super::agent::{encode, tokens, Pace, Sink};

/// The arguments the agent gives `get_time`.
pub const GET_TIME_ARGUMENTS: &str = r#"{"timezone": "Europe/Paris", "format": "HH:mm", "reason": "The user asked for the time in Paris."}"#;

/// How many validation errors in a row the agent takes before giving up.
const MAX_RETRIES: usize = 3;

/// The outputs of `get_time` calls after the last user message, oldest first.
fn outputs_since_user(request: &AgentRequest) -> Vec<String> {
    let start = request
        .input
        .iter()
        .rposition(|m| m.role == Some(Role::User) && m.kind == MessageType::Message)
        .map_or(0, |i| i + 1);
    request.input[start..]
        .iter()
        .filter(|m| m.kind == MessageType::FunctionCallOutput)
        .flat_map(|m| &m.content)
        .filter_map(|c| c.function_call_output())
        .map(|o| o.output)
        .collect()
}

/// A tool error as agentwire's client sends it: `(error_type, message)`.
fn tool_error(output: &str) -> Option<(String, String)> {
    let v: Value = serde_json::from_str(output).ok()?;
    let kind = v.get("error_type")?.as_str()?.to_owned();
    let message = v.get("message")?.as_str()?.to_owned();
    Some((kind, message))
}

fn offers_get_time(request: &AgentRequest) -> bool {
    request
        .tools
        .iter()
        .flatten()
        .any(|t| t.function.name == "get_time")
}

/// What the agent does this round.
enum Step {
    Call { n: usize, preface: Option<String> },
    Say(String),
}

fn step(request: &AgentRequest) -> Step {
    if !offers_get_time(request) {
        return Step::Say(
            "I have no clock: the request offers no get_time tool to call.".to_owned(),
        );
    }
    let outputs = outputs_since_user(request);
    let Some(last) = outputs.last() else {
        return Step::Call {
            n: 1,
            preface: None,
        };
    };
    match tool_error(last) {
        Some((kind, message)) if kind == "VALIDATION" => {
            let in_a_row = outputs
                .iter()
                .rev()
                .take_while(|o| tool_error(o).is_some_and(|(k, _)| k == "VALIDATION"))
                .count();
            if in_a_row >= MAX_RETRIES {
                Step::Say(format!("I could not call get_time: {message}"))
            } else {
                Step::Call {
                    n: outputs.len() + 1,
                    preface: Some(format!("The call was refused: {message} I will try again.")),
                }
            }
        }
        Some((_, message)) => Step::Say(format!("get_time failed: {message}")),
        None => {
            let answer = match serde_json::from_str::<Value>(last) {
                Ok(v) if v.get("time").and_then(Value::as_str).is_some() => {
                    let time = v.get("time").and_then(Value::as_str).unwrap_or_default();
                    match v.get("timezone").and_then(Value::as_str) {
                        Some(tz) => format!("It is {time} in {tz}."),
                        None => format!("It is {time}."),
                    }
                }
                _ => format!("get_time says: {last}"),
            };
            Step::Say(answer)
        }
    }
}

/// Streams this round's answer to `request` into `sink`. Returns `false` if the client left early.
pub async fn run(
    request: &AgentRequest,
    rb: &mut ResponseBuilder,
    sink: &mut impl Sink,
    pace: Pace,
) -> bool {
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
    macro_rules! say {
        ($text:expr) => {{
            let mut mb = rb.create_message_builder(Role::Assistant, MessageType::Message);
            emit!(mb.message());
            let mut cb = mb.create_content_builder(ContentKind::Text);
            for t in tokens(&$text) {
                emit!(cb.add_text_delta(&t).expect("text builder"));
                pause!();
            }
            emit!(cb.complete());
            emit!(mb.complete());
        }};
    }
    emit!(rb.created());
    emit!(rb.in_progress());
    match step(request) {
        Step::Say(text) => say!(text),
        Step::Call { n, preface } => {
            if let Some(text) = preface {
                say!(text);
            }
            let mut mb = rb.create_message_builder(Role::Assistant, MessageType::FunctionCall);
            emit!(mb.message());
            let mut cb = mb.create_content_builder(ContentKind::Data);
            emit!(cb
                .add_data_delta(
                    json!({"call_id": format!("call_get_time_{n}"), "name": "get_time", "arguments": ""})
                )
                .expect("data builder"));
            // The arguments stream as a model writes them: a few characters per delta.
            let chars: Vec<char> = GET_TIME_ARGUMENTS.chars().collect();
            for piece in chars.chunks(7) {
                let piece: String = piece.iter().collect();
                emit!(cb
                    .add_data_delta(json!({ "arguments": piece }))
                    .expect("data builder"));
                pause!();
            }
            emit!(cb.complete());
            emit!(mb.complete());
        }
    }
    emit!(rb.completed());
    true
}
