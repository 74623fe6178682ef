//! Built-in communication schemas: the proposal's five example agents, and the run lifecycles of
//! the ACP and Agent API protocols expressed as communication schemas.
//!
//! Each function returns a fresh, checked schema (they are written as the JSON a server would
//! publish; `CommunicationSchema::to_json` gives it back).
//!
//! | schema | states | terminal |
//! |---|---|---|
//! | [`chat`] | `idle` ⇄ `running` | — |
//! | [`researcher`] | `idle` → `running` → `done` | `done` |
//! | [`function_calling`] | `idle` → `running` ⇄ `calling`, `running` → `idle` | — |
//! | [`interruptible_chat`] | as [`chat`], plus a client `cancel` in `running` | — |
//! | [`long_running`] | `idle` → `running` (server messages loop) → `done` / `cancelled` | `done`, `cancelled` |
//! | [`acp_run`] | ACP's run statuses | `completed`, `failed`, `cancelled` |
//! | [`agent_api_response`] | the Agent API response statuses | `completed`, `failed`, `canceled`, `rejected`, `incomplete` |
//!
//! ```
//! use agentwire::body::{Body, Part, PartKind};
//! use agentwire::run::{builtin, Party, Run};
//!
//! let mut run = Run::new("run-42", builtin::function_calling());
//! let text = |t: &str| Body::new(vec![Part::inline(PartKind::Text, "text/plain", t)]);
//! run.apply(Party::Client, "message", &text("Weather in Paris?"))?;
//! let call = Body::new(vec![Part::inline(
//!     PartKind::Data,
//!     "application/json",
//!     r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#,
//! )
//! .named("/function")]);
//! run.apply(Party::Server, "function_call", &call)?;
//! // Only the client may move now, and only with the function's result.
//! let moves: Vec<String> = run.allowed_moves().iter().map(|t| t.as_move().to_string()).collect();
//! assert_eq!(moves, ["client function_result → running"]);
//!
//! // The same schema, for a diagram in the docs of an agent.
//! assert!(run.schema().to_mermaid().contains("running --> calling: server function_call"));
//! # Ok::<(), agentwire::run::RunError>(())
//! ```

use super::schema::CommunicationSchema;

// Each schema is built as its JSON text and read like a server's (`json!` literals compiled to
// about 13 KB of the wasm module; the text, to a few hundred bytes of code).

fn build(json: &str) -> CommunicationSchema {
    // The built-in schemas are constants checked by the tests; a failure would leave a run that
    // cannot move rather than a panic.
    agentwire_core::json::parse_value(json)
        .ok()
        .and_then(|value| CommunicationSchema::from_json(&value).ok())
        .unwrap_or_else(CommunicationSchema::idle_only)
}

/// A body with at least one unnamed text part (`text/*`), and nothing else.
const TEXT: &str = r#"[{"contentType": "text/*", "required": true}]"#;

/// Any body: unnamed and named parts of any content type (names are not checked, so a server's
/// `hello.bin` passes).
const ANY: &str = r#"[{"contentType": "*/*"}, {"name": "**", "contentType": "*/*"}]"#;

/// No parts at all.
const NONE: &str = "[]";

/// A transition's JSON (the names and types here need no escaping).
fn t(party: &str, message_type: &str, schema: &str, next: &str) -> String {
    format!(
        r#"{{"party": "{party}", "type": "{message_type}", "schema": {schema}, "nextState": "{next}"}}"#
    )
}

