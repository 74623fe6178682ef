//! A catalogue of bad inputs, each with its documented outcome: the issue code and severity it
//! gives (or none), and what is kept. The README's "Reliability" table is generated from this list
//! and checked against it (`AGENTWIRE_UPDATE_README=1 cargo test --test catalogue` rewrites it).
#![cfg(not(target_arch = "wasm32"))]

use agentwire::body::{validate_payload, PayloadLimits};
use agentwire::dialect::acp::{AcpOptions, AcpStream};
use agentwire::dialect::agent_api::{AgentStream, AssemblerOptions};
use agentwire::dialect::agentx::{self, AgentxStream};
use agentwire::dialect::atlas::StructuredMessage;
use agentwire::limits::Limits;
use agentwire::sse::SseOptions;
use agentwire::ErrorCode;
use serde_json::{json, Value};

/// Where the input goes.
#[derive(Clone, Copy, PartialEq)]
enum Via {
    AgentApi,
    Acp,
    Agentx,
    /// `validate_payload` (the body validator of uploaded messages).
    Payload,
    /// `StructuredMessage::from_json`.
    Atlas,
}

impl Via {
    fn name(self) -> &'static str {
        match self {
            Via::AgentApi => "Agent API stream",
            Via::Acp => "ACP stream",
            Via::Agentx => "AgentX stream",
            Via::Payload => "payload validator",
            Via::Atlas => "Atlas `from_json`",
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Lenient,
    Strict,
    /// Lenient, with small limits: `max_part_size` 8, `max_message_size` 12, `max_parts` 2,
    /// `max_depth` 8, `max_stream_bytes` 600, `max_event_size` 200.
    Limited,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Lenient => "lenient",
            Mode::Strict => "strict",
            Mode::Limited => "small limits",
        }
    }
}

struct Case {
    /// What the input is (README).
    input: &'static str,
    via: Via,
    mode: Mode,
    /// The bytes.
    bytes: Vec<u8>,
    /// The issue code expected (`None`: no issue at all).
    code: Option<&'static str>,
    /// Its severity (`error` for the validators' findings).
    severity: &'static str,
    /// What is kept (README).
    kept: &'static str,
    /// Checks what is kept, on the result as JSON.
    check: fn(&Value) -> bool,
}

fn sse(events: &[&str]) -> Vec<u8> {
    events
        .iter()
        .map(|e| format!("data: {e}\n\n"))
        .collect::<String>()
        .into_bytes()
}

const MSG: &str =
    r#"{"object":"message","id":"m1","type":"message","role":"assistant","status":"in_progress"}"#;
const TEXT0: &str =
    r#"{"object":"content","msg_id":"m1","index":0,"delta":true,"type":"text","text":"Hello"}"#;
const MSG_DONE: &str = r#"{"object":"message","id":"m1","status":"completed"}"#;
const RESP_DONE: &str = r#"{"object":"response","id":"r1","status":"completed"}"#;

const RUN: &str =
    r#"{"type":"run.created","run":{"run_id":"r1","agent_name":"echo","status":"created"}}"#;
const CREATED: &str = r#"{"type":"message.created","message":{"role":"agent/echo","parts":[]}}"#;
const PART: &str = r#"{"type":"message.part","part":{"content":"Hello"}}"#;
const COMPLETED: &str =
    r#"{"type":"message.completed","message":{"role":"agent/echo","parts":[{"content":"Hello"}]}}"#;
const RUN_DONE: &str =
    r#"{"type":"run.completed","run":{"run_id":"r1","agent_name":"echo","status":"completed"}}"#;

const X_ID: &str = "msg_0123456789abcdef0123456789abcdef";

