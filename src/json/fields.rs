//! Hand-written `Deserialize` for structs: read the JSON object into a map once, then take each
//! field out of it by name. Not API.
//!
//! serde's derive compiles, for every struct and every deserializer it is read with, a visitor of
//! the object's members: a key matcher, one arm per field, the checks for missing and repeated
//! fields and, for a `#[serde(flatten)]` map of unknown members, a buffer of serde's `Content`
//! values read back through another deserializer. A struct written with [`Fields`] compiles one
//! call per field instead: the object is read by one visitor shared by every struct (per
//! deserializer), and each field is read from its tree by [`from_tree`].
//!
//! Read so, a struct reads what its derived reader would read, with the same messages (serde's,
//! as serde_json words them: ``missing field `name` ``, `invalid type: null, expected a string`),
//! except:
//! - when several members are wrong, the error is that of the first field in the struct's order,
//!   not in the object's;
//! - a key given twice in JSON text: the last counts (as in `JSON.parse`), where a derived struct
//!   refuses a `duplicate field` (a flattened one keeps the last too);
//! - a struct is read only from an object, never from an array of its fields (as [`from_tree`]).
//!
//! The members are moved into a new map before the fields are taken out: a cost per object that
//! arguments and protocol envelopes do not notice, and values read by the thousand do (a
//! payload's parts, read so, made `validatePayload` 10–30% slower: `Part` keeps its derive).

use serde::de::{DeserializeOwned, Deserializer, Error as _, MapAccess, Visitor};
use serde_json::{Error, Map, Value};
use std::fmt;

use super::from_tree;

/// The members of a JSON object not read yet (see the [module documentation](self)). Not API.
#[doc(hidden)]
pub struct Fields(pub Map<String, Value>);

/// The object's visitor: `expecting` names the struct (`"struct Run"`), as a derived visitor does.
struct Object(&'static str);

impl<'de> Visitor<'de> for Object {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut map = Map::new();
        while let Some((key, value)) = access.next_entry::<String, Value>()? {
            map.insert(key, value);
        }
        Ok(map)
    }
}

impl Fields {
    /// Reads `T` from `deserializer` as `read` reads it from the object's fields; `expecting`
    /// names `T` in the message for a value that is not an object (`"struct Run"`: `invalid
    /// type: string "x", expected struct Run`).
    ///
    /// # Errors
    /// The deserializer's error for a value that is not an object, or `read`'s error (as a custom
    /// error of the deserializer, with the same message).
    pub fn read<'de, D: Deserializer<'de>, T>(
        deserializer: D,
        expecting: &'static str,
        read: fn(&mut Fields) -> Result<T, Error>,
    ) -> Result<T, D::Error> {
        let mut fields = Fields(deserializer.deserialize_map(Object(expecting))?);
        read(&mut fields).map_err(D::Error::custom)
    }

    /// A field with `#[serde(default)]`: `T::default()` when absent. (`null` is read as `T`
    /// reads it: an error for a string, `None` for an option.)
    ///
    /// # Errors
    /// serde's error for a value that is not a `T`.
    pub fn or_default<T: DeserializeOwned + Default>(&mut self, name: &str) -> Result<T, Error> {
        self.or(name, T::default())
    }

    /// A field with `#[serde(default = "path")]`: `default()` when absent.
    ///
    /// # Errors
    /// serde's error for a value that is not a `T`.
    pub fn or_else<T: DeserializeOwned>(
        &mut self,
        name: &str,
        default: fn() -> T,
    ) -> Result<T, Error> {
        self.or(name, default())
    }

    /// A field of a struct with `#[serde(default)]` on the struct: `default` (that field of the
    /// struct's `Default`) when absent.
    ///
    /// # Errors
    /// serde's error for a value that is not a `T`.
    pub fn or<T: DeserializeOwned>(&mut self, name: &str, default: T) -> Result<T, Error> {
        match self.0.shift_remove(name) {
            Some(value) => from_tree(value),
            None => Ok(default),
        }
    }

