//! Serde building blocks shared by the wire models of every dialect.
//!
//! - [`wire_enum!`](crate::wire_enum): a string enum that keeps unknown values (`Other(String)`), since
//!   every protocol we speak says unknown values must be tolerated. Its TypeScript type is an open
//!   union (`"a" | "b" | (string & {})`), generated from the same literals.
//! - [`JsonMap`]: the JSON object type used for `extra` (unknown fields kept for round trips),
//!   `metadata` and `usage`.
//! - [`CowStr`]: a string deserialized without copying when the JSON text has no escapes.

use std::borrow::Cow;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// A JSON object. Its members keep the order the text gave them (serde_json's `Map` with its
/// `preserve_order` feature, an `IndexMap`; a member given twice keeps its first place and its
/// last value, as in `JSON.parse`), so a round trip keeps every member in its place.
pub type JsonMap = serde_json::Map<String, serde_json::Value>;

/// A [`JsonMap`] of `pairs`, inserted one by one (a repeated key keeps its last value, as with
/// `collect`). `collect` would sort the pairs first, with a stable sort compiled again for every
/// iterator type collected (about 3 KB of wasm each); for the few keys of a protocol object,
/// inserting is as fast.
pub fn json_map(pairs: impl IntoIterator<Item = (String, serde_json::Value)>) -> JsonMap {
    let mut map = JsonMap::new();
    map.extend(pairs);
    map
}

/// The TypeScript declaration of `JsonValue`, the type every `serde_json::Value` field has in the
/// generated `.d.ts` (never `any`).
pub const JSON_VALUE_TS: &str = "export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };";

/// Declares a string enum that serializes as its wire literal and keeps unknown values.
///
/// ```ignore
/// wire_enum! {
///     /// Who wrote a message.
///     Role { Assistant = "assistant", User = "user" }
/// }
/// ```
/// expands to `enum Role { Assistant, User, Other(String) }` with `as_str()`, `From<&str>`,
/// `Serialize`, `Deserialize` and a `TS_TYPE` constant holding the TypeScript declaration.
/// `Role as "AgentxRole" { … }` names the TypeScript type differently (dialects other than the
/// Agent API prefix theirs, so that every name in the package's `.d.ts` is unique).
#[macro_export]
macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident { $($body:tt)+ }) => {
        $crate::wire_enum! { @impl $(#[$meta])* $name, stringify!($name), { $($body)+ } }
    };
    ($(#[$meta:meta])* $name:ident as $ts:literal { $($body:tt)+ }) => {
        $crate::wire_enum! { @impl $(#[$meta])* $name, $ts, { $($body)+ } }
    };
    (@impl $(#[$meta:meta])* $name:ident, $ts:expr, { $($(#[$vmeta:meta])* $variant:ident = $wire:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
            /// A value this version does not know, kept as sent.
            Other(String),
        }

        impl $name {
            /// The TypeScript declaration of this type: its known literals, open to others.
            pub const TS_TYPE: &'static str = concat!(
                "export type ", $ts, " = ",
                $("\"", $wire, "\" | ",)+
                "(string & {});"
            );

            /// The wire literal.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $wire,)+
                    Self::Other(s) => s,
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $($wire => Self::$variant,)+
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = $crate::wire::CowStr::deserialize(d)?;
                Ok(Self::from(&*s.0))
            }
        }
    };
}

/// A string that borrows from the JSON input when it can (no escape sequences), else owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CowStr<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for CowStr<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CowStr<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// Deserializes `null` or a missing field as an empty `Vec` (protocols send `"content": null` for
/// "nothing yet").
pub fn null_as_empty<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn json_map_is_what_collect_gives_a_repeated_key_keeping_its_last_value() {
        let pairs = || {
            [("b", 1), ("a", 2), ("b", 3), ("c", 4)]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), Value::from(v)))
        };
        let map = json_map(pairs());
        assert_eq!(map, pairs().collect::<JsonMap>());
        assert_eq!(Value::Object(map), json!({"a": 2, "b": 3, "c": 4}));
    }
}
