//! One tool call's arguments while they stream: the JSON text arrives in deltas, the best-effort
//! value and what each delta changed are kept up to date.

use serde_json::Value;

use super::MAX_ARGUMENTS_DEPTH;
use crate::json::{PartialChange, PartialJson, PartialJsonError, PartialJsonLimits};

/// A tool call's arguments as they stream (Agent API `function_call` data deltas whose `arguments`
/// strings concatenate; later dialects' `inputTextDelta` / `TOOL_CALL_ARGS`).
///
/// A thin layer over [`PartialJson`]: [`push`](Self::push) reads each delta once (linear in the
/// argument length), and [`sync`](Self::sync) catches up with a whole text when a dialect sends
/// the arguments whole (a content that arrives complete, or the completed content repeating every
/// delta): only the part not pushed yet is read.
///
/// ```
/// use agentwire::tool::StreamedArguments;
/// use agentwire::json::{PartialChange, PathSegment};
/// use serde_json::json;
///
/// let mut args = StreamedArguments::new(Default::default());
/// args.push(r#"{"path": "/hel"#)?;
/// assert_eq!(args.value(), Some(&json!({"path": "/hel"})));
/// let changes = args.push("lo.txt\"}")?;
/// assert_eq!(
///     changes,
///     &[PartialChange::Append { path: vec![PathSegment::Key("path".into())], value: "lo.txt".into() }]
/// );
/// // The completed content repeats the whole text: nothing new, no changes.
/// assert!(args.sync(r#"{"path": "/hello.txt"}"#)?.is_empty());
/// assert!(args.is_complete());
/// # Ok::<(), agentwire::json::PartialJsonError>(())
/// ```
#[derive(Debug, Clone)]
pub struct StreamedArguments {
    parser: PartialJson,
    /// The text pushed so far.
    text: String,
    /// The changes of the last `sync` that started over (a root `set` first).
    restart: Vec<PartialChange>,
    /// Whether the last call was a restart (its changes are in `restart`).
    restarted: bool,
}

impl StreamedArguments {
    /// The limits of tool arguments: [`MAX_ARGUMENTS_DEPTH`] levels (127, what validation reads,
    /// where a [`PartialJson`] defaults to 64) and [`PartialJsonLimits`]' 4 MiB.
    pub fn default_limits() -> PartialJsonLimits {
        PartialJsonLimits {
            max_depth: MAX_ARGUMENTS_DEPTH,
            ..PartialJsonLimits::default()
        }
    }

    /// Empty arguments, parsed with `limits` ([`default_limits`](Self::default_limits) for
    /// [`default`](Self::default)).
    pub fn new(limits: PartialJsonLimits) -> Self {
        Self {
            parser: PartialJson::new(limits),
            text: String::new(),
            restart: Vec::new(),
            restarted: false,
        }
    }

    /// Reads the next delta of the arguments text; returns what it changed in
    /// [`value`](Self::value) (see [`PartialJson::changes`]).
    ///
    /// # Errors
    ///
    /// The [`PartialJsonError`] of the first byte that is not JSON (or a limit); the value keeps
    /// what came before it, and every later push returns the same error.
    pub fn push(&mut self, delta: &str) -> Result<&[PartialChange], PartialJsonError> {
        self.restarted = false;
        let was_ok = self.parser.error().is_none();
        let result = self.parser.push(delta);
        // The text read so far, up to and including the delta that failed (a push refused for its
        // size read nothing).
        if was_ok && !matches!(result, Err(PartialJsonError::TooLarge { .. })) {
            self.text.push_str(delta);
        }
        result.map(|()| self.parser.changes())
    }

    /// Catches up with the whole arguments text so far: when `text` extends what was pushed, reads
    /// only the rest (nothing when it is the same text). When it does not (a dialect replaced the
    /// arguments), starts over: the changes then begin with a `set` of the root to `null`, followed
    /// by the changes of reading `text` from the start.
    ///
    /// # Errors
    ///
    /// As [`push`](Self::push). A restart forgets an earlier error.
    pub fn sync(&mut self, text: &str) -> Result<&[PartialChange], PartialJsonError> {
        if let Some(rest) = text.strip_prefix(self.text.as_str()) {
            return match self.parser.error() {
                // A push of nothing reads nothing and clears the last changes.
                None => self.push(rest),
                Some(e) => Err(e.clone()),
            };
        }
        self.parser.reset();
        self.text.clear();
        let result = self.push(text).map(|_| ());
        self.restart.clear();
        self.restart.push(PartialChange::Set {
            path: Vec::new(),
            value: Value::Null,
        });
        self.restart.extend_from_slice(self.parser.changes());
        self.restarted = true;
        result.map(|()| self.restart.as_slice())
    }

