//! Compiling a tool's JSON Schema (the supported subset of Draft 2020-12) into a graph of nodes,
//! without recursion: a worklist of subschemas, nodes addressed by index, `$ref` resolved to the
//! node of its target.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use super::regex::Regex;
use super::uri;
use super::validate;
use super::{ArgumentProblem, SchemaError};

/// The most subschemas one schema may have (every `properties` member, `items`, `anyOf` branch,
/// `$ref` target… counts one).
pub const MAX_SCHEMA_NODES: usize = 10_000;

/// Keywords accepted and ignored: annotations and identifiers (JSON Schema 2020-12 Core sections
/// 8.1–8.3, Validation sections 7 and 9). `format` is an annotation by default in 2020-12
/// (Validation section 7.2). `$defs` and `definitions` hold subschemas compiled when a `$ref`
/// points into them.
const IGNORED: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "definitions",
    "title",
    "description",
    "default",
    "examples",
    "format",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
    "contentEncoding",
];

/// Keywords of JSON Schema that this subset does not check. A schema using them compiles, with a
/// [`SchemaWarning`] for each use. (`$dynamicRef` is checked in 2020-12, `$recursiveRef` and
/// `$recursiveAnchor` in 2019-09: the dialects that define them.)
const UNSUPPORTED: &[&str] = &[
    "$dynamicRef",
    "$recursiveRef",
    "$recursiveAnchor",
    "contentSchema",
];

/// A schema keyword that compiled but is not checked: unsupported by this subset, or unknown to
/// JSON Schema 2020-12. Values are never rejected because of it, which is why it is reported.
///
/// JSON (camelCase): `{"pointer": "/properties/name/pattern", "keyword": "pattern", "message": "…"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SchemaWarning {
    /// JSON Pointer ([RFC 6901](https://www.rfc-editor.org/rfc/rfc6901)) to the keyword in the
    /// schema, e.g. `/properties/name/pattern`.
    pub pointer: String,
    /// The keyword, e.g. `pattern`.
    pub keyword: String,
    /// What is not checked, in a sentence.
    pub message: String,
}

/// The JSON types of the `type` keyword (Validation section 6.1.1). `integer` is any number with
/// a zero fractional part (`1.0` is an integer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonType {
    Null,
    Boolean,
    Object,
    Array,
    Number,
    String,
    Integer,
}

impl JsonType {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "null" => JsonType::Null,
            "boolean" => JsonType::Boolean,
            "object" => JsonType::Object,
            "array" => JsonType::Array,
            "number" => JsonType::Number,
            "string" => JsonType::String,
            "integer" => JsonType::Integer,
            _ => return None,
        })
    }

    /// The type with its article, as messages say it: `an integer`, `null`.
    pub(crate) fn phrase(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "a boolean",
            JsonType::Object => "an object",
            JsonType::Array => "an array",
            JsonType::Number => "a number",
            JsonType::String => "a string",
            JsonType::Integer => "an integer",
        }
    }

    pub(crate) fn matches(self, value: &Value) -> bool {
        match (self, value) {
            (JsonType::Null, Value::Null)
            | (JsonType::Boolean, Value::Bool(_))
            | (JsonType::Object, Value::Object(_))
            | (JsonType::Array, Value::Array(_))
            | (JsonType::Number, Value::Number(_))
            | (JsonType::String, Value::String(_)) => true,
            (JsonType::Integer, Value::Number(n)) => is_integer(n),
            _ => false,
        }
    }
}

/// Whether a number has no fractional part.
pub(crate) fn is_integer(n: &Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// Index of a node in [`CompiledSchema::nodes`].
pub(crate) type NodeId = usize;

/// One compiled subschema and where it is in the schema document.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// JSON Pointer of the subschema in the schema document (`""` for the root).
    pub pointer: String,
    pub kind: NodeKind,
}

#[derive(Debug, Clone)]
pub(crate) enum NodeKind {
    /// `true` (anything) or `false` (nothing).
    Bool(bool),
    Keywords(Box<Keywords>),
}

