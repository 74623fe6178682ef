//! Atlas structured messages: the documentation's examples (weather query and response, error,
//! task assignment, tool calls and results), JSON round trips (exact floats, unknown metadata and
//! fields), strict and lenient reading, typed errors with paths, argument checks, and the body view.
#![cfg(not(target_arch = "wasm32"))]

use agentwire::body::{validate_body, Body, ContentEncoding, Part, PartKind};
use agentwire::dialect::atlas::{
    ArgumentCheck, AtlasError, MessageType, ReadOptions, StructuredMessage, ToolCall, ToolResult,
    ToolStatus,
};
use agentwire::wire::JsonMap;
use agentwire::ErrorCode;
use serde_json::{json, Value};

fn map(value: Value) -> JsonMap {
    match value {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn is_uuid_v4(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit() && !c.is_ascii_uppercase(),
        })
        && b[14] == b'4'
}

/// The documentation's first example: `StructuredMessage(content=…, metadata={"type":
/// MessageType.QUERY, "priority": "high"}, task_id="weather-task-123")`, from `user` to
/// `weather_agent`.
fn weather_query() -> StructuredMessage {
    let mut message = StructuredMessage::new("What's the weather in New York?");
    message.metadata = map(json!({"type": "query", "priority": "high"}));
    message.task_id = "weather-task-123".into();
    message.source_agent = Some("user".into());
    message.target_agent = Some("weather_agent".into());
    message
}

