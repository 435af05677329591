#!/usr/bin/env bash
# Builds everything and runs every test: native GoogleTest (unit + golden), the same under ASan + UBSan, the
# libFuzzer targets for a fixed number of runs, then the
# WebAssembly build and the same GoogleTest suite under node, then the page (dist/), tests/web/ (wasm equals
# native) and the browser tests (tests/browser/).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# Every C++ file as the root .clang-format writes it (scripts/format.sh rewrites them).
./scripts/format.sh --check
jobs=$(nproc)
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
ctest --preset release
# The same suite built by clang under AddressSanitizer + UndefinedBehaviorSanitizer (so both compilers build
# warning-free), then each fuzzer for a fixed run count.
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$jobs"
ctest --preset dev
./scripts/fuzz.sh 5000
./scripts/build-wasm.sh build/wasm
ctest --preset wasm
# The page: npm packages (only when node_modules is missing or older than package-lock.json) and dist/;
# then the node tests (wasm equals native, URL fixtures, the npm package) and the browser tests in headless
# Chromium.
[ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund
npm run build
LLM_MEMORY_CLI=build/release/llm-memory node --test tests/web/*.test.mjs
node --test --test-concurrency=1 tests/browser/
