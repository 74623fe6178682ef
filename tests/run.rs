//! Runs and communication schemas: checking schemas, moving runs, the built-in agents, Mermaid
//! export, and the ACP and Agent API lifecycles driven by real server streams.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::sync::Arc;

use agentwire::body::{Body, Part, PartKind};
use agentwire::dialect::acp::{AcpEvent, Message, RunCreateRequest, RunResumeRequest};
use agentwire::dialect::agent_api::AgentEvent;
use agentwire::run::{builtin, CommunicationSchema, Move, Party, Run, RunError};
use agentwire::ErrorCode;
use serde_json::{json, Value};

fn text(t: &str) -> Body {
    Body::new(vec![Part::inline(PartKind::Text, "text/plain", t)])
}

fn json_part(name: &str, v: Value) -> Part {
    Part::inline(PartKind::Data, "application/json", v.to_string()).named(name)
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

fn all_builtins() -> Vec<(&'static str, CommunicationSchema)> {
    vec![
        ("chat", builtin::chat()),
        ("researcher", builtin::researcher()),
        ("function_calling", builtin::function_calling()),
        ("interruptible_chat", builtin::interruptible_chat()),
        ("long_running", builtin::long_running()),
        ("acp_run", builtin::acp_run()),
        ("agent_api_response", builtin::agent_api_response()),
    ]
}

#[test]
fn builtin_schemas_are_valid_and_round_trip_through_json() {
    for (name, schema) in all_builtins() {
        assert!(
            schema.warnings().is_empty(),
            "{name}: {:?}",
            schema.warnings()
        );
        assert!(schema.states().any(|s| s == "idle"), "{name}");
        // A fallback would be `{"idle": []}`: every built-in has moves from idle.
        assert!(!schema.transitions("idle").unwrap().is_empty(), "{name}");
        let json = schema.to_json();
        let again = CommunicationSchema::from_json(&json).unwrap();
        assert_eq!(again, schema, "{name}");
        let via_serde: CommunicationSchema = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(via_serde, schema, "{name}");
        assert_eq!(serde_json::to_value(&schema).unwrap(), json, "{name}");
    }
    // The proposal's JSON shape, as written.
    assert_eq!(
        builtin::researcher().to_json(),
        json!({
            "idle": [{"party": "client", "type": "message",
                      "schema": [{"contentType": "text/*", "required": true}],
                      "nextState": "running"}],
            "running": [{"party": "server", "type": "message",
                         "schema": [{"contentType": "text/{plain,markdown}", "required": true},
                                    {"name": "/sources/*", "contentType": "text/x-uri", "required": false}],
                         "nextState": "done"}],
            "done": []
        })
    );
}

#[test]
fn schema_checks_are_typed_errors_and_warnings() {
    let t = |party: &str, ty: &str, next: &str| json!({"party": party, "type": ty, "schema": [], "nextState": next});
    let cases: Vec<(Value, &str, Value)> = vec![
        (
            json!({"start": [t("client", "go", "start")]}),
            "missing-initial-state",
            json!({"states": ["start"]}),
        ),
        (
            json!({"idle": [t("client", "go", "idle"), t("client", "go", "runing")]}),
            "unknown-next-state",
            json!({"state": "idle", "index": 1, "nextState": "runing"}),
        ),
        (
            json!({"idle": [t("client", "go", "idle"), t("server", "go", "idle"), t("client", "go", "idle")]}),
            "duplicate-transition",
            json!({"state": "idle", "party": "client", "type": "go", "first": 0, "index": 2}),
        ),
        (
            json!(["idle"]),
            "invalid-communication-schema",
            json!({"pointer": "", "reason": "a communication schema is an object from state name to a list of transitions"}),
        ),
        (
            json!({"idle": {}}),
            "invalid-communication-schema",
            json!({"pointer": "/idle", "reason": "a state's value must be a list of transitions"}),
        ),
        (
            json!({"idle": [t("agent", "go", "idle")]}),
            "invalid-communication-schema",
            json!({"pointer": "/idle/0/party", "reason": "`party` must be \"client\" or \"server\""}),
        ),
        (
            json!({"idle": [], "a/b~c": [{"party": "client", "schema": [], "nextState": "idle"}]}),
            "invalid-communication-schema",
            json!({"pointer": "/a~1b~0c/0/type", "reason": "missing `type`"}),
        ),
        (
            json!({"idle": [{"party": "client", "type": "go", "nextState": "idle"}]}),
            "invalid-communication-schema",
            json!({"pointer": "/idle/0/schema", "reason": "missing `schema`"}),
        ),
        (
            json!({"idle": [{"party": "client", "type": "go", "nextState": 3, "schema": []}]}),
            "invalid-communication-schema",
            json!({"pointer": "/idle/0/nextState", "reason": "`nextState` must be a string"}),
        ),
    ];
    for (input, code, details) in cases {
        let e = CommunicationSchema::from_json(&input).unwrap_err();
        assert_eq!(e.code(), code, "{input}");
        assert_eq!(e.details(), details, "{input}");
    }
    // A transition's body schema that does not compile: the pointer leads to it, the body error
    // says where inside it.
    let e = CommunicationSchema::from_json(&json!({
        "idle": [{"party": "client", "type": "go", "nextState": "idle",
                  "schema": [{"name": "/sources/{a", "contentType": "text/plain"}]}]
    }))
    .unwrap_err();
    assert_eq!(e.code(), "invalid-body-schema");
    assert_eq!(e.details()["pointer"], "/idle/0/schema");
    assert_eq!(e.details()["error"]["code"], "invalid-schema");
    assert_eq!(e.details()["error"]["details"]["pointer"], "/0/name");
    assert!(matches!(e, RunError::InvalidBodySchema { .. }));

    // Unreachable states are warnings, not errors.
    let s = CommunicationSchema::from_json(&json!({
        "idle": [t("client", "go", "idle")],
        "orphan": [t("server", "back", "idle")],
        "island": []
    }))
    .unwrap();
    assert_eq!(s.unreachable_states(), ["island", "orphan"]);
    let codes: Vec<(&str, Value)> = s
        .warnings()
        .iter()
        .map(|w| (w.code(), w.details()))
        .collect();
    assert_eq!(
        codes,
        [
            ("unreachable-state", json!({"state": "island"})),
            ("unreachable-state", json!({"state": "orphan"}))
        ]
    );
    // Built from Rust values, the same checks apply.
    let e = CommunicationSchema::new([("running".to_owned(), vec![])]).unwrap_err();
    assert_eq!(e.code(), "missing-initial-state");
}

#[test]
fn chat_moves_idle_to_running_and_back() {
    let mut run = Run::new("r1", builtin::chat());
    assert_eq!(run.id(), "r1");
    assert_eq!(run.state(), "idle");
    let moves: Vec<Move> = run.allowed_moves().iter().map(|t| t.as_move()).collect();
    assert_eq!(
        moves,
        [Move {
            party: Party::Client,
            message_type: "message".into(),
            next_state: "running".into()
        }]
    );
    assert_eq!(run.allowed_moves_of(Party::Server).count(), 0);

    // The agent may not speak first.
    let e = run
        .apply(Party::Server, "message", &text("hi"))
        .unwrap_err();
    assert_eq!(e.code(), "move-not-allowed");
    assert_eq!(
        e.details(),
        json!({"state": "idle", "party": "server", "type": "message", "terminal": false,
               "allowed": [{"party": "client", "type": "message", "nextState": "running"}]})
    );
    assert_eq!(
        e.to_string(),
        "in state `idle`, server may not send `message` (allowed: client message → running)"
    );

    assert_eq!(
        run.apply(Party::Client, "message", &text("Hello")).unwrap(),
        "running"
    );
    // An image is not a chat message.
    let image = Body::new(vec![Part::url(
        PartKind::Image,
        "image/png",
        "https://example.com/a.png",
    )]);
    let e = run.apply(Party::Server, "message", &image).unwrap_err();
    assert_eq!(e.code(), "body-mismatch");
    let d = e.details();
    assert_eq!(d["state"], "running");
    let vcodes: Vec<&str> = d["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["code"].as_str().unwrap())
        .collect();
    assert_eq!(vcodes, ["content-type-mismatch", "missing-required-part"]);
    assert_eq!(d["allowed"][0]["party"], "server");
    assert_eq!(run.state(), "running");
    // Checking is a dry run.
    assert_eq!(
        run.check(Party::Server, "message", &text("Hi!"))
            .unwrap()
            .next_state,
        "idle"
    );
    assert_eq!(run.state(), "running");
    assert_eq!(
        run.apply(Party::Server, "message", &text("Hi!")).unwrap(),
        "idle"
    );
    assert_eq!(run.messages().len(), 2);
    assert!(!run.is_terminal());
    let v = serde_json::to_value(&run).unwrap();
    assert_eq!(v["id"], "r1");
    assert_eq!(v["state"], "idle");
    assert_eq!(v["messages"][0]["party"], "client");
    assert_eq!(v["messages"][0]["type"], "message");
    assert_eq!(v["messages"][0]["fromState"], "idle");
    assert_eq!(v["messages"][0]["toState"], "running");
    assert_eq!(v["messages"][1]["body"]["parts"][0]["content"], "Hi!");
}

#[test]
fn researcher_ends_in_done_with_its_sources() {
    let schema = Arc::new(builtin::researcher());
    let mut run = Run::new("r2", schema.clone());
    // The run shares the schema it was given (what `RunSession.schema` hands to JavaScript).
    assert!(Arc::ptr_eq(run.shared_schema(), &schema));
    run.apply(Party::Client, "message", &text("Is Pluto a planet?"))
        .unwrap();
    // Without the required text, with a source that is not a URI.
    let bad = Body::new(vec![
        Part::inline(PartKind::Text, "text/html", "<a>").named("/sources/1")
    ]);
    let e = run.apply(Party::Server, "message", &bad).unwrap_err();
    let RunError::BodyMismatch { violations, .. } = &e else {
        panic!("{e:?}")
    };
    let vcodes: Vec<&str> = violations.iter().map(|v| v.code.as_str()).collect();
    assert_eq!(vcodes, ["content-type-mismatch", "missing-required-part"]);
    assert_eq!(violations[0].name.as_deref(), Some("/sources/1"));
    // A part the schema does not mention.
    let extra = Body::new(vec![
        Part::inline(PartKind::Text, "text/plain", "No."),
        Part::inline(PartKind::Text, "text/plain", "draft").named("/notes/1"),
    ]);
    let e = run.apply(Party::Server, "message", &extra).unwrap_err();
    assert_eq!(e.details()["violations"][0]["code"], "unexpected-part");

    let answer = Body::new(vec![
        Part::inline(PartKind::Text, "text/markdown", "No: a **dwarf** planet."),
        Part::inline(PartKind::Text, "text/x-uri", "https://www.iau.org/").named("/sources/1"),
        Part::inline(PartKind::Text, "text/x-uri", "https://nasa.gov/").named("/sources/2"),
    ]);
    assert_eq!(
        run.apply(Party::Server, "message", &answer).unwrap(),
        "done"
    );
    assert!(run.is_terminal());
    assert!(run.allowed_moves().is_empty());
    let e = run
        .apply(Party::Client, "message", &text("Thanks"))
        .unwrap_err();
    assert_eq!(e.code(), "move-not-allowed");
    assert_eq!(e.details()["terminal"], true);
    assert_eq!(e.details()["allowed"], json!([]));
    assert!(e.to_string().contains("terminal"));
    // A second run of the same schema starts afresh.
    assert_eq!(Run::new("r3", schema).state(), "idle");
}

#[test]
fn function_calling_waits_for_the_clients_answer() {
    let mut run = Run::new("r4", builtin::function_calling());
    run.apply(Party::Client, "message", &text("Weather in Paris?"))
        .unwrap();
    // A call without its /function part.
    let e = run
        .apply(Party::Server, "function_call", &text("get_weather"))
        .unwrap_err();
    let details = e.details();
    let vcodes: Vec<&str> = details["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["code"].as_str().unwrap())
        .collect();
    assert_eq!(vcodes, ["unexpected-part", "missing-required-part"]);
    // A /function part of the wrong type.
    let wrong = Body::new(vec![
        Part::inline(PartKind::Text, "text/plain", "x").named("/function")
    ]);
    assert_eq!(
        run.apply(Party::Server, "function_call", &wrong)
            .unwrap_err()
            .details()["violations"][0]["code"],
        "content-type-mismatch"
    );
    let call = Body::new(vec![json_part(
        "/function",
        json!({"name": "get_weather", "arguments": {"city": "Paris"}}),
    )]);
    assert_eq!(
        run.apply(Party::Server, "function_call", &call).unwrap(),
        "calling"
    );
    // The agent cannot go on until the client answers.
    let e = run
        .apply(Party::Server, "message", &text("It is sunny"))
        .unwrap_err();
    assert_eq!(
        e.details()["allowed"],
        json!([{"party": "client", "type": "function_result", "nextState": "running"}])
    );
    let result = Body::new(vec![json_part("/result", json!({"temp": 21}))]);
    assert_eq!(
        run.apply(Party::Client, "function_result", &result)
            .unwrap(),
        "running"
    );
    // Another call, another answer, then the reply.
    run.apply(Party::Server, "function_call", &call).unwrap();
    run.apply(Party::Client, "function_result", &result)
        .unwrap();
    assert_eq!(
        run.apply(Party::Server, "message", &text("21 °C")).unwrap(),
        "idle"
    );
    let path: Vec<(&str, &str)> = run
        .messages()
        .iter()
        .map(|m| (m.message_type.as_str(), m.to_state.as_str()))
        .collect();
    assert_eq!(
        path,
        [
            ("message", "running"),
            ("function_call", "calling"),
            ("function_result", "running"),
            ("function_call", "calling"),
            ("function_result", "running"),
            ("message", "idle")
        ]
    );
}

#[test]
fn interruptible_chat_accepts_a_cancel_while_running() {
    let mut run = Run::new("r5", builtin::interruptible_chat());
    let e = run
        .apply(Party::Client, "cancel", &Body::default())
        .unwrap_err();
    assert_eq!(e.code(), "move-not-allowed");
    run.apply(Party::Client, "message", &text("Write a long poem"))
        .unwrap();
    let mut parties: Vec<Party> = run.allowed_moves().iter().map(|t| t.party).collect();
    parties.sort();
    assert_eq!(parties, [Party::Client, Party::Server]);
    // A cancel carries no parts.
    let e = run
        .apply(Party::Client, "cancel", &text("stop"))
        .unwrap_err();
    assert_eq!(e.details()["violations"][0]["code"], "unexpected-part");
    assert_eq!(
        run.apply(Party::Client, "cancel", &Body::default())
            .unwrap(),
        "idle"
    );
    run.apply(Party::Client, "message", &text("A short one then"))
        .unwrap();
    assert_eq!(
        run.apply(Party::Server, "message", &text("Roses…"))
            .unwrap(),
        "idle"
    );
}

#[test]
fn long_running_loops_then_finishes_or_is_cancelled() {
    let mut run = Run::new("r6", builtin::long_running());
    run.apply(Party::Client, "message", &text("Index the repo"))
        .unwrap();
    for i in 0..5 {
        let progress = Body::new(vec![
            Part::inline(PartKind::Text, "text/plain", format!("{i}0%")),
            json_part("/progress", json!({"done": i})),
        ]);
        assert_eq!(
            run.apply(Party::Server, "message", &progress).unwrap(),
            "running"
        );
    }
    let result = Body::new(vec![
        Part::inline(PartKind::Text, "text/plain", "Indexed 120 files"),
        json_part("/index/stats", json!({"files": 120})),
    ]);
    assert_eq!(run.apply(Party::Server, "result", &result).unwrap(), "done");
    assert!(run.is_terminal());
    assert_eq!(run.messages().len(), 7);

    let mut run = Run::new("r7", builtin::long_running());
    run.apply(Party::Client, "message", &text("Index the repo"))
        .unwrap();
    run.apply(Party::Server, "message", &text("10%")).unwrap();
    assert_eq!(
        run.apply(Party::Client, "cancel", &Body::default())
            .unwrap(),
        "cancelled"
    );
    assert!(run.is_terminal());
    let e = run
        .apply(Party::Server, "message", &text("20%"))
        .unwrap_err();
    assert_eq!(e.details()["terminal"], true);
}

#[test]
fn schemas_export_as_mermaid_state_diagrams() {
    assert_eq!(
        builtin::researcher().to_mermaid(),
        "stateDiagram-v2\n    [*] --> idle\n    idle --> running: client message\n    done --> [*]\n    running --> done: server message\n"
    );
    let acp = builtin::acp_run().to_mermaid();
    assert!(acp.starts_with("stateDiagram-v2\n"));
    // `in-progress` is not a Mermaid identifier: it is declared with an alias.
    assert!(
        acp.contains("    state \"in-progress\" as in_progress\n"),
        "{acp}"
    );
    assert!(
        acp.contains("    in_progress --> awaiting: server run.awaiting\n"),
        "{acp}"
    );
    assert!(
        acp.contains("    awaiting --> in_progress: client resume\n"),
        "{acp}"
    );
    for terminal in ["completed", "failed", "cancelled"] {
        assert!(acp.contains(&format!("    {terminal} --> [*]\n")), "{acp}");
    }
    // One line per transition, plus the start, the aliases and the terminal states.
    for (name, schema) in all_builtins() {
        let m = schema.to_mermaid();
        let arrows = m
            .lines()
            .filter(|l| l.contains(" --> ") && !l.contains("[*]"))
            .count();
        let transitions: usize = schema
            .states()
            .map(|s| schema.transitions(s).unwrap().len())
            .sum();
        assert_eq!(arrows, transitions, "{name}");
    }
    // Aliases never collide with other states.
    let twins = CommunicationSchema::from_json(&json!({
        "idle": [{"party": "client", "type": "go", "schema": [], "nextState": "a-b"}],
        "a-b": [{"party": "server", "type": "go", "schema": [], "nextState": "a_b"}],
        "a_b": []
    }))
    .unwrap();
    assert_eq!(
        twins.to_mermaid(),
        "stateDiagram-v2\n    state \"a-b\" as a_b_0\n    [*] --> idle\n    idle --> a_b_0: client go\n    a_b_0 --> a_b: server go\n    a_b --> [*]\n"
    );
    // Nor with a state named as the alias would be.
    let triplets = CommunicationSchema::from_json(&json!({
        "idle": [
            {"party": "client", "type": "x", "schema": [], "nextState": "a-b"},
            {"party": "client", "type": "y", "schema": [], "nextState": "a_b_0"}
        ],
        "a-b": [{"party": "server", "type": "z", "schema": [], "nextState": "a_b"}],
        "a_b": [],
        "a_b_0": []
    }))
    .unwrap();
    assert_eq!(
        triplets.to_mermaid(),
        "stateDiagram-v2\n    state \"a-b\" as a_b_1\n    [*] --> idle\n    idle --> a_b_1: client x\n    idle --> a_b_0: client y\n    a_b_1 --> a_b: server z\n    a_b --> [*]\n    a_b_0 --> [*]\n"
    );
    // Labels cannot break the diagram.
    let odd = CommunicationSchema::from_json(&json!({
        "idle": [{"party": "client", "type": "a;b#c\nd", "schema": [], "nextState": "idle"}]
    }))
    .unwrap();
    assert_eq!(
        odd.to_mermaid(),
        "stateDiagram-v2\n    [*] --> idle\n    idle --> idle: client a#59;b#35;c d\n"
    );
}

/// Applies every event of an ACP stream to `run`.
fn apply_acp_stream(run: &mut Run, sse: &[u8]) {
    for data in events_of(sse) {
        let event = AcpEvent::parse(&data).unwrap();
        let (party, ty, body) = builtin::acp_event_move(&event);
        let from = run.state().to_owned();
        run.apply(party, &ty, &body)
            .unwrap_or_else(|e| panic!("{ty} in {from}: {e}"));
    }
}

fn acp_fixture(name: &str) -> Vec<u8> {
    common::fixture(&format!("acp-sdk/{name}"))
}

fn input_body(request: &RunCreateRequest) -> Body {
    Body::new(request.input.iter().flat_map(|m| m.body().parts).collect())
}

#[test]
fn acp_fixtures_follow_the_acp_run_lifecycle() {
    let schema = Arc::new(builtin::acp_run());

    // A streamed run: create, then the server's events, to `completed`.
    let request: RunCreateRequest =
        serde_json::from_slice(&acp_fixture("req-stream.json")).unwrap();
    let mut run = Run::new("4b2e0159", schema.clone());
    assert_eq!(
        run.apply(Party::Client, "create", &input_body(&request))
            .unwrap(),
        "created"
    );
    apply_acp_stream(&mut run, &acp_fixture("run-stream.sse"));
    assert_eq!(run.state(), "completed");
    assert!(run.is_terminal());
    assert_eq!(run.messages().len(), 19);
    // Nothing may follow.
    let e = run
        .apply(Party::Server, "message.part", &Body::default())
        .unwrap_err();
    assert_eq!(e.details()["terminal"], true);

    // Await, then resume.
    let request: RunCreateRequest =
        serde_json::from_slice(&acp_fixture("req-approval-stream.json")).unwrap();
    let mut run = Run::new("b911259a", schema.clone());
    run.apply(Party::Client, "create", &input_body(&request))
        .unwrap();
    apply_acp_stream(&mut run, &acp_fixture("await-stream.sse"));
    assert_eq!(run.state(), "awaiting");
    let mut client: Vec<&str> = run
        .allowed_moves_of(Party::Client)
        .map(|t| t.message_type.as_str())
        .collect();
    client.sort();
    assert_eq!(client, ["cancel", "resume"]);
    // The agent does not stream while it waits.
    let e = run
        .apply(Party::Server, "message.part", &Body::default())
        .unwrap_err();
    assert_eq!(e.code(), "move-not-allowed");
    let resume: RunResumeRequest =
        serde_json::from_slice(&acp_fixture("req-resume-stream.json")).unwrap();
    let answer = resume.await_resume.message.unwrap_or_default();
    assert_eq!(
        run.apply(Party::Client, "resume", &answer.body()).unwrap(),
        "in-progress"
    );
    apply_acp_stream(&mut run, &acp_fixture("resume-stream.sse"));
    assert_eq!(run.state(), "completed");

    // The async run's event list follows the same path.
    let mut run = Run::new("a5ea8e81", schema.clone());
    run.apply(Party::Client, "create", &text("hello world"))
        .unwrap();
    let events = agentwire::dialect::acp::decode_events(
        std::str::from_utf8(&acp_fixture("run-async-events.json")).unwrap(),
    )
    .unwrap();
    for e in &events {
        let (party, ty, body) = builtin::acp_event_move(e);
        run.apply(party, &ty, &body).unwrap();
    }
    assert_eq!(run.state(), "completed");

    // A failed run, and one cancelled by the client.
    let mut run = Run::new("a30cab2b", schema.clone());
    run.apply(Party::Client, "create", &text("x")).unwrap();
    apply_acp_stream(&mut run, FAILED_EVENTS.as_bytes());
    assert_eq!(run.state(), "failed");
    let mut run = Run::new("7a5580d9", schema);
    run.apply(Party::Client, "create", &text("x")).unwrap();
    apply_acp_stream(&mut run, CANCEL_BEFORE.as_bytes());
    assert_eq!(run.state(), "in-progress");
    assert_eq!(
        run.apply(Party::Client, "cancel", &Body::default())
            .unwrap(),
        "cancelling"
    );
    apply_acp_stream(&mut run, CANCEL_AFTER.as_bytes());
    assert_eq!(run.state(), "cancelled");
}

/// The `failer` agent's stream (acp-sdk 1.0.3), trimmed to its event types and parts.
const FAILED_EVENTS: &str = concat!(
    "data: {\"type\":\"run.created\",\"run\":{\"run_id\":\"a30cab2b\",\"agent_name\":\"failer\",\"status\":\"created\"}}\n\n",
    "data: {\"type\":\"run.in-progress\",\"run\":{\"run_id\":\"a30cab2b\",\"agent_name\":\"failer\",\"status\":\"in-progress\"}}\n\n",
    "data: {\"type\":\"message.created\",\"message\":{\"role\":\"agent/failer\",\"parts\":[],\"created_at\":\"2026-11-21T05:22:31.166444Z\",\"completed_at\":null}}\n\n",
    "data: {\"type\":\"message.part\",\"part\":{\"name\":null,\"content_type\":\"text/plain\",\"content\":\"partial \",\"content_encoding\":\"plain\",\"content_url\":null,\"metadata\":null}}\n\n",
    "data: {\"type\":\"run.failed\",\"run\":{\"run_id\":\"a30cab2b\",\"agent_name\":\"failer\",\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"boom from agent\",\"data\":null}}}\n\n",
);

/// The `slow` agent's stream before the client's `POST /runs/{run_id}/cancel`…
const CANCEL_BEFORE: &str = concat!(
    "data: {\"type\":\"run.created\",\"run\":{\"run_id\":\"7a5580d9\",\"agent_name\":\"slow\",\"status\":\"created\"}}\n\n",
    "data: {\"type\":\"run.in-progress\",\"run\":{\"run_id\":\"7a5580d9\",\"agent_name\":\"slow\",\"status\":\"in-progress\"}}\n\n",
    "data: {\"type\":\"message.created\",\"message\":{\"role\":\"agent/slow\",\"parts\":[]}}\n\n",
    "data: {\"type\":\"message.part\",\"part\":{\"content\":\"tick 0 \"}}\n\n",
    "data: {\"type\":\"message.part\",\"part\":{\"content\":\"tick 1 \"}}\n\n",
);

/// … and after it (a tick already under way, then `run.cancelled`).
const CANCEL_AFTER: &str = concat!(
    "data: {\"type\":\"message.part\",\"part\":{\"content\":\"tick 2 \"}}\n\n",
    "data: {\"type\":\"run.cancelled\",\"run\":{\"run_id\":\"7a5580d9\",\"agent_name\":\"slow\",\"status\":\"cancelled\"}}\n\n",
);

#[test]
fn agent_api_fixtures_follow_the_response_lifecycle() {
    let schema = Arc::new(builtin::agent_api_response());
    for name in [
        "process-raw.sse",
        "process-text.sse",
        "process-agentscope.sse",
    ] {
        let mut run = Run::new(name, schema.clone());
        run.apply(Party::Client, "request", &text("hello world"))
            .unwrap();
        for data in events_of(&common::fixture(&format!("agentscope-runtime/{name}"))) {
            let event = AgentEvent::parse(&data).unwrap();
            let (party, ty, body) = builtin::agent_api_event_move(&event);
            run.apply(party, &ty, &body)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert_eq!(run.state(), "completed", "{name}");
    }
    // agentscope-runtime's answer to a malformed request.
    let mut run = Run::new("bad", schema);
    run.apply(Party::Client, "request", &Body::default())
        .unwrap();
    let event = AgentEvent::parse(r#"{"error": "Invalid request"}"#).unwrap();
    let (party, ty, body) = builtin::agent_api_event_move(&event);
    assert_eq!(run.apply(party, &ty, &body).unwrap(), "failed");
}

#[test]
fn acp_messages_are_checked_against_the_lifecycle_body_schemas() {
    // Run events carry no parts; message events may carry anything, names that are not paths
    // included.
    let mut run = Run::new("x", builtin::acp_run());
    run.apply(Party::Client, "create", &text("hi")).unwrap();
    let e = run
        .apply(Party::Server, "run.created", &text("surprise"))
        .unwrap_err();
    assert_eq!(e.code(), "body-mismatch");
    run.apply(Party::Server, "run.in-progress", &Body::default())
        .unwrap();
    let m = Message::new(
        agentwire::dialect::acp::Role::agent(Some("echo")),
        vec![
            agentwire::dialect::acp::MessagePart::inline("application/octet-stream", "aGVsbG8=")
                .named("hello.bin"),
        ],
    );
    run.apply(Party::Server, "message.completed", &m.body())
        .unwrap();
    assert_eq!(run.state(), "in-progress");
}

mod property {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_sequence_of_moves_keeps_the_run_in_a_state_of_its_schema(
            which in 0usize..7,
            moves in prop::collection::vec((any::<bool>(), 0usize..12, 0usize..4), 0..40),
        ) {
            let (_, schema) = all_builtins().swap_remove(which);
            let types: Vec<String> = schema
                .states()
                .flat_map(|s| schema.transitions(s).unwrap().iter().map(|t| t.message_type.clone()))
                .chain(["nonsense".to_owned()])
                .collect();
            let bodies = [
                Body::default(),
                text("x"),
                Body::new(vec![json_part("/function", json!({}))]),
                Body::new(vec![json_part("/result", json!({})), Part::inline(PartKind::Text, "text/plain", "y")]),
            ];
            let mut run = Run::new("p", schema.clone());
            for (client, t, b) in moves {
                let party = if client { Party::Client } else { Party::Server };
                let ty = &types[t % types.len()];
                let before = run.state().to_owned();
                let n = run.messages().len();
                match run.apply(party, ty, &bodies[b]) {
                    Ok(next) => {
                        let next = next.to_owned();
                        let t = schema.transition(&before, party, ty).unwrap();
                        prop_assert_eq!(&t.next_state, &next);
                        prop_assert_eq!(run.messages().len(), n + 1);
                    }
                    Err(e) => {
                        prop_assert_eq!(run.state(), before.as_str());
                        prop_assert_eq!(run.messages().len(), n);
                        prop_assert!(["move-not-allowed", "body-mismatch"].contains(&e.code()));
                        prop_assert!(e.details()["allowed"].is_array());
                    }
                }
                prop_assert!(schema.states().any(|s| s == run.state()));
            }
        }

        #[test]
        fn arbitrary_json_never_panics_the_schema_reader(
            states in prop::collection::vec(("[a-z]{0,3}", prop::collection::vec(("[a-z]{0,7}", "[a-z]{0,3}", "[a-z]{0,3}", any::<bool>()), 0..3)), 0..4),
        ) {
            let mut map = serde_json::Map::new();
            for (state, ts) in states {
                let list: Vec<Value> = ts
                    .into_iter()
                    .map(|(party, ty, next, with_schema)| {
                        let mut o = json!({"party": party, "type": ty, "nextState": next});
                        if with_schema {
                            o["schema"] = json!([{"contentType": "*/*"}]);
                        }
                        o
                    })
                    .collect();
                map.insert(state, Value::Array(list));
            }
            if let Ok(schema) = CommunicationSchema::from_json(&Value::Object(map)) {
                let again = CommunicationSchema::from_json(&schema.to_json()).unwrap();
                prop_assert_eq!(&again, &schema);
                let _ = schema.to_mermaid();
            }
        }
    }
}
