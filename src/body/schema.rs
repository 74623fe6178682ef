//! Body schemas: which parts a message may have and which it must have.
//!
//! [`BodySchema`] says which parts a message may have and which it must have; its documentation
//! gives the JSON shape (the message-body proposal's) and the rules. [`SchemaWatch`] applies it
//! while a message streams.
//!
//! ```
//! use agentwire::body::{Body, BodySchema, Part, PartKind, ViolationCode};
//! use serde_json::json;
//!
//! let schema: BodySchema = serde_json::from_value(json!({"parts": [
//!     {"contentType": "text/plain", "required": true},
//!     {"name": "/sources/*", "contentType": "text/x-uri"},
//! ]}))?;
//!
//! let body = Body::new(vec![
//!     Part::inline(PartKind::Text, "text/x-uri", "https://example.org").named("/sources/1"),
//!     Part::inline(PartKind::Text, "text/html", "<p>hi</p>").named("/sources/2"),
//! ]);
//! let report = schema.validate(&body);
//! let codes: Vec<_> = report.violations.iter().map(|v| v.code.as_str()).collect();
//! assert_eq!(codes, ["content-type-mismatch", "missing-required-part"]);
//! assert_eq!(
//!     report.violations[0].message,
//!     "/sources/2: content type text/html does not match text/x-uri"
//! );
//!
//! // While a message streams: report a part that can match nothing as soon as it starts.
//! let mut watch = schema.watch();
//! assert!(watch.part_started(0, None, "text/plain").is_none());
//! let v = watch.part_started(1, Some("/notes"), "text/plain").unwrap();
//! assert_eq!(v.code, ViolationCode::UnexpectedPart);
//! assert!(watch.finish().is_empty()); // the required text part came
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Every function here is `#[inline]`, so that it is compiled in agentwire at opt-level "z" (cold
// code: see "Cold code in this crate" in src/core.rs).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{Body, BodyError, Part};
use crate::pattern::Pattern;
use crate::wire_enum;

wire_enum! {
    /// The stable code of a [`Violation`] (and of a payload error): what is wrong with a message.
    ViolationCode {
        /// A part matches no schema part: no schema part has a matching name (or, for an unnamed
        /// part, the schema has no unnamed schema part).
        UnexpectedPart = "unexpected-part",
        /// A part's name matches a schema part (or both are unnamed) but its content type matches
        /// none of them.
        ContentTypeMismatch = "content-type-mismatch",
        /// A `required` schema part is matched by no part.
        MissingRequiredPart = "missing-required-part",
        /// A part name breaks the naming rules.
        InvalidPartName = "invalid-part-name",
        /// Two parts have the same name.
        DuplicatePartName = "duplicate-part-name",
        /// A part has both `content` and `contentUrl`.
        ContentAndUrl = "content-and-url",
        /// A complete part has neither `content` nor `contentUrl`.
        NoContent = "no-content",
        /// A part's `base64` content does not decode.
        InvalidBase64 = "invalid-base64",
        /// A part's `contentEncoding` is neither `plain` nor `base64`.
        UnknownContentEncoding = "unknown-content-encoding",
        /// A part's content type is not a syntactically valid MIME type.
        InvalidContentType = "invalid-content-type",
        /// A payload is larger than its limit (checked before parsing).
        PayloadTooLarge = "payload-too-large",
        /// A payload is not UTF-8.
        InvalidUtf8 = "invalid-utf8",
        /// A payload nests JSON arrays/objects deeper than its limit.
        NestingTooDeep = "nesting-too-deep",
        /// A payload is not JSON.
        InvalidJson = "invalid-json",
        /// A payload is JSON but not a message (`{"parts": […]}`).
        InvalidMessage = "invalid-message",
        /// An element of `parts` is not a part (e.g. `"content": 5`).
        InvalidPart = "invalid-part",
        /// A payload has more parts than its limit.
        TooManyParts = "too-many-parts",
        /// A part is larger than its limit.
        PartTooLarge = "part-too-large",
    }
}

impl PartialEq<str> for ViolationCode {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ViolationCode {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One thing wrong with a message, with where it is. JSON field names are camelCase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    /// What is wrong (a stable kebab-case code).
    pub code: ViolationCode,
    /// A readable sentence naming the part, e.g.
    /// `/sources/2: content type text/html does not match text/x-uri`.
    pub message: String,
    /// The part's position in the message (0-based); `null` for message-level violations such as
    /// `missing-required-part`.
    pub part_index: Option<usize>,
    /// The part's name; for `missing-required-part`, the schema part's name pattern.
    pub name: Option<String>,
    /// The part's content type; for `missing-required-part`, the schema part's content-type
    /// pattern.
    pub content_type: Option<String>,
    /// The schema part concerned (0-based index in the schema): the one missing, or for
    /// `content-type-mismatch` the first schema part whose name matched.
    pub schema_part: Option<usize>,
}

impl std::fmt::Display for Violation {
    #[inline]
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl Violation {
    /// A violation about part `index` (its name and content type filled in from `part`).
    #[inline]
    pub(crate) fn of_part(code: ViolationCode, index: usize, part: &Part, message: String) -> Self {
        Self {
            code,
            message,
            part_index: Some(index),
            name: part.name.clone(),
            content_type: Some(part.content_type.clone()),
            schema_part: None,
        }
    }
}

/// The result of checking a message against a schema: every violation found, in part order, then
/// the missing required parts in schema order.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ValidationReport {
    /// All violations (empty when the message is valid).
    pub violations: Vec<Violation>,
}

impl ValidationReport {
    /// Whether the message is valid (no violations).
    #[inline]
    pub fn is_ok(&self) -> bool {
        self.violations.is_empty()
    }
}

/// One entry of a [`BodySchema`]: which parts it admits and whether one is required.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaPart {
    name: Option<Pattern>,
    content_type: Pattern,
    required: bool,
}

impl SchemaPart {
    /// A schema part: `name` a name pattern (`None`: unnamed parts), `content_type` a content-type
    /// pattern (`None`: `*/*`).
    ///
    /// # Errors
    ///
    /// [`BodyError::InvalidSchema`] when a pattern does not compile (pointer `/name` or
    /// `/contentType`).
    #[inline]
    pub fn new(
        name: Option<&str>,
        content_type: Option<&str>,
        required: bool,
    ) -> Result<Self, BodyError> {
        let name = name
            .map(|n| Pattern::new(n).map_err(|e| pattern_error("/name", e)))
            .transpose()?;
        let content_type = Pattern::content_type(content_type.unwrap_or("*/*"))
            .map_err(|e| pattern_error("/contentType", e))?;
        Ok(Self {
            name,
            content_type,
            required,
        })
    }

    /// The name pattern; `None` when this schema part is about unnamed parts.
    #[inline]
    pub fn name(&self) -> Option<&Pattern> {
        self.name.as_ref()
    }

    /// The content-type pattern (`*/*` when the schema did not say).
    #[inline]
    pub fn content_type(&self) -> &Pattern {
        &self.content_type
    }

    /// Whether a message must have at least one part matching this schema part.
    #[inline]
    pub fn required(&self) -> bool {
        self.required
    }

    /// Whether a part with this name (`None`: unnamed) could match, whatever its content type.
    #[inline]
    pub fn matches_name(&self, name: Option<&str>) -> bool {
        match (&self.name, name) {
            (None, None) => true,
            (Some(p), Some(n)) => p.is_match(n),
            _ => false,
        }
    }

    /// Whether a part with this name (`None`: unnamed) and content type matches.
    #[inline]
    pub fn matches(&self, name: Option<&str>, content_type: &str) -> bool {
        self.matches_name(name) && self.content_type.is_match(content_type)
    }

    #[inline]
    fn to_json(&self) -> Value {
        let mut o = serde_json::Map::new();
        if let Some(n) = &self.name {
            o.insert("name".into(), json!(n.as_str()));
        }
        o.insert("contentType".into(), json!(self.content_type.as_str()));
        o.insert("required".into(), json!(self.required));
        Value::Object(o)
    }
}

#[inline]
fn pattern_error(pointer: &str, e: crate::pattern::PatternError) -> BodyError {
    BodyError::InvalidSchema {
        pointer: pointer.to_owned(),
        reason: e.to_string(),
        value: Box::new(Value::String(e.pattern().to_owned())),
        pattern: Some(Box::new(e)),
    }
}

#[inline]
fn shape_error(pointer: String, reason: &str, value: &Value) -> BodyError {
    BodyError::InvalidSchema {
        pointer,
        reason: reason.to_owned(),
        value: Box::new(value.clone()),
        pattern: None,
    }
}

/// A compiled body schema (the proposal's `{"parts": [...]}`).
///
/// A schema is a list of schema parts, each a `name` pattern (absent: the schema part is about
/// *unnamed* parts), a `contentType` pattern (default `*/*`) and `required` (default `false`).
/// Source: the message-body proposal, whose JSON shape is accepted as is:
///
/// ```json
/// {"parts": [
///   {"contentType": "text/{plain,markdown}", "required": true},
///   {"name": "/sources/*", "contentType": "text/x-uri", "required": false}
/// ]}
/// ```
///
/// A bare array of schema parts (`[{…}, …]`, as run descriptions carry it under `"schema"`) is
/// accepted too; `content_type` is accepted for `contentType`; other fields are ignored (so a
/// schema may carry a `description`).
///
/// A message is valid when **every part matches at least one schema part** and **every `required`
/// schema part is matched by at least one part**. A part matches a schema part when both are
/// unnamed or the part's name matches the schema part's `name` pattern, and its content type
/// matches the `contentType` pattern (ASCII case-insensitive, parameters ignored). Patterns are
/// globs: see [`crate::pattern`] for their syntax.
///
/// Serializes back to `{"parts": [{"name"?, "contentType", "required"}]}`; deserializes from that
/// shape or a bare array, with the rules of [`from_json`](Self::from_json).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BodySchema {
    parts: Vec<SchemaPart>,
}

