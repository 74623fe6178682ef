//! The wasm module: links the agentwire library (whose `wasm` module holds every
//! `#[wasm_bindgen]` export) into a cdylib. It is a crate of its own so that the release profile
//! can build it (the crate fat LTO optimizes the whole module as) at opt-level 3 while the library
//! is built at `"z"`: see the release profile in `../Cargo.toml`.
pub use agentwire::*;
