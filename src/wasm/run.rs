//! Communication schemas and run sessions for JavaScript: `CommunicationSchema` (from JSON or
//! built in, checked, exported as Mermaid) and `RunSession` (a run of a schema that refuses to
//! send what its state does not allow and checks what it receives).

use agentwire_core::json::Fields;
use std::sync::Arc;

use serde::Serialize;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use super::convert::{from_js, to_js, to_ts};
use super::error::{invalid_argument, js_error};
use crate::body::Body;
use crate::run::{builtin, CommunicationSchema, Move, Party, Run, RunError, RunMessage};

#[wasm_bindgen(typescript_custom_section)]
const RUN_TS: &str = r#"
/** The names of the built-in communication schemas (see `CommunicationSchema.builtin`). */
export type BuiltinCommunicationSchemaName = "chat" | "researcher" | "functionCalling" | "interruptibleChat" | "longRunning" | "acpRun" | "agentApiResponse";
/**
 * What one move of a run session did: the state before and after, and the move made (`null` when a
 * lenient session let an invalid server message pass without moving). `warning` is the problem a
 * lenient session tolerated (`move-not-allowed`, `body-mismatch`), else `null`.
 */
export interface RunStep { from: string; to: string; move: Move | null; warning: Error | null }
"#;

/// The names `CommunicationSchema.builtin` knows, in order.
const BUILTINS: [&str; 7] = [
    "chat",
    "researcher",
    "functionCalling",
    "interruptibleChat",
    "longRunning",
    "acpRun",
    "agentApiResponse",
];

/// A checked communication schema: for each state of a run, the moves allowed in it.
#[wasm_bindgen(js_name = CommunicationSchema)]
pub struct JsCommunicationSchema(pub(crate) Arc<CommunicationSchema>);

#[wasm_bindgen(js_class = CommunicationSchema)]
impl JsCommunicationSchema {
    /// Reads and checks a schema: an object from state name to a list of transitions
    /// `{party: "client" | "server", type, schema: [<body schema parts>], nextState}`; a state with
    /// an empty list is terminal and every run starts in `idle`.
    ///
    /// # Errors
    /// A `ProtocolError`: `invalid-communication-schema` (wrong shape; `details.pointer` is a JSON
    /// Pointer to the value), `invalid-body-schema`, `missing-initial-state`, `unknown-next-state`,
    /// `duplicate-transition`. Unreachable states are not errors: see `warnings`.
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(
        #[wasm_bindgen(unchecked_param_type = "CommunicationSchemaJson")] json: JsValue,
    ) -> Result<JsCommunicationSchema, JsValue> {
        let value: serde_json::Value = from_js(&json, "schema")?;
        CommunicationSchema::from_json(&value)
            .map(|s| Self(Arc::new(s)))
            .map_err(|e| js_error(&e))
    }

    /// A built-in schema: the proposal's five example agents (`chat`, `researcher`,
    /// `functionCalling`, `interruptibleChat`, `longRunning`) and the run lifecycles of ACP
    /// (`acpRun`) and of the Agent API (`agentApiResponse`).
    ///
    /// # Errors
    /// `invalid-argument` for another name.
    pub fn builtin(
        #[wasm_bindgen(unchecked_param_type = "BuiltinCommunicationSchemaName")] name: &str,
    ) -> Result<JsCommunicationSchema, JsValue> {
        let schema = match name {
            "chat" => builtin::chat(),
            "researcher" => builtin::researcher(),
            "functionCalling" => builtin::function_calling(),
            "interruptibleChat" => builtin::interruptible_chat(),
            "longRunning" => builtin::long_running(),
            "acpRun" => builtin::acp_run(),
            "agentApiResponse" => builtin::agent_api_response(),
            other => {
                return Err(invalid_argument(
                    "name",
                    &format!(
                        "`{other}` is not a built-in schema ({})",
                        BUILTINS.join(", ")
                    ),
                ))
            }
        };
        Ok(Self(Arc::new(schema)))
    }

    /// The names `builtin` accepts.
    #[wasm_bindgen(js_name = builtinNames, unchecked_return_type = "BuiltinCommunicationSchemaName[]")]
    pub fn builtin_names() -> Vec<String> {
        BUILTINS.iter().map(|s| (*s).to_owned()).collect()
    }

