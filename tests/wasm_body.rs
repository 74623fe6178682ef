//! The message-body and Atlas bindings, run by wasm-bindgen-test in Node and in headless Chromium
//! (the test command runs this file twice): `MessageBody`, `BodySchema`, `SchemaWatch`,
//! `validatePayload` on strings, bytes and `Blob`s (an over-size one is not read), and
//! `StructuredMessage` with a Rust → JSON → JavaScript → JSON → Rust round trip.
#![cfg(target_arch = "wasm32")]

use agentwire::dialect::atlas::{StructuredMessage, ToolStatus};
use agentwire::wasm::atlas::JsStructuredMessage;
use agentwire::wasm::body::{validate_payload_js, JsBodySchema, JsMessageBody, JsPattern};
use js_sys::{Array, Reflect, Uint8Array};
use serde_json::json;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

#[wasm_bindgen(inline_js = r#"
export function hugeBlob(reads) {
  // A Blob claiming 64 GiB whose every way of being read is counted and throws.
  class Huge extends Blob {
    get size() { return 64 * 1024 * 1024 * 1024; }
    arrayBuffer() { reads.push("arrayBuffer"); throw new Error("read"); }
    stream() { reads.push("stream"); throw new Error("read"); }
    text() { reads.push("text"); throw new Error("read"); }
    slice() { reads.push("slice"); throw new Error("read"); }
  }
  return new Huge(["{}"]);
}
export function blobOf(text) { return new Blob([text], { type: "application/json" }); }
"#)]
extern "C" {
    #[wasm_bindgen(js_name = hugeBlob)]
    fn huge_blob(reads: &Array) -> JsValue;
    #[wasm_bindgen(js_name = blobOf)]
    fn blob_of(text: &str) -> JsValue;
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap()
}

fn parse(text: &str) -> JsValue {
    js_sys::JSON::parse(text).unwrap()
}

fn code(e: &JsValue) -> String {
    assert!(e.is_instance_of::<js_sys::Error>(), "{e:?}");
    get(e, "code").as_string().unwrap()
}

fn names(parts: &JsValue) -> Vec<String> {
    Array::from(parts)
        .iter()
        .map(|p| get(&p, "name").as_string().unwrap())
        .collect()
}

const PARTS: &str = r##"[
  {"type": "text", "contentType": "text/markdown", "content": "# Findings"},
  {"type": "text", "name": "/sources/1", "contentType": "text/x-uri", "content": "https://a"},
  {"type": "text", "name": "/sources/2", "contentType": "text/x-uri", "content": "https://b"},
  {"type": "data", "name": "/meta.json", "contentType": "application/json", "content": "{\"__proto__\": {\"x\": 1}, \"t\": 0.30000000000000004}"},
  {"type": "file", "name": "/f", "contentType": "application/octet-stream", "content": "AAEC", "contentEncoding": "base64"},
  {"type": "image", "name": "/logo", "contentType": "image/png", "contentUrl": "https://x/logo.png"}
]"##;

