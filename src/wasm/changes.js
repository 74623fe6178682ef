// The `PartialChange[]` of a push that only appended to the string the previous push's last change
// was at (most pushes of a streamed string): built here from the text, so the change crosses
// without JSON (Rust: `ChangesToJs` in src/wasm/json.rs). Imported by src/wasm/json.rs
// (wasm-bindgen copies this file next to the glue, under snippets/).

/** `[{op: "append", path, value}]`, the path a copy of `path` (the caller keeps `path`). */
export function appendChange(path, value) {
  return [{ op: "append", path: path.slice(), value }];
}

/** A copy of the path of the last change of `changes` (a non-empty `PartialChange[]`). */
export function lastPath(changes) {
  return changes[changes.length - 1].path.slice();
}
