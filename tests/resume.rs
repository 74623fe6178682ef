//! Resuming a broken stream on a new connection: every fixture cut at every event boundary (and
//! inside events) into two connections, the second starting from an earlier event (an overlap the
//! assembler must skip), gives exactly the unbroken run's result and updates. Resumes by SSE `id`
//! (on every event, or only on some) and by the Agent API's `sequence_number`; lost events are
//! reported as `resume-gap`, repeats after new events as `duplicate-event`.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agentwire::dialect::acp::{self, AcpStream};
use agentwire::dialect::agent_api::{AgentStream, AssemblerOptions, StreamUpdate};
use agentwire::dialect::agentx::{self, AgentxStream, MessageBuilder, Part, Role};
use agentwire::sse::{Admission, EventCursor};
use serde_json::{json, Value};

/// The events of an SSE stream, each with its terminating blank line.
fn events(sse: &[u8]) -> Vec<Vec<u8>> {
    let text = String::from_utf8(sse.to_vec()).expect("UTF-8 fixture");
    let text = text.replace("\r\n", "\n");
    text.split_inclusive("\n\n")
        .filter(|e| e.trim() != "")
        .map(|e| e.as_bytes().to_vec())
        .collect()
}

/// `events` with `id: <n>` (1-based) on every `every`-th event.
fn with_ids(events: &[Vec<u8>], every: usize) -> Vec<Vec<u8>> {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            if i % every == 0 {
                let mut out = format!("id: {}\n", i + 1).into_bytes();
                out.extend_from_slice(e);
                out
            } else {
                e.clone()
            }
        })
        .collect()
}

/// A stream type under test: feed, reconnect, finish, and what it produced (as JSON).
trait Resumable {
    fn new_stream() -> Self;
    fn feed(&mut self, bytes: &[u8]);
    fn reconnect(&mut self);
    fn finish(&mut self);
    /// The updates since the last call, and the result, as JSON.
    fn drain(&mut self) -> Vec<Value>;
    fn result(&self) -> Value;
}

impl Resumable for AgentStream {
    fn new_stream() -> Self {
        AgentStream::new(AssemblerOptions::default())
    }
    fn feed(&mut self, bytes: &[u8]) {
        AgentStream::feed(self, bytes)
    }
    fn reconnect(&mut self) {
        AgentStream::reconnect(self)
    }
    fn finish(&mut self) {
        AgentStream::finish(self)
    }
    fn drain(&mut self) -> Vec<Value> {
        let updates = self.drain_updates();
        serde_json::from_value(serde_json::to_value(updates).unwrap()).unwrap()
    }
    fn result(&self) -> Value {
        serde_json::to_value(self.response()).unwrap()
    }
}

impl Resumable for AcpStream {
    fn new_stream() -> Self {
        AcpStream::new(acp::AcpOptions::default())
    }
    fn feed(&mut self, bytes: &[u8]) {
        AcpStream::feed(self, bytes)
    }
    fn reconnect(&mut self) {
        AcpStream::reconnect(self)
    }
    fn finish(&mut self) {
        AcpStream::finish(self)
    }
    fn drain(&mut self) -> Vec<Value> {
        let updates = self.drain_updates();
        serde_json::from_value(serde_json::to_value(updates).unwrap()).unwrap()
    }
    fn result(&self) -> Value {
        serde_json::to_value(self.run()).unwrap()
    }
}

impl Resumable for AgentxStream {
    fn new_stream() -> Self {
        AgentxStream::new(agentx::AssemblerOptions::default())
    }
    fn feed(&mut self, bytes: &[u8]) {
        AgentxStream::feed(self, bytes)
    }
    fn reconnect(&mut self) {
        AgentxStream::reconnect(self)
    }
    fn finish(&mut self) {
        AgentxStream::finish(self)
    }
    fn drain(&mut self) -> Vec<Value> {
        let updates = self.drain_updates();
        serde_json::from_value(serde_json::to_value(updates).unwrap()).unwrap()
    }
    fn result(&self) -> Value {
        serde_json::to_value(self.messages()).unwrap()
    }
}

/// Feeds `connections` (a reconnect between each), event by event; returns the result and every
/// update.
fn run<S: Resumable>(connections: &[Vec<u8>]) -> (Value, Vec<Value>) {
    let mut s = S::new_stream();
    let mut updates = Vec::new();
    for (i, bytes) in connections.iter().enumerate() {
        if i > 0 {
            s.reconnect();
        }
        s.feed(bytes);
        updates.extend(s.drain());
    }
    s.finish();
    updates.extend(s.drain());
    (s.result(), updates)
}