impl BodySchema {
    /// A schema of these parts.
    #[inline]
    pub fn new(parts: Vec<SchemaPart>) -> Self {
        Self { parts }
    }

    /// Reads and compiles a schema from JSON: `{"parts": [<schema part>…]}` or `[<schema part>…]`,
    /// each `{"name"?: string, "contentType"?: string, "required"?: bool}` (`null` counts as
    /// absent; `content_type` is accepted for `contentType`; other fields are ignored).
    ///
    /// # Errors
    ///
    /// [`BodyError::InvalidSchema`] with a JSON Pointer to the offending value: the wrong shape
    /// (`parts` missing or not an array, a schema part not an object, a field of the wrong type) or
    /// a pattern that does not compile (its [`PatternError`](crate::pattern::PatternError) as
    /// source).
    #[inline]
    pub fn from_json(value: &Value) -> Result<Self, BodyError> {
        let (items, base) = match value {
            Value::Array(items) => (items, String::new()),
            Value::Object(o) => match o.get("parts") {
                Some(Value::Array(items)) => (items, "/parts".to_owned()),
                Some(other) => {
                    return Err(shape_error(
                        "/parts".into(),
                        "`parts` must be an array",
                        other,
                    ))
                }
                None => {
                    return Err(shape_error(
                        String::new(),
                        "a body schema is an object with a `parts` array, or an array",
                        value,
                    ))
                }
            },
            _ => {
                return Err(shape_error(
                    String::new(),
                    "a body schema is an object with a `parts` array, or an array",
                    value,
                ))
            }
        };
        let mut parts = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let at = format!("{base}/{i}");
            let Value::Object(o) = item else {
                return Err(shape_error(at, "a schema part must be an object", item));
            };
            let name = match o.get("name") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => {
                    Some(Pattern::new(s).map_err(|e| pattern_error(&format!("{at}/name"), e))?)
                }
                Some(other) => {
                    return Err(shape_error(
                        format!("{at}/name"),
                        "`name` must be a string",
                        other,
                    ))
                }
            };
            let (ct_key, ct) = match o.get("contentType") {
                None | Some(Value::Null) => ("content_type", o.get("content_type")),
                some => ("contentType", some),
            };
            let content_type = match ct {
                None | Some(Value::Null) => Pattern::content_type("*/*")
                    .map_err(|e| pattern_error(&format!("{at}/{ct_key}"), e))?,
                Some(Value::String(s)) => Pattern::content_type(s)
                    .map_err(|e| pattern_error(&format!("{at}/{ct_key}"), e))?,
                Some(other) => {
                    return Err(shape_error(
                        format!("{at}/{ct_key}"),
                        "`contentType` must be a string",
                        other,
                    ))
                }
            };
            let required = match o.get("required") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(other) => {
                    return Err(shape_error(
                        format!("{at}/required"),
                        "`required` must be a boolean",
                        other,
                    ))
                }
            };
            parts.push(SchemaPart {
                name,
                content_type,
                required,
            });
        }
        Ok(Self { parts })
    }

    /// The schema as JSON: `{"parts": [{"name"?, "contentType", "required"}]}`.
    #[inline]
    pub fn to_json(&self) -> Value {
        // Not `json!`, which would compile serde_json's `Value` serializer for the array.
        let mut o = serde_json::Map::new();
        let parts = self.parts.iter().map(SchemaPart::to_json).collect();
        o.insert("parts".into(), Value::Array(parts));
        Value::Object(o)
    }

    /// The schema parts, in order.
    #[inline]
    pub fn parts(&self) -> &[SchemaPart] {
        &self.parts
    }

    /// Checks a whole message: every part must match a schema part and every required schema part
    /// must be matched. All violations are reported (see [`ViolationCode`] for the codes used:
    /// `unexpected-part`, `content-type-mismatch`, `missing-required-part`).
    #[inline]
    pub fn validate(&self, body: &Body) -> ValidationReport {
        ValidationReport {
            violations: self.check_parts(&mut body.parts.iter().enumerate()),
        }
    }

    /// [`validate`](Self::validate) over `(index, part)` pairs (the payload validator skips parts
    /// that did not parse). The iterator is a trait object so that the function is compiled once
    /// for both callers.
    #[doc(hidden)]
    #[inline]
    pub fn check_parts(&self, parts: &mut dyn Iterator<Item = (usize, &Part)>) -> Vec<Violation> {
        let mut watch = self.watch();
        let mut out: Vec<Violation> = parts
            .filter_map(|(i, p)| watch.part_started(i, p.name.as_deref(), &p.content_type))
            .collect();
        out.extend(watch.finish());
        out
    }

    /// The violation, if any, of one part against this schema, without tracking `required`.
    #[inline]
    pub fn check_part(
        &self,
        index: usize,
        name: Option<&str>,
        content_type: &str,
    ) -> Option<Violation> {
        let mut matched = false;
        let mut name_matches: Vec<usize> = Vec::new();
        for (i, sp) in self.parts.iter().enumerate() {
            if !sp.matches_name(name) {
                continue;
            }
            if sp.content_type.is_match(content_type) {
                matched = true;
                break;
            }
            name_matches.push(i);
        }
        if matched {
            return None;
        }
        let label = match name {
            Some(n) => n.to_owned(),
            None => format!("part {index} (unnamed)"),
        };
        let (code, message, schema_part) = match name_matches.first() {
            Some(&first) => {
                let wanted: Vec<&str> = name_matches
                    .iter()
                    .filter_map(|&i| self.parts.get(i))
                    .map(|sp| sp.content_type.as_str())
                    .collect();
                (
                    ViolationCode::ContentTypeMismatch,
                    format!(
                        "{label}: content type {content_type} does not match {}",
                        wanted.join(" or ")
                    ),
                    Some(first),
                )
            }
            None if name.is_some() => (
                ViolationCode::UnexpectedPart,
                format!("{label}: no part of the schema has a matching name"),
                None,
            ),
            None => (
                ViolationCode::UnexpectedPart,
                format!("{label}: the schema allows no unnamed parts"),
                None,
            ),
        };
        Some(Violation {
            code,
            message,
            part_index: Some(index),
            name: name.map(str::to_owned),
            content_type: Some(content_type.to_owned()),
            schema_part,
        })
    }

    /// An incremental validator for one message streamed against this schema (the schema is
    /// cloned; patterns are shared, so this is cheap).
    #[inline]
    pub fn watch(&self) -> SchemaWatch {
        SchemaWatch::new(self.clone())
    }
}

