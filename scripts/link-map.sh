#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a link command (CMake's RULE_LAUNCH_LINK: the command follows) with its standard output, the link map that
# -Wl,--print-map prints (Emscripten 3.1.6 drops --Map=FILE), written to the file named first (wasm/CMakeLists.txt).
map=$1
shift
exec "$@" >"$map"
