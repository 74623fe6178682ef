//! Tools: each failure kind with its exact message, nested paths, `$ref`, the schema subset's
//! warnings and errors, tool errors as JSON, bounded validation, and property tests.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agentwire::json::PathSegment;
use agentwire::tool::{
    ArgumentProblem, CompiledSchema, ProblemKind, SchemaError, SchemaWarning, ToolDefinition,
    ToolError, ToolErrorType, ToolRegistry, MAX_PROBLEMS,
};
use agentwire::ErrorCode;
use proptest::prelude::*;
use serde_json::{json, Value};

fn registry(name: &str, parameters: Value) -> ToolRegistry {
    let mut tools = ToolRegistry::new();
    let warnings = tools
        .register(ToolDefinition {
            name: name.into(),
            description: format!("The {name} tool."),
            parameters,
        })
        .expect("schema compiles");
    assert!(warnings.is_empty(), "{warnings:?}");
    tools
}

/// The message of validating `args` against `schema` (a tool named `t`).
fn message(schema: Value, args: Value) -> String {
    registry("t", schema)
        .validate_arguments("t", &args)
        .expect_err("invalid arguments")
        .message
}

fn write_file() -> ToolRegistry {
    registry(
        "write_file",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Where to write."},
                "content": {"type": "string"},
            },
            "required": ["path", "content"],
        }),
    )
}

#[test]
fn missing_argument_has_the_required_exact_sentence() {
    let err = write_file()
        .validate_arguments("write_file", &json!({"content": "hello"}))
        .unwrap_err();
    assert_eq!(err.error_type, ToolErrorType::Validation);
    assert_eq!(
        err.message,
        "Validation failed for tool 'write_file': Missing required argument 'path'."
    );
    assert_eq!(
        err.problems,
        vec![ArgumentProblem {
            kind: ProblemKind::MissingArgument,
            path: vec![PathSegment::Key("path".into())],
            schema_pointer: "/required".into(),
            message: "Missing required argument 'path'.".into(),
        }]
    );
    assert_eq!(err.code(), "tool-validation");
    assert_eq!(err.to_string(), err.message);
}

#[test]
fn wrong_type_names_the_argument_and_what_it_got() {
    let schema = json!({"type": "object", "properties": {"top_k": {"type": "integer"}}});
    assert_eq!(
        message(schema.clone(), json!({"top_k": "3"})),
        "Validation failed for tool 't': Argument 'top_k' must be an integer, got string \"3\"."
    );
    assert_eq!(
        message(schema.clone(), json!({"top_k": 2.5})),
        "Validation failed for tool 't': Argument 'top_k' must be an integer, got number 2.5."
    );
    // 2020-12: a number with a zero fractional part is an integer.
    registry("t", schema)
        .validate_arguments("t", &json!({"top_k": 3.0}))
        .unwrap();

    let cases = [
        (json!("string"), json!(1), "must be a string, got number 1."),
        (
            json!("number"),
            json!("1"),
            "must be a number, got string \"1\".",
        ),
        (
            json!("boolean"),
            json!("true"),
            "must be a boolean, got string \"true\".",
        ),
        (json!("object"), json!([1]), "must be an object, got array."),
        (json!("array"), json!({}), "must be an array, got object."),
        (
            json!("null"),
            json!(false),
            "must be null, got boolean false.",
        ),
        (
            json!(["string", "null"]),
            json!(1),
            "must be a string or null, got number 1.",
        ),
        (
            json!(["string", "number", "null"]),
            json!([]),
            "must be a string, a number or null, got array.",
        ),
    ];
    for (ty, value, want) in cases {
        let schema = json!({"type": "object", "properties": {"x": {"type": ty}}});
        assert_eq!(
            message(schema, json!({ "x": value })),
            format!("Validation failed for tool 't': Argument 'x' {want}")
        );
    }
}

#[test]
fn long_strings_are_cut_in_messages() {
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    let long = "é".repeat(100);
    let msg = message(schema, json!({ "n": long }));
    assert_eq!(
        msg,
        format!(
            "Validation failed for tool 't': Argument 'n' must be an integer, got string \"{}…\".",
            "é".repeat(60)
        )
    );
}

#[test]
fn unknown_argument_lists_the_expected_ones() {
    let schema = json!({
        "type": "object",
        "properties": {"color": {"type": "string"}, "size": {"type": "integer"}},
        "additionalProperties": false,
    });
    let err = registry("t", schema)
        .validate_arguments("t", &json!({"colour": "red"}))
        .unwrap_err();
    assert_eq!(
        err.message,
        "Validation failed for tool 't': Unknown argument 'colour'; expected one of: color, size."
    );
    assert_eq!(err.problems[0].kind, ProblemKind::UnknownArgument);
    assert_eq!(err.problems[0].schema_pointer, "/additionalProperties");

    assert_eq!(
        message(
            json!({"type": "object", "additionalProperties": false}),
            json!({"x": 1})
        ),
        "Validation failed for tool 't': Unknown argument 'x'; the tool takes no arguments."
    );
    assert_eq!(
        message(
            json!({"type": "object", "properties": {"options": {"type": "object", "additionalProperties": false}}}),
            json!({"options": {"x": 1}})
        ),
        "Validation failed for tool 't': Unknown argument 'options.x'; 'options' takes no properties."
    );
    // Without `additionalProperties: false`, extra arguments are allowed (JSON Schema default).
    registry("t", json!({"type": "object", "properties": {"a": {}}}))
        .validate_arguments("t", &json!({"b": 1}))
        .unwrap();
    // `additionalProperties` as a schema checks the extra members.
    assert_eq!(
        message(
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"env": 1})
        ),
        "Validation failed for tool 't': Argument 'env' must be a string, got number 1."
    );
}

#[test]
fn out_of_range_values() {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "integer", "minimum": 1},
        "b": {"type": "number", "maximum": 10},
        "c": {"type": "number", "exclusiveMinimum": 0},
        "d": {"type": "number", "exclusiveMaximum": 1},
        "e": {"type": "integer", "multipleOf": 5},
        "f": {"type": "number", "multipleOf": 0.1},
    }});
    let tools = registry("t", schema);
    let cases = [
        (json!({"a": 0}), "Argument 'a' must be at least 1, got 0."),
        (
            json!({"b": 10.5}),
            "Argument 'b' must be at most 10, got 10.5.",
        ),
        (
            json!({"c": 0}),
            "Argument 'c' must be greater than 0, got 0.",
        ),
        (json!({"d": 1}), "Argument 'd' must be less than 1, got 1."),
        (
            json!({"e": 12}),
            "Argument 'e' must be a multiple of 5, got 12.",
        ),
        (
            json!({"f": 0.35}),
            "Argument 'f' must be a multiple of 0.1, got 0.35.",
        ),
    ];
    for (args, want) in cases {
        let err = tools.validate_arguments("t", &args).unwrap_err();
        assert_eq!(
            err.message,
            format!("Validation failed for tool 't': {want}")
        );
    }
    let ok = json!({"a": 1, "b": 10, "c": 0.001, "d": 0.999, "e": -15, "f": 0.3});
    tools.validate_arguments("t", &ok).unwrap();
    // Big integers compare exactly.
    let big = registry(
        "t",
        json!({"type": "object", "properties": {"n": {"maximum": 9007199254740992u64}}}),
    );
    assert!(big
        .validate_arguments("t", &json!({"n": 9007199254740993u64}))
        .is_err());
    big.validate_arguments("t", &json!({"n": -9007199254740993i64}))
        .unwrap();
}

#[test]
fn enum_and_const_mismatches() {
    let schema = json!({"type": "object", "properties": {
        "unit": {"enum": ["celsius", "fahrenheit"]},
        "kind": {"const": "file"},
        "level": {"enum": [1, 2, null]},
    }});
    let tools = registry("t", schema);
    assert_eq!(
        tools
            .validate_arguments("t", &json!({"unit": "kelvin"}))
            .unwrap_err()
            .message,
        "Validation failed for tool 't': Argument 'unit' must be one of: \"celsius\", \"fahrenheit\"; got string \"kelvin\"."
    );
    assert_eq!(
        tools
            .validate_arguments("t", &json!({"kind": "dir"}))
            .unwrap_err()
            .message,
        "Validation failed for tool 't': Argument 'kind' must be \"file\", got string \"dir\"."
    );
    assert_eq!(
        tools
            .validate_arguments("t", &json!({"level": 3}))
            .unwrap_err()
            .message,
        "Validation failed for tool 't': Argument 'level' must be one of: 1, 2, null; got number 3."
    );
    // Numbers compare by value.
    tools
        .validate_arguments(
            "t",
            &json!({"unit": "celsius", "kind": "file", "level": 2.0}),
        )
        .unwrap();
}

