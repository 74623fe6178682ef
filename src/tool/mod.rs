//! Tools: definitions, JSON Schema validation of call arguments, and tool errors a model can act
//! on.
//!
//! A tool is defined as in the Agent API protocol's `FunctionTool`: `{name, description,
//! parameters}`, where `parameters` is a JSON Schema. A [`ToolRegistry`] compiles each schema once
//! and checks the arguments of every call against it. A failed check is a [`ToolError`] of type
//! `VALIDATION` whose message lists every problem in sentences written for the model, so that it
//! can correct the call:
//!
//! ```
//! use agentwire::tool::{ToolDefinition, ToolErrorType, ToolRegistry};
//! use serde_json::json;
//!
//! let mut tools = ToolRegistry::new();
//! let warnings = tools.register(ToolDefinition {
//!     name: "write_file".into(),
//!     description: "Write text to a file in the workspace.".into(),
//!     parameters: json!({
//!         "type": "object",
//!         "properties": {
//!             "path": {"type": "string", "minLength": 1},
//!             "content": {"type": "string"},
//!             "mode": {"enum": ["overwrite", "append"]},
//!         },
//!         "required": ["path", "content"],
//!         "additionalProperties": false,
//!     }),
//! })?;
//! assert!(warnings.is_empty());
//!
//! // Arguments arrive as JSON text (Agent API `FunctionCall.arguments`).
//! let args = tools.validate_arguments_text("write_file", r#"{"path": "notes.md", "content": "hi"}"#)?;
//! assert_eq!(args["path"], "notes.md");
//!
//! let err = tools
//!     .validate_arguments_text("write_file", r#"{"content": "hi"}"#)
//!     .unwrap_err();
//! assert_eq!(err.error_type, ToolErrorType::Validation);
//! assert_eq!(err.message, "Validation failed for tool 'write_file': Missing required argument 'path'.");
//!
//! let err = tools
//!     .validate_arguments_text("write_file", r#"{"path": "a", "content": 1, "mode": "w"}"#)
//!     .unwrap_err();
//! assert_eq!(
//!     err.message,
//!     "Validation failed for tool 'write_file': \
//!      Argument 'content' must be a string, got number 1. \
//!      Argument 'mode' must be one of: \"overwrite\", \"append\"; got string \"w\"."
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Supported JSON Schema
//!
//! Validation follows [JSON Schema 2020-12] (Core and Validation) for this subset. Crates that
//! implement all of it (`jsonschema` and the like) bring regular-expression engines and are too
//! large for a browser WebAssembly package, so the subset is implemented here.
//!
//! | keywords | checked as (Validation section) |
//! |---|---|
//! | `type`: `string`, `number`, `integer`, `boolean`, `object`, `array`, `null`, or a list of them | 6.1.1; `integer` is any number with a zero fractional part (`1.0` is one) |
//! | `enum`, `const` | 6.1.2, 6.1.3; equality is JSON equality (numbers by value: `1` equals `1.0`) |
//! | `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` | 6.2.2–6.2.5; integers compared exactly, other numbers as 64-bit floats |
//! | `multipleOf` | 6.2.1; exact, on decimals: a float is the decimal it is written as (its shortest round-trip digits, as `JSON.stringify` prints it), so `0.3` is a multiple of `0.1`, `1000000001.5` is not one of `2`, and `1e308` is one of `0.5` |
//! | `minLength`, `maxLength` | 6.3.1, 6.3.2; in Unicode code points (not bytes, not UTF-16 units) |
//! | `pattern` | 6.3.3; an ECMA-262 regular expression, not anchored, read in Unicode mode (the `u` flag): JavaScript's own `RegExp` in wasm, the `regress` crate natively; one that does not compile is refused. Both engines backtrack, as Ajv's does: a pattern with nested quantifiers (`^(a+)+$`) can take exponential time on a crafted string, and the step budget does not count regular-expression time, so keep patterns simple |
//! | `prefixItems`, `items`, `minItems`, `maxItems`, `uniqueItems` | Core 10.3.1.1, 10.3.1.2; Validation 6.4.1–6.4.3; `items` as an array with `additionalItems` (before 2020-12) is read as `prefixItems` with `items`, in every dialect |
//! | `contains`, `minContains`, `maxContains` | Core 10.3.1.3; Validation 6.4.4, 6.4.5 (`minContains` is 1 when absent, `0` lets `contains` match nothing) |
//! | `properties`, `patternProperties`, `required`, `additionalProperties` (a boolean or a schema), `minProperties`, `maxProperties` | Core 10.3.2.1–10.3.2.3; Validation 6.5.1–6.5.3; a member may match several patterns (each applies); `additionalProperties` covers the members neither `properties` nor a pattern names |
//! | `propertyNames` | Core 10.3.2.4; each member's name, as a string |
//! | `dependentRequired`, `dependentSchemas`, and draft 7's `dependencies` (a list is `dependentRequired`, a schema `dependentSchemas`) | Validation 6.5.4; Core 10.2.2.4 |
//! | `allOf`, `anyOf`, `oneOf`, `not` | Core 10.2.1 |
//! | `if`, `then`, `else` | Core 10.2.2.1–10.2.2.3 (`then` and `else` without `if` do nothing) |
//! | `unevaluatedProperties`, `unevaluatedItems` | Core 11.2, 11.3; a member or item is evaluated by the schema's own `properties`, `patternProperties`, `additionalProperties`, `prefixItems`, `items` and (from 2020-12) `contains`, and by those of the in-place subschemas that apply: `$ref`, `allOf`, `dependentSchemas`, `then` or `else`, the `anyOf`/`oneOf` branches and the `if` the value matches (each checked by a run of its own on the same step budget; nested at most [`MAX_VALIDATION_NESTING`] (256) deep, with every other nested check), and their own `unevaluated*`. `unevaluatedProperties: false` reports an unknown argument, naming the properties those schemas declare |
//! | `$ref` to a JSON Pointer (`#`, `#/$defs/…`, any `#/…`), to an anchor (`#name`: `$anchor`, `$dynamicAnchor`, or in drafts 6 and 7 an `$id` of `#name`), or to a URI that is one of the schema's own resources, with either fragment (`address.json`, `https://example.com/ids.json#/$defs/zip`) | Core 8.2.3.1, 8.2.2, 9.3 (compound documents); resolved against the resource holding the `$ref`: the root, or the nearest enclosing subschema with its own `$id` (Core 8.2.1), whose `$id`s are resolved as URI references (RFC 3986 section 5.2); recursion through `properties`/`items` is fine, a loop that never descends into the value is a [`SchemaError::RefCycle`] |
//! | `$dynamicRef` (2020-12) | Core 8.2.3.2, 7.1; resolved first as a `$ref`; when its fragment is a plain name and that target has a `$dynamicAnchor` of that name, it leads to the subschema with that `$dynamicAnchor` in the outermost schema resource of the dynamic scope (the resources evaluation went through to reach it, `$ref`s included) that has one. A generic schema (a tree) can so be extended by the schema that refers to it (a tree whose nodes admit no other members). Otherwise, or with a JSON Pointer fragment, it is a `$ref` |
//! | `$recursiveRef`, `$recursiveAnchor` (2019-09) | 2019-09 Core 8.2.4.2; as `$dynamicRef`, with `$recursiveAnchor: true` at a resource's root in place of a named `$dynamicAnchor`: `$recursiveRef` (`"#"`) leads to the outermost resource of the dynamic scope whose root has it, when its own target has it; otherwise it is a `$ref` |
//! | `true` and `false` as schemas | Core 4.3.2 |
//!
//! **Accepted and ignored** (annotations and identifiers): `title`, `description`, `default`,
//! `examples`, `format` (an annotation by default in 2020-12), `deprecated`, `readOnly`,
//! `writeOnly`, `contentMediaType`, `contentEncoding`, `$id` (it names a schema resource that
//! references resolve against; nothing is fetched), `$anchor` and `$dynamicAnchor` (the targets
//! of `#name` references), `$vocabulary`,
//! `$comment`, and `$defs`/`definitions` (compiled where a `$ref` points into them).
//!
//! **Dialects.** The root's `$schema` names the draft (Core 8.1.1). 2020-12 is the default, and
//! 2019-09 reads the same for this subset, with `$recursiveRef` where 2020-12 has `$dynamicRef`.
//! Drafts 7, 6 and 4
//! (`http://json-schema.org/draft-07/schema#` and the like, `http` or `https`, with or without
//! the `#`) follow their own rules where they differ: every keyword beside a `$ref` is ignored
//! (Draft 7 Core 8.3), and so is an `$id` there; draft 4 names a resource with `id`, and its
//! boolean `exclusiveMinimum`/`exclusiveMaximum` make `minimum`/`maximum` exclusive. Any other
//! `$schema` (a custom meta-schema) gives a [`SchemaWarning`] and the schema is read as
//! 2020-12. In every draft `1.0` is an integer and `format`, `contentMediaType` and
//! `contentEncoding` are annotations (the choices drafts 4 and 7 leave optional).
//!
//! **Conformance.** `tests/schema_suite.rs` runs the official JSON Schema Test Suite for drafts
//! 2020-12, 2019-09, 7, 6 and 4 (with the optional tests, not the `format` ones). Every schema
//! there compiles; every test whose schema compiles without a warning gets the suite's verdict
//! (5,247 tests); schemas with a warning are left out (95 cases: `$ref`s to remote schemas,
//! `contentSchema`, custom meta-schemas, unknown keywords).
//!
//! **Reported, not checked**: every other keyword compiles with a [`SchemaWarning`] (its JSON
//! Pointer and a sentence), returned by [`ToolRegistry::register`] and
//! [`CompiledSchema::warnings`]: `$dynamicRef` and `$recursiveRef` in the dialects that do not
//! define them, `contentSchema`, boolean `exclusiveMinimum`/`exclusiveMaximum` outside draft 4,
//! a `$ref` or `$dynamicRef` to a URI that is not one of the schema's resources (a remote
//! schema: nothing is fetched) or to an anchor that is not there, a `$schema` naming another
//! dialect, and keywords JSON Schema does not define (e.g. `nullable`). Values are never
//! rejected because of them.
//!
//! **Refused** at compile time with a [`SchemaError`] carrying the JSON Pointer: a schema that is
//! not an object or boolean, a checked keyword of the wrong shape (`"minLength": -1`,
//! `"required": "path"`, `"type": "text"`, `"multipleOf": 0`), a `pattern` or
//! `patternProperties` name that is not a regular expression in Unicode mode (`"\\a"`), a `$ref`
//! to nothing, a `$ref` loop, more than [`MAX_SCHEMA_NODES`] subschemas.
//!
//! Whatever the schema says, arguments must be a JSON object (a tool call's arguments are named).
//! A tool whose `parameters` is `null` (absent) accepts any object.
//!
//! # Messages
//!
//! Arguments are named by their path: `'path'`, `'options.depth'`, `'files[2].path'`, and
//! `headers["x.y"]` for keys that are not plain words. A failure's message is
//! `Validation failed for tool '<name>': ` followed by one sentence per problem:
//!
//! | problem | sentence |
//! |---|---|
//! | missing | `Missing required argument 'path'.` |
//! | wrong type | `Argument 'top_k' must be an integer, got string "3".` (`must be a string or null`, …) |
//! | unknown | `Unknown argument 'colour'; expected one of: color, size.` (`…; the tool takes no arguments.`; nested: `…; 'options' takes no properties.`) |
//! | range | `Argument 'top_k' must be at least 1, got 0.` (`at most`, `greater than`, `less than`) |
//! | multiple | `Argument 'step' must be a multiple of 5, got 12.` |
//! | enum, const | `Argument 'unit' must be one of: "celsius", "fahrenheit"; got string "kelvin".`; `Argument 'kind' must be "file", got string "dir".` |
//! | string length | `Argument 'name' must be at least 3 characters long, got 2.` (`at most`) |
//! | pattern | `Argument 'date' must match the regular expression /^\d{4}-\d{2}-\d{2}$/, got string "tomorrow".` |
//! | array length | `Argument 'tags' must have at most 3 items, got 5.` |
//! | unique items | `Argument 'tags' must not contain duplicate items; items 0 and 2 are equal.` |
//! | contains | `Argument 'tags' must have at least 1 item matching the schema under 'contains', got 0.` (`at most`) |
//! | dependent | `Missing argument 'end', required when 'start' is given.` |
//! | property name | `Property name "home" of 'env' is not allowed by the schema under 'propertyNames'.` (`Argument name "x" is not allowed …` at the top level) |
//! | property count | `Argument 'env' must have at least 1 property, got 0.` |
//! | anyOf / oneOf, none | `Argument 'x' must match at least one of the 2 allowed forms (anyOf) but matches none: (1) Argument 'x' must be a string, got number 3. (2) Argument 'x' must be null, got number 3.` |
//! | oneOf, several | `Argument 'x' must match exactly one of the 3 allowed forms (oneOf) but matches forms 1 and 2.` |
//! | not | `Argument 'x' must not match the schema under 'not', got string "a".` |
//! | `false` schema | `Argument 'x' is not allowed.` |
//! | not JSON | `Arguments are not valid JSON: EOF while parsing an object at line 1 column 9.` |
//! | not text (an Agent API `arguments` that is an object, say) | `Arguments must be JSON text (a string holding a JSON object), got object.` |
//! | not an object (an AgentX `args` that is a string, say, or missing: `null`) | `Arguments must be a JSON object, got array.` |
//!
//! An unknown tool's message is `Unknown tool 'x'; available tools: a, b.` (no prefix). Problems
//! about the arguments object itself say `The arguments must …`. String values are quoted as JSON
//! and cut after 60 characters with `…`. At most [`MAX_PROBLEMS`] problems are listed, then
//! `(and N more problems)`.
//!
//! [JSON Schema 2020-12]: https://json-schema.org/draft/2020-12

