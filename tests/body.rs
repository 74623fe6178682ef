//! Message bodies: names, the query API, body schemas (the proposal's four example agents),
//! incremental validation, the payload validator's limits and locations, and the Agent API
//! message as a body on real server bytes.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agentwire::body::{
    validate_body, validate_name, validate_payload, Body, BodySchema, ContentEncoding, Part,
    PartKind, PartStatus, PayloadLimits, PayloadReport, Violation,
};
use agentwire::dialect::agent_api::{AgentStream, Message};
use agentwire::pattern::Pattern;
use agentwire::ErrorCode;
use proptest::prelude::*;
use serde_json::{json, Value};

fn text(ct: &str, content: &str) -> Part {
    Part::inline(PartKind::Text, ct, content)
}

fn file(name: &str, ct: &str, content: &str) -> Part {
    Part::inline(PartKind::File, ct, content).named(name)
}

fn schema(v: Value) -> BodySchema {
    BodySchema::from_json(&v).unwrap()
}

fn codes(violations: &[Violation]) -> Vec<&str> {
    violations.iter().map(|v| v.code.as_str()).collect()
}

/// Validates `body` whole and incrementally, checks both agree, and returns the violations.
fn check(schema: &BodySchema, body: &Body) -> Vec<Violation> {
    let whole = schema.validate(body).violations;
    let mut watch = schema.watch();
    let mut streamed: Vec<Violation> = body
        .parts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| watch.part_started(i, p.name.as_deref(), &p.content_type))
        .collect();
    streamed.extend(watch.finish());
    assert_eq!(whole, streamed, "whole and incremental validation differ");
    whole
}

// ---------------------------------------------------------------------------------------------
// Names

#[test]
fn names_follow_the_rules() {
    for ok in [
        "/a",
        "/sources/1",
        "/src/lib.rs",
        "/function_output/2",
        "/.env",
    ] {
        assert!(validate_name(ok).is_ok(), "{ok}");
    }
    let cases = [
        ("", "empty"),
        ("sources/1", "not-absolute"),
        ("/a b", "invalid-character"),
        ("/tab\there", "control-character"),
        ("/a//b", "empty-segment"),
        ("/a/", "trailing-slash"),
        ("/", "trailing-slash"),
        ("/a/../../etc/passwd", "dot-segment"),
        ("/./a", "dot-segment"),
    ];
    for (name, reason) in cases {
        let e = validate_name(name).unwrap_err();
        assert_eq!(e.code(), "invalid-part-name");
        assert_eq!(e.details()["reason"], reason, "{name:?}");
        assert!(e.to_string().contains("invalid part name"), "{e}");
    }
    let e = validate_name("/a b").unwrap_err();
    assert_eq!(e.details()["character"], " ");
    assert_eq!(e.details()["position"], 2);
    let long = format!("/{}", "x".repeat(2000));
    assert_eq!(
        validate_name(&long).unwrap_err().details()["reason"],
        "too-long"
    );
}

