//! The change feed of [`PartialJson`](super::PartialJson): what one push changed, small enough to
//! forward to JavaScript instead of the whole value.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One step of a path into a JSON value: an object member's key or an array element's index
/// (0-based). Serializes as a bare string or number, so a path reads `["files", 0, "path"]` in
/// JavaScript.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(test, derive(Deserialize))]
#[serde(untagged)]
pub enum PathSegment {
    /// An array index, 0-based.
    Index(usize),
    /// An object key, decoded (no JSON escapes).
    Key(String),
}

impl PathSegment {
    /// Reads a segment as serde's derive reads the untagged enum: a non-negative integer that fits
    /// a `usize` is an index, a string a key.
    ///
    /// # Errors
    /// serde's message for anything else, `data did not match any variant of untagged enum
    /// PathSegment`.
    ///
    /// By hand: the derived reader buffers the value (serde's `Content`) and tries each variant on
    /// the buffer, code compiled for this type alone.
    pub fn from_value(value: Value) -> Result<Self, serde_json::Error> {
        use serde::de::Error as _;
        match value {
            Value::Number(n) => n
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .map(Self::Index),
            Value::String(s) => Some(Self::Key(s)),
            _ => None,
        }
        .ok_or_else(|| {
            serde_json::Error::custom("data did not match any variant of untagged enum PathSegment")
        })
    }
}

#[cfg(not(test))]
impl<'de> Deserialize<'de> for PathSegment {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        PathSegment::from_value(Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

impl std::fmt::Display for PathSegment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathSegment::Index(i) => write!(f, "{i}"),
            PathSegment::Key(k) => f.write_str(k),
        }
    }
}

/// A change made by one [`push`](super::PartialJson::push), to replay on a copy of the value.
///
/// JSON shape (camelCase, tagged by `op`): `{"op": "set", "path": ["a", 0], "value": …}` or
/// `{"op": "append", "path": ["a"], "value": "more text"}`. An empty path is the root.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum PartialChange {
    /// A value appeared at `path`, or replaced the value there (an open number that grew, or a
    /// duplicate object key). In an array, `path` ends with the index of the new element, which is
    /// the array's length before it (or an existing index when replacing). New arrays and objects
    /// are set empty; their members follow as further changes.
    Set {
        /// Where, from the root.
        path: Vec<PathSegment>,
        /// The new value: a scalar, `""` for a string that just opened, or `[]` / `{}`.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
        value: Value,
    },
    /// Text appended to the string at `path` (only the new piece, decoded).
    Append {
        /// Where the string is, from the root.
        path: Vec<PathSegment>,
        /// The text to append.
        value: String,
    },
}

/// The JSON text of `changes` (a `PartialChange[]`), the same text as `serde_json::to_string`,
/// written by hand around agentwire-core's string and value writers (opt-level 3). For the wasm
/// binding, which hands the changes of a push to JavaScript as JSON: serde_json's serializer,
/// compiled in this crate at opt-level "z", made a push of search results in 16-byte deltas
/// measurably slower.
#[doc(hidden)]
pub fn changes_json(changes: &[PartialChange]) -> String {
    use agentwire_core::json::{write_json_str, write_json_value};
    let mut out = String::with_capacity(64 * changes.len() + 2);
    out.push('[');
    for (i, change) in changes.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(match change {
            PartialChange::Set { .. } => r#"{"op":"set","path":["#,
            PartialChange::Append { .. } => r#"{"op":"append","path":["#,
        });
        for (j, seg) in change.path().iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            match seg {
                PathSegment::Index(n) => write_json_value(&mut out, &Value::from(*n)),
                PathSegment::Key(k) => write_json_str(&mut out, k),
            }
        }
        out.push_str(r#"],"value":"#);
        match change {
            PartialChange::Set { value, .. } => write_json_value(&mut out, value),
            PartialChange::Append { value, .. } => write_json_str(&mut out, value),
        }
        out.push('}');
    }
    out.push(']');
    out
}

impl PartialChange {
    /// The path the change applies to.
    pub fn path(&self) -> &[PathSegment] {
        match self {
            PartialChange::Set { path, .. } | PartialChange::Append { path, .. } => path,
        }
    }

