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
    /// [`BodyError::InvalidBody`] (`invalid-body`) with serde_json's reason and its 1-based line and
    /// column (bytes), `syntax: true` when the text is not JSON at all.
    ///
    /// Floats in part metadata are read correctly rounded (a timestamp comes back bit for bit)
    /// with the `exact-floats` feature, which `bodies` and so every default build turn on (see
    /// `json::parse_value`); without it, as serde_json reads them, "best effort".
    #[inline]
    pub fn from_json(text: &str) -> Result<Body, BodyError> {
        serde_json::from_str(text).map_err(|e| BodyError::InvalidBody {
            reason: crate::json::message_of(&e),
            syntax: e.is_syntax() || e.is_eof(),
            line: e.line(),
            column: e.column(),
        })
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
