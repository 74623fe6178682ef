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

/// A [`details`](ErrorCode::details) object built field by field: the same JSON as
/// `json!({"name": name, "index": index})`, written
/// `Details::new().field("name", name).field("index", index).into()`.
///
/// Each field is a call (one function per value type, not inlined), where `json!` inlines a
/// `to_value` and a map insert per field: in the wasm module the errors' details took 50 KB less
/// (6.5 KB gzipped) this way. A value that does not serialize (a map with non-string keys)
/// becomes `null` where `json!` would panic.
#[derive(Debug, Default)]
pub struct Details(serde_json::Map<String, serde_json::Value>);

impl Details {
    /// An empty object.
    pub fn new() -> Self {
        Self::default()
    }

    /// The object with `key` set to `value` as JSON (`None` becomes `null`).
    #[inline(never)]
    pub fn field<T: serde::Serialize + ?Sized>(mut self, key: &str, value: &T) -> Self {
        self.put(key, crate::json::to_tree(value).unwrap_or_default());
        self
    }

    #[inline(never)]
    fn put(&mut self, key: &str, value: serde_json::Value) {
        self.0.insert(key.to_owned(), value);
    }
}

impl serde::Serialize for Details {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl From<Details> for serde_json::Value {
    fn from(details: Details) -> Self {
        serde_json::Value::Object(details.0)
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
