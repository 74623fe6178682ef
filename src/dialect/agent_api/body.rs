//! The Agent API message as a [`Body`]: one [`Part`] per content, in `index` order.
//!
//! ```
//! use agentwire::dialect::agent_api::{Content, Message, MessageType, Role, RunStatus};
//! use agentwire::body::PartKind;
//! use serde_json::json;
//!
//! // A researcher's answer: the write-up, then its sources as named parts (agentwire extension
//! // fields `name` and `content_type` ride in the content's unknown fields).
//! let mut source: Content = serde_json::from_value(json!({
//!     "type": "text", "name": "/sources/1", "content_type": "text/x-uri",
//!     "text": "https://example.org/paper"
//! }))?;
//! let mut message = Message::new(Role::Assistant, vec![Content::text("It is 42."), source]);
//! message.status = Some(RunStatus::Completed);
//!
//! let body = message.body();
//! assert_eq!(body.main()[0].read_text()?, "It is 42.");
//! let s = body.get("/sources/1").unwrap();
//! assert_eq!((s.kind.as_str(), s.content_type.as_str()), ("text", "text/x-uri"));
//!
//! // A function call becomes a `tool_call` part named `/function`.
//! let mut call = Message::new(Role::Assistant, vec![Content::data(json!({
//!     "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\": \"Paris\"}"
//! }))]);
//! call.kind = MessageType::FunctionCall;
//! let part = &call.body().parts[0];
//! assert_eq!(part.kind, PartKind::ToolCall);
//! assert_eq!(part.name.as_deref(), Some("/function"));
//! assert_eq!(part.read_json()?, json!({"city": "Paris"}));
//! assert_eq!(part.metadata.as_ref().unwrap()["toolName"], "get_weather");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Mapping
//!
//! | content `type` | part `type` | `contentType` | content | name, metadata |
//! |---|---|---|---|---|
//! | `text` | `text` (`reasoning` in a `reasoning` message) | `text/plain` | `text`, inline (empty when absent) | |
//! | `image` | `image` | the MIME of a `data:` URL, else from the URL path's extension (`png`, `jpeg`/`jpg`, `gif`, `webp`, `svg` → `image/svg+xml`), else `image/*` | `contentUrl` = `image_url` | |
//! | `data` | `data` | `application/json` | the JSON text of `data` | |
//! | `data` in a call message ([`MessageType::is_call`]) | `tool_call` | `application/json` | `data.arguments` (a string as is; other JSON as its text); the JSON text of `data` when it has no `arguments` | named `/function` (content index 0) or `/function/<index>`; `toolCallId` = `data.call_id`, `toolName` = `data.name`, other fields of `data` as they are |
//! | `data` in a call-output message ([`MessageType::is_call_output`]) | `tool_result` | `application/json` when the content is JSON, else `text/plain` | `data.output` (a string as is; other JSON as its text); the JSON text of `data` when it has no `output` | named `/function_output` or `/function_output/<index>`; `toolCallId`, `toolName` (when given), other fields of `data` |
//! | `audio` | `audio` | `audio/<format>` (`mp3` → `audio/mpeg`), else `audio/*` | `data` that looks like a URL (`scheme://…` or `data:`) → `contentUrl`; else inline `base64` | `format` |
//! | `file` | `file` | a `data:` URL's MIME in `file_data`, else from `filename`'s extension (`pdf`, `txt`, `md`, `csv`, `json`, `html`, `xml`, `zip`, `py` → `text/x-python`, `rs` → `text/x-rust`, `js` → `application/javascript`, `ts`, images, `mp3`, `wav`, `mp4`, `webm`), else `application/octet-stream` | `file_data` → inline `base64` (as it is, or the payload of a `;base64` `data:` URL; another `data:` URL's percent-encoded bytes are `plain` text when they are UTF-8, else `base64`); else `file_url` → `contentUrl` | `filename`, `fileId`; `fileUrl` when `file_data` is there too |
//! | `refusal` | `refusal` | `text/plain` | `refusal`, inline | |
//! | `video` | `file` | from the URL path's extension (`mp4`, `webm`, `mov`, `ogv`), else `video/*` | `contentUrl` = `video_url` | |
//! | any other | `data` | `application/json` | the JSON text of the whole content | |
//!
//! For every kind, two agentwire extension fields, carried in the content's unknown fields
//! ([`Content::extra`]), override the table: `name` (a string) becomes the part's name and
//! `content_type` (a string) its content type. This is how an Agent API server sends named parts:
//! `{"type": "text", "name": "/sources/1", "content_type": "text/x-uri", "text": "https://…"}`.
//!
//! Status: content `completed` → `complete`; `incomplete`, `failed`, `canceled` and `rejected` →
//! `incomplete`; any other status (`in_progress`, `created`, …) → `streaming`, unless the message's
//! status is terminal ([`RunStatus::is_terminal`]): then `complete` if the message is `completed`,
//! else `incomplete` (the part will receive nothing more). A content without status is `complete`
//! when its message's status is terminal, else `streaming`.

