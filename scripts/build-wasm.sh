#!/usr/bin/env bash
# Builds the WebAssembly modules with the CMake preset "wasm" (Emscripten + Embind), copies them with their
# types and the model presets (dist/models/, dist/llm-memory.models.json: llm-memory.js reads them, it compiles
# none in) to dist/, and prints the size budget (module + glue, raw and gzip; goal: under 100 KB gzip).
# Usage: scripts/build-wasm.sh [BUILD_DIR [TARGET...]]
#   BUILD_DIR defaults to build/wasm. Without targets everything is built: the modules and the GoogleTest
#   suite that `ctest --test-dir BUILD_DIR` runs under node; with targets, the modules and those.
#   LLM_MEMORY_WASM_OPT=-O3 builds at -O3 instead of -Oz (docs/performance.md).
#   LLM_MEMORY_DIST=DIR copies the modules there instead of dist/ (to build beside a running dist/).
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

dist=${LLM_MEMORY_DIST:-dist}
mkdir -p "$dist"
module="$build/wasm/module"
cp "$module/llm-memory.wasm" "$dist/"
# The same module in two parts, for the page (scripts/split-wasm.mjs; docs/wasm.md, "The page's module in two").
cp "$module/llm-memory.first.wasm" "$module/llm-memory.rest.wasm" "$dist/"
# The model presets the page's module reads (it compiles none in; core/embed_data.cmake wrote them).
rm -rf "$dist/models"
cp -r "$module/models" "$module/llm-memory.models.json" "$dist/"
# The settings' help texts, which the page's module is compiled without (docs/wasm.md, "Settings docs").
cp "$module/llm-memory.docs.json" "$dist/"
# Emscripten 3.1.6 leaves the glue's local names long; esbuild's minifier (the page's bundler) renames locals
# only, never properties, and takes about 3.4 KB off the gzip budget (docs/performance.md).
[ -x node_modules/.bin/esbuild ] || npm ci --no-audit --no-fund
for js in llm-memory.js llm-memory.single.js; do
  node_modules/.bin/esbuild "$module/$js" --minify --format=esm --legal-comments=none --log-level=error \
    --outfile="$dist/$js" --allow-overwrite
done
cp wasm/llm-memory.d.ts "$dist/llm-memory.d.ts"
cp wasm/llm-memory.d.ts "$dist/llm-memory.single.d.ts"
# dist/ is self-contained: its .js files are ES modules wherever the folder is copied.
echo '{"type": "module"}' > "$dist/package.json"

size() { printf '%-28s %10d B raw %10d B gzip\n' "$1" "$(wc -c < "$2")" "$(gzip -9c "$2" | wc -c)"; }
echo "size budget ($(grep -E '^LLM_MEMORY_WASM_OPT:' "$build/CMakeCache.txt" | cut -d= -f2)):"
size "llm-memory.wasm" "$dist/llm-memory.wasm"
size "llm-memory.js (glue + API)" "$dist/llm-memory.js"
printf '%-28s %10d B raw %10d B gzip (goal < 102400)\n' "module + glue" \
  $(($(wc -c < "$dist/llm-memory.wasm") + $(wc -c < "$dist/llm-memory.js"))) \
  $(($(gzip -9c "$dist/llm-memory.wasm" | wc -c) + $(gzip -9c "$dist/llm-memory.js" | wc -c)))
size "llm-memory.first.wasm (page)" "$dist/llm-memory.first.wasm"
size "llm-memory.rest.wasm (page)" "$dist/llm-memory.rest.wasm"
size "llm-memory.models.json" "$dist/llm-memory.models.json"
size "llm-memory.docs.json" "$dist/llm-memory.docs.json"
size "llm-memory.single.js" "$dist/llm-memory.single.js"
