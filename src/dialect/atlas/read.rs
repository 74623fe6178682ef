//! Reading a [`StructuredMessage`] from a JSON value: every field's type checked, errors naming the
//! field's path.
//!
//! Paths: fields by name, array elements by index in brackets, joined by `.`: `metadata.type`,
//! `tool_calls[1].arguments`. The empty path is the value itself.

use serde_json::Value;

use super::message::{
    MessageType, ReadOptions, StructuredMessage, ToolCall, ToolResult, ToolStatus, MESSAGE_FIELDS,
    TOOL_CALL_FIELDS, TOOL_RESULT_FIELDS,
};
use super::AtlasError;
use crate::platform::{now_unix_seconds, uuid_v4};
use crate::wire::{json_map, JsonMap};

/// `path.name`, or `name` at the root.
pub(crate) fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// The value of `key`, `None` when it is missing or `null`.
pub(crate) fn present<'a>(object: &'a JsonMap, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

pub(crate) fn object<'a>(value: &'a Value, path: &str) -> Result<&'a JsonMap, AtlasError> {
    value
        .as_object()
        .ok_or_else(|| AtlasError::wrong_type(path, "object", value))
}

/// A required string field.
pub(crate) fn string(object: &JsonMap, path: &str, key: &str) -> Result<String, AtlasError> {
    match present(object, key) {
        None => Err(AtlasError::MissingField {
            path: join(path, key),
        }),
        Some(v) => v
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| AtlasError::wrong_type(&join(path, key), "string", v)),
    }
}

/// An optional string field (missing or `null` is `None`).
pub(crate) fn optional_string(
    object: &JsonMap,
    path: &str,
    key: &str,
) -> Result<Option<String>, AtlasError> {
    present(object, key)
        .map(|v| {
            v.as_str()
                .map(str::to_owned)
                .ok_or_else(|| AtlasError::wrong_type(&join(path, key), "string", v))
        })
        .transpose()
}

/// An optional object field (missing or `null` is `None`).
pub(crate) fn optional_object(
    object: &JsonMap,
    path: &str,
    key: &str,
) -> Result<Option<JsonMap>, AtlasError> {
    present(object, key)
        .map(|v| {
            v.as_object()
                .cloned()
                .ok_or_else(|| AtlasError::wrong_type(&join(path, key), "object", v))
        })
        .transpose()
}

/// An optional number field (missing or `null` is `None`).
pub(crate) fn optional_number(
    object: &JsonMap,
    path: &str,
    key: &str,
) -> Result<Option<f64>, AtlasError> {
    present(object, key)
        .map(|v| {
            v.as_f64()
                .ok_or_else(|| AtlasError::wrong_type(&join(path, key), "number", v))
        })
        .transpose()
}

/// The entries of `object` whose keys are not `known`.
pub(crate) fn extra(object: &JsonMap, known: &[&str]) -> JsonMap {
    json_map(
        object
            .iter()
            .filter(|(k, _)| !known.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone())),
    )
}

/// Checks `metadata.type`: a string or `null`; in strict mode, a known type.
pub(crate) fn check_type(
    metadata: &JsonMap,
    path: &str,
    options: &ReadOptions,
) -> Result<(), AtlasError> {
    let Some(kind) = present(metadata, "type") else {
        return Ok(());
    };
    let path = join(path, "type");
    let Some(kind) = kind.as_str() else {
        return Err(AtlasError::wrong_type(&path, "string", kind));
    };
    if options.strict && !MessageType::from(kind).is_known() {
        return Err(AtlasError::UnknownMessageType {
            path,
            value: kind.to_owned(),
        });
    }
    Ok(())
}

/// Reads a message (see [`StructuredMessage::from_value_with`]).
pub(crate) fn message(
    value: &Value,
    options: &ReadOptions,
) -> Result<StructuredMessage, AtlasError> {
    let m = object(value, "")?;
    let content = string(m, "", "content")?;

    let metadata = match optional_object(m, "", "metadata")? {
        Some(metadata) => metadata,
        None if options.strict => return Err(missing("metadata")),
        None => JsonMap::new(),
    };
    check_type(&metadata, "metadata", options)?;

    let task_id = match optional_string(m, "", "task_id")? {
        Some(id) => id,
        None if options.strict => return Err(missing("task_id")),
        None => uuid_v4(),
    };
    let timestamp = match optional_number(m, "", "timestamp")? {
        Some(t) => t,
        None if options.strict => return Err(missing("timestamp")),
        None => now_unix_seconds(),
    };

    let tool_calls = elements(m, "tool_calls")?
        .iter()
        .enumerate()
        .map(|(i, call)| tool_call(call, &format!("tool_calls[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let tool_results = elements(m, "tool_results")?
        .iter()
        .enumerate()
        .map(|(i, result)| tool_result(result, &format!("tool_results[{i}]"), options))
        .collect::<Result<Vec<_>, _>>()?;

    Ok(StructuredMessage {
        content,
        metadata,
        task_id,
        timestamp,
        tool_calls,
        tool_results,
        source_agent: optional_string(m, "", "source_agent")?,
        target_agent: optional_string(m, "", "target_agent")?,
        extra: extra(m, &MESSAGE_FIELDS),
    })
}

fn missing(path: &str) -> AtlasError {
    AtlasError::MissingField {
        path: path.to_owned(),
    }
}

/// An array field; missing or `null` is empty.
fn elements<'a>(m: &'a JsonMap, key: &str) -> Result<&'a [Value], AtlasError> {
    match present(m, key) {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(v) => Err(AtlasError::wrong_type(key, "array", v)),
    }
}

/// Reads a tool call at `path`.
pub(crate) fn tool_call(value: &Value, path: &str) -> Result<ToolCall, AtlasError> {
    let c = object(value, path)?;
    let id = optional_string(c, path, "id")?.unwrap_or_else(uuid_v4);
    let name = string(c, path, "name")?;
    let arguments =
        optional_object(c, path, "arguments")?.ok_or_else(|| AtlasError::MissingField {
            path: join(path, "arguments"),
        })?;
    Ok(ToolCall {
        id,
        name,
        arguments,
        extra: extra(c, &TOOL_CALL_FIELDS),
    })
}

/// Reads a tool result at `path`.
pub(crate) fn tool_result(
    value: &Value,
    path: &str,
    options: &ReadOptions,
) -> Result<ToolResult, AtlasError> {
    let r = object(value, path)?;
    let name = string(r, path, "name")?;
    let call_id = string(r, path, "call_id")?;
    let status = optional_string(r, path, "status")?
        .map(|s| ToolStatus::from(s.as_str()))
        .unwrap_or_default();
    if let (true, ToolStatus::Other(value)) = (options.strict, &status) {
        return Err(AtlasError::UnknownToolStatus {
            path: join(path, "status"),
            value: value.clone(),
        });
    }
    Ok(ToolResult {
        name,
        result: r.get("result").cloned().unwrap_or(Value::Null),
        call_id,
        status,
        error: optional_string(r, path, "error")?,
        extra: extra(r, &TOOL_RESULT_FIELDS),
    })
}
