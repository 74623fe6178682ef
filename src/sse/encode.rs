//! Writing `text/event-stream` (WHATWG HTML §9.2.5 "Parsing an event stream", the ABNF it gives).

use super::SseError;

fn has_line_break(s: &str) -> bool {
    s.bytes().any(|b| b == b'\n' || b == b'\r')
}

/// Appends one event to `out`: `event: …` (if given), `id: …` (if given), one `data: …` line per line
/// of `data` (split at CRLF, LF or CR, so the decoder gives `data` back with LF line breaks), and the
/// blank line that dispatches it.
///
/// # Errors
/// [`SseError::Unencodable`] if `event` or `id` contains a line break, or `id` contains U+0000 (the
/// decoder would ignore such an id). Nothing is written then.
pub fn encode_event(
    out: &mut String,
    event: Option<&str>,
    data: &str,
    id: Option<&str>,
) -> Result<(), SseError> {
    if event.is_some_and(has_line_break) {
        return Err(SseError::Unencodable {
            field: "event",
            what: "a line break",
        });
    }
    if let Some(id) = id {
        if has_line_break(id) {
            return Err(SseError::Unencodable {
                field: "id",
                what: "a line break",
            });
        }
        if id.contains('\0') {
            return Err(SseError::Unencodable {
                field: "id",
                what: "U+0000 NULL",
            });
        }
    }
    if let Some(event) = event {
        out.push_str("event: ");
        out.push_str(event);
        out.push('\n');
    }
    if let Some(id) = id {
        out.push_str("id: ");
        out.push_str(id);
        out.push('\n');
    }
    let mut rest = data;
    loop {
        let end = rest.find(['\n', '\r']);
        out.push_str("data: ");
        out.push_str(&rest[..end.unwrap_or(rest.len())]);
        out.push('\n');
        match end {
            None => break,
            Some(i) => {
                let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + skip..];
            }
        }
    }
    out.push('\n');
    Ok(())
}

/// Appends a `retry: <ms>` line (the reconnection time, in milliseconds) to `out`.
pub fn encode_retry(out: &mut String, milliseconds: u64) {
    out.push_str("retry: ");
    out.push_str(&milliseconds.to_string());
    out.push('\n');
}

/// Appends a comment line (`: text`), which decoders ignore: servers send them as keep-alives.
///
/// # Errors
/// [`SseError::Unencodable`] if `text` contains a line break.
pub fn encode_comment(out: &mut String, text: &str) -> Result<(), SseError> {
    if has_line_break(text) {
        return Err(SseError::Unencodable {
            field: "comment",
            what: "a line break",
        });
    }
    out.push_str(": ");
    out.push_str(text);
    out.push('\n');
    Ok(())
}
