//! Classifying URLs found in message parts (`content_url`, `image_url`, `file_url`, …) before an app
//! renders them.
//!
//! A URL from an agent is untrusted input: rendered as a link or an image source, `javascript:`
//! runs script and `data:text/html` renders a page. [`classify_url`] tells an app what a URL is and
//! whether it is safe to render, following the WHATWG URL standard's scheme parsing (the scheme is
//! the ASCII letters, digits, `+`, `-`, `.` before the first `:`, starting with a letter, compared
//! case-insensitively; leading and trailing C0 controls and spaces, and any tab or newline inside,
//! are removed first, as browsers do).
//!
//! | kind | safe | what |
//! |---|---|---|
//! | `https` | yes, with `//` | `https:` |
//! | `http` | yes, with `//` | `http:` (plain text on the wire, but not executable) |
//! | `data-image` | yes | `data:image/…` (scripts in an SVG image do not run in `<img>`) |
//! | `data-audio` | yes | `data:audio/…` |
//! | `data-video` | yes | `data:video/…` |
//! | `blob` | yes | `blob:` (a same-origin object URL) |
//! | `data-other` | no | any other `data:` type (`text/html`, `application/javascript`, …) |
//! | `javascript` | no | `javascript:` |
//! | `relative` | no | no scheme: resolves against the page, not the agent |
//! | `other` | no | any other scheme (`file:`, `vbscript:`, `ftp:`, custom schemes) |
//!
//! An `http:` or `https:` URL is safe only when two slashes follow the scheme (`https://host/…`;
//! a backslash counts as a slash, as browsers read these schemes). Without them, the URL
//! Standard reads it against the page when the page has the same scheme ("special relative or
//! authority state"): on an `http:` page, `http:foo` is the page's own `/dir/foo`, and
//! `http:javascript:alert(1)` a path of the page's site. It is not executable, but it does not
//! go where the agent said either; such a URL keeps its kind and is not `safe`.
//!
//! ```
//! use agentwire::url::{classify_url, UrlKind};
//! assert_eq!(classify_url("https://example.com/cat.png").kind, UrlKind::Https);
//! let bad = classify_url(" JavaScript:alert(1)");
//! assert_eq!(bad.kind, UrlKind::Javascript);
//! assert!(!bad.safe);
//! assert!(classify_url("data:image/png;base64,iVBORw0KGgo=").safe);
//! ```

use serde::Serialize;

/// What a URL is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum UrlKind {
    /// `https:`.
    Https,
    /// `http:`.
    Http,
    /// `data:image/…`.
    DataImage,
    /// `data:audio/…`.
    DataAudio,
    /// `data:video/…`.
    DataVideo,
    /// Any other `data:` media type.
    DataOther,
    /// `blob:`.
    Blob,
    /// `javascript:`.
    Javascript,
    /// No scheme (a relative reference).
    Relative,
    /// Any other scheme.
    Other,
}

/// The classification of one URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct UrlClass {
    /// What the URL is.
    pub kind: UrlKind,
    /// Whether it is safe to render as an image, audio or video source, or to open as a link
    /// (`http` and `https` with `//` after the scheme, `blob`, and `data:` with an image, audio or
    /// video type).
    pub safe: bool,
    /// The scheme, lowercased (`""` for a relative reference).
    pub scheme: String,
    /// For `data:` URLs, the media type, lowercased without parameters (`""` means the default,
    /// `text/plain`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
}