// Every function here is `#[inline]`, so that it is compiled in agentwire at opt-level "z" (cold
// code: see "Cold code in this crate" in src/core.rs).

use serde_json::{json, Value};

use super::model::{Content, ContentKind, Message, MessageType, RunStatus};
use crate::body::{Body, ContentEncoding, Part, PartKind, PartStatus};
use crate::wire::JsonMap;

impl Message {
    /// The message as a body: one part per content, in order, mapped as the table of the
    /// `agent_api::body` module documentation says (`text` → `text/plain`, `image` → `image/*`
    /// with `contentUrl`, `data` → `application/json`, calls → `tool_call` parts named
    /// `/function`, …; the content extension fields `name` and `content_type` override it).
    /// A content's position in the message is its `index` when it has one, else its place in
    /// `content`.
    #[inline]
    pub fn body(&self) -> Body {
        Body::new(
            self.content
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let index = c.index.map_or(i, |x| x as usize);
                    c.part_at(index, &self.kind, self.status.as_ref())
                })
                .collect(),
        )
    }
}

impl Content {
    /// This content as a part of a message of type `message_type` whose status is
    /// `message_status`, mapped as [`Message::body`] describes. The content's own `index` (0 when
    /// absent) names tool calls and results (`/function`, `/function/1`, …).
    #[inline]
    pub fn to_part(&self, message_type: &MessageType, message_status: Option<&RunStatus>) -> Part {
        self.part_at(
            self.index.map_or(0, |i| i as usize),
            message_type,
            message_status,
        )
    }

    #[inline]
    fn part_at(
        &self,
        index: usize,
        message_type: &MessageType,
        message_status: Option<&RunStatus>,
    ) -> Part {
        let mut part = match &self.kind {
            ContentKind::Text => {
                let kind = if *message_type == MessageType::Reasoning {
                    PartKind::Reasoning
                } else {
                    PartKind::Text
                };
                Part::inline(kind, "text/plain", self.text.clone().unwrap_or_default())
            }
            ContentKind::Refusal => Part::inline(
                PartKind::Refusal,
                "text/plain",
                self.refusal.clone().unwrap_or_default(),
            ),
            ContentKind::Image => {
                let url = self.image_url.as_deref().unwrap_or_default();
                let ct = data_url_mime(url)
                    .or_else(|| extension(url).and_then(image_mime).map(str::to_owned))
                    .unwrap_or_else(|| "image/*".to_owned());
                without_content(
                    Part::url(PartKind::Image, &ct, url),
                    self.image_url.is_some(),
                )
            }
            ContentKind::Video => {
                let url = self.video_url.as_deref().unwrap_or_default();
                let ct = extension(url).and_then(video_mime).unwrap_or("video/*");
                without_content(Part::url(PartKind::File, ct, url), self.video_url.is_some())
            }
            ContentKind::Data if message_type.is_call() => {
                call_part(self.data.as_ref(), PartKind::ToolCall, "arguments")
                    .named(index_name("/function", index))
            }
            ContentKind::Data if message_type.is_call_output() => {
                call_part(self.data.as_ref(), PartKind::ToolResult, "output")
                    .named(index_name("/function_output", index))
            }
            ContentKind::Data => {
                let mut p = Part::inline(PartKind::Data, "application/json", String::new());
                p.content = self.data.as_ref().map(crate::json::json_text);
                p
            }
            ContentKind::Audio => self.audio_part(),
            ContentKind::File => self.file_part(),
            ContentKind::Other(_) => Part::inline(
                PartKind::Data,
                "application/json",
                serde_json::to_string(self).unwrap_or_default(),
            ),
        };
        if let Some(Value::String(name)) = self.extra.get("name") {
            part.name = Some(name.clone());
        }
        if let Some(Value::String(ct)) = self.extra.get("content_type") {
            part.content_type = ct.clone();
        }
        part.status = part_status(self.status.as_ref(), message_status);
        part
    }

