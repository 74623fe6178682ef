//! Errors of talking to a server: what the JavaScript client raises when a request does not yield a
//! usable event stream. The core does no I/O; this module only names the failures so that every
//! binding reports them with the same codes.

use crate::error::ErrorCode;

/// A failure of the request or of the connection, as opposed to a problem inside the stream (those
/// are each dialect's errors).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The server answered with a non-2xx HTTP status.
    #[error("the server answered HTTP {status}: {}", Excerpt(.body))]
    HttpStatus {
        /// The HTTP status code.
        status: u16,
        /// The response body as text (truncated to 64 KiB; in the wasm clients, what came before
        /// the stall timeout passed without a byte, if the body stopped).
        body: String,
    },
    /// The server answered 2xx but not with `text/event-stream`.
    #[error("expected a text/event-stream response, got content type `{content_type}`")]
    NotEventStream {
        /// The `Content-Type` header received (`""` if none).
        content_type: String,
        /// The response body as text (truncated to 64 KiB; read as for `HttpStatus`).
        body: String,
    },
    /// The connection failed or broke (the network, not the user, ended it).
    #[error("the connection failed: {reason}")]
    Network {
        /// What the platform reported.
        reason: String,
    },
    /// The user aborted the request (`AbortSignal`); what arrived before is kept.
    #[error("the request was aborted")]
    Aborted,
    /// No byte arrived for longer than the stall timeout.
    #[error("no data for {timeout_ms} ms: the stream stalled")]
    Stalled {
        /// The timeout, in milliseconds.
        timeout_ms: u32,
    },
    /// An argument from JavaScript does not have the declared shape.
    #[error("{what} is not valid: {reason}")]
    InvalidArgument {
        /// Which argument.
        what: String,
        /// Why.
        reason: String,
    },
    /// A bug: a value that should always convert did not.
    #[error("internal error: {reason}")]
    Internal {
        /// What failed.
        reason: String,
    },
}

impl ErrorCode for TransportError {
    fn code(&self) -> &'static str {
        match self {
            TransportError::HttpStatus { .. } => "http-status",
            TransportError::NotEventStream { .. } => "not-event-stream",
            TransportError::Network { .. } => "network-error",
            TransportError::Aborted => "aborted",
            TransportError::Stalled { .. } => "stalled",
            TransportError::InvalidArgument { .. } => "invalid-argument",
            TransportError::Internal { .. } => "internal-error",
        }
    }

    fn details(&self) -> serde_json::Value {
        use crate::error::Details;
        match self {
            TransportError::HttpStatus { status, body } => Details::new()
                .field("status", status)
                .field("body", body)
                .into(),
            TransportError::NotEventStream { content_type, body } => Details::new()
                .field("contentType", content_type)
                .field("body", body)
                .into(),
            TransportError::Network { reason } => Details::new().field("reason", reason).into(),
            TransportError::Aborted => Details::new().into(),
            TransportError::Stalled { timeout_ms } => {
                Details::new().field("timeoutMs", timeout_ms).into()
            }
            TransportError::InvalidArgument { what, reason } => Details::new()
                .field("what", what)
                .field("reason", reason)
                .into(),
            TransportError::Internal { reason } => Details::new().field("reason", reason).into(),
        }
    }
}

/// The start of a response body for an error's message: its first 200 characters, then `…` if it
/// goes on (the whole body, up to 64 KiB, is in the error's details).
struct Excerpt<'a>(&'a str);

impl std::fmt::Display for Excerpt<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const CHARS: usize = 200;
        match self.0.char_indices().nth(CHARS) {
            Some((end, _)) => write!(f, "{}…", &self.0[..end]),
            None => f.write_str(self.0),
        }
    }
}

/// Truncates a response body kept in an error to at most 64 KiB (at a character boundary).
pub fn truncate_body(mut body: String) -> String {
    let end = kept_prefix(&body).len();
    body.truncate(end);
    body
}