impl Serialize for BodySchema {
    #[inline]
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for BodySchema {
    #[inline]
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        BodySchema::from_json(&v).map_err(serde::de::Error::custom)
    }
}

/// Validates a message against a [`BodySchema`] while it streams: each part is checked as soon as
/// it starts (its name and content type are known), and `required` schema parts when the message
/// completes.
///
/// Use one watch per message; [`reset`](Self::reset) to reuse it.
#[derive(Debug, Clone)]
pub struct SchemaWatch {
    schema: BodySchema,
    /// For each schema part, whether a part has matched it.
    matched: Vec<bool>,
}

impl SchemaWatch {
    /// A watch for one message against `schema`.
    #[inline]
    pub fn new(schema: BodySchema) -> Self {
        let matched = vec![false; schema.parts.len()];
        Self { schema, matched }
    }

    /// The schema watched against.
    #[inline]
    pub fn schema(&self) -> &BodySchema {
        &self.schema
    }

    /// A part started: part `index` (0-based, in message order) with this name (`None`: unnamed)
    /// and content type. Returns at once the violation of a part that can match no schema part
    /// (`unexpected-part` or `content-type-mismatch`); otherwise records which schema parts it
    /// matches, for [`finish`](Self::finish).
    #[inline]
    pub fn part_started(
        &mut self,
        index: usize,
        name: Option<&str>,
        content_type: &str,
    ) -> Option<Violation> {
        let mut any = false;
        for (sp, seen) in self.schema.parts.iter().zip(self.matched.iter_mut()) {
            if sp.matches(name, content_type) {
                *seen = true;
                any = true;
            }
        }
        if any {
            None
        } else {
            self.schema.check_part(index, name, content_type)
        }
    }

