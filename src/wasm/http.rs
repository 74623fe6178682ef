//! Small helpers every `fetch`-based client of the binding shares (Agent API, ACP, AgentX).

use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{RequestCredentials, Response};

use super::error::invalid_argument;
use crate::transport::truncate_body;

/// A client's `options.fetch`: the function used instead of the global `fetch`, if it is one.
pub(crate) fn fetch_option(options: &JsValue) -> Option<Function> {
    Reflect::get(options, &"fetch".into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
}

/// A client's `options.credentials` (`omit`, `same-origin` or `include`; the Fetch standard's
/// `RequestCredentials`).
///
/// # Errors
/// `invalid-argument` naming `options.credentials` for any other value.
pub(crate) fn credentials_option(
    value: Option<&str>,
) -> Result<Option<RequestCredentials>, JsValue> {
    match value {
        None => Ok(None),
        Some("omit") => Ok(Some(RequestCredentials::Omit)),
        Some("same-origin") => Ok(Some(RequestCredentials::SameOrigin)),
        Some("include") => Ok(Some(RequestCredentials::Include)),
        Some(other) => Err(invalid_argument(
            "options.credentials",
            &format!("`{other}` is not omit, same-origin or include"),
        )),
    }
}

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