    #[inline]
    fn audio_part(&self) -> Part {
        let ct = match self.format.as_deref().map(str::to_ascii_lowercase) {
            Some(f) if f == "mp3" => "audio/mpeg".to_owned(),
            Some(f) if is_token(&f) => format!("audio/{f}"),
            _ => "audio/*".to_owned(),
        };
        let mut part = match self.data.as_ref() {
            Some(Value::String(d)) if looks_like_url(d) => Part::url(PartKind::Audio, &ct, d),
            Some(Value::String(d)) => Part {
                content_encoding: ContentEncoding::Base64,
                ..Part::inline(PartKind::Audio, &ct, d.clone())
            },
            _ => without_content(Part::inline(PartKind::Audio, &ct, String::new()), false),
        };
        if let Some(f) = &self.format {
            part.metadata = Some(object([("format", json!(f))]));
        }
        part
    }

    #[inline]
    fn file_part(&self) -> Part {
        let from_name = self
            .filename
            .as_deref()
            .and_then(extension)
            .and_then(mime_from_extension);
        let mut meta = JsonMap::new();
        if let Some(f) = &self.filename {
            meta.insert("filename".into(), json!(f));
        }
        if let Some(id) = &self.file_id {
            meta.insert("fileId".into(), json!(id));
        }
        let mut part = if let Some(data) = &self.file_data {
            // Base64 (the payload of a `;base64` data URL, or bare), or a data URL's
            // percent-encoded bytes: text when they are UTF-8, else base64.
            let (mime, encoding, payload) = match split_data_url(data) {
                Some(DataUrl {
                    mime,
                    base64: false,
                    data,
                }) => {
                    let (encoding, content) = percent_decoded(data);
                    (Some(mime), encoding, content)
                }
                Some(DataUrl { mime, data, .. }) => {
                    (Some(mime), ContentEncoding::Base64, data.to_owned())
                }
                None => (None, ContentEncoding::Base64, data.clone()),
            };
            let ct = mime
                .filter(|m| !m.is_empty())
                .or(from_name.map(str::to_owned))
                .unwrap_or_else(|| "application/octet-stream".to_owned());
            if let Some(url) = &self.file_url {
                meta.insert("fileUrl".into(), json!(url));
            }
            Part {
                content_encoding: encoding,
                ..Part::inline(PartKind::File, &ct, payload)
            }
        } else {
            let ct = from_name.unwrap_or("application/octet-stream");
            match &self.file_url {
                Some(url) => Part::url(PartKind::File, ct, url.clone()),
                None => without_content(Part::url(PartKind::File, ct, ""), false),
            }
        };
        if !meta.is_empty() {
            part.metadata = Some(meta);
        }
        part
    }
}

