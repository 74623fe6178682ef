//! Message bodies for JavaScript: patterns, `MessageBody` (the query API over a message's parts),
//! body schemas with their incremental `SchemaWatch`, and `validatePayload` (strings, bytes,
//! `Blob`s and `File`s). Everything here converts and delegates to [`crate::body`] and
//! [`crate::pattern`].
//!
//! Values from JavaScript are read with correctly rounded floats (a timestamp in a part's metadata
//! survives `new MessageBody(parts)` bit for bit); values to JavaScript go through `JSON.parse`, so
//! no key (not even `"__proto__"`) changes a prototype.

use js_sys::{Array, Function, Promise, Reflect, Uint8Array};
use serde_json::Value;
use tsify::Ts;
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::convert::{from_js, json_to_js, stringify, to_js, to_ts};
use super::error::{invalid_argument, js_error};
use super::http::{describe, promise};
pub use super::pattern::JsPattern;
use crate::body::{
    builtin, check_payload_size, check_text_size, parts_json, validate_body, validate_payload,
    Body, BodyError, BodySchema, Part, PayloadLimits, PayloadReport, SchemaWatch, ValidationReport,
};
use crate::pattern::Pattern;

#[wasm_bindgen(typescript_custom_section)]
const BODY_TS: &str = r#"
/** A body schema as JSON: the proposal's `{"parts": [...]}`, or a bare array of schema parts. */
export type BodySchemaJson = { parts: SchemaPartJson[] } | SchemaPartJson[];
/** The names of the built-in body schemas (the proposal's four example agents). */
export type BuiltinBodySchemaName = "chat" | "multi-modal-chat" | "software-writing" | "researcher";
/** What `validatePayload` reads: JSON text, its UTF-8 bytes, or a `Blob` / `File` (size checked first, then read once). */
export type PayloadInput = string | Uint8Array | ArrayBuffer | Blob;
"#;

// ---------------------------------------------------------------------------------------------
// Conversions shared by the body and Atlas bindings.

/// If `value` is an instance of the exported class `T`, a copy of its Rust value; `None` if it is
/// no instance of an exported class (plain JSON, say).
///
/// The classes taking part have a hidden `__share()` method returning a new instance with a copy
/// of their value (patterns and schemas share their compiled automata, so this is cheap); the copy
/// is then taken over by Rust. The caller's object is left untouched (wasm-bindgen's own
/// conversion would empty it).
///
/// # Errors
/// `invalid-argument` (`details.what` = `what`, the reason naming `expected`) for an instance of
/// another exported class (a `MessageBody` given for a schema, whose `toJSON` would otherwise be
/// read as one), or one that was freed; `object-in-use` for one whose method is running.
pub(crate) fn instance<T: TryFromJsValue>(
    value: &JsValue,
    what: &str,
    expected: &str,
) -> Result<Option<T>, JsValue> {
    let Some(copy) = shared_copy(value, what, expected)? else {
        return Ok(None);
    };
    match T::try_from_js_value(copy) {
        Ok(v) => Ok(Some(v)),
        Err(copy) => Err(other_class(value, &copy, what, expected)),
    }
}

/// What `value.__share()` gives (the generic part of [`instance`] kept out of its copies): `None`
/// if `value` has no `__share`. A `value` in use (one of its methods runs: `object-in-use`)
/// rethrows that error; one that was freed is `invalid-argument`.
#[inline(never)]
fn shared_copy(value: &JsValue, what: &str, expected: &str) -> Result<Option<JsValue>, JsValue> {
    if !value.is_object() {
        return Ok(None);
    }
    let share = Reflect::get(value, &JsValue::from_str("__share")).unwrap_or_default();
    let Some(share) = share.dyn_ref::<Function>() else {
        return Ok(None);
    };
    share.call0(value).map(Some).map_err(|e| {
        let code = Reflect::get(&e, &JsValue::from_str("code")).unwrap_or_default();
        if code.as_string().as_deref() == Some("object-in-use") {
            e
        } else {
            refusal(value, what, expected, " that was freed")
        }
    })
}