mod message;
mod regex;
pub mod round;
mod schema;
mod streamed;
mod uri;
mod validate;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use round::{CheckedToolCall, ToolOutcome};
pub use schema::{CompiledSchema, SchemaWarning, MAX_SCHEMA_NODES};
pub use streamed::StreamedArguments;

use crate::error::ErrorCode;
use crate::json::PathSegment;
use agentwire_core::json::{Fields, Quoted};

/// The most problems one validation lists.
pub const MAX_PROBLEMS: usize = 50;

/// The most steps (subschema checks and value comparisons) one validation may take; past it,
/// validation stops with a [`ProblemKind::TooComplex`] problem. Bounds the work of schemas whose
/// `anyOf`s multiply and of `uniqueItems` on long arrays.
pub const MAX_VALIDATION_STEPS: usize = 1_000_000;

/// How deeply validation may nest its separate checks of a subschema: the branches of `anyOf`,
/// `oneOf` and `if` and the `contains` items that `unevaluatedProperties` and `unevaluatedItems`
/// look into (JSON Schema 2020-12 Core 11.2, 11.3) are each checked by a run of their own, which
/// may meet another such keyword in turn. Past it, validation stops with a
/// [`ProblemKind::TooComplex`] problem. The in-place subschemas (`$ref`, `allOf`, …) looked into
/// on the way to such a check count as well (at most 32 at a time). Each takes call stack (in
/// wasm the module's 1 MiB stack, whose overflow kills the module); 256 leaves room for 127
/// levels of arguments that each need one or two.
pub const MAX_VALIDATION_NESTING: usize = 256;

