//! JSON scanning and writing for the streaming path (the Agent API event reader and assembler).
//!
//! This is the part of `agentwire::json` compiled at opt-level 3; the incremental parser of
//! streamed tool arguments (`PartialJson`) is compiled with the rest of agentwire, for size. Use
//! it through `agentwire::json`, which documents it.

use std::borrow::Cow;

mod error;
mod fields;
mod number;
pub(crate) mod scan;
mod syntax;
mod text;
mod tree;
pub(crate) mod write;

pub use error::{invalid_type, Quoted, QuotedChar, ReadError};
pub use fields::{same_reading, Fields};
pub use syntax::syntax_error;
pub use text::{from_text, Text};
pub use tree::{from_tree, unexpected, Tree};

/// Appends `s` to `out` as a JSON string literal (serde_json's text), compiled here at opt-level
/// 3. For agentwire's hand-written JSON writers (`agentwire::json::changes_json`); not API.
#[doc(hidden)]
pub fn write_json_str(out: &mut String, s: &str) {
    write::write_str(out, s);
}

/// The compact JSON text of `value`: what `value.to_string()` gives, through the writer the module
/// already compiles for `Value` (`write_json_value`). `Value`'s `Display` (`to_string`, `{}`)
/// compiles two writers of its own, compact and pretty (for `{:#}`): about 5 KB of the wasm
/// module, kept only by the call sites that used it. Not API.
#[doc(hidden)]
pub fn json_text(value: &serde_json::Value) -> String {
    let mut out = String::new();
    write_json_value(&mut out, value);
    out
}

/// serde_json's message of `e` without its own " at line L column C" (for errors whose position
/// is given apart, or means nothing to the reader). Not API.
#[doc(hidden)]
#[inline]
pub fn message_of(e: &serde_json::Error) -> String {
    let mut message = e.to_string();
    if let Some(cut) = message.rfind(" at line ") {
        message.truncate(cut);
    }
    message
}

/// JSON text (RFC 8259) read into a tree, as `serde_json::from_str::<Value>` reads it (a proptest
/// checks it): objects (a key given twice keeps the last value, as in `JSON.parse`), arrays,
/// strings, literals, and numbers as serde_json holds them: an integer as `u64`, or `i64` when
/// negative, if it fits, anything else as an `f64`. Not API.
///
/// Every float literal is read as the nearest `f64`, ties to even, as `JSON.parse` and
/// `f64::from_str` read it, by this crate's own reader (`json::number`, without tables): Atlas
/// messages and part metadata carry float timestamps that must survive Rust → JSON → JavaScript →
/// JSON → Rust bit for bit, and serde_json's own "best effort" reading came back one ULP off for
/// about one Python `time.time()` timestamp in sixty (`1758972921.8811321` as
/// `1758972921.881132`). The reader is the event scanner's (`json::scan`): the module compiles no
/// serde_json text reader for trees (docs/performance-log.md, stop 36).
///
/// # Errors
/// For text that is not JSON, the syntax error serde_json's validator gives, with its message and
/// its 1-based line and column (`json::syntax_error`: the text is checked again, by a checker of
/// this crate's; [`not_json`] tells these errors, which are serde_json custom errors). For JSON
/// text a tree cannot hold, a data error (`is_data`) naming it, with the line and column of the
/// place as serde_json's tree reader gives them: "number out of range at line L column C" (beyond
/// `f64::MAX`; the number's last character) or "recursion limit exceeded at line L column C"
/// (nesting deeper than 127 arrays and objects, serde_json's limit).
///
/// One reading differs from serde_json's, on purpose: an escaped UTF-16 surrogate that is not half
/// of a pair (`"\ud83d"`, valid JSON by RFC 8259's grammar; §8.2 leaves its reading open) reads as
/// U+FFFD, as `JSON.parse` followed by `toWellFormed()` reads it, where serde_json refuses the
/// whole text ("lone surrogate in hex escape"). A JavaScript server that cuts a string between
/// the halves of a pair sends such escapes; the JavaScript SDKs read them, so agentwire keeps the
/// event too ([`replace_lone_surrogates`] gives serde_json's reading of the same text).
#[doc(hidden)]
#[inline(never)]
pub fn parse_value(text: &str) -> serde_json::Result<serde_json::Value> {
    scan::tree_of(text).ok_or_else(|| not_read(text))
}