#[test]
fn string_lengths_count_code_points() {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "minLength": 3, "maxLength": 5},
        "code": {"type": "string", "minLength": 1},
    }});
    let tools = registry("t", schema);
    assert_eq!(
        tools
            .validate_arguments("t", &json!({"name": "ab"}))
            .unwrap_err()
            .message,
        "Validation failed for tool 't': Argument 'name' must be at least 3 characters long, got 2."
    );
    assert_eq!(
        tools
            .validate_arguments("t", &json!({"name": "abcdef"}))
            .unwrap_err()
            .message,
        "Validation failed for tool 't': Argument 'name' must be at most 5 characters long, got 6."
    );
    assert_eq!(
        tools
            .validate_arguments("t", &json!({"code": ""}))
            .unwrap_err()
            .message,
        "Validation failed for tool 't': Argument 'code' must be at least 1 character long, got 0."
    );
    // Three code points, nine UTF-8 bytes, four UTF-16 units.
    tools
        .validate_arguments("t", &json!({"name": "東京😀"}))
        .unwrap();
}

#[test]
fn array_lengths_and_unique_items() {
    let schema = json!({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
        "points": {"type": "array", "uniqueItems": true},
    }});
    let tools = registry("t", schema);
    let cases = [
        (
            json!({"tags": []}),
            "Argument 'tags' must have at least 1 item, got 0.",
        ),
        (
            json!({"tags": ["a", "b", "c", "d", "e"]}),
            "Argument 'tags' must have at most 3 items, got 5.",
        ),
        (
            json!({"tags": ["a", "b", "a"]}),
            "Argument 'tags' must not contain duplicate items; items 0 and 2 are equal.",
        ),
        (
            json!({"points": [{"x": 1, "y": [2]}, {"y": [2.0], "x": 1.0}]}),
            "Argument 'points' must not contain duplicate items; items 0 and 1 are equal.",
        ),
        (
            json!({"tags": ["a", 2]}),
            "Argument 'tags[1]' must be a string, got number 2.",
        ),
    ];
    for (args, want) in cases {
        assert_eq!(
            tools.validate_arguments("t", &args).unwrap_err().message,
            format!("Validation failed for tool 't': {want}")
        );
    }
    tools
        .validate_arguments(
            "t",
            &json!({"tags": ["a", "b"], "points": [1, "1", [1], {"1": 1}]}),
        )
        .unwrap();
}

#[test]
fn property_counts() {
    let schema = json!({"type": "object", "properties": {
        "env": {"type": "object", "minProperties": 1, "maxProperties": 2},
    }});
    let tools = registry("t", schema);
    assert_eq!(
        tools
            .validate_arguments("t", &json!({"env": {}}))
            .unwrap_err()
            .message,
        "Validation failed for tool 't': Argument 'env' must have at least 1 property, got 0."
    );
    assert_eq!(
        tools
            .validate_arguments("t", &json!({"env": {"a": "1", "b": "2", "c": "3"}}))
            .unwrap_err()
            .message,
        "Validation failed for tool 't': Argument 'env' must have at most 2 properties, got 3."
    );
}

#[test]
fn nested_objects_and_arrays_name_the_full_path() {
    let schema = json!({
        "type": "object",
        "properties": {
            "options": {
                "type": "object",
                "properties": {
                    "depth": {"type": "integer", "minimum": 0},
                    "follow": {"type": "boolean"},
                },
                "required": ["depth"],
            },
            "files": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}, "mode": {"enum": ["r", "w"]}},
                    "required": ["path"],
                },
            },
            "headers": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    });
    let tools = registry("t", schema);
    let err = tools
        .validate_arguments(
            "t",
            &json!({
                "options": {"depth": "3", "follow": "yes"},
                "files": [{"path": "a"}, {"mode": "x"}, {"path": 7}],
                "headers": {"x.y": 1},
            }),
        )
        .unwrap_err();
    assert_eq!(
        err.message,
        "Validation failed for tool 't': \
         Argument 'options.depth' must be an integer, got string \"3\". \
         Argument 'options.follow' must be a boolean, got string \"yes\". \
         Missing required argument 'files[1].path'. \
         Argument 'files[1].mode' must be one of: \"r\", \"w\"; got string \"x\". \
         Argument 'files[2].path' must be a string, got number 7. \
         Argument 'headers[\"x.y\"]' must be a string, got number 1."
    );
    let paths: Vec<Vec<PathSegment>> = err.problems.iter().map(|p| p.path.clone()).collect();
    assert_eq!(
        paths[2],
        vec![
            PathSegment::Key("files".into()),
            PathSegment::Index(1),
            PathSegment::Key("path".into())
        ]
    );
    assert_eq!(
        err.problems[0].schema_pointer,
        "/properties/options/properties/depth/type"
    );
    assert_eq!(
        err.problems[2].schema_pointer,
        "/properties/files/items/required"
    );
    assert_eq!(
        serde_json::to_value(&err.problems[4]).unwrap(),
        json!({
            "kind": "wrongType",
            "path": ["files", 2, "path"],
            "schemaPointer": "/properties/files/items/properties/path/type",
            "message": "Argument 'files[2].path' must be a string, got number 7.",
        })
    );
}

#[test]
fn several_failures_are_all_listed() {
    let schema = json!({
        "type": "object",
        "properties": {"query": {"type": "string"}, "top_k": {"type": "integer", "maximum": 50}},
        "required": ["query"],
        "additionalProperties": false,
    });
    let err = registry("search", schema)
        .validate_arguments("search", &json!({"top_k": 100, "lang": "en"}))
        .unwrap_err();
    assert_eq!(
        err.message,
        "Validation failed for tool 'search': Missing required argument 'query'. \
         Unknown argument 'lang'; expected one of: query, top_k. \
         Argument 'top_k' must be at most 50, got 100."
    );
    assert_eq!(err.problems.len(), 3);
}

#[test]
fn problems_past_the_cap_are_counted() {
    let tools = registry(
        "t",
        json!({"type": "object", "additionalProperties": false}),
    );
    let args: serde_json::Map<String, Value> =
        (0..60).map(|i| (format!("k{i:02}"), json!(i))).collect();
    let err = tools
        .validate_arguments("t", &Value::Object(args))
        .unwrap_err();
    assert_eq!(err.problems.len(), MAX_PROBLEMS);
    assert!(
        err.message.ends_with(" (and 10 more problems)"),
        "{}",
        err.message
    );
}