#[test]
fn body_model_violations() {
    let body = Body::new(vec![
        text("text/plain", "hi"),
        file("/a", "text/plain", "1"),
        file("/a", "text/plain", "2"),
        file("/b/../c", "text/plain", "3"),
        Part {
            content_url: Some("https://x".into()),
            ..file("/d", "text/plain", "4")
        },
        Part {
            content: None,
            ..file("/e", "text/plain", "")
        },
        Part {
            content_encoding: ContentEncoding::Base64,
            ..file("/f", "application/octet-stream", "not base64!")
        },
        file("/g", "plain", "5"),
    ]);
    let v = validate_body(&body);
    let got: Vec<(&str, Option<usize>)> =
        v.iter().map(|v| (v.code.as_str(), v.part_index)).collect();
    assert_eq!(
        got,
        [
            ("duplicate-part-name", Some(2)),
            ("invalid-part-name", Some(3)),
            ("content-and-url", Some(4)),
            ("no-content", Some(5)),
            ("invalid-base64", Some(6)),
            ("invalid-content-type", Some(7)),
        ]
    );
    assert_eq!(v[0].message, "/a: part 2 has the same name as part 1");
    assert_eq!(v[0].name.as_deref(), Some("/a"));
    // A streaming part may have no content yet.
    let streaming = Body::new(vec![Part {
        content: None,
        status: PartStatus::Streaming,
        ..text("text/plain", "")
    }]);
    assert!(validate_body(&streaming).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Query

#[test]
fn query_like_a_filesystem() {
    let body: Body = serde_json::from_value(json!({"parts": [
        {"type": "text", "content": "Summary"},
        {"type": "file", "name": "/src/main.py", "content_type": "text/x-python", "content": "print(1)"},
        {"type": "file", "name": "/src/pkg/util.py", "contentType": "text/x-python", "content": "eA==", "contentEncoding": "base64"},
        {"type": "file", "name": "/README.md", "contentType": "text/markdown", "content": "# App"},
        {"type": "data", "name": "/config.json", "contentType": "application/json", "content": "{\"debug\": true}"},
        {"type": "image", "name": "/assets/logo", "contentType": "image/png", "content_url": "https://x/logo.png"},
    ]}))
    .unwrap();
    let names =
        |ps: Vec<&Part>| -> Vec<String> { ps.iter().filter_map(|p| p.name.clone()).collect() };
    assert_eq!(names(body.glob("/src/*").unwrap()), ["/src/main.py"]);
    assert_eq!(
        names(body.glob("/src/**").unwrap()),
        ["/src/main.py", "/src/pkg/util.py"]
    );
    assert_eq!(
        names(body.glob("/**/*.{py,md}").unwrap()),
        ["/src/main.py", "/src/pkg/util.py", "/README.md"]
    );
    assert_eq!(body.list(&Pattern::new("/**").unwrap()).len(), 5);
    assert_eq!(body.main().len(), 1);
    assert_eq!(body.main()[0].read_text().unwrap(), "Summary");
    assert_eq!(
        body.get("/src/pkg/util.py").unwrap().read_text().unwrap(),
        "x"
    );
    assert_eq!(
        body.get("/config.json").unwrap().read_json().unwrap(),
        json!({"debug": true})
    );
    let logo = body.get("/assets/logo").unwrap();
    assert_eq!(logo.read_url().unwrap(), "https://x/logo.png");
    assert_eq!(logo.read_bytes().unwrap_err().code(), "no-inline-content");
    assert_eq!(
        body.get("/README.md")
            .unwrap()
            .read_json()
            .unwrap_err()
            .code(),
        "invalid-json"
    );
    assert_eq!(body.glob("/src/[").unwrap_err().code(), "unclosed-class");
    assert!(body.get("/src").is_none());
}

// ---------------------------------------------------------------------------------------------
// Schemas: the proposal's example agents

#[test]
fn chat_agent() {
    let s = schema(json!({"parts": [{"contentType": "text/plain", "required": true}]}));
    assert!(check(&s, &Body::new(vec![text("text/plain", "Hello!")])).is_empty());
    assert!(check(
        &s,
        &Body::new(vec![text("text/plain; charset=utf-8", "Hi")])
    )
    .is_empty());

    let v = check(&s, &Body::default());
    assert_eq!(codes(&v), ["missing-required-part"]);
    assert_eq!(v[0].schema_part, Some(0));
    assert_eq!(v[0].message, "missing required unnamed part (text/plain)");

    let v = check(
        &s,
        &Body::new(vec![
            text("text/plain", "Look:"),
            Part::url(PartKind::Image, "image/png", "https://x/cat.png"),
            text("text/plain", "meta").named("/notes"),
        ]),
    );
    assert_eq!(codes(&v), ["content-type-mismatch", "unexpected-part"]);
    assert_eq!(
        v[0].message,
        "part 1 (unnamed): content type image/png does not match text/plain"
    );
    assert_eq!((v[0].part_index, v[0].schema_part), (Some(1), Some(0)));
    assert_eq!(
        v[1].message,
        "/notes: no part of the schema has a matching name"
    );
    assert_eq!(v[1].name.as_deref(), Some("/notes"));
}

#[test]
fn multi_modal_chat_agent() {
    let s = schema(json!({"parts": [
        {"contentType": "text/plain", "required": true},
        {"contentType": "image/*"},
    ]}));
    let ok = Body::new(vec![
        text("text/plain", "Two cats:"),
        Part::url(PartKind::Image, "image/png", "https://x/1.png"),
        Part::url(PartKind::Image, "image/jpeg", "https://x/2.jpg"),
    ]);
    assert!(check(&s, &ok).is_empty());
    assert!(check(&s, &Body::new(vec![text("text/plain", "No pictures")])).is_empty());

    let v = check(
        &s,
        &Body::new(vec![
            Part::url(PartKind::Image, "image/webp", "https://x/3.webp"),
            Part::url(PartKind::Audio, "audio/wav", "https://x/a.wav"),
        ]),
    );
    assert_eq!(
        codes(&v),
        ["content-type-mismatch", "missing-required-part"]
    );
    assert_eq!(
        v[0].message,
        "part 1 (unnamed): content type audio/wav does not match text/plain or image/*"
    );
}

#[test]
fn software_writing_agent() {
    let s = schema(json!({"parts": [
        {"contentType": "text/{plain,markdown}"},
        {
            "name": "/**",
            "contentType": "{text/x-python,text/x-rust,application/javascript,text/{plain,markdown}}",
            "required": true
        },
    ]}));
    let ok = Body::new(vec![
        text("text/markdown", "I wrote the app."),
        file("/app/main.py", "text/x-python", "print('hi')"),
        file("/app/core/lib.rs", "text/x-rust", "fn main() {}"),
        file("/web/index.js", "application/javascript", "console.log(1)"),
        file("/README.md", "text/markdown", "# App"),
        file("/NOTES", "text/plain", "todo"),
    ]);
    assert!(check(&s, &ok).is_empty());

    let bad = Body::new(vec![
        text("text/html", "<p>done</p>"),
        file("/bin/app", "application/octet-stream", "AAAA"),
    ]);
    let v = check(&s, &bad);
    assert_eq!(
        codes(&v),
        [
            "content-type-mismatch",
            "content-type-mismatch",
            "missing-required-part"
        ]
    );
    assert!(v[1].message.starts_with(
        "/bin/app: content type application/octet-stream does not match {text/x-python,"
    ));
    assert_eq!(v[2].name.as_deref(), Some("/**"));
    assert_eq!(v[2].message, "missing required part /** ({text/x-python,text/x-rust,application/javascript,text/{plain,markdown}})");
}

#[test]
fn researcher_agent() {
    let s = schema(json!({"parts": [
        {"contentType": "text/markdown", "required": true},
        {"name": "/sources/*", "contentType": "text/x-uri", "required": false},
    ]}));
    let write_up = text("text/markdown", "# Findings");
    let ok = Body::new(vec![
        write_up.clone(),
        text("text/x-uri", "https://arxiv.org/abs/1").named("/sources/1"),
        text("text/x-uri", "https://arxiv.org/abs/2").named("/sources/2"),
    ]);
    assert!(check(&s, &ok).is_empty());
    assert!(check(&s, &Body::new(vec![write_up.clone()])).is_empty());

    let bad = Body::new(vec![
        write_up,
        text("text/x-uri", "https://a").named("/sources/1"),
        text("text/html", "<a>").named("/sources/2"),
        text("text/x-uri", "https://b").named("/sources/3/extra"),
        text("text/plain", "n").named("/notes/1"),
    ]);
    let v = check(&s, &bad);
    assert_eq!(
        codes(&v),
        [
            "content-type-mismatch",
            "unexpected-part",
            "unexpected-part"
        ]
    );
    assert_eq!(
        v[0].message,
        "/sources/2: content type text/html does not match text/x-uri"
    );
    assert_eq!(
        serde_json::to_value(&v[0]).unwrap(),
        json!({
            "code": "content-type-mismatch",
            "message": "/sources/2: content type text/html does not match text/x-uri",
            "partIndex": 2,
            "name": "/sources/2",
            "contentType": "text/html",
            "schemaPart": 1,
        })
    );
    assert_eq!(v[1].name.as_deref(), Some("/sources/3/extra"));
    assert_eq!(v[2].name.as_deref(), Some("/notes/1"));
}

#[test]
fn schema_json_forms() {
    // A bare array (as runs carry it), snake_case, defaults, and a round trip.
    let a = schema(json!([{"name": "/x", "content_type": "TEXT/*", "required": true}, {}]));
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        json!({"parts": [
            {"name": "/x", "contentType": "TEXT/*", "required": true},
            {"contentType": "*/*", "required": false},
        ]})
    );
    let b: BodySchema = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
    assert_eq!(a, b);
    assert!(check(&a, &Body::new(vec![text("text/plain", "x").named("/x")])).is_empty());
    let e = serde_json::from_value::<BodySchema>(json!({"parts": [{"name": "/{a"}]})).unwrap_err();
    assert!(e.to_string().contains("/parts/0/name"), "{e}");
    let e = BodySchema::from_json(&json!({"schema": []})).unwrap_err();
    assert_eq!(e.code(), "invalid-schema");
}

#[test]
fn watch_reports_at_once_and_resets() {
    let s = schema(json!({"parts": [
        {"contentType": "text/markdown", "required": true},
        {"name": "/sources/*", "contentType": "text/x-uri", "required": true},
    ]}));
    let mut w = s.watch();
    assert!(w
        .part_started(0, Some("/sources/1"), "text/x-uri")
        .is_none());
    let v = w.part_started(1, Some("/other"), "text/x-uri").unwrap();
    assert_eq!(
        (v.code.as_str(), v.part_index),
        ("unexpected-part", Some(1))
    );
    assert_eq!(codes(&w.finish()), ["missing-required-part"]);
    assert!(w
        .part_started(2, None, "text/markdown; charset=utf-8")
        .is_none());
    assert!(w.finish().is_empty());
    w.reset();
    assert_eq!(w.finish().len(), 2);
    assert_eq!(w.schema(), &s);
}

// ---------------------------------------------------------------------------------------------
// Payload validator

fn report(input: &[u8]) -> PayloadReport {
    validate_payload(input, None, &PayloadLimits::default())
}

/// A code and three numbers: (line, column, offset) or (part index, line, column).
type Located<'a> = (&'a str, Option<usize>, Option<usize>, Option<usize>);