fn err<T: std::fmt::Debug>(r: Result<T, AtlasError>) -> AtlasError {
    match r {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------------------------------------
// The documentation's examples.

#[test]
fn a_basic_message_has_the_documented_fields_and_json() {
    let before = agentwire::platform::now_unix_seconds();
    let plain = StructuredMessage::new("Hello, agent!");
    assert_eq!(plain.content, "Hello, agent!");
    assert!(plain.metadata.is_empty());
    assert!(is_uuid_v4(&plain.task_id), "{}", plain.task_id);
    assert!(plain.timestamp >= before && plain.timestamp <= before + 60.0);
    assert!(!plain.has_tool_calls() && !plain.has_tool_results());
    assert_eq!(
        (plain.source_agent.clone(), plain.target_agent.clone()),
        (None, None)
    );
    assert_eq!(plain.message_type(), None);
    assert_ne!(StructuredMessage::new("x").task_id, plain.task_id);

    let mut query = weather_query();
    query.timestamp = 1712150400.5;
    assert_eq!(query.message_type(), Some(MessageType::Query));
    assert_eq!(
        query.to_value(),
        json!({
            "content": "What's the weather in New York?",
            "metadata": {"type": "query", "priority": "high"},
            "task_id": "weather-task-123",
            "timestamp": 1712150400.5,
            "tool_calls": [],
            "tool_results": [],
            "source_agent": "user",
            "target_agent": "weather_agent"
        })
    );
    assert_eq!(
        query.to_json(),
        r#"{"content":"What's the weather in New York?","metadata":{"type":"query","priority":"high"},"task_id":"weather-task-123","timestamp":1712150400.5,"tool_calls":[],"tool_results":[],"source_agent":"user","target_agent":"weather_agent"}"#
    );
    // Agents not set are written as null, as the reference does.
    let mut plain = plain;
    plain.timestamp = 1.0;
    let v = plain.to_value();
    assert_eq!(v["source_agent"], Value::Null);
    assert_eq!(v["target_agent"], Value::Null);
    assert_eq!(v.as_object().map(|m| m.len()), Some(8));
}

#[test]
fn the_weather_response_swaps_agents_and_replies_to_the_task() {
    let query = weather_query();
    let response =
        StructuredMessage::create_response("The weather in New York is sunny and 72°F.", &query);
    assert_eq!(
        response.content,
        "The weather in New York is sunny and 72°F."
    );
    assert_eq!(response.source_agent.as_deref(), Some("weather_agent"));
    assert_eq!(response.target_agent.as_deref(), Some("user"));
    assert_eq!(response.message_type(), Some(MessageType::Response));
    assert_eq!(response.in_reply_to(), Some("weather-task-123"));
    assert_eq!(
        Value::Object(response.metadata.clone()),
        json!({"type": "response", "in_reply_to": "weather-task-123"})
    );
    assert!(is_uuid_v4(&response.task_id));
    assert_ne!(response.task_id, query.task_id);
    assert!(!response.has_tool_calls() && !response.has_tool_results());
    assert_eq!(
        StructuredMessage::from_json(&response.to_json()),
        Ok(response)
    );
}

#[test]
fn the_error_example_and_an_error_without_original() {
    let query = weather_query();
    let error = StructuredMessage::create_error(
        "Failed to retrieve weather data: API unavailable",
        Some(&query),
    );
    assert_eq!(
        error.content,
        "Failed to retrieve weather data: API unavailable"
    );
    assert_eq!(error.message_type(), Some(MessageType::Error));
    assert_eq!(error.metadata["type"], "error");
    assert_eq!(error.in_reply_to(), Some("weather-task-123"));
    assert_eq!(error.source_agent.as_deref(), Some("weather_agent"));
    assert_eq!(error.target_agent.as_deref(), Some("user"));

    let standalone = StructuredMessage::create_error("Standalone error", None);
    assert_eq!(standalone.content, "Standalone error");
    assert_eq!(
        Value::Object(standalone.metadata.clone()),
        json!({"type": "error"})
    );
    assert_eq!(standalone.in_reply_to(), None);
    assert_eq!(standalone.source_agent, None);
    assert_eq!(standalone.target_agent, None);
}

#[test]
fn the_task_assignment_keeps_task_data_in_metadata() {
    let task = StructuredMessage::create_task(
        "Analyze the sentiment of these customer reviews",
        "controller",
        "sentiment_analysis_worker",
        Some(map(json!({"priority": "high", "deadline": "2h"}))),
    );
    assert_eq!(
        task.content,
        "Analyze the sentiment of these customer reviews"
    );
    assert_eq!(task.source_agent.as_deref(), Some("controller"));
    assert_eq!(
        task.target_agent.as_deref(),
        Some("sentiment_analysis_worker")
    );
    assert_eq!(task.message_type(), Some(MessageType::Task));
    assert_eq!(
        Value::Object(task.metadata.clone()),
        json!({"type": "task", "priority": "high", "deadline": "2h"})
    );

    // No task data; and a `type` in the task data does not replace `task` (unlike the reference).
    let bare = StructuredMessage::create_task("Do it", "a", "b", None);
    assert_eq!(Value::Object(bare.metadata), json!({"type": "task"}));
    let typed =
        StructuredMessage::create_task("Do it", "a", "b", Some(map(json!({"type": "query"}))));
    assert_eq!(typed.message_type(), Some(MessageType::Task));
}

#[test]
fn tool_calls_and_results_with_success_and_error() {
    // "Adding Tool Calls".
    let mut weather_message = StructuredMessage::new("Check the weather forecast for London");
    let call_id = weather_message.add_tool_call(
        "get_weather",
        map(json!({"location": "London", "unit": "celsius"})),
    );
    assert!(is_uuid_v4(&call_id));
    assert!(weather_message.has_tool_calls());
    assert_eq!(
        weather_message.to_value()["tool_calls"],
        json!([{"id": call_id, "name": "get_weather", "arguments": {"location": "London", "unit": "celsius"}}])
    );
    let second = weather_message.add_tool_call("get_weather", JsonMap::new());
    assert_ne!(second, call_id);

    // "Adding Tool Results": one success, one error.
    let mut response = StructuredMessage::new("Here's the weather information you requested:");
    response.add_tool_result(
        "get_weather",
        json!({"temp": 22, "conditions": "sunny", "humidity": 45}),
        call_id.as_str(),
        ToolStatus::Success,
        None,
    );
    response.add_tool_result(
        "get_weather",
        Value::Null,
        "failed-call-id",
        ToolStatus::Error,
        Some("API connection timeout".into()),
    );
    assert!(response.has_tool_results());
    assert_eq!(
        response.to_value()["tool_results"],
        json!([
            {"name": "get_weather", "result": {"temp": 22, "conditions": "sunny", "humidity": 45},
             "call_id": call_id, "status": "success", "error": null},
            {"name": "get_weather", "result": null, "call_id": "failed-call-id",
             "status": "error", "error": "API connection timeout"}
        ])
    );
    assert_eq!(response.tool_results[1].status, ToolStatus::Error);
    for message in [weather_message, response] {
        assert_eq!(
            StructuredMessage::from_json(&message.to_json()),
            Ok(message.clone())
        );
        assert_eq!(
            StructuredMessage::from_body(&message.to_body()),
            Ok(message)
        );
    }
}

/// The serialization example: `to_dict`, `to_json`, `from_dict`, `from_json`.
#[test]
fn serialization_round_trips_through_value_and_text() {
    let mut message = weather_query();
    message.add_tool_call("get_weather", map(json!({"location": "New York"})));
    let message_dict = message.to_value();
    let json_str = message.to_json();
    assert_eq!(
        StructuredMessage::from_value(&message_dict),
        Ok(message.clone())
    );
    assert_eq!(StructuredMessage::from_json(&json_str), Ok(message.clone()));
    // serde goes the same way.
    assert_eq!(
        serde_json::to_value(&message).ok(),
        Some(message_dict.clone())
    );
    assert_eq!(
        serde_json::from_value::<StructuredMessage>(message_dict).ok(),
        Some(message)
    );
}

// ---------------------------------------------------------------------------------------------
// Reading what Python writes.

/// `json.dumps(message.to_dict())` of the reference, separators and all.
const FROM_PYTHON: &str = r#"{"content": "Check the weather forecast for London", "metadata": {"type": "tool_request", "trace": {"span": 7, "score": 0.30000000000000004}}, "task_id": "0b7e7d4c-3f5c-4d0e-9a55-0c1c0e9b3a11", "timestamp": 1758972921.8811321, "tool_calls": [{"id": "c0ffee00-0000-4000-8000-000000000001", "name": "get_weather", "arguments": {"location": "London", "unit": "celsius"}}], "tool_results": [], "source_agent": "user", "target_agent": null}"#;

#[test]
fn python_output_reads_exactly() {
    let m = StructuredMessage::from_json(FROM_PYTHON).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.content, "Check the weather forecast for London");
    assert_eq!(m.message_type(), Some(MessageType::ToolRequest));
    assert_eq!(m.task_id, "0b7e7d4c-3f5c-4d0e-9a55-0c1c0e9b3a11");
    // serde_json alone reads this timestamp one ULP off; from_json does not.
    assert_eq!(m.timestamp.to_bits(), 1758972921.8811321_f64.to_bits());
    assert_eq!(m.metadata["trace"]["score"].as_f64(), Some(0.1 + 0.2));
    assert_eq!(m.tool_calls.len(), 1);
    assert_eq!(m.tool_calls[0].id, "c0ffee00-0000-4000-8000-000000000001");
    assert_eq!(m.tool_calls[0].name, "get_weather");
    assert_eq!(m.tool_calls[0].arguments["unit"], "celsius");
    assert_eq!(m.source_agent.as_deref(), Some("user"));
    assert_eq!(m.target_agent, None);
    assert!(m.extra.is_empty());
    // Written back, it is the same JSON (key order aside).
    let reparsed: Value = serde_json::from_str(&m.to_json()).unwrap_or_default();
    let original: Value = serde_json::from_str(FROM_PYTHON).unwrap_or_default();
    assert_eq!(reparsed, original);
    // And it survives strict reading.
    assert_eq!(
        StructuredMessage::from_json_with(FROM_PYTHON, &ReadOptions::STRICT),
        Ok(m)
    );
}

#[test]
fn timestamps_survive_bit_for_bit() {
    for t in [
        1758972921.8811321,
        1795691546.6036239,
        0.1,
        -0.0,
        5e-324,
        f64::MAX,
        1712150400.0,
        123456789.12345679,
    ] {
        let mut m = StructuredMessage::new("t");
        m.timestamp = t;
        let back = StructuredMessage::from_json(&m.to_json()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.timestamp.to_bits(), t.to_bits(), "{t:e}");
    }
    // An integer timestamp reads as a float.
    let m = StructuredMessage::from_json(r#"{"content": "", "timestamp": 1712150400}"#);
    assert_eq!(m.map(|m| m.timestamp), Ok(1712150400.0));
}

#[test]
fn unknown_metadata_and_fields_are_kept() {
    let text = r#"{
        "content": "hi", "metadata": {"type": "status", "progress": 0.5, "nested": {"a": [1, null, "x"]}},
        "task_id": "t1", "timestamp": 1.25, "priority": 3, "routing": {"hops": ["a", "b"]},
        "tool_calls": [{"id": "c1", "name": "n", "arguments": {}, "timeout_ms": 500}],
        "tool_results": [{"name": "n", "result": [1, 2], "call_id": "c1", "status": "success", "error": null, "elapsed": 0.7}]
    }"#;
    let m = StructuredMessage::from_json(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        Value::Object(m.extra.clone()),
        json!({"priority": 3, "routing": {"hops": ["a", "b"]}})
    );
    assert_eq!(
        Value::Object(m.tool_calls[0].extra.clone()),
        json!({"timeout_ms": 500})
    );
    assert_eq!(
        Value::Object(m.tool_results[0].extra.clone()),
        json!({"elapsed": 0.7})
    );
    assert_eq!(m.metadata["nested"], json!({"a": [1, null, "x"]}));
    let out = m.to_value();
    assert_eq!(out["priority"], 3);
    assert_eq!(out["routing"], json!({"hops": ["a", "b"]}));
    assert_eq!(out["tool_calls"][0]["timeout_ms"], 500);
    assert_eq!(out["tool_results"][0]["elapsed"], 0.7);
    assert_eq!(StructuredMessage::from_value(&out), Ok(m.clone()));
    assert_eq!(StructuredMessage::from_body(&m.to_body()), Ok(m));

    // An extra key naming a known field is not written (it would duplicate the field).
    let mut m = StructuredMessage::new("real");
    m.extra.insert("content".into(), json!("shadow"));
    let out = m.to_json();
    assert_eq!(out.matches("\"content\"").count(), 1);
    assert_eq!(
        StructuredMessage::from_json(&out).map(|m| m.content),
        Ok("real".into())
    );
}

#[test]
fn message_types_read_case_insensitively_and_stay_as_sent() {
    let cases = [
        ("query", MessageType::Query),
        ("TASK", MessageType::Task),
        ("Response", MessageType::Response),
        ("result", MessageType::Result),
        ("ERROR", MessageType::Error),
        ("status", MessageType::Status),
        ("Tool_Request", MessageType::ToolRequest),
        ("TOOL_RESPONSE", MessageType::ToolResponse),
    ];
    for (wire, kind) in cases {
        let text =
            json!({"content": "c", "metadata": {"type": wire}, "task_id": "t", "timestamp": 1.0})
                .to_string();
        let m = StructuredMessage::from_json_with(&text, &ReadOptions::STRICT)
            .unwrap_or_else(|e| panic!("{wire}: {e}"));
        assert_eq!(m.message_type(), Some(kind.clone()));
        assert_eq!(m.metadata["type"], wire, "metadata is kept as sent");
        assert_eq!(m.to_value()["metadata"]["type"], wire);
        assert_eq!(MessageType::from(wire), kind);
        assert!(kind.is_known());
        assert_eq!(kind.as_str(), wire.to_ascii_lowercase());
        assert_eq!(
            serde_json::to_value(&kind).ok(),
            Some(json!(wire.to_ascii_lowercase()))
        );
        assert_eq!(
            serde_json::from_value::<MessageType>(json!(wire)).ok(),
            Some(kind)
        );
    }
    assert_eq!(
        MessageType::TS_TYPE,
        "export type AtlasMessageType = \"query\" | \"task\" | \"response\" | \"result\" | \"error\" | \"status\" | \"tool_request\" | \"tool_response\" | (string & {});"
    );
    let mut m = StructuredMessage::new("x");
    m.set_message_type(MessageType::ToolResponse);
    assert_eq!(m.metadata["type"], "tool_response");
}

// ---------------------------------------------------------------------------------------------
// Strict and lenient reading, errors.

#[test]
fn unknown_message_type_strict_is_an_error_lenient_keeps_it() {
    let text =
        r#"{"content": "c", "metadata": {"type": "handoff"}, "task_id": "t", "timestamp": 1.0}"#;
    let e = err(StructuredMessage::from_json_with(
        text,
        &ReadOptions::STRICT,
    ));
    assert_eq!(e.code(), "unknown-message-type");
    assert_eq!(
        e.details(),
        json!({"path": "metadata.type", "value": "handoff"})
    );
    assert_eq!(
        e.to_string(),
        "unknown message type `handoff` at `metadata.type`"
    );

    let m = StructuredMessage::from_json(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.message_type(), Some(MessageType::Other("handoff".into())));
    assert!(!MessageType::Other("handoff".into()).is_known());
    assert_eq!(m.to_value()["metadata"]["type"], "handoff");
    assert_eq!(StructuredMessage::from_value(&m.to_value()), Ok(m));
}

#[test]
fn unknown_tool_status_strict_is_an_error_lenient_keeps_it() {
    let v = json!({"content": "c", "metadata": {}, "task_id": "t", "timestamp": 1.0,
        "tool_results": [{"name": "n", "result": 1, "call_id": "c1"},
                         {"name": "n", "result": null, "call_id": "c2", "status": "timeout"}]});
    let e = err(StructuredMessage::from_value_with(&v, &ReadOptions::STRICT));
    assert_eq!(e.code(), "unknown-tool-status");
    assert_eq!(
        e.details(),
        json!({"path": "tool_results[1].status", "value": "timeout"})
    );
    let m = StructuredMessage::from_value(&v).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        m.tool_results[0].status,
        ToolStatus::Success,
        "missing status is success"
    );
    assert_eq!(m.tool_results[0].error, None);
    assert_eq!(
        m.tool_results[1].status,
        ToolStatus::Other("timeout".into())
    );
    assert_eq!(m.to_value()["tool_results"][1]["status"], "timeout");
}