#[wasm_bindgen_test]
fn message_body_queries_and_reads() {
    let body = JsMessageBody::new(parse(PARTS)).unwrap();
    assert_eq!(body.length(), 6);
    assert_eq!(
        names(&body.list(JsValue::from_str("/sources/*")).unwrap()),
        ["/sources/1", "/sources/2"]
    );
    // A Pattern object is used as is and stays usable afterwards.
    let pattern = JsValue::from(JsPattern::new("/{meta.json,logo}").unwrap());
    assert_eq!(
        names(&body.list(pattern.clone()).unwrap()),
        ["/meta.json", "/logo"]
    );
    assert_eq!(names(&body.list(pattern.clone()).unwrap()).len(), 2);
    let source = get(&pattern, "source").as_string();
    assert_eq!(source.as_deref(), Some("/{meta.json,logo}"));

    assert_eq!(
        body.names(),
        ["/sources/1", "/sources/2", "/meta.json", "/f", "/logo"]
    );
    assert_eq!(Array::from(&body.main().unwrap()).length(), 1);
    assert!(body.get("/nope").unwrap().is_null());
    assert_eq!(body.read_text("/sources/2").unwrap(), "https://b");
    assert_eq!(body.read_bytes("/f").unwrap(), [0, 1, 2]);
    assert_eq!(body.read_url("/logo").unwrap(), "https://x/logo.png");
    let json = body.read_json("/meta.json").unwrap();
    assert_eq!(get(&json, "t").as_f64(), Some(0.1 + 0.2));
    // `__proto__` is an own data property; the object's prototype is unchanged.
    let object: js_sys::Object = json.clone().into();
    assert!(js_sys::Object::has_own(&object, &"__proto__".into()));
    assert!(get(&json, "x").is_undefined());

    assert_eq!(
        code(&body.read_text("/nope").unwrap_err()),
        "part-not-found"
    );
    assert_eq!(
        code(&body.read_text("/logo").unwrap_err()),
        "no-inline-content"
    );
    assert_eq!(code(&body.read_url("/f").unwrap_err()), "no-content-url");
    // `/f` decodes to bytes 0, 1, 2: UTF-8 text, but not JSON.
    assert_eq!(code(&body.read_json("/f").unwrap_err()), "invalid-json");
    let e = body.list(JsValue::from_str("/a{")).unwrap_err();
    assert_eq!(code(&e), "unclosed-brace");
    assert_eq!(
        get(&get(&e, "details"), "pattern").as_string().as_deref(),
        Some("/a{")
    );
    assert_eq!(
        code(&body.list(JsValue::from_f64(1.0)).unwrap_err()),
        "invalid-argument"
    );
    assert_eq!(Array::from(&body.check().unwrap()).length(), 0);
    let e = JsMessageBody::from_json(JsValue::from_str("{\"parts\": 1}"))
        .err()
        .unwrap();
    assert_eq!(code(&e), "invalid-body");
}

#[wasm_bindgen_test]
fn schemas_validate_bodies_and_watch_streams() {
    let schema = JsBodySchema::builtin("researcher").unwrap();
    let body = JsMessageBody::new(parse(PARTS)).unwrap();
    let report: JsValue = schema.validate(JsValue::from(body)).unwrap().into();
    let codes: Vec<String> = Array::from(&get(&report, "violations"))
        .iter()
        .map(|v| get(&v, "code").as_string().unwrap())
        .collect();
    assert_eq!(
        codes,
        ["unexpected-part", "unexpected-part", "unexpected-part"]
    );
    // A plain array of parts works too.
    let report: JsValue = schema.validate(parse(PARTS)).unwrap().into();
    assert_eq!(Array::from(&get(&report, "violations")).length(), 3);

    let e = JsBodySchema::new(parse(
        r#"{"parts": [{"name": "/ok"}, {"contentType": "text/["}]}"#,
    ))
    .err()
    .unwrap();
    assert_eq!(code(&e), "invalid-schema");
    assert_eq!(
        get(&get(&e, "details"), "pointer").as_string().as_deref(),
        Some("/parts/1/contentType")
    );

    let mut watch = schema.watch();
    assert!(watch
        .part_started(0.0, None, "text/markdown")
        .unwrap()
        .is_null());
    let v = watch
        .part_started(1.0, Some("/notes".into()), "text/plain")
        .unwrap();
    assert_eq!(
        get(&v, "code").as_string().as_deref(),
        Some("unexpected-part")
    );
    assert_eq!(Array::from(&watch.finish().unwrap()).length(), 0);
    watch.reset();
    assert_eq!(Array::from(&watch.finish().unwrap()).length(), 1);
}

async fn report(input: JsValue, limits: Option<JsValue>) -> JsValue {
    JsFuture::from(validate_payload_js(input, None, limits))
        .await
        .unwrap()
}

fn first_code(report: &JsValue) -> String {
    let errors = Array::from(&get(report, "errors"));
    get(&errors.get(0), "code").as_string().unwrap()
}

