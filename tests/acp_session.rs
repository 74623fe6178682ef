//! ACP sessions: the assembled run and its lifecycle in step, on real acp-sdk answers (streamed at
//! every split, sync runs, async event lists), outbound refusals, and strict and lenient inbound
//! checks.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agentwire::body::{Body, Part, PartKind};
use agentwire::dialect::acp::{
    decode_events, decode_run, AcpOptions, AcpSession, AcpStream, Inbound, Message,
    RunCreateRequest, RunMode, RunStatus, SessionOptions, SessionUpdate, Severity, Update,
};
use agentwire::run::{builtin, Party, Run};
use agentwire::ErrorCode;

fn fixture(name: &str) -> Vec<u8> {
    common::fixture(&format!("acp-sdk/{name}"))
}

fn text(name: &str) -> String {
    String::from_utf8(fixture(name)).unwrap()
}

fn request(name: &str) -> RunCreateRequest {
    serde_json::from_slice(&fixture(name)).unwrap()
}

fn session(inbound: Inbound) -> AcpSession {
    AcpSession::new(SessionOptions {
        acp: AcpOptions::default(),
        inbound,
    })
}

/// `(from, to, "party type")` of every state update.
fn states(updates: &[SessionUpdate]) -> Vec<(String, String, String)> {
    updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::State { from, to, via } => Some((
                from.clone(),
                to.clone(),
                format!("{} {}", via.party, via.message_type),
            )),
            _ => None,
        })
        .collect()
}

fn issues(updates: &[SessionUpdate]) -> Vec<(Severity, String)> {
    updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::Issue { severity, code, .. } => Some((*severity, code.clone())),
            SessionUpdate::Acp(u) => match &**u {
                Update::Issue { severity, code, .. } => Some((*severity, code.clone())),
                _ => None,
            },
            SessionUpdate::State { .. } => None,
        })
        .collect()
}

/// Creates a streamed run of `agent` on the message "x" (the client's first move).
fn start(session: &mut AcpSession, agent: &str) {
    session
        .create(&RunCreateRequest::new(
            agent,
            vec![Message::user_text("x")],
            RunMode::Stream,
        ))
        .unwrap();
}

fn s(a: &str, b: &str, c: &str) -> (String, String, String) {
    (a.to_owned(), b.to_owned(), c.to_owned())
}

#[test]
fn a_streamed_run_follows_the_lifecycle_at_every_split() {
    let sse = fixture("run-stream.sse");
    let mut expected_run = AcpStream::new(AcpOptions::default());
    expected_run.feed(&sse);
    expected_run.finish();
    let mut reference: Option<Vec<SessionUpdate>> = None;
    for split in 0..=sse.len() {
        let mut session = session(Inbound::Strict);
        session.create(&request("req-stream.json")).unwrap();
        let (a, b) = sse.split_at(split);
        session.feed(a);
        session.feed(b);
        session.finish();
        assert_eq!(session.state(), "completed", "split {split}");
        assert_eq!(session.run(), expected_run.run(), "split {split}");
        assert!(session.violation().is_none());
        let updates = session.drain_updates();
        match &reference {
            None => {
                assert_eq!(
                    states(&updates),
                    [
                        s("idle", "created", "client create"),
                        s("created", "in-progress", "server run.in-progress"),
                        s("in-progress", "completed", "server run.completed"),
                    ]
                );
                assert_eq!(issues(&updates), []);
                reference = Some(updates);
            }
            Some(r) => {
                // Text deltas may be cut differently; states and the rest arrive in the same order.
                assert_eq!(states(&updates), states(r), "split {split}");
                let last = |u: &[SessionUpdate]| u.last().cloned();
                assert_eq!(last(&updates), last(r), "split {split}");
            }
        }
        // The lifecycle recorded every event, and the client's request first.
        assert_eq!(session.lifecycle().messages().len(), 19);
        assert_eq!(session.lifecycle().messages()[0].party, Party::Client);
    }
}

