# SPDX-License-Identifier: MIT
# Writes every core/data/*.json as a raw string literal: one source of truth for CLI and wasm.
file(GLOB files "${DATA_DIR}/*.json")
list(SORT files)
set(body "// Generated from core/data by core/embed_data.cmake. Do not edit.\n#include <string_view>\nnamespace llm_memory::detail {\n")
foreach(f ${files})
  get_filename_component(name "${f}" NAME_WE)
  file(READ "${f}" content)
  # Line breaks and indentation go (a JSON string cannot hold a raw line break, so no value changes): the
  # WebAssembly module carries these bytes, about 300 B of its gzip budget.
  string(REGEX REPLACE "\n *" "" content "${content}")
  string(APPEND body "extern const std::string_view ${name}_json;\nconst std::string_view ${name}_json = R\"llm_memory_json(${content})llm_memory_json\";\n")
endforeach()
string(APPEND body "}  // namespace llm_memory::detail\n")
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
