#!/usr/bin/env bash
# Sets up what is missing, builds the package and the reference agent server, and serves the live
# demo page. Usage: scripts/demo.sh [PORT]   (default 8787; AGENTWIRE_PACE_MS sets token pacing)
set -euo pipefail
cd "$(dirname "$0")/.."
port=${1:-${AGENTWIRE_PORT:-8787}}
./scripts/setup.sh
# The demo page uses the main entry point: the smaller ones (agentwire/agent-api, agentwire/agentx)
# are not built.
AGENTWIRE_ENTRIES= ./scripts/build.sh
cargo build --quiet --release --example reference_server
echo
echo "  agentwire demo: http://127.0.0.1:$port/   (Ctrl-C to stop)"
echo
exec target/release/examples/reference_server --port "$port" --pace-ms "${AGENTWIRE_PACE_MS:-40}"