#[test]
fn arguments_text_must_be_a_json_object() {
    let tools = write_file();
    let err = tools
        .validate_arguments_text("write_file", r#"{"path": "a""#)
        .unwrap_err();
    assert_eq!(err.error_type, ToolErrorType::Validation);
    assert_eq!(
        err.message,
        "Validation failed for tool 'write_file': Arguments are not valid JSON: EOF while parsing an object at line 1 column 12."
    );
    assert_eq!(err.problems[0].kind, ProblemKind::InvalidJson);
    assert_eq!(err.code(), "invalid-arguments-json");

    let err = tools
        .validate_arguments_text("write_file", r#"["a.txt", "hi"]"#)
        .unwrap_err();
    assert_eq!(
        err.message,
        "Validation failed for tool 'write_file': Arguments must be a JSON object, got array."
    );
    assert_eq!(err.code(), "arguments-not-object");
    assert_eq!(
        tools
            .validate_arguments("write_file", &json!("a.txt"))
            .unwrap_err()
            .message,
        "Validation failed for tool 'write_file': Arguments must be a JSON object, got string \"a.txt\"."
    );

    // Empty text is `{}` (then the missing arguments are reported, in `required` order).
    assert_eq!(
        tools.validate_arguments_text("write_file", " ").unwrap_err().message,
        "Validation failed for tool 'write_file': Missing required argument 'path'. Missing required argument 'content'."
    );
    let none = registry("now", json!({"type": "object", "properties": {}}));
    assert_eq!(none.validate_arguments_text("now", "").unwrap(), json!({}));

    let ok = tools
        .validate_arguments_text("write_file", "{\"path\": \"a.txt\", \"content\": \"hi\"}\n")
        .unwrap();
    assert_eq!(ok, json!({"path": "a.txt", "content": "hi"}));
}

#[test]
fn unknown_tool_lists_the_available_ones() {
    let mut tools = write_file();
    tools
        .register(ToolDefinition {
            name: "read_file".into(),
            ..Default::default()
        })
        .unwrap();
    let err = tools
        .validate_arguments("delete_file", &json!({}))
        .unwrap_err();
    assert_eq!(err.error_type, ToolErrorType::Validation);
    assert_eq!(
        err.message,
        "Unknown tool 'delete_file'; available tools: read_file, write_file."
    );
    assert_eq!(err.code(), "unknown-tool");
    // The tool is looked up before the text is parsed.
    assert_eq!(
        tools
            .validate_arguments_text("delete_file", "not json")
            .unwrap_err()
            .code(),
        "unknown-tool"
    );
    assert_eq!(
        ToolRegistry::new()
            .validate_arguments("x", &json!({}))
            .unwrap_err()
            .message,
        "Unknown tool 'x'; no tools are registered."
    );
    // `parameters: null` accepts any object.
    tools
        .validate_arguments("read_file", &json!({"anything": [1]}))
        .unwrap();
}

#[test]
fn tool_errors_serialize_for_the_model_and_javascript() {
    let err = write_file()
        .validate_arguments("write_file", &json!({"path": "a"}))
        .unwrap_err();
    assert_eq!(
        serde_json::to_value(&err).unwrap(),
        json!({
            "errorType": "VALIDATION",
            "message": "Validation failed for tool 'write_file': Missing required argument 'content'.",
            "problems": [{
                "kind": "missingArgument",
                "path": ["content"],
                "schemaPointer": "/required",
                "message": "Missing required argument 'content'.",
            }],
        })
    );
    assert_eq!(
        err.details(),
        json!({"errorType": "VALIDATION", "problems": serde_json::to_value(&err.problems).unwrap()})
    );
    let back: ToolError = serde_json::from_value(serde_json::to_value(&err).unwrap()).unwrap();
    assert_eq!(back, err);

    let exec = ToolError::execution("write_file", "disk full");
    assert_eq!(exec.error_type, ToolErrorType::Execution);
    assert_eq!(exec.code(), "tool-execution");
    assert_eq!(
        serde_json::to_value(&exec).unwrap(),
        json!({"errorType": "EXECUTION", "message": "Execution of tool 'write_file' failed: disk full", "problems": []})
    );
}

#[test]
fn any_of_one_of_not_and_false() {
    let schema = json!({"type": "object", "properties": {
        "value": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "shape": {"oneOf": [
            {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]},
            {"type": "object", "properties": {"w": {"type": "number"}}, "required": ["w"]},
        ]},
        "id": {"oneOf": [{"type": "integer"}, {"type": "number"}, {"type": "string"}]},
        "name": {"type": "string", "not": {"const": "root"}},
        "legacy": false,
        "both": {"allOf": [{"type": "integer"}, {"minimum": 10}]},
    }});
    let tools = registry("t", schema);
    let cases = [
        (
            json!({"value": 3}),
            "Argument 'value' must match at least one of the 2 allowed forms (anyOf) but matches none: \
             (1) Argument 'value' must be a string, got number 3. (2) Argument 'value' must be null, got number 3.",
        ),
        (
            json!({"shape": {}}),
            "Argument 'shape' must match exactly one of the 2 allowed forms (oneOf) but matches none: \
             (1) Missing required argument 'shape.r'. (2) Missing required argument 'shape.w'.",
        ),
        (
            json!({"id": 3}),
            "Argument 'id' must match exactly one of the 3 allowed forms (oneOf) but matches forms 1 and 2.",
        ),
        (
            json!({"name": "root"}),
            "Argument 'name' must not match the schema under 'not', got string \"root\".",
        ),
        (json!({"legacy": 1}), "Argument 'legacy' is not allowed."),
        (json!({"both": 3}), "Argument 'both' must be at least 10, got 3."),
    ];
    for (args, want) in cases {
        assert_eq!(
            tools.validate_arguments("t", &args).unwrap_err().message,
            format!("Validation failed for tool 't': {want}"),
        );
    }
    tools
        .validate_arguments(
            "t",
            &json!({"value": null, "shape": {"r": 1}, "id": "x", "name": "home", "both": 12}),
        )
        .unwrap();
}

#[test]
fn refs_to_defs_and_definitions() {
    let schema = json!({
        "type": "object",
        "$defs": {
            "point": {
                "type": "object",
                "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                "required": ["x", "y"],
            },
        },
        "definitions": {"name": {"type": "string", "minLength": 1}},
        "properties": {
            "from": {"$ref": "#/$defs/point"},
            "to": {"$ref": "#/$defs/point", "description": "siblings of $ref apply too"},
            "label": {"$ref": "#/definitions/name"},
        },
        "required": ["from"],
    });
    let tools = registry("route", schema);
    tools
        .validate_arguments("route", &json!({"from": {"x": 0, "y": 1}, "label": "a"}))
        .unwrap();
    let err = tools
        .validate_arguments(
            "route",
            &json!({"from": {"x": 0}, "to": {"x": "1", "y": 2}, "label": ""}),
        )
        .unwrap_err();
    assert_eq!(
        err.message,
        "Validation failed for tool 'route': Missing required argument 'from.y'. \
         Argument 'to.x' must be a number, got string \"1\". \
         Argument 'label' must be at least 1 character long, got 0."
    );
    assert_eq!(err.problems[0].schema_pointer, "/$defs/point/required");

    // A recursive schema: a tree of any depth.
    let tree = json!({
        "type": "object",
        "$defs": {"node": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
            "required": ["name"],
        }},
        "properties": {"root": {"$ref": "#/$defs/node"}},
    });
    let tools = registry("tree", tree);
    let err = tools
        .validate_arguments(
            "tree",
            &json!({"root": {"name": "a", "children": [{"name": "b", "children": [{"children": []}]}]}}),
        )
        .unwrap_err();
    assert_eq!(
        err.message,
        "Validation failed for tool 'tree': Missing required argument 'root.children[0].children[0].name'."
    );

    // Escaped pointers: `~1` for `/`, `~0` for `~`, percent-encoding of the URI fragment.
    let escaped = json!({
        "type": "object",
        "$defs": {"a/b": {"type": "integer"}, "c~d": {"type": "string"}, "e f": {"type": "boolean"}},
        "properties": {
            "x": {"$ref": "#/$defs/a~1b"},
            "y": {"$ref": "#/$defs/c~0d"},
            "z": {"$ref": "#/$defs/e%20f"},
            "self": {"$ref": "#"},
        },
    });
    let tools = registry("t", escaped);
    assert_eq!(
        tools
            .validate_arguments("t", &json!({"x": "1", "y": 2, "z": 3, "self": {"x": 1.5}}))
            .unwrap_err()
            .message,
        "Validation failed for tool 't': Argument 'x' must be an integer, got string \"1\". \
         Argument 'y' must be a string, got number 2. \
         Argument 'z' must be a boolean, got number 3. \
         Argument 'self.x' must be an integer, got number 1.5."
    );
}

/// `#` references resolve against the schema resource that holds them (Core section 8.2): a
/// subschema with its own `$id` is one, so its `#/$defs/…` and `#` are its own.
#[test]
fn refs_resolve_within_their_schema_resource() {
    let schema = json!({
        "$id": "https://example.com/outer.json",
        "type": "object",
        "$defs": {"inner": {"type": "integer"}},
        "properties": {
            "a": {"$ref": "#/$defs/inner"},
            "b": {
                "$id": "https://example.com/b.json",
                "$defs": {"inner": {"type": "string"}},
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/inner"}, "again": {"$ref": "#"}},
            },
        },
    });
    let tools = registry("t", schema);
    tools
        .validate_arguments("t", &json!({"a": 1, "b": {"x": "s", "again": {"x": "t"}}}))
        .unwrap();
    let err = tools
        .validate_arguments("t", &json!({"a": "1", "b": {"x": 1, "again": {"x": 2}}}))
        .unwrap_err();
    assert_eq!(
        err.message,
        "Validation failed for tool 't': Argument 'a' must be an integer, got string \"1\". \
         Argument 'b.x' must be a string, got number 1. \
         Argument 'b.again.x' must be a string, got number 2."
    );
    assert_eq!(
        err.problems[2].schema_pointer,
        "/properties/b/$defs/inner/type"
    );
    // A `#/$defs/…` the resource does not have is refused, even when the root has it.
    let err = CompiledSchema::compile(&json!({
        "$defs": {"only_at_root": {}},
        "properties": {"b": {"$id": "b.json", "$ref": "#/$defs/only_at_root"}},
    }))
    .unwrap_err();
    assert!(matches!(err, SchemaError::UnresolvedRef { .. }), "{err:?}");
    // An `$id` that is only a fragment (a draft 6 and 7 anchor) starts no resource.
    let schema = CompiledSchema::compile(&json!({
        "$defs": {"n": {"type": "null"}},
        "properties": {"b": {"$id": "#b", "properties": {"c": {"$ref": "#/$defs/n"}}}},
    }))
    .unwrap();
    assert!(!schema.is_valid(&json!({"b": {"c": 1}})));
}

/// `#name` references find the subschema of the same resource that is anchored so: `$anchor`
/// (2019-09 and later), or an `$id` of `#name` in drafts 6 and 7.
#[test]
fn refs_to_anchors() {
    let schema = CompiledSchema::compile(&json!({
        "$defs": {
            "id": {"$anchor": "id", "type": "integer", "minimum": 1},
            "inner": {"$id": "inner.json", "$defs": {"x": {"$anchor": "hidden", "type": "null"}}},
        },
        "properties": {"a": {"$ref": "#id"}, "b": {"$ref": "#hidden"}},
    }))
    .unwrap();
    assert!(schema.is_valid(&json!({"a": 3})));
    let problems = schema.validate(&json!({"a": 0}));
    assert_eq!(problems[0].schema_pointer, "/$defs/id/minimum");
    // An anchor inside another resource is not this resource's: the reference is warned about.
    assert_eq!(schema.warnings().len(), 1);
    assert_eq!(schema.warnings()[0].pointer, "/properties/b/$ref");

    let draft7 = CompiledSchema::compile(&json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"s": {"$id": "#s", "type": "string"}},
        "properties": {"a": {"$ref": "#s"}},
    }))
    .unwrap();
    assert!(draft7.warnings().is_empty());
    assert!(!draft7.is_valid(&json!({"a": 1})));
}

