#!/usr/bin/env bash
# CUDA measurements for docs/validation.md ("CUDA measurements"): Hugging Face models with random weights,
# one training step and one generation each, on a GPU machine with PyTorch, transformers and peft (no network,
# no llm-memory build needed there).
#
#   scripts/measure-cuda.sh [measure_cuda.py options]   on the GPU machine: measures; writes
#                                                        $OUT/measured_cuda.json and $OUT/measure_cuda.log when
#                                                        $OUT is set (the device tool), else
#                                                        tests/validation/measured_cuda.json
#   scripts/measure-cuda.sh --take FILE                  here: checks FILE and copies it to
#                                                        tests/validation/measured_cuda.json for the test
#
# The comparison with the estimate is tests/core/validation_cuda_test.cpp (ctest -R validation_cuda).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=tests/validation/measured_cuda.json

if [ "${1:-}" = "--take" ]; then
  src="${2:?usage: scripts/measure-cuda.sh --take FILE}"
  python3 - "$src" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
if doc.get("dry_run") or "records" not in doc:
    sys.exit(f"measure-cuda: {sys.argv[1]} is not a measurement (dry run or no records)")
measured = [r["name"] for r in doc["records"] if "measured" in r]
other = [f"{r['name']} ({r.get('skipped') or r.get('error')})" for r in doc["records"] if "measured" not in r]
print(f"measure-cuda: {len(measured)} measured on {doc.get('device')}; not measured: {', '.join(other) or 'none'}")
if not measured:
    sys.exit("measure-cuda: nothing was measured")
EOF
  cp "$src" "$dest"
  chmod 644 "$dest"
  echo "measure-cuda: copied to $dest; compare: ctest --test-dir build/<dir> -R validation_cuda --output-on-failure -V"
  exit 0
fi

if [ -n "${OUT:-}" ]; then
  out="$OUT/measured_cuda.json"
  log="$OUT/measure_cuda.log"
else
  out="$dest"
  log=/dev/null
fi
nvidia-smi --query-gpu=name,memory.used,memory.total,driver_version --format=csv 2>&1 | tee -a "$log" || true
"${PYTHON:-python3}" tests/validation/measure_cuda.py "$out" "$@" 2>&1 | tee -a "$log"
