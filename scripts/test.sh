#!/usr/bin/env bash
# Builds everything and runs every test: native GoogleTest (unit + golden) and the sanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
jobs=$(nproc)
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
ctest --preset release