/// The checked keywords of one subschema.
#[derive(Debug, Clone, Default)]
pub(crate) struct Keywords {
    pub types: Option<Vec<JsonType>>,
    /// Sorted by key.
    pub properties: Vec<(String, NodeId)>,
    pub required: Vec<String>,
    pub additional: Option<NodeId>,
    pub enumeration: Option<Vec<Value>>,
    pub constant: Option<Value>,
    pub items: Option<NodeId>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub unique_items: bool,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub exclusive_minimum: Option<Number>,
    pub exclusive_maximum: Option<Number>,
    pub multiple_of: Option<Number>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
    pub all_of: Vec<NodeId>,
    pub any_of: Vec<NodeId>,
    pub one_of: Vec<NodeId>,
    pub not: Option<NodeId>,
    pub reference: Option<NodeId>,
    /// `$dynamicRef` (2020-12 Core 8.2.3.2) or `$recursiveRef` (2019-09 Core 8.2.4.2).
    pub dynamic_reference: Option<Box<DynamicRef>>,
    /// `prefixItems` (or, before 2020-12, `items` as an array): the schemas of the first items;
    /// `items` (`additionalItems` before 2020-12) then covers the items after them.
    pub prefix_items: Vec<NodeId>,
    /// `contains` with `minContains` (1 when absent) and `maxContains`.
    pub contains: Option<NodeId>,
    pub min_contains: u64,
    pub max_contains: Option<u64>,
    /// `dependentRequired` (and `dependencies` with a list): when the key is present, the names
    /// (and which of the two keywords it was).
    pub dependent_required: Vec<(String, Vec<String>, &'static str)>,
    /// `dependentSchemas` (and `dependencies` with a schema): when the key is present, the
    /// schema the whole object must also satisfy.
    pub dependent_schemas: Vec<(String, NodeId)>,
    /// `if`, `then`, `else`: `then` or `else` applies as `if` matches or not.
    pub condition: Option<NodeId>,
    pub then: Option<NodeId>,
    pub otherwise: Option<NodeId>,
    /// `pattern`.
    pub pattern: Option<Regex>,
    /// `propertyNames`.
    pub property_names: Option<NodeId>,
    /// `patternProperties`: each member whose name matches is checked against the schema, and
    /// `additionalProperties` covers the members no `properties` or pattern names.
    pub pattern_properties: Vec<(Regex, NodeId)>,
    /// `unevaluatedProperties` (Core 11.3): the members no adjacent or in-place subschema
    /// evaluated are checked against it.
    pub unevaluated_properties: Option<NodeId>,
    /// `unevaluatedItems` (Core 11.2): the items no adjacent or in-place subschema evaluated are
    /// checked against it.
    pub unevaluated_items: Option<NodeId>,
    /// `contains` marks the items it matched as evaluated (2020-12; not in 2019-09).
    pub contains_evaluates: bool,
}

/// A compiled `$dynamicRef` (or 2019-09's `$recursiveRef`): where it points when no other schema
/// resource of the dynamic scope defines its anchor (its target resolved as a `$ref`'s), and
/// each resource that defines it with a `$dynamicAnchor` (Core 8.2.3.2; for `$recursiveRef`, each
/// resource whose root has `$recursiveAnchor: true`). `candidates` is empty when the reference is
/// static: its fragment is a JSON Pointer, or its target has no such anchor.
#[derive(Debug, Clone)]
pub(crate) struct DynamicRef {
    pub initial: NodeId,
    /// (the resource's index in [`CompiledSchema::node_resources`]' numbering, the anchored
    /// subschema's node), in the order of the schema's resources.
    pub candidates: Vec<(u32, NodeId)>,
}

impl Keywords {
    pub(crate) fn property(&self, key: &str) -> Option<NodeId> {
        self.properties
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
            .and_then(|i| self.properties.get(i))
            .map(|(_, id)| *id)
    }
}

/// A JSON Schema compiled for validation: the supported subset of Draft 2020-12, with `$ref`
/// resolved. Compile once (e.g. when a tool is registered), validate many times.
///
/// ```
/// use agentwire::tool::CompiledSchema;
/// use serde_json::json;
///
/// let schema = CompiledSchema::compile(&json!({
///     "type": "object",
///     "properties": {"top_k": {"type": "integer", "minimum": 1}},
///     "required": ["top_k"],
/// }))?;
/// assert!(schema.validate(&json!({"top_k": 3})).is_empty());
/// let problems = schema.validate(&json!({"top_k": "3"}));
/// assert_eq!(problems[0].message, "Argument 'top_k' must be an integer, got string \"3\".");
/// # Ok::<(), agentwire::tool::SchemaError>(())
/// ```
#[derive(Debug, Clone)]
pub struct CompiledSchema {
    pub(crate) nodes: Vec<Node>,
    /// The schema resource (an index into the compiler's list of resources, the root's 0) of
    /// each node, which the dynamic scope is made of (Core 7.1); empty when the schema has no
    /// `$dynamicRef` that depends on it.
    pub(crate) node_resources: Vec<u32>,
    warnings: Vec<SchemaWarning>,
}

impl CompiledSchema {
    /// Compiles `schema`, an object or a boolean (JSON Schema 2020-12 Core section 4.3). The
    /// [module documentation](super) lists the keywords checked, ignored and reported.
    ///
    /// # Errors
    ///
    /// [`SchemaError::Invalid`] for a schema that is not an object or boolean, or a checked
    /// keyword with a value of the wrong shape (`"minLength": -1`, `"required": "a"`);
    /// [`SchemaError::UnresolvedRef`] for a local `$ref` whose target does not exist;
    /// [`SchemaError::RefCycle`] for `$ref`s (or `allOf`/`anyOf`/`oneOf`/`not`) that loop
    /// without descending into the value; [`SchemaError::TooLarge`] past
    /// [`MAX_SCHEMA_NODES`] subschemas.
    pub fn compile(schema: &Value) -> Result<Self, SchemaError> {
        let mut c = Compiler {
            root: schema,
            dialect: Dialect::Draft2020,
            resources: None,
            nodes: Vec::new(),
            by_pointer: BTreeMap::new(),
            queue: Vec::new(),
            warnings: Vec::new(),
            dynamic: false,
        };
        c.dialect = c.declared_dialect();
        c.node(String::new(), schema)?;
        while let Some((id, value)) = c.queue.pop() {
            let pointer = c
                .nodes
                .get(id)
                .map(|n| n.pointer.clone())
                .unwrap_or_default();
            let kind = c.compile_node(&pointer, value)?;
            if let Some(node) = c.nodes.get_mut(id) {
                node.kind = kind;
            }
        }
        check_cycles(&c.nodes)?;
        let node_resources = if c.dynamic {
            c.node_resources()
        } else {
            Vec::new()
        };
        // Sorted by pointer, those of one pointer in the order found: each pointer's warnings
        // in a group, the groups in a map of the pointers (no sort is compiled for this).
        let mut groups: Vec<Vec<SchemaWarning>> = Vec::new();
        let mut by_pointer: BTreeMap<String, usize> = BTreeMap::new();
        for w in c.warnings {
            let group = *by_pointer.entry(w.pointer.clone()).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            if let Some(g) = groups.get_mut(group) {
                g.push(w);
            }
        }
        let mut warnings = Vec::new();
        for &group in by_pointer.values() {
            if let Some(g) = groups.get_mut(group) {
                warnings.append(g);
            }
        }
        Ok(Self {
            nodes: c.nodes,
            node_resources,
            warnings,
        })
    }

