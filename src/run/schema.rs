//! Communication schemas: the states of a run, and who may send what in each.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::RunError;
use crate::body::BodySchema;
use crate::wire::json_map;

/// Who sends a message: the client (the user's side) or the server (the agent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Party {
    /// `client`
    Client,
    /// `server`
    Server,
}

impl Party {
    /// `"client"` or `"server"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Party::Client => "client",
            Party::Server => "server",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "client" => Some(Party::Client),
            "server" => Some(Party::Server),
            _ => None,
        }
    }
}

impl std::fmt::Display for Party {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One allowed move: in its state, `party` may send a message of `message_type` whose body matches
/// `schema`, and the run then moves to `next_state`.
///
/// JSON (the proposal's shape): `{"party": "client", "type": "message", "schema": [<body schema
/// parts>], "nextState": "running"}`; `schema` is a bare array of body schema parts (see
/// [`BodySchema`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    /// Who sends the message.
    pub party: Party,
    /// The message's type (`message`, `function_call`, `run.created`…).
    pub message_type: String,
    /// What the message's body must look like.
    pub schema: BodySchema,
    /// The state the run moves to.
    pub next_state: String,
}

impl Transition {
    /// A transition.
    pub fn new(
        party: Party,
        message_type: impl Into<String>,
        schema: BodySchema,
        next_state: impl Into<String>,
    ) -> Self {
        Self {
            party,
            message_type: message_type.into(),
            schema,
            next_state: next_state.into(),
        }
    }

    /// The transition as JSON: `{"party", "type", "schema": [...], "nextState"}`.
    pub fn to_json(&self) -> Value {
        let parts = match self.schema.to_json() {
            Value::Object(mut o) => o.shift_remove("parts").unwrap_or_else(|| json!([])),
            _ => json!([]),
        };
        // Inserted one by one: `json!` would compile serde_json's `Value` serializer for its
        // values (`to_value`), which nothing else in the wasm module needs.
        let mut o = serde_json::Map::new();
        o.insert("party".into(), self.party.as_str().into());
        o.insert("type".into(), self.message_type.as_str().into());
        o.insert("schema".into(), parts);
        o.insert("nextState".into(), self.next_state.as_str().into());
        Value::Object(o)
    }

    /// The move this transition allows, without its body schema.
    pub fn as_move(&self) -> Move {
        Move {
            party: self.party,
            message_type: self.message_type.clone(),
            next_state: self.next_state.clone(),
        }
    }
}

impl Serialize for Transition {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

/// A move a party may make, as errors list them: `{"party", "type", "nextState"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Move {
    /// Who may send.
    pub party: Party,
    /// The message type.
    #[serde(rename = "type")]
    pub message_type: String,
    /// Where the run goes.
    pub next_state: String,
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} → {}",
            self.party, self.message_type, self.next_state
        )
    }
}

/// A communication schema: for each state of a run, the moves allowed in it (the proposal's runs
/// and communication schemas).
///
/// JSON: an object from state name to a list of [`Transition`]s; a state with an empty list is
/// terminal. Every run starts in [`INITIAL_STATE`](Self::INITIAL_STATE) (`idle`).
///
/// ```
/// use agentwire::run::{CommunicationSchema, Party};
/// use serde_json::json;
///
/// let schema = CommunicationSchema::from_json(&json!({
///     "idle": [{"party": "client", "type": "message",
///               "schema": [{"contentType": "text/plain", "required": true}],
///               "nextState": "running"}],
///     "running": [{"party": "server", "type": "message",
///                  "schema": [{"contentType": "text/*", "required": true}],
///                  "nextState": "done"}],
///     "done": []
/// }))?;
/// assert!(schema.is_terminal("done"));
/// assert_eq!(schema.transitions("idle").unwrap()[0].party, Party::Client);
/// assert!(schema.warnings().is_empty());
/// assert!(schema.to_mermaid().starts_with("stateDiagram-v2\n    [*] --> idle\n"));
/// # Ok::<(), agentwire::run::RunError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CommunicationSchema {
    states: States,
    warnings: Vec<RunError>,
}

/// A schema's states: each name with its transitions, in name order. A list with a
/// `BTreeMap<String, usize>` index of names into it: that map type is compiled for other maps
/// already, where a `BTreeMap<String, Vec<Transition>>` compiled the tree's node code for this one
/// field (about 3 KB of the wasm module).
#[derive(Debug, Clone, Default)]
struct States {
    index: BTreeMap<String, usize>,
    list: Vec<Vec<Transition>>,
}

