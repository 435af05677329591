# SPDX-License-Identifier: MIT
# Writes core/data/*.json as raw string literals: one source of truth for CLI and wasm.
#   -DOUT=file.cpp         every file but models.json (the GPU table)
#   -DSTRIP_SOURCES=ON     leaves the devices' "source" fields out (the WebAssembly module)
#   -DMODELS_OUT=file.cpp  models.json, model by model (id + that model's JSON), so that an estimate parses only
#                          the preset it names, not the whole catalogue (core/src/presets.cpp; docs/performance.md,
#                          "Start-up of the page"), with preset_config, the reader of their config.json. Its own
#                          translation unit: the page's wasm module links an empty catalogue instead
#                          (wasm/no_models.cpp) and is handed the presets by JS, as wasm/preset_settings.cpp writes
#                          them from this catalogue.
file(GLOB files "${DATA_DIR}/*.json")
list(SORT files)

# Entry i of models.json as CMake re-serialises it (keys sorted, numbers written to round-trip exactly: the same
# values), without line breaks or indentation: sets `id`, `entry` and `aliases` (a CMake list of the entry's
# "aliases": other ids naming the same preset) in the caller.
function(model_entry content i)
  string(JSON model_id GET "${content}" models ${i} id)
  string(JSON text GET "${content}" models ${i})
  string(REGEX REPLACE "\n[ \t]*" "" text "${text}")
  set(names "")
  string(JSON alias_count ERROR_VARIABLE no_aliases LENGTH "${content}" models ${i} aliases)
  if(NOT no_aliases AND alias_count GREATER 0)
    math(EXPR last_alias "${alias_count} - 1")
    foreach(a RANGE ${last_alias})
      string(JSON name GET "${content}" models ${i} aliases ${a})
      if(NOT name MATCHES "^[a-z0-9][a-z0-9._-]*$")
        message(FATAL_ERROR "core/data/models.json: alias \"${name}\" of \"${model_id}\" is not a file name (a-z, 0-9, . _ -)")
      endif()
      list(APPEND names "${name}")
    endforeach()
  endif()
  if(NOT model_id MATCHES "^[a-z0-9][a-z0-9._-]*$")
    message(FATAL_ERROR "core/data/models.json: id \"${model_id}\" is not a file name (a-z, 0-9, . _ -)")
  endif()
  set(id "${model_id}" PARENT_SCOPE)
  set(entry "${text}" PARENT_SCOPE)
  set(aliases "${names}" PARENT_SCOPE)
endfunction()

function(write_if_changed path body)
  file(WRITE "${path}.tmp" "${body}")
  file(COPY_FILE "${path}.tmp" "${path}" ONLY_IF_DIFFERENT)
  file(REMOVE "${path}.tmp")
endfunction()

set(header "// Generated from core/data by core/embed_data.cmake. Do not edit.\n#include \"embedded_data.hpp\"\nnamespace llm_memory::detail {\n")

if(DEFINED OUT)
  set(body "${header}")
  foreach(f ${files})
    get_filename_component(name "${f}" NAME_WE)
    if(name STREQUAL "models")
      continue()
    endif()
    file(READ "${f}" content)
    # The WebAssembly module leaves out each device's "source" (docs/devices.md lists them; the page shows none):
    # they were half its gzip bytes.
    if(name STREQUAL "gpus" AND STRIP_SOURCES)
      string(JSON gpu_count LENGTH "${content}" gpus)
      math(EXPR last_gpu "${gpu_count} - 1")
      foreach(g RANGE ${last_gpu})
        string(JSON content REMOVE "${content}" gpus ${g} source)
      endforeach()
    endif()
    # Line breaks and indentation go (a JSON string cannot hold a raw line break, so no value changes): the
    # WebAssembly module carries these bytes.
    string(REGEX REPLACE "\n *" "" content "${content}")
    string(APPEND body "extern const std::string_view ${name}_json;\nconst std::string_view ${name}_json = R\"llm_memory_json(${content})llm_memory_json\";\n")
  endforeach()
  string(APPEND body "}  // namespace llm_memory::detail\n")
  write_if_changed("${OUT}" "${body}")
endif()

if(DEFINED MODELS_OUT)
  file(READ "${DATA_DIR}/models.json" models_content)
  string(JSON count LENGTH "${models_content}" models)
  math(EXPR last "${count} - 1")
  string(REPLACE "#include \"embedded_data.hpp\"\n" "#include \"embedded_data.hpp\"\n#include \"llm_memory/config_json.hpp\"\n"
         body "${header}")
  string(APPEND body "result<settings> preset_config(std::string_view config_json) { return parse_config(config_json); }\n")
  string(APPEND body "namespace {\nconst embedded_model models[] = {\n")
  foreach(i RANGE ${last})
    model_entry("${models_content}" ${i})
    set(alias_text "")
    foreach(name ${aliases})
      string(APPEND alias_text "${name} ")
    endforeach()
    string(APPEND body "    {R\"llm_memory_json(${id})llm_memory_json\", R\"llm_memory_json(${entry})llm_memory_json\", \"${alias_text}\"},\n")
  endforeach()
  string(APPEND body "};\n}  // namespace\nconst std::span<const embedded_model> model_entries = models;\n}  // namespace llm_memory::detail\n")
  write_if_changed("${MODELS_OUT}" "${body}")
endif()
