//! Incremental JSON for JavaScript: `PartialJson`, the core's [`PartialJson`] behind a class whose
//! `push` returns the changes of each delta (the JavaScript value follows them without the whole
//! value being re-sent).

use tsify::Ts;
use wasm_bindgen::prelude::*;

use super::convert::{from_ts, to_js};
use super::error::js_error;
use crate::json::{PartialChange, PartialJson, PartialJsonLimits};

/// The changes of a push as a JavaScript array (`PartialChange[]`).
pub(crate) fn changes_to_js(changes: &[PartialChange]) -> Result<JsValue, JsValue> {
    to_js(changes)
}

/// An incremental JSON parser: push the text in pieces, get after each push what changed in the
/// best-effort value (`{"path": "/hel"}` while the string is still open). Each byte is read once,
/// so 4,000 one-character pushes cost about as much as one parse of the whole text. The rules of
/// what a partial value shows are the Rust `json` module's ("What a partial value shows").
///
/// ```js
/// const p = new PartialJson();
/// let args;                                  // the caller's copy of the value
/// for (const delta of ['{"path": "/hel', 'lo.txt"}']) {
///   args = applyPartialChanges(args, p.push(delta)); // [{op: "set", …}, {op: "append", …}]
/// }
/// p.finish(); // {path: "/hello.txt"}, as JSON.parse of the whole text
/// ```
#[wasm_bindgen(js_name = PartialJson)]
pub struct JsPartialJson(PartialJson);

#[wasm_bindgen(js_class = PartialJson)]
impl JsPartialJson {
    /// A parser. `limits.maxDepth` (default 64 levels of nesting) and `limits.maxBytes` (default
    /// 4 MiB of UTF-8) bound the text.
    ///
    /// # Errors
    /// `invalid-argument` if `limits` has the wrong shape.
    #[wasm_bindgen(constructor)]
    pub fn new(limits: Option<Ts<PartialJsonLimits>>) -> Result<JsPartialJson, JsValue> {
        let limits = match limits {
            Some(l) => from_ts(&l, "limits")?,
            None => PartialJsonLimits::default(),
        };
        Ok(Self(PartialJson::new(limits)))
    }

    /// Reads the next piece of the text; returns what it changed in `value`, in order: `set` (a
    /// value appeared at `path`, or an open number changed) and `append` (text added to the open
    /// string at `path`: only the new piece). Applying them to a copy (`applyPartialChanges`)
    /// reproduces `value` exactly.
    ///
    /// # Errors
    /// A `ProtocolError` at the first byte that is not JSON: `json-syntax`, `json-too-deep`,
    /// `json-trailing-characters`, `json-number-out-of-range`, `json-lone-surrogate`,
    /// `json-too-large` (with `details.offset`, a 0-based byte offset into the UTF-8 text). What
    /// came before the offending byte is applied; later pushes throw the same error.
    #[wasm_bindgen(unchecked_return_type = "PartialChange[]")]
    pub fn push(&mut self, delta: &str) -> Result<JsValue, JsValue> {
        self.0.push(delta).map_err(|e| js_error(&e))?;
        changes_to_js(self.0.changes())
    }

    /// As `push`, for UTF-8 bytes that may split a character between pieces (held until the next
    /// piece completes it).
    ///
    /// # Errors
    /// As `push`, and `json-invalid-utf8`.
    #[wasm_bindgen(js_name = pushBytes, unchecked_return_type = "PartialChange[]")]
    pub fn push_bytes(&mut self, bytes: &[u8]) -> Result<JsValue, JsValue> {
        self.0.push_bytes(bytes).map_err(|e| js_error(&e))?;
        changes_to_js(self.0.changes())
    }

    /// The best-effort value of the text so far, as a new JavaScript value (`undefined` before
    /// anything shows). Converting it costs its size: to follow a growing value, apply the changes
    /// `push` returns instead of reading this after every push.
    #[wasm_bindgen(getter, unchecked_return_type = "JsonValue | undefined")]
    pub fn value(&self) -> Result<JsValue, JsValue> {
        match self.0.value() {
            Some(v) => to_js(v),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// Whether the root value is complete (a root number only becomes complete at `finish`).
    #[wasm_bindgen(getter, js_name = isComplete)]
    pub fn is_complete(&self) -> bool {
        self.0.is_complete()
    }

    /// UTF-8 bytes read so far.
    #[wasm_bindgen(getter, js_name = bytesPushed)]
    pub fn bytes_pushed(&self) -> f64 {
        self.0.bytes_pushed() as f64
    }

    /// Ends the text and returns its value, equal to `JSON.parse` of the whole text. The parser is
    /// then empty (as after `reset`) if it succeeded, and unchanged if it failed.
    ///
    /// # Errors
    /// The error of an earlier push; `json-unexpected-end` when the value is incomplete (empty
    /// text included); `json-number-out-of-range` for a root number such as `1e400`.
    #[wasm_bindgen(unchecked_return_type = "JsonValue")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let limits = self.0.limits();
        let value = if self.0.is_complete() {
            // Complete: take the value without copying it.
            std::mem::replace(&mut self.0, PartialJson::new(limits)).finish()
        } else {
            // The error path (or a root number): leave the parser as it is.
            let result = self.0.clone().finish();
            if result.is_ok() {
                self.0.reset();
            }
            result
        }
        .map_err(|e| js_error(&e))?;
        to_js(&value)
    }

    /// Forgets everything pushed (and any error), keeping the limits.
    pub fn reset(&mut self) {
        self.0.reset();
    }
}
