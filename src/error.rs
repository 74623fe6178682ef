//! What every error of the crate has in common: a stable code and structured details.
//!
//! Each module has its own `#[non_exhaustive]` error enum (built with `thiserror`) carrying the
//! offending input and where it was found. All of them implement [`ErrorCode`], whose kebab-case
//! [`code`](ErrorCode::code) is stable across releases and is what the JavaScript `ProtocolError`
//! exposes as `error.code` (its `details` come from [`details`](ErrorCode::details)).

/// A stable, machine-readable identity for an error.
pub trait ErrorCode: std::error::Error {
    /// The error's stable kebab-case code, e.g. `event-too-large`.
    fn code(&self) -> &'static str;

    /// Structured details (a JSON object), e.g. `{"limit": 1024, "size": 2048}`. `null` when there
    /// are none.
    fn details(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
}

/// How serious a stream issue is (the `severity` of every dialect's `issue` update).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something odd that was tolerated; the stream goes on and nothing was lost.
    Warning,
    /// The response failed or the stream broke.
    Error,
}