    /// The keywords that compiled but are not checked, sorted by pointer.
    pub fn warnings(&self) -> &[SchemaWarning] {
        &self.warnings
    }

    /// Checks `value` against the schema; returns every problem found (empty when valid), in
    /// document order: `required` before the members, members in the arguments' order. At most
    /// [`MAX_PROBLEMS`](super::MAX_PROBLEMS) problems are listed; the work is bounded by
    /// [`MAX_VALIDATION_STEPS`](super::MAX_VALIDATION_STEPS) (past it, one
    /// [`TooComplex`](super::ProblemKind::TooComplex) problem is added).
    pub fn validate(&self, value: &Value) -> Vec<ArgumentProblem> {
        validate::validate(self, value).0
    }

    /// Whether `value` satisfies the schema.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.validate(value).is_empty()
    }

    pub(crate) fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id)
    }
}

/// Escapes one JSON Pointer reference token (RFC 6901 section 3).
pub(crate) fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

struct Compiler<'a> {
    root: &'a Value,
    dialect: Dialect,
    /// The schema resources' absolute URIs (their `$id`s resolved) and pointers, the root first;
    /// found when a `$ref` first names a URI.
    resources: Option<Vec<(String, String)>>,
    nodes: Vec<Node>,
    by_pointer: BTreeMap<String, NodeId>,
    queue: Vec<(NodeId, &'a Value)>,
    warnings: Vec<SchemaWarning>,
    /// Whether a `$dynamicRef` or `$recursiveRef` has candidates: validation then follows the
    /// dynamic scope.
    dynamic: bool,
}

impl<'a> Compiler<'a> {
    /// The node of the subschema at `pointer`, queued for compilation if new.
    fn node(&mut self, pointer: String, value: &'a Value) -> Result<NodeId, SchemaError> {
        if let Some(&id) = self.by_pointer.get(&pointer) {
            return Ok(id);
        }
        if self.nodes.len() >= MAX_SCHEMA_NODES {
            return Err(SchemaError::TooLarge {
                pointer,
                limit: MAX_SCHEMA_NODES,
            });
        }
        let id = self.nodes.len();
        self.nodes.push(Node {
            pointer: pointer.clone(),
            kind: NodeKind::Bool(true),
        });
        self.by_pointer.insert(pointer, id);
        self.queue.push((id, value));
        Ok(id)
    }

    fn warn(&mut self, pointer: String, keyword: &str, message: String) {
        self.warnings.push(SchemaWarning {
            pointer,
            keyword: keyword.to_owned(),
            message,
        });
    }

