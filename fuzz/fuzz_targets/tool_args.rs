//! The tool argument validator: any JSON Schema (compiled or refused) and any argument text give
//! `Ok` or a `ToolError` with a readable message, never a panic.
#![no_main]

use agentwire::tool::{ToolDefinition, ToolRegistry};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The schema JSON and the arguments text are separated by a NUL byte.
    let mut it = data.splitn(2, |&b| b == 0);
    let schema = it.next().unwrap_or_default();
    let args = String::from_utf8_lossy(it.next().unwrap_or_default());
    let Ok(parameters) = serde_json::from_slice::<serde_json::Value>(schema) else {
        return;
    };
    let mut registry = ToolRegistry::new();
    let tool = ToolDefinition {
        name: "t".into(),
        description: String::new(),
        parameters,
    };
    if registry.register(tool).is_err() {
        return;
    }
    match registry.validate_arguments_text("t", &args) {
        Ok(v) => assert!(v.is_object()),
        Err(e) => {
            assert!(!e.message.is_empty());
            let _ = serde_json::to_string(&e);
        }
    }
    let _ = registry.validate_arguments_text("unknown", &args);
});
