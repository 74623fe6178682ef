//! Part names: POSIX absolute paths like `/sources/1`, unique within a message.
//!
//! ```
//! use agentwire::body::{validate_name, NameIssue};
//! use agentwire::ErrorCode;
//!
//! assert!(validate_name("/sources/1").is_ok());
//! assert!(validate_name("/src/main.rs").is_ok());
//!
//! let e = validate_name("/sources/../secrets").unwrap_err();
//! assert_eq!(e.code(), "invalid-part-name");
//! assert_eq!(e.details()["reason"], "dot-segment");
//! assert_eq!(e.details()["position"], 9);
//! ```
//!
//! The rules are on [`validate_name`].

// Every function here is `#[inline]`, so that it is compiled in agentwire at opt-level "z" (cold
// code: see "Cold code in this crate" in src/core.rs).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Body, BodyError};

/// The longest part name accepted, in bytes (names are ASCII, so also in characters).
pub const MAX_NAME_LEN: usize = 1024;

/// Why a part name is invalid (the `reason` in the details of `invalid-part-name`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum NameIssue {
    /// `empty`: the name is the empty string.
    Empty,
    /// `too-long`: longer than [`MAX_NAME_LEN`] bytes.
    TooLong,
    /// `not-absolute`: does not start with `/`.
    NotAbsolute,
    /// `control-character`: contains a control character (U+0000–U+001F, U+007F–U+009F).
    ControlCharacter,
    /// `invalid-character`: contains a character outside `A-Z a-z 0-9 . - _ /`.
    InvalidCharacter,
    /// `empty-segment`: contains `//`.
    EmptySegment,
    /// `trailing-slash`: ends with `/` (this includes `/` alone).
    TrailingSlash,
    /// `dot-segment`: has a `.` or `..` segment.
    DotSegment,
}

impl NameIssue {
    /// The reason's kebab-case wire string, e.g. `dot-segment`.
    #[inline]
    pub fn as_str(&self) -> &'static str {
        match self {
            NameIssue::Empty => "empty",
            NameIssue::TooLong => "too-long",
            NameIssue::NotAbsolute => "not-absolute",
            NameIssue::ControlCharacter => "control-character",
            NameIssue::InvalidCharacter => "invalid-character",
            NameIssue::EmptySegment => "empty-segment",
            NameIssue::TrailingSlash => "trailing-slash",
            NameIssue::DotSegment => "dot-segment",
        }
    }

    /// A short English description, e.g. `has a "." or ".." segment`.
    #[inline]
    pub fn describe(&self) -> &'static str {
        match self {
            NameIssue::Empty => "is empty",
            NameIssue::TooLong => "is too long",
            NameIssue::NotAbsolute => "does not start with \"/\"",
            NameIssue::ControlCharacter => "contains a control character",
            NameIssue::InvalidCharacter => "contains a character other than A-Z a-z 0-9 . - _ /",
            NameIssue::EmptySegment => "contains an empty segment (\"//\")",
            NameIssue::TrailingSlash => "ends with \"/\"",
            NameIssue::DotSegment => "has a \".\" or \"..\" segment",
        }
    }
}

impl std::fmt::Display for NameIssue {
    #[inline]
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[inline]
fn allowed(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'/')
}

/// Checks a part name against the rules below.
///
/// # Rules
///
/// Source: the message-body proposal (a part's `name` is "a POSIX absolute path"), narrowed so a
/// name is safe to use as a path anywhere:
///
/// - it starts with `/`;
/// - it uses only `A-Z a-z 0-9 . - _ /` (no spaces, no control characters, nothing outside ASCII);
/// - it has no empty segment (`//`) and does not end with `/` (so `/` alone is not a name);
/// - no segment is `.` or `..`: a name never climbs out of its message, so a client may save parts
///   under a directory of its own by their names without fear of `/../../etc/passwd`, and two
///   spellings of one path (`/a/./b` and `/a/b`) cannot both appear;
/// - it is at most [`MAX_NAME_LEN`] bytes long.
///
/// Within one message no two parts have the same name (`duplicate-part-name`, checked by
/// [`validate_body`](super::validate_body) and [`Body::validate_names`]).
///
/// # Errors
///
/// [`BodyError::InvalidPartName`] (`invalid-part-name`) with the [`NameIssue`] and, where it has
/// one, the byte offset (0-based) of the first offending character or segment.
#[inline]
pub fn validate_name(name: &str) -> Result<(), BodyError> {
    check(name).map_err(|(reason, position)| BodyError::InvalidPartName {
        name: name.to_owned(),
        reason,
        position,
    })
}

/// Whether `name` is a valid part name (see [`validate_name`] for the rules).
#[inline]
pub fn is_valid_name(name: &str) -> bool {
    check(name).is_ok()
}