    fn compile_node(&mut self, pointer: &str, value: &'a Value) -> Result<NodeKind, SchemaError> {
        let map = match value {
            Value::Bool(b) => return Ok(NodeKind::Bool(*b)),
            Value::Object(map) => map,
            other => {
                return Err(invalid(
                    pointer.to_owned(),
                    "a schema must be an object or a boolean",
                    other,
                ))
            }
        };
        let mut k = Keywords::default();
        // Drafts 4 to 7 (Draft 7 Core section 8.3): beside `$ref`, every other keyword is ignored.
        let only_ref = self.dialect <= Dialect::Draft7 && map.contains_key("$ref");
        // Draft 4's boolean `exclusiveMinimum` and `exclusiveMaximum`.
        let (mut exclusive_minimum, mut exclusive_maximum) = (false, false);
        // `items`, whether it was an array, `additionalItems`, `minContains`: settled once the
        // whole subschema is read.
        let (mut items, mut tuple, mut additional_items, mut min_contains) =
            (None, false, None, None);
        for (keyword, v) in map {
            if only_ref && keyword != "$ref" {
                continue;
            }
            let at = format!("{pointer}/{}", escape_token(keyword));
            match keyword.as_str() {
                "type" => k.types = Some(types(&at, v)?),
                "properties" => {
                    let Value::Object(props) = v else {
                        return Err(invalid(at, "`properties` must be an object", v));
                    };
                    // Kept in name order, as `property` searches them (a JSON object's members
                    // are in their text's order: serde_json's `preserve_order`).
                    for (name, sub) in props {
                        let id = self.node(format!("{at}/{}", escape_token(name)), sub)?;
                        let (Ok(i) | Err(i)) =
                            k.properties.binary_search_by(|(k, _)| k.as_str().cmp(name));
                        k.properties.insert(i, (name.clone(), id));
                    }
                }
                "required" => k.required = strings(&at, v, "`required`")?,
                "additionalProperties" => k.additional = Some(self.node(at, v)?),
                "enum" => {
                    let Value::Array(values) = v else {
                        return Err(invalid(at, "`enum` must be an array", v));
                    };
                    k.enumeration = Some(values.clone());
                }
                "const" => k.constant = Some(v.clone()),
                // Before 2020-12, `items` as an array is the prefix and `additionalItems` the
                // rest (2019-09 Core 9.3.1.1 and 9.3.1.2); read so in 2020-12 too.
                "items" => match v {
                    Value::Array(_) => {
                        tuple = true;
                        k.prefix_items = self.schema_list(&at, v, keyword)?;
                    }
                    _ => items = Some(self.node(at, v)?),
                },
                "additionalItems" => additional_items = Some(self.node(at, v)?),
                "prefixItems" => k.prefix_items = self.schema_list(&at, v, keyword)?,
                "contains" => {
                    k.contains = Some(self.node(at, v)?);
                    k.contains_evaluates = self.dialect >= Dialect::Draft2020;
                }
                "unevaluatedProperties" => k.unevaluated_properties = Some(self.node(at, v)?),
                "unevaluatedItems" => k.unevaluated_items = Some(self.node(at, v)?),
                "minContains" => min_contains = Some(count(&at, v, keyword)?),
                "maxContains" => k.max_contains = Some(count(&at, v, keyword)?),
                "dependentRequired" => {
                    let Value::Object(deps) = v else {
                        return Err(invalid(at, "`dependentRequired` must be an object", v));
                    };
                    for (name, list) in deps {
                        let at = format!("{at}/{}", escape_token(name));
                        let names = strings(&at, list, "each `dependentRequired` member")?;
                        k.dependent_required
                            .push((name.clone(), names, "dependentRequired"));
                    }
                }
                "dependentSchemas" | "dependencies" => {
                    let Value::Object(deps) = v else {
                        return Err(invalid(
                            at,
                            "`dependentSchemas` and `dependencies` must be objects",
                            v,
                        ));
                    };
                    for (name, sub) in deps {
                        let at = format!("{at}/{}", escape_token(name));
                        if keyword == "dependencies" && sub.is_array() {
                            let names = strings(&at, sub, "a `dependencies` list")?;
                            k.dependent_required
                                .push((name.clone(), names, "dependencies"));
                        } else {
                            let id = self.node(at, sub)?;
                            k.dependent_schemas.push((name.clone(), id));
                        }
                    }
                }
                "propertyNames" => k.property_names = Some(self.node(at, v)?),
                "if" => k.condition = Some(self.node(at, v)?),
                "then" => k.then = Some(self.node(at, v)?),
                "else" => k.otherwise = Some(self.node(at, v)?),
                "minItems" => k.min_items = Some(count(&at, v, keyword)?),
                "maxItems" => k.max_items = Some(count(&at, v, keyword)?),
                "uniqueItems" => match v {
                    Value::Bool(b) => k.unique_items = *b,
                    _ => return Err(invalid(at, "`uniqueItems` must be a boolean", v)),
                },
                "minLength" => k.min_length = Some(count(&at, v, keyword)?),
                "maxLength" => k.max_length = Some(count(&at, v, keyword)?),
                "minProperties" => k.min_properties = Some(count(&at, v, keyword)?),
                "maxProperties" => k.max_properties = Some(count(&at, v, keyword)?),
                "minimum" => k.minimum = Some(number(&at, v, keyword)?),
                "maximum" => k.maximum = Some(number(&at, v, keyword)?),
                "exclusiveMinimum" | "exclusiveMaximum"
                    if v.is_boolean() && self.dialect == Dialect::Draft4 =>
                {
                    // Draft 4 Validation sections 5.1.2 and 5.1.3: `true` makes `maximum`
                    // (`minimum`) exclusive; applied once the whole subschema is read.
                    if *v == Value::Bool(true) {
                        if keyword == "exclusiveMinimum" {
                            exclusive_minimum = true;
                        } else {
                            exclusive_maximum = true;
                        }
                    }
                }
                "exclusiveMinimum" | "exclusiveMaximum" if v.is_boolean() => self.warn(
                    at,
                    keyword,
                    format!(
                        "boolean `{keyword}` (JSON Schema draft 4) is not supported: it is \
                         ignored; use a number (2020-12)"
                    ),
                ),
                "exclusiveMinimum" => k.exclusive_minimum = Some(number(&at, v, keyword)?),
                "exclusiveMaximum" => k.exclusive_maximum = Some(number(&at, v, keyword)?),
                "multipleOf" => {
                    let n = number(&at, v, keyword)?;
                    if !n.as_f64().is_some_and(|f| f > 0.0) {
                        return Err(invalid(at, "`multipleOf` must be greater than 0", v));
                    }
                    k.multiple_of = Some(n);
                }
                "allOf" => k.all_of = self.schema_list(&at, v, keyword)?,
                "anyOf" => k.any_of = self.schema_list(&at, v, keyword)?,
                "oneOf" => k.one_of = self.schema_list(&at, v, keyword)?,
                "not" => k.not = Some(self.node(at, v)?),
                "$ref" => {
                    let Value::String(reference) = v else {
                        return Err(invalid(at, "`$ref` must be a string", v));
                    };
                    match self.resolve(&at, reference, pointer)? {
                        Some((target, value)) => k.reference = Some(self.node(target, value)?),
                        None => self.warn(
                            at,
                            keyword,
                            format!(
                                "`$ref` {} names no schema resource, anchor or JSON Pointer of \
                                 this schema: remote schemas are not fetched, so it is not \
                                 checked",
                                agentwire_core::json::Quoted(reference)
                            ),
                        ),
                    }
                }
                // `$dynamicRef` in 2020-12, `$recursiveRef` in 2019-09 (the others warn below).
                "$dynamicRef" | "$recursiveRef" if self.dynamic_keyword() == keyword => {
                    let Value::String(reference) = v else {
                        return Err(invalid(at, &format!("`{keyword}` must be a string"), v));
                    };
                    match self.resolve(&at, reference, pointer)? {
                        Some((target, value)) => {
                            let initial = self.node(target, value)?;
                            let candidates = self.dynamic_candidates(reference, value)?;
                            self.dynamic |= !candidates.is_empty();
                            k.dynamic_reference = Some(Box::new(DynamicRef {
                                initial,
                                candidates,
                            }));
                        }
                        None => self.warn(
                            at,
                            keyword,
                            format!(
                                "`{keyword}` {} names no schema resource, anchor or JSON \
                                 Pointer of this schema: remote schemas are not fetched, so it \
                                 is not checked",
                                agentwire_core::json::Quoted(reference)
                            ),
                        ),
                    }
                }
                "$recursiveAnchor" if self.dialect == Dialect::Draft2019 => {
                    if !v.is_boolean() {
                        return Err(invalid(at, "`$recursiveAnchor` must be a boolean", v));
                    }
                }
                "id" if self.dialect == Dialect::Draft4 => {}
                kw if IGNORED.contains(&kw) => {
                    if matches!(kw, "$defs" | "definitions") && !v.is_object() {
                        return Err(invalid(at, "`$defs` and `definitions` must be objects", v));
                    }
                }
                "pattern" => {
                    let Value::String(p) = v else {
                        return Err(invalid(at, "`pattern` must be a string", v));
                    };
                    k.pattern = Some(regex(&at, p, v)?);
                }
                "patternProperties" => {
                    let Value::Object(patterns) = v else {
                        return Err(invalid(at, "`patternProperties` must be an object", v));
                    };
                    for (p, sub) in patterns {
                        let at = format!("{at}/{}", escape_token(p));
                        let re = regex(&at, p, v)?;
                        k.pattern_properties.push((re, self.node(at, sub)?));
                    }
                }
                kw if UNSUPPORTED.contains(&kw) => self.warn(
                    at,
                    keyword,
                    format!("`{kw}` is not supported: it is not checked"),
                ),
                kw => self.warn(
                    at,
                    keyword,
                    format!("`{kw}` is not a JSON Schema 2020-12 keyword: it is ignored"),
                ),
            }
        }
        k.items = if tuple { additional_items } else { items };
        k.min_contains = min_contains.unwrap_or(1);
        if exclusive_minimum {
            k.exclusive_minimum = k.minimum.take();
        }
        if exclusive_maximum {
            k.exclusive_maximum = k.maximum.take();
        }
        Ok(NodeKind::Keywords(Box::new(k)))
    }

