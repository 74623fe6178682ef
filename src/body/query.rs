//! The filesystem-like query API: list parts by glob, get one by name, read its content.
//!
//! ```
//! use agentwire::body::{Body, Part, PartKind};
//! use agentwire::pattern::Pattern;
//!
//! let body: Body = serde_json::from_str(r#"{"parts": [
//!     {"type": "text", "contentType": "text/plain", "content": "Here is the project."},
//!     {"type": "file", "name": "/src/main.py", "contentType": "text/x-python", "content": "print(1)"},
//!     {"type": "file", "name": "/src/util/io.py", "contentType": "text/x-python",
//!      "content": "aW1wb3J0IG9z", "contentEncoding": "base64"},
//!     {"type": "data", "name": "/meta.json", "contentType": "application/json", "content": "{\"v\": 2}"},
//!     {"type": "image", "name": "/logo", "contentType": "image/png", "contentUrl": "https://example.org/logo.png"}
//! ]}"#)?;
//!
//! let py: Vec<&str> = body
//!     .list(&Pattern::new("/src/**/*.py")?)
//!     .iter()
//!     .filter_map(|p| p.name.as_deref())
//!     .collect();
//! assert_eq!(py, ["/src/main.py", "/src/util/io.py"]);
//! assert_eq!(body.glob("/src/*")?.len(), 1);
//!
//! assert_eq!(body.get("/src/util/io.py").unwrap().read_text()?, "import os");
//! assert_eq!(body.get("/meta.json").unwrap().read_json()?["v"], 2);
//! assert_eq!(body.get("/logo").unwrap().read_url()?, "https://example.org/logo.png");
//! assert_eq!(body.main().len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Every function here but `list` is `#[inline]`, so that it is compiled in agentwire at opt-level
// "z" (cold code: see "Cold code in this crate" in src/core.rs); `list`, which `MessageBody.list`
// runs over every part, is compiled here at 3.

use std::borrow::Cow;

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;

use super::{Body, BodyError, ContentEncoding, Part};
use crate::pattern::{Pattern, PatternError};

/// Standard base64 (RFC 4648 §4); padding optional when decoding.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Decodes base64 content: the decoder's description and the offending byte offset on failure.
#[inline]
pub(crate) fn decode_base64(content: &str) -> Result<Vec<u8>, (String, Option<usize>)> {
    BASE64.decode(content).map_err(|e| {
        let position = match e {
            base64::DecodeError::InvalidByte(o, _)
            | base64::DecodeError::InvalidLastSymbol(o, _) => Some(o),
            _ => None,
        };
        (e.to_string(), position)
    })
}

impl Body {
    /// The named parts whose names match `pattern`, in message order. Unnamed parts never match
    /// (see [`main`](Self::main)).
    pub fn list(&self, pattern: &Pattern) -> Vec<&Part> {
        self.parts
            .iter()
            .filter(|p| p.name.as_deref().is_some_and(|n| pattern.is_match(n)))
            .collect()
    }

    /// [`list`](Self::list) with a pattern given as text (compiled for this call).
    ///
    /// # Errors
    ///
    /// The [`PatternError`] when `pattern` does not compile.
    #[inline]
    pub fn glob(&self, pattern: &str) -> Result<Vec<&Part>, PatternError> {
        Ok(self.list(&Pattern::new(pattern)?))
    }

    /// The part named exactly `name` (the first one if a malformed message repeats it).
    #[inline]
    pub fn get(&self, name: &str) -> Option<&Part> {
        self.parts.iter().find(|p| p.name.as_deref() == Some(name))
    }

    /// The unnamed parts (the main content shown to the user), in message order.
    #[inline]
    pub fn main(&self) -> Vec<&Part> {
        self.parts.iter().filter(|p| p.name.is_none()).collect()
    }

    /// The names of the named parts, in message order.
    #[inline]
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| p.name.as_deref())
    }
}

impl Part {
    #[inline]
    fn inline_content(&self) -> Result<&str, BodyError> {
        self.content
            .as_deref()
            .ok_or_else(|| BodyError::NoInlineContent {
                name: self.name.clone(),
                has_url: self.content_url.is_some(),
            })
    }

