//! The payload validator: a message received as JSON bytes, checked limits first.
//!
//! [`validate_payload`] takes untrusted bytes and reports everything wrong with them, cheapest
//! checks first; its documentation lists the steps, the codes and how locations are counted.
//!
//! ```
//! use agentwire::body::{validate_payload, BodySchema, PayloadLimits};
//! use serde_json::json;
//!
//! let schema = BodySchema::from_json(&json!([{"contentType": "text/plain", "required": true}]))?;
//! let limits = PayloadLimits::default();
//!
//! let ok = br#"{"parts": [{"type": "text", "contentType": "text/plain", "content": "hi"}]}"#;
//! assert!(validate_payload(ok, Some(&schema), &limits).ok);
//!
//! let report = validate_payload(b"{\"parts\": [\n  {\"content\": 1,}\n]}", None, &limits);
//! let e = &report.errors[0];
//! // serde_json reports a trailing comma at the `}` after it.
//! assert_eq!((e.code.as_str(), e.line, e.column), ("invalid-json", Some(2), Some(17)));
//!
//! let named = br#"{"parts": [
//!   {"name": "/notes/../x", "contentType": "text/plain", "content": "hi"}
//! ]}"#;
//! let report = validate_payload(named, Some(&schema), &limits);
//! let codes: Vec<_> = report.errors.iter().map(|e| e.code.as_str()).collect();
//! assert_eq!(codes, ["invalid-part-name", "unexpected-part", "missing-required-part"]);
//! assert_eq!(report.errors[0].part_index, Some(0));
//! assert_eq!(report.errors[0].line, Some(2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::payload_scan::{part_over, scan, Location, Locator, Scan};
use super::{BodySchema, Part, Violation, ViolationCode};
use agentwire_core::json::Fields;

/// Limits applied by [`validate_payload`]. All sizes are in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase", default)]
pub struct PayloadLimits {
    /// The largest payload, in bytes (default 10 MiB, 10,485,760).
    pub max_bytes: usize,
    /// The most parts in a message (default 1,000).
    pub max_parts: usize,
    /// The largest part, in bytes of its JSON re-serialized compactly (default 5 MiB, 5,242,880).
    pub max_part_bytes: usize,
    /// The deepest nesting of JSON arrays and objects (default 64; the message object is level 1,
    /// `parts` level 2, a part level 3). The JSON reader itself stops at 127.
    pub max_depth: usize,
}

agentwire_core::deserialize_by_fields!(PayloadLimits, "struct PayloadLimits");

impl PayloadLimits {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        let d = Self::default();
        Ok(Self {
            max_bytes: f.or("maxBytes", d.max_bytes)?,
            max_parts: f.or("maxParts", d.max_parts)?,
            max_part_bytes: f.or("maxPartBytes", d.max_part_bytes)?,
            max_depth: f.or("maxDepth", d.max_depth)?,
        })
    }
}

impl Default for PayloadLimits {
    fn default() -> Self {
        Self {
            max_bytes: 10 * 1024 * 1024,
            max_parts: 1000,
            max_part_bytes: 5 * 1024 * 1024,
            max_depth: 64,
        }
    }
}

/// One problem found by [`validate_payload`]: a stable code, a readable message and a location.
/// JSON field names are camelCase; absent locations are `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct PayloadError {
    /// What is wrong (a stable kebab-case code; see [`ViolationCode`]).
    pub code: ViolationCode,
    /// A readable sentence.
    pub message: String,
    /// 1-based line in the input.
    pub line: Option<usize>,
    /// 1-based column in the input, in Unicode characters.
    pub column: Option<usize>,
    /// 0-based byte offset in the input.
    pub offset: Option<usize>,
    /// The part concerned (0-based index in `parts`).
    pub part_index: Option<usize>,
    /// The part's name (or, for `missing-required-part`, the schema part's name pattern).
    pub name: Option<String>,
    /// The part's content type (or, for `missing-required-part`, the schema part's pattern).
    pub content_type: Option<String>,
    /// The schema part concerned (0-based index in the schema).
    pub schema_part: Option<usize>,
}

impl std::fmt::Display for PayloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)?;
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, " (line {l}, column {c})")?;
        }
        Ok(())
    }
}

