//! ACP: model round trips, the assembler on real acp-sdk bytes (at every split), await and resume,
//! failure, cancellation, the client helpers, the body view and the agents' content types.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agentwire::body::{PartKind, PartStatus};
use agentwire::dialect::acp::{
    decode_agents, decode_error, decode_events, decode_run, AcpClient, AcpEvent, AcpOptions,
    AcpStream, AgentManifest, Assembler, AwaitResume, InputError, Message, MessagePart, Method,
    PartMetadata, Role, Run, RunCreateRequest, RunMode, RunResumeRequest, RunStatus,
    ServerErrorCode, Severity, Update,
};
use agentwire::pattern::Pattern;
use agentwire::ErrorCode;
use serde_json::{json, Value};

/// The `failer` agent of `shared/peers/acp-sdk/server.py` (yields `"partial "`, then raises
/// `ValueError("boom from agent")`), streamed by acp-sdk 1.0.3: captured with curl from `run-peer acp-sdk`.
const FAILED_SSE: &str = r#"data: {"type":"run.created","run":{"run_id":"a30cab2b-9675-4a31-80e3-f21c36f1e638","agent_name":"failer","session_id":"a2910c87-d9b3-4fbd-9cd9-b2be95b93f8a","status":"created","await_request":null,"output":[],"error":null,"created_at":"2026-11-21T05:22:31.153970Z","finished_at":null}}

data: {"type":"run.in-progress","run":{"run_id":"a30cab2b-9675-4a31-80e3-f21c36f1e638","agent_name":"failer","session_id":"a2910c87-d9b3-4fbd-9cd9-b2be95b93f8a","status":"in-progress","await_request":null,"output":[],"error":null,"created_at":"2026-11-21T05:22:31.153970Z","finished_at":null}}

data: {"type":"message.created","message":{"role":"agent/failer","parts":[],"created_at":"2026-11-21T05:22:31.166444Z","completed_at":null}}

data: {"type":"message.part","part":{"name":null,"content_type":"text/plain","content":"partial ","content_encoding":"plain","content_url":null,"metadata":null}}

data: {"type":"run.failed","run":{"run_id":"a30cab2b-9675-4a31-80e3-f21c36f1e638","agent_name":"failer","session_id":"a2910c87-d9b3-4fbd-9cd9-b2be95b93f8a","status":"failed","await_request":null,"output":[{"role":"agent/failer","parts":[{"name":null,"content_type":"text/plain","content":"partial ","content_encoding":"plain","content_url":null,"metadata":null}],"created_at":"2026-11-21T05:22:31.166444Z","completed_at":null}],"error":{"code":"server_error","message":"boom from agent","data":null},"created_at":"2026-11-21T05:22:31.153970Z","finished_at":"2026-11-21T05:22:31.166920Z"}}

"#;

/// The `slow` agent of `shared/peers/acp-sdk/server.py`, cancelled with `POST /runs/{run_id}/cancel`
/// after three ticks: captured with curl from `run-peer acp-sdk`.
const CANCELLED_SSE: &str = r#"data: {"type":"run.created","run":{"run_id":"7a5580d9-c4c0-401d-83ad-0eb53c6b5177","agent_name":"slow","session_id":"ba8eac91-758b-421b-a10d-c6c6ff21400e","status":"created","await_request":null,"output":[],"error":null,"created_at":"2026-11-21T05:22:34.545307Z","finished_at":null}}

data: {"type":"run.in-progress","run":{"run_id":"7a5580d9-c4c0-401d-83ad-0eb53c6b5177","agent_name":"slow","session_id":"ba8eac91-758b-421b-a10d-c6c6ff21400e","status":"in-progress","await_request":null,"output":[],"error":null,"created_at":"2026-11-21T05:22:34.545307Z","finished_at":null}}

data: {"type":"message.created","message":{"role":"agent/slow","parts":[],"created_at":"2026-11-21T05:22:34.547439Z","completed_at":null}}

data: {"type":"message.part","part":{"name":null,"content_type":"text/plain","content":"tick 0 ","content_encoding":"plain","content_url":null,"metadata":null}}

data: {"type":"message.part","part":{"name":null,"content_type":"text/plain","content":"tick 1 ","content_encoding":"plain","content_url":null,"metadata":null}}

data: {"type":"message.part","part":{"name":null,"content_type":"text/plain","content":"tick 2 ","content_encoding":"plain","content_url":null,"metadata":null}}

data: {"type":"run.cancelled","run":{"run_id":"7a5580d9-c4c0-401d-83ad-0eb53c6b5177","agent_name":"slow","session_id":"ba8eac91-758b-421b-a10d-c6c6ff21400e","status":"cancelled","await_request":null,"output":[{"role":"agent/slow","parts":[{"name":null,"content_type":"text/plain","content":"tick 0 ","content_encoding":"plain","content_url":null,"metadata":null},{"name":null,"content_type":"text/plain","content":"tick 1 ","content_encoding":"plain","content_url":null,"metadata":null},{"name":null,"content_type":"text/plain","content":"tick 2 ","content_encoding":"plain","content_url":null,"metadata":null}],"created_at":"2026-11-21T05:22:34.547439Z","completed_at":null}],"error":null,"created_at":"2026-11-21T05:22:34.545307Z","finished_at":"2026-11-21T05:22:35.847576Z"}}

"#;

fn fixture(name: &str) -> Vec<u8> {
    common::fixture(&format!("acp-sdk/{name}"))
}

fn events_of(sse: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut d = agentwire::sse::SseDecoder::new();
    d.feed(sse, &mut |i| {
        if let agentwire::sse::SseItem::Event(e) = i {
            out.push(e.data.to_owned())
        }
    });
    out
}

/// Feeds `chunks` as one HTTP response and finishes it.
fn feed(s: &mut AcpStream, chunks: &[&[u8]], updates: &mut Vec<Update>) {
    for c in chunks {
        s.feed(c);
        updates.extend(s.drain_updates());
    }
    s.finish();
    updates.extend(s.drain_updates());
}

fn assemble_with(options: AcpOptions, chunks: &[&[u8]]) -> (Run, Vec<Update>) {
    let mut s = AcpStream::new(options);
    let mut updates = Vec::new();
    feed(&mut s, chunks, &mut updates);
    (s.run().clone(), updates)
}

fn assemble(chunks: &[&[u8]]) -> (Run, Vec<Update>) {
    assemble_with(AcpOptions::default(), chunks)
}

/// The run of the server's last event (`run.completed`, `run.failed`, `run.cancelled`…).
fn server_final(sse: &[u8]) -> Run {
    let last = events_of(sse).pop().expect("events");
    AcpEvent::parse(&last)
        .unwrap()
        .run()
        .expect("a run event")
        .clone()
}

fn issues(updates: &[Update]) -> Vec<(Severity, String)> {
    updates
        .iter()
        .filter_map(|u| match u {
            Update::Issue { severity, code, .. } => Some((*severity, code.clone())),
            _ => None,
        })
        .collect()
}

/// Rebuilds a run's output from updates alone, as a JavaScript client would.
fn mirror(updates: &[Update]) -> Vec<Message> {
    let mut output: Vec<Message> = Vec::new();
    for u in updates {
        match u {
            Update::Message { index, message } | Update::MessageCompleted { index, message } => {
                if *index == output.len() {
                    output.push(message.clone());
                } else {
                    output[*index] = message.clone();
                }
            }
            Update::Part {
                message_index,
                part_index,
                part,
            } => {
                let parts = &mut output[*message_index].parts;
                assert_eq!(*part_index, parts.len(), "parts arrive in order");
                parts.push(part.clone());
            }
            Update::TextDelta {
                message_index,
                part_index,
                delta,
            } => {
                assert!(!delta.is_empty());
                output[*message_index].parts[*part_index]
                    .content
                    .as_mut()
                    .unwrap()
                    .push_str(delta);
            }
            _ => {}
        }
    }
    output
}

