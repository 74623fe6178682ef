#!/usr/bin/env bash
# Installs everything the build, the demo and the tests need on a fresh machine (idempotent):
#   the Rust wasm target, the pinned nightly toolchain that builds the wasm module (with rust-src),
#   wasm-bindgen-cli at the crate's exact version, the npm dev tooling, with --browser Debian's
#   chromium and chromium-driver, and with --suite the JSON Schema Test Suite (tests/schema_suite.rs).
# Downloads only from rustup's distribution (the Rust toolchains and targets themselves), crates.io,
# the npm registry, PyPI and Debian's apt (no other prebuilt binaries).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "setup: $*" >&2; }
browser="" suite=""
for arg in "$@"; do
  case $arg in
    --browser) browser=1 ;;
    --suite) suite=1 ;;
    *) echo "setup: unknown option $arg (--browser, --suite)" >&2; exit 2 ;;
  esac
done

rustup target list --installed | grep -qx wasm32-unknown-unknown || {
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
}
for c in rustfmt clippy; do
  rustup component list --installed | grep -q "^$c" || rustup component add "$c"
done
# The pinned nightly that builds the wasm module with its own standard library
# (scripts/cargo-wasm.sh); not with AGENTWIRE_STABLE=1, which builds it with the stable toolchain
# (scripts/fuzz.sh still installs the nightly for itself).
toolchain=$(sed -n 's/^wasm-toolchain = "\(.*\)"/\1/p' Cargo.toml)
if [[ -z ${AGENTWIRE_STABLE:-} ]]; then
  rustup component list --installed --toolchain "$toolchain" 2>/dev/null | grep -q '^rust-src' || {
    say "installing the $toolchain toolchain with rust-src (builds the wasm module)"
    rustup toolchain install "$toolchain" --profile minimal --component rust-src
  }
fi

want=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [[ $have != "$want" ]]; then
  say "installing wasm-bindgen-cli $want (about 3 minutes)"
  cargo install wasm-bindgen-cli --version "$want"
fi

if [[ ! -d node_modules/binaryen || package-lock.json -nt node_modules/.package-lock.json ]]; then
  say "installing npm dev tooling"
  npm ci --no-audit --no-fund --loglevel=error
fi

if [[ -n $browser ]]; then
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    say "installing Debian chromium and chromium-driver"
    sudo=""
    [[ $(id -u) == 0 ]] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
fi
# The JSON Schema Test Suite, as the `jsonschema` source archive on PyPI carries it (its json/
# directory is the suite's repository), checked by SHA-256; fetched with pip in a throwaway venv.
suite_dir=target/json-schema-test-suite
suite_version=4.25.1
suite_sha256=e4a9655ce0da0c0b67a085847e00a3a51449e1157f4f75e9fb5aa545e122eb85
if [[ -n $suite && ! -f $suite_dir/.jsonschema-$suite_version ]]; then
  say "downloading the JSON Schema Test Suite (jsonschema $suite_version's source archive, PyPI)"
  tmp=$(mktemp -d)
  python3 -m venv "$tmp/venv"
  "$tmp/venv/bin/pip" download -q --disable-pip-version-check --no-deps --no-binary :all: \
    "jsonschema==$suite_version" -d "$tmp"
  echo "$suite_sha256  $tmp/jsonschema-$suite_version.tar.gz" | sha256sum --check --quiet
  rm -rf "$suite_dir"
  mkdir -p "$suite_dir"
  tar xzf "$tmp/jsonschema-$suite_version.tar.gz" -C "$suite_dir" --strip-components=3 \
    "jsonschema-$suite_version/json/tests"
  touch "$suite_dir/.jsonschema-$suite_version"
  rm -rf "$tmp"
fi
say "ready"