/// The first error's code, line, column and offset.
fn first(r: &PayloadReport) -> Located<'_> {
    let e = &r.errors[0];
    (e.code.as_str(), e.line, e.column, e.offset)
}

#[test]
fn payload_ok_with_schema() {
    let s = schema(json!({"parts": [
        {"contentType": "text/markdown", "required": true},
        {"name": "/sources/*", "contentType": "text/x-uri"},
    ]}));
    let input = br##"{"role": "agent", "parts": [
        {"type": "text", "contentType": "text/markdown", "content": "# Findings"},
        {"type": "text", "name": "/sources/1", "content_type": "text/x-uri", "content": "https://a"}
    ]}"##;
    let r = validate_payload(input, Some(&s), &PayloadLimits::default());
    assert!(r.ok, "{:?}", r.errors);
    assert!(r.errors.is_empty());
}

#[test]
fn payload_limits() {
    let limits = PayloadLimits {
        max_bytes: 200,
        max_parts: 2,
        max_part_bytes: 80,
        max_depth: 6,
    };
    let big = vec![b' '; 201];
    let r = validate_payload(&big, None, &limits);
    assert_eq!(first(&r), ("payload-too-large", None, None, None));
    assert_eq!(r.errors.len(), 1);
    assert!(!r.ok);

    let three =
        b"{\"parts\": [\n{\"content\": \"a\"},\n{\"content\": \"b\"},\n{\"content\": \"c\"}]}";
    let r = validate_payload(three, None, &limits);
    assert_eq!(first(&r), ("too-many-parts", Some(4), Some(1), Some(48)));

    let large = format!(
        "{{\"parts\": [{{\"content\": \"a\"}},\n  {{\"name\": \"/big\", \"content\": \"{}\"}}]}}",
        "x".repeat(100)
    );
    let r = validate_payload(large.as_bytes(), None, &limits);
    assert_eq!(first(&r), ("part-too-large", Some(2), Some(3), Some(31)));
    assert_eq!(r.errors[0].part_index, Some(1));
    assert_eq!(r.errors[0].name.as_deref(), Some("/big"));
    assert_eq!(r.errors.len(), 1);

    // Depth: the message is 1, parts 2, a part 3, metadata 4…
    let deep = br#"{"parts": [{"content": "x", "metadata": {"a": [[[1]]]}}]}"#;
    let r = validate_payload(deep, None, &limits);
    assert_eq!(first(&r), ("nesting-too-deep", Some(1), Some(49), Some(48)));
    let shallow = br#"{"parts": [{"content": "x", "metadata": {"a": [[1]]}}]}"#;
    assert!(validate_payload(shallow, None, &limits).ok);
    // Brackets inside strings (and escaped quotes) do not count.
    let strings = br#"{"parts": [{"content": "[[[[[[[[\"[[[[{{{{"}]}"#;
    assert!(validate_payload(strings, None, &limits).ok);

    let d = PayloadLimits::default();
    assert_eq!(
        (d.max_bytes, d.max_parts, d.max_part_bytes, d.max_depth),
        (10 * 1024 * 1024, 1000, 5 * 1024 * 1024, 64)
    );
}

