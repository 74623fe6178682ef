//! The JavaScript binding, run by wasm-bindgen-test in Node and in headless Chromium (the test
//! command runs this file twice). The streaming test fetches from the reference server whose URL
//! the test command passes at build time in `AGENTWIRE_TEST_SERVER`.
#![cfg(target_arch = "wasm32")]

use agentwire::wasm::agent_api::{JsAgentStreamDecoder, JsRequestBuilder};
use agentwire::wasm::client::{AgentClientOptions, JsAgentClient, StreamCallOptions, UpdateSink};
use agentwire::wasm::sse::JsSseDecoder;
use js_sys::{Array, Function, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

const RAW: &str = include_str!("../../shared/fixtures/agentscope-runtime/process-raw.sse");

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap()
}

fn server() -> &'static str {
    option_env!("AGENTWIRE_TEST_SERVER")
        .expect("the test command sets AGENTWIRE_TEST_SERVER to the reference server's URL")
}

#[wasm_bindgen_test]
fn decoder_feeds_chunks_and_returns_typed_updates() {
    let mut d = JsAgentStreamDecoder::new(None).unwrap();
    let mut types = Vec::new();
    for chunk in RAW.as_bytes().chunks(333) {
        let updates: JsValue = d.feed(Uint8Array::from(chunk).into()).unwrap().into();
        for u in Array::from(&updates).iter() {
            types.push(get(&u, "type").as_string().unwrap());
        }
    }
    assert_eq!(types.first().map(String::as_str), Some("response"));
    assert_eq!(types.last().map(String::as_str), Some("done"));
    assert!(types.iter().any(|t| t == "textDelta"));
    let response: JsValue = d.response().unwrap().into();
    assert_eq!(get(&response, "status").as_string().unwrap(), "completed");
    let output = Array::from(&get(&response, "output"));
    assert_eq!(output.length(), 4);
}

/// The texts of the updates cross as UTF-16 code units, made a string by `Buffer` in Node and by
/// `TextDecoder` in Chromium (`src/wasm/updates.js`); this file runs in both.
#[wasm_bindgen_test]
fn text_of_every_utf8_width_crosses_exactly_per_event_and_batched() {
    let pieces = [
        "caf\u{e9} ",
        "\u{6771}\u{4eac} and a longer ASCII run of more than eight bytes",
        "\u{1F600}\u{1F680}!",
        "\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}x\"\\\n",
    ];
    let mut sse =
        String::from("data: {\"object\":\"response\",\"id\":\"r\",\"status\":\"in_progress\"}\n\n");
    for p in pieces {
        let text = serde_json::to_string(p).unwrap();
        sse.push_str(&format!(
            "data: {{\"object\":\"content\",\"msg_id\":\"m\u{e9}\",\"index\":0,\"delta\":true,\"type\":\"text\",\"text\":{text}}}\n\n"
        ));
    }
    let full = pieces.concat();
    let text = serde_json::to_string(&full).unwrap();
    sse.push_str(&format!(
        "data: {{\"object\":\"content\",\"msg_id\":\"m\u{e9}\",\"index\":0,\"type\":\"text\",\"status\":\"completed\",\"text\":{text}}}\n\n"
    ));
    sse.push_str("data: {\"object\":\"response\",\"id\":\"r\",\"status\":\"completed\"}\n\n");
    let text_of = |response: &JsValue| {
        let message = Array::from(&get(response, "output")).get(0);
        get(&Array::from(&get(&message, "content")).get(0), "text")
            .as_string()
            .unwrap()
    };
    for (batch, slice) in [(false, sse.len()), (false, 3), (true, 3), (true, 200)] {
        let options = Object::new();
        Reflect::set(&options, &"batch".into(), &batch.into()).unwrap();
        let mut d =
            JsAgentStreamDecoder::new(Some(tsify::Ts::new_unchecked(options.into()))).unwrap();
        let mut updates = Vec::new();
        for chunk in sse.as_bytes().chunks(slice) {
            let fed: JsValue = d.feed(Uint8Array::from(chunk).into()).unwrap().into();
            updates.extend(Array::from(&fed).iter());
        }
        let last: JsValue = d.finish().unwrap().into();
        updates.extend(Array::from(&last).iter());
        let what = format!("batch {batch}, {slice}-byte chunks");
        let deltas: Vec<String> = updates
            .iter()
            .filter(|u| get(u, "type").as_string().as_deref() == Some("textDelta"))
            .map(|u| {
                assert_eq!(get(u, "msgId").as_string().unwrap(), "m\u{e9}", "{what}");
                get(u, "delta").as_string().unwrap()
            })
            .collect();
        assert_eq!(deltas.concat(), full, "{what}");
        if slice == sse.len() {
            assert_eq!(deltas, pieces, "{what}");
        }
        let completed = updates
            .iter()
            .find(|u| {
                get(u, "type").as_string().as_deref() == Some("content")
                    && get(&get(u, "content"), "status").as_string().as_deref() == Some("completed")
            })
            .expect("the completed content's update");
        assert_eq!(
            get(&get(&completed, "content"), "text")
                .as_string()
                .unwrap(),
            full,
            "{what}"
        );
        let done = updates.last().unwrap();
        assert_eq!(get(done, "type").as_string().unwrap(), "done", "{what}");
        assert_eq!(text_of(&get(done, "response")), full, "{what}");
        // The drain buffers are released after `finish()` and after `response()`: asked again,
        // the response is the same.
        for _ in 0..2 {
            let response: JsValue = d.response().unwrap().into();
            assert_eq!(text_of(&response), full, "{what}");
        }
    }
}