/// How deeply tool arguments may nest: 127 arrays and objects. Arguments text is read by
/// agentwire's JSON reader, whose limit this is (serde_json's: the 128th level is "recursion
/// limit exceeded"), so deeper arguments fail validation as not JSON. [`StreamedArguments`]
/// follows calls to this depth by default, so that every call that can validate also streams its
/// partial values.
pub const MAX_ARGUMENTS_DEPTH: usize = agentwire_core::json::MAX_DEPTH;

/// A tool the agent may call: the Agent API protocol's `FunctionTool` shape.
///
/// JSON (camelCase): `{"name": "get_weather", "description": "…", "parameters": {JSON Schema}}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    /// The tool's name, as calls name it. Not empty.
    pub name: String,
    /// What it does and when to call it (the model reads this).
    #[serde(default)]
    pub description: String,
    /// Its arguments as a JSON Schema, usually `{"type": "object", "properties": …, "required":
    /// …}`. `null` accepts any object.
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
    pub parameters: Value,
}

agentwire_core::deserialize_by_fields!(ToolDefinition, "struct ToolDefinition");

impl ToolDefinition {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            name: f.required("name")?,
            description: f.or_default("description")?,
            parameters: f.or_default("parameters")?,
        })
    }
}

#[cfg(feature = "agent-api")]
impl From<crate::dialect::agent_api::FunctionTool> for ToolDefinition {
    fn from(f: crate::dialect::agent_api::FunctionTool) -> Self {
        Self {
            name: f.name,
            description: f.description,
            parameters: f.parameters,
        }
    }
}