#[test]
fn payload_deep_nesting_is_rejected_before_parsing() {
    let mut input = b"{\"parts\": [".to_vec();
    input.extend(std::iter::repeat_n(b'[', 1_000_000));
    let r = report(&input);
    assert_eq!(first(&r), ("nesting-too-deep", Some(1), Some(74), Some(73)));
}

#[test]
fn payload_locations() {
    // Columns count characters: "é" and "€" are one each.
    let input = "{\"parts\": [\n  {\"content\": \"héllo €\" x}\n]}";
    let r = report(input.as_bytes());
    let x = input.find(" x").unwrap() + 1;
    assert_eq!(first(&r), ("invalid-json", Some(2), Some(25), Some(x)));
    assert!(
        r.errors[0].message.contains("line 2, column 25"),
        "{}",
        r.errors[0].message
    );

    let r = report(b"{\"parts\": [\"\xff\"]}");
    assert_eq!(first(&r), ("invalid-utf8", Some(1), Some(13), Some(12)));

    let r = report(b"{\"parts\": [");
    assert_eq!(r.errors[0].code.as_str(), "invalid-json");

    for shape in [
        &b"[]"[..],
        b"{}",
        b"\"x\"",
        b"{\"parts\": {}}",
        b"{\"parts\": null}",
    ] {
        assert_eq!(report(shape).errors[0].code.as_str(), "invalid-message");
    }

    // Part errors carry the part's index, name and where it starts.
    let input = br#"{"parts": [
  {"content": "ok"},
  {"name": "/a", "content": 5},
  {"name": "/b/../c", "content": "x", "contentUrl": "https://x"},
  {"name": "/d", "contentType": "text", "content": "y"}
]}"#;
    let r = report(input);
    let got: Vec<Located> = r
        .errors
        .iter()
        .map(|e| (e.code.as_str(), e.part_index, e.line, e.column))
        .collect();
    assert_eq!(
        got,
        [
            ("invalid-part", Some(1), Some(3), Some(3)),
            ("invalid-part-name", Some(2), Some(4), Some(3)),
            ("content-and-url", Some(2), Some(4), Some(3)),
            ("invalid-content-type", Some(3), Some(5), Some(3)),
        ]
    );
    assert_eq!(r.errors[0].name.as_deref(), Some("/a"));
    assert_eq!(
        serde_json::to_value(&r.errors[3]).unwrap(),
        json!({
            "code": "invalid-content-type",
            "message": "/d: content type \"text\" is not a MIME type (type/subtype)",
            "line": 5, "column": 3, "offset": input.iter().rposition(|&b| b == b'{').unwrap(),
            "partIndex": 3, "name": "/d", "contentType": "text", "schemaPart": null,
        })
    );
}

