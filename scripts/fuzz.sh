#!/usr/bin/env bash
# Builds the libFuzzer targets (preset sanitize: clang, ASan + UBSan, the tree whose GoogleTest suite the test command
# runs under the sanitizers) and runs each one, as many at a time as there are cores.
#   scripts/fuzz.sh            -> 20000 runs per target
#   scripts/fuzz.sh 600s       -> 600 seconds per target
#   scripts/fuzz.sh 5000000    -> 5 million runs per target
# New inputs found go to build/sanitize/corpus/<target> (the seeds in tests/fuzz/corpus stay untouched).
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-20000}
# The slowest per input first (paste and log estimate what they read; docs/robustness.md), so that the last ones
# to finish are short. Each target reads and writes its own corpus folder only, so they run side by side.
targets=(paste log config_json estimate settings yaml launch safetensors gguf json decimal)
cmake --preset sanitize >/dev/null
cmake --build --preset sanitize -j "$(nproc)" --target "${targets[@]/#/fuzz_}"
logs=build/sanitize/logs
mkdir -p "$logs"

# One target; its output to $logs/<target>.log, printed when every target is done.
run() {
  local target=$1 work="build/sanitize/corpus/$1" binary="build/sanitize/tests/fuzz/fuzz_$1"
  mkdir -p "$work"
  local limit dict=() max_len=4096
  if [[ $budget == *s ]]; then limit=(-max_total_time="${budget%s}"); else limit=(-runs="$budget"); fi
  [[ -f tests/fuzz/$target.dict ]] && dict=(-dict="tests/fuzz/$target.dict")
  # config.json inputs up to 64 KiB: room for arrays nested 32,000 deep (issue 20: 10,000 overflowed the stack
  # under ASan), far past max_json_depth; the other targets read short texts.
  [[ $target == config_json ]] && max_len=65536
  # The paste box's seeds are its own folder and the recipes the CLI's tests read (tests/cli/recipes), kept once.
  local seeds=("tests/fuzz/corpus/$target")
  [[ $target == paste ]] && seeds+=(tests/cli/recipes)
  echo "fuzz: $target (${budget})"
  "$binary" "${limit[@]}" "${dict[@]}" -max_len="$max_len" -print_final_stats=1 "$work" "${seeds[@]}" \
    2>&1 | grep -E "^(stat::number_of_executed_units|Done|==[0-9]+==ERROR)|SUMMARY" || true
  # libFuzzer exits non-zero on a finding; re-check explicitly so a crash fails the script.
  "$binary" -runs=0 "$work" "${seeds[@]}" >/dev/null 2>&1
}
export -f run
export budget
status=0
printf '%s\n' "${targets[@]}" | xargs -P "$(nproc)" -I{} \
  bash -c 'run "$1" > "$2/$1.log" 2>&1 || { echo "fuzz: $1 FAILED" >> "$2/$1.log"; exit 1; }' _ {} "$logs" || status=$?
for target in "${targets[@]}"; do cat "$logs/$target.log"; done
((status == 0)) || { echo "fuzz: a target failed (FAILED above)" >&2; exit 1; }