#[wasm_bindgen_test]
async fn payloads_from_strings_bytes_and_blobs() {
    let text = format!("{{\"parts\": {PARTS}}}");
    for input in [
        JsValue::from_str(&text),
        Uint8Array::from(text.as_bytes()).into(),
        blob_of(&text),
    ] {
        let r = report(input, None).await;
        assert_eq!(get(&r, "ok").as_bool(), Some(true), "{r:?}");
    }
    let r = report(
        JsValue::from_str("{\"parts\": [\n  {\"content\": 1,}]}"),
        None,
    )
    .await;
    assert_eq!(first_code(&r), "invalid-json");
    let e = Array::from(&get(&r, "errors")).get(0);
    assert_eq!(get(&e, "line").as_f64(), Some(2.0));

    // Over the limit: rejected from the size, nothing read.
    let reads = Array::new();
    let r = report(huge_blob(&reads), None).await;
    assert_eq!(first_code(&r), "payload-too-large");
    assert_eq!(reads.length(), 0);
    let r = report(blob_of(&text), Some(parse(r#"{"maxBytes": 5}"#))).await;
    assert_eq!(first_code(&r), "payload-too-large");

    let e = JsFuture::from(validate_payload_js(JsValue::from_f64(3.0), None, None))
        .await
        .unwrap_err();
    assert_eq!(code(&e), "invalid-argument");
}

#[wasm_bindgen_test]
fn atlas_round_trip_rust_json_js_json_rust_is_exact() {
    // Made in Rust, with floats serde_json alone would read one ULP off.
    let mut original = StructuredMessage::new("What's the weather in New York?");
    original.timestamp = 1758972921.8811321;
    original.task_id = "weather-task-123".into();
    original.source_agent = Some("user".into());
    original
        .metadata
        .insert("score".into(), json!(1795691546.6036239));
    let args = json!({"location": "New York", "p": 0.1});
    let call = original.add_tool_call("get_weather", args.as_object().cloned().unwrap());
    original.add_tool_result(
        "get_weather",
        json!({"temp": 72.5}),
        call,
        ToolStatus::Success,
        None,
    );

    // Rust → JSON text → a JavaScript StructuredMessage → its JavaScript object → JSON text (by
    // JavaScript's JSON.stringify) → Rust.
    let js = JsStructuredMessage::from_json(JsValue::from_str(&original.to_json()), None).unwrap();
    let object: JsValue = js.to_json().unwrap().into();
    let text = js_sys::JSON::stringify(&object)
        .unwrap()
        .as_string()
        .unwrap();
    let back = StructuredMessage::from_json(&text).unwrap();
    assert_eq!(back, original);
    assert_eq!(back.timestamp.to_bits(), original.timestamp.to_bits());
    assert_eq!(js.timestamp().to_bits(), 1758972921.8811321_f64.to_bits());

    // The body view, from JavaScript, reads back the same message.
    let body = js.to_body();
    assert_eq!(
        body.names()[0],
        format!("/tool_calls/{}", back.tool_calls[0].id)
    );
    let again = JsStructuredMessage::from_body(JsValue::from(body)).unwrap();
    let again: JsValue = again.to_json().unwrap().into();
    let again = js_sys::JSON::stringify(&again)
        .unwrap()
        .as_string()
        .unwrap();
    assert_eq!(StructuredMessage::from_json(&again).unwrap(), original);
}

#[wasm_bindgen_test]
fn atlas_errors_name_the_field() {
    let e = JsStructuredMessage::from_json(JsValue::from_str(r#"{"content": 5}"#), None)
        .err()
        .unwrap();
    assert_eq!(code(&e), "wrong-type");
    assert_eq!(
        get(&get(&e, "details"), "path").as_string().as_deref(),
        Some("content")
    );
    let mut m = JsStructuredMessage::new("x", None).unwrap();
    let e = m.add_tool_call("t", JsValue::from_f64(1.0)).unwrap_err();
    assert_eq!(code(&e), "wrong-type");
    let id = m.add_tool_call("t", parse("{}")).unwrap();
    assert_eq!(id.len(), 36);
    let e = m
        .add_tool_result("t", JsValue::NULL, &id, Some("done".into()), None)
        .unwrap_err();
    assert_eq!(code(&e), "unknown-tool-status");
}