    /// The message completed: one `missing-required-part` violation per required schema part that
    /// no part matched, in schema order.
    #[inline]
    pub fn finish(&self) -> Vec<Violation> {
        self.schema
            .parts
            .iter()
            .zip(&self.matched)
            .enumerate()
            .filter(|(_, (sp, seen))| sp.required && !**seen)
            .map(|(i, (sp, _))| {
                let message = match &sp.name {
                    Some(n) => format!(
                        "missing required part {} ({})",
                        n.as_str(),
                        sp.content_type.as_str()
                    ),
                    None => format!(
                        "missing required unnamed part ({})",
                        sp.content_type.as_str()
                    ),
                };
                Violation {
                    code: ViolationCode::MissingRequiredPart,
                    message,
                    part_index: None,
                    name: sp.name.as_ref().map(|n| n.as_str().to_owned()),
                    content_type: Some(sp.content_type.as_str().to_owned()),
                    schema_part: Some(i),
                }
            })
            .collect()
    }

    /// Forgets the parts seen, to watch another message.
    #[inline]
    pub fn reset(&mut self) {
        self.matched.iter_mut().for_each(|m| *m = false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn schema_errors_point_at_the_value() {
        let cases = [
            (json!(5), ""),
            (json!({"parts": 5}), "/parts"),
            (json!({"parts": [5]}), "/parts/0"),
            (json!({"parts": [{"name": 1}]}), "/parts/0/name"),
            (json!([{}, {"name": "/a{"}]), "/1/name"),
            (json!([{"contentType": "text/["}]), "/0/contentType"),
            (json!([{"content_type": "**x"}]), "/0/content_type"),
            (json!([{"required": "yes"}]), "/0/required"),
        ];
        for (v, pointer) in cases {
            let e = BodySchema::from_json(&v).unwrap_err();
            assert_eq!(e.code(), "invalid-schema");
            assert_eq!(e.details()["pointer"], pointer, "{v}");
        }
        let e = BodySchema::from_json(&json!([{"name": "/a{"}])).unwrap_err();
        assert_eq!(e.details()["pattern"]["code"], "unclosed-brace");
        assert!(std::error::Error::source(&e).is_some());
        assert_eq!(e.details()["value"], "/a{");
        let e = BodySchema::from_json(&json!([{"required": "yes"}])).unwrap_err();
        assert_eq!(e.details()["value"], "yes");
    }

    #[test]
    fn defaults_and_round_trip() {
        let s = BodySchema::from_json(&json!([{"description": "anything unnamed"}])).unwrap();
        assert_eq!(s.parts()[0].content_type().as_str(), "*/*");
        assert!(!s.parts()[0].required());
        assert!(s.parts()[0].name().is_none());
        let s = BodySchema::from_json(&json!({"parts": [
            {"name": "/a/*", "content_type": "text/plain", "required": true},
            {"contentType": "image/*", "name": null},
        ]}))
        .unwrap();
        let j = serde_json::to_value(&s).unwrap();
        assert_eq!(
            j,
            json!({"parts": [
                {"name": "/a/*", "contentType": "text/plain", "required": true},
                {"contentType": "image/*", "required": false},
            ]})
        );
        let back: BodySchema = serde_json::from_value(j).unwrap();
        assert_eq!(back, s);
        let err = serde_json::from_value::<BodySchema>(json!({"parts": [{"name": "a**"}]}));
        assert!(err.unwrap_err().to_string().contains("/parts/0/name"));
    }
}
