//! The wasm module: links the agentwire library (whose `wasm` module holds every
//! `#[wasm_bindgen]` export) into a cdylib. It is a crate of its own so that the release profile
//! can build it (the crate fat LTO optimizes the whole module as) at opt-level 3 while the library
//! is built at `"z"`: see the release profile in `../Cargo.toml`.
pub use agentwire::*;

/// The module's allocator: Talc (crates.io `talc`, its WebAssembly configuration, which grows the
/// heap in place with `memory.grow`) instead of the standard library's dlmalloc. dlmalloc comes
/// with the precompiled standard library, built for speed: Talc made the module 5.9 KB smaller
/// gzipped and decoding about 2% faster (Node paired runs), with the same memory to within a few
/// percent (the memory benchmarks: 1.50 MiB for a 100 MB stream with `retainMessages: false`,
/// 1.44 with dlmalloc). Native builds and the wasm-bindgen tests (which link the library, not
/// this crate) keep the default allocator.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