/// A part is an object: an array of its fields (which serde_json's own reader of a tree takes
/// for a struct) is refused, and the parts after it are still checked.
#[test]
fn payload_part_given_as_an_array_is_refused() {
    let r = report(br#"{"parts": [["/a", null, "x"], {"name": "/b", "content": 5}]}"#);
    let got: Vec<(&str, Option<usize>)> = r
        .errors
        .iter()
        .map(|e| (e.code.as_str(), e.part_index))
        .collect();
    assert_eq!(got, [("invalid-part", Some(0)), ("invalid-part", Some(1))]);
    assert_eq!(
        r.errors[0].message,
        "part 0: not a valid part: invalid type: sequence, expected struct Part"
    );
}

#[test]
fn payload_schema_errors_follow_model_errors() {
    let s = schema(json!([{"contentType": "text/plain", "required": true}]));
    let input = br#"{"parts": [{"name": "/x", "content": "a"}, {"name": "/x", "content": "b"}]}"#;
    let r = validate_payload(input, Some(&s), &PayloadLimits::default());
    let got: Vec<&str> = r.errors.iter().map(|e| e.code.as_str()).collect();
    assert_eq!(
        got,
        [
            "duplicate-part-name",
            "unexpected-part",
            "unexpected-part",
            "missing-required-part"
        ]
    );
    assert_eq!(r.errors[3].part_index, None);
    assert_eq!(r.errors[3].line, None);
}

#[test]
fn payload_truncated_at_every_byte_never_passes_or_panics() {
    let input = br#"{"parts": [{"type": "text", "name": "/a", "content": "h\u00e9 \"x\"", "metadata": {"k": [1, {"z": null}]}}]}"#;
    assert!(report(input).ok);
    for cut in 0..input.len() {
        let r = report(&input[..cut]);
        assert!(!r.ok, "accepted a payload cut at {cut}");
        assert!(
            r.errors.iter().all(|e| e.line.is_some()),
            "cut at {cut}: {:?}",
            r.errors
        );
    }
}

proptest! {
    #[test]
    fn payload_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let r = report(&bytes);
        prop_assert_eq!(r.ok, r.errors.is_empty());
    }

    #[test]
    fn payload_never_panics_on_json_like_text(s in r#"[\[\]{}",:\\ a-z0-9/éx\n]{0,120}"#) {
        let input = format!("{{\"parts\": [{s}]}}");
        let r = report(input.as_bytes());
        for e in &r.errors {
            if let (Some(off), Some(line)) = (e.offset, e.line) {
                prop_assert!(off <= input.len());
                prop_assert!(line >= 1);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The Agent API message as a body, on real server bytes

fn assembled(fixture: &str) -> Vec<Message> {
    let mut s = AgentStream::new(Default::default());
    s.feed(&common::fixture(fixture));
    s.finish();
    s.response().output.clone()
}

#[test]
fn agent_api_raw_fixture_as_bodies() {
    let output = assembled("agentscope-runtime/process-raw.sse");
    let bodies: Vec<Body> = output.iter().map(Message::body).collect();
    assert_eq!(bodies.len(), 4);
    for b in &bodies {
        assert!(validate_body(b).is_empty(), "{:?}", validate_body(b));
        assert!(b.parts.iter().all(|p| p.status == PartStatus::Complete));
    }

    let chat = schema(json!({"parts": [{"contentType": "text/plain", "required": true}]}));
    let t = &bodies[0];
    assert!(chat.validate(t).is_ok());
    assert_eq!(t.main()[0].read_text().unwrap(), "Echo: hello world");
    assert_eq!(t.parts[0].kind, PartKind::Text);

    let call = bodies[1].get("/function").unwrap();
    assert_eq!(call.kind, PartKind::ToolCall);
    assert_eq!(call.content_type, "application/json");
    assert_eq!(call.read_json().unwrap(), json!({"city": "Paris"}));
    let meta = call.metadata.as_ref().unwrap();
    assert_eq!(
        (&meta["toolCallId"], &meta["toolName"]),
        (&json!("call_1"), &json!("get_weather"))
    );

    let result = bodies[2].get("/function_output").unwrap();
    assert_eq!(result.kind, PartKind::ToolResult);
    assert_eq!(result.read_json().unwrap(), json!({"temp": 21}));
    assert_eq!(result.metadata.as_ref().unwrap()["toolCallId"], "call_1");

    let mixed = &bodies[3];
    assert_eq!(mixed.parts[0].kind, PartKind::Data);
    assert_eq!(
        mixed.parts[0].read_json().unwrap(),
        json!({"table": [[1, 2], [3, 4]], "kind": "demo"})
    );
    assert_eq!(mixed.parts[1].kind, PartKind::Image);
    assert_eq!(mixed.parts[1].content_type, "image/png");
    assert_eq!(
        mixed.parts[1].read_url().unwrap(),
        "https://example.com/cat.png"
    );
    let multi_modal =
        schema(json!([{"contentType": "application/json"}, {"contentType": "image/*"}]));
    assert!(multi_modal.validate(mixed).is_ok());
}

#[test]
fn agent_api_framework_fixture_as_bodies() {
    let output = assembled("agentscope-runtime/process-agentscope.sse");
    let bodies: Vec<Body> = output.iter().map(Message::body).collect();
    let kinds: Vec<Vec<(String, Option<String>)>> = bodies
        .iter()
        .map(|b| {
            b.parts
                .iter()
                .map(|p| (p.kind.to_string(), p.name.clone()))
                .collect()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            vec![("text".to_owned(), None)],
            vec![("tool_call".to_owned(), Some("/function".to_owned()))],
            vec![(
                "tool_result".to_owned(),
                Some("/function_output".to_owned())
            )],
            vec![("reasoning".to_owned(), None)],
            vec![("text".to_owned(), None)],
            vec![("image".to_owned(), None)],
        ]
    );
    // Contents without status in completed messages are complete; the image message never
    // completed (the assembler marks it incomplete), so neither did its part.
    for b in &bodies[..5] {
        assert!(validate_body(b).is_empty());
        assert!(b.parts.iter().all(|p| p.status == PartStatus::Complete));
    }
    let image = &bodies[5].parts[0];
    assert_eq!(image.status, PartStatus::Incomplete);
    assert_eq!(image.content_type, "image/png");
    assert!(validate_body(&bodies[5]).is_empty());
    let out = bodies[2].get("/function_output").unwrap();
    assert_eq!(out.content_type, "application/json");
    assert_eq!(out.read_json().unwrap()[0]["text"], "sunny, 21C");
}

#[test]
fn agent_api_body_while_streaming() {
    let sse = common::fixture("agentscope-runtime/process-raw.sse");
    // Stop after the second text delta (`"Echo: "`, `"hello"`).
    let text = String::from_utf8(sse).unwrap();
    let cut = text.find("\"sequence_number\":5,").unwrap();
    let mut s = AgentStream::new(Default::default());
    s.feed(&text.as_bytes()[..cut]);
    let body = s.response().output[0].body();
    assert_eq!(body.parts[0].status, PartStatus::Streaming);
    assert_eq!(body.parts[0].read_text().unwrap(), "Echo: hello");
    // A streaming message is checked incrementally.
    let chat = schema(json!({"parts": [{"contentType": "text/plain", "required": true}]}));
    let mut w = chat.watch();
    assert!(w
        .part_started(
            0,
            body.parts[0].name.as_deref(),
            &body.parts[0].content_type
        )
        .is_none());
    assert!(w.finish().is_empty());
}

#[test]
fn agent_api_named_parts_via_extension_fields() {
    let m: Message = serde_json::from_value(json!({
        "type": "message", "role": "assistant", "status": "completed",
        "content": [
            {"type": "text", "text": "# Findings", "content_type": "text/markdown"},
            {"type": "text", "name": "/sources/1", "content_type": "text/x-uri", "text": "https://a"},
            {"type": "text", "name": "/sources/2", "content_type": "text/html", "text": "<a>"},
        ]
    }))
    .unwrap();
    let researcher = schema(json!({"parts": [
        {"contentType": "text/markdown", "required": true},
        {"name": "/sources/*", "contentType": "text/x-uri"},
    ]}));
    let v = researcher.validate(&m.body()).violations;
    assert_eq!(codes(&v), ["content-type-mismatch"]);
    assert_eq!(
        v[0].message,
        "/sources/2: content type text/html does not match text/x-uri"
    );
}