/// `part` without its `contentUrl` when the content had none.
#[inline]
fn without_content(mut part: Part, has_url: bool) -> Part {
    if !has_url {
        part.content_url = None;
        part.content = None;
    }
    part
}

/// `/function` for index 0, `/function/<index>` for others.
#[inline]
fn index_name(base: &str, index: usize) -> String {
    if index == 0 {
        base.to_owned()
    } else {
        format!("{base}/{index}")
    }
}

/// A `tool_call` or `tool_result` part from a call's `data`: content is `data[field]` (a string as
/// is, other JSON as text), or the whole `data` as JSON text.
#[inline]
fn call_part(data: Option<&Value>, kind: PartKind, field: &str) -> Part {
    let mut meta = JsonMap::new();
    let mut content = None;
    if let Some(Value::Object(o)) = data {
        for (k, v) in o {
            match k.as_str() {
                "call_id" => {
                    meta.insert("toolCallId".into(), v.clone());
                }
                "name" => {
                    meta.insert("toolName".into(), v.clone());
                }
                f if f == field => {
                    content = Some(match v {
                        Value::String(s) => s.clone(),
                        other => crate::json::json_text(other),
                    });
                }
                _ => {
                    meta.insert(k.clone(), v.clone());
                }
            }
        }
    }
    let content = content.or_else(|| data.map(crate::json::json_text));
    let ct = match (&kind, content.as_deref()) {
        (PartKind::ToolResult, Some(c)) if crate::json::parse_value(c).is_err() => "text/plain",
        _ => "application/json",
    };
    let mut part = Part::inline(kind, ct, String::new());
    part.content = content;
    if !meta.is_empty() {
        part.metadata = Some(meta);
    }
    part
}

#[inline]
fn part_status(content: Option<&RunStatus>, message: Option<&RunStatus>) -> PartStatus {
    match content {
        Some(RunStatus::Completed) => PartStatus::Complete,
        Some(
            RunStatus::Incomplete | RunStatus::Failed | RunStatus::Canceled | RunStatus::Rejected,
        ) => PartStatus::Incomplete,
        // Still in progress, but its message is over: the message says how it ended.
        Some(_) => match message {
            Some(RunStatus::Completed) => PartStatus::Complete,
            Some(m) if m.is_terminal() => PartStatus::Incomplete,
            _ => PartStatus::Streaming,
        },
        None if message.is_some_and(RunStatus::is_terminal) => PartStatus::Complete,
        None => PartStatus::Streaming,
    }
}

/// (Inserted one by one: `collect` would compile a stable sort of the entries into the module.)
#[inline]
fn object<const N: usize>(entries: [(&str, Value); N]) -> JsonMap {
    let mut map = JsonMap::new();
    for (k, v) in entries {
        map.insert(k.to_owned(), v);
    }
    map
}

/// RFC 2045 token characters (for a format used as a subtype).
#[inline]
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.' | b'_'))
}

/// Whether audio `data` is a reference rather than base64: `data:` or `scheme://`.
#[inline]
fn looks_like_url(s: &str) -> bool {
    if s.starts_with("data:") {
        return true;
    }
    match s.find("://") {
        Some(i) => {
            let scheme = s.get(..i).unwrap_or("");
            !scheme.is_empty()
                && scheme
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        }
        None => false,
    }
}

/// A `data:` URL (RFC 2397) split into its MIME type (lowercased, without parameters; may be
/// empty) and its payload after the comma.
#[inline]
fn split_data_url(url: &str) -> Option<DataUrl<'_>> {
    let rest = url
        .get(..5)?
        .eq_ignore_ascii_case("data:")
        .then(|| url.get(5..))??;
    let comma = rest.find(',')?;
    let header = rest.get(..comma)?;
    let mime = header.split(';').next().unwrap_or("").trim();
    // Fetch's data: URL processor: base64 when the header ends with `;` and `base64` (spaces
    // between them allowed, any case).
    let base64 = header
        .trim_end()
        .rsplit_once(';')
        .is_some_and(|(_, last)| last.trim_start_matches(' ').eq_ignore_ascii_case("base64"));
    Some(DataUrl {
        mime: mime.to_ascii_lowercase(),
        base64,
        data: rest.get(comma + 1..)?,
    })
}