/// [`instance`]'s error for a `value` of another class, whose `copy` is freed now rather than by
/// its finalizer.
#[inline(never)]
fn other_class(value: &JsValue, copy: &JsValue, what: &str, expected: &str) -> JsValue {
    let free = Reflect::get(copy, &JsValue::from_str("free")).unwrap_or_default();
    if let Some(free) = free.dyn_ref::<Function>() {
        let _ = free.call0(copy);
    }
    refusal(value, what, expected, "")
}

/// `invalid-argument`: "expected <expected>, got a <value's class><how>".
fn refusal(value: &JsValue, what: &str, expected: &str, how: &str) -> JsValue {
    let class = Reflect::get(value, &JsValue::from_str("constructor"))
        .and_then(|c| Reflect::get(&c, &JsValue::from_str("name")))
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default();
    let reason = ["expected ", expected, ", got a ", &class, how].concat();
    invalid_argument(what, &reason)
}

/// A pattern argument: a string (compiled now) or a `Pattern` (already compiled).
///
/// # Errors
/// The pattern's error for a string that does not compile; `invalid-argument` for anything else.
pub(crate) fn pattern_arg(value: &JsValue) -> Result<Pattern, JsValue> {
    if let Some(text) = value.as_string() {
        return Pattern::new(&text).map_err(|e| js_error(&e));
    }
    const EXPECTED: &str = "a string or a Pattern";
    instance::<JsPattern>(value, "pattern", EXPECTED)?
        .map(|p| p.0)
        .ok_or_else(|| invalid_argument("pattern", &["expected ", EXPECTED].concat()))
}

/// A body argument: a `MessageBody`, an array of parts or a `Body` (`{parts: [...]}`).
///
/// # Errors
/// `invalid-argument` when it is none of these.
pub(crate) fn body_arg(value: &JsValue) -> Result<Body, JsValue> {
    let expected = "a MessageBody, an array of parts or {parts}";
    if let Some(b) = instance::<JsMessageBody>(value, "body", expected)? {
        return Ok(b.0);
    }
    if Array::is_array(value) {
        return from_js::<Vec<Part>>(value, "parts").map(Body::new);
    }
    from_js(value, "body")
}

/// A schema argument: a `BodySchema` or its JSON.
///
/// # Errors
/// `invalid-schema` (with the JSON Pointer of the offending value) for JSON that is not a schema.
pub(crate) fn schema_arg(value: &JsValue) -> Result<BodySchema, JsValue> {
    if let Some(s) = instance::<JsBodySchema>(value, "schema", "a BodySchema or its JSON")? {
        return Ok(s.0);
    }
    let json: Value = from_js(value, "schema")?;
    BodySchema::from_json(&json).map_err(|e| js_error(&e))
}

// ---------------------------------------------------------------------------------------------
// MessageBody

/// A message body: an ordered list of parts, queried like a filesystem. Unnamed parts are the main
/// content; named parts (`/sources/1`) are attachments, addressed by name and selected by glob.
///
/// ```js
/// const body = MessageBody.fromJSON(text);
/// for (const s of body.list("/sources/*")) console.log(s.name, body.readText(s.name));
/// ```
#[wasm_bindgen(js_name = MessageBody)]
pub struct JsMessageBody(pub(crate) Body);

/// Parts as a JavaScript array, serialized by agentwire-core (at opt-level 3: see [`parts_json`]).
fn parts_js<'a>(parts: impl IntoIterator<Item = &'a Part>) -> Result<JsValue, JsValue> {
    json_to_js(parts_json(&parts.into_iter().collect::<Vec<_>>()))
}