/// The updates `src/wasm/updates.js` builds from the split form are the updates the assembler
/// gives as JSON, in every mode, however the stream is cut: completions that repeat their deltas
/// or differ from them, a content with a field after `text`, interleaved messages, released
/// messages, events after the end, and a sequence number beyond 32 bits.
#[wasm_bindgen_test]
fn updates_built_in_javascript_are_the_assemblers() {
    use agentwire::dialect::agent_api::{AgentStream, AssemblerOptions};
    let ev = |v: serde_json::Value| format!("data: {v}\n\n");
    let content = |m: &str, delta: bool, status: &str, t: &str| {
        ev(
            serde_json::json!({"object": "content", "msg_id": m, "index": 0, "delta": delta, "type": "text", "status": status, "text": t}),
        )
    };
    let message = |m: &str, status: &str| {
        ev(
            serde_json::json!({"object": "message", "id": m, "type": "message", "role": "assistant", "status": status}),
        )
    };
    let tricky = [
        message("m1", "in_progress"),
        content("m1", true, "in_progress", "Hel"),
        content("m2", true, "in_progress", "\u{1F600}a"),
        content("m1", true, "in_progress", "lo \u{e9}"),
        content("m2", true, "in_progress", "b"),
        content("m1", false, "completed", "Hello \u{e9}"),
        message("m1", "completed"),
        content("m2", false, "completed", "Different"),
        message("m2", "completed"),
        content("m3", true, "in_progress", "x"),
        ev(serde_json::json!({"object": "content", "msg_id": "m3", "index": 0, "type": "text", "status": "completed", "text": "x", "annotations": []})),
        content("m3", true, "in_progress", "y"),
        ev(serde_json::json!({"object": "response", "id": "r", "status": "completed"})),
        content("m1", false, "completed", "Changed"),
        content("m3", true, "in_progress", "z"),
        // A sequence number beyond 32 bits (the table carries it as two numbers).
        ev(
            serde_json::json!({"object": "message", "id": "m4", "type": "message", "status": "in_progress", "sequence_number": 5_000_000_000u64}),
        ),
    ]
    .concat();
    let parse = |v: &JsValue| -> serde_json::Value {
        serde_json::from_str(&String::from(js_sys::JSON::stringify(v).unwrap())).unwrap()
    };
    for sse in [tricky.as_str(), RAW] {
        for (batch, retain) in [(false, true), (true, true), (false, false), (true, false)] {
            for size in [5, 64, 1000, sse.len()] {
                let options = Object::new();
                Reflect::set(&options, &"batch".into(), &batch.into()).unwrap();
                Reflect::set(&options, &"retainMessages".into(), &retain.into()).unwrap();
                let mut d =
                    JsAgentStreamDecoder::new(Some(tsify::Ts::new_unchecked(options.into())))
                        .unwrap();
                let mut rust = AgentStream::new(AssemblerOptions {
                    coalesce: batch,
                    retain_messages: retain,
                    ..Default::default()
                });
                let (mut js, mut expected) = (Vec::new(), Vec::new());
                let mut json = String::new();
                for chunk in sse.as_bytes().chunks(size) {
                    let fed: JsValue = d.feed(Uint8Array::from(chunk).into()).unwrap().into();
                    js.extend(Array::from(&fed).iter().map(|u| parse(&u)));
                    rust.feed(chunk);
                    json.clear();
                    rust.assembler_mut().drain_updates_json(&mut json);
                    expected.extend(serde_json::from_str::<Vec<serde_json::Value>>(&json).unwrap());
                }
                let last: JsValue = d.finish().unwrap().into();
                js.extend(Array::from(&last).iter().map(|u| parse(&u)));
                rust.finish();
                json.clear();
                rust.assembler_mut().drain_updates_json(&mut json);
                expected.extend(serde_json::from_str::<Vec<serde_json::Value>>(&json).unwrap());
                assert_eq!(
                    js, expected,
                    "batch {batch}, retain {retain}, {size}-byte chunks"
                );
            }
        }
    }
}