#[cfg(feature = "agent-api")]
impl From<crate::dialect::agent_api::Tool> for ToolDefinition {
    fn from(t: crate::dialect::agent_api::Tool) -> Self {
        t.function.into()
    }
}

/// The Agent API's `FunctionTool`, whose `parameters` must be an object (agentscope-runtime's
/// model requires one): a definition's `null` or `true` (any object) is offered as
/// `{"type": "object"}`, `false` (nothing) as `{"not": {}}`, a schema object as it is.
#[cfg(feature = "agent-api")]
impl From<ToolDefinition> for crate::dialect::agent_api::FunctionTool {
    fn from(d: ToolDefinition) -> Self {
        let parameters = match d.parameters {
            Value::Object(_) => d.parameters,
            Value::Bool(false) => serde_json::json!({"not": {}}),
            _ => serde_json::json!({"type": "object"}),
        };
        Self {
            name: d.name,
            description: d.description,
            parameters,
        }
    }
}

/// Whether a tool error is about the call (`VALIDATION`: unknown tool, bad arguments; the model
/// should fix the call) or about running the tool (`EXECUTION`: the tool threw).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum ToolErrorType {
    /// `"VALIDATION"`
    #[serde(rename = "VALIDATION")]
    Validation,
    /// `"EXECUTION"`
    #[serde(rename = "EXECUTION")]
    Execution,
}

/// What kind of problem an [`ArgumentProblem`] is. JSON: the camelCase name, e.g.
/// `"missingArgument"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(test, derive(Deserialize))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ProblemKind {
    /// A `required` member is absent, or one `dependentRequired` (`dependencies`) asks for.
    MissingArgument,
    /// The value's JSON type is not one `type` allows.
    WrongType,
    /// A member that `properties` does not declare, where `additionalProperties` is `false`.
    UnknownArgument,
    /// A member whose name `propertyNames` does not allow.
    PropertyName,
    /// Outside `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`.
    OutOfRange,
    /// Not a `multipleOf`.
    NotMultipleOf,
    /// Not one of `enum`.
    NotInEnum,
    /// Not the `const`.
    NotConst,
    /// Outside `minLength`/`maxLength`.
    StringLength,
    /// A string that `pattern` does not match.
    PatternMismatch,
    /// Outside `minItems`/`maxItems`.
    ArrayLength,
    /// Two equal items where `uniqueItems` is `true`.
    DuplicateItems,
    /// Fewer items match `contains` than `minContains` (1 when absent), or more than
    /// `maxContains`.
    ContainsCount,
    /// Outside `minProperties`/`maxProperties`.
    PropertyCount,
    /// No branch of `anyOf`/`oneOf` matches.
    NoMatch,
    /// Several branches of `oneOf` match.
    MultipleMatches,
    /// The `not` schema matches.
    MatchesNot,
    /// The schema there is `false`.
    NotAllowed,
    /// Validation stopped after [`MAX_VALIDATION_STEPS`], or nested its checks more than
    /// [`MAX_VALIDATION_NESTING`] deep.
    TooComplex,
    /// The arguments text is not JSON, or (Agent API) `arguments` is not text at all.
    InvalidJson,
    /// The arguments are JSON but not an object.
    NotAnObject,
    /// No tool has the name called.
    UnknownTool,
}