    fn schema_list(
        &mut self,
        at: &str,
        v: &'a Value,
        keyword: &str,
    ) -> Result<Vec<NodeId>, SchemaError> {
        match v {
            Value::Array(list) if !list.is_empty() => list
                .iter()
                .enumerate()
                .map(|(i, sub)| self.node(format!("{at}/{i}"), sub))
                .collect(),
            _ => Err(invalid(
                at.to_owned(),
                match keyword {
                    "allOf" => "`allOf` must be a non-empty array of schemas",
                    "anyOf" => "`anyOf` must be a non-empty array of schemas",
                    "oneOf" => "`oneOf` must be a non-empty array of schemas",
                    "items" => "`items` must be a schema or a non-empty array of schemas",
                    _ => "`prefixItems` must be a non-empty array of schemas",
                },
                v,
            )),
        }
    }

    /// The dialect the root's `$schema` names (Core section 8.1.1); 2020-12 when there is none
    /// or it names another (then with a warning).
    fn declared_dialect(&mut self) -> Dialect {
        let Some(Value::String(uri)) = self.root.get("$schema") else {
            return Dialect::Draft2020;
        };
        let name = uri.strip_suffix('#').unwrap_or(uri);
        let name = name
            .strip_prefix("https://")
            .or_else(|| name.strip_prefix("http://"))
            .unwrap_or(name);
        match name {
            "json-schema.org/draft/2020-12/schema" => Dialect::Draft2020,
            "json-schema.org/draft/2019-09/schema" => Dialect::Draft2019,
            "json-schema.org/draft-07/schema" => Dialect::Draft7,
            "json-schema.org/draft-06/schema" => Dialect::Draft6,
            "json-schema.org/draft-04/schema" => Dialect::Draft4,
            _ => {
                self.warn(
                    "/$schema".to_owned(),
                    "$schema",
                    format!(
                        "`$schema` {} is not a dialect agentwire knows (JSON Schema 2020-12, \
                         2019-09, draft-07, draft-06, draft-04): the schema is read as 2020-12",
                        agentwire_core::json::Quoted(uri)
                    ),
                );
                Dialect::Draft2020
            }
        }
    }

