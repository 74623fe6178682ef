//! Incremental JSON for JavaScript: `PartialJson`, the core's [`PartialJson`] behind a class whose
//! `push` returns the changes of each delta (the JavaScript value follows them without the whole
//! value being re-sent).

use tsify::Ts;
use wasm_bindgen::prelude::*;

use super::convert::{from_ts, parse_json, to_js};
use super::error::js_error;
use crate::json::{changes_json, PartialChange, PartialJson, PartialJsonLimits, PathSegment};

#[wasm_bindgen(module = "/src/wasm/changes.js")]
extern "C" {
    /// `[{op: "append", path: path.slice(), value}]`.
    #[wasm_bindgen(js_name = appendChange)]
    fn append_change(path: &JsValue, value: &str) -> JsValue;
    /// A copy of the `path` array of the last element of `changes` (not empty).
    #[wasm_bindgen(js_name = lastPath)]
    fn last_path(changes: &JsValue) -> JsValue;
}

/// Converts the changes of each push to a JavaScript array (`PartialChange[]`), for one parser.
///
/// Most pushes of a streamed string append to the string the previous push ended at (every
/// one-character delta of a tool's `content` argument). Such a push's one change crosses as its
/// text, beside a copy of the path kept from the last push (src/wasm/changes.js); any other push
/// crosses as JSON text (`changes_json`, written at opt-level 3, then one `JSON.parse`). With every
/// push through serde_json (compiled here at "z") and `JSON.parse`, 20,000 one-character pushes
/// took 2.8 times as long, and 74 kB of search results in 16-character pushes 1.6 times (paired
/// runs in Node, with `applyPartialChanges`).
#[derive(Default)]
pub(crate) struct ChangesToJs {
    /// The path of the last change returned, and a JavaScript array of it (not handed out).
    last: Option<(Vec<PathSegment>, JsValue)>,
}

impl ChangesToJs {
    /// `changes` as a new JavaScript array.
    ///
    /// # Errors
    /// What `JSON.parse` throws (nothing: the text is JSON).
    pub(crate) fn convert(&mut self, changes: &[PartialChange]) -> Result<JsValue, JsValue> {
        if let ([PartialChange::Append { path, value }], Some((last, js_path))) =
            (changes, &self.last)
        {
            if path == last {
                return Ok(append_change(js_path, value));
            }
        }
        let js = parse_json(&changes_json(changes))?;
        if let Some(change) = changes.last() {
            self.last = Some((change.path().to_vec(), last_path(&js)));
        }
        Ok(js)
    }
}

/// The pieces of a JavaScript string pushed one after another, as UTF-8. A string cut between the
/// two halves of a surrogate pair (`text.slice(0, n)` through an emoji) would give each half
/// alone, and a JavaScript string converted to UTF-8 makes each half U+FFFD; a high half that ends
/// a piece is held back instead, and the low half that begins the next completes the character,
/// so the pieces read as the whole string does. A half without its other half is U+FFFD (the held
/// one as soon as the next piece does not begin with a low half, or at the end).
#[derive(Default, Clone, Copy)]
pub(crate) struct Utf16Pieces {
    held: Option<u16>,
}

impl Utf16Pieces {
    /// `piece` as UTF-8, after the character its first code unit completes.
    ///
    /// # Errors
    /// `invalid-argument` (`details.what` = `what`) if `piece` is not a string.
    pub(crate) fn text(&mut self, piece: &JsValue, what: &str) -> Result<String, JsValue> {
        let Some(mut text) = piece.as_string() else {
            let found = piece.js_typeof().as_string().unwrap_or_default();
            let reason = ["expected a string, got ", &found].concat();
            return Err(super::error::invalid_argument(what, &reason));
        };
        const REPLACEMENT: &str = "\u{FFFD}";
        // The conversion made a lone half U+FFFD: the code units are looked at only when a half
        // is held or the text ends with U+FFFD (one call per push otherwise).
        if self.held.is_none() && !text.ends_with(REPLACEMENT) {
            return Ok(text);
        }
        let piece: &js_sys::JsString = piece.unchecked_ref();
        let len = piece.length();
        let unit = |i: u32| piece.char_code_at(i) as u16;
        let mut start = 0;
        let mut joined = String::new();
        if let Some(high) = self.held.take() {
            match char::decode_utf16([high, if len > 0 { unit(0) } else { 0 }]).next() {
                Some(Ok(c)) if len > 0 => {
                    // The low half read as U+FFFD: the character replaces it.
                    joined.push(c);
                    text.replace_range(..REPLACEMENT.len(), "");
                    start = 1;
                }
                _ => joined.push(char::REPLACEMENT_CHARACTER),
            }
        }
        if len > start && (0xD800..0xDC00).contains(&unit(len - 1)) {
            self.held = Some(unit(len - 1));
            text.truncate(text.len() - REPLACEMENT.len());
        }
        joined.push_str(&text);
        Ok(joined)
    }

    /// Whether a high half is held for the next piece.
    pub(crate) fn is_holding(&self) -> bool {
        self.held.is_some()
    }