/// Classifies `url` (see the module docs' table).
pub fn classify_url(url: &str) -> UrlClass {
    // WHATWG URL parsing: strip leading/trailing C0 controls and spaces; remove tab and newlines.
    let trimmed = url.trim_matches(|c: char| c <= ' ');
    let cleaned: String = trimmed
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let scheme = scheme_of(&cleaned);
    let Some(scheme) = scheme else {
        return UrlClass {
            kind: UrlKind::Relative,
            safe: false,
            scheme: String::new(),
            media_type: None,
        };
    };
    let rest = &cleaned[scheme.len() + 1..];
    let scheme = scheme.to_ascii_lowercase();
    let (kind, media_type) = match scheme.as_str() {
        "https" => (UrlKind::Https, None),
        "http" => (UrlKind::Http, None),
        "blob" => (UrlKind::Blob, None),
        "javascript" => (UrlKind::Javascript, None),
        "data" => {
            let media = data_media_type(rest);
            let kind = if media.starts_with("image/") {
                UrlKind::DataImage
            } else if media.starts_with("audio/") {
                UrlKind::DataAudio
            } else if media.starts_with("video/") {
                UrlKind::DataVideo
            } else {
                UrlKind::DataOther
            };
            (kind, Some(media))
        }
        _ => (UrlKind::Other, None),
    };
    let safe = match kind {
        // Without `//` the URL resolves against a page of the same scheme (the module docs).
        UrlKind::Https | UrlKind::Http => {
            let slash = |c: Option<&u8>| matches!(c, Some(b'/' | b'\\'));
            slash(rest.as_bytes().first()) && slash(rest.as_bytes().get(1))
        }
        UrlKind::Blob | UrlKind::DataImage | UrlKind::DataAudio | UrlKind::DataVideo => true,
        _ => false,
    };
    UrlClass {
        kind,
        safe,
        scheme,
        media_type,
    }
}

/// The scheme (before the first `:`), if the text starts with one.
fn scheme_of(url: &str) -> Option<&str> {
    let colon = url.find(':')?;
    let scheme = &url[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    if chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) {
        Some(scheme)
    } else {
        None
    }
}

/// The media type of a `data:` URL's body (RFC 2397: up to the first `,` or `;`), lowercased and
/// trimmed of ASCII whitespace.
fn data_media_type(body: &str) -> String {
    let end = body.find([',', ';']).unwrap_or(body.len());
    body[..end]
        .trim_matches(|c: char| c.is_ascii_whitespace())
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        let cases: &[(&str, UrlKind, bool)] = &[
            ("https://a.example/x.png", UrlKind::Https, true),
            ("HTTPS://A.EXAMPLE", UrlKind::Https, true),
            ("http://a.example", UrlKind::Http, true),
            ("data:image/png;base64,AAAA", UrlKind::DataImage, true),
            ("data:IMAGE/SVG+XML,<svg/>", UrlKind::DataImage, true),
            ("data:audio/mpeg;base64,AA", UrlKind::DataAudio, true),
            ("data:video/mp4,xx", UrlKind::DataVideo, true),
            (
                "data:text/html,<script>alert(1)</script>",
                UrlKind::DataOther,
                false,
            ),
            ("data:,hello", UrlKind::DataOther, false),
            ("blob:https://a.example/123", UrlKind::Blob, true),
            ("javascript:alert(1)", UrlKind::Javascript, false),
            ("  JaVaScRiPt:alert(1)", UrlKind::Javascript, false),
            ("java\tscript:alert(1)", UrlKind::Javascript, false),
            ("java\nscript:alert(1)", UrlKind::Javascript, false),
            ("\u{0}\u{1f}javascript:alert(1)", UrlKind::Javascript, false),
            ("vbscript:msgbox", UrlKind::Other, false),
            ("file:///etc/passwd", UrlKind::Other, false),
            ("/relative/path.png", UrlKind::Relative, false),
            ("relative.png", UrlKind::Relative, false),
            ("1http://x", UrlKind::Relative, false),
            ("", UrlKind::Relative, false),
            ("héllo:x", UrlKind::Relative, false),
            // Without `//`, read against a page of the same scheme: not where it says.
            ("http:foo", UrlKind::Http, false),
            ("https:/foo", UrlKind::Https, false),
            ("http:javascript:alert(11)", UrlKind::Http, false),
            ("https:\\\\a.example/x", UrlKind::Https, true),
            ("https:/\\a.example/x", UrlKind::Https, true),
        ];
        for (url, kind, safe) in cases {
            let c = classify_url(url);
            assert_eq!((c.kind, c.safe), (*kind, *safe), "{url:?}");
        }
    }
}