/// Cuts `events` after event `cut` (and, with `inside`, partway into the next one) and resumes
/// from event `from` (≤ the cut): the result and updates equal the unbroken run's. With ids on
/// every `every`-th event only, a server can resume only where an id tells it to: at an event that
/// carries an id, or right after the last id the client saw (the events that followed it, which
/// inherit that id).
fn assert_resumes<S: Resumable>(name: &str, events: &[Vec<u8>], every: usize) {
    let whole: Vec<u8> = events.concat();
    let unbroken = run::<S>(&[whole]);
    let mut runs = 0;
    for cut in 0..=events.len() {
        for inside in [false, true] {
            if inside && cut == events.len() {
                continue;
            }
            let mut first: Vec<u8> = events[..cut].concat();
            if inside {
                let next = &events[cut];
                first.extend_from_slice(&next[..next.len() / 2]);
            }
            let after_last_id = (0..cut).rev().find(|x| x % every == 0).map(|x| x + 1);
            let froms = (0..=cut).filter(|f| f % every == 0 || Some(*f) == after_last_id);
            for from in froms {
                let second: Vec<u8> = events[from..].concat();
                let resumed = run::<S>(&[first.clone(), second]);
                assert_eq!(
                    resumed.0, unbroken.0,
                    "{name}: cut after {cut} (inside: {inside}), resumed from {from}"
                );
                assert_eq!(
                    resumed.1, unbroken.1,
                    "{name}: updates, cut after {cut} (inside: {inside}), resumed from {from}"
                );
                runs += 1;
            }
        }
    }
    assert!(runs > events.len());
}

#[test]
fn agent_api_fixtures_resume_by_sequence_number_at_every_event_boundary() {
    for f in [
        "agentscope-runtime/process-raw.sse",
        "agentscope-runtime/process-text.sse",
        "agentscope-runtime/process-agentscope.sse",
    ] {
        assert_resumes::<AgentStream>(f, &events(&common::fixture(f)), 1);
    }
}

#[test]
fn agent_api_fixtures_resume_by_sse_id_on_every_event_and_on_some() {
    for f in [
        "agentscope-runtime/process-raw.sse",
        "agentscope-runtime/process-agentscope.sse",
    ] {
        let plain = events(&common::fixture(f));
        for every in [1, 3] {
            assert_resumes::<AgentStream>(
                &format!("{f}, id every {every}"),
                &with_ids(&plain, every),
                every,
            );
        }
    }
}

#[test]
fn acp_fixtures_resume_by_sse_id_at_every_event_boundary() {
    for f in ["acp-sdk/run-stream.sse", "acp-sdk/await-stream.sse"] {
        let plain = events(&common::fixture(f));
        for every in [1, 2] {
            assert_resumes::<AcpStream>(
                &format!("{f}, id every {every}"),
                &with_ids(&plain, every),
                every,
            );
        }
    }
}

fn agentx_events() -> Vec<Vec<u8>> {
    let mut reply = MessageBuilder::new(Role::Assistant);
    let args = json!({"path": "/hello.txt", "content": "Hello, world!"});
    let call = Part::tool_call("write_file", args.as_object().cloned().unwrap_or_default());
    let call_id = call.tool_call_id().unwrap_or_default().to_owned();
    let mut sse = reply.packet(vec![call]).to_sse();
    sse += &reply
        .tool_result(&call_id, json!({"status": "success"}))
        .to_sse();
    for piece in ["I have", " written", " the file", "."] {
        sse += &reply.text(piece).to_sse();
    }
    events(sse.as_bytes())
}

#[test]
fn agentx_stream_resumes_by_sse_id_at_every_event_boundary() {
    let plain = agentx_events();
    for every in [1, 2] {
        assert_resumes::<AgentxStream>(
            &format!("id every {every}"),
            &with_ids(&plain, every),
            every,
        );
    }
}

fn issues(updates: &[Value]) -> Vec<(String, String)> {
    issue_details(updates)
        .into_iter()
        .map(|(code, severity, _)| (code, severity))
        .collect()
}

#[test]
fn a_resume_that_skips_events_reports_the_gap() {
    let plain = with_ids(
        &events(&common::fixture("agentscope-runtime/process-raw.sse")),
        1,
    );
    let first: Vec<u8> = plain[..5].concat();
    let second: Vec<u8> = plain[7..].concat(); // ids 6 and 7 are lost
    let mut s = AgentStream::new(AssemblerOptions::default());
    s.feed(&first);
    assert_eq!(s.last_event_id().as_deref(), Some("5"));
    s.reconnect();
    s.feed(&second);
    s.finish();
    let updates: Vec<Value> =
        serde_json::from_value(serde_json::to_value(s.drain_updates()).unwrap()).unwrap();
    let gap = updates
        .iter()
        .find(|u| u["code"] == "resume-gap")
        .expect("a resume-gap issue");
    assert_eq!(gap["severity"], "error");
    assert_eq!(
        gap["details"],
        json!({"lastEventId": "5", "eventId": "8", "missing": 2})
    );
}