#[wasm_bindgen_test]
fn errors_are_error_objects_with_a_code() {
    let e = JsRequestBuilder::new()
        .temperature(9.0)
        .err()
        .expect("out of range");
    assert!(e.is_instance_of::<js_sys::Error>());
    assert_eq!(
        get(&e, "code").as_string().unwrap(),
        "parameter-out-of-range"
    );
    assert_eq!(
        get(&get(&e, "details"), "name").as_string().unwrap(),
        "temperature"
    );
}

#[wasm_bindgen_test]
fn sse_decoder_splits_crlf_and_utf8_across_chunks() {
    let mut d = JsSseDecoder::new(None).unwrap();
    let bytes = "data: caf\u{e9}\r\n\r\n".as_bytes();
    let mut events = Vec::new();
    for b in bytes.chunks(1) {
        let items: JsValue = d.feed(Uint8Array::from(b).into()).unwrap().into();
        for i in Array::from(&items).iter() {
            events.push(get(&i, "data").as_string().unwrap());
        }
    }
    assert_eq!(events, ["caf\u{e9}"]);
}

#[wasm_bindgen_test]
fn json_keys_like_proto_stay_data() {
    let mut d = JsAgentStreamDecoder::new(None).unwrap();
    let sse = "data: {\"object\":\"content\",\"type\":\"data\",\"index\":0,\"msg_id\":\"m\",\"data\":{\"__proto__\":{\"polluted\":1},\"constructor\":{\"prototype\":{\"x\":1}}}}\n\n";
    let updates: JsValue = d
        .feed(Uint8Array::from(sse.as_bytes()).into())
        .unwrap()
        .into();
    let content_update = Array::from(&updates)
        .iter()
        .find(|u| get(u, "type").as_string().as_deref() == Some("content"))
        .unwrap();
    let data = get(&get(&content_update, "content"), "data");
    let keys: Vec<String> = Object::keys(data.unchecked_ref::<Object>())
        .iter()
        .map(|k| k.as_string().unwrap())
        .collect();
    assert!(
        keys.contains(&"__proto__".to_owned()),
        "kept as an own key: {keys:?}"
    );
    let proto = Object::get_prototype_of(&data);
    assert!(
        get(&proto.into(), "polluted").is_undefined(),
        "prototype unchanged"
    );
    let plain = Object::new();
    assert!(
        get(&plain.into(), "polluted").is_undefined(),
        "Object.prototype clean"
    );
}