#[test]
fn resume_is_refused_until_the_run_awaits_and_continues_the_same_run() {
    let mut session = session(Inbound::Strict);
    session
        .create(&request("req-approval-stream.json"))
        .unwrap();
    let e = session.resume(&Message::user_text("yes")).unwrap_err();
    assert_eq!(e.code(), "move-not-allowed");
    assert_eq!(e.details()["state"], "created");
    assert_eq!(e.details()["allowed"][0]["type"], "run.created");
    assert!(e.to_string().contains("client cancel → cancelling"), "{e}");

    session.feed(&fixture("await-stream.sse"));
    session.finish();
    assert_eq!(session.state(), "awaiting");
    assert!(session.is_done());
    assert_eq!(
        session.awaiting().unwrap().message.as_ref().unwrap().text(),
        "Approve? (yes/no)"
    );
    let mut client: Vec<String> = session
        .lifecycle()
        .allowed_moves_of(Party::Client)
        .map(|t| t.message_type.clone())
        .collect();
    client.sort();
    assert_eq!(client, ["cancel", "resume"]);
    session.drain_updates();

    session.resume(&Message::user_text("yes")).unwrap();
    assert_eq!(session.state(), "in-progress");
    session.feed(&fixture("resume-stream.sse"));
    session.finish();
    assert_eq!(session.state(), "completed");
    let run = session.run();
    assert_eq!(run.status, RunStatus::Completed);
    assert_eq!(run.output.len(), 1);
    assert_eq!(run.output[0].text(), "Need approval. Got: yes");
    let updates = session.drain_updates();
    assert_eq!(
        states(&updates),
        [
            s("awaiting", "in-progress", "client resume"),
            s("in-progress", "completed", "server run.completed"),
        ]
    );
    assert_eq!(issues(&updates), []);
    // A second answer is refused: the run is over.
    let e = session.resume(&Message::user_text("again")).unwrap_err();
    assert_eq!(e.details()["terminal"], true);
}

#[test]
fn a_sync_run_moves_the_lifecycle_along_the_servers_path() {
    let mut session = session(Inbound::Strict);
    session.create(&request("req-sync.json")).unwrap();
    let run = decode_run(&text("run-sync.json")).unwrap();
    session.push_run(run.clone());
    assert_eq!(session.state(), "completed");
    assert_eq!(session.run(), &run.clone().compressed());
    let updates = session.drain_updates();
    assert_eq!(
        states(&updates),
        [
            s("idle", "created", "client create"),
            s("created", "in-progress", "server run.in-progress"),
            s("in-progress", "completed", "server run.completed"),
        ]
    );
    let messages = updates
        .iter()
        .filter(|u| matches!(u, SessionUpdate::Acp(a) if matches!(**a, Update::Message { .. })))
        .count();
    assert_eq!(messages, 2);
    assert!(matches!(
        updates.last(),
        Some(SessionUpdate::Acp(a)) if matches!(**a, Update::Done { .. })
    ));

    // A sync run that awaits, resumed in sync mode: the server's run replaces the assembled one,
    // so a message that grew across the resume is no mismatch.
    let mut session = session_awaiting_sync();
    session.resume(&Message::user_text("yes")).unwrap();
    let mut done = session_run("awaiting");
    done.status = RunStatus::Completed;
    done.output[0]
        .parts
        .push(agentwire::dialect::acp::MessagePart::text("Got: yes"));
    session.push_run(done);
    assert_eq!(session.state(), "completed");
    assert_eq!(session.run().output[0].text(), "Need approval. Got: yes");
    assert_eq!(issues(&session.drain_updates()), []);
}

fn session_run(status: &str) -> agentwire::dialect::acp::Run {
    let mut run: agentwire::dialect::acp::Run = serde_json::from_value(serde_json::json!({
        "run_id": "r1", "agent_name": "approval", "status": status,
        "await_request": {"type": "message", "message": {"role": "user", "parts": [{"content": "Approve?"}]}},
        "output": [{"role": "agent/approval", "parts": [{"content": "Need approval. "}]}],
    }))
    .unwrap();
    run.output[0].completed_at = None;
    run
}

fn session_awaiting_sync() -> AcpSession {
    let mut session = session(Inbound::Strict);
    session
        .create(&request("req-approval-stream.json"))
        .unwrap();
    session.push_run(session_run("awaiting"));
    assert_eq!(session.state(), "awaiting");
    assert!(session.awaiting().is_some());
    session.drain_updates();
    session
}

#[test]
fn async_event_lists_replay_through_the_lifecycle() {
    let mut session = session(Inbound::Strict);
    session.create(&request("req-stream.json")).unwrap();
    let events = decode_events(&text("run-async-events.json")).unwrap();
    // Polled in two halves, as a client polling `GET /runs/{run_id}/events` sees them.
    let half = events.len() / 2;
    for e in &events[..half] {
        session.push_event(e.clone());
    }
    assert_eq!(session.state(), "in-progress");
    assert!(!session.is_done());
    for e in &events[half..] {
        session.push_event(e.clone());
    }
    assert_eq!(session.state(), "completed");
    assert!(session.is_done());
    assert_eq!(issues(&session.drain_updates()), []);
}