/// How many arrays and objects [`parse_value`] (and every JSON reader of agentwire) reads nested:
/// 127, serde_json's recursion limit (the 128th is "recursion limit exceeded"). Not API: the
/// agentwire crate names it `tool::MAX_ARGUMENTS_DEPTH`.
#[doc(hidden)]
pub const MAX_DEPTH: usize = scan::TREE_DEPTH;

/// The JSON number `text` (RFC 8259 §6, the whole text) as [`parse_value`] reads it: an integer as
/// `u64`, or `i64` when negative, if it fits, anything else as the nearest `f64`. `None` if `text`
/// is not a number, or is beyond `f64::MAX`. For agentwire's incremental reader of tool
/// arguments; not API.
#[doc(hidden)]
pub fn parse_number(text: &str) -> Option<serde_json::Number> {
    let b = text.as_bytes();
    match scan::number_at(b, 0)? {
        (serde_json::Value::Number(n), end) if end == b.len() && b.last()?.is_ascii_digit() => {
            Some(n)
        }
        _ => None,
    }
}

/// One step of a path into JSON text ([`cut_halves`]): a member of an object, by name, or an
/// element of an array, by index. Not API.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'k> {
    /// The member with this name (the last one if the name is given twice, as the readers keep).
    Member(&'k str),
    /// The element at this index (0-based).
    Element(usize),
}

