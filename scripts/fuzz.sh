#!/usr/bin/env bash
# Runs every cargo-fuzz target of fuzz/ for a short, bounded time and fails on the first crash.
#   scripts/fuzz.sh [SECONDS] [TARGET...]   SECONDS per target (default 3); all targets by default
# Each target starts from its committed seed corpus (fuzz/corpus/<target>/, read-only here: new
# inputs go to a temporary directory) and runs in one process, one target at a time (the machine is
# shared). A crash leaves its input in fuzz/artifacts/<target>/ and the script exits non-zero.
# Installs the pinned nightly toolchain and cargo-fuzz if they are missing. Targets are built with debug
# assertions (overflow checks) and without a sanitizer: the crate's one unsafe block (a `str` of bytes
# the JSON scanner found ASCII) is checked by a debug assertion these builds keep, and what the
# fuzzers look for is a panic (in wasm, an abort of the module) or a broken property.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-3}
shift || true
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^agentwire-fuzz$')
fi
# On a fresh machine: the pinned nightly toolchain (Cargo.toml's `wasm-toolchain`, from rustup) and
# cargo-fuzz (from crates.io).
toolchain=$(sed -n 's/^wasm-toolchain = "\(.*\)"/\1/p' Cargo.toml)
rustup toolchain list | grep -q "^$toolchain" || rustup toolchain install "$toolchain" --profile minimal
cargo "+$toolchain" fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz --locked
cargo "+$toolchain" fuzz build --debug-assertions --sanitizer none "${targets[@]:0:0}" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in "${targets[@]}"; do
  mkdir -p "$work/$t"
  printf '==> fuzz %s (%ss)\n' "$t" "$seconds" >&2
  if ! cargo "+$toolchain" fuzz run --debug-assertions --sanitizer none "$t" "$work/$t" "fuzz/corpus/$t" -- \
      -max_total_time="$seconds" -print_final_stats=1 \
      >"$work/$t.log" 2>&1; then
    tail -n 60 "$work/$t.log" >&2
    printf 'fuzz target %s crashed; the input is in fuzz/artifacts/%s/\n' "$t" "$t" >&2
    exit 1
  fi
  grep -E '^stat::number_of_executed_units' "$work/$t.log" | sed "s/^/  $t /" >&2 || true
done
