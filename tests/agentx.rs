//! AgentX messages: the three flows of the format's documentation (exact JSON), the streamed flow of
//! its §4.2, the assembler at every chunk split, the body view, malformed input, broken streams, and
//! a property test of builder → SSE → assembler.
//!
//! The JSON below is copied from "Communication and Message Architecture"
//! (`docs/arch/04-communication.md`, dustland/roboco), §3.1–§3.3 and §4.2, whitespace included. The
//! document writes the two packets of §3.1 and the three of §4.2 step 4 in one code block with `//`
//! comments between them; here each packet is its own string.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agentwire::body::{Body, PartKind, PartStatus};
use agentwire::dialect::agentx::{
    is_message_id, is_tool_call_id, new_message_id, new_tool_call_id, AgentxError, AgentxStream,
    AssemblerOptions, ChatRequest, Message, MessageBuilder, Part, Role, Severity, StreamStatus,
    StreamUpdate, ToolCallPart, ToolErrorType,
};
use agentwire::ErrorCode;
use serde_json::{json, Value};

// §3.1 Simple Text Conversation
const FLOW1_USER: &str = r#"{
  "role": "user",
  "parts": [{ "type": "text", "text": "Hello, world!" }]
}"#;
const FLOW1_PACKETS: [&str; 2] = [
    r#"{ "role": "assistant", "parts": [{ "type": "text", "text": "Hello" }] }"#,
    r#"{ "role": "assistant", "parts": [{ "type": "text", "text": " there!" }] }"#,
];

// §3.2 Successful Tool Call Flow
const FLOW2: [&str; 3] = [
    r#"{
  "role": "assistant",
  "parts": [
    {
      "type": "text",
      "text": "Sure, I can write that file for you. I will now call the tool."
    },
    {
      "type": "tool_call",
      "tool_call_id": "tc_123",
      "tool_name": "write_file",
      "args": { "path": "/hello.txt", "content": "Hello, world!" }
    }
  ]
}"#,
    r#"{
  "role": "assistant",
  "parts": [
    {
      "type": "tool_result",
      "tool_call_id": "tc_123",
      "result": { "status": "success", "message": "File written successfully." }
    }
  ]
}"#,
    r#"{
  "role": "assistant",
  "parts": [
    {
      "type": "text",
      "text": "I have successfully written the file to `/hello.txt`."
    }
  ]
}"#,
];

// §3.3 Tool Call with Self-Correction (Validation Error)
const FLOW3: [&str; 3] = [
    r#"{
  "role": "assistant",
  "parts": [
    {
      "type": "tool_call",
      "tool_call_id": "tc_456",
      "tool_name": "write_file",
      "args": { "content": "This call is missing the path." }
    }
  ]
}"#,
    r#"{
  "role": "assistant",
  "parts": [
    {
      "type": "tool_error",
      "tool_call_id": "tc_456",
      "error_type": "VALIDATION",
      "message": "Validation failed for tool 'write_file': Missing required argument 'path'."
    }
  ]
}"#,
    r#"{
  "role": "assistant",
  "parts": [
    {
      "type": "text",
      "text": "My apologies, I missed a required parameter. I will correct it now."
    },
    {
      "type": "tool_call",
      "tool_call_id": "tc_789",
      "tool_name": "write_file",
      "args": {
        "path": "/corrected.txt",
        "content": "This call should now be valid."
      }
    }
  ]
}"#,
];

// §4.2 Example Streamed Packets (the §3.2 flow as one logical message `msg_abc`)
const STREAMED: [&str; 5] = [
    r#"{
  "role": "assistant",
  "id": "msg_abc",
  "parts": [
    {
      "type": "tool_call",
      "tool_call_id": "tc_123",
      "tool_name": "write_file",
      "args": { "path": "/hello.txt", "content": "Hello, world!" }
    }
  ]
}"#,
    r#"{
  "role": "assistant",
  "id": "msg_abc",
  "parts": [
    {
      "type": "tool_result",
      "tool_call_id": "tc_123",
      "result": { "status": "success", "message": "File written successfully." }
    }
  ]
}"#,
    r#"{ "role": "assistant", "id": "msg_abc", "parts": [{ "type": "text", "text": "I have" }] }"#,
    r#"{ "role": "assistant", "id": "msg_abc", "parts": [{ "type": "text", "text": " successfully" }] }"#,
    r#"{ "role": "assistant", "id": "msg_abc", "parts": [{ "type": "text", "text": " written the file." }] }"#,
];

/// The packets as SSE, each JSON text (line breaks included) as one event's `data`.
fn sse_of(packets: &[&str]) -> String {
    let mut out = String::new();
    for p in packets {
        agentwire::sse::encode_event(&mut out, None, p, None).unwrap();
    }
    out
}