#[wasm_bindgen(js_class = MessageBody)]
impl JsMessageBody {
    /// A body of these parts, in order (the `Part` JSON: camelCase, `type` default `text`,
    /// `contentType` default `text/plain`, `status` default `complete`). Nothing is checked but the
    /// shape: use `check()` for the part model and the name rules.
    ///
    /// # Errors
    /// `invalid-argument` when `parts` is not an array of parts.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Part[]")] parts: JsValue,
    ) -> Result<JsMessageBody, JsValue> {
        if !Array::is_array(&parts) {
            return Err(invalid_argument("parts", "expected an array of parts"));
        }
        from_js::<Vec<Part>>(&parts, "parts").map(|p| Self(Body::new(p)))
    }

    /// Reads a body from its JSON, `{"parts": [...]}`: JSON text, or an object (which is
    /// stringified first). Floats in part metadata are read exactly.
    ///
    /// # Errors
    /// `invalid-body` with `details.line` and `details.column` (1-based; bytes: of the syntax
    /// error, or where the part of the wrong shape starts) and `details.syntax` (`true`: not
    /// JSON at all; `false`: JSON that is not a body).
    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(
        #[wasm_bindgen(unchecked_param_type = "string | Body")] input: JsValue,
    ) -> Result<JsMessageBody, JsValue> {
        let text = match input.as_string() {
            Some(text) => text,
            None => stringify(&input, "input")?,
        };
        Body::from_json(&text).map(Self).map_err(|e| js_error(&e))
    }

    /// The body of an Agent API `Message`: one part per content (the mapping table is in the
    /// README, "Message bodies").
    ///
    /// # Errors
    /// `invalid-argument` when `message` is not an Agent API message.
    #[cfg(feature = "agent-api")]
    #[wasm_bindgen(js_name = fromAgentMessage)]
    pub fn from_agent_message(
        #[wasm_bindgen(unchecked_param_type = "Message")] message: JsValue,
    ) -> Result<JsMessageBody, JsValue> {
        let m: crate::dialect::agent_api::Message = from_js(&message, "message")?;
        Ok(Self(m.body()))
    }

    /// The body of an ACP message: its parts one to one (`complete` once the message has
    /// `completed_at`, else `streaming`).
    ///
    /// # Errors
    /// `invalid-argument` when `message` is not an ACP message.
    #[cfg(feature = "acp")]
    #[wasm_bindgen(js_name = fromAcpMessage)]
    pub fn from_acp_message(
        #[wasm_bindgen(unchecked_param_type = "AcpMessage")] message: JsValue,
    ) -> Result<JsMessageBody, JsValue> {
        let m: crate::dialect::acp::Message = from_js(&message, "message")?;
        Ok(Self(m.body()))
    }

    /// The body of an AgentX message: text parts are the main content; tool calls, results and
    /// errors are named parts (`/tool_calls/<id>`, …).
    ///
    /// # Errors
    /// `invalid-argument` when `message` is not an AgentX message.
    #[cfg(feature = "agentx")]
    #[wasm_bindgen(js_name = fromAgentxMessage)]
    pub fn from_agentx_message(
        #[wasm_bindgen(unchecked_param_type = "AgentxMessage")] message: JsValue,
    ) -> Result<JsMessageBody, JsValue> {
        let m: crate::dialect::agentx::Message = from_js(&message, "message")?;
        Ok(Self(m.body()))
    }

    /// The parts, in message order (a copy: changing it does not change the body).
    #[wasm_bindgen(getter, unchecked_return_type = "Part[]")]
    pub fn parts(&self) -> Result<JsValue, JsValue> {
        parts_js(&self.0.parts)
    }

    /// The number of parts.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.0.parts.len()
    }

    /// The named parts whose names match `pattern` (a string, compiled for this call, or a
    /// `Pattern`), in message order. Unnamed parts never match (see `main()`).
    ///
    /// # Errors
    /// The pattern's error (`unclosed-brace`, …, with the pattern in `details`) for a string that
    /// does not compile; `invalid-argument` for a value that is neither a string nor a `Pattern`.
    #[wasm_bindgen(unchecked_return_type = "(Part & { name: string })[]")]
    pub fn list(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | Pattern")] pattern: JsValue,
    ) -> Result<JsValue, JsValue> {
        let pattern = pattern_arg(&pattern)?;
        parts_js(self.0.list(&pattern))
    }

    /// The part named exactly `name`, or `null`.
    #[wasm_bindgen(unchecked_return_type = "Part | null")]
    pub fn get(&self, name: &str) -> Result<JsValue, JsValue> {
        match self.0.get(name) {
            Some(p) => to_js(p),
            None => Ok(JsValue::NULL),
        }
    }

    /// The unnamed parts (the main content shown to the user), in message order.
    #[wasm_bindgen(unchecked_return_type = "Part[]")]
    pub fn main(&self) -> Result<JsValue, JsValue> {
        parts_js(self.0.main())
    }

    /// The names of the named parts, in message order.
    pub fn names(&self) -> Vec<String> {
        self.0.names().map(str::to_owned).collect()
    }

    /// The content of part `name` as text (`base64` content decoded and read as UTF-8).
    ///
    /// # Errors
    /// `part-not-found`; `no-inline-content` (a `contentUrl` part), `invalid-base64`, `not-text`
    /// (with the byte offset), `unknown-content-encoding`.
    #[wasm_bindgen(js_name = readText)]
    pub fn read_text(&self, name: &str) -> Result<String, JsValue> {
        let part = self.0.part(name).map_err(|e| js_error(&e))?;
        part.read_text()
            .map(|t| t.into_owned())
            .map_err(|e| js_error(&e))
    }

    /// The content of part `name` parsed as JSON (whatever its content type), with `JSON.parse`:
    /// numbers as JavaScript reads them, `"__proto__"` keys as plain data. What agentwire's other
    /// JSON readers refuse (the stream decoders, `PartialJson`, `validatePayload`) is refused here
    /// too, though `JSON.parse` would read it: a number beyond the largest double (`1e400`, which
    /// it reads as `Infinity`) and nesting deeper than 127 arrays and objects.
    ///
    /// # Errors
    /// As `readText`, plus `invalid-json` with the 1-based `line` and `column` (bytes) and the
    /// `reason` (a syntax error, "number out of range", "recursion limit exceeded").
    #[wasm_bindgen(js_name = readJson, unchecked_return_type = "JsonValue")]
    pub fn read_json(&self, name: &str) -> Result<JsValue, JsValue> {
        let part = self.0.part(name).map_err(|e| js_error(&e))?;
        let text = part.read_text().map_err(|e| js_error(&e))?;
        // Checked in Rust (for the error's location), parsed by JavaScript (exact numbers).
        if let Some(e) = agentwire_core::json::unreadable(&text) {
            return Err(js_error(&BodyError::InvalidJson {
                name: part.name.clone(),
                reason: e.to_string(),
                line: e.line(),
                column: e.column(),
            }));
        }
        js_sys::JSON::parse(&text)
    }

    /// The content of part `name` as bytes: the UTF-8 of `plain` content, or the decoded `base64`.
    ///
    /// # Errors
    /// `part-not-found`, `no-inline-content`, `invalid-base64` (with the offset),
    /// `unknown-content-encoding`.
    #[wasm_bindgen(js_name = readBytes)]
    pub fn read_bytes(&self, name: &str) -> Result<Vec<u8>, JsValue> {
        let part = self.0.part(name).map_err(|e| js_error(&e))?;
        part.read_bytes()
            .map(|b| b.into_owned())
            .map_err(|e| js_error(&e))
    }

    /// The `contentUrl` of part `name`.
    ///
    /// # Errors
    /// `part-not-found`; `no-content-url` when its content is inline.
    #[wasm_bindgen(js_name = readUrl)]
    pub fn read_url(&self, name: &str) -> Result<String, JsValue> {
        let part = self.0.part(name).map_err(|e| js_error(&e))?;
        part.read_url().map(str::to_owned).map_err(|e| js_error(&e))
    }

    /// Checks the part model and the name rules: every violation, in part order (empty when the
    /// body is well formed). Codes: `invalid-part-name`, `duplicate-part-name`, `content-and-url`,
    /// `no-content`, `unknown-content-encoding`, `invalid-base64`, `invalid-content-type`.
    #[wasm_bindgen(unchecked_return_type = "Violation[]")]
    pub fn check(&self) -> Result<JsValue, JsValue> {
        to_js(&validate_body(&self.0))
    }

    /// Checks the body against a schema (a `BodySchema` or its JSON): every part must match a
    /// schema part and every required schema part must be matched. Reports every violation
    /// (`unexpected-part`, `content-type-mismatch`, `missing-required-part`); the part model is
    /// `check()`'s.
    ///
    /// # Errors
    /// `invalid-schema` when `schema` is JSON that is not a schema.
    pub fn validate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "BodySchema | BodySchemaJson")] schema: JsValue,
    ) -> Result<Ts<ValidationReport>, JsValue> {
        to_ts(&schema_arg(&schema)?.validate(&self.0))
    }

    /// The body's JSON, `{parts: [...]}` (what `JSON.stringify(body)` writes).
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<Ts<Body>, JsValue> {
        to_ts(&self.0)
    }

    /// A copy (internal: lets other classes take a body argument).
    #[wasm_bindgen(js_name = "__share", skip_typescript)]
    pub fn share(&self) -> JsMessageBody {
        JsMessageBody(self.0.clone())
    }
}

