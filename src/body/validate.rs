//! Part model checks: what every body must satisfy, whatever its schema.
//!
//! [`validate_body`] checks what every body must satisfy (its documentation has the table of
//! codes); [`is_valid_content_type`] is its MIME syntax check.
//!
//! ```
//! use agentwire::body::{validate_body, Body, Part, PartKind};
//!
//! let body = Body::new(vec![
//!     Part::inline(PartKind::Text, "text/plain", "hello"),
//!     Part::inline(PartKind::Text, "text/plain", "a").named("/notes"),
//!     Part::inline(PartKind::Text, "plain text", "b").named("/notes"),
//! ]);
//! let codes: Vec<_> = validate_body(&body).into_iter().map(|v| v.code.to_string()).collect();
//! assert_eq!(codes, ["duplicate-part-name", "invalid-content-type"]);
//! ```

// Every function here is `#[inline]`, so that it is compiled in agentwire at opt-level "z" (cold
// code: see "Cold code in this crate" in src/core.rs).

use std::collections::BTreeMap;

use super::names::check;
use super::query::decode_base64;
use super::{Body, ContentEncoding, Part, PartStatus, Violation, ViolationCode};
use crate::json::Quoted;

/// Checks the part model of a body. Returns every violation, in part order; empty when the body
/// is well formed.
///
/// Reported, for each part in order:
///
/// | code | when |
/// |---|---|
/// | `invalid-part-name` | the name breaks the [naming rules](super::validate_name#rules) |
/// | `duplicate-part-name` | an earlier part has the same name |
/// | `content-and-url` | the part has both `content` and `contentUrl` |
/// | `no-content` | a `complete` part has neither (a `streaming` or `incomplete` part may have none yet) |
/// | `unknown-content-encoding` | `contentEncoding` is neither `plain` nor `base64` |
/// | `invalid-base64` | a `complete` part's `base64` content does not decode |
/// | `invalid-content-type` | `contentType` is not `type/subtype` with optional parameters ([`is_valid_content_type`]) |
///
#[inline]
pub fn validate_body(body: &Body) -> Vec<Violation> {
    check_parts(&mut body.parts.iter().enumerate())
}

/// [`validate_body`] over `(index, part)` pairs. The iterator is a trait object so that the
/// function is compiled once for its two callers (this and the payload validator). Internal; hidden
/// on the item itself, since agentwire's `body` glob re-export does not carry the `use`'s hiding.
#[doc(hidden)]
#[inline]
pub fn check_parts(parts: &mut dyn Iterator<Item = (usize, &Part)>) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, part) in parts {
        let label = match &part.name {
            Some(n) => n.clone(),
            None => format!("part {i} (unnamed)"),
        };
        if let Some(name) = part.name.as_deref() {
            if let Err((reason, position)) = check(name) {
                let at = position.map(|p| format!(" (byte {p})")).unwrap_or_default();
                out.push(Violation::of_part(
                    ViolationCode::InvalidPartName,
                    i,
                    part,
                    format!(
                        "part {i}: invalid part name {}: it {}{at}",
                        Quoted(name),
                        reason.describe()
                    ),
                ));
            }
            if let Some(first) = seen.get(name) {
                out.push(Violation::of_part(
                    ViolationCode::DuplicatePartName,
                    i,
                    part,
                    format!("{name}: part {i} has the same name as part {first}"),
                ));
            } else {
                seen.insert(name.to_owned(), i);
            }
        }
        let complete = part.status == PartStatus::Complete;
        match (&part.content, &part.content_url) {
            (Some(_), Some(_)) => out.push(Violation::of_part(
                ViolationCode::ContentAndUrl,
                i,
                part,
                format!("{label}: has both content and contentUrl"),
            )),
            (None, None) if complete => out.push(Violation::of_part(
                ViolationCode::NoContent,
                i,
                part,
                format!("{label}: a complete part needs content or contentUrl"),
            )),
            _ => {}
        }
        match &part.content_encoding {
            ContentEncoding::Other(e) => out.push(Violation::of_part(
                ViolationCode::UnknownContentEncoding,
                i,
                part,
                format!(
                    "{label}: unknown content encoding {} (expected plain or base64)",
                    Quoted(e)
                ),
            )),
            ContentEncoding::Base64 if complete => {
                if let Some(Err((reason, _))) = part.content.as_deref().map(decode_base64) {
                    out.push(Violation::of_part(
                        ViolationCode::InvalidBase64,
                        i,
                        part,
                        format!("{label}: invalid base64 content: {reason}"),
                    ));
                }
            }
            _ => {}
        }
        if !is_valid_content_type(&part.content_type) {
            out.push(Violation::of_part(
                ViolationCode::InvalidContentType,
                i,
                part,
                format!(
                    "{label}: content type {} is not a MIME type (type/subtype)",
                    Quoted(&part.content_type)
                ),
            ));
        }
    }
    out
}