/// A compound schema (Core 9.3: resources bundled with their `$id`s) resolves references by
/// URI: absolute, relative to the resource around the `$ref`, with fragments.
#[test]
fn refs_by_uri_to_embedded_resources() {
    let schema = CompiledSchema::compile(&json!({
        "$id": "https://example.com/schemas/order.json",
        "type": "object",
        "properties": {
            "ship_to": {"$ref": "address.json"},
            "bill_to": {"$ref": "https://example.com/schemas/address.json"},
            "count": {"$ref": "order.json#/$defs/count"},
            "id": {"$ref": "common/ids.json#order-id"},
        },
        "$defs": {
            "count": {"type": "integer", "minimum": 1},
            "address": {
                "$id": "address.json",
                "type": "object",
                "properties": {"zip": {"$ref": "common/ids.json#/$defs/zip"}},
                "required": ["zip"],
            },
            "ids": {
                "$id": "https://example.com/schemas/common/ids.json",
                "$defs": {
                    "zip": {"type": "string", "maxLength": 5},
                    "order": {"$anchor": "order-id", "type": "string", "minLength": 3},
                },
            },
        },
    }))
    .unwrap();
    assert!(schema.warnings().is_empty(), "{:?}", schema.warnings());
    assert!(schema.is_valid(&json!({"ship_to": {"zip": "12345"}, "count": 2, "id": "abc"})));
    let problems: Vec<String> = schema
        .validate(&json!({"ship_to": {}, "bill_to": {"zip": "123456"}, "count": 0, "id": "a"}))
        .into_iter()
        .map(|p| p.schema_pointer)
        .collect();
    assert_eq!(
        problems,
        [
            "/$defs/address/required",
            "/$defs/ids/$defs/zip/maxLength",
            "/$defs/count/minimum",
            "/$defs/ids/$defs/order/minLength",
        ]
    );
    // A URI that is none of the schema's resources is warned about, not fetched.
    let schema = CompiledSchema::compile(&json!({
        "$id": "https://example.com/a.json",
        "properties": {"b": {"$ref": "b.json"}},
    }))
    .unwrap();
    assert_eq!(schema.warnings()[0].pointer, "/properties/b/$ref");
}

/// The root's `$schema` picks the dialect: drafts 4 to 7 ignore the keywords beside `$ref`, and
/// draft 4's boolean `exclusiveMinimum`/`exclusiveMaximum` make `minimum`/`maximum` exclusive.
#[test]
fn older_drafts_are_read_by_their_own_rules() {
    let beside_ref = |dialect: &str| {
        json!({
            "$schema": dialect,
            "$defs": {"list": {"type": "array"}},
            "properties": {"tags": {"$ref": "#/$defs/list", "maxItems": 1}},
        })
    };
    let args = json!({"tags": ["a", "b"]});
    for draft in [
        "http://json-schema.org/draft-04/schema#",
        "http://json-schema.org/draft-06/schema#",
        "https://json-schema.org/draft-07/schema",
    ] {
        let schema = CompiledSchema::compile(&beside_ref(draft)).unwrap();
        assert!(schema.warnings().is_empty(), "{draft}");
        assert!(schema.is_valid(&args), "{draft}");
        assert!(!schema.is_valid(&json!({"tags": "a"})), "{draft}");
    }
    for draft in [
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/schema",
    ] {
        assert!(!CompiledSchema::compile(&beside_ref(draft))
            .unwrap()
            .is_valid(&args));
    }

    let draft4 = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "id": "http://example.com/t.json",
        "type": "object",
        "properties": {
            "low": {"minimum": 1, "exclusiveMinimum": true},
            "high": {"maximum": 10, "exclusiveMaximum": true},
            "closed": {"minimum": 1, "exclusiveMinimum": false},
        },
    });
    let tools = registry("t", draft4);
    tools
        .validate_arguments("t", &json!({"low": 1.5, "high": 9, "closed": 1}))
        .unwrap();
    assert_eq!(
        tools
            .validate_arguments("t", &json!({"low": 1, "high": 10, "closed": 0}))
            .unwrap_err()
            .message,
        "Validation failed for tool 't': Argument 'low' must be greater than 1, got 1. \
         Argument 'high' must be less than 10, got 10. \
         Argument 'closed' must be at least 1, got 0."
    );

    // Another `$schema` is reported, and the schema read as 2020-12.
    let schema = CompiledSchema::compile(&json!({
        "$schema": "https://example.com/my-dialect",
        "type": "integer",
    }))
    .unwrap();
    assert_eq!(schema.warnings().len(), 1);
    assert_eq!(schema.warnings()[0].pointer, "/$schema");
    assert_eq!(
        schema.warnings()[0].message,
        "`$schema` \"https://example.com/my-dialect\" is not a dialect agentwire knows (JSON \
         Schema 2020-12, 2019-09, draft-07, draft-06, draft-04): the schema is read as 2020-12"
    );
    assert!(!schema.is_valid(&json!(1.5)));
}

#[test]
fn bad_refs_are_refused_when_compiled() {
    let err = CompiledSchema::compile(&json!({"properties": {"a": {"$ref": "#/$defs/missing"}}}))
        .unwrap_err();
    assert_eq!(
        err,
        SchemaError::UnresolvedRef {
            pointer: "/properties/a/$ref".into(),
            reference: "#/$defs/missing".into(),
        }
    );
    assert_eq!(err.code(), "unresolved-schema-ref");

    for cyclic in [
        json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}),
        json!({"allOf": [{"$ref": "#"}]}),
    ] {
        let err = CompiledSchema::compile(&cyclic).unwrap_err();
        assert!(matches!(err, SchemaError::RefCycle { .. }), "{err:?}");
        assert_eq!(err.code(), "schema-ref-cycle");
    }
}

/// Registers the tool `t` (no description) with `parameters`, which must compile; its warnings.
fn register_t(tools: &mut ToolRegistry, parameters: Value) -> Vec<SchemaWarning> {
    tools
        .register(ToolDefinition {
            name: "t".into(),
            description: String::new(),
            parameters,
        })
        .unwrap()
}

/// A generic tree whose `children` refer to their node dynamically (`reference`, e.g.
/// `{"$dynamicRef": "#node"}`), its root marked by `anchor` (e.g. `("$dynamicAnchor", "node")`), and a
/// strict tree, marked the same, that refers to it and refuses unknown members (the JSON Schema Test
/// Suite's remote "strict-tree", made local): `(strict, tree)`, compiled in the dialect `schema`
/// (the default, 2020-12, for `None`), each without a warning.
fn strict_tree(
    schema: Option<&str>,
    anchor: (&str, Value),
    reference: Value,
) -> (CompiledSchema, CompiledSchema) {
    let mut tree = json!({
        "$id": "https://example.com/tree",
        "type": "object",
        "properties": {"data": true, "children": {"type": "array", "items": reference}},
    });
    let mut strict = json!({
        "$id": "https://example.com/strict-tree",
        "$ref": "tree",
        "unevaluatedProperties": false,
        "$defs": {"tree": tree.clone()},
    });
    for s in [&mut tree, &mut strict] {
        s[anchor.0] = anchor.1.clone();
        if let Some(schema) = schema {
            s["$schema"] = json!(schema);
        }
    }
    strict["$defs"]["tree"][anchor.0] = anchor.1;
    let strict = CompiledSchema::compile(&strict).unwrap();
    let tree = CompiledSchema::compile(&tree).unwrap();
    assert!(strict.warnings().is_empty() && tree.warnings().is_empty());
    (strict, tree)
}

/// `$dynamicRef` (2020-12 Core 8.2.3.2): a generic tree whose nodes an outer schema makes strict.
/// The tree's `children` point to `#node` dynamically, so they are checked against the outermost
/// resource of the dynamic scope that has a `$dynamicAnchor` named `node`: the strict tree when
/// validation starts there, the tree itself when it starts at the tree.
#[test]
fn dynamic_refs_follow_the_dynamic_scope() {
    let anchor = ("$dynamicAnchor", json!("node"));
    let (strict, tree) = strict_tree(None, anchor, json!({"$dynamicRef": "#node"}));
    let good = json!({"children": [{"data": 1, "children": [{"data": 2}]}]});
    let misspelled = json!({"children": [{"data": 1, "children": [{"daat": 2}]}]});
    assert!(strict.is_valid(&good) && tree.is_valid(&good));
    // Only the strict tree refuses the nested node's unknown member.
    assert!(tree.is_valid(&misspelled));
    let problems = strict.validate(&misspelled);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(
        problems[0].message,
        "Unknown argument 'children[0].children[0].daat'; expected one of: children, data."
    );
    assert_eq!(problems[0].schema_pointer, "/unevaluatedProperties");

    // Without the bookending `$dynamicAnchor` at its target, or with a JSON Pointer, a
    // `$dynamicRef` is a `$ref`.
    let static_ref = json!({
        "$dynamicAnchor": "node",
        "properties": {"child": {"$dynamicRef": "#/$defs/leaf"}},
        "$defs": {"leaf": {"type": "string"}},
    });
    let static_ref = CompiledSchema::compile(&static_ref).unwrap();
    assert!(static_ref.is_valid(&json!({"child": "x"})));
    assert!(!static_ref.is_valid(&json!({"child": 1})));

    match CompiledSchema::compile(&json!({"$dynamicRef": 1})).unwrap_err() {
        SchemaError::Invalid {
            pointer, reason, ..
        } => {
            assert_eq!(
                (pointer.as_str(), reason.as_str()),
                ("/$dynamicRef", "`$dynamicRef` must be a string")
            );
        }
        other => panic!("{other:?}"),
    }

    // A `$dynamicRef` that may loop in place is refused like a `$ref` loop.
    let err =
        CompiledSchema::compile(&json!({"$dynamicAnchor": "a", "$dynamicRef": "#a"})).unwrap_err();
    assert!(matches!(err, SchemaError::RefCycle { .. }), "{err:?}");
}

