//! agentwire: a protocol core for talking to AI agents.
#![deny(missing_docs)]
// A build with fewer features (see Cargo.toml) leaves some shared internal helpers unused.
#![cfg_attr(
    not(all(
        feature = "agent-api",
        feature = "acp",
        feature = "agentx",
        feature = "atlas",
        feature = "bodies",
        feature = "runs",
        feature = "tools"
    )),
    allow(dead_code, unused_imports)
)]
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
