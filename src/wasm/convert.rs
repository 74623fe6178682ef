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
    json_to_js(serde_json::to_string(value))
}

/// The part of [`to_js`] that does not depend on the type, compiled once; also JSON text serialized
/// in agentwire-core (see [`crate::body::parts_json`]).
#[inline(never)]
pub(crate) fn json_to_js(text: serde_json::Result<String>) -> Result<JsValue, JsValue> {
    let text = text.map_err(|e| internal(&e.to_string()))?;
    js_sys::JSON::parse(&text)
}

/// JSON text (that Rust wrote) as a JavaScript value.
pub(crate) fn parse_json(text: &str) -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(text)
}

/// A JavaScript value as a Rust value: `JSON.stringify`, then serde_json reads the text into a
/// `serde_json::Value` tree, and `T` is read from the tree by
/// [`agentwire_core::json::from_tree`] (serde_json's reader of a tree, except that an object type
/// is read only from an object, never from an array of its fields). The text reader is
/// instantiated once for every argument type, and each type only gets the (smaller) reader of a
/// tree: reading each `T` from the text directly took 8 KB more of the gzipped module. The values
/// are argument objects, not streams: the extra tree costs no measurable time.
///
/// # Errors
/// A `ProtocolError` with code `invalid-argument` naming `what` when the value does not have the
/// declared shape (serde's message, e.g. ``unknown field `task_id`, expected one of …``, without a
/// line and column, which would point into the stringified text), or cannot be stringified
/// (`BigInt`, cycles, a function, a symbol).
pub(crate) fn from_js<T: DeserializeOwned>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    agentwire_core::json::from_tree(js_tree(value, what)?).map_err(|e| shape_error(what, &e))
}

/// [`from_js`]'s error for a value of the wrong shape. Not inlined: compiled once, not in each
/// instance of `from_js`.
#[cold]
#[inline(never)]
fn shape_error(what: &str, e: &serde_json::Error) -> JsValue {
    invalid(what, &e.to_string())
}

/// A JSON object argument, as a tree (the Agent API's `data` contents: the protocol's
/// `DataContent.data` is a `Dict`, and a server refuses anything else).
///
/// # Errors
/// `invalid-argument` naming `what` for a value that is not JSON, or JSON that is not an object.
#[cfg(feature = "agent-api")]
pub(crate) fn object_from_js(value: &JsValue, what: &str) -> Result<serde_json::Value, JsValue> {
    let tree = js_tree(value, what)?;
    if tree.is_object() {
        Ok(tree)
    } else {
        Err(invalid(what, "it is not a JSON object"))
    }
}

/// The tree [`from_js`] reads its type from; `undefined` is `null`. Not inlined: the part of
/// `from_js` that does not depend on the type is compiled once, not in each instance.
#[inline(never)]
fn js_tree(value: &JsValue, what: &str) -> Result<serde_json::Value, JsValue> {
    if value.is_undefined() {
        return Ok(serde_json::Value::Null);
    }
    agentwire_core::json::parse_value(&stringify(value, what)?)
        .map_err(|e| invalid(what, &e.to_string()))
}

/// `JSON.stringify(value)` (which calls `toJSON`), `"null"` for `undefined`.
///
/// # Errors
/// `invalid-argument` naming `what` when the value cannot be stringified: `JSON.stringify`
/// throws for a `BigInt` or a cycle, and gives no text for a function or a symbol.
pub(crate) fn stringify(value: &JsValue, what: &str) -> Result<String, JsValue> {
    if value.is_undefined() {
        return Ok("null".to_owned());
    }
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| JsValue::from(s).as_string())
        .ok_or_else(|| invalid(what, "it cannot be converted to JSON"))
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

/// A JavaScript index argument as a position: `None` unless it is an integer from 0 to 2^32 − 1
/// (wasm-bindgen's conversion of a `u32` parameter wraps: -1 is read as 4294967295, 2^32 as 0, and
/// `NaN` and 0.5 as 0).
pub(crate) fn index_arg(index: f64) -> Option<usize> {
    (index.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&index)).then_some(index as usize)
}
