#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each one.
#   scripts/fuzz.sh            -> 20000 runs per target (what the test command does)
#   scripts/fuzz.sh 600s       -> 600 seconds per target
#   scripts/fuzz.sh 5000000    -> 5 million runs per target
# New inputs found go to build/fuzz/corpus/<target> (the seeds in tests/fuzz/corpus stay untouched).
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-20000}
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
for target in config_json settings estimate decimal safetensors gguf json launch yaml log paste; do
  work="build/fuzz/corpus/$target"
  mkdir -p "$work"
  if [[ $budget == *s ]]; then limit=(-max_total_time="${budget%s}"); else limit=(-runs="$budget"); fi
  dict=(); [[ -f tests/fuzz/$target.dict ]] && dict=(-dict="tests/fuzz/$target.dict")
  # config.json inputs up to 64 KiB: room for arrays nested 32,000 deep (issue 20: 10,000 overflowed the stack
  # under ASan), far past max_json_depth; the other targets read short texts.
  max_len=4096; [[ $target == config_json ]] && max_len=65536
  echo "fuzz: $target (${budget})"
  "build/fuzz/tests/fuzz/fuzz_$target" "${limit[@]}" "${dict[@]}" -max_len="$max_len" -print_final_stats=1 \
    "$work" "tests/fuzz/corpus/$target" 2>&1 | grep -E "^(stat::number_of_executed_units|Done|==[0-9]+==ERROR)|SUMMARY" || true
  # libFuzzer exits non-zero on a finding; re-check explicitly so a crash fails the script.
  "build/fuzz/tests/fuzz/fuzz_$target" -runs=0 "$work" "tests/fuzz/corpus/$target" >/dev/null 2>&1
done