#[test]
fn a_repeat_after_new_events_is_skipped_and_reported() {
    let plain = with_ids(
        &events(&common::fixture("agentscope-runtime/process-raw.sse")),
        1,
    );
    let unbroken = run::<AgentStream>(&[plain.concat()]);
    let first: Vec<u8> = plain[..6].concat();
    // The new connection sends 4..8, then 5 again, then the rest.
    let mut second: Vec<u8> = plain[3..8].concat();
    second.extend_from_slice(&plain[4]);
    second.extend(plain[8..].concat());
    let (result, updates) = run::<AgentStream>(&[first, second]);
    assert_eq!(result, unbroken.0, "nothing duplicated");
    assert_eq!(
        issues(&updates),
        [("duplicate-event".to_owned(), "warning".to_owned())]
    );
    let without: Vec<Value> = updates
        .into_iter()
        .filter(|u| u["type"] != "issue")
        .collect();
    assert_eq!(without, unbroken.1);
}

#[test]
fn without_a_reconnect_nothing_is_skipped() {
    // A server that repeats ids (or sequence numbers) within one connection is not second-guessed:
    // de-duplication starts with the first reconnect.
    let mut c = EventCursor::new();
    assert_eq!(c.admit_event("1", true), Some(Admission::Apply));
    assert_eq!(c.admit_event("1", true), Some(Admission::Apply));
    assert_eq!(c.admit_sequence(4), Admission::Apply);
    assert_eq!(c.admit_sequence(4), Admission::Apply);
    c.reconnect();
    assert_eq!(c.admit_event("1", true), Some(Admission::Replayed));
    assert_eq!(c.admit_event("2", true), Some(Admission::Apply));
    assert!(matches!(
        c.admit_event("1", true),
        Some(Admission::Duplicate(_))
    ));
    assert_eq!(
        c.admit_event("", false),
        None,
        "no id: cannot be de-duplicated"
    );
}

#[test]
fn opaque_ids_are_remembered_as_a_set() {
    let mut c = EventCursor::new();
    for id in ["a", "b", "c"] {
        assert_eq!(c.admit_event(id, true), Some(Admission::Apply));
    }
    // An event without its own id after `c` is the first after it.
    assert_eq!(c.admit_event("c", false), Some(Admission::Apply));
    c.reconnect();
    assert_eq!(c.admit_event("b", true), Some(Admission::Replayed));
    assert_eq!(c.admit_event("c", true), Some(Admission::Replayed));
    assert_eq!(c.admit_event("c", false), Some(Admission::Replayed));
    assert_eq!(c.admit_event("c", false), Some(Admission::Apply));
    assert_eq!(c.admit_event("d", true), Some(Admission::Apply));
    assert_eq!(c.reconnects(), 1);
}

#[test]
fn last_event_id_prefers_sse_ids_then_sequence_numbers() {
    let plain = events(&common::fixture("agentscope-runtime/process-raw.sse"));
    let mut s = AgentStream::new(AssemblerOptions::default());
    assert_eq!(s.last_event_id(), None);
    s.feed(&plain[..3].concat());
    assert_eq!(s.last_event_id().as_deref(), Some("2"), "sequence_number");
    let mut s = AgentStream::new(AssemblerOptions::default());
    s.feed(&with_ids(&plain, 1)[..3].concat());
    assert_eq!(s.last_event_id().as_deref(), Some("3"), "SSE id");
    let mut a = AcpStream::new(Default::default());
    a.feed(b"data: {}\n\n");
    assert_eq!(a.last_event_id(), None);
    a.feed(b"id: x1\ndata: {}\n\n");
    assert_eq!(a.last_event_id().as_deref(), Some("x1"));
    let _ = StreamUpdate::Done {
        response: Default::default(),
    };
}

/// `events` of another response: every response and message id rewritten (`response_` and `msg_`
/// ids get an `other-` prefix), the numbering the same.
fn another_response(events: &[Vec<u8>]) -> Vec<Vec<u8>> {
    events
        .iter()
        .map(|e| {
            String::from_utf8(e.clone())
                .unwrap()
                .replace(":\"response_", ":\"other-response_")
                .replace(":\"msg_", ":\"other-msg_")
                .into_bytes()
        })
        .collect()
}

