//! agentwire-core: the part of agentwire that runs for every byte of a stream, and the message
//! model it fills: the SSE decoder ([`sse`]), JSON scanning and writing (`json`), the limits
//! ([`limits`]), the Agent API dialect ([`dialect::agent_api`]: its event reader, assembler and
//! models), message bodies and their queries ([`body`], [`pattern`]), and what those share
//! ([`error`], [`wire`], [`platform`]).
//!
//! Its sources are the agentwire package's own `src/` files; this crate root only compiles them as
//! a crate of their own, so that the release profile can build them at opt-level 3 for speed while
//! the rest of agentwire (the other dialects, tools, runs and the wasm binding) is built at `"z"`
//! for size (see the package's `Cargo.toml`). Use it through the `agentwire` crate, which
//! re-exports every module here at the same path (`agentwire::sse`, `agentwire::dialect::agent_api`,
//! …). Items marked `#[doc(hidden)]` are internals shared with agentwire, not API.
#![deny(missing_docs)]
// A build without the Agent API leaves some shared internal helpers unused.
#![cfg_attr(not(feature = "agent-api"), allow(dead_code, unused_imports))]
// No unsafe code but one block, allowed where it is: `json::scan::checked_str` takes a string the
// JSON scanner found to be ASCII as a `str` without checking its UTF-8 again (the event reader
// checks UTF-8 in its own search for a string's end; a separate check was 7% of a per-event stream).
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
#![cfg_attr(agentwire_size, feature(optimize_attribute))]

// Cold code in this crate. The message model's types are defined here, and with them code that no
// function of the streaming path calls: the Agent API's builders and body mapping, body schemas,
// the part checks and name rules, reading a body from JSON, the body queries other than `list`,
// compiling a pattern. Every function of those is `#[inline]`: an inline function is compiled in
// the crate that calls it, so these are compiled in agentwire (the wasm binding, the other
// dialects) at opt-level "z", not here at 3. Measured when it was done: wasm + glue 471.0 -> 452.9
// KB gzipped, the streaming path's instructions unchanged. The files that do this say so at the
// top, and tests/cold_code.rs checks that their functions are `#[inline]`; a function the
// streaming path calls must not be in them.
//
// Cold code the streaming path itself reaches (the Agent API's full event parser, its message and
// response events) is reached through function pointers that the assembler's `#[inline]`
// constructor stores: a function pointer is instantiated where the function taking it is
// compiled, so these too are compiled in agentwire at "z" (`Assembler::new`). A pointer costs
// speed where it runs per event in V8 (the assembler's serde writers so reached measured 3.8%
// slower per event), so only code that runs a few times per message is reached so.
//
// Cold code of the streaming path that is neither: what runs only on an error, on a limit hit or
// once per stream (the errors' `details`, the assembler's issues and caps, `materialize_done` and
// `AgentResponse`'s `Clone`, the JSON syntax checker, the exact float reader's big-number slow
// path, `uuid_v4`). Those functions are marked `#[cfg_attr(agentwire_size, optimize(size))]`:
// scripts/cargo-wasm.sh sets `--cfg agentwire_size` when the pinned nightly builds the module, and
// `#[optimize(size)]` (a nightly attribute, RFC 2412) gives the function the same size attributes
// opt-level "z" gives a whole crate, and fat LTO keeps them. Builds on stable leave the marks out.
// Measured: 311,857 -> 309,539 bytes of gzipped wasm, the streaming path's speed the same (Node
// paired runs, stop 38 in docs/performance-log.md). A function marked so must not run per event
// or per delta.
//
// The size build (`AGENTWIRE_OPT=size`, README "Feature builds") compiles this crate at "z". Its
// hottest functions (the SSE decoder's loop, the event scanner, its layout of text deltas
// (`agent_api::shape`) and its string search, the assembler's content and delta path, the split
// updates' writers: what a CPU profile of the per-event stream put on top) are marked
// `#[cfg_attr(agentwire_size_build, optimize(speed))]`, which drops the size attributes there
// (scripts/cargo-wasm.sh sets that cfg for the size build only): measured, 8 KB more than "z"
// throughout but 1.13x the default build's time per event instead of 1.59x. tests/cold_code.rs
// checks that the marks use the cfgs scripts/cargo-wasm.sh sets.

pub mod body;
pub mod error;
#[doc(hidden)]
pub mod json;
pub mod limits;
pub mod pattern;
pub mod platform;
pub mod sse;
pub mod wire;

/// The dialects agentwire-core holds (agentwire's `dialect` module re-exports them beside the
/// others).
pub mod dialect {
    #[cfg(feature = "agent-api")]
    pub mod agent_api;
}

pub use error::ErrorCode;