#[test]
fn every_fixture_event_round_trips_through_the_model() {
    let mut all = Vec::new();
    for name in ["run-stream.sse", "await-stream.sse", "resume-stream.sse"] {
        all.extend(events_of(&fixture(name)));
    }
    all.extend(events_of(FAILED_SSE.as_bytes()));
    all.extend(events_of(CANCELLED_SSE.as_bytes()));
    let mut types = std::collections::BTreeSet::new();
    for data in &all {
        let event = AcpEvent::parse(data).unwrap();
        assert!(!matches!(event, AcpEvent::Unknown(_)), "{data}");
        types.insert(event.event_type().to_owned());
        let again = serde_json::to_string(&event).unwrap();
        if event.event_type() == "generic" {
            // A JSON object's keys come back sorted.
            assert_eq!(
                serde_json::from_str::<Value>(&again).unwrap(),
                serde_json::from_str::<Value>(data).unwrap()
            );
        } else {
            // Field order and nulls are the SDK's: the server's bytes come back exactly.
            assert_eq!(&again, data);
        }
        assert_eq!(AcpEvent::parse(&again).unwrap(), event);
        let via_serde: AcpEvent = serde_json::from_str(data).unwrap();
        assert_eq!(via_serde, event);
    }
    assert_eq!(
        types.into_iter().collect::<Vec<_>>(),
        [
            "generic",
            "message.completed",
            "message.created",
            "message.part",
            "run.awaiting",
            "run.cancelled",
            "run.completed",
            "run.created",
            "run.failed",
            "run.in-progress"
        ]
    );
}

