//! Helpers shared by the native integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The read-only `shared/` folder beside the repository (fixtures, peers, bench), or
/// `$AGENTWIRE_SHARED` when set.
pub fn shared_dir() -> PathBuf {
    std::env::var_os("AGENTWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")))
}

/// Bytes of a file under `shared/fixtures/`.
pub fn fixture(path: &str) -> Vec<u8> {
    let p = shared_dir().join("fixtures").join(path);
    std::fs::read(&p).unwrap_or_else(|e| panic!("reading {p:?}: {e}"))
}
