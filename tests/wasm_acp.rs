//! The ACP and run-session bindings, run by wasm-bindgen-test in Node and in headless Chromium (the
//! test command runs this file twice): run sessions and schemas, an ACP stream of acp-sdk's bytes
//! through a custom `fetch`, and a real `fetch` of the reference server's `approval` agent (whose URL
//! the test command passes at build time in `AGENTWIRE_TEST_SERVER`) through await, resume and
//! cancel.
#![cfg(target_arch = "wasm32")]

use agentwire::wasm::acp::{AcpClientOptions, AcpRunCallOptions, AcpUpdateSink, JsAcpClient};
use agentwire::wasm::run::{JsCommunicationSchema, JsRunSession};
use js_sys::{Array, Function, Object, Promise, Reflect};
use tsify::Ts;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

const RUN_STREAM: &str = include_str!("../../shared/fixtures/acp-sdk/run-stream.sse");

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap()
}

fn string(v: &JsValue, key: &str) -> String {
    get(v, key).as_string().unwrap_or_default()
}

fn server() -> &'static str {
    match option_env!("AGENTWIRE_TEST_SERVER") {
        Some(url) => url,
        None => panic!("the test command sets AGENTWIRE_TEST_SERVER to the reference server's URL"),
    }
}

fn json(text: &str) -> JsValue {
    js_sys::JSON::parse(text).unwrap()
}

fn user(text: &str) -> JsValue {
    json(&format!(
        r#"{{"role": "user", "parts": [{{"content_type": "text/plain", "content": {text:?}}}]}}"#
    ))
}

/// A sink that keeps every batch of updates.
fn collecting_sink() -> (Array, Closure<dyn FnMut(JsValue)>) {
    let calls = Array::new();
    let sink = {
        let calls = calls.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |updates: JsValue| {
            calls.push(&updates);
        })
    };
    (calls, sink)
}

fn sink_of(closure: &Closure<dyn FnMut(JsValue)>) -> AcpUpdateSink {
    let f: &Function = closure.as_ref().unchecked_ref();
    f.clone().unchecked_into()
}

/// Every update of every batch, as `type` strings.
fn types(calls: &Array) -> Vec<String> {
    calls
        .iter()
        .flat_map(|batch| Array::from(&batch).iter().collect::<Vec<_>>())
        .map(|u| string(&u, "type"))
        .collect()
}

