//! Wire protocols ("dialects"): each has a faithful model, a decoder of its stream, an assembler that
//! folds deltas into messages, and builders. Each is a cargo feature (all on by default), so an app
//! can leave out the ones it does not speak.

#[cfg(feature = "acp")]
pub mod acp;
#[cfg(feature = "agent-api")]
pub use agentwire_core::dialect::agent_api;
#[cfg(feature = "agentx")]
pub mod agentx;
#[cfg(feature = "atlas")]
pub mod atlas;
