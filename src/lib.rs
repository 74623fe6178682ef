//! agentwire: a protocol core for talking to AI agents.
#![deny(missing_docs)]
#![deny(unsafe_code)]

pub mod body;
pub mod dialect;
pub mod error;
pub mod json;
pub mod pattern;
pub mod platform;
pub mod run;
pub mod sse;
pub mod tool;
pub mod wire;

pub use error::ErrorCode;