#[wasm_bindgen_test]
fn run_sessions_refuse_moves_with_error_objects() {
    let schema = JsCommunicationSchema::builtin("interruptibleChat").unwrap();
    let mut session = JsRunSession::new(&schema, None).unwrap();
    let body = Ts::new_unchecked(json(
        r#"{"parts": [{"type": "text", "contentType": "text/plain", "content": "Hi", "contentEncoding": "plain", "status": "complete"}]}"#,
    ));
    let step = session.send("message", Some(body)).unwrap();
    assert_eq!(string(&step, "to"), "running");
    let e = session.send("message", None).unwrap_err();
    assert!(e.is_instance_of::<js_sys::Error>());
    assert_eq!(string(&e, "code"), "move-not-allowed");
    assert_eq!(string(&get(&e, "details"), "state"), "running");
    let allowed: JsValue = session.allowed_moves(Some("client".into())).unwrap().into();
    assert_eq!(string(&Array::from(&allowed).get(0), "type"), "cancel");
    // Lenient by default: a server message the state does not allow is a warning.
    let step = session.receive("function_call", None).unwrap();
    assert!(get(&step, "move").is_null());
    assert_eq!(string(&get(&step, "warning"), "code"), "move-not-allowed");
    assert!(schema
        .to_mermaid()
        .contains("running --> idle: client cancel"));
    let e = JsCommunicationSchema::from_json(json(r#"{"running": []}"#))
        .err()
        .unwrap();
    assert_eq!(string(&e, "code"), "missing-initial-state");
}

/// `new Response(body, {headers: {"content-type": …}})`, built through the global constructor.
fn response(body: &str, content_type: &str) -> JsValue {
    let ctor: Function = get(&js_sys::global(), "Response").unchecked_into();
    let init = json(&format!(
        r#"{{"headers": {{"content-type": {content_type:?}}}}}"#
    ));
    Reflect::construct(&ctor, &Array::of2(&body.into(), &init)).unwrap()
}

#[wasm_bindgen_test]
async fn an_acp_stream_through_a_custom_fetch_assembles_the_run() {
    let fetch = Closure::<dyn FnMut(JsValue) -> JsValue>::new(|_request: JsValue| {
        Promise::resolve(&response(RUN_STREAM, "text/event-stream")).into()
    });
    let options = Object::new();
    Reflect::set(&options, &"baseUrl".into(), &"http://acp.test".into()).unwrap();
    Reflect::set(&options, &"fetch".into(), fetch.as_ref()).unwrap();
    let client = JsAcpClient::new(options.unchecked_into::<AcpClientOptions>()).unwrap();
    let (calls, sink) = collecting_sink();
    let run_options = json(r#"{"strict": true}"#).unchecked_into::<AcpRunCallOptions>();
    let call = client
        .run(
            "echo",
            Array::of1(&user("hello world")).into(),
            Some(run_options),
            sink_of(&sink),
        )
        .unwrap();
    let run = JsFuture::from(call.run()).await.expect("the run completes");
    assert_eq!(string(&run, "status"), "completed");
    let output = Array::from(&get(&run, "output"));
    assert_eq!(output.length(), 2);
    let first = Array::from(&get(&output.get(0), "parts")).get(0);
    assert_eq!(string(&first, "content"), "Echo: hello world");
    assert_eq!(call.state(), "completed");
    let seen = types(&calls);
    assert_eq!(seen.first().map(String::as_str), Some("state"));
    assert_eq!(seen.last().map(String::as_str), Some("done"));
    assert_eq!(seen.iter().filter(|t| *t == "state").count(), 3);
    assert!(!seen.iter().any(|t| t == "issue"), "{seen:?}");
    drop(sink);
    drop(fetch);
}

#[wasm_bindgen_test]
async fn the_reference_servers_approval_agent_awaits_resumes_and_cancels() {
    let options = Object::new();
    Reflect::set(
        &options,
        &"baseUrl".into(),
        &format!("{}/acp", server()).into(),
    )
    .unwrap();
    let client = JsAcpClient::new(options.unchecked_into::<AcpClientOptions>()).unwrap();
    let agents = JsFuture::from(client.agents()).await.unwrap();
    assert_eq!(string(&Array::from(&agents).get(0), "name"), "approval");

    // Approve.
    let (calls, sink) = collecting_sink();
    let run_options = json(r#"{"strict": true, "pollInterval": 20}"#);
    let call = client
        .run(
            "approval",
            Array::of1(&user("Deploy")).into(),
            Some(run_options.clone().unchecked_into()),
            sink_of(&sink),
        )
        .unwrap();
    let stopped = JsFuture::from(call.stopped()).await.unwrap();
    assert_eq!(string(&stopped, "status"), "awaiting");
    assert_eq!(call.state(), "awaiting");
    let awaiting: JsValue = call.awaiting().unwrap().unwrap().into();
    let question = Array::from(&get(&get(&awaiting, "message"), "parts")).get(0);
    assert_eq!(
        string(&question, "content"),
        "Approve the deployment? (yes/no)"
    );
    let resumed = call.resume(Ts::new_unchecked(user("yes"))).unwrap();
    JsFuture::from(resumed).await.unwrap();
    let run = JsFuture::from(call.run()).await.unwrap();
    assert_eq!(string(&run, "status"), "completed");
    let text = string(
        &Array::from(&get(&Array::from(&get(&run, "output")).get(0), "parts")).get(0),
        "content",
    );
    assert!(text.ends_with("Approved (\u{201c}yes\u{201d}): deploying version 2.4.1 now. Done."));
    assert!(types(&calls).iter().any(|t| t == "textDelta"));
    // Over: no more moves.
    let e = call.cancel().err().unwrap();
    assert_eq!(string(&e, "code"), "move-not-allowed");

    // Cancel while it awaits.
    let call = client
        .run(
            "approval",
            Array::of1(&user("Deploy")).into(),
            Some(run_options.unchecked_into()),
            sink_of(&sink),
        )
        .unwrap();
    JsFuture::from(call.stopped()).await.unwrap();
    let answer = JsFuture::from(call.cancel().unwrap()).await.unwrap();
    assert_eq!(string(&answer, "status"), "cancelling");
    let run = JsFuture::from(call.run()).await.unwrap();
    assert_eq!(string(&run, "status"), "cancelled");
    assert_eq!(call.state(), "cancelled");
    drop(sink);
}
