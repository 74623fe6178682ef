//! A run: a conversation that follows a communication schema.

use std::sync::Arc;

use serde::Serialize;

use super::schema::{CommunicationSchema, Move, Party, Transition};
use super::RunError;
use crate::body::{Body, BodySchema, Violation};

/// One message of a run, as the run accepted it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct RunMessage {
    /// Who sent it.
    pub party: Party,
    /// Its type.
    #[serde(rename = "type")]
    pub message_type: String,
    /// Its body.
    pub body: Body,
    /// The state it was sent in.
    pub from_state: String,
    /// The state it moved the run to.
    pub to_state: String,
}

/// A run of an agent: its id, its current state in a [`CommunicationSchema`], and the messages
/// exchanged so far. Every run starts in `idle`; [`apply`](Self::apply) accepts a message only if
/// the current state allows it, then moves to the transition's next state.
///
/// JSON (for JavaScript): `{"id", "state", "messages": [RunMessage…]}`.
///
/// ```
/// use agentwire::body::{Body, Part, PartKind};
/// use agentwire::run::{builtin, Party, Run};
/// use agentwire::ErrorCode;
///
/// let mut run = Run::new("run-1", builtin::chat());
/// let hello = Body::new(vec![Part::inline(PartKind::Text, "text/plain", "Hello!")]);
/// run.apply(Party::Client, "message", &hello)?;
/// assert_eq!(run.state(), "running");
///
/// // The client may not speak again before the agent answers.
/// let refused = run.apply(Party::Client, "message", &hello).unwrap_err();
/// assert_eq!(refused.code(), "move-not-allowed");
/// assert_eq!(refused.details()["allowed"][0]["party"], "server");
/// # Ok::<(), agentwire::run::RunError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Run {
    id: String,
    state: String,
    messages: Vec<RunMessage>,
    #[serde(skip)]
    #[cfg_attr(target_arch = "wasm32", tsify(skip))]
    schema: Arc<CommunicationSchema>,
}

impl Run {
    /// A run `id` of `schema`, in state `idle`. The schema is shared: pass an
    /// `Arc<CommunicationSchema>` to start many runs of one schema without copying it.
    pub fn new(id: impl Into<String>, schema: impl Into<Arc<CommunicationSchema>>) -> Self {
        Self {
            id: id.into(),
            state: CommunicationSchema::INITIAL_STATE.to_owned(),
            messages: Vec::new(),
            schema: schema.into(),
        }
    }

    /// The run's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The current state.
    pub fn state(&self) -> &str {
        &self.state
    }

    /// The messages accepted so far, in order.
    pub fn messages(&self) -> &[RunMessage] {
        &self.messages
    }

    /// The communication schema.
    pub fn schema(&self) -> &CommunicationSchema {
        &self.schema
    }

    /// The communication schema as the run shares it: clone the `Arc` to hand the schema on
    /// (to another run, or to JavaScript) without copying it.
    pub fn shared_schema(&self) -> &Arc<CommunicationSchema> {
        &self.schema
    }

    /// Whether the run is in a terminal state (one with no transitions).
    pub fn is_terminal(&self) -> bool {
        self.schema.is_terminal(&self.state)
    }

    /// What may be sent now: the transitions of the current state (empty in a terminal state).
    pub fn allowed_moves(&self) -> &[Transition] {
        self.schema.transitions(&self.state).unwrap_or(&[])
    }

    /// What `party` may send now.
    pub fn allowed_moves_of(&self, party: Party) -> impl Iterator<Item = &Transition> {
        self.allowed_moves()
            .iter()
            .filter(move |t| t.party == party)
    }

    /// Checks a message without applying it: the transition it would take.
    ///
    /// # Errors
    /// As [`apply`](Self::apply).
    pub fn check(
        &self,
        party: Party,
        message_type: &str,
        body: &Body,
    ) -> Result<&Transition, RunError> {
        let Some(t) = self.schema.transition(&self.state, party, message_type) else {
            return Err(RunError::MoveNotAllowed {
                state: self.state.clone(),
                party,
                message_type: message_type.to_owned(),
                terminal: self.is_terminal(),
                allowed: self.moves(),
            });
        };
        let violations = check_body(&t.schema, body);
        if !violations.is_empty() {
            return Err(RunError::BodyMismatch {
                state: self.state.clone(),
                party,
                message_type: message_type.to_owned(),
                violations,
                allowed: self.moves(),
            });
        }
        Ok(t)
    }

    /// Accepts a message: `party` sends a message of `message_type` with `body`. The current state
    /// must have a transition for this party and type, and the body must match its body schema;
    /// the run then moves to the transition's next state and records the message. A refused
    /// message changes nothing.
    ///
    /// # Errors
    /// [`RunError::MoveNotAllowed`] when the state has no such transition (naming the state and
    /// listing the moves allowed there; `terminal` when the run is over);
    /// [`RunError::BodyMismatch`] when the body breaks the transition's schema (with the
    /// violations).
    pub fn apply(
        &mut self,
        party: Party,
        message_type: &str,
        body: &Body,
    ) -> Result<&str, RunError> {
        let next = self.check(party, message_type, body)?.next_state.clone();
        let from = std::mem::replace(&mut self.state, next.clone());
        self.messages.push(RunMessage {
            party,
            message_type: message_type.to_owned(),
            body: body.clone(),
            from_state: from,
            to_state: next,
        });
        Ok(&self.state)
    }

    /// Accepts a message as [`apply`](Self::apply) does, except that a body breaking the
    /// transition's body schema is accepted too: the run moves and records the message, and the
    /// mismatch is returned as a warning. This is the inbound check of a lenient session: a
    /// message the state allows is followed even when its body is odd, so the run stays in step
    /// with the other side.
    ///
    /// Returns `Ok(None)` for a clean move, `Ok(Some(`[`RunError::BodyMismatch`]`))` for a move made
    /// despite the body.
    ///
    /// # Errors
    /// [`RunError::MoveNotAllowed`] when the state has no such transition (nothing changes).
    pub fn apply_lenient(
        &mut self,
        party: Party,
        message_type: &str,
        body: &Body,
    ) -> Result<Option<RunError>, RunError> {
        let (next, warning) = match self.check(party, message_type, body) {
            Ok(t) => (t.next_state.clone(), None),
            Err(e @ RunError::BodyMismatch { .. }) => {
                match self.schema.transition(&self.state, party, message_type) {
                    Some(t) => (t.next_state.clone(), Some(e)),
                    None => return Err(e),
                }
            }
            Err(e) => return Err(e),
        };
        let from = std::mem::replace(&mut self.state, next.clone());
        self.messages.push(RunMessage {
            party,
            message_type: message_type.to_owned(),
            body: body.clone(),
            from_state: from,
            to_state: next,
        });
        Ok(warning)
    }

    fn moves(&self) -> Vec<Move> {
        self.allowed_moves()
            .iter()
            .map(Transition::as_move)
            .collect()
    }
}

/// The one place a message's body is checked against a transition's body schema.
fn check_body(schema: &BodySchema, body: &Body) -> Vec<Violation> {
    schema.validate(body).violations
}
