//! The one serializer: serde_json text and `JSON.parse`/`JSON.stringify`.

use serde::de::DeserializeOwned;
use serde::Serialize;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use super::error::{internal, invalid_argument};

/// A Rust value as a JavaScript value of its declared TypeScript type.
pub(crate) fn to_ts<T: Serialize + Tsify>(value: &T) -> Result<Ts<T>, JsValue> {
    Ok(Ts::new_unchecked(to_js(value)?))
}

/// A Rust value as a plain JavaScript value (objects, arrays, strings, numbers, null).
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value).map_err(|e| internal(&e.to_string()))?;
    js_sys::JSON::parse(&text)
}

/// JSON text (that Rust wrote) as a JavaScript value.
pub(crate) fn parse_json(text: &str) -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(text)
}

/// A JavaScript value as a Rust value.
///
/// # Errors
/// A `ProtocolError` with code `invalid-argument` naming `what` when the value does not have the
/// declared shape (or cannot be stringified: `BigInt`, cycles).
pub(crate) fn from_js<T: DeserializeOwned>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    if value.is_undefined() {
        return serde_json::from_str("null").map_err(|e| invalid(what, &e.to_string()));
    }
    let text = js_sys::JSON::stringify(value)
        .map_err(|_| invalid(what, "it cannot be converted to JSON"))?;
    let text = String::from(text);
    serde_json::from_str(&text).map_err(|e| invalid(what, &e.to_string()))
}

/// `from_js` for a `Ts<T>` argument.
pub(crate) fn from_ts<T: DeserializeOwned + Tsify>(
    value: &Ts<T>,
    what: &str,
) -> Result<T, JsValue> {
    from_js(&value.js_value(), what)
}

fn invalid(what: &str, reason: &str) -> JsValue {
    invalid_argument(what, reason)
}