// ---------------------------------------------------------------------------------------------
// BodySchema and SchemaWatch

/// A compiled body schema: which parts a message may have (`name` pattern, `contentType`
/// pattern) and which it must have (`required`). Built from the proposal's JSON,
/// `{"parts": [{"name": "/sources/*", "contentType": "text/x-uri", "required": false}, …]}`, or a
/// bare array of schema parts; a schema part without `name` is about unnamed parts.
#[wasm_bindgen(js_name = BodySchema)]
pub struct JsBodySchema(pub(crate) BodySchema);

#[wasm_bindgen(js_class = BodySchema)]
impl JsBodySchema {
    /// Compiles a schema from its JSON.
    ///
    /// # Errors
    /// `invalid-schema` with `details.pointer` (a JSON Pointer to the offending value, e.g.
    /// `/parts/2/name`), `details.value`, and for a pattern that does not compile
    /// `details.pattern` (`{code, details}` of the pattern error).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "BodySchemaJson")] schema: JsValue,
    ) -> Result<JsBodySchema, JsValue> {
        let json: Value = from_js(&schema, "schema")?;
        BodySchema::from_json(&json)
            .map(Self)
            .map_err(|e| js_error(&e))
    }

    /// A built-in schema: `chat`, `multi-modal-chat`, `software-writing` or `researcher` (the
    /// README's "Body schemas" shows each).
    ///
    /// # Errors
    /// `invalid-argument` for another name.
    pub fn builtin(
        #[wasm_bindgen(unchecked_param_type = "BuiltinBodySchemaName")] name: &str,
    ) -> Result<JsBodySchema, JsValue> {
        builtin::by_name(name).map(Self).ok_or_else(|| {
            invalid_argument(
                "name",
                &format!(
                    "no built-in schema {} (known: {})",
                    agentwire_core::json::Quoted(name),
                    builtin::NAMES.join(", ")
                ),
            )
        })
    }

    /// The names of the built-in schemas.
    #[wasm_bindgen(js_name = builtinNames, unchecked_return_type = "BuiltinBodySchemaName[]")]
    pub fn builtin_names() -> Vec<String> {
        builtin::NAMES.iter().map(|n| (*n).to_owned()).collect()
    }

    /// Checks a body (a `MessageBody`, an array of parts, or `{parts}`) against the schema: every
    /// violation (`unexpected-part`, `content-type-mismatch`, `missing-required-part`), each with
    /// the part's index, name and content type and the schema part concerned.
    ///
    /// # Errors
    /// `invalid-argument` when `body` is none of these.
    pub fn validate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MessageBody | Part[] | Body")] body: JsValue,
    ) -> Result<Ts<ValidationReport>, JsValue> {
        to_ts(&self.0.validate(&body_arg(&body)?))
    }

    /// An incremental validator for one message streamed against this schema.
    pub fn watch(&self) -> JsSchemaWatch {
        JsSchemaWatch(self.0.watch())
    }

    /// The schema's JSON, `{"parts": [{"name"?, "contentType", "required"}]}`.
    #[wasm_bindgen(js_name = toJSON, unchecked_return_type = "{ parts: SchemaPartJson[] }")]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.to_json())
    }

    /// A copy sharing the compiled patterns (internal: lets other classes take a schema argument).
    #[wasm_bindgen(js_name = "__share", skip_typescript)]
    pub fn share(&self) -> JsBodySchema {
        JsBodySchema(self.0.clone())
    }
}