impl Body {
    /// Checks that every part name follows the [rules](validate_name#rules) and that no two parts share a
    /// name. Unnamed parts are fine. For every problem at once, as violations, use
    /// [`validate_body`](super::validate_body).
    ///
    /// # Errors
    ///
    /// The first problem in message order: `invalid-part-name` ([`BodyError::InvalidPartName`]) or
    /// `duplicate-part-name` ([`BodyError::DuplicatePartName`], with both indexes).
    #[inline]
    pub fn validate_names(&self) -> Result<(), BodyError> {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for (index, part) in self.parts.iter().enumerate() {
            let Some(name) = part.name.as_deref() else {
                continue;
            };
            validate_name(name)?;
            if let Some(&first) = seen.get(name) {
                return Err(BodyError::DuplicatePartName {
                    name: name.to_owned(),
                    first,
                    index,
                });
            }
            seen.insert(name.to_owned(), index);
        }
        Ok(())
    }
}

/// The first problem of a name and its byte offset.
#[inline]
pub(crate) fn check(name: &str) -> Result<(), (NameIssue, Option<usize>)> {
    if name.is_empty() {
        return Err((NameIssue::Empty, None));
    }
    if name.len() > MAX_NAME_LEN {
        return Err((NameIssue::TooLong, Some(MAX_NAME_LEN)));
    }
    for (i, c) in name.char_indices() {
        if c.is_control() {
            return Err((NameIssue::ControlCharacter, Some(i)));
        }
        if !c.is_ascii() || !allowed(c as u8) {
            return Err((NameIssue::InvalidCharacter, Some(i)));
        }
    }
    if !name.starts_with('/') {
        return Err((NameIssue::NotAbsolute, Some(0)));
    }
    if let Some(i) = name.find("//") {
        return Err((NameIssue::EmptySegment, Some(i + 1)));
    }
    if name.ends_with('/') {
        return Err((NameIssue::TrailingSlash, Some(name.len() - 1)));
    }
    let mut offset = 0;
    for seg in name.split('/') {
        if seg == "." || seg == ".." {
            return Err((NameIssue::DotSegment, Some(offset)));
        }
        offset += seg.len() + 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    fn issue(name: &str) -> Option<(NameIssue, Option<usize>)> {
        check(name).err()
    }

    #[test]
    fn valid_names() {
        for n in [
            "/a",
            "/sources/1",
            "/src/main.rs",
            "/.hidden",
            "/a/.../b",
            "/A-Z_0.9",
            "/function_output/2",
        ] {
            assert_eq!(issue(n), None, "{n}");
        }
    }

    #[test]
    fn invalid_names_with_reason_and_position() {
        let long = format!("/{}", "a".repeat(MAX_NAME_LEN));
        let cases: Vec<(&str, NameIssue, Option<usize>)> = vec![
            ("", NameIssue::Empty, None),
            (&long, NameIssue::TooLong, Some(MAX_NAME_LEN)),
            ("a/b", NameIssue::NotAbsolute, Some(0)),
            ("/a\nb", NameIssue::ControlCharacter, Some(2)),
            ("/a\u{85}", NameIssue::ControlCharacter, Some(2)),
            ("/a b", NameIssue::InvalidCharacter, Some(2)),
            ("/é", NameIssue::InvalidCharacter, Some(1)),
            ("/a*", NameIssue::InvalidCharacter, Some(2)),
            ("/a//b", NameIssue::EmptySegment, Some(3)),
            ("//", NameIssue::EmptySegment, Some(1)),
            ("/", NameIssue::TrailingSlash, Some(0)),
            ("/a/", NameIssue::TrailingSlash, Some(2)),
            ("/a/../b", NameIssue::DotSegment, Some(3)),
            ("/.", NameIssue::DotSegment, Some(1)),
            ("/a/..", NameIssue::DotSegment, Some(3)),
        ];
        for (name, reason, pos) in cases {
            assert_eq!(issue(name), Some((reason, pos)), "{name:?}");
            let e = validate_name(name).unwrap_err();
            assert_eq!(e.code(), "invalid-part-name");
            assert_eq!(e.details()["reason"], reason.as_str());
            assert_eq!(e.details()["name"], name);
        }
        assert!(is_valid_name(&long[..MAX_NAME_LEN]));
    }

    #[test]
    fn body_names_are_valid_and_unique() {
        use crate::body::{Part, PartKind};
        let p = |n: &str| Part::inline(PartKind::Text, "text/plain", "x").named(n);
        let main = Part::inline(PartKind::Text, "text/plain", "x");
        assert!(Body::new(vec![main.clone(), p("/a"), main, p("/b")])
            .validate_names()
            .is_ok());
        let e = Body::new(vec![p("/a"), p("/b"), p("/a")])
            .validate_names()
            .unwrap_err();
        assert_eq!(e.code(), "duplicate-part-name");
        assert_eq!(
            e.details(),
            serde_json::json!({"name": "/a", "first": 0, "index": 2})
        );
        let e = Body::new(vec![p("/a/"), p("/a/")])
            .validate_names()
            .unwrap_err();
        assert_eq!(e.code(), "invalid-part-name");
    }
}
