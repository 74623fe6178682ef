//! The sentences of tool errors: written for a model to read and act on, each naming the argument
//! (`'options.depth'`, `'files[2].path'`), what was required and what it got.

use serde_json::Value;

use super::schema::JsonType;
use crate::json::PathSegment;

/// Characters of a string value quoted in a message before it is cut with `…`.
const QUOTE_CHARS: usize = 60;
/// Characters of a JSON value (an `enum` option, a `const`) shown before it is cut with `…`.
const PREVIEW_CHARS: usize = 80;
/// `enum` options listed before `…`.
const ENUM_OPTIONS: usize = 20;

/// Whether a key can be written bare in a path (`options.depth`), else `["a.b"]`.
fn is_plain(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '$')
}

/// A path as messages write it: `options.depth`, `files[2].path`, `headers["x.y"]`.
pub(crate) fn display_path(path: &[PathSegment]) -> String {
    let mut out = String::new();
    for (i, seg) in path.iter().enumerate() {
        match seg {
            PathSegment::Key(k) if is_plain(k) => {
                if i > 0 {
                    out.push('.');
                }
                out.push_str(k);
            }
            PathSegment::Key(k) => {
                out.push('[');
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push(']');
            }
            PathSegment::Index(n) => {
                out.push('[');
                out.push_str(&n.to_string());
                out.push(']');
            }
        }
    }
    out
}

/// `Argument 'top_k'`, or `The arguments` for the root.
fn subject(path: &[PathSegment]) -> String {
    if path.is_empty() {
        "The arguments".to_owned()
    } else {
        format!("Argument '{}'", display_path(path))
    }
}

/// A string as JSON, cut after [`QUOTE_CHARS`] characters.
pub(crate) fn quote(s: &str) -> String {
    let mut chars = s.chars();
    let head: String = chars.by_ref().take(QUOTE_CHARS).collect();
    let mut q = serde_json::to_string(&head).unwrap_or_default();
    if chars.next().is_some() {
        q.insert(q.len().saturating_sub(1), '…');
    }
    q
}

/// What a value is, for "got …": `string "3"`, `number 3.5`, `boolean true`, `null`, `array`,
/// `object`.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("string {}", quote(s)),
        Value::Number(n) => format!("number {n}"),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Null => "null".to_owned(),
        Value::Array(_) => "array".to_owned(),
        Value::Object(_) => "object".to_owned(),
    }
}

