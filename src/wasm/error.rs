//! Errors reaching JavaScript: `ProtocolError` instances (an `Error` subclass with `code`, a stable
//! kebab-case string, and `details`, a plain object).

use std::cell::RefCell;

use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::ErrorCode;
use crate::transport::TransportError;

thread_local! {
    static FACTORY: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Registers the function that makes error objects: `(code, message, details) => Error`. The
/// package's TypeScript layer registers `(c, m, d) => new ProtocolError(c, m, d)` when it loads;
/// without one, errors are plain `Error`s with `code` and `details` properties.
#[wasm_bindgen(js_name = "__setErrorFactory")]
pub fn set_error_factory(factory: Function) {
    FACTORY.with(|f| *f.borrow_mut() = Some(factory));
}

/// The error for a string parameter given another type: `invalid-argument` (`details.what` =
/// `"argument"`, `details.reason` naming `found`, the value's `typeof`). wasm-bindgen's glue would
/// read such a value as an empty string in a browser (`[object Object]`'s UTF-8 written into no
/// room) and throw a `TypeError` in Node; scripts/build.sh makes its string passing
/// (`passStringToWasm0`) throw this instead.
#[wasm_bindgen(js_name = "__notAString")]
pub fn not_a_string(found: &str) -> JsValue {
    invalid_argument("argument", &["expected a string, got ", found].concat())
}

/// The error for a class-typed parameter given something else (`list(pattern)` given a string or
/// a plain object): `invalid-argument` (`details.what` = `"argument"`, `details.reason`
/// `expected a Pattern`). wasm-bindgen's glue threw a plain `Error`; scripts/build.sh makes its
/// `_assertClass` throw this instead.
#[wasm_bindgen(js_name = "__invalidClass")]
pub fn invalid_class(name: &str) -> JsValue {
    invalid_argument("argument", &["expected a ", name].concat())
}

/// The error for what wasm-bindgen's own checks of a wasm object throw, by their `message`:
/// - `object-freed` for a method of an object whose `free()` (or `[Symbol.dispose]`, or a
///   consuming method) has run: wasm-bindgen's "null pointer passed to rust";
/// - `object-in-use` for a method that needs the object to itself (`&mut self`) called while
///   another of its methods runs (from a getter or callback that method reached), or any method
///   while such a method runs: "recursive use of an object detected which would lead to unsafe
///   aliasing in rust".
///
/// `details` is `{}`. Any other message gets a plain `Error`, as wasm-bindgen's glue made it.
/// scripts/build.sh makes the glue's `__wbindgen_throw` throw this instead of `new Error(message)`.
#[wasm_bindgen(js_name = "__bindingError")]
pub fn binding_error(message: &str) -> JsValue {
    let (code, text) = match message {
        wasm_bindgen::__rt::NULL_ERROR => (
            "object-freed",
            "the object was used after its free() (or [Symbol.dispose]) released it",
        ),
        wasm_bindgen::__rt::BORROW_ERROR => (
            "object-in-use",
            "the object was used while one of its own methods runs (from a getter or callback \
             that method called)",
        ),
        _ => return js_sys::Error::new(message).into(),
    };
    make(code, text, js_sys::Object::new().into())
}

/// An error object for a core error.
pub(crate) fn js_error(e: &impl ErrorCode) -> JsValue {
    error_object(e.code(), e, e.details())
}

/// The part of [`js_error`] that does not depend on the error's type, compiled once: the message
/// is written through `Display`'s vtable, not by a `to_string` compiled per error type.
#[inline(never)]
fn error_object(
    code: &str,
    message: &dyn std::fmt::Display,
    details: serde_json::Value,
) -> JsValue {
    let details = super::convert::to_js(&details).unwrap_or(JsValue::NULL);
    make(code, &message.to_string(), details)
}

/// An error object for a core error, with `key: extra` added to its details (e.g. the partial
/// response).
pub(crate) fn js_error_with(e: &(impl ErrorCode + ?Sized), key: &str, extra: &JsValue) -> JsValue {
    let details = super::convert::to_js(&e.details()).unwrap_or(JsValue::NULL);
    if details.is_object() {
        let _ = Reflect::set(&details, &JsValue::from_str(key), extra);
    }
    make(e.code(), &e.to_string(), details)
}

/// An `invalid-argument` error object.
pub(crate) fn invalid_argument(what: &str, reason: &str) -> JsValue {
    js_error(&TransportError::InvalidArgument {
        what: what.into(),
        reason: reason.into(),
    })
}

/// An `internal-error` error object (a bug: a conversion that cannot fail did).
pub(crate) fn internal(reason: &str) -> JsValue {
    js_error(&TransportError::Internal {
        reason: reason.into(),
    })
}

fn make(code: &str, message: &str, details: JsValue) -> JsValue {
    let made = FACTORY.with(|f| {
        f.borrow().as_ref().and_then(|factory| {
            factory
                .call3(
                    &JsValue::NULL,
                    &JsValue::from_str(code),
                    &JsValue::from_str(message),
                    &details,
                )
                .ok()
        })
    });
    made.unwrap_or_else(|| {
        let err = js_sys::Error::new(message);
        let _ = Reflect::set(&err, &"code".into(), &JsValue::from_str(code));
        let _ = Reflect::set(&err, &"details".into(), &details);
        err.into()
    })
}
