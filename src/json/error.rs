//! The error of agentwire's readers of trees and text ([`from_tree`](super::from_tree),
//! [`from_text`](super::from_text)), and strings quoted in messages. Not API.
//!
//! serde's messages name a string that is not what a type reads as ``string {:?}``: Rust's
//! `Debug` of a `str`, whose escaping asks Unicode's tables which characters are printable and
//! which extend a grapheme: tables and code that only error messages used, 1.3 KB of the gzipped
//! default wasm module and 2.4 KB of the build with no feature (docs/performance-log.md, stop
//! 40). The readers report serde's errors through
//! [`ReadError`], whose `invalid_type` and `invalid_value` write the messages serde_json writes,
//! except that such a string is written as JSON writes it ([`Quoted`]): the same text for every
//! string but those with control characters or characters Rust's `Debug` escapes (`\u{200b}`
//! there, the character itself here). agentwire's own messages quote strings and characters the
//! same way, and the module holds no `Debug` of a string.

use std::fmt;

use serde::de::{self, Expected, Unexpected};

/// serde_json's error, as agentwire's readers report it (see the [module documentation](self)):
/// the same messages, with strings quoted as JSON writes them. Converted to the
/// `serde_json::Error` it holds where the readers return. Not API.
#[doc(hidden)]
pub struct ReadError(pub serde_json::Error);

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// The message, as `Display` writes it (not `serde_json::Error`'s `Debug`, which would write it
/// with `{:?}`).
impl fmt::Debug for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for ReadError {}

impl From<ReadError> for serde_json::Error {
    fn from(e: ReadError) -> Self {
        e.0
    }
}

impl de::Error for ReadError {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self(<serde_json::Error as de::Error>::custom(msg))
    }

    #[cold]
    fn invalid_type(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        invalid("type", unexp, exp)
    }

    #[cold]
    fn invalid_value(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        invalid("value", unexp, exp)
    }
}

/// serde_json's `invalid type: …, expected …` (`what` is `type` or `value`), with a string
/// quoted by [`Quoted`].
#[cold]
#[inline(never)]
fn invalid(what: &str, unexp: Unexpected<'_>, exp: &dyn Expected) -> ReadError {
    de::Error::custom(format_args!(
        "invalid {what}: {}, expected {exp}",
        Described(unexp)
    ))
}

/// `serde_json::Error::invalid_type`'s error, with a string quoted by [`Quoted`] (see the
/// [module documentation](self)). Not API.
#[doc(hidden)]
#[cold]
pub fn invalid_type(unexp: Unexpected<'_>, exp: &dyn Expected) -> serde_json::Error {
    <ReadError as de::Error>::invalid_type(unexp, exp).0
}

/// What a value is, as serde_json's errors describe it (serde's `Unexpected` as `Display` writes
/// it, `null` for a unit, a float as serde_json writes it), but a string quoted by [`Quoted`].
struct Described<'a>(Unexpected<'a>);

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Unexpected::Bool(b) => write!(f, "boolean `{b}`"),
            Unexpected::Unsigned(u) => write!(f, "integer `{u}`"),
            Unexpected::Signed(i) => write!(f, "integer `{i}`"),
            Unexpected::Float(x) => match serde_json::Number::from_f64(x) {
                Some(n) => write!(f, "floating point `{n}`"),
                // Not finite, as serde_json writes it (no tree or text holds such a number).
                None if x.is_nan() => f.write_str("floating point `NaN`"),
                None if x > 0.0 => f.write_str("floating point `inf`"),
                None => f.write_str("floating point `-inf`"),
            },
            Unexpected::Char(c) => write!(f, "character `{c}`"),
            Unexpected::Str(s) => write!(f, "string {}", Quoted(s)),
            Unexpected::Bytes(_) => f.write_str("byte array"),
            Unexpected::Unit => f.write_str("null"),
            Unexpected::Option => f.write_str("Option value"),
            Unexpected::NewtypeStruct => f.write_str("newtype struct"),
            Unexpected::Seq => f.write_str("sequence"),
            Unexpected::Map => f.write_str("map"),
            Unexpected::Enum => f.write_str("enum"),
            Unexpected::UnitVariant => f.write_str("unit variant"),
            Unexpected::NewtypeVariant => f.write_str("newtype variant"),
            Unexpected::TupleVariant => f.write_str("tuple variant"),
            Unexpected::StructVariant => f.write_str("struct variant"),
            Unexpected::Other(other) => f.write_str(other),
        }
    }
}