fn assemble(chunks: &[&[u8]], coalesce: bool) -> (AgentxStream, Vec<StreamUpdate>) {
    let mut s = AgentxStream::new(AssemblerOptions {
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
    (s, updates)
}

/// Assembles `sse` whole, split at every byte index, and byte by byte; asserts all agree and
/// returns the whole run.
fn assemble_at_every_split(sse: &str) -> (AgentxStream, Vec<StreamUpdate>) {
    let bytes = sse.as_bytes();
    let (whole, whole_updates) = assemble(&[bytes], false);
    for i in 0..=bytes.len() {
        let (a, b) = bytes.split_at(i);
        let (s, updates) = assemble(&[a, b], false);
        assert_eq!(s.messages(), whole.messages(), "split at {i}");
        assert_eq!(updates, whole_updates, "updates, split at {i}");
    }
    let singles: Vec<&[u8]> = bytes.chunks(1).collect();
    let (s, updates) = assemble(&singles, false);
    assert_eq!(s.messages(), whole.messages(), "byte by byte");
    assert_eq!(updates, whole_updates, "updates, byte by byte");
    (whole, whole_updates)
}

/// Parses every document JSON and checks it serializes back to exactly the same JSON.
fn assert_round_trips(json: &str) -> Message {
    let message = Message::parse(json).unwrap();
    let original: Value = serde_json::from_str(json).unwrap();
    assert_eq!(serde_json::to_value(&message).unwrap(), original, "{json}");
    let again = Message::parse(&serde_json::to_string(&message).unwrap()).unwrap();
    assert_eq!(again, message);
    // Through serde's own entry point too.
    let via_serde: Message = serde_json::from_str(json).unwrap();
    assert_eq!(via_serde, message);
    message
}

fn issues(updates: &[StreamUpdate]) -> Vec<(Severity, String, Value)> {
    updates
        .iter()
        .filter_map(|u| match u {
            StreamUpdate::Issue {
                severity,
                code,
                details,
                ..
            } => Some((*severity, code.clone(), details.clone())),
            _ => None,
        })
        .collect()
}

fn codes(updates: &[StreamUpdate]) -> Vec<String> {
    issues(updates).into_iter().map(|(_, c, _)| c).collect()
}

/// Rebuilds the messages from the updates alone (what a JavaScript UI does), to check that updates
/// carry everything exactly once.
fn replay(updates: &[StreamUpdate]) -> Vec<Message> {
    let mut messages: Vec<Message> = Vec::new();
    for u in updates {
        match u {
            StreamUpdate::Message {
                message_index,
                message,
            } => {
                let i = *message_index as usize;
                if i == messages.len() {
                    messages.push(message.clone());
                } else {
                    messages[i].extra = message.extra.clone();
                }
            }
            StreamUpdate::Part {
                message_index,
                part_index,
                part,
            } => {
                let parts = &mut messages[*message_index as usize].parts;
                assert_eq!(*part_index as usize, parts.len());
                parts.push(part.clone());
            }
            StreamUpdate::TextDelta {
                message_index,
                part_index,
                delta,
            } => match &mut messages[*message_index as usize].parts[*part_index as usize] {
                Part::Text(t) => t.text.push_str(delta),
                other => panic!("text delta for {other:?}"),
            },
            _ => {}
        }
    }
    messages
}

fn check_body_part(
    body: &Body,
    i: usize,
    kind: PartKind,
    name: Option<&str>,
    content_type: &str,
    content: &str,
    metadata: Value,
) {
    let p = &body.parts[i];
    assert_eq!(p.kind, kind, "part {i}");
    assert_eq!(p.name.as_deref(), name, "part {i}");
    assert_eq!(p.content_type, content_type, "part {i}");
    assert_eq!(p.content.as_deref(), Some(content), "part {i}");
    let meta = p.metadata.clone().map_or(Value::Null, Value::Object);
    assert_eq!(meta, metadata, "part {i}");
    assert_eq!(p.status, PartStatus::Complete, "part {i}");
}

fn json_content(body: &Body, i: usize) -> Value {
    serde_json::from_str(body.parts[i].content.as_deref().unwrap()).unwrap()
}

#[test]
fn flow_simple_text_conversation() {
    // The user message, in a request, round trips exactly.
    let user = assert_round_trips(FLOW1_USER);
    assert_eq!(user.role, Role::User);
    assert_eq!(user.id, None);
    let request = ChatRequest::new(vec![user.clone()]);
    let wire: Value = serde_json::from_str(&request.to_json()).unwrap();
    assert_eq!(
        wire,
        json!({ "messages": [serde_json::from_str::<Value>(FLOW1_USER).unwrap()] })
    );
    assert_eq!(
        serde_json::from_value::<ChatRequest>(wire).unwrap(),
        request
    );
    check_body_part(
        &user.body(),
        0,
        PartKind::Text,
        None,
        "text/plain",
        "Hello, world!",
        Value::Null,
    );

    for p in FLOW1_PACKETS {
        assert_round_trips(p);
    }
    let (stream, updates) = assemble_at_every_split(&sse_of(&FLOW1_PACKETS));
    assert_eq!(stream.status(), StreamStatus::Complete);
    let messages = stream.messages();
    assert_eq!(
        messages.len(),
        1,
        "id-less packets of one role are one message"
    );
    assert_eq!(messages[0].role, Role::Assistant);
    assert_eq!(messages[0].id, None);
    assert_eq!(messages[0].parts, [Part::text("Hello there!")]);
    assert_eq!(replay(&updates), messages);
    let json_updates: Vec<Value> = updates
        .iter()
        .map(|u| serde_json::to_value(u).unwrap())
        .collect();
    assert_eq!(
        json_updates,
        [
            json!({"type": "message", "messageIndex": 0, "message": {"role": "assistant", "parts": []}}),
            json!({"type": "part", "messageIndex": 0, "partIndex": 0, "part": {"type": "text", "text": "Hello"}}),
            json!({"type": "textDelta", "messageIndex": 0, "partIndex": 0, "delta": " there!"}),
            json!({"type": "done", "status": "complete", "messages": [
                {"role": "assistant", "parts": [{"type": "text", "text": "Hello there!"}]}
            ]}),
        ]
    );
    let body = messages[0].body();
    assert_eq!(body.parts.len(), 1);
    check_body_part(
        &body,
        0,
        PartKind::Text,
        None,
        "text/plain",
        "Hello there!",
        Value::Null,
    );
}

#[test]
fn flow_successful_tool_call() {
    let parsed: Vec<Message> = FLOW2.iter().map(|j| assert_round_trips(j)).collect();
    let Part::ToolCall(call) = &parsed[0].parts[1] else {
        panic!("{:?}", parsed[0].parts[1])
    };
    assert_eq!(call.tool_call_id, "tc_123");
    assert_eq!(call.tool_name, "write_file");
    assert_eq!(call.args["path"], "/hello.txt");
    let Part::ToolResult(result) = &parsed[1].parts[0] else {
        panic!()
    };
    assert_eq!(result.tool_call_id, "tc_123");
    assert_eq!(result.result["status"], "success");

    // As separate messages (a conversation), each has its own body.
    let b = parsed[1].body();
    check_body_part(
        &b,
        0,
        PartKind::ToolResult,
        Some("/tool_results/tc_123"),
        "application/json",
        r#"{"status":"success","message":"File written successfully."}"#,
        json!({"toolCallId": "tc_123"}),
    );

    // Streamed, the id-less assistant packets are one logical message.
    let (stream, updates) = assemble_at_every_split(&sse_of(&FLOW2));
    assert_eq!(stream.status(), StreamStatus::Complete);
    let messages = stream.messages();
    assert_eq!(messages.len(), 1);
    let mut expected = parsed[0].clone();
    expected.append_packet(parsed[1].clone());
    expected.append_packet(parsed[2].clone());
    assert_eq!(messages[0], expected);
    assert_eq!(messages[0].parts.len(), 4);
    assert_eq!(replay(&updates), messages);
    assert_eq!(
        issues(&updates),
        [(
            Severity::Warning,
            "invalid-id".to_owned(),
            json!({"field": "tool_call_id", "value": "tc_123", "expected": "tc_ + 32 lowercase hex"})
        )]
    );

    let body = messages[0].body();
    assert_eq!(body.parts.len(), 4);
    check_body_part(
        &body,
        0,
        PartKind::Text,
        None,
        "text/plain",
        "Sure, I can write that file for you. I will now call the tool.",
        Value::Null,
    );
    check_body_part(
        &body,
        1,
        PartKind::ToolCall,
        Some("/tool_calls/tc_123"),
        "application/json",
        body.parts[1].content.as_deref().unwrap(),
        json!({"toolCallId": "tc_123", "toolName": "write_file"}),
    );
    assert_eq!(
        json_content(&body, 1),
        json!({ "path": "/hello.txt", "content": "Hello, world!" })
    );
    assert_eq!(
        json_content(&body, 2),
        json!({ "status": "success", "message": "File written successfully." })
    );
    assert_eq!(body.parts[2].name.as_deref(), Some("/tool_results/tc_123"));
    check_body_part(
        &body,
        3,
        PartKind::Text,
        None,
        "text/plain",
        "I have successfully written the file to `/hello.txt`.",
        Value::Null,
    );
}

#[test]
fn flow_self_correction() {
    let parsed: Vec<Message> = FLOW3.iter().map(|j| assert_round_trips(j)).collect();
    let Part::ToolError(error) = &parsed[1].parts[0] else {
        panic!()
    };
    assert_eq!(error.error_type, ToolErrorType::Validation);
    assert_eq!(
        error.message,
        "Validation failed for tool 'write_file': Missing required argument 'path'."
    );
    let bad = parsed[0].tool_calls().next().unwrap();
    assert!(!bad.args.contains_key("path"));
    let fixed = parsed[2].tool_calls().next().unwrap();
    assert_eq!(fixed.args["path"], "/corrected.txt");

    let (stream, updates) = assemble_at_every_split(&sse_of(&FLOW3));
    let messages = stream.messages();
    assert_eq!(messages.len(), 1);
    let kinds: Vec<&str> = messages[0].parts.iter().map(Part::type_name).collect();
    assert_eq!(kinds, ["tool_call", "tool_error", "text", "tool_call"]);
    assert_eq!(replay(&updates), messages);
    assert_eq!(codes(&updates), ["invalid-id", "invalid-id"]);

    let body = messages[0].body();
    assert_eq!(body.parts[0].name.as_deref(), Some("/tool_calls/tc_456"));
    assert_eq!(
        json_content(&body, 0),
        json!({ "content": "This call is missing the path." })
    );
    check_body_part(
        &body,
        1,
        PartKind::ToolError,
        Some("/tool_errors/tc_456"),
        "text/plain",
        "Validation failed for tool 'write_file': Missing required argument 'path'.",
        json!({"toolCallId": "tc_456", "errorType": "VALIDATION"}),
    );
    check_body_part(
        &body,
        2,
        PartKind::Text,
        None,
        "text/plain",
        "My apologies, I missed a required parameter. I will correct it now.",
        Value::Null,
    );
    assert_eq!(body.parts[3].name.as_deref(), Some("/tool_calls/tc_789"));
    assert_eq!(
        body.parts[3].metadata.as_ref().unwrap()["toolName"],
        "write_file"
    );
    assert_eq!(
        json_content(&body, 3),
        json!({ "path": "/corrected.txt", "content": "This call should now be valid." })
    );
}

#[test]
fn streamed_packets_of_one_id_are_one_message() {
    for p in STREAMED {
        assert_round_trips(p);
    }
    let (stream, updates) = assemble_at_every_split(&sse_of(&STREAMED));
    let messages = stream.messages();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].id.as_deref(), Some("msg_abc"));
    assert_eq!(messages[0].text(), "I have successfully written the file.");
    assert_eq!(messages[0].parts.len(), 3);
    assert_eq!(codes(&updates), ["invalid-id", "invalid-id"]);
    let deltas: Vec<&str> = updates
        .iter()
        .filter_map(|u| match u {
            StreamUpdate::TextDelta { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, [" successfully", " written the file."]);
    assert_eq!(replay(&updates), messages);
    let body = messages[0].body();
    let names: Vec<Option<&str>> = body.parts.iter().map(|p| p.name.as_deref()).collect();
    assert_eq!(
        names,
        [
            Some("/tool_calls/tc_123"),
            Some("/tool_results/tc_123"),
            None
        ]
    );
}

#[test]
fn unknown_part_types_roles_and_fields_are_kept() {
    let json = r#"{"id":"msg_0123456789abcdef0123456789abcdef","role":"system","trace":{"span":7},
        "parts":[
          {"type":"image","image_url":"https://example.com/cat.png","alt_text":"a cat","message":3},
          {"type":"text","text":"hi","language":"en","confidence":0.5},
          {"type":"tool_result","tool_call_id":"tc_1","tool_name":"calc","result":null,"is_error":false},
          {"type":"tool_error","tool_call_id":"tc_2","error_type":"TIMEOUT","message":"slow","text":"x"}
        ]}"#;
    let m = assert_round_trips(json);
    assert_eq!(m.role, Role::Other("system".into()));
    assert_eq!(m.extra["trace"], json!({"span": 7}));
    let Part::Other(image) = &m.parts[0] else {
        panic!()
    };
    assert_eq!(image["alt_text"], "a cat");
    assert_eq!(m.parts[0].type_name(), "image");
    let Part::Text(t) = &m.parts[1] else { panic!() };
    assert_eq!(t.extra["language"], "en");
    let Part::ToolResult(r) = &m.parts[2] else {
        panic!()
    };
    assert_eq!(r.result, Value::Null);
    assert_eq!(r.extra["tool_name"], "calc");
    let Part::ToolError(e) = &m.parts[3] else {
        panic!()
    };
    assert_eq!(e.error_type, ToolErrorType::Other("TIMEOUT".into()));
    assert_eq!(e.extra["text"], "x");

    // Unknown parts have a body too.
    let body = m.body();
    assert_eq!(body.parts[0].kind, PartKind::Image);
    assert_eq!(body.parts[0].name.as_deref(), Some("/parts/0"));
    assert_eq!(body.parts[0].content_type, "application/json");
    assert_eq!(
        json_content(&body, 0)["image_url"],
        "https://example.com/cat.png"
    );
    assert_eq!(
        body.parts[3].metadata.as_ref().unwrap()["errorType"],
        "TIMEOUT"
    );

    // Streamed: no warning for unknown types or fields.
    let (stream, updates) = assemble(&[sse_of(&[json]).as_bytes()], false);
    assert_eq!(stream.messages(), [m]);
    assert!(codes(&updates).is_empty(), "{updates:?}");
}

#[test]
fn malformed_parts_of_known_types_are_kept_whole_and_reported() {
    let json = r#"{"role":"assistant","parts":[
        {"type":"text","text":5},
        {"type":"tool_call","tool_call_id":"tc_x","tool_name":"f","args":"{\"a\":1}"},
        {"type":"tool_result","tool_call_id":"tc_x"},
        {"type":"tool_error","tool_call_id":"tc_x","message":"no type"},
        {"text":"no type at all"},
        {"type":7}
    ]}"#;
    let m = assert_round_trips(json);
    assert!(m.parts.iter().all(|p| matches!(p, Part::Other(_))));
    let (stream, updates) = assemble(&[sse_of(&[json]).as_bytes()], false);
    assert_eq!(stream.messages(), [m]);
    let got: Vec<(u64, String)> = issues(&updates)
        .into_iter()
        .map(|(_, code, d)| {
            (
                d["partIndex"].as_u64().unwrap(),
                code + ": " + d["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (0, "invalid-part: `text` must be a string".to_owned()),
            (
                1,
                "invalid-part: a tool_call part needs `args`, an object".to_owned()
            ),
            (
                2,
                "invalid-part: a tool_result part needs `result`".to_owned()
            ),
            (
                3,
                "invalid-part: a tool_error part needs a string `error_type`".to_owned()
            ),
            (4, "invalid-part: a part needs `type`".to_owned()),
            (5, "invalid-part: `type` must be a string".to_owned()),
        ]
    );
    let (_, _, details) = &issues(&updates)[1];
    assert_eq!(details["part"]["args"], r#"{"a":1}"#);
    assert_eq!(details["kind"], "tool_call");
}

#[test]
fn malformed_packets_are_skipped_reported_and_do_not_stop_the_stream() {
    let sse = concat!(
        "data: {not json\n\n",
        "data: {\"parts\":[]}\n\n",
        "data: {\"role\":\"assistant\",\"parts\":{}}\n\n",
        "data: {\"role\":\"assistant\",\"parts\":[\"text\"]}\n\n",
        "data: {\"role\":\"assistant\",\"id\":7,\"parts\":[]}\n\n",
        "data: [1,2]\n\n",
        "data: {\"role\":\"assistant\",\"parts\":[]} trailing\n\n",
        "data: [DONE]\n\n",
        "data: {\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"ok\"}]}\n\n",
    );
    let (stream, updates) = assemble(&[sse.as_bytes()], false);
    assert_eq!(stream.messages().len(), 1);
    assert_eq!(stream.messages()[0].text(), "ok");
    assert_eq!(stream.status(), StreamStatus::Complete);
    assert_eq!(stream.assembler().packets(), 1);
    assert_eq!(
        codes(&updates),
        [
            "invalid-json",
            "invalid-packet",
            "invalid-packet",
            "invalid-packet",
            "invalid-packet",
            "invalid-packet",
            "invalid-json"
        ]
    );
    let all = issues(&updates);
    assert_eq!(all[0].2["data"], "{not json");
    assert_eq!(all[0].2["line"], 1);
    assert_eq!(all[1].2["data"], "{\"parts\":[]}");
    assert!(all.iter().all(|(s, _, _)| *s == Severity::Warning));
    // Message::parse reports the same errors.
    let e = Message::parse("{\"parts\":[]}").unwrap_err();
    assert_eq!(e.code(), "invalid-packet");
    assert!(e.to_string().contains("role"), "{e}");
    assert_eq!(Message::parse("{").unwrap_err().code(), "invalid-json");
}

#[test]
fn a_stream_cut_inside_an_event_is_incomplete_with_everything_kept() {
    let sse = sse_of(&STREAMED);
    let cut = sse.find("written the file").unwrap();
    let (stream, updates) = assemble(&[&sse.as_bytes()[..cut]], false);
    assert_eq!(stream.status(), StreamStatus::Incomplete);
    let m = &stream.messages()[0];
    assert_eq!(m.text(), "I have successfully");
    assert_eq!(m.parts.len(), 3);
    let all = issues(&updates);
    let tail: Vec<(Severity, &str)> = all[all.len() - 2..]
        .iter()
        .map(|(s, c, _)| (*s, c.as_str()))
        .collect();
    assert_eq!(
        tail,
        [
            (Severity::Warning, "incomplete-event"),
            (Severity::Error, "stream-incomplete")
        ]
    );
    assert_eq!(
        all.last().unwrap().2,
        json!({"reason": "the stream ended inside an SSE event", "packets": 4})
    );
    match updates.last().unwrap() {
        StreamUpdate::Done { status, messages } => {
            assert_eq!(*status, StreamStatus::Incomplete);
            assert_eq!(messages, stream.messages());
        }
        other => panic!("{other:?}"),
    }
    // The body marks the unfinished part.
    let body = stream.body(0).unwrap();
    assert_eq!(body.parts[2].status, PartStatus::Incomplete);
    assert_eq!(body.parts[0].status, PartStatus::Complete);
    assert_eq!(
        body.parts[2].content.as_deref(),
        Some("I have successfully")
    );
}

#[test]
fn a_whole_packet_without_its_blank_line_is_applied_but_the_stream_is_incomplete() {
    let sse = "data: {\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"Hi\"}]}\n\ndata: {\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\" you\"}]}";
    let (stream, updates) = assemble(&[sse.as_bytes()], false);
    assert_eq!(stream.messages()[0].text(), "Hi you");
    assert_eq!(stream.status(), StreamStatus::Incomplete);
    assert_eq!(codes(&updates), ["incomplete-event", "stream-incomplete"]);
    // Strict mode too: the transport broke, not the document, so the cut event is a warning and
    // its whole packet is applied. (Strict mode made it an error and dropped the packet.)
    let mut strict = AgentxStream::new(AssemblerOptions {
        strict: true,
        ..Default::default()
    });
    strict.feed(sse.as_bytes());
    strict.finish();
    assert_eq!(strict.messages()[0].text(), "Hi you");
    assert_eq!(strict.status(), StreamStatus::Incomplete);
    assert_eq!(strict.assembler().packets(), 2);
    let severities: Vec<(Severity, String)> = issues(&strict.drain_updates())
        .into_iter()
        .map(|(s, c, _)| (s, c))
        .collect();
    assert_eq!(
        severities,
        [
            (Severity::Warning, "incomplete-event".to_owned()),
            (Severity::Error, "stream-incomplete".to_owned())
        ]
    );
}

#[test]
fn packets_strict_mode_refuses_are_not_counted() {
    let strict = || {
        agentwire::dialect::agentx::Assembler::new(AssemblerOptions {
            strict: true,
            ..Default::default()
        })
    };
    let mut a = strict();
    a.push_data(r#"{"id":"msg_abc","role":"assistant","parts":[{"type":"text","text":"hi"}]}"#);
    assert_eq!((a.packets(), a.messages().len()), (0, 0), "an invalid id");
    let mut a = strict();
    let id = new_message_id();
    a.push_data(&format!(r#"{{"id":"{id}","role":"assistant","parts":[]}}"#));
    a.push_data(&format!(
        r#"{{"id":"{id}","role":"user","parts":[{{"type":"text","text":"x"}}]}}"#
    ));
    assert_eq!(
        (a.packets(), a.messages()[0].parts.len()),
        (1, 0),
        "a role mismatch"
    );
}

#[test]
fn transport_failures_end_the_stream_incomplete() {
    let mut s = AgentxStream::new(Default::default());
    s.feed(sse_of(&FLOW1_PACKETS[..1]).as_bytes());
    assert_eq!(s.status(), StreamStatus::Streaming);
    assert_eq!(
        s.body(0).unwrap().parts[0].status,
        PartStatus::Streaming,
        "the last part is still streaming"
    );
    s.finish_interrupted("network error");
    s.finish(); // no effect once ended
    s.feed(sse_of(&FLOW1_PACKETS[1..]).as_bytes()); // ignored after the end
    assert_eq!(s.status(), StreamStatus::Incomplete);
    assert_eq!(s.messages()[0].text(), "Hello");
    let updates = s.drain_updates();
    let errors: Vec<_> = issues(&updates)
        .into_iter()
        .filter(|(s, _, _)| *s == Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].1, "stream-incomplete");
    assert_eq!(errors[0].2["reason"], "network error");
    assert_eq!(
        updates
            .iter()
            .filter(|u| matches!(u, StreamUpdate::Done { .. }))
            .count(),
        1
    );
    match updates.iter().find(|u| {
        matches!(
            u,
            StreamUpdate::Issue {
                severity: Severity::Error,
                ..
            }
        )
    }) {
        Some(StreamUpdate::Issue { error, .. }) => {
            assert!(matches!(
                **error,
                AgentxError::StreamIncomplete { packets: 1, .. }
            ))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn packets_without_id_start_a_new_message_when_the_role_changes() {
    let sse = sse_of(&[
        r#"{"role":"user","parts":[{"type":"text","text":"a"}]}"#,
        r#"{"role":"assistant","parts":[{"type":"text","text":"b"}]}"#,
        r#"{"role":"assistant","parts":[{"type":"text","text":"c"}]}"#,
        r#"{"role":"user","parts":[{"type":"text","text":"d"}]}"#,
    ]);
    let (stream, updates) = assemble(&[sse.as_bytes()], false);
    let texts: Vec<(String, String)> = stream
        .messages()
        .iter()
        .map(|m| (m.role.to_string(), m.text()))
        .collect();
    assert_eq!(
        texts,
        [
            ("user".to_owned(), "a".to_owned()),
            ("assistant".to_owned(), "bc".to_owned()),
            ("user".to_owned(), "d".to_owned())
        ]
    );
    assert!(codes(&updates).is_empty());
}

#[test]
fn interleaved_messages_each_get_their_packets_and_a_changed_role_is_reported() {
    let a = "msg_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let b = "msg_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    let packets = [
        format!(r#"{{"id":"{a}","role":"assistant","parts":[{{"type":"text","text":"A1"}}]}}"#),
        format!(r#"{{"id":"{b}","role":"assistant","parts":[{{"type":"text","text":"B1"}}]}}"#),
        format!(
            r#"{{"id":"{a}","role":"assistant","parts":[{{"type":"text","text":"A2"}},{{"type":"text","text":"A3"}}]}}"#
        ),
        format!(r#"{{"id":"{b}","role":"user","parts":[{{"type":"text","text":"B2"}}],"seq":2}}"#),
    ];
    let refs: Vec<&str> = packets.iter().map(String::as_str).collect();
    let (stream, updates) = assemble_at_every_split(&sse_of(&refs));
    let m = stream.messages();
    assert_eq!(m.len(), 2);
    // A text part that is not first in its packet stays its own part.
    assert_eq!(m[0].parts, [Part::text("A1A2"), Part::text("A3")]);
    assert_eq!(m[1].parts, [Part::text("B1B2")]);
    assert_eq!(m[1].role, Role::Assistant);
    assert_eq!(m[1].extra["seq"], 2);
    assert_eq!(replay(&updates), m);
    let all = issues(&updates);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].1, "role-mismatch");
    assert_eq!(
        all[0].2,
        json!({"id": b, "role": "assistant", "got": "user"})
    );
}

#[test]
fn text_part_fields_of_continuation_packets_are_merged_without_rewriting_history() {
    let sse = sse_of(&[
        r#"{"role":"assistant","parts":[{"type":"text","text":"Bon"}]}"#,
        r#"{"role":"assistant","parts":[{"type":"text","text":"jour","language":"fr"}]}"#,
    ]);
    for coalesce in [false, true] {
        let (stream, updates) = assemble(&[sse.as_bytes()], coalesce);
        let Part::Text(t) = &stream.messages()[0].parts[0] else {
            panic!()
        };
        assert_eq!(t.text, "Bonjour");
        assert_eq!(t.extra["language"], "fr");
        // The part's first update shows it as it arrived.
        let StreamUpdate::Part { part, .. } = &updates[1] else {
            panic!("{:?}", updates[1])
        };
        assert_eq!(*part, Part::text("Bon"));
    }
}

#[test]
fn coalesced_updates_carry_the_same_text_in_fewer_deltas() {
    let mut b = MessageBuilder::new(Role::Assistant);
    let mut sse = String::new();
    for word in [
        "Once", " upon", " a", " time", ", there", " was", " a", " parser.",
    ] {
        b.text(word).write_sse(&mut sse);
    }
    let (plain, plain_updates) = assemble(&[sse.as_bytes()], false);
    let (co, co_updates) = assemble(&[sse.as_bytes()], true);
    assert_eq!(plain.messages(), co.messages());
    assert_eq!(replay(&plain_updates), replay(&co_updates));
    let deltas = |us: &[StreamUpdate]| {
        us.iter()
            .filter(|u| matches!(u, StreamUpdate::TextDelta { .. }))
            .count()
    };
    assert_eq!(deltas(&plain_updates), 7);
    assert_eq!(deltas(&co_updates), 1);
}

#[test]
fn json_updates_match_the_materialized_updates() {
    let mut sse = sse_of(&FLOW2);
    sse += &sse_of(&STREAMED);
    sse += "data: {\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":1}]}\n\n";
    for coalesce in [false, true] {
        for chunk in [1, 7, 64, 100_000] {
            let mut a = AgentxStream::new(AssemblerOptions {
                coalesce,
                ..Default::default()
            });
            let mut b = a.clone();
            let mut from_json = Vec::new();
            let mut owned = Vec::new();
            for c in sse.as_bytes().chunks(chunk) {
                a.feed(c);
                b.feed(c);
                let mut s = String::new();
                a.assembler_mut().drain_updates_json(&mut s);
                from_json.extend(serde_json::from_str::<Vec<Value>>(&s).unwrap());
                owned.extend(
                    b.drain_updates()
                        .iter()
                        .map(|u| serde_json::to_value(u).unwrap()),
                );
            }
            a.finish();
            b.finish();
            let mut s = String::new();
            a.assembler_mut().drain_updates_json(&mut s);
            from_json.extend(serde_json::from_str::<Vec<Value>>(&s).unwrap());
            owned.extend(
                b.drain_updates()
                    .iter()
                    .map(|u| serde_json::to_value(u).unwrap()),
            );
            assert_eq!(from_json, owned, "coalesce {coalesce}, chunk {chunk}");
        }
    }
}

#[test]
fn ids_have_the_documented_shape() {
    let m = new_message_id();
    let t = new_tool_call_id();
    assert!(is_message_id(&m), "{m}");
    assert!(is_tool_call_id(&t), "{t}");
    assert_eq!(m.len(), 4 + 32);
    assert_eq!(t.len(), 3 + 32);
    assert_ne!(new_message_id(), m);
    for bad in [
        "msg_abc",
        "msg_0123456789ABCDEF0123456789abcdef",
        "msg_0123456789abcdef0123456789abcde",
        "tc_0123456789abcdef0123456789abcdef",
        "",
    ] {
        assert!(!is_message_id(bad), "{bad}");
    }
    assert!(!is_tool_call_id("tc_123"));
    assert!(is_tool_call_id("tc_0123456789abcdef0123456789abcdef"));
    let b = MessageBuilder::new(Role::Assistant);
    assert!(is_message_id(b.id()));
    assert!(is_tool_call_id(
        &ToolCallPart::new("f", Default::default()).tool_call_id
    ));
    assert!(is_message_id(
        Message::user_text("hi").id.as_deref().unwrap()
    ));
}

#[test]
fn builder_packets_carry_only_what_is_new() {
    let mut b = MessageBuilder::with_id("msg_0123456789abcdef0123456789abcdef", Role::Assistant);
    let call = ToolCallPart::new(
        "write_file",
        json!({"path": "/a", "content": "x"})
            .as_object()
            .cloned()
            .unwrap(),
    );
    let id = call.tool_call_id.clone();
    let packets = [
        b.text("Let me"),
        b.text(" write it."),
        b.tool_call(call),
        b.tool_error(&id, ToolErrorType::Execution, "disk full"),
        b.tool_result(&id, json!("ok")),
        b.packet(vec![Part::text("Done"), Part::text("!")]),
    ];
    assert_eq!(
        serde_json::to_value(&packets[1]).unwrap(),
        json!({"id": b.id(), "role": "assistant", "parts": [{"type": "text", "text": " write it."}]})
    );
    assert_eq!(
        serde_json::to_value(&packets[3]).unwrap()["parts"][0],
        json!({"type": "tool_error", "tool_call_id": id, "error_type": "EXECUTION", "message": "disk full"})
    );
    let sse: String = packets.iter().map(Message::to_sse).collect();
    assert!(sse.starts_with("data: {\"id\":\"msg_0123456789abcdef0123456789abcdef\",\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"Let me\"}]}\n\n"));
    let (stream, updates) = assemble_at_every_split(&sse);
    assert_eq!(stream.messages(), [b.message().clone()]);
    assert!(codes(&updates).is_empty(), "{updates:?}");
    let kinds: Vec<&str> = b.message().parts.iter().map(Part::type_name).collect();
    assert_eq!(
        kinds,
        [
            "text",
            "tool_call",
            "tool_error",
            "tool_result",
            "text",
            "text"
        ]
    );
    let body = b.message().body();
    assert_eq!(body.parts[4].content.as_deref(), Some("Done"));
    assert_eq!(body.parts[5].content.as_deref(), Some("!"));
    assert_eq!(body.parts[3].content.as_deref(), Some("\"ok\""));
}

#[test]
fn error_codes_and_details_are_stable() {
    let e = AgentxError::InvalidId {
        field: "id",
        value: "msg_abc".into(),
        expected: "msg_ + 32 lowercase hex",
    };
    assert_eq!(e.code(), "invalid-id");
    assert_eq!(e.to_string(), "id `msg_abc` is not msg_ + 32 lowercase hex");
    let e = AgentxError::StreamIncomplete {
        reason: "reset".into(),
        packets: 3,
    };
    assert_eq!(e.code(), "stream-incomplete");
    assert_eq!(e.details(), json!({"reason": "reset", "packets": 3}));
    let e: AgentxError = agentwire::sse::SseError::EventTooLarge { limit: 8 }.into();
    assert_eq!(e.code(), "event-too-large");
    assert_eq!(e.details(), json!({"limit": 8}));
}

#[test]
fn oversized_events_are_reported_and_later_packets_still_arrive() {
    let mut s = AgentxStream::new(AssemblerOptions {
        sse: agentwire::sse::SseOptions { max_event_size: 64 },
        ..Default::default()
    });
    let big = format!(
        r#"{{"role":"assistant","parts":[{{"type":"text","text":"{}"}}]}}"#,
        "x".repeat(100)
    );
    s.feed(
        sse_of(&[
            &big,
            r#"{"role":"assistant","parts":[{"type":"text","text":"ok"}]}"#,
        ])
        .as_bytes(),
    );
    s.finish();
    let updates = s.drain_updates();
    assert_eq!(codes(&updates), ["event-too-large"]);
    assert_eq!(s.messages()[0].text(), "ok");
    assert_eq!(s.status(), StreamStatus::Complete);
}

/// Counts this thread's heap allocations (the test binary's allocator is the system one, counted).
mod allocations {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static COUNT: Cell<u64> = const { Cell::new(0) };
    }

    struct Counting;

    fn bump() {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    }

    // SAFETY: every call is passed to the system allocator unchanged; this only counts.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            bump();
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            bump();
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static GLOBAL: Counting = Counting;

    /// Allocations (and reallocations) made by this thread so far.
    pub fn count() -> u64 {
        COUNT.try_with(Cell::get).unwrap_or(0)
    }
}

#[test]
fn text_packets_allocate_nothing_per_packet() {
    let mut b = MessageBuilder::new(Role::Assistant);
    let mut sse = String::new();
    for _ in 0..2000 {
        b.text("token ").write_sse(&mut sse);
    }
    let (warm_up, rest) = sse.split_at(sse.find("\n\n").unwrap() + 2);
    for coalesce in [false, true] {
        let mut s = AgentxStream::new(AssemblerOptions {
            coalesce,
            ..Default::default()
        });
        let mut out = String::with_capacity(1 << 16);
        s.feed(warm_up.as_bytes());
        s.assembler_mut().drain_updates_json(&mut out);
        let before = allocations::count();
        for chunk in rest.as_bytes().chunks(100) {
            s.feed(chunk);
            out.clear();
            s.assembler_mut().drain_updates_json(&mut out);
        }
        let made = allocations::count() - before;
        // Only amortized growth of the text and the buffers: logarithmic, not one per packet.
        assert!(
            made < 60,
            "{made} allocations for 1999 packets (coalesce {coalesce})"
        );
        assert_eq!(s.messages()[0].text().len(), 2000 * "token ".len());
    }
}

mod property {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Text(String),
        Call(String, Vec<(String, i64)>),
        Result(Value),
        Error(bool, String),
        Several(Vec<String>),
    }

    fn op() -> impl Strategy<Value = Op> {
        let text = "[a-zé東 \\n\"\\\\/%]{0,6}";
        prop_oneof![
            4 => text.prop_map(Op::Text),
            1 => ("[a-z_]{1,8}", prop::collection::vec(("[a-z]{1,4}", any::<i64>()), 0..3))
                .prop_map(|(n, a)| Op::Call(n, a)),
            1 => prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::from),
                // serde_json (without its `float_roundtrip` feature) may change the last digit of
                // some floats when reading them; floats with few digits are exact.
                (any::<i32>(), 0u32..4).prop_map(|(n, e)| Value::from(f64::from(n) / 10f64.powi(e as i32))),
                text.prop_map(|s| json!({ "out": s })),
            ]
            .prop_map(Op::Result),
            1 => (any::<bool>(), text).prop_map(|(v, m)| Op::Error(v, m)),
            1 => prop::collection::vec(text, 1..3).prop_map(Op::Several),
        ]
    }

    proptest! {
        #[test]
        fn whatever_the_builder_emits_the_assembler_rebuilds(
            script in prop::collection::vec((0usize..3, any::<bool>(), op()), 0..24),
            split in any::<prop::sample::Index>(),
            coalesce in any::<bool>(),
        ) {
            let mut builders = [
                MessageBuilder::new(Role::Assistant),
                MessageBuilder::new(Role::User),
                MessageBuilder::new(Role::Assistant),
            ];
            let mut order: Vec<usize> = Vec::new();
            let mut last_call = String::new();
            let mut sse = String::new();
            for (which, crlf, op) in &script {
                let b = &mut builders[*which];
                let packet = match op {
                    Op::Text(t) => b.text(t),
                    Op::Call(name, args) => {
                        let args = args.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                        let call = ToolCallPart::new(name.as_str(), args);
                        last_call = call.tool_call_id.clone();
                        b.tool_call(call)
                    }
                    Op::Result(v) => b.tool_result(&last_call, v.clone()),
                    Op::Error(validation, m) => {
                        let kind = if *validation { ToolErrorType::Validation } else { ToolErrorType::Execution };
                        b.tool_error(&last_call, kind, m)
                    }
                    Op::Several(texts) => b.packet(texts.iter().map(Part::text).collect()),
                };
                if !order.contains(which) {
                    order.push(*which);
                }
                let before = sse.len();
                packet.write_sse(&mut sse);
                if *crlf {
                    let event = sse.split_off(before).replace('\n', "\r\n");
                    sse.push_str(&event);
                }
            }
            let bytes = sse.as_bytes();
            let at = split.index(bytes.len() + 1);
            let mut s = AgentxStream::new(AssemblerOptions { coalesce, ..Default::default() });
            let mut updates = Vec::new();
            s.feed(&bytes[..at]);
            updates.extend(s.drain_updates());
            s.feed(&bytes[at..]);
            updates.extend(s.drain_updates());
            s.finish();
            updates.extend(s.drain_updates());
            prop_assert!(codes(&updates).is_empty(), "{:?}", updates);
            prop_assert_eq!(s.status(), StreamStatus::Complete);
            let expected: Vec<Message> = order.iter().map(|&i| builders[i].message().clone()).collect();
            prop_assert_eq!(s.messages(), expected.as_slice());
            prop_assert_eq!(&replay(&updates), &expected);
            // Text is delivered once: the updates' text adds up to the messages' text.
            let delivered: usize = updates.iter().map(|u| match u {
                StreamUpdate::TextDelta { delta, .. } => delta.len(),
                StreamUpdate::Part { part: Part::Text(t), .. } => t.text.len(),
                _ => 0,
            }).sum();
            let total: usize = expected.iter().flat_map(|m| &m.parts).map(|p| match p {
                Part::Text(t) => t.text.len(),
                _ => 0,
            }).sum();
            prop_assert_eq!(delivered, total);
            for m in &expected {
                let body = m.body();
                prop_assert_eq!(body.parts.len(), m.parts.len());
                let mut names: Vec<&str> = body.parts.iter().filter_map(|p| p.name.as_deref()).collect();
                let n = names.len();
                names.sort_unstable();
                names.dedup();
                prop_assert_eq!(names.len(), n, "names are unique");
            }
        }

        #[test]
        fn arbitrary_bytes_never_panic(chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 0..8)) {
            let mut s = AgentxStream::new(AssemblerOptions { coalesce: true, ..Default::default() });
            for c in &chunks {
                s.feed(c);
                let mut out = String::new();
                s.assembler_mut().drain_updates_json(&mut out);
            }
            s.finish();
            let _ = s.drain_updates();
            for i in 0..s.messages().len() {
                let _ = s.body(i);
            }
        }

        #[test]
        fn arbitrary_packet_shaped_json_never_panics_and_round_trips(
            id in prop::option::of("[a-z_0-9]{0,8}"),
            parts in prop::collection::vec(
                prop::collection::btree_map(
                    prop_oneof![Just("type".to_owned()), Just("text".to_owned()), Just("tool_call_id".to_owned()),
                                Just("args".to_owned()), Just("result".to_owned()), Just("error_type".to_owned()),
                                Just("message".to_owned()), Just("tool_name".to_owned()), "[a-z]{1,3}"],
                    prop_oneof![Just(json!("text")), Just(json!("tool_call")), Just(json!("tool_result")),
                                Just(json!("tool_error")), Just(json!({})), Just(json!(null)), Just(json!(1)),
                                "[a-z]{0,3}".prop_map(Value::from)],
                    0..6),
                0..4),
        ) {
            let mut v = json!({ "role": "assistant", "parts": parts });
            if let Some(id) = id { v["id"] = json!(id); }
            let text = v.to_string();
            let m = Message::parse(&text).unwrap();
            prop_assert_eq!(serde_json::to_value(&m).unwrap(), v);
            let mut s = AgentxStream::new(Default::default());
            s.feed(m.to_sse().as_bytes());
            s.feed(m.to_sse().as_bytes());
            s.finish();
            let _ = s.drain_updates();
            let _ = m.body();
        }
    }
}