    /// The keyword that identifies a resource: `id` in draft 4, `$id` since draft 6.
    fn id_keyword(&self) -> &'static str {
        if self.dialect == Dialect::Draft4 {
            "id"
        } else {
            "$id"
        }
    }

    /// Whether `value` is the root of an embedded schema resource (Core sections 8.2.1 and
    /// 9.2): an object whose `$id` (`id` in draft 4) is a URI without a fragment (`"#foo"` in
    /// drafts 6 and 7 is an anchor). Drafts 4 to 7 ignore an `$id` beside `$ref`.
    fn is_resource(&self, value: &Value) -> bool {
        let Some(Value::String(id)) = value.get(self.id_keyword()) else {
            return false;
        };
        let id = id.strip_suffix('#').unwrap_or(id);
        !id.is_empty()
            && !id.starts_with('#')
            && (self.dialect > Dialect::Draft7 || value.get("$ref").is_none())
    }

    /// Every schema resource with its absolute URI: the root's (its `$id` or `""`), and each
    /// subschema's with its own `$id` resolved against the resource around it (Core 8.2.1).
    fn resources(&mut self) -> &[(String, String)] {
        if self.resources.is_none() {
            let mut found = Vec::new();
            let mut stack = vec![(String::new(), self.root, String::new())];
            while let Some((pointer, value, base)) = stack.pop() {
                let Value::Object(map) = value else {
                    continue;
                };
                let base = if pointer.is_empty() || self.is_resource(value) {
                    let id = map
                        .get(self.id_keyword())
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let mut uri = uri::resolve(&base, id);
                    if let Some(hash) = uri.find('#') {
                        uri.truncate(hash);
                    }
                    found.push((uri.clone(), pointer.clone()));
                    uri
                } else {
                    base
                };
                for (at, sub) in subschemas(&pointer, map) {
                    stack.push((at, sub, base.clone()));
                }
            }
            self.resources = Some(found);
        }
        self.resources.as_deref().unwrap_or_default()
    }

    /// The innermost schema resource holding the subschema at `pointer` (a canonical pointer
    /// the compiler built): its pointer and value; the root when no subschema on the way has
    /// its own `$id`.
    fn resource_of(&self, pointer: &str) -> (String, &'a Value) {
        let (mut cur, mut at) = (self.root, String::new());
        let mut resource = (String::new(), self.root);
        for raw in pointer.split('/').skip(1) {
            let Some(next) = step(cur, raw) else {
                break;
            };
            cur = next;
            at.push('/');
            at.push_str(raw);
            if self.is_resource(cur) {
                resource = (at.clone(), cur);
            }
        }
        resource
    }

    /// Resolves a `$ref` (Core section 8.2.3.1) of the subschema at `from` to a local JSON
    /// Pointer: `#` or `#/…`, with `%XX` escapes of the URI fragment decoded, or a plain-name
    /// fragment (`#name`, an anchor), against the schema resource holding `from` (the root, or
    /// a subschema with its own `$id`). `None` for other references (other URIs) and anchors
    /// not found.
    fn resolve(
        &mut self,
        at: &str,
        reference: &str,
        from: &str,
    ) -> Result<Option<(String, &'a Value)>, SchemaError> {
        let Some(fragment) = reference.strip_prefix('#') else {
            // A URI: resolved against the base URI of `from`'s resource, it must be one of the
            // schema's resources (Core 9.1.2: an embedded resource, or the root itself).
            let (resource, _) = self.resource_of(from);
            let resources = self.resources();
            let base = resources
                .iter()
                .find(|(_, p)| *p == resource)
                .map_or("", |(uri, _)| uri.as_str());
            let target = uri::resolve(base, reference);
            let (uri, fragment) = target.split_once('#').unwrap_or((&target, ""));
            let Some((_, pointer)) = resources.iter().find(|(u, _)| u == uri) else {
                return Ok(None);
            };
            let (pointer, fragment) = (pointer.clone(), format!("#{fragment}"));
            return self.resolve(at, &fragment, &pointer);
        };
        if !fragment.is_empty() && !fragment.starts_with('/') {
            // A plain name: an anchor of the same resource (Core 8.2.2).
            return Ok(percent_decode(fragment).and_then(|name| self.anchor(from, &name)));
        }
        let unresolved = || SchemaError::UnresolvedRef {
            pointer: at.to_owned(),
            reference: reference.to_owned(),
        };
        let fragment = percent_decode(fragment).ok_or_else(unresolved)?;
        let (mut canonical, mut cur) = self.resource_of(from);
        for token in fragment.split('/').skip(1) {
            let token = escape_token(&token.replace("~1", "/").replace("~0", "~"));
            cur = step(cur, &token).ok_or_else(unresolved)?;
            canonical.push('/');
            canonical.push_str(&token);
        }
        Ok(Some((canonical, cur)))
    }

    /// The subschema of the resource holding `from` that names itself `name` (Core 8.2.2):
    /// `$anchor` or `$dynamicAnchor` (2019-09 and later), an `$id` of `#name` (drafts 6 and 7,
    /// not beside `$ref`; `id` in draft 4). Searched through the keywords that hold subschemas,
    /// not into other resources; `None` when there is none.
    fn anchor(&self, from: &str, name: &str) -> Option<(String, &'a Value)> {
        self.named(self.resource_of(from), name, false)
    }

    /// The subschema of the resource `resource` (its pointer and value) that names itself
    /// `name`, as [`Self::anchor`] says; with `dynamic_only`, by `$dynamicAnchor` alone.
    fn named(
        &self,
        resource: (String, &'a Value),
        name: &str,
        dynamic_only: bool,
    ) -> Option<(String, &'a Value)> {
        let mut stack = vec![resource];
        let mut first = true;
        while let Some((pointer, value)) = stack.pop() {
            let Value::Object(map) = value else {
                continue;
            };
            if !first && self.is_resource(value) {
                continue;
            }
            first = false;
            let named = if dynamic_only {
                map.get("$dynamicAnchor").and_then(Value::as_str) == Some(name)
            } else if self.dialect >= Dialect::Draft2019 {
                [map.get("$anchor"), map.get("$dynamicAnchor")]
                    .into_iter()
                    .flatten()
                    .any(|a| a.as_str() == Some(name))
            } else {
                // Ignored beside `$ref` in these drafts, as every other keyword there.
                !map.contains_key("$ref")
                    && map
                        .get(self.id_keyword())
                        .and_then(Value::as_str)
                        .and_then(|id| id.strip_prefix('#'))
                        == Some(name)
            };
            if named {
                return Some((pointer, value));
            }
            stack.extend(subschemas(&pointer, map));
        }
        None
    }

    /// The keyword of dynamic references in this dialect: `$dynamicRef` (2020-12),
    /// `$recursiveRef` (2019-09), none before.
    fn dynamic_keyword(&self) -> &'static str {
        match self.dialect {
            Dialect::Draft2020 => "$dynamicRef",
            Dialect::Draft2019 => "$recursiveRef",
            _ => "",
        }
    }

    /// The candidates of a `$dynamicRef` whose initial target is `target` (Core 8.2.3.2): when
    /// its fragment is a plain name and `target` has a `$dynamicAnchor` of that name (the
    /// "bookending" rule), every schema resource that defines a `$dynamicAnchor` of that name,
    /// with the node of the subschema that does; otherwise none (it is a `$ref`). In 2019-09, of
    /// a `$recursiveRef`: when `target` has `$recursiveAnchor: true`, every resource whose root
    /// has it.
    fn dynamic_candidates(
        &mut self,
        reference: &str,
        target: &'a Value,
    ) -> Result<Vec<(u32, NodeId)>, SchemaError> {
        if self.dialect == Dialect::Draft2019 {
            // 2019-09 Core 8.2.4.2: dynamic when its target says `$recursiveAnchor: true`.
            if target.get("$recursiveAnchor") != Some(&Value::Bool(true)) {
                return Ok(Vec::new());
            }
            return self.anchored_resources(None);
        }
        let name = reference
            .split_once('#')
            .map(|(_, fragment)| fragment)
            .filter(|f| !f.is_empty() && !f.starts_with('/'))
            .and_then(percent_decode);
        let Some(name) = name else {
            return Ok(Vec::new());
        };
        if target.get("$dynamicAnchor").and_then(Value::as_str) != Some(name.as_str()) {
            return Ok(Vec::new());
        }
        self.anchored_resources(Some(&name))
    }

    /// Every schema resource that a dynamic reference may lead to, with the node it leads to:
    /// with `name`, the subschema that has a `$dynamicAnchor` of that name (2020-12); without,
    /// the resource's root when it has `$recursiveAnchor: true` (2019-09 Core 8.2.4.2).
    fn anchored_resources(
        &mut self,
        name: Option<&str>,
    ) -> Result<Vec<(u32, NodeId)>, SchemaError> {
        let resources: Vec<String> = self.resources().iter().map(|(_, p)| p.clone()).collect();
        let mut candidates = Vec::new();
        for (index, pointer) in resources.into_iter().enumerate() {
            let Some(value) = self.at(&pointer) else {
                continue;
            };
            let anchored = match name {
                Some(name) => self.named((pointer, value), name, true),
                None => (value.get("$recursiveAnchor") == Some(&Value::Bool(true)))
                    .then_some((pointer, value)),
            };
            if let Some((at, anchored)) = anchored {
                let node = self.node(at, anchored)?;
                candidates.push((u32::try_from(index).unwrap_or(u32::MAX), node));
            }
        }
        Ok(candidates)
    }

    /// The value at `pointer` (a canonical pointer the compiler built) in the schema document.
    fn at(&self, pointer: &str) -> Option<&'a Value> {
        let mut cur = self.root;
        for raw in pointer.split('/').skip(1) {
            cur = step(cur, raw)?;
        }
        Some(cur)
    }

    /// Each node's schema resource, as an index into [`Self::resources`] (the root's 0).
    fn node_resources(&mut self) -> Vec<u32> {
        let pointers: Vec<String> = self.resources().iter().map(|(_, p)| p.clone()).collect();
        self.nodes
            .iter()
            .map(|n| {
                let (resource, _) = self.resource_of(&n.pointer);
                let index = pointers.iter().position(|p| *p == resource).unwrap_or(0);
                u32::try_from(index).unwrap_or(u32::MAX)
            })
            .collect()
    }
}