/// 2019-09's `$recursiveRef` (Core 8.2.4.2): the same tree, with `$recursiveAnchor: true` at the
/// roots of the tree and of the strict tree that refers to it.
#[test]
fn recursive_refs_follow_the_dynamic_scope_in_2019_09() {
    let (strict, tree) = strict_tree(
        Some("https://json-schema.org/draft/2019-09/schema"),
        ("$recursiveAnchor", json!(true)),
        json!({"$recursiveRef": "#"}),
    );
    let misspelled = json!({"children": [{"data": 1, "children": [{"daat": 2}]}]});
    assert!(tree.is_valid(&misspelled));
    assert!(strict.is_valid(&json!({"children": [{"children": [{"data": 2}]}]})));
    let problems = strict.validate(&misspelled);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].schema_pointer, "/unevaluatedProperties");
    // In 2020-12 they are not keywords: reported, not checked.
    let warnings: Vec<String> = CompiledSchema::compile(
        &json!({"$recursiveAnchor": true, "items": {"$recursiveRef": "#"}}),
    )
    .unwrap()
    .warnings()
    .iter()
    .map(|w| w.keyword.clone())
    .collect();
    assert_eq!(warnings, ["$recursiveAnchor", "$recursiveRef"]);
}

#[test]
fn unsupported_keywords_are_reported_with_pointers() {
    let mut tools = ToolRegistry::new();
    let warnings = register_t(
        &mut tools,
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://example.com/t",
            "title": "T",
            "type": "object",
            "properties": {
                "email": {"type": "string", "format": "email", "examples": ["a@b"]},
                "meta": {"nullable": true, "default": null},
                "remote": {"$ref": "https://example.com/schema.json"},
                "list": {"prefixItems": [true], "$dynamicRef": "#item"},
            },
            "contentSchema": {"type": "object"},
        }),
    );
    let got: Vec<(&str, &str)> = warnings
        .iter()
        .map(|w| (w.pointer.as_str(), w.keyword.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("/contentSchema", "contentSchema"),
            ("/properties/list/$dynamicRef", "$dynamicRef"),
            ("/properties/meta/nullable", "nullable"),
            ("/properties/remote/$ref", "$ref"),
        ]
    );
    assert_eq!(
        warnings[1].message,
        "`$dynamicRef` \"#item\" names no schema resource, anchor or JSON Pointer of this \
         schema: remote schemas are not fetched, so it is not checked"
    );
    assert_eq!(
        serde_json::to_value(&warnings[2]).unwrap(),
        json!({
            "pointer": "/properties/meta/nullable",
            "keyword": "nullable",
            "message": "`nullable` is not a JSON Schema 2020-12 keyword: it is ignored",
        })
    );
    assert_eq!(tools.schema("t").unwrap().warnings(), &warnings[..]);
    // Not checked means not rejected: `format` is an annotation, and `$dynamicRef`,
    // `contentSchema` and the remote `$ref` do not apply.
    tools
        .validate_arguments(
            "t",
            &json!({"email": "nope", "x-extra": 1, "list": [1, 2], "remote": 5}),
        )
        .unwrap();
}

