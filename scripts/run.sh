#!/usr/bin/env bash
# Builds the calculator and runs it on a default model (Llama 3 8B, full fine-tune on one 80 GB GPU).
# Extra arguments are passed to the CLI: ./scripts/run.sh --model llama-2-7b --mode inference --seq 4096
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target llm_memory_cli
if (($#)); then exec build/release/llm-memory "$@"; fi
exec build/release/llm-memory --model meta-llama-3-8b
