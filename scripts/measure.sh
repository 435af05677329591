#!/usr/bin/env bash
# Re-measures tests/validation/measured.json in PyTorch on the CPU (a few minutes on 2 cores).
# Needs Debian's python3-torch (installed here if missing); CI does not run this: it compares the committed
# measurements with the estimate (tests/core/validation_test.cpp). Method: docs/validation.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! dpkg-query -W -f='${Status}' python3-torch 2>/dev/null | grep -q "install ok installed"; then
  echo "measure: installing python3-torch"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-torch >/dev/null
fi
# Debian's interpreter, where python3-torch lives (a python3 earlier on PATH may be another one).
OMP_NUM_THREADS=2 /usr/bin/python3 tests/validation/measure.py "$@"