impl States {
    /// Sets the transitions of `name`, replacing those it had.
    fn insert(&mut self, name: String, transitions: Vec<Transition>) {
        match self.index.get(&name) {
            Some(&i) => {
                if let Some(slot) = self.list.get_mut(i) {
                    *slot = transitions;
                }
            }
            None => {
                self.index.insert(name, self.list.len());
                self.list.push(transitions);
            }
        }
    }

    fn get(&self, name: &str) -> Option<&Vec<Transition>> {
        self.index.get(name).and_then(|&i| self.list.get(i))
    }

    fn contains_key(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// The names, in name order.
    fn keys(&self) -> impl Iterator<Item = &String> {
        self.index.keys()
    }

    /// The states with their transitions, in name order.
    fn iter(&self) -> impl Iterator<Item = (&String, &Vec<Transition>)> {
        self.index
            .iter()
            .filter_map(|(name, &i)| self.list.get(i).map(|t| (name, t)))
    }
}

/// Equal when the same states have the same transitions (whatever order they were added in).
impl PartialEq for States {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl CommunicationSchema {
    /// The state every run starts in: `idle`.
    pub const INITIAL_STATE: &'static str = "idle";

    /// The TypeScript declaration of the schema's JSON (what [`to_json`](Self::to_json) writes and
    /// [`from_json`](Self::from_json) reads), for bindings that pass it as a plain object.
    pub const TS_TYPE: &'static str = concat!(
        "export interface SchemaPartJson { name?: string; contentType?: string; required?: boolean }\n",
        "export interface TransitionJson { party: Party; type: string; schema: SchemaPartJson[]; nextState: string }\n",
        "export type CommunicationSchemaJson = Record<string, TransitionJson[]>;",
    );

    /// The smallest valid schema: `{"idle": []}` (a run that can never move).
    pub(crate) fn idle_only() -> Self {
        // Inserted, not `BTreeMap::from([…])`, which compiled a sort of its array's element type.
        let mut states = States::default();
        states.insert(Self::INITIAL_STATE.to_owned(), Vec::new());
        Self {
            states,
            warnings: Vec::new(),
        }
    }

    /// A schema of these states, checked: there must be an `idle` state, every `next_state` must
    /// be a state, and no state may have two transitions for the same party and message type.
    /// States no path from `idle` reaches are [`warnings`](Self::warnings).
    ///
    /// # Errors
    /// [`RunError::MissingInitialState`], [`RunError::UnknownNextState`],
    /// [`RunError::DuplicateTransition`] (the first problem found, in state-name order).
    pub fn new(
        states: impl IntoIterator<Item = (String, Vec<Transition>)>,
    ) -> Result<Self, RunError> {
        // A repeated state keeps its last entry.
        let mut map = States::default();
        for (name, transitions) in states {
            map.insert(name, transitions);
        }
        let states = map;
        if !states.contains_key(Self::INITIAL_STATE) {
            return Err(RunError::MissingInitialState {
                states: states.keys().cloned().collect(),
            });
        }
        for (state, transitions) in states.iter() {
            for (index, t) in transitions.iter().enumerate() {
                if !states.contains_key(&t.next_state) {
                    return Err(RunError::UnknownNextState {
                        state: state.clone(),
                        index,
                        next_state: t.next_state.clone(),
                    });
                }
                if let Some(first) = transitions[..index]
                    .iter()
                    .position(|o| o.party == t.party && o.message_type == t.message_type)
                {
                    return Err(RunError::DuplicateTransition {
                        state: state.clone(),
                        party: t.party,
                        message_type: t.message_type.clone(),
                        first,
                        index,
                    });
                }
            }
        }
        let mut schema = Self {
            states,
            warnings: Vec::new(),
        };
        schema.warnings = schema
            .unreachable_states()
            .into_iter()
            .map(|state| RunError::UnreachableState {
                state: state.to_owned(),
            })
            .collect();
        Ok(schema)
    }

    /// Reads and checks a schema from JSON (see the type's docs for the shape).
    ///
    /// # Errors
    /// [`RunError::InvalidSchema`] with a JSON Pointer (RFC 6901) to the value of the wrong shape
    /// (not an object, a state that is not a list, a transition without `party`, `type`, `schema`
    /// or `nextState`, a `party` other than `client` or `server`); [`RunError::InvalidBodySchema`]
    /// when a transition's `schema` is not a valid body schema; then the errors of
    /// [`new`](Self::new).
    pub fn from_json(value: &Value) -> Result<Self, RunError> {
        let Value::Object(map) = value else {
            return Err(shape(
                "",
                "a communication schema is an object from state name to a list of transitions",
            ));
        };
        let mut states = Vec::with_capacity(map.len());
        for (state, list) in map {
            let at = format!("/{}", escape_pointer(state));
            let Value::Array(items) = list else {
                return Err(shape(&at, "a state's value must be a list of transitions"));
            };
            let mut transitions = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                transitions.push(transition_from_json(item, &format!("{at}/{i}"))?);
            }
            states.push((state.clone(), transitions));
        }
        Self::new(states)
    }