/// Compact JSON of `value`, cut after about [`PREVIEW_CHARS`] characters. Iterative.
pub(crate) fn preview(value: &Value) -> String {
    enum Item<'a> {
        Value(&'a Value),
        Text(&'static str),
        Key(&'a str),
    }
    let mut out = String::new();
    let mut stack = vec![Item::Value(value)];
    while let Some(item) = stack.pop() {
        if out.chars().count() > PREVIEW_CHARS {
            out.push('…');
            break;
        }
        match item {
            Item::Text(t) => out.push_str(t),
            Item::Key(k) => {
                out.push_str(&quote(k));
                out.push(':');
            }
            Item::Value(Value::String(s)) => out.push_str(&quote(s)),
            Item::Value(Value::Array(a)) => {
                out.push('[');
                stack.push(Item::Text("]"));
                if a.len() > 10 {
                    stack.push(Item::Text(",…"));
                }
                for (i, v) in a.iter().take(10).enumerate().rev() {
                    stack.push(Item::Value(v));
                    if i > 0 {
                        stack.push(Item::Text(","));
                    }
                }
            }
            Item::Value(Value::Object(m)) => {
                out.push('{');
                stack.push(Item::Text("}"));
                if m.len() > 10 {
                    stack.push(Item::Text(",…"));
                }
                let members: Vec<_> = m.iter().take(10).collect();
                for (i, (k, v)) in members.into_iter().enumerate().rev() {
                    stack.push(Item::Value(v));
                    stack.push(Item::Key(k));
                    if i > 0 {
                        stack.push(Item::Text(","));
                    }
                }
            }
            Item::Value(scalar) => out.push_str(&agentwire_core::json::json_text(scalar)),
        }
    }
    out
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// `1`, `1 and 2`, `1, 2 and 3`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

pub(crate) fn missing(path: &[PathSegment]) -> String {
    format!("Missing required argument '{}'.", display_path(path))
}

pub(crate) fn missing_dependent(path: &[PathSegment], given: &[PathSegment]) -> String {
    format!(
        "Missing argument '{}', required when '{}' is given.",
        display_path(path),
        display_path(given)
    )
}

pub(crate) fn property_name(object: &[PathSegment], name: &str) -> String {
    if object.is_empty() {
        format!(
            "Argument name {} is not allowed by the schema under 'propertyNames'.",
            quote(name)
        )
    } else {
        format!(
            "Property name {} of '{}' is not allowed by the schema under 'propertyNames'.",
            quote(name),
            display_path(object)
        )
    }
}

pub(crate) fn unknown(path: &[PathSegment], expected: &[&str]) -> String {
    let name = display_path(path);
    if !expected.is_empty() {
        return format!(
            "Unknown argument '{name}'; expected one of: {}.",
            expected.join(", ")
        );
    }
    match path.split_last() {
        Some((_, parent)) if !parent.is_empty() => format!(
            "Unknown argument '{name}'; '{}' takes no properties.",
            display_path(parent)
        ),
        _ => format!("Unknown argument '{name}'; the tool takes no arguments."),
    }
}

pub(crate) fn wrong_type(path: &[PathSegment], types: &[JsonType], value: &Value) -> String {
    let names: Vec<&str> = types.iter().map(|t| t.phrase()).collect();
    format!(
        "{} must be {}, got {}.",
        subject(path),
        or_list(&names),
        describe(value)
    )
}

pub(crate) fn not_const(path: &[PathSegment], constant: &Value, value: &Value) -> String {
    format!(
        "{} must be {}, got {}.",
        subject(path),
        preview(constant),
        describe(value)
    )
}

pub(crate) fn not_in_enum(path: &[PathSegment], options: &[Value], value: &Value) -> String {
    let mut list: Vec<String> = options.iter().take(ENUM_OPTIONS).map(preview).collect();
    if options.len() > ENUM_OPTIONS {
        list.push("…".to_owned());
    }
    format!(
        "{} must be one of: {}; got {}.",
        subject(path),
        list.join(", "),
        describe(value)
    )
}

pub(crate) fn out_of_range(
    path: &[PathSegment],
    phrase: &str,
    bound: &serde_json::Number,
    value: &serde_json::Number,
) -> String {
    format!("{} must be {phrase} {bound}, got {value}.", subject(path))
}

pub(crate) fn not_multiple(
    path: &[PathSegment],
    m: &serde_json::Number,
    value: &serde_json::Number,
) -> String {
    format!("{} must be a multiple of {m}, got {value}.", subject(path))
}

pub(crate) fn pattern_mismatch(path: &[PathSegment], pattern: &str, value: &str) -> String {
    format!(
        "{} must match the regular expression /{pattern}/, got string {}.",
        subject(path),
        quote(value)
    )
}

/// The regular expression engine failed on the string at `path`, or (`name`) on a member name
/// of the object there, matched by `patternProperties`.
pub(crate) fn pattern_failed(
    path: &[PathSegment],
    name: Option<&str>,
    pattern: &str,
    reason: &str,
) -> String {
    let what = match name {
        None => subject(path),
        Some(name) if path.is_empty() => format!("Argument name {}", quote(name)),
        Some(name) => format!("Property name {} of '{}'", quote(name), display_path(path)),
    };
    format!("{what} could not be checked against the regular expression /{pattern}/: {reason}.")
}

pub(crate) fn string_length(path: &[PathSegment], min: bool, bound: u64, len: u64) -> String {
    format!(
        "{} must be {} {} long, got {len}.",
        subject(path),
        if min { "at least" } else { "at most" },
        plural(bound, "character", "characters")
    )
}

pub(crate) fn array_length(path: &[PathSegment], min: bool, bound: u64, len: u64) -> String {
    format!(
        "{} must have {} {}, got {len}.",
        subject(path),
        if min { "at least" } else { "at most" },
        plural(bound, "item", "items")
    )
}

pub(crate) fn property_count(path: &[PathSegment], min: bool, bound: u64, len: u64) -> String {
    format!(
        "{} must have {} {}, got {len}.",
        subject(path),
        if min { "at least" } else { "at most" },
        plural(bound, "property", "properties")
    )
}

pub(crate) fn contains_count(path: &[PathSegment], min: bool, bound: u64, got: u64) -> String {
    format!(
        "{} must have {} {} matching the schema under 'contains', got {got}.",
        subject(path),
        if min { "at least" } else { "at most" },
        plural(bound, "item", "items")
    )
}

pub(crate) fn duplicate_items(path: &[PathSegment], i: usize, j: usize) -> String {
    format!(
        "{} must not contain duplicate items; items {i} and {j} are equal.",
        subject(path)
    )
}

pub(crate) fn no_match(path: &[PathSegment], keyword: &str, failures: &[Vec<String>]) -> String {
    let how = if keyword == "oneOf" {
        "exactly one"
    } else {
        "at least one"
    };
    let forms: Vec<String> = failures
        .iter()
        .enumerate()
        .map(|(i, msgs)| format!("({}) {}", i + 1, msgs.join(" ")))
        .collect();
    format!(
        "{} must match {how} of the {} allowed forms ({keyword}) but matches none: {}",
        subject(path),
        failures.len(),
        forms.join(" ")
    )
}

pub(crate) fn multiple_matches(path: &[PathSegment], forms: usize, passed: &[usize]) -> String {
    let which: Vec<String> = passed.iter().map(|i| (i + 1).to_string()).collect();
    format!(
        "{} must match exactly one of the {forms} allowed forms (oneOf) but matches forms {}.",
        subject(path),
        and_list(&which)
    )
}

pub(crate) fn matches_not(path: &[PathSegment], value: &Value) -> String {
    format!(
        "{} must not match the schema under 'not', got {}.",
        subject(path),
        describe(value)
    )
}

pub(crate) fn not_allowed(path: &[PathSegment]) -> String {
    if path.is_empty() {
        "No arguments are allowed.".to_owned()
    } else {
        format!("Argument '{}' is not allowed.", display_path(path))
    }
}

pub(crate) fn more_problems(n: usize) -> String {
    if n == 1 {
        "(and 1 more problem)".to_owned()
    } else {
        format!("(and {n} more problems)")
    }
}

pub(crate) fn too_complex() -> String {
    format!(
        "The arguments could not be fully checked: validation took more than {} steps or \
         nested its checks more than {} deep.",
        super::MAX_VALIDATION_STEPS,
        super::MAX_VALIDATION_NESTING
    )
}

pub(crate) fn invalid_json(error: &serde_json::Error) -> String {
    format!("Arguments are not valid JSON: {error}.")
}

pub(crate) fn not_object(value: &Value) -> String {
    format!("Arguments must be a JSON object, got {}.", describe(value))
}

pub(crate) fn not_text(value: &Value) -> String {
    format!(
        "Arguments must be JSON text (a string holding a JSON object), got {}.",
        describe(value)
    )
}

pub(crate) fn unknown_tool<'a>(name: &str, available: impl Iterator<Item = &'a str>) -> String {
    let available: Vec<&str> = available.collect();
    if available.is_empty() {
        format!("Unknown tool '{name}'; no tools are registered.")
    } else {
        format!(
            "Unknown tool '{name}'; available tools: {}.",
            available.join(", ")
        )
    }
}

pub(crate) fn validation_failed(tool: &str, problems: &[String], more: usize) -> String {
    let mut out = format!(
        "Validation failed for tool '{tool}': {}",
        problems.join(" ")
    );
    if more > 0 {
        out.push(' ');
        out.push_str(&more_problems(more));
    }
    out
}

pub(crate) fn execution_failed(tool: &str, message: &str) -> String {
    format!("Execution of tool '{tool}' failed: {message}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_read_like_code() {
        let path = [
            PathSegment::Key("files".into()),
            PathSegment::Index(2),
            PathSegment::Key("path".into()),
        ];
        assert_eq!(display_path(&path), "files[2].path");
        let odd = [
            PathSegment::Key("a.b".into()),
            PathSegment::Key("it's".into()),
            PathSegment::Key("".into()),
        ];
        assert_eq!(display_path(&odd), r#"["a.b"]["it's"][""]"#);
    }

    #[test]
    fn previews_are_compact_and_bounded() {
        assert_eq!(
            preview(&json!({"a": [1, "x", null]})),
            r#"{"a":[1,"x",null]}"#
        );
        let long = json!((0..100).collect::<Vec<_>>());
        assert_eq!(preview(&long), "[0,1,2,3,4,5,6,7,8,9,…]");
        let mut deep = json!(1);
        for _ in 0..100 {
            deep = Value::Array(vec![deep]);
        }
        assert_eq!(
            preview(&deep),
            format!("{}…", "[".repeat(PREVIEW_CHARS + 1))
        );
        assert_eq!(quote(&"x".repeat(61)), format!("\"{}…\"", "x".repeat(60)));
    }

    #[test]
    fn lists_read_like_sentences() {
        assert_eq!(or_list(&["a string", "null"]), "a string or null");
        assert_eq!(or_list(&["a", "b", "c"]), "a, b or c");
        assert_eq!(
            and_list(&["1".into(), "2".into(), "3".into()]),
            "1, 2 and 3"
        );
    }
}