/// The subschemas directly under the schema object `map` at `pointer`: the members of
/// `properties`, `$defs` and the other maps of schemas, the items of `allOf` and the other lists,
/// the single ones (`not`, `items`, …); with their pointers.
fn subschemas<'v>(
    pointer: &str,
    map: &'v serde_json::Map<String, Value>,
) -> Vec<(String, &'v Value)> {
    let mut out = Vec::new();
    for (keyword, sub) in map {
        let at = format!("{pointer}/{}", escape_token(keyword));
        match (keyword.as_str(), sub) {
            (
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
                | "dependencies",
                Value::Object(members),
            ) => out.extend(
                members
                    .iter()
                    .map(|(k, v)| (format!("{at}/{}", escape_token(k)), v)),
            ),
            ("items" | "prefixItems" | "allOf" | "anyOf" | "oneOf", Value::Array(list)) => out
                .extend(
                    list.iter()
                        .enumerate()
                        .map(|(i, v)| (format!("{at}/{i}"), v)),
                ),
            (
                "items"
                | "additionalItems"
                | "additionalProperties"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "contentSchema",
                _,
            ) => out.push((at, sub)),
            _ => {}
        }
    }
    out
}

/// The JSON Schema dialects told apart where this subset's reading differs, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Dialect {
    /// Draft 4: `id`, boolean `exclusiveMinimum`/`exclusiveMaximum`, `$ref` siblings ignored.
    Draft4,
    /// Draft 6: `$ref` siblings ignored.
    Draft6,
    /// Draft 7: `$ref` siblings ignored.
    Draft7,
    /// 2019-09: read as 2020-12, but with `$recursiveRef` and `$recursiveAnchor` where 2020-12
    /// has `$dynamicRef` and `$dynamicAnchor`.
    Draft2019,
    /// 2020-12, the default.
    Draft2020,
}

