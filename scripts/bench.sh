#!/usr/bin/env bash
# The sweep benchmarks in one run (docs/performance.md): native scalar / SIMD / AVX2 intrinsics with Google
# Benchmark, then wasm scalar / wasm SIMD / plain JavaScript in node; ratios printed. Not part of the tests.
# Usage: scripts/bench.sh [BUILD_DIR, default build/bench]. Needs the wasm module: scripts/build-wasm.sh
# (or LLM_MEMORY_WASM_MODULE=path/to/llm-memory.js).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DLLM_MEMORY_BUILD_BENCHMARKS=ON -DLLM_MEMORY_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j 2 --target llm_memory_sweep_bench
json="$build/sweep_bench.json"
"$build/llm_memory_sweep_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_out="$json" --benchmark_out_format=json
node -e '
  const runs = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).benchmarks
    .filter((b) => b.aggregate_name === "median");
  const rate = (name) => runs.find((b) => b.run_name === name)?.items_per_second;
  const ms = (name) => { const b = runs.find((r) => r.run_name === name); return b.real_time * (b.time_unit === "ms" ? 1 : b.time_unit === "us" ? 1e-3 : 1e-6); };
  console.log("\nnative ratios (median, items per CPU second; n x n grid, K stages):");
  for (const n of [64, 256, 1024])
    for (const k of [1, 2, 3, 4]) {
      const s = rate(`scalar/${n}/${k}`), v = rate(`simd/${n}/${k}`), i = rate(`intrinsics/${n}/${k}`);
      console.log(`  ${n} x ${n}, K ${k}: SIMD / scalar = ${(v / s).toFixed(2)}x` + (i ? `, vector extensions / intrinsics = ${(v / i).toFixed(2)}x` : ""));
    }
  console.log(`  1024 x 1024 grid, 4 stages (the default training step), kernel: ${ms("simd/1024/4").toFixed(3)} ms wall (goal < 2 ms)`);
  console.log(`  1024 x 1024 whole sweep (lower + kernel + frontier): ${ms("whole_sweep_1024").toFixed(3)} ms wall`);
' "$json"
module=${LLM_MEMORY_WASM_MODULE:-dist/llm-memory.js}
if [ -f "$module" ]; then
  echo
  node benchmarks/sweep_bench.mjs "$module"
else
  echo "bench: $module missing; run scripts/build-wasm.sh for the wasm and plain-JS numbers" >&2
fi