/// RFC 6838 §4.2 `restricted-name`: 1 to 127 characters, a letter or digit first, then letters,
/// digits and `! # $ & - ^ _ . +`.
#[inline]
fn restricted_name(s: &str) -> bool {
    let b = s.as_bytes();
    match b.first() {
        Some(f) if f.is_ascii_alphanumeric() => {}
        _ => return false,
    }
    b.len() <= 127
        && b.iter().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    b'!' | b'#' | b'$' | b'&' | b'-' | b'^' | b'_' | b'.' | b'+'
                )
        })
}

/// RFC 2045 §5.1 `token`: printable ASCII except space and `()<>@,;:\"/[]?=`.
#[inline]
fn is_token_char(c: u8) -> bool {
    c.is_ascii_graphic() && !b"()<>@,;:\\\"/[]?=".contains(&c)
}

/// Whether `s` is a syntactically valid MIME type: `type/subtype` (RFC 6838 §4.2 restricted names,
/// e.g. `image/svg+xml`), optionally followed by parameters `; name=value` where `value` is an
/// RFC 2045 token or a quoted string (empty parameters, as in a trailing `;`, are tolerated).
/// Spaces and tabs are allowed around the whole and around each `;`, not inside `type/subtype`
/// or around a parameter's `=` (RFC 2045 allows none there either). The subtype may be `*`
/// (`image/*`): agentwire's convention for "an image of unknown format", which dialects produce
/// when the protocol does not say (RFC 6838 has no such type; only `*/*` is refused).
#[inline]
pub fn is_valid_content_type(s: &str) -> bool {
    let (essence, params) = match s.find(';') {
        Some(i) => (s.get(..i).unwrap_or(""), s.get(i..).unwrap_or("")),
        None => (s, ""),
    };
    let essence = essence.trim_matches(|c| c == ' ' || c == '\t');
    let Some((ty, sub)) = essence.split_once('/') else {
        return false;
    };
    restricted_name(ty) && (sub == "*" || restricted_name(sub)) && valid_params(params.as_bytes())
}

/// `*(";" OWS [token "=" (token / quoted-string)] OWS)`.
#[inline]
fn valid_params(b: &[u8]) -> bool {
    let mut i = 0;
    let ows = |i: &mut usize| {
        while matches!(b.get(*i), Some(b' ') | Some(b'\t')) {
            *i += 1;
        }
    };
    loop {
        ows(&mut i);
        match b.get(i) {
            None => return true,
            Some(b';') => i += 1,
            Some(_) => return false,
        }
        ows(&mut i);
        match b.get(i) {
            None | Some(b';') => continue,
            _ => {}
        }
        let start = i;
        while b.get(i).is_some_and(|&c| is_token_char(c)) {
            i += 1;
        }
        if i == start || b.get(i) != Some(&b'=') {
            return false;
        }
        i += 1;
        if b.get(i) == Some(&b'"') {
            i += 1;
            loop {
                match b.get(i) {
                    None => return false,
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(b'\\') => i += 2,
                    Some(_) => i += 1,
                }
            }
        } else {
            let start = i;
            while b.get(i).is_some_and(|&c| is_token_char(c)) {
                i += 1;
            }
            if i == start {
                return false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::PartKind;

    #[test]
    fn content_types() {
        for ok in [
            "text/plain",
            "image/svg+xml",
            "application/vnd.api+json",
            "text/plain; charset=utf-8",
            "text/plain;charset=\"utf-8\"; format=flowed",
            "text/plain;",
            " text/x-uri ",
            "multipart/form-data; boundary=\"a;b\"",
            "image/*",
        ] {
            assert!(is_valid_content_type(ok), "{ok}");
        }
        for bad in [
            "",
            "text",
            "text/",
            "/plain",
            "*/*",
            "text/pl ain",
            "text/plain; charset",
            "text/plain; =x",
            "text/plain; a=\"unclosed",
            "text/plain x",
            "tëxt/plain",
            "text/plain/x",
            "*/plain",
            "image/*x",
        ] {
            assert!(!is_valid_content_type(bad), "{bad}");
        }
    }

    #[test]
    fn model_rules() {
        let both = Part {
            content_url: Some("https://x".into()),
            ..Part::inline(PartKind::Text, "text/plain", "x")
        };
        let empty_streaming = Part {
            content: None,
            status: PartStatus::Streaming,
            ..Part::inline(PartKind::Text, "text/plain", "")
        };
        let empty_complete = Part {
            content: None,
            ..Part::inline(PartKind::Text, "text/plain", "")
        };
        let bad_b64 = Part {
            content_encoding: ContentEncoding::Base64,
            ..Part::inline(PartKind::File, "application/pdf", "%%%")
        };
        let partial_b64 = Part {
            status: PartStatus::Streaming,
            ..bad_b64.clone()
        };
        let body = Body::new(vec![
            both,
            empty_streaming,
            empty_complete,
            bad_b64,
            partial_b64,
        ]);
        let got: Vec<(String, Option<usize>)> = validate_body(&body)
            .into_iter()
            .map(|v| (v.code.to_string(), v.part_index))
            .collect();
        assert_eq!(
            got,
            [
                ("content-and-url".to_owned(), Some(0)),
                ("no-content".to_owned(), Some(2)),
                ("invalid-base64".to_owned(), Some(3)),
            ]
        );
    }
}