impl ProblemKind {
    /// Every kind with its JSON name (serde's `rename_all = "camelCase"` of the variant).
    const NAMES: [(&'static str, ProblemKind); 22] = [
        ("missingArgument", Self::MissingArgument),
        ("wrongType", Self::WrongType),
        ("unknownArgument", Self::UnknownArgument),
        ("propertyName", Self::PropertyName),
        ("outOfRange", Self::OutOfRange),
        ("notMultipleOf", Self::NotMultipleOf),
        ("notInEnum", Self::NotInEnum),
        ("notConst", Self::NotConst),
        ("stringLength", Self::StringLength),
        ("patternMismatch", Self::PatternMismatch),
        ("arrayLength", Self::ArrayLength),
        ("duplicateItems", Self::DuplicateItems),
        ("containsCount", Self::ContainsCount),
        ("propertyCount", Self::PropertyCount),
        ("noMatch", Self::NoMatch),
        ("multipleMatches", Self::MultipleMatches),
        ("matchesNot", Self::MatchesNot),
        ("notAllowed", Self::NotAllowed),
        ("tooComplex", Self::TooComplex),
        ("invalidJson", Self::InvalidJson),
        ("notAnObject", Self::NotAnObject),
        ("unknownTool", Self::UnknownTool),
    ];

    /// The kind a JSON value names, as serde's derive reads the enum from a string, with its
    /// messages (``unknown variant `x`, expected one of …``). The one difference: serde also
    /// reads a unit variant from an object of one member (`{"wrongType": null}`), which is refused
    /// here as any other value that is not a string (`invalid type: …, expected a string`).
    ///
    /// # Errors
    /// As above.
    fn from_value(value: Value) -> Result<Self, serde_json::Error> {
        use serde::de::Error as _;
        let Value::String(name) = value else {
            let unexpected = agentwire_core::json::unexpected(&value);
            return Err(agentwire_core::json::invalid_type(unexpected, &"a string"));
        };
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, kind)| kind)
            .ok_or_else(|| serde_json::Error::unknown_variant(&name, &Self::VARIANTS))
    }

    const VARIANTS: [&'static str; Self::NAMES.len()] = {
        let mut out = [""; Self::NAMES.len()];
        let mut i = 0;
        while i < Self::NAMES.len() {
            out[i] = Self::NAMES[i].0;
            i += 1;
        }
        out
    };
}

/// Read by name (see `ProblemKind::from_value`): serde's derived reader compiled a matcher of the
/// names for this enum alone. The unit tests derive it, as the reference.
#[cfg(not(test))]
impl<'de> Deserialize<'de> for ProblemKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        ProblemKind::from_value(Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// One problem with a call's arguments.
///
/// JSON (camelCase): `{"kind": "wrongType", "path": ["options", "depth"], "schemaPointer":
/// "/properties/options/properties/depth/type", "message": "Argument 'options.depth' must be an
/// integer, got string \"3\"."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ArgumentProblem {
    /// What kind of problem.
    pub kind: ProblemKind,
    /// Where in the arguments, from the arguments object (`[]` is the object itself; indices
    /// 0-based).
    pub path: Vec<PathSegment>,
    /// JSON Pointer ([RFC 6901](https://www.rfc-editor.org/rfc/rfc6901)) into the tool's
    /// `parameters` of the keyword that failed, e.g. `/properties/top_k/type` (inside a `$ref`
    /// target, the target's pointer, e.g. `/$defs/point/required`); `""` when no keyword is
    /// involved.
    pub schema_pointer: String,
    /// The problem in one sentence (see the [module documentation](self) for the wordings).
    pub message: String,
}

agentwire_core::deserialize_by_fields!(ArgumentProblem, "struct ArgumentProblem");

impl ArgumentProblem {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            kind: f.required("kind")?,
            path: f.required("path")?,
            schema_pointer: f.required("schemaPointer")?,
            message: f.required("message")?,
        })
    }
}

/// A tool call that failed: what is sent back to the model (and to JavaScript) as the call's
/// result.
///
/// JSON (camelCase): `{"errorType": "VALIDATION", "message": "Validation failed for tool
/// 'write_file': Missing required argument 'path'.", "problems": [{…}]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
#[error("{message}")]
pub struct ToolError {
    /// `VALIDATION` or `EXECUTION`.
    pub error_type: ToolErrorType,
    /// Every problem, in sentences for the model (see the [module documentation](self)).
    pub message: String,
    /// The problems one by one (empty for `EXECUTION`).
    pub problems: Vec<ArgumentProblem>,
}