    /// The held half, as U+FFFD (the text ends without its other half); `""` if none.
    pub(crate) fn end(&mut self) -> &'static str {
        match self.held.take() {
            Some(_) => "\u{FFFD}",
            None => "",
        }
    }
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
pub struct JsPartialJson {
    parser: PartialJson,
    changes: ChangesToJs,
    pieces: Utf16Pieces,
}

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
        Ok(Self {
            parser: PartialJson::new(limits),
            changes: ChangesToJs::default(),
            pieces: Utf16Pieces::default(),
        })
    }

    /// Reads the next piece of the text; returns what it changed in `value`, in order: `set` (a
    /// value appeared at `path`, or an open number changed) and `append` (text added to the open
    /// string at `path`: only the new piece). Applying them to a copy (`applyPartialChanges`)
    /// reproduces `value` exactly.
    ///
    /// # Errors
    /// A `ProtocolError` at the first byte that is not JSON: `json-syntax`, `json-too-deep`,
    /// `json-trailing-characters`, `json-number-out-of-range` (with `details.offset`, a 0-based byte
    /// offset into the UTF-8 text); what came before the offending byte is applied. Or
    /// `json-too-large` (`details.limit`, and `size`, the bytes the text would reach) for a push
    /// past `maxBytes`; nothing of that push is applied. Later pushes throw the same error.
    /// `invalid-argument` if `delta` is not a string.
    ///
    /// A delta may end between the two halves of a surrogate pair (a string sliced through an
    /// emoji): the high half waits for the next push, whose low half completes the character.
    #[wasm_bindgen(unchecked_return_type = "PartialChange[]")]
    pub fn push(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] delta: JsValue,
    ) -> Result<JsValue, JsValue> {
        let delta = self.pieces.text(&delta, "delta")?;
        self.parser.push(&delta).map_err(|e| js_error(&e))?;
        self.changes.convert(self.parser.changes())
    }

    /// As `push`, for UTF-8 bytes that may split a character between pieces (held until the next
    /// piece completes it): a `Uint8Array`, an `ArrayBuffer` or an array of byte values.
    ///
    /// # Errors
    /// As `push`, `json-invalid-utf8`, and `invalid-argument` (`details.what` = `"bytes"`) for
    /// anything else, such as a string.
    #[wasm_bindgen(js_name = pushBytes, unchecked_return_type = "PartialChange[]")]
    pub fn push_bytes(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | ArrayBuffer | number[]")]
        bytes: JsValue,
    ) -> Result<JsValue, JsValue> {
        let bytes = super::http::byte_chunk(bytes, "bytes")?.to_vec();
        self.parser.push_bytes(&bytes).map_err(|e| js_error(&e))?;
        self.changes.convert(self.parser.changes())
    }

    /// The best-effort value of the text so far, as a new JavaScript value (`undefined` before
    /// anything shows). Converting it costs its size: to follow a growing value, apply the changes
    /// `push` returns instead of reading this after every push.
    #[wasm_bindgen(getter, unchecked_return_type = "JsonValue | undefined")]
    pub fn value(&self) -> Result<JsValue, JsValue> {
        match self.parser.value() {
            Some(v) => to_js(v),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// Whether the root value is complete (a root number only becomes complete at `finish`).
    #[wasm_bindgen(getter, js_name = isComplete)]
    pub fn is_complete(&self) -> bool {
        self.parser.is_complete()
    }

    /// UTF-8 bytes read so far.
    #[wasm_bindgen(getter, js_name = bytesPushed)]
    pub fn bytes_pushed(&self) -> f64 {
        self.parser.bytes_pushed() as f64
    }

    /// Ends the text and returns its value, equal to `JSON.parse` of the whole text (but for an
    /// escaped lone surrogate, `"\ud83d"`, which reads as U+FFFD: README "Lone surrogates"). The parser is
    /// then empty (as after `reset`) if it succeeded, and unchanged if it failed (a high surrogate
    /// half that ended the last push is still held, for a push that completes it).
    ///
    /// # Errors
    /// The error of an earlier push; `json-unexpected-end` when the value is incomplete (empty
    /// text included); `json-number-out-of-range` for a root number such as `1e400`.
    #[wasm_bindgen(unchecked_return_type = "JsonValue")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        if !self.pieces.is_holding() {
            return self.finish_text();
        }
        // The held half ends the text as U+FFFD: on failure, the parser is as it was.
        let (parser, pieces) = (self.parser.clone(), self.pieces);
        let result = self.finish_text();
        if result.is_err() {
            (self.parser, self.pieces) = (parser, pieces);
        }
        result
    }

    /// Forgets everything pushed (and any error), keeping the limits.
    pub fn reset(&mut self) {
        self.parser.reset();
        self.pieces = Utf16Pieces::default();
    }
}

impl JsPartialJson {
    /// `finish` on the text and a held half, which is pushed as U+FFFD.
    fn finish_text(&mut self) -> Result<JsValue, JsValue> {
        let held = self.pieces.end();
        if !held.is_empty() {
            self.parser.push(held).map_err(|e| js_error(&e))?;
        }
        let limits = self.parser.limits();
        let value = if self.parser.is_complete() {
            // Complete: take the value without copying it.
            std::mem::replace(&mut self.parser, PartialJson::new(limits)).finish()
        } else {
            // The error path (or a root number): leave the parser as it is.
            let result = self.parser.clone().finish();
            if result.is_ok() {
                self.parser.reset();
            }
            result
        }
        .map_err(|e| js_error(&e))?;
        to_js(&value)
    }
}