/// The member or item `token` (an escaped JSON Pointer reference token, RFC 6901 section 4) of
/// `value`. Array indexes are decimal without leading zeros.
fn step<'v>(value: &'v Value, token: &str) -> Option<&'v Value> {
    match value {
        Value::Object(m) => m.get(&token.replace("~1", "/").replace("~0", "~")),
        Value::Array(a) => token
            .parse::<usize>()
            .ok()
            .filter(|_| token.bytes().all(|b| b.is_ascii_digit()))
            .filter(|_| token == "0" || !token.starts_with('0'))
            .and_then(|i| a.get(i)),
        _ => None,
    }
}

fn invalid(pointer: String, reason: &str, value: &Value) -> SchemaError {
    SchemaError::Invalid {
        pointer,
        reason: reason.to_owned(),
        value: value.clone(),
    }
}

/// Compiles a `pattern` or `patternProperties` name (see [`super::regex`]).
fn regex(at: &str, pattern: &str, v: &Value) -> Result<Regex, SchemaError> {
    Regex::new(pattern).map_err(|e| {
        invalid(
            at.to_owned(),
            &format!(
                "{} is not a regular expression (ECMA-262): {e}",
                agentwire_core::json::Quoted(pattern)
            ),
            v,
        )
    })
}

fn types(at: &str, v: &Value) -> Result<Vec<JsonType>, SchemaError> {
    let bad = || {
        invalid(
            at.to_owned(),
            "`type` must be one of \"null\", \"boolean\", \"object\", \"array\", \"number\", \
             \"string\", \"integer\", or an array of them",
            v,
        )
    };
    match v {
        Value::String(s) => Ok(vec![JsonType::parse(s).ok_or_else(bad)?]),
        Value::Array(list) => list
            .iter()
            .map(|t| t.as_str().and_then(JsonType::parse).ok_or_else(bad))
            .collect(),
        _ => Err(bad()),
    }
}

fn strings(at: &str, v: &Value, what: &str) -> Result<Vec<String>, SchemaError> {
    let bad = || {
        invalid(
            at.to_owned(),
            &format!("{what} must be an array of strings"),
            v,
        )
    };
    match v {
        Value::Array(list) => list
            .iter()
            .map(|s| s.as_str().map(str::to_owned).ok_or_else(bad))
            .collect(),
        _ => Err(bad()),
    }
}

/// A non-negative integer (`2` or `2.0`).
fn count(at: &str, v: &Value, keyword: &str) -> Result<u64, SchemaError> {
    let n = match v {
        // An integral float past `u64::MAX` (`1e20`) is a count no input reaches: saturate.
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                .map(|f| f as u64)
        }),
        _ => None,
    };
    n.ok_or_else(|| {
        invalid(
            at.to_owned(),
            &format!("`{keyword}` must be a non-negative integer"),
            v,
        )
    })
}

fn number(at: &str, v: &Value, keyword: &str) -> Result<Number, SchemaError> {
    match v {
        Value::Number(n) => Ok(n.clone()),
        _ => Err(invalid(
            at.to_owned(),
            &format!("`{keyword}` must be a number"),
            v,
        )),
    }
}

/// Decodes `%XX` escapes (RFC 3986 section 2.1) in a URI fragment; `None` if malformed or not
/// UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Refuses loops of in-place applicators (`$ref`, `$dynamicRef` with every target it may take,
/// `allOf`, `anyOf`, `oneOf`, `not`): following them never reaches a deeper part of the value,
/// so validation would not end. Iterative depth-first search.
fn check_cycles(nodes: &[Node]) -> Result<(), SchemaError> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let edges = |id: NodeId| -> Vec<NodeId> {
        match nodes.get(id).map(|n| &n.kind) {
            Some(NodeKind::Keywords(k)) => {
                let mut out: Vec<NodeId> = k
                    .reference
                    .iter()
                    .chain(&k.all_of)
                    .chain(&k.any_of)
                    .chain(&k.one_of)
                    .chain(&k.not)
                    .copied()
                    .collect();
                if let Some(d) = &k.dynamic_reference {
                    out.push(d.initial);
                    out.extend(d.candidates.iter().map(|&(_, n)| n));
                }
                out
            }
            _ => Vec::new(),
        }
    };
    let mut mark = vec![Mark::New; nodes.len()];
    for start in 0..nodes.len() {
        if mark.get(start) != Some(&Mark::New) {
            continue;
        }
        let mut stack: Vec<(NodeId, Vec<NodeId>)> = vec![(start, edges(start))];
        if let Some(m) = mark.get_mut(start) {
            *m = Mark::Open;
        }
        while let Some((id, next)) = stack.last_mut() {
            let id = *id;
            match next.pop() {
                Some(child) => match mark.get(child) {
                    Some(Mark::New) => {
                        if let Some(m) = mark.get_mut(child) {
                            *m = Mark::Open;
                        }
                        stack.push((child, edges(child)));
                    }
                    Some(Mark::Open) => {
                        return Err(SchemaError::RefCycle {
                            pointer: nodes.get(id).map(|n| n.pointer.clone()).unwrap_or_default(),
                        })
                    }
                    _ => {}
                },
                None => {
                    if let Some(m) = mark.get_mut(id) {
                        *m = Mark::Done;
                    }
                    stack.pop();
                }
            }
        }
    }
    Ok(())
}