    /// What the last [`push`](Self::push) or [`sync`](Self::sync) changed.
    pub fn changes(&self) -> &[PartialChange] {
        if self.restarted {
            &self.restart
        } else {
            self.parser.changes()
        }
    }

    /// The best-effort value of the arguments so far (`None` before anything shows).
    pub fn value(&self) -> Option<&Value> {
        self.parser.value()
    }

    /// The arguments text read so far (up to the delta that failed, if one did).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the text so far is a complete JSON value.
    pub fn is_complete(&self) -> bool {
        self.parser.is_complete()
    }

    /// The error that stopped parsing, if any (the text is then not JSON; validating the call
    /// reports it to the model as a `VALIDATION` error).
    pub fn error(&self) -> Option<&PartialJsonError> {
        self.parser.error()
    }
}

impl Default for StreamedArguments {
    /// Empty arguments with [`default_limits`](Self::default_limits).
    fn default() -> Self {
        Self::new(Self::default_limits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::PathSegment;
    use serde_json::json;

    fn key(k: &str) -> PathSegment {
        PathSegment::Key(k.into())
    }

    #[test]
    fn sync_reads_only_the_new_suffix() {
        let mut a = StreamedArguments::default();
        a.push(r#"{"city": "Par"#).unwrap();
        let changes = a.sync(r#"{"city": "Paris"}"#).unwrap().to_vec();
        assert_eq!(
            changes,
            [PartialChange::Append {
                path: vec![key("city")],
                value: "is".into()
            }]
        );
        assert!(a.is_complete());
        assert!(a.sync(r#"{"city": "Paris"}"#).unwrap().is_empty());
        assert!(a.changes().is_empty());
        assert_eq!(a.text(), r#"{"city": "Paris"}"#);
    }

    #[test]
    fn sync_with_other_text_starts_over_with_a_root_reset() {
        let mut a = StreamedArguments::default();
        a.push(r#"{"city": "Paris"}"#).unwrap();
        let changes = a.sync(r#"{"town": 1}"#).unwrap().to_vec();
        assert_eq!(
            changes,
            [
                PartialChange::Set {
                    path: vec![],
                    value: Value::Null
                },
                PartialChange::Set {
                    path: vec![],
                    value: json!({})
                },
                PartialChange::Set {
                    path: vec![key("town")],
                    value: json!(1)
                },
            ]
        );
        // Applying the changes to a copy that followed the first text gives the new value.
        let mut copy = Some(json!({"city": "Paris"}));
        for c in &changes {
            assert!(c.apply(&mut copy));
        }
        assert_eq!(copy.as_ref(), a.value());
        assert_eq!(a.changes(), changes.as_slice());
    }

    /// Arguments as deep as validation reads them stream; one level more fails both.
    #[test]
    fn arguments_stream_as_deep_as_they_validate() {
        let nested = |depth: usize| {
            format!(
                "{}{}{}",
                "{\"a\": [".repeat(depth / 2),
                if depth % 2 == 1 { "{}" } else { "1" },
                "]}".repeat(depth / 2)
            )
        };
        let mut registry = super::super::ToolRegistry::new();
        registry
            .register(super::super::ToolDefinition {
                name: "deep".into(),
                description: String::new(),
                parameters: json!({"type": "object"}),
            })
            .unwrap();
        for depth in [64, 65, 100, MAX_ARGUMENTS_DEPTH] {
            let text = nested(depth);
            assert!(
                registry.validate_arguments_text("deep", &text).is_ok(),
                "{depth}"
            );
            let mut a = StreamedArguments::default();
            for c in text.split_inclusive(|_| true) {
                a.push(c).unwrap_or_else(|e| panic!("{depth}: {e}"));
            }
            assert!(a.is_complete(), "{depth}");
        }
        let text = nested(MAX_ARGUMENTS_DEPTH + 1);
        assert!(registry.validate_arguments_text("deep", &text).is_err());
        let mut a = StreamedArguments::default();
        assert!(matches!(
            a.push(&text),
            Err(PartialJsonError::TooDeep {
                limit: MAX_ARGUMENTS_DEPTH,
                ..
            })
        ));
        assert_eq!(MAX_ARGUMENTS_DEPTH, 127);
    }

    #[test]
    fn errors_stay_and_a_restart_forgets_them() {
        let mut a = StreamedArguments::default();
        a.push(r#"{"a" 1"#).unwrap_err();
        assert!(a.push("}").is_err());
        assert!(a.error().is_some());
        assert_eq!(a.text(), r#"{"a" 1"#);
        // The same text, extended: still the same error.
        assert!(a.sync(r#"{"a" 1}"#).is_err());
        assert!(a.sync(r#"{"a": 1}"#).is_ok());
        assert_eq!(a.value(), Some(&json!({"a": 1})));
        assert!(a.error().is_none());
    }
}