#[test]
fn lenient_fills_in_the_envelope_strict_requires_it() {
    let before = agentwire::platform::now_unix_seconds();
    let m = StructuredMessage::from_json(r#"{"content": "just text"}"#)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.content, "just text");
    assert!(m.metadata.is_empty());
    assert!(is_uuid_v4(&m.task_id));
    assert!(m.timestamp >= before);
    assert!(m.tool_calls.is_empty() && m.tool_results.is_empty());

    // `null` counts as missing.
    let nulls = r#"{"content": "x", "metadata": null, "task_id": null, "timestamp": null, "tool_calls": null, "tool_results": null, "source_agent": null}"#;
    assert!(StructuredMessage::from_json(nulls).is_ok());

    for (missing, text) in [
        (
            "metadata",
            r#"{"content": "x", "task_id": "t", "timestamp": 1.0}"#,
        ),
        (
            "task_id",
            r#"{"content": "x", "metadata": {}, "timestamp": 1.0}"#,
        ),
        (
            "timestamp",
            r#"{"content": "x", "metadata": {}, "task_id": "t"}"#,
        ),
        (
            "timestamp",
            r#"{"content": "x", "metadata": {}, "task_id": "t", "timestamp": null}"#,
        ),
    ] {
        let e = err(StructuredMessage::from_json_with(
            text,
            &ReadOptions::STRICT,
        ));
        assert_eq!(e.code(), "missing-field");
        assert_eq!(e.details(), json!({"path": missing}));
    }
}

#[test]
fn tool_calls_without_id_get_one() {
    let m = StructuredMessage::from_json(
        r#"{"content": "c", "tool_calls": [{"name": "search", "arguments": {"query": "test"}}]}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(is_uuid_v4(&m.tool_calls[0].id));
    let again = StructuredMessage::from_json(&m.to_json());
    assert_eq!(again, Ok(m));
}

#[test]
fn malformed_input_is_a_typed_error_naming_the_field() {
    let base = || json!({"content": "c", "metadata": {}, "task_id": "t", "timestamp": 1.0});
    let with = |key: &str, value: Value| {
        let mut v = base();
        if let Some(m) = v.as_object_mut() {
            m.insert(key.into(), value);
        }
        v
    };
    let without = |key: &str| {
        let mut v = base();
        if let Some(m) = v.as_object_mut() {
            m.remove(key);
        }
        v
    };
    let cases: Vec<(Value, &str, Value)> = vec![
        (
            json!("a string"),
            "wrong-type",
            json!({"path": "", "expected": "object", "found": "a string"}),
        ),
        (
            without("content"),
            "missing-field",
            json!({"path": "content"}),
        ),
        (
            with("content", Value::Null),
            "missing-field",
            json!({"path": "content"}),
        ),
        (
            with("content", json!(42)),
            "wrong-type",
            json!({"path": "content", "expected": "string", "found": 42}),
        ),
        (
            with("metadata", json!([1])),
            "wrong-type",
            json!({"path": "metadata", "expected": "object", "found": [1]}),
        ),
        (
            with("metadata", json!({"type": 7})),
            "wrong-type",
            json!({"path": "metadata.type", "expected": "string", "found": 7}),
        ),
        (
            with("task_id", json!(123)),
            "wrong-type",
            json!({"path": "task_id", "expected": "string", "found": 123}),
        ),
        (
            with("timestamp", json!("1712150400.5")),
            "wrong-type",
            json!({"path": "timestamp", "expected": "number", "found": "1712150400.5"}),
        ),
        (
            with("tool_calls", json!({})),
            "wrong-type",
            json!({"path": "tool_calls", "expected": "array", "found": {}}),
        ),
        (
            with("tool_calls", json!(["x"])),
            "wrong-type",
            json!({"path": "tool_calls[0]", "expected": "object", "found": "x"}),
        ),
        (
            with(
                "tool_calls",
                json!([{"name": "a", "arguments": {}}, {"arguments": {}}]),
            ),
            "missing-field",
            json!({"path": "tool_calls[1].name"}),
        ),
        (
            with("tool_calls", json!([{"name": "a"}])),
            "missing-field",
            json!({"path": "tool_calls[0].arguments"}),
        ),
        (
            with(
                "tool_calls",
                json!([{"name": "a", "arguments": "{\"q\": 1}"}]),
            ),
            "wrong-type",
            json!({"path": "tool_calls[0].arguments", "expected": "object", "found": "{\"q\": 1}"}),
        ),
        (
            with(
                "tool_calls",
                json!([{"id": 5, "name": "a", "arguments": {}}]),
            ),
            "wrong-type",
            json!({"path": "tool_calls[0].id", "expected": "string", "found": 5}),
        ),
        (
            with("tool_results", json!([{"name": "a", "result": 1}])),
            "missing-field",
            json!({"path": "tool_results[0].call_id"}),
        ),
        (
            with(
                "tool_results",
                json!([{"name": "a", "call_id": "c", "status": true}]),
            ),
            "wrong-type",
            json!({"path": "tool_results[0].status", "expected": "string", "found": true}),
        ),
        (
            with(
                "tool_results",
                json!([{"name": "a", "call_id": "c", "error": {"m": 1}}]),
            ),
            "wrong-type",
            json!({"path": "tool_results[0].error", "expected": "string", "found": {"m": 1}}),
        ),
        (
            with("source_agent", json!(["user"])),
            "wrong-type",
            json!({"path": "source_agent", "expected": "string", "found": ["user"]}),
        ),
        (
            with("target_agent", json!(false)),
            "wrong-type",
            json!({"path": "target_agent", "expected": "string", "found": false}),
        ),
    ];
    for (input, code, details) in cases {
        for options in [ReadOptions::LENIENT, ReadOptions::STRICT] {
            let e = err(StructuredMessage::from_value_with(&input, &options));
            assert_eq!(e.code(), code, "{input}");
            assert_eq!(e.details(), details, "{input}");
            // The same through text.
            let e2 = err(StructuredMessage::from_json_with(
                &input.to_string(),
                &options,
            ));
            assert_eq!(e2, e);
        }
    }
    let e = err(StructuredMessage::from_value(&json!({"content": 1})));
    assert_eq!(
        e.to_string(),
        "`content` must be a JSON string, found a number"
    );
    let e = err(StructuredMessage::from_value(&json!(null)));
    assert_eq!(
        e.to_string(),
        "the message must be a JSON object, found null"
    );
    let e = err(StructuredMessage::from_value(&json!({})));
    assert_eq!(e.to_string(), "`content` is missing");
}

#[test]
fn invalid_json_keeps_the_text_and_position() {
    let text = "{\"content\": \"c\",\n  \"timestamp\": 1.5,,}";
    let e = err(StructuredMessage::from_json(text));
    assert_eq!(e.code(), "invalid-json");
    assert_eq!(e.details()["line"], 2);
    assert_eq!(e.details()["input"], text);
    assert!(e.details()["column"].as_u64().is_some_and(|c| c > 0));
    assert_eq!(err(StructuredMessage::from_json("")).code(), "invalid-json");
    // A large upload that does not read keeps its first 64 KiB, cut between characters.
    let large = format!("[\"{}", "€".repeat(40_000));
    let kept = err(StructuredMessage::from_json(&large)).details()["input"].clone();
    assert_eq!(kept.as_str().map(str::len), Some(64 * 1024 - 2));
    assert!(large.starts_with(kept.as_str().unwrap_or_default()));
    // serde reading gives the same message as a serde error.
    let serde_error = serde_json::from_str::<StructuredMessage>(r#"{"content": 1}"#)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        serde_error.starts_with("`content` must be a JSON string"),
        "{serde_error}"
    );
}

#[test]
fn tool_calls_and_results_read_on_their_own() {
    let call: Result<ToolCall, _> =
        serde_json::from_value(json!({"id": "c", "name": "n", "arguments": {"a": 1}}));
    assert_eq!(
        call.map(|c| (c.id, c.name)).ok(),
        Some(("c".into(), "n".into()))
    );
    let result: Result<ToolResult, _> = serde_json::from_value(
        json!({"name": "n", "call_id": "c", "status": "error", "error": "boom"}),
    );
    let result = result.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result.status, ToolStatus::Error);
    assert_eq!(result.result, Value::Null);
    assert_eq!(result.error.as_deref(), Some("boom"));
    assert!(serde_json::from_value::<ToolCall>(json!({"name": "n"})).is_err());
}

// ---------------------------------------------------------------------------------------------
// Argument checks.

#[derive(Debug, thiserror::Error)]
#[error("tool `{tool}`: {problem}")]
struct ArgError {
    tool: String,
    problem: String,
}

impl ErrorCode for ArgError {
    fn code(&self) -> &'static str {
        "invalid-arguments"
    }
    fn details(&self) -> Value {
        json!({"tool": self.tool, "problem": self.problem})
    }
}