/// `pattern` and `patternProperties`: ECMA-262 regular expressions, not anchored; members a
/// pattern names are not "additional".
#[test]
fn patterns_and_pattern_properties() {
    let tools = registry(
        "t",
        json!({
            "type": "object",
            "properties": {
                "date": {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}$"},
                "word": {"pattern": "(?<=a)b"},
                "name": {"type": "string"},
            },
            "patternProperties": {
                "^x-": {"type": "string"},
                "-id$": {"type": "integer"},
            },
            "additionalProperties": false,
        }),
    );
    tools
        .validate_arguments(
            "t",
            &json!({"date": "2026-11-28", "word": "ab", "x-trace": "t", "user-id": 3, "x-a-id": 1}),
        )
        .unwrap_err();
    tools
        .validate_arguments(
            "t",
            &json!({"date": "2026-11-28", "word": "cab", "x-trace": "t", "user-id": 3, "name": "n"}),
        )
        .unwrap();
    let err = tools
        .validate_arguments(
            "t",
            &json!({"date": "tomorrow", "word": "bb", "x-trace": 1, "user-id": "3", "colour": 1, "x-a-id": "2"}),
        )
        .unwrap_err();
    assert_eq!(
        err.message,
        "Validation failed for tool 't': \
         Unknown argument 'colour'; expected one of: date, name, word, /^x-/, /-id$/. \
         Argument 'date' must match the regular expression /^\\d{4}-\\d{2}-\\d{2}$/, got string \"tomorrow\". \
         Argument 'word' must match the regular expression /(?<=a)b/, got string \"bb\". \
         Argument 'x-trace' must be a string, got number 1. \
         Argument 'user-id' must be an integer, got string \"3\". \
         Argument 'x-a-id' must be an integer, got string \"2\"."
    );
    assert_eq!(err.problems[1].kind, ProblemKind::PatternMismatch);
    assert_eq!(err.problems[1].schema_pointer, "/properties/date/pattern");
    let kinds: Vec<ProblemKind> = err.problems.iter().map(|p| p.kind).collect();
    assert_eq!(kinds.len(), 6, "{kinds:?}");

    // A pattern that is not an ECMA-262 regular expression is refused (`u` mode is strict).
    for (schema, pointer) in [
        (json!({"pattern": "("}), "/pattern"),
        (json!({"pattern": "\\a"}), "/pattern"),
        (
            json!({"patternProperties": {"[": {}}}),
            "/patternProperties/[",
        ),
    ] {
        match CompiledSchema::compile(&schema).unwrap_err() {
            SchemaError::Invalid {
                pointer: p, reason, ..
            } => {
                assert_eq!(p, pointer);
                assert!(
                    reason.contains("is not a regular expression (ECMA-262)"),
                    "{reason}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}

/// `propertyNames`: each member's name, as a string, against a schema.
#[test]
fn property_names() {
    let tools = registry(
        "t",
        json!({
            "type": "object",
            "propertyNames": {"maxLength": 5},
            "properties": {
                "env": {"type": "object", "propertyNames": {"pattern": "^[A-Z_]+$"}},
            },
        }),
    );
    tools
        .validate_arguments("t", &json!({"env": {"HOME": "/", "MY_VAR": "1"}}))
        .unwrap();
    let err = tools
        .validate_arguments("t", &json!({"env": {"home": "/", "OK": 1}, "toolong": 1}))
        .unwrap_err();
    assert_eq!(
        err.message,
        "Validation failed for tool 't': \
         Argument name \"toolong\" is not allowed by the schema under 'propertyNames'. \
         Property name \"home\" of 'env' is not allowed by the schema under 'propertyNames'."
    );
    assert_eq!(err.problems[1].kind, ProblemKind::PropertyName);
    assert_eq!(
        err.problems[1].path,
        vec![
            PathSegment::Key("env".into()),
            PathSegment::Key("home".into())
        ]
    );
    assert_eq!(
        err.problems[1].schema_pointer,
        "/properties/env/propertyNames"
    );
}

/// `prefixItems`, `items` as an array with `additionalItems`, `contains` with its counts,
/// `dependentRequired`, `dependentSchemas`, `dependencies` and `if`/`then`/`else`, with their
/// messages.
#[test]
fn tuples_contains_dependencies_and_conditionals() {
    let tools = registry(
        "t",
        json!({
            "type": "object",
            "properties": {
                "pair": {"prefixItems": [{"type": "string"}, {"type": "number"}], "items": false},
                "old_pair": {"items": [{"type": "string"}], "additionalItems": {"type": "boolean"}},
                "tags": {"contains": {"const": "urgent"}},
                "scores": {"contains": {"minimum": 90}, "minContains": 2, "maxContains": 3},
                "shape": {
                    "if": {"properties": {"kind": {"const": "circle"}}},
                    "then": {"required": ["radius"]},
                    "else": {"required": ["width"]},
                },
            },
            "dependentRequired": {"start": ["end"]},
            "dependencies": {"user": ["password"], "retry": {"required": ["attempts"]}},
            "dependentSchemas": {"unit": {"properties": {"unit": {"enum": ["c", "f"]}}}},
        }),
    );
    tools
        .validate_arguments(
            "t",
            &json!({
                "pair": ["a", 1],
                "old_pair": ["a", true, false],
                "tags": ["x", "urgent"],
                "scores": [95, 10, 91],
                "shape": {"kind": "circle", "radius": 1},
                "start": 1, "end": 2, "unit": "c",
            }),
        )
        .unwrap();
    let err = tools
        .validate_arguments(
            "t",
            &json!({
                "pair": [1, 2, 3],
                "old_pair": ["a", 1],
                "tags": ["x"],
                "scores": [95, 96, 97, 98],
                "shape": {"kind": "square"},
                "start": 1, "user": "me", "retry": true, "unit": "k",
            }),
        )
        .unwrap_err();
    assert_eq!(
        err.message,
        "Validation failed for tool 't': \
         Missing argument 'end', required when 'start' is given. \
         Missing argument 'password', required when 'user' is given. \
         Argument 'pair[0]' must be a string, got number 1. \
         Argument 'pair[2]' is not allowed. \
         Argument 'old_pair[1]' must be a boolean, got number 1. \
         Argument 'tags' must have at least 1 item matching the schema under 'contains', got 0. \
         Argument 'scores' must have at most 3 items matching the schema under 'contains', got 4. \
         Missing required argument 'shape.width'. \
         Missing required argument 'attempts'. \
         Argument 'unit' must be one of: \"c\", \"f\"; got string \"k\"."
    );
    let kinds: Vec<(ProblemKind, &str)> = err
        .problems
        .iter()
        .map(|p| (p.kind, p.schema_pointer.as_str()))
        .collect();
    assert_eq!(
        [kinds[0], kinds[1], kinds[5], kinds[6]],
        [
            (ProblemKind::MissingArgument, "/dependentRequired/start"),
            (ProblemKind::MissingArgument, "/dependencies/user"),
            (ProblemKind::ContainsCount, "/properties/tags/contains"),
            (ProblemKind::ContainsCount, "/properties/scores/maxContains"),
        ]
    );
    assert_eq!(
        serde_json::to_value(ProblemKind::ContainsCount).unwrap(),
        json!("containsCount")
    );
    // Too few matches; `minContains: 0` makes `contains` pass with none; `then` without `if`
    // does nothing.
    let schema = CompiledSchema::compile(&json!({
        "properties": {
            "a": {"contains": {"type": "null"}, "minContains": 2},
            "b": {"contains": {"type": "null"}, "minContains": 0, "maxContains": 0},
            "c": {"then": false},
        },
    }))
    .unwrap();
    assert_eq!(
        schema.validate(&json!({"a": [null, 1], "b": [1], "c": 1}))[0].message,
        "Argument 'a' must have at least 2 items matching the schema under 'contains', got 1."
    );
    assert!(!schema.is_valid(&json!({"b": [null]})));
}

#[test]
fn invalid_schemas_are_refused_with_pointers() {
    let cases = [
        (json!("object"), ""),
        (json!({"type": "text"}), "/type"),
        (
            json!({"properties": {"a": {"minLength": -1}}}),
            "/properties/a/minLength",
        ),
        (json!({"required": "path"}), "/required"),
        (json!({"properties": []}), "/properties"),
        (json!({"properties": {"a": 3}}), "/properties/a"),
        (json!({"multipleOf": 0}), "/multipleOf"),
        (json!({"maximum": "10"}), "/maximum"),
        (json!({"anyOf": []}), "/anyOf"),
        (json!({"uniqueItems": "yes"}), "/uniqueItems"),
        (json!({"enum": "a"}), "/enum"),
        (json!({"$ref": 1}), "/$ref"),
        (json!({"$defs": []}), "/$defs"),
    ];
    for (schema, pointer) in cases {
        let err = CompiledSchema::compile(&schema).unwrap_err();
        match &err {
            SchemaError::Invalid { pointer: p, .. } => assert_eq!(p, pointer, "{schema}"),
            other => panic!("{schema}: {other:?}"),
        }
        assert_eq!(err.code(), "invalid-schema");
        assert_eq!(err.details()["pointer"], pointer);
    }
    let err =
        CompiledSchema::compile(&json!({"properties": {"a": {"minLength": -1}}})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid schema at '/properties/a/minLength': `minLength` must be a non-negative integer"
    );
    assert_eq!(err.details()["value"], json!(-1));

    let mut tools = ToolRegistry::new();
    let err = tools
        .register(ToolDefinition {
            name: "bad".into(),
            description: String::new(),
            parameters: json!({"type": 5}),
        })
        .unwrap_err();
    assert_eq!(err.code(), "invalid-schema");
    assert!(tools.is_empty());
    let err = tools.register(ToolDefinition::default()).unwrap_err();
    assert_eq!(err.code(), "invalid-tool-name");
}

#[test]
fn huge_integral_counts_saturate() {
    for keyword in [
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "minContains",
        "maxContains",
    ] {
        for n in [json!(1e20), json!(1.8446744073709552e19), json!(1e300)] {
            let schema = json!({ keyword: n, "contains": true });
            let compiled = CompiledSchema::compile(&schema);
            assert!(compiled.is_ok(), "{schema}: {compiled:?}");
        }
        for n in [json!(1.5), json!(-1.0), json!(-1e20)] {
            let schema = json!({ keyword: n });
            assert!(CompiledSchema::compile(&schema).is_err(), "{schema}");
        }
    }
    let schema = CompiledSchema::compile(&json!({"minLength": 1e20, "maxItems": 1e20})).unwrap();
    assert!(!schema.is_valid(&json!("abc")));
    assert!(schema.is_valid(&json!([1, 2, 3])));
    let schema = CompiledSchema::compile(&json!({"maxLength": 1e20})).unwrap();
    assert!(schema.is_valid(&json!("abc")));
}

#[test]
fn deeply_nested_values_validate_without_recursion() {
    // A 100,000-deep array against a recursive schema, with a wrong leaf at the bottom.
    let schema = CompiledSchema::compile(&json!({
        "$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}},
        "$ref": "#/$defs/n",
    }))
    .unwrap();
    let depth = 100_000;
    let mut value = json!("leaf");
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    let problems = schema.validate(&value);
    // Dropping a deep serde_json::Value recurses: take it apart by hand (before any assertion
    // can unwind).
    let mut v = Some(value);
    while let Some(Value::Array(mut a)) = v {
        v = a.pop();
    }
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].path.len(), depth);
    let message = &problems[0].message;
    assert!(
        message.starts_with("Argument '[0][0][0]"),
        "{}",
        &message[..40]
    );
    assert!(
        message.ends_with("[0]' must be an array, got string \"leaf\"."),
        "{}",
        &message[message.len() - 60..]
    );
}

#[test]
fn exponential_schemas_stop_at_the_step_budget() {
    // 2^30 branch evaluations without a budget.
    let mut defs = serde_json::Map::new();
    for i in 0..30 {
        let next = format!("#/$defs/a{}", i + 1);
        defs.insert(
            format!("a{i}"),
            json!({"anyOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert("a30".into(), json!({"type": "string"}));
    let schema = CompiledSchema::compile(&json!({"$defs": defs, "$ref": "#/$defs/a0"})).unwrap();
    let start = std::time::Instant::now();
    let problems = schema.validate(&json!(1));
    assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
    assert_eq!(
        problems.last().map(|p| p.kind),
        Some(ProblemKind::TooComplex)
    );
    assert_eq!(
        problems.last().unwrap().message,
        "The arguments could not be fully checked: validation took more than 1000000 steps or \
         nested its checks more than 256 deep."
    );
}

#[test]
fn agent_api_function_tools_and_calls() {
    use agentwire::dialect::agent_api::{FunctionCall, FunctionTool, Tool};
    let function = FunctionTool {
        name: "get_weather".into(),
        description: "Current weather for a city.".into(),
        parameters: json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]}},
            "required": ["city"],
        }),
    };
    let definition = ToolDefinition::from(function.clone());
    assert_eq!(FunctionTool::from(definition.clone()), function);
    assert_eq!(ToolDefinition::from(Tool::from(function)), definition);
    // A definition's schema that is not an object is offered as one the server reads (its
    // `FunctionTool.parameters` must be an object) and that accepts the same arguments.
    for (schema, offered) in [
        (Value::Null, json!({"type": "object"})),
        (json!(true), json!({"type": "object"})),
        (json!(false), json!({"not": {}})),
    ] {
        let tool = FunctionTool::from(ToolDefinition {
            parameters: schema.clone(),
            ..definition.clone()
        });
        assert_eq!(tool.parameters, offered, "{schema}");
        for args in [json!({}), json!({"city": "Paris"})] {
            let mut registry = ToolRegistry::new();
            registry
                .register(ToolDefinition {
                    parameters: schema.clone(),
                    ..definition.clone()
                })
                .unwrap();
            let same = registry.validate_arguments("get_weather", &args).is_ok();
            registry
                .register(ToolDefinition::from(tool.clone()))
                .unwrap();
            assert_eq!(
                registry.validate_arguments("get_weather", &args).is_ok(),
                same,
                "{schema} {args}"
            );
        }
    }
    assert_eq!(
        serde_json::to_value(&definition).unwrap()["name"],
        "get_weather"
    );

    let mut tools = ToolRegistry::new();
    tools.register(definition).unwrap();
    let call = FunctionCall {
        call_id: "call_1".into(),
        name: "get_weather".into(),
        arguments: r#"{"city": "Paris", "unit": "k"}"#.into(),
    };
    assert_eq!(
        tools.validate_call(&call).unwrap_err().message,
        "Validation failed for tool 'get_weather': Argument 'unit' must be one of: \"c\", \"f\"; got string \"k\"."
    );
    let call = FunctionCall {
        arguments: r#"{"city": "Paris"}"#.into(),
        ..call
    };
    assert_eq!(
        tools.validate_call(&call).unwrap(),
        json!({"city": "Paris"})
    );
    assert_eq!(tools.names().collect::<Vec<_>>(), vec!["get_weather"]);
    assert_eq!(tools.len(), 1);
    assert!(tools.remove("get_weather").is_some());
    assert!(tools.get("get_weather").is_none());
}

#[test]
fn a_real_servers_function_call_validates() {
    use agentwire::dialect::agent_api::FunctionCall;
    // agentscope-runtime's completed function_call content (`data: {call_id, name, arguments}`).
    let text = String::from_utf8(common::fixture("agentscope-runtime/process-raw.sse")).unwrap();
    let call: FunctionCall = text
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .find(|e| {
            e["object"] == "content" && e["delta"] == false && e["data"]["arguments"].is_string()
        })
        .and_then(|e| serde_json::from_value(e["data"].clone()).ok())
        .expect("a completed function call");
    let mut tools = ToolRegistry::new();
    tools
        .register(ToolDefinition {
            name: "get_weather".into(),
            description: "Current weather for a city.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"city": {"type": "string", "minLength": 1}},
                "required": ["city"],
                "additionalProperties": false,
            }),
        })
        .unwrap();
    assert_eq!(
        tools.validate_call(&call).unwrap(),
        json!({"city": "Paris"})
    );
    let renamed = FunctionCall {
        name: "get_wether".into(),
        ..call
    };
    assert_eq!(
        tools.validate_call(&renamed).unwrap_err().message,
        "Unknown tool 'get_wether'; available tools: get_weather."
    );
}