#[test]
fn cancel_moves_to_cancelling_and_the_servers_ending_finishes_it() {
    let mut session = session(Inbound::Strict);
    start(&mut session, "slow");
    session.feed(concat!(
        "data: {\"type\":\"run.created\",\"run\":{\"run_id\":\"r\",\"agent_name\":\"slow\",\"status\":\"created\"}}\n\n",
        "data: {\"type\":\"run.in-progress\",\"run\":{\"run_id\":\"r\",\"agent_name\":\"slow\",\"status\":\"in-progress\"}}\n\n",
        "data: {\"type\":\"message.created\",\"message\":{\"role\":\"agent/slow\",\"parts\":[]}}\n\n",
        "data: {\"type\":\"message.part\",\"part\":{\"content\":\"tick 0 \"}}\n\n",
    ).as_bytes());
    session.cancel().unwrap();
    assert_eq!(session.state(), "cancelling");
    // A tick already under way, then the ending.
    session.feed(concat!(
        "data: {\"type\":\"message.part\",\"part\":{\"content\":\"tick 1 \"}}\n\n",
        "data: {\"type\":\"run.cancelled\",\"run\":{\"run_id\":\"r\",\"agent_name\":\"slow\",\"status\":\"cancelled\"}}\n\n",
    ).as_bytes());
    session.finish();
    assert_eq!(session.state(), "cancelled");
    assert_eq!(session.run().status, RunStatus::Cancelled);
    assert_eq!(session.run().output[0].text(), "tick 0 tick 1 ");
    let e = session.cancel().unwrap_err();
    assert_eq!(e.details()["terminal"], true);

    // An awaiting run cancelled while no stream is open: the server's run, read afterwards, ends it.
    let mut session = session_awaiting_sync();
    session.cancel().unwrap();
    session.push_run(session_run("cancelled"));
    assert_eq!(session.state(), "cancelled");
    assert_eq!(issues(&session.drain_updates()), []);
}

const AFTER_THE_END: &str = concat!(
    "data: {\"type\":\"run.created\",\"run\":{\"run_id\":\"r\",\"status\":\"created\"}}\n\n",
    "data: {\"type\":\"run.in-progress\",\"run\":{\"run_id\":\"r\",\"status\":\"in-progress\"}}\n\n",
    "data: {\"type\":\"message.created\",\"message\":{\"role\":\"agent/x\",\"parts\":[]}}\n\n",
    "data: {\"type\":\"message.part\",\"part\":{\"content\":\"a\"}}\n\n",
    "data: {\"type\":\"run.completed\",\"run\":{\"run_id\":\"r\",\"status\":\"completed\",\"output\":[{\"role\":\"agent/x\",\"parts\":[{\"content\":\"a\"}]}]}}\n\n",
    "data: {\"type\":\"message.part\",\"part\":{\"content\":\"b\"}}\n\n",
    "data: {\"type\":\"generic\",\"generic\":{\"late\":true}}\n\n",
);

#[test]
fn the_lifecycle_stops_with_a_stream_its_strict_assembler_stopped() {
    // A strict assembler (the lifecycle itself lenient) stops at an unknown event; the events
    // after it in the same bytes move nothing: no state update after the `done` update.
    let mut session = AcpSession::new(SessionOptions {
        acp: AcpOptions {
            strict: true,
            ..AcpOptions::default()
        },
        inbound: Inbound::Lenient,
    });
    start(&mut session, "x");
    let events = [
        r#"{"type":"run.created","run":{"run_id":"r9","agent_name":"x","status":"created"}}"#,
        r#"{"type":"bogus"}"#,
        r#"{"type":"run.in-progress","run":{"run_id":"r9","agent_name":"x","status":"in-progress"}}"#,
        r#"{"type":"run.completed","run":{"run_id":"r9","agent_name":"x","status":"completed","output":[]}}"#,
    ];
    let bytes: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    session.feed(bytes.as_bytes());
    session.finish();
    assert!(session.assembler().is_stopped());
    assert_eq!(session.run().status, RunStatus::Incomplete);
    assert_eq!(
        session.assembler().status_before_end(),
        Some(&RunStatus::Created)
    );
    assert_eq!(session.state(), "created", "the lifecycle moved no further");
    let updates = session.drain_updates();
    let done = updates
        .iter()
        .position(|u| matches!(u, SessionUpdate::Acp(a) if matches!(**a, Update::Done { .. })))
        .expect("a done update");
    assert_eq!(done, updates.len() - 1, "nothing after done");
    assert_eq!(
        issues(&updates),
        [(Severity::Error, "unknown-event".to_owned())]
    );
}