    /// The schema as JSON (the shape [`from_json`](Self::from_json) reads).
    pub fn to_json(&self) -> Value {
        Value::Object(json_map(self.states.iter().map(|(s, ts)| {
            (
                s.clone(),
                Value::Array(ts.iter().map(Transition::to_json).collect()),
            )
        })))
    }

    /// The state names, in name order.
    pub fn states(&self) -> impl Iterator<Item = &str> {
        self.states.keys().map(String::as_str)
    }

    /// The transitions of `state` (`None` if there is no such state).
    pub fn transitions(&self, state: &str) -> Option<&[Transition]> {
        self.states.get(state).map(Vec::as_slice)
    }

    /// Whether `state` is a state with no transitions (a terminal state).
    pub fn is_terminal(&self, state: &str) -> bool {
        self.states.get(state).is_some_and(Vec::is_empty)
    }

    /// The transition of `state` for `party` sending `message_type`, if any.
    pub fn transition(&self, state: &str, party: Party, message_type: &str) -> Option<&Transition> {
        self.states
            .get(state)?
            .iter()
            .find(|t| t.party == party && t.message_type == message_type)
    }

    /// Problems that do not make the schema unusable: [`RunError::UnreachableState`] for every
    /// state no path from `idle` reaches.
    pub fn warnings(&self) -> &[RunError] {
        &self.warnings
    }

    /// The states no path from `idle` reaches, in name order.
    pub fn unreachable_states(&self) -> Vec<&str> {
        let mut seen: crate::set::Set<String> = crate::set::Set::new();
        let mut queue = VecDeque::from([Self::INITIAL_STATE]);
        seen.insert(Self::INITIAL_STATE.to_owned());
        while let Some(s) = queue.pop_front() {
            for t in self.states.get(s).map(Vec::as_slice).unwrap_or(&[]) {
                if seen.insert(t.next_state.clone()) {
                    queue.push_back(t.next_state.as_str());
                }
            }
        }
        self.states
            .keys()
            .map(String::as_str)
            .filter(|s| !seen.contains(*s))
            .collect()
    }

    /// The schema as a Mermaid state diagram (`stateDiagram-v2`): `[*] --> idle`, one arrow per
    /// transition labelled `<party> <type>`, and `<terminal> --> [*]` for each terminal state.
    /// States whose names are not plain identifiers (`in-progress`) are declared with an alias
    /// (`state "in-progress" as in_progress`); `#`, `;` and `"` in labels are written as Mermaid
    /// entity codes.
    ///
    /// ```
    /// let chat = agentwire::run::builtin::chat();
    /// assert_eq!(chat.to_mermaid(), "stateDiagram-v2\n    [*] --> idle\n    idle --> running: client message\n    running --> idle: server message\n");
    /// ```
    pub fn to_mermaid(&self) -> String {
        // Mermaid identifiers: a state's name when it is a plain identifier, else the name with
        // other characters replaced by `_` (made unique), declared with the name as description.
        let plain = |s: &str| {
            !s.is_empty()
                && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !s.starts_with(|c: char| c.is_ascii_digit())
                && s != "state"
                && s != "end"
        };
        let mut ids: BTreeMap<&str, String> = BTreeMap::new();
        // Extended, not collected (see `wire::json_map`): the keys come sorted.
        let mut taken = crate::set::Set::new();
        for s in self.states.keys().filter(|s| plain(s)) {
            taken.insert(s.clone());
        }
        for (i, s) in self.states.keys().enumerate() {
            let id = if plain(s) {
                s.clone()
            } else {
                let mut base: String = s
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '_' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect();
                if !plain(&base) {
                    base.insert_str(0, "s_");
                }
                // `<base>_<n>` from the state's index on, until one is free: a state may be
                // named so itself (`a-b` beside `a_b` and `a_b_0`).
                let mut id = base.clone();
                let mut n = i;
                while taken.contains(&id) {
                    id = format!("{base}_{n}");
                    n += 1;
                }
                taken.insert(id.clone());
                id
            };
            ids.insert(s.as_str(), id);
        }
        let id = |s: &str| ids.get(s).cloned().unwrap_or_else(|| "unknown".to_owned());
        let mut out = String::from("stateDiagram-v2\n");
        for (name, alias) in &ids {
            if name != alias {
                let _ = writeln!(out, "    state \"{}\" as {alias}", label(name));
            }
        }
        let _ = writeln!(out, "    [*] --> {}", id(Self::INITIAL_STATE));
        // `idle` first, then the others in name order.
        let order = std::iter::once(Self::INITIAL_STATE).chain(
            self.states
                .keys()
                .map(String::as_str)
                .filter(|s| *s != Self::INITIAL_STATE),
        );
        for state in order {
            let transitions = self.states.get(state).map(Vec::as_slice).unwrap_or(&[]);
            for t in transitions {
                let _ = writeln!(
                    out,
                    "    {} --> {}: {} {}",
                    id(state),
                    id(&t.next_state),
                    t.party,
                    label(&t.message_type)
                );
            }
            if transitions.is_empty() {
                let _ = writeln!(out, "    {} --> [*]", id(state));
            }
        }
        out
    }
}

