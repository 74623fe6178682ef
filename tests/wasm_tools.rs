//! The tools, incremental JSON and AgentX bindings, run by wasm-bindgen-test in Node and in headless
//! Chromium (the test command runs this file twice). The fetch tests talk to the reference server
//! whose URL the test command passes at build time in `AGENTWIRE_TEST_SERVER`.
#![cfg(target_arch = "wasm32")]

use agentwire::wasm::agent_api::JsRequestBuilder;
use agentwire::wasm::agentx::{
    AgentxChatCallOptions, AgentxClientOptions, AgentxUpdateSink, JsAgentxClient,
    JsAgentxStreamDecoder,
};
use agentwire::wasm::client::{AgentClientOptions, JsAgentClient, UpdateSink};
use agentwire::wasm::json::JsPartialJson;
use agentwire::wasm::tools::{agent_tool_continuation, JsToolArguments, JsToolRegistry};
use js_sys::{Array, Function, Object, Reflect, JSON};
use serde_json::{json, Value};
use tsify::Ts;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap()
}

/// A JavaScript value as JSON (through `JSON.stringify`), for comparisons.
fn json_of(v: &JsValue) -> Value {
    serde_json::from_str(&String::from(JSON::stringify(v).unwrap())).unwrap()
}

fn js(v: Value) -> JsValue {
    JSON::parse(&v.to_string()).unwrap()
}

fn server() -> &'static str {
    option_env!("AGENTWIRE_TEST_SERVER")
        .expect("the test command sets AGENTWIRE_TEST_SERVER to the reference server's URL")
}

