//! Agent API protocol: model round trips, the assembler on real server bytes (at every split), the
//! builders, and the request builder.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agentwire::dialect::agent_api::{
    AgentEvent, AgentRequest, AgentResponse, AgentStream, AssemblerOptions, ContentKind,
    MessageType, RequestBuilder, ResponseBuilder, Role, RunStatus, Severity, SplitUpdates,
    StreamUpdate,
};
use agentwire::ErrorCode;
use serde_json::{json, Value};

/// The agentscope-runtime captures in `shared/fixtures/agentscope-runtime/`.
const AGENTSCOPE_FIXTURES: [&str; 3] = [
    "process-raw.sse",
    "process-text.sse",
    "process-agentscope.sse",
];

/// The text deltas among `updates`, in order.
fn deltas(updates: &[StreamUpdate]) -> Vec<&str> {
    updates
        .iter()
        .filter_map(|u| match u {
            StreamUpdate::TextDelta { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

/// The codes of the issues among `updates`, in order.
fn issue_codes(updates: &[StreamUpdate]) -> Vec<&str> {
    updates
        .iter()
        .filter_map(|u| match u {
            StreamUpdate::Issue { code, .. } => Some(code.as_str()),
            _ => None,
        })
        .collect()
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

fn assemble(chunks: &[&[u8]], coalesce: bool) -> (AgentResponse, Vec<StreamUpdate>) {
    let mut s = AgentStream::new(AssemblerOptions {
        coalesce,
        ..Default::default()
    });
    let mut updates = Vec::new();
    for c in chunks {
        s.feed(c);
        updates.extend(s.drain_updates());
    }
    s.finish();
    updates.extend(s.drain_updates());
    (s.response().clone(), updates)
}

/// The server's last event: its final `response` object.
fn server_final(sse: &[u8]) -> AgentResponse {
    let last = events_of(sse).pop().expect("events");
    match AgentEvent::parse(&last).unwrap() {
        AgentEvent::Response(r) => r,
        other => panic!("last event is not a response: {other:?}"),
    }
}

/// What must agree between an assembled message and the server's: identity, status and each
/// content's payload (and its status where the server gives one).
fn message_view(m: &agentwire::dialect::agent_api::Message, server: bool) -> Value {
    let contents: Vec<Value> = m
        .content
        .iter()
        .map(|c| {
            let mut v = serde_json::to_value(c).unwrap();
            let o = v.as_object_mut().unwrap();
            for k in ["sequence_number", "msg_id", "index", "delta", "object"] {
                o.remove(k);
            }
            if server && c.status.is_none() {
                o.insert("status".into(), Value::Null);
            }
            v
        })
        .collect();
    json!({ "id": m.id, "type": m.kind, "role": m.role, "status": m.status, "content": contents })
}

fn assert_matches_server(ours: &AgentResponse, server: &AgentResponse) {
    assert_eq!(ours.id, server.id);
    assert_eq!(ours.status, server.status);
    assert_eq!(ours.error, server.error);
    assert_eq!(ours.session_id, server.session_id);
    assert_eq!(ours.created_at, server.created_at);
    assert_eq!(ours.completed_at, server.completed_at);
    for sm in &server.output {
        let om = ours
            .output
            .iter()
            .find(|m| m.id == sm.id)
            .unwrap_or_else(|| panic!("message {:?} missing", sm.id));
        let mut ov = message_view(om, false);
        let sv = message_view(sm, true);
        // Where the server leaves a content's status out, ours is not compared.
        for (oc, sc) in ov["content"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .zip(sv["content"].as_array().unwrap())
        {
            if sc["status"].is_null() {
                oc["status"] = Value::Null;
            }
        }
        assert_eq!(ov, sv, "message {:?}", sm.id);
    }
}

#[test]
fn every_fixture_event_round_trips_through_the_model() {
    for name in AGENTSCOPE_FIXTURES {
        let bytes = common::fixture(&format!("agentscope-runtime/{name}"));
        for data in events_of(&bytes) {
            let event = AgentEvent::parse(&data).unwrap();
            let original: Value = serde_json::from_str(&data).unwrap();
            let again: Value = serde_json::to_value(&event).unwrap();
            // Every non-null field survives; nulls are written as absent.
            fn strip_nulls(v: &Value) -> Value {
                match v {
                    Value::Object(m) => Value::Object(
                        m.iter()
                            .filter(|(_, v)| !v.is_null())
                            .map(|(k, v)| (k.clone(), strip_nulls(v)))
                            .collect(),
                    ),
                    Value::Array(a) => Value::Array(a.iter().map(strip_nulls).collect()),
                    other => other.clone(),
                }
            }
            let mut expected = strip_nulls(&original);
            // `content: null` / `output: null` read as empty lists.
            for k in ["content", "output"] {
                if original.get(k) == Some(&Value::Null) {
                    expected[k] = json!([]);
                }
            }
            assert_eq!(strip_nulls(&again), expected, "{name}: {data}");
            assert_eq!(
                AgentEvent::parse(&serde_json::to_string(&event).unwrap()).unwrap(),
                event
            );
        }
    }
}

#[test]
fn unknown_types_statuses_and_fields_are_kept() {
    let data = r#"{"object":"message","id":"msg_1","type":"mcp_call_output","status":"paused","role":"robot","x_vendor":{"a":1},"content":[{"object":"content","type":"hologram","beam":"blue"}]}"#;
    let AgentEvent::Message(m) = AgentEvent::parse(data).unwrap() else {
        panic!()
    };
    assert_eq!(m.kind, MessageType::McpCallOutput);
    assert_eq!(m.status, Some(RunStatus::Other("paused".into())));
    assert_eq!(m.role, Some(Role::Other("robot".into())));
    assert_eq!(m.extra["x_vendor"], json!({"a": 1}));
    assert_eq!(m.content[0].kind, ContentKind::Other("hologram".into()));
    assert_eq!(m.content[0].extra["beam"], "blue");
    let back: Value = serde_json::to_value(AgentEvent::Message(m)).unwrap();
    assert_eq!(back, serde_json::from_str::<Value>(data).unwrap());
}

/// A JSON object keeps its members in the order the server wrote them, as `JSON.parse` does: a
/// data content's object (nested too), and the unknown members kept beside the known fields, in
/// the updates and in the response.
#[test]
fn objects_keep_their_members_order() {
    let data = r#"{"zeta":1,"alpha":{"y":1,"b":2},"mid":[{"q":1,"p":2}]}"#;
    let sse = [
        r#"data: {"object":"response","id":"r1","status":"created"}"#.to_owned(),
        r#"data: {"object":"message","id":"m1","type":"message","role":"assistant","status":"in_progress","x_z":1,"x_a":2}"#.to_owned(),
        format!(r#"data: {{"object":"content","msg_id":"m1","index":0,"type":"data","status":"completed","data":{data}}}"#),
        r#"data: {"object":"response","id":"r1","status":"completed"}"#.to_owned(),
    ]
    .join("\n\n")
        + "\n\n";
    let mut s = AgentStream::new(AssemblerOptions::default());
    s.feed(sse.as_bytes());
    s.finish();
    let mut updates = String::new();
    s.assembler_mut().drain_updates_json(&mut updates);
    let response = serde_json::to_string(s.response()).unwrap();
    for text in [&updates, &response] {
        assert!(text.contains(&format!(r#""data":{data}"#)), "{text}");
        assert!(text.contains(r#""x_z":1,"x_a":2"#), "{text}");
    }
    let Some(Value::Object(o)) = s.response().output[0].content[0].data.clone() else {
        panic!("a data content")
    };
    assert_eq!(o.keys().collect::<Vec<_>>(), ["zeta", "alpha", "mid"]);
    // A member given twice keeps its first place and its last value, as in `JSON.parse`.
    let twice = agentwire_core::json::parse_value(r#"{"b":1,"a":2,"b":3}"#).unwrap();
    assert_eq!(serde_json::to_string(&twice).unwrap(), r#"{"b":3,"a":2}"#);
}

#[test]
fn raw_fixture_assembles_to_the_servers_final_response_at_every_split() {
    let bytes = common::fixture("agentscope-runtime/process-raw.sse");
    let server = server_final(&bytes);
    let (whole, whole_updates) = assemble(&[&bytes], false);
    assert_matches_server(&whole, &server);
    assert_eq!(whole.output.len(), 4);
    assert_eq!(whole.output[0].text(), "Echo: hello world");
    // The function call's arguments streamed as two data deltas that concatenate.
    let call = whole.output[1].content[0].function_call().unwrap();
    assert_eq!(call.arguments, r#"{"city": "Paris"}"#);
    assert!(!whole_updates
        .iter()
        .any(|u| matches!(u, StreamUpdate::Issue { .. })));
    for i in 0..=bytes.len() {
        let (a, b) = bytes.split_at(i);
        let (r, updates) = assemble(&[a, b], false);
        assert_eq!(r, whole, "split at {i}");
        assert_eq!(updates, whole_updates, "updates, split at {i}");
    }
}

#[test]
fn text_mode_deltas_before_any_message_event_create_the_message() {
    let bytes = common::fixture("agentscope-runtime/process-text.sse");
    let (r, updates) = assemble(&[&bytes], false);
    assert_matches_server(&r, &server_final(&bytes));
    // The first update about the message is the message itself, before any content.
    let first_msg = updates
        .iter()
        .position(|u| matches!(u, StreamUpdate::Message { .. }))
        .unwrap();
    let first_content = updates
        .iter()
        .position(|u| matches!(u, StreamUpdate::Content { .. }))
        .unwrap();
    assert!(first_msg < first_content);
    assert_eq!(deltas(&updates).concat(), "Echo: hello world");
}

#[test]
fn agentscope_fixture_keeps_the_message_the_server_left_out() {
    let bytes = common::fixture("agentscope-runtime/process-agentscope.sse");
    let server = server_final(&bytes);
    let (r, updates) = assemble(&[&bytes], false);
    assert_matches_server(&r, &server);
    assert_eq!(r.output.len(), server.output.len() + 1);
    let extra = r.output.last().unwrap();
    assert_eq!(extra.status, Some(RunStatus::Incomplete));
    assert_eq!(
        extra.content[0].image_url.as_deref(),
        Some("https://example.com/cat.png")
    );
    assert!(updates.iter().any(|u| matches!(u,
        StreamUpdate::Issue { code, severity: Severity::Warning, .. } if code == "message-missing-from-output")));
    // The plugin call whose first data event had `index: null` has one content.
    assert_eq!(r.output[1].kind, MessageType::PluginCall);
    assert_eq!(r.output[1].content.len(), 1);
}

#[test]
fn coalesced_updates_carry_the_same_text_in_fewer_deltas() {
    let bytes = common::fixture("agentscope-runtime/process-raw.sse");
    let (plain, plain_updates) = assemble(&[&bytes], false);
    let (co, co_updates) = assemble(&[&bytes], true);
    assert_eq!(plain, co);
    assert_eq!(
        deltas(&plain_updates).concat(),
        deltas(&co_updates).concat()
    );
    let count = |us: &[StreamUpdate]| {
        us.iter()
            .filter(|u| matches!(u, StreamUpdate::TextDelta { .. }))
            .count()
    };
    assert!(count(&co_updates) < count(&plain_updates));
}

#[test]
fn json_updates_match_the_materialized_updates() {
    let bytes = common::fixture("agentscope-runtime/process-raw.sse");
    for coalesce in [false, true] {
        let mut a = AgentStream::new(AssemblerOptions {
            coalesce,
            ..Default::default()
        });
        let mut b = a.clone();
        let mut json_out = Vec::new();
        let mut owned = Vec::new();
        for chunk in bytes.chunks(700) {
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
}

/// The entries of a split form's `table`, each with its numbers.
fn entries(table: &[u32]) -> Vec<&[u32]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < table.len() {
        let len = match table[i] {
            SplitUpdates::JSON => 1,
            SplitUpdates::CONTENT_TEXT => 3,
            SplitUpdates::TEXT_DELTA => 6,
            SplitUpdates::PLAIN_MESSAGE => 12,
            SplitUpdates::PLAIN_CONTENT => 17,
            _ => 2 + 4 * table[i + 1] as usize,
        };
        out.push(&table[i..i + len]);
        i += len;
    }
    out
}

/// The SSE event of an Agent API text delta of content 0 of message `msg_id`.
fn text_delta_event(msg_id: &str, text: &str) -> String {
    format!(
        "data: {}\n\n",
        json!({"object": "content", "msg_id": msg_id, "index": 0, "delta": true, "type": "text", "text": text})
    )
}

/// Feeds `chunks` to two streams and drains one as JSON, the other split, after every chunk.
fn json_and_split(chunks: &[&[u8]], options: AssemblerOptions) -> (Vec<Value>, Vec<Value>) {
    let mut a = AgentStream::new(options);
    let mut b = a.clone();
    let (mut from_json, mut from_split) = (Vec::new(), Vec::new());
    let mut split = SplitUpdates::default();
    let mut drain = |a: &mut AgentStream, b: &mut AgentStream| {
        let mut s = String::new();
        a.assembler_mut().drain_updates_json(&mut s);
        from_json.extend(serde_json::from_str::<Vec<Value>>(&s).unwrap());
        b.assembler_mut().drain_updates_split(&mut split);
        from_split.extend(split.updates_json().expect("the split form reads back"));
    };
    for c in chunks {
        a.feed(c);
        b.feed(c);
        drain(&mut a, &mut b);
    }
    a.finish();
    b.finish();
    drain(&mut a, &mut b);
    // The response in split form builds the same response, and is left as it was.
    let before = b.response().clone();
    b.assembler_mut().response_split(&mut split);
    let r = split.response_json().expect("the response reads back");
    let whole: Value = serde_json::from_str(&serde_json::to_string(b.response()).unwrap()).unwrap();
    assert_eq!(r, whole);
    assert_eq!(b.response(), &before);
    (from_json, from_split)
}

#[test]
fn split_updates_build_the_same_updates_as_json() {
    for name in AGENTSCOPE_FIXTURES {
        let bytes = common::fixture(&format!("agentscope-runtime/{name}"));
        for coalesce in [false, true] {
            let options = AssemblerOptions {
                coalesce,
                ..Default::default()
            };
            let (whole, split) = json_and_split(&[&bytes], options);
            assert_eq!(split, whole, "{name}");
            for size in [1, 7, 64, 700] {
                let chunks: Vec<&[u8]> = bytes.chunks(size).collect();
                let (j, s) = json_and_split(&chunks, options);
                assert_eq!(s, j, "{name}, chunks of {size}");
                if !coalesce {
                    // (Batched, the chunks decide which deltas merge.)
                    assert_eq!(j, whole, "{name}, chunks of {size}");
                }
            }
        }
    }
}

#[test]
fn split_updates_keep_an_unusual_object_of_a_message_or_content() {
    // A message's content array may hold an item whose `object` is not "content" (a response's
    // output, a message whose `object` is not "message"): the plain entries of the split form
    // write "message" and "content", so such items must travel as JSON. Found by the agent_api
    // fuzz target: a message snapshot whose content differs from the streamed deltas (so it
    // replaces them) and has `"object": "conoent"`.
    let message = json!({"object": "message", "id": "m1", "type": "message", "status": "completed",
        "content": [{"object": "conoent", "msg_id": "m1", "index": 0, "type": "text", "text": "hi there"}]});
    let sse = format!("{}data: {message}\n\n", text_delta_event("m1", "hi"));
    let (j, s) = json_and_split(&[sse.as_bytes()], AssemblerOptions::default());
    assert!(
        j.iter().any(|u| u["content"]["object"] == "conoent"),
        "the content update keeps the object it was sent with: {j:?}"
    );
    assert_eq!(s, j);
}

/// An event's data that is not UTF-8 is decoded with replacements (U+FFFD, WHATWG's "UTF-8
/// decode"), in a delta's text, a message's nested content and an unknown member's key alike,
/// and `AgentStream` reads it as an `Assembler` fed the decoder's events does.
#[test]
fn event_data_that_is_not_utf8_reads_with_replacement_characters() {
    let mut sse = Vec::new();
    sse.extend_from_slice(
        b"data: {\"object\":\"message\",\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"object\":\"content\",\"type\":\"text\",\"text\":\"a\xffb\"}]}\n\n",
    );
    sse.extend_from_slice(text_delta_event("m1", "ok").as_bytes());
    sse.extend_from_slice(
        b"data: {\"object\":\"content\",\"msg_id\":\"m1\",\"index\":0,\"delta\":true,\"type\":\"text\",\"text\":\"caf\xc3\xa9 \xe2\x82!\"}\n\n",
    );
    sse.extend_from_slice(
        b"data: {\"object\":\"content\",\"msg_id\":\"m1\",\"index\":0,\"delta\":true,\"type\":\"text\",\"x\xfe\":1,\"text\":\".\"}\n\n",
    );
    let (response, updates) = assemble(&[&sse], false);
    assert_eq!(deltas(&updates), ["ok", "caf\u{e9} \u{FFFD}!", "."]);
    let content = &response.output[0].content[0];
    assert_eq!(
        content.text.as_deref(),
        Some("a\u{FFFD}bokcaf\u{e9} \u{FFFD}!.")
    );
    // The same events decoded by the SSE decoder, then read from their `str`.
    let mut a = agentwire::dialect::agent_api::Assembler::new(AssemblerOptions::default());
    for data in events_of(&sse) {
        a.push_data(&data);
    }
    a.finish();
    assert_eq!(a.drain_updates(), updates);
    assert_eq!(a.response(), &response);
}

/// An event nested `levels` deep in all (its object level 1), through a content's `data`; with
/// `bad_utf8`, a byte that is not UTF-8 in another member (the event is then read decoded, by the
/// full parser, instead of the scan).
fn nested_data_event(levels: usize, bad_utf8: bool) -> Vec<u8> {
    let mut sse =
        b"data: {\"object\":\"content\",\"msg_id\":\"m1\",\"index\":0,\"type\":\"data\",\"x\":\""
            .to_vec();
    if bad_utf8 {
        sse.push(0xff);
    }
    let inner = levels - 1;
    sse.extend_from_slice(
        format!(
            "\",\"data\":{}1{}}}\n\n",
            "[".repeat(inner),
            "]".repeat(inner)
        )
        .as_bytes(),
    );
    sse
}

#[test]
fn an_events_nesting_is_read_to_127_levels_by_either_reader() {
    // Whatever `max_depth` allows, 127 levels are read and 128 refused (`invalid-json`), by the
    // scan and by the full parser alike: a byte elsewhere in the event cannot change the answer.
    // (The scan read 128 levels, the full parser 127.)
    let options = AssemblerOptions {
        limits: agentwire::limits::Limits {
            max_depth: 1000,
            ..Default::default()
        },
        ..AssemblerOptions::default()
    };
    for bad_utf8 in [false, true] {
        for (levels, read) in [(127, true), (128, false)] {
            let mut stream = AgentStream::new(options);
            stream.feed(&nested_data_event(levels, bad_utf8));
            let updates = stream.drain_updates();
            let codes = issue_codes(&updates);
            let what = format!("{levels} levels, bad UTF-8 {bad_utf8}");
            if read {
                assert!(codes.is_empty(), "{what}: {codes:?}");
                assert_eq!(stream.response().output[0].content.len(), 1, "{what}");
            } else {
                assert_eq!(codes, ["invalid-json"], "{what}");
                assert!(stream.response().output.is_empty(), "{what}");
            }
        }
    }
    // And so does `AgentEvent::parse`.
    let data = |levels| String::from_utf8(nested_data_event(levels, false)).unwrap();
    assert!(AgentEvent::parse(data(127).trim_start_matches("data: ").trim_end()).is_ok());
    assert!(AgentEvent::parse(data(128).trim_start_matches("data: ").trim_end()).is_err());
}

#[test]
fn split_offsets_count_utf16_units_and_escapes_stay_text() {
    // Two- and three-byte characters, one outside the BMP (a surrogate pair in JavaScript),
    // characters JSON escapes, and two messages whose deltas interleave (each run names its id).
    let sse = [
        text_delta_event("m1", "caf\u{e9} "),
        text_delta_event("m1", "\u{1F600}!"),
        text_delta_event("m2", "\"quoted\"\n\\"),
        text_delta_event("m1", "\u{6771}\u{4EAC}"),
        text_delta_event("m2", "\u{1F680}"),
    ]
    .concat();
    // A completing `content` event (a plain content: built from the table, its text in the split
    // text), one with an `error` (its JSON without the text, which travels in the split text),
    // and one with a field after `text` (kept in the JSON, so the key order stays serde's).
    let complete = |m: &str, t: &str, extra: Value| {
        let mut c = json!({"object": "content", "msg_id": m, "index": 0, "type": "text", "text": t, "status": "completed"});
        c.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        format!("data: {c}\n\n")
    };
    let ends = [
        complete("m1", "caf\u{e9} \u{1F600}!\u{6771}\u{4EAC}", json!({})),
        complete("m2", "\"quoted\"\n\\\u{1F680}", json!({"annotations": []})),
        complete("m3", "x", json!({"error": {"code": "E", "message": "m"}})),
    ]
    .concat();
    let (j, s) = json_and_split(
        &[sse.as_bytes(), ends.as_bytes()],
        AssemblerOptions::default(),
    );
    assert_eq!(s, j);
    let mut st = AgentStream::new(AssemblerOptions::default());
    st.feed(ends.as_bytes());
    let mut split = SplitUpdates::default();
    st.assembler_mut().drain_updates_split(&mut split);
    let moved = entries(&split.table)
        .into_iter()
        .filter(|e| e[0] == SplitUpdates::CONTENT_TEXT)
        .count();
    assert_eq!(moved, 1, "{:?}", split.table);
    let plain_with_text = entries(&split.table)
        .into_iter()
        .filter(|e| e[0] == SplitUpdates::PLAIN_CONTENT && e[4] & 32 != 0)
        .count();
    assert_eq!(plain_with_text, 1, "{:?}", split.table);
    assert!(!split.json.contains("caf"), "{}", split.json);
    assert!(split.json.contains(r#""code":"E""#) && !split.json.contains(r#""text":"x""#));
    assert!(split.json.contains(r#"\"quoted"#) && split.json.contains("annotations"));
    let deltas: Vec<&str> = s
        .iter()
        .filter(|u| u["type"] == "textDelta")
        .map(|u| u["delta"].as_str().unwrap())
        .collect();
    assert_eq!(
        deltas,
        [
            "caf\u{e9} ",
            "\u{1F600}!",
            "\"quoted\"\n\\",
            "\u{6771}\u{4EAC}",
            "\u{1F680}"
        ]
    );
    // The split form itself: ids written once per run, offsets in UTF-16 units.
    let mut st = AgentStream::new(AssemblerOptions::default());
    st.feed(sse.as_bytes());
    let mut split = SplitUpdates::default();
    st.assembler_mut().drain_updates_split(&mut split);
    assert_eq!(
        String::from_utf16(&split.text).unwrap(),
        concat!(
            "m1messagein_progresstextin_progresscaf\u{e9} \u{1F600}!",
            "m2messagein_progresstextin_progress\"quoted\"\n\\m1\u{6771}\u{4EAC}m2\u{1F680}"
        )
    );
    let deltas: Vec<&[u32]> = entries(&split.table)
        .into_iter()
        .filter(|e| e[0] == SplitUpdates::TEXT_DELTA)
        .collect();
    assert_eq!(
        deltas,
        [
            &[1, 0, 2, 0, 35, 40][..],
            &[1, 0, 2, 0, 40, 43],
            &[1, 43, 45, 0, 78, 88],
            &[1, 88, 90, 0, 90, 92],
            &[1, 92, 94, 0, 94, 96],
        ]
    );
    // The message and content a first delta announces are plain: built from the table, their
    // strings in the text, the message id reused from the message's entry.
    let plain: Vec<&[u32]> = entries(&split.table)
        .into_iter()
        .filter(|e| e[0] >= SplitUpdates::PLAIN_MESSAGE)
        .collect();
    assert_eq!(
        plain[..2],
        [
            &[4, 0b11, 0, 2, 2, 9, 9, 20, 0, 0, 0, 0][..],
            &[5, 0, 2, 0, 0b1101, 20, 24, 0, 0, 0, 2, 24, 35, 0, 0, 0, 0],
        ]
    );
}

#[test]
fn runs_of_deltas_cross_as_one_text_with_each_deltas_offsets() {
    // A content's deltas of one chunk are drained as one run: its text is written once and each
    // delta's offsets counted in it, in UTF-16 units (ASCII runs and runs with one-, two-, three-
    // and four-byte characters), whether the deltas are still ranges of their content's text or
    // were copied out because an event completed the content in the same chunk.
    let m1 = ["ab", "\u{e9}", "\u{1F600}c", "\u{6771}\u{4EAC}", "", "x"];
    let m2 = ["plain ", "ascii ", "run"];
    let mut sse: Vec<String> = m1.iter().map(|t| text_delta_event("m1", t)).collect();
    sse.extend(m2.iter().map(|t| text_delta_event("m2", t)));
    sse.push(text_delta_event("m1", "\u{1F680}"));
    let sse = sse.concat();
    let done = |m: &str, t: &str| {
        let c = json!({"object": "content", "msg_id": m, "index": 0, "type": "text", "text": t, "status": "completed"});
        format!("data: {c}\n\n")
    };
    let m1_text = format!("{}\u{1F680}", m1.concat());
    let ends = done("m1", &m1_text) + &done("m2", &m2.concat());
    // (An empty delta changes nothing and makes no update.)
    let mut want: Vec<&str> = m1
        .iter()
        .chain(&m2)
        .copied()
        .filter(|t| !t.is_empty())
        .collect();
    want.push("\u{1F680}");
    for chunk in [sse.clone(), sse.clone() + &ends] {
        let (j, s) = json_and_split(&[chunk.as_bytes()], AssemblerOptions::default());
        assert_eq!(s, j);
        let deltas: Vec<&str> = s
            .iter()
            .filter(|u| u["type"] == "textDelta")
            .map(|u| u["delta"].as_str().unwrap())
            .collect();
        assert_eq!(deltas, want);
    }
    // The offsets themselves: the first run's deltas follow one another in the text.
    let mut st = AgentStream::new(AssemblerOptions::default());
    st.feed(sse.as_bytes());
    let mut split = SplitUpdates::default();
    st.assembler_mut().drain_updates_split(&mut split);
    let ranges: Vec<[u32; 2]> = entries(&split.table)
        .into_iter()
        .filter(|e| e[0] == SplitUpdates::TEXT_DELTA)
        .map(|e| [e[4], e[5]])
        .collect();
    let s = ranges[0][0];
    assert_eq!(
        ranges[..5],
        [
            [s, s + 2],
            [s + 2, s + 3],
            [s + 3, s + 6],
            [s + 6, s + 8],
            [s + 8, s + 9]
        ]
    );
    let text = String::from_utf16(&split.text).unwrap();
    assert!(
        text.contains(&m1.concat()) && text.contains(&m2.concat()),
        "{text}"
    );
}

#[test]
fn malformed_request_error_event_fails_the_response() {
    let (r, updates) = assemble(
        &[b"data: {\"error\": \"Invalid request: field required\"}\n\n"],
        false,
    );
    assert_eq!(r.status, RunStatus::Failed);
    assert_eq!(
        r.error.as_ref().unwrap().message,
        "Invalid request: field required"
    );
    assert!(updates.iter().any(|u| matches!(u,
        StreamUpdate::Issue { code, severity: Severity::Error, .. } if code == "server-error")));
    assert!(matches!(updates.last(), Some(StreamUpdate::Done { .. })));
}

#[test]
fn failed_response_keeps_partial_content() {
    let sse = concat!(
        "data: {\"object\":\"response\",\"id\":\"response_1\",\"status\":\"in_progress\"}\n\n",
        "data: {\"object\":\"content\",\"type\":\"text\",\"index\":0,\"delta\":true,\"msg_id\":\"msg_1\",\"text\":\"partial \"}\n\n",
        "data: {\"object\":\"response\",\"id\":\"response_1\",\"status\":\"failed\",\"error\":{\"code\":\"ValueError\",\"message\":\"boom from agent\"}}\n\n",
    );
    let (r, updates) = assemble(&[sse.as_bytes()], false);
    assert_eq!(r.status, RunStatus::Failed);
    assert_eq!(r.error.as_ref().unwrap().code, "ValueError");
    assert_eq!(r.output[0].text(), "partial ");
    assert_eq!(r.output[0].status, Some(RunStatus::Incomplete));
    let issue = updates
        .iter()
        .find_map(|u| match u {
            StreamUpdate::Issue { error, .. } => Some(error),
            _ => None,
        })
        .unwrap();
    assert_eq!(issue.code(), "server-error");
}

#[test]
fn stream_without_terminal_status_is_incomplete_with_everything_kept() {
    let bytes = common::fixture("agentscope-runtime/process-raw.sse");
    let cut = &bytes[..bytes.len() / 2];
    let (r, updates) = assemble(&[cut], false);
    assert_eq!(r.status, RunStatus::Incomplete);
    assert_eq!(r.output[0].text(), "Echo: hello world");
    assert!(r
        .output
        .iter()
        .all(|m| m.status.as_ref().is_some_and(RunStatus::is_terminal)));
    assert!(updates.iter().any(|u| matches!(u,
        StreamUpdate::Issue { code, severity: Severity::Error, .. } if code == "stream-incomplete")));
}

#[test]
fn bytes_fed_after_finish_are_ignored() {
    let bytes = common::fixture("agentscope-runtime/process-raw.sse");
    let (head, tail) = bytes.split_at(bytes.len() / 2);
    let mut stream = AgentStream::new(AssemblerOptions::default());
    stream.feed(head);
    stream.finish();
    let ended = stream.response().clone();
    let updates = stream.assembler_mut().drain_updates();
    assert!(matches!(updates.last(), Some(StreamUpdate::Done { .. })));
    // The rest of the stream, a second finish: nothing changes, nothing more is recorded.
    stream.feed(tail);
    stream.finish();
    assert_eq!(stream.response(), &ended);
    assert_eq!(stream.response().status, RunStatus::Incomplete);
    assert!(stream.assembler_mut().drain_updates().is_empty());
}

#[test]
fn malformed_events_are_skipped_reported_and_do_not_stop_the_stream() {
    let sse = concat!(
        "data: {not json\n\n",
        "data: {\"object\":\"content\",\"index\":\"one\",\"msg_id\":\"m\"}\n\n",
        "data: {\"object\":\"content\",\"type\":\"text\",\"index\":0,\"msg_id\":\"m\",\"text\":\"ok\"}\n\n",
        "data: {\"object\":\"hologram\"}\n\n",
    );
    let (r, updates) = assemble(&[sse.as_bytes()], false);
    assert_eq!(r.output[0].text(), "ok");
    assert_eq!(
        issue_codes(&updates),
        [
            "invalid-json",
            "invalid-event",
            "unknown-event",
            "stream-incomplete"
        ]
    );
    match &updates[0] {
        StreamUpdate::Issue { details, .. } => {
            assert_eq!(details["data"], "{not json");
            assert_eq!(details["line"], 1);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn generate_streaming_response_emits_exactly_the_protocols_sequence() {
    let mut rb = ResponseBuilder::new(Some("s".into()));
    let events = rb.generate_streaming_response(&["Hel", "lo", "!"], Role::Assistant);
    let shape: Vec<String> = events
        .iter()
        .map(|e| match e {
            AgentEvent::Response(r) => format!("response {}", r.status),
            AgentEvent::Message(m) => format!("message {}", m.status.as_ref().unwrap()),
            AgentEvent::Content(c) if c.delta == Some(true) => {
                format!("delta {}", c.text.as_deref().unwrap())
            }
            AgentEvent::Content(c) => format!("content {}", c.status.as_ref().unwrap()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        shape,
        [
            "response created",
            "response in_progress",
            "message in_progress",
            "delta Hel",
            "delta lo",
            "delta !",
            "content completed",
            "message completed",
            "response completed"
        ]
    );
    let seqs: Vec<u64> = events
        .iter()
        .map(|e| match e {
            AgentEvent::Response(r) => r.sequence_number.unwrap(),
            AgentEvent::Message(m) => m.sequence_number.unwrap(),
            AgentEvent::Content(c) => c.sequence_number.unwrap(),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(seqs, (0..9).collect::<Vec<_>>());
    let AgentEvent::Response(last) = events.last().unwrap() else {
        panic!()
    };
    assert_eq!(last.output[0].text(), "Hello!");
    assert!(last.id.as_deref().unwrap().starts_with("response_"));
    assert!(last.output[0].id.as_deref().unwrap().starts_with("msg_"));
}

#[test]
fn a_response_event_of_another_response_is_reported() {
    // A stream that turns into another response mid-way (a proxy, a resume that reached another
    // response) was merged into one without a word, even in strict mode.
    let event = |id: &str, status: &str| {
        format!(r#"data: {{"object":"response","id":"{id}","status":"{status}"}}"#) + "\n\n"
    };
    let sse = [
        event("resp_1", "created"),
        event("resp_1", "in_progress"),
        event("resp_2", "completed"),
    ]
    .concat();
    for strict in [false, true] {
        let mut stream = AgentStream::new(AssemblerOptions {
            strict,
            ..AssemblerOptions::default()
        });
        stream.feed(sse.as_bytes());
        stream.finish();
        let updates = stream.drain_updates();
        let issue = updates
            .iter()
            .find_map(|u| match u {
                StreamUpdate::Issue {
                    code,
                    severity,
                    details,
                    ..
                } if code == "response-id-changed" => Some((*severity, details.clone())),
                _ => None,
            })
            .expect("reported");
        assert_eq!(issue.1, json!({"id": "resp_1", "got": "resp_2"}));
        let response = stream.response();
        if strict {
            assert_eq!(issue.0, Severity::Error);
            assert_eq!(response.id.as_deref(), Some("resp_1"), "the event refused");
            assert_eq!(response.status, RunStatus::Incomplete);
        } else {
            assert_eq!(issue.0, Severity::Warning);
            assert_eq!(response.id.as_deref(), Some("resp_2"));
            assert_eq!(response.status, RunStatus::Completed);
        }
    }
}

#[test]
fn builders_of_a_response_that_was_reset_number_their_events_on() {
    // A message builder from before `reset` still names its message and takes the next sequence
    // number (its event had neither: a gap in the numbers, a message without an id).
    let mut rb = ResponseBuilder::new(None);
    let created = rb.created();
    let mut mb = rb.create_message_builder(Role::Assistant, MessageType::Message);
    let before = mb.in_progress();
    rb.reset();
    let after = mb.complete();
    let next = rb.in_progress();
    let seq = |e: &AgentEvent| match e {
        AgentEvent::Response(r) => r.sequence_number,
        AgentEvent::Message(m) => m.sequence_number,
        _ => None,
    };
    let seqs: Vec<Option<u64>> = [&created, &before, &after, &next].map(seq).into();
    assert_eq!(seqs, [Some(0), Some(1), Some(2), Some(3)]);
    let AgentEvent::Message(m) = &after else {
        panic!("{after:?}")
    };
    assert_eq!(m.id.as_deref(), Some(mb.id()));
    assert_eq!(m.status, Some(RunStatus::Completed));
    assert!(
        rb.response().output.is_empty(),
        "the message is not in the response"
    );
}

/// `usage` (the protocol's `AgentResponse.usage` and `Message.usage`) rides on the events emitted
/// after it is set, and the assembler keeps both.
#[test]
fn builders_set_usage_and_the_assembler_keeps_it() {
    let mut rb = ResponseBuilder::new(None);
    let mut events = vec![rb.created()];
    let mut mb = rb.create_message_builder(Role::Assistant, MessageType::Message);
    events.push(mb.message());
    let mut cb = mb.create_content_builder(ContentKind::Text);
    events.push(cb.add_text_delta("Hi").unwrap());
    events.push(cb.complete());
    let usage = |i: u64, o: u64| {
        let v = serde_json::json!({"input_tokens": i, "output_tokens": o});
        v.as_object().unwrap().clone()
    };
    mb.set_usage(usage(3, 1));
    events.push(mb.complete());
    rb.set_usage(usage(12, 30));
    events.push(rb.completed());
    let AgentEvent::Message(m) = &events[4] else {
        panic!("{:?}", events[4])
    };
    assert_eq!(m.usage.as_deref(), Some(&usage(3, 1)));
    let AgentEvent::Message(first) = &events[1] else {
        panic!()
    };
    assert_eq!(first.usage, None);
    let sse: String = events.iter().map(AgentEvent::to_sse).collect();
    assert!(
        sse.contains(r#""usage":{"input_tokens":12,"output_tokens":30}"#),
        "{sse}"
    );
    let (r, _) = assemble(&[sse.as_bytes()], true);
    assert_eq!(r.usage.as_deref(), Some(&usage(12, 30)));
    assert_eq!(r.output[0].usage.as_deref(), Some(&usage(3, 1)));
}

#[test]
fn builder_rejects_setters_of_the_wrong_kind() {
    let mut rb = ResponseBuilder::new(None);
    let mut mb = rb.create_message_builder(Role::Assistant, MessageType::Message);
    let mut cb = mb.create_content_builder(ContentKind::Data);
    let e = cb.add_text_delta("x").unwrap_err();
    assert_eq!(e.code(), "wrong-content-kind");
}

#[test]
fn request_builder_checks_ranges_and_keeps_extra_fields() {
    let r = RequestBuilder::new()
        .text(Role::User, "What is this?")
        .image(Role::User, "https://example.com/a.png")
        .temperature(0.7)
        .unwrap()
        .top_p(1.0)
        .unwrap()
        .n(5)
        .unwrap()
        .max_tokens(1)
        .unwrap()
        .extra("x_trace", json!("t1"))
        .user_id("u1")
        .response_id("resp-1")
        .build()
        .unwrap();
    assert_eq!(r.input.len(), 1);
    assert_eq!(r.input[0].content.len(), 2);
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["x_trace"], "t1");
    // The protocol's own fields: `user_id`, and `id` (the runner's response id; there is no
    // `response_id` field in `AgentRequest`).
    assert_eq!(v["user_id"], "u1");
    assert_eq!(v["id"], "resp-1");
    assert!(v.get("response_id").is_none());
    assert_eq!(v["stream"], true);
    let back: AgentRequest = serde_json::from_value(v).unwrap();
    assert_eq!(back, r);
    for (e, name) in [
        (RequestBuilder::new().temperature(2.5).err(), "temperature"),
        (
            RequestBuilder::new().temperature(f64::NAN).err(),
            "temperature",
        ),
        (RequestBuilder::new().top_p(-0.1).err(), "top_p"),
        (RequestBuilder::new().n(0).err(), "n"),
        (RequestBuilder::new().n(6).err(), "n"),
        (RequestBuilder::new().max_tokens(0).err(), "max_tokens"),
    ] {
        let e = e.unwrap();
        assert_eq!(e.code(), "parameter-out-of-range");
        assert_eq!(e.details()["name"], name);
    }
    // `request()` is the request so far, unchecked; `build()` checks and returns it.
    let b = RequestBuilder::new().text(Role::User, "Hi").model("m");
    assert_eq!(b.request().model.as_deref(), Some("m"));
    assert_eq!(b.request(), &b.clone().build().unwrap());
    let bad: AgentRequest = serde_json::from_value(json!({"input": [], "n": 9})).unwrap();
    assert_eq!(bad.validate().unwrap_err().code(), "parameter-out-of-range");
}

/// A tool's `parameters` is required and an object, as agentscope-runtime's `FunctionTool` has it:
/// a request read without one was written back with `"parameters": null`, which the server refuses.
#[test]
fn a_tool_is_read_only_with_its_parameters_object() {
    let read =
        |tool: Value| serde_json::from_value::<AgentRequest>(json!({"input": [], "tools": [tool]}));
    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
    let ok = read(json!({"function": {"name": "weather", "parameters": schema}})).unwrap();
    assert_eq!(
        serde_json::to_value(&ok).unwrap()["tools"],
        json!([{"type": "function", "function": {"name": "weather", "description": "", "parameters": schema}}])
    );
    for (tool, reason) in [
        (
            json!({"function": {"name": "weather"}}),
            "`parameters` is missing or null",
        ),
        (
            json!({"function": {"name": "weather", "parameters": null}}),
            "`parameters` is missing or null",
        ),
        (
            json!({"function": {"name": "weather", "parameters": true}}),
            "`parameters` is not an object",
        ),
        (json!({"type": "function"}), "missing field `function`"),
    ] {
        let e = read(tool.clone()).unwrap_err().to_string();
        assert!(e.contains(reason), "{tool}: {e}");
    }
}

/// The value in the message is written as JavaScript writes a number (not with Rust's float
/// formatting, which the wasm module leaves out).
#[test]
fn parameter_messages_write_the_value_as_javascript_does() {
    let message = |e: Result<RequestBuilder, agentwire::dialect::agent_api::AgentApiError>| {
        e.err().unwrap().to_string()
    };
    let b = RequestBuilder::new;
    assert_eq!(
        message(b().temperature(3.0)),
        "parameter `temperature` is 3, outside 0 to 2"
    );
    assert_eq!(
        message(b().temperature(2.5)),
        "parameter `temperature` is 2.5, outside 0 to 2"
    );
    assert_eq!(
        message(b().top_p(-0.1)),
        "parameter `top_p` is -0.1, outside 0 to 1"
    );
    assert_eq!(
        message(b().frequency_penalty(f64::NAN)),
        "parameter `frequency_penalty` is NaN, outside -2 to 2"
    );
    assert_eq!(
        message(b().presence_penalty(f64::INFINITY)),
        "parameter `presence_penalty` is Infinity, outside -2 to 2"
    );
    assert_eq!(
        message(b().temperature(f64::NEG_INFINITY)),
        "parameter `temperature` is -Infinity, outside 0 to 2"
    );
    assert_eq!(
        message(b().temperature(12345678.25)),
        "parameter `temperature` is 12345678.25, outside 0 to 2"
    );
    assert_eq!(message(b().n(9)), "parameter `n` is 9, outside 1 to 5");
}

mod property {
    use super::*;
    use proptest::prelude::*;

    /// A script for the builders: messages of text tokens, data deltas, or an image.
    #[derive(Debug, Clone)]
    enum Part {
        Text(Vec<String>),
        Data(Vec<(String, String)>),
        Image(String),
    }

    fn part() -> impl Strategy<Value = Part> {
        prop_oneof![
            prop::collection::vec("[a-zé東 \\n\"\\\\]{0,6}", 0..6).prop_map(Part::Text),
            prop::collection::vec(("[ab]", "[x{}\"]{0,4}"), 1..4).prop_map(Part::Data),
            "https://[a-z]{1,8}\\.png".prop_map(Part::Image),
        ]
    }

    proptest! {
        #[test]
        fn whatever_the_builders_emit_the_assembler_rebuilds(
            messages in prop::collection::vec(prop::collection::vec(part(), 1..3), 0..4),
            split in any::<prop::sample::Index>(),
        ) {
            let mut rb = ResponseBuilder::new(Some("s".into()));
            let mut sse = String::new();
            rb.created().write_sse(&mut sse);
            rb.in_progress().write_sse(&mut sse);
            for parts in &messages {
                let mut mb = rb.create_message_builder(Role::Assistant, MessageType::Message);
                mb.message().write_sse(&mut sse);
                for p in parts {
                    match p {
                        Part::Text(tokens) => {
                            let mut cb = mb.create_content_builder(ContentKind::Text);
                            for t in tokens { cb.add_text_delta(t).unwrap().write_sse(&mut sse); }
                            cb.complete().write_sse(&mut sse);
                        }
                        Part::Data(deltas) => {
                            let mut cb = mb.create_content_builder(ContentKind::Data);
                            for (k, v) in deltas {
                                cb.add_data_delta(json!({ k: v })).unwrap().write_sse(&mut sse);
                            }
                            cb.complete().write_sse(&mut sse);
                        }
                        Part::Image(url) => {
                            let mut cb = mb.create_content_builder(ContentKind::Image);
                            cb.set_image_url(url).unwrap().write_sse(&mut sse);
                            cb.complete().write_sse(&mut sse);
                        }
                    }
                }
                mb.complete().write_sse(&mut sse);
            }
            rb.completed().write_sse(&mut sse);
            let bytes = sse.as_bytes();
            let at = split.index(bytes.len() + 1);
            let (r, updates) = assemble(&[&bytes[..at], &bytes[at..]], false);
            prop_assert!(!updates.iter().any(|u| matches!(u, StreamUpdate::Issue { .. })), "{:?}", updates);
            let built = rb.response();
            prop_assert_eq!(r.status.clone(), RunStatus::Completed);
            prop_assert_eq!(r.output.len(), built.output.len());
            for (o, b) in r.output.iter().zip(&built.output) {
                prop_assert_eq!(message_view(o, false), message_view(b, false));
            }
        }
    }
}

#[test]
fn with_updates_off_only_the_response_is_built() {
    let bytes = common::fixture("agentscope-runtime/process-raw.sse");
    let (with, _) = assemble(&[&bytes], false);
    let mut s = AgentStream::new(AssemblerOptions {
        updates: false,
        ..Default::default()
    });
    s.feed(&bytes);
    s.finish();
    assert!(s.drain_updates().is_empty());
    assert_eq!(s.response(), &with);
}

/// With `retain_messages: false`, draining after every chunk: the response, the updates, and the
/// most messages the assembler held after any chunk.
fn assemble_releasing(chunks: &[&[u8]], strict: bool) -> (AgentResponse, Vec<StreamUpdate>, usize) {
    let mut s = AgentStream::new(AssemblerOptions {
        retain_messages: false,
        strict,
        ..Default::default()
    });
    let mut updates = Vec::new();
    let mut held = 0;
    for c in chunks {
        s.feed(c);
        updates.extend(s.drain_updates());
        held = held.max(s.response().output.len());
    }
    s.finish();
    updates.extend(s.drain_updates());
    (s.response().clone(), updates, held)
}

fn ids(output: &[agentwire::dialect::agent_api::Message]) -> Vec<&str> {
    output.iter().filter_map(|m| m.id.as_deref()).collect()
}

#[test]
fn released_messages_give_the_same_updates_and_leave_the_response() {
    for (name, left) in [
        ("process-raw.sse", 0),
        ("process-text.sse", 0),
        // The image message the server never completed (nor listed in its output) stays.
        ("process-agentscope.sse", 1),
    ] {
        let bytes = common::fixture(&format!("agentscope-runtime/{name}"));
        let (kept, kept_updates) = assemble(&[&bytes], false);
        let (released, updates, _) = assemble_releasing(&[&bytes], false);
        // Everything the UI is told is the same, except `done` (its response holds what is left)
        // and the warning about a message missing from the final output (it is not compared).
        let told = |us: &[StreamUpdate]| -> Vec<StreamUpdate> {
            us.iter()
                .filter(|u| !matches!(u, StreamUpdate::Done { .. }))
                .filter(|u| !matches!(u, StreamUpdate::Issue { code, .. } if code == "message-missing-from-output"))
                .cloned()
                .collect()
        };
        assert_eq!(told(&updates), told(&kept_updates), "{name}");
        assert!(
            !updates
                .iter()
                .any(|u| matches!(u, StreamUpdate::Issue { code, .. } if code == "out-of-order")),
            "{name}"
        );
        // What is left: the messages no message event finished, as the retaining stream has them.
        assert_eq!(released.output.len(), left, "{name}");
        for m in &released.output {
            let same = kept.output.iter().find(|k| k.id == m.id).unwrap();
            assert_eq!(m, same, "{name}");
        }
        assert_eq!(released.status, kept.status, "{name}");
        let Some(StreamUpdate::Done { response }) = updates.last() else {
            panic!("{name}: no done update last");
        };
        assert_eq!(response, &released, "{name}");
        // At every split, the same.
        for i in 0..=bytes.len() {
            let (a, b) = bytes.split_at(i);
            let (r, us, _) = assemble_releasing(&[a, b], false);
            assert_eq!(r, released, "{name}, split at {i}");
            assert_eq!(us, updates, "{name}, updates, split at {i}");
        }
    }
}

#[test]
fn a_stream_of_many_messages_holds_only_the_one_under_way() {
    let mut sse =
        String::from("data: {\"object\":\"response\",\"id\":\"r\",\"status\":\"in_progress\"}\n\n");
    let mut expected = String::new();
    for m in 0..300 {
        let id = format!("msg_{m}");
        sse += &format!("data: {{\"object\":\"message\",\"id\":\"{id}\",\"type\":\"message\",\"role\":\"assistant\",\"status\":\"in_progress\"}}\n\n");
        for t in 0..5 {
            let text = format!("m{m}t{t} ");
            expected += &text;
            sse += &format!("data: {{\"object\":\"content\",\"type\":\"text\",\"index\":0,\"delta\":true,\"msg_id\":\"{id}\",\"text\":\"{text}\"}}\n\n");
        }
        sse += &format!("data: {{\"object\":\"message\",\"id\":\"{id}\",\"type\":\"message\",\"role\":\"assistant\",\"status\":\"completed\"}}\n\n");
    }
    sse += "data: {\"object\":\"response\",\"id\":\"r\",\"status\":\"completed\"}\n\n";
    let chunks: Vec<&[u8]> = sse.as_bytes().chunks(300).collect();
    let (r, updates, held) = assemble_releasing(&chunks, false);
    assert_eq!(held, 1, "at most the message under way is held");
    assert!(r.output.is_empty());
    assert_eq!(r.status, RunStatus::Completed);
    assert_eq!(deltas(&updates).concat(), expected);
    let completed = updates
        .iter()
        .filter(|u| matches!(u, StreamUpdate::Message { message } if message.status == Some(RunStatus::Completed)))
        .count();
    assert_eq!(completed, 300);
    // Retaining (the default), the same stream holds all 300.
    let (kept, _) = assemble(&chunks, false);
    assert_eq!(kept.output.len(), 300);
}

#[test]
fn events_for_a_released_message_are_skipped_and_reported() {
    let sse = concat!(
        "data: {\"object\":\"message\",\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"status\":\"in_progress\"}\n\n",
        "data: {\"object\":\"content\",\"type\":\"text\",\"index\":0,\"delta\":true,\"msg_id\":\"m1\",\"text\":\"Hi\"}\n\n",
        "data: {\"object\":\"message\",\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"status\":\"completed\"}\n\n",
        "data: {\"object\":\"content\",\"type\":\"text\",\"index\":0,\"delta\":true,\"msg_id\":\"m1\",\"text\":\" again\"}\n\n",
        "data: {\"object\":\"message\",\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"status\":\"failed\"}\n\n",
        "data: {\"object\":\"message\",\"id\":\"m2\",\"type\":\"message\",\"role\":\"assistant\",\"status\":\"in_progress\"}\n\n",
        "data: {\"object\":\"response\",\"id\":\"r\",\"status\":\"completed\"}\n\n",
    );
    let released = |us: &[StreamUpdate]| -> Vec<(Severity, Value)> {
        us.iter()
            .filter_map(|u| match u {
                StreamUpdate::Issue {
                    code,
                    severity,
                    details,
                    ..
                } if code == "out-of-order" => Some((*severity, details.clone())),
                _ => None,
            })
            .collect()
    };
    // Lenient: both late events are skipped with a warning; the stream goes on.
    let (r, updates, _) = assemble_releasing(&[sse.as_bytes()], false);
    assert_eq!(
        released(&updates),
        vec![
            (
                Severity::Warning,
                json!({"what": "message-released", "msgId": "m1", "index": 0})
            ),
            (
                Severity::Warning,
                json!({"what": "message-released", "msgId": "m1", "index": null})
            ),
        ]
    );
    assert_eq!(deltas(&updates), ["Hi"]);
    assert_eq!(r.status, RunStatus::Completed);
    assert_eq!(ids(&r.output), ["m2"]);
    assert_eq!(r.output[0].status, Some(RunStatus::Incomplete));
    // Strict: the first one ends the stream.
    let (r, updates, _) = assemble_releasing(&[sse.as_bytes()], true);
    assert_eq!(
        released(&updates),
        vec![(
            Severity::Error,
            json!({"what": "message-released", "msgId": "m1", "index": 0})
        )]
    );
    assert_eq!(r.status, RunStatus::Incomplete);
    assert!(r.output.is_empty());
}

#[test]
fn releasing_a_message_before_another_keeps_the_others_updates_right() {
    // m1 finishes while m2, after it, is under way (with a delta pending in the same chunk).
    let sse = concat!(
        "data: {\"object\":\"message\",\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"status\":\"in_progress\"}\n\n",
        "data: {\"object\":\"message\",\"id\":\"m2\",\"type\":\"reasoning\",\"role\":\"assistant\",\"status\":\"in_progress\"}\n\n",
        "data: {\"object\":\"content\",\"type\":\"text\",\"index\":0,\"delta\":true,\"msg_id\":\"m1\",\"text\":\"one\"}\n\n",
        "data: {\"object\":\"content\",\"type\":\"text\",\"index\":0,\"delta\":true,\"msg_id\":\"m2\",\"text\":\"two\"}\n\n",
        "data: {\"object\":\"message\",\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"status\":\"completed\"}\n\n",
        "data: {\"object\":\"content\",\"type\":\"text\",\"index\":0,\"delta\":true,\"msg_id\":\"m2\",\"text\":\" more\"}\n\n",
        "data: {\"object\":\"content\",\"type\":\"text\",\"index\":0,\"delta\":true,\"msg_id\":\"m2\",\"text\":\" still\"}\n\n",
    );
    let deltas_by_message = |us: &[StreamUpdate]| -> Vec<(String, String)> {
        us.iter()
            .filter_map(|u| match u {
                StreamUpdate::TextDelta { msg_id, delta, .. } => {
                    Some((msg_id.clone(), delta.clone()))
                }
                _ => None,
            })
            .collect()
    };
    for coalesce in [false, true] {
        let run = |retain_messages: bool| {
            let mut s = AgentStream::new(AssemblerOptions {
                retain_messages,
                coalesce,
                ..Default::default()
            });
            s.feed(sse.as_bytes());
            let updates = s.drain_updates();
            (s.response().clone(), updates)
        };
        let (released, updates) = run(false);
        assert_eq!(ids(&released.output), ["m2"]);
        assert_eq!(released.output[0].text(), "two more still");
        // The same deltas as when every message is kept (m2's moved down a place meanwhile).
        let (kept, kept_updates) = run(true);
        assert_eq!(ids(&kept.output), ["m1", "m2"]);
        assert_eq!(
            deltas_by_message(&updates),
            deltas_by_message(&kept_updates),
            "coalesce {coalesce}"
        );
        assert_eq!(updates, kept_updates, "coalesce {coalesce}");
        if !coalesce {
            let got: Vec<String> = deltas_by_message(&updates)
                .iter()
                .map(|(id, d)| format!("{id}:{d}"))
                .collect();
            assert_eq!(got, ["m1:one", "m2:two", "m2: more", "m2: still"]);
        }
    }
}

/// A float of a `data` content reaches the response as the nearest `f64` to its text, as
/// `JSON.parse` reads it; serde_json's default reading gives `1758972921.881132` for this
/// timestamp.
#[test]
fn a_data_content_s_floats_are_read_correctly_rounded() {
    let sse = br#"data: {"object":"message","id":"m","type":"message","role":"assistant","status":"created"}

data: {"object":"content","type":"data","index":0,"msg_id":"m","status":"completed","data":{"t":1758972921.8811321,"x":[-1.4901437678453860e129]}}

"#;
    let (response, _) = assemble(&[sse], false);
    let data = response.output[0].content[0].data.as_ref().unwrap();
    assert_eq!(
        data["t"].as_f64(),
        Some("1758972921.8811321".parse::<f64>().unwrap())
    );
    assert_eq!(
        data["x"][0].as_f64(),
        Some("-1.4901437678453860e129".parse::<f64>().unwrap())
    );
}

/// A text delta event whose `text` is written as JavaScript's `JSON.stringify` writes a string
/// with lone surrogates (`\ud83d`): `text` is given as UTF-16 code units.
fn utf16_delta_event(msg_id: &str, index: u32, units: &[u16]) -> String {
    let text = common::js_json_string(units);
    format!(
        "data: {{\"object\":\"content\",\"msg_id\":\"{msg_id}\",\"index\":{index},\"delta\":true,\"type\":\"text\",\"text\":\"{text}\"}}\n\n"
    )
}

#[test]
fn a_surrogate_pair_cut_between_two_deltas_is_joined_at_every_split() {
    // A JavaScript server slicing by UTF-16 index: each emoji's pair is cut (`\ud83d` ends one
    // delta, `\ude00` begins the next); one delta is a lone high half alone.
    let text = "I 😀 you, 東京 😀😀";
    let pieces = common::cut_utf16(text, &[3, 14, 15, 16]);
    assert_eq!(pieces[3], [0xd83d], "a delta of the high half alone");
    let sse: String = pieces
        .iter()
        .map(|p| utf16_delta_event("m1", 0, p))
        .collect();
    assert!(sse.contains(r#"\ud83d""#) && sse.contains(r#""\ude00"#));
    for coalesce in [false, true] {
        let (whole, updates) = assemble(&[sse.as_bytes()], coalesce);
        assert_eq!(whole.output[0].content[0].text.as_deref(), Some(text));
        assert_eq!(deltas(&updates).concat(), text);
        if !coalesce {
            assert_eq!(deltas(&updates), ["I ", "😀 you, 東京 ", "😀", "😀"]);
        }
        // Issues: only the stream's missing end.
        assert_eq!(issue_codes(&updates), ["stream-incomplete"]);
        for at in 0..=sse.len() {
            let (a, b) = sse.as_bytes().split_at(at);
            let (split, split_updates) = assemble(&[a, b], coalesce);
            assert_eq!(split, whole, "split at {at}");
            assert_eq!(deltas(&split_updates).concat(), text, "split at {at}");
        }
    }
}

#[test]
fn a_held_high_half_not_followed_by_its_low_half_is_kept_as_a_replacement_character() {
    let high = [u16::from(b'a'), 0xd83d];
    let u = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
    let text_of =
        |r: &AgentResponse, i: usize| r.output[0].content[i].text.clone().unwrap_or_default();
    // Followed by a delta that does not begin with a low half: U+FFFD, then that delta.
    let sse = utf16_delta_event("m1", 0, &high) + &utf16_delta_event("m1", 0, &u("b"));
    let (r, updates) = assemble(&[sse.as_bytes()], false);
    assert_eq!(text_of(&r, 0), "a\u{fffd}b");
    assert_eq!(deltas(&updates), ["a", "\u{fffd}", "b"]);
    // A low half of another content does not complete it: both are U+FFFD.
    let sse = utf16_delta_event("m1", 0, &high) + &utf16_delta_event("m1", 1, &[0xde00]);
    let (r, _) = assemble(&[sse.as_bytes()], false);
    assert_eq!(
        (text_of(&r, 0), text_of(&r, 1)),
        ("a\u{fffd}".into(), "\u{fffd}".into())
    );
    // The stream ends: the held half is kept, before the end is reported.
    let (r, updates) = assemble(&[utf16_delta_event("m1", 0, &high).as_bytes()], false);
    assert_eq!(text_of(&r, 0), "a\u{fffd}");
    assert_eq!(deltas(&updates), ["a", "\u{fffd}"]);
    assert!(matches!(updates.last(), Some(StreamUpdate::Done { .. })));
    // Another event in between (the message's completion): released before it applies.
    let done = "data: {\"object\":\"message\",\"id\":\"m1\",\"status\":\"completed\"}\n\n";
    let sse = utf16_delta_event("m1", 0, &high) + done + &utf16_delta_event("m1", 0, &[0xde00]);
    let (r, _) = assemble(&[sse.as_bytes()], false);
    assert!(text_of(&r, 0).starts_with("a\u{fffd}"));
    // The response taken while a half is held: the half is in it, as U+FFFD.
    let mut s = AgentStream::new(AssemblerOptions::default());
    s.feed(utf16_delta_event("m1", 0, &high).as_bytes());
    let taken = s.assembler_mut().take_response();
    assert_eq!(
        taken.output[0].content[0].text.as_deref(),
        Some("a\u{fffd}")
    );
    // A low half with nothing held, and `\\ud83d` (an escaped backslash, then letters): as written.
    let sse = utf16_delta_event("m1", 0, &[0xde00, u16::from(b'x')])
        + "data: {\"object\":\"content\",\"msg_id\":\"m1\",\"index\":0,\"delta\":true,\"type\":\"text\",\"text\":\"\\\\ud83d\"}\n\n";
    let (r, _) = assemble(&[sse.as_bytes()], false);
    assert_eq!(text_of(&r, 0), "\u{fffd}x\\ud83d");
}

/// A message's contents take the slots they fill: the first content of a message allocates one
/// (`Vec` would allocate four: three `Content`s of wasm32 memory never used per message of one
/// content, in an assembler that keeps every message), whether it came by a content event or only
/// in the message's final `message` event; more grow by doubling.
#[test]
fn contents_take_the_memory_they_fill() {
    let bytes = common::fixture("agentscope-runtime/process-text.sse");
    let mut s = AgentStream::new(AssemblerOptions::default());
    s.feed(&bytes);
    s.finish();
    let output = &s.response().output;
    assert!(!output.is_empty());
    for m in output {
        assert_eq!(m.content.len(), 1, "{:?}", m.id);
        assert_eq!(m.content.capacity(), 1, "{:?}", m.id);
    }
    // Contents that arrive only in a message event (no content events), and a third by a delta.
    let mut s = AgentStream::new(AssemblerOptions::default());
    s.feed(
        br#"data: {"object":"message","id":"m1","type":"message","role":"assistant","status":"in_progress","content":[{"object":"content","type":"text","index":0,"text":"a"},{"object":"content","type":"data","index":1,"data":{"k":1}}]}

data: {"object":"content","type":"text","index":2,"delta":true,"msg_id":"m1","text":"b"}

"#,
    );
    let contents = &s.response().output[0].content;
    assert_eq!(contents.len(), 3);
    assert_eq!(contents.capacity(), 4);
    let mut s = AgentStream::new(AssemblerOptions::default());
    s.feed(
        br#"data: {"object":"message","id":"m1","type":"message","role":"assistant","status":"completed","content":[{"object":"content","type":"text","index":0,"text":"a"}]}

"#,
    );
    let contents = &s.response().output[0].content;
    assert_eq!((contents.len(), contents.capacity()), (1, 1));
}
