//! Runs and communication schemas: who may send what, in which state.
//!
//! Source: the runs-and-communication-schemas proposal. A [`CommunicationSchema`] is an object from
//! state name to the list of [`Transition`]s allowed in that state, each
//! `{"party": "client" | "server", "type": "<message type>", "schema": [<body schema parts>],
//! "nextState": "<state>"}`; a state with an empty list is terminal, and every run starts in
//! `idle`. A [`Run`] follows one: [`Run::apply`] accepts a message only if the current state has a
//! transition for its party and type and its body matches the transition's body schema
//! ([`BodySchema`](crate::body::BodySchema)), then moves to the transition's next state.
//! [`builtin`] has the proposal's five example agents and the ACP and Agent API run lifecycles.
//!
//! ```
//! use agentwire::body::{Body, Part, PartKind};
//! use agentwire::run::{builtin, Party, Run, RunError};
//! use agentwire::ErrorCode;
//!
//! let mut run = Run::new("run-7", builtin::researcher());
//! let question = Body::new(vec![Part::inline(PartKind::Text, "text/plain", "Is Pluto a planet?")]);
//! run.apply(Party::Client, "message", &question)?;
//!
//! // The answer must have text; its sources must be URIs.
//! let bad = Body::new(vec![
//!     Part::inline(PartKind::Text, "text/markdown", "No: a dwarf planet."),
//!     Part::inline(PartKind::Text, "text/html", "<a href=…>").named("/sources/1"),
//! ]);
//! let err = run.apply(Party::Server, "message", &bad).unwrap_err();
//! assert_eq!(err.code(), "body-mismatch");
//! assert_eq!(err.details()["violations"][0]["code"], "content-type-mismatch");
//! assert_eq!(run.state(), "running"); // a refused message changes nothing
//!
//! let answer = Body::new(vec![
//!     Part::inline(PartKind::Text, "text/markdown", "No: a dwarf planet."),
//!     Part::inline(PartKind::Text, "text/x-uri", "https://www.iau.org/").named("/sources/1"),
//! ]);
//! run.apply(Party::Server, "message", &answer)?;
//! assert_eq!(run.state(), "done");
//! assert!(run.is_terminal());
//! assert!(run.allowed_moves().is_empty());
//! # Ok::<(), RunError>(())
//! ```

pub mod builtin;
mod schema;
mod state;

pub use schema::{CommunicationSchema, Move, Party, Transition};
pub use state::{Run, RunMessage};

use crate::body::{BodyError, Violation};
use crate::error::ErrorCode;
use agentwire_core::json::Quoted;

/// Errors of communication schemas and runs. Every one keeps the input it is about.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// A communication schema's JSON has the wrong shape.
    #[error("invalid communication schema at {}: {reason}", Quoted(pointer))]
    InvalidSchema {
        /// JSON Pointer (RFC 6901) to the offending value, e.g. `/running/0/party`.
        pointer: String,
        /// What is wrong.
        reason: String,
    },
    /// A transition's `schema` is not a valid body schema.
    #[error("invalid body schema at {}: {error}", Quoted(pointer))]
    InvalidBodySchema {
        /// JSON Pointer to the transition's `schema`, e.g. `/idle/0/schema`.
        pointer: String,
        /// The body schema's error (its own pointer is relative to `schema`).
        #[source]
        error: BodyError,
    },
    /// The schema has no `idle` state, where every run starts.
    #[error("the communication schema has no `idle` state (states: {})", states.join(", "))]
    MissingInitialState {
        /// The states it has, in name order.
        states: Vec<String>,
    },
    /// A transition's `nextState` is not a state of the schema.
    #[error("transition {index} of state `{state}` goes to `{next_state}`, which is not a state")]
    UnknownNextState {
        /// The state.
        state: String,
        /// The transition's position in the state's list (0-based).
        index: usize,
        /// The unknown state.
        next_state: String,
    },
    /// Two transitions of one state have the same party and message type.
    #[error(
        "state `{state}` has two transitions for {party} `{message_type}` ({first} and {index})"
    )]
    DuplicateTransition {
        /// The state.
        state: String,
        /// The party.
        party: Party,
        /// The message type.
        message_type: String,
        /// The first transition's position (0-based).
        first: usize,
        /// The duplicate's position (0-based).
        index: usize,
    },
    /// A warning: no path from `idle` reaches this state.
    #[error("state `{state}` cannot be reached from `idle`")]
    UnreachableState {
        /// The state.
        state: String,
    },
    /// The current state has no transition for this party and message type.
    #[error("in state `{state}`, {party} may not send `{message_type}`{}", allowed_text(*terminal, allowed))]
    MoveNotAllowed {
        /// The run's state.
        state: String,
        /// Who tried to send.
        party: Party,
        /// The message type.
        message_type: String,
        /// Whether the state is terminal (the run is over).
        terminal: bool,
        /// The moves allowed in the state.
        allowed: Vec<Move>,
    },
    /// The message's body does not match the transition's body schema.
    #[error("in state `{state}`, the body of {party} `{message_type}` does not match its schema: {}", violations.iter().map(|v| v.message.as_str()).collect::<Vec<_>>().join("; "))]
    BodyMismatch {
        /// The run's state.
        state: String,
        /// Who sent.
        party: Party,
        /// The message type.
        message_type: String,
        /// What is wrong with the body.
        violations: Vec<Violation>,
        /// The moves allowed in the state.
        allowed: Vec<Move>,
    },
}