/// A packet of one message with the given text parts, each given as UTF-16 code units and written
/// as a JavaScript server's `JSON.stringify` writes a lone surrogate (`\ud83d`).
fn utf16_packet(id: &str, parts: &[&[u16]]) -> String {
    let parts: Vec<String> = parts
        .iter()
        .map(|units| {
            format!(
                r#"{{"type":"text","text":"{}"}}"#,
                common::js_json_string(units)
            )
        })
        .collect();
    format!(
        r#"{{"id":"{id}","role":"assistant","parts":[{}]}}"#,
        parts.join(",")
    )
}

fn texts(message: &Message) -> Vec<&str> {
    message
        .parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => t.text.as_str(),
            _ => "",
        })
        .collect()
}

#[test]
fn a_surrogate_pair_cut_between_two_packets_is_joined_at_every_split() {
    // A JavaScript server slicing by UTF-16 index: each emoji's pair is cut (`\ud83d` ends one
    // packet, `\ude00` begins the next); one packet is a lone high half alone.
    let text = "I 😀 you, 東京 😀😀";
    let pieces = common::cut_utf16(text, &[3, 14, 15, 16]);
    assert_eq!(pieces[3], [0xd83d], "a packet of the high half alone");
    let id = "msg_0123456789abcdef0123456789abcdef";
    let packets: Vec<String> = pieces.iter().map(|p| utf16_packet(id, &[p])).collect();
    let sse = sse_of(&packets.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(sse.contains(r#"\ud83d""#) && sse.contains(r#""\ude00"#));
    let (s, updates) = assemble_at_every_split(&sse);
    assert_eq!(texts(&s.messages()[0]), [text]);
    assert_eq!(replay(&updates), s.messages());
    assert!(codes(&updates).is_empty());
    let (coalesced, updates) = assemble(&[sse.as_bytes()], true);
    assert_eq!(coalesced.messages(), s.messages());
    assert_eq!(replay(&updates), s.messages());
    // In a packet of several parts, a low half begins only the first and a high half ends only
    // the last: the halves at the inner edges stay U+FFFD, as the parts stay apart.
    let (high, low) = (0xd83d, 0xde00);
    let z = u16::from(b'z');
    let sse = sse_of(&[
        &utf16_packet(id, &[&[u16::from(b'>'), high]]),
        &utf16_packet(id, &[&[low, high], &[low, u16::from(b'y')], &[z, high]]),
        &utf16_packet(id, &[&[low]]),
    ]);
    let (s, _) = assemble_at_every_split(&sse);
    assert_eq!(texts(&s.messages()[0]), [">😀\u{fffd}", "\u{fffd}y", "z😀"]);
}

#[test]
fn a_held_high_half_not_followed_by_its_low_half_is_kept_as_a_replacement_character() {
    let id = "msg_0123456789abcdef0123456789abcdef";
    let other = "msg_fedcba9876543210fedcba9876543210";
    let high: &[u16] = &[u16::from(b'a'), 0xd83d];
    let deltas = |updates: &[StreamUpdate]| -> Vec<String> {
        updates
            .iter()
            .filter_map(|u| match u {
                StreamUpdate::Part {
                    part: Part::Text(t),
                    ..
                } => Some(t.text.clone()),
                StreamUpdate::TextDelta { delta, .. } => Some(delta.clone()),
                _ => None,
            })
            .collect()
    };
    // Followed by a packet that does not begin with a low half: U+FFFD, then that packet.
    let sse = sse_of(&[
        &utf16_packet(id, &[high]),
        &utf16_packet(id, &[&[u16::from(b'b')]]),
    ]);
    let (s, updates) = assemble(&[sse.as_bytes()], false);
    assert_eq!(texts(&s.messages()[0]), ["a\u{fffd}b"]);
    assert_eq!(deltas(&updates), ["a", "\u{fffd}", "b"]);
    // The stream ends, whole or broken: the held half is kept, before the end is reported.
    for broken in [false, true] {
        let mut s = AgentxStream::new(AssemblerOptions::default());
        s.feed(sse_of(&[&utf16_packet(id, &[high])]).as_bytes());
        if broken {
            s.finish_interrupted("network error");
        } else {
            s.finish();
        }
        let updates = s.drain_updates();
        assert_eq!(texts(&s.messages()[0]), ["a\u{fffd}"]);
        assert_eq!(deltas(&updates), ["a", "\u{fffd}"]);
        assert!(matches!(updates.last(), Some(StreamUpdate::Done { .. })));
    }
    // The messages taken while a half is held: the half is in them, as U+FFFD.
    let mut s = AgentxStream::new(AssemblerOptions::default());
    s.feed(sse_of(&[&utf16_packet(id, &[high])]).as_bytes());
    let taken = s.assembler().clone().into_messages();
    assert_eq!(texts(&taken[0]), ["a\u{fffd}"]);
    // A low half that begins a packet of another message does not complete it: both are U+FFFD.
    let sse = sse_of(&[
        &utf16_packet(id, &[high]),
        &utf16_packet(other, &[&[0xde00]]),
    ]);
    let (s, _) = assemble(&[sse.as_bytes()], false);
    assert_eq!(texts(&s.messages()[0]), ["a\u{fffd}"]);
    assert_eq!(texts(&s.messages()[1]), ["\u{fffd}"]);
    // A packet whose first part is not text: released before it.
    let call = r#"{"id":"msg_0123456789abcdef0123456789abcdef","role":"assistant","parts":[{"type":"tool_call","tool_call_id":"tc_0123456789abcdef0123456789abcdef","tool_name":"t","args":{}}]}"#;
    let sse = sse_of(&[
        &utf16_packet(id, &[high]),
        call,
        &utf16_packet(id, &[&[0xde00]]),
    ]);
    let (s, _) = assemble(&[sse.as_bytes()], false);
    assert_eq!(texts(&s.messages()[0]), ["a\u{fffd}", "", "\u{fffd}"]);
    // A low half with nothing held, and `\\ud83d` (an escaped backslash, then letters): as written.
    let escaped = r#"{"id":"msg_0123456789abcdef0123456789abcdef","role":"assistant","parts":[{"type":"text","text":"\\ud83d"}]}"#;
    let sse = sse_of(&[&utf16_packet(id, &[&[0xde00, u16::from(b'x')]]), escaped]);
    let (s, _) = assemble(&[sse.as_bytes()], false);
    assert_eq!(texts(&s.messages()[0]), ["\u{fffd}x\\ud83d"]);
}

/// A message's parts take the slots they fill: they grow one slot at a time from empty (`Vec`
/// would allocate four for the first: 384 bytes of wasm32 memory never used per message of one
/// part in an assembler that keeps every message).
#[test]
fn parts_take_the_memory_they_fill() {
    let mut lengths = Vec::new();
    for (name, packets) in [
        ("flow 1", &FLOW1_PACKETS[..]),
        ("flow 2", &FLOW2[..]),
        ("flow 3", &FLOW3[..]),
    ] {
        let (stream, _) = assemble(&[sse_of(packets).as_bytes()], false);
        for m in stream.messages() {
            lengths.push(m.parts.len());
            assert_eq!(
                m.parts.capacity(),
                m.parts.len().next_power_of_two(),
                "{name}"
            );
        }
    }
    assert!(lengths.contains(&1), "{lengths:?}");
}