/// The halves of a surrogate pair at the edges of a string value, as `(low, high)` UTF-16 code
/// units: `low` if the string begins with a lone low surrogate escape (`\uDC00`–`\uDFFF`),
/// `high` if it ends with a lone high one (`\uD800`–`\uDBFF`). `data` is the JSON text of an
/// event, `path` leads from it to the string, and `text` is the string as read (each lone
/// surrogate as U+FFFD: [`parse_value`]). Looked at only when `text` begins or ends with U+FFFD;
/// then the string's JSON text tells whether that U+FFFD was written so. (If a U+FFFD ends the
/// text and its JSON ends with such an escape, the escape is that U+FFFD: a character written
/// literally, or `\\` before the `u`, would have left another last character.) `(None, None)` if
/// the path leads nowhere.
///
/// A JavaScript server that cuts a string between the halves of a pair (`text.slice(0, 3)`)
/// writes the halves so, one in each event (`JSON.stringify` escapes a lone surrogate: ECMA-262's
/// QuoteJSONString); [`join_halves`] joins them again. For the assemblers; not API.
#[doc(hidden)]
#[cold]
#[inline(never)]
#[cfg_attr(agentwire_size, optimize(size))]
pub fn cut_halves(data: &str, path: &[Step<'_>], text: &str) -> (Option<u16>, Option<u16>) {
    const FFFD: char = char::REPLACEMENT_CHARACTER;
    let (starts, ends) = (text.starts_with(FFFD), text.ends_with(FFFD));
    if !starts && !ends {
        return (None, None);
    }
    let Some(quoted) = scan::text_at(data, path).filter(|q| q.starts_with('"')) else {
        return (None, None);
    };
    let unit = |escape: Option<&str>, range: std::ops::RangeInclusive<u16>| {
        let mut hex = escape?.strip_prefix("\\u")?.bytes();
        let unit = hex.try_fold(0u16, |n, d| {
            Some(n << 4 | char::from(d).to_digit(16)? as u16)
        })?;
        range.contains(&unit).then_some(unit)
    };
    let content = quoted
        .get(1..quoted.len().saturating_sub(1))
        .unwrap_or_default();
    let low = unit(content.get(..6).filter(|_| starts), 0xDC00..=0xDFFF);
    let tail = content
        .len()
        .checked_sub(6)
        .and_then(|at| content.get(at..));
    let high = unit(tail.filter(|_| ends), 0xD800..=0xDBFF);
    (low, high)
}

/// `text`, a string whose edges are halves of a surrogate pair (`cut`, from [`cut_halves`]), with
/// its leading U+FFFD replaced by the pair's character when `held` is the high half the previous
/// string ended with and `cut.0` the low half, and its trailing U+FFFD removed when `cut.1` is a
/// high half (the caller holds it back until the next string: its U+FFFD is appended if the next
/// event does not complete it). So text a JavaScript server cut between the halves of a pair
/// streams as it would whole, as its JavaScript clients see it. For the assemblers; not API.
#[doc(hidden)]
#[cold]
#[inline(never)]
#[cfg_attr(agentwire_size, optimize(size))]
pub fn join_halves(
    held: Option<u16>,
    text: Cow<'_, str>,
    cut: (Option<u16>, Option<u16>),
) -> Cow<'_, str> {
    const FFFD: usize = char::REPLACEMENT_CHARACTER.len_utf8();
    let mut out = String::with_capacity(text.len());
    let mut rest = &*text;
    if let (Some(low), Some(high)) = (cut.0, held) {
        // (Wrapping: halves out of their ranges, which `cut_halves` never gives, make no char.)
        let c = (u32::from(high).wrapping_sub(0xD800) << 10)
            .wrapping_add(u32::from(low).wrapping_sub(0xDC00))
            .wrapping_add(0x10000);
        out.push(char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER));
        rest = rest.get(FFFD..).unwrap_or_default();
    }
    if cut.1.is_some() {
        rest = rest
            .get(..rest.len().saturating_sub(FFFD))
            .unwrap_or_default();
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// `text` with each escaped UTF-16 surrogate that is not half of a pair replaced by `\ufffd`: the
/// text serde_json reads as [`parse_value`] reads `text` (serde_json refuses lone surrogates;
/// agentwire reads each as U+FFFD, as `JSON.parse` then `toWellFormed()` do). The oracle of the
/// tests and fuzz targets that compare agentwire's readers with serde_json's; for any `text`,
/// whether JSON or not (only what follows a `\u` inside a string changes). Not API.
#[doc(hidden)]
pub fn replace_lone_surrogates(text: &str) -> String {
    let b = text.as_bytes();
    let hex4 = |at: usize| {
        let digits = std::str::from_utf8(b.get(at..at + 4)?).ok()?;
        u32::from_str_radix(digits, 16)
            .ok()
            .filter(|_| digits.bytes().all(|d| d.is_ascii_hexdigit()))
    };
    let mut out = String::with_capacity(text.len());
    let (mut i, mut copied, mut in_string) = (0, 0, false);
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                if b.get(i + 1) == Some(&b'u') {
                    let paired = |high: u32| {
                        (0xD800..=0xDBFF).contains(&high)
                            && b.get(i + 6..i + 8) == Some(b"\\u")
                            && hex4(i + 8).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low))
                    };
                    match hex4(i + 2) {
                        // A pair: on to the low half, whose `\u` and digits are passed over.
                        Some(code) if paired(code) => i += 6,
                        Some(0xD800..=0xDFFF) => {
                            out.push_str(&text[copied..i]);
                            out.push_str("\\ufffd");
                            copied = i + 6;
                        }
                        _ => {}
                    }
                }
                i += 2;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push_str(&text[copied.min(text.len())..]);
    out
}

/// The messages of [`parse_value`]'s errors for JSON a tree cannot hold.
const NUMBER_OUT_OF_RANGE: &str = "number out of range";
const TOO_DEEP: &str = "recursion limit exceeded";