/// Validates one message against a body schema while it streams: call `partStarted` as each part
/// starts (its name and content type are known) and `finish` when the message completes.
#[wasm_bindgen(js_name = SchemaWatch)]
pub struct JsSchemaWatch(SchemaWatch);

#[wasm_bindgen(js_class = SchemaWatch)]
impl JsSchemaWatch {
    /// Part `index` (0-based, in message order) started, with this name (`null`/`undefined`:
    /// unnamed) and content type. Returns at once the violation of a part that can match no schema
    /// part (`unexpected-part` or `content-type-mismatch`), else `null`. Call it once per part.
    ///
    /// # Errors
    /// `invalid-argument` (`details.what` = `"index"`) unless `index` is an integer from 0 to
    /// 2^32 − 1 (wasm-bindgen's conversion read -1 as 4294967295).
    #[wasm_bindgen(js_name = partStarted, unchecked_return_type = "Violation | null")]
    pub fn part_started(
        &mut self,
        index: f64,
        name: Option<String>,
        #[wasm_bindgen(js_name = contentType)] content_type: &str,
    ) -> Result<JsValue, JsValue> {
        let Some(index) = super::convert::index_arg(index) else {
            let reason = "expected an integer from 0 to 2^32 - 1";
            return Err(super::error::invalid_argument("index", reason));
        };
        match self.0.part_started(index, name.as_deref(), content_type) {
            Some(v) => to_js(&v),
            None => Ok(JsValue::NULL),
        }
    }

