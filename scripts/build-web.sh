#!/usr/bin/env bash
# Builds the static page into dist/: the WebAssembly modules (incremental: CMake rebuilds only what changed),
# then the esbuild bundles (scripts/build-web.mjs): dist/index.html + assets and dist/llm-memory.html, the
# single offline file. `npm run build` runs this.
# Usage: scripts/build-web.sh [WASM_BUILD_DIR]   (default build/wasm, the directory scripts/test.sh uses)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x node_modules/.bin/esbuild ] || npm ci --no-audit --no-fund
# Naming a module target builds the two modules only, not the wasm GoogleTest suite.
./scripts/build-wasm.sh "${1:-build/wasm}" llm_memory_wasm
node scripts/build-web.mjs