/// Whether `e`, from [`parse_value`] or [`from_text`], says that the text is not JSON, or is JSON a
/// tree cannot hold (a number beyond `f64::MAX`, nesting deeper than 127 levels: what serde_json's
/// reader reports as syntax errors), rather than that the JSON has the wrong shape for the type
/// read. For the dialects' `invalid-json` and `invalid-event`. Not API.
#[doc(hidden)]
#[inline]
pub fn not_json(e: &serde_json::Error) -> bool {
    if !e.is_data() || syntax::is_syntax_error(e) {
        return true;
    }
    let message = e.to_string();
    (message.starts_with(NUMBER_OUT_OF_RANGE) || message.starts_with(TOO_DEEP))
        && message.contains(" at line ")
}

/// Why [`parse_value`] did not read `text`, as a serde_json error.
#[cold]
#[inline(never)]
fn not_read(text: &str) -> serde_json::Error {
    use serde::de::Error;
    // (Not `None` for text `parse_value` refused: it is not JSON, too deep or has such a number.)
    unreadable(text).unwrap_or_else(|| serde_json::Error::custom(NUMBER_OUT_OF_RANGE))
}

/// The error [`parse_value`] would give for `text`, or `None` when it would read it, without
/// building the tree: the syntax error for text that is not JSON, else "recursion limit exceeded"
/// (nesting deeper than 127) or "number out of range" (beyond `f64::MAX`, which `JSON.parse`
/// reads as `Infinity`), each with serde_json's line and column. For a reader that parses the
/// text another way (`MessageBody.readJson`, with `JSON.parse`) but refuses what agentwire's
/// readers refuse. Not API.
#[doc(hidden)]
#[inline(never)]
pub fn unreadable(text: &str) -> Option<serde_json::Error> {
    use serde::de::Error;
    if let Some(e) = syntax::syntax_error(text) {
        return Some(e);
    }
    // Valid JSON: too deep, or a number out of range.
    let b = text.as_bytes();
    // serde_json's custom errors take their line and column from a suffix " at line L column C".
    let at = |message: &str, i: usize| {
        let line_start = b[..i]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |n| n + 1);
        let line = 1 + b[..i].iter().filter(|&&c| c == b'\n').count();
        serde_json::Error::custom(format_args!(
            "{message} at line {line} column {}",
            i - line_start + 1
        ))
    };
    let (mut i, mut depth) = (0, 0);
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => {
                // Valid JSON: the string is one.
                i = scan::string_at(text, i).map_or(b.len(), |(_, next)| next);
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > scan::TREE_DEPTH {
                    return Some(at(TOO_DEEP, i));
                }
            }
            b']' | b'}' => depth -= 1,
            b'-' | b'0'..=b'9' => {
                // Valid JSON: a number runs to the next delimiter, and the scanner's reader
                // refuses it only when it is beyond `f64::MAX`. serde_json places that error at
                // the number's last character.
                let end = b[i..]
                    .iter()
                    .position(|c| !matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .map_or(b.len(), |n| i + n);
                if scan::number_at(b, i).is_none() {
                    return Some(at(NUMBER_OUT_OF_RANGE, end - 1));
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// `serde_json::to_value(value)`: `value` as a [`serde_json::Value`] tree. Not API.
///
/// With the feature `trees-from-text` (on in every build with agentwire's `agent-api`, `agentx`
/// or `bodies`) the value is written as JSON text by serde_json's writer and read back by
/// [`parse_value`]: the writer of most types is compiled for their way to JavaScript already, and
/// `parse_value` for reading, where `to_value` compiles serde_json's `Value` serializer per type
/// (the default wasm module: about 6 KB gzipped smaller). The tree is the same: floats are
/// written as the shortest text that reads back as the same `f64` (ryu), and read correctly
/// rounded; a non-finite float becomes `null` either way. Without `trees-from-text` (a build that
/// reads no JSON text into trees) `parse_value` would be linked for this alone: there this is
/// `to_value`.
///
/// # Errors
/// serde_json's error for a value that has no JSON (a map whose keys are not strings), or a
/// `Serialize` implementation's own error.
#[doc(hidden)]
pub fn to_tree<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Result<serde_json::Value> {
    #[cfg(feature = "trees-from-text")]
    return parse_value(&serde_json::to_string(value)?);
    #[cfg(not(feature = "trees-from-text"))]
    return serde_json::to_value(value);
}

/// Reads JSON text as a `T` in two steps: the text into a [`serde_json::Value`]
/// ([`parse_value`], one reader for every type), then `T` from the tree. Reading `T` from the
/// text directly compiles serde_json's text reader once per type (and once more per type of each
/// of its fields); for a type also read from trees (arguments from JavaScript arrive as one),
/// this compiles less. For bodies read once, not for streams: the tree costs a copy of every
/// string. Not API.
///
/// What differs from `serde_json::from_str::<T>`: a wrong shape (`is_data`) has no position
/// (`line` and `column` 0), of a key given twice in one object the last counts (as in
/// `JSON.parse`) where a derived struct would refuse it as a `duplicate field`, and a struct is
/// read only from an object, not from an array of its fields ([`from_tree`]).
///
/// # Errors
/// A syntax error as [`parse_value`], or serde's error for a tree that is not a `T`.
#[doc(hidden)]
pub fn from_json_text<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    from_tree(parse_value(text)?)
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

#[cfg(test)]
pub(crate) mod tests {
    use proptest::prelude::*;
    use serde_json::Value;

    /// JSON values of every kind, floats included, nested a few levels.
    pub(crate) fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from), // NaN and infinities become null
            ".{0,6}".prop_map(Value::from),
        ];
        nested(leaf, ".{0,4}")
    }

    /// Arrays and objects (keys matching `keys`) of `leaf` values, nested up to four levels.
    fn nested(
        leaf: impl Strategy<Value = Value> + 'static,
        keys: &'static str,
    ) -> impl Strategy<Value = Value> {
        leaf.prop_recursive(4, 40, 4, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map(keys, inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// Text that is not JSON gets serde_json's own syntax error; JSON a tree cannot hold, an
    /// error naming why.
    #[test]
    fn what_is_not_read_is_explained() {
        // (At the position serde_json's reader of trees reports; its validator words a few
        // messages differently: "expected value" for "trailing comma".)
        for text in ["[1,]", "{\"a\" 1}", "[1] x", "", "[\"\\x\"]", "\n\n  [1 2]"] {
            let ours = super::parse_value(text).unwrap_err();
            let theirs = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
            assert!(super::not_json(&ours), "{text:?}");
            assert_eq!(
                (ours.line(), ours.column()),
                (theirs.line(), theirs.column()),
                "{text:?}"
            );
        }
        // A control character in a string: one column earlier than the tree reader says.
        assert!(super::not_json(
            &super::parse_value("\"\u{1}\"").unwrap_err()
        ));
        // A syntax error after a number out of range: the syntax error.
        assert_eq!(
            super::parse_value("[1e400, }").unwrap_err().to_string(),
            "expected value at line 1 column 9"
        );
        let named = |text: &str| super::parse_value(text).unwrap_err().to_string();
        // A number out of range: where serde_json's tree reader places it (its last character).
        for text in [
            "[1, -1e400]",
            "{\"a\":\n  [1.5e999 ]}",
            "1e309",
            "[0, 2e308, 1e400]",
        ] {
            let ours = super::parse_value(text).unwrap_err();
            let theirs = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
            assert!(super::not_json(&ours), "{text:?}");
            assert_eq!(ours.to_string(), theirs.to_string(), "{text:?}");
            assert_eq!(
                (ours.line(), ours.column()),
                (theirs.line(), theirs.column())
            );
        }
        assert_eq!(
            named("[1, -1e400]"),
            "number out of range at line 1 column 10"
        );
        // `unreadable` gives the same errors without building the tree, and none for what
        // `parse_value` reads.
        for text in [
            "[1, -1e400]",
            "[1e400, }",
            &"[".repeat(200),
            "{\"a\":\n  [1.5e999 ]}",
        ] {
            let error = super::unreadable(text).map(|e| e.to_string());
            assert_eq!(error, Some(named(text)), "{text:?}");
        }
        for text in [
            "[1, -1e308, \"1e400\"]",
            "{\"a\": [true, null]}",
            r#""\ud83d""#,
        ] {
            assert!(super::unreadable(text).is_none(), "{text:?}");
            assert!(super::parse_value(text).is_ok(), "{text:?}");
        }
        // A lone surrogate is read, not refused (serde_json: "lone surrogate in hex escape").
        assert_eq!(
            super::parse_value(r#"{"a": "\udc00", "b": ["x\ud83d", "\ud83d\ud83d\ude00"]}"#).ok(),
            Some(serde_json::json!({"a": "\u{fffd}", "b": ["x\u{fffd}", "\u{fffd}\u{1f600}"]}))
        );
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert_eq!(
            named(&format!("\n {deep}")),
            "recursion limit exceeded at line 2 column 129"
        );
        assert!(super::parse_value(&("[".repeat(127) + &"]".repeat(127))).is_ok());
    }

    /// Floats are read correctly rounded, where serde_json's default reading (without its
    /// `float_roundtrip`) is one ULP off for these; by [`super::from_text`] too.
    #[test]
    fn floats_are_read_correctly_rounded() {
        let text = r#"{"t": 1758972921.8811321, "a": [1795691546.6036239, {"x": -1.4901437678453860e129}], "b": 4200001210513.073410}"#;
        let v = super::parse_value(text).unwrap_or_default();
        assert_eq!(v["t"].as_f64(), Some(1758972921.8811321_f64));
        assert_eq!(v["a"][0].as_f64(), Some(1795691546.6036239_f64));
        assert_eq!(v["a"][1]["x"].as_f64(), Some(-1.490143767845386e129_f64));
        let b = "4200001210513.073410".parse::<f64>().ok();
        assert_eq!(v["b"].as_f64(), b);
        assert_eq!(super::from_text::<serde_json::Value>(text).ok(), Some(v));
        assert_eq!(
            super::parse_number("-4200001210513.073410").and_then(|n| n.as_f64()),
            b.map(|b| -b)
        );
    }

    /// The types [`super::from_tree`] is checked with: every kind of serde reading a derive
    /// makes (structs, optional and defaulted fields, sequences, maps, tuples, unit and newtype
    /// structs, externally, internally and untagged enums, `flatten`), over the keys `a`..`f`.
    mod shapes {
        use std::collections::BTreeMap;

        use serde::Deserialize;
        use serde_json::Value;

        #[derive(Debug, PartialEq, Deserialize)]
        pub struct Outer {
            pub a: Option<String>,
            #[serde(default)]
            pub b: Vec<Inner>,
            pub c: Option<Kind>,
            pub d: Option<BTreeMap<String, u8>>,
            pub e: Option<(bool, f64)>,
            #[serde(default)]
            pub f: Option<Data>,
        }

        #[derive(Debug, PartialEq, Deserialize)]
        pub struct Inner {
            pub a: String,
            #[serde(default)]
            pub b: i64,
            pub c: Option<Unit>,
            pub d: Option<Newtype>,
            pub e: Option<char>,
            pub f: Option<Either>,
        }

        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(rename_all = "lowercase")]
        pub enum Kind {
            A,
            B,
        }

        #[derive(Debug, PartialEq, Deserialize)]
        #[allow(non_camel_case_types)]
        pub enum Data {
            a(String),
            b(bool, u8),
            c { a: String },
            d,
        }

        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(untagged)]
        pub enum Either {
            Text(String),
            Inner(Box<Inner>),
        }

        #[derive(Debug, PartialEq, Deserialize)]
        pub struct Unit;

        #[derive(Debug, PartialEq, Deserialize)]
        pub struct Newtype(pub i64);

        #[derive(Debug, PartialEq, Deserialize)]
        pub struct Flat {
            pub a: Option<u32>,
            #[serde(flatten)]
            pub rest: BTreeMap<String, Value>,
        }

        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(tag = "a")]
        #[allow(non_camel_case_types)]
        pub enum Tagged {
            b { c: i64 },
            d,
        }
    }

    /// Trees over the keys of [`shapes`], with strings that are those keys and variant names.
    fn shaped_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (-3i64..300).prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            Just(Value::from(1.5)),
            "[a-f]|[a-f]{2}|".prop_map(Value::from),
        ];
        nested(leaf, "[a-f]")
    }

    /// `from_tree::<T>` against serde_json's reader of an owned `Value`: the same value or the
    /// same message, except that a struct is not read from an array.
    fn same_as_serde_json<T>(v: &Value) -> Result<(), TestCaseError>
    where
        T: serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    {
        let ours = super::from_tree::<T>(v.clone()).map_err(|e| e.to_string());
        let theirs = serde_json::from_value::<T>(v.clone()).map_err(|e| e.to_string());
        match &ours {
            Err(m) if m.starts_with("invalid type: sequence, expected struct ") => {}
            _ => prop_assert_eq!(ours, theirs, "{}", v),
        }
        Ok(())
    }

    /// `from_text::<T>` against serde_json's reader of text: the same value or the same message
    /// (serde_json's without its position), for `v`'s text, compact and pretty.
    fn text_same_as_serde_json<T>(v: &Value) -> Result<(), TestCaseError>
    where
        T: serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    {
        for text in [v.to_string(), format!("{v:#}")] {
            let ours = super::from_text::<T>(&text).map_err(|e| e.to_string());
            let theirs = serde_json::from_str::<T>(&text).map_err(|e| super::message_of(&e));
            prop_assert_eq!(ours, theirs, "{}", text);
        }
        Ok(())
    }

    /// The cases the generated trees rarely reach: arrays longer than a tuple, an empty array for
    /// a tuple variant, objects of several members for an enum, and a struct from an array.
    #[test]
    fn tree_reads_edge_cases_as_serde_json_reads() {
        use serde_json::json;
        use shapes::*;
        for v in [
            json!(["a", 1, 2]),
            json!(["a", null]),
            json!(["a"]),
            json!([]),
            json!({"b": []}),
            json!({"b": [true, 7]}),
            json!({"b": [true, 7, 8]}),
            json!({"a": "x", "b": [true, 7]}),
            json!({"c": {"a": "x"}}),
            json!({"c": "x"}),
            json!({"d": null}),
            json!({"d": 1}),
            json!("d"),
            json!({}),
        ] {
            same_as_serde_json::<Data>(&v).unwrap();
            same_as_serde_json::<(String, Option<u8>)>(&v).unwrap();
            same_as_serde_json::<(Option<u8>,)>(&v).unwrap();
            text_same_as_serde_json::<Data>(&v).unwrap();
            text_same_as_serde_json::<(String, Option<u8>)>(&v).unwrap();
            text_same_as_serde_json::<(Option<u8>,)>(&v).unwrap();
            text_same_as_serde_json::<Inner>(&v).unwrap();
        }
        let fields = json!(["a", 1, null, null, null, null]);
        let err = super::from_tree::<Inner>(fields.clone()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid type: sequence, expected struct Inner"
        );
        assert!(serde_json::from_value::<Inner>(fields).is_ok());
    }

    proptest! {
        #[test]
        fn tree_reads_as_serde_json_reads(v in shaped_value()) {
            use shapes::*;
            same_as_serde_json::<Outer>(&v)?;
            same_as_serde_json::<Inner>(&v)?;
            same_as_serde_json::<Vec<Inner>>(&v)?;
            same_as_serde_json::<Data>(&v)?;
            same_as_serde_json::<Option<Kind>>(&v)?;
            same_as_serde_json::<Either>(&v)?;
            same_as_serde_json::<Flat>(&v)?;
            same_as_serde_json::<Tagged>(&v)?;
            same_as_serde_json::<(String, Option<u8>)>(&v)?;
            same_as_serde_json::<std::collections::BTreeMap<String, Newtype>>(&v)?;
            same_as_serde_json::<Value>(&v)?;
        }

        #[test]
        fn text_reads_as_serde_json_reads(v in shaped_value()) {
            use shapes::*;
            text_same_as_serde_json::<Outer>(&v)?;
            text_same_as_serde_json::<Inner>(&v)?;
            text_same_as_serde_json::<Vec<Inner>>(&v)?;
            text_same_as_serde_json::<Data>(&v)?;
            text_same_as_serde_json::<Option<Kind>>(&v)?;
            text_same_as_serde_json::<Either>(&v)?;
            text_same_as_serde_json::<Flat>(&v)?;
            text_same_as_serde_json::<Tagged>(&v)?;
            text_same_as_serde_json::<(String, Option<u8>)>(&v)?;
            text_same_as_serde_json::<std::collections::BTreeMap<String, Newtype>>(&v)?;
            text_same_as_serde_json::<Value>(&v)?;
        }

        /// On any text, `from_text` reads what serde_json reads, and refuses what it refuses: as
        /// not JSON when serde_json says so (lone surrogates: see `replace_lone_surrogates`).
        #[test]
        fn text_reads_arbitrary_text_as_serde_json(text in "[ {}\\[\\]\":,a-f0-9.eE+\\-\\\\nu\u{0}-\u{1f}]{0,30}") {
            let ours = super::from_text::<Value>(&text);
            let oracle = super::replace_lone_surrogates(&text);
            let theirs = serde_json::from_str::<Value>(&oracle);
            prop_assert_eq!(ours.as_ref().ok(), theirs.as_ref().ok(), "{:?}", text);
            if let (Err(ours), Err(theirs)) = (&ours, &theirs) {
                prop_assert_eq!(super::not_json(ours), !theirs.is_data(), "{:?}", text);
            }
            let ours = super::from_text::<shapes::Outer>(&text).ok();
            prop_assert_eq!(ours, serde_json::from_str::<shapes::Outer>(&oracle).ok(), "{:?}", text);
        }

        /// Any float literal (long mantissas, subnormal and huge exponents) reads as
        /// `f64::from_str` reads it; past `f64`'s range it is refused (as serde_json refuses it).
        #[test]
        fn every_float_is_read_correctly_rounded(
            neg in any::<bool>(),
            int in "[1-9][0-9]{0,20}|0",
            frac in "[0-9]{1,25}",
            exp in prop::option::of(-340i32..340),
        ) {
            let sign = if neg { "-" } else { "" };
            let exp = exp.map_or(String::new(), |e| format!("e{e}"));
            let lit = format!("{sign}{int}.{frac}{exp}");
            let want: f64 = lit.parse().unwrap();
            let got = super::parse_value(&lit);
            if want.is_finite() {
                let got = got.ok().and_then(|v| v.as_f64()).map(f64::to_bits);
                prop_assert_eq!(got, Some(want.to_bits()), "{}", lit);
            } else {
                prop_assert!(got.is_err(), "{}", lit);
            }
        }

        #[test]
        fn json_text_is_values_display(v in value()) {
            prop_assert_eq!(super::json_text(&v), v.to_string());
        }

        /// `to_tree` builds the tree `to_value` builds, floats bit for bit (through text with
        /// `trees-from-text`; otherwise it is `to_value`).
        #[test]
        fn to_tree_is_to_value(
            v in value(),
            float in any::<f64>(),
            int in any::<i64>(),
            count in prop::option::of(any::<u64>()),
            name in ".{0,8}",
        ) {
            #[derive(serde::Serialize)]
            struct Sample<'a> {
                float: f64,
                int: i64,
                #[serde(skip_serializing_if = "Option::is_none")]
                count: Option<u64>,
                name: &'a str,
                floats: [f64; 2],
                value: &'a Value,
            }
            let s = Sample { float, int, count, name: &name, floats: [float / 3.0, -float], value: &v };
            let (got, want) = (super::to_tree(&s).ok(), serde_json::to_value(&s).ok());
            prop_assert!(want.is_some());
            prop_assert_eq!(got, want);
        }
    }
}