/// A string in a message, as a JSON string literal (`"name"`; `"` and `\` escaped, control
/// characters as `\n` or `\u001b`, every other character as is): what `{:?}` wrote, for
/// ordinary strings, without Unicode's tables (see the [module documentation](self)). Not API.
#[doc(hidden)]
pub struct Quoted<'a>(pub &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        super::write::write_str(&mut out, self.0);
        f.write_str(&out)
    }
}

/// A character in a message, in single quotes (`'x'`; `'` and `\` escaped, a control character as
/// JSON writes it, `'\n'` or `'\u001b'`): what `{:?}` wrote for ordinary characters, without
/// Unicode's tables (see the [module documentation](self)). Not API.
#[doc(hidden)]
pub struct QuotedChar(pub char);

impl fmt::Display for QuotedChar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            '\'' => f.write_str("'\\''"),
            '"' => f.write_str("'\"'"),
            c => {
                let mut out = String::new();
                super::write::write_str(&mut out, c.encode_utf8(&mut [0; 4]));
                // `out` is `c` as a JSON string literal: its quotes become single quotes.
                let inner = out.get(1..out.len() - 1).unwrap_or_default();
                write!(f, "'{inner}'")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::Error as _;

    /// serde_json's message for every kind of value but a string, which is quoted as JSON
    /// writes it; the same message for ordinary strings.
    #[test]
    fn messages_are_serde_json_s() {
        let kinds = [
            Unexpected::Bool(true),
            Unexpected::Unsigned(7),
            Unexpected::Signed(-7),
            Unexpected::Float(1.5),
            Unexpected::Float(1e300),
            Unexpected::Float(-0.0),
            Unexpected::Float(f64::NAN),
            Unexpected::Float(f64::INFINITY),
            Unexpected::Float(f64::NEG_INFINITY),
            Unexpected::Char('x'),
            Unexpected::Str("plain text"),
            Unexpected::Bytes(b"ab"),
            Unexpected::Unit,
            Unexpected::Option,
            Unexpected::NewtypeStruct,
            Unexpected::Seq,
            Unexpected::Map,
            Unexpected::Enum,
            Unexpected::UnitVariant,
            Unexpected::NewtypeVariant,
            Unexpected::TupleVariant,
            Unexpected::StructVariant,
            Unexpected::Other("other"),
        ];
        for unexp in kinds {
            assert_eq!(
                ReadError::invalid_type(unexp, &"a thing").to_string(),
                serde_json::Error::invalid_type(unexp, &"a thing").to_string(),
            );
            assert_eq!(
                ReadError::invalid_value(unexp, &"a thing").to_string(),
                serde_json::Error::invalid_value(unexp, &"a thing").to_string(),
            );
            assert_eq!(
                invalid_type(unexp, &"a thing").to_string(),
                serde_json::Error::invalid_type(unexp, &"a thing").to_string(),
            );
        }
    }

    #[test]
    fn strings_are_quoted_as_json_writes_them() {
        let e = ReadError::invalid_type(Unexpected::Str("a\"b\\c\nd\u{1b}é\u{200b}"), &"x");
        assert_eq!(
            e.to_string(),
            "invalid type: string \"a\\\"b\\\\c\\nd\\u001bé\u{200b}\", expected x"
        );
        assert_eq!(Quoted("part \"1\"").to_string(), r#""part \"1\"""#);
        assert_eq!(
            Quoted("/sources/1").to_string(),
            format!("{:?}", "/sources/1")
        );
    }

    /// The readers report through `ReadError`: a string of the wrong type is quoted as JSON
    /// writes it, in a tree and in text, and a number of the wrong type is named as serde_json
    /// names it.
    #[test]
    fn readers_quote_strings_as_json_writes_them() {
        use serde_json::json;
        let tree = super::super::from_tree::<u32>(json!("x\u{1b}\u{200b}")).unwrap_err();
        assert_eq!(
            tree.to_string(),
            "invalid type: string \"x\\u001b\u{200b}\", expected u32"
        );
        let text = super::super::from_text::<Vec<u32>>(r#"[1, "a\tb"]"#).unwrap_err();
        assert_eq!(
            text.to_string(),
            r#"invalid type: string "a\tb", expected u32"#
        );
        let float = super::super::from_tree::<String>(json!(2.5)).unwrap_err();
        assert_eq!(
            float.to_string(),
            "invalid type: floating point `2.5`, expected a string"
        );
    }

    #[test]
    fn characters_are_quoted_as_debug_quotes_ordinary_ones() {
        for c in ['x', 'é', '\'', '"', '\\', '\n', '\t', '}', ' '] {
            assert_eq!(QuotedChar(c).to_string(), format!("{c:?}"), "{c:?}");
        }
        assert_eq!(QuotedChar('\u{1b}').to_string(), r"'\u001b'");
    }
}