fn allowed_text(terminal: bool, allowed: &[Move]) -> String {
    if terminal {
        " (the state is terminal: the run is over)".to_owned()
    } else {
        let moves: Vec<String> = allowed.iter().map(Move::to_string).collect();
        format!(" (allowed: {})", moves.join(", "))
    }
}

impl ErrorCode for RunError {
    fn code(&self) -> &'static str {
        match self {
            RunError::InvalidSchema { .. } => "invalid-communication-schema",
            RunError::InvalidBodySchema { .. } => "invalid-body-schema",
            RunError::MissingInitialState { .. } => "missing-initial-state",
            RunError::UnknownNextState { .. } => "unknown-next-state",
            RunError::DuplicateTransition { .. } => "duplicate-transition",
            RunError::UnreachableState { .. } => "unreachable-state",
            RunError::MoveNotAllowed { .. } => "move-not-allowed",
            RunError::BodyMismatch { .. } => "body-mismatch",
        }
    }

    fn details(&self) -> serde_json::Value {
        use crate::error::Details;
        match self {
            RunError::InvalidSchema { pointer, reason } => Details::new()
                .field("pointer", pointer)
                .field("reason", reason)
                .into(),
            RunError::InvalidBodySchema { pointer, error } => Details::new()
                .field("pointer", pointer)
                .field(
                    "error",
                    &Details::new()
                        .field("code", error.code())
                        .field("message", &error.to_string())
                        .field("details", &error.details()),
                )
                .into(),
            RunError::MissingInitialState { states } => {
                Details::new().field("states", states).into()
            }
            RunError::UnknownNextState {
                state,
                index,
                next_state,
            } => Details::new()
                .field("state", state)
                .field("index", index)
                .field("nextState", next_state)
                .into(),
            RunError::DuplicateTransition {
                state,
                party,
                message_type,
                first,
                index,
            } => Details::new()
                .field("state", state)
                .field("party", party)
                .field("type", message_type)
                .field("first", first)
                .field("index", index)
                .into(),
            RunError::UnreachableState { state } => Details::new().field("state", state).into(),
            RunError::MoveNotAllowed {
                state,
                party,
                message_type,
                terminal,
                allowed,
            } => Details::new()
                .field("state", state)
                .field("party", party)
                .field("type", message_type)
                .field("terminal", terminal)
                .field("allowed", allowed)
                .into(),
            RunError::BodyMismatch {
                state,
                party,
                message_type,
                violations,
                allowed,
            } => Details::new()
                .field("state", state)
                .field("party", party)
                .field("type", message_type)
                .field("violations", violations)
                .field("allowed", allowed)
                .into(),
        }
    }
}