agentwire_core::deserialize_by_fields!(ToolError, "struct ToolError");

impl ToolError {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            error_type: f.required("errorType")?,
            message: f.required("message")?,
            problems: f.required("problems")?,
        })
    }
}

impl ToolError {
    /// An `EXECUTION` error: the tool ran and failed. The message is
    /// `Execution of tool '<tool>' failed: <message>`.
    pub fn execution(tool: &str, message: &str) -> Self {
        Self {
            error_type: ToolErrorType::Execution,
            message: message::execution_failed(tool, message),
            problems: Vec::new(),
        }
    }

    /// A `VALIDATION` error listing `problems` (`more` others were found but not kept).
    fn validation(tool: &str, problems: Vec<ArgumentProblem>, more: usize) -> Self {
        let sentences: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
        Self {
            error_type: ToolErrorType::Validation,
            message: message::validation_failed(tool, &sentences, more),
            problems,
        }
    }

    fn single(tool: &str, kind: ProblemKind, sentence: String) -> Self {
        Self::validation(
            tool,
            vec![ArgumentProblem {
                kind,
                path: Vec::new(),
                schema_pointer: String::new(),
                message: sentence,
            }],
            0,
        )
    }
}

/// As a Rust error, a [`ToolError`]'s code is `unknown-tool`, `invalid-arguments-json`,
/// `arguments-not-object`, `tool-validation` or `tool-execution`.
impl ErrorCode for ToolError {
    fn code(&self) -> &'static str {
        if self.error_type == ToolErrorType::Execution {
            return "tool-execution";
        }
        match self.problems.first().map(|p| p.kind) {
            Some(ProblemKind::UnknownTool) => "unknown-tool",
            Some(ProblemKind::InvalidJson) => "invalid-arguments-json",
            Some(ProblemKind::NotAnObject) => "arguments-not-object",
            _ => "tool-validation",
        }
    }

    fn details(&self) -> Value {
        use crate::error::Details;
        Details::new()
            .field("errorType", &self.error_type)
            .field("problems", &self.problems)
            .into()
    }
}

/// Why a tool could not be registered: its schema does not compile, or its name is unusable.
/// Pointers are JSON Pointers (RFC 6901) into the schema (`""` is its root).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The schema, or a checked keyword in it, has the wrong shape.
    #[error("invalid schema at '{pointer}': {reason}")]
    Invalid {
        /// Where: the subschema or keyword, e.g. `/properties/name/minLength`.
        pointer: String,
        /// What is wrong, e.g. ``"`minLength` must be a non-negative integer"``.
        reason: String,
        /// The offending value.
        value: Value,
    },
    /// A local `$ref` whose target does not exist.
    #[error(
        "$ref {} at '{pointer}' points to nothing in the schema",
        Quoted(reference)
    )]
    UnresolvedRef {
        /// Where the `$ref` is.
        pointer: String,
        /// The reference, as written.
        reference: String,
    },
    /// `$ref`s (or `allOf`/`anyOf`/`oneOf`/`not`) that loop without descending into the value,
    /// e.g. `{"$defs": {"a": {"$ref": "#/$defs/a"}}}`.
    #[error("schema references loop at '{pointer}' without descending into the value")]
    RefCycle {
        /// A subschema on the loop.
        pointer: String,
    },
    /// More than [`MAX_SCHEMA_NODES`] subschemas.
    #[error("schema has more than {limit} subschemas (at '{pointer}')")]
    TooLarge {
        /// The subschema that went past the limit.
        pointer: String,
        /// The limit.
        limit: usize,
    },
    /// The tool's name is empty.
    #[error("invalid tool name {}: {reason}", Quoted(name))]
    InvalidToolName {
        /// The name given.
        name: String,
        /// Why it is refused.
        reason: &'static str,
    },
}

impl ErrorCode for SchemaError {
    fn code(&self) -> &'static str {
        match self {
            SchemaError::Invalid { .. } => "invalid-schema",
            SchemaError::UnresolvedRef { .. } => "unresolved-schema-ref",
            SchemaError::RefCycle { .. } => "schema-ref-cycle",
            SchemaError::TooLarge { .. } => "schema-too-large",
            SchemaError::InvalidToolName { .. } => "invalid-tool-name",
        }
    }

    fn details(&self) -> Value {
        use crate::error::Details;
        match self {
            SchemaError::Invalid {
                pointer,
                reason,
                value,
            } => Details::new()
                .field("pointer", pointer)
                .field("reason", reason)
                .field("value", value)
                .into(),
            SchemaError::UnresolvedRef { pointer, reference } => Details::new()
                .field("pointer", pointer)
                .field("reference", reference)
                .into(),
            SchemaError::RefCycle { pointer } => Details::new().field("pointer", pointer).into(),
            SchemaError::TooLarge { pointer, limit } => Details::new()
                .field("pointer", pointer)
                .field("limit", limit)
                .into(),
            SchemaError::InvalidToolName { name, reason } => Details::new()
                .field("name", name)
                .field("reason", reason)
                .into(),
        }
    }
}