    /// The schema as JSON (what `fromJson` reads).
    #[wasm_bindgen(js_name = toJson, unchecked_return_type = "CommunicationSchemaJson")]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.to_json())
    }

    /// The schema as a Mermaid state diagram (`stateDiagram-v2`): `[*] --> idle`, one arrow per
    /// transition labelled `<party> <type>`, and `<state> --> [*]` for each terminal state.
    #[wasm_bindgen(js_name = toMermaid)]
    pub fn to_mermaid(&self) -> String {
        self.0.to_mermaid()
    }

    /// Problems that do not make the schema unusable, as `ProtocolError`s: `unreachable-state`
    /// (`details.state`) for every state no path from `idle` reaches.
    #[wasm_bindgen(getter, unchecked_return_type = "Error[]")]
    pub fn warnings(&self) -> js_sys::Array {
        self.0.warnings().iter().map(js_error).collect()
    }

    /// The state names, in name order.
    pub fn states(&self) -> Vec<String> {
        self.0.states().map(str::to_owned).collect()
    }

    /// The transitions of `state` as JSON (`null` if there is no such state).
    #[wasm_bindgen(unchecked_return_type = "TransitionJson[] | null")]
    pub fn transitions(&self, state: &str) -> Result<JsValue, JsValue> {
        match self.0.transitions(state) {
            Some(ts) => to_js(ts),
            None => Ok(JsValue::NULL),
        }
    }

    /// Whether `state` is a state with no transitions.
    #[wasm_bindgen(js_name = isTerminal)]
    pub fn is_terminal(&self, state: &str) -> bool {
        self.0.is_terminal(state)
    }
}

/// Options of `new RunSession(schema, options)`.
#[derive(Tsify, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct RunSessionConfig {
    /// The run's id (default `""`).
    #[tsify(optional)]
    pub id: Option<String>,
    /// Inbound check: `true` makes `receive` throw on a server message its state does not allow
    /// (or whose body breaks its schema); `false` (the default) returns the problem as the step's
    /// `warning` and goes on.
    #[tsify(optional)]
    pub strict: Option<bool>,
}

agentwire_core::deserialize_by_fields!(RunSessionConfig, "struct RunSessionConfig");

impl RunSessionConfig {
    /// Reads the fields by name (see `agentwire_core::json::Fields`), as serde's derive did:
    /// each of an `Option` type may be absent or `null`, unknown ones are ignored.
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            id: f.optional("id")?,
            strict: f.optional("strict")?,
        })
    }
}

/// A list of moves.
#[derive(Serialize, Tsify)]
pub struct Moves(pub Vec<Move>);

/// A list of run messages.
#[derive(Serialize, Tsify)]
pub struct RunMessages(pub Vec<RunMessage>);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Step<'a> {
    from: &'a str,
    to: &'a str,
    #[serde(rename = "move")]
    via: Option<Move>,
    warning: Option<()>,
}

/// A run of a communication schema, in step with the other side: it refuses to send what its
/// state does not allow (outbound check) and checks every message it receives (inbound check).
#[wasm_bindgen(js_name = RunSession)]
pub struct JsRunSession {
    run: Run,
    strict: bool,
}

#[wasm_bindgen(js_class = RunSession)]
impl JsRunSession {
    /// A session of `schema` in state `idle`.
    ///
    /// # Errors
    /// `invalid-argument` if `options` has the wrong shape.
    #[wasm_bindgen(constructor)]
    pub fn new(
        schema: &JsCommunicationSchema,
        options: Option<Ts<RunSessionConfig>>,
    ) -> Result<JsRunSession, JsValue> {
        let config: RunSessionConfig = match options {
            Some(o) => super::convert::from_ts(&o, "options")?,
            None => RunSessionConfig::default(),
        };
        Ok(Self {
            run: Run::new(config.id.unwrap_or_default(), Arc::clone(&schema.0)),
            strict: config.strict.unwrap_or(false),
        })
    }