/// A strict or lenient Agent API stream fed `first`, then after a reconnect `second`: the stream
/// and every update.
fn resumed(options: AssemblerOptions, first: &[u8], second: &[u8]) -> (AgentStream, Vec<Value>) {
    let mut s = AgentStream::new(options);
    s.feed(first);
    s.reconnect();
    s.feed(second);
    s.finish();
    let updates = serde_json::to_value(s.drain_updates()).unwrap();
    (s, serde_json::from_value(updates).unwrap())
}

/// The issues' codes, severities and details.
fn issue_details(updates: &[Value]) -> Vec<(String, String, Value)> {
    updates
        .iter()
        .filter(|u| u["type"] == "issue")
        .map(|u| {
            (
                u["code"].as_str().unwrap_or("").to_owned(),
                u["severity"].as_str().unwrap_or("").to_owned(),
                u["details"].clone(),
            )
        })
        .collect()
}

#[test]
fn a_resume_answered_by_another_response_is_reported_not_taken_for_a_replay() {
    // A load balancer sends the resume to another instance, which streams another response
    // numbered from 0 again: its first events look like a replay by their numbers, but name
    // another response. By sequence number (no SSE ids) and by SSE id.
    let plain = events(&common::fixture("agentscope-runtime/process-raw.sse"));
    let response_id = "response_55500e9d-faee-4300-be35-136ec6ecd259";
    for ids in [false, true] {
        let numbered = if ids {
            with_ids(&plain, 1)
        } else {
            plain.clone()
        };
        let other = another_response(&numbered);
        let first: Vec<u8> = numbered[..5].concat();
        let unbroken_other = run::<AgentStream>(&[other.concat()]).0;

        // Strict: the first such event is an error that ends the stream; nothing of the other
        // response is taken.
        let strict = AssemblerOptions {
            strict: true,
            ..Default::default()
        };
        let (s, updates) = resumed(strict, &first, &other.concat());
        let before = run::<AgentStream>(std::slice::from_ref(&first)).0;
        let event_id = if ids { "1" } else { "0" };
        assert_eq!(
            issue_details(&updates),
            [(
                "resume-mismatch".to_owned(),
                "error".to_owned(),
                json!({"eventId": event_id, "what": "response", "id": format!("other-{response_id}")})
            )],
            "strict, SSE ids: {ids}"
        );
        let result = serde_json::to_value(s.response()).unwrap();
        assert_eq!(result["id"], response_id);
        assert_eq!(result["status"], "incomplete");
        let texts = |r: &Value| -> Vec<(Value, Value)> {
            r["output"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| (m["id"].clone(), m["content"][0]["text"].clone()))
                .collect()
        };
        assert_eq!(texts(&result), texts(&before), "strict, SSE ids: {ids}");

        // Lenient: a warning, and the new connection's events are applied from there on (the
        // response id then changes, and the first response's message is not in the other's final
        // `output`: both reported too).
        let (result, updates) = run::<AgentStream>(&[first.clone(), other.concat()]);
        assert_eq!(
            issues(&updates),
            [
                ("resume-mismatch".to_owned(), "warning".to_owned()),
                ("response-id-changed".to_owned(), "warning".to_owned()),
                (
                    "message-missing-from-output".to_owned(),
                    "warning".to_owned()
                )
            ],
            "lenient, SSE ids: {ids}"
        );
        assert_eq!(result["id"], format!("other-{response_id}"));
        assert_eq!(result["status"], "completed");
        let output = result["output"].as_array().unwrap();
        let other_output = unbroken_other["output"].as_array().unwrap();
        assert_eq!(
            output[output.len() - other_output.len()..],
            other_output[..],
            "every message of the other response, whole"
        );
    }
}

#[test]
fn a_replay_that_names_an_unknown_message_is_reported() {
    // The new connection resumes mid-way through another response: no `response` event in its
    // overlap, but content of a message this stream never had.
    let plain = events(&common::fixture("agentscope-runtime/process-raw.sse"));
    let other = another_response(&plain);
    let strict = AssemblerOptions {
        strict: true,
        ..Default::default()
    };
    let (_, updates) = resumed(strict, &plain[..6].concat(), &other[3..].concat());
    assert_eq!(
        issue_details(&updates),
        [(
            "resume-mismatch".to_owned(),
            "error".to_owned(),
            json!({"eventId": "3", "what": "message", "id": "other-msg_878a9226-9e94-4543-8518-85a06e65997b"})
        )]
    );
    // A true replay of the same events is skipped without a word (the fixtures' resume tests
    // check every cut); so is one after the messages were released.
    let releasing = AssemblerOptions {
        strict: true,
        retain_messages: false,
        ..Default::default()
    };
    let (s, updates) = resumed(releasing, &plain[..12].concat(), &plain[2..].concat());
    assert_eq!(issue_details(&updates), []);
    assert_eq!(
        serde_json::to_value(s.response()).unwrap()["status"],
        "completed"
    );
}