/// A stand-in for the tool registry: `get_weather` needs a string `location`.
struct Registry;

impl ArgumentCheck for Registry {
    type Error = ArgError;
    fn check(&self, tool_name: &str, args: &Value) -> Result<(), ArgError> {
        let fail = |problem: &str| {
            Err(ArgError {
                tool: tool_name.into(),
                problem: problem.into(),
            })
        };
        if tool_name != "get_weather" {
            return fail("no such tool");
        }
        match args.get("location") {
            Some(Value::String(_)) => Ok(()),
            Some(_) => fail("`location` must be a string"),
            None => fail("`location` is required"),
        }
    }
}

#[test]
fn checked_tool_calls_are_added_only_when_the_arguments_pass() {
    let mut m = StructuredMessage::new("Check the weather forecast for London");
    let id = m
        .add_tool_call_checked("get_weather", map(json!({"location": "London"})), &Registry)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.tool_calls.len(), 1);
    assert_eq!(m.tool_calls[0].id, id);
    assert_eq!(m.tool_calls[0].arguments["location"], "London");

    let e = err(m.add_tool_call_checked("get_weather", map(json!({"location": 51.5})), &Registry));
    assert_eq!(e.code(), "invalid-tool-arguments");
    assert_eq!(
        e.details(),
        json!({
            "path": "arguments",
            "tool": "get_weather",
            "arguments": {"location": 51.5},
            "reason": "tool `get_weather`: `location` must be a string",
            "cause": {"code": "invalid-arguments", "details": {"tool": "get_weather", "problem": "`location` must be a string"}}
        })
    );
    let e = err(m.add_tool_call_checked("launch_rockets", JsonMap::new(), &Registry));
    assert_eq!(e.details()["cause"]["details"]["problem"], "no such tool");
    assert_eq!(m.tool_calls.len(), 1, "rejected calls are not added");

    // Checking a received message's calls.
    assert_eq!(m.check_tool_calls(&Registry), Ok(()));
    m.add_tool_call("get_weather", JsonMap::new());
    let e = err(m.check_tool_calls(&Registry));
    assert_eq!(e.details()["path"], "tool_calls[1].arguments");
    assert_eq!(
        e.details()["cause"]["details"]["problem"],
        "`location` is required"
    );
}