    /// The run's id.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.run.id().to_owned()
    }

    /// The current state.
    #[wasm_bindgen(getter)]
    pub fn state(&self) -> String {
        self.run.state().to_owned()
    }

    /// Whether received messages are checked strictly.
    #[wasm_bindgen(getter)]
    pub fn strict(&self) -> bool {
        self.strict
    }

    /// Whether the run is in a terminal state (it is over).
    #[wasm_bindgen(getter, js_name = isTerminal)]
    pub fn is_terminal(&self) -> bool {
        self.run.is_terminal()
    }

    /// The messages accepted so far, in order (`{party, type, body, fromState, toState}`).
    #[wasm_bindgen(getter)]
    pub fn messages(&self) -> Result<Ts<RunMessages>, JsValue> {
        to_ts(&RunMessages(self.run.messages().to_vec()))
    }

    /// The last message accepted, or `null`.
    #[wasm_bindgen(getter, js_name = lastMessage)]
    pub fn last_message(&self) -> Result<Option<Ts<RunMessage>>, JsValue> {
        self.run.messages().last().map(to_ts).transpose()
    }

    /// The schema (shared with the session, not copied).
    #[wasm_bindgen(getter)]
    pub fn schema(&self) -> JsCommunicationSchema {
        JsCommunicationSchema(Arc::clone(self.run.shared_schema()))
    }

    /// The moves allowed now (of `party` only, when given): what a UI enables.
    ///
    /// # Errors
    /// `invalid-argument` for a party other than `client` or `server`.
    #[wasm_bindgen(js_name = allowedMoves)]
    pub fn allowed_moves(&self, party: Option<String>) -> Result<Ts<Moves>, JsValue> {
        to_ts(&Moves(allowed(&self.run, party_of(party.as_deref())?)))
    }

    /// Whether the client may send a `messageType` message with `body` now.
    #[wasm_bindgen(js_name = canSend)]
    pub fn can_send(&self, message_type: &str, body: Option<Ts<Body>>) -> Result<bool, JsValue> {
        let body = body_of(body)?;
        Ok(self.run.check(Party::Client, message_type, &body).is_ok())
    }

    /// Sends a client message (outbound check): the run moves, or nothing changes and this
    /// throws.
    ///
    /// # Errors
    /// `move-not-allowed` (the state has no such client move; `details`: `state`, `party`,
    /// `type`, `terminal`, `allowed`), `body-mismatch` (`details.violations`), `invalid-argument`
    /// for a body of the wrong shape.
    #[wasm_bindgen(unchecked_return_type = "RunStep")]
    pub fn send(&mut self, message_type: &str, body: Option<Ts<Body>>) -> Result<JsValue, JsValue> {
        let body = body_of(body)?;
        let from = self.run.state().to_owned();
        self.run
            .apply(Party::Client, message_type, &body)
            .map_err(|e| js_error(&e))?;
        step(&self.run, &from, Some((Party::Client, message_type)), None)
    }

    /// Records a server message (inbound check). Strict sessions throw for a message the state
    /// does not allow or whose body breaks its schema, and nothing changes; lenient ones return
    /// the problem as the step's `warning` (and make the move when only the body is wrong).
    ///
    /// # Errors
    /// Strict sessions: `move-not-allowed`, `body-mismatch`. Any session: `invalid-argument`.
    #[wasm_bindgen(unchecked_return_type = "RunStep")]
    pub fn receive(
        &mut self,
        message_type: &str,
        body: Option<Ts<Body>>,
    ) -> Result<JsValue, JsValue> {
        let body = body_of(body)?;
        let from = self.run.state().to_owned();
        if self.strict {
            self.run
                .apply(Party::Server, message_type, &body)
                .map_err(|e| js_error(&e))?;
            return step(&self.run, &from, Some((Party::Server, message_type)), None);
        }
        match self.run.apply_lenient(Party::Server, message_type, &body) {
            Ok(warning) => step(
                &self.run,
                &from,
                Some((Party::Server, message_type)),
                warning.as_ref(),
            ),
            Err(e) => step(&self.run, &from, None, Some(&e)),
        }
    }
}

/// The moves allowed in `run`'s state, of `party` only when given.
pub(crate) fn allowed(run: &Run, party: Option<Party>) -> Vec<Move> {
    run.allowed_moves()
        .iter()
        .filter(|t| party.is_none_or(|p| t.party == p))
        .map(|t| t.as_move())
        .collect()
}

/// `"client"` or `"server"` (`None` for either).
pub(crate) fn party_of(party: Option<&str>) -> Result<Option<Party>, JsValue> {
    match party {
        None => Ok(None),
        Some("client") => Ok(Some(Party::Client)),
        Some("server") => Ok(Some(Party::Server)),
        Some(other) => Err(invalid_argument(
            "party",
            &format!("`{other}` is not client or server"),
        )),
    }
}

fn body_of(body: Option<Ts<Body>>) -> Result<Body, JsValue> {
    match body {
        Some(b) => super::convert::from_ts(&b, "body"),
        None => Ok(Body::default()),
    }
}

fn step(
    run: &Run,
    from: &str,
    made: Option<(Party, &str)>,
    warning: Option<&RunError>,
) -> Result<JsValue, JsValue> {
    let via = made.map(|(party, message_type)| Move {
        party,
        message_type: message_type.to_owned(),
        next_state: run.state().to_owned(),
    });
    let value = to_js(&Step {
        from,
        to: run.state(),
        via,
        warning: None,
    })?;
    if let Some(w) = warning {
        js_sys::Reflect::set(&value, &"warning".into(), &js_error(w))?;
    }
    Ok(value)
}
