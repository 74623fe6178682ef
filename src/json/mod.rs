//! JSON scanning and writing for the streaming path (the Agent API event reader and assembler).
//!
//! This is the part of `agentwire::json` compiled at opt-level 3; the incremental parser of
//! streamed tool arguments (`PartialJson`) is compiled with the rest of agentwire, for size. Use
//! it through `agentwire::json`, which documents it.

pub(crate) mod scan;
pub(crate) mod write;
