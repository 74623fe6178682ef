//! agentwire: a protocol core for talking to AI agents.
#![deny(missing_docs)]
#![cfg_attr(not(target_arch = "wasm32"), deny(unsafe_code))]

pub mod body;
pub mod dialect;
pub mod error;
mod exact_json;
pub mod json;
pub mod limits;
pub mod pattern;
pub mod platform;
pub mod run;
pub mod sse;
pub mod tool;
pub mod transport;
pub mod url;
pub mod wire;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::ErrorCode;
