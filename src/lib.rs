//! agentwire: a protocol core for talking to AI agents.
#![deny(missing_docs)]
#![deny(unsafe_code)]

pub mod dialect;
pub mod error;
pub mod platform;
pub mod sse;
pub mod wire;

pub use error::ErrorCode;