/// Unknown members keep the order the server wrote them in, after the known fields are taken
/// out (the known fields first in the text, so that taking them by swapping would reorder the
/// rest), and so do an unknown metadata kind's members.
#[test]
fn unknown_members_keep_their_order() {
    let part = r#"{"content":"x","content_type":"text/plain","x_z":1,"x_m":2,"x_a":3,"metadata":{"kind":"hologram","zz":1,"aa":2}}"#;
    let data = format!(
        r#"{{"type":"message.completed","message":{{"role":"agent/a","parts":[{part}],"x_z":1,"x_a":2}}}}"#
    );
    let event = AcpEvent::parse(&data).unwrap();
    let text = serde_json::to_string(&event).unwrap();
    assert!(text.contains(r#""x_z":1,"x_m":2,"x_a":3"#), "{text}");
    assert!(
        text.contains(r#""kind":"hologram","zz":1,"aa":2"#),
        "{text}"
    );
    assert!(
        text.contains(r#""completed_at":null,"x_z":1,"x_a":2"#),
        "{text}"
    );
}

#[test]
fn unknown_types_statuses_kinds_and_fields_are_kept() {
    let data = r#"{"type":"run.in-progress","x_trace":"t1","run":{"run_id":"r","agent_name":"a","status":"paused","output":[{"role":"agent/a","parts":[{"content":"x","metadata":{"kind":"hologram","beam":"blue"},"x_part":1}],"x_msg":true}],"x_run":[1]}}"#;
    let event = AcpEvent::parse(data).unwrap();
    let AcpEvent::RunInProgress { run, extra } = &event else {
        panic!("{event:?}")
    };
    assert_eq!(extra["x_trace"], "t1");
    assert_eq!(run.status, RunStatus::Other("paused".into()));
    assert_eq!(run.extra["x_run"], json!([1]));
    let message = &run.output[0];
    assert_eq!(message.extra["x_msg"], true);
    assert_eq!(message.parts[0].extra["x_part"], 1);
    match message.parts[0].metadata.as_deref() {
        Some(m @ PartMetadata::Other(map)) => {
            assert_eq!(m.kind(), "hologram");
            assert_eq!(map["beam"], "blue");
        }
        other => panic!("{other:?}"),
    }
    // Absent fields take the SDK's defaults; explicit nulls stay null.
    assert_eq!(message.parts[0].content_type.as_deref(), Some("text/plain"));
    let back: Value = serde_json::to_value(&event).unwrap();
    assert_eq!(
        back["run"]["output"][0]["parts"][0]["metadata"]["beam"],
        "blue"
    );
    assert_eq!(back["run"]["status"], "paused");
    assert_eq!(back["x_trace"], "t1");
    let nulls: MessagePart =
        serde_json::from_str(r#"{"content_type":null,"content_encoding":null}"#).unwrap();
    assert_eq!(nulls.content_type, None);
    assert_eq!(nulls.content_encoding, None);

    // A citation of the wrong shape is kept whole rather than rejected.
    let odd: MessagePart =
        serde_json::from_str(r#"{"metadata":{"kind":"citation","start_index":"zero"}}"#).unwrap();
    assert!(
        matches!(odd.metadata.as_deref(), Some(PartMetadata::Other(m)) if m["start_index"] == "zero")
    );

    // An unknown event type is an event, and a warning of the assembler (never dropped silently).
    let unknown = r#"{"type":"run.paused","note":{"a":1}}"#;
    assert!(
        matches!(AcpEvent::parse(unknown).unwrap(), AcpEvent::Unknown(v) if v["note"]["a"] == 1)
    );
    let (_, updates) = assemble(&[format!("data: {unknown}\n\n").as_bytes()]);
    match &updates[0] {
        Update::Issue {
            severity,
            code,
            details,
            ..
        } => {
            assert_eq!(*severity, Severity::Warning);
            assert_eq!(code, "unknown-event");
            assert_eq!(details["eventType"], "run.paused");
            assert_eq!(details["event"]["note"]["a"], 1);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn run_stream_assembles_to_the_servers_final_run_at_every_split() {
    let bytes = fixture("run-stream.sse");
    let server = server_final(&bytes);
    let (whole, whole_updates) = assemble(&[&bytes]);
    // Joined text is what the server's run shows once its text chunks are joined.
    assert_eq!(whole, server.clone().compressed());
    assert_eq!(whole.status, RunStatus::Completed);
    assert_eq!(issues(&whole_updates), []);
    let first = &whole.output[0];
    let contents: Vec<Option<&str>> = first.parts.iter().map(|p| p.content.as_deref()).collect();
    assert_eq!(
        contents,
        [
            Some("Echo: hello world"),
            Some(" [1]"),
            None,
            Some("https://example.com/doc"),
            None,
            Some("{\"temp\": 21, \"city\": \"Paris\"}"),
            Some("aGVsbG8=")
        ]
    );
    // The cited chunk is not joined: it keeps its metadata.
    assert!(
        matches!(first.parts[1].metadata.as_deref(), Some(PartMetadata::Citation(c))
        if c.start_index == Some(0) && c.end_index == Some(4) && c.url.as_deref() == Some("https://example.com/doc"))
    );
    assert!(
        matches!(first.parts[2].metadata.as_deref(), Some(PartMetadata::Trajectory(t))
        if t.tool_name.as_deref() == Some("get_weather") && t.tool_output == Some(json!({"temp": 21})))
    );
    assert_eq!(first.parts[3].name.as_deref(), Some("/sources/1"));
    assert_eq!(first.parts[6].name.as_deref(), Some("hello.bin"));
    assert_eq!(first.text(), "Echo: hello world [1]");
    // The message yielded whole: its parts came in message.created and again as message.part.
    assert_eq!(whole.output[1].parts.len(), 1);
    assert_eq!(whole.output[1].text(), "second message");
    assert_eq!(whole.output[1].role, Role::agent(Some("echo")));

    // Text deltas carry each chunk once, never the accumulated text.
    let deltas: Vec<&str> = whole_updates
        .iter()
        .filter_map(|u| match u {
            Update::TextDelta { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, ["hello", " world"]);
    // The updates alone rebuild the run's output.
    assert_eq!(mirror(&whole_updates), whole.output);
    assert!(matches!(whole_updates.last(), Some(Update::Done { run }) if *run == whole));
    let generic: Vec<&Value> = whole_updates
        .iter()
        .filter_map(|u| match u {
            Update::Generic { generic } => Some(generic),
            _ => None,
        })
        .collect();
    assert_eq!(generic, [&json!({"thought": "done", "step": 3})]);

    for i in 0..=bytes.len() {
        let (a, b) = bytes.split_at(i);
        let (r, updates) = assemble(&[a, b]);
        assert_eq!(r, whole, "split at {i}");
        assert_eq!(updates, whole_updates, "updates, split at {i}");
    }
}

#[test]
fn without_joining_the_run_equals_the_servers_exactly() {
    let bytes = fixture("run-stream.sse");
    let options = AcpOptions {
        join_text: false,
        ..Default::default()
    };
    let (run, updates) = assemble_with(options, &[&bytes]);
    assert_eq!(run, server_final(&bytes));
    assert_eq!(run.output[0].parts.len(), 9);
    assert_eq!(issues(&updates), []);
    assert_eq!(mirror(&updates), run.output);
    assert!(!updates
        .iter()
        .any(|u| matches!(u, Update::TextDelta { .. })));
}

#[test]
fn every_fixture_at_every_split_gives_the_same_run_and_updates() {
    let streams: Vec<(&str, Vec<u8>)> = vec![
        ("await", fixture("await-stream.sse")),
        ("resume", fixture("resume-stream.sse")),
        ("failed", FAILED_SSE.as_bytes().to_vec()),
        ("cancelled", CANCELLED_SSE.as_bytes().to_vec()),
    ];
    for (name, bytes) in &streams {
        for options in [
            AcpOptions::default(),
            AcpOptions {
                join_text: false,
                ..Default::default()
            },
        ] {
            let (whole, whole_updates) = assemble_with(options, &[bytes]);
            assert_eq!(mirror(&whole_updates), whole.output, "{name}");
            for i in 0..=bytes.len() {
                let (a, b) = bytes.split_at(i);
                let (r, updates) = assemble_with(options, &[a, b]);
                assert_eq!(r, whole, "{name}, split at {i}");
                assert_eq!(updates, whole_updates, "{name}: updates, split at {i}");
            }
        }
    }
}

#[test]
fn await_then_resume_continues_the_same_run_and_message() {
    let awaiting = fixture("await-stream.sse");
    let resumed = fixture("resume-stream.sse");
    let server = server_final(&resumed);
    let run_at = |a: usize, r: usize| {
        let mut s = AcpStream::new(AcpOptions::default());
        let mut updates = Vec::new();
        feed(&mut s, &[&awaiting[..a], &awaiting[a..]], &mut updates);
        let paused = s.run().clone();
        let asked = s.await_request().cloned();
        let first = updates.len();
        feed(&mut s, &[&resumed[..r], &resumed[r..]], &mut updates);
        (paused, asked, s.run().clone(), updates, first)
    };
    let (paused, asked, run, updates, first) = run_at(0, 0);

    // The first stream ends at run.awaiting: not an incomplete stream.
    assert_eq!(paused.status, RunStatus::Awaiting);
    assert_eq!(paused.output[0].text(), "Need approval. ");
    assert_eq!(paused.output[0].completed_at, None);
    let asked = asked.unwrap();
    assert_eq!(asked.message.as_ref().unwrap().text(), "Approve? (yes/no)");
    let (before, after) = updates.split_at(first);
    assert!(
        matches!(before.last(), Some(Update::Done { run }) if run.status == RunStatus::Awaiting)
    );
    assert!(before
        .iter()
        .any(|u| matches!(u, Update::Awaiting { await_request } if *await_request == asked)));
    assert_eq!(issues(&updates), []);

    // The resumed stream continues message 0: "Got: yes" joins its text.
    assert_eq!(run, server.clone().compressed());
    assert_eq!(run.output.len(), 1);
    assert_eq!(run.output[0].parts.len(), 1);
    assert_eq!(run.output[0].text(), "Need approval. Got: yes");
    assert!(after.iter().any(|u| matches!(u,
        Update::TextDelta { message_index: 0, part_index: 0, delta } if delta == "Got: yes")));
    assert!(
        matches!(after.last(), Some(Update::Done { run }) if run.status == RunStatus::Completed)
    );
    assert_eq!(mirror(&updates), run.output);

    // The server's resume request shape.
    let req: RunResumeRequest = serde_json::from_slice(&fixture("req-resume-stream.json")).unwrap();
    assert_eq!(req.mode, RunMode::Stream);
    assert_eq!(req.await_resume.message.as_ref().unwrap().text(), "yes");
    assert_eq!(
        req,
        RunResumeRequest::message(Message::user_text("yes"), RunMode::Stream)
    );

    for a in (0..=awaiting.len()).step_by(37) {
        for r in (0..=resumed.len()).step_by(53) {
            let (p, _, run_ar, updates_ar, _) = run_at(a, r);
            assert_eq!(p, paused, "split {a}/{r}");
            assert_eq!(run_ar, run, "split {a}/{r}");
            assert_eq!(updates_ar, updates, "split {a}/{r}");
        }
    }
}

#[test]
fn a_fresh_stream_can_pick_up_a_resumed_run() {
    // A client that lost its state resumes with a new AcpStream: the run.in-progress snapshot
    // brings back the open message.
    let resumed = fixture("resume-stream.sse");
    let (run, updates) = assemble(&[&resumed]);
    assert_eq!(run, server_final(&resumed).compressed());
    assert_eq!(issues(&updates), []);
    assert_eq!(mirror(&updates), run.output);
}

#[test]
fn failed_run_keeps_partial_output_and_the_error() {
    let bytes = FAILED_SSE.as_bytes();
    let server = server_final(bytes);
    let (run, updates) = assemble(&[bytes]);
    assert_eq!(run, server.clone().compressed());
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.as_ref().unwrap();
    assert_eq!(error.code, ServerErrorCode::ServerError);
    assert_eq!(error.message, "boom from agent");
    assert_eq!(run.output[0].text(), "partial ");
    assert_eq!(run.output[0].completed_at, None);
    let issue = updates
        .iter()
        .find_map(|u| match u {
            Update::Issue {
                severity: Severity::Error,
                error,
                details,
                ..
            } => Some((error, details)),
            _ => None,
        })
        .unwrap();
    assert_eq!(issue.0.code(), "server-error");
    assert_eq!(issue.1["error"]["message"], "boom from agent");
    // The parts of the unfinished message are incomplete in the body view.
    assert_eq!(run.bodies()[0].parts[0].status, PartStatus::Incomplete);
    assert!(matches!(updates.last(), Some(Update::Done { .. })));
}

#[test]
fn cancelled_run_keeps_what_was_streamed() {
    let bytes = CANCELLED_SSE.as_bytes();
    let (run, updates) = assemble(&[bytes]);
    assert_eq!(run, server_final(bytes).compressed());
    assert_eq!(run.status, RunStatus::Cancelled);
    assert_eq!(run.output[0].text(), "tick 0 tick 1 tick 2 ");
    assert_eq!(issues(&updates), []);
    assert_eq!(run.bodies()[0].parts[0].status, PartStatus::Incomplete);
}

#[test]
fn stream_without_terminal_status_is_incomplete_with_everything_kept() {
    let bytes = fixture("run-stream.sse");
    let cut = &bytes[..bytes.len() * 2 / 3];
    let (run, updates) = assemble(&[cut]);
    assert_eq!(run.status, RunStatus::Incomplete);
    assert_eq!(run.run_id, "4b2e0159-86cd-42bb-981d-1003775473ee");
    assert_eq!(run.output[0].text(), "Echo: hello world [1]");
    assert_eq!(run.output[0].parts.len(), 7);
    let codes = issues(&updates);
    assert_eq!(
        codes.last().unwrap(),
        &(Severity::Error, "stream-incomplete".into())
    );
    let details = updates
        .iter()
        .find_map(|u| match u {
            Update::Issue { code, details, .. } if code == "stream-incomplete" => {
                Some(details.clone())
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(details["lastStatus"], "in-progress");
    assert!(
        matches!(updates.last(), Some(Update::Done { run }) if run.status == RunStatus::Incomplete)
    );
}

#[test]
fn malformed_events_are_skipped_reported_and_do_not_stop_the_stream() {
    let sse = concat!(
        "data: {not json\n\n",
        "data: {\"type\":\"message.part\",\"part\":{\"content\":5}}\n\n",
        "data: {\"type\":\"run.created\"}\n\n",
        "data: [1,2]\n\n",
        "data: {\"type\":\"message.created\",\"message\":{\"role\":\"agent\",\"parts\":[]}}\n\n",
        "data: {\"type\":\"message.part\",\"part\":{\"content\":\"ok\"}}\n\n",
        "data: {\"type\":\"hologram\"}\n\n",
    );
    let (run, updates) = assemble(&[sse.as_bytes()]);
    assert_eq!(run.output[0].text(), "ok");
    let codes: Vec<String> = issues(&updates).into_iter().map(|(_, c)| c).collect();
    assert_eq!(
        codes,
        [
            "invalid-json",
            "invalid-event",
            "invalid-event",
            "invalid-event",
            "unknown-event",
            "stream-incomplete"
        ]
    );
    match &updates[0] {
        Update::Issue { details, .. } => {
            assert_eq!(details["data"], "{not json");
            assert_eq!(details["line"], 1);
        }
        other => panic!("{other:?}"),
    }
    match &updates[2] {
        Update::Issue { details, .. } => {
            assert_eq!(details["reason"], "`run.created` event without `run`");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn error_event_and_stray_parts() {
    let sse = concat!(
        "data: {\"type\":\"run.created\",\"run\":{\"run_id\":\"r\",\"agent_name\":\"echo\",\"status\":\"created\"}}\n\n",
        "data: {\"type\":\"message.part\",\"part\":{\"content\":\"stray\"}}\n\n",
        "data: {\"type\":\"error\",\"error\":{\"code\":\"server_error\",\"message\":\"store broke\",\"data\":null}}\n\n",
    );
    let (run, updates) = assemble(&[sse.as_bytes()]);
    // A part outside any message starts one, with the role the SDK's server gives agents.
    assert_eq!(run.output[0].role, Role::agent(Some("echo")));
    assert_eq!(run.output[0].text(), "stray");
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(run.error.as_ref().unwrap().message, "store broke");
    let codes: Vec<(Severity, String)> = issues(&updates);
    assert_eq!(
        codes,
        [
            (Severity::Warning, "part-without-message".into()),
            (Severity::Error, "server-error".into())
        ]
    );
    assert_eq!(mirror(&updates), run.output);
}

#[test]
fn a_message_the_server_changed_is_taken_with_a_warning() {
    let sse = concat!(
        "data: {\"type\":\"message.created\",\"message\":{\"role\":\"agent\",\"parts\":[]}}\n\n",
        "data: {\"type\":\"message.part\",\"part\":{\"content\":\"Hel\"}}\n\n",
        "data: {\"type\":\"message.part\",\"part\":{\"content\":\"lo\"}}\n\n",
        "data: {\"type\":\"message.completed\",\"message\":{\"role\":\"agent\",\"parts\":[{\"content\":\"Help\"}]}}\n\n",
        "data: {\"type\":\"run.completed\",\"run\":{\"run_id\":\"r\",\"agent_name\":\"a\",\"status\":\"completed\",\"output\":[]}}\n\n",
    );
    for coalesce in [false, true] {
        let (run, updates) = assemble_with(
            AcpOptions {
                coalesce,
                ..Default::default()
            },
            &[sse.as_bytes()],
        );
        assert_eq!(run.output[0].text(), "Help");
        let codes: Vec<String> = issues(&updates).into_iter().map(|(_, c)| c).collect();
        assert_eq!(codes, ["message-mismatch", "message-missing-from-output"]);
        let assembled = updates
            .iter()
            .find_map(|u| match u {
                Update::Issue { details, .. } => Some(details["assembled"].clone()),
                _ => None,
            })
            .unwrap();
        assert_eq!(assembled["parts"][0]["content"], "Hello");
        // Updates drained before the replacement still say what was streamed.
        let text: String = updates
            .iter()
            .filter_map(|u| match u {
                Update::Part { part, .. } => part.content.clone(),
                Update::TextDelta { delta, .. } => Some(delta.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(text, "Hello");
        assert_eq!(mirror(&updates), run.output);
    }
}

#[test]
fn json_updates_match_the_materialized_updates() {
    let bytes = fixture("run-stream.sse");
    for (coalesce, join_text) in [(false, true), (true, true), (false, false)] {
        let options = AcpOptions {
            coalesce,
            join_text,
            ..Default::default()
        };
        let mut a = AcpStream::new(options);
        let mut b = a.clone();
        let mut json_out = Vec::new();
        let mut owned = Vec::new();
        for chunk in bytes.chunks(500) {
            a.feed(chunk);
            b.feed(chunk);
            let mut s = String::new();
            a.assembler_mut().drain_updates_json(&mut s);
            json_out.extend(serde_json::from_str::<Vec<Value>>(&s).unwrap());
            owned.extend(
                b.drain_updates()
                    .iter()
                    .map(|u| serde_json::to_value(u).unwrap()),
            );
        }
        assert_eq!(json_out, owned);
    }
    // The JSON shape of updates: tagged by `type`, camelCase.
    let (_, updates) = assemble(&[&bytes]);
    let delta = updates
        .iter()
        .find(|u| matches!(u, Update::TextDelta { .. }))
        .unwrap();
    assert_eq!(
        serde_json::to_value(delta).unwrap(),
        json!({"type": "textDelta", "messageIndex": 0, "partIndex": 0, "delta": "hello"})
    );
}

#[test]
fn coalesced_updates_carry_the_same_text_in_fewer_deltas() {
    let mut sse = String::from(
        "data: {\"type\":\"message.created\",\"message\":{\"role\":\"agent\",\"parts\":[]}}\n\n",
    );
    for i in 0..20 {
        sse.push_str(&format!(
            "data: {{\"type\":\"message.part\",\"part\":{{\"content\":\"t{i} \"}}}}\n\n"
        ));
    }
    let plain = assemble(&[sse.as_bytes()]);
    let co = assemble_with(
        AcpOptions {
            coalesce: true,
            ..Default::default()
        },
        &[sse.as_bytes()],
    );
    assert_eq!(plain.0, co.0);
    let count = |us: &[Update]| {
        us.iter()
            .filter(|u| matches!(u, Update::TextDelta { .. }))
            .count()
    };
    assert_eq!(count(&plain.1), 19);
    assert_eq!(count(&co.1), 1);
    assert_eq!(mirror(&co.1), co.0.output);
}

#[test]
fn async_run_events_replay_to_the_same_run() {
    let events =
        decode_events(std::str::from_utf8(&fixture("run-async-events.json")).unwrap()).unwrap();
    assert_eq!(events.len(), 18);
    // The same sequence of event types as the streamed run.
    let streamed: Vec<String> = events_of(&fixture("run-stream.sse"))
        .iter()
        .map(|d| AcpEvent::parse(d).unwrap().event_type().to_owned())
        .collect();
    let listed: Vec<&str> = events.iter().map(AcpEvent::event_type).collect();
    assert_eq!(listed, streamed);
    let server = events.last().unwrap().run().unwrap().clone();
    let mut assembler = Assembler::new(AcpOptions::default());
    for e in events {
        assembler.push_event(e);
    }
    assembler.finish();
    assert_eq!(*assembler.run(), server.compressed());
    assert_eq!(issues(&assembler.drain_updates()), []);
    assert_eq!(
        assembler.generic_events(),
        [json!({"thought": "done", "step": 3})]
    );
}

#[test]
fn sync_run_decodes_and_its_messages_are_bodies() {
    let run = decode_run(std::str::from_utf8(&fixture("run-sync.json")).unwrap()).unwrap();
    assert_eq!(run.status, RunStatus::Completed);
    assert_eq!(run.output.len(), 2);
    assert_eq!(
        run.finished_at.as_deref(),
        Some("2026-11-21T04:34:04.770694Z")
    );
    let message = run.output[0].clone().compressed();
    let body = message.body();
    assert_eq!(body.parts.len(), message.parts.len());
    let sources = body.list(&Pattern::new("/sources/*").unwrap());
    assert_eq!(sources.len(), 1);
    assert_eq!(sources[0].content_type, "text/x-uri");
    assert_eq!(
        sources[0].content.as_deref(),
        Some("https://example.com/doc")
    );
    let kinds: Vec<&PartKind> = body.parts.iter().map(|p| &p.kind).collect();
    assert_eq!(
        kinds,
        [
            &PartKind::Text,
            &PartKind::Text,
            &PartKind::ToolResult,
            &PartKind::Text,
            &PartKind::Image,
            &PartKind::Data,
            &PartKind::File
        ]
    );
    // A name that is not a path is kept as it is.
    assert_eq!(body.parts[6].name.as_deref(), Some("hello.bin"));
    assert_eq!(&*body.parts[6].read_bytes().unwrap(), b"hello");
    // Citation and trajectory metadata are kept.
    let citation = body.parts[1].metadata.as_ref().unwrap();
    assert_eq!(citation["kind"], "citation");
    assert_eq!(citation["url"], "https://example.com/doc");
    let trajectory = body.parts[2].metadata.as_ref().unwrap();
    assert_eq!(trajectory["tool_input"], json!({"city": "Paris"}));
    assert_eq!(trajectory["toolName"], "get_weather");
    assert!(body.parts.iter().all(|p| p.status == PartStatus::Complete));
    // One to one: back to the same parts.
    for m in &run.output {
        assert_eq!(Message::from_body(m.role.clone(), &m.body()).parts, m.parts);
    }
}

#[test]
fn agents_manifest_content_types() {
    let agents = decode_agents(std::str::from_utf8(&fixture("agents.json")).unwrap()).unwrap();
    let names: Vec<&str> = agents.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["echo", "slow", "approval", "failer"]);
    let echo = &agents[0];
    assert_eq!(echo.input_content_types, ["*/*"]);
    assert_eq!(echo.metadata["license"], Value::Null);
    let req: RunCreateRequest = serde_json::from_slice(&fixture("req-stream.json")).unwrap();
    for m in &req.input {
        echo.check_input(m).unwrap();
    }
    let sync = decode_run(std::str::from_utf8(&fixture("run-sync.json")).unwrap()).unwrap();
    for m in &sync.output {
        echo.check_output(m).unwrap();
    }

    let mut picky = AgentManifest::new("picky");
    picky.input_content_types = vec!["text/*".into(), "image/{png,jpeg}".into()];
    picky.output_content_types = vec!["text/plain".into()];
    let ok = Message::new(
        Role::user(),
        vec![
            MessagePart::text("look"),
            MessagePart::url("IMAGE/PNG", "https://example.com/a.png"),
            MessagePart::inline("text/markdown; charset=utf-8", "# hi"),
        ],
    );
    picky.check_input(&ok).unwrap();
    let e = picky.check_input(&sync.output[0]).unwrap_err();
    assert_eq!(e.code(), "content-type-not-accepted");
    assert_eq!(
        e.details(),
        json!({
            "agent": "picky",
            "partIndex": 7,
            "contentType": "application/json",
            "accepted": ["text/*", "image/{png,jpeg}"],
        })
    );
    let e = picky.check_output(&sync.output[0]).unwrap_err();
    assert_eq!(e.details()["contentType"], "text/x-uri");
    let nulls = Message::new(
        Role::user(),
        vec![serde_json::from_value(json!({"content": "x", "content_type": null})).unwrap()],
    );
    assert_eq!(
        picky.check_input(&nulls).unwrap_err().details()["contentType"],
        "application/octet-stream"
    );
    let mut broken = AgentManifest::new("broken");
    broken.input_content_types = vec!["text/{plain".into()];
    let e = broken.check_input(&ok).unwrap_err();
    assert_eq!(e.code(), "invalid-content-type-pattern");
    assert_eq!(e.details()["pattern"], "text/{plain");
}

#[test]
fn requests_round_trip_and_the_client_builds_every_route() {
    for name in [
        "req-stream.json",
        "req-sync.json",
        "req-approval-stream.json",
    ] {
        let bytes = fixture(name);
        let req: RunCreateRequest = serde_json::from_slice(&bytes).unwrap();
        let again: RunCreateRequest =
            serde_json::from_str(&serde_json::to_string(&req).unwrap()).unwrap();
        assert_eq!(again, req, "{name}");
        assert_eq!(req.input[0].role, Role::user());
        assert_eq!(
            req.input[0].parts[0].content_type.as_deref(),
            Some("text/plain")
        );
    }
    let req: RunCreateRequest = serde_json::from_slice(&fixture("req-stream.json")).unwrap();
    assert_eq!(
        req,
        RunCreateRequest::new(
            "echo",
            vec![Message::user_text("hello world")],
            RunMode::Stream
        )
    );

    let client = AcpClient::new("http://127.0.0.1:8101");
    let create = client.create_run(&req).unwrap();
    assert_eq!(create.method, Method::Post);
    assert_eq!(create.url, "http://127.0.0.1:8101/runs");
    assert!(create
        .headers
        .contains(&("Accept".into(), "text/event-stream".into())));
    assert!(create
        .headers
        .contains(&("Content-Type".into(), "application/json".into())));
    let sent: RunCreateRequest = serde_json::from_str(create.body.as_deref().unwrap()).unwrap();
    assert_eq!(sent, req);
    // As the SDK's client writes it (the fixture): timestamps the message does not have are left
    // out, for the server to fill in, not sent as `null` (which it would keep).
    let body: Value = serde_json::from_str(create.body.as_deref().unwrap()).unwrap();
    let fixture_body: Value = serde_json::from_slice(&fixture("req-stream.json")).unwrap();
    let keys = |m: &Value| m.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&body["input"][0]), keys(&fixture_body["input"][0]));
    assert_eq!(keys(&body["input"][0]), ["role", "parts"]);
    let mut stamped = Message::user_text("hi");
    stamped.created_at = Some("2026-11-29T22:00:00Z".into());
    stamped.extra.insert("x_a".into(), json!(1));
    let request = RunCreateRequest::new("echo", vec![stamped], RunMode::Stream);
    let body: Value = serde_json::from_str(&serde_json::to_string(&request).unwrap()).unwrap();
    assert_eq!(
        keys(&body["input"][0]),
        ["role", "parts", "created_at", "x_a"]
    );
    assert_eq!(body["input"][0]["created_at"], "2026-11-29T22:00:00Z");

    let run_id = "b911259a-ccaa-440e-9665-81bbc77a788c";
    let resume = client
        .resume_run(
            run_id,
            &RunResumeRequest {
                await_resume: AwaitResume::message(Message::user_text("yes")),
                mode: RunMode::Sync,
                extra: Default::default(),
            },
        )
        .unwrap();
    assert_eq!(resume.url, format!("http://127.0.0.1:8101/runs/{run_id}"));
    assert!(resume
        .headers
        .contains(&("Accept".into(), "application/json".into())));
    let body: Value = serde_json::from_str(resume.body.as_deref().unwrap()).unwrap();
    assert_eq!(body["await_resume"]["type"], "message");
    let answer = body["await_resume"]["message"].as_object().unwrap();
    assert_eq!(answer.keys().collect::<Vec<_>>(), ["role", "parts"]);
    assert_eq!(body["mode"], "sync");
    let routes: Vec<(Method, String)> = [
        client.cancel_run(run_id),
        client.read_run(run_id),
        client.run_events(run_id),
        client.list_agents(),
        client.read_agent("echo"),
    ]
    .into_iter()
    .map(|r| {
        assert_eq!(r.body, None);
        (r.method, r.url)
    })
    .collect();
    let base = "http://127.0.0.1:8101";
    assert_eq!(
        routes,
        [
            (Method::Post, format!("{base}/runs/{run_id}/cancel")),
            (Method::Get, format!("{base}/runs/{run_id}")),
            (Method::Get, format!("{base}/runs/{run_id}/events")),
            (Method::Get, format!("{base}/agents")),
            (Method::Get, format!("{base}/agents/echo")),
        ]
    );
    // Path segments are percent-encoded; a base path is kept.
    let prefixed = AcpClient::new("https://h.example/acp/v1/");
    assert_eq!(
        prefixed.read_run("a/b c?").url,
        "https://h.example/acp/v1/runs/a%2Fb%20c%3F"
    );
    assert_eq!(
        prefixed.read_agent("é").url,
        "https://h.example/acp/v1/agents/%C3%A9"
    );
}

#[test]
fn a_run_event_of_another_run_is_reported() {
    // As the Agent API's `response-id-changed`: a warning (the new id taken), or in strict mode an
    // error that refuses the event and ends the stream.
    let event = |id: &str, ty: &str, status: &str| {
        format!(
            r#"data: {{"type":"{ty}","run":{{"run_id":"{id}","agent_name":"a","status":"{status}"}}}}"#
        ) + "\n\n"
    };
    let sse = [
        event("r1", "run.created", "created"),
        event("r1", "run.in-progress", "in-progress"),
        event("r2", "run.completed", "completed"),
    ]
    .concat();
    for strict in [false, true] {
        let mut stream = AcpStream::new(AcpOptions {
            strict,
            ..AcpOptions::default()
        });
        stream.feed(sse.as_bytes());
        stream.finish();
        let issues: Vec<(Severity, String, serde_json::Value)> = stream
            .drain_updates()
            .into_iter()
            .filter_map(|u| match u {
                Update::Issue {
                    severity,
                    code,
                    details,
                    ..
                } => Some((severity, code, details)),
                _ => None,
            })
            .collect();
        let changed = issues
            .iter()
            .find(|(_, code, _)| code == "run-id-changed")
            .expect("reported");
        assert_eq!(changed.2, serde_json::json!({"runId": "r1", "got": "r2"}));
        if strict {
            assert_eq!(changed.0, Severity::Error);
            assert_eq!(stream.run().run_id, "r1", "the event refused");
            assert_eq!(stream.run().status, RunStatus::Incomplete);
        } else {
            assert_eq!(changed.0, Severity::Warning);
            assert_eq!(stream.run().run_id, "r2");
            assert_eq!(stream.run().status, RunStatus::Completed);
        }
    }
}

#[test]
fn error_responses_decode_to_typed_errors() {
    // Bodies captured from acp-sdk 1.0.3.
    let e = decode_error(
        404,
        r#"{"code":"not_found","message":"Run 00000000-0000-0000-0000-000000000000 not found","data":null}"#,
    );
    assert_eq!(e.code(), "http-error");
    assert_eq!(e.details()["status"], 404);
    assert_eq!(e.details()["error"]["code"], "not_found");
    let e = decode_error(
        403,
        r#"{"code":"server_error","message":"Run in terminal status RunStatus.CANCELLED can't be cancelled","data":null}"#,
    );
    assert!(e.to_string().contains("can't be cancelled"));
    let e = decode_error(502, "<html>Bad Gateway</html>");
    assert_eq!(e.details()["error"]["message"], "<html>Bad Gateway</html>");
    // An `Error` with an empty message keeps its code (it became `server_error`, the body its
    // message); an object that is no `Error` is the message.
    let e = decode_error(404, r#"{"code":"not_found","message":""}"#);
    assert_eq!(e.details()["error"]["code"], "not_found");
    assert_eq!(e.details()["error"]["message"], "");
    let e = decode_error(404, r#"{"detail":"Not Found"}"#);
    assert_eq!(e.details()["error"]["code"], "server_error");
    assert_eq!(e.details()["error"]["message"], r#"{"detail":"Not Found"}"#);
    assert_eq!(
        decode_run("{\"run_id\": 3}").unwrap_err().code(),
        "invalid-event"
    );
    assert_eq!(decode_run("{").unwrap_err().code(), "invalid-json");
    // A body without a run id is not a run (every other field has a default).
    for body in [
        "{}",
        r#"{"accepted":true}"#,
        r#"{"run_id":"","status":"completed"}"#,
    ] {
        assert_eq!(
            decode_run(body).unwrap_err().code(),
            "invalid-event",
            "{body}"
        );
    }
    assert_eq!(
        decode_events("{\"events\":[{\"type\":\"run.created\"}]}")
            .unwrap_err()
            .code(),
        "invalid-event"
    );
    assert_eq!(decode_agents("[]").unwrap_err().code(), "invalid-event");
}

#[test]
fn model_round_trips() {
    let cases = [
        json!({"role": "agent/echo", "parts": [], "created_at": "2026-11-21T04:34:04.400697Z", "completed_at": null}),
        json!({"role": "user", "parts": [{"name": null, "content_type": "text/plain", "content": "x", "content_encoding": "plain", "content_url": null, "metadata": {"kind": "trajectory", "message": "thinking", "tool_name": null, "tool_input": null, "tool_output": null}}], "created_at": null, "completed_at": null}),
    ];
    for v in cases {
        let m: Message = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&m).unwrap(), v);
    }
    let run = decode_run(std::str::from_utf8(&fixture("run-sync.json")).unwrap()).unwrap();
    assert_eq!(
        serde_json::to_string(&run).unwrap(),
        std::str::from_utf8(&fixture("run-sync.json")).unwrap()
    );
    let agents = std::str::from_utf8(&fixture("agents.json"))
        .unwrap()
        .to_owned();
    let parsed = decode_agents(&agents).unwrap();
    let again = serde_json::to_value(&parsed).unwrap();
    let original: Value = serde_json::from_str(&agents).unwrap();
    assert_eq!(again, original["agents"]);
    // Roles.
    assert!(Role::agent(Some("echo")).is_valid());
    assert_eq!(Role::agent(Some("echo")).agent_name(), Some("echo"));
    assert!(Role::agent(None).is_agent());
    assert!(!Role("agent/".into()).is_valid());
    assert!(!Role("robot".into()).is_valid());
    assert!(!Role("agent/a b".into()).is_valid());
}

mod property {
    use super::*;
    use proptest::prelude::*;

    /// What an agent yields, as acp-sdk's server streams it.
    #[derive(Debug, Clone)]
    enum Yield {
        Text(String),
        Named(String, String),
        Cited(String),
        Url(String),
        Base64(String),
    }

    fn yielded() -> impl Strategy<Value = Yield> {
        prop_oneof![
            4 => "[a-zé東🌍 \\n\"\\\\]{0,6}".prop_map(Yield::Text),
            1 => ("/[a-z]{1,4}/[0-9]", "[a-z:/.]{0,10}").prop_map(|(n, c)| Yield::Named(n, c)),
            1 => "[a-z ]{0,5}".prop_map(Yield::Cited),
            1 => "https://[a-z]{1,6}\\.png".prop_map(Yield::Url),
            1 => "[A-Za-z0-9+/]{0,4}".prop_map(Yield::Base64),
        ]
    }

    fn part_of(y: &Yield) -> MessagePart {
        match y {
            Yield::Text(t) => MessagePart::text(t.as_str()),
            Yield::Named(n, c) => MessagePart::inline("text/x-uri", c.as_str()).named(n.as_str()),
            Yield::Cited(t) => MessagePart {
                metadata: Some(Box::new(PartMetadata::Citation(
                    agentwire::dialect::acp::CitationMetadata {
                        url: Some("https://example.com".into()),
                        ..Default::default()
                    },
                ))),
                ..MessagePart::text(t.as_str())
            },
            Yield::Url(u) => MessagePart::url("image/png", u.as_str()),
            Yield::Base64(b) => MessagePart {
                content_encoding: Some(agentwire::body::ContentEncoding::Base64),
                ..MessagePart::inline("application/octet-stream", b.as_str())
            },
        }
    }

    fn event(out: &mut String, e: &AcpEvent) {
        agentwire::sse::encode_event(out, None, &serde_json::to_string(e).unwrap(), None).unwrap();
    }

    /// The events acp-sdk's executor emits for `messages` (each yielded part by part, or whole).
    fn server_stream(messages: &[(bool, Vec<Yield>)]) -> (String, Run) {
        let mut run = Run {
            run_id: "r".into(),
            agent_name: "a".into(),
            created_at: Some("t0".into()),
            ..Default::default()
        };
        let mut sse = String::new();
        let extra = serde_json::Map::new;
        event(
            &mut sse,
            &AcpEvent::RunCreated {
                run: run.clone(),
                extra: extra(),
            },
        );
        run.status = RunStatus::InProgress;
        event(
            &mut sse,
            &AcpEvent::RunInProgress {
                run: run.clone(),
                extra: extra(),
            },
        );
        for (i, (whole, yields)) in messages.iter().enumerate() {
            let parts: Vec<MessagePart> = yields.iter().map(part_of).collect();
            let mut message = Message {
                role: Role::agent(Some("a")),
                created_at: Some(format!("c{i}")),
                ..Default::default()
            };
            if *whole {
                message.parts = parts.clone();
                message.completed_at = Some(format!("d{i}"));
            }
            event(
                &mut sse,
                &AcpEvent::MessageCreated {
                    message: message.clone(),
                    extra: extra(),
                },
            );
            for p in &parts {
                event(
                    &mut sse,
                    &AcpEvent::MessagePart {
                        part: p.clone(),
                        extra: extra(),
                    },
                );
            }
            message.parts = parts;
            message.completed_at = Some(format!("d{i}"));
            event(
                &mut sse,
                &AcpEvent::MessageCompleted {
                    message: message.clone(),
                    extra: extra(),
                },
            );
            run.output.push(message);
        }
        run.status = RunStatus::Completed;
        run.finished_at = Some("t1".into());
        event(
            &mut sse,
            &AcpEvent::RunCompleted {
                run: run.clone(),
                extra: extra(),
            },
        );
        (sse, run)
    }

    proptest! {
        #[test]
        fn whatever_the_server_streams_the_assembler_rebuilds(
            messages in prop::collection::vec((any::<bool>(), prop::collection::vec(yielded(), 0..8)), 0..4),
            split in any::<prop::sample::Index>(),
            coalesce in any::<bool>(),
        ) {
            let (sse, server) = server_stream(&messages);
            let bytes = sse.as_bytes();
            let at = split.index(bytes.len() + 1);
            for join_text in [true, false] {
                let options = AcpOptions { join_text, coalesce, ..Default::default() };
                let (run, updates) = assemble_with(options, &[&bytes[..at], &bytes[at..]]);
                prop_assert_eq!(issues(&updates), vec![]);
                let expected = if join_text { server.clone().compressed() } else { server.clone() };
                prop_assert_eq!(&run, &expected);
                prop_assert_eq!(mirror(&updates), run.output.clone());
                // No adjacent joinable text parts are left when joining.
                if join_text {
                    for m in &run.output {
                        for w in m.parts.windows(2) {
                            prop_assert!(!(w[0].is_joinable_text() && w[1].is_joinable_text()));
                        }
                    }
                }
            }
        }

        #[test]
        fn no_input_makes_the_stream_panic(chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 0..8)) {
            let mut s = AcpStream::new(AcpOptions::default());
            for c in &chunks {
                s.feed(c);
                let mut out = String::new();
                s.assembler_mut().drain_updates_json(&mut out);
            }
            s.finish();
            let _ = s.drain_updates();
        }

        #[test]
        fn arbitrary_event_sequences_never_panic_and_updates_mirror_the_run(
            events in prop::collection::vec(0u8..9, 0..30),
            texts in prop::collection::vec("[a-zé]{0,3}", 30),
        ) {
            // Events in any order, including ones a server would never send in that order.
            let mut sse = String::new();
            for (i, e) in events.iter().enumerate() {
                let t = &texts[i % texts.len()];
                let data = match e {
                    0 => json!({"type": "run.created", "run": {"run_id": "r", "agent_name": "a", "status": "created"}}),
                    1 => json!({"type": "message.created", "message": {"role": "agent", "parts": [{"content": t}]}}),
                    2 | 3 => json!({"type": "message.part", "part": {"content": t}}),
                    4 => json!({"type": "message.part", "part": {"name": "/n", "content": t}}),
                    5 => json!({"type": "message.completed", "message": {"role": "agent", "parts": [{"content": t}]}}),
                    6 => json!({"type": "run.in-progress", "run": {"run_id": "r", "agent_name": "a", "status": "in-progress", "output": [{"role": "agent", "parts": [{"content": t}]}]}}),
                    7 => json!({"type": "run.awaiting", "run": {"run_id": "r", "agent_name": "a", "status": "awaiting", "await_request": {"type": "message", "message": {"parts": []}}}}),
                    _ => json!({"type": "run.completed", "run": {"run_id": "r", "agent_name": "a", "status": "completed"}}),
                };
                sse.push_str(&format!("data: {data}\n\n"));
            }
            let (run, updates) = assemble(&[sse.as_bytes()]);
            prop_assert_eq!(mirror(&updates), run.output);
        }
    }
}

/// A `message.part` event whose `content` is given as UTF-16 code units, written as a JavaScript
/// server's `JSON.stringify` writes a lone surrogate (`\ud83d`).
fn utf16_part_event(units: &[u16]) -> String {
    let content = common::js_json_string(units);
    format!("data: {{\"type\":\"message.part\",\"part\":{{\"content\":\"{content}\"}}}}\n\n")
}

#[test]
fn a_surrogate_pair_cut_between_two_chunks_is_joined_at_every_split() {
    // A JavaScript server slicing by UTF-16 index: each emoji's pair is cut (`\ud83d` ends one
    // chunk, `\ude00` begins the next); one chunk is a lone high half alone.
    let text = "I 😀 you, 東京 😀😀";
    let pieces = common::cut_utf16(text, &[3, 14, 15, 16]);
    assert_eq!(pieces[3], [0xd83d], "a chunk of the high half alone");
    let completed = json!({"type": "message.completed", "message": {"role": "agent", "parts": [{"content": text}]}});
    let sse = format!(
        "data: {{\"type\":\"message.created\",\"message\":{{\"role\":\"agent\",\"parts\":[]}}}}\n\n{}data: {completed}\n\n",
        pieces.iter().map(|p| utf16_part_event(p)).collect::<String>()
    );
    assert!(sse.contains(r#"\ud83d""#) && sse.contains(r#""\ude00"#));
    for coalesce in [false, true] {
        let options = AcpOptions {
            coalesce,
            ..Default::default()
        };
        let (run, updates) = assemble_with(options, &[sse.as_bytes()]);
        assert_eq!(run.output[0].text(), text);
        assert_eq!(run.output[0].parts.len(), 1);
        // What streamed is what the server completed: no `message-mismatch`.
        assert_eq!(
            issues(&updates),
            [(Severity::Error, "stream-incomplete".into())]
        );
        assert_eq!(mirror(&updates), run.output);
        for at in 0..=sse.len() {
            let (a, b) = sse.as_bytes().split_at(at);
            let (split, split_updates) = assemble_with(options, &[a, b]);
            assert_eq!(split, run, "split at {at}");
            assert_eq!(mirror(&split_updates), run.output, "split at {at}");
        }
    }
    // Without joining, every chunk is its own part, as sent: each lone half reads as U+FFFD (and
    // the server's completed message, one part, replaces the five).
    let options = AcpOptions {
        join_text: false,
        ..Default::default()
    };
    let (run, updates) = assemble_with(options, &[sse.as_bytes()]);
    let streamed: Vec<String> = updates
        .iter()
        .filter_map(|u| match u {
            Update::Part { part, .. } => part.content.clone(),
            _ => None,
        })
        .collect();
    let lossy: Vec<String> = pieces.iter().map(|p| String::from_utf16_lossy(p)).collect();
    assert_eq!(streamed, lossy);
    assert_eq!(run.output[0].text(), text);
}

#[test]
fn a_held_high_half_not_followed_by_its_low_half_is_kept_as_a_replacement_character() {
    let created =
        "data: {\"type\":\"message.created\",\"message\":{\"role\":\"agent\",\"parts\":[]}}\n\n";
    let high = utf16_part_event(&[u16::from(b'a'), 0xd83d]);
    let deltas = |updates: &[Update]| -> Vec<String> {
        updates
            .iter()
            .filter_map(|u| match u {
                Update::Part { part, .. } => part.content.clone(),
                Update::TextDelta { delta, .. } => Some(delta.clone()),
                _ => None,
            })
            .collect()
    };
    // Followed by a chunk that does not begin with a low half: U+FFFD, then that chunk.
    let sse = format!("{created}{high}{}", utf16_part_event(&[u16::from(b'b')]));
    let (run, updates) = assemble(&[sse.as_bytes()]);
    assert_eq!(run.output[0].text(), "a\u{fffd}b");
    assert_eq!(deltas(&updates), ["a", "\u{fffd}", "b"]);
    // The stream ends: the held half is kept, before the end is reported.
    let (run, updates) = assemble(&[format!("{created}{high}").as_bytes()]);
    assert_eq!(run.output[0].text(), "a\u{fffd}");
    assert_eq!(deltas(&updates), ["a", "\u{fffd}"]);
    assert!(matches!(updates.last(), Some(Update::Done { .. })));
    // Another event in between: released before it applies (here the message's completion, which
    // the server says is "a" and a lone high surrogate: no mismatch).
    let completed = "data: {\"type\":\"message.completed\",\"message\":{\"role\":\"agent\",\"parts\":[{\"content\":\"a\\ud83d\"}]}}\n\n";
    let sse = format!("{created}{high}{completed}");
    let (run, updates) = assemble(&[sse.as_bytes()]);
    assert_eq!(run.output[0].text(), "a\u{fffd}");
    assert_eq!(
        issues(&updates),
        [(Severity::Error, "stream-incomplete".into())]
    );
    // A part that does not join (named) keeps its halves as U+FFFD and releases the held one.
    let named =
        "data: {\"type\":\"message.part\",\"part\":{\"name\":\"/x\",\"content\":\"\\ude00\"}}\n\n";
    let (run, _) = assemble(&[format!("{created}{high}{named}").as_bytes()]);
    let contents: Vec<&str> = run.output[0]
        .parts
        .iter()
        .filter_map(|p| p.content.as_deref())
        .collect();
    assert_eq!(contents, ["a\u{fffd}", "\u{fffd}"]);
    // The run taken while a half is held: the half is in it, as U+FFFD.
    let mut s = AcpStream::new(AcpOptions::default());
    s.feed(format!("{created}{high}").as_bytes());
    assert_eq!(s.assembler_mut().take_run().output[0].text(), "a\u{fffd}");
    // A low half with nothing held, and `\\ud83d` (an escaped backslash, then letters): as written.
    let sse = format!(
        "{created}{}data: {{\"type\":\"message.part\",\"part\":{{\"content\":\"\\\\ud83d\"}}}}\n\n",
        utf16_part_event(&[0xde00, u16::from(b'x')])
    );
    let (run, _) = assemble(&[sse.as_bytes()]);
    assert_eq!(run.output[0].text(), "\u{fffd}x\\ud83d");
}

/// A message's parts take the slots they fill: parts pushed one by one as `message.part` events
/// arrive grow one slot at a time from empty (`Vec` would allocate four for the first: three
/// `MessagePart`s of wasm32 memory, 336 bytes, never used per message of one part).
#[test]
fn parts_take_the_memory_they_fill() {
    for name in ["run-stream.sse", "await-stream.sse", "resume-stream.sse"] {
        let mut s = AcpStream::new(AcpOptions::default());
        s.feed(&fixture(name));
        s.finish();
        let output = &s.run().output;
        assert!(output.iter().any(|m| m.parts.len() == 1), "{name}");
        for m in output {
            assert_eq!(
                m.parts.capacity(),
                m.parts.len().next_power_of_two(),
                "{name}"
            );
        }
    }
}

#[test]
fn run_input_is_checked_against_the_protocol() {
    let input = |roles: &[&str]| -> Vec<Message> {
        roles
            .iter()
            .map(|r| Message::new(Role((*r).to_owned()), vec![MessagePart::text("hi")]))
            .collect()
    };
    let ok = RunCreateRequest::new(
        "echo",
        input(&["user", "agent", "agent/echo-2_x"]),
        RunMode::Stream,
    );
    assert_eq!(ok.check_input(), Ok(()));
    let session = "0F8FAD5B-d9cb-469f-a165-70867728950e";
    assert_eq!(ok.clone().in_session(session).check_input(), Ok(()));

    for (roles, index, role) in [
        (&["user", "assistant"][..], 1, "assistant"),
        (&["agent/"][..], 0, "agent/"),
        (&["agent/a b", "bad"][..], 0, "agent/a b"),
        (&["User"][..], 0, "User"),
    ] {
        let e = RunCreateRequest::new("echo", input(roles), RunMode::Sync)
            .in_session(session)
            .check_input()
            .unwrap_err();
        assert_eq!(
            e,
            InputError::Role {
                index,
                role: role.to_owned()
            }
        );
        assert!(e.to_string().contains("is not an ACP role"), "{e}");
    }
    // The roles are checked first, then the session id.
    for bad in [
        "sess-1",
        "0F8FAD5B-d9cb-469f-a165-70867728950",
        "0F8FAD5B-d9cb-469f-a165-70867728950g",
        "0F8FAD5Bd-9cb-469f-a165-70867728950e",
    ] {
        assert_eq!(
            ok.clone().in_session(bad).check_input(),
            Err(InputError::SessionId {
                session_id: bad.to_owned()
            })
        );
    }
    assert!(matches!(
        RunCreateRequest::new("echo", input(&["nobody"]), RunMode::Sync)
            .in_session("sess-1")
            .check_input(),
        Err(InputError::Role { index: 0, .. })
    ));
}

/// `Assembler::ends` counts the answers that ended, so a client reading a resume's stream knows
/// when its answer is over (and closes the request) though `is_done` is still `true` from the
/// `awaiting` until the resumed run's first event.
#[test]
fn each_answer_that_ends_is_counted() {
    let awaiting = fixture("await-stream.sse");
    let resumed = fixture("resume-stream.sse");
    let mut s = AcpStream::new(AcpOptions::default());
    assert_eq!((s.assembler().ends(), s.assembler().is_done()), (0, false));
    // At every split of the first answer, the count moves when its last event (`run.awaiting`)
    // is complete, not before.
    let last_event = awaiting[..awaiting.len() - 2]
        .windows(2)
        .rposition(|w| w == b"\n\n")
        .unwrap()
        + 2;
    s.feed(&awaiting[..last_event]);
    let before = s.assembler().ends();
    s.feed(&awaiting[last_event..]);
    assert_eq!((before, s.assembler().ends()), (0, 1));
    s.finish();
    assert_eq!(
        s.assembler().ends(),
        1,
        "finish after the end counts nothing"
    );
    // The resume's first byte: still done from the `awaiting`, and nothing new has ended.
    s.feed(&resumed[..1]);
    assert_eq!((s.assembler().is_done(), s.assembler().ends()), (true, 1));
    s.feed(&resumed[1..]);
    assert_eq!(s.run().status, RunStatus::Completed);
    assert_eq!((s.assembler().is_done(), s.assembler().ends()), (true, 2));
    s.finish();
    assert_eq!(s.assembler().ends(), 2);
    // A stream that breaks off is ended by `finish`, and counted.
    let mut cut = AcpStream::new(AcpOptions::default());
    cut.feed(&awaiting[..awaiting.len() / 2]);
    cut.finish();
    assert_eq!(cut.assembler().ends(), 1);
}