fn nested(depth: usize) -> String {
    format!(
        r#"{{"object":"content","msg_id":"m1","type":"data","data":{}1{}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    )
}

fn text(r: &Value, m: usize, c: usize) -> String {
    r["output"][m]["content"][c]["text"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

#[allow(clippy::too_many_arguments)]
fn c(
    input: &'static str,
    via: Via,
    mode: Mode,
    bytes: Vec<u8>,
    code: Option<&'static str>,
    severity: &'static str,
    kept: &'static str,
    check: fn(&Value) -> bool,
) -> Case {
    Case {
        input,
        via,
        mode,
        bytes,
        code,
        severity,
        kept,
        check,
    }
}

fn cases() -> Vec<Case> {
    use Mode::*;
    use Via::*;
    vec![
        // The SSE layer, through the Agent API stream.
        c("invalid UTF-8 inside an event's data", AgentApi, Lenient,
          [b"data: {\"object\":\"content\",\"msg_id\":\"m1\",\"type\":\"text\",\"text\":\"a\xff\xfeb\"}\n\n".as_slice()].concat(),
          None, "", "the event, each invalid sequence as U+FFFD", |r| text(r, 0, 0) == "a\u{FFFD}\u{FFFD}b"),
        c("a byte order mark in the middle of the stream", AgentApi, Lenient,
          [sse(&[TEXT0]), b"\xEF\xBB\xBFdata: {\"object\":\"message\",\"id\":\"m2\"}\n\n".to_vec()].concat(),
          None, "", "the events before it; the line it starts is an unknown field (WHATWG: a BOM only at the start)",
          |r: &Value| r["output"].as_array().map_or(0, Vec::len) == 1),
        c("lone CR line endings", AgentApi, Lenient,
          format!("data: {TEXT0}\r\rdata: {MSG_DONE}\r\r").into_bytes(),
          None, "", "every event", |r| r["output"][0]["status"] == "completed" && text(r, 0, 0) == "Hello"),
        c("U+0000 NULL in an `id`", AgentApi, Lenient,
          format!("id: 7\ndata: {TEXT0}\n\nid: 8\0x\ndata: {MSG_DONE}\n\n").into_bytes(),
          None, "", "both events; the `id` field is ignored (the last event id stays `7`)",
          |r| r["output"][0]["status"] == "completed"),
        c("`retry` that is not only digits (`+42`)", AgentApi, Lenient,
          format!("retry: +42\ndata: {TEXT0}\n\n").into_bytes(),
          None, "", "the event; the field is ignored", |r| text(r, 0, 0) == "Hello"),
        c("an event larger than `max_event_size`", AgentApi, Limited,
          sse(&[&format!(r#"{{"object":"content","msg_id":"m1","type":"text","text":"{}"}}"#, "x".repeat(300)), TEXT0]),
          Some("event-too-large"), "warning", "the events after it", |r| text(r, 0, 0) == "Hello"),
        c("the stream ends inside an event", AgentApi, Lenient,
          [sse(&[TEXT0]), b"data: {\"object\":\"mess".to_vec()].concat(),
          Some("incomplete-event"), "warning", "everything before it; then `stream-incomplete` (error), response `incomplete`",
          |r| r["status"] == "incomplete" && text(r, 0, 0) == "Hello"),
        // Agent API events.
        c("data that is not JSON", AgentApi, Lenient, sse(&["{\"object\":", TEXT0]),
          Some("invalid-json"), "warning", "the other events; the data in `details`", |r| text(r, 0, 0) == "Hello"),
        c("data that is not JSON", AgentApi, Strict, sse(&["{\"object\":", TEXT0]),
          Some("invalid-json"), "error", "what came before; the stream ends, response `incomplete`",
          |r| r["status"] == "incomplete" && r["output"].as_array().is_some_and(Vec::is_empty)),
        c("a field of the wrong type (`\"index\": \"one\"`)", AgentApi, Lenient,
          sse(&[r#"{"object":"content","msg_id":"m1","index":"one","type":"text","text":"x"}"#, TEXT0]),
          Some("invalid-event"), "warning", "the other events", |r| text(r, 0, 0) == "Hello"),
        c("JSON that is not an object (`[1, 2]`)", AgentApi, Lenient, sse(&["[1, 2]"]),
          Some("invalid-event"), "warning", "nothing (nothing to keep)", |r| r["output"].as_array().is_some_and(Vec::is_empty)),
        c("an enormous number (`\"index\": 1e400`)", AgentApi, Lenient,
          sse(&[r#"{"object":"content","msg_id":"m1","index":1e400,"type":"text","text":"x"}"#]),
          Some("invalid-json"), "warning", "the other events (number out of range)", |r| r["output"].as_array().is_some_and(Vec::is_empty)),
        c("an index beyond 32 bits (`4294967296`)", AgentApi, Lenient,
          sse(&[r#"{"object":"content","msg_id":"m1","index":4294967296,"type":"text","text":"x"}"#]),
          Some("invalid-event"), "warning", "the other events", |r| r["output"].as_array().is_some_and(Vec::is_empty)),
        c("a 30-digit integer in `data`", AgentApi, Lenient,
          sse(&[r#"{"object":"content","msg_id":"m1","type":"data","data":{"n":123456789012345678901234567890}}"#]),
          None, "", "the content; the number as the nearest 64-bit float",
          |r| r["output"][0]["content"][0]["data"]["n"].as_f64() == Some(1.2345678901234568e29)),
        c("a surrogate pair cut between two text deltas (`\\ud83d`, then `\\ude00`)", AgentApi, Strict,
          sse(&[r#"{"object":"content","msg_id":"m1","index":0,"delta":true,"type":"text","text":"I \ud83d"}"#,
                r#"{"object":"content","msg_id":"m1","index":0,"delta":true,"type":"text","text":"\ude00 you"}"#]),
          None, "", "the text as sent, the halves joined (the high half waits for the next event; a half left alone is U+FFFD)",
          |r| text(r, 0, 0) == "I 😀 you"),
        c("an unknown `object`", AgentApi, Lenient, sse(&[r#"{"object":"hologram","beam":1}"#, TEXT0]),
          Some("unknown-event"), "warning", "the event in `details.event`; the other events", |r| text(r, 0, 0) == "Hello"),
        c("an unknown `object`", AgentApi, Strict, sse(&[TEXT0, r#"{"object":"hologram"}"#, MSG_DONE]),
          Some("unknown-event"), "error", "what came before; the stream ends, response `incomplete`",
          |r| r["status"] == "incomplete" && r["output"][0]["status"] == "incomplete"),
        c("content for a message never announced", AgentApi, Lenient, sse(&[TEXT0]),
          None, "", "the content; the message is created (`in_progress`)",
          |r| r["output"][0]["id"] == "m1" && text(r, 0, 0) == "Hello"),
        c("content without `msg_id`", AgentApi, Lenient,
          sse(&[r#"{"object":"content","type":"text","text":"stray"}"#, TEXT0]),
          Some("content-without-message"), "warning", "the content in `details.content`", |r| text(r, 0, 0) == "Hello"),
        c("content after its message completed", AgentApi, Lenient,
          sse(&[TEXT0, MSG_DONE, r#"{"object":"content","msg_id":"m1","index":0,"delta":true,"type":"text","text":"!"}"#]),
          Some("out-of-order"), "warning", "the content, applied", |r| text(r, 0, 0) == "Hello!"),
        c("content after its message completed", AgentApi, Strict,
          sse(&[TEXT0, MSG_DONE, r#"{"object":"content","msg_id":"m1","index":0,"delta":true,"type":"text","text":"!"}"#]),
          Some("out-of-order"), "error", "the message as completed; the event refused, the stream ends",
          |r| text(r, 0, 0) == "Hello" && r["status"] == "incomplete"),
        c("an event after the terminal response", AgentApi, Lenient, sse(&[TEXT0, RESP_DONE, MSG_DONE]),
          Some("out-of-order"), "warning", "the event, applied", |r| r["output"][0]["status"] == "completed"),
        c("a second terminal status", AgentApi, Strict,
          sse(&[RESP_DONE, r#"{"object":"response","id":"r1","status":"failed"}"#]),
          Some("out-of-order"), "error", "the first status (`completed`); the second refused", |r| r["status"] == "completed"),
        c("a content index gap (0, then 2)", AgentApi, Lenient,
          sse(&[TEXT0, r#"{"object":"content","msg_id":"m1","index":2,"type":"text","text":"two"}"#]),
          Some("index-gap"), "warning", "both contents", |r| text(r, 0, 1) == "two"),
        c("a content index gap (0, then 2)", AgentApi, Strict,
          sse(&[TEXT0, r#"{"object":"content","msg_id":"m1","index":2,"type":"text","text":"two"}"#]),
          Some("index-gap"), "error", "content 0; the gap refused, the stream ends",
          |r| r["output"][0]["content"].as_array().map_or(0, Vec::len) == 1),
        c("a `response` event of another response (its `id` changed)", AgentApi, Strict,
          sse(&[r#"{"object":"response","id":"r1","status":"in_progress"}"#, TEXT0,
                r#"{"object":"response","id":"r2","status":"completed"}"#]),
          Some("response-id-changed"), "error", "what came before (id `r1`); the event refused, the stream ends",
          |r| r["id"] == "r1" && r["status"] == "incomplete"),
        c("a delta of another kind than its content", AgentApi, Lenient,
          sse(&[TEXT0, r#"{"object":"content","msg_id":"m1","index":0,"delta":true,"type":"data","data":{"a":1}}"#]),
          Some("delta-kind-mismatch"), "warning", "the delta, as a replacement", |r| r["output"][0]["content"][0]["data"]["a"] == 1),
        c("JSON nested 9 levels (`max_depth` 8)", AgentApi, Limited, sse(&[&nested(8), TEXT0]),
          Some("too-deep"), "warning", "the other events; the data (first 1 KiB) in `details`", |r| text(r, 0, 0) == "Hello"),
        c("JSON nested 200 levels (default `max_depth` 64)", AgentApi, Strict, sse(&[&nested(200)]),
          Some("too-deep"), "error", "nothing; the stream ends before serde_json sees it", |r| r["status"] == "incomplete"),
        c("a part over `max_part_size`", AgentApi, Limited,
          sse(&[r#"{"object":"content","msg_id":"m1","index":0,"delta":true,"type":"text","text":"Hello, world"}"#]),
          Some("part-too-large"), "error", "the text up to the limit; the content `incomplete`",
          |r| text(r, 0, 0) == "Hello, w" && r["output"][0]["content"][0]["status"] == "incomplete"),
        c("a message over `max_message_size`", AgentApi, Limited,
          sse(&[TEXT0, r#"{"object":"content","msg_id":"m1","index":1,"delta":true,"type":"text","text":"world, hi"}"#]),
          Some("message-too-large"), "error", "the message up to the limit; the message `incomplete`",
          |r| text(r, 0, 1) == "world, " && r["output"][0]["status"] == "incomplete"),
        c("a message with more than `max_parts` contents", AgentApi, Limited,
          sse(&[r#"{"object":"content","msg_id":"m1","index":0,"type":"text","text":"a"}"#,
                r#"{"object":"content","msg_id":"m1","index":1,"type":"text","text":"b"}"#,
                r#"{"object":"content","msg_id":"m1","index":2,"type":"text","text":"c"}"#]),
          Some("too-many-parts"), "error", "the first `max_parts` contents; the message `incomplete`",
          |r| r["output"][0]["content"].as_array().map_or(0, Vec::len) == 2 && r["output"][0]["status"] == "incomplete"),
        c("a stream over `max_stream_bytes`", AgentApi, Limited,
          (1..=12).map(|i| format!("data: {{\"object\":\"message\",\"id\":\"m{i}\",\"status\":\"in_progress\"}}\n\n")).collect::<String>().into_bytes(),
          Some("stream-too-large"), "error", "the events within the limit; the stream ends, response `incomplete`",
          |r| r["output"].as_array().map_or(0, Vec::len) == 9 && r["status"] == "incomplete"),
        c("prototype-ish keys (`__proto__`, `constructor`, `prototype`)", AgentApi, Lenient,
          sse(&[r#"{"object":"content","msg_id":"m1","type":"data","data":{"__proto__":{"polluted":true},"constructor":{"prototype":1}},"__proto__":2}"#]),
          None, "", "all of them, as data (JSON.parse makes own properties)",
          |r| r["output"][0]["content"][0]["data"]["__proto__"]["polluted"] == true
              && r["output"][0]["content"][0]["__proto__"] == 2),
        c("`{\"error\": …}` without `object`", AgentApi, Lenient, sse(&[TEXT0, r#"{"error":"Invalid request"}"#]),
          Some("server-error"), "error", "what came before; response `failed` with the error", |r| r["status"] == "failed" && text(r, 0, 0) == "Hello"),
        // ACP events.
        c("an unknown event `type`", Acp, Lenient, sse(&[RUN, r#"{"type":"run.teleported"}"#, CREATED, PART]),
          Some("unknown-event"), "warning", "the event in `details.event`; the other events", |r| r["output"][0]["parts"][0]["content"] == "Hello"),
        c("an unknown event `type`", Acp, Strict, sse(&[RUN, r#"{"type":"run.teleported"}"#, CREATED, PART]),
          Some("unknown-event"), "error", "what came before; the stream ends, run `incomplete`",
          |r| r["status"] == "incomplete" && r["output"].as_array().is_some_and(Vec::is_empty)),
        c("a known `type` without its payload (`run.created` without `run`)", Acp, Lenient, sse(&[r#"{"type":"run.created"}"#]),
          Some("invalid-event"), "warning", "the other events", |r| r["output"].as_array().is_some_and(Vec::is_empty)),
        c("a `message.part` with no message open", Acp, Lenient, sse(&[RUN, PART]),
          Some("part-without-message"), "warning", "the part, in a message started for it", |r| r["output"][0]["parts"][0]["content"] == "Hello"),
        c("a `message.created` while a message is open", Acp, Lenient, sse(&[RUN, CREATED, PART, CREATED]),
          Some("out-of-order"), "warning", "both messages", |r| r["output"].as_array().map_or(0, Vec::len) == 2),
        c("a `message.completed` with no message open", Acp, Strict, sse(&[RUN, COMPLETED]),
          Some("out-of-order"), "error", "nothing of it; the stream ends, run `incomplete`", |r| r["status"] == "incomplete"),
        c("an event after `run.completed`", Acp, Lenient, sse(&[RUN, RUN_DONE, CREATED]),
          Some("out-of-order"), "warning", "the event, applied", |r: &Value| r["output"].as_array().map_or(0, Vec::len) == 1),
        c("a `run.*` event of another run (its `run_id` changed)", Acp, Lenient,
          sse(&[RUN, r#"{"type":"run.completed","run":{"run_id":"r2","agent_name":"echo","status":"completed"}}"#]),
          Some("run-id-changed"), "warning", "the event, applied (the run takes the new id)",
          |r| r["run_id"] == "r2" && r["status"] == "completed"),
        c("a part over `max_part_size`", Acp, Limited,
          sse(&[RUN, CREATED, r#"{"type":"message.part","part":{"content":"Hello, world"}}"#]),
          Some("part-too-large"), "error", "the content up to the limit (`isCut`, body part `incomplete`)",
          |r| r["output"][0]["parts"][0]["content"] == "Hello, w"),
        c("a surrogate pair cut between two `message.part` events (`\\ud83d`, then `\\ude00`)", Acp, Strict,
          sse(&[RUN, CREATED, r#"{"type":"message.part","part":{"content":"I \ud83d"}}"#,
                r#"{"type":"message.part","part":{"content":"\ude00 you"}}"#]),
          None, "", "the text as sent, the halves joined (as in the Agent API; with `joinText`)",
          |r| r["output"][0]["parts"][0]["content"] == "I 😀 you"),
        // AgentX packets.
        c("a message id that is not `msg_` + 32 hex", Agentx, Lenient,
          sse(&[r#"{"id":"msg_abc","role":"assistant","parts":[{"type":"text","text":"hi"}]}"#]),
          Some("invalid-id"), "warning", "the packet, the id as it is", |r| r[0]["id"] == "msg_abc"),
        c("a message id that is not `msg_` + 32 hex", Agentx, Strict,
          sse(&[r#"{"id":"msg_abc","role":"assistant","parts":[{"type":"text","text":"hi"}]}"#]),
          Some("invalid-id"), "error", "nothing of it; the stream ends `incomplete`", |r| r.as_array().is_some_and(Vec::is_empty)),
        c("a packet whose role differs from its message's", Agentx, Lenient,
          sse(&[&format!(r#"{{"id":"{X_ID}","role":"assistant","parts":[{{"type":"text","text":"a"}}]}}"#),
                &format!(r#"{{"id":"{X_ID}","role":"user","parts":[{{"type":"text","text":"b"}}]}}"#)]),
          Some("role-mismatch"), "warning", "the parts, appended; the first role", |r| r[0]["parts"][0]["text"] == "ab" && r[0]["role"] == "assistant"),
        c("a part of an unknown type", Agentx, Lenient,
          sse(&[&format!(r#"{{"id":"{X_ID}","role":"assistant","parts":[{{"type":"hologram","beam":1}}]}}"#)]),
          None, "", "the part, as sent", |r| r[0]["parts"][0]["beam"] == 1),
        c("a part of an unknown type", Agentx, Strict,
          sse(&[&format!(r#"{{"id":"{X_ID}","role":"assistant","parts":[{{"type":"hologram","beam":1}}]}}"#)]),
          Some("unknown-part-type"), "error", "the packet; the stream ends after it", |r| r[0]["parts"][0]["beam"] == 1),
        c("a `text` part without `text`", Agentx, Lenient,
          sse(&[&format!(r#"{{"id":"{X_ID}","role":"assistant","parts":[{{"type":"text","txt":"typo"}}]}}"#)]),
          Some("invalid-part"), "warning", "the part, whole, as an unknown part", |r| r[0]["parts"][0]["txt"] == "typo"),
        c("a packet without `parts`", Agentx, Lenient, sse(&[r#"{"role":"assistant"}"#]),
          Some("invalid-packet"), "warning", "the other packets", |r| r.as_array().is_some_and(Vec::is_empty)),
        c("a surrogate pair cut between two packets (`\\ud83d`, then `\\ude00`)", Agentx, Strict,
          sse(&[&format!(r#"{{"id":"{X_ID}","role":"assistant","parts":[{{"type":"text","text":"I \ud83d"}}]}}"#),
                &format!(r#"{{"id":"{X_ID}","role":"assistant","parts":[{{"type":"text","text":"\ude00 you"}}]}}"#)]),
          None, "", "the text as sent, the halves joined (as in the Agent API)", |r| r[0]["parts"][0]["text"] == "I 😀 you"),
        // Uploaded message bodies.
        c("a part name with a `..` segment (`/notes/../x`)", Payload, Lenient,
          br#"{"parts":[{"name":"/notes/../x","contentType":"text/plain","content":"hi"}]}"#.to_vec(),
          Some("invalid-part-name"), "error", "refused (the report names the part)", |r| r["ok"] == false),
        c("a part name with a `.` segment (`/./x`)", Payload, Lenient,
          br#"{"parts":[{"name":"/./x","contentType":"text/plain","content":"hi"}]}"#.to_vec(),
          Some("invalid-part-name"), "error", "refused", |r| r["ok"] == false),
        c("two parts with the same name", Payload, Lenient,
          br#"{"parts":[{"name":"/a","contentType":"text/plain","content":"1"},{"name":"/a","contentType":"text/plain","content":"2"}]}"#.to_vec(),
          Some("duplicate-part-name"), "error", "refused", |r| r["ok"] == false),
        c("a control character in a part name", Payload, Lenient,
          br#"{"parts":[{"name":"/a\u0007b","contentType":"text/plain","content":"1"}]}"#.to_vec(),
          Some("invalid-part-name"), "error", "refused", |r| r["ok"] == false),
        c("a body that is not UTF-8", Payload, Lenient, b"{\"parts\":[{\"content\":\"\xff\"}]}".to_vec(),
          Some("invalid-utf8"), "error", "refused, with the byte offset", |r| r["errors"][0]["offset"] == 22),
        c("a body nested deeper than 64 levels", Payload, Lenient,
          format!(r#"{{"parts":[{}]}}"#, "[".repeat(70) + &"]".repeat(70)).into_bytes(),
          Some("nesting-too-deep"), "error", "refused before parsing", |r| r["ok"] == false),
        c("`content` of the wrong type", Atlas, Lenient, br#"{"content": 42}"#.to_vec(),
          Some("wrong-type"), "error", "refused, with the field's path", |r| r["path"] == "content"),
    ]
}

fn limits(mode: Mode) -> (Limits, SseOptions) {
    if mode == Mode::Limited {
        (
            Limits {
                max_message_size: 12,
                max_parts: 2,
                max_part_size: 8,
                max_depth: 8,
                max_stream_bytes: Some(600),
            },
            SseOptions {
                max_event_size: 200,
            },
        )
    } else {
        (Limits::default(), SseOptions::default())
    }
}

/// Runs a case: its issues (code, severity) and what it kept, as JSON. A stream is fed the bytes
/// and finished; most catalogue streams have no terminal status, so the `stream-incomplete` error
/// that finishing them adds is left out.
fn run(case: &Case) -> (Vec<(String, String)>, Value) {
    let strict = case.mode == Mode::Strict;
    let (limits, sse) = limits(case.mode);
    let issues = |updates: Vec<Value>| -> Vec<(String, String)> {
        updates
            .into_iter()
            .filter(|u| u["type"] == "issue" && u["code"] != "stream-incomplete")
            .map(|u| {
                (
                    u["code"].as_str().unwrap_or("").to_owned(),
                    u["severity"].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect()
    };
    let json = |v: &dyn erased::Ser| v.value();
    match case.via {
        Via::AgentApi => {
            let mut s = AgentStream::new(AssemblerOptions {
                strict,
                limits,
                sse,
                ..AssemblerOptions::default()
            });
            s.feed(&case.bytes);
            s.finish();
            let updates = s.drain_updates().iter().map(|u| json(u)).collect();
            (issues(updates), json(s.response()))
        }
        Via::Acp => {
            let mut s = AcpStream::new(AcpOptions {
                strict,
                limits,
                sse,
                ..AcpOptions::default()
            });
            s.feed(&case.bytes);
            s.finish();
            let updates = s.drain_updates().iter().map(|u| json(u)).collect();
            (issues(updates), json(s.run()))
        }
        Via::Agentx => {
            let mut s = AgentxStream::new(agentx::AssemblerOptions {
                strict,
                limits,
                sse,
                ..agentx::AssemblerOptions::default()
            });
            s.feed(&case.bytes);
            s.finish();
            let updates = s.drain_updates().iter().map(|u| json(u)).collect();
            (issues(updates), json(&s.messages().to_vec()))
        }
        Via::Payload => {
            let report = validate_payload(&case.bytes, None, &PayloadLimits::default());
            let found = report
                .errors
                .iter()
                .map(|e| (e.code.as_str().to_owned(), "error".to_owned()))
                .collect();
            (found, serde_json::to_value(&report).unwrap())
        }
        Via::Atlas => {
            let text = String::from_utf8_lossy(&case.bytes);
            match StructuredMessage::from_json(&text) {
                Ok(m) => (Vec::new(), m.to_value()),
                Err(e) => (vec![(e.code().to_owned(), "error".to_owned())], e.details()),
            }
        }
    }
}

/// serde_json values of anything serializable, through one function pointer type.
mod erased {
    pub trait Ser {
        fn value(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> Ser for T {
        fn value(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap_or_default()
        }
    }
}

#[test]
fn every_bad_input_gives_its_documented_outcome() {
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    for (i, case) in cases.iter().enumerate() {
        let (found, kept) = run(case);
        let label = format!(
            "case {} ({}, {}, {})",
            i + 1,
            case.input,
            case.via.name(),
            case.mode.name()
        );
        match case.code {
            None => assert_eq!(found, [], "{label}: no issue"),
            Some(code) => assert!(
                found.iter().any(|(c, s)| c == code && s == case.severity),
                "{label}: expected {code} ({}), found {found:?}",
                case.severity
            ),
        }
        assert!((case.check)(&kept), "{label}: what is kept: {kept}");
    }
}

#[test]
fn a_strict_violation_ends_the_stream_and_later_input_is_ignored() {
    let mut s = AgentStream::new(AssemblerOptions {
        strict: true,
        ..AssemblerOptions::default()
    });
    s.feed(&sse(&[TEXT0, r#"{"object":"hologram"}"#]));
    assert!(s.assembler().is_stopped());
    s.feed(&sse(&[MSG, RESP_DONE]));
    s.finish();
    assert_eq!(s.response().status.to_string(), "incomplete");
    let updates = s.drain_updates();
    let done = updates
        .iter()
        .filter(|u| matches!(u, agentwire::dialect::agent_api::StreamUpdate::Done { .. }))
        .count();
    assert_eq!(done, 1);
}

/// The README table of the catalogue.
fn table() -> String {
    let mut out = String::from(
        "| # | bad input | where | mode | issue code | severity | what is kept |\n|---|---|---|---|---|---|---|\n",
    );
    for (i, case) in cases().iter().enumerate() {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            i + 1,
            case.input.replace('|', "\\|"),
            case.via.name(),
            case.mode.name(),
            case.code.map_or("none".to_owned(), |c| format!("`{c}`")),
            if case.code.is_some() {
                case.severity
            } else {
                ""
            },
            case.kept.replace('|', "\\|"),
        ));
    }
    out
}

#[test]
fn the_readme_table_is_the_catalogue() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let (start, end) = ("<!-- catalogue:start -->\n", "<!-- catalogue:end -->");
    let from = readme
        .find(start)
        .expect("README has the catalogue markers")
        + start.len();
    let to = readme[from..].find(end).expect("end marker") + from;
    let expected = table();
    if readme[from..to] != expected {
        if std::env::var_os("AGENTWIRE_UPDATE_README").is_some() {
            let updated = format!("{}{}{}", &readme[..from], expected, &readme[to..]);
            std::fs::write(path, updated).unwrap();
        } else {
            panic!("README.md's catalogue table is out of date; run AGENTWIRE_UPDATE_README=1 cargo test --test catalogue\n{expected}");
        }
    }
    let _ = json!(null);
}