impl From<Violation> for PayloadError {
    fn from(v: Violation) -> Self {
        Self {
            code: v.code,
            message: v.message,
            line: None,
            column: None,
            offset: None,
            part_index: v.part_index,
            name: v.name,
            content_type: v.content_type,
            schema_part: v.schema_part,
        }
    }
}

impl PayloadError {
    fn new(code: ViolationCode, message: String) -> Self {
        Self {
            code,
            message,
            line: None,
            column: None,
            offset: None,
            part_index: None,
            name: None,
            content_type: None,
            schema_part: None,
        }
    }

    fn at(mut self, loc: Option<Location>) -> Self {
        if let Some(loc) = loc {
            self.line = Some(loc.line);
            self.column = Some(loc.column);
            self.offset = Some(loc.offset);
        }
        self
    }
}

/// What [`validate_payload`] found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct PayloadReport {
    /// Whether the payload is a valid message (no errors).
    pub ok: bool,
    /// Every problem found, in the order of the checks (the steps of [`validate_payload`]).
    pub errors: Vec<PayloadError>,
}

impl PayloadReport {
    fn fail(error: PayloadError) -> Self {
        Self {
            ok: false,
            errors: vec![error],
        }
    }
}

/// Step 1 of [`validate_payload`] alone: the report of a payload of `len` bytes (a `u64`, so the
/// size of a file over 4 GiB is exact on 32-bit targets such as wasm32) that is over
/// [`PayloadLimits::max_bytes`] (`payload-too-large`, no location), or `None` when the size is
/// within the limit. For inputs whose size is known before they are read (a browser `Blob` or
/// `File`, a `Content-Length`), so that an over-size one is rejected without reading it.
///
/// ```
/// use agentwire::body::{check_payload_size, PayloadLimits};
///
/// let limits = PayloadLimits { max_bytes: 100, ..PayloadLimits::default() };
/// assert!(check_payload_size(100, &limits).is_none());
/// let report = check_payload_size(101, &limits).unwrap();
/// assert_eq!(report.errors[0].code.as_str(), "payload-too-large");
/// assert_eq!(report.errors[0].message, "payload is 101 bytes, more than the limit of 100");
/// ```
pub fn check_payload_size(len: u64, limits: &PayloadLimits) -> Option<PayloadReport> {
    over_max_bytes(len, "", limits)
}

/// `payload-too-large` ("payload is <at_least><len> bytes, …") if `len` is over the limit.
fn over_max_bytes(len: u64, at_least: &str, limits: &PayloadLimits) -> Option<PayloadReport> {
    (len > limits.max_bytes as u64).then(|| {
        let max = limits.max_bytes;
        let message = format!("payload is {at_least}{len} bytes, more than the limit of {max}");
        PayloadReport::fail(PayloadError::new(ViolationCode::PayloadTooLarge, message))
    })
}

/// Step 1 of [`validate_payload`] for a text whose UTF-8 length is not known yet, only its length
/// in UTF-16 code units (a JavaScript string's `length`): every code unit is at least one UTF-8
/// byte, so a text of more code units than [`PayloadLimits::max_bytes`] is over the limit
/// (`payload-too-large`, "payload is at least N bytes …"), and is rejected before it is copied.
/// `None` when that length is within the limit (the text may still be over it in UTF-8).
///
/// ```
/// use agentwire::body::{check_text_size, PayloadLimits};
///
/// let limits = PayloadLimits { max_bytes: 100, ..PayloadLimits::default() };
/// assert!(check_text_size(100, &limits).is_none());
/// let report = check_text_size(101, &limits).unwrap();
/// assert_eq!(report.errors[0].message, "payload is at least 101 bytes, more than the limit of 100");
/// ```
pub fn check_text_size(utf16_len: u64, limits: &PayloadLimits) -> Option<PayloadReport> {
    over_max_bytes(utf16_len, "at least ", limits)
}