/// A `data:` URL (RFC 2397) taken apart: its media type (lowercase, parameters dropped; empty
/// when it names none), whether its data is base64, and the data as written.
struct DataUrl<'a> {
    mime: String,
    base64: bool,
    data: &'a str,
}

/// The bytes of a data URL's percent-encoded data (the URL standard's percent-decode: `%` and
/// two hex digits is a byte, anything else is itself): the text if they are UTF-8, else their
/// base64.
#[inline]
fn percent_decoded(data: &str) -> (ContentEncoding, String) {
    let b = data.as_bytes();
    let mut bytes = Vec::with_capacity(b.len());
    let mut i = 0;
    let hex = |j: usize| b.get(j).and_then(|&h| (h as char).to_digit(16));
    while let Some(&c) = b.get(i) {
        match (c == b'%').then(|| hex(i + 1).zip(hex(i + 2))).flatten() {
            Some((hi, lo)) => {
                bytes.push((hi * 16 + lo) as u8);
                i += 3;
            }
            None => {
                bytes.push(c);
                i += 1;
            }
        }
    }
    match String::from_utf8(bytes) {
        Ok(text) => (ContentEncoding::Plain, text),
        Err(e) => {
            use base64::Engine as _;
            let encoded = base64::engine::general_purpose::STANDARD.encode(e.into_bytes());
            (ContentEncoding::Base64, encoded)
        }
    }
}

/// The MIME type of a `data:` URL, when it names one.
#[inline]
fn data_url_mime(url: &str) -> Option<String> {
    split_data_url(url)
        .map(|d| d.mime)
        .filter(|m| !m.is_empty())
}

/// The lowercase extension of a URL's (or file name's) last path segment, ignoring `?query` and
/// `#fragment`.
#[inline]
fn extension(url: &str) -> Option<String> {
    if url
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
    {
        return None;
    }
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let path = url.get(..end)?;
    let last = path.rsplit('/').next()?;
    let (stem, ext) = last.rsplit_once('.')?;
    (!stem.is_empty() && !ext.is_empty()).then(|| ext.to_ascii_lowercase())
}

#[inline]
fn image_mime(ext: String) -> Option<&'static str> {
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        _ => return None,
    })
}

#[inline]
fn video_mime(ext: String) -> Option<&'static str> {
    Some(match ext.as_str() {
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "mov" => "video/quicktime",
        "ogv" => "video/ogg",
        _ => return None,
    })
}