impl Serialize for CommunicationSchema {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for CommunicationSchema {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        CommunicationSchema::from_json(&v).map_err(serde::de::Error::custom)
    }
}

/// Text safe in a Mermaid label or state description: line breaks become spaces; `#`, `;` and `"`
/// become entity codes.
fn label(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '#' => out.push_str("#35;"),
            ';' => out.push_str("#59;"),
            '"' => out.push_str("#quot;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A JSON Pointer reference token (RFC 6901 §3: `~` → `~0`, `/` → `~1`).
fn escape_pointer(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn shape(pointer: &str, reason: &str) -> RunError {
    RunError::InvalidSchema {
        pointer: pointer.to_owned(),
        reason: reason.to_owned(),
    }
}

fn transition_from_json(item: &Value, at: &str) -> Result<Transition, RunError> {
    let Value::Object(o) = item else {
        return Err(shape(at, "a transition must be an object"));
    };
    let string = |key: &str| -> Result<&str, RunError> {
        match o.get(key) {
            Some(Value::String(s)) => Ok(s),
            None | Some(Value::Null) => {
                Err(shape(&format!("{at}/{key}"), &format!("missing `{key}`")))
            }
            Some(_) => Err(shape(
                &format!("{at}/{key}"),
                &format!("`{key}` must be a string"),
            )),
        }
    };
    let party = string("party")?;
    let party = Party::parse(party).ok_or_else(|| {
        shape(
            &format!("{at}/party"),
            "`party` must be \"client\" or \"server\"",
        )
    })?;
    let message_type = string("type")?;
    if message_type.is_empty() {
        return Err(shape(&format!("{at}/type"), "`type` must not be empty"));
    }
    let next_state = string("nextState")?;
    let schema = match o.get("schema") {
        None | Some(Value::Null) => {
            return Err(shape(&format!("{at}/schema"), "missing `schema`"));
        }
        Some(v) => BodySchema::from_json(v).map_err(|error| RunError::InvalidBodySchema {
            pointer: format!("{at}/schema"),
            error,
        })?,
    };
    Ok(Transition {
        party,
        message_type: message_type.to_owned(),
        schema,
        next_state: next_state.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_tokens_and_labels_are_escaped() {
        assert_eq!(escape_pointer("a/b~c"), "a~1b~0c");
        assert_eq!(escape_pointer("~1"), "~01");
        assert_eq!(label("a#b;c\"d\ne"), "a#35;b#59;c#quot;d e");
    }

    #[test]
    fn the_fallback_schema_is_valid() {
        let s = CommunicationSchema::idle_only();
        assert!(s.is_terminal("idle"));
        assert_eq!(CommunicationSchema::from_json(&s.to_json()).unwrap(), s);
    }

    /// The states are kept by name: the order they are given in does not matter, a repeated
    /// state keeps its last transitions, and equality compares names and transitions.
    #[test]
    fn states_are_kept_by_name_whatever_their_order() {
        let to =
            |next: &str| Transition::new(Party::Client, "message", BodySchema::default(), next);
        let states = |order: &[(&str, Vec<Transition>)]| {
            CommunicationSchema::new(order.iter().map(|(s, t)| ((*s).to_owned(), t.clone())))
                .unwrap()
        };
        let a = states(&[
            ("idle", vec![to("b")]),
            ("b", vec![to("idle")]),
            ("c", vec![]),
        ]);
        let b = states(&[
            ("c", vec![]),
            ("b", vec![to("c")]),
            ("idle", vec![to("b")]),
            ("b", vec![to("idle")]),
        ]);
        assert_eq!(a, b);
        assert_eq!(a.states().collect::<Vec<_>>(), ["b", "c", "idle"]);
        assert_eq!(b.transitions("b").unwrap()[0].next_state, "idle");
        assert_eq!(a.unreachable_states(), ["c"]);
        let c = states(&[("idle", vec![to("b")]), ("b", vec![to("c")]), ("c", vec![])]);
        assert_ne!(a, c);
        assert_ne!(
            a,
            states(&[("idle", vec![to("b")]), ("b", vec![to("idle")])])
        );
    }
}
