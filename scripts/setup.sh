#!/usr/bin/env bash
# Installs the Debian packages llm-memory needs, only those missing. Safe to run repeatedly.
set -euo pipefail
packages=(cmake g++ clang clang-format make libgtest-dev libgmock-dev libbenchmark-dev libfmt-dev nlohmann-json3-dev
          emscripten node-acorn chromium)
missing=()
# Node.js and npm may come from outside Debian (the machine image ships newer ones): check the commands.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
