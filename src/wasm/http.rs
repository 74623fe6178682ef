//! Small helpers every `fetch`-based client of the binding shares (Agent API, ACP, AgentX).

use js_sys::Reflect;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::Response;

use crate::transport::truncate_body;

/// The response's `Content-Type` header (`""` if none).
pub(crate) fn content_type(r: &Response) -> String {
    r.headers()
        .get("content-type")
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// The response body as text (truncated to 64 KiB), or `""` if it cannot be read.
pub(crate) async fn text_of(r: &Response) -> String {
    let Ok(p) = r.text() else {
        return String::new();
    };
    match JsFuture::from(p).await {
        Ok(t) => truncate_body(t.as_string().unwrap_or_default()),
        Err(_) => String::new(),
    }
}

/// A readable description of a JavaScript error value (its message and its cause's).
pub(crate) fn describe(e: &JsValue) -> String {
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        let mut s = String::from(err.message());
        if let Ok(cause) = Reflect::get(err, &"cause".into()) {
            if let Some(c) = cause.dyn_ref::<js_sys::Error>() {
                s.push_str(": ");
                s.push_str(&String::from(c.message()));
            }
        }
        return s;
    }
    e.as_string().unwrap_or_else(|| "unknown error".to_owned())
}
