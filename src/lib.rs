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
// No panic on input: in wasm a panic traps and the module is lost for the page. Library code
// returns typed errors instead of `unwrap`, `expect`, `panic!` or `unreachable!` (the tests may
// use them; indexing is checked by the fuzz targets, see scripts/fuzz.sh).
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

// The streaming path and the message model are compiled as their own crate (agentwire-core, crate
// root src/core.rs) so that the release profile can build them for speed and the rest for size;
// they are re-exported here at the paths they would have as modules of this crate.
#[doc(hidden)]
pub use agentwire_core::wire_enum;
pub use agentwire_core::{error, limits, pattern, platform, sse, wire};

#[path = "body/agentwire.rs"]
pub mod body;
#[path = "json/agentwire.rs"]
pub mod json;

pub mod dialect;
pub mod run;
#[cfg_attr(
    not(any(
        feature = "tools",
        feature = "runs",
        feature = "agentx",
        feature = "atlas"
    )),
    allow(dead_code)
)]
mod set;
pub mod tool;
pub mod transport;
pub mod url;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::ErrorCode;