    /// The message completed: one `missing-required-part` violation per required schema part that
    /// no part matched, in schema order.
    #[wasm_bindgen(unchecked_return_type = "Violation[]")]
    pub fn finish(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.finish())
    }

    /// Forgets the parts seen, to watch another message.
    pub fn reset(&mut self) {
        self.0.reset();
    }
}

// ---------------------------------------------------------------------------------------------
// validatePayload

/// Checks a message received as JSON (typically a file a user uploaded): size, UTF-8, nesting
/// depth, JSON syntax, the message shape, the number and size of parts, the part model and name
/// rules, then `schema` when given. Resolves with a report (`ok`, and every error with its
/// location: `line`/`column` (1-based; the column counts Unicode characters) and `offset` (bytes)
/// for syntax errors, `partIndex` and `name` for errors about a part).
///
/// A `Blob` or `File` over `limits.maxBytes` is rejected from its `size`, without reading it;
/// otherwise it is read once (`arrayBuffer()`). Limits (all optional; sizes in bytes):
/// `maxBytes` 10 MiB, `maxParts` 1000, `maxPartBytes` 5 MiB, `maxDepth` 64.
///
/// # Errors
/// The promise rejects with `invalid-argument` (an input of another type, or limits of the wrong
/// shape), `invalid-schema` (schema JSON that is not a schema) or `payload-unreadable` (reading the
/// `Blob` failed). Everything wrong with the payload itself is in the report, never thrown.
#[wasm_bindgen(js_name = validatePayload, unchecked_return_type = "Promise<PayloadReport>")]
pub fn validate_payload_js(
    #[wasm_bindgen(unchecked_param_type = "PayloadInput")] input: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "BodySchema | BodySchemaJson | null")]
    schema: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "PayloadLimits")] limits: Option<JsValue>,
) -> Promise {
    let prepared = (|| {
        let schema = match schema.filter(|s| !s.is_null() && !s.is_undefined()) {
            Some(s) => Some(schema_arg(&s)?),
            None => None,
        };
        let limits: PayloadLimits = match limits.filter(|l| !l.is_null() && !l.is_undefined()) {
            Some(l) => from_js(&l, "limits")?,
            None => PayloadLimits::default(),
        };
        Ok::<_, JsValue>((schema, limits))
    })();
    let (schema, limits) = match prepared {
        Ok(p) => p,
        Err(e) => return Promise::reject(&e),
    };
    let report = |bytes: &[u8]| to_ts(&validate_payload(bytes, schema.as_ref(), &limits));
    let done = |r: Result<Ts<PayloadReport>, JsValue>| match r {
        Ok(r) => Promise::resolve(&JsValue::from(r)),
        Err(e) => Promise::reject(&e),
    };
    let early = |len: u64| check_payload_size(len, &limits).map(|r| to_ts(&r));

    if let Some(text) = input.dyn_ref::<js_sys::JsString>() {
        // A string far over the limit is refused before it is copied into wasm memory.
        if let Some(r) = check_text_size(u64::from(text.length()), &limits) {
            return done(to_ts(&r));
        }
    }
    if let Some(text) = input.as_string() {
        return done(report(text.as_bytes()));
    }
    if input.is_instance_of::<Uint8Array>() || input.is_instance_of::<js_sys::ArrayBuffer>() {
        // Read by `byteChunk` (src/wasm/bytes.js): no getter of the input throws through the
        // module, and a detached buffer is refused.
        let bytes = match super::http::byte_chunk(input, "input") {
            Ok(bytes) => bytes,
            Err(e) => return Promise::reject(&e),
        };
        if let Some(r) = early(u64::from(bytes.length())) {
            return done(r);
        }
        return done(report(&bytes.to_vec()));
    }
    if let Some(blob) = input.dyn_ref::<web_sys::Blob>() {
        let unreadable = |e: JsValue| {
            js_error(&BodyError::PayloadUnreadable {
                reason: describe(&e),
            })
        };
        // `size` is a byte count, a non-negative integer below 2^53 (`as` saturates anyway); read
        // through `Reflect`, so that a subclass's getter that throws is refused, not thrown.
        let size = match Reflect::get(blob, &JsValue::from_str("size")) {
            Ok(size) => size.as_f64().unwrap_or(0.0),
            Err(e) => return Promise::reject(&unreadable(e)),
        };
        if let Some(r) = early(size as u64) {
            return done(r);
        }
        // `blob.arrayBuffer()`, called so that a throwing override is caught, not propagated.
        let read = Reflect::get(blob, &JsValue::from_str("arrayBuffer"))
            .and_then(|f| f.dyn_into::<Function>())
            .and_then(|f| f.call0(blob));
        let read = match read {
            Ok(r) => Promise::resolve(&r),
            Err(e) => return Promise::reject(&unreadable(e)),
        };
        return promise(async move {
            let buffer = JsFuture::from(read).await.map_err(unreadable)?;
            let bytes = match super::http::bytes_of(&buffer) {
                Ok(bytes) => bytes.to_vec(),
                Err(reason) => {
                    let reason = ["arrayBuffer() gave something else than bytes: ", &reason];
                    return Err(js_error(&BodyError::PayloadUnreadable {
                        reason: reason.concat(),
                    }));
                }
            };
            to_ts(&validate_payload(&bytes, schema.as_ref(), &limits)).map(JsValue::from)
        });
    }
    Promise::reject(&invalid_argument(
        "input",
        "expected a string, Uint8Array, ArrayBuffer, Blob or File",
    ))
}