/// Checks a message received as JSON bytes: limits, UTF-8, nesting, JSON syntax, shape, the part
/// model and name rules, and `schema` when given. Never panics; the work is linear in the input's
/// size (plus the schema's patterns times the names' lengths).
///
/// # Steps
///
/// The input is a message, `{"parts": [<Part>…]}` (the [`Part`] JSON: camelCase, snake_case
/// aliases accepted; other top-level fields are ignored). It is checked cheapest first, so that a
/// hostile payload costs little:
///
/// 1. size: more than [`PayloadLimits::max_bytes`] is rejected before anything is read
///    (`payload-too-large`);
/// 2. UTF-8 (`invalid-utf8`, with the byte offset of the first bad byte);
/// 3. nesting: a linear scan of the bytes (it understands strings and their escapes) rejects arrays
///    and objects nested deeper than [`PayloadLimits::max_depth`] *before* the JSON parser sees
///    them (`nesting-too-deep`);
/// 4. JSON syntax (`invalid-json`), then shape (`invalid-message`: not an object with a `parts`
///    array);
/// 5. the number of parts (`too-many-parts`) and each part's size (`part-too-large`), then each
///    part's shape (`invalid-part`);
/// 6. the part model and name rules ([`validate_body`](super::validate_body)'s codes);
/// 7. the body schema, if one is given ([`BodySchema::validate`]'s codes).
///
/// Steps 1 to 4 and the part count stop at their first failure (later steps would be meaningless
/// or too costly). From the part sizes on, every problem of every part is reported; a part too
/// large or of the wrong shape is not checked further.
///
/// # Locations
///
/// `line` and `column` are 1-based, **`column` counts Unicode characters** (scalar values) from
/// the start of the line, and `offset` is the 0-based **byte** offset in the input. Errors of
/// steps 2 to 4 and `too-many-parts` point at the offending byte (for `invalid-json`, where
/// serde_json stopped). Errors about a part carry `partIndex` (0-based), its `name`, and the
/// location where the part's JSON starts. `payload-too-large`, `invalid-message` and
/// `missing-required-part` are about the whole message and have no location.
pub fn validate_payload(
    input: &[u8],
    schema: Option<&BodySchema>,
    limits: &PayloadLimits,
) -> PayloadReport {
    use ViolationCode as C;
    if let Some(report) = check_payload_size(input.len() as u64, limits) {
        return report;
    }
    let text = match std::str::from_utf8(input) {
        Ok(t) => t,
        Err(e) => {
            let offset = e.valid_up_to();
            let prefix = std::str::from_utf8(input.get(..offset).unwrap_or_default()).unwrap_or("");
            let loc = Locator::new(prefix).locate(offset);
            return PayloadReport::fail(
                PayloadError::new(
                    C::InvalidUtf8,
                    format!("payload is not UTF-8: invalid byte at offset {offset}"),
                )
                .at(Some(loc)),
            );
        }
    };
    let mut locator = Locator::new(text);
    let part_starts = match scan(input, limits.max_depth) {
        Scan::TooDeep { offset } => {
            let loc = locator.locate(offset);
            return PayloadReport::fail(
                PayloadError::new(
                    C::NestingTooDeep,
                    format!(
                        "JSON nested deeper than {} levels (line {}, column {})",
                        limits.max_depth, loc.line, loc.column
                    ),
                )
                .at(Some(loc)),
            );
        }
        Scan::Ok { part_starts } => part_starts,
    };
    let mut value: Value = match agentwire_core::json::parse_value(text) {
        Ok(v) => v,
        Err(e) => {
            let loc = locator.locate_line_column(e.line(), e.column());
            let mut reason = e.to_string();
            // serde_json appends its own (byte-based) position; ours follows in the fields.
            if let Some(cut) = reason.find(" at line ") {
                reason.truncate(cut);
            }
            return PayloadReport::fail(
                PayloadError::new(
                    C::InvalidJson,
                    format!(
                        "payload is not valid JSON (line {}, column {}): {reason}",
                        loc.line, loc.column
                    ),
                )
                .at(Some(loc)),
            );
        }
    };
    // Taken out of the tree: each part is then read from its own value, not copied.
    let parts = match value.get_mut("parts") {
        Some(Value::Array(parts)) => std::mem::take(parts),
        _ => {
            return PayloadReport::fail(PayloadError::new(
                C::InvalidMessage,
                "a message is an object with a `parts` array".to_owned(),
            ))
        }
    };
    if parts.len() > limits.max_parts {
        let loc = part_starts
            .get(limits.max_parts)
            .map(|&o| locator.locate(o));
        return PayloadReport::fail(
            PayloadError::new(
                C::TooManyParts,
                format!(
                    "message has {} parts, more than the limit of {}",
                    parts.len(),
                    limits.max_parts
                ),
            )
            .at(loc),
        );
    }
    // Where each part starts, when the scan could tell (one forward pass).
    let locations: Vec<Option<Location>> = if part_starts.len() == parts.len() {
        part_starts
            .iter()
            .map(|&o| Some(locator.locate(o)))
            .collect()
    } else {
        vec![None; parts.len()]
    };
    let location = |i: usize| locations.get(i).copied().flatten();

    let mut errors = Vec::new();
    let mut good: Vec<(usize, Part)> = Vec::with_capacity(parts.len());
    for (i, v) in parts.into_iter().enumerate() {
        let name = v.get("name").and_then(Value::as_str).map(str::to_owned);
        let label = name.clone().unwrap_or_else(|| format!("part {i}"));
        if part_over(&v, limits.max_part_bytes) {
            let mut e = PayloadError::new(
                C::PartTooLarge,
                format!("{label}: part is more than {} bytes", limits.max_part_bytes),
            )
            .at(location(i));
            e.part_index = Some(i);
            e.name = name;
            errors.push(e);
            continue;
        }
        match agentwire_core::json::from_tree::<Part>(v) {
            Ok(p) => good.push((i, p)),
            Err(err) => {
                let mut e =
                    PayloadError::new(C::InvalidPart, format!("{label}: not a valid part: {err}"))
                        .at(location(i));
                e.part_index = Some(i);
                e.name = name;
                errors.push(e);
            }
        }
    }
    let with_location = |v: Violation| {
        let loc = v.part_index.and_then(location);
        PayloadError::from(v).at(loc)
    };
    errors.extend(
        super::check_parts(&mut good.iter().map(|(i, p)| (*i, p)))
            .into_iter()
            .map(with_location),
    );
    if let Some(schema) = schema {
        errors.extend(
            schema
                .check_parts(&mut good.iter().map(|(i, p)| (*i, p)))
                .into_iter()
                .map(with_location),
        );
    }
    PayloadReport {
        ok: errors.is_empty(),
        errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written reader against serde's derived one (these tests derive `Deserialize`).
    #[test]
    fn limits_hand_reader_reads_as_the_derived_one() {
        let limits = serde_json::json!({"maxBytes": 1, "maxParts": 2, "maxPartBytes": 3,
            "maxDepth": 4});
        let names = ["maxBytes", "maxParts", "maxPartBytes", "maxDepth"];
        let read = agentwire_core::json::same_reading(
            &limits,
            &names,
            "struct PayloadLimits",
            PayloadLimits::read_fields,
        );
        assert!(read.unwrap() > 10);
    }

    #[test]
    fn scan_finds_part_starts_and_ignores_brackets_in_strings() {
        let s = br#"{"x": "[[[{", "parts" : [ {"a": "]\"["}, {"b": [1]} ,3 ], "y": [{}]}"#;
        let Scan::Ok { part_starts } = scan(s, 64) else {
            panic!("too deep")
        };
        let starts: Vec<u8> = part_starts.iter().map(|&i| s[i]).collect();
        assert_eq!(starts, b"{{3");
        assert!(matches!(scan(b"[[[", 2), Scan::TooDeep { offset: 2 }));
        assert!(matches!(scan(br#"["[[[", []]"#, 2), Scan::Ok { .. }));
        // A value "parts" is not a key.
        let Scan::Ok { part_starts } = scan(br#"{"k": "parts", "z": [1]}"#, 64) else {
            panic!()
        };
        assert!(part_starts.is_empty());
    }

    #[test]
    fn locator_counts_characters() {
        let text = "é\nab€c";
        let mut l = Locator::new(text);
        assert_eq!(
            l.locate(0),
            Location {
                line: 1,
                column: 1,
                offset: 0
            }
        );
        let euro = text.find('€').unwrap();
        assert_eq!(l.locate(euro).column, 3);
        assert_eq!(l.locate(euro + 1).offset, euro); // back to the boundary
        assert_eq!(l.locate(text.len()).column, 5);
        assert_eq!(l.locate_line_column(2, 4).offset, euro); // inside the `€`: back to its start
        assert_eq!(l.locate_line_column(9, 1).offset, text.len());
    }
}
