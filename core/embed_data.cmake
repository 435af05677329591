# SPDX-License-Identifier: MIT
# Writes every core/data/*.json as a raw string literal: one source of truth for CLI and wasm.
# models.json is written model by model instead (id + that model's JSON), so that an estimate parses only the
# preset it names, not the whole catalogue (core/src/presets.cpp; docs/performance.md, "Start-up of the page").
file(GLOB files "${DATA_DIR}/*.json")
list(SORT files)
set(body "// Generated from core/data by core/embed_data.cmake. Do not edit.\n#include \"embedded_data.hpp\"\nnamespace llm_memory::detail {\n")
foreach(f ${files})
  get_filename_component(name "${f}" NAME_WE)
  file(READ "${f}" content)
  if(name STREQUAL "models")
    # CMake re-serialises each entry (keys sorted, numbers written to round-trip exactly): the same values.
    string(JSON count LENGTH "${content}" models)
    math(EXPR last "${count} - 1")
    string(APPEND body "namespace {\nconst embedded_model models[] = {\n")
    foreach(i RANGE ${last})
      string(JSON id GET "${content}" models ${i} id)
      string(JSON entry GET "${content}" models ${i})
      string(REGEX REPLACE "\n[ \t]*" "" entry "${entry}")
      string(APPEND body "    {R\"llm_memory_json(${id})llm_memory_json\", R\"llm_memory_json(${entry})llm_memory_json\"},\n")
    endforeach()
    string(APPEND body "};\n}  // namespace\nconst std::span<const embedded_model> model_entries = models;\n")
    continue()
  endif()
  # Line breaks and indentation go (a JSON string cannot hold a raw line break, so no value changes): the
  # WebAssembly module carries these bytes, about 300 B of its gzip budget.
  string(REGEX REPLACE "\n *" "" content "${content}")
  string(APPEND body "extern const std::string_view ${name}_json;\nconst std::string_view ${name}_json = R\"llm_memory_json(${content})llm_memory_json\";\n")
endforeach()
string(APPEND body "}  // namespace llm_memory::detail\n")
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