/// A property's schema in the generated tool schemas.
#[derive(Debug, Clone)]
enum Spec {
    Str { min: u64, max: u64 },
    Int { min: i64, max: i64 },
    Num { min: f64, max: f64 },
    Bool,
    Enum(Vec<String>),
    Tags { min: u64, max: u64 },
    Nested,
}

fn arb_spec() -> impl Strategy<Value = Spec> {
    prop_oneof![
        (0u64..4, 0u64..8).prop_map(|(min, extra)| Spec::Str {
            min,
            max: min + extra
        }),
        (-100i64..100, 0i64..100).prop_map(|(min, span)| Spec::Int {
            min,
            max: min + span
        }),
        (-1e6f64..1e6, 0f64..1e3).prop_map(|(min, span)| Spec::Num {
            min,
            max: min + span
        }),
        Just(Spec::Bool),
        prop::collection::btree_set("[a-z]{1,6}", 1..5)
            .prop_map(|s| Spec::Enum(s.into_iter().collect())),
        (0u64..3, 0u64..4).prop_map(|(min, extra)| Spec::Tags {
            min,
            max: min + extra
        }),
        Just(Spec::Nested),
    ]
}

fn spec_schema(spec: &Spec) -> Value {
    match spec {
        Spec::Str { min, max } => json!({"type": "string", "minLength": min, "maxLength": max}),
        Spec::Int { min, max } => json!({"type": "integer", "minimum": min, "maximum": max}),
        Spec::Num { min, max } => json!({"type": "number", "minimum": min, "maximum": max}),
        Spec::Bool => json!({"type": "boolean"}),
        Spec::Enum(options) => json!({"type": "string", "enum": options}),
        Spec::Tags { min, max } => json!({
            "type": "array", "items": {"type": "string"},
            "minItems": min, "maxItems": max, "uniqueItems": true,
        }),
        Spec::Nested => json!({
            "type": "object",
            "properties": {"depth": {"type": "integer", "minimum": 0}, "label": {"type": ["string", "null"]}},
            "required": ["depth"],
            "additionalProperties": false,
        }),
    }
}

fn spec_value(spec: &Spec) -> BoxedStrategy<Value> {
    match spec.clone() {
        Spec::Str { min, max } => prop::collection::vec(
            prop::sample::select(vec!['a', 'Z', '0', ' ', 'é', '東', '😀', '"', '\\']),
            min as usize..=max as usize,
        )
        .prop_map(|cs| Value::String(cs.into_iter().collect()))
        .boxed(),
        Spec::Int { min, max } => (min..=max).prop_map(Value::from).boxed(),
        Spec::Num { min, max } => (min..=max).prop_map(Value::from).boxed(),
        Spec::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        Spec::Enum(options) => prop::sample::select(options)
            .prop_map(Value::String)
            .boxed(),
        Spec::Tags { min, max } => {
            prop::collection::btree_set("[a-z]{1,4}", min as usize..=max as usize)
                .prop_map(|s| Value::Array(s.into_iter().map(Value::String).collect()))
                .boxed()
        }
        Spec::Nested => (0u32..10, prop::option::of("[a-z]{0,5}"))
            .prop_map(|(depth, label)| json!({"depth": depth, "label": label}))
            .boxed(),
    }
}

const NAMES: &[&str] = &[
    "path", "content", "top_k", "mode", "depth", "color", "size", "query", "tags", "options",
];

/// A tool schema (an object of generated properties, some required) and arguments satisfying it.
fn arb_tool() -> impl Strategy<Value = (Value, Vec<String>, Value)> {
    prop::sample::subsequence(NAMES, 1..=NAMES.len())
        .prop_flat_map(|names| {
            let n = names.len();
            (
                Just(names),
                prop::collection::vec(arb_spec(), n),
                prop::collection::vec(any::<(bool, bool)>(), n),
            )
        })
        .prop_flat_map(|(names, specs, flags)| {
            let values: Vec<BoxedStrategy<Value>> = specs.iter().map(spec_value).collect();
            (Just(names), Just(specs), Just(flags), values)
        })
        .prop_map(|(names, specs, flags, values)| {
            let mut properties = serde_json::Map::new();
            let mut required = Vec::new();
            let mut args = serde_json::Map::new();
            for (((name, spec), (is_required, present)), value) in
                names.iter().zip(&specs).zip(&flags).zip(values)
            {
                properties.insert((*name).to_owned(), spec_schema(spec));
                if *is_required {
                    required.push((*name).to_owned());
                }
                if *is_required || *present {
                    args.insert((*name).to_owned(), value);
                }
            }
            let schema = json!({
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            });
            (schema, required, Value::Object(args))
        })
}

