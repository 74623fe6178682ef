//! JSON scanning and writing for the streaming path (the Agent API event reader and assembler).
//!
//! This is the part of `agentwire::json` compiled at opt-level 3; the incremental parser of
//! streamed tool arguments (`PartialJson`) is compiled with the rest of agentwire, for size. Use
//! it through `agentwire::json`, which documents it.

pub(crate) mod scan;
pub(crate) mod write;

/// Appends `s` to `out` as a JSON string literal (serde_json's text), compiled here at opt-level
/// 3. For agentwire's hand-written JSON writers (`agentwire::json::changes_json`); not API.
#[doc(hidden)]
pub fn write_json_str(out: &mut String, s: &str) {
    write::write_str(out, s);
}

/// Appends the JSON text of `value` to `out` (serde_json's text), compiled here at opt-level 3:
/// `null`, booleans, strings and empty arrays and objects directly, anything else through
/// serde_json. For agentwire's hand-written JSON writers; not API.
#[doc(hidden)]
pub fn write_json_value(out: &mut String, value: &serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::String(s) => write::write_str(out, s),
        Value::Array(a) if a.is_empty() => out.push_str("[]"),
        Value::Object(m) if m.is_empty() => out.push_str("{}"),
        _ => write::write_value(out, &mut Vec::new(), value),
    }
}