    /// Applies the change to `target` (the consumer's copy of the value, `None` before the first
    /// change): the reference for how a JavaScript consumer applies them. Returns `false` (and
    /// changes nothing) when the change does not fit the target: a path that does not exist, an
    /// index past the end of an array, or an append to something that is not a string. Changes
    /// from a [`PartialJson`](super::PartialJson), applied in order to a copy that followed all
    /// earlier ones, always fit.
    pub fn apply(&self, target: &mut Option<Value>) -> bool {
        let path = self.path();
        let Some((last, parents)) = path.split_last() else {
            return match self {
                PartialChange::Set { value, .. } => {
                    *target = Some(value.clone());
                    true
                }
                PartialChange::Append { value, .. } => match target {
                    Some(Value::String(s)) => {
                        s.push_str(value);
                        true
                    }
                    _ => false,
                },
            };
        };
        let Some(mut cur) = target.as_mut() else {
            return false;
        };
        for seg in parents {
            let next = match (seg, cur) {
                (PathSegment::Index(i), Value::Array(a)) => a.get_mut(*i),
                (PathSegment::Key(k), Value::Object(m)) => m.get_mut(k.as_str()),
                _ => None,
            };
            match next {
                Some(v) => cur = v,
                None => return false,
            }
        }
        match (self, last, cur) {
            (PartialChange::Set { value, .. }, PathSegment::Index(i), Value::Array(a)) => {
                if *i == a.len() {
                    a.push(value.clone());
                } else if let Some(slot) = a.get_mut(*i) {
                    *slot = value.clone();
                } else {
                    return false;
                }
                true
            }
            (PartialChange::Set { value, .. }, PathSegment::Key(k), Value::Object(m)) => {
                m.insert(k.clone(), value.clone());
                true
            }
            (PartialChange::Append { value, .. }, PathSegment::Index(i), Value::Array(a)) => {
                match a.get_mut(*i) {
                    Some(Value::String(s)) => {
                        s.push_str(value);
                        true
                    }
                    _ => false,
                }
            }
            (PartialChange::Append { value, .. }, PathSegment::Key(k), Value::Object(m)) => {
                match m.get_mut(k.as_str()) {
                    Some(Value::String(s)) => {
                        s.push_str(value);
                        true
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// The hand-written reader of a segment against serde's derived one (these tests derive
    /// `Deserialize`).
    #[test]
    fn a_segment_reads_as_the_derived_reader_reads_it() {
        let values = [
            json!(0),
            json!(7),
            json!(u64::MAX),
            json!(-1),
            json!(1.5),
            json!("k"),
            json!(""),
            json!(null),
            json!(true),
            json!([0]),
            json!({"k": 0}),
        ];
        for v in values {
            let ours = PathSegment::from_value(v.clone()).map_err(|e| e.to_string());
            let theirs = agentwire_core::json::from_tree::<PathSegment>(v.clone())
                .map_err(|e| e.to_string());
            assert_eq!(ours, theirs, "{v}");
        }
    }

    fn segment() -> impl Strategy<Value = PathSegment> {
        prop_oneof![
            any::<usize>().prop_map(PathSegment::Index),
            "\\PC*|[\u{0}-\u{1f}\"\\\\a-z]*".prop_map(PathSegment::Key),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "\\PC*|[\u{0}-\u{1f}\"\\\\a-z]*".prop_map(Value::String),
            Just(json!([])),
            Just(json!({})),
            Just(json!({"a": [1, "b\n", null]})),
        ]
    }

    fn change() -> impl Strategy<Value = PartialChange> {
        let path = || proptest::collection::vec(segment(), 0..4);
        prop_oneof![
            (path(), value()).prop_map(|(path, value)| PartialChange::Set { path, value }),
            (path(), "\\PC*").prop_map(|(path, value)| PartialChange::Append { path, value }),
        ]
    }

    proptest! {
        #[test]
        fn changes_json_is_serde_jsons_text(changes in proptest::collection::vec(change(), 0..5)) {
            prop_assert_eq!(changes_json(&changes), serde_json::to_string(&changes).unwrap());
        }
    }
}