#[wasm_bindgen_test]
async fn streams_a_real_response_from_the_reference_server_with_fetch() {
    let options = Object::new();
    Reflect::set(&options, &"baseUrl".into(), &server().into()).unwrap();
    let client = JsAgentClient::new(options.unchecked_into::<AgentClientOptions>()).unwrap();
    let request = JsRequestBuilder::new()
        .text("user", "Hello from wasm-bindgen-test")
        .unwrap()
        .build()
        .unwrap();
    let calls = Array::new();
    let sink = {
        let calls = calls.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |updates: JsValue| {
            calls.push(&updates);
        })
    };
    let sink_fn: &Function = sink.as_ref().unchecked_ref();
    let call_options = Object::new();
    Reflect::set(&call_options, &"batch".into(), &true.into()).unwrap();
    let handle = client
        .stream(
            request,
            sink_fn.clone().unchecked_into::<UpdateSink>(),
            Some(call_options.unchecked_into::<StreamCallOptions>()),
        )
        .unwrap();
    let response = JsFuture::from(handle.response())
        .await
        .expect("the stream completes");
    // The handle answers queries on what arrived: the answer message's named sources.
    let sources = handle
        .list(&agentwire::wasm::body::JsPattern::new("/sources/*").unwrap())
        .unwrap();
    let sources: JsValue = sources.into();
    assert_eq!(Array::from(&sources).length(), 2);
    assert_eq!(get(&response, "status").as_string().unwrap(), "completed");
    let output = Array::from(&get(&response, "output"));
    assert_eq!(output.length(), 4, "reasoning, call, output, answer");
    let answer = output.get(3);
    let text = get(&Array::from(&get(&answer, "content")).get(0), "text");
    assert!(text
        .as_string()
        .unwrap()
        .contains("Hello from wasm-bindgen-test"));
    // Delivered incrementally: more than one network chunk reached the sink, text deltas included.
    assert!(
        calls.length() > 1,
        "updates arrived in {} calls",
        calls.length()
    );
    let mut deltas = String::new();
    for batch in calls.iter() {
        for u in Array::from(&batch).iter() {
            if get(&u, "type").as_string().as_deref() == Some("textDelta") {
                deltas.push_str(&get(&u, "delta").as_string().unwrap());
            }
        }
    }
    assert!(deltas.contains("Hello from wasm-bindgen-test"));
    drop(sink);
}

#[wasm_bindgen_test]
async fn a_non_event_stream_answer_is_a_protocol_error_with_status_and_body() {
    let options = Object::new();
    Reflect::set(&options, &"baseUrl".into(), &server().into()).unwrap();
    Reflect::set(&options, &"endpoint".into(), &"/no-such-endpoint".into()).unwrap();
    let client = JsAgentClient::new(options.unchecked_into::<AgentClientOptions>()).unwrap();
    let request = JsRequestBuilder::new()
        .text("user", "hi")
        .unwrap()
        .build()
        .unwrap();
    let sink = Function::new_no_args("");
    let e = JsFuture::from(
        client
            .stream(request, sink.unchecked_into::<UpdateSink>(), None)
            .unwrap()
            .response(),
    )
    .await
    .expect_err("404 or 405");
    let code = get(&e, "code").as_string().unwrap();
    assert!(
        code == "http-status" || code == "not-event-stream",
        "{code}"
    );
    assert!(e.is_instance_of::<js_sys::Error>());
}

/// What an assembler keeps per message and part, in wasm32: the models' rarely set fields
/// (`usage`, `metadata`, `error`; ACP's part `metadata`) are boxed, so a kept message of one text
/// content takes 176 + 288 bytes before its strings, not 328 + 352 (docs/performance-log.md, stop
/// 48). A field added inline would show here.
#[wasm_bindgen_test]
fn kept_models_are_small_in_wasm32() {
    use agentwire::dialect::{acp, agent_api, agentx};
    use std::mem::size_of;
    assert_eq!(size_of::<agent_api::Message>(), 176);
    assert_eq!(size_of::<agent_api::Content>(), 288);
    assert_eq!(size_of::<acp::MessagePart>(), 112);
    assert_eq!(size_of::<acp::Message>(), 96);
    assert_eq!(size_of::<agentx::Part>(), 128);
}
