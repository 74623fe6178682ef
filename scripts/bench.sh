#!/usr/bin/env bash
# The benchmark (issue 8): decode + assemble of the 1,000-message Agent API corpus beside the
# JavaScript anchors of ../shared/bench, in Node and in headless Chromium; memory over a 100 MB
# stream and over 10,000 streams; package sizes (per target, one-dialect builds, twiggy).
# Builds the package first if it is missing or older than its sources. It reports, and fails only
# when a result is wrong or a run breaks, never on timing.
#
#   ./scripts/bench.sh                  everything
#   ./scripts/bench.sh node chromium    only these groups (node, chromium, sizes)
#   AGENTWIRE_BENCH_RUNS=7 AGENTWIRE_BENCH_MODULES=stream,memory AGENTWIRE_BENCH_FEATURES="agent-api"
# Results are also written to target/bench/results.json.
set -euo pipefail
cd "$(dirname "$0")/.."
export AGENTWIRE_SHARED=${AGENTWIRE_SHARED:-$(cd .. && pwd)/shared}

stale=1
if [[ -f pkg/BUILD_INFO.json && -f pkg/web/agentwire_bg.wasm ]]; then
  stale=$(find src core cdylib js/src Cargo.toml Cargo.lock scripts/build.sh scripts/cargo-wasm.sh scripts/order-functions.mjs scripts/shorten-names.mjs scripts/wasm-binary.mjs scripts/declare-missing.mjs -newer pkg/BUILD_INFO.json -print -quit | wc -l)
  # A package built with another AGENTWIRE_OPT (speed or size) is rebuilt too.
  grep -q "\"opt\": \"${AGENTWIRE_OPT:-speed}\"" pkg/BUILD_INFO.json || stale=1
fi
if [[ $stale != 0 ]]; then
  echo "bench: building the package" >&2
  ./scripts/build.sh
fi
[[ -d node_modules/eventsource-parser ]] || npm install --no-audit --no-fund
# The sizes group's report of where the wasm's bytes go: twiggy from crates.io, pinned.
twiggy_version=0.8.0
if [[ $# == 0 || " $* " == *" sizes "* || " $* " == *" profile "* ]] &&
  [[ $(twiggy --version 2>/dev/null | awk '{print $2}') != "$twiggy_version" ]]; then
  echo "bench: installing twiggy $twiggy_version (cargo install)" >&2
  cargo install --quiet --locked twiggy --version "$twiggy_version"
fi
exec node js/bench/run.mjs "$@"
