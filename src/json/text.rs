//! Reading a type from JSON text in one pass, borrowing its strings: the reader of the event
//! types read per SSE event (ACP's events, AgentX's packets), and of the bodies made of them (the
//! ACP client's run events; AgentX messages from trees go through their text to it, so that one
//! reader of a packet is compiled). Everything else is read from a tree
//! ([`parse_value`](super::parse_value) and [`from_tree`](super::from_tree)).
//!
//! It reads as `serde_json::from_str` does (the same visitor calls for each kind of value; a
//! property test compares them), with the scanner's pieces (`json::scan`): strings without
//! escapes are borrowed from the text (`visit_borrowed_str`), numbers are read as
//! [`parse_value`](super::parse_value) reads them (floats as the nearest `f64`). It compiles none
//! of serde_json's text reader, whose number reading (with the exact float reading of its
//! `float_roundtrip`) was the larger part of it. For text that is not JSON it reports
//! `parse_value`'s error (serde_json's syntax error, with its position), found by reading the
//! text again; a wrong shape gets serde's error without a position, as from a tree (through
//! [`ReadError`](super::ReadError), as there).

use std::borrow::Cow;

use serde::de::{
    DeserializeSeed, Deserializer, EnumAccess, Error as _, IntoDeserializer, MapAccess, SeqAccess,
    Unexpected, VariantAccess, Visitor,
};
use serde::Deserialize;
use serde_json::Value;

use super::ReadError as Error;

use super::scan;

/// Reads a `T` from the JSON text `text` (see the [module documentation](self)). Not API.
///
/// # Errors
/// For text that is not JSON (or JSON a tree cannot hold), [`parse_value`](super::parse_value)'s
/// error; for JSON that is not a `T`, serde's error (e.g. ``missing field `role` ``, `invalid
/// type: integer `1`, expected a string`), with no line or column.
#[doc(hidden)]
pub fn from_text<'de, T: Deserialize<'de>>(text: &'de str) -> Result<T, serde_json::Error> {
    let mut de = Text {
        text,
        i: 0,
        open: 0,
    };
    match T::deserialize(&mut de).and_then(|v| de.end().map(|()| v)) {
        Ok(v) => Ok(v),
        Err(e) => Err(syntax_or(text, e.0)),
    }
}

/// The syntax error of `text`, if it is not JSON; else `e`.
#[cold]
#[inline(never)]
fn syntax_or(text: &str, e: serde_json::Error) -> serde_json::Error {
    match super::parse_value(text) {
        Err(syntax) => syntax,
        Ok(_) => e,
    }
}

/// The reader: the text, the position (a byte index), and how many arrays and objects are open.
#[doc(hidden)]
pub struct Text<'de> {
    text: &'de str,
    i: usize,
    open: usize,
}

/// What the reader reports for text it does not read (replaced by the syntax error).
fn not_json() -> Error {
    Error::custom("not JSON")
}

impl<'de> Text<'de> {
    fn skip_ws(&mut self) -> Option<u8> {
        while let Some(&c) = self.text.as_bytes().get(self.i) {
            if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(c);
            }
            self.i += 1;
        }
        None
    }

    /// Only whitespace is left.
    fn end(&mut self) -> Result<(), Error> {
        match self.skip_ws() {
            None => Ok(()),
            Some(_) => Err(not_json()),
        }
    }

    /// After a visitor read an array or object: its closing bracket `close` (the visitor read
    /// every element or member; serde_json's message where it did not).
    #[inline(never)]
    fn leave(&mut self, close: u8) -> Result<(), Error> {
        if self.skip_ws() != Some(close) {
            return Err(Error::custom("trailing characters"));
        }
        self.i += 1;
        self.open -= 1;
        Ok(())
    }

    /// A member's key starts here.
    #[inline(never)]
    fn quote(&self) -> Result<(), Error> {
        match self.text.as_bytes().get(self.i) {
            Some(b'"') => Ok(()),
            _ => Err(not_json()),
        }
    }

    /// The `:` after a member's key (read).
    #[inline(never)]
    fn colon(&mut self) -> Result<(), Error> {
        if self.skip_ws() != Some(b':') {
            return Err(not_json());
        }
        self.i += 1;
        Ok(())
    }

    /// Before the next element or member: `true` if there is one (after the `,` that separates
    /// it from the one before), `false` at the closing bracket `close` (left for
    /// [`Text::leave`], so that asking again answers `false` again).
    #[inline(never)]
    fn more(&mut self, first: bool, close: u8) -> Result<bool, Error> {
        let c = self.skip_ws().ok_or_else(not_json)?;
        if c == close {
            return Ok(false);
        }
        if !first {
            if c != b',' {
                return Err(not_json());
            }
            self.i += 1;
            self.skip_ws().ok_or_else(not_json)?;
        }
        Ok(true)
    }
}

/// A value's first token, as [`Text::token`] reads it.
enum Token<'de> {
    Str(Cow<'de, str>),
    /// An object's `{` or an array's `[`, read: its members or elements follow.
    Open(u8),
    Bool(bool),
    Null,
    U64(u64),
    I64(i64),
    F64(f64),
}