#[test]
fn a_sessions_stream_ends_at_max_stream_bytes_counting_every_answer() {
    // As `AcpStream` does: the stream ends where the limit falls (the events before it applied,
    // the one it cuts not), `stream-too-large`, the run `incomplete`; later bytes are ignored.
    // The bytes of every answer of the run count (the session fed nothing past the limit before).
    let sse = fixture("run-stream.sse");
    let first_event = sse.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
    let limit = first_event as u64 + 10;
    let options = |max_stream_bytes| SessionOptions {
        acp: AcpOptions {
            limits: agentwire::limits::Limits {
                max_stream_bytes,
                ..Default::default()
            },
            ..AcpOptions::default()
        },
        inbound: Inbound::Strict,
    };
    let mut session = AcpSession::new(options(Some(limit)));
    session.create(&request("req-stream.json")).unwrap();
    session.feed(&sse);
    session.feed(&sse);
    session.finish();
    assert!(session.assembler().is_stopped());
    assert_eq!(session.run().status, RunStatus::Incomplete);
    assert_eq!(session.state(), "created", "only the first event applied");
    let updates = session.drain_updates();
    assert_eq!(
        issues(&updates),
        [(Severity::Error, "stream-too-large".to_owned())]
    );
    let mut stream = AcpStream::new(options(Some(limit)).acp);
    stream.feed(&sse);
    stream.finish();
    assert_eq!(session.run(), stream.run());

    // Two answers of one run: the limit counts both.
    let mut session = AcpSession::new(options(Some(first_event as u64 * 2 - 1)));
    start(&mut session, "x");
    let created = &sse[..first_event];
    session.feed(created);
    session.finish();
    assert!(!session.assembler().is_stopped());
    session.feed(created);
    assert!(
        session.assembler().is_stopped(),
        "the second answer went past the limit"
    );
}

#[test]
fn strict_sessions_stop_at_the_first_invalid_server_message() {
    let mut session = session(Inbound::Strict);
    start(&mut session, "x");
    session.feed(AFTER_THE_END.as_bytes());
    session.finish();
    let e = session.violation().unwrap();
    assert_eq!(e.code(), "move-not-allowed");
    assert_eq!(e.details()["state"], "completed");
    assert_eq!(e.details()["type"], "message.part");
    assert_eq!(e.details()["terminal"], true);
    // What came after is ignored.
    assert_eq!(session.run().output[0].text(), "a");
    let updates = session.drain_updates();
    assert_eq!(
        issues(&updates),
        [(Severity::Error, "move-not-allowed".to_owned())]
    );
    // The issue carries the violation itself (one shared error, not a copy).
    let issue_error = updates.iter().find_map(|u| match u {
        SessionUpdate::Issue { error, .. } => Some(error),
        _ => None,
    });
    assert!(std::ptr::eq(
        &**issue_error.unwrap(),
        session.violation().unwrap()
    ));
    assert!(!updates
        .iter()
        .any(|u| matches!(u, SessionUpdate::Acp(a) if matches!(**a, Update::Generic { .. }))));
    // Later input too.
    session.feed(b"data: {\"type\":\"generic\",\"generic\":{}}\n\n");
    assert!(!session.has_updates());
}

#[test]
fn lenient_sessions_warn_and_keep_everything() {
    let mut session = session(Inbound::Lenient);
    start(&mut session, "x");
    session.feed(AFTER_THE_END.as_bytes());
    session.finish();
    assert!(session.violation().is_none());
    assert_eq!(session.state(), "completed");
    let updates = session.drain_updates();
    // Each event after the run ended is both outside the lifecycle (the session's
    // `move-not-allowed`) and out of order for the assembler (`out-of-order`): both warn.
    assert_eq!(
        issues(&updates),
        [
            (Severity::Warning, "move-not-allowed".to_owned()),
            (Severity::Warning, "out-of-order".to_owned()),
            (Severity::Warning, "move-not-allowed".to_owned()),
            (Severity::Warning, "out-of-order".to_owned()),
        ]
    );
    assert!(updates
        .iter()
        .any(|u| matches!(u, SessionUpdate::Acp(a) if matches!(**a, Update::Generic { .. }))));

    // A run read from the server whose status the lifecycle cannot reach: a warning, and the
    // server's run is taken.
    let mut session = session_awaiting_sync();
    let mut odd = session_run("cancelling");
    odd.output.clear();
    let mut lenient = AcpSession::new(SessionOptions::default());
    lenient.create(&request("req-stream.json")).unwrap();
    lenient.push_run(odd.clone());
    assert_eq!(lenient.state(), "created");
    assert_eq!(lenient.run().status, RunStatus::Cancelling);
    let issues_of = issues(&lenient.drain_updates());
    assert_eq!(
        issues_of,
        [(Severity::Warning, "move-not-allowed".to_owned())]
    );
    session.push_run(odd);
    assert_eq!(
        session.violation().unwrap().details()["type"],
        "run.cancelling"
    );
}