// ---------------------------------------------------------------------------------------------
// The body view.

fn tool_message() -> StructuredMessage {
    let mut m = StructuredMessage::create_task(
        "Check the weather forecast for London",
        "controller",
        "weather_agent",
        Some(map(json!({"priority": "high"}))),
    );
    m.task_id = "task-1".into();
    m.timestamp = 1758972921.8811321;
    m.tool_calls.push(ToolCall {
        id: "call-1".into(),
        name: "get_weather".into(),
        arguments: map(json!({"location": "London", "unit": "celsius"})),
        extra: JsonMap::new(),
    });
    m.add_tool_result(
        "get_weather",
        json!({"temp": 22.5}),
        "call-1",
        ToolStatus::Success,
        None,
    );
    m.add_tool_result(
        "get_weather",
        Value::Null,
        "call-2",
        ToolStatus::Error,
        Some("API connection timeout".into()),
    );
    m.extra.insert("priority".into(), json!(3));
    m
}

#[test]
fn the_body_has_text_tool_parts_and_metadata() {
    let m = tool_message();
    let body = m.to_body();
    let summary: Vec<(String, Option<&str>, &str, Option<&str>)> = body
        .parts
        .iter()
        .map(|p| {
            (
                p.kind.to_string(),
                p.name.as_deref(),
                p.content_type.as_str(),
                p.content.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "text".into(),
                None,
                "text/plain",
                Some("Check the weather forecast for London")
            ),
            (
                "tool_call".into(),
                Some("/tool_calls/call-1"),
                "application/json",
                Some(r#"{"location":"London","unit":"celsius"}"#)
            ),
            (
                "tool_result".into(),
                Some("/tool_results/call-1"),
                "application/json",
                Some(r#"{"temp":22.5}"#)
            ),
            (
                "tool_error".into(),
                Some("/tool_results/call-2"),
                "application/json",
                Some("null")
            ),
            (
                "data".into(),
                Some("/metadata"),
                "application/json",
                Some(r#"{"priority":"high","type":"task"}"#)
            ),
        ]
    );
    let meta = |i: usize| Value::Object(body.parts[i].metadata.clone().unwrap_or_default());
    assert_eq!(body.parts[0].metadata, None);
    assert_eq!(
        meta(1),
        json!({"toolCallId": "call-1", "toolName": "get_weather"})
    );
    assert_eq!(
        meta(2),
        json!({"toolCallId": "call-1", "toolName": "get_weather", "status": "success"})
    );
    assert_eq!(
        meta(3),
        json!({"toolCallId": "call-2", "toolName": "get_weather", "status": "error", "error": "API connection timeout"})
    );
    assert_eq!(
        meta(4),
        json!({"task_id": "task-1", "timestamp": 1758972921.8811321, "source_agent": "controller",
               "target_agent": "weather_agent", "extra": {"priority": 3}})
    );
    assert_eq!(validate_body(&body), vec![]);
    assert_eq!(StructuredMessage::from_body(&body), Ok(m));
}

#[test]
fn body_names_stay_unique_and_valid_for_awkward_ids() {
    let mut m = StructuredMessage::new("x");
    for id in ["a/b", "a/b", "", "..", "call_7", "日本"] {
        m.tool_calls.push(ToolCall {
            id: id.into(),
            name: "t".into(),
            arguments: JsonMap::new(),
            extra: JsonMap::new(),
        });
    }
    let body = m.to_body();
    let names: Vec<&str> = body
        .parts
        .iter()
        .filter_map(|p| p.name.as_deref())
        .collect();
    assert_eq!(
        names,
        [
            "/tool_calls/a.2Fb",
            "/tool_calls/a.2Fb._1",
            "/tool_calls/._2",
            "/tool_calls/.2E.2E",
            "/tool_calls/call_7",
            "/tool_calls/.E6.97.A5.E6.9C.AC",
            "/metadata",
        ]
    );
    assert_eq!(validate_body(&body), vec![]);
    assert_eq!(StructuredMessage::from_body(&body), Ok(m));
}

#[test]
fn foreign_bodies_read_leniently() {
    let b64 = Part {
        content_encoding: ContentEncoding::Base64,
        ..Part::inline(PartKind::Text, "text/plain", "IHdvcmxk")
    };
    let call = Part {
        metadata: Some(map(json!({"toolName": "search"}))),
        ..Part::inline(PartKind::ToolCall, "application/json", "")
    };
    let failure = Part {
        metadata: Some(map(json!({"toolName": "search", "toolCallId": "c9"}))),
        ..Part::inline(PartKind::ToolError, "application/json", "")
    };
    let body = Body::new(vec![
        Part::inline(PartKind::Text, "text/plain", "hello"),
        Part::inline(PartKind::Reasoning, "text/plain", "ignored"),
        b64,
        Part::inline(PartKind::Image, "image/png", "ignored").named("/images/1"),
        call,
        failure,
    ]);
    let m = StructuredMessage::from_body(&body).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.content, "hello world");
    assert!(m.metadata.is_empty());
    assert!(is_uuid_v4(&m.task_id));
    assert_eq!(m.tool_calls.len(), 1);
    assert!(is_uuid_v4(&m.tool_calls[0].id));
    assert!(m.tool_calls[0].arguments.is_empty());
    assert_eq!(m.tool_results[0].status, ToolStatus::Error);
    assert_eq!(m.tool_results[0].result, Value::Null);
    assert_eq!(
        StructuredMessage::from_body(&Body::default()).map(|m| m.content),
        Ok(String::new())
    );
}

#[test]
fn bad_bodies_are_typed_errors_with_part_paths() {
    let m = tool_message();
    let broken = |i: usize, f: &dyn Fn(&mut Part)| {
        let mut body = m.to_body();
        if let Some(p) = body.parts.get_mut(i) {
            f(p);
        }
        StructuredMessage::from_body(&body)
    };
    let e = err(broken(1, &|p| p.content = Some("{not json".into())));
    assert_eq!(
        (e.code(), e.details()["path"].clone()),
        ("invalid-part-content", json!("parts[1].content"))
    );
    assert_eq!(e.details()["content"], "{not json");
    let e = err(broken(1, &|p| p.content = Some("[1]".into())));
    assert_eq!(
        e.details(),
        json!({"path": "parts[1].content", "expected": "object", "found": [1]})
    );
    let e = err(broken(2, &|p| p.metadata = None));
    assert_eq!(e.details(), json!({"path": "parts[2].metadata.toolCallId"}));
    let e = err(broken(1, &|p| {
        if let Some(meta) = p.metadata.as_mut() {
            meta.insert("toolName".into(), json!(1));
        }
    }));
    assert_eq!(e.details()["path"], "parts[1].metadata.toolName");
    assert_eq!(e.code(), "wrong-type");
    let e = err(broken(4, &|p| {
        if let Some(meta) = p.metadata.as_mut() {
            meta.insert("timestamp".into(), json!("yesterday"));
        }
    }));
    assert_eq!(e.details()["path"], "parts[4].metadata.timestamp");
    let e = err(broken(4, &|p| {
        p.content = Some(r#"{"type": ["task"]}"#.into())
    }));
    assert_eq!(e.details()["path"], "parts[4].content.type");
    let e = err(broken(0, &|p| {
        p.content = None;
        p.content_url = Some("https://example.com/text".into());
    }));
    assert_eq!(
        (e.code(), e.details()),
        ("missing-field", json!({"path": "parts[0].content"}))
    );
    let e = err(broken(0, &|p| p.content_encoding = ContentEncoding::Base64));
    assert_eq!(e.code(), "invalid-part-content");
    let e = err(broken(0, &|p| {
        p.content_encoding = ContentEncoding::Base64;
        p.content = Some("/w==".into());
    }));
    assert!(e.details()["reason"]
        .as_str()
        .is_some_and(|r| r.starts_with("not UTF-8")));
    let e = err(broken(0, &|p| {
        p.content_encoding = ContentEncoding::Other("gzip".into())
    }));
    assert_eq!(e.details()["reason"], "unknown content encoding `gzip`");
}

// ---------------------------------------------------------------------------------------------
// Properties.

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            (1.0e9..2.0e9f64).prop_map(Value::from),
            any::<String>().prop_map(Value::String),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(any::<String>(), inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn object_without(known: &'static [&'static str]) -> impl Strategy<Value = JsonMap> {
        prop::collection::btree_map("[a-z_]{1,8}|\\PC{0,6}", value(), 0..3).prop_map(move |m| {
            m.into_iter()
                .filter(|(k, _)| !known.contains(&k.as_str()))
                .collect()
        })
    }

    fn id() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("call-1".to_owned()),
            "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
            "[a-z/%._~]{0,6}",
            any::<String>(),
        ]
    }

    fn message_type() -> impl Strategy<Value = Option<String>> {
        let known = prop::sample::select(vec![
            "query",
            "task",
            "response",
            "result",
            "error",
            "status",
            "tool_request",
            "tool_response",
        ]);
        prop_oneof![
            Just(None),
            (known, any::<bool>()).prop_map(|(t, upper)| Some(if upper {
                t.to_ascii_uppercase()
            } else {
                t.to_owned()
            })),
            "[a-z_]{1,12}".prop_map(Some),
        ]
    }

    fn status() -> impl Strategy<Value = ToolStatus> {
        prop_oneof![
            Just(ToolStatus::Success),
            Just(ToolStatus::Error),
            "[a-z]{1,8}".prop_map(|s| ToolStatus::from(s.as_str())),
        ]
    }

    prop_compose! {
        fn tool_call()(id in id(), name in any::<String>(), arguments in object_without(&[]),
                       extra in object_without(&["id", "name", "arguments"])) -> ToolCall {
            ToolCall { id, name, arguments, extra }
        }
    }

    prop_compose! {
        fn tool_result()(name in any::<String>(), result in value(), call_id in id(),
                         status in status(), error in proptest::option::of(any::<String>()),
                         extra in object_without(&["name", "result", "call_id", "status", "error"]))
                         -> ToolResult {
            ToolResult { name, result, call_id, status, error, extra }
        }
    }

    prop_compose! {
        fn message()(
            content in any::<String>(),
            metadata in object_without(&["type"]),
            kind in message_type(),
            task_id in id(),
            timestamp in prop_oneof![
                any::<f64>().prop_filter("finite", |f| f.is_finite()),
                1.0e9..2.0e9f64,
            ],
            tool_calls in prop::collection::vec(tool_call(), 0..4),
            tool_results in prop::collection::vec(tool_result(), 0..4),
            source_agent in proptest::option::of(any::<String>()),
            target_agent in proptest::option::of(any::<String>()),
            extra in object_without(&["content", "metadata", "task_id", "timestamp", "tool_calls",
                                       "tool_results", "source_agent", "target_agent"]),
        ) -> StructuredMessage {
            let mut metadata = metadata;
            if let Some(kind) = kind {
                metadata.insert("type".into(), Value::String(kind));
            }
            StructuredMessage {
                content, metadata, task_id, timestamp, tool_calls, tool_results,
                source_agent, target_agent, extra,
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn json_text_round_trip_is_exact(m in message()) {
            let back = StructuredMessage::from_json(&m.to_json());
            prop_assert_eq!(back, Ok(m));
        }

        #[test]
        fn json_value_round_trip_is_exact(m in message()) {
            let back = StructuredMessage::from_value(&m.to_value());
            prop_assert_eq!(back, Ok(m.clone()));
            let serde_back: Result<StructuredMessage, _> = serde_json::from_value(m.to_value());
            prop_assert_eq!(serde_back.ok(), Some(m));
        }

        #[test]
        fn strict_reading_accepts_what_it_knows(m in message()) {
            let known = m.message_type().is_none_or(|t| t.is_known())
                && m.tool_results.iter().all(|r| !matches!(r.status, ToolStatus::Other(_)));
            let back = StructuredMessage::from_json_with(&m.to_json(), &ReadOptions::STRICT);
            if known {
                prop_assert_eq!(back, Ok(m));
            } else {
                let code = back.err().map(|e| e.code());
                prop_assert!(matches!(code, Some("unknown-message-type" | "unknown-tool-status")));
            }
        }

        #[test]
        fn body_round_trip_is_exact(m in message()) {
            let body = m.to_body();
            // Names valid and unique, content types valid: the body model's own checks.
            prop_assert_eq!(validate_body(&body), vec![]);
            prop_assert_eq!(StructuredMessage::from_body(&body), Ok(m));
        }

        #[test]
        fn any_text_reads_without_panic(text in any::<String>()) {
            let _ = StructuredMessage::from_json(&text);
        }

        #[test]
        fn any_value_reads_without_panic(
            fields in prop::collection::btree_map(
                prop::sample::select(vec!["content", "metadata", "task_id", "timestamp",
                    "tool_calls", "tool_results", "source_agent", "target_agent", "other"]),
                value(),
                0..9,
            ),
            strict in any::<bool>(),
        ) {
            let v = Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect());
            let options = ReadOptions { strict };
            if let Ok(m) = StructuredMessage::from_value_with(&v, &options) {
                prop_assert_eq!(StructuredMessage::from_value_with(&m.to_value(), &options), Ok(m));
            }
        }

        #[test]
        fn any_body_reads_without_panic(
            parts in prop::collection::vec(
                (
                    prop::sample::select(vec![PartKind::Text, PartKind::ToolCall,
                        PartKind::ToolResult, PartKind::ToolError, PartKind::Data]),
                    proptest::option::of(prop_oneof![Just("/metadata".to_owned()), "/[a-z]{1,4}"]),
                    proptest::option::of(prop_oneof![value().prop_map(|v| v.to_string()), any::<String>()]),
                    proptest::option::of(object_without(&[])),
                    any::<bool>(),
                ),
                0..5,
            ),
        ) {
            let body = Body::new(parts.into_iter().map(|(kind, name, content, metadata, b64)| Part {
                kind,
                name,
                content,
                metadata,
                content_encoding: if b64 { ContentEncoding::Base64 } else { ContentEncoding::Plain },
                ..Part::inline(PartKind::Text, "application/json", "")
            }).collect());
            let _ = StructuredMessage::from_body(&body);
        }
    }
}

#[test]
fn metadata_is_set_as_reading_checks_it_so_the_message_reads_back() {
    let mut message = weather_query();
    let before = message.metadata.clone();
    let e = err(message.set_metadata(map(json!({"type": 5, "priority": "low"}))));
    assert_eq!(e.code(), "wrong-type");
    assert_eq!(e.details()["path"], "metadata.type");
    assert_eq!(message.metadata, before, "unchanged after the error");
    // What reading accepts, setting accepts: the message then reads back equal.
    for metadata in [
        json!({"type": "TASK", "x": [1]}),
        json!({"type": null}),
        json!({}),
    ] {
        message.set_metadata(map(metadata.clone())).unwrap();
        let back = StructuredMessage::from_json(&message.to_json()).unwrap();
        assert_eq!(back, message, "{metadata}");
    }
}
