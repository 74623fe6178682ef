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
    #[error("the server answered HTTP {status}: {body}")]
    HttpStatus {
        /// The HTTP status code.
        status: u16,
        /// The response body as text (truncated to 64 KiB).
        body: String,
    },
    /// The server answered 2xx but not with `text/event-stream`.
    #[error("expected a text/event-stream response, got content type `{content_type}`")]
    NotEventStream {
        /// The `Content-Type` header received (`""` if none).
        content_type: String,
        /// The response body as text (truncated to 64 KiB).
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

/// Truncates a response body kept in an error to at most 64 KiB (at a character boundary).
pub fn truncate_body(mut body: String) -> String {
    const MAX: usize = 64 * 1024;
    if body.len() > MAX {
        let mut end = MAX;
        while !body.is_char_boundary(end) {
            end -= 1;
        }
        body.truncate(end);
    }
    body
}
