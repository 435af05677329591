#!/usr/bin/env bash
# Builds everything the page needs and serves dist/ on http://127.0.0.1:8080/ (PORT=... changes the port),
# printing the URL; the page opens on Llama 3 8B, full fine-tune, one H100 80GB. Ctrl-C stops the server.
#   ./scripts/run.sh --cli [ARGS...]   builds and runs the native CLI instead, e.g.
#   ./scripts/run.sh --cli --model llama-2-7b --mode inference --seq 4096
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
if [ "${1:-}" = "--cli" ]; then
  shift
  cmake --preset release >/dev/null
  cmake --build --preset release -j "$(nproc)" --target llm_memory_cli
  if (($#)); then exec build/release/llm-memory "$@"; fi
  exec build/release/llm-memory --model meta-llama-3-8b
fi
./scripts/build-web.sh
exec node scripts/serve.mjs dist "${PORT:-8080}"