    /// A field of type `Option<T>`: `None` when absent or `null`.
    ///
    /// # Errors
    /// serde's error for a value that is not a `T`.
    pub fn optional<T: DeserializeOwned>(&mut self, name: &str) -> Result<Option<T>, Error> {
        match self.0.shift_remove(name) {
            Some(value) => from_tree(value),
            None => Ok(None),
        }
    }

    /// A field without a default.
    ///
    /// # Errors
    /// ``missing field `name` `` when absent; serde's error for a value that is not a `T`.
    pub fn required<T: DeserializeOwned>(&mut self, name: &'static str) -> Result<T, Error> {
        match self.0.shift_remove(name) {
            Some(value) => from_tree(value),
            None => Err(Error::missing_field(name)),
        }
    }

    /// The members not taken: a `#[serde(flatten)]` map of unknown fields.
    pub fn rest(&mut self) -> Map<String, Value> {
        std::mem::take(&mut self.0)
    }
}

/// `impl Deserialize for $ty` by [`Fields::read`] with `$ty::read_fields(&mut Fields) ->
/// Result<$ty, serde_json::Error>`; `$expecting` names the type as serde's derive does (`"struct
/// Run"`). Not API.
///
/// Not in the crate's own unit tests (`cfg(test)`): there the type derives `Deserialize`
/// (`#[cfg_attr(test, derive(Deserialize))]`, with the same `#[serde]` attributes), the reference
/// that `read_fields` is checked against ([`same_reading`]).
#[doc(hidden)]
#[macro_export]
macro_rules! deserialize_by_fields {
    ($ty:ty, $expecting:literal) => {
        #[cfg(not(test))]
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::json::Fields::read(d, $expecting, <$ty>::read_fields)
            }
        }
    };
}

/// For tests: reads `base` (an object that `T` reads) and every change of it by one member (each
/// of `names` and an unknown name: removed, or set to each of a set of sample values: null,
/// booleans, numbers, strings, arrays and objects) with `read_fields` (through [`Fields::read`],
/// `expecting` naming `T`) and with `T`'s `Deserialize`, serde's derived reader in the crate's
/// unit tests (see [`deserialize_by_fields`](crate::deserialize_by_fields)), both from a tree.
/// Returns how many of the trees were read, or the first tree they read differently (another
/// value, or another error message). Not API.
///
/// # Errors
/// A description of the first difference.
#[doc(hidden)]
pub fn same_reading<T: DeserializeOwned + PartialEq + fmt::Debug>(
    base: &Value,
    names: &[&str],
    expecting: &'static str,
    read_fields: fn(&mut Fields) -> Result<T, Error>,
) -> Result<usize, String> {
    let samples = [
        Value::Null,
        Value::Bool(true),
        Value::from(0),
        Value::from(-1),
        Value::from(2.5),
        Value::from(""),
        Value::from("text"),
        Value::from("user"),
        Value::Array(Vec::new()),
        Value::Array(vec![Value::Null]),
        serde_json::json!([{}]),
        serde_json::json!({}),
        serde_json::json!({"k": 1}),
    ];
    let mut trees = vec![
        base.clone(),
        Value::from("x"),
        Value::Array(vec![base.clone()]),
    ];
    let object = base.as_object().cloned().unwrap_or_default();
    for name in names.iter().copied().chain(["x_unknown"]) {
        let mut removed = object.clone();
        removed.shift_remove(name);
        trees.push(Value::Object(removed));
        for sample in &samples {
            let mut changed = object.clone();
            changed.insert(name.to_owned(), sample.clone());
            trees.push(Value::Object(changed));
        }
    }
    let mut read = 0;
    for tree in trees {
        let ours = Fields::read(super::Tree(tree.clone()), expecting, read_fields);
        let theirs = from_tree::<T>(tree.clone());
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) if a == b => read += 1,
            (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
            _ => return Err(format!("{tree}: ours {ours:?}, serde's {theirs:?}")),
        }
    }
    Ok(read)
}
