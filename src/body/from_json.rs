//! Reading a body from JSON text, and looking a part up by name as a `Result`.
//!
//! ```
//! use agentwire::body::Body;
//! use agentwire::ErrorCode;
//!
//! let body = Body::from_json(r#"{"parts": [
//!     {"type": "text", "contentType": "text/plain", "content": "Hello"},
//!     {"type": "text", "name": "/sources/1", "contentType": "text/x-uri", "content": "https://a"}
//! ]}"#)?;
//! assert_eq!(body.part("/sources/1")?.read_text()?, "https://a");
//! assert_eq!(body.part("/sources/2").unwrap_err().code(), "part-not-found");
//!
//! let e = Body::from_json("{\"parts\": [\n  {\"content\": 5}\n]}").unwrap_err();
//! assert_eq!(e.code(), "invalid-body");
//! assert_eq!((e.details()["line"].as_u64(), e.details()["syntax"].as_bool()), (Some(2), Some(false)));
//! # Ok::<(), agentwire::body::BodyError>(())
//! ```

// Every function here is `#[inline]`, so that it is compiled in agentwire at opt-level "z" (cold
// code: see "Cold code in this crate" in src/core.rs).

use super::{Body, BodyError, Part};

impl Body {
    /// Reads a body from JSON text: `{"parts": [<part>…]}` (the [`Part`] JSON: camelCase, the
    /// protocols' snake_case names accepted; other top-level fields are ignored). Only the shape is
    /// checked: names, content and content types are checked by
    /// [`validate_body`](super::validate_body), and untrusted input with limits by
    /// `validate_payload` (in `agentwire::body`).
    ///
    /// # Errors
    ///
    /// [`BodyError::InvalidBody`] (`invalid-body`) with serde_json's reason, `syntax: true` when
    /// the text is not JSON at all, and a 1-based line and column (bytes): of the syntax error, or
    /// where the part of the wrong shape starts (where the text starts, when the body itself has
    /// the wrong shape).
    ///
    /// Floats in part metadata are read as the nearest `f64`, as `JSON.parse` reads them (a
    /// timestamp comes back bit for bit; see `json::parse_value`).
    #[inline]
    pub fn from_json(text: &str) -> Result<Body, BodyError> {
        let invalid =
            |e: serde_json::Error, (line, column): (usize, usize)| BodyError::InvalidBody {
                reason: crate::json::message_of(&e),
                syntax: crate::json::not_json(&e),
                line,
                column,
            };
        let mut value = crate::json::parse_value(text).map_err(|e| {
            let at = (e.line(), e.column());
            invalid(e, at)
        })?;
        // Each part read from its own tree, so that one of the wrong shape is told by where it
        // starts (a tree has no positions).
        let place = |offset: usize| {
            let before = text.as_bytes().get(..offset).unwrap_or_default();
            let line_start = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |n| n + 1);
            let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
            (line, offset - line_start + 1)
        };
        let start = text.len() - text.trim_start_matches([' ', '\t', '\n', '\r']).len();
        let Some(serde_json::Value::Array(parts)) = value.get_mut("parts") else {
            return crate::json::from_tree::<Body>(value).map_err(|e| invalid(e, place(start)));
        };
        let starts = match super::payload_scan::scan(text.as_bytes(), usize::MAX) {
            super::payload_scan::Scan::Ok { part_starts } => part_starts,
            super::payload_scan::Scan::TooDeep { .. } => Vec::new(),
        };
        let mut read = Vec::with_capacity(parts.len());
        for (i, part) in std::mem::take(parts).into_iter().enumerate() {
            match crate::json::from_tree::<Part>(part) {
                Ok(part) => read.push(part),
                Err(e) => {
                    let at = starts.get(i).map_or(start, |&o| o);
                    return Err(invalid(e, place(at)));
                }
            }
        }
        Ok(Body { parts: read })
    }

    /// The part named exactly `name`, as a `Result` ([`get`](Self::get) gives an `Option`).
    ///
    /// # Errors
    ///
    /// [`BodyError::PartNotFound`] (`part-not-found`) when no part has that name.
    #[inline]
    pub fn part(&self, name: &str) -> Result<&Part, BodyError> {
        self.get(name).ok_or_else(|| BodyError::PartNotFound {
            name: name.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn syntax_and_shape_errors() {
        let e = Body::from_json("{\"parts\": [").unwrap_err();
        assert_eq!(e.code(), "invalid-body");
        assert_eq!(e.details()["syntax"], true);
        let e = Body::from_json("{\"part\": []}").unwrap_err();
        assert_eq!(e.details()["syntax"], false);
        assert_eq!(e.details()["reason"], "missing field `parts`");
        let e = Body::from_json("[1]").unwrap_err();
        assert_eq!(e.details()["syntax"], false);
        assert!(Body::from_json(r#"{"parts": [], "extra": 1}"#).is_ok());
    }

    #[test]
    fn metadata_floats_are_exact() {
        let b = Body::from_json(
            r#"{"parts": [{"content": "x", "metadata": {"timestamp": 1758972921.8811321}}]}"#,
        )
        .unwrap();
        let meta = b.parts[0].metadata.as_ref().unwrap();
        assert_eq!(meta["timestamp"].as_f64(), Some(1758972921.8811321_f64));
    }
}