fn write_file_registry() -> JsToolRegistry {
    let mut tools = JsToolRegistry::new();
    let warnings = tools
        .register(Ts::new_unchecked(js(json!({
            "name": "write_file",
            "description": "Write text to a file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        }))))
        .unwrap();
    assert_eq!(Array::from(&warnings).length(), 0);
    tools
}

/// Applies `changes` (a JS array of `PartialChange`) to `target` by the Rust reference rules.
fn apply(target: &mut Option<Value>, changes: &JsValue) {
    let changes: Vec<agentwire::json::PartialChange> =
        serde_json::from_value(json_of(changes)).unwrap();
    for c in &changes {
        assert!(c.apply(target), "{c:?} fits");
    }
}

#[wasm_bindgen_test]
fn partial_json_returns_changes_that_rebuild_the_value_after_every_delta() {
    let text = r#"{"path": "/hello.txt", "lines": [1, 22, {"k": "v\u00e9"}], "ok": true}"#;
    let mut p = JsPartialJson::new(None).unwrap();
    let mut copy = None;
    let mut previous = Value::Null;
    for ch in text.chars() {
        let changes = p.push(JsValue::from_str(&ch.to_string())).unwrap();
        apply(&mut copy, &changes);
        let value = p.value().unwrap();
        let now = if value.is_undefined() {
            Value::Null
        } else {
            json_of(&value)
        };
        assert_eq!(copy.clone().unwrap_or(Value::Null), now);
        // An open string only grows.
        if let (Some(before), Some(after)) = (
            previous.get("path").and_then(Value::as_str),
            now.get("path").and_then(Value::as_str),
        ) {
            assert!(after.starts_with(before));
        }
        previous = now;
    }
    let done = p.finish().unwrap();
    assert_eq!(json_of(&done), serde_json::from_str::<Value>(text).unwrap());
    assert_eq!(copy, Some(json_of(&done)));
}

#[wasm_bindgen_test]
fn partial_json_errors_are_protocol_errors_with_the_byte_offset() {
    let mut p = JsPartialJson::new(None).unwrap();
    p.push(JsValue::from_str(r#"{"a": 1"#)).unwrap();
    let e = p.push(JsValue::from_str(" 2}")).unwrap_err();
    assert!(e.is_instance_of::<js_sys::Error>());
    assert_eq!(get(&e, "code").as_string().unwrap(), "json-syntax");
    assert_eq!(get(&get(&e, "details"), "offset").as_f64(), Some(8.0));
    // The last good value stays readable; finish reports the same error.
    assert_eq!(json_of(&p.value().unwrap()), json!({"a": 1}));
    let again = p.finish().unwrap_err();
    assert_eq!(get(&again, "code").as_string().unwrap(), "json-syntax");
    let mut empty = JsPartialJson::new(None).unwrap();
    assert!(empty.value().unwrap().is_undefined());
    let end = empty.finish().unwrap_err();
    assert_eq!(
        get(&end, "code").as_string().unwrap(),
        "json-unexpected-end"
    );
}

/// `pattern` in wasm is JavaScript's own `RegExp` with the `u` flag: lookbehind, `\p{…}`,
/// code points, and its `SyntaxError` for a pattern it refuses.
#[wasm_bindgen_test]
fn patterns_are_javascript_regexps() {
    let mut tools = JsToolRegistry::new();
    tools
        .register(Ts::new_unchecked(js(json!({
            "name": "t",
            "parameters": {
                "type": "object",
                "properties": {
                    "after_a": {"pattern": "(?<=a)b"},
                    "letters": {"pattern": "^\\p{Letter}+$"},
                    "dragons": {"pattern": "^🐲{2}$"},
                },
                "patternProperties": {"^x-": {"type": "integer"}},
                "additionalProperties": false,
            },
        }))))
        .unwrap();
    tools
        .validate_arguments(
            "t",
            js(json!({"after_a": "cab", "letters": "école", "dragons": "🐲🐲", "x-n": 1})),
        )
        .unwrap();
    let e = tools
        .validate_arguments(
            "t",
            js(json!({"after_a": "bb", "letters": "a1", "dragons": "🐲", "x-n": "1", "y": 0})),
        )
        .unwrap_err();
    assert_eq!(
        get(&e, "message").as_string().unwrap(),
        "Validation failed for tool 't': \
         Unknown argument 'y'; expected one of: after_a, dragons, letters, /^x-/. \
         Argument 'after_a' must match the regular expression /(?<=a)b/, got string \"bb\". \
         Argument 'letters' must match the regular expression /^\\p{Letter}+$/, got string \"a1\". \
         Argument 'dragons' must match the regular expression /^🐲{2}$/, got string \"🐲\". \
         Argument 'x-n' must be an integer, got string \"1\"."
    );
    assert_eq!(
        json_of(&get(&e, "details"))["problems"][1]["kind"],
        json!("patternMismatch")
    );
    // `\a` is no escape in Unicode mode: `new RegExp("\\a", "u")` throws, the schema is refused.
    let e = JsToolRegistry::new()
        .register(Ts::new_unchecked(js(json!({
            "name": "t", "parameters": {"properties": {"a": {"pattern": "\\a"}}}
        }))))
        .unwrap_err();
    assert_eq!(get(&e, "code").as_string().unwrap(), "invalid-schema");
    let message = get(&e, "message").as_string().unwrap();
    assert!(
        message.contains("is not a regular expression (ECMA-262): Invalid regular expression"),
        "{message}"
    );
}

#[wasm_bindgen_test]
fn tool_registry_validation_messages_are_the_core_wordings() {
    let tools = write_file_registry();
    assert!(tools.has("write_file"));
    assert_eq!(tools.size(), 1);
    let e = tools
        .validate_arguments("write_file", js(json!({"content": "hi"})))
        .unwrap_err();
    assert!(e.is_instance_of::<js_sys::Error>());
    assert_eq!(get(&e, "code").as_string().unwrap(), "tool-validation");
    assert_eq!(
        get(&e, "message").as_string().unwrap(),
        "Validation failed for tool 'write_file': Missing required argument 'path'."
    );
    assert_eq!(
        json_of(&get(&e, "details"))["errorType"],
        json!("VALIDATION")
    );
    let e = tools
        .validate_arguments_text("write_file", r#"{"path": 1, "content": "x"}"#)
        .unwrap_err();
    assert_eq!(
        get(&e, "message").as_string().unwrap(),
        "Validation failed for tool 'write_file': Argument 'path' must be a string, got number 1."
    );
    let e = tools
        .validate_arguments_text("write_file", r#"{"path": "#)
        .unwrap_err();
    assert_eq!(
        get(&e, "code").as_string().unwrap(),
        "invalid-arguments-json"
    );
    let e = tools
        .validate_arguments("read_file", js(json!({})))
        .unwrap_err();
    assert_eq!(
        get(&e, "message").as_string().unwrap(),
        "Unknown tool 'read_file'; available tools: write_file."
    );
    let ok = tools
        .validate_arguments_text("write_file", r#"{"path": "/a", "content": ""}"#)
        .unwrap();
    assert_eq!(json_of(&ok), json!({"path": "/a", "content": ""}));

    // A schema that does not compile is refused with its pointer.
    let mut other = JsToolRegistry::new();
    let e = other
        .register(Ts::new_unchecked(js(json!({
            "name": "t", "parameters": {"type": "object", "properties": {"a": {"minLength": -1}}}
        }))))
        .unwrap_err();
    assert_eq!(get(&e, "code").as_string().unwrap(), "invalid-schema");
    assert_eq!(
        get(&get(&e, "details"), "pointer").as_string().unwrap(),
        "/properties/a/minLength"
    );
    assert_eq!(other.size(), 0);
}

#[wasm_bindgen_test]
fn tool_arguments_push_and_sync() {
    let mut a = JsToolArguments::new(None).unwrap();
    let mut copy = None;
    for piece in [r#"{"timez"#, r#"one": "Eur"#, r#"ope/Paris"#] {
        apply(&mut copy, &a.push(JsValue::from_str(piece)).unwrap());
    }
    assert_eq!(copy, Some(json!({"timezone": "Europe/Paris"})));
    // The completed content repeats the text: only the rest is read.
    let rest = a.sync(r#"{"timezone": "Europe/Paris"}"#).unwrap();
    assert_eq!(Array::from(&rest).length(), 0);
    assert!(a.is_complete());
    assert_eq!(a.text(), r#"{"timezone": "Europe/Paris"}"#);
}

const AGENTX_FLOW3: &str = concat!(
    "data: {\"role\": \"assistant\", \"parts\": [{\"type\": \"tool_call\", \"tool_call_id\": \"tc_456\", \"tool_name\": \"write_file\", \"args\": {\"content\": \"This call is missing the path.\"}}]}\n\n",
    "data: {\"role\": \"assistant\", \"parts\": [{\"type\": \"tool_error\", \"tool_call_id\": \"tc_456\", \"error_type\": \"VALIDATION\", \"message\": \"Validation failed for tool 'write_file': Missing required argument 'path'.\"}]}\n\n",
    "data: {\"role\": \"assistant\", \"parts\": [{\"type\": \"text\", \"text\": \"My apologies, I missed a required parameter. I will correct it now.\"}, {\"type\": \"tool_call\", \"tool_call_id\": \"tc_789\", \"tool_name\": \"write_file\", \"args\": {\"path\": \"/corrected.txt\", \"content\": \"This call should now be valid.\"}}]}\n\n",
);

#[wasm_bindgen_test]
fn agentx_decoder_assembles_the_self_correction_flow_at_any_split() {
    let bytes = AGENTX_FLOW3.as_bytes();
    let mut whole = None;
    for size in [1, 7, bytes.len()] {
        let mut d = JsAgentxStreamDecoder::new(None).unwrap();
        let mut types = Vec::new();
        for chunk in bytes.chunks(size) {
            for u in Array::from(&d.feed(js_sys::Uint8Array::from(chunk).into()).unwrap()).iter() {
                types.push(get(&u, "type").as_string().unwrap());
            }
        }
        for u in Array::from(&d.finish().unwrap()).iter() {
            types.push(get(&u, "type").as_string().unwrap());
        }
        assert_eq!(types.last().map(String::as_str), Some("done"));
        assert_eq!(json_of(&d.status().unwrap().js_value()), json!("complete"));
        let messages = json_of(&d.messages().unwrap());
        // Packets without id and of one role are one logical message, parts in order.
        let parts: Vec<&str> = messages[0]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["type"].as_str().unwrap())
            .collect();
        assert_eq!(parts, ["tool_call", "tool_error", "text", "tool_call"]);
        assert_eq!(
            messages[0]["parts"][1]["message"],
            "Validation failed for tool 'write_file': Missing required argument 'path'."
        );
        if let Some(w) = &whole {
            assert_eq!(&messages, w, "chunks of {size}");
        }
        whole = Some(messages);
    }
}

fn collect_sink(into: &Array) -> Closure<dyn FnMut(JsValue)> {
    let into = into.clone();
    Closure::new(move |updates: JsValue| {
        for u in Array::from(&updates).iter() {
            into.push(&u);
        }
    })
}

fn options(pairs: &[(&str, JsValue)]) -> Object {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &(*k).into(), v).unwrap();
    }
    o
}

/// The AgentX client over a real `fetch` from the reference server: the self-correction flow, the
/// loop driven by the bindings (check, continuation) the TypeScript layer uses.
#[wasm_bindgen_test]
async fn agentx_client_streams_post_chat_and_the_tool_loop_corrects_itself() {
    let client = JsAgentxClient::new(
        options(&[("baseUrl", server().into())]).unchecked_into::<AgentxClientOptions>(),
    )
    .unwrap();
    assert!(client.url().ends_with("/chat"));
    let tools = write_file_registry();
    let user = agentwire::wasm::agentx::agentx_user_text("Write hello.txt, please.").unwrap();
    let mut request = json!({"messages": [json_of(&user.js_value())]});
    let mut errors = Vec::new();
    let mut final_text = String::new();
    for round in 0..3 {
        let updates = Array::new();
        let sink = collect_sink(&updates);
        let sink_fn: &Function = sink.as_ref().unchecked_ref();
        let call_options = options(&[("batch", true.into())]);
        let handle = client
            .chat(
                Ts::new_unchecked(js(request.clone())),
                sink_fn.clone().unchecked_into::<AgentxUpdateSink>(),
                Some(call_options.unchecked_into::<AgentxChatCallOptions>()),
            )
            .unwrap();
        let answer = JsFuture::from(handle.messages()).await.unwrap();
        assert_eq!(
            json_of(&handle.status().unwrap().js_value()),
            json!("complete")
        );
        assert!(updates.length() > 1, "round {round} streamed");
        let conversation = get(&js(request.clone()), "messages");
        let checked = tools
            .check_agentx_calls(conversation, answer.clone())
            .unwrap();
        let checked = json_of(&checked);
        let answer_json = json_of(&answer);
        if round == 2 {
            assert_eq!(checked, json!([]));
            final_text = answer_json[0]["parts"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned();
            break;
        }
        let call = &checked[0];
        let outcome = match call.get("error") {
            Some(e) => {
                errors.push(e["message"].as_str().unwrap().to_owned());
                json!({"type": "error", "callId": call["callId"], "toolName": "write_file", "error": e})
            }
            None => {
                json!({"type": "result", "callId": call["callId"], "toolName": "write_file", "value": {"status": "success"}})
            }
        };
        let next = agentwire::wasm::tools::agentx_tool_continuation(
            Ts::new_unchecked(js(request.clone())),
            answer,
            js(json!([outcome])),
        )
        .unwrap();
        request = json_of(&next.js_value());
        drop(sink);
    }
    assert_eq!(
        errors,
        ["Validation failed for tool 'write_file': Missing required argument 'path'."]
    );
    assert_eq!(
        final_text,
        "I have successfully written the file to `/hello.txt`."
    );
    // The conversation sent in the last round: user, call, error, corrected call, result.
    let roles: Vec<&str> = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant", "user"]);
    assert_eq!(request["messages"][2]["parts"][0]["type"], "tool_error");
    assert_eq!(
        request["messages"][2]["parts"][0]["error_type"],
        "VALIDATION"
    );
}

/// The Agent API tools agent: arguments stream as several data deltas; the pending call is checked
/// and the continuation carries its output.
#[wasm_bindgen_test]
async fn agent_api_tool_call_streams_and_continues_with_the_output() {
    let client = JsAgentClient::new(
        options(&[
            ("baseUrl", server().into()),
            ("endpoint", "/process?agent=tools".into()),
        ])
        .unchecked_into::<AgentClientOptions>(),
    )
    .unwrap();
    let mut tools = JsToolRegistry::new();
    tools
        .register(Ts::new_unchecked(js(json!({
            "name": "get_time",
            "parameters": {"type": "object", "properties": {"timezone": {"type": "string"}}, "required": ["timezone"]},
        }))))
        .unwrap();
    let request = JsRequestBuilder::new()
        .text("user", "What time is it in Paris?")
        .unwrap()
        .build()
        .unwrap();
    let request = tools.offer_tools(request).unwrap();
    assert_eq!(
        json_of(&request.js_value())["tools"][0]["function"]["name"],
        "get_time"
    );
    let updates = Array::new();
    let sink = collect_sink(&updates);
    let sink_fn: &Function = sink.as_ref().unchecked_ref();
    let handle = client
        .stream(
            Ts::new_unchecked(request.js_value()),
            sink_fn.clone().unchecked_into::<UpdateSink>(),
            None,
        )
        .unwrap();
    let response = JsFuture::from(handle.response()).await.unwrap();
    // The arguments arrived as several data deltas that concatenate.
    let mut args = JsToolArguments::new(None).unwrap();
    let mut deltas = 0;
    for u in updates.iter() {
        if get(&u, "type").as_string().as_deref() == Some("dataDelta") {
            if let Some(piece) = get(&get(&u, "delta"), "arguments").as_string() {
                if !piece.is_empty() {
                    deltas += 1;
                    args.push(JsValue::from_str(&piece)).unwrap();
                }
            }
        }
    }
    assert!(deltas > 3, "{deltas} deltas");
    assert!(args.is_complete());
    let checked = json_of(
        &tools
            .check_agent_calls(Ts::new_unchecked(response.clone()))
            .unwrap(),
    );
    assert_eq!(checked[0]["toolName"], "get_time");
    assert_eq!(checked[0]["arguments"]["timezone"], "Europe/Paris");
    let outcome = json!([{"type": "result", "callId": checked[0]["callId"], "toolName": "get_time", "value": {"time": "09:30", "timezone": "Europe/Paris"}}]);
    let next = agent_tool_continuation(request, Ts::new_unchecked(response), js(outcome)).unwrap();
    let next_json = json_of(&next.js_value());
    let last = next_json["input"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["type"], "function_call_output");
    assert_eq!(
        last["content"][0]["data"]["output"],
        r#"{"time":"09:30","timezone":"Europe/Paris"}"#
    );
    // The next round answers with the output.
    let texts = Array::new();
    let sink2 = collect_sink(&texts);
    let sink2_fn: &Function = sink2.as_ref().unchecked_ref();
    let handle = client
        .stream(next, sink2_fn.clone().unchecked_into::<UpdateSink>(), None)
        .unwrap();
    let response = json_of(&JsFuture::from(handle.response()).await.unwrap());
    assert_eq!(
        response["output"][0]["content"][0]["text"],
        "It is 09:30 in Europe/Paris."
    );
    drop(sink);
    drop(sink2);
}