/// A schema's JSON: each state with its transitions.
fn states(states: &[(&str, &[String])]) -> String {
    let states: Vec<String> = states
        .iter()
        .map(|(state, list)| format!(r#""{state}": [{}]"#, list.join(", ")))
        .collect();
    format!("{{{}}}", states.join(", "))
}

/// A chat agent: the client sends a text `message` in `idle` (→ `running`), the agent answers with
/// a text `message` (→ `idle`). No terminal state.
///
/// ```json
/// {"idle":    [{"party": "client", "type": "message", "schema": [{"contentType": "text/*", "required": true}], "nextState": "running"}],
///  "running": [{"party": "server", "type": "message", "schema": [{"contentType": "text/*", "required": true}], "nextState": "idle"}]}
/// ```
pub fn chat() -> CommunicationSchema {
    build(&states(&[
        ("idle", &[t("client", "message", TEXT, "running")]),
        ("running", &[t("server", "message", TEXT, "idle")]),
    ]))
}

/// A researcher agent: one question, one answer, then `done` (terminal). The answer has a required
/// unnamed `text/plain` or `text/markdown` part and may carry its sources as `/sources/*` parts of
/// type `text/x-uri`.
pub fn researcher() -> CommunicationSchema {
    let answer = r#"[
        {"contentType": "text/{plain,markdown}", "required": true},
        {"name": "/sources/*", "contentType": "text/x-uri", "required": false}
    ]"#;
    build(&states(&[
        ("idle", &[t("client", "message", TEXT, "running")]),
        ("running", &[t("server", "message", answer, "done")]),
        ("done", &[]),
    ]))
}

/// A function-calling agent. In `running` the agent either answers (a text `message`, → `idle`) or
/// calls a function: a `function_call` with a required `/function` part of type
/// `application/json` (`{"name", "arguments"}`), after which the run waits in `calling` until the
/// client answers with a `function_result` (a required `/result` part, `application/json`), and
/// goes on `running`. The agent cannot speak while a call is unanswered.
pub fn function_calling() -> CommunicationSchema {
    let call = r#"[{"name": "/function", "contentType": "application/json", "required": true}]"#;
    let result = r#"[{"name": "/result", "contentType": "application/json", "required": true}]"#;
    build(&states(&[
        ("idle", &[t("client", "message", TEXT, "running")]),
        (
            "running",
            &[
                t("server", "message", TEXT, "idle"),
                t("server", "function_call", call, "calling"),
            ],
        ),
        (
            "calling",
            &[t("client", "function_result", result, "running")],
        ),
    ]))
}

/// A chat agent the client may interrupt: as [`chat`], plus a client `cancel` (no parts) in
/// `running`, back to `idle`.
pub fn interruptible_chat() -> CommunicationSchema {
    build(&states(&[
        ("idle", &[t("client", "message", TEXT, "running")]),
        (
            "running",
            &[
                t("server", "message", TEXT, "idle"),
                t("client", "cancel", NONE, "idle"),
            ],
        ),
    ]))
}

/// A long-running agent: after the client's task (a text `message`, → `running`), the agent sends
/// any number of progress `message`s (any parts; the run stays `running`) and finally a `result`
/// (a required text part, any named parts; → `done`). The client may `cancel` (no parts; →
/// `cancelled`). `done` and `cancelled` are terminal.
pub fn long_running() -> CommunicationSchema {
    let result =
        r#"[{"contentType": "text/*", "required": true}, {"name": "**", "contentType": "*/*"}]"#;
    build(&states(&[
        ("idle", &[t("client", "message", TEXT, "running")]),
        (
            "running",
            &[
                t("server", "message", ANY, "running"),
                t("server", "result", result, "done"),
                t("client", "cancel", NONE, "cancelled"),
            ],
        ),
        ("done", &[]),
        ("cancelled", &[]),
    ]))
}

/// The ACP run lifecycle (acp-sdk 1.0.3: `RunStatus`, the events of `acp_sdk/server/executor.py`
/// and the routes of `acp_sdk/server/app.py`) as a communication schema. States are the run
/// statuses (`created`, `in-progress`, `awaiting`, `cancelling`, `cancelled`, `completed`,
/// `failed`) plus `idle` before the run exists. Server message types are the event types
/// (`run.created`, `message.part`…; message events carry the message's or part's body, the others
/// no parts); client message types are the requests:
///
/// - `create` (`POST /runs`, the input's parts) in `idle` → `created`;
/// - `resume` (`POST /runs/{run_id}`, the answer's parts) in `awaiting` → `in-progress`;
/// - `cancel` (`POST /runs/{run_id}/cancel`, no parts) in `created`, `in-progress` and `awaiting`
///   → `cancelling`.
///
/// Use [`acp_event_move`] to turn each [`AcpEvent`](crate::dialect::acp::AcpEvent) into the
/// message to apply.
pub fn acp_run() -> CommunicationSchema {
    let server = |ty: &str, next: &str| {
        let schema = if ty.starts_with("message.") {
            ANY
        } else {
            NONE
        };
        t("server", ty, schema, next)
    };
    let streaming = |here: &str| {
        vec![
            server("message.created", here),
            server("message.part", here),
            server("message.completed", here),
            server("generic", here),
        ]
    };
    let endings = || {
        vec![
            server("run.completed", "completed"),
            server("run.failed", "failed"),
            server("run.cancelled", "cancelled"),
            server("error", "failed"),
        ]
    };
    let created = vec![
        server("run.created", "created"),
        server("run.in-progress", "in-progress"),
        server("run.failed", "failed"),
        server("run.cancelled", "cancelled"),
        server("error", "failed"),
        t("client", "cancel", NONE, "cancelling"),
    ];
    let mut in_progress = streaming("in-progress");
    in_progress.extend([
        server("run.in-progress", "in-progress"),
        server("run.awaiting", "awaiting"),
        t("client", "cancel", NONE, "cancelling"),
    ]);
    in_progress.extend(endings());
    let awaiting = vec![
        t("client", "resume", ANY, "in-progress"),
        t("client", "cancel", NONE, "cancelling"),
        server("run.cancelled", "cancelled"),
        server("run.failed", "failed"),
        server("error", "failed"),
    ];
    let mut cancelling = streaming("cancelling");
    cancelling.extend(endings());
    build(&states(&[
        ("idle", &[t("client", "create", ANY, "created")]),
        ("created", &created),
        ("in-progress", &in_progress),
        ("awaiting", &awaiting),
        ("cancelling", &cancelling),
        ("cancelled", &[]),
        ("completed", &[]),
        ("failed", &[]),
    ]))
}

/// The message an ACP event is in [`acp_run`]: `(Party::Server, <event type>, <body>)`. The body
/// of `message.created` and `message.completed` is the message's
/// ([`Message::body`](crate::dialect::acp::Message::body)), of `message.part` the one part
/// (`streaming`); other events have no parts.
#[cfg(feature = "acp")]
pub fn acp_event_move(
    event: &crate::dialect::acp::AcpEvent,
) -> (super::Party, String, crate::body::Body) {
    use super::Party;
    use crate::body::{Body, PartStatus};
    use crate::dialect::acp::AcpEvent;
    let body = match event {
        AcpEvent::MessageCreated { message, .. } | AcpEvent::MessageCompleted { message, .. } => {
            message.body()
        }
        AcpEvent::MessagePart { part, .. } => {
            Body::new(vec![part.to_body_part(PartStatus::Streaming)])
        }
        _ => Body::default(),
    };
    (Party::Server, event.event_type().to_owned(), body)
}

/// The Agent API response lifecycle (agentscope-runtime 1.1.6, `RunStatus` and the stream of
/// `/process`) as a communication schema. States are the response statuses (`created`, `queued`,
/// `in_progress`, `completed`, `failed`, `canceled`, `rejected`, `incomplete`) plus `idle` before
/// the request. The client sends a `request` (any parts) in `idle` (→ `created`); server message
/// types are `response.<status>` for a response event, `message` and `content` for the others
/// (any parts), and `error` for an `{"error": …}` event.
///
/// Use [`agent_api_event_move`] to turn each
/// [`AgentEvent`](crate::dialect::agent_api::AgentEvent) into the message to apply.
pub fn agent_api_response() -> CommunicationSchema {
    let server = |ty: &str, next: &str| {
        let schema = if ty == "message" || ty == "content" {
            ANY
        } else {
            NONE
        };
        t("server", ty, schema, next)
    };
    let failures = || {
        vec![
            server("response.failed", "failed"),
            server("response.canceled", "canceled"),
            server("response.rejected", "rejected"),
            server("error", "failed"),
        ]
    };
    let mut created = vec![
        server("response.created", "created"),
        server("response.queued", "queued"),
        server("response.in_progress", "in_progress"),
    ];
    created.extend(failures());
    let mut queued = vec![
        server("response.queued", "queued"),
        server("response.in_progress", "in_progress"),
    ];
    queued.extend(failures());
    let mut in_progress = vec![
        server("message", "in_progress"),
        server("content", "in_progress"),
        server("response.in_progress", "in_progress"),
        server("response.completed", "completed"),
        server("response.incomplete", "incomplete"),
    ];
    in_progress.extend(failures());
    build(&states(&[
        ("idle", &[t("client", "request", ANY, "created")]),
        ("created", &created),
        ("queued", &queued),
        ("in_progress", &in_progress),
        ("completed", &[]),
        ("failed", &[]),
        ("canceled", &[]),
        ("rejected", &[]),
        ("incomplete", &[]),
    ]))
}

/// The message an Agent API event is in [`agent_api_response`]: `(Party::Server, <type>, <body>)`
/// with type `response.<status>`, `message`, `content`, `error` (or the unknown event's `object`).
/// Bodies are empty: the Agent API body view is not part of this module.
#[cfg(feature = "agent-api")]
pub fn agent_api_event_move(
    event: &crate::dialect::agent_api::AgentEvent,
) -> (super::Party, String, crate::body::Body) {
    use super::Party;
    use crate::body::Body;
    use crate::dialect::agent_api::AgentEvent;
    let message_type = match event {
        AgentEvent::Response(r) => format!("response.{}", r.status),
        AgentEvent::Message(_) => "message".to_owned(),
        AgentEvent::Content(_) => "content".to_owned(),
        AgentEvent::Error(_) => "error".to_owned(),
        AgentEvent::Unknown(v) => v
            .get("object")
            .and_then(|o| o.as_str())
            .unwrap_or("")
            .to_owned(),
    };
    (Party::Server, message_type, Body::default())
}