#[test]
fn lenient_runs_move_despite_a_body_mismatch() {
    let mut run = Run::new("r", builtin::researcher());
    let question = Body::new(vec![Part::inline(PartKind::Text, "text/plain", "Q?")]);
    assert_eq!(
        run.apply_lenient(Party::Client, "message", &question)
            .unwrap(),
        None
    );
    let html = Body::new(vec![Part::inline(PartKind::Text, "text/html", "<p>")]);
    let warning = run
        .apply_lenient(Party::Server, "message", &html)
        .unwrap()
        .unwrap();
    assert_eq!(warning.code(), "body-mismatch");
    assert_eq!(run.state(), "done");
    assert_eq!(run.messages().len(), 2);
    let e = run
        .apply_lenient(Party::Server, "message", &html)
        .unwrap_err();
    assert_eq!(e.code(), "move-not-allowed");
    assert_eq!(run.messages().len(), 2);
}

#[test]
fn a_surrogate_pair_cut_between_two_message_parts_is_joined() {
    // A JavaScript server slicing by UTF-16 index: `\ud83d` ends one chunk, `\ude00` begins the
    // next (the session reads events to check them against the lifecycle before the assembler).
    let text = "I 😀 you 😀";
    let pieces = common::cut_utf16(text, &[3, 10]);
    let event = |v: serde_json::Value| format!("data: {v}\n\n");
    let run = serde_json::json!({"run_id": "r", "agent_name": "a", "status": "in-progress"});
    let mut sse = event(serde_json::json!({"type": "run.created", "run": run}));
    sse += &event(serde_json::json!({"type": "run.in-progress", "run": run}));
    sse += &event(
        serde_json::json!({"type": "message.created", "message": {"role": "agent/a", "parts": []}}),
    );
    for p in &pieces {
        let content = common::js_json_string(p);
        sse += &format!(
            "data: {{\"type\":\"message.part\",\"part\":{{\"content\":\"{content}\"}}}}\n\n"
        );
    }
    assert!(sse.contains(r#"\ud83d""#) && sse.contains(r#""\ude00"#));
    for at in 0..=sse.len() {
        let mut s = session(Inbound::Strict);
        s.create(&request("req-stream.json")).unwrap();
        let (a, b) = sse.as_bytes().split_at(at);
        s.feed(a);
        s.feed(b);
        let updates = s.drain_updates();
        assert_eq!(s.run().output[0].text(), text, "split at {at}");
        assert_eq!(issues(&updates), [], "split at {at}");
    }
}

#[test]
fn a_shrunk_event_list_is_a_warning_or_in_strict_mode_ends_the_run() {
    // A poller that sees `GET /runs/{run_id}/events` list fewer events than before reports it.
    let events = decode_events(&text("run-async-events.json")).unwrap();
    for strict in [false, true] {
        let mut session = AcpSession::new(SessionOptions {
            acp: AcpOptions {
                strict,
                ..AcpOptions::default()
            },
            inbound: Inbound::Lenient,
        });
        session.create(&request("req-sync.json")).unwrap();
        for e in events.iter().take(3).cloned() {
            session.push_event(e);
        }
        session.drain_updates();
        session.event_list_shrank(3, 0);
        let updates = session.drain_updates();
        let severity = if strict {
            Severity::Error
        } else {
            Severity::Warning
        };
        assert_eq!(
            issues(&updates),
            [(severity, "event-list-shrank".to_owned())]
        );
        let details = updates.iter().find_map(|u| match u {
            SessionUpdate::Acp(u) => match &**u {
                Update::Issue { details, .. } => Some(details.clone()),
                _ => None,
            },
            _ => None,
        });
        assert_eq!(details, Some(serde_json::json!({"seen": 3, "got": 0})));
        assert_eq!(session.assembler().is_stopped(), strict);
        // Lenient: the rest of the events complete the run.
        for e in events.iter().skip(3).cloned() {
            session.push_event(e);
        }
        let expected = if strict {
            RunStatus::Incomplete
        } else {
            RunStatus::Completed
        };
        assert_eq!(session.run().status, expected, "strict: {strict}");
    }
}
