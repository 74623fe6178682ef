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

/// A string given as UTF-16 code units, written as the content of a JSON string (without the
/// quotes) as JavaScript's `JSON.stringify` writes it: a surrogate that is not half of a pair as
/// `\udXXX` (ECMA-262 QuoteJSONString), everything else as serde_json writes it. What a
/// JavaScript server that cuts a string between the halves of a pair sends.
pub fn js_json_string(units: &[u16]) -> String {
    let mut text = String::new();
    for c in char::decode_utf16(units.iter().copied()) {
        match c {
            Ok(c) => {
                let quoted = serde_json::to_string(&c.to_string()).unwrap();
                text.push_str(&quoted[1..quoted.len() - 1]);
            }
            Err(e) => text.push_str(&format!("\\u{:04x}", e.unpaired_surrogate())),
        }
    }
    text
}

/// The UTF-16 code units of `s` cut at the code unit offsets `cuts` (as JavaScript's
/// `s.slice(a, b)` cuts it).
pub fn cut_utf16(s: &str, cuts: &[usize]) -> Vec<Vec<u16>> {
    let units: Vec<u16> = s.encode_utf16().collect();
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(units.len());
    bounds
        .windows(2)
        .map(|w| units[w[0]..w[1]].to_vec())
        .collect()
}