    /// The content's bytes: the UTF-8 bytes of `plain` content, or the decoded bytes of `base64`
    /// content (RFC 4648 §4 alphabet; padding optional).
    ///
    /// # Errors
    ///
    /// `no-inline-content` when the part has no `content` (e.g. only a `contentUrl`);
    /// `invalid-base64` when base64 content does not decode; `unknown-content-encoding` for an
    /// encoding other than `plain` and `base64`.
    #[inline]
    pub fn read_bytes(&self) -> Result<Cow<'_, [u8]>, BodyError> {
        let content = self.inline_content()?;
        match &self.content_encoding {
            ContentEncoding::Plain => Ok(Cow::Borrowed(content.as_bytes())),
            ContentEncoding::Base64 => {
                decode_base64(content)
                    .map(Cow::Owned)
                    .map_err(|(reason, position)| BodyError::InvalidBase64 {
                        name: self.name.clone(),
                        reason,
                        position,
                    })
            }
            ContentEncoding::Other(e) => Err(BodyError::UnknownContentEncoding {
                name: self.name.clone(),
                encoding: e.clone(),
            }),
        }
    }

    /// The content as text: `plain` content as is, `base64` content decoded and read as UTF-8.
    ///
    /// # Errors
    ///
    /// As [`read_bytes`](Self::read_bytes), plus `not-text` (with the byte offset of the first
    /// invalid byte) when decoded bytes are not UTF-8.
    #[inline]
    pub fn read_text(&self) -> Result<Cow<'_, str>, BodyError> {
        match self.read_bytes()? {
            Cow::Borrowed(_) => self.inline_content().map(Cow::Borrowed),
            Cow::Owned(bytes) => {
                String::from_utf8(bytes)
                    .map(Cow::Owned)
                    .map_err(|e| BodyError::NotText {
                        name: self.name.clone(),
                        position: e.utf8_error().valid_up_to(),
                    })
            }
        }
    }

    /// The content parsed as JSON (whatever the content type says).
    ///
    /// # Errors
    ///
    /// As [`read_text`](Self::read_text), plus `invalid-json` with the 1-based line and column
    /// (bytes) of the syntax error.
    #[inline]
    pub fn read_json(&self) -> Result<serde_json::Value, BodyError> {
        let text = self.read_text()?;
        crate::json::parse_value(&text).map_err(|e| BodyError::InvalidJson {
            name: self.name.clone(),
            reason: e.to_string(),
            line: e.line(),
            column: e.column(),
        })
    }

    /// The `contentUrl`.
    ///
    /// # Errors
    ///
    /// `no-content-url` when the part has none (its content is inline).
    #[inline]
    pub fn read_url(&self) -> Result<&str, BodyError> {
        self.content_url
            .as_deref()
            .ok_or_else(|| BodyError::NoContentUrl {
                name: self.name.clone(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::PartKind;
    use crate::ErrorCode;

    fn b64(content: &str) -> Part {
        Part {
            content_encoding: ContentEncoding::Base64,
            ..Part::inline(PartKind::File, "application/octet-stream", content)
        }
        .named("/f")
    }

    #[test]
    fn read_helpers_and_their_errors() {
        assert_eq!(b64("AAEC").read_bytes().unwrap().as_ref(), &[0, 1, 2]);
        assert_eq!(b64("aGk").read_text().unwrap(), "hi"); // unpadded
        let e = b64("/w==").read_text().unwrap_err();
        assert_eq!(e.code(), "not-text");
        assert_eq!(e.details()["position"], 0);
        let e = b64("aG*k").read_bytes().unwrap_err();
        assert_eq!(e.code(), "invalid-base64");
        assert_eq!(e.details()["position"], 2);
        assert_eq!(e.details()["name"], "/f");
        let e = Part::inline(PartKind::Data, "application/json", "{\"a\":\n 1,}")
            .read_json()
            .unwrap_err();
        assert_eq!(e.code(), "invalid-json");
        assert_eq!(e.details()["line"], 2);
        let url = Part::url(PartKind::Image, "image/png", "https://x/y.png");
        let e = url.read_text().unwrap_err();
        assert_eq!(e.code(), "no-inline-content");
        assert_eq!(e.details()["hasUrl"], true);
        assert_eq!(url.read_url().unwrap(), "https://x/y.png");
        let e = Part::inline(PartKind::Text, "text/plain", "x")
            .read_url()
            .unwrap_err();
        assert_eq!(e.code(), "no-content-url");
        let odd = Part {
            content_encoding: ContentEncoding::from("gzip"),
            ..Part::inline(PartKind::Text, "text/plain", "x")
        };
        assert_eq!(
            odd.read_text().unwrap_err().code(),
            "unknown-content-encoding"
        );
    }

    #[test]
    fn queries_keep_message_order() {
        let body = Body::new(vec![
            Part::inline(PartKind::Text, "text/plain", "b").named("/s/2"),
            Part::inline(PartKind::Text, "text/plain", "main"),
            Part::inline(PartKind::Text, "text/plain", "a").named("/s/1"),
            Part::inline(PartKind::Text, "text/plain", "deep").named("/s/1/x"),
        ]);
        let names: Vec<_> = body
            .glob("/s/*")
            .unwrap()
            .iter()
            .map(|p| p.content.clone().unwrap())
            .collect();
        assert_eq!(names, ["b", "a"]);
        assert_eq!(body.glob("/s/**").unwrap().len(), 3);
        assert_eq!(body.glob("/s/{").unwrap_err().code(), "unclosed-brace");
        assert_eq!(body.get("/s/1").unwrap().content.as_deref(), Some("a"));
        assert!(body.get("/s").is_none());
        assert_eq!(body.main().len(), 1);
        assert_eq!(body.names().collect::<Vec<_>>(), ["/s/2", "/s/1", "/s/1/x"]);
    }
}
