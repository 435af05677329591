#!/usr/bin/env bash
# Builds everything and runs every test: native GoogleTest (unit + golden), the WebAssembly build and the same
# GoogleTest suite under node, the page (dist/), tests/web/ (wasm equals native), then the browser tests
# (tests/browser/) in the background while the same suite runs under ASan + UBSan and the libFuzzer targets run
# for a fixed number of runs.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase prints its wall time, so a slow CI run says where its minutes went (the goal: under 30 minutes on
# a 2-core machine), and the CPU seconds (user + system) of every command finished so far, which a shared
# machine's load does not change.
# (`times` runs in this shell, not in a command substitution, whose subshell has no children of its own.)
phase_times=$(mktemp)
trap 'rm -f "$phase_times"' EXIT
phase() {
  times > "$phase_times"
  local cpu
  cpu=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' \
        "$phase_times")
  echo "test.sh: ${SECONDS} s, ${cpu} s CPU, $*"
}
./scripts/setup.sh
# Every C++ file as the root .clang-format writes it (scripts/format.sh rewrites them).
./scripts/format.sh --check
jobs=$(nproc)
phase "release build"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
phase "release tests"
# GoogleTest cases run as separate processes (gtest_discover_tests): one per core. No two write the same file.
ctest --preset release -j "$jobs"
# The wasm build and its tests, then the page, the node tests and the browser tests. The browser tests spend most of
# their wall time waiting on Chromium and the page (about 250 s of CPU in 330 s of wall on the last runs), so they
# run in the background beside the sanitizer phase below, which runs `nice`d: the CPU-bound builds and tests take
# only the time the browser tests leave (docs/performance.md, "The test command under 30 minutes").
phase "wasm build"
./scripts/build-wasm.sh build/wasm
phase "wasm tests"
ctest --preset wasm -j "$jobs"
# The page: npm packages (only when node_modules is missing or older than package-lock.json) and dist/;
# then the node tests (wasm equals native, URL fixtures, the npm package) and the browser tests in headless
# Chromium.
phase "page"
[ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund
npm run build
# Two test files at a time (node's default on two cores is one): each file starts its own CLI processes, wasm
# instances, Chromium (a fresh profile in a temporary folder) and server (scripts/serve.mjs on a port the system
# picks), writes only to temporary folders or files named after itself (test-artifacts/), and times nothing.
phase "node tests"
LLM_MEMORY_CLI=build/release/llm-memory node --test --test-concurrency=2 tests/web/*.test.mjs
phase "browser tests started (in the background)"
browser_log=$(mktemp)
node --test --test-concurrency=2 tests/browser/ > "$browser_log" 2>&1 &
browser_pid=$!
# A failed sanitizer phase ends the run: the browser tests with it.
trap 'kill "$browser_pid" 2>/dev/null || true; rm -f "$phase_times" "$browser_log"' EXIT
# The same suite built by clang under AddressSanitizer + UndefinedBehaviorSanitizer (so both compilers build
# warning-free), then each fuzzer for a fixed run count, as many at a time as there are cores. One tree serves
# both (preset sanitize): its core compiles once, at -O2 with the fuzzers' coverage instrumentation.
phase "ASan/UBSan build"
cmake --preset sanitize >/dev/null
nice -n 10 cmake --build --preset sanitize -j "$jobs"
phase "ASan/UBSan tests"
nice -n 10 ctest --preset sanitize -j "$jobs"
phase "fuzz"
nice -n 10 ./scripts/fuzz.sh 5000
phase "browser tests (waiting for them)"
browser_status=0
wait "$browser_pid" || browser_status=$?
cat "$browser_log"
if ((browser_status != 0)); then
  echo "test.sh: the browser tests failed (exit status $browser_status; their output above)" >&2
  exit "$browser_status"
fi
phase "done"
