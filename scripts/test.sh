#!/usr/bin/env bash
# Runs every test on a fresh machine, installing what it needs first:
#   formatting and lints, native Rust tests (unit, integration, doc), the wasm package build,
#   wasm-bindgen tests in Node and in headless Chromium (with a real streaming fetch), the
#   JavaScript and type tests against the built package, the live demo in Chromium (Playwright),
#   conformance with real third-party agent servers, packaging (a fresh Node project, a fresh
#   TypeScript project, a fresh Vite app and a fresh webpack app install the packed tarball), the
#   package's smaller entry points (the Agent API alone, AgentX alone, ACP alone, Atlas alone) and
#   a size build of the Agent API alone, and short fuzzing runs.
# Skip slow groups while iterating with AGENTWIRE_SKIP="conformance packaging features fuzz".
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export AGENTWIRE_SHARED=${AGENTWIRE_SHARED:-$(cd .. && pwd)/shared}

step() { printf '\n==> %s\n' "$*" >&2; }
skip() { [[ " ${AGENTWIRE_SKIP:-} " == *" $1 "* ]]; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

step "set-up"
./scripts/setup.sh --browser --suite

step "format and lints"
cargo fmt --check
cargo clippy --quiet --workspace --all-targets -- -D warnings
cargo clippy --quiet --workspace --lib --target wasm32-unknown-unknown -- -D warnings
# The API docs: no broken intra-doc link (agentwire-core is documented through agentwire, which
# re-exports it).
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps -p agentwire

step "native tests"
cargo test --quiet --workspace

step "build the package"
./scripts/build.sh

step "start the reference agent server"
port=$(free_port)
target/debug/examples/reference_server --port "$port" --pace-ms 5 >target/reference-server.log 2>&1 &
pids+=($!)
export AGENTWIRE_SERVER="http://127.0.0.1:$port"
for _ in $(seq 1 100); do curl -sf "$AGENTWIRE_SERVER/health" >/dev/null && break; sleep 0.1; done
curl -sf "$AGENTWIRE_SERVER/health" >/dev/null

# Every tests/wasm*.rs file: the binding's tests, run by wasm-bindgen-test-runner.
wasm_tests=()
for f in tests/wasm*.rs; do wasm_tests+=(--test "$(basename "$f" .rs)"); done

step "wasm-bindgen tests in Node"
AGENTWIRE_TEST_SERVER=$AGENTWIRE_SERVER cargo test --target wasm32-unknown-unknown "${wasm_tests[@]}"

step "wasm-bindgen tests in headless Chromium"
AGENTWIRE_TEST_SERVER=$AGENTWIRE_SERVER WASM_BINDGEN_USE_BROWSER=1 CHROMEDRIVER=$(command -v chromedriver) \
  cargo test --target wasm32-unknown-unknown "${wasm_tests[@]}"

step "JavaScript tests against the built package"
node --test --test-reporter=spec js/test/unit/

step "type tests"
node js/test/types/run.mjs

step "browser tests (Playwright, Debian Chromium)"
node --test --test-reporter=spec js/test/browser/

if ! skip conformance; then
  step "conformance with real agent servers"
  node --test --test-reporter=spec --test-concurrency=1 js/test/conformance/
fi

if ! skip packaging; then
  step "packaging: the packed tarball in a fresh Node project, TypeScript project, Vite app and webpack app"
  node --test --test-reporter=spec js/test/packaging/
fi

if ! skip features; then
  step "the entry point agentwire/agent-api: the package's build of the Agent API alone (pkg/agent-api)"
  AGENTWIRE_PKG=pkg/agent-api node --test --test-reporter=spec js/test/features/agent-api-only.test.mjs
  step "size build: only the Agent API, the streaming path at opt-level \"z\" (AGENTWIRE_OPT=size)"
  AGENTWIRE_FEATURES=agent-api AGENTWIRE_OPT=size AGENTWIRE_PKG=target/pkg-agent-api-size ./scripts/build.sh
  AGENTWIRE_OPT=size AGENTWIRE_PKG=target/pkg-agent-api-size \
    node --test --test-reporter=spec js/test/features/agent-api-only.test.mjs
  step "the entry point agentwire/agentx: AgentX alone, a build without the Agent API's snippet (pkg/agentx)"
  AGENTWIRE_PKG=pkg/agentx node --test --test-reporter=spec js/test/features/agentx-only.test.mjs
  step "the entry point agentwire/acp: ACP with runs and bodies, without the Agent API (pkg/acp)"
  AGENTWIRE_PKG=pkg/acp node --test --test-reporter=spec js/test/features/acp-only.test.mjs
  step "the entry point agentwire/atlas: Atlas messages with bodies alone (pkg/atlas)"
  AGENTWIRE_PKG=pkg/atlas node --test --test-reporter=spec js/test/features/atlas-only.test.mjs
fi

if ! skip fuzz; then
  step "fuzzing: every cargo-fuzz target briefly (scripts/fuzz.sh; AGENTWIRE_SKIP=fuzz skips it)"
  ./scripts/fuzz.sh 2
fi

step "all tests passed"
