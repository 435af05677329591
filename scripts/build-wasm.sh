#!/usr/bin/env bash
# Builds the WebAssembly modules with the CMake preset "wasm" (Emscripten + Embind), copies them with their
# types to dist/, and prints the size budget (module + glue, raw and gzip; goal: under 100 KB gzip).
# Usage: scripts/build-wasm.sh [BUILD_DIR [TARGET...]]
#   BUILD_DIR defaults to build/wasm. Without targets everything is built: the modules and the GoogleTest
#   suite that `ctest --test-dir BUILD_DIR` runs under node; with targets, the modules and those.
#   LLM_MEMORY_WASM_OPT=-O3 builds at -O3 instead of -Oz (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/wasm}
shift $(($# > 0 ? 1 : 0))
# Emscripten's JS optimiser needs the acorn module (Debian node-acorn).
export NODE_PATH=/usr/share/nodejs
cmake --preset wasm -B "$build" ${LLM_MEMORY_WASM_OPT:+"-DLLM_MEMORY_WASM_OPT=$LLM_MEMORY_WASM_OPT"} >/dev/null
if (($#)); then
  cmake --build "$build" -j "$(nproc)" --target llm_memory_wasm llm_memory_wasm_single "$@"
else
  cmake --build "$build" -j "$(nproc)"
fi

mkdir -p dist
module="$build/wasm/module"
cp "$module/llm-memory.js" "$module/llm-memory.wasm" "$module/llm-memory.single.js" dist/
cp wasm/llm-memory.d.ts dist/llm-memory.d.ts
cp wasm/llm-memory.d.ts dist/llm-memory.single.d.ts
# dist/ is self-contained: its .js files are ES modules wherever the folder is copied.
echo '{"type": "module"}' > dist/package.json

size() { printf '%-28s %10d B raw %10d B gzip\n' "$1" "$(wc -c < "$2")" "$(gzip -9c "$2" | wc -c)"; }
echo "size budget ($(grep -E '^LLM_MEMORY_WASM_OPT:' "$build/CMakeCache.txt" | cut -d= -f2)):"
size "llm-memory.wasm" dist/llm-memory.wasm
size "llm-memory.js (glue + API)" dist/llm-memory.js
printf '%-28s %10d B raw %10d B gzip (goal < 102400)\n' "module + glue" \
  $(($(wc -c < dist/llm-memory.wasm) + $(wc -c < dist/llm-memory.js))) \
  $(($(gzip -9c dist/llm-memory.wasm | wc -c) + $(gzip -9c dist/llm-memory.js | wc -c)))
size "llm-memory.single.js" dist/llm-memory.single.js