impl<'de> Text<'de> {
    /// Reads the next value's first token (a whole scalar, or an opening bracket). Not generic:
    /// compiled once, where the visitor's dispatch below is compiled for each type read.
    #[inline(never)]
    fn token(&mut self) -> Result<Token<'de>, Error> {
        let c = self.skip_ws().ok_or_else(not_json)?;
        let rest = self.text.as_bytes().get(self.i..).unwrap_or_default();
        let (token, len) = match c {
            b'"' => {
                let (s, next) = scan::str_at(self.text, self.i).ok_or_else(not_json)?;
                self.i = next;
                return Ok(Token::Str(s));
            }
            b'{' | b'[' => {
                if self.open >= scan::TREE_DEPTH {
                    return Err(not_json());
                }
                self.open += 1;
                (Token::Open(c), 1)
            }
            _ if rest.starts_with(b"true") => (Token::Bool(true), 4),
            _ if rest.starts_with(b"false") => (Token::Bool(false), 5),
            _ if rest.starts_with(b"null") => (Token::Null, 4),
            _ => {
                let (number, next) =
                    scan::number_at(self.text.as_bytes(), self.i).ok_or_else(not_json)?;
                self.i = next;
                let Value::Number(n) = number else {
                    return Err(not_json());
                };
                return Ok(if let Some(u) = n.as_u64() {
                    Token::U64(u)
                } else if let Some(i) = n.as_i64() {
                    Token::I64(i)
                } else {
                    Token::F64(n.as_f64().unwrap_or_default())
                });
            }
        };
        self.i += len;
        Ok(token)
    }
}

impl<'de> Deserializer<'de> for &mut Text<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.token()? {
            Token::Str(Cow::Borrowed(s)) => visitor.visit_borrowed_str(s),
            Token::Str(Cow::Owned(s)) => visitor.visit_string(s),
            Token::Open(b'{') => {
                let v = visitor.visit_map(Members {
                    de: &mut *self,
                    first: true,
                })?;
                self.leave(b'}')?;
                Ok(v)
            }
            Token::Open(_) => {
                let v = visitor.visit_seq(Elements {
                    de: &mut *self,
                    first: true,
                })?;
                self.leave(b']')?;
                Ok(v)
            }
            Token::Bool(b) => visitor.visit_bool(b),
            Token::Null => visitor.visit_unit(),
            Token::U64(u) => visitor.visit_u64(u),
            Token::I64(i) => visitor.visit_i64(i),
            Token::F64(f) => visitor.visit_f64(f),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.skip_ws() == Some(b'n') {
            if self.text.as_bytes().get(self.i..self.i + 4) != Some(b"null") {
                return Err(not_json());
            }
            self.i += 4;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    /// A unit variant from a string, any variant from an object of one member (its name: its
    /// value), as serde_json reads them.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.token()? {
            Token::Str(s) => {
                let s: serde::de::value::CowStrDeserializer<'_, Error> = s.into_deserializer();
                visitor.visit_enum(s)
            }
            // (serde_json's messages where the object does not have exactly one member.)
            Token::Open(b'{') => {
                if !self.more(true, b'}')? {
                    return Err(Error::custom("expected value"));
                }
                self.quote()?;
                let v = visitor.visit_enum(Variant(&mut *self))?;
                if self.skip_ws() != Some(b'}') {
                    return Err(Error::custom("expected value"));
                }
                self.leave(b'}')?;
                Ok(v)
            }
            _ => Err(Error::custom("expected value")),
        }
    }

    /// A string only, as serde_json reads an identifier (a struct's field name, an enum's
    /// variant): not a variant's index.
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let unexpected = match self.token()? {
            Token::Str(Cow::Borrowed(s)) => return visitor.visit_borrowed_str(s),
            Token::Str(Cow::Owned(s)) => return visitor.visit_string(s),
            Token::Open(b'{') => Unexpected::Map,
            Token::Open(_) => Unexpected::Seq,
            Token::Bool(b) => Unexpected::Bool(b),
            Token::Null => Unexpected::Unit,
            Token::U64(u) => Unexpected::Unsigned(u),
            Token::I64(i) => Unexpected::Signed(i),
            Token::F64(f) => Unexpected::Float(f),
        };
        Err(Error::invalid_type(unexpected, &visitor))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct ignored_any
    }
}

/// An object's members, for a visitor.
struct Members<'a, 'de> {
    de: &'a mut Text<'de>,
    first: bool,
}

impl<'de> MapAccess<'de> for Members<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if !self.de.more(std::mem::take(&mut self.first), b'}')? {
            return Ok(None);
        }
        self.de.quote()?;
        let key = seed.deserialize(&mut *self.de)?;
        self.de.colon()?;
        Ok(Some(key))
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(&mut *self.de)
    }
}

/// An enum's variant as an object of one member, for a visitor.
struct Variant<'a, 'de>(&'a mut Text<'de>);

impl<'de> EnumAccess<'de> for Variant<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), Error> {
        let name = seed.deserialize(&mut *self.0)?;
        self.0.colon()?;
        Ok((name, self))
    }
}

impl<'de> VariantAccess<'de> for Variant<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        <()>::deserialize(&mut *self.0)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(&mut *self.0)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_any(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.deserialize_any(visitor)
    }
}

/// An array's elements, for a visitor.
struct Elements<'a, 'de> {
    de: &'a mut Text<'de>,
    first: bool,
}

impl<'de> SeqAccess<'de> for Elements<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if !self.de.more(std::mem::take(&mut self.first), b']')? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.de).map(Some)
    }
}