proptest! {
    /// The registry against a `BTreeMap` model over random registrations (replacing a tool of the
    /// same name), removals and lookups: the same tools, in name order.
    #[test]
    fn the_registry_keeps_one_tool_per_name_in_name_order(
        ops in proptest::collection::vec((any::<bool>(), "[a-e]{1,2}", 0u8..4), 0..40),
    ) {
        let mut tools = ToolRegistry::new();
        let mut model = std::collections::BTreeMap::new();
        for (register, name, version) in ops {
            if register {
                let description = format!("v{version}");
                tools
                    .register(ToolDefinition { name: name.clone(), description: description.clone(), parameters: Value::Null })
                    .unwrap();
                model.insert(name, description);
            } else {
                let removed = tools.remove(&name).map(|d| d.description);
                prop_assert_eq!(removed, model.remove(&name));
            }
            let got: Vec<(&str, &str)> = tools
                .definitions()
                .map(|d| (d.name.as_str(), d.description.as_str()))
                .collect();
            let want: Vec<(&str, &str)> = model.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            prop_assert_eq!(got, want);
            prop_assert_eq!(tools.names().collect::<Vec<_>>(), model.keys().map(String::as_str).collect::<Vec<_>>());
            prop_assert_eq!(tools.len(), model.len());
            for probe in ["a", "b", "cc", "e"] {
                prop_assert_eq!(tools.get(probe).map(|d| d.description.as_str()), model.get(probe).map(String::as_str));
                prop_assert_eq!(tools.schema(probe).is_some(), model.contains_key(probe));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn generated_arguments_satisfy_their_schema((schema, _, args) in arb_tool()) {
        let tools = registry("gen", schema);
        prop_assert_eq!(tools.validate_arguments("gen", &args), Ok(()));
        let text = serde_json::to_string(&args).unwrap();
        // Floats are written as the shortest text that reads back as the same `f64`, and read
        // back exactly.
        prop_assert_eq!(tools.validate_arguments_text("gen", &text), Ok(args));
    }

    #[test]
    fn removing_a_required_argument_gives_the_missing_message(
        (schema, required, args) in arb_tool(),
        pick in any::<prop::sample::Index>(),
    ) {
        prop_assume!(!required.is_empty());
        let name = pick.get(&required).clone();
        let mut args = args;
        if let Value::Object(m) = &mut args {
            m.remove(&name);
        }
        let err = registry("gen", schema).validate_arguments("gen", &args).unwrap_err();
        prop_assert_eq!(
            err.message,
            format!("Validation failed for tool 'gen': Missing required argument '{name}'.")
        );
        prop_assert_eq!(err.problems.len(), 1);
        prop_assert_eq!(err.problems[0].kind, ProblemKind::MissingArgument);
    }

    #[test]
    fn any_schema_and_value_never_panic(schema in arb_json(), value in arb_json()) {
        if let Ok(compiled) = CompiledSchema::compile(&schema) {
            let _ = compiled.validate(&value);
        }
    }
}

/// Arbitrary JSON built from schema-ish vocabulary, so that it often compiles.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..20).prop_map(Value::from),
        (-5.0f64..5.0).prop_map(Value::from),
        prop::sample::select(vec![
            "string",
            "integer",
            "number",
            "object",
            "array",
            "boolean",
            "null",
            "#",
            "#/$defs/a",
            "#/properties/a",
            "a",
        ])
        .prop_map(|s| Value::String(s.into())),
    ];
    let keys = prop::sample::select(vec![
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "$ref",
        "$defs",
        "a",
        "pattern",
    ]);
    leaf.prop_recursive(4, 48, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(keys.clone(), inner, 0..5).prop_map(|m| {
                Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

/// A schema's `properties` are found whatever order the text gives them: a JSON object keeps its
/// members in the text's order (serde_json's `preserve_order`), and the compiler keeps the
/// properties it searches in name order itself. Problems come in the arguments' order.
#[test]
fn properties_in_any_text_order_are_each_checked() {
    let keys: Vec<String> =
        serde_json::from_str::<serde_json::Map<String, Value>>(r#"{"b":1,"a":2,"c":3}"#)
            .unwrap()
            .keys()
            .cloned()
            .collect();
    assert_eq!(keys, ["b", "a", "c"], "an object keeps its text's order");
    let parameters: Value = serde_json::from_str(
        r#"{"type": "object", "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer"},
            "mid": {"type": "boolean"}, "beta": {"type": "array"}}}"#,
    )
    .unwrap();
    let tools = registry("t", parameters);
    let e = tools
        .validate_arguments("t", &json!({"zeta": 1, "alpha": "x", "mid": 2, "beta": {}}))
        .unwrap_err();
    let paths: Vec<String> = e.problems.iter().map(|p| format!("{:?}", p.path)).collect();
    assert_eq!(
        paths,
        [
            r#"[Key("zeta")]"#,
            r#"[Key("alpha")]"#,
            r#"[Key("mid")]"#,
            r#"[Key("beta")]"#
        ]
    );
    tools
        .validate_arguments(
            "t",
            &json!({"zeta": "z", "alpha": 1, "mid": true, "beta": []}),
        )
        .unwrap();
}

/// `unevaluatedProperties` and `unevaluatedItems` (Core 11.2, 11.3): what `allOf`, `$ref`, the
/// matching `anyOf` branch, `if`/`then` and `contains` evaluated is allowed; the rest is checked
/// against the keyword's schema, and `false` names the arguments the schemas declare.
#[test]
fn unevaluated_properties_and_items() {
    let tools = registry(
        "t",
        json!({
            "$defs": {"named": {"properties": {"name": {"type": "string"}}}},
            "type": "object",
            "allOf": [{"$ref": "#/$defs/named"}],
            "anyOf": [
                {"properties": {"kind": {"const": "file"}, "path": {"type": "string"}}, "required": ["kind"]},
                {"properties": {"kind": {"const": "url"}, "href": {"type": "string"}}, "required": ["kind"]},
            ],
            "if": {"properties": {"kind": {"const": "file"}}},
            "then": {"properties": {"mode": {"enum": ["r", "w"]}}},
            "properties": {
                "tags": {
                    "prefixItems": [{"type": "string"}],
                    "contains": {"type": "integer"},
                    "unevaluatedItems": {"type": "boolean"},
                },
            },
            "unevaluatedProperties": false,
        }),
    );
    tools
        .validate_arguments(
            "t",
            &json!({"name": "a", "kind": "file", "path": "/x", "mode": "r", "tags": ["t", 1, true, 2]}),
        )
        .unwrap();
    tools
        .validate_arguments("t", &json!({"name": "a", "kind": "url", "href": "h"}))
        .unwrap();
    // `path` is the other branch's, and `mode` is `then`'s (`if` did not match): both unevaluated,
    // and the message names what the schemas that applied declare. An item after the prefix that
    // `contains` did not match must be a boolean.
    let err = tools
        .validate_arguments(
            "t",
            &json!({"kind": "url", "href": "h", "path": "/x", "mode": "r", "tags": ["t", 1, "u"]}),
        )
        .unwrap_err();
    let found: Vec<(ProblemKind, &str, &str)> = err
        .problems
        .iter()
        .map(|p| (p.kind, p.schema_pointer.as_str(), p.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (
                ProblemKind::UnknownArgument,
                "/unevaluatedProperties",
                "Unknown argument 'path'; expected one of: href, kind, name, tags."
            ),
            (
                ProblemKind::UnknownArgument,
                "/unevaluatedProperties",
                "Unknown argument 'mode'; expected one of: href, kind, name, tags."
            ),
            (
                ProblemKind::WrongType,
                "/properties/tags/unevaluatedItems/type",
                "Argument 'tags[2]' must be a boolean, got string \"u\"."
            ),
        ]
    );
    // A schema of its own for what is left, and nothing is warned about.
    let schema = CompiledSchema::compile(&json!({
        "properties": {"a": true},
        "unevaluatedProperties": {"type": "integer"},
    }))
    .unwrap();
    assert!(schema.warnings().is_empty());
    assert!(schema.validate(&json!({"a": "x", "b": 1})).is_empty());
    assert_eq!(
        schema.validate(&json!({"b": "x"}))[0].kind,
        ProblemKind::WrongType
    );
}

/// A schema that applies itself in place through `then` (a loop `$ref` cycles do not catch at
/// compile time, since `if` may not match) with `unevaluatedProperties`: the search for what was
/// evaluated stops at its depth, and the validation at its step budget.
#[test]
fn unevaluated_properties_in_a_schema_that_applies_itself() {
    let schema = CompiledSchema::compile(&json!({
        "if": true,
        "then": {"$ref": "#"},
        "unevaluatedProperties": false,
    }))
    .unwrap();
    let problems = schema.validate(&json!({"a": 1}));
    assert_eq!(
        problems.last().map(|p| p.kind),
        Some(ProblemKind::TooComplex)
    );
}

/// `chain` schemas that each have `unevaluatedProperties` and apply the next in an `anyOf`, the
/// last applying the first to the member `a`.
fn unevaluated_chain(chain: usize) -> CompiledSchema {
    let mut defs = serde_json::Map::new();
    for i in 0..chain {
        let next = format!("#/$defs/b{}", i + 1);
        defs.insert(
            format!("b{i}"),
            json!({"unevaluatedProperties": false, "anyOf": [{"$ref": next}]}),
        );
    }
    defs.insert(
        format!("b{chain}"),
        json!({"properties": {"a": {"$ref": "#/$defs/b0"}}}),
    );
    CompiledSchema::compile(&json!({"$defs": defs, "$ref": "#/$defs/b0"})).unwrap()
}

/// `unevaluatedProperties` checks the `anyOf` branches it looks into by runs of their own, and a
/// branch that has the keyword again nests another: a chain of 40 such schemas applied at each
/// of 126 levels of arguments nested about 5,000 runs deep on the call stack (natively 4–8 MiB;
/// in wasm it overflowed the module's 1 MiB stack, "memory access out of bounds", which killed
/// the module). Validation stops at [`MAX_VALIDATION_NESTING`] instead (on a thread of 8 MiB: a
/// debug build's frames are several times a release build's).
#[test]
fn nested_checks_stop_at_the_nesting_limit() {
    let schema = unevaluated_chain(40);
    let mut value = json!(1);
    for _ in 0..126 {
        value = json!({ "a": value });
    }
    let problems = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || schema.validate(&value))
        .unwrap()
        .join()
        .unwrap();
    let last = problems.last().unwrap();
    assert_eq!(last.kind, ProblemKind::TooComplex);
    assert!(
        last.message
            .contains("nested its checks more than 256 deep"),
        "{}",
        last.message
    );
    // Shallow arguments under a short chain are checked in full: `a` is evaluated.
    let problems = unevaluated_chain(3).validate(&json!({"a": {"a": 1}}));
    assert!(problems.is_empty(), "{problems:?}");
    let problems = unevaluated_chain(3).validate(&json!({"a": {"b": 1}}));
    assert_eq!(
        problems[0].kind,
        ProblemKind::UnknownArgument,
        "{problems:?}"
    );
}