/// The content type of a file from its (lowercase) extension: `pdf`, `txt`, `md`, `csv`, `json`,
/// `html`/`htm`, `xml`, `zip`, `py` (`text/x-python`), `rs` (`text/x-rust`), `js`
/// (`application/javascript`), `ts` (`application/typescript`), `png`, `jpg`/`jpeg`, `gif`, `webp`,
/// `svg`, `mp3`, `wav`, `mp4`, `webm`.
#[inline]
pub(crate) fn mime_from_extension(ext: String) -> Option<&'static str> {
    Some(match ext.as_str() {
        "pdf" => "application/pdf",
        "txt" => "text/plain",
        "md" => "text/markdown",
        "csv" => "text/csv",
        "json" => "application/json",
        "html" | "htm" => "text/html",
        "xml" => "application/xml",
        "zip" => "application/zip",
        "py" => "text/x-python",
        "rs" => "text/x-rust",
        "js" => "application/javascript",
        "ts" => "application/typescript",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        other => return image_mime(other.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content(v: Value) -> Content {
        serde_json::from_value(v).unwrap()
    }

    fn part(v: Value) -> Part {
        content(v).to_part(&MessageType::Message, Some(&RunStatus::Completed))
    }

    #[test]
    fn images_take_their_type_from_the_url() {
        let cases = [
            ("data:image/webp;base64,AAAA", "image/webp"),
            ("DATA:Image/PNG,xyz", "image/png"),
            ("https://x.org/a/cat.JPG?size=2#top", "image/jpeg"),
            ("https://x.org/logo.svg", "image/svg+xml"),
            ("https://x.org/render", "image/*"),
            ("https://x.org/.png", "image/*"),
            ("data:,plain", "image/*"),
        ];
        for (url, ct) in cases {
            let p = part(json!({"type": "image", "image_url": url}));
            assert_eq!(p.content_type, ct, "{url}");
            assert_eq!(p.content_url.as_deref(), Some(url));
            assert_eq!(p.content, None);
        }
    }

    #[test]
    fn audio_file_video_refusal_unknown() {
        let a = part(json!({"type": "audio", "data": "https://x/a.mp3", "format": "mp3"}));
        assert_eq!(
            (a.content_type.as_str(), a.content_url.as_deref()),
            ("audio/mpeg", Some("https://x/a.mp3"))
        );
        let a = part(json!({"type": "audio", "data": "UklGRg==", "format": "wav"}));
        assert_eq!(a.content_type, "audio/wav");
        assert_eq!(a.content_encoding, ContentEncoding::Base64);
        assert_eq!(a.read_bytes().unwrap().as_ref(), b"RIFF");
        let a = part(json!({"type": "audio", "data": "UklGRg=="}));
        assert_eq!(a.content_type, "audio/*");

        let f = part(
            json!({"type": "file", "file_url": "https://x/r", "filename": "report.PDF", "file_id": "f1"}),
        );
        assert_eq!(f.content_type, "application/pdf");
        assert_eq!(f.content_url.as_deref(), Some("https://x/r"));
        assert_eq!(f.metadata.as_ref().unwrap()["fileId"], "f1");
        assert_eq!(f.metadata.as_ref().unwrap()["filename"], "report.PDF");
        let f = part(
            json!({"type": "file", "file_data": "data:text/csv;base64,YSxi", "file_url": "https://x/r"}),
        );
        assert_eq!(f.content_type, "text/csv");
        assert_eq!(f.read_text().unwrap(), "a,b");
        assert_eq!(f.content_url, None);
        assert_eq!(f.metadata.as_ref().unwrap()["fileUrl"], "https://x/r");
        let f = part(json!({"type": "file", "file_data": "AAEC", "filename": "blob"}));
        assert_eq!(f.content_type, "application/octet-stream");
        // A data URL without `;base64` holds percent-encoded bytes: UTF-8 ones are text, others
        // base64; `;base64` is recognized in any case and after spaces.
        let f = part(json!({"type": "file", "file_data": "data:text/plain,hello%20w%C3%B6rld%zz"}));
        assert_eq!(f.content_encoding, ContentEncoding::Plain);
        assert_eq!(f.read_text().unwrap(), "hello wörld%zz");
        let f = part(json!({"type": "file", "file_data": "data:application/octet-stream,%FF%00a"}));
        assert_eq!(f.content_encoding, ContentEncoding::Base64);
        assert_eq!(f.read_bytes().unwrap().as_ref(), b"\xff\x00a");
        for url in [
            "data:text/csv; BASE64,YSxi",
            "data:text/csv;charset=utf-8;base64,YSxi",
        ] {
            let f = part(json!({"type": "file", "file_data": url}));
            assert_eq!(
                (f.content_type.as_str(), f.read_text().unwrap().as_ref()),
                ("text/csv", "a,b"),
                "{url}"
            );
        }
        let f = part(json!({"type": "file", "file_data": "data:,a%2Cb", "filename": "x.csv"}));
        assert_eq!(
            (f.content_type.as_str(), f.read_text().unwrap().as_ref()),
            ("text/csv", "a,b")
        );

        let v = part(json!({"type": "video", "video_url": "https://x/clip.mov"}));
        assert_eq!(
            (v.kind.clone(), v.content_type.as_str()),
            (PartKind::File, "video/quicktime")
        );
        let v = part(json!({"type": "video", "video_url": "https://x/stream"}));
        assert_eq!(v.content_type, "video/*");

        let r = part(json!({"type": "refusal", "refusal": "No."}));
        assert_eq!(
            (r.kind.clone(), r.read_text().unwrap().as_ref()),
            (PartKind::Refusal, "No.")
        );

        let u = part(json!({"type": "hologram", "beam": 3}));
        assert_eq!(u.kind, PartKind::Data);
        let j = u.read_json().unwrap();
        assert_eq!(
            (j["type"].clone(), j["beam"].clone()),
            (json!("hologram"), json!(3))
        );
    }

    #[test]
    fn statuses() {
        let c = |s: Option<&str>| {
            let mut v = json!({"type": "text", "text": "x"});
            if let Some(s) = s {
                v["status"] = json!(s);
            }
            content(v)
        };
        let m = MessageType::Message;
        use RunStatus::{Completed as Done, InProgress as In, Incomplete as Cut};
        let cases = [
            (Some("completed"), None, PartStatus::Complete),
            (Some("failed"), None, PartStatus::Incomplete),
            (Some("canceled"), None, PartStatus::Incomplete),
            (Some("incomplete"), None, PartStatus::Incomplete),
            (Some("in_progress"), Some(In), PartStatus::Streaming),
            (Some("in_progress"), Some(Done), PartStatus::Complete),
            (Some("in_progress"), Some(Cut), PartStatus::Incomplete),
            (Some("created"), None, PartStatus::Streaming),
            (None, Some(RunStatus::Completed), PartStatus::Complete),
            (None, Some(RunStatus::Failed), PartStatus::Complete),
            (None, Some(RunStatus::InProgress), PartStatus::Streaming),
            (None, None, PartStatus::Streaming),
        ];
        for (cs, ms, want) in cases {
            assert_eq!(c(cs).to_part(&m, ms.as_ref()).status, want, "{cs:?} {ms:?}");
        }
    }

    #[test]
    fn calls_and_outputs_by_index() {
        let out = content(
            json!({"type": "data", "index": 2, "data": {"call_id": "c", "output": "sunny"}}),
        );
        let p = out.to_part(&MessageType::PluginCallOutput, None);
        assert_eq!(p.name.as_deref(), Some("/function_output/2"));
        assert_eq!(
            (p.content_type.as_str(), p.content.as_deref()),
            ("text/plain", Some("sunny"))
        );
        assert_eq!(p.metadata.as_ref().unwrap()["toolCallId"], "c");
        let mcp = content(json!({"type": "data", "data": {"server_label": "s", "tools": []}}));
        let p = mcp.to_part(&MessageType::McpListTools, None);
        assert_eq!(p.kind, PartKind::ToolResult);
        assert_eq!(
            p.read_json().unwrap(),
            json!({"server_label": "s", "tools": []})
        );
        let call = content(
            json!({"type": "data", "data": {"call_id": "c", "name": "f", "arguments": {"a": 1}, "server_label": "s"}}),
        );
        let p = call.to_part(&MessageType::McpCall, None);
        assert_eq!(p.read_json().unwrap(), json!({"a": 1}));
        assert_eq!(p.metadata.as_ref().unwrap()["server_label"], "s");
        // The extension name wins over `/function`.
        let named =
            content(json!({"type": "data", "name": "/calls/a", "data": {"arguments": "{}"}}));
        assert_eq!(
            named
                .to_part(&MessageType::FunctionCall, None)
                .name
                .as_deref(),
            Some("/calls/a")
        );
    }
}