/// The part of a text an error keeps (a response body, an input that did not read): its first
/// 64 KiB, cut at a character boundary.
pub fn kept_prefix(text: &str) -> &str {
    let mut end = text.len().min(64 * 1024);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

/// Doubled waits between resume attempts stop growing at this many milliseconds (30 s), unless the
/// first wait was longer (see [`reconnect_wait_ms`]).
pub const MAX_BACKOFF_MS: u32 = 30_000;

/// How long to wait before the next attempt to resume a broken stream, in milliseconds.
///
/// - The first wait (`previous` is `None`) is the server's reconnection time, which its latest
///   valid SSE `retry` field set (WHATWG HTML §9.2.6; `server_retry_ms`, as
///   [`SseDecoder::retry`](crate::sse::SseDecoder::retry) gives it), or `initial_ms` if it sent
///   none. A server's time is honoured as it is, up to `u32::MAX` ms (about 49.7 days; a longer
///   one is taken as that, never wrapped around to a short one).
/// - Each later wait doubles `previous`, up to [`MAX_BACKOFF_MS`] or `previous` itself if that is
///   longer: the waits never get shorter.
#[must_use]
pub fn reconnect_wait_ms(
    previous: Option<u32>,
    server_retry_ms: Option<u64>,
    initial_ms: u32,
) -> u32 {
    match previous {
        None => server_retry_ms.map_or(initial_ms, |ms| u32::try_from(ms).unwrap_or(u32::MAX)),
        Some(wait) => wait.saturating_mul(2).min(wait.max(MAX_BACKOFF_MS)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_http_status_message_holds_the_bodys_start_and_its_details_the_body() {
        let short = TransportError::HttpStatus {
            status: 503,
            body: "busy".into(),
        };
        assert_eq!(short.to_string(), "the server answered HTTP 503: busy");
        let body = "é".repeat(70_000);
        let long = TransportError::HttpStatus {
            status: 500,
            body: truncate_body(body.clone()),
        };
        let message = long.to_string();
        assert_eq!(
            message,
            format!("the server answered HTTP 500: {}…", "é".repeat(200))
        );
        assert_eq!(
            long.details()["body"].as_str().map(str::len),
            Some(64 * 1024)
        );
    }

    #[test]
    fn the_first_wait_is_the_servers_retry_time_else_the_initial_one() {
        assert_eq!(reconnect_wait_ms(None, None, 500), 500);
        assert_eq!(reconnect_wait_ms(None, Some(250), 500), 250);
        assert_eq!(reconnect_wait_ms(None, Some(0), 500), 0);
        assert_eq!(reconnect_wait_ms(None, Some(120_000), 500), 120_000);
    }

    #[test]
    fn a_retry_time_past_u32_is_the_longest_wait_not_a_wrapped_short_one() {
        // 2^32 ms would be 0 if cast, 2^32 + 5 would be 5: an immediate reconnect.
        assert_eq!(reconnect_wait_ms(None, Some(1 << 32), 500), u32::MAX);
        assert_eq!(reconnect_wait_ms(None, Some((1 << 32) + 5), 500), u32::MAX);
        assert_eq!(reconnect_wait_ms(None, Some(u64::MAX), 500), u32::MAX);
        assert_eq!(
            reconnect_wait_ms(None, Some(u64::from(u32::MAX)), 500),
            u32::MAX
        );
    }

    #[test]
    fn later_waits_double_up_to_30_s_and_never_shrink() {
        let waits: Vec<u32> = std::iter::successors(Some(250), |&w| {
            Some(reconnect_wait_ms(Some(w), Some(250), 500))
        })
        .take(10)
        .collect();
        assert_eq!(
            waits,
            [250, 500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]
        );
        // A server's longer time is kept, not cut to 30 s at the second attempt.
        assert_eq!(reconnect_wait_ms(Some(60_000), Some(60_000), 500), 60_000);
        assert_eq!(reconnect_wait_ms(Some(u32::MAX), None, 500), u32::MAX);
        assert_eq!(reconnect_wait_ms(Some(0), None, 500), 0);
    }
}