#[derive(Debug, Clone)]
struct RegisteredTool {
    definition: ToolDefinition,
    schema: CompiledSchema,
}

/// Tool definitions by name, with their schemas compiled.
///
/// ```
/// use agentwire::tool::{ToolDefinition, ToolRegistry};
/// use serde_json::json;
///
/// let mut tools = ToolRegistry::new();
/// tools.register(ToolDefinition {
///     name: "search".into(),
///     description: "Search the docs.".into(),
///     parameters: json!({"type": "object", "properties": {"query": {"type": "string"}}}),
/// })?;
/// let err = tools.validate_arguments("serach", &json!({})).unwrap_err();
/// assert_eq!(err.message, "Unknown tool 'serach'; available tools: search.");
/// # Ok::<(), agentwire::tool::SchemaError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolRegistry {
    /// Sorted by name, names unique. A vector searched by halves rather than a `BTreeMap`: an app
    /// registers a few tools, and the map's node code for this one value type was about 3.7 KB of
    /// the wasm module.
    tools: Vec<RegisteredTool>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Where the tool named `name` is (`Ok`), or would be inserted (`Err`).
    fn position(&self, name: &str) -> Result<usize, usize> {
        self.tools
            .binary_search_by(|t| t.definition.name.as_str().cmp(name))
    }

    fn find(&self, name: &str) -> Option<&RegisteredTool> {
        self.position(name).ok().and_then(|i| self.tools.get(i))
    }

    /// Compiles the tool's schema and adds the tool, replacing one of the same name. Returns the
    /// schema's warnings: keywords that are not checked (see the [module documentation](self)).
    ///
    /// # Errors
    ///
    /// [`SchemaError`] when the schema does not compile, or
    /// [`SchemaError::InvalidToolName`] for an empty name; the registry is then unchanged.
    pub fn register(&mut self, tool: ToolDefinition) -> Result<Vec<SchemaWarning>, SchemaError> {
        if tool.name.is_empty() {
            return Err(SchemaError::InvalidToolName {
                name: tool.name,
                reason: "a tool name must not be empty",
            });
        }
        let schema = match &tool.parameters {
            Value::Null => CompiledSchema::compile(&Value::Bool(true))?,
            parameters => CompiledSchema::compile(parameters)?,
        };
        let warnings = schema.warnings().to_vec();
        let registered = RegisteredTool {
            definition: tool,
            schema,
        };
        match self.position(&registered.definition.name) {
            Ok(i) => {
                if let Some(slot) = self.tools.get_mut(i) {
                    *slot = registered;
                }
            }
            Err(i) => self.tools.insert(i, registered),
        }
        Ok(warnings)
    }

    /// Removes a tool; returns its definition if it was registered.
    pub fn remove(&mut self, name: &str) -> Option<ToolDefinition> {
        let i = self.position(name).ok()?;
        Some(self.tools.remove(i).definition)
    }

    /// A tool's definition.
    pub fn get(&self, name: &str) -> Option<&ToolDefinition> {
        self.find(name).map(|t| &t.definition)
    }

    /// A tool's compiled schema (its warnings included).
    pub fn schema(&self, name: &str) -> Option<&CompiledSchema> {
        self.find(name).map(|t| &t.schema)
    }

    /// The definitions, by name.
    pub fn definitions(&self) -> impl Iterator<Item = &ToolDefinition> {
        self.tools.iter().map(|t| &t.definition)
    }

    /// The names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|t| t.definition.name.as_str())
    }

    /// How many tools are registered.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    fn lookup(&self, tool_name: &str) -> Result<&RegisteredTool, ToolError> {
        self.find(tool_name).ok_or_else(|| {
            let sentence = message::unknown_tool(tool_name, self.names());
            ToolError {
                error_type: ToolErrorType::Validation,
                message: sentence.clone(),
                problems: vec![ArgumentProblem {
                    kind: ProblemKind::UnknownTool,
                    path: Vec::new(),
                    schema_pointer: String::new(),
                    message: sentence,
                }],
            }
        })
    }

    /// Checks a call's arguments against the tool's schema.
    ///
    /// # Errors
    ///
    /// A `VALIDATION` [`ToolError`]: the tool is not registered (`Unknown tool 'x'; available
    /// tools: a, b.`), the arguments are not an object, or they break the schema (every problem
    /// listed, see the [module documentation](self)).
    pub fn validate_arguments(&self, tool_name: &str, args: &Value) -> Result<(), ToolError> {
        let tool = self.lookup(tool_name)?;
        if !args.is_object() {
            return Err(ToolError::single(
                tool_name,
                ProblemKind::NotAnObject,
                message::not_object(args),
            ));
        }
        let (problems, total) = validate::validate(&tool.schema, args);
        if problems.is_empty() {
            return Ok(());
        }
        let more = total.saturating_sub(problems.len());
        Err(ToolError::validation(tool_name, problems, more))
    }

    /// Parses a call's arguments (JSON text, as in the Agent API's `FunctionCall.arguments`) and
    /// checks them; returns the parsed arguments. Empty or whitespace-only text reads as `{}`:
    /// models send `""` for tools without parameters (the `ai` package does the same).
    ///
    /// # Errors
    ///
    /// As [`validate_arguments`](Self::validate_arguments), and a `VALIDATION` [`ToolError`] when
    /// the text is not JSON: `Validation failed for tool 'x': Arguments are not valid JSON: <what
    /// serde_json says, with line and column>.`
    pub fn validate_arguments_text(
        &self,
        tool_name: &str,
        arguments: &str,
    ) -> Result<Value, ToolError> {
        self.lookup(tool_name)?;
        let text = arguments.trim_matches([' ', '\t', '\n', '\r']);
        let value = if text.is_empty() {
            Value::Object(serde_json::Map::new())
        } else {
            agentwire_core::json::parse_value(text).map_err(|e| {
                ToolError::single(
                    tool_name,
                    ProblemKind::InvalidJson,
                    message::invalid_json(&e),
                )
            })?
        };
        self.validate_arguments(tool_name, &value)?;
        Ok(value)
    }

    /// The `VALIDATION` error of an Agent API call whose `arguments` is not text but `arguments`
    /// (an object, say): `Validation failed for tool 'x': Arguments must be JSON text (a string
    /// holding a JSON object), got object.`, or the unknown tool's error.
    #[cfg(feature = "agent-api")]
    pub(crate) fn arguments_not_text(&self, tool_name: &str, arguments: &Value) -> ToolError {
        match self.lookup(tool_name) {
            Err(e) => e,
            Ok(_) => ToolError::single(
                tool_name,
                ProblemKind::InvalidJson,
                message::not_text(arguments),
            ),
        }
    }

    /// Checks an Agent API function call: its `name` and its `arguments` text. Returns the parsed
    /// arguments.
    ///
    /// # Errors
    ///
    /// As [`validate_arguments_text`](Self::validate_arguments_text).
    #[cfg(feature = "agent-api")]
    pub fn validate_call(
        &self,
        call: &crate::dialect::agent_api::FunctionCall,
    ) -> Result<Value, ToolError> {
        self.validate_arguments_text(&call.name, &call.arguments)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentwire_core::json::same_reading;
    use serde_json::json;

    /// `ProblemKind`'s reader against serde's derived one (these tests derive it): every name,
    /// another string, and values that are not strings.
    #[test]
    fn a_problem_kind_reads_as_the_derived_reader_reads_it() {
        let names = ProblemKind::NAMES.map(|(name, _)| json!(name));
        for v in names.into_iter().chain([json!("WrongType"), json!("")]) {
            let ours = ProblemKind::from_value(v.clone()).map_err(|e| e.to_string());
            let theirs = agentwire_core::json::from_tree::<ProblemKind>(v.clone())
                .map_err(|e| e.to_string());
            assert_eq!(ours, theirs, "{v}");
        }
        // Each name is the one its kind is written with.
        for (name, kind) in ProblemKind::NAMES {
            assert_eq!(serde_json::to_value(kind).unwrap(), json!(name));
        }
        for v in [
            json!(1),
            json!(null),
            json!(["wrongType"]),
            json!({"wrongType": 1}),
        ] {
            assert!(ProblemKind::from_value(v.clone()).is_err(), "{v}");
            assert!(
                agentwire_core::json::from_tree::<ProblemKind>(v.clone()).is_err(),
                "{v}"
            );
        }
        assert_eq!(
            ProblemKind::from_value(json!(1)).unwrap_err().to_string(),
            "invalid type: integer `1`, expected a string"
        );
    }

    /// The hand-written readers (`read_fields`) against serde's derived ones (this module's tests
    /// derive `Deserialize`): a full object of each type, and every change of it by one member.
    #[test]
    fn hand_readers_read_as_the_derived_ones() {
        let definition = json!({"name": "search", "description": "d",
            "parameters": {"type": "object"}, "x": 1});
        let problem = json!({"kind": "wrongType", "path": ["q", 0],
            "schemaPointer": "/properties/q", "message": "m"});
        let error = json!({"errorType": "VALIDATION", "message": "m",
            "problems": [problem.clone()]});
        let cases = [
            same_reading(
                &definition,
                &["name", "description", "parameters"],
                "struct ToolDefinition",
                ToolDefinition::read_fields,
            ),
            same_reading(
                &problem,
                &["kind", "path", "schemaPointer", "message"],
                "struct ArgumentProblem",
                ArgumentProblem::read_fields,
            ),
            same_reading(
                &error,
                &["errorType", "message", "problems"],
                "struct ToolError",
                ToolError::read_fields,
            ),
        ];
        for case in cases {
            assert!(case.unwrap() > 10);
        }
    }
}
