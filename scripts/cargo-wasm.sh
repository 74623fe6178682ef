#!/usr/bin/env bash
# Compiles the wasm module (the agentwire-wasm package, release, wasm32-unknown-unknown) as the npm
# package ships it; the arguments go to `cargo build` (features, `--config`), and CARGO_TARGET_DIR
# is honoured. Used by scripts/build.sh and the benchmarks (js/bench/sizes.mjs, variants.mjs).
#
# The module is built by the pinned nightly of Cargo.toml's `wasm-toolchain` (scripts/setup.sh
# installs it with rust-src), which rebuilds the standard library with the module (`-Zbuild-std`)
# and with the `immediate-abort` panic strategy: a panic traps at once, without formatting a
# message. In wasm32-unknown-unknown the message went nowhere anyway (no panic hook prints it; the
# module traps with "unreachable" either way), but the panic sites' messages and source
# locations and the code that formatted them were in the module: 12.8 KB of the gzipped wasm
# (docs/performance-log.md, stop 37).
# `--cfg agentwire_size` turns on `#[optimize(size)]` (a nightly attribute) for agentwire-core's
# cold functions, those that run only on errors, limits or once per stream (see src/core.rs).
#   AGENTWIRE_STABLE=1       the default (stable) toolchain and its prebuilt standard library
#   AGENTWIRE_OPT=size       agentwire-core (the streaming path) at opt-level "z" like the rest,
#                            but for its hottest functions, which the nightly's build keeps fast
#                            (`#[optimize(speed)]` under `--cfg agentwire_size_build`): a smaller,
#                            slower module (-10%, 1.1-1.2x the time: the README's "Feature
#                            builds"); AGENTWIRE_OPT=speed (the default) keeps the release
#                            profile's opt-level 3 for it
#   AGENTWIRE_RUSTFLAGS=...  more rustc flags (the benchmarks' variants)
set -euo pipefail
cd "$(dirname "$0")/.."
case ${AGENTWIRE_OPT:-speed} in
  speed) opt=() size_build= ;;
  size)
    opt=(--config 'profile.release.package.agentwire-core.opt-level="z"')
    size_build="--cfg agentwire_size_build"
    ;;
  *)
    echo "cargo-wasm.sh: AGENTWIRE_OPT is speed or size, not '$AGENTWIRE_OPT'" >&2
    exit 2
    ;;
esac
# RUSTFLAGS replaces .cargo/config.toml's flags, so it repeats them.
simd="-C target-feature=+simd128"
args=(build --quiet --lib -p agentwire-wasm --target wasm32-unknown-unknown --release)
if [[ -n ${AGENTWIRE_STABLE:-} ]]; then
  RUSTFLAGS="$simd ${AGENTWIRE_RUSTFLAGS:-}" exec cargo "${args[@]}" "${opt[@]}" "$@"
fi
toolchain=$(sed -n 's/^wasm-toolchain = "\(.*\)"/\1/p' Cargo.toml)
RUSTFLAGS="$simd -Zunstable-options -Cpanic=immediate-abort --cfg agentwire_size $size_build ${AGENTWIRE_RUSTFLAGS:-}" \
  exec cargo "+$toolchain" "${args[@]}" -Zbuild-std=std,panic_abort "${opt[@]}" "$@"
